/* The TIFF parser's tag tables (names, types), byte order, error messages and
 * reading of tag values (fv__tiff_pread, fv__tiff_tag_*), with the read-fault
 * injection used by the tests. Parsing the directories is in tiff.c. */
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

#include "tiff-internal.h"

/* bytes per value; 0 for an unknown type (such entries are skipped, as the
 * TIFF specification asks readers to) */
unsigned
fv__tiff_type_size(unsigned type)
{
    static const unsigned char sz[19] = { 0, 1, 1, 2, 4, 8, 1, 1, 2, 4, 8, 4, 8, 4, 0, 0, 8, 8, 8 };
    return type < 19 ? sz[type] : 0;
}

const char *
fv__tiff_type_name(unsigned type)
{
    static const char *const names[19] = { "?",         "BYTE",   "ASCII", "SHORT",     "LONG",  "RATIONAL", "SBYTE",
                                           "UNDEFINED", "SSHORT", "SLONG", "SRATIONAL", "FLOAT", "DOUBLE",   "IFD",
                                           "?",         "?",      "LONG8", "SLONG8",    "IFD8" };
    return type < 19 ? names[type] : "?";
}

const char *
fv__tiff_tag_name(unsigned tag)
{
    switch (tag) {
    case T_NEWSUBFILETYPE:
        return "NewSubfileType";
    case T_SUBFILETYPE:
        return "SubfileType";
    case T_IMAGEWIDTH:
        return "ImageWidth";
    case T_IMAGELENGTH:
        return "ImageLength";
    case T_BITSPERSAMPLE:
        return "BitsPerSample";
    case T_COMPRESSION:
        return "Compression";
    case T_PHOTOMETRIC:
        return "PhotometricInterpretation";
    case T_DOCUMENTNAME:
        return "DocumentName";
    case T_IMAGEDESCRIPTION:
        return "ImageDescription";
    case T_MAKE:
        return "Make";
    case T_MODEL:
        return "Model";
    case T_STRIPOFFSETS:
        return "StripOffsets";
    case T_SAMPLESPERPIXEL:
        return "SamplesPerPixel";
    case T_ROWSPERSTRIP:
        return "RowsPerStrip";
    case T_STRIPBYTECOUNTS:
        return "StripByteCounts";
    case T_XRESOLUTION:
        return "XResolution";
    case T_YRESOLUTION:
        return "YResolution";
    case T_PLANARCONFIG:
        return "PlanarConfiguration";
    case T_RESOLUTIONUNIT:
        return "ResolutionUnit";
    case T_SOFTWARE:
        return "Software";
    case T_DATETIME:
        return "DateTime";
    case T_ARTIST:
        return "Artist";
    case T_HOSTCOMPUTER:
        return "HostComputer";
    case T_PREDICTOR:
        return "Predictor";
    case T_TILEWIDTH:
        return "TileWidth";
    case T_TILELENGTH:
        return "TileLength";
    case T_TILEOFFSETS:
        return "TileOffsets";
    case T_TILEBYTECOUNTS:
        return "TileByteCounts";
    case T_SUBIFDS:
        return "SubIFDs";
    case T_SAMPLEFORMAT:
        return "SampleFormat";
    case T_JPEGTABLES:
        return "JPEGTables";
    case T_YCBCRSUBSAMPLING:
        return "YCbCrSubsampling";
    case T_COPYRIGHT:
        return "Copyright";
    }
    return "tag";
}

int
fv__tiff_is_uint_type(unsigned type)
{
    return type == TY_BYTE || type == TY_SHORT || type == TY_LONG || type == TY_IFD || type == TY_LONG8 ||
        type == TY_IFD8;
}

int
fv__tiff_is_text_type(unsigned type)
{
    return type == TY_ASCII || type == TY_BYTE || type == TY_UNDEFINED;
}

/* ---- byte order --------------------------------------------------------------- */

uint64_t
fv__tiff_get_uint(const uint8_t *p, unsigned size, int be)
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

const char *
fv__tiff_errno_text(int err, char *buf, size_t n)
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
fv_status
fv__tiff_err(const fv__tiff *t, fv_status st, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return fv_error_set(st, "tiff", "%s: %s", t && t->path ? t->path : "?", msg);
}

/* "tiff: <path>: directory <n> (offset <o>): <message>" */
fv_status
fv__tiff_derr(const fv__tiff *t, int idx, fv_status st, const char *fmt, ...)
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
            case FV__IO_FAULT_EIO:
                errno = EIO;
                return -1;
            case FV__IO_FAULT_EOF:
                return 0;
            case FV__IO_FAULT_SHORT:
                len = len > 1 ? len / 2 : len;
                break;
            case FV__IO_FAULT_EINTR:
                errno = EINTR;
                return -1;
            default:
                break;
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
        return fv__tiff_err(t, FV_EFORMAT, "%zu bytes at offset %llu run past the end of the file (%llu bytes)", len,
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
            return fv__tiff_err(t, FV_EIO, "read at offset %llu failed: %s", (unsigned long long)offset,
                                fv__tiff_errno_text(e, eb, sizeof eb));
        }
        if (n == 0)
            return fv__tiff_err(t, FV_EIO, "unexpected end of file at offset %llu (was the file truncated?)",
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
        return fv__tiff_err(t, FV_EFORMAT, "%s (%u) has %llu values, %llu needed", fv__tiff_tag_name(tag->tag),
                            tag->tag, (unsigned long long)tag->count, (unsigned long long)count);
    return FV_OK;
}

