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
 * holds. Sequential by nature, like scipy's.
 *
 * Distances alone with the taxicab or the chessboard structure (their first
 * halves: that is all the passes read) are the exact L1 / L-infinity distances to
 * the nearest zero (scipy's passes give exactly those; -1 everywhere without a
 * zero), and those separate by axes: per line, L1 by a forward and a backward
 * sweep (f(i) = min(g(i), f(i -/+ 1) + 1)), L-infinity, min_i max(|x - i|, g(i)),
 * by a forward and a backward sweep over monotone deques (fv__cdt_line_inf). Lines
 * go to the thread pool in blocks of neighbours (fv__cdt_axes); the integers equal
 * the passes' bit for bit. The first axis holds only 0 and inf, where both metrics
 * are the L1 sweeps. Chessboard takes this path with 2 threads or more (one
 * thread: ~1.3x the passes' time in 2-d); FOVEA_CDT_PATH=passes / axes forces one. */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "morphology-cpu.h"
#include "core/plan.h"

typedef struct fv__cdt_elem {
    int64_t delta[FV_MAX_NDIM];
    int64_t off; /* linear offset in C order */
} fv__cdt_elem;

/* Relax element pix (position i of its line of n) over the row's neighbour
 * offsets off[0..cnt) with last-axis steps dl[] (checked only when edge). */
static inline void
fv__cdt_relax(int32_t *dt, int64_t *ft, int64_t pix, int64_t i, int64_t n, const int64_t *off, const int64_t *dl,
              int cnt, int edge)
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
fv__cdt_pass(int nd, const int64_t *shape, int64_t size, int32_t *dt, int64_t *ft, const fv__cdt_elem *el, int nel,
             int dir, int64_t *off, int64_t *dl)
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

/* ---- distances alone, by axes ------------------------------------------------ */

/* The structure's first half (what the passes use): 1 taxicab (the elements one
 * step along one axis), 2 chessboard (all), 0 anything else. In 1-d both are the
 * same, and 1 is returned. */
static int
fv__cdt_metric(const uint8_t *st, int nd)
{
    int64_t ssize = 1;
    for (int d = 0; d < nd; d++)
        ssize *= 3;
    int taxi = 1, cheb = 1;
    for (int64_t k = 0; k < ssize / 2; k++) {
        int64_t rem = k;
        int steps = 0;
        for (int d = 0; d < nd; d++) {
            steps += rem % 3 != 1;
            rem /= 3;
        }
        const int on = st[k] != 0;
        taxi &= on == (steps == 1);
        cheb &= on;
    }
    return taxi ? 1 : cheb ? 2 : 0;
}

typedef struct fv__cdt_axjob {
    int32_t *g;         /* C-order working plane, in place */
    int64_t n, inner;   /* the axis' extent and the stride of its positions */
    int64_t nbr;        /* blocks of FV__CDT_B neighbouring lines per outer index */
    int metric;         /* 1 L1, 2 L-infinity */
    int32_t inf;        /* no zero yet: more than any distance */
    _Atomic int failed; /* a block had no memory for its L-infinity scratch */
} fv__cdt_axjob;

/* Lines go in blocks of up to FV__CDT_B neighbours (positions r .. r + B - 1 of
 * the inner index), so that every access walks rows of B contiguous words. */
#define FV__CDT_B 32

/* cone_i(x) = max(|x - i|, g(i)): site i's value at x. */
static inline int32_t
fv__cdt_cone(int64_t x, int32_t i, const int32_t *g)
{
    const int64_t a = x > i ? x - i : i - x;
    return a > g[i] ? (int32_t)a : g[i];
}

/* One line of n in g (contiguous): out[x] = min_i max(|x - i|, g(i)), as the
 * minimum of a forward and a backward sweep over the sites on each side, each a
 * monotone deque (dq: n entries). Forward: a new site i2 makes an earlier site
 * i1 useless for every x >= i2 when g(i2) <= cone_i1(i2) (popped from the back);
 * the sites left have increasing g, and the front, best now, gives way to the
 * next one for good once the next one's cone is no higher (popped from the
 * front): both cones are flat, then rise with slope 1, the later one lower. */
static void
fv__cdt_line_inf(const int32_t *g, int32_t *out, int64_t n, int32_t *dq)
{
    for (int dir = 1; dir >= -1; dir -= 2) {
        int64_t h = 0, t = 0; /* the deque: dq[h .. t) */
        for (int64_t k = 0; k < n; k++) {
            const int64_t x = dir > 0 ? k : n - 1 - k;
            while (t > h && g[x] <= fv__cdt_cone(x, dq[t - 1], g))
                t--;
            dq[t++] = (int32_t)x;
            while (t - h > 1 && fv__cdt_cone(x, dq[h + 1], g) <= fv__cdt_cone(x, dq[h], g))
                h++;
            const int32_t v = fv__cdt_cone(x, dq[h], g);
            if (dir > 0 || v < out[x])
                out[x] = v;
        }
    }
}

/* L1, one sweep (dir +1 forward, -1 backward) over nb lines abreast at base (rows
 * inner apart): f(i) = min(g(i), f(i - dir) + 1). */
static void
fv__cdt_sweep_l1(int32_t *base, int64_t n, int64_t inner, int nb, int32_t inf, int dir)
{
    int32_t f[FV__CDT_B];
    for (int b = 0; b < nb; b++)
        f[b] = inf;
    for (int64_t k = 0; k < n; k++) {
        int32_t *row = base + (dir > 0 ? k : n - 1 - k) * inner;
        for (int b = 0; b < nb; b++) {
            const int32_t v = row[b], w = f[b] + 1;
            f[b] = w < v ? w : v;
            row[b] = f[b];
        }
    }
}

static void
fv__cdt_lines(void *arg, int64_t k0, int64_t k1)
{
    fv__cdt_axjob *j = arg;
    const int64_t n = j->n, inner = j->inner;
    const int32_t inf = j->inf;
    /* L-infinity: B lines (a pitch off powers of two, or the transposing copies
     * alias in the cache and take most of the time), then the deque and out */
    const int64_t ld = n + 17;
    int32_t *buf = NULL;
    if (j->metric == 2 && !(buf = malloc(sizeof *buf * (size_t)(FV__CDT_B * ld + 2 * n)))) {
        atomic_store(&j->failed, 1);
        return;
    }
    for (int64_t k = k0; k < k1; k++) {
        const int64_t o = k / j->nbr, r0 = (k - o * j->nbr) * FV__CDT_B;
        const int nb = (int)(inner - r0 < FV__CDT_B ? inner - r0 : FV__CDT_B);
        int32_t *base = j->g + o * n * inner + r0;
        if (j->metric == 1) { /* L1: a forward and a backward sweep */
            fv__cdt_sweep_l1(base, n, inner, nb, inf, 1);
            fv__cdt_sweep_l1(base, n, inner, nb, inf, -1);
            continue;
        }
        /* L-infinity: the block's lines into buf (rows read whole), each line's
         * envelope, and back */
        int32_t *dq = buf + FV__CDT_B * ld, *out = dq + n;
        for (int64_t i = 0; i < n; i++) {
            const int32_t *row = base + i * inner;
            for (int b = 0; b < nb; b++)
                buf[b * ld + i] = row[b];
        }
        for (int b = 0; b < nb; b++) {
            fv__cdt_line_inf(buf + b * ld, out, n, dq);
            memcpy(buf + b * ld, out, sizeof *out * (size_t)n);
        }
        for (int64_t i = 0; i < n; i++) {
            int32_t *row = base + i * inner;
            for (int b = 0; b < nb; b++)
                row[b] = buf[b * ld + i];
        }
    }
    free(buf);
}

/* Distances alone by axes into dt (C order): 0 on zeros, inf (more than any
 * distance: 1 + the sum of the extents, below 2^31) elsewhere, then each axis; -1
 * everywhere when there is no zero. Returns 0 (dt undefined) when a block found no
 * memory for its scratch: the caller runs the passes instead. */
static int
fv__cdt_axes(fv_context *ctx, int nd, const int64_t *shape, int64_t size, const uint8_t *fg, int32_t *dt, int metric,
             int32_t inf)
{
    int any = 0;
    for (int64_t i = 0; i < size; i++) {
        dt[i] = fg[i] ? inf : 0;
        any |= !fg[i];
    }
    if (!any) {
        for (int64_t i = 0; i < size; i++)
            dt[i] = -1;
        return 1;
    }
    int64_t inner = size;
    int first = 1;
    for (int d = 0; d < nd; d++) {
        inner /= shape[d];
        if (shape[d] == 1)
            continue; /* nothing moves along an axis of one */
        /* on the first axis every value is 0 or inf, where max(|x - i|, g(i)) is
         * |x - i| + g(i): both metrics take the L1 sweeps there */
        const int m = first ? 1 : metric;
        first = 0;
        const int64_t nbr = (inner + FV__CDT_B - 1) / FV__CDT_B, blocks = size / shape[d] / inner * nbr;
        fv__cdt_axjob j = { .g = dt, .n = shape[d], .inner = inner, .nbr = nbr, .metric = m, .inf = inf };
        atomic_init(&j.failed, 0);
        /* blocks of at least ~64 Ki elements a chunk */
        const int64_t per = shape[d] * (inner < FV__CDT_B ? inner : FV__CDT_B);
        fv__parallel_for(ctx, blocks, (65536 + per - 1) / per, fv__cdt_lines, &j);
        if (atomic_load(&j.failed))
            return 0;
    }
    return 1;
}

/* The paths ("cpu.distance_transform_cdt"): "axes", by axes for taxicab
 * distances (less work than the passes) and for chessboard ones with 2 threads
 * or more (on one thread the deques' branches cost ~1.3x the passes' time in
 * 2-d, as much in 3-d): distances alone, extents within int32; "passes", the
 * raster passes, always. */
typedef struct fv__cdt_plan_args {
    int metric; /* fv__cdt_metric: 1 taxicab, 2 chessboard, 0 neither (or features, or too large) */
    int threads;
} fv__cdt_plan_args;

static int
fv__cdt_axes_ok(const void *args, int device)
{
    const fv__cdt_plan_args *pa = args;
    (void)device;
    return pa->metric == 1 || (pa->metric == 2 && pa->threads >= 2);
}

FV__VARIANTS(fv__cdt_variants, "cpu.distance_transform_cdt", { "axes", fv__cdt_axes_ok, NULL },
             { "passes", NULL, NULL })

fv_status
fv__cpu_cdt(fv_context *ctx, const fv__op_args *a)
{
    const char *name = "distance_transform_cdt";
    const fv__distance_params *p = a->params;
    const fv_array *fga = a->in; /* the foreground (ops/morphology/distance.h) */
    int32_t *dt = NULL;
    int64_t *ft = NULL;
    fv__cdt_elem *el = NULL;
    int64_t *offs = NULL;
    fv_status st = FV_OK;

    if (!p || p->ndim != a->in->ndim || !fv__distance_fg_ok(a->in))
        return fv_error_set(FV_EINTERNAL, name, "bad kernel parameters");
    const int nd = p->ndim;
    const int64_t size = fv_array_size(a->in);
    const int64_t *shape = a->in->shape;
    if (size == 0)
        return FV_OK;
    int64_t ssize = 1;
    for (int d = 0; d < nd; d++)
        ssize *= 3;
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
    /* the path (the planner's table "cpu.distance_transform_cdt") */
    int64_t ext = 1;
    for (int d = 0; d < nd; d++)
        ext += shape[d];
    fv__cdt_plan_args pa = { ft || ext >= INT32_MAX ? 0 : fv__cdt_metric(p->structure, nd), fv_context_threads(ctx) };
    const int metric = fv__plan_index(&fv__cdt_variants, &pa, -1) == 0 ? pa.metric : 0;
    if (!metric || !fv__cdt_axes(ctx, nd, shape, size, (const uint8_t *)fga->data, dt, metric, (int32_t)ext)) {
        const uint8_t *fg = (const uint8_t *)fga->data;
        for (int64_t i = 0; i < size; i++)
            dt[i] = fg[i] ? -1 : 0;
        if (ft)
            for (int64_t i = 0; i < size; i++)
                ft[i] = i;
        fv__cdt_pass(nd, shape, size, dt, ft, el, nel, +1, offs, offs + ssize / 2 + 1);
        fv__cdt_pass(nd, shape, size, dt, ft, el, nel, -1, offs, offs + ssize / 2 + 1);
    }

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
    return st;
}

FV_KERNEL(CDT, CPU, FV_DTYPES_ALL, FV_MAX_NDIM, fv__cpu_cdt);
