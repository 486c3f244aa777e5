/* Seed corpus for the fuzz targets, generated (never stored in the repository):
 *   make_corpus OUTDIR
 * writes OUTDIR/<target>/<seed> for every target:
 *   tiff_open    small slides of every layout and codec: tiled and stripped,
 *                classic and BigTIFF, both byte orders, 8/16-bit, 1/3/4 samples,
 *                None, LZW (+predictor), JPEG (inline tables and JPEGTables),
 *                Deflate, Adobe Deflate, ZSTD, WebP (lossy, lossless), Aperio
 *                JPEG 2000 (33003 YCbCr 4:2:2, 33005 RGB); Aperio, Philips,
 *                OME-TIFF (SubIFDs) and generic layouts; fv_slide_convert
 *                output; and mutated headers (bad magic, loops, truncations,
 *                huge counts, offsets past the end)
 *   read_region  the same files behind the 12 parameter bytes (two variants)
 *   loader       the same files behind the batch loader's 16 parameter bytes
 *                (three variants: workers, shuffle, drop_last, early stop)
 *   codec        single chunks of every codec behind the 7 header bytes
 *   xml          Philips and OME documents and XML edge cases
 *   description  Aperio / Philips / OME / generic descriptions with flag bytes
 * Every chunk written is decoded back through fv__codec_decode (a generator
 * self-check: lossless codecs must round-trip exactly). Exit status 1 when a
 * check fails. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <openjpeg.h>
#include <webp/encode.h>
#include "fovea/fovea.h"
#include "codec/codec.h"
#include "fuzz_util.h"

static char outdir[1024];
static int nfiles, nfail;

static void
mkdir_p(const char *path)
{
    if (mkdir(path, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "make_corpus: cannot create %s: %s\n", path, strerror(errno));
        exit(1);
    }
}

static void
save(const char *target, const char *name, const void *p, size_t n)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/%s/%s", outdir, target, name);
    FILE *f = fopen(path, "wb");
    if (!f || (n && fwrite(p, 1, n, f) != n) || fclose(f) != 0) {
        fprintf(stderr, "make_corpus: cannot write %s\n", path);
        exit(1);
    }
    nfiles++;
}

/* target/name-k: the k-th of nsets parameter blocks of plen bytes, then the file */
static void
save_behind(const char *target, const char *name, const uint8_t *params, int nsets, size_t plen, const uint8_t *p,
            size_t n)
{
    for (int k = 0; k < nsets; k++) {
        uint8_t *b = malloc(n + plen);
        memcpy(b, params + (size_t)k * plen, plen);
        memcpy(b + plen, p, n);
        char nm[256];
        snprintf(nm, sizeof nm, "%s-%d", name, k);
        save(target, nm, b, n + plen);
        free(b);
    }
}

/* a slide file: for tiff_open, for read_region behind two parameter sets and for
 * loader behind three */
static void
save_slide(const char *name, const uint8_t *p, size_t n)
{
    static const uint8_t params[2][12] = { { 0x00, 16, 16, 0x33, 0x05, 100, 120, 0xff, 0x82, 0, 0,
                                             0x10 }, /* RGB, RGBA level 1, native cached */
                                           { 0x8a, 230, 200, 0xf7, 0x01, 1, 250, 0x0f, 0x06, 128, 128, 0x44 } };
    static const uint8_t lparams[3][16] = {
        { 0x0b, 0x00, 0x20, 0x77, 20, 1, 2, 3, 4, 5, 6, 7, 8 }, /* 4 per batch, 1 worker, all */
        { 0xb2, 0x27, 0xe1, 0xf3, 33, 9, 8, 7, 6, 5, 4, 3, 2 }, /* shuffle, drop_last, RGBA nocache, stop after 2 */
        { 0x5f, 0x08, 0x62, 0x10, 48, 42, 0, 0, 0, 0, 0, 0, 1, 1 }
    }; /* 8 per batch, 3 workers, native, outside,
                                                                          * the handle dropped while loading */
    save("tiff_open", name, p, n);
    save_behind("read_region", name, &params[0][0], 2, 12, p, n);
    save_behind("loader", name, &lparams[0][0], 3, 16, p, n);
}

#define FAIL(...)                                     \
    do {                                              \
        fprintf(stderr, "make_corpus: " __VA_ARGS__); \
        fprintf(stderr, "\n");                        \
        nfail++;                                      \
    } while (0)

/* ---- pixels -------------------------------------------------------------------------------- */

static uint8_t
pat(int64_t x, int64_t y, int c)
{
    return (uint8_t)((x * 7 + y * 13 + c * 85 + ((x ^ y) & 31)) & 255);
}

/* chunk pixels at (x0, y0) of a level with downsample ds: w x h x spp samples of
 * bits; outside the image: 0 */
static uint8_t *
chunk_pixels(int64_t x0, int64_t y0, uint32_t w, uint32_t h, int spp, int bits, int64_t iw, int64_t ih, int ds)
{
    size_t isz = (size_t)bits / 8;
    uint8_t *p = calloc((size_t)w * h * (size_t)spp, isz);
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++)
            for (int c = 0; c < spp; c++) {
                int64_t gx = x0 + x, gy = y0 + y;
                uint8_t v = (gx < iw && gy < ih) ? pat(gx * ds, gy * ds, c) : 0;
                size_t i = ((size_t)y * w + x) * (size_t)spp + (size_t)c;
                if (isz == 2) {
                    uint16_t v16 = (uint16_t)(v * 257u);
                    memcpy(p + 2 * i, &v16, 2);
                } else {
                    p[i] = v;
                }
            }
    return p;
}

/* ---- encoders the library lacks: LZW, WebP, JPEG 2000 ---------------------------------------- */

typedef struct bits_out {
    uint8_t *p;
    size_t n, cap;
    uint32_t acc;
    int nacc;
} bits_out;

static void
bo_put(bits_out *o, unsigned code, int width)
{
    o->acc = (o->acc << width) | code;
    o->nacc += width;
    while (o->nacc >= 8) {
        if (o->n == o->cap) {
            o->cap = o->cap ? 2 * o->cap : 1024;
            o->p = realloc(o->p, o->cap);
        }
        o->p[o->n++] = (uint8_t)(o->acc >> (o->nacc - 8));
        o->nacc -= 8;
    }
}

