/* One pass of scipy's binary erosion (NI_BinaryErosion) on the CPU.
 *
 * out = AND over the structure's elements of (in != 0) at the element's
 * position, positions outside the image reading border_value; with invert the
 * AND becomes an OR (scipy's true/false swap). Where mask == 0 the output is
 * (in != 0). Work runs over the lines along the last axis, on the pool: the
 * structure is grouped by its offsets along the other axes, each group's input
 * row is read once into a 0/1 byte buffer, and every element of the group then
 * combines a shifted slice of it into the line's accumulator (byte loops the
 * compiler vectorises). */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "morphology-cpu.h"
#include "cast.h"

/* ---- rows as 0/1 bytes, and back -------------------------------------------------- */

#define FV__LOAD_FG_CASE(E, T, S)                             \
    case E:                                                   \
        if (stride == (int64_t)sizeof(T)) {                   \
            const T *restrict p = (const T *)src;             \
            for (int64_t i = 0; i < n; i++)                   \
                dst[i] = p[i] != 0;                           \
        } else {                                              \
            for (int64_t i = 0; i < n; i++)                   \
                dst[i] = *(const T *)(src + i * stride) != 0; \
        }                                                     \
        break;

/* dst[i] = (src[i] != 0) for n elements of dtype dt, stride bytes apart. */
static void
fv__load_fg(uint8_t *restrict dst, const char *src, int64_t stride, int64_t n, fv_dtype dt)
{
    switch (dt) {
        FV_FOREACH_DTYPE(FV__LOAD_FG_CASE)
    default:
        break;
    }
}

#define FV__STORE01_CASE(E, T, S)                   \
    case E:                                         \
        if (stride == (int64_t)sizeof(T)) {         \
            T *restrict p = (T *)dst;               \
            for (int64_t i = 0; i < n; i++)         \
                p[i] = (T)v[i];                     \
        } else {                                    \
            for (int64_t i = 0; i < n; i++)         \
                *(T *)(dst + i * stride) = (T)v[i]; \
        }                                           \
        break;

/* dst[i] = v[i] (0 or 1) converted to dtype dt. */
static void
fv__store01(char *dst, int64_t stride, const uint8_t *restrict v, int64_t n, fv_dtype dt)
{
    switch (dt) {
        FV_FOREACH_DTYPE(FV__STORE01_CASE)
    default:
        break;
    }
}

/* ---- the structure, grouped by its offsets along the outer axes ----------------- */

typedef struct fv__ero_group {
    int64_t od[FV_MAX_NDIM]; /* offsets along axes 0 .. ndim-2 */
    int64_t nel;
    int64_t *dx; /* offsets along the last axis, nel of them */
    int64_t dxmin, dxmax;
} fv__ero_group;

typedef struct fv__ero_job {
    int ndim;
    int64_t n; /* last extent */
    const int64_t *shape;
    const fv_array *in, *mask, *out;
    int ngroups;
    fv__ero_group *groups;
    int border, invert;
    int want_changed, want_same;
    atomic_int changed, differs, oom;
} fv__ero_job;

static void
fv__ero_range(void *arg, int64_t begin, int64_t end)
{
    fv__ero_job *j = arg;
    const int nd = j->ndim, last = nd - 1;
    const int64_t n = j->n;
    const fv_array *in = j->in, *out = j->out, *mask = j->mask;
    const int inv = j->invert, bv = j->border;
    const uint8_t neutral = inv ? 0 : 1; /* AND starts at 1, OR at 0 */
    /* the border decides a position whenever it is read: AND with 0 or OR with 1 */
    const int border_decides = inv ? bv : !bv;
    uint8_t *buf = malloc((size_t)n * 5);
    if (!buf) {
        atomic_store(&j->oom, 1);
        return;
    }
    uint8_t *row = buf, *acc = buf + n, *self = buf + 2 * n, *mrow = buf + 3 * n, *old = buf + 4 * n;
    int changed = 0, differs = 0;
    for (int64_t line = begin; line < end; line++) {
        int64_t x[FV_MAX_NDIM], rem = line;
        int64_t ioff = 0, ooff = 0, moff = 0;
        for (int d = last - 1; d >= 0; d--) {
            x[d] = rem % j->shape[d];
            rem /= j->shape[d];
            ioff += x[d] * in->strides[d];
            ooff += x[d] * out->strides[d];
            if (mask)
                moff += x[d] * mask->strides[d];
        }
        memset(acc, neutral, (size_t)n);
        int dead = 0; /* acc decided everywhere by the border */
        for (int g = 0; g < j->ngroups && !dead; g++) {
            const fv__ero_group *gr = &j->groups[g];
            int inside = 1;
            int64_t roff = ioff;
            for (int d = 0; d < last; d++) {
                int64_t c = x[d] + gr->od[d];
                if (c < 0 || c >= j->shape[d]) {
                    inside = 0;
                    break;
                }
                roff += gr->od[d] * in->strides[d];
            }
            if (!inside) {
                if (border_decides) {
                    memset(acc, inv ? 1 : 0, (size_t)n);
                    dead = 1;
                }
                continue;
            }
            fv__load_fg(row, in->data + roff, in->strides[last], n, in->dtype);
            for (int64_t e = 0; e < gr->nel; e++) {
                const int64_t dx = gr->dx[e];
                /* positions i with 0 <= i + dx < n read the row; the rest the border */
                int64_t lo = dx < 0 ? -dx : 0, hi = dx > 0 ? n - dx : n;
                if (lo > n)
                    lo = n;
                if (hi < lo)
                    hi = lo;
                if (border_decides) {
                    const uint8_t b = inv ? 1 : 0;
                    for (int64_t i = 0; i < lo; i++)
                        acc[i] = b;
                    for (int64_t i = hi; i < n; i++)
                        acc[i] = b;
                }
                if (hi <= lo)
                    continue;
                const uint8_t *restrict src = row + lo + dx; /* lo + dx >= 0 */
                uint8_t *restrict dst = acc + lo;
                const int64_t m = hi - lo;
                if (inv)
                    for (int64_t i = 0; i < m; i++)
                        dst[i] |= src[i];
                else
                    for (int64_t i = 0; i < m; i++)
                        dst[i] &= src[i];
            }
        }
        if (mask || j->want_changed) {
            fv__load_fg(self, in->data + ioff, in->strides[last], n, in->dtype);
            if (mask) {
                fv__load_fg(mrow, mask->data + moff, mask->strides[last], n, mask->dtype);
                for (int64_t i = 0; i < n; i++)
                    acc[i] = mrow[i] ? acc[i] : self[i];
            }
            if (j->want_changed && !changed) {
                uint8_t c = 0;
                for (int64_t i = 0; i < n; i++)
                    c |= acc[i] ^ self[i];
                changed = c != 0;
            }
        }
        if (j->want_same && !differs) {
            fv__load_fg(old, out->data + ooff, out->strides[last], n, out->dtype);
            uint8_t c = 0;
            for (int64_t i = 0; i < n; i++)
                c |= acc[i] ^ old[i];
            differs = c != 0;
        }
        fv__store01(out->data + ooff, out->strides[last], acc, n, out->dtype);
    }
    if (changed)
        atomic_store(&j->changed, 1);
    if (differs)
        atomic_store(&j->differs, 1);
    free(buf);
}

