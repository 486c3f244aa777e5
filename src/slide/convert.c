/* fv_slide_convert: a tiled, pyramidal RGB (Big)TIFF writer.
 *
 * Level 0 of the source is read in bands of one tile row. Each band is cut into
 * tiles (encoded in parallel, appended to the file in order) and box-averaged 2x2
 * into the next level's band, which is emitted the same way when full: memory
 * stays at about two tile rows per level. The directories (one per level, in the
 * main chain, NewSubfileType 1 for reduced levels) are written at the end. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "internal.h"
#include "codec/codec.h"
#include "alloc.h"

#define FV__CONV_MAX_LEVELS 32

typedef struct fv__out_level {
    int64_t w, h;
    uint64_t across, down;
    uint64_t *offsets, *counts;
    uint8_t *band;     /* tile rows x w x 3 */
    int64_t band_rows; /* rows in band */
    int64_t band_y;    /* first row of the band (tile-row aligned) */
} fv__out_level;

typedef struct fv__conv {
    int fd;
    uint64_t pos; /* end of file */
    int bigtiff;
    int T;
    fv__chunk_info ci;
    int level_q;
    int nlevels;
    fv__out_level lv[FV__CONV_MAX_LEVELS];
    fv_context *ctx;
    uint64_t tiles_done, tiles_total;
    const fv_convert_options *o;
} fv__conv;

static fv_status
fv__write_all(fv__conv *c, const void *buf, size_t n)
{
    const uint8_t *p = buf;
    while (n) {
        ssize_t w = pwrite(c->fd, p, n, (off_t)c->pos);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return fv_error_set(FV_EIO, "convert", "write failed: %s", strerror(errno));
        }
        p += w;
        n -= (size_t)w;
        c->pos += (uint64_t)w;
    }
    if (!c->bigtiff && c->pos > UINT32_MAX)
        return fv_error_set(FV_EINVAL, "convert", "the output exceeds 4 GiB: use BigTIFF (the default)");
    return FV_OK;
}

/* ---- tiles ------------------------------------------------------------------------ */

typedef struct fv__band_job {
    fv__conv *c;
    fv__out_level *L;
    uint8_t **enc;
    size_t *enc_len;
    fv_status st;
    char msg[512];
    atomic_int failed;
} fv__band_job;

static void
fv__encode_tiles(void *p, int64_t b, int64_t e)
{
    fv__band_job *j = p;
    fv__conv *c = j->c;
    const int T = c->T;
    uint8_t *tile = fv__malloc((size_t)T * T * 3);
    for (int64_t tx = b; tx < e; tx++) {
        if (!tile || atomic_load(&j->failed)) {
            if (!tile && !atomic_exchange(&j->failed, 1)) {
                j->st = FV_ENOMEM;
                snprintf(j->msg, sizeof j->msg, "convert: out of host memory");
            }
            break;
        }
        /* the tile, padded by repeating the last column and row */
        int64_t x0 = tx * T;
        for (int y = 0; y < T; y++) {
            int64_t sy = y < j->L->band_rows ? y : j->L->band_rows - 1;
            const uint8_t *src = j->L->band + (size_t)sy * (size_t)j->L->w * 3;
            uint8_t *dst = tile + (size_t)y * T * 3;
            int64_t n = j->L->w - x0 < T ? j->L->w - x0 : T;
            memcpy(dst, src + x0 * 3, (size_t)n * 3);
            for (int64_t x = n; x < T; x++)
                memcpy(dst + x * 3, src + (x0 + n - 1) * 3, 3);
        }
        fv_status st = fv__codec_encode(&c->ci, c->level_q, tile, &j->enc[tx], &j->enc_len[tx]);
        if (st && !atomic_exchange(&j->failed, 1)) {
            j->st = st;
            snprintf(j->msg, sizeof j->msg, "%s", fv_error_message());
        }
    }
    fv__free(tile);
}

static fv_status fv__push_rows(fv__conv *c, int k, const uint8_t *rows, int64_t n);

