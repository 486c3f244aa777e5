/* GPU JPEG decoding (src/cuda/io/gpu-jpeg.c) against libjpeg-turbo.
 *
 * First the host-side parts that need no GPU: fv__jpeg_probe on streams written
 * by libjpeg-turbo (every subsampling, RGB-coded, progressive, abbreviated) and
 * on truncated and mutated ones; fv__jpeg_splice_tables. Then, when a GPU and
 * libnvjpeg exist (else exit 77 = skipped, after the host-side checks passed):
 * batches of 1, 7 and 64 streams of mixed sizes and subsamplings decoded on the
 * GPU and compared with libjpeg-turbo's decode of the same streams (mean |diff|
 * < 1, max < 16 per image); corrupt streams fail cleanly and the decoder stays
 * usable; a decoder made and freed many times leaks no device memory.
 *
 * FOVEA_TEST_CUDA_ONLY=1 skips the host-side checks (compute-sanitizer runs);
 * FOVEA_TEST_JPEG_ROUNDS sets the new/free rounds of the leak check (200);
 * FOVEA_TEST_SANITIZER=initcheck skips its device-memory delta (the tool's own
 * allocations move it). */
#include <math.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>
#include <jpeglib.h>

#include "fovea/fovea.h"
#include "internal.h"
#include "cuda/io/gpu-jpeg.h"
#include "check.h"

/* ---- helpers ---------------------------------------------------------------------- */

static uint64_t rng = 0x6a09e667f3bcc908ull;
static uint64_t
next_u64(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static int
rnd(int n)
{
    return (int)(next_u64() % (uint64_t)n);
}

/* random but smooth RGB: a coarse random grid, bilinearly interpolated, plus a little noise */
static uint8_t *
smooth_rgb(int w, int h)
{
    enum {
        CELL = 24
    };
    int gw = w / CELL + 2, gh = h / CELL + 2;
    float *g = malloc((size_t)gw * gh * 3 * sizeof *g);
    uint8_t *px = malloc((size_t)w * h * 3);
    for (int i = 0; i < gw * gh * 3; i++)
        g[i] = (float)(30 + rnd(196));
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            float fy = (float)y / CELL, fx = (float)x / CELL;
            int iy = (int)fy, ix = (int)fx;
            float ty = fy - iy, tx = fx - ix;
            for (int c = 0; c < 3; c++) {
                float a = g[((iy)*gw + ix) * 3 + c], b = g[((iy)*gw + ix + 1) * 3 + c];
                float e = g[((iy + 1) * gw + ix) * 3 + c], f = g[((iy + 1) * gw + ix + 1) * 3 + c];
                float v = (a * (1 - tx) + b * tx) * (1 - ty) + (e * (1 - tx) + f * tx) * ty + (float)(rnd(5) - 2);
                px[((size_t)y * w + x) * 3 + c] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v + 0.5f);
            }
        }
    free(g);
    return px;
}

struct jerr {
    struct jpeg_error_mgr pub;
    jmp_buf jb;
};

static void
jerr_exit(j_common_ptr c)
{
    longjmp(((struct jerr *)c->err)->jb, 1);
}

static void
jerr_quiet(j_common_ptr c, int level)
{
    (void)c;
    (void)level;
}

enum {
    SS_444,
    SS_422,
    SS_420,
    SS_GRAY,
    SS_RGB,
    SS_COUNT
};
static const char *ss_name[SS_COUNT] = { "4:4:4", "4:2:2", "4:2:0", "gray", "RGB" };

/* Encode px (w x h RGB) with libjpeg-turbo. ss: subsampling or gray or RGB-coded.
 * With tables != NULL: a TIFF-style pair, *tables (SOI DQT DHT EOI) and an
 * abbreviated image stream (returned). progressive: SOF2. */