/* TIFF LZW (MSB-first codes of 9..12 bits, early change), as libtiff writes it */
static uint8_t *
lzw_encode(const uint8_t *in, size_t n, size_t *len)
{
    static int16_t tab[4096][256];
    bits_out o = { 0 };
    int nbits = 9, free_ent = 258, maxcode = 511;
    memset(tab, 0xff, sizeof tab);
    bo_put(&o, 256, nbits);
    if (n) {
        int ent = in[0];
        for (size_t i = 1; i < n; i++) {
            int c = in[i];
            if (tab[ent][c] >= 0) {
                ent = tab[ent][c];
                continue;
            }
            bo_put(&o, (unsigned)ent, nbits);
            tab[ent][c] = (int16_t)free_ent++;
            if (free_ent == 4094) {
                bo_put(&o, 256, nbits);
                memset(tab, 0xff, sizeof tab);
                free_ent = 258;
                nbits = 9;
                maxcode = 511;
            } else if (free_ent > maxcode) {
                nbits++;
                maxcode = (1 << nbits) - 1;
            }
            ent = c;
        }
        bo_put(&o, (unsigned)ent, nbits);
        free_ent++;
        if (free_ent == 4094) {
            bo_put(&o, 256, nbits);
            nbits = 9;
        } else if (free_ent > maxcode) {
            nbits++;
        }
    }
    bo_put(&o, 257, nbits);
    if (o.nacc)
        bo_put(&o, 0, 8 - o.nacc);
    *len = o.n;
    return o.p;
}

typedef struct wbuf {
    uint8_t *p;
    size_t len, cap, pos;
} wbuf;

static OPJ_SIZE_T
w_write(void *src, OPJ_SIZE_T n, void *u)
{
    wbuf *b = u;
    if (b->pos + n > b->cap) {
        b->cap = (b->pos + n) * 2 + 4096;
        b->p = realloc(b->p, b->cap);
    }
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
    b->pos += (size_t)n;
    return n;
}

static OPJ_BOOL
w_seek(OPJ_OFF_T off, void *u)
{
    ((wbuf *)u)->pos = (size_t)off;
    return OPJ_TRUE;
}

static void
opj_quiet(const char *m, void *u)
{
    (void)m;
    (void)u;
}

/* J2K codestream of w x h interleaved 8-bit RGB. ycbcr: components Y, Cb, Cr
 * with chroma subsampled 2x horizontally (Aperio 33003); else RGB (33005). */
