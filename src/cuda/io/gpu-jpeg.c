/* GPU JPEG decoding with nvJPEG's batched API (the contract is in gpu-jpeg.h).
 *
 * Two halves:
 *  - host-side stream parsing (fv__jpeg_probe, fv__jpeg_splice_tables and the
 *    structural check that decode runs on every stream): plain C, always
 *    compiled in CUDA builds, fuzz-safe (every length is bounds-checked);
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

#include "cuda/io/gpu-jpeg.h"

#define FV__GJ_DOMAIN "gpu_jpeg"

/* ---- host-side parsing ------------------------------------------------------------ */

static unsigned
rd16(const uint8_t *p)
{
    return (unsigned)p[0] << 8 | p[1];
}

/* SOFn markers: C0..CF except DHT (C4), JPG (C8) and DAC (CC) */
static int
is_sof(int m)
{
    return m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC;
}

/* Walk the markers of data[0..len) up to and including the first SOS header.
 * Fills *out (when not NULL) and *entropy (offset of the first entropy-coded byte).
 * Sets the error message and returns FV_EFORMAT on anything malformed. */
static fv_status
walk_headers(const uint8_t *data, size_t len, fv__jpeg_probe_info *out, size_t *entropy)
{
    fv__jpeg_probe_info info;
    int have_sof = 0, have_dqt = 0, have_dht = 0;
    size_t pos = 2;

    memset(&info, 0, sizeof info);
    info.adobe_transform = -1;
    info.sof = -1;
    if (!data || len < 4 || data[0] != 0xFF || data[1] != 0xD8)
        return fv_error_set(FV_EFORMAT, FV__GJ_DOMAIN, "not a JPEG stream (no SOI marker)");
    for (;;) {
        int m;
        size_t seglen;
        const uint8_t *p;
        if (pos >= len || data[pos] != 0xFF)
            return fv_error_set(FV_EFORMAT, FV__GJ_DOMAIN,
                                pos >= len ? "stream ends before SOS (truncated or tables only)"
                                           : "no marker where one must be (offset %zu)",
                                pos);
        while (pos < len && data[pos] == 0xFF)   /* fill bytes */
            pos++;
        if (pos >= len)
            return fv_error_set(FV_EFORMAT, FV__GJ_DOMAIN, "stream ends before SOS (truncated)");
        m = data[pos++];
        if (m == 0x01 || (m >= 0xD0 && m <= 0xD7))   /* TEM, RSTn: no length */
            continue;
        if (m == 0xD8)
            return fv_error_set(FV_EFORMAT, FV__GJ_DOMAIN, "second SOI marker at offset %zu", pos - 2);
        if (m == 0xD9)
            return fv_error_set(FV_EFORMAT, FV__GJ_DOMAIN,
                                "EOI before any SOS (an abbreviated tables-only stream?)");
        if (m == 0x00)
            return fv_error_set(FV_EFORMAT, FV__GJ_DOMAIN, "invalid marker 0xFF00 at offset %zu", pos - 2);
        if (len - pos < 2)
            return fv_error_set(FV_EFORMAT, FV__GJ_DOMAIN, "truncated marker segment 0xFF%02X", m);
        seglen = rd16(data + pos);
        if (seglen < 2 || seglen > len - pos)
            return fv_error_set(FV_EFORMAT, FV__GJ_DOMAIN,
                                "marker 0xFF%02X at offset %zu: length %zu runs past the end (%zu bytes)", m,
                                pos - 2, seglen, len);
        p = data + pos + 2;   /* payload */
        seglen -= 2;          /* payload length */
        if (is_sof(m)) {
            int nf;
            if (have_sof)
                return fv_error_set(FV_EFORMAT, FV__GJ_DOMAIN, "more than one SOF marker");
            if (seglen < 6)
                return fv_error_set(FV_EFORMAT, FV__GJ_DOMAIN, "SOF segment too short");
            nf = p[5];
            if (nf < 1 || nf > 4 || seglen != 6 + 3 * (size_t)nf)
                return fv_error_set(FV_EFORMAT, FV__GJ_DOMAIN, "SOF: %d components in a %zu-byte segment", nf,
                                    seglen + 2);
            info.sof = m - 0xC0;
            info.precision = p[0];
            info.height = (int)rd16(p + 1);
            info.width = (int)rd16(p + 3);
            info.components = nf;
            if (info.width == 0)
                return fv_error_set(FV_EFORMAT, FV__GJ_DOMAIN, "SOF: width 0");
            for (int c = 0; c < nf; c++) {
                int h = p[6 + 3 * c + 1] >> 4, v = p[6 + 3 * c + 1] & 15;
                if (h < 1 || h > 4 || v < 1 || v > 4)
                    return fv_error_set(FV_EFORMAT, FV__GJ_DOMAIN, "SOF: component %d has sampling %dx%d", c, h,
                                        v);
                info.hsamp[c] = h;
                info.vsamp[c] = v;
            }
            have_sof = 1;
        } else if (m == 0xDB) {
            have_dqt = 1;
        } else if (m == 0xC4) {
            have_dht = 1;
        } else if (m == 0xE0 && seglen >= 5 && memcmp(p, "JFIF\0", 5) == 0) {
            info.jfif = 1;
        } else if (m == 0xEE && seglen >= 12 && memcmp(p, "Adobe", 5) == 0) {
            info.adobe_transform = p[11];
        } else if (m == 0xDA) {
            int ns;
            if (!have_sof)
                return fv_error_set(FV_EFORMAT, FV__GJ_DOMAIN, "SOS before SOF");
            if (seglen < 1)
                return fv_error_set(FV_EFORMAT, FV__GJ_DOMAIN, "SOS segment too short");
            ns = p[0];
            if (ns < 1 || ns > 4 || seglen != 4 + 2 * (size_t)ns)
                return fv_error_set(FV_EFORMAT, FV__GJ_DOMAIN, "SOS: %d components in a %zu-byte segment", ns,
                                    seglen + 2);
            pos += 2 + seglen;
            break;
        }
        pos += 2 + seglen;
    }

    /* what nvJPEG's batched decoders take (see the header) */
    info.gpu_ok = (info.sof == 0 || info.sof == 1) && info.precision == 8 && info.height > 0 && have_dqt &&
                  have_dht && (info.components == 1 || info.components == 3);
    if (info.gpu_ok && info.components == 3) {
        /* chroma at 1x1; luma a supported multiple: 4:4:4, 4:2:2, 4:2:0, 4:4:0, 4:1:1, 4:1:0 */
        int h = info.hsamp[0], v = info.vsamp[0];
        int chroma11 = info.hsamp[1] == 1 && info.vsamp[1] == 1 && info.hsamp[2] == 1 && info.vsamp[2] == 1;
        int luma = (h == 1 && v == 1) || (h == 2 && v == 1) || (h == 2 && v == 2) || (h == 1 && v == 2) ||
                   (h == 4 && v == 1) || (h == 4 && v == 2);
        info.gpu_ok = chroma11 && luma;
    }
    if (out)
        *out = info;
    if (entropy)
        *entropy = pos;
    return FV_OK;
}

