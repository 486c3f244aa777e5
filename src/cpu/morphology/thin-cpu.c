/* CPU kernels of FV__OP_THIN (parallel two-subiteration thinning, rows over
 * the thread pool) and FV__OP_MEDIAL_AXIS (the sequential ordered pass). */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "ops/morphology/thin.h"

/* ---- thin ------------------------------------------------------------------------- */

typedef struct fv__thin_job {
    const uint8_t *src;
    uint8_t *dst;
    const uint8_t *zero; /* cols zero bytes: the row above the first and below the last */
    int64_t rows, cols;
    const uint8_t *lut; /* 256 entries: 1 = delete */
    atomic_int changed;
} fv__thin_job;

/* The 8-neighbourhood code of column c (bits: E, NE, N, NW, W, SW, S, SE) from
 * the rows above, at and below it; l, rr: the columns left and right exist. */
static inline unsigned
fv__thin_code(const uint8_t *up, const uint8_t *mid, const uint8_t *dn, int64_t c, int l, int rr)
{
    unsigned code = (unsigned)up[c] << 2 | (unsigned)dn[c] << 6;
    if (rr)
        code |= (unsigned)mid[c + 1] | (unsigned)up[c + 1] << 1 | (unsigned)dn[c + 1] << 7;
    if (l)
        code |= (unsigned)up[c - 1] << 3 | (unsigned)mid[c - 1] << 4 | (unsigned)dn[c - 1] << 5;
    return code;
}

static void
fv__thin_rows(void *arg, int64_t begin, int64_t end)
{
    fv__thin_job *j = arg;
    const int64_t R = j->rows, C = j->cols;
    unsigned changed = 0;
    for (int64_t r = begin; r < end; r++) {
        const uint8_t *up = r > 0 ? j->src + (r - 1) * C : j->zero;
        const uint8_t *mid = j->src + r * C;
        const uint8_t *dn = r < R - 1 ? j->src + (r + 1) * C : j->zero;
        uint8_t *o = j->dst + r * C;
        for (int64_t c = 0; c < C; c++) {
            if (!mid[c]) {
                o[c] = 0;
                continue;
            }
            /* values are 0 / 1: the interior columns need no edge tests */
            const unsigned code = c > 0 && c < C - 1 ? fv__thin_code(up, mid, dn, c, 1, 1)
                                                     : fv__thin_code(up, mid, dn, c, c > 0, c < C - 1);
            o[c] = !j->lut[code];
            changed |= j->lut[code];
        }
    }
    if (changed)
        atomic_store(&j->changed, 1);
}

fv_status
fv__cpu_thin(fv_context *ctx, const fv__op_args *a)
{
    const fv__thin_params *p = a->params;
    const fv_array *in = a->in;
    const int64_t R = in->shape[0], C = in->shape[1], n = R * C;
    uint8_t *buf = NULL;
    uint8_t *cur = (uint8_t *)a->out->data, *nxt;

    if (!(buf = calloc((size_t)n + (size_t)C, 1)))
        return fv_error_set(FV_ENOMEM, "thin", "out of memory");
    nxt = buf;
    switch (in->dtype) {
#define FV__THIN_LOAD(E, T, S)                      \
    case E:                                         \
        for (int64_t i = 0; i < n; i++)             \
            cur[i] = ((const T *)in->data)[i] != 0; \
        break;
        FV_FOREACH_DTYPE(FV__THIN_LOAD)
#undef FV__THIN_LOAD
    default:
        break;
    }
    int64_t grain = C > 0 ? (65536 + C - 1) / C : 1;
    for (int64_t iter = 0; p->max_num_iter <= 0 || iter < p->max_num_iter; iter++) {
        int changed = 0;
        for (int sub = 0; sub < 2; sub++) {
            fv__thin_job j = { .src = cur, .dst = nxt, .zero = buf + n, .rows = R, .cols = C, .lut = p->lut[sub].del };
            atomic_init(&j.changed, 0);
            fv__parallel_for(ctx, R, grain, fv__thin_rows, &j);
            changed |= atomic_load(&j.changed);
            uint8_t *t = cur;
            cur = nxt;
            nxt = t;
        }
        if (!changed)
            break;
    }
    /* after an even number of swaps the result is in out already */
    if (cur != (uint8_t *)a->out->data)
        memcpy(a->out->data, cur, (size_t)n);
    free(buf);
    return FV_OK;
}

