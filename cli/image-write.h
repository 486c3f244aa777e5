#ifndef FOVEA_CLI_IMAGE_WRITE_H
#define FOVEA_CLI_IMAGE_WRITE_H

#include <stddef.h>
#include <stdint.h>

/* Write pixels (h, w, c) of 1 or 2 bytes per sample to .png, .tiff or .npy (by the
 * path's extension). 0 on success; -1 with a message in err. */
int fv_cli_write_image(const char *path, const uint8_t *px, int64_t w, int64_t h, int c, int bytes, char *err,
                       size_t errlen);

#endif
