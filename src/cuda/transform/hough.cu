/* CUDA kernels of FV__OP_HOUGH_LINE and FV__OP_HOUGH_CIRCLE. The edge pixels
 * are compacted first (atomics on one counter: the list's order varies, the
 * counts do not). Lines: one block per angle counts into a shared-memory
 * uint32 column and writes it once (global 64-bit atomics when the column does
 * not fit); circles: 1.0 added per vote with atomics into the float64 counts
 * (exact: integers below 2^53). Every run gives the CPU backend's result. */
#include "cuda/common.cuh"
#include "ops/transform/hough.h"

static const fv_device fv_cu_hough_host = { FV_DEVICE_CPU, 0 };

#define FV_CU_HOUGH_SHARED_BYTES (48 * 1024)

/* ---- edge pixels -------------------------------------------------------------------------- */

#define FV_CU_HOUGH_EDGES(E, T, S)                                                                            \
    __global__ void fv_k_hough_edges_##S(const T *img, int64_t rows, int64_t cols, unsigned long long *count, \
                                         int2 *xy)                                                            \
    {                                                                                                         \
        FV_GRID_STRIDE(int64_t, i, rows * cols) {                                                             \
            if (img[i] != 0) {                                                                                \
                unsigned long long k = atomicAdd(count, 1ull);                                                \
                xy[k] = make_int2((int)(i % cols), (int)(i / cols));                                          \
            }                                                                                                 \
        }                                                                                                     \
    }
FV_FOREACH_DTYPE(FV_CU_HOUGH_EDGES)

/* ---- lines -------------------------------------------------------------------------------- */

__global__ void
fv_k_hline_shared(const int2 *xy, const unsigned long long *count, const double *ct, const double *st, int64_t ntheta,
                  int64_t offset, int64_t nrho, unsigned long long *out)
{
    extern __shared__ unsigned int fv_sh_hline[];
    const int64_t t = blockIdx.x;
    const double c = ct[t], s = st[t];
    const unsigned long long n = *count;
    for (int64_t r = threadIdx.x; r < nrho; r += blockDim.x)
        fv_sh_hline[r] = 0;
    __syncthreads();
    for (unsigned long long i = threadIdx.x; i < n; i += blockDim.x) {
        const int64_t r = fv__hough_bin(c, s, xy[i].x, xy[i].y, offset);
        if (r >= 0 && r < nrho)
            atomicAdd(&fv_sh_hline[r], 1u);
    }
    __syncthreads();
    for (int64_t r = threadIdx.x; r < nrho; r += blockDim.x)
        out[r * ntheta + t] = fv_sh_hline[r];
}

__global__ void
fv_k_hline_global(const int2 *xy, const unsigned long long *count, const double *ct, const double *st, int64_t ntheta,
                  int64_t offset, int64_t nrho, unsigned long long *out)
{
    const unsigned long long n = *count;
    FV_GRID_STRIDE(unsigned long long, i, n) {
        for (int64_t t = 0; t < ntheta; t++) {
            const int64_t r = fv__hough_bin(ct[t], st[t], xy[i].x, xy[i].y, offset);
            if (r >= 0 && r < nrho)
                atomicAdd(&out[r * ntheta + t], 1ull);
        }
    }
}

/* ---- circles ------------------------------------------------------------------------------ */

__global__ void
fv_k_hcircle(const int2 *xy, const unsigned long long *count, const int2 *pts, int64_t np, int64_t offset,
             int64_t orows, int64_t ocols, double *plane)
{
    const unsigned long long n = *count * (unsigned long long)np;
    FV_GRID_STRIDE(unsigned long long, k, n) {
        const unsigned long long i = k / (unsigned long long)np, q = k % (unsigned long long)np;
        const int64_t tx = (int64_t)xy[i].y + offset + pts[q].x, ty = (int64_t)xy[i].x + offset + pts[q].y;
        if (tx >= 0 && tx < orows && ty >= 0 && ty < ocols)
            atomicAdd(&plane[tx * ocols + ty], 1.0);
    }
}

__global__ void
fv_k_hcircle_sums(const double *sums, int64_t n, double *plane)
{
    FV_GRID_STRIDE(int64_t, k, n)
        plane[k] = sums[(int64_t)plane[k]];
}

/* ---- launching ---------------------------------------------------------------------------- */

/* One device buffer: the counter, the edge list and `extra` bytes after it
 * (256-byte aligned parts); *extra_at receives the third part. */
typedef struct fv_cu_hough_buf {
    void *ptr, *opaque;
    unsigned long long *count;
    int2 *xy;
    char *extra;
} fv_cu_hough_buf;

static fv_status
fv_cu_hough_edges(fv_context *ctx, const fv_cu_exec *x, const fv_array *in, size_t extra, fv_cu_hough_buf *b)
{
    const int64_t rows = in->shape[0], cols = in->shape[1], n = rows * cols;
    const size_t xyb = ((size_t)n * sizeof(int2) + 255) & ~(size_t)255;
    fv_status st;
    cudaError_t e;
    memset(b, 0, sizeof *b);
    if ((st = fv__cuda_alloc(ctx, x->device, 256 + xyb + extra, &b->ptr, &b->opaque)))
        return st;
    b->count = (unsigned long long *)b->ptr;
    b->xy = (int2 *)((char *)b->ptr + 256);
    b->extra = (char *)b->ptr + 256 + xyb;
    if ((e = cudaMemsetAsync(b->count, 0, sizeof *b->count, x->stream)))
        return fv__cuda_error("cudaMemsetAsync", e);
    switch (in->dtype) {
#define FV_CU_HOUGH_EDGES_CASE(E, T, S)                                                                             \
    case E:                                                                                                         \
        fv_k_hough_edges_##S<<<fv_cu_grid(n, x->device), x->block, 0, x->stream>>>((const T *)in->data, rows, cols, \
                                                                                   b->count, b->xy);                \
        break;
        FV_FOREACH_DTYPE(FV_CU_HOUGH_EDGES_CASE)
#undef FV_CU_HOUGH_EDGES_CASE
    default:
        return fv_error_set(FV_EDTYPE, "hough", "unsupported dtype");
    }
    return fv_cu_launch_status("hough edge pixels");
}

