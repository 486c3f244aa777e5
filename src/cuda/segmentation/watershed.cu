/* CUDA kernel of FV__OP_WATERSHED (fv_watershed): parallel minimax flooding.
 *
 * The CPU's priority flood pops pixels in nondecreasing order of their flood
 * level C (the lowest, over paths from a seed, of the largest value on the
 * path; a seed's level is its own value), and each pixel takes the label of
 * its first popped neighbour, which is one of lowest level. On the GPU:
 *
 *   init    seeds outside the mask are cleared; K = (C, D) is (value, 0) at
 *           seeds and "unreached" (D = INT64_MAX) elsewhere, where D counts the steps taken at the
 *           level C (a stand-in for the CPU's queue age on plateaus);
 *   relax   every in-mask non-seed pixel p takes K(p) = the lexicographic
 *           minimum of K(p) and of extend(K[q]) = (max(value, C[q]), D[q] + 1
 *           if that is C[q] else 0) over its reached in-mask neighbours q
 *           (fv__ws_relax_nb, src/ops/segmentation/watershed-relax.h), until
 *           nothing changes: Bellman-Ford on the (C, D) path algebra, run
 *           tiled or as Jacobi rounds (below);
 *   link    every reached non-seed pixel points to the neighbour with the
 *           smallest K (first in the footprint's order on ties), which is
 *           strictly smaller than its own K: the links form a forest rooted
 *           at the seeds;
 *   jump    pointer jumping (in place: a pointer only ever moves to an
 *           ancestor) until every pixel points to its root seed;
 *   label   out = the root seed's label; 0 where no seed is reached.
 *
 * The relaxation's result does not depend on its schedule. extend is
 * monotone in the lexicographic order (a total order; C compares as double,
 * so -0 == +0 throughout, in link too) and strictly increasing (its C grows,
 * or its C stays and its D grows by one), so a cycle never lowers a key, K*
 * = the minimum of extend along all paths from the seeds is a minimum over
 * simple paths (D <= n: never near INT64_MAX), and it is the only fixed
 * point that lies at or above K*. Every update keeps K at or above K* (each
 * value is extend of values at or above K*) and only ever lowers it, so any
 * schedule of updates that stops only when one sweep of the whole image
 * changes nothing ends at K*, and link, jump and label give the same labels.
 * NaN values act as -inf in max (the level passes through them); a NaN
 * seed's level is never smaller than anything, so no pixel takes it. A
 * pixel outside the mask keeps its unreached key (init clears its seed and
 * no update touches it), so skipping unreached neighbours also skips it.
 *
 *   tiled   (2- and 3-d, neighbours of reach 1 covered by the padding:
 *           fv__ws_grid_steps; planes of 32 x 32 when no neighbour steps
 *           along z, else 8 x 8 x 16 boxes) a block loads its tile's K with
 *           a one-pixel halo into shared memory and runs Jacobi sweeps on it
 *           (new keys staged in registers between two barriers) until a sweep
 *           changes nothing or FV_WS_SWEEPS sweeps ran, then writes the
 *           changed keys back in place. A tile is visited in a round when a
 *           neighbouring tile changed in the previous round or it stopped
 *           there at the cap; every tile in the first. A round in which
 *           no tile changes leaves every tile at a fixed point of the halo it
 *           last read, which nothing has changed since: the whole image is at
 *           the fixed point. In place, a halo may be read while its owner
 *           writes it. The owner writes D, fences, then writes C; readers
 *           read C, fence, then D. A reader thus sees the old pair, the new
 *           one, or the old C with the new D, which is at or above the new
 *           pair (same C: it is the new pair; lower new C: it is larger), so
 *           still at or above K*; and the owner changed, so the reader's
 *           tile is visited again next round.
 *   Jacobi  (everything else, or FOVEA_WS_UNTILED=1) one thread per pixel,
 *           two buffers, so every read sees one consistent (C, D) pair,
 *           until a batch of rounds changes nothing.
 *
 * Where one label alone attains a pixel's minimal K among its neighbours
 * (always without ties in the image) this is the CPU's label; on plateaus
 * the split between labels follows D instead of the CPU's queue order.
 * Compactness and watershed lines depend on that order: no kernel
 * (FV_ENOKERNEL; fovea.skimage runs them on the host). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cuda/common.cuh"
#include "ops/segmentation/watershed.h"
#include "ops/segmentation/watershed-relax.h"
#include "core/plan.h"

#define FV_WS_ROUNDS 8      /* Jacobi rounds between convergence checks */
#define FV_WS_TILE_ROUNDS 4 /* tiled rounds between convergence checks */
#define FV_WS_TB 256        /* threads of a tile's block */
#define FV_WS_CELLS 4       /* pixels per thread: a tile holds FV_WS_TB * FV_WS_CELLS */
#define FV_WS_SWEEPS 128    /* Jacobi sweeps of a tile per visit, at most */
#define FV_WS_MAXNB 26      /* neighbours of reach 1 in 3-d */
/* tile shapes (z, y, x): planes when no neighbour steps along z, else boxes */
#define FV_WS_PLANE 1, 32, 32
#define FV_WS_BOX 8, 8, 16

