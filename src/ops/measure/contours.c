/* fv_find_contours (skimage.measure.find_contours): validate, extract the
 * marching-squares segments (the op CONTOURS, cpu/measure/contours-cpu.c), join them.
 *
 * Joining walks the segments in raster order with two maps from a point to
 * a contour: `starts` (contours that begin there) and `ends` (contours that
 * end there). For a segment a -> b (skipped when a == b): the contour
 * starting at b (tail) and the one ending at a (head) are taken out of the
 * maps; both found: the same contour closes (b appended), otherwise the
 * younger of the two is appended to the older one and dropped; only tail:
 * a is prepended to it; only head: b is appended to it; neither: a new
 * contour a, b. The surviving contours are returned in order of creation.
 * These are scikit-image 0.26's joining rules, so points, order and
 * orientation match it exactly; contours are separate growable buffers
 * (copied on joining) so that even degenerate inputs, where several
 * segments share an end point and a map entry is replaced, behave the same.
 */
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "fovea/contours.h"
#include "ops/measure/contours.h"

/* ---- a contour: points in buf[lo .. hi), growing at both ends ------------- */

typedef struct {
    double *buf;         /* pairs */
    int64_t cap, lo, hi; /* in points */
    int alive;
} fv__contour;

static int
fv__ct_reserve(fv__contour *c, int64_t front, int64_t back)
{
    if (c->lo >= front && c->cap - c->hi >= back)
        return 0;
    const int64_t n = c->hi - c->lo;
    int64_t cap = 2 * (n + front + back) + 8;
    double *buf = malloc((size_t)cap * 2 * sizeof(double));
    if (!buf)
        return -1;
    const int64_t lo = (cap - n) / 2; /* room at both ends */
    if (n)
        memcpy(buf + 2 * lo, c->buf + 2 * c->lo, (size_t)n * 2 * sizeof(double));
    free(c->buf);
    c->buf = buf;
    c->cap = cap;
    c->lo = lo;
    c->hi = lo + n;
    return 0;
}

static int
fv__ct_append(fv__contour *c, const double *pts, int64_t n)
{
    if (fv__ct_reserve(c, 0, n))
        return -1;
    memcpy(c->buf + 2 * c->hi, pts, (size_t)n * 2 * sizeof(double));
    c->hi += n;
    return 0;
}

static int
fv__ct_prepend(fv__contour *c, const double *pts, int64_t n)
{
    if (fv__ct_reserve(c, n, 0))
        return -1;
    c->lo -= n;
    memcpy(c->buf + 2 * c->lo, pts, (size_t)n * 2 * sizeof(double));
    return 0;
}

/* ---- point -> contour id map: linear probing, backward-shift deletion ----- */

typedef struct {
    double r, c;
    int64_t id; /* -1: empty */
} fv__pslot;

typedef struct {
    fv__pslot *s;
    uint64_t mask;
} fv__pmap;

static inline uint64_t
fv__dbits(double x)
{
    uint64_t u;
    x += 0.0; /* -0.0 -> 0.0: equal keys hash alike */
    memcpy(&u, &x, sizeof u);
    return u;
}

static inline uint64_t
fv__phash(double r, double c)
{
    uint64_t h = fv__dbits(r) * 0x9e3779b97f4a7c15ull ^ fv__dbits(c);
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 29;
    return h;
}

static int
fv__pmap_init(fv__pmap *m, int64_t nmax)
{
    uint64_t cap = 16;
    while (cap < (uint64_t)nmax * 2)
        cap <<= 1;
    m->s = malloc(cap * sizeof *m->s);
    if (!m->s)
        return -1;
    for (uint64_t i = 0; i < cap; i++)
        m->s[i].id = -1;
    m->mask = cap - 1;
    return 0;
}

static inline uint64_t
fv__pmap_find(const fv__pmap *m, double r, double c)
{
    uint64_t i = fv__phash(r, c) & m->mask;
    while (m->s[i].id >= 0 && !(m->s[i].r == r && m->s[i].c == c))
        i = (i + 1) & m->mask;
    return i;
}