static uint8_t *
encode(const uint8_t *px, int w, int h, int ss, int quality, int progressive, uint8_t **tables, size_t *tables_len,
       size_t *len)
{
    struct jpeg_compress_struct c;
    struct jerr e;
    unsigned char *buf = NULL, *tb = NULL;
    unsigned long n = 0, tn = 0;
    uint8_t *row = malloc((size_t)w * 3);
    c.err = jpeg_std_error(&e.pub);
    e.pub.error_exit = jerr_exit;
    if (setjmp(e.jb)) {
        fprintf(stderr, "encode: libjpeg error\n");
        jpeg_destroy_compress(&c);
        free(row);
        free(buf);
        free(tb);
        return NULL;
    }
    jpeg_create_compress(&c);
    c.image_width = (JDIMENSION)w;
    c.image_height = (JDIMENSION)h;
    c.input_components = ss == SS_GRAY ? 1 : 3;
    c.in_color_space = ss == SS_GRAY ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&c);
    if (ss == SS_RGB)
        jpeg_set_colorspace(&c, JCS_RGB); /* no conversion, 1x1 everywhere, Adobe transform 0 */
    else if (ss != SS_GRAY) {
        c.comp_info[0].h_samp_factor = ss == SS_444 ? 1 : 2;
        c.comp_info[0].v_samp_factor = ss == SS_420 ? 2 : 1;
        for (int k = 1; k < 3; k++)
            c.comp_info[k].h_samp_factor = c.comp_info[k].v_samp_factor = 1;
    }
    jpeg_set_quality(&c, quality, TRUE);
    if (progressive)
        jpeg_simple_progression(&c);
    if (tables) {
        jpeg_mem_dest(&c, &tb, &tn);
        jpeg_write_tables(&c); /* SOI DQT DHT EOI; marks the tables as written */
    }
    jpeg_mem_dest(&c, &buf, &n);
    jpeg_start_compress(&c, tables ? FALSE : TRUE);
    for (int y = 0; y < h; y++) {
        JSAMPROW r = row;
        if (ss == SS_GRAY)
            for (int x = 0; x < w; x++)
                row[x] = px[((size_t)y * w + x) * 3 + 1];
        else
            memcpy(row, px + (size_t)y * w * 3, (size_t)w * 3);
        jpeg_write_scanlines(&c, &r, 1);
    }
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    free(row);
    if (tables) {
        *tables = tb;
        *tables_len = tn;
    }
    *len = n;
    return buf;
}

/* libjpeg-turbo's decode: RGB (3 x w x h interleaved) or gray; RGB-coded streams
 * without conversion. NULL on error. */
static uint8_t *
ref_decode(const uint8_t *data, size_t len, int *w, int *h, int *nc)
{
    struct jpeg_decompress_struct c;
    struct jerr e;
    uint8_t *out = NULL;
    c.err = jpeg_std_error(&e.pub);
    e.pub.error_exit = jerr_exit;
    e.pub.emit_message = jerr_quiet;
    if (setjmp(e.jb)) {
        jpeg_destroy_decompress(&c);
        free(out);
        return NULL;
    }
    jpeg_create_decompress(&c);
    jpeg_mem_src(&c, data, (unsigned long)len);
    jpeg_read_header(&c, TRUE);
    if (c.num_components == 3 && c.saw_Adobe_marker && c.Adobe_transform == 0)
        c.jpeg_color_space = JCS_RGB;
    c.out_color_space = c.num_components == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_start_decompress(&c);
    *w = (int)c.output_width;
    *h = (int)c.output_height;
    *nc = c.output_components;
    out = malloc((size_t)*w * *h * *nc);
    while (c.output_scanline < c.output_height) {
        JSAMPROW r = out + (size_t)c.output_scanline * *w * *nc;
        jpeg_read_scanlines(&c, &r, 1);
    }
    jpeg_finish_decompress(&c);
    jpeg_destroy_decompress(&c);
    return out;
}

/* ---- host-side checks --------------------------------------------------------------- */

