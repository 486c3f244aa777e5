/* fv_stack_read / fv_stack_write_ome (include/fovea/stack.h): multi-page TIFF
 * stacks as (pages, height, width) arrays. Reading goes through the validating
 * parser (src/tiff) and the chunk codecs (src/codec); uncompressed chunks of any
 * sample type are copied here (the codecs decode 8- and 16-bit unsigned
 * samples). Writing: one uncompressed strip per page, the OME-XML in the first
 * page's ImageDescription, the directories after the pixels. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "fovea/stack.h"
#include "codec/codec.h"
#include "tiff/tiff.h"

static const char *RD = "stack_read", *WR = "stack_write";

/* The array dtype of TIFF samples (bits, SampleFormat), or -1. */
static int
sample_dtype(unsigned bits, unsigned fmt)
{
    if (fmt == 0)
        fmt = 1;
    switch (bits * 10 + fmt) {
    case 81:
        return FV_UINT8;
    case 82:
        return FV_INT8;
    case 161:
        return FV_UINT16;
    case 162:
        return FV_INT16;
    case 321:
        return FV_UINT32;
    case 322:
        return FV_INT32;
    case 323:
        return FV_FLOAT32;
    case 641:
        return FV_UINT64;
    case 642:
        return FV_INT64;
    case 643:
        return FV_FLOAT64;
    default:
        return -1;
    }
}

/* The value of the first OME attribute `name` (name="..." or name='...', after
 * white space) in the description, or NULL. */
static const char *
ome_attr(const char *desc, const char *name)
{
    const size_t n = strlen(name);
    for (const char *p = strstr(desc, name); p; p = strstr(p + 1, name))
        if (p > desc && (p[-1] == ' ' || p[-1] == '\t' || p[-1] == '\n' || p[-1] == '\r') && p[n] == '=' &&
            (p[n + 1] == '"' || p[n + 1] == '\''))
            return p + n + 2;
    return NULL;
}

static long
ome_size(const char *desc, const char *name)
{
    const char *v = ome_attr(desc, name);
    return v ? strtol(v, NULL, 10) : 1;
}

/* PhysicalSizeZ/Y/X in micrometres (no unit attribute, or "µm" / "um"), else 0. */
static void
ome_physical(const char *desc, double *phys)
{
    static const char *axes[3] = { "PhysicalSizeZ", "PhysicalSizeY", "PhysicalSizeX" };
    for (int i = 0; i < 3; i++) {
        char unit[32];
        const char *v = ome_attr(desc, axes[i]), *u;
        snprintf(unit, sizeof unit, "%sUnit", axes[i]);
        u = ome_attr(desc, unit);
        const int um = !u || !strncmp(u, "\xC2\xB5m", 3) || !strncmp(u, "\xCE\xBCm", 3) || !strncmp(u, "um", 2);
        phys[i] = v && um ? strtod(v, NULL) : 0.0;
        if (!(phys[i] > 0) || !isfinite(phys[i]))
            phys[i] = 0.0;
    }
}

static void
swap_bytes(uint8_t *p, size_t n, size_t item)
{
    for (size_t i = 0; i + item <= n; i += item)
        for (size_t a = 0, b = item - 1; a < b; a++, b--) {
            uint8_t t = p[i + a];
            p[i + a] = p[i + b];
            p[i + b] = t;
        }
}

