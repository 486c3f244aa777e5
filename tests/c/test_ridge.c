/* fv_hessian_ridge (FV__OP_HESSIAN_RIDGE): the Hessian ridge filters of
 * skimage.filters (frangi / hessian, sato, meijering) one scale at a time.
 *
 *  - the kernels' 3x3 eigen solver (fv__ridge_jacobi3, the host model of the
 *    device code: one source) against matrices Q diag(l) Q^T built from known
 *    eigenvalues: random, repeated (pairs, triples), zero, mixed magnitudes;
 *  - the CPU backend against a straightforward long-double reference
 *    (closed form in 2-d, the trigonometric solution in 3-d, or the known
 *    eigenvalues of the built matrices; then the formulas of ridges.py), two
 *    scales folded into the running max, float32 and float64, 2-d and 3-d, every
 *    filter, gamma given and gamma=None (the max-norm reduction), meijering's
 *    per-scale normalisation. A result passes when it lies in the range the
 *    reference takes with each eigenvalue moved by a few ulps of the matrix
 *    norm (the filters divide by eigenvalues that may be near 0), widened by
 *    rtol * the result's max;
 *  - the CUDA backend (when a GPU is usable) on the same data: the same check,
 *    and its reductions against the CPU's;
 *  - argument errors.
 * FOVEA_TEST_CUDA_ONLY=1 (compute-sanitizer runs): smaller cases. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "fovea/fovea.h"
#include "ops/filters/ridge.h"

static fv_context *ctx;
static int cuda_only;
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static double
urand(void) /* [0, 1) */
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) * (1.0 / 9007199254740992.0);
}

/* ---- reference ------------------------------------------------------------ */

typedef long double LD;

static void
sort_desc(LD *e, int n)
{
    for (int a = 1; a < n; a++)
        for (int b = a; b > 0 && e[b] > e[b - 1]; b--) {
            LD t = e[b];
            e[b] = e[b - 1];
            e[b - 1] = t;
        }
}

/* eigenvalues of the symmetric 3x3 matrix, trigonometric solution in long double */
static void
ref_eig3(const LD *m, LD *e)
{
    LD a00 = m[0], a01 = m[1], a02 = m[2], a11 = m[3], a12 = m[4], a22 = m[5];
    LD p1 = a01 * a01 + a02 * a02 + a12 * a12;
    LD q = (a00 + a11 + a22) / 3;
    LD p2 = (a00 - q) * (a00 - q) + (a11 - q) * (a11 - q) + (a22 - q) * (a22 - q) + 2 * p1;
    LD p = sqrtl(p2 / 6);
    if (p == 0) {
        e[0] = e[1] = e[2] = q;
        return;
    }
    LD b00 = (a00 - q) / p, b11 = (a11 - q) / p, b22 = (a22 - q) / p, b01 = a01 / p, b02 = a02 / p, b12 = a12 / p;
    LD detb = b00 * (b11 * b22 - b12 * b12) - b01 * (b01 * b22 - b12 * b02) + b02 * (b01 * b12 - b11 * b02);
    LD r = detb / 2;
    r = r < -1 ? -1 : r > 1 ? 1 : r;
    LD phi = acosl(r) / 3;
    e[0] = q + 2 * p * cosl(phi);
    e[2] = q + 2 * p * cosl(phi + 2.0943951023931954923L);
    e[1] = 3 * q - e[0] - e[2];
    sort_desc(e, 3);
}

typedef struct rparams {
    int filter; /* FV_RIDGE_* */
    double alpha, beta, gamma, sigma;
} rparams;

/* one scale's response before meijering's normalisation; gden: frangi's 2 gamma^2 */
static LD
ref_response(const rparams *p, int nd, const LD *ein, LD gden)
{
    LD e[3] = { ein[0], ein[1], nd == 3 ? ein[2] : 0 };
    sort_desc(e, nd);
    if (p->filter == FV_RIDGE_SATO) {
        LD a = e[0] > 0 ? e[0] : 0, b = e[1] > 0 ? e[1] : 0;
        return (LD)p->sigma * p->sigma * (nd == 2 ? a : sqrtl(a * b));
    }
    if (p->filter == FV_RIDGE_MEIJERING) {
        LD best = 0, babs = -1;
        for (int r = 0; r < nd; r++) {
            LD v = 0;
            for (int c = 0; c < nd; c++)
                v += (r == c ? 1 : (LD)p->alpha) * e[c];
            if (fabsl(v) > babs) {
                best = v;
                babs = fabsl(v);
            }
        }
        return best > 0 ? best : 0;
    }
    LD l[3] = { e[0], e[1], e[2] };
    for (int a = 1; a < nd; a++) /* stable sort by magnitude */
        for (int b = a; b > 0 && fabsl(l[b]) < fabsl(l[b - 1]); b--) {
            LD t = l[b];
            l[b] = l[b - 1];
            l[b - 1] = t;
        }
    LD s2 = e[0] * e[0] + e[1] * e[1] + (nd == 3 ? e[2] * e[2] : 0);
    LD l2 = l[1] > 1e-10L ? l[1] : 1e-10L, rb, ra = 0;
    if (nd == 2) {
        rb = fabsl(l[0]) / l2;
    } else {
        LD l3 = l[2] > 1e-10L ? l[2] : 1e-10L;
        ra = l2 / l3;
        rb = fabsl(l[0]) / sqrtl(l2 * l3);
    }
    LD v = expl(-rb * rb / (2 * (LD)p->beta * p->beta));
    if (nd == 3)
        v *= 1 - expl(-ra * ra / (2 * (LD)p->alpha * p->alpha));
    v *= 1 - expl(-s2 / gden);
    return v;
}

