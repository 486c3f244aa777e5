/* Execution context: which device, which CUDA stream, how many CPU threads.
 *
 * Every operation takes an fv_context; NULL means the process default context
 * (device 0, the legacy default stream, FOVEA_NUM_THREADS or all cores). A context
 * is not thread-safe to modify; use one per thread if settings differ. */
#ifndef FOVEA_CONTEXT_H
#define FOVEA_CONTEXT_H

#include "export.h"
#include "status.h"

FV_EXTERN_C_BEGIN

typedef struct fv_context fv_context;

typedef enum fv_device_type {
    FV_DEVICE_CPU = 1, /* values equal DLPack's kDLCPU and kDLCUDA */
    FV_DEVICE_CUDA = 2
} fv_device_type;

typedef struct fv_device {
    fv_device_type type;
    int id; /* CUDA ordinal; 0 for the CPU */
} fv_device;

FV_API fv_status fv_context_new(fv_context **out);
FV_API void fv_context_free(fv_context *ctx);

/* Threads an operation may use on the CPU backend; 0 restores the default. */
FV_API fv_status fv_context_set_threads(fv_context *ctx, int nthreads);
FV_API int fv_context_threads(const fv_context *ctx);

/* CUDA device and stream (a cudaStream_t, NULL for the legacy default stream)
 * that CUDA work of this context runs on. FV_EDEVICE without a usable GPU. */
FV_API fv_status fv_context_set_cuda(fv_context *ctx, int device, void *stream);
FV_API void *fv_context_cuda_stream(const fv_context *ctx);
FV_API int fv_context_cuda_device(const fv_context *ctx);

/* Wait for all work queued by this context on its CUDA stream. */
FV_API fv_status fv_context_synchronize(fv_context *ctx);

/* Make work later queued on `consumer` wait for work already queued on
 * `producer` (two cudaStream_t on the context's device). No-op when equal. */
FV_API fv_status fv_cuda_stream_wait(fv_context *ctx, void *producer, void *consumer);

/* Size of the library's CPU thread pool (FOVEA_NUM_THREADS or online cores). */
FV_API int fv_num_threads(void);

/* 1 when the CUDA backend was built and a driver and GPU were found. */
FV_API int fv_cuda_available(void);
/* Number of usable CUDA devices (0 when none or not built). */
FV_API int fv_cuda_device_count(void);
/* Why CUDA is unavailable ("" when it is available). */
FV_API const char *fv_cuda_unavailable_reason(void);

/* Build and runtime configuration as a JSON object (static storage). */
FV_API const char *fv_config_json(void);
/* The library version string ("0.1.0"). */
FV_API const char *fv_version(void);

FV_EXTERN_C_END

#endif
