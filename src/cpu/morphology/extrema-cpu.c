/* CPU kernel of FV__OP_LOCAL_MAXIMA: scikit-image's two-phase detection.
 *
 * Flags per pixel: 3 border (first or last index along some axis), 2 candidate,
 * 1 queued / maximum, 4 deferred and 5 no maximum (blocks, below), 0 none of these.
 *   1. When both neighbours along the last axis belong to the footprint, scan
 *      the raveled image: a run of equal values along the last axis whose left
 *      neighbour is smaller and whose right end is followed by a smaller value
 *      marks its pixels as candidates. Otherwise every inner pixel is one.
 *   2. From each candidate (raveled order), flood the pixels of equal value
 *      reachable through the neighbour offsets; the plateau is a maximum unless
 *      one of its neighbours is larger or it reaches an equal border pixel. The
 *      flooded pixels become 1 or 0.
 * The output is (flag == 1). Minima compare the other way round.
 *
 * Threads: the border flags and phase 1 go by rows (a run never crosses a row:
 * the last pixel of every row is a border pixel). With a symmetric footprint a
 * plateau is a connected component, and its outcome does not depend on which of
 * its candidates floods it, so phase 2 runs on blocks of rows too: a flood does
 * not step onto pixels of another block (a block reads and writes the flags of
 * its own rows only). A larger neighbour or an equal border pixel seen in the
 * block's piece of a plateau makes the whole plateau no maximum (its pixels 5); a
 * piece with no such evidence that meets an equal pixel of another block is
 * deferred (4). Afterwards the calling thread floods the deferred pieces in
 * raveled order (rows holding deferred pixels are marked, so that pass skips the
 * rest), across blocks but not into pieces already known to be no maximum: an
 * equal pixel flagged 5 is that evidence (else a plateau spanning the image whose
 * evidence lay in one block would be flooded whole once more). An asymmetric footprint (directed reachability, where the order
 * matters), one thread and FOVEA_LMAX_SERIAL=1 flood on the calling thread. */
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "ops/morphology/extrema.h"
#include "core/plan.h"

#define FV__LT_max(a, b) ((a) < (b))
#define FV__LT_min(a, b) ((a) > (b))

