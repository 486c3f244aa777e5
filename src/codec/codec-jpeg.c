/* Compression 7: JPEG tiles and strips through libjpeg-turbo's libjpeg API.
 *
 * Decoding: the JPEGTables stream (an abbreviated table-specification stream,
 * TIFF Technical Note 2) is read first into the same decompress object, then the
 * chunk's abbreviated (or complete) stream. Colour:
 *   - photometric YCbCr: the components are YCbCr whatever the markers say -> RGB
 *   - photometric RGB: JFIF or Adobe markers decide as libjpeg does; with neither
 *     (Aperio's RGB JPEG) the components are RGB and are not converted
 *   - one component: grayscale.
 * Every libjpeg error and every warning except those about metadata (unknown JFIF
 * revision, bad ICC marker) fails the chunk with FV_EFORMAT "jpeg: <libjpeg text>",
 * as OpenSlide does: a warning means corrupt or truncated data. Nothing prints.
 *
 * A decompress object is made per call: measured at 0.3 us against ~550 us for a
 * 256x256 tile, and a fresh object cannot see Huffman or quantization tables left
 * behind by another slide's chunk (re-measured with a reused object per thread on
 * 3000 256x256 tiles: no faster). Scanlines go straight into the caller's buffer.
 *
 * fv__jpeg_decode_into writes exactly a rectangle into a strided destination (a
 * patch of a batch): the decoded rows go there directly when the decoded columns
 * are the wanted ones (a tile-aligned read), otherwise through a buffer of one
 * iMCU row (16 rows at most), from which the wanted columns are copied.
 *
 * Partial decoding (fv__jpeg_decode_rect, for reads that bypass the tile cache):
 * jpeg_crop_scanline limits IDCT, upsampling and colour conversion to the needed
 * iMCU columns, jpeg_skip_scanlines skips them for the rows above (Huffman
 * decoding still runs: it is sequential), and decoding stops after the last needed
 * row (jpeg_abort_decompress), so corruption below that row goes unnoticed. */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>
#include <jerror.h>
#include "codec-impl.h"
#include "alloc.h"

#define FV__JPEG_MAX_SCANS 1000 /* progressive scans: a bound on crafted streams */

/* Partial decoding (fv__jpeg_decode_rect) uses jpeg_crop_scanline and
 * jpeg_skip_scanlines (libjpeg-turbo 1.5 and later); required conservatively at
 * 2.1, the version it is tested with, as earlier releases fixed several bugs in
 * skipping rows of subsampled streams. Otherwise whole chunks are decoded. */
#if defined(LIBJPEG_TURBO_VERSION_NUMBER) && LIBJPEG_TURBO_VERSION_NUMBER >= 2001000
#define FV__JPEG_CAN_CROP 1
#else
#define FV__JPEG_CAN_CROP 0
#endif

#define FV__STR2(x) #x
#define FV__STR(x) FV__STR2(x)

const char *
fv__jpeg_version(void)
{
#ifdef LIBJPEG_TURBO_VERSION
    return FV__STR(LIBJPEG_TURBO_VERSION);
#else
    return "libjpeg " FV__STR(JPEG_LIB_VERSION);
#endif
}

typedef struct fv__jpeg_err {
    struct jpeg_error_mgr pub;
    jmp_buf env;
    int tables; /* reading JPEGTables: a missing EOI there is tolerated */
    int oom;
    char msg[JMSG_LENGTH_MAX];
} fv__jpeg_err;

static void
fv__jpeg_error_exit(j_common_ptr c)
{
    fv__jpeg_err *e = (fv__jpeg_err *)c->err;
    (*c->err->format_message)(c, e->msg);
    e->oom = c->err->msg_code == JERR_OUT_OF_MEMORY;
    longjmp(e->env, 1);
}

static void
fv__jpeg_output_message(j_common_ptr c)
{
    (void)c; /* never print */
}

static void
fv__jpeg_emit_message(j_common_ptr c, int level)
{
    if (level >= 0)
        return; /* trace messages */
    int code = c->err->msg_code;
    if (code == JWRN_JFIF_MAJOR || code == JWRN_BOGUS_ICC)
        return; /* metadata only */
    if (code == JWRN_JPEG_EOF && ((fv__jpeg_err *)c->err)->tables)
        return; /* JPEGTables without EOI */
    fv__jpeg_error_exit(c);
}

