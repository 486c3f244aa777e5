/* The relaxation step of the CUDA watershed (src/cuda/segmentation/watershed.cu),
 * as plain C shared by its kernels and by their host model
 * (tests/c/test_watershed_relax.c), which checks that the tiled schedule
 * reaches the same keys as the Jacobi one.
 *
 * Every pixel carries the key K = (C, D): its flood level C and the steps D
 * taken at that level, ordered lexicographically; D = FV__WS_UNREACHED marks
 * a pixel no seed reaches yet (C is +inf there, but so may a level be).
 *
 *   fv__ws_relax_nb    fold a neighbour's offer into a pixel's best key
 *   fv__ws_grid_steps  the neighbour offsets as grid steps of reach 1, for
 *                      the tiled relaxation (0 when they are not) */
#ifndef FV_WATERSHED_RELAX_H
#define FV_WATERSHED_RELAX_H

#include <stdint.h>
#include "cast.h" /* FV_HD */

#define FV__WS_UNREACHED INT64_MAX

/* A pixel of value v with best key (*bc, *bd) so far, offered by a neighbour of
 * key (cq, dq): extend(cq, dq) = (max(v, cq), dq + 1 if that is cq else 0),
 * kept when lexicographically smaller. An unreached neighbour offers nothing.
 * NaN: a NaN v leaves the level as it is (max is cq) and a NaN cq (a NaN seed)
 * is never smaller, so the level of a non-seed pixel is never NaN. */
FV_HD void
fv__ws_relax_nb(double v, double cq, int64_t dq, double *bc, int64_t *bd)
{
    if (dq == FV__WS_UNREACHED)
        return;
    double c = v > cq ? v : cq;
    int64_t d = c == cq ? dq + 1 : 0;
    if (c < *bc || (c == *bc && d < *bd)) {
        *bc = c;
        *bd = d;
    }
}

/* The nnb raveled offsets nb of a 2- or 3-d padded array (strides and pad of
 * fv__watershed_params) as steps (z, y, x) in -1..1 (z = 0 for 2-d) with
 * nb[k] = the step's raveled offset and pad[d] >= 1 wherever the step moves
 * along d: from an in-mask pixel every such step then stays inside the array,
 * so the neighbour is its grid neighbour. 1 on success; 0 (steps undefined)
 * for other ranks or when some offset is no such step. */
static inline int
fv__ws_grid_steps(int ndim, const int64_t *strides, const int64_t *pad, const int64_t *nb, int nnb, int (*steps)[3])
{
    if (ndim < 2 || ndim > 3)
        return 0;
    const int lead = 3 - ndim; /* 2-d: the z axis is a unit one */
    for (int k = 0; k < nnb; k++) {
        int found = 0;
        for (int c = 0; c < 27 && !found; c++) {
            int o[3] = { c / 9 - 1, c / 3 % 3 - 1, c % 3 - 1 };
            int64_t r = 0;
            int ok = !(lead && o[0]);
            for (int d = lead; d < 3 && ok; d++) {
                r += o[d] * strides[d - lead];
                ok = !o[d] || pad[d - lead] >= 1;
            }
            if (ok && r == nb[k]) {
                steps[k][0] = o[0];
                steps[k][1] = o[1];
                steps[k][2] = o[2];
                found = 1;
            }
        }
        if (!found)
            return 0;
    }
    return 1;
}

#endif
