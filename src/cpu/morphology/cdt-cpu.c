/* Chamfer distance transform on the CPU (scipy.ndimage.distance_transform_cdt).
 *
 * scipy's two raster passes (NI_DistanceTransformOnePass run on the array and
 * then on its reverse): distances start at 0 on zeros and -1 elsewhere, and the
 * features at each element's own linear index. The forward pass visits the
 * elements in C order and lets each nonzero one take 1 + the least distance
 * (>= 0) among the neighbours that the first half of the structure (the elements
 * before its centre, in C order) points at; the backward pass visits them in
 * reverse order with the offsets negated. Ties go to the first such neighbour
 * in structure order; a neighbour must be strictly better than what the element
 * holds. Sequential by nature, like scipy's. */
#include <stdlib.h>
#include <string.h>
#include "morphology-cpu.h"

typedef struct fv__cdt_elem {
    int64_t delta[FV_MAX_NDIM];
    int64_t off;   /* linear offset in C order */
} fv__cdt_elem;

/* Relax element pix (position i of its line of n) over the row's neighbour
 * offsets off[0..cnt) with last-axis steps dl[] (checked only when edge). */
static inline void
fv__cdt_relax(int32_t *dt, int64_t *ft, int64_t pix, int64_t i, int64_t n, const int64_t *off,
              const int64_t *dl, int cnt, int edge)
{
    int32_t best = dt[pix];
    int64_t from = -1;
    for (int e = 0; e < cnt; e++) {
        if (edge && (i + dl[e] < 0 || i + dl[e] >= n))
            continue;
        int32_t tt = dt[pix + off[e]];
        if (tt >= 0 && (best < 0 || tt + 1 < best)) {
            best = tt + 1;
            from = pix + off[e];
        }
    }
    dt[pix] = best;
    if (ft && from >= 0)
        ft[pix] = ft[from];
}

/* One raster pass. dir = +1: forward with the offsets as given; -1: backward with
 * them negated. ft may be NULL. off, dl: scratch for nel entries. */
static void
fv__cdt_pass(int nd, const int64_t *shape, int64_t size, int32_t *dt, int64_t *ft, const fv__cdt_elem *el,
             int nel, int dir, int64_t *off, int64_t *dl)
{
    const int last = nd - 1;
    const int64_t n = shape[last], lines = size / n;
    for (int64_t k = 0; k < lines; k++) {
        const int64_t line = dir > 0 ? k : lines - 1 - k;
        int64_t x[FV_MAX_NDIM], rem = line;
        for (int d = last - 1; d >= 0; d--) {
            x[d] = rem % shape[d];
            rem /= shape[d];
        }
        /* the elements whose neighbour row lies inside along the outer axes, in order */
        int cnt = 0;
        for (int e = 0; e < nel; e++) {
            int ok = 1;
            for (int d = 0; d < last && ok; d++) {
                int64_t c = x[d] + dir * el[e].delta[d];
                ok = c >= 0 && c < shape[d];
            }
            if (ok) {
                off[cnt] = dir * el[e].off;
                dl[cnt] = dir * el[e].delta[last];
                cnt++;
            }
        }
        if (!cnt)
            continue;
        const int64_t base = line * n;
        if (n <= 2) {
            for (int64_t t = 0; t < n; t++) {
                const int64_t i = dir > 0 ? t : n - 1 - t;
                if (dt[base + i])
                    fv__cdt_relax(dt, ft, base + i, i, n, off, dl, cnt, 1);
            }
            continue;
        }
        /* the first and last position of the line check the last-axis step */
        const int64_t i0 = dir > 0 ? 0 : n - 1, i1 = dir > 0 ? n - 1 : 0;
        if (dt[base + i0])
            fv__cdt_relax(dt, ft, base + i0, i0, n, off, dl, cnt, 1);
        if (dir > 0) {
            for (int64_t i = 1; i < n - 1; i++)
                if (dt[base + i])
                    fv__cdt_relax(dt, ft, base + i, i, n, off, dl, cnt, 0);
        } else {
            for (int64_t i = n - 2; i >= 1; i--)
                if (dt[base + i])
                    fv__cdt_relax(dt, ft, base + i, i, n, off, dl, cnt, 0);
        }
        if (dt[base + i1])
            fv__cdt_relax(dt, ft, base + i1, i1, n, off, dl, cnt, 1);
    }
}

