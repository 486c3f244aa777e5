/* Writing a region to PNG, TIFF (uncompressed) or NumPy .npy for `fovea read`. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libdeflate.h>
#include "image-write.h"

static void
be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8), p[3] = (uint8_t)v;
}

static int
png_chunk(FILE *f, const char *type, const uint8_t *data, size_t len)
{
    uint8_t hdr[8];
    be32(hdr, (uint32_t)len);
    memcpy(hdr + 4, type, 4);
    uint32_t crc = libdeflate_crc32(0, hdr + 4, 4);
    crc = libdeflate_crc32(crc, data, len);
    uint8_t tail[4];
    be32(tail, crc);
    return fwrite(hdr, 1, 8, f) == 8 && (len == 0 || fwrite(data, 1, len, f) == len) && fwrite(tail, 1, 4, f) == 4;
}

static int
write_png(FILE *f, const uint8_t *px, int64_t w, int64_t h, int c, int bytes)
{
    static const uint8_t sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
    uint8_t ihdr[13];
    be32(ihdr, (uint32_t)w);
    be32(ihdr + 4, (uint32_t)h);
    ihdr[8] = (uint8_t)(8 * bytes);
    ihdr[9] = c == 1 ? 0 : c == 2 ? 4 : c == 3 ? 2 : 6;
    ihdr[10] = ihdr[11] = ihdr[12] = 0;
    size_t row = (size_t)w * c * bytes, raw_len = (row + 1) * (size_t)h;
    uint8_t *raw = malloc(raw_len);
    if (!raw)
        return 0;
    for (int64_t y = 0; y < h; y++) {
        uint8_t *d = raw + (size_t)y * (row + 1);
        d[0] = 0; /* filter: none */
        const uint8_t *s = px + (size_t)y * row;
        if (bytes == 1) {
            memcpy(d + 1, s, row);
        } else { /* PNG is big endian */
            for (size_t i = 0; i < row; i += 2)
                d[1 + i] = s[i + 1], d[2 + i] = s[i];
        }
    }
    struct libdeflate_compressor *comp = libdeflate_alloc_compressor(6);
    size_t cap = comp ? libdeflate_zlib_compress_bound(comp, raw_len) : 0;
    uint8_t *z = cap ? malloc(cap) : NULL;
    size_t zl = z ? libdeflate_zlib_compress(comp, raw, raw_len, z, cap) : 0;
    int ok = zl > 0 && fwrite(sig, 1, 8, f) == 8 && png_chunk(f, "IHDR", ihdr, 13) && png_chunk(f, "IDAT", z, zl) &&
        png_chunk(f, "IEND", NULL, 0);
    libdeflate_free_compressor(comp);
    free(z);
    free(raw);
    return ok;
}

static void
le(uint8_t *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* one uncompressed strip, classic little-endian TIFF */
static int
write_tiff(FILE *f, const uint8_t *px, int64_t w, int64_t h, int c, int bytes)
{
    uint64_t n = (uint64_t)w * h * c * bytes;
    if (n > 0xFFFFFF00ull)
        return 0;
    enum {
        NE = 10
    };
    uint8_t hdr[8] = { 'I', 'I', 42, 0 };
    uint32_t bps_off = 8, ifd_off = bps_off + 8, data_off = ifd_off + 2 + NE * 12 + 4;
    le(hdr + 4, ifd_off, 4);
    uint8_t bps[8] = { 0 };
    for (int i = 0; i < c && i < 4; i++)
        le(bps + 2 * i, 8u * bytes, 2);
    uint8_t ifd[2 + NE * 12 + 4] = { 0 };
    le(ifd, NE, 2);
    struct {
        uint16_t tag, type;
        uint32_t count, val;
    } e[NE] = { { 256, 4, 1, (uint32_t)w },
                { 257, 4, 1, (uint32_t)h },
                { 258, 3, (uint32_t)c, c <= 2 ? (uint32_t)(8 * bytes) : bps_off },
                { 259, 3, 1, 1 },
                { 262, 3, 1, c >= 3 ? 2u : 1u },
                { 273, 4, 1, data_off },
                { 277, 3, 1, (uint32_t)c },
                { 278, 4, 1, (uint32_t)h },
                { 279, 4, 1, (uint32_t)n },
                { 284, 3, 1, 1 } };
    for (int i = 0; i < NE; i++) {
        uint8_t *p = ifd + 2 + 12 * i;
        le(p, e[i].tag, 2);
        le(p + 2, e[i].type, 2);
        le(p + 4, e[i].count, 4);
        if (e[i].type == 3 && e[i].count <= 2 && e[i].tag != 258)
            le(p + 8, e[i].val, 2);
        else if (e[i].tag == 258 && c == 2)
            le(p + 8, 8u * bytes, 2), le(p + 10, 8u * bytes, 2);
        else if (e[i].tag == 258 && c == 1)
            le(p + 8, 8u * bytes, 2);
        else
            le(p + 8, e[i].val, 4);
    }
    return fwrite(hdr, 1, 8, f) == 8 && fwrite(bps, 1, 8, f) == 8 && fwrite(ifd, 1, sizeof ifd, f) == sizeof ifd &&
        fwrite(px, 1, n, f) == n;
}

static int
write_npy(FILE *f, const uint8_t *px, int64_t w, int64_t h, int c, int bytes)
{
    char head[128];
    int n = snprintf(head, sizeof head, "{'descr': '%s', 'fortran_order': False, 'shape': (%lld, %lld, %d), }",
                     bytes == 2 ? "<u2" : "|u1", (long long)h, (long long)w, c);
    int total = 10 + n + 1;
    int pad = (64 - total % 64) % 64;
    uint8_t pre[10] = { 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0 };
    le(pre + 8, (uint64_t)(n + pad + 1), 2);
    size_t len = (size_t)w * h * c * bytes;
    if (fwrite(pre, 1, 10, f) != 10 || fwrite(head, 1, (size_t)n, f) != (size_t)n)
        return 0;
    for (int i = 0; i < pad; i++)
        fputc(' ', f);
    fputc('\n', f);
    return fwrite(px, 1, len, f) == len;
}

int
fv_cli_write_image(const char *path, const uint8_t *px, int64_t w, int64_t h, int c, int bytes, char *err,
                   size_t errlen)
{
    const char *dot = strrchr(path, '.');
    int (*fn)(FILE *, const uint8_t *, int64_t, int64_t, int, int) = NULL;
    if (dot && !strcmp(dot, ".png"))
        fn = write_png;
    else if (dot && (!strcmp(dot, ".tif") || !strcmp(dot, ".tiff")))
        fn = write_tiff;
    else if (dot && !strcmp(dot, ".npy"))
        fn = write_npy;
    if (!fn) {
        snprintf(err, errlen, "%s: the output must end in .png, .tiff or .npy", path);
        return -1;
    }
    FILE *f = fopen(path, "wb");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    int ok = fn(f, px, w, h, c, bytes);
    if (fclose(f) != 0)
        ok = 0;
    if (!ok) {
        snprintf(err, errlen, "%s: write failed", path);
        remove(path);
        return -1;
    }
    return 0;
}
