/* Helpers shared by the fuzz targets and the corpus generator (header-only):
 *   fz_file()   the fuzz input as a file the library can open by path (a memfd
 *               reached through /proc/self/fd, else a temporary file), reused
 *               across iterations;
 *   tfw_*       the tests' TIFF / BigTIFF writer (tests/c/tiff-writer.h). */
#ifndef FV_FUZZ_UTIL_H
#define FV_FUZZ_UTIL_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* ---- the input as a file ------------------------------------------------------------ */

static int fz_fd = -1;
static char fz_path[4096];

static const char *
fz_file(const uint8_t *data, size_t size)
{
    if (fz_fd < 0) {
#ifdef MFD_CLOEXEC
        fz_fd = memfd_create("fovea-fuzz", MFD_CLOEXEC);
        if (fz_fd >= 0) {
            snprintf(fz_path, sizeof fz_path, "/proc/self/fd/%d", fz_fd);
            if (access(fz_path, R_OK) != 0) {   /* no /proc: fall back to a file */
                close(fz_fd);
                fz_fd = -1;
            }
        }
#endif
        if (fz_fd < 0) {
            const char *dir = getenv("TMPDIR");
            snprintf(fz_path, sizeof fz_path, "%s/fovea-fuzz-XXXXXX", dir && *dir ? dir : "/tmp");
            fz_fd = mkstemp(fz_path);
            if (fz_fd < 0) {
                perror("fovea fuzz: cannot create the input file");
                abort();
            }
        }
    }
    if (ftruncate(fz_fd, 0) != 0)
        abort();
    size_t done = 0;
    while (done < size) {
        ssize_t n = pwrite(fz_fd, data + done, size - done, (off_t)done);
        if (n <= 0)
            abort();
        done += (size_t)n;
    }
    return fz_path;
}

#include "tiff-writer.h"   /* tests/c: the tests' one TIFF writer (tfw_*) */

#endif
