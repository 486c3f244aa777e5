/* fv_hough_line, fv_hough_circle, fv_probabilistic_hough_line: validate, make
 * the image contiguous, derive the kernel parameters (the circles' points),
 * dispatch (include/fovea/transform.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "fovea/transform.h"
#include "ops/transform/hough.h"
#include "ops/morphology/skmorphology.h" /* fv__skm_contig */

/* Checks shared by the three: a 2-d image, an output of dtype dt, ndim nd and
 * shape[0..nd), C-contiguous, on the image's device, not overlapping it. */
static fv_status
fv__hough_check(const char *name, const fv_array *image, const fv_array *out, fv_dtype dt, int nd, const int64_t *shape)
{
    if (!image || !out)
        return fv_error_set(FV_EINVAL, name, "NULL array");
    if (image->ndim != 2)
        return fv_error_set(FV_EINVAL, name, "the image must be 2-d, got %d dimensions", image->ndim);
    if (out->dtype != dt)
        return fv_error_set(FV_EDTYPE, name, "the output must be %s, got %s", fv_dtype_name(dt),
                            fv_dtype_name(out->dtype));
    if (out->ndim != nd)
        return fv_error_set(FV_EINVAL, name, "the output must be %d-d", nd);
    for (int d = 0; d < nd; d++)
        if (out->shape[d] != shape[d])
            return fv_error_set(FV_EINVAL, name, "output axis %d has %lld elements, expected %lld", d,
                                (long long)out->shape[d], (long long)shape[d]);
    if (!fv_array_is_contiguous(out))
        return fv_error_set(FV_EINVAL, name, "the output must be C-contiguous");
    if (!fv__array_same_device(image, out))
        return fv_error_set(FV_EDEVICE, name, "the image and the output are on different devices");
    if (fv__arrays_overlap(image, out))
        return fv_error_set(FV_EINVAL, name, "the output overlaps the image");
    if (image->shape[0] > INT32_MAX || image->shape[1] > INT32_MAX)
        return fv_error_set(FV_EINVAL, name, "image sides beyond 2^31 - 1 pixels");
    return FV_OK;
}

/* Zeroes out (host or device). */
static fv_status
fv__hough_zero(fv_context *ctx, fv_array *out)
{
    size_t n = (size_t)fv_array_size(out) * fv_dtype_size(out->dtype);
    if (!n)
        return FV_OK;
    if (out->device.type == FV_DEVICE_CUDA)
        return fv__cuda_memset0(ctx, out->data, n);
    memset(out->data, 0, n);
    return FV_OK;
}

/* Runs op e on the contiguous copy of image (out zeroed first when the image has no pixels). */
static fv_status
fv__hough_run(fv_context *ctx, int e, const fv_array *image, const fv_array *in2, fv_array *out, void *params)
{
    fv_array *in = NULL;
    fv_status st;
    if (fv_array_size(image) == 0 || fv_array_size(out) == 0)
        return fv__hough_zero(ctx, out);
    if ((st = fv__skm_contig(ctx, image, &in)))
        return st;
    fv__op_args a = { .in = in, .in2 = in2, .out = out, .params = params };
    st = fv__dispatch(ctx, (fv__op)e, &a);
    fv_array_unref(in);
    return st;
}

fv_status
fv_hough_line(fv_context *ctx, const fv_array *image, const double *cos_t, const double *sin_t, int64_t ntheta,
              fv_array *out)
{
    const char *name = "hough_line";
    fv_status st;
    if (ntheta < 0 || (ntheta > 0 && (!cos_t || !sin_t)))
        return fv_error_set(FV_EINVAL, name, "ntheta = %lld with%s cosines and sines", (long long)ntheta,
                            cos_t && sin_t ? "" : "out");
    if (!image)
        return fv_error_set(FV_EINVAL, name, "NULL array");
    int64_t offset = 0;
    if (image->ndim == 2)
        offset = (int64_t)ceil(sqrt((double)image->shape[0] * (double)image->shape[0] +
                                    (double)image->shape[1] * (double)image->shape[1]));
    const int64_t shape[2] = { 2 * offset + 1, ntheta };
    if ((st = fv__hough_check(name, image, out, FV_UINT64, 2, shape)))
        return st;
    for (int64_t j = 0; j < ntheta; j++)
        if (!isfinite(cos_t[j]) || !isfinite(sin_t[j]) || fabs(cos_t[j]) > 1.0 || fabs(sin_t[j]) > 1.0)
            return fv_error_set(FV_EINVAL, name, "angle %lld: cosine and sine must be finite and in [-1, 1]",
                                (long long)j);
    fv__hough_line_params p = { ntheta, offset, cos_t, sin_t };
    return fv__hough_run(ctx, FV__OP_HOUGH_LINE, image, NULL, out, &p);
}

/* scikit-image's circle_perimeter(0, 0, radius) (Bresenham): appends its points
 * to pts (room for 8 * (radius + 1) pairs) and returns their number. */
static int64_t
fv__circle_points(int64_t radius, int32_t *pts)
{
    int64_t c = 0, r = radius, d = 3 - 2 * radius, n = 0;
    while (r >= c) {
        const int64_t rr[8] = { r, -r, r, -r, c, -c, c, -c };
        const int64_t cc[8] = { c, c, -c, -c, r, r, -r, -r };
        for (int k = 0; k < 8; k++) {
            pts[2 * n] = (int32_t)rr[k];
            pts[2 * n + 1] = (int32_t)cc[k];
            n++;
        }
        if (d < 0)
            d += 4 * c + 6;
        else {
            d += 4 * (c - r) + 10;
            r -= 1;
        }
        c += 1;
    }
    return n;
}

