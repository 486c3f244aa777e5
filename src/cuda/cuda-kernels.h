/* Shared between the CUDA backend's C side (backend-cuda.c, built by the C
 * compiler) and its kernels (*.cu, built by nvcc). Plain C declarations only:
 * CUDA types are passed as void * / int so that this header needs no CUDA
 * header of its own. */
#ifndef FV_CUDA_KERNELS_H
#define FV_CUDA_KERNELS_H

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Fill table[op][FV__BACKEND_CUDA] with the CUDA kernels (src/cuda/core). Called
 * once by fv__cuda_init when a driver and a device were found. */
void fv__cuda_register_kernels(fv__kernel table[FV__OP_COUNT][FV__BACKEND_COUNT]);
/* The same per area (src/cuda/<area>), called by fv__cuda_init after the core's. */
void fv__cuda_register_filters(fv__kernel table[FV__OP_COUNT][FV__BACKEND_COUNT]);
void fv__cuda_register_morphology(fv__kernel table[FV__OP_COUNT][FV__BACKEND_COUNT]);
void fv__cuda_register_skmorph(fv__kernel table[FV__OP_COUNT][FV__BACKEND_COUNT]);   /* skimage morphology */
void fv__cuda_register_color(fv__kernel table[FV__OP_COUNT][FV__BACKEND_COUNT]);     /* skimage color */
void fv__cuda_register_exposure(fv__kernel table[FV__OP_COUNT][FV__BACKEND_COUNT]);  /* histogram, CLAHE */
void fv__cuda_register_measure(fv__kernel table[FV__OP_COUNT][FV__BACKEND_COUNT]);   /* labelling */
void fv__cuda_register_segmentation(fv__kernel table[FV__OP_COUNT][FV__BACKEND_COUNT]);   /* watershed */

/* ---- helpers defined in backend-cuda.c, for the kernel files ---------------- */

/* Record a failed CUDA runtime call `call` (err is a cudaError_t) as FV_ECUDA
 * ("cuda: <call>: <error string>"), or FV_ENOMEM for out-of-memory, clear the
 * runtime's last error when it is not sticky, and return the status. */
fv_status fv__cuda_error(const char *call, int err);

/* Make `device` current for the calling thread; *prev receives the device that
 * was current (pass it to fv__cuda_leave). FV_EDEVICE / FV_ECUDA on failure. */
fv_status fv__cuda_enter(int device, int *prev);
void fv__cuda_leave(int prev);

/* The stream (cudaStream_t) that work on `device` runs on for ctx: the context's
 * stream when the context is bound to that device, otherwise the device's legacy
 * default stream (NULL). ctx must be resolved (fv__ctx). */
void *fv__cuda_stream_for(const fv_context *ctx, int device);

/* Number of multiprocessors of `device` (cached; 1 when unknown). */
int fv__cuda_sm_count(int device);

#ifdef __cplusplus
}
#endif

#endif
