/* Tile codecs: every codec decodes streams written by its reference library
 * (libjpeg, OpenJPEG, libdeflate, zstd, libwebp, libtiff's LZW and a small LZW
 * encoder below) exactly (lossless) or within a mean absolute difference of 1.5
 * (lossy); JPEGTables, Aperio RGB JPEG, Aperio JPEG 2000 YCbCr and RGB, 16-bit
 * samples with the predictor in both byte orders; and bad input: truncated and
 * corrupted streams fail with FV_EFORMAT and never crash (run under ASan+UBSan),
 * wrong sizes fail with FV_EFORMAT, unsupported requests with FV_EUNSUPPORTED. */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>
#include <libdeflate.h>
#include <openjpeg.h>
#include <webp/decode.h>
#include <webp/encode.h>
#include <zstd.h>
#include "fovea/fovea.h"
#include "codec/codec.h"
#include "codec/codec-impl.h"
#include "check.h"

/* ---- data --------------------------------------------------------------------------- */

static uint32_t rng = 1;

static uint32_t
rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

static uint8_t
clamp8(double v)
{
    return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : lround(v));
}

/* Smooth structure plus a little noise: compressible, never flat. */
static uint8_t *
image8(uint32_t w, uint32_t h, int spp, uint32_t seed)
{
    uint8_t *p = malloc((size_t)w * h * spp);
    rng = seed * 2654435761u + 12345u;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++)
            for (int c = 0; c < spp; c++) {
                double v = 128 + 70 * sin(0.045 * x * (c + 1) + 0.3 * c + seed) * cos(0.037 * y + 0.5 * c) +
                    20 * sin(0.011 * (x + 2.0 * y));
                p[((size_t)y * w + x) * spp + c] = clamp8(v + (int)(rnd() % 5) - 2);
            }
    return p;
}

/* 16-bit native samples with random low bits. */
static uint16_t *
image16(uint32_t w, uint32_t h, int spp, uint32_t seed)
{
    uint8_t *b = image8(w, h, spp, seed);
    size_t n = (size_t)w * h * spp;
    uint16_t *p = malloc(n * 2);
    for (size_t i = 0; i < n; i++)
        p[i] = (uint16_t)(b[i] * 257 + rnd() % 97);
    free(b);
    return p;
}

static double
mad(const uint8_t *a, const uint8_t *b, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += abs((int)a[i] - (int)b[i]);
    return s / (double)n;
}

static fv__chunk_info
chunk(uint32_t w, uint32_t h, int spp, int bits, int compression, int photometric)
{
    fv__chunk_info ci;
    memset(&ci, 0, sizeof ci);
    ci.width = w;
    ci.height = h;
    ci.samples = (uint16_t)spp;
    ci.bits = (uint16_t)bits;
    ci.sample_format = 1;
    ci.compression = (uint16_t)compression;
    ci.photometric = (uint16_t)photometric;
    ci.predictor = 1;
    return ci;
}

/* Decode into an exact-size heap buffer (so ASan sees any overrun); *out owned by the caller. */
static fv_status
decode(const fv__chunk_info *ci, const uint8_t *src, size_t n, uint8_t **out)
{
    size_t need = 0;
    *out = NULL;
    fv_status st = fv__chunk_bytes(ci, &need);
    if (st)
        return st;
    /* the source too, so that reading past its end is caught */
    uint8_t *s = malloc(n ? n : 1);
    if (n)
        memcpy(s, src, n);
    *out = malloc(need);
    st = fv__codec_decode(ci, s, n, *out, need);
    free(s);
    return st;
}

/* Expect exact equality. */
static void
check_exact(const char *what, const fv__chunk_info *ci, const uint8_t *src, size_t n, const void *expect)
{
    uint8_t *out = NULL;
    size_t need = 0;
    fv__chunk_bytes(ci, &need);
    fv_status st = decode(ci, src, n, &out);
    CHECK_OK(st);
    int same = st == FV_OK && !memcmp(out, expect, need);
    if (!same)
        fprintf(stderr, "  %s: decoded pixels differ\n", what);
    CHECK(same);
    free(out);
}

static void
check_close(const char *what, const fv__chunk_info *ci, const uint8_t *src, size_t n, const uint8_t *expect, double tol)
{
    uint8_t *out = NULL;
    size_t need = 0;
    fv__chunk_bytes(ci, &need);
    fv_status st = decode(ci, src, n, &out);
    CHECK_OK(st);
    if (st == FV_OK) {
        double m = mad(out, expect, need);
        printf("  %s: mean abs diff %.3f\n", what, m);
        CHECK(m < tol);
    }
    free(out);
}

/* Truncated streams (shorter than n - tail) must fail with FV_EFORMAT naming the
 * codec; corrupted ones must decode or fail with FV_EFORMAT, and never crash. */
static void
bad_input(const char *what, const fv__chunk_info *ci, const uint8_t *s, size_t n, size_t tail, const char *domain)
{
    size_t cuts[] = { 0,         1,         2,         3,      4,     8,     16,    33,    n / 8, n / 4, n / 3, n / 2,
                      2 * n / 3, 3 * n / 4, 7 * n / 8, n - 16, n - 9, n - 8, n - 5, n - 4, n - 3, n - 2, n - 1 };
    int wrong = 0, rejected = 0, decoded = 0, other = 0;
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        size_t c = cuts[i];
        if (c >= n || c + tail >= n)
            continue;
        uint8_t *out = NULL;
        fv_status st = decode(ci, s, c, &out);
        if (st != FV_EFORMAT || strncmp(fv_error_message(), domain, strlen(domain))) {
            wrong++;
            fprintf(stderr, "  %s: cut to %zu of %zu bytes -> %s '%s'\n", what, c, n, fv_status_name(st),
                    fv_error_message());
        }
        free(out);
    }
    CHECK(wrong == 0);
    for (int t = 0; t < 300; t++) {
        uint8_t *c = malloc(n);
        memcpy(c, s, n);
        int k = 1 + (int)(rnd() % 4);
        for (int j = 0; j < k; j++)
            c[rnd() % n] ^= (uint8_t)(1 + rnd() % 255);
        if (t >= 250) /* and some pure garbage after the first bytes */
            for (size_t j = 2 + rnd() % 16; j < n; j++)
                c[j] = (uint8_t)rnd();
        uint8_t *out = NULL;
        fv_status st = decode(ci, c, n, &out);
        if (st == FV_OK)
            decoded++;
        else if (st == FV_EFORMAT && !strncmp(fv_error_message(), domain, strlen(domain)))
            rejected++;
        else {
            other++;
            fprintf(stderr, "  %s: corrupt stream -> %s '%s'\n", what, fv_status_name(st), fv_error_message());
        }
        free(out);
        free(c);
    }
    CHECK(other == 0);
    printf("  %s: truncations rejected; 300 corruptions: %d rejected, %d decoded\n", what, rejected, decoded);
}

/* ---- TIFF predictor and byte order, as a writer applies them ---------------------------- */

static void
predict8(uint8_t *p, uint32_t w, uint32_t h, int spp)
{
    for (uint32_t y = 0; y < h; y++) {
        uint8_t *r = p + (size_t)y * w * spp;
        for (size_t i = (size_t)w * spp; i-- > (size_t)spp;)
            r[i] = (uint8_t)(r[i] - r[i - spp]);
    }
}

/* native 16-bit samples -> predicted, serialized in the given byte order */
static uint8_t *
file16(const uint16_t *px, uint32_t w, uint32_t h, int spp, int predict, int big)
{
    size_t n = (size_t)w * h * spp;
    uint16_t *t = malloc(n * 2);
    memcpy(t, px, n * 2);
    if (predict)
        for (uint32_t y = 0; y < h; y++) {
            uint16_t *r = t + (size_t)y * w * spp;
            for (size_t i = (size_t)w * spp; i-- > (size_t)spp;)
                r[i] = (uint16_t)(r[i] - r[i - spp]);
        }
    uint8_t *b = malloc(n * 2);
    for (size_t i = 0; i < n; i++) {
        b[2 * i] = (uint8_t)(big ? t[i] >> 8 : t[i]);
        b[2 * i + 1] = (uint8_t)(big ? t[i] : t[i] >> 8);
    }
    free(t);
    return b;
}

/* ---- reference encoders ------------------------------------------------------------------ */

static uint8_t *
enc_deflate(const void *p, size_t n, size_t *len)
{
    struct libdeflate_compressor *c = libdeflate_alloc_compressor(6);
    size_t cap = libdeflate_zlib_compress_bound(c, n);
    uint8_t *b = malloc(cap);
    *len = libdeflate_zlib_compress(c, p, n, b, cap);
    libdeflate_free_compressor(c);
    return b;
}

static uint8_t *
enc_zstd(const void *p, size_t n, size_t *len)
{
    size_t cap = ZSTD_compressBound(n);
    uint8_t *b = malloc(cap);
    *len = ZSTD_compress(b, cap, p, n, 3);
    return b;
}

/* A small TIFF LZW encoder: MSB-first codes, Clear first, early change, Clear
 * when the table reaches 4094 entries (as libtiff), EOI last. no_clear: never
 * clear a full table (to make a stream that overflows the decoder's table). */
typedef struct lzw_out {
    uint8_t *p;
    size_t n, cap;
    uint32_t acc;
    int nacc;
} lzw_out;

static void
lzw_put(lzw_out *o, unsigned code, int width)
{
    o->acc = (o->acc << width) | code;
    o->nacc += width;
    while (o->nacc >= 8) {
        if (o->n == o->cap)
            o->p = realloc(o->p, o->cap = o->cap * 2 + 64);
        o->p[o->n++] = (uint8_t)(o->acc >> (o->nacc - 8));
        o->nacc -= 8;
    }
    o->acc &= (1u << o->nacc) - 1u;
}

static uint8_t *
lzw_encode(const uint8_t *in, size_t n, int no_clear, size_t *len)
{
    enum {
        HSIZE = 1 << 14
    };
    uint32_t *key = calloc(HSIZE, sizeof *key); /* (prefix << 8 | byte) + 1, 0 = empty */
    uint16_t *val = calloc(HSIZE, sizeof *val);
    lzw_out o = { 0 };
    int width = 9;
    unsigned next = 258;
    lzw_put(&o, 256, width);
    if (n) {
        unsigned w = in[0];
        for (size_t i = 1; i < n; i++) {
            uint32_t k = ((uint32_t)w << 8 | in[i]) + 1;
            uint32_t h = (k * 2654435761u) >> 18;
            while (key[h] && key[h] != k)
                h = (h + 1) & (HSIZE - 1);
            if (key[h]) {
                w = val[h];
                continue;
            }
            lzw_put(&o, w, width);
            if (next < 4096) {
                key[h] = k;
                val[h] = (uint16_t)next;
            }
            next++;
            if (next == 4094 && !no_clear) {
                lzw_put(&o, 256, width);
                memset(key, 0, HSIZE * sizeof *key);
                width = 9;
                next = 258;
            } else if (next >= (1u << width) && width < 12) {
                width++;
            }
            w = in[i];
        }
        lzw_put(&o, w, width);
        next++;
        if (next == 4094 && !no_clear) {
            lzw_put(&o, 256, width);
            width = 9;
        } else if (next >= (1u << width) && width < 12) {
            width++;
        }
    }
    lzw_put(&o, 257, width);
    if (o.nacc)
        lzw_put(&o, 0, 8 - o.nacc);
    free(key);
    free(val);
    *len = o.n;
    return o.p;
}

/* libjpeg with errors that return instead of exiting */
typedef struct terr {
    struct jpeg_error_mgr pub;
    jmp_buf env;
} terr;

static void
terr_exit(j_common_ptr c)
{
    longjmp(((terr *)c->err)->env, 1);
}

static void
terr_quiet(j_common_ptr c)
{
    (void)c;
}

enum {
    JT_JFIF,
    JT_APERIO_RGB,
    JT_GRAY
};

