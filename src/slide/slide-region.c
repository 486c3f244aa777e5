/* Slide read_region / read_regions: region assembly from chunks on the thread
 * pool, the single-use chunk sets of batched reads, and the GPU reader's stubs in a
 * build without CUDA. */
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

/* 0 when the tile cache keeps nothing (type none, or a per-process cache of
 * capacity 0): reads then decode only what they need. Public calls only, so the
 * cache's own files stay untouched; two mutex round trips per read. */

static void
fv__fill_background(uint8_t *out, int64_t stride_row, int64_t x0, int64_t y0, int64_t x1, int64_t y1, int c, int isz,
                    fv_pixel_format format)
{
    /* RGB background is white; RGBA outside: all zero (transparent, premultiplied); native: zero */
    size_t psz = (size_t)c * (size_t)isz;
    for (int64_t y = y0; y < y1; y++) {
        uint8_t *row = out + y * stride_row + x0 * (int64_t)psz;
        memset(row, format == FV_PIXEL_RGB ? 255 : 0, (size_t)(x1 - x0) * psz);
    }
}

/* Copy chunk pixels [sx0, sx0+n) x [sy0, sy0+m) to out at (dx0, dy0), converting. */
void
fv__blit(const fv__region_job *j, const fv__tile *t, int tile_w, int src_c, int src_isz, int64_t sx0, int64_t sy0,
         int64_t dx0, int64_t dy0, int64_t n, int64_t m)
{
    const int64_t out_row = j->w * j->out_c * j->out_isz;
    const int64_t src_row = (int64_t)tile_w * src_c * src_isz;
    for (int64_t r = 0; r < m; r++) {
        const uint8_t *sp = t->data + (sy0 + r) * src_row + sx0 * src_c * src_isz;
        uint8_t *dp = j->out + (dy0 + r) * out_row + dx0 * j->out_c * j->out_isz;
        if (j->format == FV_PIXEL_NATIVE || (src_c == j->out_c && src_isz == 1)) {
            memcpy(dp, sp, (size_t)(n * src_c * src_isz));
            continue;
        }
        for (int64_t i = 0; i < n; i++) {
            uint8_t v[4] = { 0, 0, 0, 255 };
            const uint8_t *p = sp + i * src_c * src_isz;
            int k;
            for (k = 0; k < src_c && k < 4; k++)
                v[k] = src_isz == 2 ? (uint8_t)(*(const uint16_t *)(p + 2 * k) >> 8) : p[k];
            if (src_c == 1)
                v[1] = v[2] = v[0];
            if (src_c == 2) /* gray + alpha */
                v[3] = v[1], v[1] = v[2] = v[0];
            if (src_c < 4 && src_c != 2)
                v[3] = 255;
            if (j->out_c == 3) {
                dp[0] = v[0], dp[1] = v[1], dp[2] = v[2];
            } else {
                dp[0] = v[0], dp[1] = v[1], dp[2] = v[2], dp[3] = v[3];
            }
            dp += j->out_c;
        }
    }
}

