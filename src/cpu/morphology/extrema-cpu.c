/* CPU kernel of FV__OP_LOCAL_MAXIMA: scikit-image's two-phase detection.
 *
 * Flags per pixel: 3 border (first or last index along some axis), 2 candidate,
 * 1 queued / maximum, 0 none of these.
 *   1. When both neighbours along the last axis belong to the footprint, scan
 *      the raveled image: a run of equal values along the last axis whose left
 *      neighbour is smaller and whose right end is followed by a smaller value
 *      marks its pixels as candidates. Otherwise every inner pixel is one.
 *   2. From each candidate (raveled order), flood the pixels of equal value
 *      reachable through the neighbour offsets; the plateau is a maximum unless
 *      one of its neighbours is larger or it reaches an equal border pixel. The
 *      flooded pixels become 1 or 0.
 * The output is (flag == 1). Minima compare the other way round. Sequential,
 * on the calling thread; exact for any footprint (symmetric or not). */
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "ops/morphology/skmorphology-kernels.h"

#define FV__LT_max(a, b) ((a) < (b))
#define FV__LT_min(a, b) ((a) > (b))

#define FV__LMAX_KERNEL(T, S, DIR)                                                                \
    static fv_status fv__lmax_##DIR##_##S(const T *img, uint8_t *flags, int64_t size,               \
                                          const int64_t *off, int nnb, int scan)                    \
    {                                                                                               \
        int64_t *list = NULL, cap = 0;                                                              \
        /* 1. candidates along the last axis, or every inner pixel */                               \
        int64_t i = 1;                                                                              \
        if (!scan)                                                                                  \
            for (int64_t k = 0; k < size; k++)                                                      \
                if (flags[k] != 3)                                                                  \
                    flags[k] = 2;                                                                   \
        while (scan && i < size) {                                                                  \
            if (FV__LT_##DIR(img[i - 1], img[i]) && flags[i] != 3) {                                \
                int64_t j = i + 1;                                                                  \
                while (img[i] == img[j] && flags[j] != 3)                                           \
                    j++;                                                                            \
                if (FV__LT_##DIR(img[j], img[i]))                                                   \
                    memset(flags + i, 2, (size_t)(j - i));                                          \
                i = j;                                                                              \
            } else {                                                                                \
                i++;                                                                                \
            }                                                                                       \
        }                                                                                           \
        /* 2. flood each candidate's plateau */                                                     \
        for (int64_t s = 0; s < size; s++) {                                                        \
            if (flags[s] != 2)                                                                      \
                continue;                                                                           \
            const T h = img[s];                                                                     \
            int64_t n = 0, head = 0;                                                                \
            int maximum = 1;                                                                        \
            if (cap == 0) {                                                                         \
                cap = 256;                                                                          \
                if (!(list = malloc((size_t)cap * sizeof *list)))                                   \
                    return fv_error_set(FV_ENOMEM, "local_maxima", "out of memory");                \
            }                                                                                       \
            flags[s] = 1;                                                                           \
            list[n++] = s;                                                                          \
            while (head < n) {                                                                      \
                int64_t cur = list[head++];                                                         \
                for (int k = 0; k < nnb; k++) {                                                     \
                    int64_t y = cur + off[k];                                                       \
                    T v = img[y];                                                                   \
                    if (v == h) {                                                                   \
                        if (flags[y] == 3) {                                                        \
                            maximum = 0;                                                            \
                        } else if (flags[y] != 1) {                                                 \
                            if (n == cap) {                                                         \
                                int64_t *nl = realloc(list, (size_t)cap * 2 * sizeof *list);        \
                                if (!nl) {                                                          \
                                    free(list);                                                     \
                                    return fv_error_set(FV_ENOMEM, "local_maxima", "out of memory"); \
                                }                                                                   \
                                list = nl;                                                          \
                                cap *= 2;                                                           \
                            }                                                                       \
                            list[n++] = y;                                                          \
                            flags[y] = 1;                                                           \
                        }                                                                           \
                    } else if (FV__LT_##DIR(h, v)) {                                                \
                        maximum = 0;                                                                \
                    }                                                                               \
                }                                                                                   \
            }                                                                                       \
            if (!maximum)                                                                           \
                for (int64_t k = 0; k < n; k++)                                                     \
                    flags[list[k]] = 0;                                                             \
        }                                                                                           \
        free(list);                                                                                 \
        return FV_OK;                                                                               \
    }

#define FV__LMAX_BOTH(E, T, S) FV__LMAX_KERNEL(T, S, max) FV__LMAX_KERNEL(T, S, min)
FV_FOREACH_DTYPE(FV__LMAX_BOTH)

fv_status
fv__cpu_local_maxima(fv_context *ctx, const fv__op_args *a)
{
    const fv__local_maxima_params *p = a->params;
    const fv_array *in = a->in;
    const int nd = in->ndim;
    const int64_t size = fv_array_size(in);
    uint8_t *flags = (uint8_t *)a->out->data;
    int64_t *off = NULL, stride[FV_MAX_NDIM];
    fv_status st = FV_OK;

    for (int d = 0; d < nd; d++)
        if (in->shape[d] < 3) {   /* every pixel is on the border */
            memset(flags, 0, (size_t)size);
            return FV_OK;
        }
    /* border flags, row by row */
    const int64_t len = in->shape[nd - 1], rows = size / len;
    for (int64_t r = 0; r < rows; r++) {
        int64_t rem = r;
        int border = 0;
        for (int d = nd - 2; d >= 0; d--) {
            int64_t c = rem % in->shape[d];
            rem /= in->shape[d];
            border |= c == 0 || c == in->shape[d] - 1;
        }
        uint8_t *f = flags + r * len;
        memset(f, border ? 3 : 0, (size_t)len);
        f[0] = f[len - 1] = 3;
    }
    if (!(off = malloc(((size_t)p->nnb + 1) * sizeof *off)))
        return fv_error_set(FV_ENOMEM, "local_maxima", "out of memory");
    int64_t s = 1;
    for (int d = nd - 1; d >= 0; d--) {
        stride[d] = s;
        s *= in->shape[d];
    }
    for (int k = 0; k < p->nnb; k++) {
        off[k] = 0;
        for (int d = 0; d < nd; d++)
            off[k] += p->nb[(int64_t)k * nd + d] * stride[d];
    }
    switch (in->dtype) {
#define FV__LMAX_CASE(E, T, S)                                                              \
    case E:                                                                                 \
        st = p->minima ? fv__lmax_min_##S((const T *)in->data, flags, size, off, p->nnb, p->scan_last)  \
                       : fv__lmax_max_##S((const T *)in->data, flags, size, off, p->nnb, p->scan_last); \
        break;
        FV_FOREACH_DTYPE(FV__LMAX_CASE)
#undef FV__LMAX_CASE
    default:
        st = fv_error_set(FV_EDTYPE, "local_maxima", "unsupported dtype");
    }
    free(off);
    if (st == FV_OK)
        for (int64_t i = 0; i < size; i++)
            flags[i] = flags[i] == 1;
    return st;
}