static uint8_t *
enc_jpeg(const uint8_t *px, int w, int h, int mode, int quality, size_t *len)
{
    struct jpeg_compress_struct c;
    terr e;
    unsigned char *buf = NULL;
    unsigned long n = 0;
    c.err = jpeg_std_error(&e.pub);
    e.pub.error_exit = terr_exit;
    e.pub.output_message = terr_quiet;
    if (setjmp(e.env)) {
        jpeg_destroy_compress(&c);
        free(buf);
        return NULL;
    }
    jpeg_create_compress(&c);
    jpeg_mem_dest(&c, &buf, &n);
    c.image_width = (JDIMENSION)w;
    c.image_height = (JDIMENSION)h;
    c.input_components = mode == JT_GRAY ? 1 : 3;
    c.in_color_space = mode == JT_GRAY ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&c);
    if (mode == JT_APERIO_RGB) {
        /* RGB components with no JFIF or Adobe marker, and component ids 1, 2, 3
         * from which libjpeg alone would guess YCbCr */
        jpeg_set_colorspace(&c, JCS_RGB);
        c.write_JFIF_header = FALSE;
        c.write_Adobe_marker = FALSE;
        for (int i = 0; i < 3; i++)
            c.comp_info[i].component_id = i + 1;
    }
    jpeg_set_quality(&c, quality, TRUE);
    jpeg_start_compress(&c, TRUE);
    int comps = c.input_components;
    while (c.next_scanline < c.image_height) {
        JSAMPROW r = (JSAMPROW)(px + (size_t)c.next_scanline * w * comps);
        jpeg_write_scanlines(&c, &r, 1);
    }
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    *len = n;
    return buf;
}

/* TIFF-style JPEG: one tables-only stream (JPEGTables) and abbreviated tiles. */
static void
enc_jpeg_tables(uint8_t *const *imgs, int nimg, int w, int h, uint8_t **tables, size_t *tlen, uint8_t **tiles,
                size_t *lens)
{
    struct jpeg_compress_struct c;
    terr e;
    c.err = jpeg_std_error(&e.pub);
    e.pub.error_exit = terr_exit;
    e.pub.output_message = terr_quiet;
    if (setjmp(e.env)) {
        fprintf(stderr, "enc_jpeg_tables: libjpeg error\n");
        exit(1);
    }
    jpeg_create_compress(&c);
    c.image_width = (JDIMENSION)w;
    c.image_height = (JDIMENSION)h;
    c.input_components = 3;
    c.in_color_space = JCS_RGB;
    jpeg_set_defaults(&c);
    c.write_JFIF_header = FALSE; /* as libtiff writes tiles */
    jpeg_set_quality(&c, 92, TRUE);
    unsigned char *tb = NULL;
    unsigned long tn = 0;
    jpeg_mem_dest(&c, &tb, &tn);
    jpeg_write_tables(&c); /* SOI, DQT, DHT, EOI; marks the tables as sent */
    *tables = tb;
    *tlen = tn;
    for (int i = 0; i < nimg; i++) {
        unsigned char *ib = NULL;
        unsigned long in = 0;
        jpeg_mem_dest(&c, &ib, &in);
        jpeg_start_compress(&c, FALSE); /* abbreviated: no tables */
        while (c.next_scanline < c.image_height) {
            JSAMPROW r = (JSAMPROW)(imgs[i] + (size_t)c.next_scanline * w * 3);
            jpeg_write_scanlines(&c, &r, 1);
        }
        jpeg_finish_compress(&c);
        tiles[i] = ib;
        lens[i] = in;
    }
    jpeg_destroy_compress(&c);
}

/* Plain libjpeg decode (the reference): tables first when given; space forces the
 * JPEG colour space (JCS_UNKNOWN: libjpeg's own guess). NULL on error. */
static uint8_t *
ref_jpeg(const uint8_t *tables, size_t tlen, const uint8_t *s, size_t n, J_COLOR_SPACE space)
{
    struct jpeg_decompress_struct d;
    terr e;
    uint8_t *volatile out = NULL;
    d.err = jpeg_std_error(&e.pub);
    e.pub.error_exit = terr_exit;
    e.pub.output_message = terr_quiet;
    if (setjmp(e.env)) {
        jpeg_destroy_decompress(&d);
        free(out);
        return NULL;
    }
    jpeg_create_decompress(&d);
    if (tables) {
        jpeg_mem_src(&d, tables, tlen);
        jpeg_read_header(&d, FALSE);
    }
    jpeg_mem_src(&d, s, n);
    jpeg_read_header(&d, TRUE);
    if (space != JCS_UNKNOWN)
        d.jpeg_color_space = space;
    d.out_color_space = d.num_components == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_start_decompress(&d);
    size_t stride = (size_t)d.output_width * d.output_components;
    out = malloc(stride * d.output_height);
    while (d.output_scanline < d.output_height) {
        JSAMPROW r = out + d.output_scanline * stride;
        jpeg_read_scanlines(&d, &r, 1);
    }
    jpeg_finish_decompress(&d);
    jpeg_destroy_decompress(&d);
    return out;
}

/* OpenJPEG encoder to memory (J2K codestream or JP2 file), lossless 5/3. */
typedef struct wbuf {
    uint8_t *p;
    size_t len, cap, pos;
} wbuf;

static void
wbuf_reserve(wbuf *b, size_t n)
{
    if (n > b->cap) {
        size_t c = b->cap ? b->cap : 4096;
        while (c < n)
            c *= 2;
        b->p = realloc(b->p, c);
        memset(b->p + b->cap, 0, c - b->cap);
        b->cap = c;
    }
}

static OPJ_SIZE_T
w_write(void *src, OPJ_SIZE_T n, void *u)
{
    wbuf *b = u;
    wbuf_reserve(b, b->pos + n);
    memcpy(b->p + b->pos, src, n);
    b->pos += n;
    if (b->pos > b->len)
        b->len = b->pos;
    return n;
}

static OPJ_OFF_T
w_skip(OPJ_OFF_T n, void *u)
{
    wbuf *b = u;
    wbuf_reserve(b, b->pos + (size_t)n);
    b->pos += (size_t)n;
    if (b->pos > b->len)
        b->len = b->pos;
    return n;
}

static OPJ_BOOL
w_seek(OPJ_OFF_T off, void *u)
{
    wbuf *b = u;
    wbuf_reserve(b, (size_t)off);
    b->pos = (size_t)off;
    return OPJ_TRUE;
}

static void
opj_quiet(const char *m, void *u)
{
    (void)m;
    (void)u;
}

static uint8_t *
enc_j2k(const uint8_t *const planes[3], int w, int h, const int dx[3], int jp2, size_t *len)
{
    opj_cparameters_t p;
    opj_set_default_encoder_parameters(&p);
    p.tcp_numlayers = 1;
    p.tcp_rates[0] = 0; /* lossless */
    p.cp_disto_alloc = 1;
    p.numresolution = 4;
    p.irreversible = 0;
    p.tcp_mct = (dx[0] == 1 && dx[1] == 1 && dx[2] == 1) ? 1 : 0;
    opj_image_cmptparm_t cp[3];
    memset(cp, 0, sizeof cp);
    for (int c = 0; c < 3; c++) {
        cp[c].dx = (OPJ_UINT32)dx[c];
        cp[c].dy = 1;
        cp[c].w = (OPJ_UINT32)((w + dx[c] - 1) / dx[c]);
        cp[c].h = (OPJ_UINT32)h;
        cp[c].prec = 8;
        cp[c].sgnd = 0;
    }
    opj_image_t *im = opj_image_create(3, cp, p.tcp_mct ? OPJ_CLRSPC_SRGB : OPJ_CLRSPC_SYCC);
    im->x0 = 0;
    im->y0 = 0;
    im->x1 = (OPJ_UINT32)w;
    im->y1 = (OPJ_UINT32)h;
    for (int c = 0; c < 3; c++)
        for (size_t i = 0; i < cp[c].w * cp[c].h; i++)
            im->comps[c].data[i] = planes[c][i];
    opj_codec_t *codec = opj_create_compress(jp2 ? OPJ_CODEC_JP2 : OPJ_CODEC_J2K);
    opj_set_info_handler(codec, opj_quiet, NULL);
    opj_set_warning_handler(codec, opj_quiet, NULL);
    opj_set_error_handler(codec, opj_quiet, NULL);
    opj_setup_encoder(codec, &p, im);
    opj_stream_t *st = opj_stream_create(OPJ_J2K_STREAM_CHUNK_SIZE, OPJ_FALSE);
    wbuf b = { 0 };
    opj_stream_set_user_data(st, &b, NULL);
    opj_stream_set_write_function(st, w_write);
    opj_stream_set_skip_function(st, w_skip);
    opj_stream_set_seek_function(st, w_seek);
    int ok = opj_start_compress(codec, im, st) && opj_encode(codec, st) && opj_end_compress(codec, st);
    opj_stream_destroy(st);
    opj_destroy_codec(codec);
    opj_image_destroy(im);
    if (!ok) {
        free(b.p);
        return NULL;
    }
    *len = b.len;
    return b.p;
}

/* ---- tests ------------------------------------------------------------------------------ */