/* Encode and write the band of level k, then feed its 2x2 average to level k+1. */
static fv_status
fv__emit_band(fv__conv *c, int k)
{
    fv__out_level *L = &c->lv[k];
    fv_status st = FV_OK;
    fv__band_job j = { .c = c, .L = L };
    atomic_init(&j.failed, 0);
    uint8_t *half = NULL;
    j.enc = fv__calloc(L->across, sizeof *j.enc);
    j.enc_len = fv__calloc(L->across, sizeof *j.enc_len);
    if (!j.enc || !j.enc_len) {
        st = fv_error_set(FV_ENOMEM, "convert", "out of host memory");
        goto done;
    }
    fv__parallel_for(c->ctx, (int64_t)L->across, 1, fv__encode_tiles, &j);
    if (atomic_load(&j.failed)) {
        st = fv_error_set(j.st, "convert", "%s", j.msg);
        goto done;
    }
    uint64_t ty = (uint64_t)(L->band_y / c->T);
    for (uint64_t tx = 0; tx < L->across; tx++) {
        L->offsets[ty * L->across + tx] = c->pos;
        L->counts[ty * L->across + tx] = j.enc_len[tx];
        if ((st = fv__write_all(c, j.enc[tx], j.enc_len[tx])))
            goto done;
    }
    c->tiles_done += L->across;
    if (c->o->progress)
        c->o->progress(c->o->user, (double)c->tiles_done / (double)c->tiles_total);
    /* 2x2 box average into the next level */
    if (k + 1 < c->nlevels) {
        fv__out_level *N = &c->lv[k + 1];
        int64_t nr = (L->band_rows + 1) / 2;
        if (!(half = fv__malloc((size_t)nr * (size_t)N->w * 3))) {
            st = fv_error_set(FV_ENOMEM, "convert", "out of host memory");
            goto done;
        }
        for (int64_t y = 0; y < nr; y++) {
            const uint8_t *r0 = L->band + (size_t)(2 * y) * (size_t)L->w * 3;
            const uint8_t *r1 = 2 * y + 1 < L->band_rows ? r0 + (size_t)L->w * 3 : r0;
            uint8_t *d = half + (size_t)y * (size_t)N->w * 3;
            for (int64_t x = 0; x < N->w; x++) {
                int64_t x1 = 2 * x + 1 < L->w ? 2 * x + 1 : 2 * x;
                for (int ch = 0; ch < 3; ch++)
                    d[x * 3 + ch] =
                        (uint8_t)((r0[2 * x * 3 + ch] + r0[x1 * 3 + ch] + r1[2 * x * 3 + ch] + r1[x1 * 3 + ch] + 2) /
                                  4);
            }
        }
        L->band_y += L->band_rows;
        L->band_rows = 0;
        st = fv__push_rows(c, k + 1, half, nr);
    } else {
        L->band_y += L->band_rows;
        L->band_rows = 0;
    }
done:
    if (j.enc)
        for (uint64_t tx = 0; tx < L->across; tx++)
            fv__free(j.enc[tx]);
    fv__free(j.enc);
    fv__free(j.enc_len);
    fv__free(half);
    return st;
}

static fv_status
fv__push_rows(fv__conv *c, int k, const uint8_t *rows, int64_t n)
{
    fv__out_level *L = &c->lv[k];
    fv_status st;
    while (n > 0) {
        int64_t take = c->T - L->band_rows;
        if (take > n)
            take = n;
        memcpy(L->band + (size_t)L->band_rows * (size_t)L->w * 3, rows, (size_t)take * (size_t)L->w * 3);
        L->band_rows += take;
        rows += (size_t)take * (size_t)L->w * 3;
        n -= take;
        if (L->band_rows == c->T || L->band_y + L->band_rows == L->h)
            if ((st = fv__emit_band(c, k)))
                return st;
    }
    return FV_OK;
}

/* ---- directories -------------------------------------------------------------------- */

typedef struct fv__entry {
    uint16_t tag, type;
    uint64_t count;
    uint64_t inline_val; /* for single small values */
    const void *data;    /* array values (native, converted to little endian) */
} fv__entry;

enum {
    T_ASCII = 2,
    T_SHORT = 3,
    T_LONG = 4,
    T_LONG8 = 16
};

static size_t
fv__type_size(uint16_t t)
{
    return t == T_ASCII ? 1 : t == T_SHORT ? 2 : t == T_LONG ? 4 : 8;
}

