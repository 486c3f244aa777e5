/* CUDA kernels of FFT (cuFFT, loaded at run time) and FOURIER (src/ops/fft/fft.h).
 *
 * cuFFT: libcufft.so.12 is dlopen'ed on first use through src/core/dl.c
 * (RTLD_NOW | RTLD_LOCAL, recorded), every entry point resolved with dlsym into
 * pointers typed from cufft.h. Only the header is needed at build time
 * (FOVEA_HAVE_CUFFT, set by CMakeLists.txt when the toolkit has cufft.h);
 * without it, or without the library at run time, FFT on device arrays fails
 * with FV_EUNSUPPORTED saying why, and everything else works.
 *
 * Plans: cached per (device, stream, type, rank, lengths, layout, batch), at
 * most FV__CUFFT_CACHE, least recently used unreferenced ones destroyed first.
 * The stream is part of the key so that a plan's work area is only ever used in
 * one stream's order; a per-plan mutex covers cufftSetStream + exec.
 *
 * Layout (the op layer hands contiguous arrays, and a private copy of in for
 * C2R, which cuFFT overwrites): when the axes are the trailing k <= 3 axes with
 * the real axis (R2C/C2R) last, one batched rank-k plan; otherwise one rank-1
 * pass per axis, batched over the inner axes by stride (looped over the outer
 * ones), the first pass reading in and the later ones in place on out. */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "cuda/common.cuh"
#include "ops/fft/fft.h"

#ifdef FOVEA_HAVE_CUFFT
#include <dlfcn.h>
#include <cufft.h>
#include "dl.h"
#include "config.h"

#define FV__CUFFT_FUNCS(X) \
    X(cufftCreate)         \
    X(cufftDestroy)        \
    X(cufftPlanMany)       \
    X(cufftSetStream)      \
    X(cufftExecC2C)        \
    X(cufftExecZ2Z)        \
    X(cufftExecR2C)        \
    X(cufftExecD2Z)        \
    X(cufftExecC2R)        \
    X(cufftExecZ2D)

static struct {
#define FV__CF_MEMBER(f) decltype(&::f) f##_;
    FV__CUFFT_FUNCS(FV__CF_MEMBER)
#undef FV__CF_MEMBER
} cf;

static pthread_once_t g_cf_once = PTHREAD_ONCE_INIT;
static int g_cf_loaded;
static char g_cf_reason[512];