static void
test_api(void)
{
    size_t n = 0;
    fv__chunk_info ci = chunk(256, 128, 3, 8, FV_TIFF_COMPRESSION_NONE, FV_TIFF_PHOTOMETRIC_RGB);
    CHECK_OK(fv__chunk_bytes(&ci, &n));
    CHECK(n == 256 * 128 * 3);
    ci.bits = 16;
    CHECK_OK(fv__chunk_bytes(&ci, &n));
    CHECK(n == 256 * 128 * 6);
    ci = chunk(0, 10, 1, 8, 1, 1);
    CHECK_ERR(fv__chunk_bytes(&ci, &n), FV_EINVAL, "codec: empty chunk");
    ci = chunk(65536, 65536, 4, 16, 1, 2);
    CHECK_ERR(fv__chunk_bytes(&ci, &n), FV_EINVAL, "too large");
    ci = chunk(32768, 32768, 1, 8, 1, 1); /* exactly 1 GiB */
    CHECK_OK(fv__chunk_bytes(&ci, &n));
    ci.samples = 2;
    CHECK_ERR(fv__chunk_bytes(&ci, &n), FV_EINVAL, "exceeds");
    ci = chunk(4294967295u, 4294967295u, 4, 16, 1, 2);
    CHECK_ERR(fv__chunk_bytes(&ci, &n), FV_EINVAL, "too large");
    ci = chunk(16, 16, 3, 12, 1, 2);
    CHECK_ERR(fv__chunk_bytes(&ci, &n), FV_EUNSUPPORTED, "12 bits");
    ci = chunk(16, 16, 5, 8, 1, 2);
    CHECK_ERR(fv__chunk_bytes(&ci, &n), FV_EUNSUPPORTED, "5 samples");
    ci = chunk(16, 16, 0, 8, 1, 2);
    CHECK_ERR(fv__chunk_bytes(&ci, &n), FV_EINVAL, "0 samples");
    CHECK_ERR(fv__chunk_bytes(NULL, &n), FV_EINVAL, "NULL");

    CHECK(!strcmp(fv__codec_name(FV_TIFF_COMPRESSION_JPEG), "JPEG"));
    CHECK(!strcmp(fv__codec_name(FV_TIFF_COMPRESSION_LZW), "LZW"));
    CHECK(!strcmp(fv__codec_name(FV_TIFF_COMPRESSION_APERIO_JP2K_YCBCR), "Aperio JPEG 2000 YCbCr"));
    CHECK(!strcmp(fv__codec_name(32773), "PackBits"));
    CHECK(!strcmp(fv__codec_name(12345), "unknown"));
    uint16_t yes[] = { 1, 5, 7, 8, 32946, 33003, 33005, 50000, 50001 };
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
        CHECK(fv__codec_supported(yes[i]));
    uint16_t no[] = { 0, 2, 3, 4, 6, 32773, 34712, 34925, 50002, 65535 };
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
        CHECK(!fv__codec_supported(no[i]));
    const char *v = fv__codec_versions();
    printf("  versions: %s\n", v);
    CHECK(strstr(v, "libjpeg-turbo 2.") && strstr(v, "openjpeg 2.") && strstr(v, "libdeflate 1.") &&
          strstr(v, "zstd 1.") && strstr(v, "libwebp 1."));

    /* argument and request checks */
    uint8_t src[64] = { 0 }, out[48];
    ci = chunk(4, 4, 3, 8, FV_TIFF_COMPRESSION_NONE, FV_TIFF_PHOTOMETRIC_RGB);
    CHECK_ERR(fv__codec_decode(NULL, src, 48, out, 48), FV_EINVAL, "NULL");
    CHECK_ERR(fv__codec_decode(&ci, NULL, 48, out, 48), FV_EINVAL, "NULL");
    CHECK_ERR(fv__codec_decode(&ci, src, 48, NULL, 48), FV_EINVAL, "NULL");
    CHECK_ERR(fv__codec_decode(&ci, src, 48, out, 47), FV_EINVAL, "output buffer of 47 bytes");
    CHECK_ERR(fv__codec_decode(&ci, src, 0, out, 48), FV_EFORMAT, "codec: empty None chunk");
    CHECK_ERR(fv__codec_decode(&ci, src, 47, out, 48), FV_EFORMAT, "holds 47 bytes, expected 48");
    CHECK_ERR(fv__codec_decode(&ci, src, 49, out, 48), FV_EFORMAT, "holds 49 bytes");
    CHECK_OK(fv__codec_decode(&ci, src, 48, out, 48));
    ci.compression = 99;
    CHECK_ERR(fv__codec_decode(&ci, src, 48, out, 48), FV_EUNSUPPORTED, "compression 99 (unknown)");
    ci.compression = 32773;
    CHECK_ERR(fv__codec_decode(&ci, src, 48, out, 48), FV_EUNSUPPORTED, "compression 32773 (PackBits)");
    ci.compression = 34712;
    CHECK_ERR(fv__codec_decode(&ci, src, 48, out, 48), FV_EUNSUPPORTED, "not supported");
    ci = chunk(4, 4, 3, 8, FV_TIFF_COMPRESSION_DEFLATE, FV_TIFF_PHOTOMETRIC_RGB);
    ci.sample_format = 3;
    CHECK_ERR(fv__codec_decode(&ci, src, 48, out, 48), FV_EUNSUPPORTED, "sample format 3");
    ci.sample_format = 0; /* absent: unsigned */
    ci.predictor = 3;
    CHECK_ERR(fv__codec_decode(&ci, src, 48, out, 48), FV_EUNSUPPORTED, "floating-point predictor");
    ci.predictor = 7;
    CHECK_ERR(fv__codec_decode(&ci, src, 48, out, 48), FV_EFORMAT, "invalid predictor 7");
    ci.predictor = 1;
    ci.photometric = FV_TIFF_PHOTOMETRIC_YCBCR;
    CHECK_ERR(fv__codec_decode(&ci, src, 48, out, 48), FV_EUNSUPPORTED, "YCbCr pixels with Deflate");
    ci = chunk(4, 4, 3, 16, FV_TIFF_COMPRESSION_JPEG, FV_TIFF_PHOTOMETRIC_YCBCR);
    uint8_t out16[96];
    CHECK_ERR(fv__codec_decode(&ci, src, 48, out16, 96), FV_EUNSUPPORTED, "jpeg: 16-bit");
    ci = chunk(4, 4, 4, 8, FV_TIFF_COMPRESSION_JPEG, FV_TIFF_PHOTOMETRIC_RGB);
    uint8_t out4[64];
    CHECK_ERR(fv__codec_decode(&ci, src, 48, out4, 64), FV_EUNSUPPORTED, "jpeg: 4 samples");
    ci = chunk(4, 4, 3, 8, FV_TIFF_COMPRESSION_JPEG, 5);
    CHECK_ERR(fv__codec_decode(&ci, src, 48, out, 48), FV_EUNSUPPORTED, "photometric interpretation 5");
    ci = chunk(4, 4, 1, 8, FV_TIFF_COMPRESSION_WEBP, FV_TIFF_PHOTOMETRIC_MINISBLACK);
    CHECK_ERR(fv__codec_decode(&ci, src, 16, out, 16), FV_EUNSUPPORTED, "webp: 1 samples");
    ci = chunk(4, 4, 1, 8, FV_TIFF_COMPRESSION_APERIO_JP2K_RGB, FV_TIFF_PHOTOMETRIC_RGB);
    CHECK_ERR(fv__codec_decode(&ci, src, 16, out, 16), FV_EUNSUPPORTED, "jp2k: 1 samples");
    /* predictor with None is ignored (libtiff), but not written */
    ci = chunk(4, 4, 3, 8, FV_TIFF_COMPRESSION_NONE, FV_TIFF_PHOTOMETRIC_RGB);
    ci.predictor = 2;
    for (int i = 0; i < 48; i++)
        src[i] = (uint8_t)(i * 7);
    check_exact("none ignores the predictor", &ci, src, 48, src);

    /* encode requests */
    uint8_t *enc = NULL;
    size_t elen = 0;
    CHECK_ERR(fv__codec_encode(&ci, 0, src, &enc, &elen), FV_EUNSUPPORTED, "predictor 2 with None");
    ci = chunk(4, 4, 3, 8, FV_TIFF_COMPRESSION_LZW, FV_TIFF_PHOTOMETRIC_RGB);
    CHECK_ERR(fv__codec_encode(&ci, 0, src, &enc, &elen), FV_EUNSUPPORTED, "lzw: no encoder");
    ci.compression = FV_TIFF_COMPRESSION_WEBP;
    CHECK_ERR(fv__codec_encode(&ci, 0, src, &enc, &elen), FV_EUNSUPPORTED, "no encoder");
    ci.compression = FV_TIFF_COMPRESSION_APERIO_JP2K_RGB;
    CHECK_ERR(fv__codec_encode(&ci, 0, src, &enc, &elen), FV_EUNSUPPORTED, "no encoder");
    ci.compression = FV_TIFF_COMPRESSION_JPEG;
    CHECK_ERR(fv__codec_encode(&ci, 0, src, &enc, &elen), FV_EINVAL, "quality 0");
    CHECK_ERR(fv__codec_encode(&ci, 101, src, &enc, &elen), FV_EINVAL, "quality 101");
    ci.predictor = 2;
    CHECK_ERR(fv__codec_encode(&ci, 90, src, &enc, &elen), FV_EUNSUPPORTED, "predictor 2 with JPEG");
    ci = chunk(4, 4, 3, 8, FV_TIFF_COMPRESSION_DEFLATE, FV_TIFF_PHOTOMETRIC_RGB);
    CHECK_ERR(fv__codec_encode(&ci, 13, src, &enc, &elen), FV_EINVAL, "level 13");
    ci.compression = FV_TIFF_COMPRESSION_ZSTD;
    CHECK_ERR(fv__codec_encode(&ci, 99, src, &enc, &elen), FV_EINVAL, "level 99");
    CHECK_ERR(fv__codec_encode(NULL, 1, src, &enc, &elen), FV_EINVAL, "NULL");
    CHECK(enc == NULL && elen == 0);
}

static void
test_none(void)
{
    uint32_t w = 37, h = 11;
    uint8_t *px = image8(w, h, 3, 1);
    fv__chunk_info ci = chunk(w, h, 3, 8, FV_TIFF_COMPRESSION_NONE, FV_TIFF_PHOTOMETRIC_RGB);
    check_exact("none 8-bit", &ci, px, (size_t)w * h * 3, px);
    uint16_t *p16 = image16(w, h, 1, 2);
    for (int big = 0; big < 2; big++) {
        uint8_t *f = file16(p16, w, h, 1, 0, big);
        ci = chunk(w, h, 1, 16, FV_TIFF_COMPRESSION_NONE, FV_TIFF_PHOTOMETRIC_MINISBLACK);
        ci.file_big_endian = big;
        check_exact(big ? "none 16-bit big-endian" : "none 16-bit little-endian", &ci, f, (size_t)w * h * 2, p16);
        /* and through the encoder */
        uint8_t *enc = NULL;
        size_t elen = 0;
        CHECK_OK(fv__codec_encode(&ci, 0, (const uint8_t *)p16, &enc, &elen));
        CHECK(elen == (size_t)w * h * 2 && enc && !memcmp(enc, f, elen));
        free(enc);
        free(f);
    }
    free(p16);
    free(px);
}

static void
test_deflate(void)
{
    uint32_t w = 256, h = 64;
    for (int spp = 1; spp <= 4; spp++) {
        uint8_t *px = image8(w, h, spp, 10 + spp);
        size_t n = (size_t)w * h * spp, len = 0;
        uint8_t *z = enc_deflate(px, n, &len);
        fv__chunk_info ci = chunk(w, h, spp, 8, FV_TIFF_COMPRESSION_DEFLATE, spp >= 3 ? 2 : 1);
        check_exact("deflate 8-bit", &ci, z, len, px);
        ci.compression = FV_TIFF_COMPRESSION_ADOBE_DEFLATE;
        check_exact("adobe deflate 8-bit", &ci, z, len, px);
        free(z);
        /* predictor 2 */
        uint8_t *pr = malloc(n);
        memcpy(pr, px, n);
        predict8(pr, w, h, spp);
        z = enc_deflate(pr, n, &len);
        ci.predictor = 2;
        check_exact("deflate 8-bit predictor", &ci, z, len, px);
        if (spp == 3)
            bad_input("deflate", &ci, z, len, 0, "deflate:");
        free(z);
        free(pr);
        free(px);
    }
    /* 16-bit, predictor, both byte orders; and the encoder */
    uint16_t *p16 = image16(w, h, 3, 3);
    for (int big = 0; big < 2; big++) {
        size_t len = 0;
        uint8_t *f = file16(p16, w, h, 3, 1, big);
        uint8_t *z = enc_deflate(f, (size_t)w * h * 6, &len);
        fv__chunk_info ci = chunk(w, h, 3, 16, FV_TIFF_COMPRESSION_ADOBE_DEFLATE, FV_TIFF_PHOTOMETRIC_RGB);
        ci.predictor = 2;
        ci.file_big_endian = big;
        check_exact(big ? "deflate 16-bit predictor big-endian" : "deflate 16-bit predictor little-endian", &ci, z, len,
                    p16);
        uint8_t *enc = NULL;
        size_t elen = 0;
        CHECK_OK(fv__codec_encode(&ci, -1, (const uint8_t *)p16, &enc, &elen));
        check_exact("deflate encode 16-bit", &ci, enc, elen, p16);
        free(enc);
        free(z);
        free(f);
    }
    free(p16);
    /* wrong sizes */
    uint8_t *px = image8(w, h + 1, 3, 4);
    size_t len = 0;
    uint8_t *z = enc_deflate(px, (size_t)w * h * 3 - 1, &len);
    fv__chunk_info ci = chunk(w, h, 3, 8, FV_TIFF_COMPRESSION_DEFLATE, FV_TIFF_PHOTOMETRIC_RGB);
    uint8_t *out = NULL;
    CHECK_ERR(decode(&ci, z, len, &out), FV_EFORMAT, "deflate: stream decodes to fewer");
    free(out);
    free(z);
    z = enc_deflate(px, (size_t)w * (h + 1) * 3, &len);
    CHECK_ERR(decode(&ci, z, len, &out), FV_EFORMAT, "deflate: stream decodes to more");
    free(out);
    /* raw deflate (no zlib wrapper) is not TIFF's format */
    CHECK_ERR(decode(&ci, z + 2, len - 6, &out), FV_EFORMAT, "deflate: corrupt");
    free(out);
    free(z);
    /* levels through the encoder */
    for (int level = 0; level <= 12; level += 4) {
        uint8_t *enc = NULL;
        size_t elen = 0;
        CHECK_OK(fv__codec_encode(&ci, level, px, &enc, &elen));
        check_exact("deflate encode", &ci, enc, elen, px);
        free(enc);
    }
    free(px);
}

static void
test_zstd(void)
{
    uint32_t w = 200, h = 50;
    uint8_t *px = image8(w, h, 3, 20);
    size_t n = (size_t)w * h * 3, len = 0;
    uint8_t *z = enc_zstd(px, n, &len);
    fv__chunk_info ci = chunk(w, h, 3, 8, FV_TIFF_COMPRESSION_ZSTD, FV_TIFF_PHOTOMETRIC_RGB);
    check_exact("zstd 8-bit", &ci, z, len, px);
    bad_input("zstd", &ci, z, len, 0, "zstd:");
    free(z);
    /* wrong sizes */
    uint8_t *out = NULL;
    z = enc_zstd(px, n - 3, &len);
    CHECK_ERR(decode(&ci, z, len, &out), FV_EFORMAT, "zstd: stream decodes to 29997 bytes, expected 30000");
    free(out);
    free(z);
    uint8_t *big = image8(w, h + 1, 3, 20);
    z = enc_zstd(big, n + 3, &len);
    CHECK_ERR(decode(&ci, z, len, &out), FV_EFORMAT, "zstd: stream decodes to more");
    free(out);
    free(z);
    free(big);
    /* encoder (checksummed): levels, and corruption is caught */
    int levels[] = { 0, 1, 3, 9, 19, -5 };
    for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++) {
        uint8_t *enc = NULL;
        size_t elen = 0;
        CHECK_OK(fv__codec_encode(&ci, levels[i], px, &enc, &elen));
        check_exact("zstd encode", &ci, enc, elen, px);
        if (i == 2)
            bad_input("zstd checksummed", &ci, enc, elen, 0, "zstd:");
        free(enc);
    }
    free(px);
    /* 16-bit predictor, both byte orders */
    uint16_t *p16 = image16(w, h, 4, 21);
    for (int be = 0; be < 2; be++) {
        uint8_t *f = file16(p16, w, h, 4, 1, be);
        z = enc_zstd(f, (size_t)w * h * 8, &len);
        ci = chunk(w, h, 4, 16, FV_TIFF_COMPRESSION_ZSTD, FV_TIFF_PHOTOMETRIC_RGB);
        ci.predictor = 2;
        ci.file_big_endian = be;
        check_exact(be ? "zstd 16-bit predictor big-endian" : "zstd 16-bit predictor little-endian", &ci, z, len, p16);
        free(z);
        free(f);
    }
    free(p16);
}