fv_status
fv__jpeg_probe(const uint8_t *data, size_t len, fv__jpeg_probe_info *out)
{
    if (!out)
        return fv_error_set(FV_EINVAL, FV__GJ_DOMAIN, "probe: out is NULL");
    memset(out, 0, sizeof *out);
    out->adobe_transform = -1;
    return walk_headers(data, len, out, NULL);
}

size_t
fv__jpeg_splice_tables(const uint8_t *tables, size_t tables_len, const uint8_t *tile, size_t tile_len,
                       uint8_t *dst, size_t cap)
{
    size_t head, need;
    if (!tile || tile_len < 4 || tile[0] != 0xFF || tile[1] != 0xD8 || !dst)
        return 0;
    if (!tables || tables_len == 0) {
        if (cap < tile_len)
            return 0;
        memmove(dst, tile, tile_len);
        return tile_len;
    }
    /* SOI ... EOI, at least SOI EOI */
    if (tables_len < 4 || tables[0] != 0xFF || tables[1] != 0xD8 || tables[tables_len - 2] != 0xFF ||
        tables[tables_len - 1] != 0xD9)
        return 0;
    head = tables_len - 2;          /* tables without EOI */
    need = head + (tile_len - 2);   /* + tile without SOI; cannot overflow: both fit in memory */
    if (need < head || cap < need)
        return 0;
    memcpy(dst, tables, head);
    memcpy(dst + head, tile + 2, tile_len - 2);
    return need;
}

