/* fv_array: construction, views, reference counting, accessors. */
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "alloc.h"

#define FV__HOST_ALIGN 64

fv_status
fv__shape_size(const char *domain, int ndim, const int64_t *shape, size_t itemsize, int64_t *nelems, int64_t *nbytes)
{
    if (ndim < 0 || ndim > FV_MAX_NDIM)
        return fv_error_set(FV_EINVAL, domain, "ndim = %d is out of range (0..%d)", ndim, FV_MAX_NDIM);
    if (ndim > 0 && !shape)
        return fv_error_set(FV_EINVAL, domain, "shape is NULL");
    int64_t n = 1;
    int zero = 0;
    for (int i = 0; i < ndim; i++) {
        if (shape[i] < 0)
            return fv_error_set(FV_EINVAL, domain, "shape[%d] = %lld is negative", i, (long long)shape[i]);
        if (shape[i] == 0)
            zero = 1;
    }
    if (!zero)
        for (int i = 0; i < ndim; i++) {
            if (n > INT64_MAX / shape[i])
                return fv_error_set(FV_EINVAL, domain, "shape is too large (element count overflows)");
            n *= shape[i];
        }
    else
        n = 0;
    if (itemsize && n > INT64_MAX / (int64_t)itemsize)
        return fv_error_set(FV_EINVAL, domain, "shape is too large (byte size overflows)");
    if (nelems)
        *nelems = n;
    if (nbytes)
        *nbytes = n * (int64_t)itemsize;
    return FV_OK;
}

void
fv__array_extent(const fv_array *a, int64_t *lo, int64_t *hi)
{
    int64_t l = 0, h = 0;
    int empty = 0;
    for (int i = 0; i < a->ndim; i++) {
        if (a->shape[i] == 0)
            empty = 1;
        int64_t span = (a->shape[i] - 1) * a->strides[i];
        if (span < 0)
            l += span;
        else
            h += span;
    }
    if (empty) {
        *lo = *hi = 0;
        return;
    }
    *lo = l;
    *hi = h + (int64_t)fv_dtype_size(a->dtype);
}

int
fv__array_same_shape(const fv_array *a, const fv_array *b)
{
    if (a->ndim != b->ndim)
        return 0;
    for (int i = 0; i < a->ndim; i++)
        if (a->shape[i] != b->shape[i])
            return 0;
    return 1;
}

int
fv__array_same_device(const fv_array *a, const fv_array *b)
{
    return a->device.type == b->device.type && (a->device.type == FV_DEVICE_CPU || a->device.id == b->device.id);
}

int
fv__arrays_overlap(const fv_array *a, const fv_array *b)
{
    if (!a || !b || !fv__array_same_device(a, b))
        return 0;
    int64_t alo, ahi, blo, bhi;
    fv__array_extent(a, &alo, &ahi);
    fv__array_extent(b, &blo, &bhi);
    if (alo == ahi || blo == bhi)
        return 0;
    uintptr_t a0 = (uintptr_t)a->data + (uintptr_t)alo, a1 = (uintptr_t)a->data + (uintptr_t)ahi;
    uintptr_t b0 = (uintptr_t)b->data + (uintptr_t)blo, b1 = (uintptr_t)b->data + (uintptr_t)bhi;
    return a0 < b1 && b0 < a1;
}

int
fv__array_no_self_overlap(const fv_array *a)
{
    int64_t st[FV_MAX_NDIM], ext[FV_MAX_NDIM];
    int n = 0;
    for (int i = 0; i < a->ndim; i++) {
        if (a->shape[i] == 0)
            return 1;
        if (a->shape[i] == 1)
            continue;
        int64_t s = a->strides[i] < 0 ? -a->strides[i] : a->strides[i];
        int j = n++;
        for (; j > 0 && st[j - 1] > s; j--) {
            st[j] = st[j - 1];
            ext[j] = ext[j - 1];
        }
        st[j] = s;
        ext[j] = a->shape[i];
    }
    int64_t span = (int64_t)fv_dtype_size(a->dtype); /* bytes covered by the smaller axes */
    for (int j = 0; j < n; j++) {
        if (st[j] < span)
            return 0;
        span += st[j] * (ext[j] - 1);
    }
    return 1;
}

