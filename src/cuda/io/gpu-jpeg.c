/* GPU JPEG decoding with nvJPEG's batched API (the contract is in gpu-jpeg.h).
 *
 * Two halves:
 *  - host-side stream parsing (fv__jpeg_probe, fv__jpeg_splice_tables and the
 *    structural check that decode runs on every stream), in gpu-jpeg-parse.c:
 *    plain C, always compiled in CUDA builds, fuzz-safe (every length is
 *    bounds-checked);
 *  - the decoder: libnvjpeg is dlopen'ed once, every entry point resolved with
 *    dlsym into pointers typed from nvjpeg.h. Built only when nvjpeg.h was found
 *    at configure time (FOVEA_HAVE_NVJPEG); otherwise a stub that says so.
 *
 * Backends: per device, one nvJPEG handle for the process lifetime, created with
 * NVJPEG_BACKEND_HARDWARE (the A100/H100 JPEG engines) when that works, else
 * GPU_HYBRID, else DEFAULT. With the hardware handle every stream is parsed
 * (nvjpegJpegStreamParse) and checked with nvjpegDecodeBatchedSupported; the
 * streams the engines cannot take (progressive is already refused by the probe;
 * extended-sequential SOF1, 4:1:1 / 4:1:0, multi-scan baseline, ...) go to a
 * second, GPU_HYBRID handle (created on first need, also process lifetime) in a
 * second batch on the same CUDA stream. If the hardware handle refuses an output
 * format at batch initialisation, the whole batch goes to the second handle.
 *
 * Each decoder owns one batched state per handle it used; a state is
 * re-initialised only when the batch size or the output format changes, or after
 * a failed batch. Memory comes from nvJPEG's default allocators (cudaMalloc /
 * cudaHostAlloc); nothing here synchronises the device.
 *
 * Corrupt data: nvJPEG (the hardware engines especially) does not promise to
 * notice damaged entropy-coded data, so decode first walks each stream on the
 * host: markers after SOS must be RSTn, stuffed bytes or legal between-scan
 * segments, and an EOI must come before the end. Such streams fail with
 * FV_EFORMAT naming the item, before anything is queued. Damage that keeps the
 * marker structure intact decodes to wrong pixels without an error, as it does
 * with libjpeg (which only warns). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/io/gpu-jpeg-internal.h"

#if FOVEA_HAVE_NVJPEG
/* ==== the decoder ==================================================================== */

#include <dlfcn.h>

#include "dl.h"

#include <cuda_runtime_api.h>
#include <nvjpeg.h>

#include "cuda/cuda-kernels.h"
#include "core/config.h"

#define FV__GJ_MAX_DEVICES 64

/* Re-raise the current error with "item i: " in front (the message is copied first:
 * fv_error_set writes the buffer that fv_error_message reads). */
static fv_status
item_error(fv_status st, int i)
{
    char msg[512];
    snprintf(msg, sizeof msg, "%s", fv_error_message());
    /* drop our own domain prefix from the inner message */
    const char *m =
        strncmp(msg, FV__GJ_DOMAIN ": ", sizeof FV__GJ_DOMAIN + 1) == 0 ? msg + sizeof FV__GJ_DOMAIN + 1 : msg;
    return fv_error_set(st, FV__GJ_DOMAIN, "item %d: %s", i, m);
}

/* every nvJPEG function used, resolved by name */
#define FV__NVJPEG_FUNCS(X)          \
    X(nvjpegGetProperty)             \
    X(nvjpegCreateEx)                \
    X(nvjpegDestroy)                 \
    X(nvjpegJpegStateCreate)         \
    X(nvjpegJpegStateDestroy)        \
    X(nvjpegJpegStreamCreate)        \
    X(nvjpegJpegStreamDestroy)       \
    X(nvjpegJpegStreamParse)         \
    X(nvjpegDecodeBatchedSupported)  \
    X(nvjpegDecodeBatchedInitialize) \
    X(nvjpegDecodeBatched)

