/* Tile and strip codecs (internal). One file per codec (codec-<name>.c), each
 * exporting a decode (and where `fovea convert` writes it, an encode) function;
 * codec.c holds the table and the entry points below. */
#ifndef FV_CODEC_H
#define FV_CODEC_H

#include <stddef.h>
#include <stdint.h>
#include "internal.h"

/* TIFF compression codes understood here. */
#define FV_TIFF_COMPRESSION_NONE 1
#define FV_TIFF_COMPRESSION_LZW 5
#define FV_TIFF_COMPRESSION_JPEG 7
#define FV_TIFF_COMPRESSION_DEFLATE 8
#define FV_TIFF_COMPRESSION_ADOBE_DEFLATE 32946
#define FV_TIFF_COMPRESSION_APERIO_JP2K_YCBCR 33003
#define FV_TIFF_COMPRESSION_APERIO_JP2K_RGB 33005
#define FV_TIFF_COMPRESSION_ZSTD 50000
#define FV_TIFF_COMPRESSION_WEBP 50001

#define FV_TIFF_PHOTOMETRIC_MINISBLACK 1
#define FV_TIFF_PHOTOMETRIC_RGB 2
#define FV_TIFF_PHOTOMETRIC_YCBCR 6

/* Everything a codec needs to know about one compressed chunk (tile or strip). */
typedef struct fv__chunk_info {
    uint32_t width, height;     /* pixels in this chunk: the tile size, or image width x strip rows */
    uint16_t samples;           /* samples per pixel in the file: 1, 3 or 4 */
    uint16_t bits;              /* bits per sample: 8 or 16 */
    uint16_t sample_format;     /* 1 unsigned integer (others: FV_EUNSUPPORTED) */
    uint16_t compression;       /* FV_TIFF_COMPRESSION_* */
    uint16_t photometric;       /* FV_TIFF_PHOTOMETRIC_* */
    uint16_t predictor;         /* 1 none, 2 horizontal differencing */
    uint16_t ycbcr_sub[2];      /* YCbCrSubSampling (JPEG handles its own) */
    int file_big_endian;        /* byte order of 16-bit samples in non-JPEG data */
    const uint8_t *jpeg_tables; /* JPEGTables tag (abbreviated table stream), or NULL */
    size_t jpeg_tables_len;
} fv__chunk_info;

/* Bytes of decoded output for a chunk: width * height * samples * bits/8. FV_EINVAL
 * when that overflows or exceeds FV__MAX_CHUNK_BYTES. */
#define FV__MAX_CHUNK_BYTES ((size_t)1 << 30)
fv_status fv__chunk_bytes(const fv__chunk_info *ci, size_t *out);

/* Decode one compressed chunk into out (exactly fv__chunk_bytes bytes): samples
 * interleaved per pixel, native byte order; YCbCr JPEG and Aperio 33003 come out
 * as RGB. A stream that is corrupt, truncated, or decodes to another size fails
 * with FV_EFORMAT and a message naming the codec; an unsupported combination with
 * FV_EUNSUPPORTED. Thread-safe (no shared state); never prints. */
fv_status fv__codec_decode(const fv__chunk_info *ci, const uint8_t *src, size_t src_len, uint8_t *out, size_t out_len);

/* Decode at least the rectangle [x0, x0+w) x [y0, y0+h) of a chunk (w, h >= 1,
 * inside the chunk) into out, which holds at least fv__chunk_bytes bytes; the
 * rectangle actually decoded comes back in *ox, *oy, *ow, *oh (it contains the
 * request and may be larger), written as *oh rows of *ow pixels from out[0], laid
 * out as fv__codec_decode's. Its pixels equal those of a whole decode. Only JPEG
 * (compression 7, sequential, single scan) decodes less: iMCU-aligned, with a
 * margin of one iMCU where chroma is subsampled (fancy upsampling); every other
 * chunk is decoded whole and reported as (0, 0, width, height). Errors as
 * fv__codec_decode, except that a JPEG stream corrupt only below the rectangle's
 * last iMCU row may go unnoticed. */
fv_status fv__codec_decode_rect(const fv__chunk_info *ci, const uint8_t *src, size_t len, uint32_t x0, uint32_t y0,
                                uint32_t w, uint32_t h, uint8_t *out, size_t out_len, uint32_t *ox, uint32_t *oy,
                                uint32_t *ow, uint32_t *oh);

/* Decode exactly the rectangle [x0, x0+w) x [y0, y0+h) of a chunk (w, h >= 1,
 * inside the chunk) into a strided destination: h rows of w pixels laid out as
 * fv__codec_decode's, row r at dst + r * stride (stride >= w pixels' bytes; dst
 * holds (h - 1) * stride + w pixels' bytes). The pixels equal those of a whole
 * decode. JPEG (sequential, single scan) decodes only the iMCU rows and columns
 * needed (as fv__codec_decode_rect) and writes rows straight to dst when the
 * rectangle spans whole iMCU columns; other chunks are decoded whole into a
 * temporary buffer and copied. Errors as fv__codec_decode_rect; on failure dst's
 * contents are unspecified. */
fv_status fv__codec_decode_into(const fv__chunk_info *ci, const uint8_t *src, size_t len, uint32_t x0, uint32_t y0,
                                uint32_t w, uint32_t h, uint8_t *dst, size_t stride);

/* Encode a chunk for `fovea convert` (compression JPEG (level = quality 1..100),
 * deflate/zstd (level), or none). *out is malloc'd; the caller frees it. */
fv_status fv__codec_encode(const fv__chunk_info *ci, int level, const uint8_t *pixels, uint8_t **out, size_t *out_len);

/* Name of a compression code for messages and tiff.* properties ("JPEG"). */
const char *fv__codec_name(uint16_t compression);
/* 1 when this build can decode the code. */
int fv__codec_supported(uint16_t compression);
/* Library versions for fv_config_json ("libjpeg-turbo 2.1.5, openjpeg 2.5.0, ..."). */
const char *fv__codec_versions(void);

#endif