static void
test_probe(void)
{
    static const int sizes[][2] = { { 256, 256 }, { 240, 240 }, { 17, 33 }, { 512, 64 } };
    fv__jpeg_probe_info in;
    for (int si = 0; si < 4; si++) {
        int w = sizes[si][0], h = sizes[si][1];
        uint8_t *px = smooth_rgb(w, h);
        for (int ss = 0; ss < SS_COUNT; ss++) {
            size_t n = 0;
            uint8_t *j = encode(px, w, h, ss, 90, 0, NULL, NULL, &n);
            CHECK(j != NULL);
            if (!j)
                continue;
            CHECK_OK(fv__jpeg_probe(j, n, &in));
            CHECK(in.width == w && in.height == h);
            CHECK(in.components == (ss == SS_GRAY ? 1 : 3));
            CHECK(in.precision == 8 && in.sof == 0 && in.gpu_ok == 1);
            if (ss == SS_RGB) {
                CHECK(in.adobe_transform == 0 && in.jfif == 0);
            } else {
                CHECK(in.adobe_transform == -1 && in.jfif == 1);
            }
            if (ss != SS_GRAY && ss != SS_RGB) {
                CHECK(in.hsamp[0] == (ss == SS_444 ? 1 : 2) && in.vsamp[0] == (ss == SS_420 ? 2 : 1));
                CHECK(in.hsamp[1] == 1 && in.vsamp[1] == 1 && in.hsamp[2] == 1 && in.vsamp[2] == 1);
            }

            /* every truncation before the entropy-coded data fails cleanly */
            size_t hdr = 0;
            for (size_t k = 2; k + 1 < n; k++)
                if (j[k] == 0xFF && j[k + 1] == 0xDA) {
                    hdr = k + 2 + ((size_t)j[k + 2] << 8 | j[k + 3]);
                    break;
                }
            CHECK(hdr > 0 && hdr < n);
            int bad = 0;
            for (size_t k = 0; k < hdr; k++)
                if (fv__jpeg_probe(j, k, &in) != FV_EFORMAT)
                    bad++;
            CHECK(bad == 0);
            CHECK_OK(fv__jpeg_probe(j, hdr, &in)); /* the header alone is enough */

            /* 12-bit and progressive are not for the GPU */
            if (si == 0 && ss == SS_420) {
                uint8_t *m = malloc(n);
                memcpy(m, j, n);
                for (size_t k = 2; k + 4 < hdr; k++)
                    if (m[k] == 0xFF && m[k + 1] == 0xC0) {
                        m[k + 4] = 12;
                        break;
                    }
                CHECK_OK(fv__jpeg_probe(m, n, &in));
                CHECK(in.precision == 12 && in.gpu_ok == 0);
                free(m);
                size_t pn = 0;
                uint8_t *p = encode(px, w, h, ss, 90, 1, NULL, NULL, &pn);
                CHECK_OK(fv__jpeg_probe(p, pn, &in));
                CHECK(in.sof == 2 && in.gpu_ok == 0 && in.width == w);
                free(p);
            }
            free(j);
        }
        free(px);
    }

    /* bad input */
    static const uint8_t not_jpeg[] = { 0x89, 'P', 'N', 'G', 0, 0, 0, 0 };
    static const uint8_t tables_only[] = { 0xFF, 0xD8, 0xFF, 0xDB, 0x00, 0x03, 0x00, 0xFF, 0xD9 };
    static const uint8_t long_seg[] = { 0xFF, 0xD8, 0xFF, 0xE0, 0x40, 0x00, 'J', 'F', 'I', 'F', 0 };
    static const uint8_t sof_zero_w[] = { 0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x0B, 8, 0, 16, 0, 0, 1, 1, 0x11, 0 };
    static const uint8_t sof_bad_nf[] = { 0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x0B, 8, 0, 16, 0, 16, 3, 1, 0x11, 0 };
    static const uint8_t sos_first[] = { 0xFF, 0xD8, 0xFF, 0xDA, 0x00, 0x08, 1, 1, 0, 0, 63, 0 };
    static const uint8_t short_len[] = { 0xFF, 0xD8, 0xFF, 0xFE, 0x00, 0x01, 0, 0 };
    CHECK_ERR(fv__jpeg_probe(NULL, 10, &in), FV_EFORMAT, "no SOI");
    CHECK_ERR(fv__jpeg_probe(not_jpeg, sizeof not_jpeg, &in), FV_EFORMAT, "no SOI");
    CHECK_ERR(fv__jpeg_probe(tables_only, sizeof tables_only, &in), FV_EFORMAT, "EOI before any SOS");
    CHECK_ERR(fv__jpeg_probe(long_seg, sizeof long_seg, &in), FV_EFORMAT, "runs past the end");
    CHECK_ERR(fv__jpeg_probe(sof_zero_w, sizeof sof_zero_w, &in), FV_EFORMAT, "width 0");
    CHECK_ERR(fv__jpeg_probe(sof_bad_nf, sizeof sof_bad_nf, &in), FV_EFORMAT, "components");
    CHECK_ERR(fv__jpeg_probe(sos_first, sizeof sos_first, &in), FV_EFORMAT, "SOS before SOF");
    CHECK_ERR(fv__jpeg_probe(short_len, sizeof short_len, &in), FV_EFORMAT, "length");
    CHECK_ERR(fv__jpeg_probe(not_jpeg, sizeof not_jpeg, NULL), FV_EINVAL, "NULL");

    /* random mutations of the header bytes: never crash, always OK or FV_EFORMAT */
    {
        uint8_t *px = smooth_rgb(64, 48);
        size_t n = 0;
        uint8_t *j = encode(px, 64, 48, SS_420, 80, 0, NULL, NULL, &n);
        uint8_t *m = malloc(n);
        int odd = 0;
        for (int it = 0; it < 20000; it++) {
            memcpy(m, j, n);
            int k = 1 + rnd(8);
            for (int q = 0; q < k; q++)
                m[rnd(n < 700 ? (int)n : 700)] = (uint8_t)(rnd(4) == 0 ? 0xFF : rnd(256));
            fv_status st = fv__jpeg_probe(m, (size_t)rnd((int)n + 1), &in);
            if (st != FV_OK && st != FV_EFORMAT)
                odd++;
            if (st == FV_OK && (in.width <= 0 || in.components < 1 || in.components > 4))
                odd++;
        }
        CHECK(odd == 0);
        free(m);
        free(j);
        free(px);
    }
}

