/* Helpers shared by the fuzz targets and the corpus generator (header-only):
 *   fz_file()   the fuzz input as a file the library can open by path (a memfd
 *               reached through /proc/self/fd, else a temporary file), reused
 *               across iterations;
 *   fz_tw_*     a tiny TIFF / BigTIFF writer (either byte order, tiles or strips,
 *               main chain or SubIFDs) that builds files in memory. */
#ifndef FV_FUZZ_UTIL_H
#define FV_FUZZ_UTIL_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* ---- the input as a file ------------------------------------------------------------ */

static int fz_fd = -1;
static char fz_path[4096];

static const char *
fz_file(const uint8_t *data, size_t size)
{
    if (fz_fd < 0) {
#ifdef MFD_CLOEXEC
        fz_fd = memfd_create("fovea-fuzz", MFD_CLOEXEC);
        if (fz_fd >= 0) {
            snprintf(fz_path, sizeof fz_path, "/proc/self/fd/%d", fz_fd);
            if (access(fz_path, R_OK) != 0) {   /* no /proc: fall back to a file */
                close(fz_fd);
                fz_fd = -1;
            }
        }
#endif
        if (fz_fd < 0) {
            const char *dir = getenv("TMPDIR");
            snprintf(fz_path, sizeof fz_path, "%s/fovea-fuzz-XXXXXX", dir && *dir ? dir : "/tmp");
            fz_fd = mkstemp(fz_path);
            if (fz_fd < 0) {
                perror("fovea fuzz: cannot create the input file");
                abort();
            }
        }
    }
    if (ftruncate(fz_fd, 0) != 0)
        abort();
    size_t done = 0;
    while (done < size) {
        ssize_t n = pwrite(fz_fd, data + done, size - done, (off_t)done);
        if (n <= 0)
            abort();
        done += (size_t)n;
    }
    return fz_path;
}

/* ---- a tiny TIFF writer -------------------------------------------------------------- */

enum { FZ_BYTE = 1, FZ_ASCII = 2, FZ_SHORT = 3, FZ_LONG = 4, FZ_RATIONAL = 5, FZ_UNDEF = 7, FZ_DOUBLE = 12,
       FZ_IFD = 13, FZ_LONG8 = 16, FZ_IFD8 = 18 };

#define FZ_MAX_ENTRIES 40

typedef struct fz_entry {
    uint16_t tag, type;
    uint64_t count;
    uint8_t *bytes;     /* value bytes in the file's byte order */
    size_t len;
} fz_entry;

typedef struct fz_ifd {
    int n;
    fz_entry e[FZ_MAX_ENTRIES];
    uint64_t off, next_pos;   /* set by fz_tw_ifd */
} fz_ifd;

typedef struct fz_tw {
    int big, be;
    uint8_t *buf;
    size_t len, cap;
} fz_tw;

static void
fz_put(uint8_t *p, uint64_t v, int size, int be)
{
    for (int i = 0; i < size; i++)
        p[be ? size - 1 - i : i] = (uint8_t)(v >> (8 * i));
}

static uint64_t
fz_tw_append(fz_tw *w, const void *p, size_t n)
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
    if (w->len & 1)   /* word alignment, as TIFF asks */
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
fz_tw_init(fz_tw *w, int big, int be)
{
    memset(w, 0, sizeof *w);
    w->big = big;
    w->be = be;
    uint8_t h[16] = {0};
    h[0] = h[1] = be ? 'M' : 'I';
    fz_put(h + 2, big ? 43 : 42, 2, be);
    if (big)
        fz_put(h + 4, 8, 2, be);
    fz_tw_append(w, h, big ? 16 : 8);
}

static void
fz_tw_free(fz_tw *w)
{
    free(w->buf);
    memset(w, 0, sizeof *w);
}

static void
fz_tw_patch(fz_tw *w, uint64_t pos, uint64_t v, int size)
{
    fz_put(w->buf + pos, v, size, w->be);
}