__global__ void
fv_k_ws_init(const uint8_t *mask, int64_t *lab, double *C, int64_t *D, int64_t *P, uint8_t *act, int64_t n,
             const double *img)
{
    FV_GRID_STRIDE(int64_t, i, n) {
        int64_t l = lab[i];
        if (l && !mask[i])
            lab[i] = l = 0;
        C[i] = l ? img[i] : INFINITY;
        D[i] = l ? 0 : FV__WS_UNREACHED;
        P[i] = l ? i : -1;
        if (act) /* the tiled relaxation's pixels to update */
            act[i] = mask[i] && !l;
    }
}

__global__ void
fv_k_ws_relax(const double *img, const uint8_t *mask, const int64_t *lab, const double *C, const int64_t *D, double *C2,
              int64_t *D2, const int64_t *nb, int nnb, int64_t n, int *changed)
{
    FV_GRID_STRIDE(int64_t, i, n) {
        double bc = C[i];
        int64_t bd = D[i];
        if (mask[i] && !lab[i]) {
            const double v = img[i];
            for (int k = 0; k < nnb; k++) {
                int64_t j = i + nb[k];
                if (j >= 0 && j < n && mask[j])
                    fv__ws_relax_nb(v, C[j], D[j], &bc, &bd);
            }
            if (bc != C[i] || bd != D[i])
                *changed = 1;
        }
        C2[i] = bc;
        D2[i] = bd;
    }
}

/* The tiled relaxation's geometry, passed by value. */
typedef struct fv_cu_ws_tiles {
    int64_t Z, Y, X;    /* the padded array as 3-d (a 2-d one with Z = 1) */
    int64_t gz, gy, gx; /* tiles along each axis */
    int nnb;
    int so[FV_WS_MAXNB]; /* neighbour offsets within the shared tile */
} fv_cu_ws_tiles;

/* One visit of every marked tile (TZ x TY x TX pixels, halo HZ along z and 1
 * along y and x; block b is tile b in C order): see the top. dirty: this
 * round's marks (cleared as read); dirty_next: the next round's. */
