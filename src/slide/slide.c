/* Slide handles: open / close, levels, properties, the metadata JSON. Chunk
 * decoding is in slide-chunk.c, read_region in slide-region.c, associated images
 * in slide-assoc.c. */
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

#define FV__MAX_REGION_PIXELS ((int64_t)1 << 34) /* 16 Gpixel: a hostile size is refused */


/* ---- small helpers --------------------------------------------------------------- */

typedef struct fv__sbuf {
    char *s;
    size_t len, cap;
    int oom;
} fv__sbuf;

static void
fv__sb_printf(fv__sbuf *b, const char *fmt, ...)
{
    if (b->oom)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        size_t room = b->cap - b->len;
        int n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? room : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            b->oom = 1;
            return;
        }
        if (b->s && (size_t)n < room) {
            b->len += (size_t)n;
            return;
        }
        size_t ncap = (b->cap ? b->cap * 2 : 1024) + (size_t)n + 1;
        char *ns = fv__realloc(b->s, ncap);
        if (!ns) {
            b->oom = 1;
            return;
        }
        b->s = ns;
        b->cap = ncap;
    }
}

static void
fv__sb_json_str(fv__sbuf *b, const char *s)
{
    fv__sb_printf(b, "\"");
    for (const unsigned char *p = (const unsigned char *)s; p && *p; p++) {
        if (*p == '"' || *p == '\\')
            fv__sb_printf(b, "\\%c", *p);
        else if (*p < 0x20)
            fv__sb_printf(b, "\\u%04x", *p);
        else
            fv__sb_printf(b, "%c", *p);
    }
    fv__sb_printf(b, "\"");
}

fv_status
fv__slide_failed(fv_slide *s)
{
    pthread_mutex_lock(&s->err_mu);
    fv_status st = s->sticky;
    char msg[512];
    memcpy(msg, s->sticky_msg, sizeof msg);
    pthread_mutex_unlock(&s->err_mu);
    if (st)
        return fv_error_set(st, "slide", "handle failed earlier: %s", msg);
    return FV_OK;
}

void
fv__slide_set_sticky(fv_slide *s, fv_status st, const char *msg)
{
    if (st != FV_EIO && st != FV_EFORMAT)
        return; /* only errors that come from the file stick */
    pthread_mutex_lock(&s->err_mu);
    if (!s->sticky) {
        s->sticky = st;
        snprintf(s->sticky_msg, sizeof s->sticky_msg, "%.500s", msg);
    }
    pthread_mutex_unlock(&s->err_mu);
}

fv_status
fv__slide_task_result(fv_slide *s, const fv__task_error *e)
{
    if (!e->st)
        return FV_OK;
    fv_status st = fv_error_set(e->st, "read_region", "%s", e->msg);
    fv__slide_set_sticky(s, e->st, e->msg);
    return st;
}

fv_status
fv__slide_workers(fv_context **ctx, int num_workers, fv_context **own)
{
    *own = NULL;
    if (num_workers <= 0)
        return FV_OK;
    fv_status st = fv_context_new(own);
    if (st)
        return st;
    fv_context_set_threads(*own, num_workers);
    *ctx = *own;
    return FV_OK;
}

/* ---- open / close ------------------------------------------------------------------ */

static uint64_t
fv__file_identity(int fd)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return 0;
    uint64_t h = 1469598103934665603ull;
    uint64_t parts[5] = { (uint64_t)st.st_dev, (uint64_t)st.st_ino, (uint64_t)st.st_size, (uint64_t)st.st_mtim.tv_sec,
                          (uint64_t)st.st_mtim.tv_nsec };
    for (int i = 0; i < 5; i++) {
        h ^= parts[i];
        h *= 1099511628211ull;
        h ^= h >> 29;
    }
    return h;
}

static void fv__build_metadata(fv_slide *s);