/* Decode chunk c of page d into buf (cw x ch samples of `item` bytes). */
static fv_status
read_chunk(const fv__tiff *t, const fv__tiff_ifd *d, uint64_t c, uint32_t cw, uint32_t ch, size_t item, uint8_t *buf,
           uint8_t **src, size_t *src_cap)
{
    const size_t need = (size_t)cw * ch * item;
    const uint64_t len = d->chunk_bytes[c];
    fv_status st;
    if (len > FV__MAX_CHUNK_BYTES)
        return fv_error_set(FV_EFORMAT, RD, "chunk %llu of %llu bytes is too large", (unsigned long long)c,
                            (unsigned long long)len);
    if (len > *src_cap) {
        uint8_t *p = realloc(*src, (size_t)len);
        if (!p)
            return fv_error_set(FV_ENOMEM, RD, "out of memory");
        *src = p;
        *src_cap = (size_t)len;
    }
    if ((st = fv__tiff_pread(t, d->chunk_offsets[c], *src, (size_t)len)) != FV_OK)
        return st;
    if (d->compression == FV_TIFF_COMPRESSION_NONE) {
        if (len < need)
            return fv_error_set(FV_EFORMAT, RD, "chunk %llu holds %llu bytes, %zu needed", (unsigned long long)c,
                                (unsigned long long)len, need);
        memcpy(buf, *src, need);
        if (t->big_endian && item > 1)
            swap_bytes(buf, need, item);
        return FV_OK;
    }
    if ((d->bits != 8 && d->bits != 16) || d->sample_format > 1)
        return fv_error_set(FV_EUNSUPPORTED, RD,
                            "compression %u with %u-bit samples of format %u: compressed stacks must hold 8- or "
                            "16-bit unsigned samples (other types: uncompressed)",
                            d->compression, d->bits, d->sample_format ? d->sample_format : 1);
    fv__chunk_info ci;
    memset(&ci, 0, sizeof ci);
    ci.width = cw;
    ci.height = ch;
    ci.samples = 1;
    ci.bits = d->bits;
    ci.sample_format = 1;
    ci.compression = d->compression;
    ci.photometric = d->photometric;
    ci.predictor = d->predictor ? d->predictor : 1;
    ci.file_big_endian = t->big_endian;
    ci.jpeg_tables = d->jpeg_tables;
    ci.jpeg_tables_len = d->jpeg_tables_len;
    return fv__codec_decode(&ci, *src, (size_t)len, buf, need);
}

/* Every chunk of page d into plane (height x width, `item` bytes each). */
static fv_status
read_page(const fv__tiff *t, const fv__tiff_ifd *d, size_t item, uint8_t *plane)
{
    const uint32_t tw = d->tile_width ? d->tile_width : (uint32_t)d->width;
    const uint32_t th = d->tile_width ? d->tile_height : d->rows_per_strip;
    const uint64_t across = d->tile_width ? (d->width + tw - 1) / tw : 1;
    const uint64_t down = th ? (d->height + th - 1) / th : 0;
    if (!tw || !th || d->nchunks < across * down)
        return fv_error_set(FV_EFORMAT, RD, "a page lists %llu chunks, %llu needed", (unsigned long long)d->nchunks,
                            (unsigned long long)(across * down));
    uint8_t *buf = malloc((size_t)tw * th * item), *src = NULL;
    size_t cap = 0;
    fv_status st = buf ? FV_OK : fv_error_set(FV_ENOMEM, RD, "out of memory");
    for (uint64_t c = 0; st == FV_OK && c < d->nchunks; c++) {
        const uint64_t x0 = (c % across) * tw, y0 = (c / across) * th;
        if (y0 >= d->height)
            break;
        const uint32_t ch = d->tile_width ? th : (uint32_t)(d->height - y0 < th ? d->height - y0 : th);
        if ((st = read_chunk(t, d, c, tw, ch, item, buf, &src, &cap)) != FV_OK)
            break;
        const uint64_t rows = d->height - y0 < ch ? d->height - y0 : ch;
        const uint64_t cols = d->width - x0 < tw ? d->width - x0 : tw;
        for (uint64_t r = 0; r < rows; r++)
            memcpy(plane + ((y0 + r) * d->width + x0) * item, buf + r * tw * item, (size_t)(cols * item));
    }
    free(buf);
    free(src);
    return st;
}