/* ---- the eigen solver (host model of the device code) ----------------------- */

static void
rotation(LD *Q) /* random rotation from a random unit quaternion */
{
    LD w, x, y, z, n;
    do {
        w = 2 * urand() - 1, x = 2 * urand() - 1, y = 2 * urand() - 1, z = 2 * urand() - 1;
        n = sqrtl(w * w + x * x + y * y + z * z);
    } while (n < 0.1L || n > 1);
    w /= n, x /= n, y /= n, z /= n;
    LD R[9] = { 1 - 2 * (y * y + z * z), 2 * (x * y - z * w),     2 * (x * z + y * w),
                2 * (x * y + z * w),     1 - 2 * (x * x + z * z), 2 * (y * z - x * w),
                2 * (x * z - y * w),     2 * (y * z + x * w),     1 - 2 * (x * x + y * y) };
    memcpy(Q, R, sizeof R);
}

/* upper triangle (H00 H01 H02 H11 H12 H22) of Q diag(l) Q^T */
static void
build3(const LD *l, LD *m)
{
    LD Q[9];
    rotation(Q);
    const int rc[6][2] = { { 0, 0 }, { 0, 1 }, { 0, 2 }, { 1, 1 }, { 1, 2 }, { 2, 2 } };
    for (int k = 0; k < 6; k++) {
        LD s = 0;
        for (int t = 0; t < 3; t++)
            s += Q[rc[k][0] * 3 + t] * l[t] * Q[rc[k][1] * 3 + t];
        m[k] = s;
    }
}

/* special eigenvalue triples: repeated, zero, mixed magnitudes */
static void
special_eigs(int kind, LD *l)
{
    LD a = 4 * urand() - 2, b = 4 * urand() - 2, c = 4 * urand() - 2;
    switch (kind % 10) {
    case 0:
        l[0] = a, l[1] = a, l[2] = b;
        break; /* a double root */
    case 1:
        l[0] = a, l[1] = a, l[2] = a;
        break; /* triple */
    case 2:
        l[0] = 0, l[1] = 0, l[2] = 0;
        break; /* zero matrix */
    case 3:
        l[0] = a, l[1] = 0, l[2] = 0;
        break; /* double zero */
    case 4:
        l[0] = a, l[1] = -a, l[2] = 0;
        break; /* +-, zero */
    case 5:
        l[0] = a, l[1] = b * 1e-9L, l[2] = c;
        break; /* one near zero */
    case 6:
        l[0] = a * 1e6L, l[1] = b, l[2] = c * 1e-6L;
        break; /* spread magnitudes */
    case 7:
        l[0] = a, l[1] = a * (1 + 1e-12L), l[2] = b;
        break; /* nearly double */
    case 8:
        l[0] = a, l[1] = 0, l[2] = b;
        break;
    default:
        l[0] = a, l[1] = b, l[2] = c;
        break;
    }
}

static void
test_jacobi(void)
{
    int bad = 0;
    const int n = cuda_only ? 2000 : 20000;
    for (int it = 0; it < n; it++) {
        LD l[3], m[6];
        special_eigs(it, l);
        int diag = it % 7 == 3; /* already diagonal: no rotation */
        if (diag) {
            m[0] = l[0], m[1] = 0, m[2] = 0, m[3] = l[1], m[4] = 0, m[5] = l[2];
        } else {
            build3(l, m);
        }
        double md[6], e[3];
        for (int k = 0; k < 6; k++)
            md[k] = (double)m[k];
        fv__ridge_jacobi3(md[0], md[1], md[2], md[3], md[4], md[5], e);
        sort_desc(l, 3);
        LD norm = fabsl(l[0]) + fabsl(l[1]) + fabsl(l[2]);
        int ok = e[0] >= e[1] && e[1] >= e[2];
        for (int k = 0; k < 3; k++)
            ok = ok && fabsl((LD)e[k] - l[k]) <= 1e-14L * norm + 1e-300L;
        if (!ok && bad++ < 5)
            fprintf(stderr, "jacobi: kind %d: got %.17g %.17g %.17g want %.17Lg %.17Lg %.17Lg\n", it % 10, e[0], e[1],
                    e[2], l[0], l[1], l[2]);
    }
    CHECK(bad == 0);
    /* NaN in, NaN out; huge and tiny scales */
    double e[3];
    fv__ridge_jacobi3(NAN, 1, 0, 1, 0, 1, e);
    CHECK(e[0] != e[0] || e[1] != e[1] || e[2] != e[2]);
    fv__ridge_jacobi3(1, 0.5, 0, 2, 0.25, 3, e);
    LD ref[3], m[6] = { 1, 0.5, 0, 2, 0.25, 3 };
    ref_eig3(m, ref);
    for (int k = 0; k < 3; k++)
        CHECK(fabsl(e[k] - ref[k]) < 1e-14L);
    for (int sc = -300; sc <= 300; sc += 100) {
        double f = pow(10.0, sc);
        fv__ridge_jacobi3(1 * f, 0.5 * f, 0, 2 * f, 0.25 * f, 3 * f, e);
        for (int k = 0; k < 3; k++)
            CHECK(fabsl(e[k] / f - ref[k]) < 1e-13L);
    }
    printf("test_ridge: jacobi: %d matrices\n", n);
}