static int
same_pixels(const uint8_t *a, const uint8_t *b, size_t n)
{
    return memcmp(a, b, n) == 0;
}

static void
test_splice(void)
{
    int w = 96, h = 80;
    uint8_t *px = smooth_rgb(w, h);
    uint8_t *tables = NULL, *dst;
    size_t tl = 0, n = 0, fn = 0, out;
    uint8_t *tile = encode(px, w, h, SS_420, 85, 0, &tables, &tl, &n);
    uint8_t *full = encode(px, w, h, SS_420, 85, 0, NULL, NULL, &fn);
    fv__jpeg_probe_info in;
    CHECK(tile && tables && full);
    CHECK(tl >= 4 && tables[0] == 0xFF && tables[1] == 0xD8 && tables[tl - 2] == 0xFF && tables[tl - 1] == 0xD9);
    CHECK_OK(fv__jpeg_probe(tile, n, &in));
    CHECK(in.gpu_ok == 0); /* abbreviated: no tables */
    dst = malloc(tl + n);
    out = fv__jpeg_splice_tables(tables, tl, tile, n, dst, tl + n);
    CHECK(out == tl + n - 4);
    CHECK_OK(fv__jpeg_probe(dst, out, &in));
    CHECK(in.gpu_ok == 1 && in.width == w && in.height == h);
    { /* decodes to exactly what the complete stream decodes to */
        int w1, h1, c1, w2, h2, c2;
        uint8_t *a = ref_decode(dst, out, &w1, &h1, &c1), *b = ref_decode(full, fn, &w2, &h2, &c2);
        CHECK(a && b && w1 == w2 && h1 == h2 && c1 == c2 && same_pixels(a, b, (size_t)w1 * h1 * c1));
        free(a);
        free(b);
    }
    CHECK(fv__jpeg_splice_tables(tables, tl, tile, n, dst, tl + n - 5) == 0); /* one byte short */
    CHECK(fv__jpeg_splice_tables(tables, tl, tile, n, dst, tl + n - 4) == tl + n - 4);
    CHECK(fv__jpeg_splice_tables(tables, tl - 1, tile, n, dst, tl + n) == 0); /* tables without EOI */
    CHECK(fv__jpeg_splice_tables(tables + 1, tl - 1, tile, n, dst, tl + n) == 0);
    CHECK(fv__jpeg_splice_tables(tables, tl, tile + 1, n - 1, dst, tl + n) == 0); /* tile without SOI */
    CHECK(fv__jpeg_splice_tables(tables, tl, tile, 3, dst, tl + n) == 0);
    CHECK(fv__jpeg_splice_tables(NULL, 0, tile, n, dst, n) == n && memcmp(dst, tile, n) == 0);
    CHECK(fv__jpeg_splice_tables(NULL, 0, tile, n, dst, n - 1) == 0);
    CHECK(fv__jpeg_splice_tables(tables, tl, NULL, 0, dst, tl + n) == 0);
    {
        static const uint8_t minimal[] = { 0xFF, 0xD8, 0xFF, 0xD9 };
        CHECK(fv__jpeg_splice_tables(minimal, 4, tile, n, dst, n) == n && memcmp(dst, tile, n) == 0);
    }
    free(dst);
    free(full);
    free(tile);
    free(tables);
    free(px);
}

/* ---- GPU ---------------------------------------------------------------------------- */

typedef struct jcase {
    int w, h, ss;
    uint8_t *jpeg; /* complete stream (spliced for abbreviated cases) */
    size_t len;
    uint8_t *ref; /* libjpeg-turbo's decode: RGB interleaved, or gray */
    int nc;       /* 3 or 1 */
    int abbreviated;
} jcase;

#define NCASES 40
static jcase cases[NCASES];
static int ncases;