static uint8_t *
j2k_encode(const uint8_t *rgb, int w, int h, int ycbcr, size_t *len)
{
    opj_cparameters_t p;
    opj_set_default_encoder_parameters(&p);
    p.tcp_numlayers = 1;
    p.tcp_rates[0] = 0;
    p.cp_disto_alloc = 1;
    p.numresolution = 3;
    p.irreversible = 0;
    int dx[3] = { 1, ycbcr ? 2 : 1, ycbcr ? 2 : 1 };
    p.tcp_mct = ycbcr ? 0 : 1;
    opj_image_cmptparm_t cp[3];
    memset(cp, 0, sizeof cp);
    for (int c = 0; c < 3; c++) {
        cp[c].dx = (OPJ_UINT32)dx[c];
        cp[c].dy = 1;
        cp[c].w = (OPJ_UINT32)((w + dx[c] - 1) / dx[c]);
        cp[c].h = (OPJ_UINT32)h;
        cp[c].prec = 8;
    }
    opj_image_t *im = opj_image_create(3, cp, ycbcr ? OPJ_CLRSPC_SYCC : OPJ_CLRSPC_SRGB);
    if (!im)
        return NULL;
    im->x1 = (OPJ_UINT32)w;
    im->y1 = (OPJ_UINT32)h;
    for (int c = 0; c < 3; c++)
        for (OPJ_UINT32 y = 0; y < cp[c].h; y++)
            for (OPJ_UINT32 x = 0; x < cp[c].w; x++) {
                const uint8_t *q = rgb + ((size_t)y * (size_t)w + x * (size_t)dx[c]) * 3;
                double r = q[0], g = q[1], b = q[2], v;
                if (!ycbcr)
                    v = q[c];
                else if (c == 0)
                    v = 0.299 * r + 0.587 * g + 0.114 * b;
                else if (c == 1)
                    v = 128 - 0.168736 * r - 0.331264 * g + 0.5 * b;
                else
                    v = 128 + 0.5 * r - 0.418688 * g - 0.081312 * b;
                im->comps[c].data[y * cp[c].w + x] = (OPJ_INT32)(v < 0 ? 0 : v > 255 ? 255 : v + 0.5);
            }
    opj_codec_t *codec = opj_create_compress(OPJ_CODEC_J2K);
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

/* horizontal differencing on 8-bit samples (for LZW, which has no library encoder) */
static void
predict8(uint8_t *p, uint32_t w, uint32_t h, int spp)
{
    for (uint32_t y = 0; y < h; y++) {
        uint8_t *r = p + (size_t)y * w * (size_t)spp;
        for (size_t i = (size_t)w * (size_t)spp; i-- > (size_t)spp;)
            r[i] = (uint8_t)(r[i] - r[i - (size_t)spp]);
    }
}

/* One chunk, compressed as ci says; NULL on failure. flags: 1 = WebP lossy. */
static uint8_t *
encode_chunk(const fv__chunk_info *ci, const uint8_t *px, int flags, size_t *len)
{
    uint8_t *out = NULL;
    size_t need = 0;
    fv__chunk_bytes(ci, &need);
    switch (ci->compression) {
    case FV_TIFF_COMPRESSION_LZW: {
        uint8_t *tmp = malloc(need);
        memcpy(tmp, px, need);
        if (ci->predictor == 2)
            predict8(tmp, ci->width, ci->height, ci->samples);
        out = lzw_encode(tmp, need, len);
        free(tmp);
        return out;
    }
    case FV_TIFF_COMPRESSION_WEBP: {
        uint8_t *o = NULL;
        int stride = (int)ci->width * ci->samples;
        size_t n;
        if (ci->samples == 4)
            n = (flags & 1) ? WebPEncodeRGBA(px, (int)ci->width, (int)ci->height, stride, 75, &o)
                            : WebPEncodeLosslessRGBA(px, (int)ci->width, (int)ci->height, stride, &o);
        else
            n = (flags & 1) ? WebPEncodeRGB(px, (int)ci->width, (int)ci->height, stride, 75, &o)
                            : WebPEncodeLosslessRGB(px, (int)ci->width, (int)ci->height, stride, &o);
        if (!n)
            return NULL;
        out = malloc(n);
        memcpy(out, o, n);
        WebPFree(o);
        *len = n;
        return out;
    }
    case FV_TIFF_COMPRESSION_APERIO_JP2K_YCBCR:
    case FV_TIFF_COMPRESSION_APERIO_JP2K_RGB:
        return j2k_encode(px, (int)ci->width, (int)ci->height, ci->compression == FV_TIFF_COMPRESSION_APERIO_JP2K_YCBCR,
                          len);
    default: {
        int level = ci->compression == FV_TIFF_COMPRESSION_JPEG ? 80
            : ci->compression == FV_TIFF_COMPRESSION_NONE       ? 0
                                                                : 3;
        if (fv__codec_encode(ci, level, px, &out, len) != FV_OK) {
            FAIL("encode %s: %s", fv__codec_name(ci->compression), fv_error_message());
            return NULL;
        }
        return out;
    }
    }
}

static int
lossless(uint16_t c)
{
    return c == FV_TIFF_COMPRESSION_NONE || c == FV_TIFF_COMPRESSION_LZW || c == FV_TIFF_COMPRESSION_DEFLATE ||
        c == FV_TIFF_COMPRESSION_ADOBE_DEFLATE || c == FV_TIFF_COMPRESSION_ZSTD;
}

/* decode a chunk back (the self-check) */
static void
check_chunk(const char *what, const fv__chunk_info *ci, const uint8_t *enc, size_t n, const uint8_t *px, int exact)
{
    size_t need = 0;
    if (fv__chunk_bytes(ci, &need) != FV_OK) {
        FAIL("%s: %s", what, fv_error_message());
        return;
    }
    uint8_t *out = malloc(need);
    if (fv__codec_decode(ci, enc, n, out, need) != FV_OK)
        FAIL("%s: %s chunk does not decode: %s", what, fv__codec_name(ci->compression), fv_error_message());
    else if (exact && memcmp(out, px, need))
        FAIL("%s: %s chunk does not round-trip", what, fv__codec_name(ci->compression));
    free(out);
}

/* ---- slides ------------------------------------------------------------------------------------ */

typedef struct slide_spec {
    const char *name;
    int big, be;
    uint32_t width, height;
    uint32_t tile; /* 0: stripped */
    uint32_t rps;  /* rows per strip when stripped */
    int samples, bits;
    uint16_t compression, photometric, predictor;
    int webp_lossy;
    int jpeg_tables; /* JPEGTables tag; tiles without their DQT segments */
    int nlevels;
    int subifds;            /* levels 1.. as SubIFDs of directory 0 (OME) */
    int reduced_bit;        /* NewSubfileType 1 on levels 1.. */
    const char *desc0;      /* ImageDescription of directory 0 */
    const char *level_desc; /* of the other levels */
    const char *software;
    int assoc;       /* Aperio-style stripped thumbnail, label, macro directories */
    int philips_pad; /* levels padded to whole tiles (Philips) */
} slide_spec;

/* the JPEG stream without its DQT segments; *tables = SOI + DQT + DHT + EOI of it */
static uint8_t *
jpeg_split(const uint8_t *s, size_t n, size_t *out_n, uint8_t **tables, size_t *tlen)
{
    uint8_t *o = malloc(n), *t = tables ? malloc(n + 4) : NULL;
    size_t on = 0, tn = 0;
    if (t) {
        t[tn++] = 0xFF;
        t[tn++] = 0xD8;
    }
    size_t i = 0;
    while (i + 4 <= n && s[i] == 0xFF) {
        uint8_t m = s[i + 1];
        if (m == 0xD8) {
            o[on++] = 0xFF, o[on++] = 0xD8;
            i += 2;
            continue;
        }
        if (m == 0xDA)
            break; /* scan: copy the rest */
        size_t seg = 2 + ((size_t)s[i + 2] << 8 | s[i + 3]);
        if (i + seg > n)
            break;
        if (t && (m == 0xDB || m == 0xC4)) {
            memcpy(t + tn, s + i, seg);
            tn += seg;
        }
        if (m != 0xDB) {
            memcpy(o + on, s + i, seg);
            on += seg;
        }
        i += seg;
    }
    memcpy(o + on, s + i, n - i);
    on += n - i;
    if (t) {
        t[tn++] = 0xFF;
        t[tn++] = 0xD9;
        *tables = t;
        *tlen = tn;
    }
    *out_n = on;
    return o;
}

/* Encode one level into the file; fills d with its tags. */
static void
write_level(tfw *w, tfw_ifd *d, const slide_spec *sp, uint64_t lw, uint64_t lh, int ds, uint32_t tile, uint32_t rps,
            int samples, uint16_t compression, uint16_t photometric)
{
    uint64_t n = tfw_nchunks(lw, lh, tile, tile, rps);
    uint64_t *offs = malloc(n * 8), *cnts = malloc(n * 8);
    uint64_t across = tile ? (lw + tile - 1) / tile : 1;
    uint8_t *tables = NULL;
    size_t tlen = 0;
    for (uint64_t k = 0; k < n; k++) {
        fv__chunk_info ci;
        memset(&ci, 0, sizeof ci);
        int64_t x0 = tile ? (int64_t)((k % across) * tile) : 0,
                y0 = tile ? (int64_t)((k / across) * tile) : (int64_t)(k * rps);
        ci.width = tile ? tile : (uint32_t)lw;
        ci.height = tile ? tile : (uint32_t)(lh - (uint64_t)y0 < rps ? lh - (uint64_t)y0 : rps);
        ci.samples = (uint16_t)samples;
        ci.bits = (uint16_t)sp->bits;
        ci.sample_format = 1;
        ci.compression = compression;
        ci.photometric = photometric;
        ci.predictor = sp->predictor ? sp->predictor : 1;
        ci.file_big_endian = sp->be;
        uint8_t *px = chunk_pixels(x0, y0, ci.width, ci.height, samples, sp->bits, (int64_t)lw, (int64_t)lh, ds);
        size_t len = 0;
        uint8_t *enc = encode_chunk(&ci, px, sp->webp_lossy, &len);
        if (!enc) {
            FAIL("%s: cannot encode a chunk", sp->name);
            enc = calloc(1, 8);
            len = 8;
        }
        if (compression == FV_TIFF_COMPRESSION_JPEG && sp->jpeg_tables) {
            size_t nn;
            uint8_t *split = jpeg_split(enc, len, &nn, k == 0 ? &tables : NULL, &tlen);
            free(enc);
            enc = split;
            len = nn;
        }
        if (tables) {
            ci.jpeg_tables = tables;
            ci.jpeg_tables_len = tlen;
        }
        check_chunk(sp->name, &ci, enc, len, px, lossless(compression));
        offs[k] = tfw_append(w, enc, len);
        cnts[k] = len;
        free(enc);
        free(px);
    }
    tfw_image_tags(w, d, lw, lh, tile, tile, rps, samples, sp->bits, compression, photometric, n, offs, cnts);
    if (sp->predictor > 1)
        tfw_int(w, d, 317, TFW_SHORT, sp->predictor);
    if (tables)
        tfw_raw(d, 347, TFW_UNDEF, tlen, tables, tlen);
    free(tables);
    free(offs);
    free(cnts);
}

static void
build_slide(const slide_spec *sp, tfw *w)
{
    tfw_init(w, sp->big, sp->be);
    tfw_ifd d[12];
    memset(d, 0, sizeof d);
    int nd = 0;
    uint64_t W = sp->width, H = sp->height;
    for (int l = 0; l < sp->nlevels; l++) {
        uint64_t lw = W >> l, lh = H >> l;
        if (sp->philips_pad && l) { /* Philips pads every level to whole tiles */
            lw = (lw + sp->tile - 1) / sp->tile * sp->tile;
            lh = (lh + sp->tile - 1) / sp->tile * sp->tile;
        }
        write_level(w, &d[nd], sp, lw ? lw : 1, lh ? lh : 1, 1 << l, sp->tile, sp->rps ? sp->rps : 16, sp->samples,
                    sp->compression, sp->photometric);
        if (l == 0 && sp->desc0)
            tfw_text(&d[nd], 270, sp->desc0, strlen(sp->desc0));
        if (l > 0 && sp->level_desc)
            tfw_text(&d[nd], 270, sp->level_desc, strlen(sp->level_desc));
        if (l > 0 && sp->reduced_bit)
            tfw_int(w, &d[nd], 254, TFW_LONG, 1);
        if (sp->software)
            tfw_text(&d[nd], 305, sp->software, strlen(sp->software));
        if (l == 0) {
            uint64_t res[2] = { 40000, 1 };
            tfw_ints(w, &d[nd], 282, TFW_RATIONAL, 1, res);
            tfw_ints(w, &d[nd], 283, TFW_RATIONAL, 1, res);
            tfw_int(w, &d[nd], 296, TFW_SHORT, 3);
        }
        nd++;
    }
    int nlev = nd;
    if (sp->assoc) {
        static const char *descs[3] = { "Aperio Image Library v12.0.5\r\n80x64 -> 40x32 - |AppMag = 20",
                                        "Aperio Image Library v12.0.5\nlabel 24x16",
                                        "Aperio Image Library v12.0.5\r\nmacro 40x16" };
        static const uint32_t dims[3][2] = { { 40, 32 }, { 24, 16 }, { 40, 16 } };
        for (int a = 0; a < 3; a++) {
            slide_spec s2 = *sp;
            s2.bits = 8;
            s2.predictor = 1;
            uint16_t comp = a == 2 ? FV_TIFF_COMPRESSION_JPEG : FV_TIFF_COMPRESSION_LZW;
            write_level(w, &d[nd], &s2, dims[a][0], dims[a][1], 2, 0, 8, 3, comp,
                        comp == FV_TIFF_COMPRESSION_JPEG ? FV_TIFF_PHOTOMETRIC_YCBCR : FV_TIFF_PHOTOMETRIC_RGB);
            tfw_text(&d[nd], 270, descs[a], strlen(descs[a]));
            nd++;
        }
    }
    /* directories: SubIFD levels first when asked, then the main chain */
    uint64_t off[12];
    if (sp->subifds && nlev > 1) {
        uint64_t kids[12];
        for (int i = 1; i < nlev; i++)
            kids[i - 1] = off[i] = tfw_write_ifd(w, &d[i]);
        tfw_ints(w, &d[0], 330, w->big ? TFW_IFD8 : TFW_IFD, (uint64_t)(nlev - 1), kids);
    }
    const tfw_ifd *prev = NULL;
    for (int i = 0; i < nd; i++) {
        if (sp->subifds && i >= 1 && i < nlev)
            continue;
        off[i] = tfw_write_ifd(w, &d[i]);
        if (prev)
            tfw_link(w, prev, off[i]);
        else
            tfw_first(w, off[i]);
        prev = &d[i];
    }
    for (int i = 0; i < nd; i++)
        tfw_ifd_free(&d[i]);
}

/* build, open and read the slide back through the public API (self-check) */
static void
slide_seed(const slide_spec *sp, tfw *keep)
{
    tfw w;
    build_slide(sp, &w);
    fv_slide *s = NULL;
    const char *path = fz_file(w.buf, w.len);
    if (fv_slide_open(path, &s) != FV_OK) {
        FAIL("%s: does not open: %s", sp->name, fv_error_message());
    } else {
        int64_t shape[3];
        fv_dtype dt;
        fv_array *out = NULL;
        fv_device cpu = { FV_DEVICE_CPU, 0 };
        fv_read_options o = { FV_PIXEL_RGBA, 1, 1 };
        for (int l = 0; l < fv_slide_level_count(s); l++) {
            fv_level_info li;
            fv_slide_level_info(s, l, &li);
            if (fv_slide_region_shape(s, li.width, li.height, FV_PIXEL_RGBA, shape, &dt) == FV_OK &&
                fv_array_new(NULL, dt, 3, shape, cpu, &out) == FV_OK) {
                if (fv_slide_read_region(s, NULL, 0, 0, l, li.width, li.height, &o, out) != FV_OK)
                    FAIL("%s: level %d does not read: %s", sp->name, l, fv_error_message());
                fv_array_unref(out);
                out = NULL;
            }
        }
        fv_slide_unref(s);
    }
    save_slide(sp->name, w.buf, w.len);
    if (keep)
        *keep = w;
    else
        tfw_free(&w);
}

/* ---- vendor metadata ------------------------------------------------------------------------------ */

static const char aperio_desc[] =
    "Aperio Image Library v12.0.5\r\n80x64 [0,0 80x64] (32x32) JPEG/RGB Q=80|AppMag = 20|StripeWidth = 992|"
    "ScanScope ID = SS1234|Filename = fuzz|Date = 12/29/09|Time = 09:59:15|User = u|MPP = 0.4990|Left = 25.69|"
    "Top = 23.44|LineCameraSkew = -0.0004|LineAreaXOffset = 0.019|Focus Offset = 0.0000|junk without equals|= x";

static const char b64chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static char *
b64(const uint8_t *p, size_t n)
{
    char *s = malloc(n / 3 * 4 + 8), *o = s;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
        *o++ = b64chars[v >> 18 & 63];
        *o++ = b64chars[v >> 12 & 63];
        *o++ = i + 1 < n ? b64chars[v >> 6 & 63] : '=';
        *o++ = i + 2 < n ? b64chars[v & 63] : '=';
    }
    *o = '\0';
    return s;
}