static void
fv_cu_hough_release(const fv_cu_exec *x, fv_cu_hough_buf *b)
{
    if (b->ptr) {
        (void)cudaStreamSynchronize(x->stream); /* the kernels are done with the buffer */
        fv__cuda_free(b->ptr, b->opaque);
    }
    b->ptr = NULL;
}

static fv_status
fv__cuda_hough_line(fv_context *ctx, const fv__op_args *a)
{
    const fv__hough_line_params *p = (const fv__hough_line_params *)a->params;
    const int64_t nrho = a->out->shape[0], nt = p->ntheta;
    unsigned long long *out = (unsigned long long *)a->out->data;
    const size_t tb = (size_t)nt * sizeof(double);
    fv_cu_hough_buf b;
    fv_cu_exec x;
    fv_status st;
    cudaError_t e;

    ctx = fv__ctx(ctx);
    if ((st = fv_cu_begin(ctx, "hough_line", a, fv_array_size(a->in), &x)))
        return st;
    if ((st = fv_cu_hough_edges(ctx, &x, a->in, 2 * tb, &b)))
        goto done;
    {
        double *ct = (double *)b.extra, *sn = ct + nt;
        if ((st = fv__cuda_memcpy(ctx, ct, a->out->device, p->cos_t, fv_cu_hough_host, tb)) ||
            (st = fv__cuda_memcpy(ctx, sn, a->out->device, p->sin_t, fv_cu_hough_host, tb)))
            goto done;
        const size_t shb = (size_t)nrho * sizeof(unsigned int);
        if (shb <= FV_CU_HOUGH_SHARED_BYTES && fv_array_size(a->in) < (int64_t)UINT32_MAX) {
            fv_k_hline_shared<<<(unsigned)nt, x.block, shb, x.stream>>>(b.xy, b.count, ct, sn, nt, p->offset, nrho,
                                                                        out);
        } else {
            if ((e = cudaMemsetAsync(out, 0, (size_t)(nrho * nt) * sizeof *out, x.stream))) {
                st = fv__cuda_error("cudaMemsetAsync", e);
                goto done;
            }
            fv_k_hline_global<<<x.grid, x.block, 0, x.stream>>>(b.xy, b.count, ct, sn, nt, p->offset, nrho, out);
        }
        st = fv_cu_launch_status("hough_line");
    }
done:
    fv_cu_hough_release(&x, &b);
    fv_cu_end(&x);
    return st;
}

static fv_status
fv__cuda_hough_circle(fv_context *ctx, const fv__op_args *a)
{
    const fv__hough_circle_params *p = (const fv__hough_circle_params *)a->params;
    const int64_t orows = a->out->shape[1], ocols = a->out->shape[2];
    const int64_t npts = p->start[p->nradii];
    double *out = (double *)a->out->data;
    fv_cu_hough_buf b;
    fv_cu_exec x;
    fv_status st;
    cudaError_t e;

    ctx = fv__ctx(ctx);
    if ((st = fv_cu_begin(ctx, "hough_circle", a, fv_array_size(a->out), &x)))
        return st;
    const size_t ptb = ((size_t)npts * sizeof(int2) + 255) & ~(size_t)255;
    const size_t sb = p->sums ? (size_t)(npts + p->nradii + 1) * sizeof(double) : 0;
    if ((st = fv_cu_hough_edges(ctx, &x, a->in, ptb + sb, &b)))
        goto done;
    if ((e = cudaMemsetAsync(out, 0, (size_t)fv_array_size(a->out) * sizeof *out, x.stream))) {
        st = fv__cuda_error("cudaMemsetAsync", e);
        goto done;
    }
    if ((st = fv__cuda_memcpy(ctx, b.extra, a->out->device, p->pts, fv_cu_hough_host, (size_t)npts * sizeof(int2))) ||
        (sb && (st = fv__cuda_memcpy(ctx, b.extra + ptb, a->out->device, p->sums, fv_cu_hough_host, sb))))
        goto done;
    for (int64_t i = 0; i < p->nradii; i++) {
        const int64_t np = p->start[i + 1] - p->start[i];
        if (np == 0)
            continue;
        double *plane = out + i * orows * ocols;
        fv_k_hcircle<<<x.grid, x.block, 0, x.stream>>>(b.xy, b.count, (const int2 *)b.extra + p->start[i], np,
                                                       p->offset, orows, ocols, plane);
        if (sb)
            fv_k_hcircle_sums<<<x.grid, x.block, 0, x.stream>>>((const double *)(b.extra + ptb) + p->start[i] + i,
                                                                orows * ocols, plane);
        if ((st = fv_cu_launch_status("hough_circle")))
            goto done;
    }
done:
    fv_cu_hough_release(&x, &b);
    fv_cu_end(&x);
    return st;
}

FV_KERNEL(HOUGH_LINE, CUDA, FV_DTYPES_ALL, 2, fv__cuda_hough_line);
FV_KERNEL(HOUGH_CIRCLE, CUDA, FV_DTYPES_ALL, 3, fv__cuda_hough_circle);
