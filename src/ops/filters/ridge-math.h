/* The per-pixel ridge-filter math in one floating type, included twice by
 * ridge-kernels.h with FV__RT (float or double), FV__RM(fn) (the libm function
 * for that type: expf or exp) and FV__RS (name suffix f or d). Each step follows
 * python/fovea/skimage/filters/ridges.py in the working type, Python scalars
 * rounded to it as NumPy rounds them (NEP 50). No include guard. */

#define FV__RMATH_CAT_(a, b) a##b
#define FV__RMATH_CAT(a, b) FV__RMATH_CAT_(a, b)
#define FV__RMATH(name) FV__RMATH_CAT(name, FV__RS)

/* np.maximum(a, b): NaN when either is. */
FV_HD FV__RT
FV__RMATH(fv__ridge_max_)(FV__RT a, FV__RT b)
{
    return (a != a || a >= b) ? a : b;
}

/* 1 - exp(arg) for arg <= 0, exactly 0 where NumPy's exp(arg) is exactly 1:
 * for float32 NumPy's SIMD exp (AVX2 / AVX-512, x86-64 v3 and up) returns 1
 * for arg >= -4.1063238e-08, where libm and CUDA return 1 - 2^-24 from about
 * -2.98e-08 down. The hessian filter turns responses <= 0 into 1, so these
 * zeros decide pixels: the same threshold keeps them scikit-image's.
 * (float64: NumPy's threshold differs from libm's only in
 * [-5.55e-17, -4.51e-17], left alone.) */
FV_HD FV__RT
FV__RMATH(fv__ridge_1mexp_)(FV__RT arg)
{
    const FV__RT e = arg >= (FV__RT)FV__R_EXP_ONE ? (FV__RT)1 : FV__RM(exp)(arg);
    return (FV__RT)1 - e;
}

/* Eigenvalues of pixel i in decreasing order into e (ndim values). */
FV_HD void
FV__RMATH(fv__ridge_eig_)(const fv__ridge_job *j, int64_t i, FV__RT *e)
{
    const FV__RT *const *h = (const FV__RT *const *)j->h;
    if (j->ndim == 2) {
        /* symmetric_eigvals' closed form, operation by operation */
        const FV__RT m00 = h[0][i], m01 = h[1][i], m11 = h[2][i];
        const FV__RT mean = (m00 + m11) / (FV__RT)2;
        const FV__RT half = (m00 - m11) / (FV__RT)2;
        const FV__RT a = m01 * m01, b = half * half;
        const FV__RT hs = FV__RM(sqrt)(a + b);
        e[0] = mean + hs;
        e[1] = mean - hs;
    } else {
        double d[3];
        fv__ridge_jacobi3((double)h[0][i], (double)h[1][i], (double)h[2][i], (double)h[3][i], (double)h[4][i],
                          (double)h[5][i], d);
        e[0] = (FV__RT)d[0];
        e[1] = (FV__RT)d[1];
        e[2] = (FV__RT)d[2];
    }
}

/* sqrt((eigvals**2).sum(0)) */
FV_HD FV__RT
FV__RMATH(fv__ridge_norm_)(int ndim, const FV__RT *e)
{
    FV__RT s = e[0] * e[0];
    s = s + e[1] * e[1];
    if (ndim == 3)
        s = s + e[2] * e[2];
    return FV__RM(sqrt)(s);
}

/* frangi: gden = 2 gamma^2 in the working type. */
FV_HD FV__RT
FV__RMATH(fv__ridge_frangi_)(const fv__ridge_job *j, const FV__RT *e, FV__RT gden)
{
    /* sort by magnitude, stable (argsort of 2 or 3 values: ties keep the
     * decreasing order) */
    FV__RT l[3] = { e[0], e[1], j->ndim == 3 ? e[2] : (FV__RT)0 };
    for (int a = 1; a < j->ndim; a++) {
        FV__RT v = l[a];
        int b = a;
        while (b > 0 && FV__RM(fabs)(v) < FV__RM(fabs)(l[b - 1])) {
            l[b] = l[b - 1];
            b--;
        }
        l[b] = v;
    }
    const FV__RT floor_ = (FV__RT)1e-10;
    const FV__RT s = FV__RMATH(fv__ridge_norm_)(j->ndim, e);
    FV__RT rb, ra = 0;
    if (j->ndim == 2) {
        const FV__RT l2 = FV__RMATH(fv__ridge_max_)(l[1], floor_);
        rb = FV__RM(fabs)(l[0]) / l2;
    } else {
        const FV__RT l2 = FV__RMATH(fv__ridge_max_)(l[1], floor_);
        const FV__RT l3 = FV__RMATH(fv__ridge_max_)(l[2], floor_);
        ra = l2 / l3;
        rb = FV__RM(fabs)(l[0]) / FV__RM(sqrt)(l2 * l3);
    }
    FV__RT v = FV__RM(exp)(-(rb * rb) / (FV__RT)j->beta_den);
    if (j->ndim == 3)
        v = v * FV__RMATH(fv__ridge_1mexp_)(-(ra * ra) / (FV__RT)j->alpha_den);
    v = v * FV__RMATH(fv__ridge_1mexp_)(-(s * s) / gden);
    return v;
}