/* written by libtiff 4.5 through Pillow (tools: Image.save(compression="tiff_lzw")) */
static const char lzw_libtiff_gray[] =
    "\x80\x00\x00\x40\x60\x60\x50\x3c\x2a\x1c\x12\x0b\x46\xe4\x22\x71\x6c\xd2\x78\x04\x06\x45\x63\xe2\x91\x9c\xfa\x14\x16\x11\x4b\xe7"
    "\xa0\xb0\xcc\xa2\x70\x08\x0c\x4a\x67\x60\xd0\xfc\xca\x0c\x1a\x17\x40\xe3\x22\xf0\x2c\x72\x68\x0c\x12\x4f\x62\xe3\x10\x5c\x9a\x04"
    "\x1e\x1d\x45\xe6\xa1\x31\x8c\x42\x60\x01\x41\x01\x10\xc0\x74\x50\x39\x24\x19\x4f\x09\x15\x42\xf5\xb0\xf9\x0c\x11\x4d\x09\x15\xc3"
    "\x74\x10\x39\x34\x29\x5b\x01\x12\x41\xf5\x70\xf9\x1c\x21\x59\x01\x12\xc2\x75\xd0\x39\x44\x39\x47\x09\x17\x40\xf5\x30\xf9\x2c\x31"
    "\x45\x09\x17\xc1\x75\x90\x39\x54\x09\x53\x01\x14\x43\xf4\xf0\xf9\x3c\x02\x82\x41\x81\x20\xd8\x8c\x54\x34\x1c\x91\x4a\x05\xe3\x79"
    "\xfc\x1c\x20\x1e\x94\x4c\x87\xa0\x98\xac\x84\x5c\x38\x83\x45\x04\x63\x38\x1c\x4c\x48\x3a\x86\x47\x86\x20\x58\xcc\xb4\x04\x14\x95"
    "\x40\x02\xe2\xf8\x3c\x7c\x70\x16\x98\x42\x84\xa0\x18\xec\xe4\x2c\x30\x87\x4b\x01\x62\xb8\x5c\xac\x18\x03\xc3\x02\x31\x80\xfc\xa0"
    "\x63\x3c\x23\xd5\x0c\x37\x03\xfc\x40\x43\x34\x2b\xdb\x00\x31\x81\x7d\x20\xc3\x7c\x0b\xcd\x0a\x37\x00\x7c\xc0\xa3\x74\x13\xd3\x0e"
    "\x31\x81\xfd\xa0\x23\x3c\x33\xc5\x08\x37\x00\xfd\x40\x03\x34\x3b\xcb\x0c\x31\x82\x7c\x20\x83\x7c\x1b\xdd\x06\x37\x01\x7d\xc0\x31"
    "\x9d\x00\xa0\x44\x19\x08\x82\x80\xcc\x3f\x13\x05\xe1\xb4\x7d\x03\x81\xc0\xbc\x43\x16\x06\x21\xe4\x11\x0a\x84\x01\x6c\x77\x05\x03"
    "\x61\x54\x75\x05\x83\x41\x5c\x7b\x08\x05\xa0\x04\x29\x14\x87\x80\x8c\x4f\x1f\x02\xe1\x74\x0d\x0f\x86\xc0\x7c\x53\x02\x03\x21\xa4"
    "\x21\x16\x81\x01\x2c\x07\x11\x00\x61\x14\x05\x11\x80\x41\x1c\x0b\x14\x00\xc8\x50\x1e\x8a\x03\x49\x00\x4e\x97\x06\x49\xd0\x06\x86"
    "\x02\xc9\x00\x56\xa9\xe1\x40\xba\x48\x19\x20\x00\x7a\x3c\x15\x27\x40\x5a\x38\x17\x20\x00\x9a\x4c\x03\x23\x41\x7a\x08\x0d\x26\x00"
    "\x3a\x3c\x19\x21\x41\x1a\x78\x0b\x26\x00\x5a\xb7\x8d\x06\xe8\xa0\x64\x88\x05\xe8\x70\x54\x85\x05\x68\x60\x5c\x88\x06\x68\xb0\x0f"
    "\x40\x82\xe0\xe4\x47\x15\x06\x41\xcc\x05\x05\x82\xa0\xf4\x53\x1a\x00\x00\x5c\x31\x12\x86\x60\x04\x1f\x0f\x05\xc1\xec\x1d\x0f\x86"
    "\x20\x14\x2b\x14\x07\x80\xfc\x69\x04\x83\xe1\xa4\x17\x11\x07\x40\x8c\x55\x01\x83\xa1\xb4\x23\x16\x01\x01\x1c\x01\x0e\x87\x60\xc4"
    "\x6f\x0b\x06\xc0\xac\x6d\x0b\x87\x20\xd4\x7b\x10\x00\x80\x46\x1c\x09\xe3\x41\x16\x54\x18\xe7\x40\x26\x1c\x0b\xe4\x41\x76\x74\x02"
    "\xe2\x41\x06\x5c\x1d\xe1\x40\xd6\x54\x1c\xe1\x40\xe6\x5c\x1f\xe2\x41\x36\x74\x06\xe4\x41\x46\x7c\x09\xe5\x40\x16\x34\x18\xe1\x41"
    "\x26\x7c\x0b\xe6\x40\x76\x54\x02\xe4\x40\x06\x3c\x1d\xe3\x41\xd6\x34\x1c\xe3\x41\xe6\x3c\x1f\xe4\x40\x36\x54\x06\xe6\x40\x50\x21"
    "\x0b\xc3\xe1\x38\x5f\x1c\x40\x40\x40\x25\x0e\xc5\x21\xa8\x03\x07\x43\x81\x70\x79\x05\xc3\x61\x58\x77\x34\x65\x81\xf4\x23\x12\x87"
    "\x20\x6c\x45\x1c\x00\x40\xc4\x5f\x03\x83\xe1\xbc\x21\x15\x00\x00\xd4\x6b\x08\x85\xa0\x4c\x4d\x02\x04\xc0\x24\x47\x01\x84\x60\x1c"
    "\x49\x03\x04\x80\x34\x53\x06\x86\x20\xac\x75\x10\x01\x68\x90\x34\x91\x05\x29\x90\x78\x83\x01\xe8\xd0\x4c\x99\x07\xa8\x50\x30\x93"
    "\x07\x68\x50\x34\x95\x07\x28\x50\x38\x97\x07\xe8\x90\x4c\x9d\x01\xa9\x10\x70\x87\x03\x69\x90\x14\xad\x22\x41\x62\x0c\x0f\xa7\x40"
    "\xb2\x64\x06\xa5\x40\x42\x4c\x05\xa5\x40\x52\xbc\x95\x01\x89\x70\x1e\x99\x02\xc9\xd0\x3a\x81\x05\x08\x70\x19\x0a\x43\x81\x28\x5f"
    "\x1c\xc0\x60\x70\x35\x13\x46\x41\xf8\x1b\x0d\xc5\x21\xc0\x01\x08\x44\x01\x88\x07\x0a\xc4\xe1\xd0\x1d\x11\x46\xc0\x58\x43\x1b\xc1"
    "\xa1\x20\x69\x06\x44\x81\xe8\x2f\x18\xc1\x61\x30\x05\x0f\x47\x40\xb8\x6b\x09\xc6\x20\x80\x51\x04\x45\x00\x48\x57\x06\xc5\xe0\x90"
    "\x6d\x0d\x47\xc1\x18\x13\x17\xc2\xa1\xe0\x1b\x8b\x03\xd9\x40\x63\x9e\x00\xd8\x90\x43\x97\x07\x58\x40\x2b\x92\x06\x58\x10\x1b\x8f"
    "\x05\xd8\x00\x23\x92\x06\xd8\x50\x43\x9b\x01\x59\x00\x6b\x86\x04\x5d\xb8\x4c\x1f\x63\x01\x8e\x18\x13\x60\x41\x0e\x7c\x0d\x67\x00"
    "\xae\x68\x09\x66\x40\x6e\x5c\x07\x66\x00\x8e\x68\x0b\x67\x41\x0e\x0c\x15\x62\x01\xae\x38\x01\x65\x40\x78\x31\x11\x45\xa1\xb0\x01"
    "\x81\xb0\x68\x12\x83\x28\x01\x03\xc0\xe0\x2b\x87\x70\x30\x0d\x82\xc8\x7d\x04\x41\x10\x35\x81\x31\xa4\x03\x41\xc8\x66\x02\x00\xfc"
    "\x37\x82\x00\x9c\x00\x41\xa8\x6a\x03\x81\x4c\x05\x84\x40\xf4\x0d\x43\x88\x2e\x0d\x00\x9c\x33\x82\x80\xcc\x0a\x43\x68\x32\x0e\x80"
    "\xec\x01\x84\xc0\x24\x17\x41\x48\x76\x08\x00\x3c\x2f\x83\x00\x41\x0d\x02\x54\x60\x0f\x10\x40\x15\x44\x40\xc1\x1f\x00\xd4\x38\x0b"
    "\x11\xe0\x0d\x43\xc0\xc1\x01\x01\x54\x50\x0f\x10\x80\x25\x47\x40\x41\x13\x03\xd4\x28\x0b\x10\x20\x1d\x46\xc0\x41\x15\x00\x54\x40"
    "\x0f\x10\xc0\x35\x42\x40\xc1\x07\x02\xd4\x18\x0b\x10\x60\x2d\x41\xc0\xc1\x09\x03\x54\x30\x0f\x11\x00\x05\x45\x40\x41\x1b\x01\xd4"
    "\x08\x0b\x10\xa0\x3d\x44\xc0\x46\x0e\x42\x70\x66\x0f\xa0\x5c\x18\x04\xc0\xde\x03\x41\x50\x4a\x0d\x20\x2c\x16\x05\x00\xf6\x08\x42"
    "\x30\x6e\x02\xa0\xfc\x34\x01\x40\x8e\x1d\x41\x10\x52\x00\x20\xcc\x32\x01\x80\xa6\x02\x41\xf0\x76\x05\xa1\x9c\x10\x05\xc0\x3e\x17"
    "\x40\xd0\x5a\x03\x21\x6c\x0e\x06\x00\x56\x1c\x41\xb0\x7e\x08\xa0\x3c\x2c\x02\x40\xee\x11\x40\x90\x62\x06\x20\x0c\x2a\x02\x80\x4b"
    "\x0f\x02\x9c\x6c\x01\x30\x90\x1f\xde\x28\x28\x0c\xe2\xa0\x79\x83\x80\xfe\x32\x01\x58\x78\x18\xe0\x60\x39\x8c\x80\x3e\x1e\x06\x5b"
    "\xd3\x1d\x01\x4c\x5c\x01\xf1\x10\x02\xc3\xc0\xe7\x0b\x03\x4c\x24\x0b\xf0\x70\x2a\xc1\x40\xa7\x05\x02\xcc\x1c\x0b\xf0\x90\x3a\xc3"
    "\xc0\x07\x13\x00\xcc\x64\x05\xf1\xf0\x22\xc1\x40\xc7\x0d\x00\x4c\x5c\x05\xf0\x10\x40\x40";
