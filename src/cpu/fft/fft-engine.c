/* fovea's CPU FFT engine (fft-engine.h): plans, their cache, and the transforms
 * of fft-engine-impl.h in float and double. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/fft/fft-engine.h"

#define FV__FFT_PI 3.14159265358979323846264338327950288
#define FV__FFT_MAX_RADIX 1024 /* the largest odd radix done directly */

/* scalar: one line at a time */
#define TW FS(cpx)
#define FT float
#define FV float
#define FS(name) name##_f
#include "cpu/fft/fft-engine-impl.h"
#undef FT
#undef FV
#undef FS
#define FT double
#define FV double
#define FS(name) name##_d
#include "cpu/fft/fft-engine-impl.h"
#undef FT
#undef FV
#undef FS
#undef TW
/* lanes: FV__FFT_LANES lines at once, each value a vector of their elements */
typedef float fv__fft_v8f __attribute__((vector_size(FV__FFT_LANE_BYTES)));
typedef double fv__fft_v4d __attribute__((vector_size(FV__FFT_LANE_BYTES)));
#define FV__FFT_LANES
#define FT float
#define FV fv__fft_v8f
#define TW cpx_f
#define FS(name) name##_f8
#include "cpu/fft/fft-engine-impl.h"
#undef FT
#undef FV
#undef TW
#undef FS
#define FT double
#define FV fv__fft_v4d
#define TW cpx_d
#define FS(name) name##_d4
#include "cpu/fft/fft-engine-impl.h"
#undef FT
#undef FV
#undef TW
#undef FS
#undef FV__FFT_LANES

/* Radices of n (4s first, then 2, 3, 5, 7, ...: primes, any size); the count, or
 * -1 past FV__FFT_MAX_FACTORS (never for n < 2^64). */
static int
factorize(int64_t n, int64_t *fac)
{
    int k = 0;
    int64_t r = n;
    while (r > 1 && k < FV__FFT_MAX_FACTORS) {
        int64_t f = r; /* r itself when no smaller factor divides it: a prime */
        if (r % 4 == 0)
            f = 4;
        else
            for (int64_t q = 2; q * q <= r; q += q == 2 ? 1 : 2)
                if (r % q == 0) {
                    f = q;
                    break;
                }
        r /= f;
        fac[2 * k] = f;
        fac[2 * k + 1] = r;
        k++;
    }
    return r == 1 ? k : -1;
}

/* The cost model that picks direct or Bluestein and Bluestein's length: about the
 * ns per point and radix stage of a float64 line on one x86-64 core (fitted to
 * timings, docs/fft.md). The generic odd radix does p / 2 multiply-adds per
 * output and value; Bluestein's two transforms of length m >= 2n - 1 slow down
 * once their buffers (three of m values) leave the cache. */
static double
radix_cost(int64_t f)
{
    switch (f) {
    case 2:
        return 0.4;
    case 3:
        return 0.7;
    case 4:
        return 0.7;
    default:
        return 0.5 + 0.3 * (double)f;
    }
}

/* HUGE_VAL when a radix is past the generic butterfly's bound */
static double
direct_cost(const int64_t *fac, int nfac)
{
    double c = 0;
    for (int i = 0; i < nfac; i++)
        c += fac[2 * i] > FV__FFT_MAX_RADIX ? HUGE_VAL : radix_cost(fac[2 * i]);
    return c;
}

/* Bluestein's convolution length for n: the 2^a 3^b 5^c 7^d >= 2n - 1 (below twice
 * that) of the least cost; *cost: the whole Bluestein transform's per point of n. */
static int64_t
bluestein_length(int64_t n, double *cost)
{
    const int64_t lo = 2 * n - 1;
    int64_t best = 0, fac[2 * FV__FFT_MAX_FACTORS];
    double bc = 0;
    for (int64_t f7 = 1; f7 < 2 * lo; f7 *= 7)
        for (int64_t f5 = f7; f5 < 2 * lo; f5 *= 5)
            for (int64_t f3 = f5; f3 < 2 * lo; f3 *= 3) {
                int64_t m = f3;
                while (m < lo)
                    m *= 2;
                const double c = (double)m * direct_cost(fac, factorize(m, fac));
                if (!best || c < bc) {
                    best = m;
                    bc = c;
                }
            }
    const double lm = log2((double)best);
    const double mem = best <= 16384 ? 1.0 : best <= 65536 ? 1.8 : 4.0 + 1.2 * (lm - 17.0);
    *cost = 10.0 + 4.5 * mem * bc / (double)n;
    return best;
}

int64_t
fv__fft1d_scratch(const fv__fft1d *p)
{
    if (p->rad)
        return fv__fft1d_scratch(p->rad);
    if (!p->sub)
        return 0;
    return 2 * p->m + fv__fft1d_scratch(p->sub);
}

void
fv__fft1d_exec(const fv__fft1d *p, const void *in, void *out, int inverse, void *scratch)
{
    if (p->dbl)
        exec_d(p, (const cpx_d *)in, (cpx_d *)out, inverse, (cpx_d *)scratch);
    else
        exec_f(p, (const cpx_f *)in, (cpx_f *)out, inverse, (cpx_f *)scratch);
}