fv_status
fv__array_as_1d(const fv_array *a, fv_array **v)
{
    if (a->ndim > 0) {
        *v = fv_array_ref((fv_array *)a);
        return FV_OK;
    }
    int64_t shape[1] = { 1 }, strides[1] = { (int64_t)fv_dtype_size(a->dtype) };
    fv_status st = fv_array_view(a, 1, shape, strides, 0, v);
    if (!st && a->readonly)
        fv_array_set_readonly(*v, 1);
    return st;
}

static fv_array *
fv__array_alloc_struct(fv_dtype dtype, int ndim, const int64_t *shape, fv_device dev)
{
    fv_array *a = fv__calloc(1, sizeof *a);
    if (!a)
        return NULL;
    atomic_init(&a->refs, 1);
    a->dtype = dtype;
    a->ndim = ndim;
    a->device = dev;
    for (int i = 0; i < ndim; i++)
        a->shape[i] = shape[i];
    return a;
}

static void
fv__set_contiguous_strides(fv_array *a)
{
    int64_t s = (int64_t)fv_dtype_size(a->dtype);
    for (int i = a->ndim - 1; i >= 0; i--) {
        a->strides[i] = s;
        s *= a->shape[i] > 0 ? a->shape[i] : 1;
    }
}

static void
fv__host_free(void *data, void *opaque)
{
    (void)data;
    fv__free(opaque); /* the base of fv__host_buffer */
}

static fv_status
fv__check_device(const char *domain, fv_device dev)
{
    if (dev.type == FV_DEVICE_CPU)
        return FV_OK;
    if (dev.type == FV_DEVICE_CUDA)
        return fv__cuda_check_device(dev.id);
    return fv_error_set(FV_EDEVICE, domain, "unknown device type %d", (int)dev.type);
}

fv_status
fv_array_new(fv_context *ctx, fv_dtype dtype, int ndim, const int64_t *shape, fv_device dev, fv_array **out)
{
    fv_status st;
    int64_t nbytes;
    if (!out)
        return fv_error_set(FV_EINVAL, "array_new", "out is NULL");
    *out = NULL;
    if (!fv_dtype_is_valid(dtype))
        return fv_error_set(FV_EDTYPE, "array_new", "invalid dtype %d", (int)dtype);
    if ((st = fv__shape_size("array_new", ndim, shape, fv_dtype_size(dtype), NULL, &nbytes)))
        return st;
    if ((st = fv__check_device("array_new", dev)))
        return st;
    fv_array *a = fv__array_alloc_struct(dtype, ndim, shape, dev);
    if (!a)
        return fv_error_set(FV_ENOMEM, "array_new", "out of host memory");
    fv__set_contiguous_strides(a);
    if (dev.type == FV_DEVICE_CPU) {
        size_t sz = ((size_t)nbytes + FV__HOST_ALIGN - 1) / FV__HOST_ALIGN * FV__HOST_ALIGN;
        if ((uint64_t)nbytes > SIZE_MAX - FV__HOST_ALIGN)
            sz = 0;
        a->data = fv__host_buffer(FV__HOST_ALIGN, sz ? sz : FV__HOST_ALIGN, &a->opaque);
        if (!a->data || (nbytes && !sz)) {
            fv__free(a->opaque);
            fv__free(a);
            return fv_error_set(FV_ENOMEM, "array_new", "cannot allocate %lld bytes of host memory", (long long)nbytes);
        }
        a->deleter = fv__host_free;
    } else {
        void *ptr = NULL, *opaque = NULL;
        if ((st = fv__cuda_alloc(ctx, dev.id, (size_t)nbytes, &ptr, &opaque))) {
            fv__free(a);
            return st;
        }
        a->data = ptr;
        a->opaque = opaque;
        a->deleter = fv__cuda_free;
    }
    *out = a;
    return FV_OK;
}

fv_status
fv_array_zeros(fv_context *ctx, fv_dtype dtype, int ndim, const int64_t *shape, fv_device dev, fv_array **out)
{
    fv_status st = fv_array_new(ctx, dtype, ndim, shape, dev, out);
    if (st)
        return st;
    size_t n = (size_t)fv_array_nbytes(*out);
    if (dev.type == FV_DEVICE_CPU)
        memset((*out)->data, 0, n);
    else if ((st = fv__cuda_memset0(ctx, (*out)->data, n))) {
        fv_array_unref(*out);
        *out = NULL;
    } else {
        fv__cuda_mark_use(ctx, *out);
    }
    return st;
}