static void
fv__jpeg_err_init(fv__jpeg_err *e)
{
    jpeg_std_error(&e->pub);
    e->pub.error_exit = fv__jpeg_error_exit;
    e->pub.emit_message = fv__jpeg_emit_message;
    e->pub.output_message = fv__jpeg_output_message;
    e->tables = 0;
    e->oom = 0;
    e->msg[0] = '\0';
}

static void
fv__jpeg_progress(j_common_ptr c)
{
    j_decompress_ptr d = (j_decompress_ptr)c;
    if (d->input_scan_number > FV__JPEG_MAX_SCANS) {
        fv__jpeg_err *e = (fv__jpeg_err *)c->err;
        snprintf(e->msg, sizeof e->msg, "more than %d progressive scans", FV__JPEG_MAX_SCANS);
        longjmp(e->env, 1);
    }
}

/* One JPEG chunk: all of it (rect NULL) or at least rect = {x0, y0, w, h}, in which
 * case got = {x, y, w, h} is the rectangle written to out (rows of got[2] pixels).
 * With stride != 0 (rect required) exactly rect is written: row r of it at
 * out + r * stride, out_len bytes from out. */
static fv_status
fv__jpeg_decode_impl(const fv__chunk_info *ci, const uint8_t *src, size_t src_len, const uint32_t *rect, uint8_t *out,
                     size_t out_len, size_t stride_exact, uint32_t *got)
{
    struct jpeg_decompress_struct cinfo;
    struct jpeg_progress_mgr progress;
    fv__jpeg_err err;
    uint8_t *volatile scratch = NULL; /* freed after a longjmp too */
    volatile fv_status st = FV_OK;    /* set across setjmp */

    if (ci->bits != 8)
        return fv_error_set(FV_EUNSUPPORTED, "jpeg", "%u-bit JPEG (8-bit only)", ci->bits);
    if (ci->samples == 3) {
        if (ci->photometric != FV_TIFF_PHOTOMETRIC_YCBCR && ci->photometric != FV_TIFF_PHOTOMETRIC_RGB)
            return fv_error_set(FV_EUNSUPPORTED, "jpeg", "3 samples with photometric interpretation %u",
                                ci->photometric);
    } else if (ci->samples != 1) {
        return fv_error_set(FV_EUNSUPPORTED, "jpeg", "%u samples per pixel (1 or 3)", ci->samples);
    }

    memset(&cinfo, 0, sizeof cinfo); /* jpeg_destroy_decompress is safe from here on */
    fv__jpeg_err_init(&err);
    cinfo.err = &err.pub;
    if (setjmp(err.env)) {
        st = fv_error_set(err.oom ? FV_ENOMEM : FV_EFORMAT, "jpeg", "%s%s", err.tables ? "JPEGTables: " : "", err.msg);
        goto done;
    }
    jpeg_create_decompress(&cinfo);
    if (ci->jpeg_tables && ci->jpeg_tables_len) {
        err.tables = 1;
        jpeg_mem_src(&cinfo, ci->jpeg_tables, (unsigned long)ci->jpeg_tables_len);
        if (jpeg_read_header(&cinfo, FALSE) == JPEG_HEADER_OK)
            jpeg_abort_decompress(&cinfo); /* a whole image as tables: keep its tables */
        err.tables = 0;
    }
    jpeg_mem_src(&cinfo, src, (unsigned long)src_len);
    jpeg_read_header(&cinfo, TRUE);
    if (cinfo.image_width != ci->width || cinfo.image_height != ci->height) {
        st = fv_error_set(FV_EFORMAT, "jpeg", "image is %ux%u, expected %ux%u", cinfo.image_width, cinfo.image_height,
                          ci->width, ci->height);
        goto done;
    }
    if (cinfo.num_components != (int)ci->samples) {
        st =
            fv_error_set(FV_EFORMAT, "jpeg", "image has %d components, expected %u", cinfo.num_components, ci->samples);
        goto done;
    }
    if (ci->samples == 3) {
        if (ci->photometric == FV_TIFF_PHOTOMETRIC_YCBCR)
            cinfo.jpeg_color_space = JCS_YCbCr;
        else if (!cinfo.saw_JFIF_marker && !cinfo.saw_Adobe_marker)
            cinfo.jpeg_color_space = JCS_RGB; /* Aperio: RGB components, no marker */
        cinfo.out_color_space = JCS_RGB;
    } else {
        cinfo.jpeg_color_space = JCS_GRAYSCALE;
        cinfo.out_color_space = JCS_GRAYSCALE;
    }
    if (cinfo.progressive_mode) {
        memset(&progress, 0, sizeof progress);
        progress.progress_monitor = fv__jpeg_progress;
        cinfo.progress = &progress;
    }
    /* partial decoding: sequential single-scan streams only (progressive and
     * multi-scan streams buffer the whole image anyway) */
    int partial = rect && FV__JPEG_CAN_CROP && !cinfo.progressive_mode && cinfo.comps_in_scan == cinfo.num_components;
    jpeg_start_decompress(&cinfo);
    if (cinfo.output_width != ci->width || cinfo.output_height != ci->height ||
        cinfo.output_components != (int)ci->samples) {
        st = fv_error_set(FV_EFORMAT, "jpeg", "decodes to %ux%u x %d, expected %ux%u x %u", cinfo.output_width,
                          cinfo.output_height, cinfo.output_components, ci->width, ci->height, ci->samples);
        goto done;
    }
    JDIMENSION cx = 0, cw = ci->width, ry0 = 0, ry1 = ci->height;
    if (partial) {
        /* horizontally, libjpeg-turbo's fancy upsampling treats a crop's left and
         * right edges as image edges (it replicates the edge chroma sample), so the
         * pixel next to each edge differs from a whole decode: one more pixel on
         * each side (that the iMCU alignment of the crop usually covers already)
         * gives every needed pixel its true neighbours, and a crop of at least one
         * iMCU avoids the degenerate one-chroma-sample row. Skipped rows keep their
         * context (tested exact): no margin there. */
        uint32_t x0 = rect[0], x1 = rect[0] + rect[2];
        if (cinfo.max_h_samp_factor > 1) {
            uint32_t imcu = (uint32_t)cinfo.max_h_samp_factor * DCTSIZE;
            x0 = x0 > 0 ? x0 - 1 : 0;
            x1 = x1 < ci->width ? x1 + 1 : ci->width;
            if (x1 - x0 < imcu) {
                x1 = x0 + imcu < ci->width ? x0 + imcu : ci->width;
                x0 = x1 > imcu ? x1 - imcu : 0;
            }
        }
        uint32_t y0 = rect[1], y1 = rect[1] + rect[3];
        if (x0 > 0 || x1 < ci->width) {
            cx = x0;
            cw = x1 - x0;
            jpeg_crop_scanline(&cinfo, &cx, &cw); /* widens to iMCU boundaries */
        }
        ry0 = y0;
        ry1 = y1;
    }
    /* what goes to out: rows [y0, y1) of columns [x0, x0 + w) (image columns), row
     * y at out + (y - y0) * stride; the decoded rows hold columns [cx, cx + cw) */
    const size_t psz = ci->samples, row_bytes = (size_t)cw * psz;
    uint32_t x0 = cx, y0 = ry0, y1 = ry1;
    size_t w_bytes = row_bytes, stride = row_bytes;
    if (stride_exact) {
        x0 = rect[0], y0 = rect[1], y1 = rect[1] + rect[3];
        w_bytes = (size_t)rect[2] * psz;
        stride = stride_exact;
        if (out_len < (size_t)(rect[3] - 1) * stride + w_bytes || stride < w_bytes) {
            st = fv_error_set(FV_EINTERNAL, "jpeg", "output of %zu bytes for %u rows of %zu bytes, stride %zu", out_len,
                              (unsigned)rect[3], w_bytes, stride);
            goto done;
        }
    } else if (rect ? row_bytes * (ry1 - ry0) > out_len : row_bytes * ci->height != out_len) {
        st = fv_error_set(FV_EINTERNAL, "jpeg", "output of %zu bytes for %u rows of %zu bytes", out_len,
                          (unsigned)(ry1 - ry0), row_bytes);
        goto done;
    }
    /* rows straight into out when they are exactly the wanted columns and every
     * decoded row is wanted; else through one iMCU row of scratch */
    const int direct = x0 == cx && w_bytes == row_bytes && ry0 == y0;
    if (!direct && !(scratch = fv__malloc(16 * row_bytes))) {
        st = fv_error_set(FV_ENOMEM, "jpeg", "out of host memory");
        goto done;
    }
    if (ry0 > 0 && jpeg_skip_scanlines(&cinfo, ry0) != ry0) {
        st = fv_error_set(FV_EFORMAT, "jpeg", "cannot skip %u rows", (unsigned)ry0);
        goto done;
    }
    while (cinfo.output_scanline < y1) {
        JSAMPROW rows[16];
        JDIMENSION first = cinfo.output_scanline, n = y1 - first;
        if (n > 16)
            n = 16;
        for (JDIMENSION i = 0; i < n; i++)
            rows[i] = direct ? out + (size_t)(first - y0 + i) * stride : scratch + (size_t)i * row_bytes;
        JDIMENSION got_rows = jpeg_read_scanlines(&cinfo, rows, n);
        if (!got_rows) { /* cannot happen with a memory source */
            st = fv_error_set(FV_EFORMAT, "jpeg", "decoder stalled at row %u", cinfo.output_scanline);
            goto done;
        }
        if (!direct)
            for (JDIMENSION i = 0; i < got_rows; i++)
                if (first + i >= y0)
                    memcpy(out + (size_t)(first + i - y0) * stride,
                           scratch + (size_t)i * row_bytes + (size_t)(x0 - cx) * psz, w_bytes);
    }
    if (y1 < ci->height)
        jpeg_abort_decompress(&cinfo); /* the rows below are not needed */
    else
        jpeg_finish_decompress(&cinfo);
    if (got) {
        got[0] = cx;
        got[1] = ry0;
        got[2] = cw;
        got[3] = ry1 - ry0;
    }
done:
    jpeg_destroy_decompress(&cinfo);
    fv__free(scratch);
    return st;
}