fv_status
fv_stack_read(const char *path, fv_array **out, double *physical_size)
{
    fv__tiff *t = NULL;
    int *pages = NULL, np = 0, dt;
    fv_status st;
    if (!path || !out)
        return fv_error_set(FV_EINVAL, RD, "NULL argument");
    *out = NULL;
    if (physical_size)
        physical_size[0] = physical_size[1] = physical_size[2] = 0.0;
    if ((st = fv__tiff_open(path, &t)) != FV_OK)
        return st;
    if (!(pages = malloc(sizeof *pages * (size_t)t->nifds))) {
        st = fv_error_set(FV_ENOMEM, RD, "out of memory");
        goto done;
    }
    for (int i = 0; i < t->nifds; i++)
        if (t->ifds[i].chain_index >= 0 && !(t->ifds[i].subfile_type & 1))
            pages[np++] = i;
    if (!np) {
        st = fv_error_set(FV_EFORMAT, RD, "%s: no full-resolution page", path);
        goto done;
    }
    const fv__tiff_ifd *d0 = &t->ifds[pages[0]];
    if (d0->description && strstr(d0->description, "openmicroscopy.org/Schemas/OME") &&
        (ome_size(d0->description, "SizeC") > 1 || ome_size(d0->description, "SizeT") > 1)) {
        st = fv_error_set(FV_EUNSUPPORTED, RD,
                          "%s: OME-TIFF with SizeC %ld, SizeT %ld: only single-channel, "
                          "single-timepoint stacks are read",
                          path, ome_size(d0->description, "SizeC"), ome_size(d0->description, "SizeT"));
        goto done;
    }
    if (physical_size && d0->description && strstr(d0->description, "openmicroscopy.org/Schemas/OME"))
        ome_physical(d0->description, physical_size);
    if (d0->samples != 1) {
        st = fv_error_set(FV_EUNSUPPORTED, RD, "%s: %u samples per pixel: only single-channel stacks are read", path,
                          d0->samples);
        goto done;
    }
    if ((dt = sample_dtype(d0->bits, d0->sample_format)) < 0) {
        st = fv_error_set(FV_EUNSUPPORTED, RD, "%s: %u-bit samples of format %u are not supported", path, d0->bits,
                          d0->sample_format);
        goto done;
    }
    for (int i = 1; i < np; i++) {
        const fv__tiff_ifd *d = &t->ifds[pages[i]];
        if (d->width != d0->width || d->height != d0->height || d->samples != 1 || d->bits != d0->bits ||
            (d->sample_format ? d->sample_format : 1) != (d0->sample_format ? d0->sample_format : 1)) {
            st = fv_error_set(FV_EFORMAT, RD, "%s: page %d differs from page 0 in size or sample type", path, i);
            goto done;
        }
    }
    const int64_t shape[3] = { np, (int64_t)d0->height, (int64_t)d0->width };
    const fv_device host = { FV_DEVICE_CPU, 0 };
    if ((st = fv_array_new(NULL, (fv_dtype)dt, 3, shape, host, out)) != FV_OK)
        goto done;
    const size_t item = fv_dtype_size((fv_dtype)dt), plane = (size_t)shape[1] * (size_t)shape[2] * item;
    for (int i = 0; i < np && st == FV_OK; i++)
        st = read_page(t, &t->ifds[pages[i]], item, (uint8_t *)fv_array_data(*out) + (size_t)i * plane);
    if (st != FV_OK) {
        fv_array_unref(*out);
        *out = NULL;
    }
done:
    free(pages);
    fv__tiff_close(t);
    return st;
}

/* ---- writing ------------------------------------------------------------------------ */

typedef struct fv__wr {
    FILE *f;
    int big;
} fv__wr;

static int
put(fv__wr *w, uint64_t v, int n)
{
    uint8_t b[8];
    for (int i = 0; i < n; i++)
        b[i] = (uint8_t)(v >> (8 * i));
    return fwrite(b, 1, (size_t)n, w->f) == (size_t)n;
}