static void
make_cases(void)
{
    static const int sizes[][2] = { { 256, 256 }, { 240, 240 }, { 512, 512 }, { 17, 33 },
                                    { 33, 17 },   { 200, 120 }, { 8, 8 } };
    for (int si = 0; si < 7; si++)
        for (int ss = 0; ss < SS_COUNT; ss++) {
            int w = sizes[si][0], h = sizes[si][1], abbr = si == 1 || si == 5;
            uint8_t *px = smooth_rgb(w, h), *tables = NULL;
            size_t tl = 0, n = 0;
            jcase *c = &cases[ncases];
            uint8_t *j = encode(px, w, h, ss, 75 + 5 * ss, 0, abbr ? &tables : NULL, &tl, &n);
            if (abbr) {
                uint8_t *s = malloc(tl + n);
                size_t sl = fv__jpeg_splice_tables(tables, tl, j, n, s, tl + n);
                CHECK(sl > 0);
                free(j);
                free(tables);
                j = s;
                n = sl;
            }
            c->w = w;
            c->h = h;
            c->ss = ss;
            c->jpeg = j;
            c->len = n;
            c->abbreviated = abbr;
            int rw = 0, rh = 0;
            c->ref = ref_decode(j, n, &rw, &rh, &c->nc);
            CHECK(c->ref && rw == w && rh == h && c->nc == (ss == SS_GRAY ? 1 : 3));
            free(px);
            if (++ncases == NCASES)
                return;
        }
}

static double worst_mean, worst_max;

/* compare a decoded image (host copy, row pitch `pitch`, `ch` interleaved channels,
 * or planes when planar) with the case's reference */
static int
compare(const jcase *c, const uint8_t *got, size_t pitch, int planar, int rgbi_gray, const char *what)
{
    double sum = 0;
    int mx = 0;
    size_t cnt = 0;
    for (int y = 0; y < c->h; y++)
        for (int x = 0; x < c->w; x++)
            for (int k = 0; k < (c->nc == 3 || rgbi_gray ? 3 : 1); k++) {
                int ref = c->nc == 3 ? c->ref[((size_t)y * c->w + x) * 3 + k] : c->ref[(size_t)y * c->w + x];
                int v = planar ? got[(size_t)k * pitch * c->h + (size_t)y * pitch + x]
                               : got[(size_t)y * pitch + (size_t)x * (rgbi_gray || c->nc == 3 ? 3 : 1) + k];
                int d = abs(v - ref);
                sum += d;
                mx = d > mx ? d : mx;
                cnt++;
            }
    double mean = sum / (double)cnt;
    if (mean > worst_mean)
        worst_mean = mean;
    if (mx > worst_max)
        worst_max = mx;
    if (!(mean < 1.0 && mx < 16)) {
        fprintf(stderr, "  %s: %dx%d %s%s: mean |diff| %.3f, max %d\n", what, c->w, c->h, ss_name[c->ss],
                c->abbreviated ? " (spliced)" : "", mean, mx);
        return 0;
    }
    return 1;
}

/* Decode the listed cases as one batch in `mode` and compare. RGBI for colour
 * YCbCr streams (and gray when gray_rgbi); PLANAR for RGB-coded and gray. */
static int
run_batch(fv__gpujpeg *d, const int *idx, int n, fv__gpujpeg_mode mode, cudaStream_t s, const char *what)
{
    fv__gpujpeg_item *items = calloc((size_t)n, sizeof *items);
    size_t *off = calloc((size_t)n, sizeof *off), total = 0;
    uint8_t *dev = NULL, *host;
    int ok = 1;
    for (int i = 0; i < n; i++) {
        const jcase *c = &cases[idx[i]];
        size_t pitch = mode == FV__GPUJPEG_RGBI ? 3 * (size_t)c->w + 32 : (size_t)c->w + 16; /* padded rows */
        off[i] = total;
        items[i].data = c->jpeg;
        items[i].len = c->len;
        for (int k = 0; k < (mode == FV__GPUJPEG_RGBI ? 1 : c->nc); k++)
            items[i].pitch[k] = pitch;
        total += pitch * c->h * (mode == FV__GPUJPEG_RGBI ? 1 : (size_t)c->nc);
    }
    if (cudaMalloc((void **)&dev, total) != cudaSuccess)
        return 0;
    cudaMemset(dev, 0xA5, total);
    for (int i = 0; i < n; i++) {
        const jcase *c = &cases[idx[i]];
        for (int k = 0; k < (mode == FV__GPUJPEG_RGBI ? 1 : c->nc); k++)
            items[i].dst[k] = dev + off[i] + (size_t)k * items[i].pitch[0] * c->h;
    }
    fv_status st = fv__gpujpeg_decode(d, items, n, mode, s);
    CHECK_OK(st);
    CHECK_OK(fv__gpujpeg_sync(d, s));
    host = malloc(total);
    CHECK(cudaMemcpy(host, dev, total, cudaMemcpyDeviceToHost) == cudaSuccess);
    for (int i = 0; st == FV_OK && i < n; i++) {
        const jcase *c = &cases[idx[i]];
        if (!compare(c, host + off[i], items[i].pitch[0], mode == FV__GPUJPEG_PLANAR && c->nc == 3,
                     mode == FV__GPUJPEG_RGBI && c->nc == 1, what))
            ok = 0;
    }
    CHECK(ok);
    free(host);
    cudaFree(dev);
    free(items);
    free(off);
    return ok && st == FV_OK;
}