/* a real JPEG of w x h for the Philips macro/label, base64 */
static char *
jpeg_b64(uint32_t w, uint32_t h)
{
    fv__chunk_info ci = { .width = w,
                          .height = h,
                          .samples = 3,
                          .bits = 8,
                          .sample_format = 1,
                          .compression = FV_TIFF_COMPRESSION_JPEG,
                          .photometric = FV_TIFF_PHOTOMETRIC_YCBCR,
                          .predictor = 1 };
    uint8_t *px = chunk_pixels(0, 0, w, h, 3, 8, w, h, 1), *enc = NULL;
    size_t len = 0;
    if (fv__codec_encode(&ci, 70, px, &enc, &len) != FV_OK)
        FAIL("philips jpeg: %s", fv_error_message());
    char *s = b64(enc, len);
    free(enc);
    free(px);
    return s;
}

/* DPUfsImport XML with nlev pixel spacings (downsample 2 per level) */
static char *
philips_xml(int nlev)
{
    char *mac = jpeg_b64(48, 16), *lab = jpeg_b64(16, 16);
    size_t cap = 1 << 16;
    char *x = malloc(cap);
    int n =
        snprintf(x, cap,
                 "<?xml version=\"1.0\" encoding=\"UTF-8\" ?>\n<!-- fuzz seed -->\n"
                 "<DataObject ObjectType=\"DPUfsImport\">\n"
                 "<Attribute Name=\"DICOM_MANUFACTURER\" Group=\"0x0008\" Element=\"0x0070\" PMSVR=\"IString\">"
                 "PHILIPS &amp; co</Attribute>\n"
                 "<Attribute Name=\"PIM_DP_UFS_BARCODE\" PMSVR=\"IString\">MzMxMTk0MA==</Attribute>\n"
                 "<Attribute Name=\"PIM_DP_SCANNED_IMAGES\" PMSVR=\"IDataObjectArray\"><Array>\n"
                 "<DataObject ObjectType=\"DPScannedImage\">\n"
                 "<Attribute Name=\"DICOM_PIXEL_SPACING\" PMSVR=\"IDoubleArray\">&quot;0.000226891&quot; "
                 "&quot;0.000226907&quot;</Attribute>\n"
                 "<Attribute Name=\"PIM_DP_IMAGE_TYPE\" PMSVR=\"IString\">WSI</Attribute>\n"
                 "<Attribute Name=\"PIIM_PIXEL_DATA_REPRESENTATION_SEQUENCE\" PMSVR=\"IDataObjectArray\"><Array>\n");
    for (int i = 0; i < nlev; i++) {
        double sp = 0.00025 * (1 << i);
        n += snprintf(x + n, cap - (size_t)n,
                      "<DataObject ObjectType=\"PixelDataRepresentation\">"
                      "<Attribute Name=\"DICOM_PIXEL_SPACING\" PMSVR=\"IDoubleArray\">&quot;%g&quot; &quot;%g&quot;"
                      "</Attribute><Attribute Name=\"PIIM_PIXEL_DATA_REPRESENTATION_NUMBER\" PMSVR=\"IUInt16\">%d"
                      "</Attribute></DataObject>\n",
                      sp, sp, i);
    }
    n += snprintf(x + n, cap - (size_t)n,
                  "</Array></Attribute></DataObject>\n"
                  "<DataObject ObjectType=\"DPScannedImage\">"
                  "<Attribute Name=\"PIM_DP_IMAGE_DATA\" PMSVR=\"IString\">%s</Attribute>"
                  "<Attribute Name=\"PIM_DP_IMAGE_TYPE\" PMSVR=\"IString\">MACROIMAGE</Attribute></DataObject>\n"
                  "<DataObject ObjectType=\"DPScannedImage\">"
                  "<Attribute Name=\"PIM_DP_IMAGE_DATA\" PMSVR=\"IString\"><![CDATA[%s]]></Attribute>"
                  "<Attribute Name=\"PIM_DP_IMAGE_TYPE\" PMSVR=\"IString\">LABELIMAGE</Attribute></DataObject>\n"
                  "</Array></Attribute>\n</DataObject>\n",
                  mac, lab);
    free(mac);
    free(lab);
    return x;
}