/* One directory entry; value: inline value or offset. */
static int
entry(fv__wr *w, uint16_t tag, uint16_t type, uint64_t count, uint64_t value)
{
    const int vsize = w->big ? 8 : 4;
    if (!put(w, tag, 2) || !put(w, type, 2) || !put(w, count, w->big ? 8 : 4))
        return 0;
    if (type == 3 && count == 1) /* SHORT, left-justified */
        return put(w, value, 2) && put(w, 0, vsize - 2);
    return put(w, value, vsize);
}

static const char *
ome_type(fv_dtype dt)
{
    switch (dt) {
    case FV_UINT8:
        return "uint8";
    case FV_UINT16:
        return "uint16";
    case FV_INT16:
        return "int16";
    case FV_UINT32:
        return "uint32";
    case FV_INT32:
        return "int32";
    case FV_FLOAT32:
        return "float";
    case FV_FLOAT64:
        return "double";
    default:
        return NULL;
    }
}

static char *
ome_xml(fv_dtype dt, int64_t z, int64_t h, int64_t w, const double *phys)
{
    char sizes[160] = "";
    static const char *axis[3] = { "Z", "Y", "X" };
    size_t len = 0;
    for (int i = 0; phys && i < 3; i++)
        if (phys[i] > 0 && isfinite(phys[i]))
            len += (size_t)snprintf(sizes + len, sizeof sizes - len, " PhysicalSize%s=\"%.9g\"", axis[i], phys[i]);
    const char *fmt = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
                      "<OME xmlns=\"http://www.openmicroscopy.org/Schemas/OME/2016-06\" Creator=\"fovea\">"
                      "<Image ID=\"Image:0\" Name=\"deconvolved\"><Pixels ID=\"Pixels:0\" DimensionOrder=\"XYZCT\" "
                      "Type=\"%s\" SizeX=\"%lld\" SizeY=\"%lld\" SizeZ=\"%lld\" SizeC=\"1\" SizeT=\"1\"%s>"
                      "<Channel ID=\"Channel:0:0\" SamplesPerPixel=\"1\"/>"
                      "<TiffData IFD=\"0\" PlaneCount=\"%lld\"/></Pixels></Image></OME>";
    size_t n = strlen(fmt) + strlen(sizes) + 128;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, fmt, ome_type(dt), (long long)w, (long long)h, (long long)z, sizes, (long long)z);
    return s;
}

/* Directories of every page; data of page i at data0 + i * plane. */
static int
write_ifds(fv__wr *w, fv_dtype dt, int64_t z, int64_t h, int64_t wd, uint64_t desc_off, uint64_t desc_len,
           uint64_t data0, uint64_t plane, uint64_t ifd0)
{
    const int isz = w->big ? 20 : 12, hdr = w->big ? 8 : 2, nxt = w->big ? 8 : 4;
    const unsigned fmt = dt == FV_FLOAT32 || dt == FV_FLOAT64 ? 3 : (dt == FV_INT16 || dt == FV_INT32) ? 2 : 1;
    const uint16_t off_type = w->big ? 16 : 4;
    uint64_t at = ifd0;
    for (int64_t i = 0; i < z; i++) {
        const int ne = i == 0 ? 13 : 12;
        const uint64_t next = i + 1 < z ? at + (uint64_t)(hdr + ne * isz + nxt) : 0;
        int ok = put(w, (uint64_t)ne, hdr) && entry(w, 254, 4, 1, 0) && entry(w, 256, 4, 1, (uint64_t)wd) &&
            entry(w, 257, 4, 1, (uint64_t)h) && entry(w, 258, 3, 1, 8 * fv_dtype_size(dt)) && entry(w, 259, 3, 1, 1) &&
            entry(w, 262, 3, 1, 1);
        if (ok && i == 0)
            ok = entry(w, 270, 2, desc_len, desc_off);
        ok = ok && entry(w, 273, off_type, 1, data0 + (uint64_t)i * plane) && entry(w, 277, 3, 1, 1) &&
            entry(w, 278, 4, 1, (uint64_t)h) && entry(w, 279, off_type, 1, plane) && entry(w, 284, 3, 1, 1) &&
            entry(w, 339, 3, 1, fmt) && put(w, next, nxt);
        if (!ok)
            return 0;
        at = next;
    }
    return 1;
}