static inline void
fv__pmap_set(fv__pmap *m, double r, double c, int64_t id)
{
    uint64_t i = fv__pmap_find(m, r, c);
    m->s[i] = (fv__pslot){ r, c, id };
}

/* Remove the point's entry; its id, or -1 when absent. */
static int64_t
fv__pmap_pop(fv__pmap *m, double r, double c)
{
    uint64_t i = fv__pmap_find(m, r, c);
    const int64_t id = m->s[i].id;
    if (id < 0)
        return -1;
    /* backward shift: move later members of the probe run into the hole */
    uint64_t hole = i, j = i;
    for (;;) {
        j = (j + 1) & m->mask;
        if (m->s[j].id < 0)
            break;
        const uint64_t home = fv__phash(m->s[j].r, m->s[j].c) & m->mask;
        /* j's entry may move to hole when home is not cyclically in (hole, j] */
        if (((j - home) & m->mask) >= ((j - hole) & m->mask)) {
            m->s[hole] = m->s[j];
            hole = j;
        }
    }
    m->s[hole].id = -1;
    return id;
}

/* ---- joining -------------------------------------------------------------- */

static fv_status
fv__join(const fv__cseg *seg, int64_t nseg, fv_contours **out)
{
    const char *name = "find_contours";
    fv__contour *cs = NULL;
    fv__pmap starts = { 0 }, ends = { 0 };
    fv_contours *res = NULL;
    int64_t ncs = 0;
    fv_status st = FV_OK;

    if (nseg > 0 &&
        (!(cs = calloc((size_t)nseg, sizeof *cs)) || fv__pmap_init(&starts, nseg) || fv__pmap_init(&ends, nseg))) {
        st = fv_error_set(FV_ENOMEM, name, "out of memory");
        goto done;
    }
    for (int64_t k = 0; k < nseg; k++) {
        const double fr = seg[k].r0, fc = seg[k].c0, tr = seg[k].r1, tc = seg[k].c1;
        if (fr == tr && fc == tc)
            continue;
        const int64_t tail = fv__pmap_pop(&starts, tr, tc);
        const int64_t head = fv__pmap_pop(&ends, fr, fc);
        int bad = 0;
        if (tail >= 0 && head >= 0) {
            fv__contour *h = &cs[head], *t = &cs[tail];
            if (tail == head) {
                const double p[2] = { tr, tc };
                bad = fv__ct_append(h, p, 1);
            } else if (tail > head) { /* the tail joins the older head */
                bad = fv__ct_append(h, t->buf + 2 * t->lo, t->hi - t->lo);
                t->alive = 0;
                if (!bad) {
                    fv__pmap_set(&starts, h->buf[2 * h->lo], h->buf[2 * h->lo + 1], head);
                    fv__pmap_set(&ends, h->buf[2 * (h->hi - 1)], h->buf[2 * (h->hi - 1) + 1], head);
                }
            } else { /* the head joins the older tail */
                bad = fv__ct_prepend(t, h->buf + 2 * h->lo, h->hi - h->lo);
                if (!bad) {
                    fv__pmap_pop(&starts, h->buf[2 * h->lo], h->buf[2 * h->lo + 1]);
                    h->alive = 0;
                    fv__pmap_set(&starts, t->buf[2 * t->lo], t->buf[2 * t->lo + 1], tail);
                    fv__pmap_set(&ends, t->buf[2 * (t->hi - 1)], t->buf[2 * (t->hi - 1) + 1], tail);
                }
            }
        } else if (tail < 0 && head < 0) {
            const double p[4] = { fr, fc, tr, tc };
            fv__contour *c = &cs[ncs];
            c->alive = 1;
            bad = fv__ct_append(c, p, 2);
            fv__pmap_set(&starts, fr, fc, ncs);
            fv__pmap_set(&ends, tr, tc, ncs);
            ncs++;
        } else if (head < 0) {
            const double p[2] = { fr, fc };
            bad = fv__ct_prepend(&cs[tail], p, 1);
            fv__pmap_set(&starts, fr, fc, tail);
        } else {
            const double p[2] = { tr, tc };
            bad = fv__ct_append(&cs[head], p, 1);
            fv__pmap_set(&ends, tr, tc, head);
        }
        if (bad) {
            st = fv_error_set(FV_ENOMEM, name, "out of memory");
            goto done;
        }
    }

    int64_t count = 0, npts = 0;
    for (int64_t k = 0; k < ncs; k++)
        if (cs[k].alive) {
            count++;
            npts += cs[k].hi - cs[k].lo;
        }
    if (!(res = calloc(1, sizeof *res)) || !(res->offsets = malloc((size_t)(count + 1) * sizeof(int64_t))) ||
        !(res->points = malloc((size_t)(npts > 0 ? npts : 1) * 2 * sizeof(double)))) {
        st = fv_error_set(FV_ENOMEM, name, "out of memory");
        goto done;
    }
    res->count = count;
    res->offsets[0] = 0;
    for (int64_t k = 0, i = 0; k < ncs; k++) {
        if (!cs[k].alive)
            continue;
        const int64_t n = cs[k].hi - cs[k].lo;
        memcpy(res->points + 2 * res->offsets[i], cs[k].buf + 2 * cs[k].lo, (size_t)n * 2 * sizeof(double));
        res->offsets[i + 1] = res->offsets[i] + n;
        i++;
    }
    *out = res;
    res = NULL;
done:
    fv_contours_free(res);
    if (cs)
        for (int64_t k = 0; k < nseg; k++)
            free(cs[k].buf);
    free(cs);
    free(starts.s);
    free(ends.s);
    return st;
}