static void
fv__region_task(void *p, int64_t begin, int64_t end)
{
    fv__region_job *j = p;
    const fv__tiff_ifd *d = &j->s->tiff->ifds[j->ifd];
    const int src_c = fv__decoded_samples(d), src_isz = d->bits / 8;
    for (int64_t i = begin; i < end; i++) {
        if (fv__task_failed(&j->err))
            return;
        uint64_t chunk = j->chunks[i];
        fv__chunk_geom g;
        fv__chunk_geometry(d, chunk, &g);
        /* intersection of the chunk (clipped to the image) with the region */
        int64_t cx1 = g.x0 + g.w, cy1 = g.y0 + g.h;
        if (cx1 > j->clip_w)
            cx1 = j->clip_w;
        if (cy1 > j->clip_h)
            cy1 = j->clip_h;
        int64_t ix0 = g.x0 > j->lx ? g.x0 : j->lx, iy0 = g.y0 > j->ly ? g.y0 : j->ly;
        int64_t ix1 = cx1 < j->lx + j->w ? cx1 : j->lx + j->w, iy1 = cy1 < j->ly + j->h ? cy1 : j->ly + j->h;
        if (ix0 >= ix1 || iy0 >= iy1)
            continue;
        fv__tile *t = NULL;
        uint32_t want[4] = { (uint32_t)(ix0 - g.x0), (uint32_t)(iy0 - g.y0), (uint32_t)(ix1 - ix0),
                             (uint32_t)(iy1 - iy0) };
        uint32_t got[4];
        /* a chunk nothing else will read: from the cache if it is there, else only
         * the part needed, not kept */
        int mode = j->nocache                              ? FV__CHUNK_NOCACHE
            : j->once && fv__chunk_set_has(j->once, chunk) ? FV__CHUNK_PEEK
                                                           : FV__CHUNK_CACHE;
        fv_status st = FV_OK;
        if (j->into && mode != FV__CHUNK_CACHE && chunk < d->nchunks && d->chunk_offsets[chunk] &&
            d->chunk_bytes[chunk]) {
            /* a chunk not to be cached whose pixels go out as decoded: taken from the
             * cache when there, else decoded straight into out */
            if (mode == FV__CHUNK_PEEK) {
                fv__tile_key key = { j->s->file_id, (uint32_t)j->ifd, chunk };
                t = fv__cache_peek(&key);
            }
            if (t) {
                got[0] = got[1] = 0, got[2] = g.w, got[3] = g.h;
            } else {
                st = fv__chunk_into(j->s, j->ifd, chunk, want,
                                    j->out + ((iy0 - j->ly) * j->w + (ix0 - j->lx)) * j->out_c * j->out_isz,
                                    (size_t)(j->w * j->out_c * j->out_isz));
                if (!st)
                    continue;
            }
        } else {
            st = fv__get_chunk(j->s, j->ifd, chunk, mode, j->partial || mode == FV__CHUNK_PEEK ? want : NULL, &t, got);
        }
        if (st) {
            fv__task_fail(&j->err, st);
            return;
        }
        if (!t) {
            fv__fill_background(j->out, j->w * j->out_c * j->out_isz, ix0 - j->lx, iy0 - j->ly, ix1 - j->lx,
                                iy1 - j->ly, j->out_c, j->out_isz, j->format);
            continue;
        }
        fv__blit(j, t, (int)got[2], src_c, src_isz, ix0 - g.x0 - got[0], iy0 - g.y0 - got[1], ix0 - j->lx, iy0 - j->ly,
                 ix1 - ix0, iy1 - iy0);
        fv__tile_unref(t);
    }
}

/* The part of region (lx, ly, w, h) inside directory d's image, clipped to clip_w x
 * clip_h: [r[0], r[2]) x [r[1], r[3]); *W, *H get the clipped image size. Returns 0
 * when that part is empty. */
static int
fv__region_inside(const fv__tiff_ifd *d, int64_t clip_w, int64_t clip_h, int64_t lx, int64_t ly, int64_t w, int64_t h,
                  int64_t *W, int64_t *H, int64_t r[4])
{
    *W = clip_w < (int64_t)d->width ? clip_w : (int64_t)d->width;
    *H = clip_h < (int64_t)d->height ? clip_h : (int64_t)d->height;
    r[0] = lx > 0 ? lx : 0, r[1] = ly > 0 ? ly : 0;
    r[2] = lx + w < *W ? lx + w : *W, r[3] = ly + h < *H ? ly + h : *H;
    return r[0] < r[2] && r[1] < r[3];
}

/* The chunks (tiles, or strips) holding the directory pixels [ix0, ix1) x [iy0, iy1),
 * a non-empty rectangle inside the image: a new array of *nch chunk indices. */