static void
fv__put_le(uint8_t *p, uint64_t v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* The value bytes of an entry (little endian). */
static uint8_t *
fv__entry_bytes(const fv__entry *e, size_t *len)
{
    size_t sz = fv__type_size(e->type);
    *len = sz * e->count;
    uint8_t *b = fv__calloc(1, *len ? *len : 1);
    if (!b)
        return NULL;
    if (e->type == T_ASCII) {
        memcpy(b, e->data, *len);
    } else if (!e->data) {
        fv__put_le(b, e->inline_val, sz);
    } else {
        for (uint64_t i = 0; i < e->count; i++) {
            uint64_t v = e->type == T_SHORT ? ((const uint16_t *)e->data)[i] : ((const uint64_t *)e->data)[i];
            fv__put_le(b + i * sz, v, sz);
        }
    }
    return b;
}

/* Write one directory; returns its offset; *next_field = offset of its next-IFD field. */
static fv_status
fv__write_ifd(fv__conv *c, const fv__entry *e, int n, uint64_t *ifd_off, uint64_t *next_field)
{
    fv_status st = FV_OK;
    size_t esz = c->bigtiff ? 20 : 12, inl = c->bigtiff ? 8 : 4;
    uint64_t value_off[32];
    /* out-of-line values first */
    for (int i = 0; i < n; i++) {
        size_t len;
        uint8_t *b = fv__entry_bytes(&e[i], &len);
        if (!b)
            return fv_error_set(FV_ENOMEM, "convert", "out of host memory");
        value_off[i] = 0;
        if (len > inl) {
            if (c->pos & 1) {
                uint8_t z = 0;
                if ((st = fv__write_all(c, &z, 1))) {
                    fv__free(b);
                    return st;
                }
            }
            value_off[i] = c->pos;
            st = fv__write_all(c, b, len);
        }
        fv__free(b);
        if (st)
            return st;
    }
    if (c->pos & 1) {
        uint8_t z = 0;
        if ((st = fv__write_all(c, &z, 1)))
            return st;
    }
    *ifd_off = *next_field = 0;
    size_t total = (c->bigtiff ? 8 : 2) + (size_t)n * esz + (c->bigtiff ? 8 : 4);
    uint8_t *d = fv__calloc(1, total);
    if (!d)
        return fv_error_set(FV_ENOMEM, "convert", "out of host memory");
    uint8_t *p = d;
    fv__put_le(p, (uint64_t)n, c->bigtiff ? 8 : 2);
    p += c->bigtiff ? 8 : 2;
    for (int i = 0; i < n; i++, p += esz) {
        fv__put_le(p, e[i].tag, 2);
        fv__put_le(p + 2, e[i].type, 2);
        fv__put_le(p + 4, e[i].count, c->bigtiff ? 8 : 4);
        uint8_t *val = p + (c->bigtiff ? 12 : 8);
        if (value_off[i]) {
            fv__put_le(val, value_off[i], inl);
        } else {
            size_t len;
            uint8_t *b = fv__entry_bytes(&e[i], &len);
            if (!b) {
                fv__free(d);
                return fv_error_set(FV_ENOMEM, "convert", "out of host memory");
            }
            memcpy(val, b, len);
            fv__free(b);
        }
    }
    *ifd_off = c->pos;
    *next_field = c->pos + total - (c->bigtiff ? 8 : 4);
    st = fv__write_all(c, d, total);
    fv__free(d);
    return st;
}

static fv_status
fv__patch(fv__conv *c, uint64_t at, uint64_t value, size_t n)
{
    uint8_t b[8];
    fv__put_le(b, value, n);
    if (pwrite(c->fd, b, n, (off_t)at) != (ssize_t)n)
        return fv_error_set(FV_EIO, "convert", "write failed: %s", strerror(errno));
    return FV_OK;
}

static fv_status
fv__write_directories(fv__conv *c, const char *description)
{
    fv_status st;
    uint64_t prev_next = c->bigtiff ? 8 : 4; /* the header's first-IFD field */
    static const uint16_t bps[3] = { 8, 8, 8 }, sub[2] = { 2, 2 };
    const char *software = "fovea " FV_VERSION_STRING;
    for (int k = 0; k < c->nlevels; k++) {
        fv__out_level *L = &c->lv[k];
        uint16_t otype = c->bigtiff ? T_LONG8 : T_LONG;
        fv__entry e[16];
        int n = 0;
        e[n++] = (fv__entry){ 254, T_LONG, 1, k ? 1u : 0u, NULL };
        e[n++] = (fv__entry){ 256, T_LONG, 1, (uint64_t)L->w, NULL };
        e[n++] = (fv__entry){ 257, T_LONG, 1, (uint64_t)L->h, NULL };
        e[n++] = (fv__entry){ 258, T_SHORT, 3, 0, bps };
        e[n++] = (fv__entry){ 259, T_SHORT, 1, c->ci.compression, NULL };
        e[n++] = (fv__entry){ 262, T_SHORT, 1, c->ci.photometric, NULL };
        if (k == 0)
            e[n++] = (fv__entry){ 270, T_ASCII, strlen(description) + 1, 0, description };
        e[n++] = (fv__entry){ 277, T_SHORT, 1, 3, NULL };
        e[n++] = (fv__entry){ 284, T_SHORT, 1, 1, NULL };
        e[n++] = (fv__entry){ 305, T_ASCII, strlen(software) + 1, 0, software };
        e[n++] = (fv__entry){ 322, T_LONG, 1, (uint64_t)c->T, NULL };
        e[n++] = (fv__entry){ 323, T_LONG, 1, (uint64_t)c->T, NULL };
        /* offsets / counts are uint64 arrays; classic TIFF writes them as LONG */
        e[n++] = (fv__entry){ 324, otype, L->across * L->down, 0, L->offsets };
        e[n++] = (fv__entry){ 325, otype, L->across * L->down, 0, L->counts };
        if (c->ci.photometric == FV_TIFF_PHOTOMETRIC_YCBCR)
            e[n++] = (fv__entry){ 530, T_SHORT, 2, 0, sub };
        uint64_t off = 0, next = 0;
        if ((st = fv__write_ifd(c, e, n, &off, &next)))
            return st;
        if ((st = fv__patch(c, prev_next, off, c->bigtiff ? 8 : 4)))
            return st;
        prev_next = next;
    }
    return FV_OK;
}

/* ---- driver -------------------------------------------------------------------------- */

fv_status
fv_slide_convert(const char *src, const char *dst, const fv_convert_options *opts)
{
    fv_convert_options def = { 0 };
    fv_status st;
    fv_slide *s = NULL;
    fv_array *band = NULL;
    fv__conv c = { .fd = -1 };
    if (!src || !dst)
        return fv_error_set(FV_EINVAL, "convert", "NULL path");
    if (!opts)
        opts = &def;
    c.o = opts;
    c.T = opts->tile_size ? opts->tile_size : 256;
    if (c.T < 16 || c.T > 4096 || c.T % 16)
        return fv_error_set(FV_EINVAL, "convert", "tile size %d must be a multiple of 16 in 16..4096", c.T);
    c.bigtiff = !opts->classic_tiff;
    c.ci = (fv__chunk_info){ .width = (uint32_t)c.T,
                             .height = (uint32_t)c.T,
                             .samples = 3,
                             .bits = 8,
                             .sample_format = 1,
                             .photometric = FV_TIFF_PHOTOMETRIC_RGB,
                             .predictor = 1 };
    switch (opts->compression) {
    case FV_COMPRESS_JPEG:
        c.ci.compression = FV_TIFF_COMPRESSION_JPEG;
        c.ci.photometric = FV_TIFF_PHOTOMETRIC_YCBCR;
        c.level_q = opts->quality ? opts->quality : 90;
        if (c.level_q < 1 || c.level_q > 100)
            return fv_error_set(FV_EINVAL, "convert", "JPEG quality %d must be in 1..100", c.level_q);
        break;
    case FV_COMPRESS_DEFLATE:
        c.ci.compression = FV_TIFF_COMPRESSION_ADOBE_DEFLATE;
        c.level_q = opts->quality ? opts->quality : 6;
        break;
    case FV_COMPRESS_ZSTD:
        c.ci.compression = FV_TIFF_COMPRESSION_ZSTD;
        c.level_q = opts->quality ? opts->quality : 3;
        break;
    case FV_COMPRESS_NONE:
        c.ci.compression = FV_TIFF_COMPRESSION_NONE;
        break;
    default:
        return fv_error_set(FV_EINVAL, "convert", "unknown compression %d", (int)opts->compression);
    }
    if (opts->num_workers < 0)
        return fv_error_set(FV_EINVAL, "convert", "num_workers = %d must be >= 0", opts->num_workers);
    if ((st = fv_slide_open(src, &s)))
        return st;
    if ((st = fv_context_new(&c.ctx)))
        goto done;
    fv_context_set_threads(c.ctx, opts->num_workers);
    fv_level_info l0;
    if ((st = fv_slide_level_info(s, 0, &l0)))
        goto done;
    /* level geometry */
    int64_t w = l0.width, h = l0.height;
    for (;;) {
        if (c.nlevels == FV__CONV_MAX_LEVELS) {
            st = fv_error_set(FV_EINVAL, "convert", "too many levels");
            goto done;
        }
        fv__out_level *L = &c.lv[c.nlevels++];
        L->w = w;
        L->h = h;
        L->across = (uint64_t)(w + c.T - 1) / (uint64_t)c.T;
        L->down = (uint64_t)(h + c.T - 1) / (uint64_t)c.T;
        c.tiles_total += L->across * L->down;
        L->offsets = fv__calloc(L->across * L->down, sizeof *L->offsets);
        L->counts = fv__calloc(L->across * L->down, sizeof *L->counts);
        L->band = fv__malloc((size_t)c.T * (size_t)w * 3);
        if (!L->offsets || !L->counts || !L->band) {
            st = fv_error_set(FV_ENOMEM, "convert", "out of host memory for a %lld-pixel-wide level", (long long)w);
            goto done;
        }
        if (w <= c.T && h <= c.T)
            break;
        w = (w + 1) / 2;
        h = (h + 1) / 2;
    }
    c.fd = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (c.fd < 0) {
        st = fv_error_set(FV_EIO, "convert", "cannot create %s: %s", dst, strerror(errno));
        goto done;
    }
    /* header; the first-IFD offset is patched at the end */
    uint8_t hdr[16] = { 'I', 'I' };
    if (c.bigtiff) {
        fv__put_le(hdr + 2, 43, 2);
        fv__put_le(hdr + 4, 8, 2);
    } else {
        fv__put_le(hdr + 2, 42, 2);
    }
    if ((st = fv__write_all(&c, hdr, c.bigtiff ? 16 : 8)))
        goto done;
    /* level 0 in bands of one tile row */
    int64_t shape[3] = { c.T, l0.width, 3 };
    if ((st = fv_array_new(NULL, FV_UINT8, 3, shape, (fv_device){ FV_DEVICE_CPU, 0 }, &band)))
        goto done;
    fv_read_options ro = { FV_PIXEL_RGB, opts->num_workers, 1 };
    for (int64_t y = 0; y < l0.height; y += c.T) {
        int64_t rows = l0.height - y < c.T ? l0.height - y : c.T;
        fv_array *view = NULL;
        int64_t vs[3] = { rows, l0.width, 3 };
        if ((st = fv_array_view(band, 3, vs, NULL, 0, &view)))
            goto done;
        st = fv_slide_read_region(s, c.ctx, 0, y, 0, l0.width, rows, &ro, view);
        fv_array_unref(view);
        if (st)
            goto done;
        if ((st = fv__push_rows(&c, 0, fv_array_data(band), rows)))
            goto done;
    }
    char desc[512];
    const char *base = strrchr(src, '/');
    snprintf(desc, sizeof desc, "fovea convert of %s", base ? base + 1 : src);
    st = fv__write_directories(&c, desc);
done:
    if (c.fd >= 0) {
        if (close(c.fd) != 0 && !st)
            st = fv_error_set(FV_EIO, "convert", "close failed: %s", strerror(errno));
        if (st)
            unlink(dst);
    }
    for (int k = 0; k < c.nlevels; k++) {
        fv__free(c.lv[k].offsets);
        fv__free(c.lv[k].counts);
        fv__free(c.lv[k].band);
    }
    fv_array_unref(band);
    fv_context_free(c.ctx);
    fv_slide_unref(s);
    return st;
}
