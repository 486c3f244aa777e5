/* The op table and dispatch by where the data lives. The table is filled from
 * the kernels' FV_KERNEL declarations, which the build collects
 * (cmake/gen-registry.cmake): the CPU ones on first use, the CUDA ones when
 * fv__cuda_init finds a GPU. */
#include <pthread.h>
#include "internal.h"

fv__kernel fv__kernels[FV__OP_COUNT][FV__BACKEND_COUNT];

static const char *const fv__op_names[FV__OP_COUNT] = {
#define FV__OP_NAME(E, NAME, HAS_OUT) NAME,
    FV__OP_LIST(FV__OP_NAME)
#undef FV__OP_NAME
};

static const unsigned char fv__op_has_out[FV__OP_COUNT] = {
#define FV__OP_OUT(E, NAME, HAS_OUT) HAS_OUT,
    FV__OP_LIST(FV__OP_OUT)
#undef FV__OP_OUT
};

static pthread_once_t fv__cpu_once = PTHREAD_ONCE_INIT;

void
fv__register_kernels(const fv__kernel_decl *const *decls)
{
    for (; *decls; decls++)
        fv__kernels[(*decls)->op][(*decls)->backend] = (*decls)->kernel;
}

static void
fv__cpu_init(void)
{
    fv__register_kernels(fv__cpu_kernel_decls);
}

const char *
fv__op_name(fv__op op)
{
    return (unsigned)op < FV__OP_COUNT ? fv__op_names[op] : "?";
}

const char *
fv__backend_name(fv__backend_id be)
{
    return be == FV__BACKEND_CPU ? "cpu" : be == FV__BACKEND_CUDA ? "cuda" : "?";
}

fv__backend_id
fv__array_backend(const fv_array *a)
{
    return a->device.type == FV_DEVICE_CUDA ? FV__BACKEND_CUDA : FV__BACKEND_CPU;
}

fv_status
fv__dispatch(fv_context *ctx, fv__op op, const fv__op_args *a)
{
    const char *name = fv__op_name(op);
    if ((unsigned)op >= FV__OP_COUNT)
        return fv_error_set(FV_EINVAL, "dispatch", "no op %d", (int)op);
    pthread_once(&fv__cpu_once, fv__cpu_init);
    const int has_out = fv__op_has_out[op];
    if (!a->in || (has_out && !a->out))
        return fv_error_set(FV_EINVAL, name, "NULL array");
    if (!has_out && a->out)
        return fv_error_set(FV_EINVAL, name, "takes no out array (its results go through its params)");
    fv__backend_id be = fv__array_backend(a->in);
    if ((a->out && !fv__array_same_device(a->in, a->out)) || (a->in2 && !fv__array_same_device(a->in, a->in2)))
        return fv_error_set(FV_EDEVICE, name,
                            "arrays are on different devices (inputs and output must "
                            "share one; use fv_copy / fovea.to_device to move data)");
    if (be == FV__BACKEND_CUDA && !fv__cuda_init())
        return fv_error_set(FV_EDEVICE, name, "CUDA is not available: %s", fv__cuda_reason());
    if (a->out && a->out->readonly)
        return fv_error_set(FV_EINVAL, name, "output array is read-only");
    const fv__kernel *k = &fv__kernels[op][be];
    if (!k->fn)
        return fv_error_set(FV_ENOKERNEL, name, "no %s kernel", fv__backend_name(be));
    const fv_array *arrs[3] = { a->in, a->in2, a->out };
    for (int i = 0; i < 3; i++) {
        if (!arrs[i])
            continue;
        if (!(k->dtypes & FV_DTYPE_BIT(arrs[i]->dtype)))
            return fv_error_set(FV_EDTYPE, name, "dtype %s is not supported on %s", fv_dtype_name(arrs[i]->dtype),
                                fv__backend_name(be));
        if (arrs[i]->ndim > k->max_ndim)
            return fv_error_set(FV_EINVAL, name, "%d dimensions exceed the %s kernel's maximum of %d", arrs[i]->ndim,
                                fv__backend_name(be), k->max_ndim);
    }
    fv_status st = k->fn(ctx, a);
    if (be == FV__BACKEND_CUDA) { /* order the arrays' frees after this work */
        fv__cuda_mark_use(ctx, a->in);
        fv__cuda_mark_use(ctx, a->in2);
        fv__cuda_mark_use(ctx, a->out);
    }
    return st;
}