fv_status
fv_array_wrap(fv_dtype dtype, int ndim, const int64_t *shape, const int64_t *strides, void *data, fv_device dev,
              fv_deleter deleter, void *opaque, fv_array **out)
{
    fv_status st;
    int64_t n;
    fv_array *a = NULL;
    if (!out) {
        st = fv_error_set(FV_EINVAL, "array_wrap", "out is NULL");
        goto fail;
    }
    *out = NULL;
    if (!fv_dtype_is_valid(dtype)) {
        st = fv_error_set(FV_EDTYPE, "array_wrap", "invalid dtype %d", (int)dtype);
        goto fail;
    }
    if ((st = fv__shape_size("array_wrap", ndim, shape, fv_dtype_size(dtype), &n, NULL)))
        goto fail;
    if (dev.type != FV_DEVICE_CPU && dev.type != FV_DEVICE_CUDA) {
        st = fv_error_set(FV_EDEVICE, "array_wrap", "unknown device type %d", (int)dev.type);
        goto fail;
    }
    if (!data && n > 0) {
        st = fv_error_set(FV_EINVAL, "array_wrap", "data is NULL for a non-empty array (freed buffer?)");
        goto fail;
    }
    if ((uintptr_t)data % fv_dtype_size(dtype)) {
        st = fv_error_set(FV_EINVAL, "array_wrap", "data pointer %p is not aligned to the item size %zu", data,
                          fv_dtype_size(dtype));
        goto fail;
    }
    if (strides) {
        int64_t isz = (int64_t)fv_dtype_size(dtype);
        for (int i = 0; i < ndim; i++)
            if (strides[i] % isz) {
                st = fv_error_set(FV_EINVAL, "array_wrap",
                                  "strides[%d] = %lld is not a multiple of the "
                                  "item size %lld",
                                  i, (long long)strides[i], (long long)isz);
                goto fail;
            }
    }
    if (!(a = fv__array_alloc_struct(dtype, ndim, shape, dev))) {
        st = fv_error_set(FV_ENOMEM, "array_wrap", "out of host memory");
        goto fail;
    }
    if (strides)
        memcpy(a->strides, strides, (size_t)ndim * sizeof *strides);
    else
        fv__set_contiguous_strides(a);
    /* the byte extent must be representable */
    for (int i = 0; i < ndim; i++)
        if (a->shape[i] > 1 &&
            (a->strides[i] > INT64_MAX / a->shape[i] || a->strides[i] < -(INT64_MAX / a->shape[i]))) {
            fv__free(a);
            a = NULL;
            st = fv_error_set(FV_EINVAL, "array_wrap", "strides[%d] overflow the address range", i);
            goto fail;
        }
    a->data = data;
    a->deleter = deleter;
    a->opaque = opaque;
    *out = a;
    return FV_OK;
fail:
    if (deleter)
        deleter(data, opaque);
    return st;
}

fv_status
fv_array_view(const fv_array *base, int ndim, const int64_t *shape, const int64_t *strides, int64_t byte_offset,
              fv_array **out)
{
    fv_status st;
    if (!out)
        return fv_error_set(FV_EINVAL, "array_view", "out is NULL");
    *out = NULL;
    if (!base)
        return fv_error_set(FV_EINVAL, "array_view", "base is NULL");
    if ((st = fv__shape_size("array_view", ndim, shape, fv_dtype_size(base->dtype), NULL, NULL)))
        return st;
    fv_array tmp = { 0 };
    tmp.dtype = base->dtype;
    tmp.ndim = ndim;
    int64_t isz = (int64_t)fv_dtype_size(base->dtype);
    for (int i = 0; i < ndim; i++) {
        tmp.shape[i] = shape[i];
        if (strides && strides[i] % isz)
            return fv_error_set(FV_EINVAL, "array_view",
                                "strides[%d] = %lld is not a multiple of the "
                                "item size %lld",
                                i, (long long)strides[i], (long long)isz);
        if (strides && shape[i] > 1 && (strides[i] > INT64_MAX / shape[i] || strides[i] < -(INT64_MAX / shape[i])))
            return fv_error_set(FV_EINVAL, "array_view", "strides[%d] overflow the address range", i);
    }
    if (byte_offset % isz)
        return fv_error_set(FV_EINVAL, "array_view", "byte_offset %lld is not a multiple of the item size %lld",
                            (long long)byte_offset, (long long)isz);
    if (strides)
        memcpy(tmp.strides, strides, (size_t)ndim * sizeof *strides);
    else
        fv__set_contiguous_strides(&tmp);
    int64_t blo, bhi, vlo, vhi;
    fv__array_extent(base, &blo, &bhi);
    fv__array_extent(&tmp, &vlo, &vhi);
    if (vhi > vlo && (byte_offset + vlo < blo || byte_offset + vhi > bhi))
        return fv_error_set(FV_EINVAL, "array_view",
                            "view [%lld, %lld) lies outside its base's bytes "
                            "[%lld, %lld)",
                            (long long)(byte_offset + vlo), (long long)(byte_offset + vhi), (long long)blo,
                            (long long)bhi);
    fv_array *a = fv__array_alloc_struct(base->dtype, ndim, shape, base->device);
    if (!a)
        return fv_error_set(FV_ENOMEM, "array_view", "out of host memory");
    memcpy(a->strides, tmp.strides, sizeof a->strides);
    a->data = base->data + byte_offset;
    a->readonly = base->readonly;
    fv_array *owner = base->base ? base->base : (fv_array *)base;
    a->base = fv_array_ref(owner);
    *out = a;
    return FV_OK;
}

