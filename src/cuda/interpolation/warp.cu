/* CUDA kernel of WARP2D (src/ops/interpolation/warp.h): scikit-image's
 * _warp_fast, one thread per output pixel (all its channels), with the CPU
 * kernel's arithmetic (src/cpu/interpolation/warp-cpu.c) step by step in the
 * image's float type F, every product, sum and quotient rounded on its own
 * (the __f*_rn / __d*_rn intrinsics: nvcc would otherwise contract them into
 * FMAs, which NumPy's element-wise maths never does). */
#include "cuda/common.cuh"
#include "fovea/interpolation.h"
#include "ops/filters/ndimage-math.h" /* fv__cvt64 */
#include "ops/interpolation/warp.h"

template <typename F> struct fv_d_wp_ar;
template <> struct fv_d_wp_ar<float> {
    static __device__ __forceinline__ float mul(float a, float b)
    {
        return __fmul_rn(a, b);
    }
    static __device__ __forceinline__ float add(float a, float b)
    {
        return __fadd_rn(a, b);
    }
    static __device__ __forceinline__ float sub(float a, float b)
    {
        return __fsub_rn(a, b);
    }
    static __device__ __forceinline__ float div(float a, float b)
    {
        return __fdiv_rn(a, b);
    }
};
template <> struct fv_d_wp_ar<double> {
    static __device__ __forceinline__ double mul(double a, double b)
    {
        return __dmul_rn(a, b);
    }
    static __device__ __forceinline__ double add(double a, double b)
    {
        return __dadd_rn(a, b);
    }
    static __device__ __forceinline__ double sub(double a, double b)
    {
        return __dsub_rn(a, b);
    }
    static __device__ __forceinline__ double div(double a, double b)
    {
        return __ddiv_rn(a, b);
    }
};

/* The arrays' geometry and the parameters, by value. */
typedef struct fv_cu_wp_geom {
    int64_t rows, cols, nch, sr, sc, sch; /* in */
    int64_t orows, ocols, osr, osc, osch; /* out */
    double m[9];
    double cval;
    int order, mode;
} fv_cu_wp_geom;

/* a + b wrapping as NumPy's int64 does */
static __device__ __forceinline__ int64_t
fv_d_wp_wadd(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a + (uint64_t)b);
}

template <typename F>
static __device__ __forceinline__ F
fv_d_wp_tap(const char *base, const fv_cu_wp_geom &g, int64_t i, int64_t j, F cval)
{
    if (g.mode == FV_WARP_CONSTANT) {
        if (i < 0 || i >= g.rows || j < 0 || j >= g.cols)
            return cval;
    } else {
        i = fv__wp_map(i, g.rows, g.mode);
        j = fv__wp_map(j, g.cols, g.mode);
    }
    return *(const F *)(base + i * g.sr + j * g.sc);
}

/* f1 + 0.5 x (f2 - f0 + x (2 f0 - 5 f1 + 4 f2 - f3 + x (3 (f1 - f2) + f3 - f0))), in C's order */
template <typename F>
static __device__ __forceinline__ F
fv_d_wp_cubic(F x, F f0, F f1, F f2, F f3)
{
    typedef fv_d_wp_ar<F> A;
    const F c = A::sub(A::add(A::mul((F)3.0, A::sub(f1, f2)), f3), f0);
    const F b =
        A::add(A::sub(A::add(A::sub(A::mul((F)2.0, f0), A::mul((F)5.0, f1)), A::mul((F)4.0, f2)), f3), A::mul(x, c));
    const F a = A::add(A::sub(f2, f0), A::mul(x, b));
    return A::add(f1, A::mul(A::mul((F)0.5, x), a));
}