/* the first directory's offset in the header */
static void
fz_tw_first(fz_tw *w, uint64_t off)
{
    fz_tw_patch(w, w->big ? 8 : 4, off, w->big ? 8 : 4);
}

/* d's next-directory pointer -> off */
static void
fz_tw_link(fz_tw *w, const fz_ifd *d, uint64_t off)
{
    fz_tw_patch(w, d->next_pos, off, w->big ? 8 : 4);
}

static int
fz_tsize(int type)
{
    switch (type) {
    case FZ_SHORT: return 2;
    case FZ_LONG: case FZ_IFD: return 4;
    case FZ_RATIONAL: case FZ_DOUBLE: case FZ_LONG8: case FZ_IFD8: return 8;
    default: return 1;
    }
}

static void
fz_ifd_free(fz_ifd *d)
{
    for (int i = 0; i < d->n; i++)
        free(d->e[i].bytes);
    d->n = 0;
}

static void
fz_raw(fz_ifd *d, uint16_t tag, uint16_t type, uint64_t count, const void *bytes, size_t len)
{
    if (d->n >= FZ_MAX_ENTRIES)
        return;
    fz_entry *e = &d->e[d->n++];
    e->tag = tag;
    e->type = type;
    e->count = count;
    e->len = len;
    e->bytes = malloc(len ? len : 1);
    if (!e->bytes)
        abort();
    if (len)
        memcpy(e->bytes, bytes, len);
}

/* integer values (RATIONAL: 2 * count numerator/denominator values) */
static void
fz_ints(const fz_tw *w, fz_ifd *d, uint16_t tag, uint16_t type, uint64_t count, const uint64_t *v)
{
    uint64_t nv = type == FZ_RATIONAL ? 2 * count : count;
    int vsz = type == FZ_RATIONAL ? 4 : fz_tsize(type);
    uint8_t *b = malloc((size_t)(nv * (uint64_t)vsz) + 1);
    if (!b)
        abort();
    for (uint64_t k = 0; k < nv; k++)
        fz_put(b + k * (uint64_t)vsz, v[k], vsz, w->be);
    fz_raw(d, tag, type, count, b, (size_t)(nv * (uint64_t)vsz));
    free(b);
}

static void
fz_int(const fz_tw *w, fz_ifd *d, uint16_t tag, uint16_t type, uint64_t v)
{
    fz_ints(w, d, tag, type, 1, &v);
}

/* ASCII value: s plus its NUL (n bytes of s, which may hold NULs of its own) */
static void
fz_text(fz_ifd *d, uint16_t tag, const char *s, size_t n)
{
    char *b = malloc(n + 1);
    if (!b)
        abort();
    memcpy(b, s, n);
    b[n] = '\0';
    fz_raw(d, tag, FZ_ASCII, n + 1, b, n + 1);
    free(b);
}

static int
fz_entry_cmp(const void *a, const void *b)
{
    const fz_entry *x = a, *y = b;
    return (x->tag > y->tag) - (x->tag < y->tag);
}

/* Write d's out-of-line values and then d itself (next pointer 0; see
 * fz_tw_link). Returns the directory's offset. */
static uint64_t
fz_tw_ifd(fz_tw *w, fz_ifd *d)
{
    int osz = w->big ? 8 : 4, csz = w->big ? 8 : 2, esz = w->big ? 20 : 12;
    uint64_t pos[FZ_MAX_ENTRIES];
    qsort(d->e, (size_t)d->n, sizeof d->e[0], fz_entry_cmp);
    for (int k = 0; k < d->n; k++)
        pos[k] = d->e[k].len > (size_t)osz ? fz_tw_append(w, d->e[k].bytes, d->e[k].len) : 0;
    size_t ilen = (size_t)(csz + d->n * esz + osz);
    uint8_t *b = calloc(1, ilen);
    if (!b)
        abort();
    fz_put(b, (uint64_t)d->n, csz, w->be);
    for (int k = 0; k < d->n; k++) {
        uint8_t *e = b + csz + k * esz;
        fz_put(e, d->e[k].tag, 2, w->be);
        fz_put(e + 2, d->e[k].type, 2, w->be);
        fz_put(e + 4, d->e[k].count, w->big ? 8 : 4, w->be);
        uint8_t *v = e + (w->big ? 12 : 8);
        if (d->e[k].len <= (size_t)osz)
            memcpy(v, d->e[k].bytes, d->e[k].len);
        else
            fz_put(v, pos[k], osz, w->be);
    }
    d->off = fz_tw_append(w, b, ilen);
    d->next_pos = d->off + (uint64_t)(csz + d->n * esz);
    free(b);
    return d->off;
}