/* ---- the op ------------------------------------------------------------------ */

typedef struct planes {
    int nd, nh;
    int64_t shape[3], n;
    fv_dtype dt;
    double *vals[6]; /* the plane values as stored (rounded to dt) */
    LD *eig;         /* n * nd reference eigenvalues */
    LD *norm;        /* n: sum |l| (perturbation size) */
} planes;

static void
planes_free(planes *p)
{
    for (int k = 0; k < 6; k++)
        free(p->vals[k]);
    free(p->eig);
    free(p->norm);
}

static void
planes_make(planes *p, fv_dtype dt, int nd, const int64_t *shape)
{
    memset(p, 0, sizeof *p);
    p->nd = nd, p->nh = nd == 2 ? 3 : 6, p->dt = dt, p->n = 1;
    for (int d = 0; d < nd; d++)
        p->shape[d] = shape[d], p->n *= shape[d];
    for (int k = 0; k < p->nh; k++)
        p->vals[k] = malloc(sizeof(double) * (size_t)(p->n ? p->n : 1));
    p->eig = malloc(sizeof(LD) * (size_t)(p->n * nd + 1));
    p->norm = malloc(sizeof(LD) * (size_t)(p->n + 1));
    for (int64_t i = 0; i < p->n; i++) {
        LD m[6], l[3];
        int special = urand() < 0.3;
        if (nd == 3 && special) {
            special_eigs((int)(urand() * 10), l);
            build3(l, m);
        } else if (nd == 2 && special) {
            /* repeated (a multiple of I), zero, +- pairs, one zero */
            int kind = (int)(urand() * 4);
            LD a = 4 * urand() - 2;
            m[0] = kind == 1 ? 0 : a, m[1] = 0, m[2] = kind == 0 ? a : kind == 1 ? 0 : kind == 2 ? -a : 0;
            if (kind == 2 && urand() < 0.5) { /* rotated +-a: off-diagonal */
                LD c = cosl(urand() * 3), s = sinl(urand() * 3);
                m[0] = a * (c * c - s * s), m[1] = 2 * a * c * s, m[2] = -m[0];
            }
            l[0] = 0; /* computed below */
        } else {
            for (int k = 0; k < p->nh; k++)
                m[k] = 2 * urand() - 1;
        }
        /* the stored (rounded) values */
        for (int k = 0; k < p->nh; k++) {
            double v = (double)m[k];
            if (dt == FV_FLOAT32)
                v = (double)(float)v;
            p->vals[k][i] = v;
        }
        LD *e = p->eig + i * nd;
        if (nd == 2) {
            LD a = p->vals[0][i], b = p->vals[1][i], c = p->vals[2][i];
            LD h = sqrtl(b * b + (a - c) * (a - c) / 4);
            e[0] = (a + c) / 2 + h, e[1] = (a + c) / 2 - h;
        } else if (special) {
            /* the built matrix's known eigenvalues (its rounding is within the
             * perturbation) */
            e[0] = l[0], e[1] = l[1], e[2] = l[2];
            sort_desc(e, 3);
        } else {
            LD ms[6];
            for (int k = 0; k < 6; k++)
                ms[k] = p->vals[k][i];
            ref_eig3(ms, e);
        }
        LD nn = 0;
        for (int k = 0; k < nd; k++)
            nn += fabsl(e[k]);
        p->norm[i] = nn;
    }
}

/* the planes as arrays on dev */
static void
planes_upload(const planes *p, fv_device dev, fv_array **h)
{
    for (int k = 0; k < p->nh; k++) {
        fv_array *host = NULL;
        CHECK_OK(fv_array_new(ctx, p->dt, p->nd, p->shape, (fv_device){ FV_DEVICE_CPU, 0 }, &host));
        for (int64_t i = 0; i < p->n; i++) {
            if (p->dt == FV_FLOAT32)
                ((float *)fv_array_data(host))[i] = (float)p->vals[k][i];
            else
                ((double *)fv_array_data(host))[i] = p->vals[k][i];
        }
        if (dev.type == FV_DEVICE_CPU) {
            h[k] = host;
        } else {
            CHECK_OK(fv_array_new(ctx, p->dt, p->nd, p->shape, dev, &h[k]));
            CHECK_OK(fv_copy(ctx, host, h[k]));
            fv_array_unref(host);
        }
    }
}

