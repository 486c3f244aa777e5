/* The tiled path of the CUDA binary erosion (src/cuda/morphology/erosion.cu),
 * written once for the kernel and for its host model (tests/c/test_cuda_erosion.c).
 *
 * Data: 1-D..3-D, one-byte input / output / mask (bool, uint8, int8; nonzero =
 * true), each with unit stride along the last axis (any strides along the
 * others). Seen as (nz, ny, nx) with leading extents 1.
 *
 * A block of FV_ERO_BX x FV_ERO_BY threads writes a tile of FV_ERO_TW bytes by
 * FV_ERO_TH rows of one plane z; each thread writes one 32-bit word (4 output
 * bytes) in each of FV_ERO_TH / FV_ERO_BY rows. Dilation is erosion of the
 * complement: every byte read becomes t = (x != 0) ^ invert (0 or 1), the
 * outside becomes border ^ invert, the result is AND(t) ^ invert.
 *
 * Shared memory holds 4 planes of the input rows the tile needs (every
 * (dz, dy) of the structure's bounding box, the output rows and halo), P words
 * per row, row 0 starting at byte x0 - H (H = the left halo rounded up to 4):
 * plane 0 the words as loaded (t per byte), plane s (1..3) the same bytes
 * shifted by s (word j = bytes 4j+s .. 4j+s+3). An element (dz, dy, dx) then
 * reads the 4 bytes under an output word with ONE aligned 32-bit load at the
 * word offset off[e] (plane, row and word folded into one int, computed here
 * on the host) from the output word's base r * P + c: per element and 4
 * outputs one shared load and one AND, no bounds checks, no divisions.
 *
 * Tiles whose rows and halo lie inside the image load 32-bit words with no
 * checks (ALIGNED launches, where every base and row pitch is a multiple of 4)
 * or 4 bytes (else); edge tiles check each byte and read the border outside.
 * Partial output words at the right edge store byte by byte. */
#ifndef FV_EROSION_TILE_H
#define FV_EROSION_TILE_H

#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define FV_ERO_HD __host__ __device__ __forceinline__
#else
#define FV_ERO_HD static inline
#endif

#define FV_ERO_BX 32               /* threads along x: one output word each */
#define FV_ERO_BY 8                /* threads along y */
#define FV_ERO_TW (FV_ERO_BX * 4)  /* output bytes per tile row */
#define FV_ERO_TH 32               /* output rows per tile */
#define FV_ERO_MAXEL 256           /* structure elements carried in the launch */
#define FV_ERO_MAXSMEM (96 * 1024) /* dynamic shared memory cap (bytes) */

typedef struct fv_ero_tile_args {
    const uint8_t *in;
    uint8_t *out;
    const uint8_t *mask; /* or NULL */
    int *flags;          /* [0] changed, [1] differs; NULL unless asked */
    int64_t nz, ny, nx;
    int64_t siz, siy, soz, soy, smz, smy; /* byte strides along z and y */
    int H;                                /* left halo, bytes, multiple of 4 */
    int dzmin, dymin;                     /* <= 0 */
    int npl;                              /* dz extent of the box (planes of rows) */
    int ry;                               /* rows per dz: FV_ERO_TH + dy extent - 1 */
    int P;                                /* words per shared row */
    int PL;                               /* words per shared plane: npl * ry * P */
    int nel;
    int self_off;   /* word offset of (0, 0, 0) in plane 0 */
    uint32_t inv;   /* 0 or 0x01010101 */
    uint32_t bt;    /* the outside as t: border ^ invert (0 or 1) */
    int want_flags; /* 1 changed, 2 differs */
    int off[FV_ERO_MAXEL];
} fv_ero_tile_args;

/* Fill a's geometry from the structure (C order, sshape[nd], origins[nd];
 * nd 1..3). Returns the dynamic shared memory in bytes, or 0 when the tiled
 * path cannot take this structure (too many elements, too much shared memory). */
