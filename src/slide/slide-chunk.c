/* Slide chunks (tiles or strips): geometry, the compressed bytes, reading and
 * decoding one chunk through the tile cache or into a caller's buffer. */
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

void
fv__chunk_geometry(const fv__tiff_ifd *d, uint64_t chunk, fv__chunk_geom *g)
{
    if (d->tile_width) {
        uint64_t across = (d->width + d->tile_width - 1) / d->tile_width;
        g->x0 = (int64_t)((chunk % across) * d->tile_width);
        g->y0 = (int64_t)((chunk / across) * d->tile_height);
        g->w = d->tile_width;
        g->h = d->tile_height;
    } else {
        g->x0 = 0;
        g->y0 = (int64_t)(chunk * d->rows_per_strip);
        g->w = (uint32_t)d->width;
        uint64_t rows = d->height - (uint64_t)g->y0;
        g->h = rows < d->rows_per_strip ? (uint32_t)rows : d->rows_per_strip;
    }
}

static void
fv__chunk_info_of(const fv__tiff *t, const fv__tiff_ifd *d, const fv__chunk_geom *g, fv__chunk_info *ci)
{
    memset(ci, 0, sizeof *ci);
    ci->width = g->w;
    ci->height = g->h;
    ci->samples = d->samples;
    ci->bits = d->bits;
    ci->sample_format = d->sample_format ? d->sample_format : 1;
    ci->compression = d->compression;
    ci->photometric = d->photometric;
    ci->predictor = d->predictor ? d->predictor : 1;
    ci->ycbcr_sub[0] = d->ycbcr_sub[0];
    ci->ycbcr_sub[1] = d->ycbcr_sub[1];
    ci->file_big_endian = t->big_endian;
    ci->jpeg_tables = d->jpeg_tables;
    ci->jpeg_tables_len = d->jpeg_tables_len;
}

/* Samples per decoded pixel: YCbCr JPEG/JP2K come out as RGB. */
int
fv__decoded_samples(const fv__tiff_ifd *d)
{
    return d->photometric == FV_TIFF_PHOTOMETRIC_YCBCR ? 3 : d->samples;
}

/* The compressed bytes of chunk (offset and byte count nonzero) and what its codec
 * needs to know: *src is the caller's to free (also on failure, NULL then). */
static fv_status
fv__chunk_source(fv_slide *s, int ifd, uint64_t chunk, fv__chunk_info *ci, size_t *nbytes, uint8_t **src, uint64_t *len)
{
    const fv__tiff_ifd *d = &s->tiff->ifds[ifd];
    fv_status st;
    uint64_t off = d->chunk_offsets[chunk];
    fv__chunk_geom g;
    *src = NULL;
    *len = d->chunk_bytes[chunk];
    fv__chunk_geometry(d, chunk, &g);
    fv__chunk_info_of(s->tiff, d, &g, ci);
    if ((st = fv__chunk_bytes(ci, nbytes)))
        return st;
    if (ci->photometric == FV_TIFF_PHOTOMETRIC_YCBCR && ci->samples != 3)
        return fv_error_set(FV_EFORMAT, "slide", "YCbCr with %u samples per pixel", (unsigned)ci->samples);
    if (*len > FV__MAX_CHUNK_BYTES + (1u << 20))
        return fv_error_set(FV_EFORMAT, "slide", "chunk %llu of directory %d claims %llu compressed bytes",
                            (unsigned long long)chunk, ifd, (unsigned long long)*len);
    if (!(*src = fv__malloc(*len)))
        return fv_error_set(FV_ENOMEM, "slide", "cannot allocate %llu bytes", (unsigned long long)*len);
    return fv__tiff_pread(s->tiff, off, *src, *len);
}

/* A decode failure, with the directory and chunk added to the codec's message. */
static fv_status
fv__chunk_failed(fv_status st, int ifd, uint64_t chunk)
{
    char msg[600];
    snprintf(msg, sizeof msg, "%s (directory %d, chunk %llu)", fv_error_message(), ifd, (unsigned long long)chunk);
    return fv_error_set(st, "slide", "%s", msg);
}

