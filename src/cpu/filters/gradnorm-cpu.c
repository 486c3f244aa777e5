/* CPU kernel of FV__OP_GRADIENT_NORM (fv_gradient_norm): the folded geometry's
 * lines (cut into pieces when there are few) on the thread pool.
 *
 * A contiguous, aligned line runs in blocks of FV__GN_BLOCK elements: the
 * squares of part 0 into a block accumulator, each further part's squares added
 * in part order, then sqrt (and the division) into out; every loop is a plain
 * elementwise loop the compiler vectorises (sqrtps / sqrtpd: this file is built
 * with -fno-math-errno). Other lines go element by element with unaligned-safe
 * loads. Either way each step is one IEEE operation rounded in the dtype, in
 * NumPy's order; this file is built with -ffp-contract=off (CMakeLists.txt) and
 * filters-cpu.h turns STDC FP_CONTRACT OFF for clang, so no square is fused
 * into the following sum. */
#include <math.h>
#include <string.h>
#include "filters-cpu.h"
#include "ops/filters/gradnorm.h"

#define FV__GN_BLOCK 512
#define FV__GN_MIN_WORK 32768 /* elements per task, at least */

typedef struct fv__gn_cpu {
    const fv__gradnorm_job *j;
    int64_t pieces; /* pieces each line is cut into */
    int64_t piece;  /* elements per piece */
} fv__gn_cpu;

/* fv__gn_line_<S>(j, ptr, n): n elements from the operand pointers ptr (out
 * first) with the job's innermost strides. */
#define FV__GN_DEFINE(T, S, SQRT)                                                           \
    static void fv__gn_line_##S(const fv__gradnorm_job *j, char *const *ptr, int64_t n)     \
    {                                                                                       \
        const int np = j->nparts, last = j->ndim - 1, has_div = j->has_div;                 \
        const T d = (T)j->div;                                                              \
        int dense = 1;                                                                      \
        for (int k = 0; k <= np; k++)                                                       \
            if (j->strides[k][last] != (int64_t)sizeof(T) || (uintptr_t)ptr[k] % sizeof(T)) \
                dense = 0;                                                                  \
        if (dense) {                                                                        \
            T acc[FV__GN_BLOCK];                                                            \
            for (int64_t i0 = 0; i0 < n; i0 += FV__GN_BLOCK) {                              \
                const int m = (int)(n - i0 < FV__GN_BLOCK ? n - i0 : FV__GN_BLOCK);         \
                const T *a = (const T *)ptr[1] + i0;                                        \
                for (int i = 0; i < m; i++)                                                 \
                    acc[i] = a[i] * a[i];                                                   \
                for (int k = 2; k <= np; k++) {                                             \
                    const T *b = (const T *)ptr[k] + i0;                                    \
                    for (int i = 0; i < m; i++) {                                           \
                        const T t = b[i] * b[i];                                            \
                        acc[i] = acc[i] + t;                                                \
                    }                                                                       \
                }                                                                           \
                T *o = (T *)ptr[0] + i0;                                                    \
                if (has_div)                                                                \
                    for (int i = 0; i < m; i++)                                             \
                        o[i] = SQRT(acc[i]) / d;                                            \
                else                                                                        \
                    for (int i = 0; i < m; i++)                                             \
                        o[i] = SQRT(acc[i]);                                                \
            }                                                                               \
            return;                                                                         \
        }                                                                                   \
        for (int64_t i = 0; i < n; i++) {                                                   \
            T x, s;                                                                         \
            memcpy(&x, ptr[1] + i * j->strides[1][last], sizeof x);                         \
            s = x * x;                                                                      \
            for (int k = 2; k <= np; k++) {                                                 \
                memcpy(&x, ptr[k] + i * j->strides[k][last], sizeof x);                     \
                const T t = x * x;                                                          \
                s = s + t;                                                                  \
            }                                                                               \
            T r = SQRT(s);                                                                  \
            if (has_div)                                                                    \
                r = r / d;                                                                  \
            memcpy(ptr[0] + i * j->strides[0][last], &r, sizeof r);                         \
        }                                                                                   \
    }
FV__GN_DEFINE(float, f, sqrtf)
FV__GN_DEFINE(double, d, sqrt)

static void
fv__gn_range(void *arg, int64_t begin, int64_t end)
{
    const fv__gn_cpu *c = (const fv__gn_cpu *)arg;
    const fv__gradnorm_job *j = c->j;
    const int last = j->ndim - 1, nops = j->nparts + 1;
    const int64_t len = j->shape[last];
    for (int64_t item = begin; item < end; item++) {
        const int64_t line = item / c->pieces, piece = item - line * c->pieces;
        const int64_t start = piece * c->piece, n = len - start < c->piece ? len - start : c->piece;
        int64_t off[FV__GRADNORM_MAX_PARTS + 1];
        for (int k = 0; k < nops; k++)
            off[k] = start * j->strides[k][last];
        int64_t rem = line;
        for (int d = last - 1; d >= 0; d--) {
            const int64_t idx = rem % j->shape[d];
            rem /= j->shape[d];
            for (int k = 0; k < nops; k++)
                off[k] += idx * j->strides[k][d];
        }
        char *ptr[FV__GRADNORM_MAX_PARTS + 1];
        for (int k = 0; k < nops; k++)
            ptr[k] = j->ptr[k] + off[k];
        if (j->is_double)
            fv__gn_line_d(j, ptr, n);
        else
            fv__gn_line_f(j, ptr, n);
    }
}

static fv_status
fv__cpu_gradient_norm(fv_context *ctx, const fv__op_args *a)
{
    const fv__gradnorm_job *j = (const fv__gradnorm_job *)a->params;
    if (j->size == 0)
        return FV_OK;
    const int64_t len = j->shape[j->ndim - 1], lines = j->size / len;
    fv__gn_cpu c = { .j = j };
    int64_t grain;
    fv__cpu_line_pieces(ctx, lines, len, FV__GN_MIN_WORK, FV__GN_BLOCK, &c.pieces, &c.piece, &grain);
    fv__parallel_for(ctx, lines * c.pieces, grain, fv__gn_range, &c);
    return FV_OK;
}

FV_KERNEL(GRADIENT_NORM, CPU, FV_DTYPE_BIT(FV_FLOAT32) | FV_DTYPE_BIT(FV_FLOAT64), FV_MAX_NDIM, fv__cpu_gradient_norm);
