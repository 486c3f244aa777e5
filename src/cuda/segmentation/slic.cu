/* CUDA kernels of FV__OP_SLIC and FV__OP_SLIC_CONNECT (fv_slic,
 * fv_slic_enforce_connectivity).
 *
 * Each k-means iteration: the centres come to the host (K x (3 + C) values),
 * which bins them and computes their windows (src/ops/segmentation/slic-math.h,
 * the CPU kernel's code); one thread per pixel then picks its centre with the
 * CPU's very function (same distances, same tie rule); the centres are
 * recomputed by atomic sums per centre (so their rounding, unlike the CPU's
 * raster-order sums, depends on the order the threads land: labels after the
 * first update may differ from scikit-image's at near-ties); SLIC-zero's
 * colour maxima by an atomic max on the bits of the non-negative values. The
 * connectivity clean-up is scikit-image's sequential scan (fv__slic_connect),
 * run on a host copy of the labels. */
#include <stdlib.h>
#include "cuda/common.cuh"
#include "alloc.h"
#include "ops/segmentation/superpixels.h"
#include "ops/segmentation/slic-math.h"

static __device__ __forceinline__ int64_t
fv_cu_slic_best(const fv__slic_grid *g, const float *seg, const float *px, const float *maxc, int64_t z, int64_t y,
                int64_t x, float sw, const float *sp, int ic, int sz)
{
    return fv__slic_best_f32(g, seg, px, maxc, z, y, x, sw, sp, ic, sz);
}

static __device__ __forceinline__ int64_t
fv_cu_slic_best(const fv__slic_grid *g, const double *seg, const double *px, const double *maxc, int64_t z, int64_t y,
                int64_t x, double sw, const double *sp, int ic, int sz)
{
    return fv__slic_best_f64(g, seg, px, maxc, z, y, x, sw, sp, ic, sz);
}

static __device__ __forceinline__ void
fv_cu_slic_max(float *a, float v) /* v >= 0, not NaN; *a >= 0 */
{
    atomicMax((int *)a, __float_as_int(v));
}

static __device__ __forceinline__ void
fv_cu_slic_max(double *a, double v)
{
    atomicMax((unsigned long long *)a, (unsigned long long)__double_as_longlong(v));
}

typedef struct fv_cu_slic_dims {
    int64_t n, H, W, C, K, F, start_label;
} fv_cu_slic_dims;

template <typename T>
__global__ void
fv_k_slic_assign(fv__slic_grid g, fv_cu_slic_dims d, const T *img, const uint8_t *mask, const T *seg, const T *maxc,
                 int64_t *lab, T sw, T sp0, T sp1, T sp2, int ic, int sz, int *flag)
{
    const T sp[3] = { sp0, sp1, sp2 };
    int any = 0;
    FV_GRID_STRIDE(int64_t, p, d.n) {
        if (mask && !mask[p])
            continue;
        const int64_t x = p % d.W, y = p / d.W % d.H, z = p / d.W / d.H;
        const int64_t k = fv_cu_slic_best(&g, seg, img + p * d.C, maxc, z, y, x, sw, sp, ic, sz);
        if (k >= 0) {
            lab[p] = k + d.start_label;
            any = 1;
        }
    }
    if (any)
        *flag = 1;
}

/* the pixel's centre for the update, -1 when scikit-image leaves it out */
static __device__ __forceinline__ int64_t
fv_cu_slic_member(const fv_cu_slic_dims &d, const uint8_t *mask, const int64_t *lab, int64_t p)
{
    if (mask && !mask[p])
        return -1;
    const int64_t k = lab[p] - d.start_label;
    return k >= 0 && k < d.K ? k : -1;
}

/* v summed over the warp (every lane takes part); lane 0 holds the total */
template <typename T>
static __device__ __forceinline__ T
fv_cu_warp_sum(T v)
{
    for (int o = 16; o > 0; o /= 2)
        v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}

/* The centres' sums: one atomic add per value and pixel, or, where a whole warp's
 * pixels belong to one centre (the common case: superpixels are large), one per
 * value and warp after a shuffle reduction (contention on a centre's few words is
 * the cost). The loop runs whole warps (blockDim a multiple of 32) so that every
 * lane reaches the shuffles. */