static struct {
#define FV__NJ_MEMBER(f) __typeof__(&f) f;
    FV__NVJPEG_FUNCS(FV__NJ_MEMBER)
#undef FV__NJ_MEMBER
} nj;

static pthread_once_t g_load_once = PTHREAD_ONCE_INIT;
static int g_loaded;
static char g_load_reason[512];

static pthread_mutex_t g_handles_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    int tried[2]; /* 0: primary, 1: fallback (GPU_HYBRID)     */
    nvjpegHandle_t h[2];
    nvjpegBackend_t be[2];
    nvjpegStatus_t err[2]; /* why creation failed                      */
} g_dev[FV__GJ_MAX_DEVICES];
static int g_live; /* decoders alive (under g_handles_lock)    */

static void
load_once(void)
{
    const char *names[4];
    char home_path[512];
    const char *home = fv__env(FV__ENV_CUDA_HOME);
    void *lib = NULL;
    char first_err[256] = "";
    int nn = 0;

    names[nn++] = "libnvjpeg.so.13";
    if (home && *home &&
        snprintf(home_path, sizeof home_path, "%s/lib64/libnvjpeg.so.13", home) < (int)sizeof home_path)
        names[nn++] = home_path;
    names[nn++] = "/usr/local/cuda/lib64/libnvjpeg.so.13";
    names[nn++] = "libnvjpeg.so";
    if (!(lib = fv__dl_open("nvjpeg", names, (size_t)nn, first_err, sizeof first_err))) {
        snprintf(g_load_reason, sizeof g_load_reason, "libnvjpeg.so.13 could not be loaded (%s)", first_err);
        return;
    }
#define FV__NJ_RESOLVE(f)                                                                        \
    do {                                                                                         \
        void *sym_ = dlsym(lib, #f);                                                             \
        if (!sym_) {                                                                             \
            snprintf(g_load_reason, sizeof g_load_reason, "libnvjpeg has no %s (too old?)", #f); \
            return; /* stays loaded (fv__dl_loaded lists it), unused */                          \
        }                                                                                        \
        memcpy(&nj.f, &sym_, sizeof sym_);                                                       \
    } while (0);
    FV__NVJPEG_FUNCS(FV__NJ_RESOLVE)
#undef FV__NJ_RESOLVE
    g_loaded = 1; /* the library stays loaded for the process lifetime */
}

int
fv__gpujpeg_available(char *why, size_t n)
{
    if (!fv__cuda_init()) {
        if (why && n)
            snprintf(why, n, "no usable GPU: %s", fv__cuda_reason());
        return 0;
    }
    pthread_once(&g_load_once, load_once);
    if (!g_loaded) {
        if (why && n)
            snprintf(why, n, "%s", g_load_reason);
        return 0;
    }
    if (why && n)
        why[0] = 0;
    return 1;
}

static const char *
nj_status_name(nvjpegStatus_t s)
{
    switch (s) {
    case NVJPEG_STATUS_SUCCESS:
        return "NVJPEG_STATUS_SUCCESS";
    case NVJPEG_STATUS_NOT_INITIALIZED:
        return "NVJPEG_STATUS_NOT_INITIALIZED";
    case NVJPEG_STATUS_INVALID_PARAMETER:
        return "NVJPEG_STATUS_INVALID_PARAMETER";
    case NVJPEG_STATUS_BAD_JPEG:
        return "NVJPEG_STATUS_BAD_JPEG";
    case NVJPEG_STATUS_JPEG_NOT_SUPPORTED:
        return "NVJPEG_STATUS_JPEG_NOT_SUPPORTED";
    case NVJPEG_STATUS_ALLOCATOR_FAILURE:
        return "NVJPEG_STATUS_ALLOCATOR_FAILURE";
    case NVJPEG_STATUS_EXECUTION_FAILED:
        return "NVJPEG_STATUS_EXECUTION_FAILED";
    case NVJPEG_STATUS_ARCH_MISMATCH:
        return "NVJPEG_STATUS_ARCH_MISMATCH";
    case NVJPEG_STATUS_INTERNAL_ERROR:
        return "NVJPEG_STATUS_INTERNAL_ERROR";
    case NVJPEG_STATUS_IMPLEMENTATION_NOT_SUPPORTED:
        return "NVJPEG_STATUS_IMPLEMENTATION_NOT_SUPPORTED";
    case NVJPEG_STATUS_INCOMPLETE_BITSTREAM:
        return "NVJPEG_STATUS_INCOMPLETE_BITSTREAM";
    default:
        return "unknown nvJPEG status";
    }
}

static fv_status
nj_error(nvjpegStatus_t s, const char *fmt_call, const char *backend, int item)
{
    fv_status st;
    switch (s) {
    case NVJPEG_STATUS_BAD_JPEG:
    case NVJPEG_STATUS_JPEG_NOT_SUPPORTED:
    case NVJPEG_STATUS_INCOMPLETE_BITSTREAM:
        st = FV_EFORMAT;
        break;
    case NVJPEG_STATUS_ALLOCATOR_FAILURE:
        st = FV_ENOMEM;
        break;
    case NVJPEG_STATUS_INVALID_PARAMETER:
        st = FV_EINVAL;
        break;
    default:
        st = FV_ECUDA;
        break;
    }
    if (item >= 0)
        return fv_error_set(st, FV__GJ_DOMAIN, "item %d: %s (%s backend): %s", item, fmt_call, backend,
                            nj_status_name(s));
    return fv_error_set(st, FV__GJ_DOMAIN, "%s (%s backend): %s", fmt_call, backend, nj_status_name(s));
}

static const char *
backend_name(nvjpegBackend_t be)
{
    switch (be) {
    case NVJPEG_BACKEND_HARDWARE:
        return "hardware";
    case NVJPEG_BACKEND_GPU_HYBRID:
        return "gpu-hybrid";
    default:
        return "default";
    }
}

static nvjpegStatus_t
create_handle(nvjpegBackend_t be, nvjpegHandle_t *h)
{
    /* strict: refuse out-of-spec streams instead of guessing (the caller then
     * decodes them on the CPU); interpolated chroma upsampling, as libjpeg's
     * default "fancy" upsampling (the CPU path). Each flag is dropped again for a
     * library or backend that refuses it. */
    static const unsigned flags[] = { NVJPEG_FLAGS_BITSTREAM_STRICT | NVJPEG_FLAGS_UPSAMPLING_WITH_INTERPOLATION,
                                      NVJPEG_FLAGS_BITSTREAM_STRICT, NVJPEG_FLAGS_DEFAULT };
    nvjpegStatus_t s = NVJPEG_STATUS_NOT_INITIALIZED;
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
        *h = NULL;
        if ((s = nj.nvjpegCreateEx(be, NULL, NULL, flags[i], h)) == NVJPEG_STATUS_SUCCESS)
            return s;
    }
    *h = NULL;
    return s;
}

/* The device's handle `which` (0 primary, 1 fallback); the device must be current.
 * Handles live until fv__gpujpeg_release_handles finds no decoder alive. */
static fv_status
device_handle(int device, int which, nvjpegHandle_t *h, nvjpegBackend_t *be)
{
    fv_status st = FV_OK;
    pthread_mutex_lock(&g_handles_lock);
    if (!g_dev[device].tried[which]) {
        static const nvjpegBackend_t order0[] = { NVJPEG_BACKEND_HARDWARE, NVJPEG_BACKEND_GPU_HYBRID,
                                                  NVJPEG_BACKEND_DEFAULT };
        static const nvjpegBackend_t order1[] = { NVJPEG_BACKEND_GPU_HYBRID, NVJPEG_BACKEND_DEFAULT };
        const nvjpegBackend_t *order = which ? order1 : order0;
        int norder = which ? 2 : 3;
        /* FOVEA_NVJPEG_BACKEND=hybrid (or default) skips the hardware engine: its
         * writes are invisible to compute-sanitizer's initcheck, and it helps
         * telling a hardware-decoder problem from ours */
        const char *env = which ? NULL : fv__env(FV__ENV_NVJPEG_BACKEND);
        if (env && (!strcmp(env, "hybrid") || !strcmp(env, "gpu_hybrid"))) {
            order = order1;
            norder = 2;
        } else if (env && !strcmp(env, "default")) {
            order = order1 + 1;
            norder = 1;
        }
        nvjpegStatus_t s = NVJPEG_STATUS_NOT_INITIALIZED;
        for (int i = 0; i < norder; i++) {
            nvjpegHandle_t hh = NULL;
            s = create_handle(order[i], &hh);
            if (s == NVJPEG_STATUS_SUCCESS) {
                g_dev[device].h[which] = hh;
                g_dev[device].be[which] = order[i];
                break;
            }
        }
        g_dev[device].err[which] = s;
        g_dev[device].tried[which] = 1;
        (void)cudaGetLastError(); /* a failed hardware probe must not leave an error behind */
    }
    *h = g_dev[device].h[which];
    *be = g_dev[device].be[which];
    if (!*h)
        st = fv_error_set(FV_EDEVICE, FV__GJ_DOMAIN, "cuda:%d: nvjpegCreateEx failed for every backend: %s", device,
                          nj_status_name(g_dev[device].err[which]));
    pthread_mutex_unlock(&g_handles_lock);
    return st;
}

typedef struct gj_lane { /* one handle's batched state in a decoder */
    nvjpegHandle_t h;
    nvjpegBackend_t be;
    nvjpegJpegState_t state;
    int init_n; /* batch size it was initialised for, -1 none */
    int init_fmt;
} gj_lane;

struct fv__gpujpeg {
    int device;
    gj_lane lane[2];       /* 0: primary handle, 1: fallback (lazy)            */
    nvjpegJpegStream_t js; /* parse + support check (hardware primary only)    */
    cudaEvent_t done;      /* recorded after each decode; free waits for it    */
    int recorded;
    int cap;                   /* scratch capacity (items)                         */
    nvjpegImage_t *img;        /* per item: its destinations                       */
    int *route;                /* per item: lane index                             */
    const unsigned char **ptr; /* batch order (lane 0's items, then lane 1's) ...  */
    size_t *len;
    nvjpegImage_t *bimg;
    int *order;        /* ... and the item index of each                   */
    int64_t counts[3]; /* fv__gpujpeg_counts                               */
};

fv_status
fv__gpujpeg_new(int device, fv__gpujpeg **out)
{
    char why[512];
    fv__gpujpeg *d = NULL;
    fv_status st = FV_OK;
    int prev = -1;
    nvjpegStatus_t s;
    cudaError_t ce;

    if (!out)
        return fv_error_set(FV_EINVAL, FV__GJ_DOMAIN, "new: out is NULL");
    *out = NULL;
    if (!fv__gpujpeg_available(why, sizeof why))
        return fv_error_set(FV_EDEVICE, FV__GJ_DOMAIN, "GPU JPEG decoding unavailable: %s", why);
    if (device < 0 || device >= FV__GJ_MAX_DEVICES)
        return fv_error_set(FV_EDEVICE, FV__GJ_DOMAIN, "device cuda:%d out of range", device);
    if ((st = fv__cuda_check_device(device)) != FV_OK)
        return st;
    if (!(d = calloc(1, sizeof *d)))
        return fv_error_set(FV_ENOMEM, FV__GJ_DOMAIN, "out of memory");
    d->device = device;
    d->lane[0].init_n = d->lane[1].init_n = -1;
    pthread_mutex_lock(&g_handles_lock);
    g_live++;
    pthread_mutex_unlock(&g_handles_lock);
    if ((st = fv__cuda_enter(device, &prev)) != FV_OK)
        goto done;
    if ((st = device_handle(device, 0, &d->lane[0].h, &d->lane[0].be)) != FV_OK)
        goto done;
    if ((s = nj.nvjpegJpegStateCreate(d->lane[0].h, &d->lane[0].state)) != NVJPEG_STATUS_SUCCESS) {
        d->lane[0].state = NULL;
        st = nj_error(s, "nvjpegJpegStateCreate", backend_name(d->lane[0].be), -1);
        goto done;
    }
    if (d->lane[0].be == NVJPEG_BACKEND_HARDWARE &&
        (s = nj.nvjpegJpegStreamCreate(d->lane[0].h, &d->js)) != NVJPEG_STATUS_SUCCESS) {
        d->js = NULL;
        st = nj_error(s, "nvjpegJpegStreamCreate", backend_name(d->lane[0].be), -1);
        goto done;
    }
    if ((ce = cudaEventCreateWithFlags(&d->done, cudaEventDisableTiming)) != cudaSuccess) {
        d->done = NULL;
        st = fv__cuda_error("cudaEventCreateWithFlags", ce);
        goto done;
    }
done:
    fv__cuda_leave(prev);
    if (st != FV_OK) {
        fv__gpujpeg_free(d);
        return st;
    }
    *out = d;
    return FV_OK;
}

void
fv__gpujpeg_free(fv__gpujpeg *d)
{
    int prev = -1;
    if (!d)
        return;
    if (fv__cuda_enter(d->device, &prev) == FV_OK) {
        if (d->done) {
            if (d->recorded)
                (void)cudaEventSynchronize(d->done);
            (void)cudaEventDestroy(d->done);
        }
        if (d->js)
            (void)nj.nvjpegJpegStreamDestroy(d->js);
        for (int i = 0; i < 2; i++)
            if (d->lane[i].state)
                (void)nj.nvjpegJpegStateDestroy(d->lane[i].state);
        (void)cudaGetLastError();
        fv__cuda_leave(prev);
    }
    pthread_mutex_lock(&g_handles_lock);
    g_live--;
    pthread_mutex_unlock(&g_handles_lock);
    free(d->img);
    free(d->route);
    free(d->ptr);
    free(d->len);
    free(d->bimg);
    free(d->order);
    free(d);
}

void
fv__gpujpeg_release_handles(void)
{
    pthread_mutex_lock(&g_handles_lock); /* a handle exists only once the library loaded */
    if (g_live == 0) {
        for (int dev = 0; dev < FV__GJ_MAX_DEVICES; dev++) {
            int prev = -1;
            if (!g_dev[dev].h[0] && !g_dev[dev].h[1]) {
                g_dev[dev].tried[0] = g_dev[dev].tried[1] = 0;
                continue;
            }
            if (fv__cuda_enter(dev, &prev) != FV_OK)
                continue; /* cannot make it current: leave the handles alone */
            for (int i = 0; i < 2; i++) {
                if (g_dev[dev].h[i])
                    (void)nj.nvjpegDestroy(g_dev[dev].h[i]);
                g_dev[dev].h[i] = NULL;
                g_dev[dev].tried[i] = 0;
            }
            (void)cudaGetLastError();
            fv__cuda_leave(prev);
        }
    }
    pthread_mutex_unlock(&g_handles_lock);
}

const char *
fv__gpujpeg_backend(const fv__gpujpeg *d)
{
    return d ? backend_name(d->lane[0].be) : "none";
}

static fv_status
grow(fv__gpujpeg *d, int n)
{
    int cap = d->cap;
    void *p;
    if (n <= cap)
        return FV_OK;
    while (cap < n)
        cap = cap ? 2 * cap : 64;
        /* each array is swapped in as soon as it has grown, so a failure leaves d
     * consistent (cap rises only once all of them have the room) */
#define FV__GJ_GROW(field)                                                                   \
    if (!(p = realloc(d->field, (size_t)cap * sizeof *d->field)))                            \
        return fv_error_set(FV_ENOMEM, FV__GJ_DOMAIN, "out of memory for a batch of %d", n); \
    d->field = p;
    FV__GJ_GROW(img)
    FV__GJ_GROW(route)
    FV__GJ_GROW(ptr)
    FV__GJ_GROW(len)
    FV__GJ_GROW(bimg)
    FV__GJ_GROW(order)
#undef FV__GJ_GROW
    d->cap = cap;
    return FV_OK;
}

static fv_status
lane_open(fv__gpujpeg *d, int which)
{
    gj_lane *l = &d->lane[which];
    fv_status st;
    nvjpegStatus_t s;
    if (l->state)
        return FV_OK;
    if ((st = device_handle(d->device, which, &l->h, &l->be)) != FV_OK)
        return st;
    if ((s = nj.nvjpegJpegStateCreate(l->h, &l->state)) != NVJPEG_STATUS_SUCCESS) {
        l->state = NULL;
        return nj_error(s, "nvjpegJpegStateCreate", backend_name(l->be), -1);
    }
    l->init_n = -1;
    return FV_OK;
}

static nvjpegStatus_t
lane_init(gj_lane *l, int n, nvjpegOutputFormat_t fmt)
{
    nvjpegStatus_t s;
    if (l->init_n == n && l->init_fmt == (int)fmt)
        return NVJPEG_STATUS_SUCCESS;
    s = nj.nvjpegDecodeBatchedInitialize(l->h, l->state, n, 1, fmt);
    if (s == NVJPEG_STATUS_SUCCESS) {
        l->init_n = n;
        l->init_fmt = (int)fmt;
    } else {
        l->init_n = -1;
    }
    return s;
}

/* Decode the items routed to lane `which`, gathered into the scratch arrays from
 * index `first` on (count m). */
static fv_status
lane_decode(fv__gpujpeg *d, int which, int first, int m, nvjpegOutputFormat_t fmt, cudaStream_t stream)
{
    gj_lane *l = &d->lane[which];
    nvjpegStatus_t s;
    if ((s = lane_init(l, m, fmt)) != NVJPEG_STATUS_SUCCESS)
        return nj_error(s, "nvjpegDecodeBatchedInitialize", backend_name(l->be), -1);
    s = nj.nvjpegDecodeBatched(l->h, l->state, d->ptr + first, d->len + first, d->bimg + first, stream);
    if (s != NVJPEG_STATUS_SUCCESS) {
        l->init_n = -1; /* "also use to reset failed batches" */
        (void)cudaGetLastError();
        if (m == 1) /* then we know which */
            return nj_error(s, "nvjpegDecodeBatched", backend_name(l->be), d->order[first]);
        return fv_error_set(s == NVJPEG_STATUS_ALLOCATOR_FAILURE ? FV_ENOMEM
                                : (s == NVJPEG_STATUS_BAD_JPEG || s == NVJPEG_STATUS_JPEG_NOT_SUPPORTED ||
                                   s == NVJPEG_STATUS_INCOMPLETE_BITSTREAM)
                                ? FV_EFORMAT
                                : FV_ECUDA,
                            FV__GJ_DOMAIN, "nvjpegDecodeBatched (%s backend, %d streams): %s", backend_name(l->be), m,
                            nj_status_name(s));
    }
    return FV_OK;
}

fv_status
fv__gpujpeg_decode(fv__gpujpeg *d, const fv__gpujpeg_item *items, int n, fv__gpujpeg_mode mode, void *stream_)
{
    cudaStream_t stream = (cudaStream_t)stream_;
    nvjpegOutputFormat_t fmt;
    fv_status st = FV_OK;
    int prev = -1, nhw = 0, nfb = 0, k;
    cudaError_t ce;

    if (!d || n < 0 || (n > 0 && !items))
        return fv_error_set(FV_EINVAL, FV__GJ_DOMAIN, "decode: bad arguments (decoder %p, %d items)", (void *)d, n);
    if (mode != FV__GPUJPEG_RGBI && mode != FV__GPUJPEG_PLANAR)
        return fv_error_set(FV_EINVAL, FV__GJ_DOMAIN, "decode: unknown mode %d", (int)mode);
    if (n == 0)
        return FV_OK;
    fmt = mode == FV__GPUJPEG_RGBI ? NVJPEG_OUTPUT_RGBI : NVJPEG_OUTPUT_UNCHANGED;
    if ((st = grow(d, n)) != FV_OK)
        return st;

    /* host-side validation of every item before anything is queued */
    for (int i = 0; i < n; i++) {
        const fv__gpujpeg_item *it = &items[i];
        fv__jpeg_probe_info info;
        size_t entropy = 0;
        if (!it->data)
            return fv_error_set(FV_EINVAL, FV__GJ_DOMAIN, "item %d: data is NULL", i);
        if ((st = fv__jpeg_walk_headers(it->data, it->len, &info, &entropy)) != FV_OK)
            return item_error(st, i);
        if (!info.gpu_ok)
            return fv_error_set(FV_EFORMAT, FV__GJ_DOMAIN,
                                "item %d: not for the GPU decoder (SOF%d, %d-bit, %d components, sampling %dx%d)", i,
                                info.sof, info.precision, info.components, info.hsamp[0], info.vsamp[0]);
        if ((st = fv__jpeg_check_entropy(it->data, it->len, entropy)) != FV_OK)
            return item_error(st, i);
        memset(&d->img[i], 0, sizeof d->img[i]);
        if (mode == FV__GPUJPEG_RGBI) {
            if (!it->dst[0] || it->pitch[0] < 3 * (size_t)info.width)
                return fv_error_set(FV_EINVAL, FV__GJ_DOMAIN,
                                    "item %d: RGBI needs dst[0] and pitch[0] >= %zu (got %zu)", i,
                                    3 * (size_t)info.width, it->pitch[0]);
            d->img[i].channel[0] = it->dst[0];
            d->img[i].pitch[0] = it->pitch[0];
        } else {
            for (int c = 1; c < info.components; c++)
                if (info.hsamp[c] != info.hsamp[0] || info.vsamp[c] != info.vsamp[0])
                    return fv_error_set(FV_EINVAL, FV__GJ_DOMAIN,
                                        "item %d: PLANAR needs all components at the same sampling "
                                        "(component %d is %dx%d, component 0 %dx%d)",
                                        i, c, info.hsamp[c], info.vsamp[c], info.hsamp[0], info.vsamp[0]);
            for (int c = 0; c < info.components; c++) {
                if (!it->dst[c] || it->pitch[c] < (size_t)info.width)
                    return fv_error_set(FV_EINVAL, FV__GJ_DOMAIN,
                                        "item %d: PLANAR needs dst[%d] and pitch[%d] >= %d (got %zu)", i, c, c,
                                        info.width, it->pitch[c]);
                d->img[i].channel[c] = it->dst[c];
                d->img[i].pitch[c] = it->pitch[c];
            }
        }
    }

    if ((st = fv__cuda_enter(d->device, &prev)) != FV_OK)
        return st;

    /* route: hardware where the engines take the stream, else the fallback lane */
    for (int i = 0; i < n; i++) {
        int to = 0;
        if (d->lane[0].be == NVJPEG_BACKEND_HARDWARE) {
            int unsupported = 1;
            nvjpegStatus_t s = nj.nvjpegJpegStreamParse(d->lane[0].h, items[i].data, items[i].len, 0, 0, d->js);
            if (s != NVJPEG_STATUS_SUCCESS) {
                st = nj_error(s, "nvjpegJpegStreamParse", "hardware", i);
                goto done;
            }
            s = nj.nvjpegDecodeBatchedSupported(d->lane[0].h, d->js, &unsupported);
            to = (s == NVJPEG_STATUS_SUCCESS && unsupported == 0) ? 0 : 1;
        }
        d->route[i] = to;
        if (to == 0)
            nhw++;
        else
            nfb++;
    }
    /* the engines may refuse the output format itself: everything to the fallback */
    if (nhw && d->lane[0].be == NVJPEG_BACKEND_HARDWARE && lane_init(&d->lane[0], nhw, fmt) != NVJPEG_STATUS_SUCCESS) {
        for (int i = 0; i < n; i++)
            d->route[i] = 1;
        nfb = n;
        nhw = 0;
    }
    if (nfb && (st = lane_open(d, 1)) != FV_OK)
        goto done;

    /* batch order: lane 0's items, then lane 1's, each in item order */
    k = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < n; i++)
            if (d->route[i] == pass) {
                d->ptr[k] = items[i].data;
                d->len[k] = items[i].len;
                d->bimg[k] = d->img[i];
                d->order[k] = i;
                k++;
            }

    if (nhw && (st = lane_decode(d, 0, 0, nhw, fmt, stream)) != FV_OK) {
        /* every stream passed the host-side checks: a refusal by the engines is more
         * likely a limitation of theirs than bad data, so the fallback lane gets a
         * go at the same streams (its writes come later on the same CUDA stream) */
        if ((st = lane_open(d, 1)) != FV_OK || (st = lane_decode(d, 1, 0, nhw, fmt, stream)) != FV_OK)
            goto done;
        d->counts[2]++;
        d->counts[1] += nhw;
        nhw = 0;
    }
    if (nfb && (st = lane_decode(d, 1, n - nfb, nfb, fmt, stream)) != FV_OK)
        goto done;
    d->counts[0] += nhw;
    d->counts[1] += nfb;
    if ((ce = cudaEventRecord(d->done, stream)) != cudaSuccess) {
        st = fv__cuda_error("cudaEventRecord", ce);
        goto done;
    }
    d->recorded = 1;
done:
    fv__cuda_leave(prev);
    return st;
}