static inline int64_t
fv_ero_tile_plan(int nd, const uint8_t *structure, const int64_t *sshape, const int64_t *origins, fv_ero_tile_args *a)
{
    int64_t ss[3] = { 1, 1, 1 }, so[3] = { 0, 0, 0 };
    if (nd < 1 || nd > 3)
        return 0;
    for (int d = 0; d < nd; d++) {
        ss[3 - nd + d] = sshape[d];
        so[3 - nd + d] = origins ? origins[d] : 0;
    }
    int64_t n = ss[0] * ss[1] * ss[2], nel = 0;
    int64_t mn[3] = { 0, 0, 0 }, mx[3] = { 0, 0, 0 }; /* the box always holds (0, 0, 0) */
    for (int64_t k = 0; k < n; k++) {
        if (!structure[k])
            continue;
        int64_t j[3] = { k / (ss[1] * ss[2]), (k / ss[2]) % ss[1], k % ss[2] };
        for (int d = 0; d < 3; d++) {
            int64_t dl = j[d] - ss[d] / 2 - so[d];
            if (dl < mn[d])
                mn[d] = dl;
            if (dl > mx[d])
                mx[d] = dl;
        }
        nel++;
    }
    if (nel > FV_ERO_MAXEL || mx[0] - mn[0] > 64 || mx[1] - mn[1] > 64 || mx[2] - mn[2] > 256)
        return 0;
    a->H = (int)((-mn[2] + 3) / 4 * 4);
    a->dzmin = (int)mn[0];
    a->dymin = (int)mn[1];
    a->npl = (int)(mx[0] - mn[0] + 1);
    a->ry = (int)(FV_ERO_TH + mx[1] - mn[1]);
    /* plane 0 reads words up to (H + TW - 1 + dxmax) / 4 (dxmax when H + dx is a
     * multiple of 4), so P = ceil((H + TW + dxmax) / 4) words; a shifted plane
     * reads at most word P - 2 (H + dx not a multiple of 4), built from raw
     * words P - 2 and P - 1 */
    a->P = (int)((a->H + FV_ERO_TW + mx[2] + 3) / 4);
    int64_t pl = (int64_t)a->npl * a->ry * a->P;
    int64_t smem = 4 * pl * 4;
    if (smem > FV_ERO_MAXSMEM)
        return 0;
    a->PL = (int)pl;
    a->nel = (int)nel;
    for (int64_t k = 0, e = 0; k < n; k++) {
        if (!structure[k])
            continue;
        int64_t j[3] = { k / (ss[1] * ss[2]), (k / ss[2]) % ss[1], k % ss[2] };
        int64_t dz = j[0] - ss[0] / 2 - so[0], dy = j[1] - ss[1] / 2 - so[1], dx = j[2] - ss[2] / 2 - so[2];
        int64_t b = a->H + dx; /* >= 0 */
        a->off[e++] = (int)((b & 3) * pl + ((dz - mn[0]) * a->ry + (dy - mn[1])) * a->P + (b >> 2));
    }
    a->self_off = (int)(((0 - mn[0]) * a->ry + (0 - mn[1])) * a->P + a->H / 4);
    return smem;
}

/* ---- per-thread steps (the kernel runs them between __syncthreads) --------- */

FV_ERO_HD uint32_t
fv_ero_ld4(const uint8_t *p, int aligned)
{
#ifdef __CUDA_ARCH__
    if (aligned)
        return *(const uint32_t *)p;
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
#else
    uint32_t w;
    (void)aligned;
    memcpy(&w, p, 4); /* little-endian host, as the GPU */
    return w;
#endif
}

FV_ERO_HD void
fv_ero_st4(uint8_t *p, uint32_t v, int aligned)
{
#ifdef __CUDA_ARCH__
    if (aligned) {
        *(uint32_t *)p = v;
        return;
    }
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
#else
    (void)aligned;
    memcpy(p, &v, 4);
#endif
}

/* 0x01 in each byte of w that is nonzero, 0x00 elsewhere */
FV_ERO_HD uint32_t
fv_ero_nz01(uint32_t w)
{
#ifdef __CUDA_ARCH__
    return __vcmpne4(w, 0u) & 0x01010101u;
#else
    uint32_t r = 0;
    for (int b = 0; b < 4; b++)
        r |= (uint32_t)(((w >> (8 * b)) & 0xff) != 0) << (8 * b);
    return r;
#endif
}

/* bytes 4j+s .. 4j+s+3 of the byte string lo, hi (s = 1..3) */
FV_ERO_HD uint32_t
fv_ero_shift(uint32_t lo, uint32_t hi, int s)
{
#ifdef __CUDA_ARCH__
    return __funnelshift_r(lo, hi, 8 * s);
#else
    return (uint32_t)((((uint64_t)hi << 32) | lo) >> (8 * s));
#endif
}

