/* Shared by the CUDA EDT's files (edt.cu describes the paths; edt.cu: the host
 * side, edt-axis.cu: the per-line kernels and axis 0, edt-dist.cu: distances
 * alone, edt-banded.cu: the banded envelope): the geometry every kernel takes,
 * the tuning constants the host side sizes launches with, the kernels. */
#ifndef FV_CUDA_EDT_CUH
#define FV_CUDA_EDT_CUH

#include <math.h>
#include <stdlib.h>
#include "cuda/morphology/morphology-cuda.cuh"
#include "cuda/morphology/edt-band.h"
#include "core/plan.h"

typedef struct fv_cu_edt_geom {
    int nd, d, final, idx64;
    int tr; /* banded last axis: planes and outputs transposed */
    int gm; /* distances only: squared distances, not features */
    int64_t N, n, inner, lines;
    int64_t ps;    /* stride of a line's positions in the planes */
    int64_t W, nb; /* banded path: band width, bands per line */
    int64_t shape[FV_MAX_NDIM];
    double s[FV_MAX_NDIM];
    int64_t dstr[FV_MAX_NDIM];     /* distances' strides (bytes) */
    int64_t istr[FV_MAX_NDIM + 1]; /* indices' strides */
    char *dist, *idx;              /* outputs or NULL */
    double *tdist;                 /* tr and final: distances at i * lines + L, */
    int32_t *tidx;                 /* indices of axis a at a * N + i * lines + L */
    const double *gin;             /* gm: the squared distances so far (inf: no zero yet) */
    double *gout;                  /* gm and not final: this axis' squared distances */
    const int *guard;              /* non-NULL: the banded kernels return at once unless *guard */
    int dcont;                     /* the distances are C-contiguous doubles */
} fv_cu_edt_geom;

__device__ __forceinline__ void
fv_d_edt_put(const fv_cu_edt_geom &g, int64_t off, int64_t v)
{
    if (g.idx64)
        *(int64_t *)(g.idx + off) = v;
    else
        *(int32_t *)(g.idx + off) = (int32_t)v;
}

/* Element i of a line, whose nearest site is `site` (plane index sp) at squared
 * distance delta1: on the last axis its distance and indices (doff, ioff: the
 * line's offsets in the outputs), else the next feature planes at index p. */
__device__ __forceinline__ void
fv_d_edt_emit(const fv_cu_edt_geom &g, const int32_t *fin, int32_t *fout, int64_t i, int64_t p, int64_t sp,
              int64_t site, double delta1, int64_t doff, int64_t ioff)
{
    const int d = g.d;
    const int64_t N = g.N;
    if (g.final) {
        if (g.dist)
            *(double *)(g.dist + doff + i * g.dstr[d]) = __dsqrt_rn(delta1);
        if (g.idx) {
            int64_t off = ioff + i * g.istr[d + 1];
            for (int a = 0; a < d; a++)
                fv_d_edt_put(g, off + a * g.istr[0], fin[a * N + sp]);
            fv_d_edt_put(g, off + d * g.istr[0], site);
        }
    } else {
        for (int a = 0; a < d; a++)
            fout[a * N + p] = fin[a * N + sp];
        fout[d * N + p] = (int32_t)site;
    }
}

#define FV_CU_EDT_SEG 32     /* distances alone, last axis: a warp's run of elements (edt-dist.cu) */
#define FV_CU_EDT_CAP 32     /* the local search's default reach (edt-dist.cu) */
#define FV_CU_EDT_LTP 64     /* the tiled local search: positions per tile (edt-dist.cu) */
#define FV_CU_EDT_LH 8       /* ... the halo's steps loaded with a tile */
#define FV_CU_EDT_LBLOCK 256 /* ... threads per block */
#define FV_CU_EDT_TT 32      /* the banded last axis: transpose tiles of 32 x 32 (edt-banded.cu) */

/* edt-axis.cu */
__global__ void fv_k_edt_axis0(const uint8_t *fg, int32_t *f0, int64_t n0, int64_t M, int *anyzero);
__global__ void fv_k_edt_write1d(const int32_t *f, fv_cu_edt_geom g, const int *anyzero);
__global__ void fv_k_edt_axis(fv_cu_edt_geom g, const int32_t *fin, int32_t *fout, int32_t *gs, double *swr);
__global__ void fv_k_edt_axis0_seg(const uint8_t *fg, int32_t *first, int32_t *last, int64_t n0, int64_t M, int64_t S,
                                   int64_t nseg);
__global__ void fv_k_edt_axis0_scan(int32_t *first, int32_t *last, int64_t M, int64_t nseg, int *anyzero);
__global__ void fv_k_edt_axis0_fill(const uint8_t *fg, int32_t *f0, const int32_t *first, const int32_t *last,
                                    int64_t n0, int64_t M, int64_t S, int64_t nseg);
__global__ void fv_k_edt_nozero(fv_cu_edt_geom g, const int *anyzero);
/* edt-dist.cu */
__global__ void fv_k_edt_last_seg(const uint8_t *fg, int32_t *first, int32_t *last, int64_t lines, int64_t n,
                                  int64_t nseg);
__global__ void fv_k_edt_last_scan(int32_t *first, int32_t *last, int64_t lines, int64_t nseg, int *anyzero);
__global__ void fv_k_edt_last_fill(const uint8_t *fg, double *g2, const int32_t *first, const int32_t *last,
                                   int64_t lines, int64_t n, int64_t nseg, double s);
__global__ void fv_k_edt_local(fv_cu_edt_geom g, int *unres, int cap);
__global__ void __launch_bounds__(FV_CU_EDT_LBLOCK)
    fv_k_edt_local_tile(fv_cu_edt_geom g, int *unres, int cap, int64_t nrt, int64_t npt);
/* edt-banded.cu */
__global__ void fv_k_edt_band_build(fv_cu_edt_geom g, const int32_t *fin, int32_t *prv, int32_t *nxt, double *swr,
                                    int32_t *hd, int32_t *tl);
__global__ void fv_k_edt_band_merge(fv_cu_edt_geom g, int32_t *prv, int32_t *nxt, double *swr, int32_t *hd, int32_t *tl,
                                    int64_t span);
__global__ void fv_k_edt_band_last(fv_cu_edt_geom g, const int32_t *prv, int32_t *ll);
__global__ void fv_k_edt_band_prefix(fv_cu_edt_geom g, int32_t *ll);
__global__ void fv_k_edt_band_query(fv_cu_edt_geom g, const int32_t *fin, int32_t *fout, const int32_t *prv,
                                    const int32_t *nxt, const double *swr, const int32_t *hd, const int32_t *ll);
__global__ void fv_k_edt_transpose(const int32_t *in, int32_t *out, int64_t lines, int64_t n, int64_t N, int64_t tn,
                                   int64_t tiles);
__global__ void fv_k_edt_untranspose(fv_cu_edt_geom g, int64_t tn, const int *anyzero);

#endif