void
fv__gpujpeg_counts(const fv__gpujpeg *d, int64_t counts[3])
{
    for (int i = 0; i < 3; i++)
        counts[i] = d ? d->counts[i] : 0;
}

fv_status
fv__gpujpeg_sync(fv__gpujpeg *d, void *stream)
{
    int prev = -1;
    fv_status st;
    cudaError_t ce;
    if (!d)
        return fv_error_set(FV_EINVAL, FV__GJ_DOMAIN, "sync: decoder is NULL");
    if ((st = fv__cuda_enter(d->device, &prev)) != FV_OK)
        return st;
    if ((ce = cudaStreamSynchronize((cudaStream_t)stream)) != cudaSuccess)
        st = fv__cuda_error("cudaStreamSynchronize", ce);
    fv__cuda_leave(prev);
    return st;
}

#else /* !FOVEA_HAVE_NVJPEG */
/* ==== stub: built without nvjpeg.h ==================================================== */

#define FV__NONVJPEG "this fovea was built without nvjpeg.h (GPU JPEG decoding disabled)"

int
fv__gpujpeg_available(char *why, size_t n)
{
    if (why && n)
        snprintf(why, n, "%s", FV__NONVJPEG);
    return 0;
}

fv_status
fv__gpujpeg_new(int device, fv__gpujpeg **out)
{
    (void)fv__jpeg_check_entropy;
    if (out)
        *out = NULL;
    return fv_error_set(FV_EDEVICE, FV__GJ_DOMAIN, "cuda:%d: " FV__NONVJPEG, device);
}

void
fv__gpujpeg_free(fv__gpujpeg *d)
{
    (void)d;
}
void
fv__gpujpeg_release_handles(void)
{
}

void
fv__gpujpeg_counts(const fv__gpujpeg *d, int64_t counts[3])
{
    (void)d;
    counts[0] = counts[1] = counts[2] = 0;
}
const char *
fv__gpujpeg_backend(const fv__gpujpeg *d)
{
    (void)d;
    return "none";
}

fv_status
fv__gpujpeg_decode(fv__gpujpeg *d, const fv__gpujpeg_item *items, int n, fv__gpujpeg_mode mode, void *stream)
{
    return fv_error_set(FV_EDEVICE, FV__GJ_DOMAIN, FV__NONVJPEG);
}

fv_status
fv__gpujpeg_sync(fv__gpujpeg *d, void *stream)
{
    return fv_error_set(FV_EDEVICE, FV__GJ_DOMAIN, FV__NONVJPEG);
}

#endif
