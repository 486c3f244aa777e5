/* Iteration geometry shared by the elementwise kernels of both backends. */
#include <string.h>
#include "internal.h"

fv_status
fv__geom_init(fv__geom *g, const char *domain, const fv_array *out, int nin, const fv_array *const *ins)
{
    const fv_array *ops[FV__MAX_OPERANDS];
    int nops = nin + 1;
    if (nin < 0 || nops > FV__MAX_OPERANDS)
        return fv_error_set(FV_EINTERNAL, domain, "geom: %d operands", nops);
    ops[0] = out;
    for (int k = 0; k < nin; k++)
        ops[k + 1] = ins[k];
    memset(g, 0, sizeof *g);
    g->nops = nops;

    /* broadcast each operand to out's shape (right-aligned) */
    int nd = out->ndim;
    int64_t shape[FV_MAX_NDIM], strides[FV__MAX_OPERANDS][FV_MAX_NDIM];
    for (int k = 0; k < nops; k++) {
        const fv_array *a = ops[k];
        if (a->ndim > nd)
            return fv_error_set(FV_EINVAL, domain, "operand has %d dimensions, output only %d", a->ndim, nd);
        for (int i = 0; i < nd; i++) {
            int ia = i - (nd - a->ndim);
            int64_t ext = ia >= 0 ? a->shape[ia] : 1;
            if (ext != out->shape[i] && ext != 1)
                return fv_error_set(FV_EINVAL, domain,
                                    "operand of extent %lld on axis %d cannot broadcast "
                                    "to the output's %lld",
                                    (long long)ext, i, (long long)out->shape[i]);
            strides[k][i] = (ia >= 0 && ext != 1) ? a->strides[ia] : 0;
        }
    }
    int64_t size = 1;
    for (int i = 0; i < nd; i++) {
        shape[i] = out->shape[i];
        size *= shape[i];
    }
    g->size = size;
    if (size == 0) {
        g->ndim = 1;
        g->shape[0] = 0;
        return FV_OK;
    }
    /* drop extent-1 axes, then merge axis pairs contiguous for every operand */
    int m = 0;
    for (int i = 0; i < nd; i++) {
        if (shape[i] == 1)
            continue;
        if (m > 0) {
            int merge = 1;
            for (int k = 0; k < nops; k++)
                if (g->strides[k][m - 1] != strides[k][i] * shape[i])
                    merge = 0;
            if (merge) {
                g->shape[m - 1] *= shape[i];
                for (int k = 0; k < nops; k++)
                    g->strides[k][m - 1] = strides[k][i];
                continue;
            }
        }
        g->shape[m] = shape[i];
        for (int k = 0; k < nops; k++)
            g->strides[k][m] = strides[k][i];
        m++;
    }
    if (m == 0) {
        g->shape[0] = 1;
        m = 1;
    }
    g->ndim = m;
    return FV_OK;
}