void
fv__fft1d_exec_lanes(const fv__fft1d *p, const void *in, void *out, int inverse, void *scratch)
{
    if (p->dbl)
        exec_d4(p, (const cpx_d4 *)in, (cpx_d4 *)out, inverse, (cpx_d4 *)scratch);
    else
        exec_f8(p, (const cpx_f8 *)in, (cpx_f8 *)out, inverse, (cpx_f8 *)scratch);
}

/* ---- the cache -------------------------------------------------------------------- */

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static fv__fft1d *g_plans[FV__FFT1D_CACHE];
static int g_count;
static uint64_t g_clock;

static void
plan_free(fv__fft1d *p)
{
    if (!p)
        return;
    if (p->sub)
        fv__fft1d_put(p->sub);
    if (p->rad)
        fv__fft1d_put(p->rad);
    free(p->tw);
    free(p->chirp);
    free(p->bfft);
    free(p);
}

static fv__fft1d *
plan_new(int64_t n, int dbl)
{
    fv__fft1d *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->n = n;
    p->dbl = dbl;
    p->nfac = n > 1 ? factorize(n, p->fac) : 0;
    /* the largest prime factor is the last radix; when it is large, the cheapest of:
     * every radix direct, Bluestein on the whole length, or the others direct and
     * the last radix by Bluestein (its own plan, a p-point DFT per leaf) */
    const int64_t fmax = p->nfac ? p->fac[2 * (p->nfac - 1)] : 1;
    if (fmax > 7) {
        double whole, last = HUGE_VAL;
        const double direct = direct_cost(p->fac, p->nfac);
        const int64_t m = bluestein_length(n, &whole);
        if (fmax < n) {
            bluestein_length(fmax, &last);
            last += direct_cost(p->fac, p->nfac - 1);
        }
        if (whole <= last && whole < direct)
            p->m = m;
        else if (last < direct && !(p->rad = fv__fft1d_get(fmax, dbl))) {
            free(p);
            return NULL;
        }
        if (p->rad && !p->rad->sub) { /* never: fmax's own plan weighs the same costs */
            fv__fft1d_put(p->rad);
            p->rad = NULL;
            if (direct == HUGE_VAL)
                p->m = m;
        }
    }
    if (p->m) {
        p->nfac = 0;
        if (!(p->sub = fv__fft1d_get(p->m, dbl))) {
            free(p);
            return NULL;
        }
    }
    if ((dbl ? tables_d(p) : tables_f(p)) != 0) {
        plan_free(p);
        return NULL;
    }
    return p;
}

fv__fft1d *
fv__fft1d_get(int64_t n, int dbl)
{
    fv__fft1d *p = NULL, *made, *evicted = NULL;
    pthread_mutex_lock(&g_lock);
    for (int i = 0; i < g_count; i++)
        if (g_plans[i]->n == n && g_plans[i]->dbl == dbl) {
            p = g_plans[i];
            p->refs++;
            p->stamp = ++g_clock;
            break;
        }
    pthread_mutex_unlock(&g_lock);
    if (p)
        return p;
    if (!(made = plan_new(n, dbl))) {
        fv_error_set(FV_ENOMEM, "fft", "out of memory planning a length-%lld transform", (long long)n);
        return NULL;
    }
    pthread_mutex_lock(&g_lock);
    for (int i = 0; i < g_count; i++) /* another thread may have made it meanwhile */
        if (g_plans[i]->n == n && g_plans[i]->dbl == dbl) {
            p = g_plans[i];
            break;
        }
    if (!p) {
        p = made;
        made = NULL;
        if (g_count == FV__FFT1D_CACHE) { /* drop the least recently used unreferenced plan */
            int victim = -1;
            for (int i = 0; i < g_count; i++)
                if (g_plans[i]->refs == 0 && (victim < 0 || g_plans[i]->stamp < g_plans[victim]->stamp))
                    victim = i;
            if (victim >= 0) {
                evicted = g_plans[victim];
                g_plans[victim] = g_plans[--g_count];
            }
        }
        if (g_count < FV__FFT1D_CACHE)
            g_plans[g_count++] = p;
        else
            p->refs = -1000000; /* cache full of plans in use: this one is not cached */
    }
    p->refs++;
    p->stamp = ++g_clock;
    pthread_mutex_unlock(&g_lock);
    plan_free(made);
    plan_free(evicted);
    return p;
}

void
fv__fft1d_put(fv__fft1d *p)
{
    int drop;
    if (!p)
        return;
    pthread_mutex_lock(&g_lock);
    drop = --p->refs == -1000000; /* an uncached plan's last user */
    pthread_mutex_unlock(&g_lock);
    if (drop)
        plan_free(p);
}

int
fv__fft1d_cached(void)
{
    int n;
    pthread_mutex_lock(&g_lock);
    n = g_count;
    pthread_mutex_unlock(&g_lock);
    return n;
}