static fv_status
fv__region_chunks(const fv__tiff_ifd *d, int64_t ix0, int64_t iy0, int64_t ix1, int64_t iy1, uint64_t **chunks,
                  uint64_t *nch)
{
    uint64_t *c;
    if (d->tile_width) {
        uint64_t across = (d->width + d->tile_width - 1) / d->tile_width;
        uint64_t tx0 = (uint64_t)ix0 / d->tile_width, tx1 = (uint64_t)(ix1 - 1) / d->tile_width;
        uint64_t ty0 = (uint64_t)iy0 / d->tile_height, ty1 = (uint64_t)(iy1 - 1) / d->tile_height;
        *nch = (tx1 - tx0 + 1) * (ty1 - ty0 + 1);
        if (!(c = fv__malloc(*nch * sizeof *c)))
            return fv_error_set(FV_ENOMEM, "read_region", "out of host memory");
        uint64_t k = 0;
        for (uint64_t ty = ty0; ty <= ty1; ty++)
            for (uint64_t tx = tx0; tx <= tx1; tx++)
                c[k++] = ty * across + tx;
    } else {
        uint64_t s0 = (uint64_t)iy0 / d->rows_per_strip, s1 = (uint64_t)(iy1 - 1) / d->rows_per_strip;
        *nch = s1 - s0 + 1;
        if (!(c = fv__malloc(*nch * sizeof *c)))
            return fv_error_set(FV_ENOMEM, "read_region", "out of host memory");
        for (uint64_t k = 0; k < *nch; k++)
            c[k] = s0 + k;
    }
    *chunks = c;
    return FV_OK;
}

/* Region (lx, ly, w, h) of directory ifd, whose image is clip_w x clip_h (at most
 * the directory's size: Philips levels are smaller than their padded TIFF images). */
