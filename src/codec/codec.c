/* Codec table and entry points: validation, dispatch by TIFF compression code,
 * and the post-processing shared by the lossless byte codecs (16-bit byte order,
 * TIFF horizontal predictor). One codec per codec-<name>.c. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "codec-impl.h"
#include "alloc.h"

/* lossless byte-stream codecs: 8/16-bit samples in the file's byte order */
#define FV__CODEC_BYTES 1u
/* ... that take the TIFF predictor (libtiff: LZW, Deflate, ZSTD; not None) */
#define FV__CODEC_PREDICTOR 2u
#define FV__CODEC_LOSSLESS (FV__CODEC_BYTES | FV__CODEC_PREDICTOR)

typedef struct fv__codec_entry {
    uint16_t code;
    uint16_t flags;
    const char *name;   /* for messages and properties */
    const char *domain; /* error domain of the codec */
    fv__codec_decode_fn decode;
    fv__codec_encode_fn encode;
} fv__codec_entry;

/* Every code we can name; those without a decoder are known but unsupported. */
static const fv__codec_entry fv__codecs[] = {
    { FV_TIFF_COMPRESSION_NONE, FV__CODEC_BYTES, "None", "codec", fv__none_decode, fv__none_encode },
    { 2, 0, "CCITT RLE", "codec", NULL, NULL },
    { 3, 0, "CCITT Group 3", "codec", NULL, NULL },
    { 4, 0, "CCITT Group 4", "codec", NULL, NULL },
    { FV_TIFF_COMPRESSION_LZW, FV__CODEC_LOSSLESS, "LZW", "lzw", fv__lzw_decode, NULL },
    { 6, 0, "Old-style JPEG", "codec", NULL, NULL },
    { FV_TIFF_COMPRESSION_JPEG, 0, "JPEG", "jpeg", fv__jpeg_decode, fv__jpeg_encode },
    { FV_TIFF_COMPRESSION_DEFLATE, FV__CODEC_LOSSLESS, "Deflate", "deflate", fv__deflate_decode, fv__deflate_encode },
    { 32773, 0, "PackBits", "codec", NULL, NULL },
    { FV_TIFF_COMPRESSION_ADOBE_DEFLATE, FV__CODEC_LOSSLESS, "Adobe Deflate", "deflate", fv__deflate_decode,
      fv__deflate_encode },
    { FV_TIFF_COMPRESSION_APERIO_JP2K_YCBCR, 0, "Aperio JPEG 2000 YCbCr", "jp2k", fv__jp2k_decode, NULL },
    { FV_TIFF_COMPRESSION_APERIO_JP2K_RGB, 0, "Aperio JPEG 2000 RGB", "jp2k", fv__jp2k_decode, NULL },
    { 34712, 0, "JPEG 2000", "codec", NULL, NULL },
    { 34887, 0, "LERC", "codec", NULL, NULL },
    { 34925, 0, "LZMA", "codec", NULL, NULL },
    { FV_TIFF_COMPRESSION_ZSTD, FV__CODEC_LOSSLESS, "ZSTD", "zstd", fv__zstd_decode, fv__zstd_encode },
    { FV_TIFF_COMPRESSION_WEBP, 0, "WebP", "webp", fv__webp_decode, NULL },
    { 50002, 0, "JPEG XL", "codec", NULL, NULL },
};

static const fv__codec_entry *
fv__codec_find(uint16_t code)
{
    for (size_t i = 0; i < sizeof fv__codecs / sizeof fv__codecs[0]; i++)
        if (fv__codecs[i].code == code)
            return &fv__codecs[i];
    return NULL;
}

const char *
fv__codec_name(uint16_t compression)
{
    const fv__codec_entry *e = fv__codec_find(compression);
    return e ? e->name : "unknown";
}

int
fv__codec_supported(uint16_t compression)
{
    const fv__codec_entry *e = fv__codec_find(compression);
    return e && e->decode;
}

static char fv__versions[256];
static pthread_once_t fv__versions_once = PTHREAD_ONCE_INIT;

