/* Lock-free union-find on the GPU (Playne and Hawick, 2018): P[i] is i's
 * parent, links only ever point to smaller indices, so each final root is its
 * set's smallest index. Used by the labelling (label.cu) and by the plateaus
 * of local_maxima (morphology/extrema.cu). */
#ifndef FOVEA_CUDA_UNION_FIND_CUH
#define FOVEA_CUDA_UNION_FIND_CUH

#include <stdint.h>

__device__ __forceinline__ int32_t
fv_cu_label_amin(int32_t *p, int32_t v)
{
    return (int32_t)atomicMin((int *)p, (int)v);
}

__device__ __forceinline__ int64_t
fv_cu_label_amin(int64_t *p, int64_t v)
{
    return (int64_t)atomicMin((long long *)p, (long long)v);
}

/* The root of x as far as this thread sees. Other threads link roots
 * meanwhile, and these plain reads may also return an older link (L1 is not
 * coherent between SMs): every link read was a real one at some time, and
 * unite checks the roots it acts on with its atomicMin.
 * HALVE: path halving, each visited node re-linked to its grandparent by a
 * plain write, as in ECL-CC (Jaiganesh and Burtscher, 2018). Safe with the
 * atomicMin links: a node's link only ever changes to another of its
 * ancestors, and a link a racing write overwrites was one a unite also reports
 * through atomicMin's return value and retries. For sets with long chains
 * (wide plateaus). */
template <bool HALVE, typename IT>
__device__ __forceinline__ IT
fv_cu_uf_find(IT *P, IT x)
{
    for (;;) {
        const IT p = P[x];
        if (p == x)
            return x;
        if (HALVE) {
            const IT g = P[p];
            if (g == p)
                return p;
            P[x] = g;
            x = g;
        } else {
            x = p;
        }
    }
}

template <typename IT>
__device__ __forceinline__ IT
fv_cu_label_find(const IT *P, IT x)
{
    return fv_cu_uf_find<false>(const_cast<IT *>(P), x);
}

/* Terminates: every retry lowers a + b (finds only move to smaller indices,
 * the retried root becomes the smaller value atomicMin returned). */
template <bool HALVE, typename IT>
__device__ void
fv_cu_uf_unite(IT *P, IT a, IT b)
{
    for (;;) {
        a = fv_cu_uf_find<HALVE>(P, a);
        b = fv_cu_uf_find<HALVE>(P, b);
        if (a == b)
            return;
        if (a < b) {
            IT old = fv_cu_label_amin(&P[b], a);
            if (old == b)
                return;
            b = old;
        } else {
            IT old = fv_cu_label_amin(&P[a], b);
            if (old == a)
                return;
            a = old;
        }
    }
}

template <typename IT>
__device__ __forceinline__ void
fv_cu_label_unite(IT *P, IT a, IT b)
{
    fv_cu_uf_unite<false>(P, a, b);
}

#endif
