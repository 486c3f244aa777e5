/* cuFile (GPUDirect Storage), loaded at run time (src/cuda/io/cuda-io.h).
 *
 * libcufile is dlopen'ed on first use, so libfovea has no link-time dependency
 * on it: FOVEA_CUFILE_LIBRARY (a path) first, then libcufile.so.0 on the loader's
 * path, then the CUDA toolkit's lib64. The function types come from the real
 * cufile.h (CMake finds it in the toolkit, FOVEA_CUFILE_INCLUDE_DIR or the
 * nvidia-cufile wheel, and defines FOVEA_HAVE_CUFILE_H); without the header this
 * file builds to "not built" and every file takes the POSIX path.
 *
 * The driver is opened once (cuFileDriverOpen) and left open for the process.
 * Its mode: GDS when the nvidia-fs kernel driver is loaded (the driver
 * properties carry its version; 0.0 means absent, as /proc/driver/nvidia-fs is),
 * compatibility mode otherwise (cuFile then reads through host bounce buffers
 * itself). Nothing here prints; cuFile may write its own log (cufile.log, see
 * cufile.json's logging settings). */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "dl.h"
#include "cuda/cuda-kernels.h"
#include "cuda/io/cuda-io.h"
#include "core/config.h"

#ifdef FOVEA_HAVE_CUFILE_H

#include <cuda_runtime_api.h>
#include <cufile.h>

#define FV__CUFILE_MAX_CALL ((size_t)1 << 30) /* bytes per cuFileRead / cuFileWrite */

static struct {
    __typeof__(&cuFileDriverOpen) driver_open;
    __typeof__(&cuFileDriverGetProperties) driver_get_properties;
    __typeof__(&cuFileHandleRegister) handle_register;
    __typeof__(&cuFileHandleDeregister) handle_deregister;
    __typeof__(&cuFileRead) read;
    __typeof__(&cuFileWrite) write;
} g_cf;

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static int g_mode = FV__CUFILE_NONE;
static char g_status[512];

static const char *
cf_err(CUfileError_t s)
{
    return cufileop_status_error(s.err);
}

static void *
cf_load(char *why, size_t why_len)
{
    const char *env = fv__env(FV__ENV_CUFILE_LIBRARY);
    const char *names[] = { env,
                            "libcufile.so.0",
                            "libcufile.so",
                            "/usr/local/cuda/lib64/libcufile.so.0",
                            "/usr/local/cuda/targets/x86_64-linux/lib/libcufile.so.0",
                            "/usr/local/cuda/targets/sbsa-linux/lib/libcufile.so.0" };
    return fv__dl_open("cufile", names, sizeof names / sizeof *names, why, why_len);
}

static void
cf_init_once(void)
{
    void *lib;
    if (!fv__cuda_init()) {
        snprintf(g_status, sizeof g_status, "unavailable: no usable GPU (%s)", fv__cuda_reason());
        return;
    }
    char why[256];
    if (!(lib = cf_load(why, sizeof why))) {
        snprintf(g_status, sizeof g_status,
                 "unavailable: libcufile.so.0 not found (%s; set FOVEA_CUFILE_LIBRARY to its path)", why);
        return;
    }
#define FV__CF_SYM(field, name)                                                           \
    do {                                                                                  \
        *(void **)&g_cf.field = dlsym(lib, name);                                         \
        if (!g_cf.field) {                                                                \
            snprintf(g_status, sizeof g_status, "unavailable: libcufile lacks %s", name); \
            return;                                                                       \
        }                                                                                 \
    } while (0)
    FV__CF_SYM(driver_open, "cuFileDriverOpen");
    FV__CF_SYM(driver_get_properties, "cuFileDriverGetProperties");
    FV__CF_SYM(handle_register, "cuFileHandleRegister");
    FV__CF_SYM(handle_deregister, "cuFileHandleDeregister");
    FV__CF_SYM(read, "cuFileRead");
    FV__CF_SYM(write, "cuFileWrite");
#undef FV__CF_SYM

    /* cuFile uses the current device's primary context */
    int prev = -1;
    if (fv__cuda_enter(0, &prev) != FV_OK) {
        snprintf(g_status, sizeof g_status, "unavailable: %s", fv_error_message());
        fv_error_clear();
        return;
    }
    CUfileError_t s = g_cf.driver_open();
    fv__cuda_leave(prev);
    if (s.err != CU_FILE_SUCCESS) {
        snprintf(g_status, sizeof g_status, "unavailable: cuFileDriverOpen: %s (%d)", cf_err(s), (int)s.err);
        return;
    }
    CUfileDrvProps_t props;
    memset(&props, 0, sizeof props);
    s = g_cf.driver_get_properties(&props);
    int have_props = s.err == CU_FILE_SUCCESS;
    int nvfs = have_props && (props.nvfs.major_version || props.nvfs.minor_version);
    int proc_nvfs = access("/proc/driver/nvidia-fs/version", R_OK) == 0;
    if (nvfs) {
        g_mode = FV__CUFILE_GDS;
        snprintf(g_status, sizeof g_status, "gds: cuFile with nvidia-fs %u.%u", props.nvfs.major_version,
                 props.nvfs.minor_version);
    } else {
        g_mode = FV__CUFILE_COMPAT;
        snprintf(g_status, sizeof g_status,
                 "compat: cuFile runs in compatibility mode (%s; /proc/driver/nvidia-fs/version %s): "
                 "no GPUDirect, reads go through host buffers",
                 have_props ? "driver properties report no nvidia-fs" : "cuFileDriverGetProperties failed",
                 proc_nvfs ? "present" : "missing");
    }
}

