/* The precision-generic half of fft-engine.c, included once per data type with
 * FT (the real type: float or double), FV (the type of one data value: FT, or a
 * vector of FT holding the same element of several lines, "lanes"), TW (the
 * complex type of the twiddle tables: always scalar) and FS(name) (a suffixed
 * name) defined; FV__FFT_LANES when FV is a vector (no plan tables then: the
 * scalar instantiation makes them). Not a header of its own: no include guard on
 * purpose. */

typedef struct {
    FV re, im;
} FS(cpx);

static inline FS(cpx) FS(cmul)(FS(cpx) a, TW b, int conjb)
{
    const FT bi = conjb ? -b.im : b.im;
    FS(cpx) r = { a.re * b.re - a.im * bi, a.re * bi + a.im * b.re };
    return r;
}

/* out[u + q*m] for q < 2: one radix-2 stage over m points. */
static void
FS(bfly2)(FS(cpx) * o, int64_t fs, int64_t m, const TW *tw, int inv)
{
    for (int64_t u = 0; u < m; u++) {
        const FS(cpx) t = FS(cmul)(o[u + m], tw[u * fs], inv);
        o[u + m].re = o[u].re - t.re;
        o[u + m].im = o[u].im - t.im;
        o[u].re += t.re;
        o[u].im += t.im;
    }
}

static void
FS(bfly3)(FS(cpx) * o, int64_t fs, int64_t m, const TW *tw, int inv)
{
    const FT c = (FT)0.86602540378443864676; /* sqrt(3)/2 */
    const FT sg = inv ? (FT)-1 : (FT)1;
    for (int64_t u = 0; u < m; u++) {
        const FS(cpx) a0 = o[u];
        const FS(cpx) a1 = FS(cmul)(o[u + m], tw[u * fs], inv);
        const FS(cpx) a2 = FS(cmul)(o[u + 2 * m], tw[2 * u * fs], inv);
        const FV sr = a1.re + a2.re, si = a1.im + a2.im;
        const FV dr = a1.re - a2.re, di = a1.im - a2.im;
        const FV br = a0.re - sr * (FT)0.5, bi = a0.im - si * (FT)0.5;
        /* T = -i c d (forward), +i c d (inverse) */
        const FV tr = (sg * c) * di, ti = (-sg * c) * dr;
        o[u].re = a0.re + sr;
        o[u].im = a0.im + si;
        o[u + m].re = br + tr;
        o[u + m].im = bi + ti;
        o[u + 2 * m].re = br - tr;
        o[u + 2 * m].im = bi - ti;
    }
}

static void
FS(bfly4)(FS(cpx) * o, int64_t fs, int64_t m, const TW *tw, int inv)
{
    for (int64_t u = 0; u < m; u++) {
        const FS(cpx) a0 = o[u];
        const FS(cpx) a1 = FS(cmul)(o[u + m], tw[u * fs], inv);
        const FS(cpx) a2 = FS(cmul)(o[u + 2 * m], tw[2 * u * fs], inv);
        const FS(cpx) a3 = FS(cmul)(o[u + 3 * m], tw[3 * u * fs], inv);
        const FV s02r = a0.re + a2.re, s02i = a0.im + a2.im;
        const FV d02r = a0.re - a2.re, d02i = a0.im - a2.im;
        const FV s13r = a1.re + a3.re, s13i = a1.im + a3.im;
        const FV d13r = a1.re - a3.re, d13i = a1.im - a3.im;
        /* forward: -i * d13; inverse: +i * d13 */
        const FV tr = inv ? -d13i : d13i, ti = inv ? d13r : -d13r;
        o[u].re = s02r + s13r;
        o[u].im = s02i + s13i;
        o[u + 2 * m].re = s02r - s13r;
        o[u + 2 * m].im = s02i - s13i;
        o[u + m].re = d02r + tr;
        o[u + m].im = d02i + ti;
        o[u + 3 * m].re = d02r - tr;
        o[u + 3 * m].im = d02i - ti;
    }
}

