/* Contexts, the default context, build/runtime configuration. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include "internal.h"
#include "alloc.h"

static fv_context fv__default_ctx; /* all zero: default threads, device 0, NULL stream */

fv_context *
fv__ctx(fv_context *ctx)
{
    return ctx ? ctx : &fv__default_ctx;
}

fv_status
fv_context_new(fv_context **out)
{
    if (!out)
        return fv_error_set(FV_EINVAL, "context", "out is NULL");
    *out = fv__calloc(1, sizeof **out);
    if (!*out)
        return fv_error_set(FV_ENOMEM, "context", "out of host memory");
    return FV_OK;
}

void
fv_context_free(fv_context *ctx)
{
    fv__free(ctx);
}

fv_status
fv_context_set_threads(fv_context *ctx, int nthreads)
{
    if (nthreads < 0)
        return fv_error_set(FV_EINVAL, "context", "nthreads = %d must be >= 0", nthreads);
    fv__ctx(ctx)->nthreads = nthreads;
    return FV_OK;
}

int
fv_context_threads(const fv_context *ctx)
{
    int n = ctx ? ctx->nthreads : fv__default_ctx.nthreads;
    int pool = fv_num_threads();
    return n > 0 && n < pool ? n : pool;
}

fv_status
fv_context_set_cuda(fv_context *ctx, int device, void *stream)
{
    fv_status st = fv__cuda_check_device(device);
    if (st)
        return st;
    fv_context *c = fv__ctx(ctx);
    c->cuda_device = device;
    c->cuda_stream = stream;
    return FV_OK;
}

void *
fv_context_cuda_stream(const fv_context *ctx)
{
    return ctx ? ctx->cuda_stream : fv__default_ctx.cuda_stream;
}

int
fv_context_cuda_device(const fv_context *ctx)
{
    return ctx ? ctx->cuda_device : fv__default_ctx.cuda_device;
}

fv_status
fv_context_synchronize(fv_context *ctx)
{
    if (!fv__cuda_init())
        return FV_OK; /* nothing can be queued without CUDA */
    return fv__cuda_synchronize(ctx);
}

fv_status
fv_cuda_stream_wait(fv_context *ctx, void *producer, void *consumer)
{
    if (producer == consumer)
        return FV_OK;
    return fv__cuda_stream_wait(ctx, producer, consumer);
}

int
fv_cuda_available(void)
{
    return fv__cuda_init();
}

int
fv_cuda_device_count(void)
{
    return fv__cuda_init() ? fv__cuda_device_count() : 0;
}

const char *
fv_cuda_unavailable_reason(void)
{
    return fv__cuda_init() ? "" : fv__cuda_reason();
}

const char *
fv_version(void)
{
    return FV_VERSION_STRING;
}

/* JSON string escaping for names that come from drivers. */
static void
fv__json_str(char *dst, size_t cap, const char *s)
{
    size_t j = 0;
    for (; s && *s && j + 2 < cap; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            dst[j++] = '\\';
        dst[j++] = c < 0x20 ? ' ' : (char)c;
    }
    dst[j] = '\0';
}

static char fv__config[4096];
static pthread_once_t fv__config_once = PTHREAD_ONCE_INIT;

static void
fv__config_build(void)
{
    int cuda = fv__cuda_init();
    char reason[512], devs[2048] = "", jinfo[400];
    int jok = 0;
    fv__json_str(jinfo, sizeof jinfo, cuda ? fv__slide_gpu_decoder(&jok) : "CUDA is unavailable");
    fv__json_str(reason, sizeof reason, cuda ? "" : fv__cuda_reason());
    size_t off = 0;
    int ndev = cuda ? fv__cuda_device_count() : 0;
    for (int i = 0; i < ndev && off + 300 < sizeof devs; i++) {
        char name[256];
        fv__json_str(name, sizeof name, fv__cuda_device_name(i));
        off += (size_t)snprintf(devs + off, sizeof devs - off, "%s\"%s\"", i ? ", " : "", name);
    }
#ifdef FOVEA_HAVE_CUDA
    const int built = 1;
#else
    const int built = 0;
#endif
    snprintf(fv__config, sizeof fv__config,
             "{\"version\": \"%s\", \"threads\": %d, \"backends\": [\"cpu\"%s], "
             "\"cuda\": {\"built\": %s, \"available\": %s, \"reason\": \"%s\", \"runtime\": \"%s\", "
             "\"driver\": \"%s\", \"devices\": [%s]}, "
             "\"nvjpeg\": {\"available\": %s, \"backend\": \"%s\", \"reason\": \"%s\"}, "
             "\"compiler\": \"%s\", \"ndim_max\": %d, "
             "\"dtypes\": [\"bool\", \"uint8\", \"uint16\", \"uint32\", \"uint64\", \"int8\", \"int16\", "
             "\"int32\", \"int64\", \"float32\", \"float64\"]}",
             FV_VERSION_STRING, fv_num_threads(), cuda ? ", \"cuda\"" : "", built ? "true" : "false",
             cuda ? "true" : "false", reason, fv__cuda_runtime_version(), fv__cuda_driver_version(), devs,
             jok ? "true" : "false", jok ? jinfo : "", jok ? "" : jinfo,
#if defined(__clang__)
             "clang " __clang_version__,
#elif defined(__GNUC__)
             "gcc " __VERSION__,
#else
             "unknown",
#endif
             FV_MAX_NDIM);
}

const char *
fv_config_json(void)
{
    pthread_once(&fv__config_once, fv__config_build);
    return fv__config;
}