fv_status
fv_slide_open(const char *path, fv_slide **out)
{
    fv_status st;
    fv_slide *s = NULL;
    if (!out)
        return fv_error_set(FV_EINVAL, "slide", "out is NULL");
    *out = NULL;
    if (!path)
        return fv_error_set(FV_EINVAL, "slide", "path is NULL");
    if (!(s = fv__calloc(1, sizeof *s)))
        return fv_error_set(FV_ENOMEM, "slide", "out of host memory");
    atomic_init(&s->refs, 1);
    pthread_mutex_init(&s->err_mu, NULL);
    if ((st = fv__tiff_open(path, &s->tiff)))
        goto fail;
    if ((st = fv__layout_detect(s->tiff, &s->layout)))
        goto fail;
    if (s->layout.nlevels < 1) {
        st = fv_error_set(FV_EFORMAT, "slide", "%s: no pyramid level found", path);
        goto fail;
    }
    /* every directory that will be decoded must use a codec this build has (as
     * OpenSlide, refuse at open rather than at the first read) */
    for (int i = 0; i < s->layout.nlevels + s->layout.nassoc; i++) {
        int ifd = i < s->layout.nlevels ? s->layout.levels[i].ifd : s->layout.assoc[i - s->layout.nlevels].ifd;
        if (ifd < 0)
            continue;
        const fv__tiff_ifd *d = &s->tiff->ifds[ifd];
        if (!fv__codec_supported(d->compression)) {
            st = fv_error_set(FV_EFORMAT, "slide", "%s: unsupported TIFF compression %u (%s) in directory %d", path,
                              (unsigned)d->compression, fv__codec_name(d->compression), ifd);
            goto fail;
        }
        if (d->photometric == FV_TIFF_PHOTOMETRIC_YCBCR && d->compression != FV_TIFF_COMPRESSION_JPEG &&
            d->compression != FV_TIFF_COMPRESSION_APERIO_JP2K_YCBCR) {
            st = fv_error_set(FV_EFORMAT, "slide",
                              "%s: YCbCr pixels with %s compression are not supported "
                              "(directory %d)",
                              path, fv__codec_name(d->compression), ifd);
            goto fail;
        }
    }
    const fv__tiff_ifd *l0 = &s->tiff->ifds[s->layout.levels[0].ifd];
    s->samples = (l0->photometric == FV_TIFF_PHOTOMETRIC_YCBCR) ? 3 : l0->samples;
    s->dtype = l0->bits == 16 ? FV_UINT16 : FV_UINT8;
    if (l0->bits != 8 && l0->bits != 16) {
        st = fv_error_set(FV_EFORMAT, "slide", "%s: %u bits per sample are not supported (8 or 16)", path,
                          (unsigned)l0->bits);
        goto fail;
    }
    s->file_id = fv__file_identity(s->tiff->fd);
    fv__build_metadata(s);
    if (!s->metadata_json) {
        st = fv_error_set(FV_ENOMEM, "slide", "out of host memory");
        goto fail;
    }
    *out = s;
    return FV_OK;
fail:
    fv_slide_unref(s);
    return st;
}

fv_slide *
fv_slide_ref(fv_slide *s)
{
    if (s)
        atomic_fetch_add_explicit(&s->refs, 1, memory_order_relaxed);
    return s;
}

void
fv_slide_unref(fv_slide *s)
{
    if (!s || atomic_fetch_sub_explicit(&s->refs, 1, memory_order_acq_rel) != 1)
        return;
    if (s->tiff) {
        fv__layout_free(&s->layout);
        fv__tiff_close(s->tiff);
    }
    fv__free(s->metadata_json);
    pthread_mutex_destroy(&s->err_mu);
    fv__free(s);
}

const char *
fv_slide_path(const fv_slide *s)
{
    return s->tiff->path;
}
const char *
fv_slide_vendor(const fv_slide *s)
{
    return s->layout.vendor;
}
int
fv_slide_level_count(const fv_slide *s)
{
    return s->layout.nlevels;
}
int
fv_slide_property_count(const fv_slide *s)
{
    return s->layout.nprops;
}
const char *
fv_slide_metadata_json(const fv_slide *s)
{
    return s->metadata_json;
}
int
fv_slide_associated_count(const fv_slide *s)
{
    return s->layout.nassoc;
}

const char *
fv_slide_property_name(const fv_slide *s, int i)
{
    return i >= 0 && i < s->layout.nprops ? s->layout.props[i].key : NULL;
}

const char *
fv_slide_property_value(const fv_slide *s, const char *name)
{
    return name ? fv__layout_prop(&s->layout, name) : NULL;
}

const char *
fv_slide_associated_name(const fv_slide *s, int i)
{
    return i >= 0 && i < s->layout.nassoc ? s->layout.assoc[i].name : NULL;
}