/* Any odd radix p <= FV__FFT_MAX_RADIX: the p-point DFT of the twiddled inputs,
 * by symmetric pairs: with a_q = s_q + s_{p-q}, b_q = s_q - s_{p-q} (q <= h),
 * X_k = s_0 + sum a_q cos(2 pi qk/p) -/+ i sum b_q sin(2 pi qk/p) and X_{p-k} the
 * same with the sign flipped: a quarter of the plain O(p^2) sum's multiplications. */
static void
FS(bflyp)(FS(cpx) * o, int64_t fs, int64_t m, int64_t p, const TW *tw, int inv)
{
    FS(cpx) a[FV__FFT_MAX_RADIX / 2 + 1], b[FV__FFT_MAX_RADIX / 2 + 1];
    const int64_t step = fs * m, h = (p - 1) / 2; /* tw[step] = exp(-2 pi i / p) */
    for (int64_t u = 0; u < m; u++) {
        const FS(cpx) s0 = o[u];
        FS(cpx) x0 = s0;
        for (int64_t q = 1; q <= h; q++) {
            const FS(cpx) t1 = FS(cmul)(o[u + q * m], tw[q * u * fs], inv);
            const FS(cpx) t2 = FS(cmul)(o[u + (p - q) * m], tw[(p - q) * u * fs], inv);
            a[q].re = t1.re + t2.re;
            a[q].im = t1.im + t2.im;
            b[q].re = t1.re - t2.re;
            b[q].im = t1.im - t2.im;
            x0.re += a[q].re;
            x0.im += a[q].im;
        }
        o[u] = x0;
        for (int64_t k = 1; k <= h; k++) {
            FV rr = s0.re, ri = s0.im, ir = (FV){ 0 }, ii = (FV){ 0 };
            int64_t idx = 0;
            for (int64_t q = 1; q <= h; q++) {
                idx += k;
                if (idx >= p)
                    idx -= p;
                const FT c = tw[idx * step].re, sn = tw[idx * step].im; /* sn = -sin */
                rr += a[q].re * c;
                ri += a[q].im * c;
                ir += b[q].re * sn;
                ii += b[q].im * sn;
            }
            /* forward X_k = R + i I (I = sum b sn); inverse R - i I */
            if (inv) {
                ir = -ir;
                ii = -ii;
            }
            o[u + k * m].re = rr - ii;
            o[u + k * m].im = ri + ir;
            o[u + (p - k) * m].re = rr + ii;
            o[u + (p - k) * m].im = ri - ir;
        }
    }
}

static void FS(bluestein)(const fv__fft1d *p, const FS(cpx) * in, int64_t is, FS(cpx) * out, int inv, FS(cpx) * scr);

/* Decimation in time: out (contiguous, fac[0] * fac[1] points) from in with
 * stride fs. The last radix (m = 1: a p-point DFT of the strided input) goes
 * through Bluestein's algorithm when it is rad's length (fft-engine.h). */
static void
FS(work)(FS(cpx) * out, const FS(cpx) * in, int64_t fs, const int64_t *fac, const TW *tw, int inv, const fv__fft1d *rad,
         FS(cpx) * scr)
{
    const int64_t p = fac[0], m = fac[1];
    if (m == 1 && rad && p == rad->n) {
        FS(bluestein)(rad, in, fs, out, inv, scr);
        return;
    }
    if (m == 1) {
        for (int64_t k = 0; k < p; k++)
            out[k] = in[k * fs];
    } else {
        for (int64_t k = 0; k < p; k++)
            FS(work)(out + k * m, in + k * fs, fs * p, fac + 2, tw, inv, rad, scr);
    }
    switch (p) {
    case 2:
        FS(bfly2)(out, fs, m, tw, inv);
        break;
    case 3:
        FS(bfly3)(out, fs, m, tw, inv);
        break;
    case 4:
        FS(bfly4)(out, fs, m, tw, inv);
        break;
    default:
        FS(bflyp)(out, fs, m, p, tw, inv);
        break;
    }
}

static void FS(exec)(const fv__fft1d *p, const FS(cpx) * in, FS(cpx) * out, int inv, FS(cpx) * scr);

