/* The per-precision line kernels of fft-cpu.c, included once per precision with T
 * (float or double) and S(name) (a suffixed name) defined. A pass's lines are
 * prepared (gathered from their strided source; real passes packed or extended
 * into a complex line), transformed by the 1-D plan, and finished (scaled and
 * scattered; real passes split or reduced to their real part). Neighbouring lines
 * along the pass's innermost other axis go through the engine's SIMD lanes
 * together (fv__fft1d_exec_lanes); C2C lines are gathered straight into the lanes.
 * Not a header of its own: no include guard on purpose. */

/* x (the plan's input, complex) from the line at src; t: 2 (n/2 + 1) T of scratch. */
static void
S(prep)(const fv__fft_pass *ps, const char *src, T *x, T *t)
{
    const int64_t n = ps->n, h = n / 2, ss = ps->sstr[ps->axis];
    const int half = ps->mode != PASS_C2C && n % 2 == 0;
    if (ps->mode == PASS_C2C) {
        for (int64_t j = 0; j < n; j++) {
            const T *v = (const T *)(src + j * ss);
            x[2 * j] = v[0];
            x[2 * j + 1] = v[1];
        }
    } else if (ps->mode == PASS_R2C && !half) {
        for (int64_t j = 0; j < n; j++) {
            x[2 * j] = *(const T *)(src + j * ss);
            x[2 * j + 1] = 0;
        }
    } else if (ps->mode == PASS_R2C) {
        for (int64_t j = 0; j < h; j++) {
            x[2 * j] = *(const T *)(src + 2 * j * ss);
            x[2 * j + 1] = *(const T *)(src + (2 * j + 1) * ss);
        }
    } else if (!half) { /* C2R, odd n: Hermitian extension, complex inverse */
        for (int64_t k = 0; k <= h; k++) {
            const T *v = (const T *)(src + k * ss);
            x[2 * k] = v[0];
            x[2 * k + 1] = k ? v[1] : 0;
            if (k) {
                x[2 * (n - k)] = v[0];
                x[2 * (n - k) + 1] = -v[1];
            }
        }
    } else { /* C2R, even n: Z[k] = (X[k] + conj X[h-k]) + i (X[k] - conj X[h-k]) conj(W^k) */
        const T *w = (const T *)ps->htw;
        for (int64_t k = 0; k <= h; k++) {
            const T *v = (const T *)(src + k * ss);
            t[2 * k] = v[0];
            t[2 * k + 1] = (k == 0 || k == h) ? 0 : v[1];
        }
        for (int64_t k = 0; k < h; k++) {
            const T ar = t[2 * k], ai = t[2 * k + 1];
            const T br = t[2 * (h - k)], bi = -t[2 * (h - k) + 1];
            const T sr = ar + br, si = ai + bi, dr = ar - br, di = ai - bi;
            const T wr = w[2 * k], wi = -w[2 * k + 1];
            const T pr = dr * wr - di * wi, pi_ = dr * wi + di * wr;
            x[2 * k] = sr - pi_;
            x[2 * k + 1] = si + pr;
        }
    }
}

/* The line at dst from y (the plan's output). */
static void
S(fin)(const fv__fft_pass *ps, const T *y, char *dst)
{
    const int64_t n = ps->n, h = n / 2, ds = ps->dstr[ps->axis];
    const int half = ps->mode != PASS_C2C && n % 2 == 0;
    const T sc = (T)ps->scale;
    if (ps->mode == PASS_C2C) {
        for (int64_t j = 0; j < n; j++) {
            T *o = (T *)(dst + j * ds);
            o[0] = y[2 * j] * sc;
            o[1] = y[2 * j + 1] * sc;
        }
    } else if (ps->mode == PASS_R2C && !half) {
        for (int64_t k = 0; k <= h; k++) {
            T *o = (T *)(dst + k * ds);
            o[0] = y[2 * k] * sc;
            o[1] = y[2 * k + 1] * sc;
        }
    } else if (ps->mode == PASS_R2C) {
        const T *w = (const T *)ps->htw;
        for (int64_t k = 0; k <= h; k++) {
            const int64_t k1 = k == h ? 0 : k, k2 = k == 0 ? 0 : h - k;
            const T zr = y[2 * k1], zi = y[2 * k1 + 1];
            const T cr = y[2 * k2], ci = -y[2 * k2 + 1];
            const T er = (zr + cr) / 2, ei = (zi + ci) / 2;
            /* O = (Z - conj)/(2i) */
            const T orr = (zi - ci) / 2, oi = -(zr - cr) / 2;
            const T wr = w[2 * k], wi = w[2 * k + 1];
            T *o = (T *)(dst + k * ds);
            o[0] = (er + wr * orr - wi * oi) * sc;
            o[1] = (ei + wr * oi + wi * orr) * sc;
        }
    } else if (!half) {
        for (int64_t j = 0; j < n; j++)
            *(T *)(dst + j * ds) = y[2 * j] * sc;
    } else {
        for (int64_t j = 0; j < h; j++) {
            *(T *)(dst + 2 * j * ds) = y[2 * j] * sc;
            *(T *)(dst + (2 * j + 1) * ds) = y[2 * j + 1] * sc;
        }
    }
}