fv_status
fv__read_ifd_region(fv_slide *s, fv_context *ctx, int ifd, int64_t clip_w, int64_t clip_h, int64_t lx, int64_t ly,
                    int64_t w, int64_t h, fv_pixel_format format, int num_workers, int nocache,
                    const fv__chunk_set *once, fv_array *out)
{
    fv_status st = FV_OK;
    fv_context *lctx = NULL;
    const fv__tiff_ifd *d = &s->tiff->ifds[ifd];
    int64_t shape[3];
    fv_dtype dt;
    if ((st = fv_slide_region_shape(s, w, h, format, shape, &dt)))
        return st;
    if (format == FV_PIXEL_NATIVE && fv__decoded_samples(d) != s->samples)
        return fv_error_set(FV_EFORMAT, "read_region", "directory %d has %d samples per pixel, level 0 has %d", ifd,
                            fv__decoded_samples(d), s->samples);
    if (!out)
        return fv_error_set(FV_EINVAL, "read_region", "out is NULL");
    if (out->ndim != 3 || out->shape[0] != shape[0] || out->shape[1] != shape[1] || out->shape[2] != shape[2] ||
        out->dtype != dt)
        return fv_error_set(FV_EINVAL, "read_region", "out must be a %s array of shape (%lld, %lld, %lld)",
                            fv_dtype_name(dt), (long long)shape[0], (long long)shape[1], (long long)shape[2]);
    if (!fv_array_is_contiguous(out) || out->readonly)
        return fv_error_set(FV_EINVAL, "read_region", "out must be C-contiguous and writable");
    if (format == FV_PIXEL_NATIVE && d->bits != 8 && d->bits != 16)
        return fv_error_set(FV_EFORMAT, "read_region", "%u-bit samples", (unsigned)d->bits);
    if (out->device.type != FV_DEVICE_CPU) { /* decoded and assembled on the GPU */
        const int64_t lxy[2] = { lx, ly };
        if (w == 0 || h == 0)
            return fv__slide_failed(s);
        return fv__slide_read_gpu(s, ctx, ifd, clip_w, clip_h, lxy, 1, w, h, format, num_workers, nocache, out);
    }
    if (w == 0 || h == 0)
        return fv__slide_failed(s);
    if ((st = fv__slide_failed(s))) { /* sticky: fails as any read does, leaving zeros */
        memset(out->data, 0, (size_t)fv_array_nbytes(out));
        return st;
    }

    fv__region_job j = { .s = s,
                         .ifd = ifd,
                         .lx = lx,
                         .ly = ly,
                         .w = w,
                         .h = h,
                         .format = format,
                         .nocache = nocache,
                         .once = nocache ? NULL : once,
                         .out = (uint8_t *)out->data,
                         .out_c = (int)shape[2],
                         .out_isz = (int)fv_dtype_size(dt) };
    /* only JPEG decodes less than a whole chunk (fv__codec_decode_rect) */
    j.partial = d->compression == FV_TIFF_COMPRESSION_JPEG && (nocache || !fv__cache_enabled());
    /* JPEG chunks (8-bit, 1 or 3 samples) that bypass the cache decode straight into
     * out when its pixels are theirs unconverted (fv__blit would copy them) */
    j.into = d->compression == FV_TIFF_COMPRESSION_JPEG && d->bits == 8 &&
        (format == FV_PIXEL_NATIVE || fv__decoded_samples(d) == j.out_c);
    pthread_mutex_init(&j.err.mu, NULL);
    /* background outside the directory */
    int64_t r[4];
    int inside = fv__region_inside(d, clip_w, clip_h, lx, ly, w, h, &j.clip_w, &j.clip_h, r);
    int64_t ix0 = r[0], iy0 = r[1], ix1 = r[2], iy1 = r[3];
    int64_t row = w * j.out_c * j.out_isz;
    if (!inside) {
        fv__fill_background(j.out, row, 0, 0, w, h, j.out_c, j.out_isz, format);
        goto done;
    }
    fv__fill_background(j.out, row, 0, 0, w, iy0 - ly, j.out_c, j.out_isz, format);
    fv__fill_background(j.out, row, 0, iy1 - ly, w, h, j.out_c, j.out_isz, format);
    fv__fill_background(j.out, row, 0, iy0 - ly, ix0 - lx, iy1 - ly, j.out_c, j.out_isz, format);
    fv__fill_background(j.out, row, ix1 - lx, iy0 - ly, w, iy1 - ly, j.out_c, j.out_isz, format);
    /* the chunks the region touches */
    uint64_t nch;
    if ((st = fv__region_chunks(d, ix0, iy0, ix1, iy1, &j.chunks, &nch)))
        goto done;
    if ((st = fv__slide_workers(&ctx, num_workers, &lctx)))
        goto done;
    fv__parallel_for(ctx, (int64_t)nch, 1, fv__region_task, &j);
    st = fv__slide_task_result(s, &j.err);
done:
    if (st) /* a failed read leaves no pixels behind: neither background nor tiles already copied */
        memset(j.out, 0, (size_t)(w * h * j.out_c * j.out_isz));
    fv__free(j.chunks);
    pthread_mutex_destroy(&j.err.mu);
    fv_context_free(lctx);
    return st;
}

/* Level coordinates of the level-0 location (x, y): floor(location / downsample). */
static fv_status
fv__level_origin(const fv_slide *s, int level, int64_t x, int64_t y, int64_t *lx, int64_t *ly)
{
    const fv__level_desc *l = &s->layout.levels[level];
    const double lim = 9.0e15; /* far-away coordinates are refused */
    if (fabs((double)x) > lim || fabs((double)y) > lim)
        return fv_error_set(FV_EINVAL, "read_region", "location (%lld, %lld) is out of range", (long long)x,
                            (long long)y);
    *lx = level == 0 ? x : (int64_t)floor((double)x / l->downsample);
    *ly = level == 0 ? y : (int64_t)floor((double)y / l->downsample);
    return FV_OK;
}

void
fv__chunk_set_free(fv__chunk_set *cs)
{
    fv__free(cs->keys);
    cs->keys = NULL;
    cs->mask = 0;
}

/* Fenwick tree over touch times (fv__chunk_set_single_use's stack distances). */
static void
fv__bit_add(int32_t *t, uint64_t n, uint64_t i, int32_t v)
{
    for (i++; i <= n; i += i & (~i + 1))
        t[i - 1] += v;
}