template <int TZ, int TY, int TX, int HZ>
__global__ void
__launch_bounds__(FV_WS_TB)
    fv_k_ws_tile(const double *__restrict__ img, const uint8_t *__restrict__ act, double *C, int64_t *D, uint8_t *dirty,
                 uint8_t *dirty_next, int *changed, fv_cu_ws_tiles t)
{
    constexpr int SX = TX + 2, SY = TY + 2, S = SX * SY * (TZ + 2 * HZ);
    static_assert(TZ * TY * TX == FV_WS_TB * FV_WS_CELLS, "one tile pixel per thread and cell");
    __shared__ double sC[S];
    __shared__ int64_t sD[S];
    const int64_t b = blockIdx.x;
    const int go = dirty[b];
    __syncthreads(); /* every thread has read the mark before it is cleared */
    if (!go)
        return;
    if (threadIdx.x == 0)
        dirty[b] = 0;
    const int64_t bx = b % t.gx, by = b / t.gx % t.gy, bz = b / t.gx / t.gy;
    const int64_t x0 = bx * TX - 1, y0 = by * TY - 1, z0 = bz * TZ - HZ; /* shared cell 0 */

    /* load the tile and its halo: every C, then (fence) every D, each cell
     * by one thread (torn pairs: see the top); outside the array: unreached */
    for (int s = threadIdx.x; s < S; s += FV_WS_TB) {
        const int64_t x = x0 + s % SX, y = y0 + s / SX % SY, z = z0 + s / (SX * SY);
        const int in = x >= 0 && x < t.X && y >= 0 && y < t.Y && z >= 0 && z < t.Z;
        sC[s] = in ? *(volatile const double *)&C[(z * t.Y + y) * t.X + x] : INFINITY;
    }
    __threadfence();
    for (int s = threadIdx.x; s < S; s += FV_WS_TB) {
        const int64_t x = x0 + s % SX, y = y0 + s / SX % SY, z = z0 + s / (SX * SY);
        const int in = x >= 0 && x < t.X && y >= 0 && y < t.Y && z >= 0 && z < t.Z;
        sD[s] = in ? *(volatile const int64_t *)&D[(z * t.Y + y) * t.X + x] : FV__WS_UNREACHED;
    }

    /* this thread's pixels: shared and global index, value; live = bit k when
     * pixel k is in the array, in the mask and no seed */
    double v[FV_WS_CELLS];
    int si[FV_WS_CELLS];
    int64_t gi[FV_WS_CELLS];
    unsigned live = 0;
#pragma unroll
    for (int k = 0; k < FV_WS_CELLS; k++) {
        const int c = threadIdx.x + k * FV_WS_TB, cx = c % TX, cy = c / TX % TY, cz = c / (TX * TY);
        const int64_t x = x0 + 1 + cx, y = y0 + 1 + cy, z = z0 + HZ + cz;
        si[k] = ((cz + HZ) * SY + cy + 1) * SX + cx + 1;
        gi[k] = (z * t.Y + y) * t.X + x;
        v[k] = 0;
        if (x < t.X && y < t.Y && z < t.Z && act[gi[k]]) {
            live |= 1u << k;
            v[k] = img[gi[k]];
        }
    }
    __syncthreads(); /* the tile is loaded */

    /* Jacobi sweeps within the tile; moved = this thread's pixels that changed */
    unsigned moved = 0;
    int sweeps = 0, capped = 0;
    for (;;) {
        double nc[FV_WS_CELLS];
        int64_t nd[FV_WS_CELLS];
        unsigned ch = 0;
#pragma unroll
        for (int k = 0; k < FV_WS_CELLS; k++) {
            nc[k] = 0;
            nd[k] = 0;
            if (!(live >> k & 1))
                continue;
            const int s = si[k];
            const double c0 = sC[s];
            const int64_t d0 = sD[s];
            double bc = c0;
            int64_t bd = d0;
#pragma unroll
            for (int q = 0; q < FV_WS_MAXNB; q++) {
                if (q >= t.nnb)
                    break;
                fv__ws_relax_nb(v[k], sC[s + t.so[q]], sD[s + t.so[q]], &bc, &bd);
            }
            if (bc != c0 || bd != d0) {
                ch |= 1u << k;
                nc[k] = bc;
                nd[k] = bd;
            }
        }
        __syncthreads(); /* every read of this sweep is done */
#pragma unroll
        for (int k = 0; k < FV_WS_CELLS; k++)
            if (ch >> k & 1) {
                sC[si[k]] = nc[k];
                sD[si[k]] = nd[k];
            }
        moved |= ch;
        if (!__syncthreads_or(ch != 0))
            break;
        if (++sweeps == FV_WS_SWEEPS) {
            capped = 1;
            break;
        }
    }
    if (!__syncthreads_or(moved != 0))
        return;

        /* write back: D, fence, C; then mark the tiles that read this one's pixels
     * (itself too when it stopped at the cap) and the round's flag */
#pragma unroll
    for (int k = 0; k < FV_WS_CELLS; k++)
        if (moved >> k & 1)
            *(volatile int64_t *)&D[gi[k]] = sD[si[k]];
    __threadfence();
#pragma unroll
    for (int k = 0; k < FV_WS_CELLS; k++)
        if (moved >> k & 1)
            *(volatile double *)&C[gi[k]] = sC[si[k]];
    if (threadIdx.x < 27) {
        const int dz = (int)threadIdx.x / 9 - 1, dy = (int)threadIdx.x / 3 % 3 - 1, dx = (int)threadIdx.x % 3 - 1;
        const int64_t nz = bz + dz, ny = by + dy, nx = bx + dx;
        if ((HZ || !dz) && (dz || dy || dx || capped) && nz >= 0 && nz < t.gz && ny >= 0 && ny < t.gy && nx >= 0 &&
            nx < t.gx)
            dirty_next[(nz * t.gy + ny) * t.gx + nx] = 1;
    }
    if (threadIdx.x == 0)
        *changed = 1;
}

