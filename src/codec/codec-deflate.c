/* Compressions 8 and 32946: zlib-wrapped deflate through libdeflate (whole-buffer,
 * Adler-32 checked). The decompressor is reused per thread. */
#include <stdlib.h>
#include <libdeflate.h>
#include "codec-impl.h"
#include "alloc.h"

static void
fv__deflate_free_dec(void *p)
{
    libdeflate_free_decompressor(p);
}

/* a compressor is made for one level: keep the level beside it */
typedef struct fv__deflate_enc {
    struct libdeflate_compressor *c;
    int level;
} fv__deflate_enc;

static void
fv__deflate_free_enc(void *p)
{
    fv__deflate_enc *e = p;
    if (e) {
        libdeflate_free_compressor(e->c);
        fv__free(e);
    }
}

const char *
fv__deflate_version(void)
{
    return LIBDEFLATE_VERSION_STRING;
}

fv_status
fv__deflate_decode(const fv__chunk_info *ci, const uint8_t *src, size_t src_len, uint8_t *out, size_t out_len)
{
    struct libdeflate_decompressor *d = fv__codec_tls_take(FV__TLS_DEFLATE_DEC);
    if (!d && !(d = libdeflate_alloc_decompressor()))
        return fv_error_set(FV_ENOMEM, "deflate", "cannot allocate a decompressor");
    /* NULL actual size: the stream must fill out exactly */
    enum libdeflate_result r = libdeflate_zlib_decompress(d, src, src_len, out, out_len, NULL);
    fv__codec_tls_put(FV__TLS_DEFLATE_DEC, d, fv__deflate_free_dec);
    switch (r) {
    case LIBDEFLATE_SUCCESS:
        return FV_OK;
    case LIBDEFLATE_SHORT_OUTPUT:
        return fv_error_set(FV_EFORMAT, "deflate", "stream decodes to fewer than the expected %zu bytes", out_len);
    case LIBDEFLATE_INSUFFICIENT_SPACE:
        return fv_error_set(FV_EFORMAT, "deflate", "stream decodes to more than the expected %zu bytes", out_len);
    default:
        return fv_error_set(FV_EFORMAT, "deflate", "corrupt or truncated zlib stream (%zu bytes)", src_len);
    }
}

fv_status
fv__deflate_encode(const fv__chunk_info *ci, int level, const uint8_t *pixels, size_t len, uint8_t **out,
                   size_t *out_len)
{
    if (level < 0)
        level = 6;
    if (level > 12)
        return fv_error_set(FV_EINVAL, "deflate", "level %d (0..12, negative for the default 6)", level);
    fv_status st = FV_OK;
    uint8_t *buf = NULL;
    fv__deflate_enc *e = fv__codec_tls_take(FV__TLS_DEFLATE_ENC);
    if (e && e->level != level) {
        fv__deflate_free_enc(e);
        e = NULL;
    }
    if (!e) {
        if (!(e = fv__malloc(sizeof *e)))
            return fv_error_set(FV_ENOMEM, "deflate", "cannot allocate a compressor");
        e->level = level;
        if (!(e->c = libdeflate_alloc_compressor(level))) {
            fv__free(e);
            return fv_error_set(FV_ENOMEM, "deflate", "cannot allocate a level-%d compressor", level);
        }
    }
    struct libdeflate_compressor *c = e->c;
    size_t bound = libdeflate_zlib_compress_bound(c, len), n = 0;
    if (!(st = fv__codec_outbuf("deflate", bound, &buf)) && !(n = libdeflate_zlib_compress(c, pixels, len, buf, bound)))
        st = fv_error_set(FV_EINTERNAL, "deflate", "compression of %zu bytes failed", len);
    st = fv__codec_result(st, buf, n, out, out_len);
    fv__codec_tls_put(FV__TLS_DEFLATE_ENC, e, fv__deflate_free_enc);
    return st;
}