static void
cf_load(void)
{
    const char *names[5];
    char home_path[512];
    const char *home = fv__env(FV__ENV_CUDA_HOME);
    char first_err[256] = "";
    int nn = 0;
    void *lib;

    names[nn++] = "libcufft.so.12";
    if (home && *home && snprintf(home_path, sizeof home_path, "%s/lib64/libcufft.so.12", home) < (int)sizeof home_path)
        names[nn++] = home_path;
    names[nn++] = "/usr/local/cuda/lib64/libcufft.so.12";
    names[nn++] = "libcufft.so";
    if (!(lib = fv__dl_open("cufft", names, (size_t)nn, first_err, sizeof first_err))) {
        snprintf(g_cf_reason, sizeof g_cf_reason, "GPU FFT unavailable: libcufft.so.12 could not be loaded (%s)",
                 first_err);
        return;
    }
#define FV__CF_RESOLVE(f)                                                                             \
    do {                                                                                              \
        void *sym_ = dlsym(lib, #f);                                                                  \
        if (!sym_) {                                                                                  \
            snprintf(g_cf_reason, sizeof g_cf_reason, "GPU FFT unavailable: libcufft has no %s", #f); \
            return;                                                                                   \
        }                                                                                             \
        memcpy(&cf.f##_, &sym_, sizeof sym_);                                                         \
    } while (0);
    FV__CUFFT_FUNCS(FV__CF_RESOLVE)
#undef FV__CF_RESOLVE
    g_cf_loaded = 1;
}

#define FV__CUFFT_CACHE 16

typedef struct fv__cf_key {
    int device;
    void *stream;
    int type; /* cufftType */
    int rank;
    int n[3];
    int inembed[3], istride, idist;
    int onembed[3], ostride, odist;
    int batch;
} fv__cf_key;

typedef struct fv__cf_plan {
    fv__cf_key key;
    cufftHandle h;
    pthread_mutex_t lock;
    int refs;
    uint64_t stamp;
} fv__cf_plan;

static pthread_mutex_t g_cf_lock = PTHREAD_MUTEX_INITIALIZER;
static fv__cf_plan *g_cf_plans[FV__CUFFT_CACHE];
static int g_cf_count;
static uint64_t g_cf_clock;

static fv_status
cf_error(const char *what, cufftResult r)
{
    return fv_error_set(r == CUFFT_ALLOC_FAILED ? FV_ENOMEM : FV_ECUDA, "fft", "%s failed (cufftResult %d)", what,
                        (int)r);
}

static void
cf_plan_destroy(fv__cf_plan *p)
{
    if (!p)
        return;
    int prev = -1;
    if (fv__cuda_enter(p->key.device, &prev) == FV_OK) {
        cf.cufftDestroy_(p->h);
        fv__cuda_leave(prev);
    }
    pthread_mutex_destroy(&p->lock);
    free(p);
}

/* A counted reference to the plan of key (made on the current device). */
static fv_status
cf_plan_get(const fv__cf_key *key, fv__cf_plan **out)
{
    fv__cf_plan *p = NULL, *evicted = NULL;
    pthread_mutex_lock(&g_cf_lock);
    for (int i = 0; i < g_cf_count; i++)
        if (memcmp(&g_cf_plans[i]->key, key, sizeof *key) == 0) {
            p = g_cf_plans[i];
            p->refs++;
            p->stamp = ++g_cf_clock;
            break;
        }
    pthread_mutex_unlock(&g_cf_lock);
    if (p) {
        *out = p;
        return FV_OK;
    }
    p = (fv__cf_plan *)calloc(1, sizeof *p);
    if (!p)
        return fv_error_set(FV_ENOMEM, "fft", "out of memory");
    p->key = *key;
    /* zero embeds: the basic (packed) layout, NULL embeds for cuFFT */
    const int adv = key->inembed[0] != 0;
    cufftResult r =
        cf.cufftPlanMany_(&p->h, key->rank, (int *)key->n, adv ? (int *)key->inembed : NULL, key->istride, key->idist,
                          adv ? (int *)key->onembed : NULL, key->ostride, key->odist, (cufftType)key->type, key->batch);
    if (r != CUFFT_SUCCESS) {
        free(p);
        return cf_error("cufftPlanMany", r);
    }
    pthread_mutex_init(&p->lock, NULL);
    p->refs = 1;
    pthread_mutex_lock(&g_cf_lock);
    p->stamp = ++g_cf_clock;
    if (g_cf_count == FV__CUFFT_CACHE) {
        int victim = -1;
        for (int i = 0; i < g_cf_count; i++)
            if (g_cf_plans[i]->refs == 0 && (victim < 0 || g_cf_plans[i]->stamp < g_cf_plans[victim]->stamp))
                victim = i;
        if (victim >= 0) {
            evicted = g_cf_plans[victim];
            g_cf_plans[victim] = g_cf_plans[--g_cf_count];
        }
    }
    if (g_cf_count < FV__CUFFT_CACHE)
        g_cf_plans[g_cf_count++] = p;
    else
        p->refs += 1000000; /* not cached: destroyed by its user (see cf_plan_put) */
    pthread_mutex_unlock(&g_cf_lock);
    cf_plan_destroy(evicted);
    *out = p;
    return FV_OK;
}

static void
cf_plan_put(fv__cf_plan *p)
{
    int drop;
    pthread_mutex_lock(&g_cf_lock);
    p->refs--;
    drop = p->refs == 1000000;
    pthread_mutex_unlock(&g_cf_lock);
    if (drop)
        cf_plan_destroy(p);
}

static fv_status
cf_exec(fv__cf_plan *p, cudaStream_t stream, int dbl, int kind, int inverse, void *in, void *out)
{
    cufftResult r;
    pthread_mutex_lock(&p->lock);
    r = cf.cufftSetStream_(p->h, stream);
    if (r == CUFFT_SUCCESS) {
        const int dir = inverse ? CUFFT_INVERSE : CUFFT_FORWARD;
        if (kind == FV_FFT_C2C)
            r = dbl ? cf.cufftExecZ2Z_(p->h, (cufftDoubleComplex *)in, (cufftDoubleComplex *)out, dir)
                    : cf.cufftExecC2C_(p->h, (cufftComplex *)in, (cufftComplex *)out, dir);
        else if (kind == FV_FFT_R2C)
            r = dbl ? cf.cufftExecD2Z_(p->h, (cufftDoubleReal *)in, (cufftDoubleComplex *)out)
                    : cf.cufftExecR2C_(p->h, (cufftReal *)in, (cufftComplex *)out);
        else
            r = dbl ? cf.cufftExecZ2D_(p->h, (cufftDoubleComplex *)in, (cufftDoubleReal *)out)
                    : cf.cufftExecC2R_(p->h, (cufftComplex *)in, (cufftReal *)out);
    }
    pthread_mutex_unlock(&p->lock);
    return r == CUFFT_SUCCESS ? FV_OK : cf_error("cufftExec", r);
}

static int
cf_type(int kind, int dbl)
{
    if (kind == FV_FFT_C2C)
        return dbl ? CUFFT_Z2Z : CUFFT_C2C;
    if (kind == FV_FFT_R2C)
        return dbl ? CUFFT_D2Z : CUFFT_R2C;
    return dbl ? CUFFT_Z2D : CUFFT_C2R;
}

/* One rank-1 pass of `kind` along logical axis ax of the C-contiguous logical
 * shape S (the transform's full shape: the real one for R2C/C2R), in -> out. */
/* dst[o][b][a] = src[o][a][b] for o < outer, a < A, b < B (elements of type T). */
template <typename T>
__global__ void
fv_k_fft_swap(const T *src, T *dst, int64_t outer, int64_t A, int64_t B)
{
    const int64_t ab = A * B;
    FV_GRID_STRIDE(int64_t, i, outer * ab) {
        const int64_t o = i / ab, r = i - o * ab, a = r / B, b = r - a * B;
        dst[o * ab + b * A + a] = src[i];
    }
}

static fv_status
cf_swap(const fv_cu_exec *x, size_t elem, const void *src, void *dst, int64_t outer, int64_t A, int64_t B)
{
    if (elem == 4)
        fv_k_fft_swap<float><<<x->grid, x->block, 0, x->stream>>>((const float *)src, (float *)dst, outer, A, B);
    else if (elem == 8)
        fv_k_fft_swap<double><<<x->grid, x->block, 0, x->stream>>>((const double *)src, (double *)dst, outer, A, B);
    else
        fv_k_fft_swap<double2><<<x->grid, x->block, 0, x->stream>>>((const double2 *)src, (double2 *)dst, outer, A, B);
    return fv_cu_launch_status("fft transpose kernel launch");
}

static fv_status cf_pass_axis(fv_context *ctx, fv_cu_exec *x, int dbl, int kind, int inverse, int nd, const int64_t *S,
                              int ax, int64_t n, char *in, char *out);

/* A real pass (R2C / C2R) of odd length n over strided lines (inner > 1): cuFFT
 * refuses those at execution (CUFFT_INVALID_VALUE, seen with CUDA 13), so the
 * lines are made contiguous in scratch, transformed as one packed batch, and put
 * back in place. */
static fv_status
cf_pass_real_swapped(fv_context *ctx, fv_cu_exec *x, int dbl, int kind, int inverse, int64_t outer, int64_t inner,
                     int64_t n, int64_t nin, int64_t nout, size_t ein, size_t eout, char *in, char *out)
{
    fv_array *ta = NULL, *tb = NULL;
    fv_status st = fv_cu_tmp_new(ctx, x->device, (size_t)(outer * inner * nin) * ein, &ta);
    if (st == FV_OK)
        st = fv_cu_tmp_new(ctx, x->device, (size_t)(outer * inner * nout) * eout, &tb);
    if (st == FV_OK)
        st = cf_swap(x, ein, in, ta->data, outer, nin, inner);
    /* the lines now contiguous: the pass of the last axis of an (outer * inner, n) array */
    const int64_t S2[2] = { outer * inner, n };
    if (st == FV_OK)
        st = cf_pass_axis(ctx, x, dbl, kind, inverse, 2, S2, 1, n, ta->data, tb->data);
    if (st == FV_OK)
        st = cf_swap(x, eout, tb->data, out, outer, inner, nout);
    fv_cu_tmp_release(ctx, ta);
    fv_cu_tmp_release(ctx, tb);
    return st;
}

static fv_status
cf_pass_axis(fv_context *ctx, fv_cu_exec *x, int dbl, int kind, int inverse, int nd, const int64_t *S, int ax,
             int64_t n, char *in, char *out)
{
    const size_t es = dbl ? 8 : 4;
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < ax; d++)
        outer *= S[d];
    for (int d = ax + 1; d < nd; d++)
        inner *= S[d];
    const int64_t nin = kind == FV_FFT_C2R ? n / 2 + 1 : n, nout = kind == FV_FFT_R2C ? n / 2 + 1 : n;
    const size_t ein = kind == FV_FFT_R2C ? es : 2 * es, eout = kind == FV_FFT_C2R ? es : 2 * es;
    if (kind != FV_FFT_C2C && inner > 1 && (n & 1))
        return cf_pass_real_swapped(ctx, x, dbl, kind, inverse, outer, inner, n, nin, nout, ein, eout, in, out);
    fv__cf_key k;
    memset(&k, 0, sizeof k);
    k.device = x->device;
    k.stream = (void *)x->stream;
    k.type = cf_type(kind, dbl);
    k.rank = 1;
    k.n[0] = (int)n;
    k.inembed[0] = (int)nin;
    k.onembed[0] = (int)nout;
    int64_t loops;
    if (inner == 1) {
        if (outer > INT_MAX || outer * nin > INT_MAX || outer * nout > INT_MAX)
            return fv_error_set(FV_EUNSUPPORTED, "fft", "GPU FFT: batch too large for cuFFT's 32-bit plans");
        k.istride = k.ostride = 1;
        k.idist = (int)nin;
        k.odist = (int)nout;
        k.batch = (int)outer;
        loops = 1;
    } else {
        if (inner > INT_MAX || inner * nin > INT_MAX || inner * nout > INT_MAX)
            return fv_error_set(FV_EUNSUPPORTED, "fft", "GPU FFT: lines too long for cuFFT's 32-bit plans");
        k.istride = k.ostride = (int)inner;
        k.idist = k.odist = 1;
        k.batch = (int)inner;
        loops = outer;
    }
    fv__cf_plan *p;
    fv_status st = cf_plan_get(&k, &p);
    if (st != FV_OK)
        return st;
    for (int64_t o = 0; o < loops && st == FV_OK; o++)
        st = cf_exec(p, x->stream, dbl, kind, inverse, in + (size_t)(o * nin * inner) * ein,
                     out + (size_t)(o * nout * inner) * eout);
    cf_plan_put(p);
    return st;
}

template <typename T>
__global__ void
fv_k_fft_scale(T *a, int64_t n, T s)
{
    FV_GRID_STRIDE(int64_t, i, n)
        a[i] *= s;
}

static fv_status
fv_cu_fft(fv_context *ctx, const fv__op_args *a)
{
    const fv__fft_params *p = fv__params_FFT(a);
    const fv_array *in = a->in;
    fv_array *out = a->out;
    const int dbl = in->dtype == FV_FLOAT64;
    const int nd = p->kind == FV_FFT_C2R ? out->ndim : out->ndim - 1;
    const int last = p->axes[p->naxes - 1];
    int64_t S[FV_MAX_NDIM]; /* the full (real-side) logical shape */
    fv_cu_exec x;
    fv_status st;

    pthread_once(&g_cf_once, cf_load);
    if (!g_cf_loaded)
        return fv_error_set(FV_EUNSUPPORTED, "fft", "%s", g_cf_reason);
    if (!fv_array_is_contiguous(in) || !fv_array_is_contiguous(out))
        return fv_error_set(FV_EINTERNAL, "fft", "CUDA FFT kernel needs contiguous arrays");
    for (int d = 0; d < nd; d++)
        S[d] = p->kind == FV_FFT_R2C ? in->shape[d] : out->shape[d];
    if ((st = fv_cu_begin(ctx, "fft", a, fv_array_size(out), &x)) != FV_OK)
        return st;
    fv__cuda_mark_use(ctx, in);
    fv__cuda_mark_use(ctx, out);

    /* one batched plan when the axes are the trailing k <= 3 and the real axis is last */
    int trailing = p->naxes <= 3 && last == nd - 1;
    for (int i = 0; i < p->naxes && trailing; i++) {
        int found = 0;
        for (int j = 0; j < p->naxes; j++)
            found |= p->axes[j] == nd - 1 - i;
        trailing = found;
    }
    int64_t batch = 1, per = 1;
    for (int d = 0; d < nd - p->naxes; d++)
        batch *= S[d];
    for (int d = nd - p->naxes; d < nd; d++)
        per *= S[d];
    if (trailing && batch <= INT_MAX && per * 2 <= INT_MAX) {
        fv__cf_key k;
        memset(&k, 0, sizeof k);
        k.device = x.device;
        k.stream = (void *)x.stream;
        k.type = cf_type(p->kind, dbl);
        k.rank = p->naxes;
        for (int i = 0; i < p->naxes; i++)
            k.n[i] = (int)S[nd - p->naxes + i];
        /* default (packed) layout: NULL embeds in cufftPlanMany, encoded as zeros here */
        k.istride = k.ostride = 1;
        k.batch = (int)batch;
        int64_t cplx = per / S[nd - 1] * (S[nd - 1] / 2 + 1);
        k.idist = (int)(p->kind == FV_FFT_C2R ? cplx : per);
        k.odist = (int)(p->kind == FV_FFT_R2C ? cplx : per);
        fv__cf_plan *pl = NULL;
        st = cf_plan_get(&k, &pl);
        if (st == FV_OK) {
            st = cf_exec(pl, x.stream, dbl, p->kind, p->inverse, in->data, out->data);
            cf_plan_put(pl);
        }
    } else if (p->kind != FV_FFT_C2R) {
        for (int i = p->naxes - 1; i >= 0 && st == FV_OK; i--) {
            const int ax = p->axes[i];
            const int first = i == p->naxes - 1;
            const int kind = first ? p->kind : FV_FFT_C2C;
            int64_t Sp[FV_MAX_NDIM];
            memcpy(Sp, S, sizeof Sp);
            if (!first && p->kind == FV_FFT_R2C)
                Sp[last] = S[last] / 2 + 1; /* later passes see the half spectrum */
            st = cf_pass_axis(ctx, &x, dbl, kind, p->inverse, nd, Sp, ax, Sp[ax], first ? in->data : out->data,
                              out->data);
        }
    } else {
        /* C2R: in is the op layer's private copy: complex passes in place on it, the real one last */
        int64_t Sh[FV_MAX_NDIM];
        memcpy(Sh, S, sizeof Sh);
        Sh[last] = S[last] / 2 + 1;
        for (int i = 0; i < p->naxes - 1 && st == FV_OK; i++)
            st = cf_pass_axis(ctx, &x, dbl, FV_FFT_C2C, 1, nd, Sh, p->axes[i], Sh[p->axes[i]], in->data, in->data);
        if (st == FV_OK)
            st = cf_pass_axis(ctx, &x, dbl, FV_FFT_C2R, 1, nd, S, last, S[last], in->data, out->data);
    }
    if (st == FV_OK && p->scale != 1.0) {
        const int64_t n = fv_array_size(out);
        if (dbl)
            fv_k_fft_scale<double><<<x.grid, x.block, 0, x.stream>>>((double *)out->data, n, p->scale);
        else
            fv_k_fft_scale<float><<<x.grid, x.block, 0, x.stream>>>((float *)out->data, n, (float)p->scale);
        st = fv_cu_launch_status("fft scale kernel launch");
    }
    fv_cu_end(&x);
    return st;
}

#else /* !FOVEA_HAVE_CUFFT */

static fv_status
fv_cu_fft(fv_context *ctx, const fv__op_args *a)
{
    (void)ctx;
    (void)a;
    return fv_error_set(FV_EUNSUPPORTED, "fft", "GPU FFT unavailable: built without cufft.h");
}

#endif
FV_KERNEL(FFT, CUDA, FV_DTYPES_FLOAT, FV_MAX_NDIM, fv_cu_fft);

/* ---- FOURIER ------------------------------------------------------------------------- */

typedef struct fv__cu_fourier_geom {
    int nd;
    int64_t shape[FV_MAX_NDIM];
    int64_t is[FV_MAX_NDIM], os[FV_MAX_NDIM];
} fv__cu_fourier_geom;

template <typename TI, typename TO>
__global__ void
fv_k_fourier(const char *in, char *out, int64_t n, fv__cu_fourier_geom g, fv__fourier_params q)
{
    const int add = q.kind == FV__FOURIER_ELLIPSOID || q.kind == FV__FOURIER_SHIFT;
    FV_GRID_STRIDE(int64_t, i, n) {
        int64_t r = i, io = 0, oo = 0;
        double acc = add ? 0.0 : 1.0;
        for (int d = g.nd - 1; d >= 0; d--) {
            const int64_t c = r % g.shape[d];
            r /= g.shape[d];
            io += c * g.is[d];
            oo += c * g.os[d];
            const double t = fv__fourier_term(&q, d, g.shape[d], c);
            acc = add ? acc + t : acc * t;
        }
        const double f = fv__fourier_finish(&q, acc);
        const TI *x = (const TI *)(in + io);
        TO *y = (TO *)(out + oo);
        const double xr = (double)x[0], xi = q.in_complex ? (double)x[1] : 0.0;
        double yr, yi;
        if (q.kind == FV__FOURIER_SHIFT) {
            double sn, cs;
            sincos(f, &sn, &cs);
            yr = xr * cs - xi * sn;
            yi = xr * sn + xi * cs;
        } else {
            yr = xr * f;
            yi = xi * f;
        }
        y[0] = (TO)yr;
        if (q.out_complex)
            y[1] = (TO)yi;
    }
}

static fv_status
fv_cu_fourier(fv_context *ctx, const fv__op_args *a)
{
    const fv__fourier_params *q = fv__params_FOURIER(a);
    fv__cu_fourier_geom g;
    int64_t n = 1;
    fv_cu_exec x;
    memset(&g, 0, sizeof g);
    g.nd = q->ndim;
    for (int d = 0; d < g.nd; d++) {
        g.shape[d] = a->in->shape[d];
        g.is[d] = a->in->strides[d];
        g.os[d] = a->out->strides[d];
        n *= g.shape[d];
    }
    fv_status st = fv_cu_begin(ctx, "fourier_filter", a, n, &x);
    if (st != FV_OK)
        return st;
    const int id = a->in->dtype == FV_FLOAT64, od = a->out->dtype == FV_FLOAT64;
    const char *in = a->in->data;
    char *out = a->out->data;
    if (id && od)
        fv_k_fourier<double, double><<<x.grid, x.block, 0, x.stream>>>(in, out, n, g, *q);
    else if (id)
        fv_k_fourier<double, float><<<x.grid, x.block, 0, x.stream>>>(in, out, n, g, *q);
    else if (od)
        fv_k_fourier<float, double><<<x.grid, x.block, 0, x.stream>>>(in, out, n, g, *q);
    else
        fv_k_fourier<float, float><<<x.grid, x.block, 0, x.stream>>>(in, out, n, g, *q);
    st = fv_cu_launch_status("fourier_filter kernel launch");
    fv_cu_end(&x);
    return st;
}
FV_KERNEL(FOURIER, CUDA, FV_DTYPES_FLOAT, FV_MAX_NDIM, fv_cu_fourier);