__global__ void
fv_k_ws_link(const uint8_t *mask, const int64_t *lab, const double *C, const int64_t *D, int64_t *P, const int64_t *nb,
             int nnb, int64_t n)
{
    FV_GRID_STRIDE(int64_t, i, n) {
        if (!mask[i] || lab[i] || D[i] == FV__WS_UNREACHED)
            continue;
        double bc = INFINITY;
        int64_t bd = 0, best = -1;
        for (int k = 0; k < nnb; k++) {
            int64_t j = i + nb[k];
            if (j < 0 || j >= n || !mask[j] || D[j] == FV__WS_UNREACHED)
                continue;
            if (best < 0 || C[j] < bc || (C[j] == bc && D[j] < bd)) {
                bc = C[j];
                bd = D[j];
                best = j;
            }
        }
        P[i] = best;
    }
}

__global__ void
fv_k_ws_jump(int64_t *P, int64_t n, int *changed)
{
    FV_GRID_STRIDE(int64_t, i, n) {
        int64_t p = P[i];
        if (p < 0)
            continue;
        int64_t q = *(volatile int64_t *)&P[p];
        if (q != p) {
            P[i] = q;
            *changed = 1;
        }
    }
}

__global__ void
fv_k_ws_label(int64_t *lab, const int64_t *P, int64_t n)
{
    FV_GRID_STRIDE(int64_t, i, n) {
        int64_t p = P[i];
        lab[i] = p < 0 ? 0 : lab[p]; /* roots are seeds: their labels never change */
    }
}

typedef struct fv_cu_ws_buf {
    void *ptr, *opaque;
} fv_cu_ws_buf;

/* The count flags at flag_d read back into flag (0 / 1) and reset to 0. */
static fv_status
fv_cu_ws_flags(const fv_cu_exec *x, int *flag_d, int *flag, int count)
{
    cudaError_t e;
    if ((e = cudaMemcpyAsync(flag, flag_d, sizeof(int) * (size_t)count, cudaMemcpyDeviceToHost, x->stream)) ||
        (e = cudaStreamSynchronize(x->stream)) ||
        (e = cudaMemsetAsync(flag_d, 0, sizeof(int) * (size_t)count, x->stream)))
        return fv__cuda_error("watershed convergence check", e);
    return FV_OK;
}

