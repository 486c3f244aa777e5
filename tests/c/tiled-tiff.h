/* Test fixture: a classic little-endian tiled RGB TIFF, uncompressed, one level,
 * w x h pixels in t x t tiles, pixel values from fv_t_px (0 outside the image). */
#ifndef FV_TEST_TILED_TIFF_H
#define FV_TEST_TILED_TIFF_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint8_t
fv_t_px(int64_t x, int64_t y, int c)
{
    return (uint8_t)((x * 7 + y * 13 + c * 85 + ((x ^ y) & 31)) & 255);
}

static void
fv_t_le(uint8_t *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void
fv_t_write_tiled_tiff(const char *path, int64_t w, int64_t h, int t)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return;
    uint64_t across = (uint64_t)(w + t - 1) / (uint64_t)t, down = (uint64_t)(h + t - 1) / (uint64_t)t;
    uint64_t n = across * down, tile_bytes = (uint64_t)t * (uint64_t)t * 3;
    uint8_t hdr[8] = {'I', 'I', 42, 0};
    uint64_t data_off = 8, arrays = data_off + n * tile_bytes, bps = arrays + 8 * n, ifd = bps + 8;
    fv_t_le(hdr + 4, ifd, 4);
    fwrite(hdr, 1, 8, f);
    uint8_t *tile = malloc(tile_bytes);
    for (uint64_t k = 0; k < n; k++) {
        int64_t x0 = (int64_t)(k % across) * t, y0 = (int64_t)(k / across) * t;
        for (int y = 0; y < t; y++)
            for (int x = 0; x < t; x++)
                for (int c = 0; c < 3; c++)
                    tile[((size_t)y * t + x) * 3 + c] = (x0 + x < w && y0 + y < h) ? fv_t_px(x0 + x, y0 + y, c) : 0;
        fwrite(tile, 1, tile_bytes, f);
    }
    free(tile);
    for (int pass = 0; pass < 2; pass++)   /* TileOffsets, then TileByteCounts */
        for (uint64_t k = 0; k < n; k++) {
            uint8_t b[4];
            fv_t_le(b, pass ? tile_bytes : data_off + k * tile_bytes, 4);
            fwrite(b, 1, 4, f);
        }
    uint8_t b8[8] = {8, 0, 8, 0, 8, 0, 0, 0};
    fwrite(b8, 1, 8, f);
    struct { uint16_t tag, type; uint32_t count, val; } e[] = {
        {256, 4, 1, (uint32_t)w}, {257, 4, 1, (uint32_t)h}, {258, 3, 3, (uint32_t)bps}, {259, 3, 1, 1},
        {262, 3, 1, 2}, {277, 3, 1, 3}, {284, 3, 1, 1}, {322, 4, 1, (uint32_t)t}, {323, 4, 1, (uint32_t)t},
        {324, 4, (uint32_t)n, (uint32_t)arrays}, {325, 4, (uint32_t)n, (uint32_t)(arrays + 4 * n)}};
    int ne = (int)(sizeof e / sizeof e[0]);
    uint8_t cnt[2];
    fv_t_le(cnt, (uint64_t)ne, 2);
    fwrite(cnt, 1, 2, f);
    for (int i = 0; i < ne; i++) {
        uint8_t ent[12] = {0};
        fv_t_le(ent, e[i].tag, 2);
        fv_t_le(ent + 2, e[i].type, 2);
        fv_t_le(ent + 4, e[i].count, 4);
        fv_t_le(ent + 8, e[i].val, e[i].type == 3 && e[i].count == 1 ? 2 : 4);
        fwrite(ent, 1, 12, f);
    }
    uint8_t z[4] = {0};
    fwrite(z, 1, 4, f);
    fclose(f);
}

#endif