static const char lzw_libtiff_rgb_pred[] =
    "\x80\x00\x06\x46\x40\x10\x0c\x08\x04\x02\x81\x80\xc0\x70\x40\x20\x12\x0a\x05\x02\xc1\x80\xc0\x68\x38\x1c\x0f\x08\x04\x02\x21\x20"
    "\x90\x4c\x28\x14\x0a\x85\x82\xc1\x70\xc0\x60\x32\x1a\x0d\x06\xc3\x81\xc0\xe8\x78\x3c\x1f\x10\x08\x04\x22\x21\x10\x8c\x48\x24\x12"
    "\x89\x84\xc2\x71\x40\xa0\x52\x2a\x15\x0a\xc5\x82\xc1\x68\xb8\x5c\x2f\x18\x01\x46\xe6\x98\x30\x16\x1e\x0b\x86\x02\x61\x20\x78\x90"
    "\x36\x36\x13\x8c\x04\x65\xa1\xf8\xf0\x56\x4e\x1b\x92\x06\x64\x21\x79\x50\x76\x66\x23\x98\x08\x68\xa2\xf9\xb0\x96\x7e\x2b\x9e\x0a"
    "\x67\x22\x7a\x10\xb4\x62\x32\x19\xd2\x06\x20\xa1\xe1\xba\x1c\x0a\x85\x82\x22\x80\xe8\xe8\x52\x34\x12\x8b\x84\x24\x01\x68\x88\x32"
    "\x4c\x1a\x91\x86\x25\x81\xe9\xa8\x92\x64\x22\x97\x88\x27\x02\x61\xd0\xec\x79\x3e\x15\x4e\xc5\x14\x41\x75\xe0\x68\x30\xbb\xd1\xc6"
    "\x03\x41\xa8\xd8\x1e\x41\x39\xd3\xea\xb1\x50\x7d\x66\xaf\x5d\xb1\xd8\x6b\xf6\x5a\xdd\xa6\xcf\x6d\xb9\x91\xc9\x04\x9b\x7d\xd6\xd7"
    "\x7a\xbb\x8c\xc6\x7a\xcd\x68\xdc\x28\x46\x3c\x62\x70\xf8\x5c\x1e\x47\x1f\x29\x0e\x66\xf3\x39\x7c\xae\x4f\x45\xa0\xa0\x8b\x31\x7a"
    "\xad\x40\xcb\x4d\xa4\x1b\x0d\xc7\x03\x81\xc8\xeb\x3a\x3c\x0c\x92\xcf\xb5\x9b\x1d\x76\xbf\x61\xad\xd9\x6a\xf6\x9b\x9d\xb6\xde\xb8"
    "\xad\x6b\xaa\xce\xbd\x39\xae\x58\x6a\xf6\x87\x6f\x50\x72\x1e\x87\xc1\xfb\x3c\x1e\x83\xc2\x81\x04\xc5\xb0\xac\x7b\x22\xc9\xbb\x0c"
    "\xbb\x32\xcd\xb2\xad\x03\x44\xd2\x3c\x2f\x2b\x54\xd6\x06\xcd\x33\xd8\x1d\x3d\x21\xc0\x79\x06\x3d\xe2\x00\x82\x21\x04\x62\xa9\x0e"
    "\xdc\xa4\xca\xfa\xda\xde\xa6\x4b\x3a\xea\xb9\xae\x2b\x7c\x0c\xe3\xb5\x0e\x4c\x1e\xe6\xc1\x50\x40\x86\x22\x08\xb0\x60\x7e\x1f\xc5"
    "\xd1\x78\x86\x14\x0b\x44\x63\xb0\xc9\xbb\x69\x9b\x2a\xcd\xb4\x4c\x7b\xc2\xd2\x3c\x8b\xbb\x4d\x12\x45\x2e\x18\x94\xf7\xc5\x61\xf4"
    "\x1a\x20\x45\xc2\x10\x85\x23\xc9\x02\x30\x8c\xe1\x05\xa2\xf9\x22\xb2\xac\xeb\x4a\xb6\xff\x28\x2b\x8a\xe6\xba\xb9\x2b\xd2\xd7\x03"
    "\x41\x10\x50\xaa\x2b\x0a\xf0\x7c\x9d\x26\x08\x32\x54\x8e\x22\x89\x22\x50\x96\xe1\x09\x28\x19\x2d\x0d\x26\x0c\xdb\xc3\x0f\x27\x8d"
    "\x23\x4d\x11\x29\x11\x23\xdf\x13\xc5\x33\x2b\x2b\x34\xcc\xf3\x6d\x1c\x26\x4c\x53\x78\x90\x26\x09\xa2\x72\x96\x4d\xb7\xe9\xc4\x78"
    "\x9f\x38\xaa\x22\xd7\x44\x39\x30\x34\x88\xf6\x41\x10\x7c\x94\xbd\x49\xd4\x58\x8b\x37\xd2\x14\x68\x96\x25\xd5\x95\x68\x9e\x80\x80";

static uint8_t
lzw_ref_pixel(int x, int y)
{
    return (uint8_t)((x * x + 3 * x * y + (x ^ (5 * y))) & 255);
}

static void
test_lzw(void)
{
    /* streams written by libtiff (through Pillow): gray 64x16 (codes up to 11
     * bits), RGB 24x12 with predictor 2 */
    uint8_t ref[64 * 16], ref3[24 * 12 * 3];
    for (int y = 0; y < 16; y++)
        for (int x = 0; x < 64; x++)
            ref[y * 64 + x] = lzw_ref_pixel(x, y);
    for (int y = 0; y < 12; y++)
        for (int x = 0; x < 24; x++)
            for (int c = 0; c < 3; c++)
                ref3[(y * 24 + x) * 3 + c] = (uint8_t)((lzw_ref_pixel(x, y) + c * 50 + x * c) & 255);
    fv__chunk_info ci = chunk(64, 16, 1, 8, FV_TIFF_COMPRESSION_LZW, FV_TIFF_PHOTOMETRIC_MINISBLACK);
    check_exact("lzw libtiff gray", &ci, (const uint8_t *)lzw_libtiff_gray, sizeof lzw_libtiff_gray - 1, ref);
    bad_input("lzw libtiff", &ci, (const uint8_t *)lzw_libtiff_gray, sizeof lzw_libtiff_gray - 1, 2, "lzw:");
    ci = chunk(24, 12, 3, 8, FV_TIFF_COMPRESSION_LZW, FV_TIFF_PHOTOMETRIC_RGB);
    ci.predictor = 2;
    check_exact("lzw libtiff rgb predictor", &ci, (const uint8_t *)lzw_libtiff_rgb_pred,
                sizeof lzw_libtiff_rgb_pred - 1, ref3);

    /* our encoder: large (every code width, many Clear codes), runs (KwKwK), tiny */
    uint32_t w = 256, h = 256;
    uint8_t *px = image8(w, h, 3, 30);
    size_t n = (size_t)w * h * 3, len = 0;
    uint8_t *z = lzw_encode(px, n, 0, &len);
    ci = chunk(w, h, 3, 8, FV_TIFF_COMPRESSION_LZW, FV_TIFF_PHOTOMETRIC_RGB);
    check_exact("lzw 256x256 rgb", &ci, z, len, px);
    free(z);
    uint8_t *run = malloc(n);
    memset(run, 'a', n);
    for (size_t i = 0; i < n; i += 5000)
        run[i] = 'b';
    z = lzw_encode(run, n, 0, &len);
    check_exact("lzw runs", &ci, z, len, run);
    free(z);
    for (uint32_t tiny = 1; tiny <= 3; tiny++) {
        fv__chunk_info t = chunk(tiny, 1, 1, 8, FV_TIFF_COMPRESSION_LZW, FV_TIFF_PHOTOMETRIC_MINISBLACK);
        z = lzw_encode(px, tiny, 0, &len);
        check_exact("lzw tiny", &t, z, len, px);
        free(z);
    }
    /* predictor 8-bit (samples 1, 3, 4) and 16-bit, both byte orders */
    for (int spp = 1; spp <= 4; spp += (spp == 1 ? 2 : 1)) {
        uint8_t *p = image8(w, 32, spp, 31 + spp);
        size_t m = (size_t)w * 32 * spp;
        uint8_t *pr = malloc(m);
        memcpy(pr, p, m);
        predict8(pr, w, 32, spp);
        z = lzw_encode(pr, m, 0, &len);
        fv__chunk_info t = chunk(w, 32, spp, 8, FV_TIFF_COMPRESSION_LZW, spp == 1 ? 1 : 2);
        t.predictor = 2;
        check_exact("lzw predictor 8-bit", &t, z, len, p);
        free(z);
        free(pr);
        free(p);
    }
    uint16_t *p16 = image16(w, 40, 1, 33);
    for (int be = 0; be < 2; be++) {
        uint8_t *f = file16(p16, w, 40, 1, 1, be);
        z = lzw_encode(f, (size_t)w * 40 * 2, 0, &len);
        fv__chunk_info t = chunk(w, 40, 1, 16, FV_TIFF_COMPRESSION_LZW, 1);
        t.predictor = 2;
        t.file_big_endian = be;
        check_exact(be ? "lzw 16-bit predictor big-endian" : "lzw 16-bit predictor little-endian", &t, z, len, p16);
        free(z);
        free(f);
    }
    free(p16);

    /* bad streams */
    uint8_t *out = NULL;
    z = lzw_encode(px, n, 0, &len);
    bad_input("lzw", &ci, z, len, 2, "lzw:");
    fv__chunk_info small = chunk(w, h - 1, 3, 8, FV_TIFF_COMPRESSION_LZW, FV_TIFF_PHOTOMETRIC_RGB);
    CHECK_ERR(decode(&small, z, len, &out), FV_EFORMAT, "lzw: stream decodes to more than");
    free(out);
    fv__chunk_info large = chunk(w, h + 1, 3, 8, FV_TIFF_COMPRESSION_LZW, FV_TIFF_PHOTOMETRIC_RGB);
    CHECK_ERR(decode(&large, z, len, &out), FV_EFORMAT, "lzw: stream decodes to 196608 bytes, expected 197376");
    free(out);
    free(z);
    /* a full table that is never cleared overflows */
    z = lzw_encode(px, n, 1, &len);
    CHECK_ERR(decode(&ci, z, len, &out), FV_EFORMAT, "lzw: string table overflow");
    free(out);
    free(z);
    /* hand-made: Clear, 'A', 'B', 258 (AB), then code 300 (beyond the table) */
    {
        lzw_out o = { 0 };
        lzw_put(&o, 256, 9);
        lzw_put(&o, 'A', 9);
        lzw_put(&o, 'B', 9);
        lzw_put(&o, 258, 9);
        lzw_put(&o, 257, 9);
        lzw_put(&o, 0, 8 - o.nacc);
        fv__chunk_info t = chunk(4, 1, 1, 8, FV_TIFF_COMPRESSION_LZW, 1);
        check_exact("lzw hand-made", &t, o.p, o.n, "ABAB");
        free(o.p);
        memset(&o, 0, sizeof o);
        lzw_put(&o, 256, 9);
        lzw_put(&o, 'A', 9);
        lzw_put(&o, 'B', 9);
        lzw_put(&o, 300, 9);
        lzw_put(&o, 257, 9);
        lzw_put(&o, 0, 8 - o.nacc);
        CHECK_ERR(decode(&t, o.p, o.n, &out), FV_EFORMAT, "lzw: code 300");
        free(out);
        free(o.p);
        memset(&o, 0, sizeof o);
        lzw_put(&o, 256, 9);
        lzw_put(&o, 258, 9); /* a string code right after Clear */
        lzw_put(&o, 257, 9);
        lzw_put(&o, 0, 8 - o.nacc);
        CHECK_ERR(decode(&t, o.p, o.n, &out), FV_EFORMAT, "follows a Clear code");
        free(out);
        free(o.p);
        /* no EOI: fine when the output is complete */
        memset(&o, 0, sizeof o);
        lzw_put(&o, 256, 9);
        lzw_put(&o, 'A', 9);
        lzw_put(&o, 'B', 9);
        lzw_put(&o, 258, 9);
        lzw_put(&o, 0, 8 - o.nacc);
        check_exact("lzw without EOI", &t, o.p, o.n, "ABAB");
        free(o.p);
        const uint8_t old[] = { 0x00, 0x01, 0x02, 0x03 };
        CHECK_ERR(decode(&t, old, sizeof old, &out), FV_EFORMAT, "old-style");
        free(out);
    }
    free(run);
    free(px);
}