/* The tiled relaxation's geometry for the padded array of out (1), or 0 when
 * it does not apply and the Jacobi rounds run: not 2- or 3-d, some neighbour not a grid step of reach 1 covered by
 * the padding, or more tiles than a grid holds. *box: some neighbour steps
 * along z (boxes with a z halo; else planes). */
static int
fv_cu_ws_tiling(const fv_array *out, const fv__watershed_params *p, fv_cu_ws_tiles *t, int *box)
{
    int steps[FV_WS_MAXNB][3];
    if (p->nnb < 1 || p->nnb > FV_WS_MAXNB || !fv__ws_grid_steps(p->ndim, p->strides, p->pad, p->nb, p->nnb, steps))
        return 0;
    memset(t, 0, sizeof *t);
    const int lead = 3 - p->ndim;
    t->Z = lead ? 1 : out->shape[0];
    t->Y = out->shape[1 - lead];
    t->X = out->shape[2 - lead];
    *box = 0;
    for (int k = 0; k < p->nnb; k++)
        *box |= steps[k][0] != 0;
    const int tile[2][3] = { { FV_WS_PLANE }, { FV_WS_BOX } };
    const int *ts = tile[*box], sy = ts[1] + 2, sx = ts[2] + 2;
    t->gz = (t->Z + ts[0] - 1) / ts[0];
    t->gy = (t->Y + ts[1] - 1) / ts[1];
    t->gx = (t->X + ts[2] - 1) / ts[2];
    if (t->gz * t->gy * t->gx > INT32_MAX)
        return 0;
    t->nnb = p->nnb;
    for (int k = 0; k < p->nnb; k++)
        t->so[k] = (steps[k][0] * sy + steps[k][1]) * sx + steps[k][2];
    return 1;
}

/* The relaxation ("cuda.watershed"): "tiled", in tiles (fv_cu_ws_tiling);
 * "jacobi", rounds over the whole image, always. */
static int
fv_cu_ws_tiled_ok(const void *args, int device)
{
    const fv__op_args *a = (const fv__op_args *)args;
    fv_cu_ws_tiles t;
    int box;
    return fv_cu_ws_tiling(a->out, (const fv__watershed_params *)a->params, &t, &box);
}

FV__VARIANTS(fv_cu_ws_variants, "cuda.watershed", { "tiled", fv_cu_ws_tiled_ok, NULL }, { "jacobi", NULL, NULL })

/* Tiled rounds until one changes nothing. marks: two bytes per tile;
 * flags_d: FV_WS_TILE_ROUNDS zeroed ints. */
static fv_status
fv_cu_ws_relax_tiled(const fv_cu_exec *x, const fv_cu_ws_tiles *t, int box, const double *img, const uint8_t *act,
                     double *C, int64_t *D, uint8_t *marks, int *flags_d, int64_t n)
{
    const int64_t ntiles = t->gz * t->gy * t->gx;
    int flags[FV_WS_TILE_ROUNDS];
    cudaError_t e;
    fv_status st;
    if ((e = cudaMemsetAsync(marks, 1, (size_t)ntiles, x->stream)) || /* the first round visits every tile */
        (e = cudaMemsetAsync(marks + ntiles, 0, (size_t)ntiles, x->stream)))
        return fv__cuda_error("cudaMemsetAsync (watershed)", e);
    /* a round does at least what a Jacobi round does (but where a torn read
     * made it redo a tile), so the cap only guards against a bug */
    for (int64_t round = 0;; round += FV_WS_TILE_ROUNDS) {
        for (int r = 0; r < FV_WS_TILE_ROUNDS; r++) {
            uint8_t *cur = marks + ((round + r) & 1) * ntiles, *next = marks + ((round + r + 1) & 1) * ntiles;
            if (box)
                fv_k_ws_tile<FV_WS_BOX, 1>
                    <<<(unsigned)ntiles, FV_WS_TB, 0, x->stream>>>(img, act, C, D, cur, next, flags_d + r, *t);
            else
                fv_k_ws_tile<FV_WS_PLANE, 0>
                    <<<(unsigned)ntiles, FV_WS_TB, 0, x->stream>>>(img, act, C, D, cur, next, flags_d + r, *t);
        }
        if ((st = fv_cu_launch_status("watershed relax")) ||
            (st = fv_cu_ws_flags(x, flags_d, flags, FV_WS_TILE_ROUNDS)))
            return st;
        for (int r = 0; r < FV_WS_TILE_ROUNDS; r++)
            if (!flags[r]) /* nothing changed: the fixed point */
                return FV_OK;
        if (round > 2 * n + 64)
            return fv_error_set(FV_ECUDA, "watershed", "flooding did not converge");
    }
}

