/* The tests' one TIFF writer (tests/c and tests/fuzz): classic TIFF and BigTIFF,
 * either byte order, tiles or strips, directories in any chain (main chain,
 * SubIFDs), built in memory: tfw_init, tfw_append chunk data, fill a tfw_ifd
 * (tfw_int, tfw_ints, tfw_text, tfw_raw, tfw_image_tags), tfw_write_ifd it, link
 * the directories (tfw_first, tfw_link), tfw_save. Entries record where their
 * values landed (val_pos) so that tests can patch them into hostile files.
 *
 * On top of it, tfw_write_tiled_file writes a whole one-level tiled slide (the
 * tile bytes from a callback: raw pixels of tfw_px, JPEG tiles, ...). Header-only;
 * everything static. */
#ifndef FV_TEST_TIFF_WRITER_H
#define FV_TEST_TIFF_WRITER_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


enum {
    TFW_BYTE = 1,
    TFW_ASCII = 2,
    TFW_SHORT = 3,
    TFW_LONG = 4,
    TFW_RATIONAL = 5,
    TFW_UNDEF = 7,
    TFW_DOUBLE = 12,
    TFW_IFD = 13,
    TFW_LONG8 = 16,
    TFW_IFD8 = 18
};

#define TFW_MAX_ENTRIES 48

typedef struct tfw_entry {
    uint16_t tag, type;
    uint64_t count;
    uint8_t *data; /* value bytes in the file's byte order */
    size_t len;
    uint64_t val_pos; /* set by tfw_write_ifd: where the value (or its array) landed */
} tfw_entry;

typedef struct tfw_ifd {
    int n;
    tfw_entry e[TFW_MAX_ENTRIES];
    uint64_t off, next_pos; /* set by tfw_write_ifd */
} tfw_ifd;

typedef struct tfw {
    int big, be;
    uint8_t *buf;
    size_t len, cap;
} tfw;

static void
tfw_put(uint8_t *p, uint64_t v, int size, int be)
{
    for (int i = 0; i < size; i++)
        p[be ? size - 1 - i : i] = (uint8_t)(v >> (8 * i));
}

static uint64_t
tfw_append(tfw *w, const void *p, size_t n)
{
    size_t need = w->len + n + 1;
    if (need > w->cap) {
        size_t cap = w->cap ? w->cap : 4096;
        while (cap < need)
            cap *= 2;
        uint8_t *nb = realloc(w->buf, cap);
        if (!nb)
            abort();
        w->buf = nb;
        w->cap = cap;
    }
    if (w->len & 1) /* word alignment, as TIFF asks */
        w->buf[w->len++] = 0;
    uint64_t at = w->len;
    if (p)
        memcpy(w->buf + w->len, p, n);
    else
        memset(w->buf + w->len, 0, n);
    w->len += n;
    return at;
}

static void
tfw_init(tfw *w, int big, int be)
{
    memset(w, 0, sizeof *w);
    w->big = big;
    w->be = be;
    uint8_t h[16] = { 0 };
    h[0] = h[1] = be ? 'M' : 'I';
    tfw_put(h + 2, big ? 43 : 42, 2, be);
    if (big)
        tfw_put(h + 4, 8, 2, be);
    tfw_append(w, h, big ? 16 : 8);
}

static void
tfw_free(tfw *w)
{
    free(w->buf);
    memset(w, 0, sizeof *w);
}

static void
tfw_patch(tfw *w, uint64_t pos, uint64_t v, int size)
{
    tfw_put(w->buf + pos, v, size, w->be);
}

/* the first directory's offset in the header */
static void
tfw_first(tfw *w, uint64_t off)
{
    tfw_patch(w, w->big ? 8 : 4, off, w->big ? 8 : 4);
}

/* d's next-directory pointer -> off */
static void
tfw_link(tfw *w, const tfw_ifd *d, uint64_t off)
{
    tfw_patch(w, d->next_pos, off, w->big ? 8 : 4);
}

