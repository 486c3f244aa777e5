/* CPU kernel of FV__OP_WATERSHED (fv_watershed): the priority flood of
 * scikit-image 0.26, reproduced step for step so that labels are identical.
 *
 * The queue is a binary min-heap of (value, age, index, source), compared by
 * value, then age; seeds enter with age 0, every later push with the next age.
 * Pushes sift up while strictly smaller than the parent; a pop moves the last
 * item to the root and sifts it down towards the strictly smaller child
 * (left first). Seeds of equal value share age 0, so their order comes from
 * these heap mechanics: any other queue would break those ties differently.
 * Ages are kept in 32 bits and wrap past 2^31 pushes, as skimage's do.
 *
 * A neighbour is queued with its own value (plus compactness times its
 * distance to the seed), raised to the value of the pixel that queues it.
 * Plain mode labels a pixel when it is pushed (the first popped neighbour
 * wins); compact mode and watershed lines label it when it is popped (a pixel
 * may be queued more than once). Watershed lines (without compactness): a
 * popped pixel with an in-mask neighbour of another nonzero label leaves the
 * mask and keeps 0, but still queues its neighbours with its seed's label.
 * With compactness skimage 0.26 draws no lines; neither does this. */
#include <math.h>
#include <stdlib.h>
#include "internal.h"
#include "alloc.h"
#include "ops/segmentation/watershed.h"

typedef struct fv__ws_item {
    double value;
    int32_t age;
    int64_t index;
    int64_t source;
} fv__ws_item;

/* The plain flood needs no seed index; below 2^32 pixels its items take 16 bytes. */
typedef struct fv__ws_item16 {
    double value;
    int32_t age;
    uint32_t index;
} fv__ws_item16;

/* A binary min-heap of ITEM by (value, age): NAME##_push (-1 when out of
 * memory) and NAME##_pop, with skimage's sift rules (see the top). */