static double
get1(const fv_array *a, int64_t i)
{
    return fv_array_dtype(a) == FV_FLOAT32 ? (double)((const float *)fv_array_data(a))[i]
                                           : ((const double *)fv_array_data(a))[i];
}

/* a host copy of a (a itself, +1, when on the host) */
static fv_array *
to_host(fv_array *a)
{
    if (fv_array_device(a).type == FV_DEVICE_CPU)
        return fv_array_ref(a);
    fv_array *h = NULL;
    CHECK_OK(
        fv_array_new(ctx, fv_array_dtype(a), fv_array_ndim(a), fv_array_shape(a), (fv_device){ FV_DEVICE_CPU, 0 }, &h));
    CHECK_OK(fv_copy(ctx, a, h));
    CHECK_OK(fv_context_synchronize(ctx));
    return h;
}

/* response range of pixel i over eigenvalue perturbations of +-delta */
static void
ref_range(const rparams *rp, const planes *p, int64_t i, LD gden, LD eps, LD *lo, LD *hi)
{
    const int nd = p->nd;
    const LD *e = p->eig + i * nd;
    const LD delta = eps * (p->norm[i] + 1e-30L);
    LD mn = ref_response(rp, nd, e, gden), mx = mn;
    for (int c = 0; c < (1 << nd); c++) {
        LD ep[3];
        for (int k = 0; k < nd; k++)
            ep[k] = e[k] + ((c >> k) & 1 ? delta : -delta);
        LD v = ref_response(rp, nd, ep, gden);
        mn = v < mn ? v : mn;
        mx = v > mx ? v : mx;
    }
    *lo = mn, *hi = mx;
}

static int ncases;

/* Two scales of one filter on dev; the result checked against the reference.
 * cpu_scal: when not NULL, the CPU's reduction result to compare (out: this
 * run's). */
