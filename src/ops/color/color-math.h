/* The per-pixel colour conversions in one floating type, included twice by
 * color-kernels.h with FV__CT (float or double), FV__CM(fn) (the libm function
 * for that type: powf or pow) and FV__CS (name suffix f or d).
 *
 * Each formula follows scikit-image 0.26's skimage.color step by step in the
 * working type, constants rounded to it as NumPy rounds Python scalars, so
 * float64 results agree to the last bits and float32 ones to float32 rounding.
 * No include guard: included once per type. */

#define FV__CMATH_CAT_(a, b) a##b
#define FV__CMATH_CAT(a, b) FV__CMATH_CAT_(a, b)
#define FV__CMATH(name) FV__CMATH_CAT(name, FV__CS)
#define K(x) ((FV__CT)(x))

/* x mod 1 as numpy's remainder (result in [0, 1), +0.0 for exact zeros). */
FV_HD FV__CT
FV__CMATH(fv__color_mod1_)(FV__CT x)
{
    FV__CT m = FV__CM(fmod)(x, K(1));
    if (m != 0) {
        if (m < 0)
            m += K(1);
    } else {
        m = K(0);
    }
    return m;
}

FV_HD FV__CT
FV__CMATH(fv__color_clip01_)(FV__CT x)
{
    return x < 0 ? K(0) : x > 1 ? K(1) : x; /* NaN stays NaN, as np.clip */
}

/* MATRIX, step 1: input channel c's value x (offset, then the pre-function).
 * in_single: the input was float32 (STAIN_LOG takes its log in float32). */
FV_HD FV__CT
FV__CMATH(fv__color_pre_)(const fv_color_params *p, int c, FV__CT x, int in_single)
{
    x = x + K(p->pre_offset[c]);
    switch (p->pre) {
    case FV_COLOR_PRE_SRGB_LINEAR:
        x = x > K(0.04045) ? FV__CM(pow)((x + K(0.055)) / K(1.055), K(2.4)) : x / K(12.92);
        break;
    case FV_COLOR_PRE_STAIN_LOG:
        if (in_single) {
            float xf = (float)x;
            x = (FV__CT)logf(xf < 1e-6f ? 1e-6f : xf);
        } else {
            double xd = (double)x;
            x = (FV__CT)log(xd < 1e-6 ? 1e-6 : xd);
        }
        x = x / K(-13.815510557964274);
        break;
    case FV_COLOR_PRE_STAIN_EXP:
        x = -(x * K(13.815510557964274));
        break;
    default:
        break;
    }
    return x;
}

/* MATRIX, step 2: the rows (products summed left to right) and the post-function
 * of the prepared channels v[3]; returns the rows written to o. */
FV_HD int
FV__CMATH(fv__color_rows_)(const fv_color_params *p, const FV__CT *v, FV__CT *o)
{
    const int rows = p->rows;
    for (int r = 0; r < rows; r++) {
        FV__CT y = K(p->matrix[r][0]) * v[0] + K(p->matrix[r][1]) * v[1] + K(p->matrix[r][2]) * v[2];
        y += K(p->post_offset[r]);
        switch (p->post) {
        case FV_COLOR_POST_SRGB_GAMMA:
            y = y > K(0.0031308) ? K(1.055) * FV__CM(pow)(y, K(1.0 / 2.4)) - K(0.055) : y * K(12.92);
            y = FV__CMATH(fv__color_clip01_)(y);
            break;
        case FV_COLOR_POST_NONNEG:
            y = y < 0 ? K(0) : y;
            break;
        case FV_COLOR_POST_EXP_CLIP:
            y = FV__CMATH(fv__color_clip01_)(FV__CM(exp)(y));
            break;
        case FV_COLOR_POST_CLIP01:
            y = FV__CMATH(fv__color_clip01_)(y);
            break;
        default:
            break;
        }
        o[r] = y;
    }
    return rows;
}

/* Conversion of one pixel: v[cin] in, o[] out; returns the channels written.
 * in_single: the input was float32 (STAIN_LOG takes its log in float32). */