/* The entropy-coded part of data[0..len) from `pos` (just after the first SOS
 * header): only stuffed bytes, fill bytes, RSTn, and between scans DHT / DQT / DRI
 * / COM / APPn / SOS segments may appear, and an EOI must end it. */
static fv_status
check_entropy(const uint8_t *data, size_t len, size_t pos)
{
    while (pos < len) {
        const uint8_t *ff = memchr(data + pos, 0xFF, len - pos);
        int m;
        if (!ff)
            break;
        pos = (size_t)(ff - data) + 1;
        while (pos < len && data[pos] == 0xFF)
            pos++;
        if (pos >= len)
            break;
        m = data[pos++];
        if (m == 0x00 || (m >= 0xD0 && m <= 0xD7))
            continue;
        if (m == 0xD9)
            return FV_OK;
        if (m == 0xC4 || m == 0xDB || m == 0xDD || m == 0xDA || m == 0xFE || (m >= 0xE0 && m <= 0xEF)) {
            size_t seglen;
            if (len - pos < 2 || (seglen = rd16(data + pos)) < 2 || seglen > len - pos)
                return fv_error_set(FV_EFORMAT, FV__GJ_DOMAIN, "marker 0xFF%02X at offset %zu runs past the end", m,
                                    pos - 2);
            pos += seglen;
            continue;
        }
        return fv_error_set(FV_EFORMAT, FV__GJ_DOMAIN, "corrupt entropy-coded data (marker 0xFF%02X at offset %zu)",
                            m, pos - 2);
    }
    return fv_error_set(FV_EFORMAT, FV__GJ_DOMAIN, "truncated: no EOI marker after the entropy-coded data");
}

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
    const char *m = strncmp(msg, FV__GJ_DOMAIN ": ", sizeof FV__GJ_DOMAIN + 1) == 0 ? msg + sizeof FV__GJ_DOMAIN + 1 : msg;
    return fv_error_set(st, FV__GJ_DOMAIN, "item %d: %s", i, m);
}

/* every nvJPEG function used, resolved by name */
#define FV__NVJPEG_FUNCS(X)            \
    X(nvjpegGetProperty)               \
    X(nvjpegCreateEx)                  \
    X(nvjpegDestroy)                   \
    X(nvjpegJpegStateCreate)           \
    X(nvjpegJpegStateDestroy)          \
    X(nvjpegJpegStreamCreate)          \
    X(nvjpegJpegStreamDestroy)         \
    X(nvjpegJpegStreamParse)           \
    X(nvjpegDecodeBatchedSupported)    \
    X(nvjpegDecodeBatchedInitialize)   \
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
    int tried[2];              /* 0: primary, 1: fallback (GPU_HYBRID)     */
    nvjpegHandle_t h[2];
    nvjpegBackend_t be[2];
    nvjpegStatus_t err[2];     /* why creation failed                      */
} g_dev[FV__GJ_MAX_DEVICES];
static int g_live;             /* decoders alive (under g_handles_lock)    */

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
    if (home && *home && snprintf(home_path, sizeof home_path, "%s/lib64/libnvjpeg.so.13", home) <
                             (int)sizeof home_path)
        names[nn++] = home_path;
    names[nn++] = "/usr/local/cuda/lib64/libnvjpeg.so.13";
    names[nn++] = "libnvjpeg.so";
    if (!(lib = fv__dl_open("nvjpeg", names, (size_t)nn, first_err, sizeof first_err))) {
        snprintf(g_load_reason, sizeof g_load_reason, "libnvjpeg.so.13 could not be loaded (%s)", first_err);
        return;
    }