static void
run_case(fv_device dev, fv_dtype dt, int nd, const int64_t *shape, const rparams *rp, int gamma_none, double *scal_io,
         int compare_scal)
{
    planes P[2];
    const int nscales = 2;
    uint64_t seed = rng_state;
    for (int s = 0; s < nscales; s++)
        planes_make(&P[s], dt, nd, shape);
    (void)seed;
    const int64_t n = P[0].n;
    const int nh = P[0].nh;
    const fv_device host = { FV_DEVICE_CPU, 0 };
    fv_array *acc = NULL, *scal = NULL;
    int64_t one = 1;
    CHECK_OK(fv_array_zeros(ctx, dt, nd, shape, dev, &acc));
    CHECK_OK(fv_array_zeros(ctx, dt, 1, &one, dev, &scal));
    fv_ridge_params prm = { (fv_ridge_filter)rp->filter, rp->alpha, rp->beta, gamma_none ? NAN : rp->gamma, rp->sigma };
    double red[2] = { 0, 0 }; /* NORM_MAX / meijering max per scale, as computed */
    for (int s = 0; s < nscales; s++) {
        fv_array *h[6] = { NULL };
        planes_upload(&P[s], dev, h);
        if (rp->filter == FV_RIDGE_FRANGI && gamma_none && s == 0) {
            fv_ridge_params q = prm;
            q.filter = FV_RIDGE_NORM_MAX;
            CHECK_OK(fv_hessian_ridge(ctx, (const fv_array *const *)h, nh, NULL, NULL, scal, &q));
            fv_array *sh = to_host(scal);
            red[0] = get1(sh, 0);
            fv_array_unref(sh);
        }
        CHECK_OK(fv_hessian_ridge(ctx, (const fv_array *const *)h, nh, acc,
                                  rp->filter == FV_RIDGE_MEIJERING ? h[0] : NULL, scal, &prm));
        if (rp->filter == FV_RIDGE_MEIJERING) {
            fv_array *sh = to_host(scal);
            red[s] = get1(sh, 0);
            fv_array_unref(sh);
        }
        for (int k = 0; k < nh; k++)
            fv_array_unref(h[k]);
    }
    fv_array *res = to_host(acc);

    /* reference */
    const LD eps = dt == FV_FLOAT32 ? 8 * 5.96e-8L : 16 * 1.11e-16L;
    const LD rtol = dt == FV_FLOAT32 ? 2e-5L : 1e-11L;
    LD gden = 2 * (LD)rp->gamma * rp->gamma;
    LD refred[2] = { 0, 0 };
    if (rp->filter == FV_RIDGE_FRANGI && gamma_none) {
        LD m = 0;
        for (int64_t i = 0; i < n; i++) {
            const LD *e = P[0].eig + i * nd;
            LD s2 = 0;
            for (int k = 0; k < nd; k++)
                s2 += e[k] * e[k];
            m = sqrtl(s2) > m ? sqrtl(s2) : m;
        }
        refred[0] = m;
        CHECK(fabsl(red[0] - m) <= 4 * eps * (m + 1e-30L));
        LD g = (LD)red[0] / 2; /* the op's gamma, from its own max */
        if (g == 0)
            g = 1;
        gden = 2 * g * g;
    }
    LD *lo = calloc((size_t)n + 1, sizeof(LD)), *hi = calloc((size_t)n + 1, sizeof(LD));
    LD scale = 0;
    for (int s = 0; s < nscales; s++) {
        LD mmax = 0;
        if (rp->filter == FV_RIDGE_MEIJERING) {
            /* the max lies between the largest of the per-pixel lower bounds and the
             * largest upper bound (eigenvalues moved by a few ulps of the norm: a
             * response that cancels can move much more than its own ulps) */
            LD blo = 0, bhi = 0;
            for (int64_t i = 0; i < n; i++) {
                LD v = ref_response(rp, nd, P[s].eig + i * nd, gden), a, b;
                mmax = v > mmax ? v : mmax;
                ref_range(rp, &P[s], i, gden, eps, &a, &b);
                blo = a > blo ? a : blo;
                bhi = b > bhi ? b : bhi;
            }
            refred[s] = mmax;
            int ok = (LD)red[s] >= blo - 4 * eps * blo && (LD)red[s] <= bhi + 4 * eps * bhi + 1e-300L;
            if (!ok)
                fprintf(stderr, "test_ridge: meijering max %.17g, reference %.17Lg in [%.17Lg, %.17Lg]\n", red[s], mmax,
                        blo, bhi);
            CHECK(ok);
        }
        for (int64_t i = 0; i < n; i++) {
            LD a, b;
            ref_range(rp, &P[s], i, gden, eps, &a, &b);
            if (rp->filter == FV_RIDGE_MEIJERING && red[s] > 0)
                a /= (LD)red[s], b /= (LD)red[s];
            lo[i] = a > lo[i] ? a : lo[i];
            hi[i] = b > hi[i] ? b : hi[i];
            scale = hi[i] > scale ? hi[i] : scale;
        }
    }
    /* frangi is not a function of the data where two eigenvalues are within
     * the rounding noise of 0 (the order by magnitude and the 1e-10 floor of
     * the larger ones are then noise): such pixels are counted, not checked.
     * float32: NumPy's exp(x) is 1 for x >= -4.1e-8 (the op matches it), so
     * 1 - exp may be 0 where the reference has up to 4.1e-8. */
    int bad = 0, skipped = 0;
    const LD atol = dt == FV_FLOAT32 && rp->filter == FV_RIDGE_FRANGI ? 5e-8L : 0;
    for (int64_t i = 0; i < n; i++) {
        LD g = get1(res, i), tol = rtol * (scale > 1e-30L ? scale : 1e-30L) + atol;
        if (rp->filter == FV_RIDGE_FRANGI) {
            int noisy = 0;
            for (int s = 0; s < nscales; s++) {
                int small = 0;
                for (int k = 0; k < nd; k++)
                    small += fabsl(P[s].eig[i * nd + k]) <= 4 * eps * (P[s].norm[i] + 1e-30L);
                noisy |= small >= 2 && P[s].norm[i] > 0;
            }
            if (noisy) {
                skipped++;
                continue;
            }
        }
        if (!(g >= lo[i] - tol && g <= hi[i] + tol)) {
            if (bad++ < 5)
                fprintf(stderr, "ridge %s %s %dd filter %d gamma_none %d: pixel %lld: got %.9g, want [%.9Lg, %.9Lg]\n",
                        dev.type == FV_DEVICE_CPU ? "cpu" : "cuda", fv_dtype_name(dt), nd, rp->filter, gamma_none,
                        (long long)i, (double)g, lo[i], hi[i]);
            if (bad <= 5 && nd == 3 && getenv("RIDGE_DEBUG")) {
                for (int s = 0; s < nscales; s++) {
                    double e[3];
                    double *v[6];
                    for (int k = 0; k < 6; k++)
                        v[k] = P[s].vals[k];
                    fv__ridge_jacobi3(v[0][i], v[1][i], v[2][i], v[3][i], v[4][i], v[5][i], e);
                    const LD *re = P[s].eig + i * 3;
                    fprintf(stderr, "   scale %d: jacobi %.9g %.9g %.9g ref %.9Lg %.9Lg %.9Lg resp %.9Lg\n", s, e[0],
                            e[1], e[2], re[0], re[1], re[2], ref_response(rp, 3, re, gden));
                }
            }
        }
    }
    CHECK(bad == 0);
    CHECK(skipped <= n / 4 + 2);
    if (compare_scal && scal_io) {
        /* the reductions of this backend against the CPU's (same data: same seed) */
        double got = rp->filter == FV_RIDGE_MEIJERING ? red[1] : red[0];
        double rel = fabs(got - *scal_io) / (fabs(*scal_io) + 1e-300);
        CHECK(rel <= (dt == FV_FLOAT32 ? 1e-6 : 1e-13));
    } else if (scal_io) {
        *scal_io = rp->filter == FV_RIDGE_MEIJERING ? red[1] : red[0];
    }
    (void)refred;
    (void)host;
    free(lo);
    free(hi);
    fv_array_unref(res);
    fv_array_unref(acc);
    fv_array_unref(scal);
    for (int s = 0; s < nscales; s++)
        planes_free(&P[s]);
    ncases++;
}