#define FV__TIFF_READ_BLOCK 2048 /* values converted per pread (16 KiB on the stack) */

static double
value_f64(const uint8_t *p, unsigned type, int be, int *ok)
{
    switch (type) {
    case TY_BYTE:
    case TY_SHORT:
    case TY_LONG:
    case TY_IFD:
    case TY_LONG8:
    case TY_IFD8:
        return (double)fv__tiff_get_uint(p, fv__tiff_type_size(type), be);
    case TY_SBYTE:
        return (double)(int8_t)fv__tiff_get_uint(p, 1, be);
    case TY_SSHORT:
        return (double)(int16_t)fv__tiff_get_uint(p, 2, be);
    case TY_SLONG:
        return (double)(int32_t)fv__tiff_get_uint(p, 4, be);
    case TY_SLONG8:
        return (double)(int64_t)fv__tiff_get_uint(p, 8, be);
    case TY_RATIONAL: {
        uint32_t num = (uint32_t)fv__tiff_get_uint(p, 4, be), den = (uint32_t)fv__tiff_get_uint(p + 4, 4, be);
        if (!den)
            break;
        return (double)num / (double)den;
    }
    case TY_SRATIONAL: {
        int32_t num = (int32_t)fv__tiff_get_uint(p, 4, be), den = (int32_t)fv__tiff_get_uint(p + 4, 4, be);
        if (!den)
            break;
        return (double)num / (double)den;
    }
    case TY_FLOAT: {
        uint32_t u = (uint32_t)fv__tiff_get_uint(p, 4, be);
        float f;
        memcpy(&f, &u, 4);
        return f;
    }
    case TY_DOUBLE: {
        uint64_t u = fv__tiff_get_uint(p, 8, be);
        double d;
        memcpy(&d, &u, 8);
        return d;
    }
    }
    *ok = 0;
    return 0;
}

/* count values of tag into out: uint64_t, or double (f64, by value_f64). */
static fv_status
read_values(const fv__tiff *t, const fv__tiff_tag *tag, void *out, uint64_t count, int f64)
{
    if (count && !out)
        return fv_error_set(FV_EINVAL, "tiff", "%s: out is NULL", f64 ? "tag_f64" : "tag_u64");
    unsigned sz = fv__tiff_type_size(tag->type);
    uint8_t buf[FV__TIFF_READ_BLOCK * 8];
    for (uint64_t done = 0; done < count;) {
        uint64_t n = count - done < FV__TIFF_READ_BLOCK ? count - done : FV__TIFF_READ_BLOCK;
        fv_status st = fv__tiff_pread(t, tag->offset + done * sz, buf, (size_t)(n * sz));
        if (st)
            return st;
        for (uint64_t i = 0; i < n; i++) {
            int ok = 1;
            if (!f64)
                ((uint64_t *)out)[done + i] = fv__tiff_get_uint(buf + i * sz, sz, t->big_endian);
            else
                ((double *)out)[done + i] = value_f64(buf + i * sz, tag->type, t->big_endian, &ok);
            if (!ok)
                return fv__tiff_err(t, FV_EFORMAT, "%s (%u) value %llu has a zero denominator",
                                    fv__tiff_tag_name(tag->tag), tag->tag, (unsigned long long)(done + i));
        }
        done += n;
    }
    return FV_OK;
}

fv_status
fv__tiff_tag_u64(const fv__tiff *t, const fv__tiff_tag *tag, uint64_t *out, uint64_t count)
{
    fv_status st = check_tag(t, tag, count, "tag_u64");
    if (st)
        return st;
    if (!fv__tiff_is_uint_type(tag->type))
        return fv__tiff_err(t, FV_EFORMAT, "%s (%u) has type %s, expected an unsigned integer",
                            fv__tiff_tag_name(tag->tag), tag->tag, fv__tiff_type_name(tag->type));
    return read_values(t, tag, out, count, 0);
}

fv_status
fv__tiff_tag_f64(const fv__tiff *t, const fv__tiff_tag *tag, double *out, uint64_t count)
{
    fv_status st = check_tag(t, tag, count, "tag_f64");
    if (st)
        return st;
    if (!fv__tiff_type_size(tag->type) || tag->type == TY_ASCII || tag->type == TY_UNDEFINED)
        return fv__tiff_err(t, FV_EFORMAT, "%s (%u) has type %s, expected a number", fv__tiff_tag_name(tag->tag),
                            tag->tag, fv__tiff_type_name(tag->type));
    return read_values(t, tag, out, count, 1);
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
    if (!fv__tiff_is_text_type(tag->type))
        return fv__tiff_err(t, FV_EFORMAT, "%s (%u) has type %s, expected ASCII", fv__tiff_tag_name(tag->tag), tag->tag,
                            fv__tiff_type_name(tag->type));
    if (tag->count > FV__TIFF_MAX_TEXT)
        return fv__tiff_err(t, FV_EFORMAT, "%s (%u) is %llu bytes long (limit %u)", fv__tiff_tag_name(tag->tag),
                            tag->tag, (unsigned long long)tag->count, (unsigned)FV__TIFF_MAX_TEXT);
    char *s = fv__malloc((size_t)tag->count + 1);
    if (!s)
        return fv_error_set(FV_ENOMEM, "tiff", "out of memory reading %s", fv__tiff_tag_name(tag->tag));
    st = fv__tiff_pread(t, tag->offset, s, (size_t)tag->count);
    if (st) {
        fv__free(s);
        return st;
    }
    s[tag->count] = '\0';
    *out = s;
    return FV_OK;
}