static int
tfw_tsize(int type)
{
    switch (type) {
    case TFW_SHORT:
        return 2;
    case TFW_LONG:
    case TFW_IFD:
        return 4;
    case TFW_RATIONAL:
    case TFW_DOUBLE:
    case TFW_LONG8:
    case TFW_IFD8:
        return 8;
    default:
        return 1;
    }
}

static void
tfw_ifd_free(tfw_ifd *d)
{
    for (int i = 0; i < d->n; i++)
        free(d->e[i].data);
    d->n = 0;
}

/* an entry of count values of type, their bytes given (NULL: zeros); returns it
 * (NULL when the directory is full) */
static tfw_entry *
tfw_raw(tfw_ifd *d, uint16_t tag, uint16_t type, uint64_t count, const void *bytes, size_t len)
{
    if (d->n >= TFW_MAX_ENTRIES)
        return NULL;
    tfw_entry *e = &d->e[d->n++];
    memset(e, 0, sizeof *e);
    e->tag = tag;
    e->type = type;
    e->count = count;
    e->len = len;
    e->data = calloc(1, len ? len : 1);
    if (!e->data)
        abort();
    if (len && bytes)
        memcpy(e->data, bytes, len);
    return e;
}

/* removes every entry of tag */
static void
tfw_remove(tfw_ifd *d, uint16_t tag)
{
    for (int k = 0; k < d->n; k++)
        if (d->e[k].tag == tag) {
            free(d->e[k].data);
            memmove(&d->e[k], &d->e[k + 1], (size_t)(d->n - k - 1) * sizeof d->e[0]);
            d->n--;
            k--;
        }
}

/* integer values (RATIONAL: 2 * count numerator/denominator values) */
static void
tfw_ints(const tfw *w, tfw_ifd *d, uint16_t tag, uint16_t type, uint64_t count, const uint64_t *v)
{
    uint64_t nv = type == TFW_RATIONAL ? 2 * count : count;
    int vsz = type == TFW_RATIONAL ? 4 : tfw_tsize(type);
    uint8_t *b = malloc((size_t)(nv * (uint64_t)vsz) + 1);
    if (!b)
        abort();
    for (uint64_t k = 0; k < nv; k++)
        tfw_put(b + k * (uint64_t)vsz, v[k], vsz, w->be);
    tfw_raw(d, tag, type, count, b, (size_t)(nv * (uint64_t)vsz));
    free(b);
}

static void
tfw_int(const tfw *w, tfw_ifd *d, uint16_t tag, uint16_t type, uint64_t v)
{
    tfw_ints(w, d, tag, type, 1, &v);
}

/* ASCII value: s plus its NUL (n bytes of s, which may hold NULs of its own) */
static void
tfw_text(tfw_ifd *d, uint16_t tag, const char *s, size_t n)
{
    char *b = malloc(n + 1);
    if (!b)
        abort();
    memcpy(b, s, n);
    b[n] = '\0';
    tfw_raw(d, tag, TFW_ASCII, n + 1, b, n + 1);
    free(b);
}

static int
tfw_entry_cmp(const void *a, const void *b)
{
    const tfw_entry *x = a, *y = b;
    return (x->tag > y->tag) - (x->tag < y->tag);
}

/* Write d's out-of-line values and then d itself (next pointer 0; see
 * tfw_link). Returns the directory's offset. */
static uint64_t
tfw_write_ifd(tfw *w, tfw_ifd *d)
{
    int osz = w->big ? 8 : 4, csz = w->big ? 8 : 2, esz = w->big ? 20 : 12;
    uint64_t pos[TFW_MAX_ENTRIES];
    qsort(d->e, (size_t)d->n, sizeof d->e[0], tfw_entry_cmp);
    for (int k = 0; k < d->n; k++)
        pos[k] = d->e[k].len > (size_t)osz ? tfw_append(w, d->e[k].data, d->e[k].len) : 0;
    size_t ilen = (size_t)(csz + d->n * esz + osz);
    uint8_t *b = calloc(1, ilen);
    if (!b)
        abort();
    tfw_put(b, (uint64_t)d->n, csz, w->be);
    for (int k = 0; k < d->n; k++) {
        uint8_t *e = b + csz + k * esz;
        tfw_put(e, d->e[k].tag, 2, w->be);
        tfw_put(e + 2, d->e[k].type, 2, w->be);
        tfw_put(e + 4, d->e[k].count, w->big ? 8 : 4, w->be);
        uint8_t *v = e + (w->big ? 12 : 8);
        if (d->e[k].len <= (size_t)osz)
            memcpy(v, d->e[k].data, d->e[k].len);
        else
            tfw_put(v, pos[k], osz, w->be);
    }
    d->off = tfw_append(w, b, ilen);
    d->next_pos = d->off + (uint64_t)(csz + d->n * esz);
    for (int k = 0; k < d->n; k++)
        d->e[k].val_pos = d->e[k].len > (size_t)osz ? pos[k] : d->off + (uint64_t)(csz + k * esz + (w->big ? 12 : 8));
    free(b);
    return d->off;
}

