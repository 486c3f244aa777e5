/* The banded lower-envelope pass of the exact EDT (edt.cu), as host/device inline
 * functions so that tests/c/test_cuda_edt.c runs the same code on the CPU as a
 * model and checks it against the sequential per-line algorithm.
 *
 * A line's sites (positions i with a nearest zero so far, offset wR = squared
 * distance over the earlier axes) live in a list view: prv / nxt (int32) and swr
 * (double) at index i * st. prv[i] == -2 marks an element that is not (or no
 * longer) on any envelope; prv == -1 / nxt == -1 end a list.
 *
 *   build   each band of W positions runs the sequential stack algorithm (scipy's
 *           removal test, same operations) on its own sites: fv__edt_push /
 *           fv__edt_close give a linked list head..tail.
 *   merge   neighbouring groups of bands are merged pairwise, level by level:
 *           fv__edt_merge runs the sequential algorithm on the left list followed
 *           by the right list, which only pops the left list's tail and the right
 *           list's head, and stops once two right sites are on top (a right
 *           list's adjacent triples already passed the test).
 *   query   each band finds the site of its first position from any list site
 *           (fv__edt_entry), then walks as the sequential query does.
 *
 * Why the bits are the sequential algorithm's: only used when every quantity of
 * the removal test and of the distances is exact in double (edt.cu checks it:
 * sampling integers times a common power of two, (3 nd + 1) Lm^3 < 2^52). With
 * exact arithmetic the sequential stack on any sequence of sites ends with the
 * sites whose parabola touches the lower envelope somewhere (popped sites lie
 * strictly above min(neighbours) everywhere; kept adjacent triples have ordered
 * crossings, so each kept site is least on a nonempty interval). That set does
 * not depend on how the sites are grouped: a site touching the whole envelope
 * touches its group's, so the merge of group envelopes ends with the same set.
 * The query walk then gives at i the least-position site of least distance
 * (crossings ordered; ties keep the earlier site), whatever the start, and the
 * same delta = wR + ((site - i) * s)^2, hence the same sqrt. */
#ifndef FV_CUDA_EDT_BAND_H
#define FV_CUDA_EDT_BAND_H

#include <stdint.h>

#ifdef __CUDACC__
#define FV_EDT_HD static __host__ __device__ __forceinline__
#ifdef __CUDA_ARCH__
#define FV_EDT_MUL(a, b) __dmul_rn((a), (b))
#define FV_EDT_ADD(a, b) __dadd_rn((a), (b))
#define FV_EDT_SUB(a, b) __dsub_rn((a), (b))
#endif
#else
#define FV_EDT_HD static inline
#endif
#ifndef FV_EDT_MUL
#define FV_EDT_MUL(a, b) ((a) * (b))
#define FV_EDT_ADD(a, b) ((a) + (b))
#define FV_EDT_SUB(a, b) ((a) - (b))
#endif

#define FV_EDT_DEAD (-2)

typedef struct fv__edt_list {
    int32_t *prv, *nxt;
    double *swr;
    int64_t st; /* index of position i: i * st */
} fv__edt_list;

/* scipy's removal test for the middle of sites u < v < w (offsets uR, vR, wR). */
FV_EDT_HD int
fv__edt_pop(int32_t u, int32_t v, int32_t w, double uR, double vR, double wR, double sd)
{
    double f1 = (double)v;
    double A = FV_EDT_MUL(FV_EDT_SUB(f1, (double)u), sd);
    double B = FV_EDT_MUL(FV_EDT_SUB((double)w, f1), sd);
    double C = FV_EDT_ADD(A, B);
    double val = FV_EDT_SUB(FV_EDT_SUB(FV_EDT_SUB(FV_EDT_MUL(C, vR), FV_EDT_MUL(B, uR)), FV_EDT_MUL(A, wR)),
                            FV_EDT_MUL(FV_EDT_MUL(A, B), C));
    return val > 0.0;
}

/* ((site - i) * sd)^2 + sw, the sequential query's delta. */
FV_EDT_HD double
fv__edt_delta(int32_t site, int64_t i, double sw, double sd)
{
    double t = FV_EDT_MUL((double)((int64_t)site - i), sd);
    return FV_EDT_ADD(sw, FV_EDT_MUL(t, t));
}