/* mixed batch of n cases usable in `mode` */
static int
pick(int *idx, int n, fv__gpujpeg_mode mode, int with_gray)
{
    int k = 0, guard = 0;
    while (k < n && guard++ < 100000) {
        int i = rnd(ncases);
        const jcase *c = &cases[i];
        int ok = mode == FV__GPUJPEG_RGBI ? (c->ss != SS_RGB && (c->ss != SS_GRAY || with_gray))
                                          : (c->ss == SS_RGB || c->ss == SS_GRAY);
        if (ok)
            idx[k++] = i;
    }
    return k;
}

static void
print_counts(fv__gpujpeg *d, const char *label)
{
    int64_t k[3];
    fv__gpujpeg_counts(d, k);
    printf(
        "test_cuda_jpeg: %s: %lld streams by the %s backend, %lld by the fallback lane, %lld hardware batches redone\n",
        label, (long long)k[0], fv__gpujpeg_backend(d), (long long)k[1], (long long)k[2]);
}

static void
test_decode(cudaStream_t s, const char *label)
{
    fv__gpujpeg *d = NULL;
    int idx[64];
    char what[96];
    CHECK_OK(fv__gpujpeg_new(0, &d));
    if (!d)
        return;
    printf("test_cuda_jpeg: %s: backend %s\n", label, fv__gpujpeg_backend(d));

    /* every case alone, then mixed batches of 7 and 64 (twice: state reuse), then 7 again */
    for (int i = 0; i < ncases; i++) {
        const jcase *c = &cases[i];
        snprintf(what, sizeof what, "%s, single", label);
        if (c->ss == SS_RGB || c->ss == SS_GRAY)
            run_batch(d, &i, 1, FV__GPUJPEG_PLANAR, s, what);
        if (c->ss != SS_RGB && c->ss != SS_GRAY)
            run_batch(d, &i, 1, FV__GPUJPEG_RGBI, s, what);
    }
    static const int sizes[] = { 7, 64, 64, 7 };
    for (int r = 0; r < 4; r++) {
        int n = pick(idx, sizes[r], FV__GPUJPEG_RGBI, 0);
        snprintf(what, sizeof what, "%s, RGBI batch of %d", label, n);
        run_batch(d, idx, n, FV__GPUJPEG_RGBI, s, what);
        n = pick(idx, sizes[r], FV__GPUJPEG_PLANAR, 0);
        snprintf(what, sizeof what, "%s, PLANAR batch of %d", label, n);
        run_batch(d, idx, n, FV__GPUJPEG_PLANAR, s, what);
    }
    print_counts(d, label);
    fv__gpujpeg_free(d);
}

/* Informational (printed, never failing): what nvJPEG does with 1-component streams
 * in RGBI mode (gray replicated into R, G, B?) and with RGB-coded streams (Adobe
 * transform 0) in RGBI mode (converted as if YCbCr?). */
static void
test_informational(void)
{
    fv__gpujpeg *d = NULL;
    int gray[7], ng = 0, rgb[7], nr = 0;
    CHECK_OK(fv__gpujpeg_new(0, &d));
    if (!d)
        return;
    for (int i = 0; i < ncases; i++) {
        if (cases[i].ss == SS_GRAY && ng < 7)
            gray[ng++] = i;
        if (cases[i].ss == SS_RGB && nr < 7)
            rgb[nr++] = i;
    }
    int pass = fv_t_pass, fail = fv_t_fail;
    double wm = worst_mean, wx = worst_max;
    int ok1 = run_batch(d, gray, 1, FV__GPUJPEG_RGBI, NULL, "info: gray in RGBI, single");
    int ok7 = run_batch(d, gray, ng, FV__GPUJPEG_RGBI, NULL, "info: gray in RGBI, batch");
    printf("test_cuda_jpeg: 1-component streams in RGBI mode: %s\n",
           ok1 && ok7 ? "gray replicated into R, G, B (matches libjpeg)" : "NOT gray replicated (see above)");
    /* RGB-coded streams in RGBI mode, compared with libjpeg's unconverted RGB */
    int okr = run_batch(d, rgb, nr, FV__GPUJPEG_RGBI, NULL, "info: RGB-coded in RGBI");
    printf("test_cuda_jpeg: RGB-coded (Adobe transform 0) streams in RGBI mode: %s\n",
           okr ? "not colour-converted (nvJPEG honours the Adobe marker)" : "converted as if YCbCr (use PLANAR)");
    fv_t_pass = pass; /* informational only: undo what run_batch counted */
    fv_t_fail = fail;
    worst_mean = wm;
    worst_max = wx;
    fv__gpujpeg_free(d);
}