#define FV__NJ_RESOLVE(f)                                                                                  \
    do {                                                                                                   \
        void *sym_ = dlsym(lib, #f);                                                                       \
        if (!sym_) {                                                                                       \
            snprintf(g_load_reason, sizeof g_load_reason, "libnvjpeg has no %s (too old?)", #f);           \
            return; /* stays loaded (fv__dl_loaded lists it), unused */                                    \
        }                                                                                                  \
        memcpy(&nj.f, &sym_, sizeof sym_);                                                                 \
    } while (0);
    FV__NVJPEG_FUNCS(FV__NJ_RESOLVE)
#undef FV__NJ_RESOLVE
    g_loaded = 1;   /* the library stays loaded for the process lifetime */
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
    case NVJPEG_STATUS_SUCCESS: return "NVJPEG_STATUS_SUCCESS";
    case NVJPEG_STATUS_NOT_INITIALIZED: return "NVJPEG_STATUS_NOT_INITIALIZED";
    case NVJPEG_STATUS_INVALID_PARAMETER: return "NVJPEG_STATUS_INVALID_PARAMETER";
    case NVJPEG_STATUS_BAD_JPEG: return "NVJPEG_STATUS_BAD_JPEG";
    case NVJPEG_STATUS_JPEG_NOT_SUPPORTED: return "NVJPEG_STATUS_JPEG_NOT_SUPPORTED";
    case NVJPEG_STATUS_ALLOCATOR_FAILURE: return "NVJPEG_STATUS_ALLOCATOR_FAILURE";
    case NVJPEG_STATUS_EXECUTION_FAILED: return "NVJPEG_STATUS_EXECUTION_FAILED";
    case NVJPEG_STATUS_ARCH_MISMATCH: return "NVJPEG_STATUS_ARCH_MISMATCH";
    case NVJPEG_STATUS_INTERNAL_ERROR: return "NVJPEG_STATUS_INTERNAL_ERROR";
    case NVJPEG_STATUS_IMPLEMENTATION_NOT_SUPPORTED: return "NVJPEG_STATUS_IMPLEMENTATION_NOT_SUPPORTED";
    case NVJPEG_STATUS_INCOMPLETE_BITSTREAM: return "NVJPEG_STATUS_INCOMPLETE_BITSTREAM";
    default: return "unknown nvJPEG status";
    }
}

static fv_status
nj_error(nvjpegStatus_t s, const char *fmt_call, const char *backend, int item)
{
    fv_status st;
    switch (s) {
    case NVJPEG_STATUS_BAD_JPEG:
    case NVJPEG_STATUS_JPEG_NOT_SUPPORTED:
    case NVJPEG_STATUS_INCOMPLETE_BITSTREAM: st = FV_EFORMAT; break;
    case NVJPEG_STATUS_ALLOCATOR_FAILURE: st = FV_ENOMEM; break;
    case NVJPEG_STATUS_INVALID_PARAMETER: st = FV_EINVAL; break;
    default: st = FV_ECUDA; break;
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
    case NVJPEG_BACKEND_HARDWARE: return "hardware";
    case NVJPEG_BACKEND_GPU_HYBRID: return "gpu-hybrid";
    default: return "default";
    }
}

static nvjpegStatus_t
create_handle(nvjpegBackend_t be, nvjpegHandle_t *h)
{
    /* strict: refuse out-of-spec streams instead of guessing (the caller then
     * decodes them on the CPU); interpolated chroma upsampling, as libjpeg's
     * default "fancy" upsampling (the CPU path). Each flag is dropped again for a
     * library or backend that refuses it. */
    static const unsigned flags[] = {NVJPEG_FLAGS_BITSTREAM_STRICT | NVJPEG_FLAGS_UPSAMPLING_WITH_INTERPOLATION,
                                     NVJPEG_FLAGS_BITSTREAM_STRICT, NVJPEG_FLAGS_DEFAULT};
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
        static const nvjpegBackend_t order0[] = {NVJPEG_BACKEND_HARDWARE, NVJPEG_BACKEND_GPU_HYBRID,
                                                 NVJPEG_BACKEND_DEFAULT};
        static const nvjpegBackend_t order1[] = {NVJPEG_BACKEND_GPU_HYBRID, NVJPEG_BACKEND_DEFAULT};
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
        (void)cudaGetLastError();   /* a failed hardware probe must not leave an error behind */
    }
    *h = g_dev[device].h[which];
    *be = g_dev[device].be[which];
    if (!*h)
        st = fv_error_set(FV_EDEVICE, FV__GJ_DOMAIN, "cuda:%d: nvjpegCreateEx failed for every backend: %s",
                          device, nj_status_name(g_dev[device].err[which]));
    pthread_mutex_unlock(&g_handles_lock);
    return st;
}

typedef struct gj_lane {       /* one handle's batched state in a decoder */
    nvjpegHandle_t h;
    nvjpegBackend_t be;
    nvjpegJpegState_t state;
    int init_n;                /* batch size it was initialised for, -1 none */
    int init_fmt;
} gj_lane;