fv_status
fv__cpu_cdt(fv_context *ctx, const fv__op_args *a)
{
    const char *name = "distance_transform_cdt";
    const fv__distance_params *p = a->params;
    fv_array *fga = NULL;
    int32_t *dt = NULL;
    int64_t *ft = NULL;
    fv__cdt_elem *el = NULL;
    int64_t *offs = NULL;
    fv_status st = FV_OK;

    if (!p || p->ndim != a->in->ndim)
        return fv_error_set(FV_EINTERNAL, name, "bad kernel parameters");
    const int nd = p->ndim;
    const int64_t size = fv_array_size(a->in);
    const int64_t *shape = a->in->shape;
    if (size == 0)
        return FV_OK;
    int64_t ssize = 1;
    for (int d = 0; d < nd; d++)
        ssize *= 3;
    if ((st = fv__cpu_foreground(ctx, name, a->in, &fga)))
        return st;
    dt = malloc(sizeof *dt * (size_t)size);
    if (p->indices)
        ft = malloc(sizeof *ft * (size_t)size);
    el = malloc(sizeof *el * (size_t)(ssize / 2 + 1));
    offs = malloc(sizeof *offs * 2 * (size_t)(ssize / 2 + 1));
    if (!dt || (p->indices && !ft) || !el || !offs) {
        st = fv_error_set(FV_ENOMEM, name, "out of memory");
        goto done;
    }
    /* the first half of the structure, in C order */
    int nel = 0;
    for (int64_t k = 0; k < ssize / 2; k++) {
        if (!p->structure[k])
            continue;
        int64_t rem = k, off = 0, stride = 1;
        for (int d = nd - 1; d >= 0; d--) {
            el[nel].delta[d] = rem % 3 - 1;
            rem /= 3;
            off += el[nel].delta[d] * stride;
            stride *= shape[d];
        }
        el[nel].off = off;
        nel++;
    }
    {
        const uint8_t *fg = (const uint8_t *)fga->data;
        for (int64_t i = 0; i < size; i++)
            dt[i] = fg[i] ? -1 : 0;
        if (ft)
            for (int64_t i = 0; i < size; i++)
                ft[i] = i;
    }
    fv__cdt_pass(nd, shape, size, dt, ft, el, nel, +1, offs, offs + ssize / 2 + 1);
    fv__cdt_pass(nd, shape, size, dt, ft, el, nel, -1, offs, offs + ssize / 2 + 1);

    /* outputs */
    {
        const int last = nd - 1;
        const int64_t n = shape[last], lines = size / n;
        fv_array *D = p->distances, *I = p->indices;
        for (int64_t line = 0; line < lines; line++) {
            int64_t x[FV_MAX_NDIM], rem = line, doff = 0, ioff = 0;
            for (int d = last - 1; d >= 0; d--) {
                x[d] = rem % shape[d];
                rem /= shape[d];
                if (D)
                    doff += x[d] * D->strides[d];
                if (I)
                    ioff += x[d] * I->strides[d + 1];
            }
            for (int64_t i = 0; i < n; i++) {
                int64_t pix = line * n + i;
                if (D)
                    *(int32_t *)(D->data + doff + i * D->strides[last]) = dt[pix];
                if (I) {
                    int64_t f = ft[pix];
                    for (int d = nd - 1; d >= 0; d--) {
                        *(int32_t *)(I->data + ioff + i * I->strides[last + 1] + d * I->strides[0]) =
                            (int32_t)(f % shape[d]);
                        f /= shape[d];
                    }
                }
            }
        }
    }
done:
    free(dt);
    free(ft);
    free(el);
    free(offs);
    fv_array_unref(fga);
    (void)ctx;
    return st;
}