/* Jacobi rounds until a batch changes nothing; C and D end in *C, *D. */
static fv_status
fv_cu_ws_relax_jacobi(const fv_cu_exec *x, const double *img, const uint8_t *mask, const int64_t *lab, double **C,
                      int64_t **D, double *C2, int64_t *D2, const int64_t *nb, int nnb, int *flag_d, int64_t n)
{
    double *c = *C;
    int64_t *d = *D;
    int flag = 0;
    fv_status st = FV_OK;
    /* Bellman-Ford needs at most n rounds; the cap only guards against a bug */
    for (int64_t round = 0;; round += FV_WS_ROUNDS) {
        for (int r = 0; r < FV_WS_ROUNDS; r++) {
            fv_k_ws_relax<<<x->grid, x->block, 0, x->stream>>>(img, mask, lab, c, d, C2, D2, nb, nnb, n, flag_d);
            double *tc = c;
            c = C2;
            C2 = tc;
            int64_t *td = d;
            d = D2;
            D2 = td;
        }
        if ((st = fv_cu_launch_status("watershed relax")) || (st = fv_cu_ws_flags(x, flag_d, &flag, 1)))
            break;
        if (!flag)
            break;
        if (round > n + 2 * FV_WS_ROUNDS) {
            st = fv_error_set(FV_ECUDA, "watershed", "flooding did not converge");
            break;
        }
    }
    *C = c;
    *D = d;
    return st;
}

