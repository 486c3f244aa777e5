/* A validating TIFF / BigTIFF directory parser (no libtiff).
 *
 * Reads the header, the main IFD chain and every SubIFD with pread (never mmap),
 * checks each offset and byte count against the file size with overflow-safe
 * arithmetic, detects loops in the chain and cycles through SubIFDs, caps the
 * counts (FV__TIFF_MAX_*) and the memory the metadata may take, and records
 * what the formats and the slide reader need (fv__tiff_ifd). Sizes are computed
 * and checked before anything is allocated. Pixel data is never read here. */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "tiff.h"
#include "alloc.h"

#ifndef O_CLOEXEC
#  define O_CLOEXEC 0
#endif

/* Metadata memory (tag lists, chunk arrays, strings) one file may make us
 * allocate: 4x the file size plus 16 MiB, at most 1 GiB. Real files need a few
 * times less than their own size; hostile ones that point many directories at
 * the same bytes stop here instead of exhausting memory. */
#define FV__TIFF_BUDGET_SLACK ((uint64_t)16 << 20)
#define FV__TIFF_BUDGET_MAX ((uint64_t)1 << 30)

/* ---- tag numbers and types ------------------------------------------------------ */

enum {
    T_NEWSUBFILETYPE = 254, T_SUBFILETYPE = 255, T_IMAGEWIDTH = 256, T_IMAGELENGTH = 257,
    T_BITSPERSAMPLE = 258, T_COMPRESSION = 259, T_PHOTOMETRIC = 262, T_DOCUMENTNAME = 269,
    T_IMAGEDESCRIPTION = 270, T_MAKE = 271, T_MODEL = 272, T_STRIPOFFSETS = 273,
    T_SAMPLESPERPIXEL = 277, T_ROWSPERSTRIP = 278, T_STRIPBYTECOUNTS = 279, T_XRESOLUTION = 282,
    T_YRESOLUTION = 283, T_PLANARCONFIG = 284, T_RESOLUTIONUNIT = 296, T_SOFTWARE = 305,
    T_DATETIME = 306, T_ARTIST = 315, T_HOSTCOMPUTER = 316, T_PREDICTOR = 317, T_TILEWIDTH = 322,
    T_TILELENGTH = 323, T_TILEOFFSETS = 324, T_TILEBYTECOUNTS = 325, T_SUBIFDS = 330,
    T_SAMPLEFORMAT = 339, T_JPEGTABLES = 347, T_YCBCRSUBSAMPLING = 530, T_COPYRIGHT = 33432,
};

enum {
    TY_BYTE = 1, TY_ASCII = 2, TY_SHORT = 3, TY_LONG = 4, TY_RATIONAL = 5, TY_SBYTE = 6,
    TY_UNDEFINED = 7, TY_SSHORT = 8, TY_SLONG = 9, TY_SRATIONAL = 10, TY_FLOAT = 11,
    TY_DOUBLE = 12, TY_IFD = 13, TY_LONG8 = 16, TY_SLONG8 = 17, TY_IFD8 = 18,
};

/* bytes per value; 0 for an unknown type (such entries are skipped, as the
 * TIFF specification asks readers to) */
static unsigned
type_size(unsigned type)
{
    static const unsigned char sz[19] = {0, 1, 1, 2, 4, 8, 1, 1, 2, 4, 8, 4, 8, 4, 0, 0, 8, 8, 8};
    return type < 19 ? sz[type] : 0;
}

static const char *
type_name(unsigned type)
{
    static const char *const names[19] = {"?", "BYTE", "ASCII", "SHORT", "LONG", "RATIONAL", "SBYTE",
                                          "UNDEFINED", "SSHORT", "SLONG", "SRATIONAL", "FLOAT",
                                          "DOUBLE", "IFD", "?", "?", "LONG8", "SLONG8", "IFD8"};
    return type < 19 ? names[type] : "?";
}

static const char *
tag_name(unsigned tag)
{
    switch (tag) {
    case T_NEWSUBFILETYPE: return "NewSubfileType";
    case T_SUBFILETYPE: return "SubfileType";
    case T_IMAGEWIDTH: return "ImageWidth";
    case T_IMAGELENGTH: return "ImageLength";
    case T_BITSPERSAMPLE: return "BitsPerSample";
    case T_COMPRESSION: return "Compression";
    case T_PHOTOMETRIC: return "PhotometricInterpretation";
    case T_DOCUMENTNAME: return "DocumentName";
    case T_IMAGEDESCRIPTION: return "ImageDescription";
    case T_MAKE: return "Make";
    case T_MODEL: return "Model";
    case T_STRIPOFFSETS: return "StripOffsets";
    case T_SAMPLESPERPIXEL: return "SamplesPerPixel";
    case T_ROWSPERSTRIP: return "RowsPerStrip";
    case T_STRIPBYTECOUNTS: return "StripByteCounts";
    case T_XRESOLUTION: return "XResolution";
    case T_YRESOLUTION: return "YResolution";
    case T_PLANARCONFIG: return "PlanarConfiguration";
    case T_RESOLUTIONUNIT: return "ResolutionUnit";
    case T_SOFTWARE: return "Software";
    case T_DATETIME: return "DateTime";
    case T_ARTIST: return "Artist";
    case T_HOSTCOMPUTER: return "HostComputer";
    case T_PREDICTOR: return "Predictor";
    case T_TILEWIDTH: return "TileWidth";
    case T_TILELENGTH: return "TileLength";
    case T_TILEOFFSETS: return "TileOffsets";
    case T_TILEBYTECOUNTS: return "TileByteCounts";
    case T_SUBIFDS: return "SubIFDs";
    case T_SAMPLEFORMAT: return "SampleFormat";
    case T_JPEGTABLES: return "JPEGTables";
    case T_YCBCRSUBSAMPLING: return "YCbCrSubsampling";
    case T_COPYRIGHT: return "Copyright";
    }
    return "tag";
}