static void
test_bad(void)
{
    fv__gpujpeg *d = NULL;
    uint8_t *dev = NULL;
    const jcase *c = NULL, *c420 = NULL;
    CHECK_OK(fv__gpujpeg_new(0, &d));
    if (!d)
        return;
    for (int i = 0; i < ncases; i++) {
        if (!c && cases[i].ss == SS_444 && cases[i].w == 256 && !cases[i].abbreviated)
            c = &cases[i];
        if (!c420 && cases[i].ss == SS_420 && cases[i].w == 256)
            c420 = &cases[i];
    }
    if (!c || !c420) {
        CHECK(0);
        fv__gpujpeg_free(d);
        return;
    }
    size_t pitch = 3 * 256, bytes = pitch * 256 * 8;
    CHECK(cudaMalloc((void **)&dev, bytes) == cudaSuccess);
    fv__gpujpeg_item it[7];
    memset(it, 0, sizeof it);
    for (int i = 0; i < 7; i++) {
        it[i].data = c->jpeg;
        it[i].len = c->len;
        it[i].dst[0] = dev + (size_t)i * pitch * 256;
        it[i].pitch[0] = pitch;
    }
    uint8_t *m = malloc(c->len);

    /* truncated entropy data */
    memcpy(m, c->jpeg, c->len);
    it[3].data = m;
    it[3].len = c->len * 6 / 10;
    CHECK_ERR(fv__gpujpeg_decode(d, it, 7, FV__GPUJPEG_RGBI, NULL), FV_EFORMAT, "item 3");
    printf("test_cuda_jpeg: truncated: %s\n", fv_error_message());
    CHECK_OK(fv__gpujpeg_decode(d, it, 1, FV__GPUJPEG_RGBI, NULL)); /* still usable */
    CHECK_OK(fv__gpujpeg_sync(d, NULL));

    /* garbage in the middle of the entropy-coded data */
    memcpy(m, c->jpeg, c->len);
    for (size_t k = c->len / 2; k < c->len / 2 + 512 && k + 2 < c->len; k++)
        m[k] = (uint8_t)rnd(256);
    it[3].len = c->len;
    fv_status st = fv__gpujpeg_decode(d, it, 7, FV__GPUJPEG_RGBI, NULL);
    if (st == FV_OK)
        st = fv__gpujpeg_sync(d, NULL);
    CHECK(st == FV_EFORMAT || st == FV_ECUDA);
    printf("test_cuda_jpeg: garbage: %s: %s\n", fv_status_name(st), fv_error_message());

    /* garbage without any marker bytes: only nvJPEG itself can notice */
    memcpy(m, c->jpeg, c->len);
    for (size_t k = c->len / 3; k < c->len / 3 + 2048 && k + 2 < c->len; k++)
        m[k] = (uint8_t)(rnd(255)); /* never 0xFF */
    st = fv__gpujpeg_decode(d, it, 7, FV__GPUJPEG_RGBI, NULL);
    if (st == FV_OK)
        st = fv__gpujpeg_sync(d, NULL);
    printf("test_cuda_jpeg: marker-free garbage (informational): %s%s%s\n", fv_status_name(st), st ? ": " : "",
           st ? fv_error_message() : " (decoded without an error)");

    /* the decoder still decodes correctly afterwards, at a new and an old batch size */
    {
        int idx[7];
        int n = pick(idx, 7, FV__GPUJPEG_RGBI, 0);
        run_batch(d, idx, n, FV__GPUJPEG_RGBI, NULL, "after errors, 7");
        run_batch(d, idx, 3, FV__GPUJPEG_RGBI, NULL, "after errors, 3");
    }

    /* arguments */
    it[3].data = c->jpeg;
    it[3].len = c->len;
    fv__gpujpeg_item p = it[0];
    p.data = c420->jpeg;
    p.len = c420->len;
    p.dst[1] = p.dst[2] = dev;
    p.pitch[1] = p.pitch[2] = 256;
    CHECK_ERR(fv__gpujpeg_decode(d, &p, 1, FV__GPUJPEG_PLANAR, NULL), FV_EINVAL, "same sampling");
    p = it[0];
    p.pitch[0] = 3 * 256 - 1;
    CHECK_ERR(fv__gpujpeg_decode(d, &p, 1, FV__GPUJPEG_RGBI, NULL), FV_EINVAL, "pitch[0] >= 768");
    p = it[0];
    p.dst[0] = NULL;
    CHECK_ERR(fv__gpujpeg_decode(d, &p, 1, FV__GPUJPEG_RGBI, NULL), FV_EINVAL, "dst[0]");
    {
        uint8_t *px = smooth_rgb(64, 64);
        size_t pn = 0;
        uint8_t *prog = encode(px, 64, 64, SS_420, 90, 1, NULL, NULL, &pn);
        p = it[0];
        p.data = prog;
        p.len = pn;
        CHECK_ERR(fv__gpujpeg_decode(d, &p, 1, FV__GPUJPEG_RGBI, NULL), FV_EFORMAT, "not for the GPU decoder");
        free(prog);
        free(px);
    }
    CHECK_ERR(fv__gpujpeg_decode(d, it, 1, (fv__gpujpeg_mode)7, NULL), FV_EINVAL, "mode");
    CHECK_ERR(fv__gpujpeg_decode(NULL, it, 1, FV__GPUJPEG_RGBI, NULL), FV_EINVAL, "bad arguments");
    CHECK_OK(fv__gpujpeg_decode(d, it, 0, FV__GPUJPEG_RGBI, NULL));
    CHECK_OK(fv__gpujpeg_sync(d, NULL));
    print_counts(d, "after the bad input");
    free(m);
    cudaFree(dev);
    fv__gpujpeg_free(d);
    fv__gpujpeg_free(NULL);
}