template <typename T>
__global__ void
fv_k_slic_sum(fv_cu_slic_dims d, const T *img, const uint8_t *mask, const int64_t *lab, T *seg, unsigned long long *cnt)
{
    const int64_t stride = (int64_t)blockDim.x * gridDim.x;
    const unsigned lane = threadIdx.x & 31u;
    for (int64_t base = (int64_t)blockIdx.x * blockDim.x; base < d.n; base += stride) {
        const int64_t p = base + threadIdx.x;
        const int64_t k = p < d.n ? fv_cu_slic_member(d, mask, lab, p) : -1;
        const int64_t k0 = __shfl_sync(0xffffffffu, k, 0);
        const int one = __all_sync(0xffffffffu, k == k0) && k0 >= 0;
        const int64_t x = p % d.W, y = p / d.W % d.H, z = p / d.W / d.H;
        if (one) {
            T *s = seg + k0 * d.F;
            const T sz = fv_cu_warp_sum((T)z), sy = fv_cu_warp_sum((T)y), sx = fv_cu_warp_sum((T)x);
            if (lane == 0) {
                atomicAdd(cnt + k0, 32ull);
                atomicAdd(s, sz);
                atomicAdd(s + 1, sy);
                atomicAdd(s + 2, sx);
            }
            for (int64_t c = 3; c < d.F; c++) {
                const T v = fv_cu_warp_sum(img[p * d.C + c - 3]);
                if (lane == 0)
                    atomicAdd(s + c, v);
            }
        } else if (k >= 0) {
            T *s = seg + k * d.F;
            atomicAdd(cnt + k, 1ull);
            atomicAdd(s, (T)z);
            atomicAdd(s + 1, (T)y);
            atomicAdd(s + 2, (T)x);
            for (int64_t c = 3; c < d.F; c++)
                atomicAdd(s + c, img[p * d.C + c - 3]);
        }
    }
}

template <typename T>
__global__ void
fv_k_slic_mean(fv_cu_slic_dims d, T *seg, const unsigned long long *cnt)
{
    FV_GRID_STRIDE(int64_t, i, d.K * d.F)
        seg[i] /= (int64_t)cnt[i / d.F];
}

template <typename T>
__global__ void
fv_k_slic_maxc(fv_cu_slic_dims d, const T *img, const uint8_t *mask, const int64_t *lab, const T *seg, T *maxc)
{
    FV_GRID_STRIDE(int64_t, p, d.n) {
        const int64_t k = fv_cu_slic_member(d, mask, lab, p);
        if (k < 0)
            continue;
        const T *s = seg + k * d.F, *px = img + p * d.C;
        T dc = 0;
        for (int64_t c = 3; c < d.F; c++) {
            const T t = px[c - 3] - s[c];
            dc += t * t;
        }
        if (maxc[k] < dc)
            fv_cu_slic_max(maxc + k, dc);
    }
}

template <typename T>
__global__ void
fv_k_slic_fill(int64_t *lab, int64_t n, int64_t v, T *maxc, int64_t K)
{
    FV_GRID_STRIDE(int64_t, i, n > K ? n : K) {
        if (i < n)
            lab[i] = v;
        if (i < K)
            maxc[i] = 1;
    }
}

static void
fv_cu_slic_bin(const fv__slic_grid *g, const void *seg, int f32, int64_t K, int64_t *win, int64_t *start,
               int64_t *seg_of, int64_t *bin_of)
{
    if (f32)
        fv__slic_bin_f32(g, (const float *)seg, K, win, start, seg_of, bin_of);
    else
        fv__slic_bin_f64(g, (const double *)seg, K, win, start, seg_of, bin_of);
}