static int
is_uint_type(unsigned type)
{
    return type == TY_BYTE || type == TY_SHORT || type == TY_LONG || type == TY_IFD || type == TY_LONG8 ||
           type == TY_IFD8;
}

static int
is_text_type(unsigned type)
{
    return type == TY_ASCII || type == TY_BYTE || type == TY_UNDEFINED;
}

/* ---- byte order --------------------------------------------------------------- */

static uint64_t
get_uint(const uint8_t *p, unsigned size, int be)
{
    uint64_t v = 0;
    if (be)
        for (unsigned i = 0; i < size; i++)
            v = (v << 8) | p[i];
    else
        for (unsigned i = size; i-- > 0;)
            v = (v << 8) | p[i];
    return v;
}

/* ---- errors --------------------------------------------------------------------- */

static const char *
errno_text(int err, char *buf, size_t n)
{
#if defined(__GLIBC__) && defined(_GNU_SOURCE)
    return strerror_r(err, buf, n);
#else
    if (strerror_r(err, buf, n) != 0)
        snprintf(buf, n, "error %d", err);
    return buf;
#endif
}

/* "tiff: <path>: <message>" */
static fv_status
terr(const fv__tiff *t, fv_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static fv_status
terr(const fv__tiff *t, fv_status st, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return fv_error_set(st, "tiff", "%s: %s", t && t->path ? t->path : "?", msg);
}

/* "tiff: <path>: directory <n> (offset <o>): <message>" */
static fv_status
derr(const fv__tiff *t, int idx, fv_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static fv_status
derr(const fv__tiff *t, int idx, fv_status st, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    unsigned long long off = idx >= 0 && idx < t->nifds ? (unsigned long long)t->ifds[idx].offset : 0;
    return fv_error_set(st, "tiff", "%s: directory %d (offset %llu): %s", t->path, idx, off, msg);
}

/* ---- reading -------------------------------------------------------------------- */

/* read-fault injection (tiff.h, testing only) */
static atomic_int io_armed, io_kind;
static atomic_llong io_target, io_count;

void
fv__tiff_io_fault(int64_t n, int kind)
{
    atomic_store(&io_armed, 0);
    atomic_store(&io_count, 0);
    atomic_store(&io_target, n > 0 ? (long long)n : 0);
    atomic_store(&io_kind, kind);
    atomic_store(&io_armed, n >= 0);
}

int64_t
fv__tiff_io_count(void)
{
    return atomic_load(&io_count);
}

static ssize_t
io_pread(int fd, void *buf, size_t len, uint64_t offset)
{
    if (atomic_load_explicit(&io_armed, memory_order_relaxed)) {
        long long k = atomic_fetch_add_explicit(&io_count, 1, memory_order_relaxed) + 1;
        long long target = atomic_load_explicit(&io_target, memory_order_relaxed);
        int kind = atomic_load_explicit(&io_kind, memory_order_relaxed);
        if (target > 0 && (k == target || (k > target && (kind & FV__IO_FAULT_PERSIST)))) {
            switch (kind & 0xff) {
            case FV__IO_FAULT_EIO: errno = EIO; return -1;
            case FV__IO_FAULT_EOF: return 0;
            case FV__IO_FAULT_SHORT: len = len > 1 ? len / 2 : len; break;
            case FV__IO_FAULT_EINTR: errno = EINTR; return -1;
            default: break;
            }
        }
    }
    return pread(fd, buf, len, (off_t)offset);
}

fv_status
fv__tiff_pread(const fv__tiff *t, uint64_t offset, void *buf, size_t len)
{
    if (!t || (!buf && len))
        return fv_error_set(FV_EINVAL, "tiff", "pread: NULL argument");
    if (offset > t->file_size || (uint64_t)len > t->file_size - offset)
        return terr(t, FV_EFORMAT, "%zu bytes at offset %llu run past the end of the file (%llu bytes)", len,
                    (unsigned long long)offset, (unsigned long long)t->file_size);
    uint8_t *p = buf;
    while (len) {
        size_t want = len > ((size_t)1 << 30) ? ((size_t)1 << 30) : len;
        ssize_t n = io_pread(t->fd, p, want, offset);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            char eb[128];
            int e = errno;
            return terr(t, FV_EIO, "read at offset %llu failed: %s", (unsigned long long)offset,
                        errno_text(e, eb, sizeof eb));
        }
        if (n == 0)
            return terr(t, FV_EIO, "unexpected end of file at offset %llu (was the file truncated?)",
                        (unsigned long long)offset);
        p += n;
        len -= (size_t)n;
        offset += (uint64_t)n;
    }
    return FV_OK;
}

const fv__tiff_tag *
fv__tiff_find_tag(const fv__tiff_ifd *ifd, uint16_t tag)
{
    if (!ifd)
        return NULL;
    for (int i = 0; i < ifd->ntags; i++)
        if (ifd->tags[i].tag == tag)
            return &ifd->tags[i];
    return NULL;
}

static fv_status
check_tag(const fv__tiff *t, const fv__tiff_tag *tag, uint64_t count, const char *what)
{
    if (!t || !tag)
        return fv_error_set(FV_EINVAL, "tiff", "%s: NULL argument", what);
    if (count > tag->count)
        return terr(t, FV_EFORMAT, "%s (%u) has %llu values, %llu needed", tag_name(tag->tag), tag->tag,
                    (unsigned long long)tag->count, (unsigned long long)count);
    return FV_OK;
}

#define FV__TIFF_READ_BLOCK 2048   /* values converted per pread (16 KiB on the stack) */

fv_status
fv__tiff_tag_u64(const fv__tiff *t, const fv__tiff_tag *tag, uint64_t *out, uint64_t count)
{
    fv_status st = check_tag(t, tag, count, "tag_u64");
    if (st)
        return st;
    if (!is_uint_type(tag->type))
        return terr(t, FV_EFORMAT, "%s (%u) has type %s, expected an unsigned integer", tag_name(tag->tag),
                    tag->tag, type_name(tag->type));
    if (count && !out)
        return fv_error_set(FV_EINVAL, "tiff", "tag_u64: out is NULL");
    unsigned sz = type_size(tag->type);
    uint8_t buf[FV__TIFF_READ_BLOCK * 8];
    for (uint64_t done = 0; done < count;) {
        uint64_t n = count - done < FV__TIFF_READ_BLOCK ? count - done : FV__TIFF_READ_BLOCK;
        st = fv__tiff_pread(t, tag->offset + done * sz, buf, (size_t)(n * sz));
        if (st)
            return st;
        for (uint64_t i = 0; i < n; i++)
            out[done + i] = get_uint(buf + i * sz, sz, t->big_endian);
        done += n;
    }
    return FV_OK;
}

static double
value_f64(const uint8_t *p, unsigned type, int be, int *ok)
{
    switch (type) {
    case TY_BYTE: case TY_SHORT: case TY_LONG: case TY_IFD: case TY_LONG8: case TY_IFD8:
        return (double)get_uint(p, type_size(type), be);
    case TY_SBYTE: return (double)(int8_t)get_uint(p, 1, be);
    case TY_SSHORT: return (double)(int16_t)get_uint(p, 2, be);
    case TY_SLONG: return (double)(int32_t)get_uint(p, 4, be);
    case TY_SLONG8: return (double)(int64_t)get_uint(p, 8, be);
    case TY_RATIONAL: {
        uint32_t num = (uint32_t)get_uint(p, 4, be), den = (uint32_t)get_uint(p + 4, 4, be);
        if (!den)
            break;
        return (double)num / (double)den;
    }
    case TY_SRATIONAL: {
        int32_t num = (int32_t)get_uint(p, 4, be), den = (int32_t)get_uint(p + 4, 4, be);
        if (!den)
            break;
        return (double)num / (double)den;
    }
    case TY_FLOAT: {
        uint32_t u = (uint32_t)get_uint(p, 4, be);
        float f;
        memcpy(&f, &u, 4);
        return f;
    }
    case TY_DOUBLE: {
        uint64_t u = get_uint(p, 8, be);
        double d;
        memcpy(&d, &u, 8);
        return d;
    }
    }
    *ok = 0;
    return 0;
}

fv_status
fv__tiff_tag_f64(const fv__tiff *t, const fv__tiff_tag *tag, double *out, uint64_t count)
{
    fv_status st = check_tag(t, tag, count, "tag_f64");
    if (st)
        return st;
    if (!type_size(tag->type) || tag->type == TY_ASCII || tag->type == TY_UNDEFINED)
        return terr(t, FV_EFORMAT, "%s (%u) has type %s, expected a number", tag_name(tag->tag), tag->tag,
                    type_name(tag->type));
    if (count && !out)
        return fv_error_set(FV_EINVAL, "tiff", "tag_f64: out is NULL");
    unsigned sz = type_size(tag->type);
    uint8_t buf[FV__TIFF_READ_BLOCK * 8];
    for (uint64_t done = 0; done < count;) {
        uint64_t n = count - done < FV__TIFF_READ_BLOCK ? count - done : FV__TIFF_READ_BLOCK;
        st = fv__tiff_pread(t, tag->offset + done * sz, buf, (size_t)(n * sz));
        if (st)
            return st;
        for (uint64_t i = 0; i < n; i++) {
            int ok = 1;
            out[done + i] = value_f64(buf + i * sz, tag->type, t->big_endian, &ok);
            if (!ok)
                return terr(t, FV_EFORMAT, "%s (%u) value %llu has a zero denominator", tag_name(tag->tag),
                            tag->tag, (unsigned long long)(done + i));
        }
        done += n;
    }
    return FV_OK;
}

fv_status
fv__tiff_tag_string(const fv__tiff *t, const fv__tiff_tag *tag, char **out)
{
    fv_status st = check_tag(t, tag, 0, "tag_string");
    if (st)
        return st;
    if (!out)
        return fv_error_set(FV_EINVAL, "tiff", "tag_string: out is NULL");
    *out = NULL;
    if (!is_text_type(tag->type))
        return terr(t, FV_EFORMAT, "%s (%u) has type %s, expected ASCII", tag_name(tag->tag), tag->tag,
                    type_name(tag->type));
    if (tag->count > FV__TIFF_MAX_TEXT)
        return terr(t, FV_EFORMAT, "%s (%u) is %llu bytes long (limit %u)", tag_name(tag->tag), tag->tag,
                    (unsigned long long)tag->count, (unsigned)FV__TIFF_MAX_TEXT);
    char *s = fv__malloc((size_t)tag->count + 1);
    if (!s)
        return fv_error_set(FV_ENOMEM, "tiff", "out of memory reading %s", tag_name(tag->tag));
    st = fv__tiff_pread(t, tag->offset, s, (size_t)tag->count);
    if (st) {
        fv__free(s);
        return st;
    }
    s[tag->count] = '\0';
    *out = s;
    return FV_OK;
}

/* ---- parsing ------------------------------------------------------------------------ */

typedef struct pctx {
    fv__tiff *t;
    int cap;              /* allocated ifds */
    uint64_t used, budget;
} pctx;

static fv_status
charge(pctx *c, int idx, uint64_t bytes, const char *what)
{
    if (bytes > c->budget - c->used)
        return derr(c->t, idx, FV_EFORMAT,
                    "%s would take the file's metadata past %llu bytes (corrupt or hostile file)", what,
                    (unsigned long long)c->budget);
    c->used += bytes;
    return FV_OK;
}

/* The first value of an integer tag, or dflt when absent or empty. */
static fv_status
get_uint1(pctx *c, int idx, uint16_t tagno, uint64_t dflt, uint64_t *out)
{
    const fv__tiff_tag *tag = fv__tiff_find_tag(&c->t->ifds[idx], tagno);
    *out = dflt;
    if (!tag || !tag->count)
        return FV_OK;
    if (!is_uint_type(tag->type))
        return derr(c->t, idx, FV_EFORMAT, "%s (%u) has type %s, expected SHORT or LONG", tag_name(tagno), tagno,
                    type_name(tag->type));
    return fv__tiff_tag_u64(c->t, tag, out, 1);
}

/* A text tag into *out (NULL when absent); counted against the budget. */
static fv_status
get_text(pctx *c, int idx, uint16_t tagno, char **out)
{
    const fv__tiff_tag *tag = fv__tiff_find_tag(&c->t->ifds[idx], tagno);
    if (!tag)
        return FV_OK;
    if (!is_text_type(tag->type))
        return derr(c->t, idx, FV_EFORMAT, "%s (%u) has type %s, expected ASCII", tag_name(tagno), tagno,
                    type_name(tag->type));
    if (tag->count > FV__TIFF_MAX_TEXT)
        return derr(c->t, idx, FV_EFORMAT, "%s (%u) is %llu bytes long (limit %u)", tag_name(tagno), tagno,
                    (unsigned long long)tag->count, (unsigned)FV__TIFF_MAX_TEXT);
    fv_status st = charge(c, idx, tag->count + 1, tag_name(tagno));
    if (st)
        return st;
    return fv__tiff_tag_string(c->t, tag, out);
}

/* An optional resolution: 0 when absent or unusable (metadata only); a read error
 * (FV_EIO) still fails the open. */
static fv_status
get_resolution(pctx *c, int idx, uint16_t tagno, double *out)
{
    const fv__tiff_tag *tag = fv__tiff_find_tag(&c->t->ifds[idx], tagno);
    double v = 0;
    *out = 0;
    if (!tag || !tag->count)
        return FV_OK;
    fv_status st = fv__tiff_tag_f64(c->t, tag, &v, 1);
    if (st == FV_EIO)
        return st;
    if (st) {
        fv_error_clear();
        return FV_OK;
    }
    *out = v > 0 && v < 1e300 ? v : 0;
    return FV_OK;
}

/* The chunk (tile or strip) offsets and byte counts: right count, right types,
 * every chunk inside the file. */
static fv_status
read_chunks(pctx *c, int idx, uint16_t off_tag, uint16_t cnt_tag, const char *unit)
{
    fv__tiff *t = c->t;
    fv__tiff_ifd *d = &t->ifds[idx];
    const fv__tiff_tag *to = fv__tiff_find_tag(d, off_tag), *tb = fv__tiff_find_tag(d, cnt_tag);
    if (!to)
        return derr(t, idx, FV_EFORMAT, "%s image without %s", unit[0] == 't' ? "tiled" : "stripped",
                    tag_name(off_tag));
    if (!tb)
        return derr(t, idx, FV_EFORMAT, "%s image without %s", unit[0] == 't' ? "tiled" : "stripped",
                    tag_name(cnt_tag));
    const fv__tiff_tag *tags[2] = {to, tb};
    for (int k = 0; k < 2; k++) {
        if (!is_uint_type(tags[k]->type))
            return derr(t, idx, FV_EFORMAT, "%s (%u) has type %s, expected SHORT, LONG or LONG8",
                        tag_name(tags[k]->tag), tags[k]->tag, type_name(tags[k]->type));
        if (tags[k]->count != d->nchunks)
            return derr(t, idx, FV_EFORMAT, "%s (%u) has %llu values, expected %llu (one per %s)",
                        tag_name(tags[k]->tag), tags[k]->tag, (unsigned long long)tags[k]->count,
                        (unsigned long long)d->nchunks, unit);
    }
    fv_status st = charge(c, idx, d->nchunks * 16, "the chunk index");
    if (st)
        return st;
    size_t n = (size_t)d->nchunks;
    d->chunk_offsets = fv__malloc(n * sizeof(uint64_t));
    d->chunk_bytes = fv__malloc(n * sizeof(uint64_t));
    if (!d->chunk_offsets || !d->chunk_bytes)
        return derr(t, idx, FV_ENOMEM, "out of memory for %zu %s offsets", n, unit);
    if ((st = fv__tiff_tag_u64(t, to, d->chunk_offsets, n)) || (st = fv__tiff_tag_u64(t, tb, d->chunk_bytes, n)))
        return st;
    for (size_t i = 0; i < n; i++) {
        uint64_t o = d->chunk_offsets[i], b = d->chunk_bytes[i];
        if (b && (o > t->file_size || b > t->file_size - o))
            return derr(t, idx, FV_EFORMAT,
                        "%s %zu (offset %llu, %llu bytes) runs past the end of the file (%llu bytes)", unit, i,
                        (unsigned long long)o, (unsigned long long)b, (unsigned long long)t->file_size);
    }
    return FV_OK;
}

/* Fill the fields of directory idx from its tags. */
static fv_status
interpret(pctx *c, int idx)
{
    fv__tiff *t = c->t;
    fv__tiff_ifd *d = &t->ifds[idx];
    fv_status st;
    uint64_t v, w, h;

    /* dimensions (required) */
    for (int k = 0; k < 2; k++) {
        uint16_t tagno = k ? T_IMAGELENGTH : T_IMAGEWIDTH;
        const fv__tiff_tag *tag = fv__tiff_find_tag(d, tagno);
        if (!tag || !tag->count)
            return derr(t, idx, FV_EFORMAT, "no %s (%u)", tag_name(tagno), tagno);
        if ((st = get_uint1(c, idx, tagno, 0, k ? &h : &w)))
            return st;
    }
    if (w == 0 || w > FV__TIFF_MAX_DIM)
        return derr(t, idx, FV_EFORMAT, "image width %llu is out of range (1..%llu)", (unsigned long long)w,
                    (unsigned long long)FV__TIFF_MAX_DIM);
    if (h == 0 || h > FV__TIFF_MAX_DIM)
        return derr(t, idx, FV_EFORMAT, "image height %llu is out of range (1..%llu)", (unsigned long long)h,
                    (unsigned long long)FV__TIFF_MAX_DIM);
    d->width = w;
    d->height = h;

    /* sample layout */
    if ((st = get_uint1(c, idx, T_SAMPLESPERPIXEL, 1, &v)))
        return st;
    if (v == 0 || v > 65535)
        return derr(t, idx, FV_EFORMAT, "SamplesPerPixel %llu is out of range (1..65535)", (unsigned long long)v);
    d->samples = (uint16_t)v;
    if ((st = get_uint1(c, idx, T_BITSPERSAMPLE, 1, &v)))
        return st;
    if (v == 0 || v > 64)
        return derr(t, idx, FV_EFORMAT, "BitsPerSample %llu is out of range (1..64)", (unsigned long long)v);
    d->bits = (uint16_t)v;
    if ((st = get_uint1(c, idx, T_SAMPLEFORMAT, 1, &v)))
        return st;
    d->sample_format = (uint16_t)(v > 65535 ? 0 : v);
    if ((st = get_uint1(c, idx, T_COMPRESSION, 1, &v)))
        return st;
    if (v > 65535)
        return derr(t, idx, FV_EFORMAT, "Compression %llu is out of range", (unsigned long long)v);
    d->compression = (uint16_t)v;
    /* PhotometricInterpretation is required by the specification; when a writer
     * leaves it out, guess as libtiff does: RGB for 3+ samples, else grey */
    if ((st = get_uint1(c, idx, T_PHOTOMETRIC, d->samples >= 3 ? 2 : 1, &v)))
        return st;
    d->photometric = (uint16_t)(v > 65535 ? 65535 : v);
    if ((st = get_uint1(c, idx, T_PLANARCONFIG, 1, &v)))
        return st;
    if (v != 1 && v != 2)
        return derr(t, idx, FV_EFORMAT, "PlanarConfiguration %llu is not 1 or 2", (unsigned long long)v);
    d->planar = (uint16_t)v;
    if ((st = get_uint1(c, idx, T_PREDICTOR, 1, &v)))
        return st;
    d->predictor = (uint16_t)(v > 65535 ? 0 : v);
    d->ycbcr_sub[0] = d->ycbcr_sub[1] = 2;   /* the specification's default */
    const fv__tiff_tag *ys = fv__tiff_find_tag(d, T_YCBCRSUBSAMPLING);
    if (ys && ys->count >= 2) {
        uint64_t s2[2];
        if (!is_uint_type(ys->type))
            return derr(t, idx, FV_EFORMAT, "YCbCrSubsampling has type %s, expected SHORT", type_name(ys->type));
        if ((st = fv__tiff_tag_u64(t, ys, s2, 2)))
            return st;
        d->ycbcr_sub[0] = (uint16_t)(s2[0] > 65535 ? 0 : s2[0]);
        d->ycbcr_sub[1] = (uint16_t)(s2[1] > 65535 ? 0 : s2[1]);
    }

    /* subfile type: NewSubfileType, else the old SubfileType (2 = reduced) */
    if (fv__tiff_find_tag(d, T_NEWSUBFILETYPE)) {
        if ((st = get_uint1(c, idx, T_NEWSUBFILETYPE, 0, &v)))
            return st;
        d->subfile_type = (uint32_t)v;
    } else {
        if ((st = get_uint1(c, idx, T_SUBFILETYPE, 1, &v)))
            return st;
        d->subfile_type = v == 2 ? 1u : v == 3 ? 2u : 0u;
    }

    /* chunks: tiles or strips */
    const fv__tiff_tag *tw = fv__tiff_find_tag(d, T_TILEWIDTH), *th = fv__tiff_find_tag(d, T_TILELENGTH);
    uint64_t planes = d->planar == 2 ? d->samples : 1;
    if (tw || th) {
        uint64_t tws, ths;
        if (!tw || !th || !tw->count || !th->count)
            return derr(t, idx, FV_EFORMAT, "TileWidth and TileLength must come together");
        if ((st = get_uint1(c, idx, T_TILEWIDTH, 0, &tws)) || (st = get_uint1(c, idx, T_TILELENGTH, 0, &ths)))
            return st;
        if (tws == 0 || tws > FV__TIFF_MAX_TILE_DIM || ths == 0 || ths > FV__TIFF_MAX_TILE_DIM)
            return derr(t, idx, FV_EFORMAT, "tile size %llux%llu is out of range (1..%d)", (unsigned long long)tws,
                        (unsigned long long)ths, FV__TIFF_MAX_TILE_DIM);
        d->tile_width = (uint32_t)tws;
        d->tile_height = (uint32_t)ths;
        uint64_t across = (w + tws - 1) / tws, down = (h + ths - 1) / ths;
        uint64_t n = across * down;   /* < 2^48: no overflow */
        if (n > FV__TIFF_MAX_CHUNKS || n * planes > FV__TIFF_MAX_CHUNKS)
            return derr(t, idx, FV_EFORMAT, "%llu tiles (%llux%llu of %llux%llu) exceed the limit of %u",
                        (unsigned long long)(n * planes), (unsigned long long)w, (unsigned long long)h,
                        (unsigned long long)tws, (unsigned long long)ths, (unsigned)FV__TIFF_MAX_CHUNKS);
        d->nchunks = n * planes;
        d->rows_per_strip = 0;
        if ((st = read_chunks(c, idx, T_TILEOFFSETS, T_TILEBYTECOUNTS, "tile")))
            return st;
    } else {
        if ((st = get_uint1(c, idx, T_ROWSPERSTRIP, UINT32_MAX, &v)))
            return st;
        if (v == 0 || v > h)
            v = h;
        d->rows_per_strip = (uint32_t)v;
        uint64_t n = (h + v - 1) / v;
        if (n * planes > FV__TIFF_MAX_CHUNKS)
            return derr(t, idx, FV_EFORMAT, "%llu strips exceed the limit of %u", (unsigned long long)(n * planes),
                        (unsigned)FV__TIFF_MAX_CHUNKS);
        d->nchunks = n * planes;
        if ((st = read_chunks(c, idx, T_STRIPOFFSETS, T_STRIPBYTECOUNTS, "strip")))
            return st;
    }

    /* JPEGTables */
    const fv__tiff_tag *jt = fv__tiff_find_tag(d, T_JPEGTABLES);
    if (jt && jt->count) {
        if (jt->type != TY_UNDEFINED && jt->type != TY_BYTE)
            return derr(t, idx, FV_EFORMAT, "JPEGTables has type %s, expected UNDEFINED", type_name(jt->type));
        if (jt->count > FV__TIFF_MAX_TEXT)
            return derr(t, idx, FV_EFORMAT, "JPEGTables is %llu bytes long (limit %u)",
                        (unsigned long long)jt->count, (unsigned)FV__TIFF_MAX_TEXT);
        if ((st = charge(c, idx, jt->count, "JPEGTables")))
            return st;
        d->jpeg_tables = fv__malloc((size_t)jt->count);
        if (!d->jpeg_tables)
            return derr(t, idx, FV_ENOMEM, "out of memory for JPEGTables");
        d->jpeg_tables_len = (size_t)jt->count;
        if ((st = fv__tiff_pread(t, jt->offset, d->jpeg_tables, d->jpeg_tables_len)))
            return st;
    }

    /* text and resolution (metadata) */
    if ((st = get_text(c, idx, T_IMAGEDESCRIPTION, &d->description)) ||
        (st = get_text(c, idx, T_SOFTWARE, &d->software)) || (st = get_text(c, idx, T_MAKE, &d->make)) ||
        (st = get_text(c, idx, T_MODEL, &d->model)) || (st = get_text(c, idx, T_DATETIME, &d->datetime)) ||
        (st = get_text(c, idx, T_ARTIST, &d->artist)) || (st = get_text(c, idx, T_COPYRIGHT, &d->copyright)) ||
        (st = get_text(c, idx, T_HOSTCOMPUTER, &d->host_computer)) ||
        (st = get_text(c, idx, T_DOCUMENTNAME, &d->document_name)))
        return st;
    if ((st = get_resolution(c, idx, T_XRESOLUTION, &d->x_resolution)) ||
        (st = get_resolution(c, idx, T_YRESOLUTION, &d->y_resolution)) ||
        (st = get_uint1(c, idx, T_RESOLUTIONUNIT, 2, &v)))
        return st;
    d->resolution_unit = (uint16_t)(v > 65535 ? 0 : v);
    return FV_OK;
}

static int
find_ifd(const fv__tiff *t, uint64_t off)
{
    for (int i = 0; i < t->nifds; i++)
        if (t->ifds[i].offset == off)
            return i;
    return -1;
}

/* Read the directory at off as a new entry of t->ifds; *next gets its next-IFD
 * offset. ref: what pointed here, for messages. */
static fv_status
read_ifd(pctx *c, uint64_t off, int parent, int chain_index, uint64_t *next, const char *ref)
{
    fv__tiff *t = c->t;
    fv_status st;
    uint8_t *block = NULL;
    unsigned hdr = t->bigtiff ? 16 : 8, csz = t->bigtiff ? 8 : 2, esz = t->bigtiff ? 20 : 12,
             osz = t->bigtiff ? 8 : 4;

    if (t->nifds >= FV__TIFF_MAX_IFDS)
        return terr(t, FV_EFORMAT, "more than %d directories (%s)", FV__TIFF_MAX_IFDS, ref);
    if (off < hdr || off >= t->file_size)
        return terr(t, FV_EFORMAT, "directory offset %llu (%s) is %s (file is %llu bytes)",
                    (unsigned long long)off, ref, off < hdr ? "inside the header" : "past the end of the file",
                    (unsigned long long)t->file_size);
    /* odd offsets break the specification's word alignment but libtiff and
     * OpenSlide accept them; so do we (bounds are still checked) */
    uint8_t cb[8];
    if (off > t->file_size - csz)
        return terr(t, FV_EFORMAT, "directory at offset %llu (%s): entry count runs past the end of the file",
                    (unsigned long long)off, ref);
    if ((st = fv__tiff_pread(t, off, cb, csz)))
        return st;
    uint64_t n = get_uint(cb, csz, t->big_endian);
    if (n == 0)
        return terr(t, FV_EFORMAT, "directory at offset %llu (%s) has no entries", (unsigned long long)off, ref);
    if (n > FV__TIFF_MAX_TAGS)
        return terr(t, FV_EFORMAT, "directory at offset %llu (%s) has %llu entries (limit %d)",
                    (unsigned long long)off, ref, (unsigned long long)n, FV__TIFF_MAX_TAGS);
    uint64_t blen = n * esz + osz;
    if (blen > t->file_size - off - csz)
        return terr(t, FV_EFORMAT,
                    "directory at offset %llu (%s): %llu entries run past the end of the file (%llu bytes)",
                    (unsigned long long)off, ref, (unsigned long long)n, (unsigned long long)t->file_size);

    /* the new record (owned by t from here on, so close frees it on failure) */
    if (t->nifds == c->cap) {
        int ncap = c->cap ? c->cap * 2 : 8;
        if (ncap > FV__TIFF_MAX_IFDS)
            ncap = FV__TIFF_MAX_IFDS;
        fv__tiff_ifd *p = fv__realloc(t->ifds, (size_t)ncap * sizeof *p);
        if (!p)
            return terr(t, FV_ENOMEM, "out of memory for %d directories", ncap);
        t->ifds = p;
        c->cap = ncap;
    }
    int idx = t->nifds++;
    fv__tiff_ifd *d = &t->ifds[idx];
    memset(d, 0, sizeof *d);
    d->offset = off;
    d->parent = parent;
    d->chain_index = chain_index;

    if ((st = charge(c, idx, blen + n * sizeof(fv__tiff_tag), "the directory")))
        return st;
    block = fv__malloc((size_t)blen);
    d->tags = fv__malloc((size_t)n * sizeof *d->tags);
    if (!block || !d->tags) {
        st = derr(t, idx, FV_ENOMEM, "out of memory for %llu entries", (unsigned long long)n);
        goto done;
    }
    if ((st = fv__tiff_pread(t, off + csz, block, (size_t)blen)))
        goto done;
    for (uint64_t i = 0; i < n; i++) {
        const uint8_t *e = block + i * esz;
        fv__tiff_tag tg;
        tg.tag = (uint16_t)get_uint(e, 2, t->big_endian);
        tg.type = (uint16_t)get_uint(e + 2, 2, t->big_endian);
        tg.count = get_uint(e + 4, t->bigtiff ? 8 : 4, t->big_endian);
        unsigned sz = type_size(tg.type);
        if (!sz)
            continue;   /* unknown type: ignored, as the specification asks */
        if (tg.count > UINT64_MAX / sz) {
            st = derr(t, idx, FV_EFORMAT, "%s (%u): %llu values of type %s overflow a 64-bit size",
                      tag_name(tg.tag), tg.tag, (unsigned long long)tg.count, type_name(tg.type));
            goto done;
        }
        uint64_t bytes = tg.count * sz;
        uint64_t field = off + csz + i * esz + (t->bigtiff ? 12 : 8);
        if (bytes <= osz)
            tg.offset = field;
        else
            tg.offset = get_uint(e + (t->bigtiff ? 12 : 8), osz, t->big_endian);
        if (tg.offset > t->file_size || bytes > t->file_size - tg.offset) {
            st = derr(t, idx, FV_EFORMAT,
                      "%s (%u): %llu values of type %s at offset %llu run past the end of the file (%llu bytes)",
                      tag_name(tg.tag), tg.tag, (unsigned long long)tg.count, type_name(tg.type),
                      (unsigned long long)tg.offset, (unsigned long long)t->file_size);
            goto done;
        }
        d->tags[d->ntags++] = tg;
    }
    *next = get_uint(block + n * esz, osz, t->big_endian);
    st = interpret(c, idx);
done:
    fv__free(block);
    return st;
}

/* SubIFDs of directory p: each listed offset, plus any chain hanging off them
 * (libtiff links the SubIFDs it writes through their next pointers too). */
static fv_status
read_subifds(pctx *c, int p)
{
    fv__tiff *t = c->t;
    const fv__tiff_tag *tag = fv__tiff_find_tag(&t->ifds[p], T_SUBIFDS);
    if (!tag || !tag->count)
        return FV_OK;
    if (tag->type != TY_LONG && tag->type != TY_IFD && tag->type != TY_LONG8 && tag->type != TY_IFD8)
        return derr(t, p, FV_EFORMAT, "SubIFDs has type %s, expected LONG or IFD", type_name(tag->type));
    if (tag->count > FV__TIFF_MAX_IFDS)
        return derr(t, p, FV_EFORMAT, "SubIFDs lists %llu directories (limit %d)", (unsigned long long)tag->count,
                    FV__TIFF_MAX_IFDS);
    size_t n = (size_t)tag->count;
    uint64_t *list = fv__malloc(n * sizeof *list);
    if (!list)
        return derr(t, p, FV_ENOMEM, "out of memory for SubIFDs");
    fv_status st = fv__tiff_tag_u64(t, tag, list, n);
    int first_child = t->nifds;
    char ref[96];
    for (size_t i = 0; i < n && !st; i++) {
        uint64_t off = list[i];
        int k = find_ifd(t, off);
        if (k >= first_child && t->ifds[k].parent == p)
            continue;   /* already reached through a sibling's next pointer, or listed twice */
        if (k >= 0) {
            st = derr(t, p, FV_EFORMAT, "SubIFDs entry %zu points at directory %d (offset %llu): a cycle", i, k,
                      (unsigned long long)off);
            break;
        }
        snprintf(ref, sizeof ref, "SubIFDs entry %zu of directory %d", i, p);
        uint64_t next = 0;
        if ((st = read_ifd(c, off, p, -1, &next, ref)))
            break;
        /* follow the chain until it meets a listed entry or ends */
        while (next && !st) {
            int listed = 0;
            for (size_t j = 0; j < n; j++)
                if (list[j] == next)
                    listed = 1;
            if (listed)
                break;
            k = find_ifd(t, next);
            if (k >= 0) {
                st = derr(t, t->nifds - 1, FV_EFORMAT, "next directory offset %llu points back at directory %d: a %s",
                          (unsigned long long)next, k, t->ifds[k].parent == p ? "loop" : "cycle");
                break;
            }
            snprintf(ref, sizeof ref, "next pointer of directory %d", t->nifds - 1);
            uint64_t o = next;
            next = 0;
            st = read_ifd(c, o, p, -1, &next, ref);
        }
    }
    fv__free(list);
    return st;
}

fv_status
fv__tiff_open(const char *path, fv__tiff **out)
{
    if (!out)
        return fv_error_set(FV_EINVAL, "tiff", "out is NULL");
    *out = NULL;
    if (!path)
        return fv_error_set(FV_EINVAL, "tiff", "path is NULL");
    fv_status st = FV_OK;
    pctx c = {0};
    fv__tiff *t = fv__calloc(1, sizeof *t);
    if (!t)
        return fv_error_set(FV_ENOMEM, "tiff", "out of memory");
    t->fd = -1;
    t->path = fv__strdup(path);
    if (!t->path) {
        st = fv_error_set(FV_ENOMEM, "tiff", "out of memory");
        goto done;
    }
    c.t = t;

    do
        t->fd = open(path, O_RDONLY | O_CLOEXEC);
    while (t->fd < 0 && errno == EINTR);
    if (t->fd < 0) {
        char eb[128];
        int e = errno;
        st = terr(t, FV_EIO, "cannot open: %s", errno_text(e, eb, sizeof eb));
        goto done;
    }
    struct stat sb;
    if (fstat(t->fd, &sb) != 0) {
        char eb[128];
        int e = errno;
        st = terr(t, FV_EIO, "cannot stat: %s", errno_text(e, eb, sizeof eb));
        goto done;
    }
    if (!S_ISREG(sb.st_mode)) {
        st = terr(t, FV_EIO, "not a regular file");
        goto done;
    }
    t->file_size = (uint64_t)sb.st_size;
    c.budget = t->file_size > (FV__TIFF_BUDGET_MAX - FV__TIFF_BUDGET_SLACK) / 4
                   ? FV__TIFF_BUDGET_MAX
                   : t->file_size * 4 + FV__TIFF_BUDGET_SLACK;

    /* header */
    uint8_t h[16];
    if (t->file_size < 8) {
        st = terr(t, FV_EFORMAT, "not a TIFF file: %llu bytes is too short for a TIFF header",
                  (unsigned long long)t->file_size);
        goto done;
    }
    if ((st = fv__tiff_pread(t, 0, h, 8)))
        goto done;
    if (h[0] == 'I' && h[1] == 'I')
        t->big_endian = 0;
    else if (h[0] == 'M' && h[1] == 'M')
        t->big_endian = 1;
    else {
        st = terr(t, FV_EFORMAT, "not a TIFF file (bad magic bytes %02x %02x)", h[0], h[1]);
        goto done;
    }
    unsigned version = (unsigned)get_uint(h + 2, 2, t->big_endian);
    uint64_t first;
    if (version == 42) {
        first = get_uint(h + 4, 4, t->big_endian);
    } else if (version == 43) {
        t->bigtiff = 1;
        if (t->file_size < 16) {
            st = terr(t, FV_EFORMAT, "not a TIFF file: %llu bytes is too short for a BigTIFF header",
                      (unsigned long long)t->file_size);
            goto done;
        }
        if ((st = fv__tiff_pread(t, 0, h, 16)))
            goto done;
        if (get_uint(h + 4, 2, t->big_endian) != 8 || get_uint(h + 6, 2, t->big_endian) != 0) {
            st = terr(t, FV_EFORMAT, "bad BigTIFF header (offset size %u, expected 8)",
                      (unsigned)get_uint(h + 4, 2, t->big_endian));
            goto done;
        }
        first = get_uint(h + 8, 8, t->big_endian);
    } else {
        st = terr(t, FV_EFORMAT, "not a TIFF file (version %u, expected 42 or 43)", version);
        goto done;
    }
    if (first == 0) {
        st = terr(t, FV_EFORMAT, "the file has no directories (first directory offset is 0)");
        goto done;
    }

    /* the main chain */
    uint64_t off = first;
    char ref[96];
    snprintf(ref, sizeof ref, "from the header");
    for (int ci = 0; off; ci++) {
        int k = find_ifd(t, off);
        if (k >= 0) {
            st = derr(t, t->nifds - 1, FV_EFORMAT, "next directory offset %llu points back at directory %d: a loop",
                      (unsigned long long)off, k);
            goto done;
        }
        uint64_t next = 0;
        if ((st = read_ifd(&c, off, -1, ci, &next, ref)))
            goto done;
        snprintf(ref, sizeof ref, "next pointer of directory %d", t->nifds - 1);
        off = next;
    }
    /* SubIFDs, breadth first: main chain, then its SubIFDs, then theirs */
    for (int i = 0; i < t->nifds; i++)
        if ((st = read_subifds(&c, i)))
            goto done;
done:
    if (st) {
        fv__tiff_close(t);
        return st;
    }
    *out = t;
    return FV_OK;
}

static void
ifd_free(fv__tiff_ifd *d)
{
    fv__free(d->chunk_offsets);
    fv__free(d->chunk_bytes);
    fv__free(d->jpeg_tables);
    fv__free(d->description);
    fv__free(d->software);
    fv__free(d->make);
    fv__free(d->model);
    fv__free(d->datetime);
    fv__free(d->artist);
    fv__free(d->copyright);
    fv__free(d->host_computer);
    fv__free(d->document_name);
    fv__free(d->tags);
}

void
fv__tiff_close(fv__tiff *t)
{
    if (!t)
        return;
    for (int i = 0; i < t->nifds; i++)
        ifd_free(&t->ifds[i]);
    fv__free(t->ifds);
    if (t->fd >= 0)
        close(t->fd);
    fv__free(t->path);
    fv__free(t);
}