static int64_t
fv__bit_sum(const int32_t *t, uint64_t i) /* entries [0, i) */
{
    int64_t r = 0;
    for (; i > 0; i -= i & (~i + 1))
        r += t[i - 1];
    return r;
}

fv_status
fv__chunk_set_single_use(fv_slide *s, int level, const int64_t *xy, const int64_t *order, int64_t n, int64_t w,
                         int64_t h, uint64_t capacity, fv__chunk_set *out)
{
    const fv__level_desc *l = &s->layout.levels[level];
    const fv__tiff_ifd *d = &s->tiff->ifds[l->ifd];
    uint64_t *keys = NULL, cap = 0, *ch = NULL, nch = 0, total = 0;
    uint32_t *hits = NULL, *seq = NULL; /* at most 2^24 touches: 32-bit slots and times */
    int32_t *last = NULL, *bit = NULL;
    fv_status st = FV_OK;
    memset(out, 0, sizeof *out);
    /* only JPEG decodes less than a whole chunk (fv__codec_decode_rect) */
    if (n < 2 || w < 1 || h < 1 || d->compression != FV_TIFF_COMPRESSION_JPEG)
        return FV_OK;
    /* an upper bound of the touches, for the table: chunks per region */
    uint64_t per = (uint64_t)(d->tile_width ? (w / (int64_t)d->tile_width + 2) * (h / (int64_t)d->tile_height + 2)
                                            : h / (int64_t)(d->rows_per_strip ? d->rows_per_strip : 1) + 2);
    if (per > ((uint64_t)1 << 24) / (uint64_t)n)
        return FV_OK;
    for (cap = 64; cap < 2 * per * (uint64_t)n; cap *= 2)
        ;
    /* the decoded chunks the cache holds at once */
    const uint64_t cw = d->tile_width ? d->tile_width : l->width;
    const uint64_t chh = d->tile_width ? d->tile_height : (d->rows_per_strip ? d->rows_per_strip : 1);
    const uint64_t cbytes = cw * chh * (d->samples ? d->samples : 1) * ((d->bits + 7u) / 8u);
    const uint64_t resident = cbytes ? capacity / cbytes : 0;
    keys = fv__calloc(cap, sizeof *keys);
    hits = fv__calloc(cap, sizeof *hits);
    last = fv__malloc(cap * sizeof *last);
    seq = fv__malloc((cap / 2) * sizeof *seq);
    bit = fv__calloc(cap / 2, sizeof *bit);
    if (!keys || !hits || !last || !seq || !bit)
        goto oom;
    /* the touches in serving order: slot of each chunk in the table */
    for (int64_t i = 0; i < n; i++) {
        const int64_t p = order ? order[i] : i;
        int64_t lx = 0, ly = 0; /* set by fv__level_origin (FV_OK) */
        if (fv__level_origin(s, level, xy[2 * p], xy[2 * p + 1], &lx, &ly))
            continue; /* the read reports it */
        int64_t W, H, r[4];
        if (!fv__region_inside(d, l->width, l->height, lx, ly, w, h, &W, &H, r))
            continue;
        if ((st = fv__region_chunks(d, r[0], r[1], r[2], r[3], &ch, &nch)))
            goto done;
        for (uint64_t k = 0; k < nch && total < cap / 2; k++) {
            uint64_t q = fv__chunk_set_probe(ch[k]);
            while (keys[q & (cap - 1)] && keys[q & (cap - 1)] != ch[k] + 1)
                q++;
            q &= cap - 1;
            if (!keys[q]) {
                keys[q] = ch[k] + 1;
                last[q] = -1;
            }
            seq[total++] = (uint32_t)q;
        }
        fv__free(ch);
        ch = NULL;
    }
    /* A touch would hit an LRU cache of `resident` chunks when fewer distinct chunks
     * came between it and the chunk's previous touch (its stack distance, counted
     * with a Fenwick tree over the last touch of each chunk). A chunk is decoded
     * whole and cached only when at least two of its touches would hit: two partial
     * decodes of a tile cost about what one whole decode and its cache insertion
     * do. The others (touched at most twice, or again only after the cache has
     * moved on: random patches over a slide larger than the cache) are decoded in
     * part by each patch and never inserted, which keeps the cache for the chunks
     * that repay it. */
    for (uint64_t t = 0; t < total; t++) {
        const uint32_t q = seq[t];
        if (last[q] >= 0) {
            const int64_t dist = fv__bit_sum(bit, t) - fv__bit_sum(bit, (uint64_t)last[q] + 1);
            if ((uint64_t)dist < resident)
                hits[q]++;
            fv__bit_add(bit, cap / 2, (uint64_t)last[q], -1);
        }
        fv__bit_add(bit, cap / 2, t, 1);
        last[q] = (int32_t)t;
    }
    for (uint64_t q = 0; q < cap; q++)
        if (keys[q] && hits[q] >= 2)
            keys[q] = UINT64_MAX; /* a tombstone: probes go past it, never match */
    out->keys = keys;
    out->mask = cap - 1;
    keys = NULL;
    goto done;
oom:
    st = fv_error_set(FV_ENOMEM, "loader", "out of host memory");
done:
    fv__free(ch);
    fv__free(keys);
    fv__free(hits);
    fv__free(last);
    fv__free(seq);
    fv__free(bit);
    return st;
}