#define FV__WS_HEAP(NAME, ITEM)                                                                                 \
    typedef struct NAME {                                                                                       \
        ITEM *v;                                                                                                \
        int64_t n, cap;                                                                                         \
    } NAME;                                                                                                     \
    static inline int NAME##_smaller(const ITEM *a, const ITEM *b)                                              \
    {                                                                                                           \
        if (a->value != b->value)                                                                               \
            return a->value < b->value;                                                                         \
        return a->age < b->age;                                                                                 \
    }                                                                                                           \
    static int NAME##_push(NAME *h, const ITEM *it)                                                             \
    {                                                                                                           \
        if (h->n == h->cap) {                                                                                   \
            int64_t cap = h->cap ? h->cap * 2 : 1024;                                                           \
            ITEM *v = (uint64_t)cap > SIZE_MAX / sizeof *v ? NULL : fv__realloc(h->v, (size_t)cap * sizeof *v); \
            if (!v)                                                                                             \
                return -1;                                                                                      \
            h->v = v;                                                                                           \
            h->cap = cap;                                                                                       \
        }                                                                                                       \
        int64_t c = h->n++;                                                                                     \
        ITEM x = *it;                                                                                           \
        while (c > 0) { /* sift up while strictly smaller than the parent */                                    \
            int64_t parent = (c - 1) / 2;                                                                       \
            if (!NAME##_smaller(&x, &h->v[parent]))                                                             \
                break;                                                                                          \
            h->v[c] = h->v[parent];                                                                             \
            c = parent;                                                                                         \
        }                                                                                                       \
        h->v[c] = x;                                                                                            \
        return 0;                                                                                               \
    }                                                                                                           \
    static void NAME##_pop(NAME *h, ITEM *out)                                                                  \
    {                                                                                                           \
        *out = h->v[0];                                                                                         \
        if (--h->n == 0)                                                                                        \
            return;                                                                                             \
        ITEM x = h->v[h->n]; /* the last item, sifted down from the root */                                     \
        int64_t i = 0;                                                                                          \
        for (;;) {                                                                                              \
            int64_t l = 2 * i + 1, r = l + 1;                                                                   \
            if (l >= h->n)                                                                                      \
                break;                                                                                          \
            const ITEM *m = &x;                                                                                 \
            int64_t mi = i;                                                                                     \
            if (NAME##_smaller(&h->v[l], m)) {                                                                  \
                m = &h->v[l];                                                                                   \
                mi = l;                                                                                         \
            }                                                                                                   \
            if (r < h->n && NAME##_smaller(&h->v[r], m))                                                        \
                mi = r;                                                                                         \
            if (mi == i)                                                                                        \
                break;                                                                                          \
            h->v[i] = h->v[mi];                                                                                 \
            i = mi;                                                                                             \
        }                                                                                                       \
        h->v[i] = x;                                                                                            \
    }

FV__WS_HEAP(fv__ws_heap, fv__ws_item)
FV__WS_HEAP(fv__ws_heap16, fv__ws_item16)

/* A 4-ary heap of fv__ws_item16: a different queue, so only used where the
 * (value, age) order is strict (no two seeds of one value, no NaN): then
 * every correct queue pops the same sequence as skimage's binary heap. */
typedef struct fv__ws_heap4 {
    fv__ws_item16 *v;
    int64_t n, cap;
} fv__ws_heap4;

static int
fv__ws_heap4_push(fv__ws_heap4 *h, const fv__ws_item16 *it)
{
    if (h->n == h->cap) {
        int64_t cap = h->cap ? h->cap * 2 : 1024;
        fv__ws_item16 *v = (uint64_t)cap > SIZE_MAX / sizeof *v ? NULL : fv__realloc(h->v, (size_t)cap * sizeof *v);
        if (!v)
            return -1;
        h->v = v;
        h->cap = cap;
    }
    int64_t c = h->n++;
    fv__ws_item16 x = *it;
    while (c > 0) {
        int64_t parent = (c - 1) >> 2;
        if (!fv__ws_heap16_smaller(&x, &h->v[parent]))
            break;
        h->v[c] = h->v[parent];
        c = parent;
    }
    h->v[c] = x;
    return 0;
}

static void
fv__ws_heap4_pop(fv__ws_heap4 *h, fv__ws_item16 *out)
{
    *out = h->v[0];
    if (--h->n == 0)
        return;
    fv__ws_item16 x = h->v[h->n];
    int64_t i = 0;
    for (;;) {
        int64_t c0 = 4 * i + 1;
        if (c0 >= h->n)
            break;
        int64_t end = c0 + 4 < h->n ? c0 + 4 : h->n, m = c0;
        for (int64_t c = c0 + 1; c < end; c++)
            if (fv__ws_heap16_smaller(&h->v[c], &h->v[m]))
                m = c;
        if (!fv__ws_heap16_smaller(&h->v[m], &x))
            break;
        h->v[i] = h->v[m];
        i = m;
    }
    h->v[i] = x;
}

static int
fv__ws_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* skimage's distance between raveled points: coordinates by division. */
static double
fv__ws_dist(int64_t a, int64_t b, const fv__watershed_params *p)
{
    double r = 0;
    for (int d = 0; d < p->ndim; d++) {
        double c = (double)(a / p->strides[d] - b / p->strides[d]);
        r += c * c;
        a %= p->strides[d];
        b %= p->strides[d];
    }
    return sqrt(r);
}

/* Watershed lines: 1 (and the pixel leaves the mask) when it is outside the
 * mask or an in-mask neighbour holds a nonzero label other than `label`. */
static int
fv__ws_on_line(const int64_t *lab, uint8_t *mask, int64_t n, const fv__watershed_params *p, int64_t i, int64_t label)
{
    if (!mask[i])
        return 1;
    for (int k = 0; k < p->nnb; k++) {
        int64_t j = i + p->nb[k];
        if (j < 0 || j >= n || !mask[j])
            continue;
        if (lab[j] && lab[j] != label) {
            mask[i] = 0;
            return 1;
        }
    }
    return 0;
}

/* The plain flood (no compactness, no lines) below 2^32 pixels: a pixel is
 * labelled when it is queued, from the pixel that queues it. */
#define FV__WS_PLAIN(NAME, HEAP)                                                             \
    static fv_status NAME(const double *img, const uint8_t *mask, int64_t *lab, int64_t n,   \
                          const fv__watershed_params *p)                                     \
    {                                                                                        \
        HEAP h = { 0 };                                                                      \
        fv__ws_item16 it, nw;                                                                \
        int64_t age = 1;                                                                     \
        for (int64_t i = 0; i < n; i++) {                                                    \
            if (!lab[i])                                                                     \
                continue;                                                                    \
            it = (fv__ws_item16){ .value = img[i], .age = 0, .index = (uint32_t)i };         \
            if (HEAP##_push(&h, &it))                                                        \
                goto oom;                                                                    \
        }                                                                                    \
        while (h.n > 0) {                                                                    \
            HEAP##_pop(&h, &it);                                                             \
            const int64_t i = it.index, l = lab[i];                                          \
            for (int k = 0; k < p->nnb; k++) {                                               \
                int64_t j = i + p->nb[k];                                                    \
                if (j < 0 || j >= n || !mask[j] || lab[j])                                   \
                    continue;                                                                \
                age++;                                                                       \
                lab[j] = l;                                                                  \
                nw.value = img[j] < it.value ? it.value : img[j];                            \
                nw.age = (int32_t)(uint32_t)(uint64_t)age;                                   \
                nw.index = (uint32_t)j;                                                      \
                if (HEAP##_push(&h, &nw))                                                    \
                    goto oom;                                                                \
            }                                                                                \
        }                                                                                    \
        fv__free(h.v);                                                                       \
        return FV_OK;                                                                        \
    oom:                                                                                     \
        fv__free(h.v);                                                                       \
        return fv_error_set(FV_ENOMEM, "watershed", "out of memory for the flooding queue"); \
    }

FV__WS_PLAIN(fv__ws_plain16, fv__ws_heap16)
FV__WS_PLAIN(fv__ws_plain4, fv__ws_heap4)

/* 1 when the queue order is strict: no NaN where the flood may go, no two
 * seeds of equal value (they would share age 0); -1 when out of memory. */
static int
fv__ws_strict(const double *img, const uint8_t *mask, const int64_t *lab, int64_t n)
{
    int64_t ns = 0;
    for (int64_t i = 0; i < n; i++) {
        if (mask[i] && img[i] != img[i])
            return 0;
        ns += lab[i] != 0;
    }
    if (ns < 2)
        return 1;
    double *v = fv__malloc(sizeof *v * (size_t)ns);
    if (!v)
        return -1;
    for (int64_t i = 0, k = 0; i < n; i++)
        if (lab[i])
            v[k++] = img[i];
    qsort(v, (size_t)ns, sizeof *v, fv__ws_cmp_double);
    int strict = 1;
    for (int64_t k = 1; k < ns && strict; k++)
        strict = v[k] != v[k - 1];
    fv__free(v);
    return strict;
}

fv_status
fv__cpu_watershed(fv_context *ctx, const fv__op_args *a)
{
    (void)ctx;
    const fv__watershed_params *p = a->params;
    const double *img = (const double *)a->in->data;
    uint8_t *mask = (uint8_t *)a->in2->data;
    int64_t *lab = (int64_t *)a->out->data;
    const int64_t n = fv_array_size(a->out);
    const int compact = p->compactness > 0, wsl = p->watershed_line;
    fv__ws_heap h = { 0 };
    fv__ws_item it, nw;
    int64_t age = 1;

    if (a->in->dtype != FV_FLOAT64 || !a->in2 || a->in2->dtype != FV_BOOL || a->out->dtype != FV_INT64)
        return fv_error_set(FV_EDTYPE, "watershed", "kernel needs float64 image, bool mask, int64 labels");

    for (int64_t i = 0; i < n; i++) /* seeds outside the mask are no seeds */
        if (lab[i] && !mask[i])
            lab[i] = 0;
    if (!compact && !wsl && (uint64_t)n <= UINT32_MAX) {
        int strict = fv__ws_strict(img, mask, lab, n);
        if (strict < 0)
            return fv_error_set(FV_ENOMEM, "watershed", "out of memory");
        return strict ? fv__ws_plain4(img, mask, lab, n, p) : fv__ws_plain16(img, mask, lab, n, p);
    }
    for (int64_t i = 0; i < n; i++) {
        if (!lab[i])
            continue;
        it = (fv__ws_item){ .value = img[i], .age = 0, .index = i, .source = i };
        if (fv__ws_heap_push(&h, &it))
            goto oom;
    }
    while (h.n > 0) {
        fv__ws_heap_pop(&h, &it);
        if (compact || wsl) {
            if (lab[it.index] && it.index != it.source)
                continue; /* reached earlier from another neighbour */
            /* a line pixel stays 0 but still passes the flood on */
            if (compact || !fv__ws_on_line(lab, mask, n, p, it.index, lab[it.source]))
                lab[it.index] = lab[it.source];
        }
        for (int k = 0; k < p->nnb; k++) {
            int64_t j = it.index + p->nb[k];
            if (j < 0 || j >= n || !mask[j] || lab[j])
                continue;
            age++;
            nw.value = img[j];
            if (compact)
                nw.value += p->compactness * fv__ws_dist(j, it.source, p);
            else if (!wsl)
                lab[j] = lab[it.index];
            if (nw.value < it.value) /* never below the level it is reached at */
                nw.value = it.value;
            nw.age = (int32_t)(uint32_t)(uint64_t)age;
            nw.index = j;
            nw.source = it.source;
            if (fv__ws_heap_push(&h, &nw))
                goto oom;
        }
    }
    fv__free(h.v);
    return FV_OK;
oom:
    fv__free(h.v);
    return fv_error_set(FV_ENOMEM, "watershed", "out of memory for the flooding queue");
}

FV_KERNEL(WATERSHED, CPU, FV_DTYPE_BIT(FV_FLOAT64) | FV_DTYPE_BIT(FV_BOOL) | FV_DTYPE_BIT(FV_INT64), FV_MAX_NDIM,
          fv__cpu_watershed);