static void
fv__versions_init(void)
{
    snprintf(fv__versions, sizeof fv__versions, "libjpeg-turbo %s, openjpeg %s, libdeflate %s, zstd %s, libwebp %s",
             fv__jpeg_version(), fv__jp2k_version(), fv__deflate_version(), fv__zstd_version(), fv__webp_version());
}

const char *
fv__codec_versions(void)
{
    pthread_once(&fv__versions_once, fv__versions_init);
    return fv__versions;
}

fv_status
fv__chunk_bytes(const fv__chunk_info *ci, size_t *out)
{
    if (!ci || !out)
        return fv_error_set(FV_EINVAL, "codec", "NULL argument");
    if (!ci->width || !ci->height)
        return fv_error_set(FV_EINVAL, "codec", "empty chunk (%ux%u pixels)", ci->width, ci->height);
    if (!ci->samples)
        return fv_error_set(FV_EINVAL, "codec", "0 samples per pixel");
    if (ci->samples > 4)
        return fv_error_set(FV_EUNSUPPORTED, "codec", "%u samples per pixel (at most 4)", ci->samples);
    if (ci->bits != 8 && ci->bits != 16)
        return fv_error_set(FV_EUNSUPPORTED, "codec", "%u bits per sample (8 or 16 are supported)", ci->bits);
    uint64_t pixels = (uint64_t)ci->width * ci->height; /* < 2^64: both are 32-bit */
    if (pixels > FV__MAX_CHUNK_BYTES)
        return fv_error_set(FV_EINVAL, "codec", "chunk of %ux%u pixels is too large", ci->width, ci->height);
    uint64_t n = pixels * ci->samples * (ci->bits / 8u);
    if (n > FV__MAX_CHUNK_BYTES)
        return fv_error_set(FV_EINVAL, "codec", "chunk of %ux%u pixels x %u samples x %u bits exceeds %zu bytes",
                            ci->width, ci->height, ci->samples, ci->bits, FV__MAX_CHUNK_BYTES);
    *out = (size_t)n;
    return FV_OK;
}

/* ---- shared post-processing ----------------------------------------------------- */

static int
fv__host_big_endian(void)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return 1;
#else
    return 0;
#endif
}

static void
fv__swap16(uint8_t *p, size_t nbytes)
{
    for (size_t i = 0; i + 1 < nbytes; i += 2) {
        uint8_t t = p[i];
        p[i] = p[i + 1];
        p[i + 1] = t;
    }
}

/* Undo (decode = 1) or apply (decode = 0) horizontal differencing, row by row. */
static void
fv__predict8(uint8_t *p, size_t width, size_t height, size_t spp, int decode)
{
    size_t row = width * spp;
    for (size_t y = 0; y < height; y++) {
        uint8_t *r = p + y * row;
        if (decode) {
            switch (spp) {
            case 1:
                for (size_t i = 1; i < row; i++)
                    r[i] = (uint8_t)(r[i] + r[i - 1]);
                break;
            case 3:
                for (size_t i = 3; i < row; i += 3) {
                    r[i] = (uint8_t)(r[i] + r[i - 3]);
                    r[i + 1] = (uint8_t)(r[i + 1] + r[i - 2]);
                    r[i + 2] = (uint8_t)(r[i + 2] + r[i - 1]);
                }
                break;
            default:
                for (size_t i = spp; i < row; i++)
                    r[i] = (uint8_t)(r[i] + r[i - spp]);
            }
        } else {
            for (size_t i = row; i-- > spp;)
                r[i] = (uint8_t)(r[i] - r[i - spp]);
        }
    }
}

/* The same on native-order 16-bit samples (memcpy: the buffer may be unaligned). */
static void
fv__predict16(uint8_t *p, size_t width, size_t height, size_t spp, int decode)
{
    size_t row = width * spp;
    for (size_t y = 0; y < height; y++) {
        uint8_t *r = p + y * row * 2;
        if (decode) {
            for (size_t i = spp; i < row; i++) {
                uint16_t a, b;
                memcpy(&a, r + 2 * i, 2);
                memcpy(&b, r + 2 * (i - spp), 2);
                a = (uint16_t)(a + b);
                memcpy(r + 2 * i, &a, 2);
            }
        } else {
            for (size_t i = row; i-- > spp;) {
                uint16_t a, b;
                memcpy(&a, r + 2 * i, 2);
                memcpy(&b, r + 2 * (i - spp), 2);
                a = (uint16_t)(a - b);
                memcpy(r + 2 * i, &a, 2);
            }
        }
    }
}