/* Read and decode one chunk: through the cache (mode FV__CHUNK_CACHE), not at all
 * (FV__CHUNK_NOCACHE), or taken from the cache when there but not inserted
 * (FV__CHUNK_PEEK). *out = NULL for a missing chunk (offset or byte count 0): the
 * caller paints background. want = {x, y, w, h} (chunk pixels), or NULL: when the
 * decoded tile will not be cached, decode only that rectangle, or more
 * (fv__codec_decode_rect); got = the rectangle the tile holds (rows of got[2]
 * pixels), the whole chunk unless partially decoded. */
fv_status
fv__get_chunk(fv_slide *s, int ifd, uint64_t chunk, int mode, const uint32_t *want, fv__tile **out, uint32_t got[4])
{
    const int nocache = mode != FV__CHUNK_CACHE;
    const fv__tiff_ifd *d = &s->tiff->ifds[ifd];
    fv_status st = FV_OK;
    uint8_t *src = NULL;
    fv__tile *tile = NULL;
    *out = NULL;
    if (chunk >= d->nchunks)
        return fv_error_set(FV_EINTERNAL, "slide", "chunk %llu out of range", (unsigned long long)chunk);
    if (d->chunk_offsets[chunk] == 0 || d->chunk_bytes[chunk] == 0)
        return FV_OK;
    fv__tile_key key = { s->file_id, (uint32_t)ifd, chunk };
    fv__chunk_geom g;
    fv__chunk_geometry(d, chunk, &g);
    got[0] = got[1] = 0;
    got[2] = g.w;
    got[3] = g.h;
    int must = 1;
    if (mode == FV__CHUNK_PEEK && (tile = fv__cache_peek(&key))) {
        *out = tile;
        return FV_OK;
    }
    if (!nocache) {
        /* with a disabled cache this only counts the miss (and, should the cache
         * be enabled meanwhile, a partial decode is published as a failure) */
        tile = fv__cache_acquire(&key, &must);
        if (tile) {
            *out = tile;
            return FV_OK;
        }
    }
    fv__chunk_info ci;
    size_t nbytes;
    uint64_t len;
    if ((st = fv__chunk_source(s, ifd, chunk, &ci, &nbytes, &src, &len)))
        goto done;
    if (!(tile = fv__tile_new(nbytes))) {
        st = fv_error_set(FV_ENOMEM, "slide", "cannot allocate a %zu-byte tile", nbytes);
        goto done;
    }
    if (want)
        st = fv__codec_decode_rect(&ci, src, len, want[0], want[1], want[2], want[3], tile->data, nbytes, &got[0],
                                   &got[1], &got[2], &got[3]);
    else
        st = fv__codec_decode(&ci, src, len, tile->data, nbytes);
    if (st)
        st = fv__chunk_failed(st, ifd, chunk);
done:
    fv__free(src);
    if (st) {
        fv__tile_unref(tile);
        tile = NULL;
    }
    if (!nocache && must)
        fv__cache_finish(&key, want ? NULL : tile); /* a partial tile is never cached */
    *out = tile;
    return st;
}

/* Decode the rectangle want = {x, y, w, h} of chunk (present: offset and byte count
 * nonzero) straight into dst (rows stride bytes apart), bypassing the cache: no
 * tile buffer, no copy of it (the tile-aligned patches of a batch). */
fv_status
fv__chunk_into(fv_slide *s, int ifd, uint64_t chunk, const uint32_t want[4], uint8_t *dst, size_t stride)
{
    fv__chunk_info ci;
    size_t nbytes;
    uint64_t len;
    uint8_t *src = NULL;
    fv_status st = fv__chunk_source(s, ifd, chunk, &ci, &nbytes, &src, &len);
    if (!st && (st = fv__codec_decode_into(&ci, src, len, want[0], want[1], want[2], want[3], dst, stride)))
        st = fv__chunk_failed(st, ifd, chunk);
    fv__free(src);
    return st;
}