static void
test_jpeg(void)
{
    uint32_t w = 256, h = 256;
    uint8_t *px = image8(w, h, 3, 40);
    size_t len = 0, n = (size_t)w * h * 3;

    /* full JFIF stream, YCbCr 4:2:0: identical to libjpeg's own decode */
    uint8_t *j = enc_jpeg(px, (int)w, (int)h, JT_JFIF, 95, &len);
    fv__chunk_info ci = chunk(w, h, 3, 8, FV_TIFF_COMPRESSION_JPEG, FV_TIFF_PHOTOMETRIC_YCBCR);
    uint8_t *ref = ref_jpeg(NULL, 0, j, len, JCS_UNKNOWN);
    check_exact("jpeg ycbcr = libjpeg", &ci, j, len, ref);
    check_close("jpeg ycbcr q95", &ci, j, len, px, 1.5);
    ci.photometric = FV_TIFF_PHOTOMETRIC_RGB; /* JFIF marker: still YCbCr */
    check_exact("jpeg rgb photometric + JFIF", &ci, j, len, ref);
    ci.photometric = FV_TIFF_PHOTOMETRIC_YCBCR;
    bad_input("jpeg", &ci, j, len, 0, "jpeg:");
    uint8_t *out = NULL;
    fv__chunk_info wrong = chunk(w, h - 1, 3, 8, FV_TIFF_COMPRESSION_JPEG, FV_TIFF_PHOTOMETRIC_YCBCR);
    CHECK_ERR(decode(&wrong, j, len, &out), FV_EFORMAT, "jpeg: image is 256x256, expected 256x255");
    free(out);
    wrong = chunk(w, h, 1, 8, FV_TIFF_COMPRESSION_JPEG, FV_TIFF_PHOTOMETRIC_MINISBLACK);
    CHECK_ERR(decode(&wrong, j, len, &out), FV_EFORMAT, "jpeg: image has 3 components, expected 1");
    free(out);
    free(ref);
    free(j);

    /* Aperio RGB JPEG: no markers, ids 1 2 3 -> RGB without conversion */
    j = enc_jpeg(px, (int)w, (int)h, JT_APERIO_RGB, 95, &len);
    ref = ref_jpeg(NULL, 0, j, len, JCS_RGB);
    uint8_t *guess = ref_jpeg(NULL, 0, j, len, JCS_UNKNOWN);
    CHECK(ref && guess && mad(ref, guess, n) > 10); /* libjpeg alone would convert */
    ci.photometric = FV_TIFF_PHOTOMETRIC_RGB;
    check_exact("jpeg aperio rgb = libjpeg JCS_RGB", &ci, j, len, ref);
    check_close("jpeg aperio rgb q95", &ci, j, len, px, 1.5);
    ci.photometric = FV_TIFF_PHOTOMETRIC_YCBCR; /* photometric YCbCr forces conversion */
    check_exact("jpeg ycbcr photometric on rgb data", &ci, j, len, guess);
    free(guess);
    free(ref);
    free(j);

    /* grayscale, odd size (partial MCUs) */
    uint32_t gw = 75, gh = 50;
    uint8_t *g = image8(gw, gh, 1, 41);
    j = enc_jpeg(g, (int)gw, (int)gh, JT_GRAY, 95, &len);
    ci = chunk(gw, gh, 1, 8, FV_TIFF_COMPRESSION_JPEG, FV_TIFF_PHOTOMETRIC_MINISBLACK);
    ref = ref_jpeg(NULL, 0, j, len, JCS_UNKNOWN);
    check_exact("jpeg gray = libjpeg", &ci, j, len, ref);
    check_close("jpeg gray q95", &ci, j, len, g, 1.5);
    free(ref);
    free(j);
    uint8_t *odd = image8(gw, gh, 3, 42);
    j = enc_jpeg(odd, (int)gw, (int)gh, JT_JFIF, 95, &len);
    ci = chunk(gw, gh, 3, 8, FV_TIFF_COMPRESSION_JPEG, FV_TIFF_PHOTOMETRIC_YCBCR);
    check_close("jpeg ycbcr 75x50", &ci, j, len, odd, 1.5);
    free(j);

    /* JPEGTables + abbreviated tiles, three tiles sharing the tables */
    uint8_t *imgs[3] = { px, image8(w, h, 3, 43), image8(w, h, 3, 44) };
    uint8_t *tables = NULL, *tiles[3];
    size_t tlen = 0, lens[3];
    enc_jpeg_tables(imgs, 3, (int)w, (int)h, &tables, &tlen, tiles, lens);
    printf("  JPEGTables %zu bytes; abbreviated tiles %zu %zu %zu bytes\n", tlen, lens[0], lens[1], lens[2]);
    ci = chunk(w, h, 3, 8, FV_TIFF_COMPRESSION_JPEG, FV_TIFF_PHOTOMETRIC_YCBCR);
    ci.jpeg_tables = tables;
    ci.jpeg_tables_len = tlen;
    for (int i = 0; i < 3; i++) {
        ref = ref_jpeg(tables, tlen, tiles[i], lens[i], JCS_YCbCr);
        check_exact("jpeg tables = libjpeg", &ci, tiles[i], lens[i], ref);
        check_close("jpeg tables q92", &ci, tiles[i], lens[i], imgs[i], 1.5);
        free(ref);
    }
    bad_input("jpeg abbreviated", &ci, tiles[1], lens[1], 0, "jpeg:");
    /* the tile alone lacks its tables */
    fv__chunk_info notab = ci;
    notab.jpeg_tables = NULL;
    notab.jpeg_tables_len = 0;
    CHECK_ERR(decode(&notab, tiles[0], lens[0], &out), FV_EFORMAT, "jpeg: Quantization table 0x00 was not defined");
    free(out);
    /* corrupt tables */
    uint8_t junk[64];
    for (size_t i = 0; i < sizeof junk; i++)
        junk[i] = (uint8_t)rnd();
    fv__chunk_info badtab = ci;
    badtab.jpeg_tables = junk;
    badtab.jpeg_tables_len = sizeof junk;
    CHECK_ERR(decode(&badtab, tiles[0], lens[0], &out), FV_EFORMAT, "jpeg: JPEGTables: ");
    free(out);
    /* tables without their EOI are tolerated */
    badtab.jpeg_tables = tables;
    badtab.jpeg_tables_len = tlen - 2;
    ref = ref_jpeg(tables, tlen, tiles[2], lens[2], JCS_YCbCr);
    check_exact("jpeg tables without EOI", &badtab, tiles[2], lens[2], ref);
    free(ref);
    for (int i = 0; i < 3; i++)
        free(tiles[i]);
    free(tables);
    free(imgs[1]);
    free(imgs[2]);

    /* the encoder: YCbCr 4:2:0, RGB, gray */
    uint8_t *enc = NULL;
    size_t elen = 0;
    ci = chunk(w, h, 3, 8, FV_TIFF_COMPRESSION_JPEG, FV_TIFF_PHOTOMETRIC_YCBCR);
    CHECK_OK(fv__codec_encode(&ci, 95, px, &enc, &elen));
    check_close("jpeg encode ycbcr q95", &ci, enc, elen, px, 1.5);
    CHECK(elen > 4 && enc[0] == 0xff && enc[1] == 0xd8 && enc[elen - 2] == 0xff && enc[elen - 1] == 0xd9);
    free(enc);
    ci.photometric = FV_TIFF_PHOTOMETRIC_RGB;
    CHECK_OK(fv__codec_encode(&ci, 95, px, &enc, &elen));
    check_close("jpeg encode rgb q95", &ci, enc, elen, px, 1.5);
    free(enc);
    ci = chunk(gw, gh, 1, 8, FV_TIFF_COMPRESSION_JPEG, FV_TIFF_PHOTOMETRIC_MINISBLACK);
    CHECK_OK(fv__codec_encode(&ci, 95, g, &enc, &elen));
    check_close("jpeg encode gray q95", &ci, enc, elen, g, 1.5);
    free(enc);
    ci = chunk(gw, gh, 3, 8, FV_TIFF_COMPRESSION_JPEG, FV_TIFF_PHOTOMETRIC_YCBCR);
    CHECK_OK(fv__codec_encode(&ci, 80, odd, &enc, &elen));
    check_close("jpeg encode ycbcr q80 75x50", &ci, enc, elen, odd, 3.0);
    free(enc);
    free(odd);
    free(g);
    free(px);
}

/* RGB -> YCbCr (JFIF), chroma averaged over horizontal pairs, as planes */
static void
to_ycc422(const uint8_t *rgb, int w, int h, uint8_t *yp, uint8_t *cb, uint8_t *cr)
{
    int cw = (w + 1) / 2;
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            const uint8_t *p = rgb + ((size_t)y * w + x) * 3;
            yp[(size_t)y * w + x] = clamp8(0.299 * p[0] + 0.587 * p[1] + 0.114 * p[2]);
        }
        for (int i = 0; i < cw; i++) {
            double b = 0, r = 0;
            int k = 0;
            for (int x = 2 * i; x < 2 * i + 2 && x < w; x++, k++) {
                const uint8_t *p = rgb + ((size_t)y * w + x) * 3;
                b += 128 - 0.168736 * p[0] - 0.331264 * p[1] + 0.5 * p[2];
                r += 128 + 0.5 * p[0] - 0.418688 * p[1] - 0.081312 * p[2];
            }
            cb[(size_t)y * cw + i] = clamp8(b / k);
            cr[(size_t)y * cw + i] = clamp8(r / k);
        }
    }
}

static void
test_jp2k(void)
{
    int sizes[][2] = { { 240, 240 }, { 75, 50 } };
    for (int s = 0; s < 2; s++) {
        int w = sizes[s][0], h = sizes[s][1];
        size_t n = (size_t)w * h * 3, len = 0;
        uint8_t *px = image8((uint32_t)w, (uint32_t)h, 3, 50 + s);
        /* 33005: RGB planes, lossless */
        uint8_t *pl[3];
        for (int c = 0; c < 3; c++) {
            pl[c] = malloc((size_t)w * h);
            for (size_t i = 0; i < (size_t)w * h; i++)
                pl[c][i] = px[i * 3 + c];
        }
        const int one[3] = { 1, 1, 1 };
        uint8_t *j = enc_j2k((const uint8_t *const *)pl, w, h, one, 0, &len);
        CHECK(j != NULL);
        fv__chunk_info ci =
            chunk((uint32_t)w, (uint32_t)h, 3, 8, FV_TIFF_COMPRESSION_APERIO_JP2K_RGB, FV_TIFF_PHOTOMETRIC_RGB);
        check_exact("jp2k 33005 rgb", &ci, j, len, px);
        if (s == 1)
            bad_input("jp2k rgb", &ci, j, len, 2, "jp2k:");
        uint8_t *out = NULL;
        fv__chunk_info wrong = ci;
        wrong.width++;
        CHECK_ERR(decode(&wrong, j, len, &out), FV_EFORMAT, "jp2k: image is");
        free(out);
        /* the SIZ segment is checked before OpenJPEG allocates its tile grid (fuzz_codec:
         * a tiny stream declaring 62,000 tiles cost 1 s and 740 MB) */
        uint8_t *bad = malloc(len);
        static const struct {
            int off;
            uint32_t v;
            const char *msg;
        } siz[] = {
            { 12, 561417, "image is" }, /* Ysiz: a tall image */
            { 24, 1, "tiles of 1x1" },  /* XTsiz 1 (and YTsiz 1 below): w x h tiles */
            { 32, 1, "bad tile grid" }, /* XTOsiz past XOsiz */
            { 24, 0, "bad tile grid" }, /* XTsiz 0 */
        };
        for (int k = 0; k < 4; k++) {
            if (k == 1 && w * h <= 4096)
                continue; /* 1x1 tiles stay within the limit */
            memcpy(bad, j, len);
            for (int b = 0; b < 4; b++)
                bad[siz[k].off + b] = (uint8_t)(siz[k].v >> (24 - 8 * b));
            if (k == 1)
                for (int b = 0; b < 4; b++)
                    bad[28 + b] = (uint8_t)(1u >> (24 - 8 * b));
            CHECK_ERR(decode(&ci, bad, len, &out), FV_EFORMAT, siz[k].msg);
            free(out);
        }
        CHECK_ERR(decode(&ci, j + 2, len - 2, &out), FV_EFORMAT, "SOC and SIZ");
        free(out);
        free(bad);
        free(j);
        /* the JP2 file format holds the same codestream */
        j = enc_j2k((const uint8_t *const *)pl, w, h, one, 1, &len);
        check_exact("jp2k 33005 rgb in a JP2 file", &ci, j, len, px);
        free(j);
        for (int c = 0; c < 3; c++)
            free(pl[c]);

        /* 33003: YCbCr with chroma subsampled 2x horizontally */
        int cw = (w + 1) / 2;
        uint8_t *yp = malloc((size_t)w * h), *cb = malloc((size_t)cw * h), *cr = malloc((size_t)cw * h);
        to_ycc422(px, w, h, yp, cb, cr);
        const uint8_t *ycc[3] = { yp, cb, cr };
        const int sub[3] = { 1, 2, 2 };
        j = enc_j2k(ycc, w, h, sub, 0, &len);
        CHECK(j != NULL);
        ci.compression = FV_TIFF_COMPRESSION_APERIO_JP2K_YCBCR;
        uint8_t *expect = malloc(n);
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                double Y = yp[(size_t)y * w + x], B = cb[(size_t)y * cw + x / 2] - 128.0,
                       R = cr[(size_t)y * cw + x / 2] - 128.0;
                uint8_t *e = expect + ((size_t)y * w + x) * 3;
                e[0] = clamp8(Y + 1.402 * R);
                e[1] = clamp8(Y - 0.344136 * B - 0.714136 * R);
                e[2] = clamp8(Y + 1.772 * B);
            }
        CHECK_OK(decode(&ci, j, len, &out));
        if (out) {
            int maxd = 0;
            for (size_t i = 0; i < n; i++) {
                int d = abs((int)out[i] - (int)expect[i]);
                if (d > maxd)
                    maxd = d;
            }
            printf("  jp2k 33003 %dx%d: max diff %d from the float YCbCr->RGB, mean abs diff %.3f from the original\n",
                   w, h, maxd, mad(out, px, n));
            CHECK(maxd <= 1);
            CHECK(mad(out, px, n) < 1.5);
        }
        free(out);
        if (s == 0)
            bad_input("jp2k ycbcr", &ci, j, len, 2, "jp2k:");
        free(j);
        free(expect);
        free(yp);
        free(cb);
        free(cr);
        free(px);
    }
}