struct fv__gpujpeg {
    int device;
    gj_lane lane[2];           /* 0: primary handle, 1: fallback (lazy)            */
    nvjpegJpegStream_t js;     /* parse + support check (hardware primary only)    */
    cudaEvent_t done;          /* recorded after each decode; free waits for it    */
    int recorded;
    int cap;                   /* scratch capacity (items)                         */
    nvjpegImage_t *img;        /* per item: its destinations                       */
    int *route;                /* per item: lane index                             */
    const unsigned char **ptr; /* batch order (lane 0's items, then lane 1's) ...  */
    size_t *len;
    nvjpegImage_t *bimg;
    int *order;                /* ... and the item index of each                   */
    int64_t counts[3];         /* fv__gpujpeg_counts                               */
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
    pthread_mutex_lock(&g_handles_lock);   /* a handle exists only once the library loaded */
    if (g_live == 0) {
        for (int dev = 0; dev < FV__GJ_MAX_DEVICES; dev++) {
            int prev = -1;
            if (!g_dev[dev].h[0] && !g_dev[dev].h[1]) {
                g_dev[dev].tried[0] = g_dev[dev].tried[1] = 0;
                continue;
            }
            if (fv__cuda_enter(dev, &prev) != FV_OK)
                continue;   /* cannot make it current: leave the handles alone */
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
#define FV__GJ_GROW(field)                                                  \
    if (!(p = realloc(d->field, (size_t)cap * sizeof *d->field)))           \
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
        l->init_n = -1;   /* "also use to reset failed batches" */
        (void)cudaGetLastError();
        if (m == 1)   /* then we know which */
            return nj_error(s, "nvjpegDecodeBatched", backend_name(l->be), d->order[first]);
        return fv_error_set(s == NVJPEG_STATUS_ALLOCATOR_FAILURE ? FV_ENOMEM
                            : (s == NVJPEG_STATUS_BAD_JPEG || s == NVJPEG_STATUS_JPEG_NOT_SUPPORTED ||
                               s == NVJPEG_STATUS_INCOMPLETE_BITSTREAM)
                                ? FV_EFORMAT
                                : FV_ECUDA,
                            FV__GJ_DOMAIN, "nvjpegDecodeBatched (%s backend, %d streams): %s",
                            backend_name(l->be), m, nj_status_name(s));
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
        if ((st = walk_headers(it->data, it->len, &info, &entropy)) != FV_OK)
            return item_error(st, i);
        if (!info.gpu_ok)
            return fv_error_set(FV_EFORMAT, FV__GJ_DOMAIN,
                                "item %d: not for the GPU decoder (SOF%d, %d-bit, %d components, sampling %dx%d)", i,
                                info.sof, info.precision, info.components, info.hsamp[0], info.vsamp[0]);
        if ((st = check_entropy(it->data, it->len, entropy)) != FV_OK)
            return item_error(st, i);
        memset(&d->img[i], 0, sizeof d->img[i]);
        if (mode == FV__GPUJPEG_RGBI) {
            if (!it->dst[0] || it->pitch[0] < 3 * (size_t)info.width)
                return fv_error_set(FV_EINVAL, FV__GJ_DOMAIN, "item %d: RGBI needs dst[0] and pitch[0] >= %zu (got %zu)",
                                    i, 3 * (size_t)info.width, it->pitch[0]);
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
    if (nhw && d->lane[0].be == NVJPEG_BACKEND_HARDWARE &&
        lane_init(&d->lane[0], nhw, fmt) != NVJPEG_STATUS_SUCCESS) {
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
    (void)check_entropy;
    if (out)
        *out = NULL;
    return fv_error_set(FV_EDEVICE, FV__GJ_DOMAIN, "cuda:%d: " FV__NONVJPEG, device);
}

void fv__gpujpeg_free(fv__gpujpeg *d) { (void)d; }
void fv__gpujpeg_release_handles(void) {}

void
fv__gpujpeg_counts(const fv__gpujpeg *d, int64_t counts[3])
{
    (void)d;
    counts[0] = counts[1] = counts[2] = 0;
}
const char *fv__gpujpeg_backend(const fv__gpujpeg *d) { (void)d; return "none"; }

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