template <typename F>
__global__ void
fv_k_warp2d(const char *in, char *out, fv_cu_wp_geom g)
{
    typedef fv_d_wp_ar<F> A;
    const int64_t n = g.orows * g.ocols;
    F m[9];
    for (int k = 0; k < 9; k++)
        m[k] = (F)g.m[k];
    const F cval = (F)g.cval;
    FV_GRID_STRIDE(int64_t, i, n) {
        const int64_t r = i / g.ocols, c = i - r * g.ocols;
        const F tr = (F)r, tc = (F)c;
        const F x = A::add(A::add(A::mul(m[0], tc), A::mul(m[1], tr)), m[2]);
        const F y = A::add(A::add(A::mul(m[3], tc), A::mul(m[4], tr)), m[5]);
        const F z = A::add(A::add(A::mul(m[6], tc), A::mul(m[7], tr)), m[8]);
        const F col = A::div(x, z), row = A::div(y, z);
        char *po = out + r * g.osr + c * g.osc;
        const F fr = floor(row), fc = floor(col);
        if (g.order == 1) {
            const F dr = A::sub(row, fr), dc = A::sub(col, fc);
            const int64_t r0 = fv__cvt64((double)fr), c0 = fv__cvt64((double)fc);
            const int64_t r1 = fv__cvt64((double)ceil(row)), c1 = fv__cvt64((double)ceil(col));
            const F udc = A::sub((F)1, dc), udr = A::sub((F)1, dr);
            for (int64_t ch = 0; ch < g.nch; ch++) {
                const char *b = in + ch * g.sch;
                const F tl = fv_d_wp_tap<F>(b, g, r0, c0, cval), tq = fv_d_wp_tap<F>(b, g, r0, c1, cval);
                const F bl = fv_d_wp_tap<F>(b, g, r1, c0, cval), bq = fv_d_wp_tap<F>(b, g, r1, c1, cval);
                const F top = A::add(A::mul(udc, tl), A::mul(dc, tq));
                const F bottom = A::add(A::mul(udc, bl), A::mul(dc, bq));
                *(F *)(po + ch * g.osch) = A::add(A::mul(udr, top), A::mul(dr, bottom));
            }
        } else {
            const F xrr = A::sub(row, fr), xc = A::sub(col, fc);
            const int64_t r0 = fv_d_wp_wadd(fv__cvt64((double)fr), -1);
            const int64_t c0 = fv_d_wp_wadd(fv__cvt64((double)fc), -1);
            for (int64_t ch = 0; ch < g.nch; ch++) {
                const char *b = in + ch * g.sch;
                F f[4];
                for (int k = 0; k < 4; k++) {
                    F t[4];
                    for (int e = 0; e < 4; e++)
                        t[e] = fv_d_wp_tap<F>(b, g, fv_d_wp_wadd(r0, k), fv_d_wp_wadd(c0, e), cval);
                    f[k] = fv_d_wp_cubic<F>(xc, t[0], t[1], t[2], t[3]);
                }
                *(F *)(po + ch * g.osch) = fv_d_wp_cubic<F>(xrr, f[0], f[1], f[2], f[3]);
            }
        }
    }
}

static fv_status
fv_cu_warp2d(fv_context *ctx, const fv__op_args *a)
{
    const fv_array *in = a->in;
    fv_array *out = a->out;
    const fv__warp2d_params *p = fv__params_WARP2D(a);
    fv_cu_wp_geom g;
    memset(&g, 0, sizeof g);
    g.rows = in->shape[0];
    g.cols = in->shape[1];
    g.nch = in->ndim == 3 ? in->shape[2] : 1;
    g.sr = in->strides[0];
    g.sc = in->strides[1];
    g.sch = in->ndim == 3 ? in->strides[2] : 0;
    g.orows = out->shape[0];
    g.ocols = out->shape[1];
    g.osr = out->strides[0];
    g.osc = out->strides[1];
    g.osch = out->ndim == 3 ? out->strides[2] : 0;
    memcpy(g.m, p->matrix, sizeof g.m);
    g.cval = p->cval;
    g.order = p->order;
    g.mode = p->mode;
    const int64_t n = g.orows * g.ocols;
    if (n == 0)
        return FV_OK;
    fv_cu_exec x;
    fv_status st = fv_cu_begin(ctx, "warp_homography", a, n, &x);
    if (st != FV_OK)
        return st;
    if (in->dtype == FV_FLOAT32)
        fv_k_warp2d<float><<<x.grid, x.block, 0, x.stream>>>((const char *)in->data, (char *)out->data, g);
    else
        fv_k_warp2d<double><<<x.grid, x.block, 0, x.stream>>>((const char *)in->data, (char *)out->data, g);
    st = fv_cu_launch_status("warp_homography kernel launch");
    fv_cu_end(&x);
    return st;
}
FV_KERNEL(WARP2D, CUDA, FV_DTYPE_BIT(FV_FLOAT32) | FV_DTYPE_BIT(FV_FLOAT64), 3, fv_cu_warp2d);