/* Whether the whole shared tile of block (bx, by, z) lies inside the image. */
FV_ERO_HD int
fv_ero_interior(const fv_ero_tile_args *a, int64_t bx, int64_t by, int64_t z)
{
    int64_t x0 = bx * FV_ERO_TW - a->H, y0 = by * FV_ERO_TH + a->dymin, z0 = z + a->dzmin;
    return x0 >= 0 && x0 + 4 * (int64_t)a->P <= a->nx && y0 >= 0 && y0 + a->ry <= a->ny && z0 >= 0 &&
        z0 + a->npl <= a->nz;
}

/* Word j of shared row tr (plane 0) of block (bx, by, z), as t bytes. */
FV_ERO_HD uint32_t
fv_ero_load(const fv_ero_tile_args *a, int64_t bx, int64_t by, int64_t z, int tr, int j, int interior, int aligned)
{
    int pz = tr / a->ry, rr = tr - pz * a->ry;
    int64_t gz = z + a->dzmin + pz, gy = by * FV_ERO_TH + a->dymin + rr;
    int64_t gx = bx * FV_ERO_TW - a->H + 4 * (int64_t)j;
    const uint8_t *row = a->in + gz * a->siz + gy * a->siy;
    if (interior)
        return fv_ero_nz01(fv_ero_ld4(row + gx, aligned)) ^ a->inv;
    int inrow = gz >= 0 && gz < a->nz && gy >= 0 && gy < a->ny;
    if (inrow && gx >= 0 && gx + 4 <= a->nx)
        return fv_ero_nz01(fv_ero_ld4(row + gx, aligned)) ^ a->inv;
    uint32_t t = 0;
    for (int b = 0; b < 4; b++) {
        uint32_t v = a->bt;
        if (inrow && gx + b >= 0 && gx + b < a->nx)
            v = (uint32_t)(row[gx + b] != 0) ^ (a->inv & 1u);
        t |= v << (8 * b);
    }
    return t;
}

/* Output word c of tile row r of block (bx, by, z) from the shared planes sm:
 * stores it and ORs into *changed / *differs. Does nothing outside the image. */
FV_ERO_HD void
fv_ero_out(const fv_ero_tile_args *a, const uint32_t *sm, int64_t bx, int64_t by, int64_t z, int r, int c, int aligned,
           int *changed, int *differs)
{
    int64_t gy = by * FV_ERO_TH + r, gx = bx * FV_ERO_TW + 4 * (int64_t)c;
    if (gy >= a->ny || gx >= a->nx)
        return;
    const uint32_t *base = sm + r * a->P + c;
    uint32_t acc = 0x01010101u;
    int e = 0;
    for (; e + 4 <= a->nel; e += 4)
        acc &= base[a->off[e]] & base[a->off[e + 1]] & base[a->off[e + 2]] & base[a->off[e + 3]];
    for (; e < a->nel; e++)
        acc &= base[a->off[e]];
    const uint32_t self = base[a->self_off] ^ a->inv;
    uint32_t v = acc ^ a->inv;
    const int full = gx + 4 <= a->nx;
    const int nv = full ? 4 : (int)(a->nx - gx);
    const uint32_t vm = full ? 0xffffffffu : ((1u << (8 * nv)) - 1u);
    if (a->mask) {
        const uint8_t *mp = a->mask + z * a->smz + gy * a->smy + gx;
        uint32_t m;
        if (full) {
            m = fv_ero_ld4(mp, aligned);
        } else {
            m = 0;
            for (int b = 0; b < nv; b++)
                m |= (uint32_t)mp[b] << (8 * b);
        }
        m = fv_ero_nz01(m) * 0xffu;
        v = (v & m) | (self & ~m);
    }
    uint8_t *op = a->out + z * a->soz + gy * a->soy + gx;
    if (a->want_flags & 1)
        *changed |= ((v ^ self) & vm) != 0;
    if (a->want_flags & 2) {
        uint32_t old = 0;
        if (full) {
            old = fv_ero_ld4(op, aligned);
        } else {
            for (int b = 0; b < nv; b++)
                old |= (uint32_t)op[b] << (8 * b);
        }
        *differs |= ((fv_ero_nz01(old) ^ v) & vm) != 0;
    }
    if (full) {
        fv_ero_st4(op, v, aligned);
    } else {
        for (int b = 0; b < nv; b++)
            op[b] = (uint8_t)(v >> (8 * b));
    }
}

#endif
