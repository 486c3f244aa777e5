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
 *   relax   Jacobi rounds (two buffers, so every read sees one consistent
 *           (C, D) pair): for each in-mask non-seed pixel, K = the
 *           lexicographic minimum over in-mask neighbours q of
 *           extend(K[q]) = (max(value, C[q]), D[q] + 1 if that is C[q] else 0),
 *           until a batch of rounds changes nothing. extend is monotone, so
 *           this is Bellman-Ford on the (C, D) path algebra;
 *   link    every reached non-seed pixel points to the neighbour with the
 *           smallest K (first in the footprint's order on ties), which is
 *           strictly smaller than its own K: the links form a forest rooted
 *           at the seeds;
 *   jump    pointer jumping (in place: a pointer only ever moves to an
 *           ancestor) until every pixel points to its root seed;
 *   label   out = the root seed's label; 0 where no seed is reached.
 *
 * Where one label alone attains a pixel's minimal K among its neighbours
 * (always without ties in the image) this is the CPU's label; on plateaus
 * the split between labels follows D instead of the CPU's queue order.
 * Compactness and watershed lines depend on that order: no kernel
 * (FV_ENOKERNEL; fovea.skimage runs them on the host). */
#include <math.h>
#include "cuda/common.cuh"
#include "ops/segmentation/watershed-kernels.h"

#define FV_WS_ROUNDS 8            /* relax rounds between convergence checks */
#define FV_WS_UNREACHED INT64_MAX /* D of a pixel no seed reaches (C is +inf there, but so may a value be) */

__global__ void
fv_k_ws_init(const uint8_t *mask, int64_t *lab, double *C, int64_t *D, int64_t *P, int64_t n, const double *img)
{
    FV_GRID_STRIDE(int64_t, i, n) {
        int64_t l = lab[i];
        if (l && !mask[i])
            lab[i] = l = 0;
        C[i] = l ? img[i] : INFINITY;
        D[i] = l ? 0 : FV_WS_UNREACHED;
        P[i] = l ? i : -1;
    }
}

__global__ void
fv_k_ws_relax(const double *img, const uint8_t *mask, const int64_t *lab, const double *C, const int64_t *D,
              double *C2, int64_t *D2, const int64_t *nb, int nnb, int64_t n, int *changed)
{
    FV_GRID_STRIDE(int64_t, i, n) {
        double bc = C[i];
        int64_t bd = D[i];
        if (mask[i] && !lab[i]) {
            const double v = img[i];
            for (int k = 0; k < nnb; k++) {
                int64_t j = i + nb[k];
                if (j < 0 || j >= n || !mask[j])
                    continue;
                int64_t dq = D[j];
                if (dq == FV_WS_UNREACHED)
                    continue;
                double cq = C[j];
                double c = v > cq ? v : cq;
                int64_t d = c == cq ? dq + 1 : 0;
                if (c < bc || (c == bc && d < bd)) {
                    bc = c;
                    bd = d;
                }
            }
            if (bc != C[i] || bd != D[i])
                *changed = 1;
        }
        C2[i] = bc;
        D2[i] = bd;
    }
}

__global__ void
fv_k_ws_link(const uint8_t *mask, const int64_t *lab, const double *C, const int64_t *D, int64_t *P,
             const int64_t *nb, int nnb, int64_t n)
{
    FV_GRID_STRIDE(int64_t, i, n) {
        if (!mask[i] || lab[i] || D[i] == FV_WS_UNREACHED)
            continue;
        double bc = INFINITY;
        int64_t bd = 0, best = -1;
        for (int k = 0; k < nnb; k++) {
            int64_t j = i + nb[k];
            if (j < 0 || j >= n || !mask[j] || D[j] == FV_WS_UNREACHED)
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
        lab[i] = p < 0 ? 0 : lab[p];   /* roots are seeds: their labels never change */
    }
}

typedef struct fv_cu_ws_buf {
    void *ptr, *opaque;
} fv_cu_ws_buf;

/* Launch check, then *flag read back (0 / 1); the flag is reset to 0. */
static fv_status
fv_cu_ws_flag(const fv_cu_exec *x, int *flag_d, int *flag)
{
    cudaError_t e;
    if ((e = cudaMemcpyAsync(flag, flag_d, sizeof(int), cudaMemcpyDeviceToHost, x->stream)) ||
        (e = cudaStreamSynchronize(x->stream)) ||
        (e = cudaMemsetAsync(flag_d, 0, sizeof(int), x->stream)))
        return fv__cuda_error("watershed convergence check", e);
    return FV_OK;
}

extern "C" fv_status
fv__cuda_watershed(fv_context *ctx, const fv__op_args *a)
{
    const char *name = "watershed";
    const fv__watershed_params *p = (const fv__watershed_params *)a->params;
    const int64_t n = fv_array_size(a->out);
    fv_cu_ws_buf bufs[6] = {{NULL, NULL}};
    fv_cu_exec x;
    fv_status st;
    int flag = 0;

    if (p->compactness > 0 || p->watershed_line)
        return fv_error_set(FV_ENOKERNEL, name, "no CUDA kernel for compactness > 0 or watershed lines "
                            "(they follow the CPU queue's exact order): run them on host data");
    if (a->in->dtype != FV_FLOAT64 || !a->in2 || a->in2->dtype != FV_BOOL || a->out->dtype != FV_INT64)
        return fv_error_set(FV_EDTYPE, name, "kernel needs float64 image, bool mask, int64 labels");
    if (n == 0)
        return FV_OK;
    ctx = fv__ctx(ctx);
    if ((st = fv_cu_begin(ctx, name, a, n, &x)))
        return st;
    /* C, C2 (double), D, D2, P (int64), then the flag and the neighbour table */
    const size_t nnb = (size_t)p->nnb;
    size_t sizes[6] = {8 * (size_t)n, 8 * (size_t)n, 8 * (size_t)n, 8 * (size_t)n, 8 * (size_t)n,
                       sizeof(int64_t) * (nnb + 1)};
    for (int k = 0; k < 6; k++)
        if ((st = fv__cuda_alloc(ctx, x.device, sizes[k], &bufs[k].ptr, &bufs[k].opaque)))
            goto done;
    {
        double *C = (double *)bufs[0].ptr, *C2 = (double *)bufs[1].ptr;
        int64_t *D = (int64_t *)bufs[2].ptr, *D2 = (int64_t *)bufs[3].ptr, *P = (int64_t *)bufs[4].ptr;
        int64_t *nb = (int64_t *)bufs[5].ptr;
        int *flag_d = (int *)(nb + nnb);   /* the int64 after the table */
        const double *img = (const double *)a->in->data;
        const uint8_t *mask = (const uint8_t *)a->in2->data;
        int64_t *lab = (int64_t *)a->out->data;
        cudaError_t e;
        fv_device dev = {FV_DEVICE_CUDA, x.device}, hdev = {FV_DEVICE_CPU, 0};

        if (nnb && (st = fv__cuda_memcpy(ctx, nb, dev, p->nb, hdev, nnb * sizeof(int64_t))))
            goto done;
        if ((e = cudaMemsetAsync(flag_d, 0, sizeof(int64_t), x.stream))) {
            st = fv__cuda_error("cudaMemsetAsync (watershed)", e);
            goto done;
        }
        fv_k_ws_init<<<x.grid, x.block, 0, x.stream>>>(mask, lab, C, D, P, n, img);
        if ((st = fv_cu_launch_status("watershed init")))
            goto done;
        /* Bellman-Ford needs at most n rounds; the cap only guards against a bug */
        for (int64_t round = 0;; round += FV_WS_ROUNDS) {
            for (int r = 0; r < FV_WS_ROUNDS; r++) {
                fv_k_ws_relax<<<x.grid, x.block, 0, x.stream>>>(img, mask, lab, C, D, C2, D2, nb, (int)nnb, n,
                                                                flag_d);
                double *tc = C; C = C2; C2 = tc;
                int64_t *td = D; D = D2; D2 = td;
            }
            if ((st = fv_cu_launch_status("watershed relax")) || (st = fv_cu_ws_flag(&x, flag_d, &flag)))
                goto done;
            if (!flag)
                break;
            if (round > n + 2 * FV_WS_ROUNDS) {
                st = fv_error_set(FV_ECUDA, name, "flooding did not converge");
                goto done;
            }
        }
        fv_k_ws_link<<<x.grid, x.block, 0, x.stream>>>(mask, lab, C, D, P, nb, (int)nnb, n);
        if ((st = fv_cu_launch_status("watershed link")))
            goto done;
        for (int it = 0;; it++) {
            fv_k_ws_jump<<<x.grid, x.block, 0, x.stream>>>(P, n, flag_d);
            if ((st = fv_cu_launch_status("watershed jump")) || (st = fv_cu_ws_flag(&x, flag_d, &flag)))
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
    (void)cudaStreamSynchronize(x.stream);   /* nothing queued may still use the scratch */
    for (int k = 0; k < 6; k++)
        if (bufs[k].ptr)
            fv__cuda_free(bufs[k].ptr, bufs[k].opaque);
    fv_cu_end(&x);
    return st;
}

extern "C" void
fv__cuda_register_segmentation(fv__kernel table[FV__OP_COUNT][FV__BACKEND_COUNT])
{
    uint32_t dt = FV_DTYPE_BIT(FV_FLOAT64) | FV_DTYPE_BIT(FV_BOOL) | FV_DTYPE_BIT(FV_INT64);
    table[FV__OP_WATERSHED][FV__BACKEND_CUDA] = (fv__kernel){dt, FV_MAX_NDIM, fv__cuda_watershed};
}