FV_HD int
FV__CMATH(fv__color_math_)(const fv_color_params *p, FV__CT *v, FV__CT *o, int in_single)
{
    switch (p->conv) {
    case FV_COLOR_MATRIX: {
        for (int c = 0; c < 3; c++)
            v[c] = FV__CMATH(fv__color_pre_)(p, c, v[c], in_single);
        return FV__CMATH(fv__color_rows_)(p, v, o);
    }
    case FV_COLOR_RGB2HSV: {
        const FV__CT r = v[0], g = v[1], b = v[2];
        FV__CT mx = r, mn = r;
        if (g > mx || g != g)
            mx = g;
        if (b > mx || b != b)
            mx = b;
        if (g < mn || g != g)
            mn = g;
        if (b < mn || b != b)
            mn = b;
        if (r != r)
            mx = mn = r;
        const FV__CT delta = mx - mn;
        FV__CT s = delta / mx, h = 0;
        if (delta == 0)
            s = 0;
        if (r == mx)
            h = (g - b) / delta;
        if (g == mx)
            h = K(2) + (b - r) / delta;
        if (b == mx)
            h = K(4) + (r - g) / delta;
        h = FV__CMATH(fv__color_mod1_)(h / K(6));
        if (delta == 0)
            h = 0;
        o[0] = h != h ? K(0) : h;
        o[1] = s != s ? K(0) : s;
        o[2] = mx != mx ? K(0) : mx;
        return 3;
    }
    case FV_COLOR_HSV2RGB: {
        const FV__CT h = v[0], s = v[1], val = v[2];
        const FV__CT hi = FV__CM(floor)(h * K(6));
        const FV__CT f = h * K(6) - hi;
        const FV__CT pp = val * (K(1) - s);
        const FV__CT q = val * (K(1) - f * s);
        const FV__CT t = val * (K(1) - (K(1) - f) * s);
        switch (fv__color_sector((double)hi)) {
        case 0:
            o[0] = val;
            o[1] = t;
            o[2] = pp;
            break;
        case 1:
            o[0] = q;
            o[1] = val;
            o[2] = pp;
            break;
        case 2:
            o[0] = pp;
            o[1] = val;
            o[2] = t;
            break;
        case 3:
            o[0] = pp;
            o[1] = q;
            o[2] = val;
            break;
        case 4:
            o[0] = t;
            o[1] = pp;
            o[2] = val;
            break;
        default:
            o[0] = val;
            o[1] = pp;
            o[2] = q;
            break;
        }
        return 3;
    }
    case FV_COLOR_XYZ2LAB: {
        FV__CT f[3];
        for (int c = 0; c < 3; c++) {
            FV__CT t = v[c] / K(p->white[c]);
            f[c] = t > K(0.008856) ? FV__CM(cbrt)(t) : K(7.787) * t + K(16.0 / 116.0);
        }
        o[0] = K(116) * f[1] - K(16);
        o[1] = K(500) * (f[0] - f[1]);
        o[2] = K(200) * (f[1] - f[2]);
        return 3;
    }
    case FV_COLOR_LAB2XYZ: {
        FV__CT t[3];
        t[1] = (v[0] + K(16)) / K(116);
        t[0] = v[1] / K(500) + t[1];
        t[2] = t[1] - v[2] / K(200);
        if (t[2] < 0)
            t[2] = 0;
        for (int c = 0; c < 3; c++) {
            FV__CT x = t[c] > K(0.2068966) ? FV__CM(pow)(t[c], K(3)) : (t[c] - K(16.0 / 116.0)) / K(7.787);
            o[c] = (FV__CT)((double)x * p->white[c]); /* the white point stays float64 here */
        }
        return 3;
    }
    case FV_COLOR_XYZ2LUV:
    case FV_COLOR_LUV2XYZ: {
        const FV__CT eps = sizeof(FV__CT) == sizeof(float) ? K(1.1920928955078125e-07) : K(2.220446049250313e-16);
        const FV__CT w0 = K(p->white[0]), w1 = K(p->white[1]), w2 = K(p->white[2]);
        const FV__CT den = w0 * K(1) + w1 * K(15) + w2 * K(3);
        const FV__CT u0 = K(4) * w0 / den, v0 = K(9) * w1 / den;
        if (p->conv == FV_COLOR_XYZ2LUV) {
            const FV__CT X = v[0], Y = v[1], Z = v[2];
            FV__CT L = Y / w1;
            L = L > K(0.008856) ? K(116) * FV__CM(cbrt)(L) - K(16) : K(903.3) * L;
            const FV__CT d = X + K(15) * Y + K(3) * Z + eps;
            o[0] = L;
            o[1] = K(13) * L * (K(4) * X / d - u0);
            o[2] = K(13) * L * (K(9) * Y / d - v0);
        } else {
            const FV__CT L = v[0], u = v[1], vv = v[2];
            FV__CT y = L > K(7.999625) ? FV__CM(pow)((L + K(16)) / K(116), K(3)) : L / K(903.3);
            y *= w1;
            const FV__CT a = u0 + u / (K(13) * L + eps);
            const FV__CT b = v0 + vv / (K(13) * L + eps);
            const FV__CT c = K(3) * y * (K(5) * b - K(3));
            const FV__CT z = ((a - K(4)) * c - K(15) * a * b * y) / (K(12) * b);
            o[0] = -(c / b + K(3) * z);
            o[1] = y;
            o[2] = z;
        }
        return 3;
    }
    case FV_COLOR_LAB2LCH: {
        FV__CT t = FV__CM(atan2)(v[2], v[1]);
        o[0] = v[0];
        o[1] = FV__CM(hypot)(v[1], v[2]);
        o[2] = t < 0 ? (FV__CT)((double)t + 2 * FV__COLOR_PI) : t;
        return 3;
    }
    case FV_COLOR_LCH2LAB:
        o[0] = v[0];
        o[1] = v[1] * FV__CM(cos)(v[2]);
        o[2] = v[1] * FV__CM(sin)(v[2]);
        return 3;
    case FV_COLOR_RGBA2RGB: {
        const FV__CT a = v[3];
        for (int c = 0; c < 3; c++)
            o[c] = FV__CMATH(fv__color_clip01_)((K(1) - a) * K(p->background[c]) + a * v[c]);
        return 3;
    }
    default:
        return 0;
    }
}

#undef K
#undef FV__CMATH
#undef FV__CMATH_CAT
#undef FV__CMATH_CAT_