void
fv_contours_free(fv_contours *c)
{
    if (!c)
        return;
    free(c->offsets);
    free(c->points);
    free(c);
}

fv_status
fv_find_contours(fv_context *ctx, const fv_array *image, const fv_array *mask, double level, int fully_connected_high,
                 fv_contours **out)
{
    const char *name = "find_contours";
    if (!out)
        return fv_error_set(FV_EINVAL, name, "NULL out");
    *out = NULL;
    if (!image)
        return fv_error_set(FV_EINVAL, name, "NULL image");
    if (image->ndim != 2)
        return fv_error_set(FV_EINVAL, name, "image must be 2-d, got %d-d", image->ndim);
    if (image->shape[0] < 2 || image->shape[1] < 2)
        return fv_error_set(FV_EINVAL, name, "image must be at least 2 x 2, got %lld x %lld",
                            (long long)image->shape[0], (long long)image->shape[1]);
    if (image->dtype != FV_FLOAT64)
        return fv_error_set(FV_EDTYPE, name, "image must be float64, got %s", fv_dtype_name(image->dtype));
    if (image->device.type != FV_DEVICE_CPU)
        return fv_error_set(FV_EDEVICE, name, "image must be in host memory (contours are found on the CPU)");
    if (mask) {
        if (!fv__array_same_shape(image, mask))
            return fv_error_set(FV_EINVAL, name, "mask must have the image's shape");
        if (mask->dtype != FV_BOOL && mask->dtype != FV_UINT8)
            return fv_error_set(FV_EDTYPE, name, "mask must be bool or uint8, got %s", fv_dtype_name(mask->dtype));
        if (mask->device.type != FV_DEVICE_CPU)
            return fv_error_set(FV_EDEVICE, name, "mask must be in host memory");
    }
    fv__cseg *seg = NULL;
    int64_t nseg = 0;
    const fv__contours_params p = { level, fully_connected_high != 0, &seg, &nseg };
    fv_status st = fv__run_CONTOURS(ctx, image, mask, NULL, &p);
    if (st == FV_OK)
        st = fv__join(seg, nseg, out);
    free(seg);
    return st;
}