/* ---- medial axis ---------------------------------------------------------------------- */

/* 8-connected components of the set cells of a 3 x 3 pattern (bit 3 * r + c). */
static int
fv__components9(unsigned pat)
{
    int comps = 0;
    unsigned seen = 0;
    for (int s = 0; s < 9; s++) {
        if (!(pat >> s & 1u) || (seen >> s & 1u))
            continue;
        comps++;
        int stack[9], top = 0;
        stack[top++] = s;
        seen |= 1u << s;
        while (top) {
            int c = stack[--top], r0 = c / 3, c0 = c % 3;
            for (int dr = -1; dr <= 1; dr++)
                for (int dc = -1; dc <= 1; dc++) {
                    int r1 = r0 + dr, c1 = c0 + dc;
                    if (r1 < 0 || r1 > 2 || c1 < 0 || c1 > 2)
                        continue;
                    int t = 3 * r1 + c1;
                    if ((pat >> t & 1u) && !(seen >> t & 1u)) {
                        seen |= 1u << t;
                        stack[top++] = t;
                    }
                }
        }
    }
    return comps;
}

static int
fv__popcount9(unsigned x)
{
    int n = 0;
    for (; x; x &= x - 1)
        n++;
    return n;
}

fv_status
fv__cpu_medial_axis(fv_context *ctx, const fv__op_args *a)
{
    const fv_array *in = a->in;
    const int64_t R = in->shape[0], C = in->shape[1], n = R * C;
    const int64_t *order = (const int64_t *)a->in2->data, norder = a->in2->shape[0];
    uint8_t keep[512], *res = (uint8_t *)a->out->data;

    /* keep the centre when removing it splits or merges 8-connected
     * components, or when the neighbourhood holds fewer than 3 pixels */
    for (unsigned idx = 0; idx < 512; idx++)
        keep[idx] = (idx & 16u) && (fv__components9(idx) != fv__components9(idx & ~16u) || fv__popcount9(idx) < 3);
    switch (in->dtype) {
#define FV__MA_LOAD(E, T, S)                        \
    case E:                                         \
        for (int64_t i = 0; i < n; i++)             \
            res[i] = ((const T *)in->data)[i] != 0; \
        break;
        FV_FOREACH_DTYPE(FV__MA_LOAD)
#undef FV__MA_LOAD
    default:
        break;
    }
    for (int64_t k = 0; k < norder; k++) {
        const int64_t x = order[k], r = x / C, c = x % C;
        const int up = r > 0, dn = r<R - 1, l = c> 0, rr = c < C - 1;
        unsigned acc = 16;
        if (up) {
            acc |= (unsigned)(l && res[x - C - 1]) << 0;
            acc |= (unsigned)(res[x - C] != 0) << 1;
            acc |= (unsigned)(rr && res[x - C + 1]) << 2;
        }
        acc |= (unsigned)(l && res[x - 1]) << 3;
        acc |= (unsigned)(rr && res[x + 1]) << 5;
        if (dn) {
            acc |= (unsigned)(l && res[x + C - 1]) << 6;
            acc |= (unsigned)(res[x + C] != 0) << 7;
            acc |= (unsigned)(rr && res[x + C + 1]) << 8;
        }
        res[x] = keep[acc];
    }
    return FV_OK;
}

FV_KERNEL(THIN, CPU, FV_DTYPES_ALL, 2, fv__cpu_thin);
FV_KERNEL(MEDIAL_AXIS, CPU, FV_DTYPES_ALL, 2, fv__cpu_medial_axis);