fv_status
fv__jpeg_decode(const fv__chunk_info *ci, const uint8_t *src, size_t src_len, uint8_t *out, size_t out_len)
{
    return fv__jpeg_decode_impl(ci, src, src_len, NULL, out, out_len, 0, NULL);
}

fv_status
fv__jpeg_decode_rect(const fv__chunk_info *ci, const uint8_t *src, size_t src_len, const uint32_t rect[4], uint8_t *out,
                     size_t out_len, uint32_t got[4])
{
    return fv__jpeg_decode_impl(ci, src, src_len, rect, out, out_len, 0, got);
}

fv_status
fv__jpeg_decode_into(const fv__chunk_info *ci, const uint8_t *src, size_t src_len, const uint32_t rect[4], uint8_t *out,
                     size_t out_len, size_t stride)
{
    return fv__jpeg_decode_impl(ci, src, src_len, rect, out, out_len, stride, NULL);
}

/* ---- encoding (fovea convert) ----------------------------------------------------- */

typedef struct fv__jpeg_dest {
    struct jpeg_destination_mgr pub;
    uint8_t *buf;
    size_t cap, len;
} fv__jpeg_dest;

static void
fv__jpeg_dest_init(j_compress_ptr c)
{
    fv__jpeg_dest *d = (fv__jpeg_dest *)c->dest;
    d->pub.next_output_byte = d->buf;
    d->pub.free_in_buffer = d->cap;
}