static void
test_webp(void)
{
    uint32_t w = 128, h = 96;
    uint8_t *rgb = image8(w, h, 3, 60), *rgba = image8(w, h, 4, 61);
    uint8_t *enc = NULL;
    size_t len = WebPEncodeLosslessRGB(rgb, (int)w, (int)h, (int)w * 3, &enc);
    CHECK(len > 0);
    fv__chunk_info ci = chunk(w, h, 3, 8, FV_TIFF_COMPRESSION_WEBP, FV_TIFF_PHOTOMETRIC_RGB);
    check_exact("webp lossless rgb", &ci, enc, len, rgb);
    bad_input("webp lossless", &ci, enc, len, 0, "webp:");
    /* as RGBA: alpha 255 */
    uint8_t *x = malloc((size_t)w * h * 4);
    for (size_t i = 0; i < (size_t)w * h; i++) {
        memcpy(x + 4 * i, rgb + 3 * i, 3);
        x[4 * i + 3] = 255;
    }
    fv__chunk_info c4 = chunk(w, h, 4, 8, FV_TIFF_COMPRESSION_WEBP, FV_TIFF_PHOTOMETRIC_RGB);
    check_exact("webp lossless rgb as rgba", &c4, enc, len, x);
    uint8_t *out = NULL;
    fv__chunk_info wrong = chunk(w, h + 1, 3, 8, FV_TIFF_COMPRESSION_WEBP, FV_TIFF_PHOTOMETRIC_RGB);
    CHECK_ERR(decode(&wrong, enc, len, &out), FV_EFORMAT, "webp: image is 128x96, expected 128x97");
    free(out);
    WebPFree(enc);
    free(x);
    len = WebPEncodeLosslessRGBA(rgba, (int)w, (int)h, (int)w * 4, &enc);
    check_exact("webp lossless rgba", &c4, enc, len, rgba);
    WebPFree(enc);
    len = WebPEncodeRGB(rgb, (int)w, (int)h, (int)w * 3, 100, &enc);
    check_close("webp lossy q100", &ci, enc, len, rgb, 1.5);
    bad_input("webp lossy", &ci, enc, len, 0, "webp:");
    WebPFree(enc);
    free(rgb);
    free(rgba);
}

/* ---- threads: decoders are reentrant; per-thread contexts go at thread exit ---------- */

typedef struct tcase {
    fv__chunk_info ci;
    const uint8_t *src;
    size_t len;
    const uint8_t *expect;
} tcase;

static tcase tcases[6];
static int ntcases;
static int thread_fail; /* set only under the mutex */
static pthread_mutex_t thread_mu = PTHREAD_MUTEX_INITIALIZER;

static void *
thread_main(void *arg)
{
    (void)arg;
    int bad = 0;
    for (int it = 0; it < 20; it++)
        for (int i = 0; i < ntcases; i++) {
            uint8_t *out = NULL;
            size_t need = 0;
            fv__chunk_bytes(&tcases[i].ci, &need);
            if (decode(&tcases[i].ci, tcases[i].src, tcases[i].len, &out) || memcmp(out, tcases[i].expect, need))
                bad++;
            free(out);
        }
    pthread_mutex_lock(&thread_mu);
    thread_fail += bad;
    pthread_mutex_unlock(&thread_mu);
    return NULL;
}

static void
test_threads(void)
{
    uint32_t w = 128, h = 128;
    size_t n = (size_t)w * h * 3, len[6];
    uint8_t *px = image8(w, h, 3, 70), *bufs[6], *expect[6];
    bufs[0] = enc_deflate(px, n, &len[0]);
    bufs[1] = enc_zstd(px, n, &len[1]);
    bufs[2] = lzw_encode(px, n, 0, &len[2]);
    bufs[3] = enc_jpeg(px, (int)w, (int)h, JT_JFIF, 90, &len[3]);
    uint8_t *pl[3];
    for (int c = 0; c < 3; c++) {
        pl[c] = malloc((size_t)w * h);
        for (size_t i = 0; i < (size_t)w * h; i++)
            pl[c][i] = px[i * 3 + c];
    }
    const int one[3] = { 1, 1, 1 };
    bufs[4] = enc_j2k((const uint8_t *const *)pl, (int)w, (int)h, one, 0, &len[4]);
    len[5] = WebPEncodeLosslessRGB(px, (int)w, (int)h, (int)w * 3, &bufs[5]);
    int comps[6] = { FV_TIFF_COMPRESSION_DEFLATE,
                     FV_TIFF_COMPRESSION_ZSTD,
                     FV_TIFF_COMPRESSION_LZW,
                     FV_TIFF_COMPRESSION_JPEG,
                     FV_TIFF_COMPRESSION_APERIO_JP2K_RGB,
                     FV_TIFF_COMPRESSION_WEBP };
    ntcases = 6;
    for (int i = 0; i < 6; i++) {
        tcases[i].ci = chunk(w, h, 3, 8, comps[i], i == 3 ? FV_TIFF_PHOTOMETRIC_YCBCR : FV_TIFF_PHOTOMETRIC_RGB);
        tcases[i].src = bufs[i];
        tcases[i].len = len[i];
        expect[i] = NULL;
        CHECK_OK(decode(&tcases[i].ci, bufs[i], len[i], &expect[i])); /* lossy: this thread's result */
        tcases[i].expect = expect[i];
        if (i != 3)
            CHECK(expect[i] && !memcmp(expect[i], px, n));
    }
    pthread_t t[8];
    for (int i = 0; i < 8; i++)
        pthread_create(&t[i], NULL, thread_main, NULL);
    for (int i = 0; i < 8; i++)
        pthread_join(t[i], NULL);
    CHECK(thread_fail == 0);
    printf("  8 threads x 20 x 6 codecs: %d failures\n", thread_fail);
    for (int i = 0; i < 6; i++) {
        free(expect[i]);
        if (i == 5)
            WebPFree(bufs[i]);
        else
            free(bufs[i]); /* jpeg_mem_dest allocates with malloc too */
    }
    for (int c = 0; c < 3; c++)
        free(pl[c]);
    free(px);
}

/* ---- partial JPEG decoding (fv__codec_decode_rect) ------------------------------------ */

/* A JPEG stream with the given chroma sampling (hs x vs for luma, 1x1 for chroma;
 * mode as enc_jpeg), optionally progressive or with restart markers. */
static uint8_t *
enc_jpeg_samp(const uint8_t *px, int w, int h, int mode, int hs, int vs, int progressive, int restart, size_t *len)
{
    struct jpeg_compress_struct c;
    terr e;
    unsigned char *buf = NULL;
    unsigned long n = 0;
    c.err = jpeg_std_error(&e.pub);
    e.pub.error_exit = terr_exit;
    e.pub.output_message = terr_quiet;
    if (setjmp(e.env)) {
        jpeg_destroy_compress(&c);
        free(buf);
        return NULL;
    }
    jpeg_create_compress(&c);
    jpeg_mem_dest(&c, &buf, &n);
    c.image_width = (JDIMENSION)w;
    c.image_height = (JDIMENSION)h;
    c.input_components = mode == JT_GRAY ? 1 : 3;
    c.in_color_space = mode == JT_GRAY ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&c);
    if (mode == JT_APERIO_RGB) {
        jpeg_set_colorspace(&c, JCS_RGB);
        c.write_JFIF_header = FALSE;
        c.write_Adobe_marker = FALSE;
        for (int i = 0; i < 3; i++)
            c.comp_info[i].component_id = i + 1;
    }
    if (mode != JT_GRAY) {
        c.comp_info[0].h_samp_factor = hs;
        c.comp_info[0].v_samp_factor = vs;
        for (int i = 1; i < 3; i++)
            c.comp_info[i].h_samp_factor = c.comp_info[i].v_samp_factor = 1;
    }
    jpeg_set_quality(&c, 90, TRUE);
    if (progressive)
        jpeg_simple_progression(&c);
    c.restart_in_rows = restart;
    jpeg_start_compress(&c, TRUE);
    int comps = c.input_components;
    while (c.next_scanline < c.image_height) {
        JSAMPROW r = (JSAMPROW)(px + (size_t)c.next_scanline * w * comps);
        jpeg_write_scanlines(&c, &r, 1);
    }
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    *len = n;
    return buf;
}

/* nrect random rectangles (and the corners, edges, single pixels and the whole
 * chunk): each decoded rectangle must contain the request, lie inside the chunk,
 * and hold exactly the whole decode's pixels there. Returns the mean fraction of
 * the chunk's pixels decoded; *partial counts rectangles smaller than the chunk. */
