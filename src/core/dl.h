/* Run-time loading of optional shared libraries (libnvjpeg, libcufile), in one
 * place, so that how fovea loads them is fixed and checkable (issue 26):
 *  - on first use only, never at library load or `import fovea`;
 *  - RTLD_NOW | RTLD_LOCAL: their symbols never enter the process's global scope,
 *    where they could interpose on another library's (CuPy, PyTorch, JAX, cuCIM,
 *    nvImageCodec and numba load their own copies of the same libraries);
 *  - from a list of candidates (sonames first, then known directories);
 *  - recorded: fv__dl_loaded lists what was loaded, by which name, from which
 *    file, with which flags (Python: fovea._fovea._loaded_libraries()).
 * The static CUDA runtime loads the driver (libcuda.so.1) on its own; nothing
 * else in fovea calls dlopen. */
#ifndef FV_DL_H
#define FV_DL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Opens the first of candidates[0..n) (NULL or empty entries skipped) that loads,
 * RTLD_NOW | RTLD_LOCAL, and records it under `what`. Returns the handle, or NULL
 * with dlerror()'s text of the first failure in why (which may be NULL). The
 * library stays loaded for the process's lifetime (never dlclose'd). */
void *fv__dl_open(const char *what, const char *const *candidates, size_t n, char *why, size_t why_len);

typedef struct fv__dl_record {
    const char *what;      /* the caller's name for it ("nvjpeg", "cufile") */
    const char *requested; /* the candidate that loaded                     */
    const char *path;      /* the file it came from (dlinfo link map)       */
    int flags;             /* the dlopen flags used                         */
} fv__dl_record;

/* Copies up to cap records (the loading order) and returns how many exist. */
size_t fv__dl_loaded(fv__dl_record *out, size_t cap);

#ifdef __cplusplus
}
#endif

#endif