static void
test_op(int with_cuda)
{
    static const int64_t shapes2[][2] = { { 37, 41 }, { 1, 1 }, { 1, 17 }, { 19, 1 }, { 64, 65 }, { 2, 3 } };
    static const int64_t shapes3[][3] = { { 5, 7, 9 }, { 1, 1, 1 }, { 1, 3, 1 }, { 12, 13, 14 }, { 2, 1, 4 } };
    static const rparams filters[] = {
        { FV_RIDGE_FRANGI, 0.5, 0.5, 15, 0 }, /* hessian's defaults */
        { FV_RIDGE_FRANGI, 0.3, 0.8, 0.7, 0 }, { FV_RIDGE_SATO, 0, 0, 0, 2.5 },          { FV_RIDGE_SATO, 0, 0, 0, 1 },
        { FV_RIDGE_MEIJERING, -0.2, 0, 0, 0 }, { FV_RIDGE_MEIJERING, 1.0 / 3, 0, 0, 0 }, /* 2-d default */
        { FV_RIDGE_MEIJERING, 0.25, 0, 0, 0 },                                           /* 3-d default */
    };
    const fv_device cpu = { FV_DEVICE_CPU, 0 }, gpu = { FV_DEVICE_CUDA, 0 };
    const int nf = (int)(sizeof filters / sizeof filters[0]);
    for (int dti = 0; dti < 2; dti++) {
        fv_dtype dt = dti ? FV_FLOAT64 : FV_FLOAT32;
        for (int nd = 2; nd <= 3; nd++) {
            int ns = nd == 2 ? 6 : 5;
            for (int si = 0; si < ns; si++) {
                if (cuda_only && si >= 3)
                    continue;
                const int64_t *shape = nd == 2 ? shapes2[si] : shapes3[si];
                for (int f = 0; f < nf; f++) {
                    for (int gn = 0; gn < (filters[f].filter == FV_RIDGE_FRANGI ? 2 : 1); gn++) {
                        uint64_t seed = rng_state;
                        double scal = 0;
                        if (!cuda_only)
                            run_case(cpu, dt, nd, shape, &filters[f], gn, &scal, 0);
                        if (with_cuda) {
                            if (!cuda_only) {
                                rng_state = seed; /* the same data */
                                run_case(gpu, dt, nd, shape, &filters[f], gn, &scal, 1);
                            } else {
                                run_case(gpu, dt, nd, shape, &filters[f], gn, NULL, 0);
                            }
                        }
                    }
                }
            }
        }
    }
    /* a large case: many blocks in the reductions and the grid-stride loop */
    const int64_t big2[2] = { cuda_only ? 300 : 700, 703 }, big3[3] = { cuda_only ? 20 : 60, 61, 62 };
    for (int k = 0; k < 4; k++) {
        const rparams *rp = &filters[k == 0 ? 0 : k == 1 ? 4 : k == 2 ? 2 : 5];
        const int nd = k & 1 ? 3 : 2;
        uint64_t seed = rng_state;
        double scal = 0;
        if (!cuda_only)
            run_case(cpu, FV_FLOAT32, nd, nd == 2 ? big2 : big3, rp, k == 0, &scal, 0);
        if (with_cuda) {
            rng_state = seed;
            run_case(gpu, FV_FLOAT32, nd, nd == 2 ? big2 : big3, rp, k == 0, cuda_only ? NULL : &scal, !cuda_only);
        }
    }
    printf("test_ridge: op: %d cases (cuda: %s)\n", ncases, with_cuda ? "yes" : "no");
}