/* nb (> 1) neighbouring lines from l, L at a time in the lanes: value j of lane q is
 * line q's element j (lanes past nb: zeros, results unused). C2C lines are gathered
 * and scattered straight from and to the lanes; the real passes go through x / y. */
static void
S(block)(const fv__fft_pass *ps, int64_t l, int64_t nb, T *x, T *y, T *t, T *lx, T *ly, T *lscr)
{
    enum {
        L = FV__FFT_LANE_BYTES / sizeof(T)
    };
    const int half = ps->mode != PASS_C2C && ps->n % 2 == 0;
    const int64_t pn = half ? ps->n / 2 : ps->n; /* the plan's length */
    const int64_t si = ps->sstr[ps->inner], di = ps->dstr[ps->inner];
    const int c2c = ps->mode == PASS_C2C;
    const int64_t ss = ps->sstr[ps->axis], ds = ps->dstr[ps->axis];
    const T sc = (T)ps->scale;
    int64_t so, dof;
    line_offsets(ps, l, &so, &dof);
    for (int64_t g = 0; g < nb; g += L) {
        const int64_t nq = nb - g < L ? nb - g : L;
        const char *src = ps->src + so + g * si;
        char *dst = ps->dst + dof + g * di;
        if (c2c) {
            for (int64_t j = 0; j < pn; j++) {
                const char *row = src + j * ss;
                T *v = lx + j * 2 * L;
                for (int64_t q = 0; q < nq; q++) {
                    const T *e = (const T *)(row + q * si);
                    v[q] = e[0];
                    v[L + q] = e[1];
                }
            }
        } else {
            for (int64_t q = 0; q < nq; q++) {
                S(prep)(ps, src + q * si, x, t);
                for (int64_t j = 0; j < pn; j++) {
                    lx[j * 2 * L + q] = x[2 * j];
                    lx[j * 2 * L + L + q] = x[2 * j + 1];
                }
            }
        }
        for (int64_t j = 0; j < pn; j++)
            for (int64_t q = nq; q < L; q++)
                lx[j * 2 * L + q] = lx[j * 2 * L + L + q] = 0;
        fv__fft1d_exec_lanes(ps->plan, lx, ly, c2c ? ps->inverse : ps->mode == PASS_C2R, lscr);
        if (c2c) {
            for (int64_t j = 0; j < pn; j++) {
                char *row = dst + j * ds;
                const T *v = ly + j * 2 * L;
                for (int64_t q = 0; q < nq; q++) {
                    T *o = (T *)(row + q * di);
                    o[0] = v[q] * sc;
                    o[1] = v[L + q] * sc;
                }
            }
        } else {
            for (int64_t q = 0; q < nq; q++) {
                for (int64_t j = 0; j < pn; j++) {
                    y[2 * j] = ly[j * 2 * L + q];
                    y[2 * j + 1] = ly[j * 2 * L + L + q];
                }
                S(fin)(ps, y, dst + q * di);
            }
        }
    }
}

static void
S(lines)(void *arg, int64_t b, int64_t e)
{
    fv__fft_pass *ps = arg;
    enum {
        LT = 2 * FV__FFT_LANE_BYTES / sizeof(T)
    }; /* Ts per lane value */
    const int lanes_on = ps->inner >= 0;
    const int64_t n = ps->n;
    /* x, y: 2n each; t: 2 (n/2 + 1); the plan's scratch */
    T *buf = malloc((size_t)(ps->bufn + n + 2) * 2 * sizeof(T));
    /* lanes: in, out, scratch, each value FV__FFT_LANE_BYTES of re then of im */
    const size_t lv = (size_t)(2 * n + ps->lscr) * 2 * FV__FFT_LANE_BYTES;
    T *lanes = lanes_on ? aligned_alloc(64, (lv + 63) / 64 * 64) : NULL;
    if (!buf || (lanes_on && !lanes)) {
        free(buf);
        free(lanes);
        atomic_store(&ps->failed, 1);
        return;
    }
    T *x = buf, *y = buf + 2 * n, *t = buf + 4 * n, *scr = t + n + 2;
    T *lx = lanes, *ly = lanes ? lanes + n * LT : NULL, *lscr = lanes ? lanes + 2 * n * LT : NULL;
    const int inv = ps->mode == PASS_C2C ? ps->inverse : ps->mode == PASS_C2R;
    for (int64_t l = b; l < e; l++) {
        const int64_t nb = line_run(ps, l, e);
        if (nb > 1) {
            S(block)(ps, l, nb, x, y, t, lx, ly, lscr);
            l += nb - 1;
            continue;
        }
        int64_t so, dof;
        line_offsets(ps, l, &so, &dof);
        S(prep)(ps, ps->src + so, x, t);
        fv__fft1d_exec(ps->plan, x, y, inv, scr);
        S(fin)(ps, y, ps->dst + dof);
    }
    free(buf);
    free(lanes);
}