/* The image tags of a directory whose chunks are already in the file:
 * offsets/counts (n of them) go into TileOffsets/TileByteCounts when tiled
 * (tlw > 0), else StripOffsets/StripByteCounts with RowsPerStrip rps. */
static void
tfw_image_tags(const tfw *w, tfw_ifd *d, uint64_t width, uint64_t height, uint32_t tlw, uint32_t tlh, uint32_t rps,
               int samples, int bits, int compression, int photometric, uint64_t n, const uint64_t *offs,
               const uint64_t *cnts)
{
    uint64_t bps[8];
    for (int i = 0; i < 8; i++)
        bps[i] = (uint64_t)bits;
    tfw_int(w, d, 256, width > 65535 ? TFW_LONG : TFW_SHORT, width);
    tfw_int(w, d, 257, height > 65535 ? TFW_LONG : TFW_SHORT, height);
    tfw_ints(w, d, 258, TFW_SHORT, (uint64_t)(samples > 8 ? 8 : samples), bps);
    tfw_int(w, d, 259, TFW_SHORT, (uint64_t)compression);
    tfw_int(w, d, 262, TFW_SHORT, (uint64_t)photometric);
    tfw_int(w, d, 277, TFW_SHORT, (uint64_t)samples);
    tfw_int(w, d, 284, TFW_SHORT, 1);
    int t = w->big ? TFW_LONG8 : TFW_LONG;
    if (tlw) {
        tfw_int(w, d, 322, TFW_SHORT, tlw);
        tfw_int(w, d, 323, TFW_SHORT, tlh);
        tfw_ints(w, d, 324, (uint16_t)t, n, offs);
        tfw_ints(w, d, 325, (uint16_t)t, n, cnts);
    } else {
        tfw_int(w, d, 278, TFW_LONG, rps);
        tfw_ints(w, d, 273, (uint16_t)t, n, offs);
        tfw_ints(w, d, 279, (uint16_t)t, n, cnts);
    }
}

/* chunks in an image: tiles across x down, or strips */
static uint64_t
tfw_nchunks(uint64_t width, uint64_t height, uint32_t tlw, uint32_t tlh, uint32_t rps)
{
    if (tlw)
        return ((width + tlw - 1) / tlw) * ((height + tlh - 1) / tlh);
    return (height + rps - 1) / rps;
}

/* An image whose chunks are filler bytes (enough for metadata; reading its pixels
 * fails cleanly). */
static void
tfw_dummy_image(tfw *w, tfw_ifd *d, uint64_t width, uint64_t height, uint32_t tlw, uint32_t tlh, uint32_t rps,
                int samples)
{
    uint64_t n = tfw_nchunks(width, height, tlw, tlh, rps);
    uint64_t *offs = malloc(n * 8 + 8), *cnts = malloc(n * 8 + 8);
    if (!offs || !cnts)
        abort();
    for (uint64_t k = 0; k < n; k++) {
        uint8_t blob[8] = { 0xAB, (uint8_t)k, (uint8_t)(k >> 8), 1, 2, 3, 4, 5 };
        offs[k] = tfw_append(w, blob, sizeof blob);
        cnts[k] = sizeof blob;
    }
    tfw_image_tags(w, d, width, height, tlw, tlh, rps, samples, 8, 1, samples >= 3 ? 2 : 1, n, offs, cnts);
    free(offs);
    free(cnts);
}