int
fv__cufile_mode(void)
{
    pthread_once(&g_once, cf_init_once);
    return g_mode;
}

const char *
fv__cufile_status(void)
{
    pthread_once(&g_once, cf_init_once);
    return g_status;
}

fv_status
fv__cufile_register(int fd, void **handle)
{
    CUfileDescr_t d;
    CUfileHandle_t h = NULL;
    *handle = NULL;
    if (fv__cufile_mode() == FV__CUFILE_NONE)
        return fv_error_set(FV_EUNSUPPORTED, "cufile", "%s", g_status);
    memset(&d, 0, sizeof d); /* fs_ops NULL: the kernel's filesystem */
    d.type = CU_FILE_HANDLE_TYPE_OPAQUE_FD;
    d.handle.fd = fd;
    CUfileError_t s = g_cf.handle_register(&h, &d);
    if (s.err != CU_FILE_SUCCESS)
        return fv_error_set(FV_EIO, "cufile", "cuFileHandleRegister: %s (%d)", cf_err(s), (int)s.err);
    *handle = h;
    return FV_OK;
}

void
fv__cufile_deregister(void *handle)
{
    if (handle && g_cf.handle_deregister)
        g_cf.handle_deregister((CUfileHandle_t)handle);
}

static fv_status
cf_io_error(const char *call, ssize_t r, uint64_t off)
{
    if (r == -1)
        return fv_error_set(FV_EIO, "cufile", "%s(offset %llu): %s", call, (unsigned long long)off, strerror(errno));
    int code = r < -INT_MAX ? INT_MAX : (int)-r; /* a CUfileOpError, or an errno */
    return fv_error_set(FV_EIO, "cufile", "%s(offset %llu): %s (%ld)", call, (unsigned long long)off,
                        IS_CUFILE_ERR(code) ? CUFILE_ERRSTR(code) : strerror(code), (long)r);
}

/* cuFile is not stream-ordered: first let default-stream work on the buffer finish */
static fv_status
cf_enter(int device, int *prev)
{
    fv_status st = fv__cuda_enter(device, prev);
    if (st != FV_OK)
        return st;
    cudaError_t e = cudaStreamSynchronize(NULL);
    if (e != cudaSuccess) {
        fv__cuda_leave(*prev);
        *prev = -1;
        return fv__cuda_error("cudaStreamSynchronize", e);
    }
    return FV_OK;
}

/* cuFileRead (write = 0) or cuFileWrite of count bytes at off, in calls of at
 * most FV__CUFILE_MAX_CALL bytes; *done: the bytes moved. */
static fv_status
cf_transfer(void *handle, int device, void *buf, size_t count, uint64_t off, size_t *done, int write)
{
    int prev = -1;
    fv_status st;
    *done = 0;
    if ((st = cf_enter(device, &prev)) != FV_OK)
        return st;
    while (*done < count) {
        size_t n = count - *done < FV__CUFILE_MAX_CALL ? count - *done : FV__CUFILE_MAX_CALL;
        ssize_t r = write ? g_cf.write((CUfileHandle_t)handle, buf, n, (off_t)(off + *done), (off_t)*done)
                          : g_cf.read((CUfileHandle_t)handle, buf, n, (off_t)(off + *done), (off_t)*done);
        if (r < 0) {
            st = cf_io_error(write ? "cuFileWrite" : "cuFileRead", r, off + *done);
            break;
        }
        if (r == 0) { /* a read: end of file; a non-empty write: no progress */
            if (write)
                st = fv_error_set(FV_EIO, "cufile", "cuFileWrite(offset %llu): wrote nothing",
                                  (unsigned long long)(off + *done));
            break;
        }
        *done += (size_t)r;
    }
    fv__cuda_leave(prev);
    return st;
}

fv_status
fv__cufile_read(void *handle, int device, void *buf, size_t count, uint64_t off, size_t *done)
{
    return cf_transfer(handle, device, buf, count, off, done, 0);
}

fv_status
fv__cufile_write(void *handle, int device, const void *buf, size_t count, uint64_t off, size_t *done)
{
    return cf_transfer(handle, device, (void *)buf, count, off, done, 1);
}

#else /* !FOVEA_HAVE_CUFILE_H */

#define FV__CUFILE_NOT_BUILT \
    "unavailable: fovea was built without cufile.h (install the nvidia-cufile wheel or set FOVEA_CUFILE_INCLUDE_DIR)"

int
fv__cufile_mode(void)
{
    return FV__CUFILE_NONE;
}
const char *
fv__cufile_status(void)
{
    return FV__CUFILE_NOT_BUILT;
}

fv_status
fv__cufile_register(int fd, void **handle)
{
    (void)fd;
    *handle = NULL;
    return fv_error_set(FV_EUNSUPPORTED, "cufile", "%s", FV__CUFILE_NOT_BUILT);
}

void
fv__cufile_deregister(void *handle)
{
    (void)handle;
}

fv_status
fv__cufile_read(void *handle, int device, void *buf, size_t count, uint64_t off, size_t *done)
{
    *done = 0;
    return fv_error_set(FV_EUNSUPPORTED, "cufile", "%s", FV__CUFILE_NOT_BUILT);
}

fv_status
fv__cufile_write(void *handle, int device, const void *buf, size_t count, uint64_t off, size_t *done)
{
    *done = 0;
    return fv_error_set(FV_EUNSUPPORTED, "cufile", "%s", FV__CUFILE_NOT_BUILT);
}

#endif