fv_array *
fv_array_ref(fv_array *a)
{
    if (a)
        atomic_fetch_add_explicit(&a->refs, 1, memory_order_relaxed);
    return a;
}

void
fv_array_unref(fv_array *a)
{
    if (!a)
        return;
    if (atomic_fetch_sub_explicit(&a->refs, 1, memory_order_acq_rel) != 1)
        return;
    if (a->base)
        fv_array_unref(a->base);
    else if (a->deleter)
        a->deleter(a->data, a->opaque);
    fv__free(a);
}

fv_dtype
fv_array_dtype(const fv_array *a)
{
    return a->dtype;
}
int
fv_array_ndim(const fv_array *a)
{
    return a->ndim;
}
const int64_t *
fv_array_shape(const fv_array *a)
{
    return a->shape;
}
const int64_t *
fv_array_strides(const fv_array *a)
{
    return a->strides;
}
void *
fv_array_data(const fv_array *a)
{
    return a->data;
}
fv_device
fv_array_device(const fv_array *a)
{
    return a->device;
}
int
fv_array_refcount(const fv_array *a)
{
    return atomic_load(&((fv_array *)a)->refs);
}
void
fv_array_set_readonly(fv_array *a, int readonly)
{
    a->readonly = readonly != 0;
}
int
fv_array_readonly(const fv_array *a)
{
    return a->readonly;
}

int64_t
fv_array_size(const fv_array *a)
{
    int64_t n = 1;
    for (int i = 0; i < a->ndim; i++)
        n *= a->shape[i];
    return n;
}

int64_t
fv_array_nbytes(const fv_array *a)
{
    return fv_array_size(a) * (int64_t)fv_dtype_size(a->dtype);
}

int
fv_array_is_contiguous(const fv_array *a)
{
    int64_t s = (int64_t)fv_dtype_size(a->dtype);
    for (int i = a->ndim - 1; i >= 0; i--) {
        if (a->shape[i] == 0)
            return 1;
        if (a->shape[i] != 1 && a->strides[i] != s)
            return 0;
        s *= a->shape[i];
    }
    return 1;
}

fv_status
fv_broadcast_shapes(int na, const int64_t *sa, int nb, const int64_t *sb, int *nout, int64_t *out)
{
    if (na < 0 || na > FV_MAX_NDIM || nb < 0 || nb > FV_MAX_NDIM)
        return fv_error_set(FV_EINVAL, "broadcast", "ndim out of range (0..%d)", FV_MAX_NDIM);
    int n = na > nb ? na : nb;
    for (int i = 0; i < n; i++) {
        int ia = i - (n - na), ib = i - (n - nb);
        int64_t da = ia >= 0 ? sa[ia] : 1, db = ib >= 0 ? sb[ib] : 1;
        if (da != db && da != 1 && db != 1)
            return fv_error_set(FV_EINVAL, "broadcast",
                                "shapes cannot be broadcast together: axis %d "
                                "has sizes %lld and %lld",
                                i, (long long)da, (long long)db);
        out[i] = da == 1 ? db : da;
    }
    *nout = n;
    return FV_OK;
}