fv_status
fv_slide_level_info(const fv_slide *s, int level, fv_level_info *out)
{
    if (!s || !out)
        return fv_error_set(FV_EINVAL, "slide", "NULL argument");
    if (level < 0 || level >= s->layout.nlevels)
        return fv_error_set(FV_EINVAL, "slide", "level %d is out of range (the slide has %d levels)", level,
                            s->layout.nlevels);
    const fv__level_desc *l = &s->layout.levels[level];
    const fv__tiff_ifd *d = &s->tiff->ifds[l->ifd];
    out->width = l->width;
    out->height = l->height;
    out->downsample = l->downsample;
    out->tile_width = d->tile_width;
    out->tile_height = d->tile_height;
    return FV_OK;
}

fv_status
fv_slide_native_layout(const fv_slide *s, int *samples, fv_dtype *dtype)
{
    if (!s)
        return fv_error_set(FV_EINVAL, "slide", "NULL slide");
    if (samples)
        *samples = s->samples;
    if (dtype)
        *dtype = s->dtype;
    return FV_OK;
}

fv_status
fv_slide_region_shape(const fv_slide *s, int64_t w, int64_t h, fv_pixel_format format, int64_t shape[3],
                      fv_dtype *dtype)
{
    if (!s || !shape)
        return fv_error_set(FV_EINVAL, "read_region", "NULL argument");
    if (w < 0 || h < 0)
        return fv_error_set(FV_EINVAL, "read_region", "size (%lld, %lld) must not be negative", (long long)w,
                            (long long)h);
    if (w > 0 && h > FV__MAX_REGION_PIXELS / w)
        return fv_error_set(FV_EINVAL, "read_region", "size (%lld, %lld) exceeds the %lld-pixel limit", (long long)w,
                            (long long)h, (long long)FV__MAX_REGION_PIXELS);
    shape[0] = h;
    shape[1] = w;
    switch (format) {
    case FV_PIXEL_RGB:
        shape[2] = 3;
        break;
    case FV_PIXEL_RGBA:
        shape[2] = 4;
        break;
    case FV_PIXEL_NATIVE:
        shape[2] = s->samples;
        break;
    default:
        return fv_error_set(FV_EINVAL, "read_region", "unknown pixel format %d", (int)format);
    }
    if (dtype)
        *dtype = format == FV_PIXEL_NATIVE ? s->dtype : FV_UINT8;
    return FV_OK;
}

/* ---- metadata JSON ----------------------------------------------------------------- */

static void
fv__build_metadata(fv_slide *s)
{
    fv__sbuf b = { 0 };
    const fv__layout *l = &s->layout;
    fv__sb_printf(&b, "{\"path\": ");
    fv__sb_json_str(&b, s->tiff->path);
    fv__sb_printf(&b, ", \"vendor\": ");
    fv__sb_json_str(&b, l->vendor);
    fv__sb_printf(&b, ", \"bigtiff\": %s, \"byte_order\": \"%s\", \"samples\": %d, \"dtype\": \"%s\"",
                  s->tiff->bigtiff ? "true" : "false", s->tiff->big_endian ? "big" : "little", s->samples,
                  fv_dtype_name(s->dtype));
    fv__sb_printf(&b, ", \"mpp\": [%.17g, %.17g], \"objective_power\": %.17g", l->mpp_x, l->mpp_y, l->objective_power);
    fv__sb_printf(&b, ", \"levels\": [");
    for (int i = 0; i < l->nlevels; i++) {
        const fv__tiff_ifd *d = &s->tiff->ifds[l->levels[i].ifd];
        fv__sb_printf(&b,
                      "%s{\"width\": %lld, \"height\": %lld, \"downsample\": %.17g, \"tile_width\": %u, "
                      "\"tile_height\": %u, \"compression\": \"%s\", \"directory\": %d}",
                      i ? ", " : "", (long long)l->levels[i].width, (long long)l->levels[i].height,
                      l->levels[i].downsample, d->tile_width, d->tile_height, fv__codec_name(d->compression),
                      l->levels[i].ifd);
    }
    fv__sb_printf(&b, "], \"associated_images\": [");
    for (int i = 0; i < l->nassoc; i++) {
        fv__sb_printf(&b, "%s", i ? ", " : "");
        fv__sb_json_str(&b, l->assoc[i].name);
    }
    fv__sb_printf(&b, "], \"properties\": {");
    for (int i = 0; i < l->nprops; i++) {
        fv__sb_printf(&b, "%s", i ? ", " : "");
        fv__sb_json_str(&b, l->props[i].key);
        fv__sb_printf(&b, ": ");
        fv__sb_json_str(&b, l->props[i].value);
    }
    fv__sb_printf(&b, "}}");
    if (b.oom) {
        fv__free(b.s);
        b.s = NULL;
    }
    s->metadata_json = b.s;
}