static char *
ome_xml(uint32_t w, uint32_t h, int samples)
{
    char *x = malloc(4096);
    snprintf(x, 4096,
             "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
             "<OME xmlns=\"http://www.openmicroscopy.org/Schemas/OME/2016-06\" "
             "xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" UUID=\"urn:uuid:1234\">"
             "<Instrument ID=\"Instrument:0\"><Objective ID=\"Objective:0\" NominalMagnification=\"40.0\"/>"
             "</Instrument><Image ID=\"Image:0\" Name=\"fuzz &lt;1&gt;\"><ObjectiveSettings ID=\"Objective:0\"/>"
             "<Pixels BigEndian=\"false\" DimensionOrder=\"XYCZT\" ID=\"Pixels:0\" PhysicalSizeX=\"250\" "
             "PhysicalSizeXUnit=\"nm\" PhysicalSizeY=\"0.25\" PhysicalSizeYUnit=\"\xC2\xB5m\" SizeC=\"%d\" "
             "SizeT=\"1\" SizeX=\"%u\" SizeY=\"%u\" SizeZ=\"1\" Type=\"uint8\" Interleaved=\"true\">"
             "<Channel ID=\"Channel:0:0\" SamplesPerPixel=\"%d\"><LightPath/></Channel>"
             "<TiffData IFD=\"0\" PlaneCount=\"1\"/></Pixels></Image></OME>",
             samples, w, h, samples);
    return x;
}

/* ---- the seed sets -------------------------------------------------------------------------------- */