/* writes the file's bytes to path; 0 on success */
static int
tfw_save(const tfw *w, const char *path)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t n = w->len ? fwrite(w->buf, 1, w->len, f) : 0;
    return (fclose(f) != 0 || n != w->len) ? -1 : 0;
}

/* ---- one-level tiled slides ---------------------------------------------------------- */

/* the test pattern of the raw slides: pixel (x, y), channel c */
static inline uint8_t
tfw_px(int64_t x, int64_t y, int c)
{
    return (uint8_t)((x * 7 + y * 13 + c * 85 + ((x ^ y) & 31)) & 255);
}

/* tile k (origin x0, y0) of a tiled file: sets *bytes (malloc'ed, the writer frees
 * it) and *len; *bytes NULL leaves the tile missing (offset and byte count 0) */
typedef void (*tfw_tile_fn)(void *user, int64_t k, int64_t x0, int64_t y0, uint8_t **bytes, size_t *len);

/* A classic little-endian tiled TIFF of one level, width x height in tile x tile
 * tiles: the tiles first (from offset 8, in order), then the directory.
 * YCbCr files get YCbCrSubSampling 2, 2. Returns 0 on success. */
static int
tfw_write_tiled_file(const char *path, uint32_t width, uint32_t height, uint32_t tile, int samples, int compression,
                     int photometric, tfw_tile_fn fn, void *user)
{
    tfw w;
    tfw_ifd d;
    memset(&d, 0, sizeof d);
    tfw_init(&w, 0, 0);
    const uint64_t across = (width + tile - 1) / tile, n = tfw_nchunks(width, height, tile, tile, 0);
    uint64_t *offs = calloc(n + 1, 8), *cnts = calloc(n + 1, 8);
    if (!offs || !cnts)
        abort();
    for (uint64_t k = 0; k < n; k++) {
        uint8_t *b = NULL;
        size_t len = 0;
        fn(user, (int64_t)k, (int64_t)(k % across) * tile, (int64_t)(k / across) * tile, &b, &len);
        if (b) {
            offs[k] = tfw_append(&w, b, len);
            cnts[k] = len;
            free(b);
        }
    }
    tfw_image_tags(&w, &d, width, height, tile, tile, 0, samples, 8, compression, photometric, n, offs, cnts);
    if (photometric == 6) {
        const uint64_t ss[2] = { 2, 2 };
        tfw_ints(&w, &d, 530, TFW_SHORT, 2, ss);
    }
    tfw_first(&w, tfw_write_ifd(&w, &d));
    int rc = tfw_save(&w, path);
    tfw_ifd_free(&d);
    tfw_free(&w);
    free(offs);
    free(cnts);
    return rc;
}

typedef struct tfw_raw_tiles {
    int64_t width, height;
    int tile;
} tfw_raw_tiles;

/* uncompressed RGB tiles of tfw_px (0 outside the image) */
static void
tfw_raw_tile(void *user, int64_t k, int64_t x0, int64_t y0, uint8_t **bytes, size_t *len)
{
    const tfw_raw_tiles *r = user;
    const int t = r->tile;
    uint8_t *p = malloc((size_t)t * t * 3);
    (void)k;
    if (!p)
        abort();
    for (int y = 0; y < t; y++)
        for (int x = 0; x < t; x++)
            for (int c = 0; c < 3; c++)
                p[((size_t)y * t + x) * 3 + c] =
                    (x0 + x < r->width && y0 + y < r->height) ? tfw_px(x0 + x, y0 + y, c) : 0;
    *bytes = p;
    *len = (size_t)t * t * 3;
}

/* A classic tiled RGB TIFF, uncompressed, one level, w x h pixels in t x t tiles,
 * pixel values from tfw_px (0 outside the image); the tiles from offset 8 */
static int
tfw_write_raw_slide(const char *path, int64_t w, int64_t h, int t)
{
    tfw_raw_tiles r = { w, h, t };
    return tfw_write_tiled_file(path, (uint32_t)w, (uint32_t)h, (uint32_t)t, 3, 1, 2, tfw_raw_tile, &r);
}

#endif