static boolean
fv__jpeg_dest_empty(j_compress_ptr c)
{
    fv__jpeg_dest *d = (fv__jpeg_dest *)c->dest; /* the whole buffer is full */
    size_t ncap = d->cap * 2;
    uint8_t *nb = fv__realloc(d->buf, ncap);
    if (!nb)
        ERREXIT1(c, JERR_OUT_OF_MEMORY, 0);
    d->pub.next_output_byte = nb + d->cap;
    d->pub.free_in_buffer = ncap - d->cap;
    d->buf = nb;
    d->cap = ncap;
    return TRUE;
}

static void
fv__jpeg_dest_term(j_compress_ptr c)
{
    fv__jpeg_dest *d = (fv__jpeg_dest *)c->dest;
    d->len = d->cap - d->pub.free_in_buffer;
}

/* Full JFIF streams (or Adobe-marked RGB ones) with their own tables: YCbCr 4:2:0
 * from RGB like Aperio and libvips write, RGB without subsampling, or grayscale.
 * level = quality 1..100. */
fv_status
fv__jpeg_encode(const fv__chunk_info *ci, int level, const uint8_t *pixels, size_t len, uint8_t **out, size_t *out_len)
{
    struct jpeg_compress_struct cinfo;
    fv__jpeg_err err;
    fv__jpeg_dest dest;
    volatile fv_status st = FV_OK; /* set across setjmp */

    if (ci->bits != 8)
        return fv_error_set(FV_EUNSUPPORTED, "jpeg", "%u-bit JPEG (8-bit only)", ci->bits);
    if (!(ci->samples == 1 ||
          (ci->samples == 3 &&
           (ci->photometric == FV_TIFF_PHOTOMETRIC_YCBCR || ci->photometric == FV_TIFF_PHOTOMETRIC_RGB))))
        return fv_error_set(FV_EUNSUPPORTED, "jpeg", "%u samples with photometric interpretation %u", ci->samples,
                            ci->photometric);
    if (ci->width > JPEG_MAX_DIMENSION || ci->height > JPEG_MAX_DIMENSION)
        return fv_error_set(FV_EUNSUPPORTED, "jpeg", "%ux%u exceeds the JPEG limit of %d", ci->width, ci->height,
                            (int)JPEG_MAX_DIMENSION);
    if (level < 1 || level > 100)
        return fv_error_set(FV_EINVAL, "jpeg", "quality %d (1..100)", level);

    memset(&cinfo, 0, sizeof cinfo);
    memset(&dest, 0, sizeof dest);
    dest.cap = len / 4 + 4096;
    if (!(dest.buf = fv__malloc(dest.cap)))
        return fv_error_set(FV_ENOMEM, "jpeg", "cannot allocate %zu bytes", dest.cap);
    fv__jpeg_err_init(&err);
    cinfo.err = &err.pub;
    if (setjmp(err.env)) {
        st = fv_error_set(err.oom ? FV_ENOMEM : FV_EINTERNAL, "jpeg", "%s", err.msg);
        goto done;
    }
    jpeg_create_compress(&cinfo);
    dest.pub.init_destination = fv__jpeg_dest_init;
    dest.pub.empty_output_buffer = fv__jpeg_dest_empty;
    dest.pub.term_destination = fv__jpeg_dest_term;
    cinfo.dest = &dest.pub;
    cinfo.image_width = ci->width;
    cinfo.image_height = ci->height;
    cinfo.input_components = ci->samples;
    cinfo.in_color_space = ci->samples == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&cinfo); /* RGB in: YCbCr with 2x2 chroma subsampling, JFIF */
    if (ci->samples == 3 && ci->photometric == FV_TIFF_PHOTOMETRIC_RGB)
        jpeg_set_colorspace(&cinfo, JCS_RGB); /* no conversion, no subsampling, Adobe marker */
    jpeg_set_quality(&cinfo, level, TRUE);
    jpeg_start_compress(&cinfo, TRUE);
    size_t stride = (size_t)ci->width * ci->samples;
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW rows[16];
        JDIMENSION n = cinfo.image_height - cinfo.next_scanline;
        if (n > 16)
            n = 16;
        for (JDIMENSION i = 0; i < n; i++)
            rows[i] = (JSAMPROW)(pixels + (size_t)(cinfo.next_scanline + i) * stride);
        jpeg_write_scanlines(&cinfo, rows, n);
    }
    jpeg_finish_compress(&cinfo);
    st = fv__codec_result(st, dest.buf, dest.len, out, out_len);
    dest.buf = NULL;
done:
    jpeg_destroy_compress(&cinfo);
    fv__free(dest.buf);
    return st;
}
