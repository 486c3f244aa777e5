/* CPU kernel of FV__OP_SKELETON_LEE: the 3-d thinning of Lee, Kashyap and Chu
 * (1994) as scikit-image's skeletonize(method="lee") runs it (its
 * _compute_thin_image, after Arganda-Carreras' Skeletonize3D): on a copy padded
 * by one zero voxel, rounds over the border directions W, E, S, N (then U, B
 * in 3-d); per direction the border voxels that are no end point, keep the
 * Euler characteristic (the octant table of Lee's Table 2) and are simple (one
 * 26-connected component of foreground among their 26 neighbours) become
 * candidates, then each candidate is removed when it is still simple in the
 * current image. The candidates of a direction are found in parallel (rows over
 * the thread pool); the recheck is sequential by nature. */
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "ops/morphology/thin.h"

/* delta G_26 of Lee's Table 2 for the odd octant codes 1, 3, ..., 255 */
static const int8_t fv__lee_euler[128] = {
    1,  -1, -1, 1, -3, -1, -1, 1, -1, 1, 1, -1, 3, 1, 1, -1, -3, -1, 3, 1, 1, -1, 3, 1, -1, 1, 1, -1, 3, 1, 1, -1,
    -3, 3,  -1, 1, 1,  3,  -1, 1, -1, 1, 1, -1, 3, 1, 1, -1, 1,  3,  3, 1, 5, 3,  3, 1, -1, 1, 1, -1, 3, 1, 1, -1,
    -7, -1, -1, 1, -3, -1, -1, 1, -1, 1, 1, -1, 3, 1, 1, -1, -3, -1, 3, 1, 1, -1, 3, 1, -1, 1, 1, -1, 3, 1, 1, -1,
    -3, 3,  -1, 1, 1,  3,  -1, 1, -1, 1, 1, -1, 3, 1, 1, -1, 1,  3,  3, 1, 5, 3,  3, 1, -1, 1, 1, -1, 3, 1, 1, -1
};

/* The 27 neighbourhood positions: 9 (dp + 1) + 3 (dc + 1) + (dr + 1), the
 * centre is 13. Per octant the seven positions of its code, high bit first. */
static const uint8_t fv__lee_octant[8][7] = { { 2, 1, 11, 10, 5, 4, 14 },     { 0, 9, 3, 12, 1, 10, 4 },
                                              { 8, 7, 17, 16, 5, 4, 14 },     { 6, 15, 7, 16, 3, 12, 4 },
                                              { 20, 23, 19, 22, 11, 14, 10 }, { 18, 21, 9, 12, 19, 22, 10 },
                                              { 26, 23, 17, 14, 25, 22, 16 }, { 24, 25, 15, 16, 21, 22, 12 } };

typedef struct fv__lee {
    uint8_t *img;     /* padded, 0 / 1 */
    int64_t P, R, C;  /* padded extents */
    int64_t off[27];  /* flat offsets of the 27 positions */
    uint32_t adj[27]; /* 26-adjacency among the positions, centre left out */
} fv__lee;

static uint32_t
fv__lee_bits(const fv__lee *L, int64_t i)
{
    uint32_t m = 0;
    for (int k = 0; k < 27; k++)
        m |= (uint32_t)L->img[i + L->off[k]] << k;
    return m;
}

static int
fv__lee_euler_invariant(uint32_t m)
{
    int e = 0;
    for (int o = 0; o < 8; o++) {
        unsigned n = 1;
        for (int j = 0; j < 7; j++)
            n |= ((m >> fv__lee_octant[o][j]) & 1u) << (7 - j);
        e += fv__lee_euler[n >> 1];
    }
    return e == 0;
}

/* At most one 26-connected component among the set neighbours. */
static int
fv__lee_simple(const fv__lee *L, uint32_t m)
{
    m &= ~(1u << 13);
    int comps = 0;
    while (m) {
        uint32_t comp = m & (~m + 1u), grow;
        for (;;) {
            grow = comp;
            for (uint32_t b = comp; b; b &= b - 1)
                grow |= L->adj[__builtin_ctz(b)] & m;
            if (grow == comp)
                break;
            comp = grow;
        }
        if (++comps > 1)
            return 0;
        m &= ~comp;
    }
    return 1;
}

static int
fv__lee_popcount(uint32_t m)
{
    int n = 0;
    for (; m; m &= m - 1)
        n++;
    return n;
}

/* One direction's candidates, rows of the padded volume over the thread pool:
 * flag[i] = 1 where voxel i is a border voxel in direction step, no end point,
 * Euler invariant and simple. */
typedef struct fv__lee_job {
    const fv__lee *L;
    int64_t step;
    uint8_t *flag;
} fv__lee_job;