/* sato: sigma^2 * prod(max(e[:-1], 0)) ** (1 / (ndim - 1)) */
FV_HD FV__RT
FV__RMATH(fv__ridge_sato_)(const fv__ridge_job *j, const FV__RT *e)
{
    const FV__RT a = FV__RMATH(fv__ridge_max_)(e[0], (FV__RT)0);
    FV__RT p;
    if (j->ndim == 2) {
        p = a;
    } else {
        const FV__RT b = FV__RMATH(fv__ridge_max_)(e[1], (FV__RT)0);
        p = FV__RM(sqrt)(a * b);
    }
    return (FV__RT)j->sigma2 * p;
}

/* meijering before normalisation: the circulant combination (1 on the
 * diagonal, alpha elsewhere) of largest magnitude (the first on ties, a NaN
 * first of all, as argmax), clipped at 0. */
FV_HD FV__RT
FV__RMATH(fv__ridge_meij_)(const fv__ridge_job *j, const FV__RT *e)
{
    const FV__RT al = (FV__RT)j->malpha;
    const int n = j->ndim;
    FV__RT best = 0, babs = 0;
    for (int r = 0; r < n; r++) {
        FV__RT v = 0;
        for (int c = 0; c < n; c++)
            v = v + (r == c ? (FV__RT)1 : al) * e[c];
        const FV__RT va = FV__RM(fabs)(v);
        if (r == 0 || (babs == babs && (va != va || va > babs))) {
            best = v;
            babs = va;
        }
    }
    return FV__RMATH(fv__ridge_max_)(best, (FV__RT)0);
}

/* gamma from the NORM_MAX result m (gamma=None): m / 2, 0 -> 1; 2 gamma^2. */
FV_HD FV__RT
FV__RMATH(fv__ridge_gden_)(FV__RT m)
{
    FV__RT g = m / (FV__RT)2;
    if (g == 0)
        g = 1;
    return (FV__RT)2 * (g * g);
}

/* One pixel of a pass. FOLD and MEIJ_FOLD write acc; MEIJ writes work and
 * returns the response; NORM returns the norm. gden: frangi's 2 gamma^2; m:
 * MEIJ_FOLD's max. */
FV_HD FV__RT
FV__RMATH(fv__ridge_pixel_)(const fv__ridge_job *j, int64_t i, FV__RT gden, FV__RT m)
{
    const int pass = j->pass;
    FV__RT *acc = (FV__RT *)j->acc;
    if (pass == FV__RIDGE_PASS_MEIJ_FOLD) {
        FV__RT v = ((const FV__RT *)j->work)[i];
        if (m > 0)
            v = v / m;
        acc[i] = FV__RMATH(fv__ridge_max_)(acc[i], v);
        return v;
    }
    FV__RT e[3];
    FV__RMATH(fv__ridge_eig_)(j, i, e);
    if (pass == FV__RIDGE_PASS_NORM)
        return FV__RMATH(fv__ridge_norm_)(j->ndim, e);
    if (pass == FV__RIDGE_PASS_MEIJ) {
        const FV__RT v = FV__RMATH(fv__ridge_meij_)(j, e);
        ((FV__RT *)j->work)[i] = v;
        return v;
    }
    const FV__RT v =
        j->filter == FV_RIDGE_SATO ? FV__RMATH(fv__ridge_sato_)(j, e) : FV__RMATH(fv__ridge_frangi_)(j, e, gden);
    acc[i] = FV__RMATH(fv__ridge_max_)(acc[i], v);
    return v;
}

#undef FV__RMATH
#undef FV__RMATH_CAT
#undef FV__RMATH_CAT_