template <typename T>
static fv_status
fv_cu_slic_run(fv_context *ctx, const fv__op_args *a, fv_cu_exec *x, void **dbuf, void *hbuf, int64_t nbins)
{
    const fv__slic_params *p = fv__params_SLIC(a);
    const fv_device dev = a->out->device, host = { FV_DEVICE_CPU, 0 };
    fv_cu_slic_dims d;
    d.H = a->in->shape[1];
    d.W = a->in->shape[2];
    d.C = a->in->shape[3];
    d.n = a->in->shape[0] * d.H * d.W;
    d.K = p->segments->shape[0];
    d.F = p->segments->shape[1];
    d.start_label = p->start_label;
    fv__slic_grid g, gh;
    const int64_t steps[3] = { p->step_z, p->step_y, p->step_x };
    for (int k = 0; k < 3; k++) {
        g.dim[k] = a->in->shape[k];
        g.step[k] = steps[k];
        g.nb[k] = (g.dim[k] + steps[k] - 1) / steps[k];
        if (g.nb[k] < 1)
            g.nb[k] = 1;
    }
    g.nfeat = d.F;
    gh = g;
    int64_t *win = (int64_t *)dbuf[0], *start = (int64_t *)dbuf[1], *seg_of = (int64_t *)dbuf[2];
    unsigned long long *cnt = (unsigned long long *)dbuf[3];
    T *maxc = (T *)dbuf[4];
    int *flag = (int *)dbuf[5];
    g.win = win;
    g.start = start;
    g.seg_of = seg_of;
    int64_t *hwin = (int64_t *)hbuf, *hstart = hwin + 6 * d.K, *hseg_of = hstart + nbins + 1;
    int64_t *hbin_of = hseg_of + d.K;
    T *hseg = (T *)(hbin_of + d.K);
    T *seg = (T *)p->segments->data;
    const T *img = (const T *)a->in->data;
    const uint8_t *mask = a->in2 ? (const uint8_t *)a->in2->data : NULL;
    int64_t *lab = (int64_t *)a->out->data;
    const T sw = (T)(1.0 / (p->step * p->step));
    const size_t segb = sizeof(T) * (size_t)(d.K * d.F);
    fv_status st;
    fv_k_slic_fill<T><<<x->grid, x->block, 0, x->stream>>>(lab, d.n, d.start_label - 1, maxc, d.K);
    if ((st = fv_cu_launch_status("slic fill")))
        return st;
    for (int64_t it = 0; it < p->max_num_iter; it++) {
        if ((st = fv__cuda_memcpy(ctx, hseg, host, seg, dev, segb)))
            return st;
        fv_cu_slic_bin(&gh, hseg, sizeof(T) == 4, d.K, hwin, hstart, hseg_of, hbin_of);
        if ((st = fv__cuda_memcpy(ctx, win, dev, hwin, host, sizeof(int64_t) * (size_t)(6 * d.K))) ||
            (st = fv__cuda_memcpy(ctx, start, dev, hstart, host, sizeof(int64_t) * (size_t)(nbins + 1))) ||
            (d.K && (st = fv__cuda_memcpy(ctx, seg_of, dev, hseg_of, host, sizeof(int64_t) * (size_t)d.K))) ||
            (st = fv_cu_zero(flag, sizeof(int), x->stream)))
            return st;
        fv_k_slic_assign<T><<<x->grid, x->block, 0, x->stream>>>(g, d, img, mask, seg, maxc, lab, sw, (T)p->spacing[0],
                                                                 (T)p->spacing[1], (T)p->spacing[2], p->ignore_color,
                                                                 p->slic_zero, flag);
        int changed = 0;
        if ((st = fv_cu_launch_status("slic assign")) ||
            (st = fv_cu_read_back(&changed, flag, sizeof changed, x->stream, "slic flag")))
            return st;
        if (!changed)
            break;
        if ((st = fv_cu_zero(seg, segb, x->stream)) ||
            (st = fv_cu_zero(cnt, sizeof(unsigned long long) * (size_t)d.K, x->stream)))
            return st;
        fv_k_slic_sum<T><<<x->grid, x->block, 0, x->stream>>>(d, img, mask, lab, seg, cnt);
        if ((st = fv_cu_launch_status("slic sum")))
            return st;
        fv_k_slic_mean<T><<<fv_cu_grid(d.K * d.F, x->device), x->block, 0, x->stream>>>(d, seg, cnt);
        if ((st = fv_cu_launch_status("slic mean")))
            return st;
        if (p->slic_zero) {
            fv_k_slic_maxc<T><<<x->grid, x->block, 0, x->stream>>>(d, img, mask, lab, seg, maxc);
            if ((st = fv_cu_launch_status("slic maxc")))
                return st;
        }
    }
    return FV_OK;
}