static void
fv__lee_rows(void *arg, int64_t begin, int64_t end)
{
    const fv__lee_job *j = arg;
    const fv__lee *L = j->L;
    for (int64_t row = begin; row < end; row++) {
        const int64_t p = 1 + row / (L->R - 2), r = 1 + row % (L->R - 2);
        for (int64_t c = 1; c < L->C - 1; c++) {
            const int64_t i = (p * L->R + r) * L->C + c;
            uint8_t cand = 0;
            if (L->img[i] == 1 && L->img[i + j->step] == 0) {
                const uint32_t m = fv__lee_bits(L, i);
                cand = fv__lee_popcount(m) != 2 && fv__lee_euler_invariant(m) && fv__lee_simple(L, m);
            }
            j->flag[i] = cand;
        }
    }
}

fv_status
fv__cpu_skeleton_lee(fv_context *ctx, const fv__op_args *a)
{
    const fv_array *in = a->in;
    const int three = in->ndim == 3;
    const int64_t P0 = three ? in->shape[0] : 1, R0 = in->shape[three], C0 = in->shape[three + 1];
    fv__lee L = { .P = P0 + 2, .R = R0 + 2, .C = C0 + 2 };
    const int64_t n = L.P * L.R * L.C;
    uint8_t *flag = NULL;

    if (!(L.img = calloc((size_t)n, 1)) || !(flag = calloc((size_t)n, 1))) {
        free(L.img);
        return fv_error_set(FV_ENOMEM, "skeletonize", "out of memory");
    }
    for (int k = 0; k < 27; k++) {
        const int64_t dp = k / 9 - 1, dc = k / 3 % 3 - 1, dr = k % 3 - 1;
        L.off[k] = (dp * L.R + dr) * L.C + dc;
        L.adj[k] = 0;
        for (int j = 0; j < 27; j++) {
            const int64_t ep = j / 9 - 1, ec = j / 3 % 3 - 1, er = j % 3 - 1;
            if (j != k && j != 13 && llabs(ep - dp) <= 1 && llabs(ec - dc) <= 1 && llabs(er - dr) <= 1)
                L.adj[k] |= 1u << j;
        }
    }
    switch (in->dtype) {
#define FV__LEE_LOAD(E, T, S)                                             \
    case E:                                                               \
        for (int64_t p = 0; p < P0; p++)                                  \
            for (int64_t r = 0; r < R0; r++) {                            \
                const T *src = (const T *)in->data + (p * R0 + r) * C0;   \
                uint8_t *dst = L.img + ((p + 1) * L.R + r + 1) * L.C + 1; \
                for (int64_t c = 0; c < C0; c++)                          \
                    dst[c] = src[c] != 0;                                 \
            }                                                             \
        break;
        FV_FOREACH_DTYPE(FV__LEE_LOAD)
#undef FV__LEE_LOAD
    default:
        break;
    }
    /* the directions in scikit-image's order: W (r - 1), E (r + 1), S (c + 1),
     * N (c - 1), U (p + 1), B (p - 1) */
    const int64_t dir[6] = { -L.C, L.C, 1, -1, L.R * L.C, -L.R * L.C };
    const int ndir = L.P == 3 ? 4 : 6;
    const int64_t rows = (L.P - 2) * (L.R - 2), grain = 1 + 16384 / (L.C > 0 ? L.C : 1);
    int unchanged = 0;
    while (unchanged < ndir) {
        unchanged = 0;
        for (int d = 0; d < ndir; d++) {
            fv__lee_job j = { .L = &L, .step = dir[d], .flag = flag };
            fv__parallel_for(ctx, rows, grain, fv__lee_rows, &j);
            /* the sequential recheck, in raster order as scikit-image's candidate list */
            int change = 0;
            for (const uint8_t *f = flag; (f = memchr(f, 1, (size_t)(flag + n - f))) != NULL; f++) {
                const int64_t i = f - flag;
                if (fv__lee_simple(&L, fv__lee_bits(&L, i))) {
                    L.img[i] = 0;
                    change = 1;
                }
            }
            unchanged += !change;
        }
    }
    uint8_t *out = (uint8_t *)a->out->data;
    for (int64_t p = 0; p < P0; p++)
        for (int64_t r = 0; r < R0; r++)
            memcpy(out + (p * R0 + r) * C0, L.img + ((p + 1) * L.R + r + 1) * L.C + 1, (size_t)C0);
    free(flag);
    free(L.img);
    return FV_OK;
}

FV_KERNEL(SKELETON_LEE, CPU, FV_DTYPES_ALL, 3, fv__cpu_skeleton_lee);
