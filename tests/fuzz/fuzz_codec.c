/* Fuzz target: one compressed chunk through fv__codec_decode.
 *
 * Input layout (FZ_CODEC_HEADER = 7 bytes, then the stream):
 *   [0] codec: index into codes[] below (mod its length)
 *   [1] width - 1, [2] height - 1           (1..256 pixels each)
 *   [3] bits 0-1: samples - 1 (1..4); bit 4: 16 bits per sample (else 8);
 *       bits 5-6: predictor - 1 (1..4; 3 and 4 are rejected paths)
 *   [4] bits 0-1: photometric (1 MinIsBlack, 2 RGB, 6 YCbCr, 5 Separated);
 *       bit 2: file big-endian; bits 3-5 == 7: sample format 3 (float);
 *       bits 6-7: YCbCrSubSampling (1,1) (2,2) (2,1) (4,4)
 *   [5..6] little-endian length L of a JPEGTables stream taken from the front
 *       of the rest (ignored when longer than what is left)
 * The output buffer is exactly fv__chunk_bytes long (ASan catches any write past
 * it); the decoder must fill it or fail with a status. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "fovea/fovea.h"
#include "codec/codec.h"

#define FZ_CODEC_HEADER 7

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint16_t codes[] = {
    FV_TIFF_COMPRESSION_NONE,
    FV_TIFF_COMPRESSION_LZW,
    FV_TIFF_COMPRESSION_JPEG,
    FV_TIFF_COMPRESSION_DEFLATE,
    FV_TIFF_COMPRESSION_ADOBE_DEFLATE,
    FV_TIFF_COMPRESSION_APERIO_JP2K_YCBCR,
    FV_TIFF_COMPRESSION_APERIO_JP2K_RGB,
    FV_TIFF_COMPRESSION_ZSTD,
    FV_TIFF_COMPRESSION_WEBP,
    32773 /* PackBits: unsupported */,
};

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const uint16_t photo[4] = { 1, 2, 6, 5 };
    static const uint16_t sub[4][2] = { { 1, 1 }, { 2, 2 }, { 2, 1 }, { 4, 4 } };
    if (size < FZ_CODEC_HEADER)
        return 0;
    fv__chunk_info ci;
    memset(&ci, 0, sizeof ci);
    ci.compression = codes[data[0] % (sizeof codes / sizeof codes[0])];
    ci.width = 1u + data[1];
    ci.height = 1u + data[2];
    ci.samples = (uint16_t)(1 + (data[3] & 3));
    ci.bits = (data[3] & 0x10) ? 16 : 8;
    ci.predictor = (uint16_t)(1 + ((data[3] >> 5) & 3));
    ci.photometric = photo[data[4] & 3];
    ci.file_big_endian = (data[4] >> 2) & 1;
    ci.sample_format = ((data[4] >> 3) & 7) == 7 ? 3 : 1;
    ci.ycbcr_sub[0] = sub[data[4] >> 6][0];
    ci.ycbcr_sub[1] = sub[data[4] >> 6][1];
    size_t tl = (size_t)data[5] | (size_t)data[6] << 8;
    const uint8_t *rest = data + FZ_CODEC_HEADER;
    size_t rest_len = size - FZ_CODEC_HEADER;
    if (tl > rest_len)
        tl = 0;
    uint8_t *tables = NULL;
    if (tl) { /* own copies: ASan sees reads past either buffer */
        tables = malloc(tl);
        memcpy(tables, rest, tl);
        ci.jpeg_tables = tables;
        ci.jpeg_tables_len = tl;
    }
    size_t slen = rest_len - tl;
    uint8_t *src = malloc(slen ? slen : 1);
    if (slen)
        memcpy(src, rest + tl, slen);
    size_t need = 0;
    if (fv__chunk_bytes(&ci, &need) == FV_OK) {
        uint8_t *out = malloc(need);
        if (out) {
            fv_status st = fv__codec_decode(&ci, src, slen, out, need);
            if (st == FV_OK) {
                /* touch every byte: uninitialised output shows up under MSan */
                volatile uint8_t acc = 0;
                for (size_t i = 0; i < need; i++)
                    acc ^= out[i];
                (void)acc;
            } else if (!fv_error_message()[0]) {
                abort(); /* a failure must say why */
            }
            free(out);
        }
    }
    free(src);
    free(tables);
    return 0;
}