static fv_status
fv__cuda_slic(fv_context *ctx, const fv__op_args *a)
{
    const char *name = "slic";
    const fv__slic_params *p = fv__params_SLIC(a);
    const int f32 = a->in->dtype == FV_FLOAT32;
    const size_t tsz = f32 ? sizeof(float) : sizeof(double);
    const int64_t n = a->in->shape[0] * a->in->shape[1] * a->in->shape[2], K = p->segments->shape[0];
    const int64_t F = p->segments->shape[1];
    if (p->segments->device.type != FV_DEVICE_CUDA || p->segments->device.id != a->out->device.id)
        return fv_error_set(FV_EDEVICE, name, "segments must be on the image's device");
    if (n == 0)
        return FV_OK;
    int64_t nbins = 1;
    const int64_t steps[3] = { p->step_z, p->step_y, p->step_x };
    for (int k = 0; k < 3; k++) {
        const int64_t nb = (a->in->shape[k] + steps[k] - 1) / steps[k];
        nbins *= nb < 1 ? 1 : nb;
    }
    ctx = fv__ctx(ctx);
    fv_cu_exec x;
    fv_status st;
    if ((st = fv_cu_begin(ctx, name, a, n, &x)))
        return st;
    struct {
        void *ptr, *opaque;
    } bufs[6] = { { 0 } };
    const size_t sizes[6] = { 8 * (size_t)(6 * K + 1), 8 * (size_t)(nbins + 1), 8 * (size_t)(K + 1),
                              8 * (size_t)(K + 1),     tsz * (size_t)(K + 1),   sizeof(int) };
    void *dbuf[6];
    void *hbuf = fv__malloc(8 * (size_t)(8 * K + nbins + 1) + tsz * (size_t)(K * F + 1));
    if (!hbuf)
        st = fv_error_set(FV_ENOMEM, name, "out of memory");
    for (int k = 0; k < 6 && !st; k++)
        st = fv__cuda_alloc(ctx, x.device, sizes[k], &bufs[k].ptr, &bufs[k].opaque);
    for (int k = 0; k < 6; k++)
        dbuf[k] = bufs[k].ptr;
    if (!st)
        st = f32 ? fv_cu_slic_run<float>(ctx, a, &x, dbuf, hbuf, nbins)
                 : fv_cu_slic_run<double>(ctx, a, &x, dbuf, hbuf, nbins);
    (void)cudaStreamSynchronize(x.stream); /* nothing queued may still use the scratch */
    for (int k = 0; k < 6; k++)
        if (bufs[k].ptr)
            fv__cuda_free(bufs[k].ptr, bufs[k].opaque);
    fv__free(hbuf);
    fv_cu_end(&x);
    return st;
}
FV_KERNEL(SLIC, CUDA,
          FV_DTYPE_BIT(FV_FLOAT32) | FV_DTYPE_BIT(FV_FLOAT64) | FV_DTYPE_BIT(FV_BOOL) | FV_DTYPE_BIT(FV_INT64), 4,
          fv__cuda_slic);

/* The connectivity scan is sequential: the labels go to the host, are scanned there
 * with the CPU kernel's code and come back (far faster than one GPU thread). */
static fv_status
fv__cuda_slic_connect(fv_context *ctx, const fv__op_args *a)
{
    const fv__slic_connect_params *p = fv__params_SLIC_CONNECT(a);
    const int64_t n = fv_array_size(a->in), cap = p->max_size > 1 ? p->max_size : 1;
    const fv_device host = { FV_DEVICE_CPU, 0 };
    if (n == 0)
        return FV_OK;
    ctx = fv__ctx(ctx);
    fv_cu_exec x;
    fv_status st;
    if ((st = fv_cu_begin(ctx, "slic", a, 1, &x)))
        return st;
    int64_t *seg = (int64_t *)fv__malloc(sizeof(int64_t) * (size_t)n);
    int64_t *out = (int64_t *)fv__malloc(sizeof(int64_t) * (size_t)n);
    int64_t *list = (int64_t *)fv__malloc(sizeof(int64_t) * (size_t)cap);
    if (!seg || !out || !list)
        st = fv_error_set(FV_ENOMEM, "slic", "out of memory");
    if (!st && !(st = fv__cuda_memcpy(ctx, seg, host, a->in->data, a->in->device, sizeof(int64_t) * (size_t)n))) {
        fv__slic_connect(seg, out, a->in->shape[0], a->in->shape[1], a->in->shape[2], p->min_size, p->max_size,
                         p->start_label, list);
        st = fv__cuda_memcpy(ctx, a->out->data, a->out->device, out, host, sizeof(int64_t) * (size_t)n);
        (void)cudaStreamSynchronize(x.stream); /* out is read before it is freed */
    }
    fv__free(seg);
    fv__free(out);
    fv__free(list);
    fv_cu_end(&x);
    return st;
}
FV_KERNEL(SLIC_CONNECT, CUDA, FV_DTYPE_BIT(FV_INT64), 3, fv__cuda_slic_connect);