static double
rect_cases(const char *what, const fv__chunk_info *ci, const uint8_t *src, size_t n, int nrect, int *partial)
{
    uint8_t *whole = NULL;
    size_t need = 0;
    fv__chunk_bytes(ci, &need);
    CHECK_OK(decode(ci, src, n, &whole));
    uint8_t *s = malloc(n);
    memcpy(s, src, n);
    const uint32_t W = ci->width, H = ci->height, C = ci->samples;
    int bad = 0;
    double area = 0;
    for (int t = 0; t < nrect; t++) {
        uint32_t x0, y0, w, h;
        switch (t) {
        case 0:
            x0 = 0, y0 = 0, w = W, h = H;
            break;
        case 1:
            x0 = 0, y0 = 0, w = 1, h = 1;
            break;
        case 2:
            x0 = W - 1, y0 = H - 1, w = 1, h = 1;
            break;
        case 3:
            x0 = W / 2, y0 = H / 2, w = W - W / 2, h = H - H / 2;
            break;
        case 4:
            x0 = 0, y0 = H / 2, w = W / 2, h = H - H / 2;
            break;
        case 5:
            x0 = W / 2, y0 = 0, w = W - W / 2, h = H / 2;
            break;
        case 6:
            x0 = 17 % W, y0 = 0, w = 1, h = H;
            break;
        case 7:
            x0 = 0, y0 = 31 % H, w = W, h = 1;
            break;
        default:
            x0 = rnd() % W, y0 = rnd() % H;
            w = 1 + rnd() % (W - x0), h = 1 + rnd() % (H - y0);
            if (t % 5 == 1) { /* edges at and next to iMCU boundaries */
                uint32_t a = (rnd() % (W / 8 + 1)) * 8 + rnd() % 3, b = (rnd() % (W / 8 + 1)) * 8 + rnd() % 3;
                a = a ? a - 1 : 0, b = b ? b - 1 : 0;
                if (a > b) {
                    uint32_t tmp = a;
                    a = b, b = tmp;
                }
                x0 = a < W ? a : W - 1;
                w = b > x0 && b <= W ? b - x0 : W - x0;
            }
            if (t % 3 == 0) { /* the corner pieces of a patch straddling tiles */
                if (rnd() & 1)
                    x0 = 0;
                else
                    w = W - x0;
                if (rnd() & 1)
                    y0 = 0;
                else
                    h = H - y0;
            }
        }
        uint8_t *out = malloc(need); /* exact size: ASan catches overruns */
        uint32_t ox = 99999, oy = 99999, ow = 0, oh = 0;
        fv_status st = fv__codec_decode_rect(ci, s, n, x0, y0, w, h, out, need, &ox, &oy, &ow, &oh);
        int ok = st == FV_OK && ox <= x0 && oy <= y0 && ox + ow >= x0 + w && oy + oh >= y0 + h && ox + ow <= W &&
            oy + oh <= H;
        for (uint32_t y = y0; ok && y < y0 + h; y++)
            ok =
                !memcmp(out + ((size_t)(y - oy) * ow + (x0 - ox)) * C, whole + ((size_t)y * W + x0) * C, (size_t)w * C);
        if (!ok && bad++ < 5)
            fprintf(stderr, "  %s: rect (%u,%u)+%ux%u -> %s, got (%u,%u)+%ux%u: %s\n", what, x0, y0, w, h,
                    fv_status_name(st), ox, oy, ow, oh, st ? fv_error_message() : "pixels differ");
        if (st == FV_OK) {
            area += (double)ow * oh / ((double)W * H);
            *partial += (uint64_t)ow * oh < (uint64_t)W * H;
        }
        free(out);
        /* fv__codec_decode_into: exactly the rectangle, rows stride bytes apart (a
         * patch inside a batch); the bytes between rows stay untouched */
        size_t pad = (t & 1) ? (size_t)(rnd() % 3) * C + (rnd() % 2) : 0, row = (size_t)w * C, stride = row + pad;
        size_t into_len = (size_t)(h - 1) * stride + row; /* exact: ASan catches overruns */
        uint8_t *into = malloc(into_len);
        memset(into, 0xA5, into_len);
        st = fv__codec_decode_into(ci, s, n, x0, y0, w, h, into, stride);
        ok = st == FV_OK;
        for (uint32_t y = y0; ok && y < y0 + h; y++) {
            const uint8_t *r = into + (size_t)(y - y0) * stride;
            ok = !memcmp(r, whole + ((size_t)y * W + x0) * C, row);
            for (size_t k = row; ok && y + 1 < y0 + h && k < stride; k++)
                ok = r[k] == 0xA5;
        }
        if (!ok && bad++ < 5)
            fprintf(stderr, "  %s: into rect (%u,%u)+%ux%u stride %zu -> %s: %s\n", what, x0, y0, w, h, stride,
                    fv_status_name(st), st ? fv_error_message() : "pixels differ");
        free(into);
    }
    CHECK(bad == 0);
    free(s);
    free(whole);
    return area / nrect;
}

static void
test_jpeg_rect(void)
{
    static const uint32_t sizes[][2] = { { 240, 240 }, { 256, 256 }, { 512, 512 }, { 256, 240 }, { 75, 50 } };
    struct {
        const char *name;
        int mode, hs, vs, progressive, restart;
    } kinds[] = {
        { "ycbcr 4:2:0", JT_JFIF, 2, 2, 0, 0 },         { "ycbcr 4:4:4", JT_JFIF, 1, 1, 0, 0 },
        { "ycbcr 4:2:2", JT_JFIF, 2, 1, 0, 0 },         { "ycbcr 4:4:0", JT_JFIF, 1, 2, 0, 0 },
        { "aperio rgb", JT_APERIO_RGB, 1, 1, 0, 0 },    { "gray", JT_GRAY, 1, 1, 0, 0 },
        { "ycbcr 4:2:0 restart", JT_JFIF, 2, 2, 0, 1 }, { "ycbcr 4:2:0 progressive", JT_JFIF, 2, 2, 1, 0 },
    };
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        uint32_t W = sizes[si][0], H = sizes[si][1];
        uint8_t *rgb = image8(W, H, 3, 60 + (uint32_t)si), *gray = image8(W, H, 1, 70 + (uint32_t)si);
        for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
            int gr = kinds[k].mode == JT_GRAY;
            size_t len = 0;
            uint8_t *j = enc_jpeg_samp(gr ? gray : rgb, (int)W, (int)H, kinds[k].mode, kinds[k].hs, kinds[k].vs,
                                       kinds[k].progressive, kinds[k].restart, &len);
            CHECK(j != NULL);
            if (!j)
                continue;
            fv__chunk_info ci = chunk(W, H, gr ? 1 : 3, 8, FV_TIFF_COMPRESSION_JPEG,
                                      gr                                   ? FV_TIFF_PHOTOMETRIC_MINISBLACK
                                          : kinds[k].mode == JT_APERIO_RGB ? FV_TIFF_PHOTOMETRIC_RGB
                                                                           : FV_TIFF_PHOTOMETRIC_YCBCR);
            char what[96];
            snprintf(what, sizeof what, "jpeg rect %ux%u %s", W, H, kinds[k].name);
            int partial = 0, nrect = W >= 256 ? 400 : 200;
            double frac = rect_cases(what, &ci, j, len, nrect, &partial);
            printf("  %s: %d rectangles exact, %d decoded partially, mean %.0f%% of the chunk decoded\n", what, nrect,
                   partial, 100 * frac);
            if (kinds[k].progressive)
                CHECK(partial == 0); /* progressive: whole decodes */
            else if (W >= 240)
                CHECK(partial > nrect / 2);
            free(j);
        }
        free(rgb);
        free(gray);
    }

    /* JPEGTables + abbreviated tiles (as TIFF writers store them) */
    uint32_t w = 256, h = 256;
    uint8_t *imgs[2] = { image8(w, h, 3, 80), image8(w, h, 3, 81) };
    uint8_t *tables = NULL, *tiles[2];
    size_t tlen = 0, lens[2];
    enc_jpeg_tables(imgs, 2, (int)w, (int)h, &tables, &tlen, tiles, lens);
    fv__chunk_info ci = chunk(w, h, 3, 8, FV_TIFF_COMPRESSION_JPEG, FV_TIFF_PHOTOMETRIC_YCBCR);
    ci.jpeg_tables = tables;
    ci.jpeg_tables_len = tlen;
    for (int i = 0; i < 2; i++) {
        int partial = 0;
        double frac = rect_cases("jpeg rect tables", &ci, tiles[i], lens[i], 300, &partial);
        printf("  jpeg rect JPEGTables tile %d: 300 rectangles exact, mean %.0f%% decoded\n", i, 100 * frac);
    }

    /* errors: a rectangle outside the chunk, a short buffer, corrupt data */
    size_t need = (size_t)w * h * 3;
    uint8_t *out = malloc(need);
    uint32_t ox, oy, ow, oh;
    CHECK_ERR(fv__codec_decode_rect(&ci, tiles[0], lens[0], 200, 0, 57, 1, out, need, &ox, &oy, &ow, &oh), FV_EINVAL,
              "not inside");
    CHECK_ERR(fv__codec_decode_rect(&ci, tiles[0], lens[0], 0, 0, 0, 1, out, need, &ox, &oy, &ow, &oh), FV_EINVAL,
              "not inside");
    CHECK_ERR(fv__codec_decode_rect(&ci, tiles[0], lens[0], 0, 0, 1, 1, out, need - 1, &ox, &oy, &ow, &oh), FV_EINVAL,
              "output buffer");
    CHECK_ERR(fv__codec_decode_rect(&ci, tiles[0], 0, 0, 0, 1, 1, out, need, &ox, &oy, &ow, &oh), FV_EFORMAT, "jpeg");
    CHECK_ERR(fv__codec_decode_rect(&ci, tiles[0], lens[0] / 3, 0, 200, 8, 8, out, need, &ox, &oy, &ow, &oh),
              FV_EFORMAT, "jpeg:");
    CHECK_ERR(fv__codec_decode_into(&ci, tiles[0], lens[0], 0, 0, 16, 16, out, 47), FV_EINVAL, "stride");
    CHECK_ERR(fv__codec_decode_into(&ci, tiles[0], lens[0], 250, 0, 16, 16, out, 48), FV_EINVAL, "not inside");
    CHECK_ERR(fv__codec_decode_into(&ci, tiles[0], 0, 0, 0, 16, 16, out, 48), FV_EFORMAT, "jpeg");
    CHECK_ERR(fv__codec_decode_into(&ci, tiles[0], lens[0] / 3, 0, 200, 8, 8, out, 24), FV_EFORMAT, "jpeg:");
    CHECK_ERR(fv__codec_decode_into(&ci, tiles[0], lens[0] / 3, 0, 200, 256, 8, out, 768), FV_EFORMAT, "jpeg:");
    int other = 0;
    for (int t = 0; t < 300; t++) { /* corrupt streams: decode or FV_EFORMAT, never crash */
        uint8_t *c = malloc(lens[1]);
        memcpy(c, tiles[1], lens[1]);
        for (int k = 1 + (int)(rnd() % 4); k > 0; k--)
            c[rnd() % lens[1]] ^= (uint8_t)(1 + rnd() % 255);
        uint32_t x0 = rnd() % w, y0 = rnd() % h;
        fv_status st = fv__codec_decode_rect(&ci, c, lens[1], x0, y0, 1 + rnd() % (w - x0), 1 + rnd() % (h - y0), out,
                                             need, &ox, &oy, &ow, &oh);
        other += st != FV_OK && st != FV_EFORMAT;
        free(c);
    }
    CHECK(other == 0);
    for (int i = 0; i < 2; i++) {
        free(tiles[i]);
        free(imgs[i]);
    }
    free(tables);

    /* other codecs: the whole chunk, reported as such */
    uint8_t *px = image8(64, 48, 3, 82);
    size_t dlen = 0;
    uint8_t *z = enc_deflate(px, 64 * 48 * 3, &dlen);
    fv__chunk_info dci = chunk(64, 48, 3, 8, FV_TIFF_COMPRESSION_DEFLATE, FV_TIFF_PHOTOMETRIC_RGB);
    CHECK_OK(fv__codec_decode_rect(&dci, z, dlen, 10, 20, 5, 5, out, 64 * 48 * 3, &ox, &oy, &ow, &oh));
    CHECK(ox == 0 && oy == 0 && ow == 64 && oh == 48 && !memcmp(out, px, 64 * 48 * 3));
    /* ... and into a strided rectangle: decoded whole, the rectangle copied */
    memset(out, 0, 64 * 48 * 3);
    CHECK_OK(fv__codec_decode_into(&dci, z, dlen, 10, 20, 5, 7, out, 100));
    int same = 1;
    for (int y = 0; y < 7; y++)
        same &= !memcmp(out + y * 100, px + ((20 + y) * 64 + 10) * 3, 15);
    CHECK(same);
    CHECK_ERR(fv__codec_decode_into(&dci, z, dlen, 10, 20, 5, 7, out, 14), FV_EINVAL, "stride");
    CHECK_ERR(fv__codec_decode_into(&dci, z, dlen, 60, 20, 5, 7, out, 100), FV_EINVAL, "not inside");
    CHECK_ERR(fv__codec_decode_into(&dci, z, dlen / 2, 10, 20, 5, 7, out, 100), FV_EFORMAT, "");
    CHECK_ERR(fv__codec_decode_into(&dci, z, dlen, 10, 20, 5, 7, NULL, 100), FV_EINVAL, "NULL");
    free(z);
    free(px);
    free(out);
}

int
main(void)
{
    printf("api\n");
    test_api();
    printf("none\n");
    test_none();
    printf("deflate\n");
    test_deflate();
    printf("zstd\n");
    test_zstd();
    printf("lzw\n");
    test_lzw();
    printf("jpeg\n");
    test_jpeg();
    printf("jpeg rect\n");
    test_jpeg_rect();
    printf("jp2k\n");
    test_jp2k();
    printf("webp\n");
    test_webp();
    printf("threads\n");
    test_threads();
    fv__codec_thread_cleanup(); /* this thread's cached contexts (others went at exit) */
    return fv_t_summary("test_codec");
}