/* Bluestein: X[k] = w[k] * sum_j (x[j] w[j]) conj(w[k - j]), w[k] = exp(-i pi k^2 / n),
 * the sum a cyclic convolution of length m >= 2n - 1. The inverse is conj(F(conj(x))).
 * x[j] = in[j * is]. */
static void
FS(bluestein)(const fv__fft1d *p, const FS(cpx) * in, int64_t is, FS(cpx) * out, int inv, FS(cpx) * scr)
{
    const int64_t n = p->n, m = p->m;
    const TW *w = (const TW *)p->chirp, *b = (const TW *)p->bfft;
    FS(cpx) *a = scr, *A = scr + m, *rest = scr + 2 * m;
    for (int64_t k = 0; k < n; k++) {
        FS(cpx) x = in[k * is];
        if (inv)
            x.im = -x.im;
        a[k] = FS(cmul)(x, w[k], 0);
    }
    for (int64_t k = n; k < m; k++)
        a[k].re = a[k].im = (FV){ 0 };
    FS(exec)(p->sub, a, A, 0, rest);
    for (int64_t k = 0; k < m; k++)
        A[k] = FS(cmul)(A[k], b[k], 0);
    FS(exec)(p->sub, A, a, 1, rest);
    for (int64_t k = 0; k < n; k++) {
        FS(cpx) y = FS(cmul)(a[k], w[k], 0);
        if (inv)
            y.im = -y.im;
        out[k] = y;
    }
}

static void
FS(exec)(const fv__fft1d *p, const FS(cpx) * in, FS(cpx) * out, int inv, FS(cpx) * scr)
{
    if (p->n == 1)
        out[0] = in[0];
    else if (p->sub)
        FS(bluestein)(p, in, 1, out, inv, scr);
    else
        FS(work)(out, in, 1, p->fac, (const TW *)p->tw, inv, p->rad, scr);
}

#ifndef FV__FFT_LANES
/* Twiddles (and Bluestein's tables) of a new plan whose n, m, fac and sub are set. */
static int
FS(tables)(fv__fft1d *p)
{
    const int64_t n = p->n;
    FS(cpx) *tw = malloc((size_t)n * sizeof *tw);
    if (!tw)
        return -1;
    p->tw = tw;
    for (int64_t k = 0; k < n; k++) {
        const double a = -2.0 * FV__FFT_PI * (double)k / (double)n;
        tw[k].re = (FT)cos(a);
        tw[k].im = (FT)sin(a);
    }
    if (!p->sub)
        return 0;
    const int64_t m = p->m;
    FS(cpx) *w = malloc((size_t)n * sizeof *w);
    FS(cpx) *b = malloc((size_t)m * sizeof *b);
    FS(cpx) *bt = malloc((size_t)m * sizeof *bt);
    FS(cpx) *scr = malloc((size_t)(fv__fft1d_scratch(p->sub) + 1) * sizeof *scr);
    p->chirp = w;
    p->bfft = b;
    if (!w || !b || !bt || !scr) {
        free(bt);
        free(scr);
        return -1;
    }
    for (int64_t k = 0; k < n; k++) {
        /* k^2 mod 2n exactly, so that the angle stays small and exact */
        const uint64_t r = (uint64_t)(((unsigned __int128)k * (unsigned __int128)k) % (unsigned __int128)(2 * n));
        const double a = -FV__FFT_PI * (double)r / (double)n;
        w[k].re = (FT)cos(a);
        w[k].im = (FT)sin(a);
    }
    for (int64_t k = 0; k < m; k++)
        bt[k].re = bt[k].im = 0;
    for (int64_t k = 0; k < n; k++) {
        bt[k].re = w[k].re;
        bt[k].im = -w[k].im;
        if (k)
            bt[m - k] = bt[k];
    }
    FS(exec)(p->sub, bt, b, 0, scr);
    for (int64_t k = 0; k < m; k++) {
        b[k].re /= (FT)m;
        b[k].im /= (FT)m;
    }
    free(bt);
    free(scr);
    return 0;
}
#endif