/* NaN propagates into acc, as NumPy's maximum */
static void
test_nan(fv_device dev)
{
    const int64_t shape[2] = { 3, 4 }, one = 1;
    const fv_device host = { FV_DEVICE_CPU, 0 };
    for (int f = 0; f < 3; f++) {
        fv_array *hh[3] = { NULL }, *h[3] = { NULL }, *acc = NULL, *scal = NULL;
        for (int k = 0; k < 3; k++) {
            CHECK_OK(fv_array_zeros(ctx, FV_FLOAT64, 2, shape, host, &hh[k]));
            for (int i = 0; i < 12; i++)
                ((double *)fv_array_data(hh[k]))[i] = 0.1 * (i + k) - 0.5;
        }
        ((double *)fv_array_data(hh[1]))[5] = NAN;
        for (int k = 0; k < 3; k++) {
            if (dev.type == FV_DEVICE_CPU) {
                h[k] = fv_array_ref(hh[k]);
            } else {
                CHECK_OK(fv_array_new(ctx, FV_FLOAT64, 2, shape, dev, &h[k]));
                CHECK_OK(fv_copy(ctx, hh[k], h[k]));
            }
        }
        CHECK_OK(fv_array_zeros(ctx, FV_FLOAT64, 2, shape, dev, &acc));
        CHECK_OK(fv_array_zeros(ctx, FV_FLOAT64, 1, &one, dev, &scal));
        fv_ridge_params p = { (fv_ridge_filter)f, 0.5, 0.5, 15, 1.5 };
        CHECK_OK(fv_hessian_ridge(ctx, (const fv_array *const *)h, 3, acc, f == 2 ? h[0] : NULL, scal, &p));
        fv_array *r = to_host(acc);
        double v = get1(r, 5);
        CHECK(v != v);
        CHECK(get1(r, 4) == get1(r, 4));
        if (f == 2) { /* meijering: the max is NaN; nothing is divided, the rest stays finite */
            fv_array *s = to_host(scal);
            CHECK(get1(s, 0) != get1(s, 0));
            fv_array_unref(s);
        }
        fv_array_unref(r);
        for (int k = 0; k < 3; k++) {
            fv_array_unref(hh[k]);
            fv_array_unref(h[k]);
        }
        fv_array_unref(acc);
        fv_array_unref(scal);
    }
}

