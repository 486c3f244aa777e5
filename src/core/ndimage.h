/* Kernel parameters of the filter and morphology ops, shared by src/ops (which
 * validates and fills them), src/cpu and src/cuda (which run them). Plain C; the
 * inline helpers compile as host code and, under nvcc, as device code too. */
#ifndef FV_NDIMAGE_H
#define FV_NDIMAGE_H

#include <stdint.h>
#include "internal.h"
#include "cast.h"   /* FV_HD */

#ifdef __cplusplus
extern "C" {
#endif

/* ---- FV__OP_FILTER1D: one 1-D pass along `axis` ------------------------------
 * in -> out, same shape, never overlapping (src/ops makes a temporary when the
 * caller's arrays overlap). Any real dtype pair. Window of `size` taps; tap k
 * reads in[i + k - size / 2 - origin] along the axis (scipy's origin). */
typedef enum fv__filter1d_kind {
    FV__F1D_CORRELATE = 0,   /* sum of weights[k] * x, in double */
    FV__F1D_UNIFORM,         /* scipy's running mean, same operation order */
    FV__F1D_MINIMUM,
    FV__F1D_MAXIMUM
} fv__filter1d_kind;

typedef struct fv__filter1d_params {
    int kind;                /* fv__filter1d_kind */
    int axis;
    int mode;                /* fv_mode */
    double cval;
    int64_t origin;
    int64_t size;            /* taps, >= 1 */
    const double *weights;   /* CORRELATE: `size` host values; else NULL */
    int symmetry;            /* CORRELATE hint: 1 symmetric, -1 antisymmetric, 0 neither */
    const double *dweights;  /* CORRELATE without host weights: `size` float64 values on the data's
                              * CUDA device (fv_correlate1d_array; CUDA backend only), */
    int64_t dweights_stride; /* dweights_stride elements apart (negative: reversed) */
} fv__filter1d_params;

/* ---- FV__OP_SEP2: two 1-D passes fused (optional; CUDA only) -----------------
 * out = pass[1](pass[0](in)), where pass[0]'s result is held in dtype `mid`
 * exactly as fv__run_passes would store it in its temporary (out's dtype, uint8
 * for bool outputs). in and out never overlap. A backend returns FV_OK, a
 * negative fv_status, or FV__SEP2_DECLINED (no error set) when the fused kernel
 * does not apply; the caller then runs the passes one by one. */
#define FV__SEP2_DECLINED ((fv_status)1)
typedef struct fv__sep2_params {
    fv__filter1d_params pass[2];
    int mid;                 /* fv_dtype of the intermediate */
} fv__sep2_params;

/* ---- FV__OP_FILTERND: n-D window over a footprint ---------------------------
 * in -> out as above. The window is fshape[ndim] (ndim = in->ndim) in C order;
 * element j of the window reads in[i + j - fshape / 2 - origins] per axis.
 * Selected elements: footprint[j] != 0 (footprint NULL: all), and for CORRELATE
 * additionally |weights[j]| > DBL_EPSILON (scipy's rule; NaN weights are not selected). Elements are visited in C order of the window. */
typedef enum fv__filternd_kind {
    FV__FND_CORRELATE = 0,   /* sum of weights[j] * x in double (from 0.0, in C order); src/ops
                              * zeroes the weights scipy skips (|w| <= DBL_EPSILON, NaN) */
    FV__FND_MINIMUM,         /* min of (x - structure[j]) (structure NULL: x) */
    FV__FND_MAXIMUM,         /* max of (x + structure[j]); scipy's NI_MinOrMaxFilter: the first
                              * selected element in double (plus its structure value in double),
                              * the others in the input type with the structure value cast to
                              * it (wrapping integer sums), compared as doubles */
    FV__FND_RANK             /* rank-th smallest of x over the selected elements, then cast to
                              * the input type (scipy's `(_type)NI_Select(...)`) */
} fv__filternd_kind;
/* MINIMUM, MAXIMUM and RANK read cval cast to the input type (scipy's
 * `(_type)cval`, fv__cvt32 & co. below; bool keeps the raw byte); CORRELATE
 * reads it as a double. The n-d filters store unsigned results with scipy's
 * `x > -1 ? (T)x : -(T)(-x)`, which differs from the 1-d store for uint64 only. */

typedef struct fv__filternd_params {
    int kind;                /* fv__filternd_kind */
    int mode;                /* fv_mode */
    double cval;
    int ndim;
    int64_t fshape[FV_MAX_NDIM];
    int64_t origins[FV_MAX_NDIM];
    const uint8_t *footprint;   /* host, or NULL */
    const double *weights;      /* CORRELATE: weights; MINIMUM/MAXIMUM: structure or NULL */
    int64_t count;              /* number of selected elements (>= 1) */
    int64_t rank;               /* RANK: 0 <= rank < count */
} fv__filternd_params;

/* ---- FV__OP_BINARY_EROSION: one pass of scipy's NI_BinaryErosion ------------
 * in (any real dtype, read as != 0) -> out (bool or integer, 0/1), no overlap.
 * in2 of the op args: the mask or NULL. `changed` receives 1 when any output
 * differs from (in != 0), else 0 (src/ops iterates on it). */
typedef struct fv__binary_erosion_params {
    int ndim;
    int64_t sshape[FV_MAX_NDIM];
    int64_t origins[FV_MAX_NDIM];
    const uint8_t *structure;   /* host, C order */
    int border_value;
    int invert;
    int *changed;               /* out: host int, or NULL when not needed */
    int *same_as_before;        /* out: host int or NULL: 1 when every output equals
                                 * what out held before the pass (src/ops detects
                                 * passes that cycle with it) */
} fv__binary_erosion_params;

/* ---- FV__OP_EDT / FV__OP_CDT ---------------------------------------------------
 * in: the image (any real dtype, != 0 is foreground); out: the distances
 * (EDT: float64; CDT: int32) or NULL; indices: int32/int64 (ndim, *shape) or
 * NULL. Since dispatch needs an out, src/ops passes whichever of the two is
 * given as out and repeats it in the params. */
typedef struct fv__distance_params {
    int ndim;
    double sampling[FV_MAX_NDIM];   /* EDT */
    int64_t sshape[FV_MAX_NDIM];    /* CDT structure */
    const uint8_t *structure;       /* CDT */
    fv_array *distances;            /* or NULL */
    fv_array *indices;              /* or NULL */
} fv__distance_params;

/* ---- shared helpers ------------------------------------------------------------ */

/* Index of position i (any integer) of an axis of length n >= 1 under mode, or
 * -1 for FV_MODE_CONSTANT outside [0, n). scipy's NI_ExtendLine rules, for any
 * distance past the edge. */
FV_HD int64_t
fv__extend_index(int64_t i, int64_t n, int mode)
{
    if (i >= 0 && i < n)
        return i;
    switch (mode) {
    case 0: {   /* FV_MODE_REFLECT, period 2n */
        int64_t p = 2 * n;
        i %= p;
        if (i < 0)
            i += p;
        return i < n ? i : p - 1 - i;
    }
    case 2:     /* FV_MODE_NEAREST */
        return i < 0 ? 0 : n - 1;
    case 3: {   /* FV_MODE_MIRROR, period 2n - 2 */
        if (n == 1)
            return 0;
        int64_t p = 2 * n - 2;
        i %= p;
        if (i < 0)
            i += p;
        return i < n ? i : p - i;
    }
    case 4:     /* FV_MODE_WRAP */
        i %= n;
        return i < 0 ? i + n : i;
    default:    /* FV_MODE_CONSTANT */
        return -1;
    }
}

/* A double result stored into an integer output the way scipy's C cast does on
 * x86-64: truncate toward zero to a 64-bit integer (values outside the int64
 * range become INT64_MIN, as cvttsd2si does; uint64 takes values up to 2^64),
 * then keep the low bits of the output width. Outputs: cast the returned
 * uint64 bits to the output type. NaN gives INT64_MIN's bits. */
FV_HD uint64_t
fv__trunc_bits(double x)
{
    if (x >= 9223372036854775808.0 && x < 18446744073709551616.0)
        return (uint64_t)(int64_t)(x - 9223372036854775808.0) + 9223372036854775808ull;
    if (!(x > -9223372036854775809.0 && x < 9223372036854775808.0))
        return 9223372036854775808ull;   /* INT64_MIN's bits */
    return (uint64_t)(int64_t)x;
}

/* The exact stores scipy's C casts make on x86-64 (gcc), per output width,
 * measured against scipy 1.17 (fv__trunc_bits above agrees with them inside
 * the int32 range, which is all that ordinary data reaches):
 *   bool, (u)int8, (u)int16, int32 <- (T)fv__cvt32(x): a 32-bit truncation,
 *        INT32_MIN outside the int32 range and for NaN, then the low bits
 *        (uint8 of 1e10 is 0, of -3.0 is 253);
 *   uint32, int64 <- (T)fv__cvt64(x): a 64-bit truncation, INT64_MIN outside;
 *   uint64 <- fv__cvtu64(x): below 2^63 as int64, else 2^63 + (x - 2^63)
 *        truncated (0 at and above 2^64 and for +inf).
 * scipy stores the raw byte into bool outputs (0.5 -> 0, 2.5 -> 2, -1.5 ->
 * 255); fovea keeps bool outputs 0/1 with the same truth value:
 * ((uint8_t)fv__cvt32(x) != 0). The same casts give scipy's conversions of
 * cval and of structure values to the input type (rank, min/max n-d). */
FV_HD int32_t
fv__cvt32(double x)
{
    return (x > -2147483649.0 && x < 2147483648.0) ? (int32_t)x : INT32_MIN;
}

FV_HD int64_t
fv__cvt64(double x)
{
    return (x > -9223372036854775808.0 && x < 9223372036854775808.0) ? (int64_t)x : INT64_MIN;
}

FV_HD uint64_t
fv__cvtu64(double x)
{
    if (!(x >= 9223372036854775808.0))
        return (uint64_t)fv__cvt64(x);
    return (uint64_t)fv__cvt64(x - 9223372036854775808.0) ^ 0x8000000000000000ull;
}

#ifdef __cplusplus
}
#endif

#endif