static void
slides(void)
{
    tfw base;
    /* generic layouts: every codec, tiled and stripped, both offset sizes and byte orders */
    const slide_spec specs[] = {
        { "generic-none-tiled-le", 0, 0, 80, 64, 32, 0, 3, 8, FV_TIFF_COMPRESSION_NONE, 2, 1, 0, 0, 3 },
        { "generic-none-stripped-be", 0, 1, 80, 64, 0, 24, 3, 8, FV_TIFF_COMPRESSION_NONE, 2, 1, 0, 0, 2 },
        { "generic-lzw-tiled-big-be", 1, 1, 80, 64, 32, 0, 3, 8, FV_TIFF_COMPRESSION_LZW, 2, 1, 0, 0, 2 },
        { "generic-lzw-pred-stripped", 0, 0, 80, 64, 0, 16, 3, 8, FV_TIFF_COMPRESSION_LZW, 2, 2, 0, 0, 1 },
        { "generic-lzw-gray", 0, 0, 48, 48, 16, 0, 1, 8, FV_TIFF_COMPRESSION_LZW, 1, 1, 0, 0, 2 },
        { "generic-jpeg-tiled", 0, 0, 80, 64, 32, 0, 3, 8, FV_TIFF_COMPRESSION_JPEG, 6, 1, 0, 0, 3 },
        { "generic-jpeg-tables-big-be", 1, 1, 80, 64, 32, 0, 3, 8, FV_TIFF_COMPRESSION_JPEG, 6, 1, 0, 1, 2 },
        { "generic-jpeg-gray-stripped", 0, 0, 64, 48, 0, 16, 1, 8, FV_TIFF_COMPRESSION_JPEG, 1, 1, 0, 0, 1 },
        { "generic-deflate-tiled", 0, 0, 80, 64, 32, 0, 3, 8, FV_TIFF_COMPRESSION_DEFLATE, 2, 2, 0, 0, 2 },
        { "generic-adobe-deflate-rgba-be", 0, 1, 48, 48, 16, 0, 4, 8, FV_TIFF_COMPRESSION_ADOBE_DEFLATE, 2, 1, 0, 0,
          2 },
        { "generic-deflate-16bit-be", 0, 1, 48, 32, 16, 0, 3, 16, FV_TIFF_COMPRESSION_ADOBE_DEFLATE, 2, 2, 0, 0, 2 },
        { "generic-zstd-tiled-big", 1, 0, 80, 64, 32, 0, 3, 8, FV_TIFF_COMPRESSION_ZSTD, 2, 1, 0, 0, 2 },
        { "generic-zstd-16bit-gray-stripped", 0, 0, 40, 40, 0, 8, 1, 16, FV_TIFF_COMPRESSION_ZSTD, 1, 2, 0, 0, 1 },
        { "generic-webp-lossless", 0, 0, 64, 64, 32, 0, 3, 8, FV_TIFF_COMPRESSION_WEBP, 2, 1, 0, 0, 2 },
        { "generic-webp-lossy-rgba", 0, 0, 64, 64, 32, 0, 4, 8, FV_TIFF_COMPRESSION_WEBP, 2, 1, 1, 0, 2 },
        { "generic-jp2k-rgb", 0, 0, 64, 48, 32, 0, 3, 8, FV_TIFF_COMPRESSION_APERIO_JP2K_RGB, 2, 1, 0, 0, 2 },
        { "generic-jp2k-ycbcr", 0, 1, 64, 48, 32, 0, 3, 8, FV_TIFF_COMPRESSION_APERIO_JP2K_YCBCR, 6, 1, 0, 0, 1 },
    };
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++)
        slide_seed(&specs[i], NULL);
    /* the base of the mutations and of fv_slide_convert: small, classic, little-endian */
    const slide_spec small = { "generic-deflate-small",     0, 0, 48, 32, 16, 0, 3, 8,
                               FV_TIFF_COMPRESSION_DEFLATE, 2, 1, 0,  0,  2 };
    slide_seed(&small, &base);

    /* vendors */
    slide_spec ap = { "aperio-jpeg", 0, 0, 80, 64, 32, 0, 3, 8, FV_TIFF_COMPRESSION_JPEG, 6, 1, 0, 1, 2 };
    ap.desc0 = aperio_desc;
    ap.level_desc = "Aperio Image Library v12.0.5\r\n80x64 -> 40x32 - |AppMag = 20|MPP = 0.998";
    ap.assoc = 1;
    slide_seed(&ap, NULL);
    slide_spec apj = { "aperio-jp2k", 0, 0, 64, 64, 32, 0, 3, 8, FV_TIFF_COMPRESSION_APERIO_JP2K_YCBCR, 6, 1, 0, 0, 2 };
    apj.desc0 = "Aperio Image Library v11.2.1\r\n64x64 [0,0 64x64] (32x32) J2K/YUV16 Q=70|AppMag = 40|MPP = 0.25";
    apj.assoc = 1;
    slide_seed(&apj, NULL);

    char *px = philips_xml(3);
    slide_spec ph = { "philips", 1, 0, 96, 64, 32, 0, 3, 8, FV_TIFF_COMPRESSION_JPEG, 6, 1, 0, 1, 3 };
    ph.desc0 = px;
    ph.level_desc = "level=1 mag=20 quality=80";
    ph.software = "Philips DP v1.0";
    ph.reduced_bit = 1;
    ph.philips_pad = 1;
    slide_seed(&ph, NULL);
    free(px);

    char *ox = ome_xml(80, 64, 3);
    slide_spec om = { "ome-subifds", 0, 1, 80, 64, 32, 0, 3, 8, FV_TIFF_COMPRESSION_DEFLATE, 2, 1, 0, 0, 3 };
    om.desc0 = ox;
    om.subifds = 1;
    om.reduced_bit = 1;
    slide_seed(&om, NULL);
    slide_spec om2 = { "ome-chain-zstd-big", 1, 0, 80, 64, 0, 16, 3, 8, FV_TIFF_COMPRESSION_ZSTD, 2, 1, 0, 0, 2 };
    om2.desc0 = ox;
    slide_seed(&om2, NULL);
    free(ox);

    /* fv_slide_convert output (the library's own writer) from the first seed */
    static const struct {
        const char *name;
        fv_compression c;
        int classic;
    } conv[] = { { "convert-jpeg-bigtiff", FV_COMPRESS_JPEG, 0 },
                 { "convert-deflate-classic", FV_COMPRESS_DEFLATE, 1 },
                 { "convert-zstd-classic", FV_COMPRESS_ZSTD, 1 },
                 { "convert-none-bigtiff", FV_COMPRESS_NONE, 0 } };
    char src[2048], dst[2048];
    snprintf(src, sizeof src, "%s/.convert-src.tif", outdir);
    snprintf(dst, sizeof dst, "%s/.convert-dst.tif", outdir);
    FILE *f = fopen(src, "wb");
    fwrite(base.buf, 1, base.len, f);
    fclose(f);
    for (size_t i = 0; i < sizeof conv / sizeof conv[0]; i++) {
        fv_convert_options o = { 16, conv[i].c, 0, 1, conv[i].classic, NULL, NULL };
        if (fv_slide_convert(src, dst, &o) != FV_OK) {
            FAIL("convert %s: %s", conv[i].name, fv_error_message());
            continue;
        }
        FILE *g = fopen(dst, "rb");
        fseek(g, 0, SEEK_END);
        long n = ftell(g);
        fseek(g, 0, SEEK_SET);
        uint8_t *b = malloc((size_t)n);
        if (fread(b, 1, (size_t)n, g) != (size_t)n)
            FAIL("convert %s: short read", conv[i].name);
        fclose(g);
        save_slide(conv[i].name, b, (size_t)n);
        free(b);
    }
    remove(src);
    remove(dst);

    /* mutated headers and directories of the first seed (classic, little-endian) */
    const uint8_t *b = base.buf;
    size_t n = base.len;
    uint8_t *m = malloc(n + 64);
    uint32_t ifd0 = (uint32_t)b[4] | (uint32_t)b[5] << 8 | (uint32_t)b[6] << 16 | (uint32_t)b[7] << 24;
    uint16_t nent = (uint16_t)(b[ifd0] | b[ifd0 + 1] << 8);