/* Orders circle points by row offset, then column (the CPU kernel's bands need
 * the first; the counts do not depend on the order). */
static int
fv__pt_cmp(const void *a, const void *b)
{
    const int32_t *u = a, *v = b;
    if (u[0] != v[0])
        return u[0] < v[0] ? -1 : 1;
    return u[1] < v[1] ? -1 : u[1] > v[1];
}

fv_status
fv_hough_circle(fv_context *ctx, const fv_array *image, const int64_t *radii, int64_t nradii, int64_t offset,
                int normalize, fv_array *out, int64_t *npoints)
{
    const char *name = "hough_circle";
    fv_status st;
    if (nradii < 0 || (nradii > 0 && !radii))
        return fv_error_set(FV_EINVAL, name, "nradii = %lld with%s radii", (long long)nradii, radii ? "" : "out");
    if (!image)
        return fv_error_set(FV_EINVAL, name, "NULL array");
    if (offset < 0 || offset > INT32_MAX / 4)
        return fv_error_set(FV_EINVAL, name, "offset = %lld must be in 0..2^29", (long long)offset);
    int64_t total = 0;
    for (int64_t i = 0; i < nradii; i++) {
        if (radii[i] > INT32_MAX / 4)
            return fv_error_set(FV_EINVAL, name, "radius %lld beyond 2^29", (long long)radii[i]);
        if (radii[i] >= 0)
            total += 8 * (radii[i] + 1);
        if (total > ((int64_t)1 << 40))
            return fv_error_set(FV_EINVAL, name, "too many circle points");
    }
    const int64_t shape[3] = { nradii, image->ndim == 2 ? image->shape[0] + 2 * offset : 0,
                               image->ndim == 2 ? image->shape[1] + 2 * offset : 0 };
    if ((st = fv__hough_check(name, image, out, FV_FLOAT64, 3, shape)))
        return st;
    int32_t *pts = malloc((size_t)(total > 0 ? total : 1) * 2 * sizeof(int32_t));
    int64_t *start = malloc((size_t)(nradii + 1) * sizeof(int64_t));
    double *sums = normalize ? malloc((size_t)(total + nradii + 1) * sizeof(double)) : NULL;
    if (!pts || !start || (normalize && !sums)) {
        free(pts);
        free(start);
        free(sums);
        return fv_error_set(FV_ENOMEM, name, "out of memory for the circles");
    }
    start[0] = 0;
    for (int64_t i = 0; i < nradii; i++) {
        int64_t n = radii[i] >= 0 ? fv__circle_points(radii[i], pts + 2 * start[i]) : 0;
        qsort(pts + 2 * start[i], (size_t)n, 2 * sizeof(int32_t), fv__pt_cmp);
        start[i + 1] = start[i] + n;
        if (npoints)
            npoints[i] = n;
        if (sums) {
            /* no vote lands twice from one (pixel, point) pair: at most n votes a
             * cell; scikit-image adds 1 / n per vote, so k votes give the k-th
             * running sum (cdivision: inf for an empty circle, never added) */
            double *t = sums + start[i] + i, incr = 1.0 / (double)n;
            t[0] = 0.0;
            for (int64_t k = 1; k <= n; k++)
                t[k] = t[k - 1] + incr;
        }
    }
    fv__hough_circle_params p = { nradii, offset, pts, start, sums };
    st = fv__hough_run(ctx, FV__OP_HOUGH_CIRCLE, image, NULL, out, &p);
    free(pts);
    free(start);
    free(sums);
    return st;
}

fv_status
fv_probabilistic_hough_line(fv_context *ctx, const fv_array *image, const fv_array *order, int64_t threshold,
                            int64_t line_length, int64_t line_gap, const double *cos_t, const double *sin_t,
                            int64_t ntheta, fv_array *lines, int64_t *nlines)
{
    const char *name = "probabilistic_hough_line";
    fv_status st;
    if (!order || !nlines || !lines)
        return fv_error_set(FV_EINVAL, name, "NULL argument");
    *nlines = 0;
    if (ntheta < 0 || (ntheta > 0 && (!cos_t || !sin_t)))
        return fv_error_set(FV_EINVAL, name, "ntheta = %lld with%s cosines and sines", (long long)ntheta,
                            cos_t && sin_t ? "" : "out");
    const int64_t shape[2] = { lines->ndim == 2 ? lines->shape[0] : 0, 4 };
    if ((st = fv__hough_check(name, image, lines, FV_INT64, 2, shape)))
        return st;
    if (image->device.type != FV_DEVICE_CPU || order->device.type != FV_DEVICE_CPU)
        return fv_error_set(FV_EDEVICE, name, "host arrays only");
    if (order->dtype != FV_INT64 || order->ndim != 1 || !fv_array_is_contiguous(order))
        return fv_error_set(FV_EINVAL, name, "order must be a contiguous 1-d int64 array");
    for (int64_t j = 0; j < ntheta; j++)
        if (!isfinite(cos_t[j]) || !isfinite(sin_t[j]) || fabs(cos_t[j]) > 1.0 || fabs(sin_t[j]) > 1.0)
            return fv_error_set(FV_EINVAL, name, "angle %lld: cosine and sine must be finite and in [-1, 1]",
                                (long long)j);
    if (line_gap < 0)
        line_gap = 0; /* a gap of one pixel ends the line either way */
    if (fv_array_size(image) == 0 || lines->shape[0] == 0)
        return FV_OK;
    fv__phough_params p = { threshold, line_length, line_gap, ntheta, cos_t, sin_t, nlines };
    return fv__hough_run(ctx, FV__OP_PHOUGH_LINE, image, order, lines, &p);
}