/* Phase 1 over the pixels [lo, hi) (whole rows). */
#define FV__LMAX_SCAN(T, S, DIR)                                                                          \
    static void fv__lmax_scan_##DIR##_##S(const T *img, uint8_t *flags, int64_t lo, int64_t hi, int scan) \
    {                                                                                                     \
        if (!scan) {                                                                                      \
            for (int64_t k = lo; k < hi; k++)                                                             \
                if (flags[k] != 3)                                                                        \
                    flags[k] = 2;                                                                         \
            return;                                                                                       \
        }                                                                                                 \
        int64_t i = lo + 1;                                                                               \
        while (i < hi) {                                                                                  \
            if (FV__LT_##DIR(img[i - 1], img[i]) && flags[i] != 3) {                                      \
                int64_t j = i + 1;                                                                        \
                while (img[i] == img[j] && flags[j] != 3)                                                 \
                    j++;                                                                                  \
                if (FV__LT_##DIR(img[j], img[i]))                                                         \
                    memset(flags + i, 2, (size_t)(j - i));                                                \
                i = j;                                                                                    \
            } else {                                                                                      \
                i++;                                                                                      \
            }                                                                                             \
        }                                                                                                 \
    }

/* Mark the n pixels of list deferred (4), and their rows in rowdef (NULL: the
 * sequential pass, which defers nothing). */
static void
fv__lmax_defer(uint8_t *flags, const int64_t *list, int64_t n, uint8_t *rowdef, int64_t len)
{
    for (int64_t k = 0; k < n; k++) {
        flags[list[k]] = 4;
        if (rowdef)
            rowdef[list[k] / len] = 1;
    }
}

/* Phase 2 from the candidates in [lo, hi): flag 2 (own) or 2 and 4 (the pass
 * after the blocks). own != 0: the block owns [lo, hi) alone, and a flood whose
 * piece meets an equal pixel outside it, or a deferred one, is deferred
 * (its pixels 4, their rows marked in rowdef) unless the piece already shows the
 * plateau is no maximum. *list / *cap: the queue, grown here. FV_ENOMEM leaves
 * the interrupted flood's pixels deferred. */
#define FV__LMAX_FLOOD(T, S, DIR)                                                                                   \
    static fv_status fv__lmax_flood_##DIR##_##S(const T *img, uint8_t *flags, int64_t lo, int64_t hi,               \
                                                const int64_t *off, int nnb, int own, uint8_t *rowdef, int64_t len, \
                                                int64_t **list, int64_t *cap)                                       \
    {                                                                                                               \
        for (int64_t s = lo; s < hi; s++) {                                                                         \
            if (flags[s] != 2 && (own || flags[s] != 4))                                                            \
                continue;                                                                                           \
            const T h = img[s];                                                                                     \
            int64_t n = 0, head = 0;                                                                                \
            int maximum = 1, touch = 0;                                                                             \
            if (*cap == 0) {                                                                                        \
                if (!(*list = malloc(256 * sizeof **list)))                                                         \
                    return fv_error_set(FV_ENOMEM, "local_maxima", "out of memory");                                \
                *cap = 256;                                                                                         \
            }                                                                                                       \
            flags[s] = 1;                                                                                           \
            (*list)[n++] = s;                                                                                       \
            while (head < n) {                                                                                      \
                int64_t cur = (*list)[head++];                                                                      \
                for (int k = 0; k < nnb; k++) {                                                                     \
                    int64_t y = cur + off[k];                                                                       \
                    T v = img[y];                                                                                   \
                    if (v == h) {                                                                                   \
                        if (own && (y < lo || y >= hi || flags[y] == 4)) {                                          \
                            touch = 1; /* the plateau goes on in another block */                                   \
                            continue;                                                                               \
                        }                                                                                           \
                        if (flags[y] == 3 || flags[y] == 5) {                                                       \
                            maximum = 0;                                                                            \
                        } else if (flags[y] != 1) {                                                                 \
                            if (n == *cap) {                                                                        \
                                int64_t *nl = realloc(*list, (size_t)*cap * 2 * sizeof **list);                     \
                                if (!nl) {                                                                          \
                                    fv__lmax_defer(flags, *list, n, rowdef, len);                                   \
                                    return fv_error_set(FV_ENOMEM, "local_maxima", "out of memory");                \
                                }                                                                                   \
                                *list = nl;                                                                         \
                                *cap *= 2;                                                                          \
                            }                                                                                       \
                            (*list)[n++] = y;                                                                       \
                            flags[y] = 1;                                                                           \
                        }                                                                                           \
                    } else if (FV__LT_##DIR(h, v)) {                                                                \
                        maximum = 0;                                                                                \
                    }                                                                                               \
                }                                                                                                   \
            }                                                                                                       \
            if (!maximum) /* seen in this block's piece: true of the whole plateau */                               \
                for (int64_t k = 0; k < n; k++)                                                                     \
                    flags[(*list)[k]] = own ? 5 : 0;                                                                \
            else if (touch)                                                                                         \
                fv__lmax_defer(flags, *list, n, rowdef, len);                                                       \
        }                                                                                                           \
        return FV_OK;                                                                                               \
    }

#define FV__LMAX_KERNEL(T, S, DIR) FV__LMAX_SCAN(T, S, DIR) FV__LMAX_FLOOD(T, S, DIR)
#define FV__LMAX_BOTH(E, T, S) FV__LMAX_KERNEL(T, S, max) FV__LMAX_KERNEL(T, S, min)
FV_FOREACH_DTYPE(FV__LMAX_BOTH)

/* The work of one call, shared by the row blocks. */
typedef struct fv__lmax_job {
    const fv_array *in;
    uint8_t *flags;
    const int64_t *off;
    uint8_t *rowdef; /* per row: a deferred pixel in it (blocks only) */
    int64_t len;     /* row length (the last axis) */
    int nnb, scan, minima;
    int phase; /* 0: border flags and phase 1; 1: phase 2 in blocks; 2: the output */
} fv__lmax_job;

static fv_status
fv__lmax_flood(const fv__lmax_job *j, int64_t lo, int64_t hi, int own, int64_t **list, int64_t *cap)
{
    switch (j->in->dtype) {
#define FV__LMAX_CASE(E, T, S)                                                                                   \
    case E:                                                                                                      \
        return j->minima ? fv__lmax_flood_min_##S((const T *)j->in->data, j->flags, lo, hi, j->off, j->nnb, own, \
                                                  j->rowdef, j->len, list, cap)                                  \
                         : fv__lmax_flood_max_##S((const T *)j->in->data, j->flags, lo, hi, j->off, j->nnb, own, \
                                                  j->rowdef, j->len, list, cap);
        FV_FOREACH_DTYPE(FV__LMAX_CASE)
#undef FV__LMAX_CASE
    default:
        return fv_error_set(FV_EDTYPE, "local_maxima", "unsupported dtype");
    }
}