static fv_status
fv__check_read_args(const fv_slide *s, int level, const fv_read_options *opts)
{
    if (!s)
        return fv_error_set(FV_EINVAL, "read_region", "slide is NULL");
    if (level < 0 || level >= s->layout.nlevels)
        return fv_error_set(FV_EINVAL, "read_region", "level %d is out of range (the slide has %d levels)", level,
                            s->layout.nlevels);
    if (opts->num_workers < 0)
        return fv_error_set(FV_EINVAL, "read_region", "num_workers = %d must be >= 0", opts->num_workers);
    return FV_OK;
}

fv_status
fv_slide_read_region(fv_slide *s, fv_context *ctx, int64_t x, int64_t y, int level, int64_t w, int64_t h,
                     const fv_read_options *opts, fv_array *out)
{
    return fv__slide_read_region_once(s, ctx, x, y, level, w, h, opts, NULL, out);
}

fv_status
fv__slide_read_region_once(fv_slide *s, fv_context *ctx, int64_t x, int64_t y, int level, int64_t w, int64_t h,
                           const fv_read_options *opts, const fv__chunk_set *once, fv_array *out)
{
    fv_read_options def = { FV_PIXEL_RGB, 0, 0 };
    fv_status st;
    int64_t lx = 0, ly = 0; /* set by fv__level_origin (FV_OK) */
    if (!opts)
        opts = &def;
    if ((st = fv__check_read_args(s, level, opts)) || (st = fv__level_origin(s, level, x, y, &lx, &ly)))
        return st;
    const fv__level_desc *l = &s->layout.levels[level];
    return fv__read_ifd_region(s, ctx, l->ifd, l->width, l->height, lx, ly, w, h, opts->format, opts->num_workers,
                               opts->nocache, once, out);
}

