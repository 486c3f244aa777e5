/* Library version. The Python package reads FV_VERSION_STRING from this file. */
#ifndef FOVEA_VERSION_H
#define FOVEA_VERSION_H

#define FV_VERSION_MAJOR 0
#define FV_VERSION_MINOR 1
#define FV_VERSION_PATCH 0
#define FV_VERSION_STRING "0.1.0"

#endif