/* Checks for the lossless byte codecs: colour model and predictor. */
static fv_status
fv__check_bytes(const fv__chunk_info *ci, const fv__codec_entry *e)
{
    if (ci->photometric == FV_TIFF_PHOTOMETRIC_YCBCR)
        return fv_error_set(FV_EUNSUPPORTED, e->domain, "YCbCr pixels with %s compression are not supported", e->name);
    if (!(e->flags & FV__CODEC_PREDICTOR))
        return FV_OK; /* ignored, as libtiff does */
    if (ci->predictor == 3)
        return fv_error_set(FV_EUNSUPPORTED, e->domain, "floating-point predictor (3) on integer samples");
    if (ci->predictor > 3)
        return fv_error_set(FV_EFORMAT, e->domain, "invalid predictor %u", ci->predictor);
    return FV_OK;
}

static fv_status
fv__check_common(const fv__chunk_info *ci, const fv__codec_entry **entry, size_t *need)
{
    fv_status st = fv__chunk_bytes(ci, need);
    if (st)
        return st;
    const fv__codec_entry *e = fv__codec_find(ci->compression);
    if (!e || !e->decode)
        return fv_error_set(FV_EUNSUPPORTED, "codec", "compression %u (%s) is not supported", ci->compression,
                            e ? e->name : "unknown");
    if (ci->sample_format > 1) /* 0: tag absent, the TIFF default 1 */
        return fv_error_set(FV_EUNSUPPORTED, e->domain, "sample format %u (only unsigned integers are supported)",
                            ci->sample_format);
    if ((e->flags & FV__CODEC_BYTES) && (st = fv__check_bytes(ci, e)))
        return st;
    *entry = e;
    return FV_OK;
}

fv_status
fv__codec_decode(const fv__chunk_info *ci, const uint8_t *src, size_t src_len, uint8_t *out, size_t out_len)
{
    const fv__codec_entry *e = NULL;
    size_t need = 0;
    fv_status st;
    if (!ci || !out || (!src && src_len))
        return fv_error_set(FV_EINVAL, "codec", "NULL argument");
    if ((st = fv__check_common(ci, &e, &need)))
        return st;
    if (out_len != need)
        return fv_error_set(FV_EINVAL, "codec", "output buffer of %zu bytes for a %ux%u chunk of %zu bytes", out_len,
                            ci->width, ci->height, need);
    if (!src_len)
        return fv_error_set(FV_EFORMAT, e->domain, "empty %s chunk (0 bytes)", e->name);
    if ((st = e->decode(ci, src, src_len, out, out_len)))
        return st;
    if (e->flags & FV__CODEC_BYTES) {
        if (ci->bits == 16 && !!ci->file_big_endian != fv__host_big_endian())
            fv__swap16(out, out_len);
        if ((e->flags & FV__CODEC_PREDICTOR) && ci->predictor == 2) {
            if (ci->bits == 8)
                fv__predict8(out, ci->width, ci->height, ci->samples, 1);
            else
                fv__predict16(out, ci->width, ci->height, ci->samples, 1);
        }
    }
    return FV_OK;
}