/* The image tags of a directory whose chunks are already in the file:
 * offsets/counts (n of them) go into TileOffsets/TileByteCounts when tiled
 * (tlw > 0), else StripOffsets/StripByteCounts with RowsPerStrip rps. */
static void
fz_image_tags(const fz_tw *w, fz_ifd *d, uint64_t width, uint64_t height, uint32_t tlw, uint32_t tlh,
              uint32_t rps, int samples, int bits, int compression, int photometric, uint64_t n,
              const uint64_t *offs, const uint64_t *cnts)
{
    uint64_t bps[8];
    for (int i = 0; i < 8; i++)
        bps[i] = (uint64_t)bits;
    fz_int(w, d, 256, width > 65535 ? FZ_LONG : FZ_SHORT, width);
    fz_int(w, d, 257, height > 65535 ? FZ_LONG : FZ_SHORT, height);
    fz_ints(w, d, 258, FZ_SHORT, (uint64_t)(samples > 8 ? 8 : samples), bps);
    fz_int(w, d, 259, FZ_SHORT, (uint64_t)compression);
    fz_int(w, d, 262, FZ_SHORT, (uint64_t)photometric);
    fz_int(w, d, 277, FZ_SHORT, (uint64_t)samples);
    fz_int(w, d, 284, FZ_SHORT, 1);
    int t = w->big ? FZ_LONG8 : FZ_LONG;
    if (tlw) {
        fz_int(w, d, 322, FZ_SHORT, tlw);
        fz_int(w, d, 323, FZ_SHORT, tlh);
        fz_ints(w, d, 324, (uint16_t)t, n, offs);
        fz_ints(w, d, 325, (uint16_t)t, n, cnts);
    } else {
        fz_int(w, d, 278, FZ_LONG, rps);
        fz_ints(w, d, 273, (uint16_t)t, n, offs);
        fz_ints(w, d, 279, (uint16_t)t, n, cnts);
    }
}

/* chunks in an image: tiles across x down, or strips */
static uint64_t
fz_nchunks(uint64_t width, uint64_t height, uint32_t tlw, uint32_t tlh, uint32_t rps)
{
    if (tlw)
        return ((width + tlw - 1) / tlw) * ((height + tlh - 1) / tlh);
    return (height + rps - 1) / rps;
}

/* An image whose chunks are filler bytes (enough for metadata; reading its pixels
 * fails cleanly). */
static void
fz_dummy_image(fz_tw *w, fz_ifd *d, uint64_t width, uint64_t height, uint32_t tlw, uint32_t tlh, uint32_t rps,
               int samples)
{
    uint64_t n = fz_nchunks(width, height, tlw, tlh, rps);
    uint64_t *offs = malloc(n * 8 + 8), *cnts = malloc(n * 8 + 8);
    if (!offs || !cnts)
        abort();
    for (uint64_t k = 0; k < n; k++) {
        uint8_t blob[8] = {0xAB, (uint8_t)k, (uint8_t)(k >> 8), 1, 2, 3, 4, 5};
        offs[k] = fz_tw_append(w, blob, sizeof blob);
        cnts[k] = sizeof blob;
    }
    fz_image_tags(w, d, width, height, tlw, tlh, rps, samples, 8, 1, samples >= 3 ? 2 : 1, n, offs, cnts);
    free(offs);
    free(cnts);
}

#endif