fv_status
fv_stack_write_ome(const char *path, const fv_array *a, const double *physical_size)
{
    fv_array *c = NULL;
    char *xml = NULL;
    fv__wr w = { NULL, 0 };
    fv_status st = FV_OK;
    if (!path || !a)
        return fv_error_set(FV_EINVAL, WR, "NULL argument");
    if (fv_array_device(a).type != FV_DEVICE_CPU)
        return fv_error_set(FV_EDEVICE, WR, "the array must be in host memory");
    if (fv_array_ndim(a) != 2 && fv_array_ndim(a) != 3)
        return fv_error_set(FV_EINVAL, WR, "need 2 or 3 dimensions, got %d", fv_array_ndim(a));
    const fv_dtype dt = fv_array_dtype(a);
    if (!ome_type(dt))
        return fv_error_set(FV_EDTYPE, WR,
                            "%s cannot be written (uint8, uint16, int16, uint32, int32, float32, "
                            "float64)",
                            fv_dtype_name(dt));
    const int64_t *s = fv_array_shape(a);
    const int nd = fv_array_ndim(a);
    const int64_t z = nd == 3 ? s[0] : 1, h = s[nd - 2], wd = s[nd - 1];
    if (z < 1 || h < 1 || wd < 1 || h > UINT32_MAX || wd > UINT32_MAX)
        return fv_error_set(FV_EINVAL, WR, "cannot write an image of %lld x %lld x %lld", (long long)z, (long long)h,
                            (long long)wd);
    if (fv_array_is_contiguous(a)) {
        c = fv_array_ref((fv_array *)a);
    } else if ((st = fv_array_new(NULL, dt, nd, s, fv_array_device(a), &c)) != FV_OK ||
               (st = fv_astype(NULL, a, c)) != FV_OK) {
        goto done;
    }
    if (!(xml = ome_xml(dt, z, h, wd, physical_size))) {
        st = fv_error_set(FV_ENOMEM, WR, "out of memory");
        goto done;
    }
    const uint64_t plane = (uint64_t)h * (uint64_t)wd * fv_dtype_size(dt), dlen = strlen(xml) + 1;
    w.big = (uint64_t)z * plane + dlen + 4096 + (uint64_t)z * 300 > UINT32_MAX;
    const uint64_t desc_off = w.big ? 16 : 8, data0 = (desc_off + dlen + 15) & ~(uint64_t)15;
    const uint64_t ifd0 = data0 + (uint64_t)z * plane;
    if (!(w.f = fopen(path, "wb"))) {
        st = fv_error_set(FV_EIO, WR, "cannot create %s", path);
        goto done;
    }
    int ok = w.big ? fwrite("II\x2B\0\x08\0\0\0", 1, 8, w.f) == 8 && put(&w, ifd0, 8)
                   : fwrite("II\x2A\0", 1, 4, w.f) == 4 && put(&w, ifd0, 4);
    ok = ok && fwrite(xml, 1, dlen, w.f) == dlen;
    for (uint64_t p = desc_off + dlen; ok && p < data0; p++)
        ok = fputc(0, w.f) != EOF;
    ok = ok && fwrite(fv_array_data(c), 1, (size_t)(z * plane), w.f) == (size_t)(z * plane);
    ok = ok && write_ifds(&w, dt, z, h, wd, desc_off, dlen, data0, plane, ifd0);
    if (fclose(w.f) != 0)
        ok = 0;
    w.f = NULL;
    if (!ok) {
        unlink(path);
        st = fv_error_set(FV_EIO, WR, "writing %s failed", path);
    }
done:
    free(xml);
    fv_array_unref(c);
    return st;
}