fv_status
fv__codec_decode_rect(const fv__chunk_info *ci, const uint8_t *src, size_t len, uint32_t x0, uint32_t y0, uint32_t w,
                      uint32_t h, uint8_t *out, size_t out_len, uint32_t *ox, uint32_t *oy, uint32_t *ow, uint32_t *oh)
{
    const fv__codec_entry *e = NULL;
    size_t need = 0;
    fv_status st;
    if (!ci || !out || (!src && len) || !ox || !oy || !ow || !oh)
        return fv_error_set(FV_EINVAL, "codec", "NULL argument");
    if ((st = fv__check_common(ci, &e, &need)))
        return st;
    if (out_len < need)
        return fv_error_set(FV_EINVAL, "codec", "output buffer of %zu bytes for a %ux%u chunk of %zu bytes", out_len,
                            ci->width, ci->height, need);
    if (!w || !h || x0 >= ci->width || y0 >= ci->height || w > ci->width - x0 || h > ci->height - y0)
        return fv_error_set(FV_EINVAL, "codec", "rectangle (%u, %u) + %ux%u is not inside the %ux%u chunk", x0, y0, w,
                            h, ci->width, ci->height);
    if (ci->compression == FV_TIFF_COMPRESSION_JPEG && (x0 || y0 || w < ci->width || h < ci->height)) {
        if (!len)
            return fv_error_set(FV_EFORMAT, e->domain, "empty %s chunk (0 bytes)", e->name);
        uint32_t rect[4] = { x0, y0, w, h }, got[4];
        if ((st = fv__jpeg_decode_rect(ci, src, len, rect, out, out_len, got)))
            return st;
        *ox = got[0], *oy = got[1], *ow = got[2], *oh = got[3];
        return FV_OK;
    }
    if ((st = fv__codec_decode(ci, src, len, out, need)))
        return st;
    *ox = 0, *oy = 0, *ow = ci->width, *oh = ci->height;
    return FV_OK;
}

fv_status
fv__codec_decode_into(const fv__chunk_info *ci, const uint8_t *src, size_t len, uint32_t x0, uint32_t y0, uint32_t w,
                      uint32_t h, uint8_t *dst, size_t stride)
{
    const fv__codec_entry *e = NULL;
    size_t need = 0;
    uint8_t *tmp = NULL;
    fv_status st;
    if (!ci || !dst || (!src && len))
        return fv_error_set(FV_EINVAL, "codec", "NULL argument");
    if ((st = fv__check_common(ci, &e, &need)))
        return st;
    if (!w || !h || x0 >= ci->width || y0 >= ci->height || w > ci->width - x0 || h > ci->height - y0)
        return fv_error_set(FV_EINVAL, "codec", "rectangle (%u, %u) + %ux%u is not inside the %ux%u chunk", x0, y0, w,
                            h, ci->width, ci->height);
    const size_t psz = need / ((size_t)ci->width * ci->height), w_bytes = (size_t)w * psz;
    if (stride < w_bytes)
        return fv_error_set(FV_EINVAL, "codec", "stride of %zu bytes for rows of %zu bytes", stride, w_bytes);
    if (ci->compression == FV_TIFF_COMPRESSION_JPEG) {
        if (!len)
            return fv_error_set(FV_EFORMAT, e->domain, "empty %s chunk (0 bytes)", e->name);
        uint32_t rect[4] = { x0, y0, w, h };
        return fv__jpeg_decode_into(ci, src, len, rect, dst, (size_t)(h - 1) * stride + w_bytes, stride);
    }
    if (!(tmp = fv__malloc(need)))
        return fv_error_set(FV_ENOMEM, "codec", "cannot allocate %zu bytes", need);
    if (!(st = fv__codec_decode(ci, src, len, tmp, need)))
        for (uint32_t r = 0; r < h; r++)
            memcpy(dst + (size_t)r * stride, tmp + ((size_t)(y0 + r) * ci->width + x0) * psz, w_bytes);
    fv__free(tmp);
    return st;
}