static void
test_leak(void)
{
    const char *env = getenv("FOVEA_TEST_JPEG_ROUNDS");
    int rounds = env ? atoi(env) : 200;
    size_t free0 = 0, free1 = 0, total = 0;
    int idx[4], n, ok = 1;
    n = pick(idx, 4, FV__GPUJPEG_RGBI, 0);
    { /* warm up: the per-device handles exist for the process lifetime */
        fv__gpujpeg *d = NULL;
        CHECK_OK(fv__gpujpeg_new(0, &d));
        run_batch(d, idx, n, FV__GPUJPEG_RGBI, NULL, "leak warm-up");
        fv__gpujpeg_free(d);
    }
    CHECK(cudaMemGetInfo(&free0, &total) == cudaSuccess);
    for (int r = 0; r < rounds && ok; r++) {
        fv__gpujpeg *d = NULL;
        fv_status st = fv__gpujpeg_new(0, &d);
        CHECK_OK(st);
        if (st != FV_OK)
            break;
        if (r % 10 == 0) /* decode in some rounds, create/free only in the others */
            ok = run_batch(d, idx, n, FV__GPUJPEG_RGBI, NULL, "leak round");
        fv__gpujpeg_free(d);
    }
    CHECK(cudaMemGetInfo(&free1, &total) == cudaSuccess);
    double mb = ((double)free0 - (double)free1) / 1048576.0;
    printf("test_cuda_jpeg: %d decoders made and freed: device memory in use changed by %.1f MiB\n", rounds, mb);
    /* initcheck's own device allocations move cudaMemGetInfo (32 MiB on an H100);
     * there memcheck's leak check is the measure (tools/gpu-check runs both) */
    const char *tool = getenv("FOVEA_TEST_SANITIZER");
    if (tool && !strcmp(tool, "initcheck"))
        printf("test_cuda_jpeg: under initcheck: the device memory change is not checked\n");
    else
        CHECK(mb < 4.0);
}

int
main(void)
{
    char why[512];
    if (!getenv("FOVEA_TEST_CUDA_ONLY")) {
        test_probe();
        test_splice();
        if (fv_t_fail)
            return fv_t_summary("test_cuda_jpeg");
    }
    if (!fv__gpujpeg_available(why, sizeof why)) {
        printf("test_cuda_jpeg: host-side checks: %d passed, %d failed\n", fv_t_pass, fv_t_fail);
        printf("test_cuda_jpeg: skipped the GPU part: %s\n", why);
        return fv_t_fail ? 1 : 77;
    }
    make_cases();
    test_decode(NULL, "default stream");
    {
        cudaStream_t s = NULL;
        CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess);
        test_decode(s, "own stream");
        cudaStreamDestroy(s);
    }
    test_informational();
    test_bad();
    test_leak();
    printf("test_cuda_jpeg: worst image vs libjpeg-turbo: mean |diff| %.3f, max %.0f\n", worst_mean, worst_max);
    for (int i = 0; i < ncases; i++) {
        free(cases[i].jpeg);
        free(cases[i].ref);
    }
    return fv_t_summary("test_cuda_jpeg");
}