fv_status
fv_slide_read_regions(fv_slide *s, fv_context *ctx, const int64_t *xy, int64_t n, int level, int64_t w, int64_t h,
                      const fv_read_options *opts, fv_array *out)
{
    fv_read_options def = { FV_PIXEL_RGB, 0, 0 };
    fv_status st;
    int64_t shape[3], *lxy = NULL;
    fv_dtype dt;
    if (!opts)
        opts = &def;
    if ((st = fv__check_read_args(s, level, opts)))
        return st;
    if (n < 1 || !xy)
        return fv_error_set(FV_EINVAL, "read_regions", "need n >= 1 locations (n = %lld)", (long long)n);
    if (!out)
        return fv_error_set(FV_EINVAL, "read_regions", "out is NULL");
    if ((st = fv_slide_region_shape(s, w, h, opts->format, shape, &dt)))
        return st;
    if (out->ndim != 4 || out->shape[0] != n || out->shape[1] != shape[0] || out->shape[2] != shape[1] ||
        out->shape[3] != shape[2] || out->dtype != dt)
        return fv_error_set(FV_EINVAL, "read_regions", "out must be a %s array of shape (%lld, %lld, %lld, %lld)",
                            fv_dtype_name(dt), (long long)n, (long long)shape[0], (long long)shape[1],
                            (long long)shape[2]);
    if (!fv_array_is_contiguous(out) || out->readonly)
        return fv_error_set(FV_EINVAL, "read_regions", "out must be C-contiguous and writable");
    const fv__level_desc *l = &s->layout.levels[level];
    const fv__tiff_ifd *d = &s->tiff->ifds[l->ifd];
    if (opts->format == FV_PIXEL_NATIVE && fv__decoded_samples(d) != s->samples)
        return fv_error_set(FV_EFORMAT, "read_region", "directory %d has %d samples per pixel, level 0 has %d", l->ifd,
                            fv__decoded_samples(d), s->samples);
    if (opts->format == FV_PIXEL_NATIVE && d->bits != 8 && d->bits != 16)
        return fv_error_set(FV_EFORMAT, "read_region", "%u-bit samples", (unsigned)d->bits);
    if (!(lxy = fv__malloc((size_t)n * 2 * sizeof *lxy)))
        return fv_error_set(FV_ENOMEM, "read_regions", "out of host memory for %lld locations", (long long)n);
    for (int64_t i = 0; i < n && !st; i++)
        st = fv__level_origin(s, level, xy[2 * i], xy[2 * i + 1], &lxy[2 * i], &lxy[2 * i + 1]);
    if (st || w == 0 || h == 0) {
        if (!st)
            st = fv__slide_failed(s);
        goto done;
    }
    if (out->device.type != FV_DEVICE_CPU) { /* one batched GPU decode for all of them */
        st = fv__slide_read_gpu(s, ctx, l->ifd, l->width, l->height, lxy, n, w, h, opts->format, opts->num_workers,
                                opts->nocache, out);
        goto done;
    }
    int64_t item = shape[0] * shape[1] * shape[2] * (int64_t)fv_dtype_size(dt);
    for (int64_t i = 0; i < n && !st; i++) {
        fv_array *view = NULL;
        if (!(st = fv_array_view(out, 3, shape, NULL, i * item, &view)))
            st = fv__read_ifd_region(s, ctx, l->ifd, l->width, l->height, lxy[2 * i], lxy[2 * i + 1], w, h,
                                     opts->format, opts->num_workers, opts->nocache, NULL, view);
        fv_array_unref(view);
    }
    if (st) /* no partial pixels: the items read before the failure are cleared too */
        memset(out->data, 0, (size_t)fv_array_nbytes(out));
done:
    fv__free(lxy);
    return st;
}

#ifndef FOVEA_HAVE_CUDA
fv_status
fv__slide_read_gpu(fv_slide *s, fv_context *ctx, int ifd, int64_t clip_w, int64_t clip_h, const int64_t *lxy, int64_t n,
                   int64_t w, int64_t h, fv_pixel_format format, int num_workers, int nocache, fv_array *out)
{
    return fv__cuda_check_device(out->device.id);
}

void
fv__slide_gpu_stats(fv__gpu_read_stats *out, int reset)
{
    memset(out, 0, sizeof *out);
}

void
fv_slide_gpu_release(void)
{
}

fv_status
fv_gpu_cache_set_capacity(uint64_t bytes)
{
    (void)bytes;
    return FV_OK;
}

void
fv_gpu_cache_get_stats(fv_cache_stats *out)
{
    if (out)
        memset(out, 0, sizeof *out);
}

void
fv_gpu_cache_reset_stats(void)
{
}

void
fv_gpu_cache_clear(void)
{
}

const char *
fv__slide_gpu_decoder(int *available)
{
    *available = 0;
    return "this fovea was built without the CUDA backend";
}
#endif