fv_status
fv__codec_encode(const fv__chunk_info *ci, int level, const uint8_t *pixels, uint8_t **out, size_t *out_len)
{
    const fv__codec_entry *e = NULL;
    size_t need = 0;
    uint8_t *tmp = NULL;
    fv_status st;
    if (!ci || !pixels || !out || !out_len)
        return fv_error_set(FV_EINVAL, "codec", "NULL argument");
    *out = NULL;
    *out_len = 0;
    if ((st = fv__check_common(ci, &e, &need)))
        return st;
    if (!e->encode)
        return fv_error_set(FV_EUNSUPPORTED, e->domain, "no encoder for compression %u (%s)", ci->compression, e->name);
    const uint8_t *src = pixels;
    if (ci->predictor > 1 && !(e->flags & FV__CODEC_PREDICTOR)) {
        st = fv_error_set(FV_EUNSUPPORTED, e->domain, "predictor %u with %s compression", ci->predictor, e->name);
        goto done;
    }
    if (e->flags & FV__CODEC_BYTES) {
        int swap = ci->bits == 16 && !!ci->file_big_endian != fv__host_big_endian();
        if (ci->predictor == 2 || swap) {
            if (!(tmp = fv__malloc(need))) {
                st = fv_error_set(FV_ENOMEM, e->domain, "cannot allocate %zu bytes", need);
                goto done;
            }
            memcpy(tmp, pixels, need);
            if (ci->predictor == 2) {
                if (ci->bits == 8)
                    fv__predict8(tmp, ci->width, ci->height, ci->samples, 0);
                else
                    fv__predict16(tmp, ci->width, ci->height, ci->samples, 0);
            }
            if (swap)
                fv__swap16(tmp, need);
            src = tmp;
        }
    }
    st = e->encode(ci, level, src, need, out, out_len);
done:
    fv__free(tmp);
    return st;
}

/* ---- encoders' output buffers ------------------------------------------------------ */

fv_status
fv__codec_outbuf(const char *codec, size_t n, uint8_t **buf)
{
    if (!(*buf = fv__malloc(n)))
        return fv_error_set(FV_ENOMEM, codec, "cannot allocate %zu bytes", n);
    return FV_OK;
}

fv_status
fv__codec_result(fv_status st, uint8_t *buf, size_t n, uint8_t **out, size_t *out_len)
{
    if (st != FV_OK) {
        fv__free(buf);
        return st;
    }
    uint8_t *shrunk = fv__realloc(buf, n);
    *out = shrunk ? shrunk : buf;
    *out_len = n;
    return FV_OK;
}

/* ---- per-thread contexts ---------------------------------------------------------- */

typedef struct fv__tls_block {
    void *obj[FV__TLS_COUNT];
    void (*destroy[FV__TLS_COUNT])(void *);
} fv__tls_block;

static pthread_key_t fv__tls_key;
static pthread_once_t fv__tls_once = PTHREAD_ONCE_INIT;
static int fv__tls_ok;

static void
fv__tls_free(void *p)
{
    fv__tls_block *b = p;
    if (!b)
        return;
    for (int i = 0; i < FV__TLS_COUNT; i++)
        if (b->obj[i] && b->destroy[i])
            b->destroy[i](b->obj[i]);
    fv__free(b);
}

static void
fv__tls_init(void)
{
    fv__tls_ok = pthread_key_create(&fv__tls_key, fv__tls_free) == 0;
}

void *
fv__codec_tls_take(fv__codec_tls_slot slot)
{
    pthread_once(&fv__tls_once, fv__tls_init);
    if (!fv__tls_ok || (unsigned)slot >= FV__TLS_COUNT)
        return NULL;
    fv__tls_block *b = pthread_getspecific(fv__tls_key);
    if (!b)
        return NULL;
    void *obj = b->obj[slot];
    b->obj[slot] = NULL;
    return obj;
}

void
fv__codec_tls_put(fv__codec_tls_slot slot, void *obj, void (*destroy)(void *))
{
    if (!obj)
        return;
    pthread_once(&fv__tls_once, fv__tls_init);
    fv__tls_block *b = NULL;
    if (fv__tls_ok && (unsigned)slot < FV__TLS_COUNT) {
        b = pthread_getspecific(fv__tls_key);
        if (!b && (b = fv__calloc(1, sizeof *b)) && pthread_setspecific(fv__tls_key, b)) {
            fv__free(b);
            b = NULL;
        }
    }
    if (!b) {
        destroy(obj);
        return;
    }
    if (b->obj[slot] && b->destroy[slot])
        b->destroy[slot](b->obj[slot]);
    b->obj[slot] = obj;
    b->destroy[slot] = destroy;
}

void
fv__codec_thread_cleanup(void)
{
    pthread_once(&fv__tls_once, fv__tls_init);
    if (!fv__tls_ok)
        return;
    fv__tls_block *b = pthread_getspecific(fv__tls_key);
    if (b) {
        pthread_setspecific(fv__tls_key, NULL);
        fv__tls_free(b);
    }
}