/* Band build: push site i (offset wR) onto the stack whose top is *top (-1: empty). */
FV_EDT_HD void
fv__edt_push(const fv__edt_list *l, int32_t i, double wR, double sd, int32_t *top, double *topR)
{
    int32_t t = *top;
    double tR = *topR;
    while (t >= 0) {
        int32_t u = l->prv[t * l->st];
        if (u < 0)
            break;
        double uR = l->swr[u * l->st];
        if (!fv__edt_pop(u, t, i, uR, tR, wR, sd))
            break;
        l->prv[t * l->st] = FV_EDT_DEAD;
        t = u;
        tR = uR;
    }
    l->prv[(int64_t)i * l->st] = t;
    l->swr[(int64_t)i * l->st] = wR;
    *top = i;
    *topR = wR;
}

/* Band build done: forward links; returns the head (top < 0: -1). */
FV_EDT_HD int32_t
fv__edt_close(const fv__edt_list *l, int32_t top)
{
    if (top < 0)
        return -1;
    int32_t c = top, p;
    l->nxt[(int64_t)c * l->st] = -1;
    while ((p = l->prv[(int64_t)c * l->st]) >= 0) {
        l->nxt[(int64_t)p * l->st] = c;
        c = p;
    }
    return c;
}

/* Merge the lists (hl..tl) and (hr..tr), every left site before every right one;
 * either may be empty (-1). Returns the merged head and tail. */
FV_EDT_HD void
fv__edt_merge(const fv__edt_list *l, int32_t hl, int32_t tl, int32_t hr, int32_t tr, double sd, int32_t *h, int32_t *t)
{
    if (hl < 0 || hr < 0) {
        *h = hl < 0 ? hr : hl;
        *t = tr < 0 ? tl : tr;
        return;
    }
    const int64_t st = l->st;
    int32_t p = tl, q = hr;
    double pR = l->swr[p * st], qR = l->swr[q * st];
    int32_t pp = l->prv[p * st];
    /* push q: pop the left list's tail */
    while (pp >= 0) {
        double ppR = l->swr[pp * st];
        if (!fv__edt_pop(pp, p, q, ppR, pR, qR, sd))
            break;
        l->prv[p * st] = FV_EDT_DEAD;
        p = pp;
        pR = ppR;
        pp = l->prv[p * st];
    }
    for (;;) {
        int32_t qn = l->nxt[q * st];
        if (qn < 0)
            break;
        double qnR = l->swr[qn * st];
        if (!fv__edt_pop(p, q, qn, pR, qR, qnR, sd))
            break; /* two right sites on top: the rest of the right list stays */
        l->prv[q * st] = FV_EDT_DEAD;
        q = qn;
        qR = qnR;
        while (pp >= 0) {
            double ppR = l->swr[pp * st];
            if (!fv__edt_pop(pp, p, q, ppR, pR, qR, sd))
                break;
            l->prv[p * st] = FV_EDT_DEAD;
            p = pp;
            pR = ppR;
            pp = l->prv[p * st];
        }
    }
    l->nxt[p * st] = q;
    l->prv[q * st] = p;
    *h = hl;
    *t = tr;
}

/* The sequential query's site at position i0, from any site e of the final list:
 * back while the previous site is at least as near, then on while the next one is
 * strictly nearer. */
FV_EDT_HD int32_t
fv__edt_entry(const fv__edt_list *l, int32_t e, int64_t i0, double sd)
{
    const int64_t st = l->st;
    double de = fv__edt_delta(e, i0, l->swr[e * st], sd);
    int32_t o;
    while ((o = l->prv[e * st]) >= 0) {
        double d = fv__edt_delta(o, i0, l->swr[o * st], sd);
        if (!(d <= de))
            break;
        e = o;
        de = d;
    }
    while ((o = l->nxt[e * st]) >= 0) {
        double d = fv__edt_delta(o, i0, l->swr[o * st], sd);
        if (!(d < de))
            break;
        e = o;
        de = d;
    }
    return e;
}

#endif