static void
fv__lmax_rows(void *arg, int64_t r0, int64_t r1)
{
    const fv__lmax_job *j = arg;
    const fv_array *in = j->in;
    const int nd = in->ndim;
    const int64_t len = j->len, lo = r0 * len, hi = r1 * len;
    uint8_t *flags = j->flags;
    if (j->phase == 2) {
        for (int64_t i = lo; i < hi; i++)
            flags[i] = flags[i] == 1;
        return;
    }
    if (j->phase == 1) { /* a failure leaves the block's unfinished plateaus deferred */
        int64_t *list = NULL, cap = 0;
        if (fv__lmax_flood(j, lo, hi, 1, &list, &cap) != FV_OK)
            for (int64_t i = lo; i < hi; i++)
                if (flags[i] == 2) {
                    flags[i] = 4;
                    j->rowdef[i / len] = 1;
                }
        free(list);
        return;
    }
    for (int64_t r = r0; r < r1; r++) { /* border flags */
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
    switch (in->dtype) {
#define FV__LMAX_CASE(E, T, S)                                                  \
    case E:                                                                     \
        if (j->minima)                                                          \
            fv__lmax_scan_min_##S((const T *)in->data, flags, lo, hi, j->scan); \
        else                                                                    \
            fv__lmax_scan_max_##S((const T *)in->data, flags, lo, hi, j->scan); \
        break;
        FV_FOREACH_DTYPE(FV__LMAX_CASE)
#undef FV__LMAX_CASE
    default:
        break;
    }
}

/* The paths ("cpu.local_maxima"): "blocks", rows in blocks on the thread pool
 * and the plateaus that cross blocks afterwards (a symmetric neighbourhood,
 * 2 threads or more); "serial", one flood over the image. */
typedef struct fv__lmax_plan_args {
    int sym, threads;
} fv__lmax_plan_args;

static int
fv__lmax_blocks_ok(const void *args, int device)
{
    const fv__lmax_plan_args *pa = args;
    (void)device;
    return pa->sym && pa->threads > 1;
}

FV__VARIANTS(fv__lmax_variants, "cpu.local_maxima", { "blocks", fv__lmax_blocks_ok, NULL }, { "serial", NULL, NULL })

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

    switch (in->dtype) {
#define FV__LMAX_CASE(E, T, S) case E:
        FV_FOREACH_DTYPE(FV__LMAX_CASE)
#undef FV__LMAX_CASE
        break;
    default:
        return fv_error_set(FV_EDTYPE, "local_maxima", "unsupported dtype");
    }
    for (int d = 0; d < nd; d++)
        if (in->shape[d] < 3) { /* every pixel is on the border */
            memset(flags, 0, (size_t)size);
            return FV_OK;
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
    /* blocks only for a symmetric neighbourhood (undirected plateaus) */
    int sym = 1;
    for (int k = 0; k < p->nnb && sym; k++) {
        int found = 0;
        for (int q = 0; q < p->nnb && !found; q++)
            found = off[q] == -off[k];
        sym = found;
    }
    const int64_t len = in->shape[nd - 1], rows = size / len;
    /* blocks (rowdef non-NULL) with a symmetric footprint and threads to run them;
     * without memory for rowdef, the sequential flood */
    uint8_t *rowdef = NULL;
    const fv__lmax_plan_args pa = { sym, fv_context_threads(ctx) };
    if (fv__plan_index(&fv__lmax_variants, &pa, -1) == 0)
        rowdef = calloc((size_t)rows, 1);
    /* rows per block: about 4 blocks per thread (the pool's split), at least 64 Ki
     * pixels each, so that few plateaus are deferred */
    const int64_t grain = (64 * 1024 + len - 1) / len;
    fv__lmax_job job = { .in = in,
                         .flags = flags,
                         .off = off,
                         .rowdef = rowdef,
                         .len = len,
                         .nnb = p->nnb,
                         .scan = p->scan_last,
                         .minima = p->minima,
                         .phase = 0 };
    fv__parallel_for(ctx, rows, grain, fv__lmax_rows, &job);
    int64_t *list = NULL, cap = 0;
    if (rowdef) { /* the blocks, then the deferred plateaus' rows in order */
        job.phase = 1;
        fv__parallel_for(ctx, rows, grain, fv__lmax_rows, &job);
        for (int64_t r = 0; r < rows && st == FV_OK; r++)
            if (rowdef[r])
                st = fv__lmax_flood(&job, r * len, (r + 1) * len, 0, &list, &cap);
    } else {
        st = fv__lmax_flood(&job, 0, size, 0, &list, &cap);
    }
    free(list);
    free(rowdef);
    free(off);
    if (st == FV_OK) {
        job.phase = 2;
        fv__parallel_for(ctx, rows, grain, fv__lmax_rows, &job);
    }
    return st;
}

FV_KERNEL(LOCAL_MAXIMA, CPU, FV_DTYPES_ALL, FV_MAX_NDIM, fv__cpu_local_maxima);