#define MUT(name, code)          \
    do {                         \
        memcpy(m, b, n);         \
        size_t mn = n;           \
        code;                    \
        save_slide(name, m, mn); \
    } while (0)
    MUT("mut-bad-magic", m[0] = 'X');
    MUT("mut-mixed-order", m[1] = 'M');
    MUT("mut-bigtiff-version", m[2] = 43);
    MUT("mut-first-ifd-zero", memset(m + 4, 0, 4));
    MUT("mut-first-ifd-past-end", memset(m + 4, 0xff, 4));
    MUT("mut-first-ifd-odd", m[4] ^= 1);
    MUT("mut-header-only", mn = 8);
    MUT("mut-truncated-half", mn = n / 2);
    MUT("mut-truncated-ifd", mn = ifd0 + 20);
    MUT("mut-entry-count-huge", m[ifd0] = 0xff; m[ifd0 + 1] = 0xff);
    MUT("mut-entry-count-zero", m[ifd0] = 0; m[ifd0 + 1] = 0);
    MUT("mut-next-loops", {
        uint32_t np = ifd0 + 2 + 12u * nent;
        memcpy(m + np, b + 4, 4); /* directory 0's next pointer -> directory 0 */
    });
    for (int e = 0; e < nent; e++) {
        uint8_t *ent = m + ifd0 + 2 + 12 * e;
        char name[64];
        /* each entry: type, count, value corrupted in turn */
        snprintf(name, sizeof name, "mut-entry%02d-type", e);
        MUT(name, ent = m + ifd0 + 2 + 12 * e; ent[2] = 2);
        snprintf(name, sizeof name, "mut-entry%02d-count", e);
        MUT(name, ent = m + ifd0 + 2 + 12 * e; ent[7] = 0x40);
        snprintf(name, sizeof name, "mut-entry%02d-value", e);
        MUT(name, ent = m + ifd0 + 2 + 12 * e; ent[8] ^= 0x5a; ent[10] = 0x7f);
    }
#undef MUT
    free(m);
    tfw_free(&base);
}

/* codec seeds: header (fuzz_codec.c) + stream */
static void
codecs(void)
{
    static const uint16_t codes[] = { 1, 5, 7, 8, 32946, 33003, 33005, 50000, 50001 };
    static const struct {
        uint16_t comp;
        uint32_t w, h;
        int spp, bits, pred, be, tables, lossy;
    } cs[] = {
        { 1, 16, 16, 3, 8, 1, 0, 0, 0 },      { 1, 8, 8, 1, 16, 1, 1, 0, 0 },      { 5, 32, 32, 3, 8, 1, 0, 0, 0 },
        { 5, 32, 16, 3, 8, 2, 0, 0, 0 },      { 5, 64, 64, 1, 8, 1, 0, 0, 0 },     { 7, 32, 32, 3, 8, 1, 0, 0, 0 },
        { 7, 32, 32, 3, 8, 1, 0, 1, 0 },      { 7, 16, 16, 1, 8, 1, 0, 0, 0 },     { 7, 24, 40, 3, 8, 1, 0, 1, 0 },
        { 8, 32, 32, 3, 8, 1, 0, 0, 0 },      { 8, 32, 32, 4, 8, 2, 0, 0, 0 },     { 32946, 16, 16, 3, 16, 2, 1, 0, 0 },
        { 32946, 16, 16, 2, 16, 1, 0, 0, 0 }, { 33003, 32, 32, 3, 8, 1, 0, 0, 0 }, { 33005, 32, 32, 3, 8, 1, 0, 0, 0 },
        { 33005, 17, 9, 3, 8, 1, 0, 0, 0 },   { 50000, 32, 32, 3, 8, 1, 0, 0, 0 }, { 50000, 16, 16, 1, 16, 2, 1, 0, 0 },
        { 50001, 32, 32, 3, 8, 1, 0, 0, 0 },  { 50001, 32, 32, 4, 8, 1, 0, 0, 1 }, { 50001, 31, 17, 3, 8, 1, 0, 0, 1 },
    };
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
        fv__chunk_info ci;
        memset(&ci, 0, sizeof ci);
        ci.width = cs[i].w;
        ci.height = cs[i].h;
        ci.samples = (uint16_t)cs[i].spp;
        ci.bits = (uint16_t)cs[i].bits;
        ci.sample_format = 1;
        ci.compression = cs[i].comp;
        int ycc = (cs[i].comp == 7 && cs[i].spp == 3) || cs[i].comp == 33003;
        ci.photometric = ycc ? 6 : cs[i].spp >= 3 ? 2 : 1;
        ci.predictor = (uint16_t)cs[i].pred;
        ci.file_big_endian = cs[i].be;
        uint8_t *px = chunk_pixels(0, 0, ci.width, ci.height, ci.samples, ci.bits, ci.width, ci.height, 1);
        size_t len = 0, tlen = 0;
        uint8_t *enc = encode_chunk(&ci, px, cs[i].lossy, &len), *tables = NULL;
        if (!enc) {
            FAIL("codec seed %zu: cannot encode", i);
            free(px);
            continue;
        }
        if (cs[i].tables) {
            size_t nn;
            uint8_t *split = jpeg_split(enc, len, &nn, &tables, &tlen);
            free(enc);
            enc = split;
            len = nn;
            ci.jpeg_tables = tables;
            ci.jpeg_tables_len = tlen;
        }
        check_chunk("codec seed", &ci, enc, len, px, lossless(ci.compression));
        size_t ci_idx = 0;
        for (size_t k = 0; k < sizeof codes / sizeof codes[0]; k++)
            if (codes[k] == ci.compression)
                ci_idx = k;
        uint8_t *s = malloc(7 + tlen + len);
        s[0] = (uint8_t)ci_idx;
        s[1] = (uint8_t)(ci.width - 1);
        s[2] = (uint8_t)(ci.height - 1);
        s[3] = (uint8_t)((ci.samples - 1) | (ci.bits == 16 ? 0x10 : 0) | ((ci.predictor - 1) << 5));
        s[4] = (uint8_t)((ci.photometric == 1 ? 0 : ci.photometric == 2 ? 1 : 2) | (ci.file_big_endian << 2));
        s[5] = (uint8_t)(tlen & 255);
        s[6] = (uint8_t)(tlen >> 8);
        if (tlen)
            memcpy(s + 7, tables, tlen);
        memcpy(s + 7 + tlen, enc, len);
        char name[64];
        snprintf(name, sizeof name, "%s-%ux%u-s%d-b%d-p%d%s", fv__codec_name(ci.compression), ci.width, ci.height,
                 ci.samples, ci.bits, ci.predictor, cs[i].tables ? "-tables" : "");
        for (char *c = name; *c; c++)
            if (*c == ' ')
                *c = '_';
        save("codec", name, s, 7 + tlen + len);
        free(s);
        free(enc);
        free(tables);
        free(px);
    }
}