fv_status
fv__cpu_binary_erosion(fv_context *ctx, const fv__op_args *a)
{
    const char *name = "binary_erosion";
    const fv__binary_erosion_params *p = a->params;
    fv__ero_job j;
    fv_status st = FV_OK;
    int64_t *dxs = NULL;
    fv__ero_group *groups = NULL;

    if (!p || p->ndim != a->in->ndim || a->out->ndim != a->in->ndim)
        return fv_error_set(FV_EINTERNAL, name, "bad kernel parameters");
    memset(&j, 0, sizeof j);
    const int nd = p->ndim, last = nd - 1;
    int64_t ssize = 1, size = fv_array_size(a->in);
    for (int d = 0; d < nd; d++)
        ssize *= p->sshape[d];
    if (p->changed)
        *p->changed = 0;
    if (p->same_as_before)
        *p->same_as_before = 1;
    if (size == 0)
        return FV_OK;

    /* group the structure's elements by their offsets along axes 0 .. nd-2 */
    int64_t nsel = 0;
    for (int64_t k = 0; k < ssize; k++)
        nsel += p->structure[k] != 0;
    dxs = malloc(sizeof *dxs * (size_t)(nsel > 0 ? nsel : 1));
    int64_t ngroups_max = ssize / p->sshape[last];
    groups = calloc((size_t)ngroups_max, sizeof *groups);
    if (!dxs || !groups) {
        st = fv_error_set(FV_ENOMEM, name, "out of memory");
        goto done;
    }
    int ngroups = 0;
    int64_t used = 0;
    for (int64_t r = 0; r < ngroups_max; r++) { /* structure rows in C order */
        const uint8_t *srow = p->structure + r * p->sshape[last];
        int64_t cnt = 0;
        for (int64_t c = 0; c < p->sshape[last]; c++)
            cnt += srow[c] != 0;
        if (!cnt)
            continue;
        fv__ero_group *g = &groups[ngroups++];
        int64_t rem = r;
        for (int d = last - 1; d >= 0; d--) {
            int64_t jd = rem % p->sshape[d];
            rem /= p->sshape[d];
            g->od[d] = jd - p->sshape[d] / 2 - p->origins[d];
        }
        g->dx = dxs + used;
        for (int64_t c = 0; c < p->sshape[last]; c++)
            if (srow[c])
                g->dx[g->nel++] = c - p->sshape[last] / 2 - p->origins[last];
        used += g->nel;
    }

    j.ndim = nd;
    j.n = a->in->shape[last];
    j.shape = a->in->shape;
    j.in = a->in;
    j.mask = a->in2;
    j.out = a->out;
    j.ngroups = ngroups;
    j.groups = groups;
    j.border = p->border_value != 0;
    j.invert = p->invert != 0;
    j.want_changed = p->changed != NULL;
    j.want_same = p->same_as_before != NULL;
    atomic_init(&j.changed, 0);
    atomic_init(&j.differs, 0);
    atomic_init(&j.oom, 0);
    {
        int64_t lines = size / j.n;
        int64_t work = j.n * (nsel + 4);
        int64_t grain = work >= 65536 ? 1 : 65536 / work;
        fv__parallel_for(ctx, lines, grain, fv__ero_range, &j);
    }
    if (atomic_load(&j.oom)) {
        st = fv_error_set(FV_ENOMEM, name, "out of memory");
        goto done;
    }
    if (p->changed)
        *p->changed = atomic_load(&j.changed);
    if (p->same_as_before)
        *p->same_as_before = !atomic_load(&j.differs);
done:
    free(dxs);
    free(groups);
    return st;
}

FV_KERNEL(BINARY_EROSION, CPU, FV_DTYPES_ALL, FV_MAX_NDIM, fv__cpu_binary_erosion);
