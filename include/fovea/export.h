/* Symbol visibility for the public C API. */
#ifndef FOVEA_EXPORT_H
#define FOVEA_EXPORT_H

#if defined(FOVEA_STATIC)
#define FV_API
#elif defined(_WIN32)
#ifdef FOVEA_BUILDING
#define FV_API __declspec(dllexport)
#else
#define FV_API __declspec(dllimport)
#endif
#else
#define FV_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
#define FV_EXTERN_C_BEGIN extern "C" {
#define FV_EXTERN_C_END }
#else
#define FV_EXTERN_C_BEGIN
#define FV_EXTERN_C_END
#endif

#endif
