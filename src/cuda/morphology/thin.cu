/* CUDA kernel of FV__OP_THIN: each subiteration is one parallel pass from one
 * buffer into the other (the deletion table of the params, thin's or
 * skeletonize's, on the 8-neighbourhood code, outside = 0); a flag records deletions, read once per full
 * iteration. */
#include "cuda/common.cuh"
#include "ops/morphology/thin.h"

#define FV_CU_THIN_LOAD(E, T, S)                                             \
    __global__ void fv_k_thin_load_##S(const T *in, uint8_t *out, int64_t n) \
    {                                                                        \
        FV_GRID_STRIDE(int64_t, i, n) {                                      \
            out[i] = in[i] != 0;                                             \
        }                                                                    \
    }
FV_FOREACH_DTYPE(FV_CU_THIN_LOAD)

__global__ void
fv_k_thin_sub(const uint8_t *src, uint8_t *dst, int64_t R, int64_t C, fv__thin_lut lut, int *changed)
{
    FV_GRID_STRIDE(int64_t, i, R * C) {
        if (!src[i]) {
            dst[i] = 0;
            continue;
        }
        const int64_t r = i / C, c = i - r * C;
        const int up = r > 0, dn = r<R - 1, l = c> 0, rr = c < C - 1;
        unsigned code = 0;
        code |= (unsigned)(rr && src[i + 1]) << 0;
        code |= (unsigned)(up && rr && src[i - C + 1]) << 1;
        code |= (unsigned)(up && src[i - C]) << 2;
        code |= (unsigned)(up && l && src[i - C - 1]) << 3;
        code |= (unsigned)(l && src[i - 1]) << 4;
        code |= (unsigned)(dn && l && src[i + C - 1]) << 5;
        code |= (unsigned)(dn && src[i + C]) << 6;
        code |= (unsigned)(dn && rr && src[i + C + 1]) << 7;
        int del = lut.del[code];
        dst[i] = !del;
        if (del)
            *changed = 1;
    }
}

extern "C" fv_status
fv__cuda_thin(fv_context *ctx, const fv__op_args *a)
{
    const fv__thin_params *p = (const fv__thin_params *)a->params;
    const int64_t R = a->in->shape[0], C = a->in->shape[1], n = R * C;
    uint8_t *cur = (uint8_t *)a->out->data, *nxt;
    void *dbuf = NULL, *dopaque = NULL;
    fv_cu_exec x;
    fv_status st;

    ctx = fv__ctx(ctx);
    if ((st = fv_cu_begin(ctx, "thin", a, n, &x)))
        return st;
    /* device buffer: the changed flag (16 bytes), then the second image */
    if ((st = fv__cuda_alloc(ctx, x.device, 16 + (size_t)n, &dbuf, &dopaque)))
        goto done;
    nxt = (uint8_t *)dbuf + 16;
    switch (a->in->dtype) {
#define FV_CU_THIN_CASE(E, T, S)                                                              \
    case E:                                                                                   \
        fv_k_thin_load_##S<<<x.grid, x.block, 0, x.stream>>>((const T *)a->in->data, cur, n); \
        break;
        FV_FOREACH_DTYPE(FV_CU_THIN_CASE)
#undef FV_CU_THIN_CASE
    default:
        st = fv_error_set(FV_EDTYPE, "thin", "unsupported dtype");
        goto done;
    }
    if ((st = fv_cu_launch_status("thin load")))
        goto done;
    for (int64_t iter = 0; p->max_num_iter <= 0 || iter < p->max_num_iter; iter++) {
        int changed = 0;
        if ((st = fv_cu_zero(dbuf, sizeof(int), x.stream)))
            goto done;
        for (int sub = 0; sub < 2; sub++) {
            fv_k_thin_sub<<<x.grid, x.block, 0, x.stream>>>(cur, nxt, R, C, p->lut[sub], (int *)dbuf);
            uint8_t *t = cur;
            cur = nxt;
            nxt = t;
        }
        if ((st = fv_cu_launch_status("thin")))
            goto done;
        if ((st = fv_cu_read_back(&changed, dbuf, sizeof(int), x.stream, "cudaMemcpyAsync (changed flag)")))
            goto done;
        if (!changed)
            break;
    }
    /* two swaps per iteration: the result is back in out */
done:
    if (dbuf) {
        (void)cudaStreamSynchronize(x.stream);
        fv__cuda_free(dbuf, dopaque);
    }
    fv_cu_end(&x);
    return st;
}

FV_KERNEL(THIN, CUDA, FV_DTYPES_ALL, 2, fv__cuda_thin);
