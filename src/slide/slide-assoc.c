/* Slide associated images (label, macro, thumbnail): lookup, size, read. */
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "internal.h"
#include "codec/codec.h"
#include "tiff/tiff.h"
#include "cache.h"
#include "alloc.h"
#include "slide-internal.h"

static const fv__assoc_desc *
fv__find_assoc(const fv_slide *s, const char *name)
{
    for (int i = 0; name && i < s->layout.nassoc; i++)
        if (!strcmp(s->layout.assoc[i].name, name))
            return &s->layout.assoc[i];
    return NULL;
}

/* Width, height and components of a JPEG stream from its SOF marker. */
static fv_status
fv__jpeg_size(const uint8_t *p, size_t n, int64_t *w, int64_t *h, int *comps)
{
    size_t i = 2;
    if (n < 4 || p[0] != 0xFF || p[1] != 0xD8)
        return fv_error_set(FV_EFORMAT, "associated", "not a JPEG stream");
    while (i + 4 <= n) {
        if (p[i] != 0xFF) {
            i++;
            continue;
        }
        uint8_t m = p[i + 1];
        if (m == 0xFF) {
            i++;
            continue;
        }
        size_t len = (size_t)p[i + 2] << 8 | p[i + 3];
        if (m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC) {
            if (i + 9 >= n || len < 8)
                break;
            *h = (int64_t)p[i + 5] << 8 | p[i + 6];
            *w = (int64_t)p[i + 7] << 8 | p[i + 8];
            *comps = p[i + 9];
            return FV_OK;
        }
        i += 2 + len;
    }
    return fv_error_set(FV_EFORMAT, "associated", "JPEG stream without a frame header");
}

fv_status
fv_slide_associated_size(const fv_slide *s, const char *name, int64_t *width, int64_t *height)
{
    if (!s)
        return fv_error_set(FV_EINVAL, "associated", "slide is NULL");
    const fv__assoc_desc *a = fv__find_assoc(s, name);
    if (!a)
        return fv_error_set(FV_EINVAL, "associated", "no associated image named '%s'", name ? name : "(null)");
    if (a->ifd >= 0) {
        *width = (int64_t)s->tiff->ifds[a->ifd].width;
        *height = (int64_t)s->tiff->ifds[a->ifd].height;
        return FV_OK;
    }
    int comps;
    return fv__jpeg_size(a->jpeg, a->jpeg_len, width, height, &comps);
}

fv_status
fv_slide_read_associated(fv_slide *s, const char *name, fv_pixel_format format, fv_array *out)
{
    fv_status st;
    int64_t w, h;
    if (format != FV_PIXEL_RGB && format != FV_PIXEL_RGBA)
        return fv_error_set(FV_EINVAL, "associated", "format must be RGB or RGBA");
    if ((st = fv_slide_associated_size(s, name, &w, &h)))
        return st;
    const fv__assoc_desc *a = fv__find_assoc(s, name);
    if (a->ifd >= 0)
        return fv__read_ifd_region(s, NULL, a->ifd, w, h, 0, 0, w, h, format, 0, 1, NULL, out);
    /* a JPEG held in the metadata (Philips) */
    int comps;
    fv__jpeg_size(a->jpeg, a->jpeg_len, &w, &h, &comps);
    int64_t shape[3];
    fv_dtype dt;
    if ((st = fv_slide_region_shape(s, w, h, format, shape, &dt)))
        return st;
    if (!out || out->device.type != FV_DEVICE_CPU || out->ndim != 3 || out->shape[0] != h || out->shape[1] != w ||
        out->shape[2] != shape[2] || out->dtype != FV_UINT8 || !fv_array_is_contiguous(out))
        return fv_error_set(FV_EINVAL, "associated",
                            "out must be a contiguous host uint8 array of shape "
                            "(%lld, %lld, %lld)",
                            (long long)h, (long long)w, (long long)shape[2]);
    if ((st = fv__slide_failed(s))) {
        memset(out->data, 0, (size_t)(w * h * shape[2]));
        return st;
    }
    fv__chunk_info ci = { .width = (uint32_t)w,
                          .height = (uint32_t)h,
                          .samples = (uint16_t)comps,
                          .bits = 8,
                          .sample_format = 1,
                          .compression = FV_TIFF_COMPRESSION_JPEG,
                          .photometric = comps == 3 ? FV_TIFF_PHOTOMETRIC_YCBCR : FV_TIFF_PHOTOMETRIC_MINISBLACK,
                          .predictor = 1 };
    size_t nbytes;
    fv__tile *t = NULL;
    if (!(st = fv__chunk_bytes(&ci, &nbytes)) && !(t = fv__tile_new(nbytes)))
        st = fv_error_set(FV_ENOMEM, "associated", "out of host memory");
    if (!st)
        st = fv__codec_decode(&ci, a->jpeg, a->jpeg_len, t->data, nbytes);
    if (st) { /* as read_region: a failed read leaves zeros */
        fv__tile_unref(t);
        memset(out->data, 0, (size_t)(w * h * shape[2]));
        return st;
    }
    fv__region_job j = {
        .s = s, .w = w, .h = h, .format = format, .out = (uint8_t *)out->data, .out_c = (int)shape[2], .out_isz = 1
    };
    fv__blit(&j, t, (int)w, comps, 1, 0, 0, 0, 0, w, h);
    fv__tile_unref(t);
    return FV_OK;
}