static void
test_errors(void)
{
    const fv_device host = { FV_DEVICE_CPU, 0 };
    const int64_t shape[2] = { 4, 5 }, shape3[3] = { 2, 3, 4 }, other[2] = { 5, 4 }, one = 1, two = 2;
    fv_array *h[6] = { NULL }, *acc = NULL, *scal = NULL, *i32 = NULL, *odd = NULL, *f64 = NULL, *scal2 = NULL;
    fv_array *view = NULL, *h3 = NULL;
    for (int k = 0; k < 6; k++)
        CHECK_OK(fv_array_zeros(ctx, FV_FLOAT32, 2, shape, host, &h[k]));
    CHECK_OK(fv_array_zeros(ctx, FV_FLOAT32, 2, shape, host, &acc));
    CHECK_OK(fv_array_zeros(ctx, FV_FLOAT32, 1, &one, host, &scal));
    CHECK_OK(fv_array_zeros(ctx, FV_FLOAT32, 1, &two, host, &scal2));
    CHECK_OK(fv_array_zeros(ctx, FV_INT32, 2, shape, host, &i32));
    CHECK_OK(fv_array_zeros(ctx, FV_FLOAT32, 2, other, host, &odd));
    CHECK_OK(fv_array_zeros(ctx, FV_FLOAT64, 2, shape, host, &f64));
    CHECK_OK(fv_array_zeros(ctx, FV_FLOAT32, 3, shape3, host, &h3));
    const int64_t vshape[2] = { 4, 5 }, vstrides[2] = { 4, 16 }; /* a transposed view */
    CHECK_OK(fv_array_view(odd, 2, vshape, vstrides, 0, &view));
    const fv_array *const *H = (const fv_array *const *)h;
    fv_ridge_params p = { FV_RIDGE_SATO, 0, 0, 0, 1 };
    CHECK_OK(fv_hessian_ridge(ctx, H, 3, acc, NULL, NULL, &p));
    CHECK_ERR(fv_hessian_ridge(ctx, H, 3, acc, NULL, NULL, NULL), FV_EINVAL, "NULL params");
    CHECK_ERR(fv_hessian_ridge(ctx, H, 4, acc, NULL, NULL, &p), FV_EINVAL, "3 (2-d) or 6 (3-d)");
    CHECK_ERR(fv_hessian_ridge(ctx, H, 6, acc, NULL, NULL, &p), FV_EINVAL, "6 planes need 3-d");
    CHECK_ERR(fv_hessian_ridge(ctx, NULL, 3, acc, NULL, NULL, &p), FV_EINVAL, "Hessian planes");
    fv_ridge_params bad = { (fv_ridge_filter)7, 0, 0, 0, 1 };
    CHECK_ERR(fv_hessian_ridge(ctx, H, 3, acc, NULL, NULL, &bad), FV_EINVAL, "unknown filter");
    const fv_array *hi[3] = { i32, i32, i32 }, *hm[3] = { h[0], odd, h[2] }, *hd[3] = { h[0], f64, h[2] };
    const fv_array *hv[3] = { h[0], view, h[2] }, *hn[3] = { h[0], NULL, h[2] };
    CHECK_ERR(fv_hessian_ridge(ctx, hi, 3, acc, NULL, NULL, &p), FV_EDTYPE, "float32 or float64");
    CHECK_ERR(fv_hessian_ridge(ctx, hm, 3, acc, NULL, NULL, &p), FV_EINVAL, "shape");
    CHECK_ERR(fv_hessian_ridge(ctx, hd, 3, acc, NULL, NULL, &p), FV_EDTYPE, "float64");
    CHECK_ERR(fv_hessian_ridge(ctx, hv, 3, acc, NULL, NULL, &p), FV_EINVAL, "C-contiguous");
    CHECK_ERR(fv_hessian_ridge(ctx, hn, 3, acc, NULL, NULL, &p), FV_EINVAL, "NULL Hessian plane 1");
    CHECK_ERR(fv_hessian_ridge(ctx, H, 3, NULL, NULL, NULL, &p), FV_EINVAL, "NULL acc");
    CHECK_ERR(fv_hessian_ridge(ctx, H, 3, f64, NULL, NULL, &p), FV_EDTYPE, "acc is float64");
    CHECK_ERR(fv_hessian_ridge(ctx, H, 3, h[1], NULL, NULL, &p), FV_EINVAL, "overlap");
    const fv_array *h3p[6] = { h3, h3, h3, h3, h3, h3 };
    CHECK_ERR(fv_hessian_ridge(ctx, h3p, 6, acc, NULL, NULL, &p), FV_EINVAL, "shape");
    fv_array_set_readonly(acc, 1);
    CHECK_ERR(fv_hessian_ridge(ctx, H, 3, acc, NULL, NULL, &p), FV_EINVAL, "read-only");
    fv_array_set_readonly(acc, 0);
    fv_ridge_params m = { FV_RIDGE_MEIJERING, 0.3, 0, 0, 0 };
    CHECK_ERR(fv_hessian_ridge(ctx, H, 3, acc, NULL, scal, &m), FV_EINVAL, "NULL work");
    CHECK_ERR(fv_hessian_ridge(ctx, H, 3, acc, h[0], NULL, &m), FV_EINVAL, "NULL scal");
    CHECK_ERR(fv_hessian_ridge(ctx, H, 3, acc, h[0], scal2, &m), FV_EINVAL, "one element");
    CHECK_ERR(fv_hessian_ridge(ctx, H, 3, acc, acc, scal, &m), FV_EINVAL, "overlap");
    CHECK_OK(fv_hessian_ridge(ctx, H, 3, acc, h[0], scal, &m));
    CHECK_OK(fv_hessian_ridge(ctx, H, 3, acc, h[5], scal, &m)); /* a separate work array */
    fv_ridge_params g = { FV_RIDGE_FRANGI, 0.5, 0.5, NAN, 0 };
    CHECK_ERR(fv_hessian_ridge(ctx, H, 3, acc, NULL, NULL, &g), FV_EINVAL, "NULL scal");
    CHECK_OK(fv_hessian_ridge(ctx, H, 3, acc, NULL, scal, &g));
    fv_ridge_params nm = { FV_RIDGE_NORM_MAX, 0, 0, 0, 0 };
    CHECK_OK(fv_hessian_ridge(ctx, H, 3, NULL, NULL, scal, &nm));
    CHECK(((float *)fv_array_data(scal))[0] == 0.0f); /* zero planes */
    if (fv_cuda_available()) {                        /* planes on the GPU, acc on the host */
        fv_array *d[3] = { NULL };
        for (int k = 0; k < 3; k++)
            CHECK_OK(fv_array_zeros(ctx, FV_FLOAT32, 2, shape, (fv_device){ FV_DEVICE_CUDA, 0 }, &d[k]));
        CHECK_ERR(fv_hessian_ridge(ctx, (const fv_array *const *)d, 3, acc, NULL, NULL, &p), FV_EDEVICE, "device");
        const fv_array *mix[3] = { d[0], h[1], d[2] };
        CHECK_ERR(fv_hessian_ridge(ctx, mix, 3, acc, NULL, NULL, &p), FV_EDEVICE, "device");
        for (int k = 0; k < 3; k++)
            fv_array_unref(d[k]);
    }
    for (int k = 0; k < 6; k++)
        fv_array_unref(h[k]);
    fv_array_unref(acc);
    fv_array_unref(scal);
    fv_array_unref(scal2);
    fv_array_unref(i32);
    fv_array_unref(odd);
    fv_array_unref(f64);
    fv_array_unref(view);
    fv_array_unref(h3);
}

int
main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    const char *co = getenv("FOVEA_TEST_CUDA_ONLY");
    cuda_only = co && *co && strcmp(co, "0") != 0;
    const int with_cuda = fv_cuda_available();
    if (!with_cuda)
        printf("test_ridge: CUDA parts skipped: %s\n", fv_cuda_unavailable_reason());
    if (cuda_only && !with_cuda) {
        printf("test_ridge: skipped (FOVEA_TEST_CUDA_ONLY without a GPU)\n");
        return 77;
    }
    CHECK_OK(fv_context_new(&ctx));
    test_jacobi();
    test_errors();
    if (!cuda_only)
        test_nan((fv_device){ FV_DEVICE_CPU, 0 });
    if (with_cuda)
        test_nan((fv_device){ FV_DEVICE_CUDA, 0 });
    test_op(with_cuda);
    CHECK_OK(fv_context_synchronize(ctx));
    fv_context_free(ctx);
    return fv_t_summary("test_ridge");
}