extern "C" fv_status
fv__cuda_watershed(fv_context *ctx, const fv__op_args *a)
{
    const char *name = "watershed";
    const fv__watershed_params *p = (const fv__watershed_params *)a->params;
    const int64_t n = fv_array_size(a->out);
    fv_cu_ws_buf bufs[7] = { { NULL, NULL } };
    fv_cu_ws_tiles t;
    fv_cu_exec x;
    fv_status st;
    int flag = 0, box = 0;

    if (p->compactness > 0 || p->watershed_line)
        return fv_error_set(FV_ENOKERNEL, name,
                            "no CUDA kernel for compactness > 0 or watershed lines "
                            "(they follow the CPU queue's exact order): run them on host data");
    if (a->in->dtype != FV_FLOAT64 || !a->in2 || a->in2->dtype != FV_BOOL || a->out->dtype != FV_INT64)
        return fv_error_set(FV_EDTYPE, name, "kernel needs float64 image, bool mask, int64 labels");
    if (n == 0)
        return FV_OK;
    ctx = fv__ctx(ctx);
    if ((st = fv_cu_begin(ctx, name, a, n, &x)))
        return st;
    const int tiled = fv__plan_index(&fv_cu_ws_variants, a, x.device) == 0 && fv_cu_ws_tiling(a->out, p, &t, &box);
    const int64_t ntiles = tiled ? t.gz * t.gy * t.gx : 0;
    /* C, D, P (int64), the neighbour table with the flags after it; Jacobi:
     * C2, D2; tiled: the active bytes and two marks per tile */
    const size_t nnb = (size_t)p->nnb;
    size_t sizes[7] = { 8 * (size_t)n,
                        8 * (size_t)n,
                        8 * (size_t)n,
                        sizeof(int64_t) * nnb + sizeof(int) * (1 + FV_WS_TILE_ROUNDS),
                        tiled ? 0 : 8 * (size_t)n,
                        tiled ? 0 : 8 * (size_t)n,
                        tiled ? (size_t)n + 2 * (size_t)ntiles : 0 };
    for (int k = 0; k < 7; k++)
        if (sizes[k] && (st = fv__cuda_alloc(ctx, x.device, sizes[k], &bufs[k].ptr, &bufs[k].opaque)))
            goto done;
    {
        double *C = (double *)bufs[0].ptr, *C2 = (double *)bufs[4].ptr;
        int64_t *D = (int64_t *)bufs[1].ptr, *D2 = (int64_t *)bufs[5].ptr, *P = (int64_t *)bufs[2].ptr;
        int64_t *nb = (int64_t *)bufs[3].ptr;
        int *flag_d = (int *)(nb + nnb); /* after the table: the flag, then the tiled rounds' flags */
        uint8_t *act = (uint8_t *)bufs[6].ptr;
        const double *img = (const double *)a->in->data;
        const uint8_t *mask = (const uint8_t *)a->in2->data;
        int64_t *lab = (int64_t *)a->out->data;
        cudaError_t e;
        fv_device dev = { FV_DEVICE_CUDA, x.device }, hdev = { FV_DEVICE_CPU, 0 };

        if (nnb && (st = fv__cuda_memcpy(ctx, nb, dev, p->nb, hdev, nnb * sizeof(int64_t))))
            goto done;
        if ((e = cudaMemsetAsync(flag_d, 0, sizeof(int) * (1 + FV_WS_TILE_ROUNDS), x.stream))) {
            st = fv__cuda_error("cudaMemsetAsync (watershed)", e);
            goto done;
        }
        fv_k_ws_init<<<x.grid, x.block, 0, x.stream>>>(mask, lab, C, D, P, act, n, img);
        if ((st = fv_cu_launch_status("watershed init")))
            goto done;
        if (tiled)
            st = fv_cu_ws_relax_tiled(&x, &t, box, img, act, C, D, act + n, flag_d + 1, n);
        else
            st = fv_cu_ws_relax_jacobi(&x, img, mask, lab, &C, &D, C2, D2, nb, (int)nnb, flag_d, n);
        if (st)
            goto done;
        fv_k_ws_link<<<x.grid, x.block, 0, x.stream>>>(mask, lab, C, D, P, nb, (int)nnb, n);
        if ((st = fv_cu_launch_status("watershed link")))
            goto done;
        for (int it = 0;; it++) {
            fv_k_ws_jump<<<x.grid, x.block, 0, x.stream>>>(P, n, flag_d);
            if ((st = fv_cu_launch_status("watershed jump")) || (st = fv_cu_ws_flags(&x, flag_d, &flag, 1)))
                goto done;
            if (!flag)
                break;
            if (it > 64) {
                st = fv_error_set(FV_ECUDA, name, "pointer jumping did not converge");
                goto done;
            }
        }
        fv_k_ws_label<<<x.grid, x.block, 0, x.stream>>>(lab, P, n);
        st = fv_cu_launch_status("watershed label");
    }
done:
    (void)cudaStreamSynchronize(x.stream); /* nothing queued may still use the scratch */
    for (int k = 0; k < 7; k++)
        if (bufs[k].ptr)
            fv__cuda_free(bufs[k].ptr, bufs[k].opaque);
    fv_cu_end(&x);
    return st;
}

FV_KERNEL(WATERSHED, CUDA, FV_DTYPE_BIT(FV_FLOAT64) | FV_DTYPE_BIT(FV_BOOL) | FV_DTYPE_BIT(FV_INT64), FV_MAX_NDIM,
          fv__cuda_watershed);