static void
xml_and_descriptions(void)
{
    char *ph = philips_xml(4), *om = ome_xml(1024, 768, 3);
    save("xml", "philips", ph, strlen(ph));
    save("xml", "ome", om, strlen(om));
    static const char *docs[] = {
        "<a/>",
        "\xEF\xBB\xBF<?xml version=\"1.0\"?><!DOCTYPE r [<!ENTITY e \"x\"><!ELEMENT r ANY>]><r>&e;&amp;&lt;&gt;"
        "&quot;&apos;&#65;&#x42;&#x1F600;&bogus; bare & ok</r>",
        "<r a=\"1\" b='2' c = \"a&#10;b\tc\"><![CDATA[<not>&amp;]]><!-- c --><?pi x?><x:y xmlns:x=\"u\" x:z=\"v\">t"
        "</x:y><e/><e></e></r>",
        "<ns:OME xmlns:ns=\"http://www.openmicroscopy.org/Schemas/OME/2016-06\"><ns:Image><ns:Pixels SizeX=\"10\" "
        "SizeY=\"10\"/></ns:Image></ns:OME>",
        "<a><b><c><d><e><f><g><h>deep</h></g></f></e></d></c></b></a>",
        "<r>\r\n  text  <![CDATA[]]>\n</r>\n\n",
    };
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        char name[32];
        snprintf(name, sizeof name, "doc%zu", i);
        save("xml", name, docs[i], strlen(docs[i]));
    }

    /* descriptions: flag bytes (fuzz_description.c) + NUL-separated pieces */
    struct {
        const char *name;
        uint8_t f0, f1;
        const char *pieces[5];
        int np;
    } ds[] = {
        { "aperio",
          0x02 | (1 << 2) | 0x80,
          0x00,
          { aperio_desc + 30, "Aperio Image Library v12.0.5\r\n1024x768 -> 512x384 - |AppMag = 20",
            "Aperio Image Library v12.0.5\r\n1024x768 -> 128x96 - |AppMag = 20",
            "Aperio Image Library v12.0.5\nlabel 60x50", NULL },
          4 },
        { "aperio-old",
          0x02 | (2 << 2) | 0x80,
          0x01 | 0x02,
          { "46000x32914 (256x256) JPEG/RGB Q=30|AppMag = 20|MPP = 0.25" },
          1 },
        { "philips", 0x01 | (3 << 2) | 0x10, 0x02, { ph }, 1 },
        { "ome-subifds", 0x40 | (2 << 2) | 0x20, 0x02, { om }, 1 },
        { "ome-chain", (2 << 2), 0x02 | 0x10, { om }, 1 },
        { "generic", 0x80 | (1 << 2), 0x00, { "a generic description", "level 1", "", "label" }, 4 },
        { "generic-gray", 0x00, 0x40 | 0x08, { "" }, 1 },
    };
    for (size_t i = 0; i < sizeof ds / sizeof ds[0]; i++) {
        size_t total = 2;
        for (int k = 0; k < ds[i].np; k++)
            total += strlen(ds[i].pieces[k]) + 1;
        uint8_t *s = malloc(total), *p = s + 2;
        s[0] = ds[i].f0;
        s[1] = ds[i].f1;
        for (int k = 0; k < ds[i].np; k++) {
            size_t l = strlen(ds[i].pieces[k]);
            memcpy(p, ds[i].pieces[k], l);
            p += l;
            if (k + 1 < ds[i].np)
                *p++ = '\0';
        }
        save("description", ds[i].name, s, (size_t)(p - s));
        free(s);
    }
    free(ph);
    free(om);
}

int
main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: make_corpus OUTDIR\n");
        return 2;
    }
    snprintf(outdir, sizeof outdir, "%s", argv[1]);
    mkdir_p(outdir);
    static const char *targets[] = { "tiff_open", "read_region", "codec", "xml", "description", "loader" };
    for (int i = 0; i < 6; i++) {
        char p[2048];
        snprintf(p, sizeof p, "%s/%s", outdir, targets[i]);
        mkdir_p(p);
    }
    slides();
    codecs();
    xml_and_descriptions();
    printf("make_corpus: %d seeds in %s, %d self-check failures\n", nfiles, outdir, nfail);
    return nfail ? 1 : 0;
}
