/* Compression 50000: Zstandard frames through libzstd. Contexts are reused per
 * thread; single-shot decoding into the output needs no window buffer. */
#include <stdlib.h>
#include <zstd.h>
#include <zstd_errors.h>
#include "codec-impl.h"
#include "alloc.h"

static void
fv__zstd_free_dctx(void *p)
{
    ZSTD_freeDCtx(p);
}

static void
fv__zstd_free_cctx(void *p)
{
    ZSTD_freeCCtx(p);
}

const char *
fv__zstd_version(void)
{
    return ZSTD_versionString();
}

fv_status
fv__zstd_decode(const fv__chunk_info *ci, const uint8_t *src, size_t src_len, uint8_t *out, size_t out_len)
{
    ZSTD_DCtx *d = fv__codec_tls_take(FV__TLS_ZSTD_DCTX);
    if (!d && !(d = ZSTD_createDCtx()))
        return fv_error_set(FV_ENOMEM, "zstd", "cannot allocate a decompression context");
    size_t r = ZSTD_decompressDCtx(d, out, out_len, src, src_len);
    fv__codec_tls_put(FV__TLS_ZSTD_DCTX, d, fv__zstd_free_dctx);
    if (ZSTD_isError(r)) {
        if (ZSTD_getErrorCode(r) == ZSTD_error_memory_allocation)
            return fv_error_set(FV_ENOMEM, "zstd", "%s", ZSTD_getErrorName(r));
        if (ZSTD_getErrorCode(r) == ZSTD_error_dstSize_tooSmall)
            return fv_error_set(FV_EFORMAT, "zstd", "stream decodes to more than the expected %zu bytes", out_len);
        return fv_error_set(FV_EFORMAT, "zstd", "%s (%zu-byte stream)", ZSTD_getErrorName(r), src_len);
    }
    if (r != out_len)
        return fv_error_set(FV_EFORMAT, "zstd", "stream decodes to %zu bytes, expected %zu", r, out_len);
    return FV_OK;
}

fv_status
fv__zstd_encode(const fv__chunk_info *ci, int level, const uint8_t *pixels, size_t len, uint8_t **out, size_t *out_len)
{
    if (level < ZSTD_minCLevel() || level > ZSTD_maxCLevel())
        return fv_error_set(FV_EINVAL, "zstd", "level %d (%d..%d, 0 for the default)", level, ZSTD_minCLevel(),
                            ZSTD_maxCLevel());
    fv_status st = FV_OK;
    uint8_t *buf = NULL;
    ZSTD_CCtx *c = fv__codec_tls_take(FV__TLS_ZSTD_CCTX);
    if (!c && !(c = ZSTD_createCCtx()))
        return fv_error_set(FV_ENOMEM, "zstd", "cannot allocate a compression context");
    size_t bound = ZSTD_compressBound(len), r = 0;
    if (!(st = fv__codec_outbuf("zstd", bound, &buf))) {
        ZSTD_CCtx_reset(c, ZSTD_reset_session_and_parameters);
        r = ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, level);
        if (!ZSTD_isError(r)) /* a checksum lets readers detect corrupt chunks */
            r = ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
        if (!ZSTD_isError(r))
            r = ZSTD_compress2(c, buf, bound, pixels, len);
        if (ZSTD_isError(r))
            st = fv_error_set(FV_EINTERNAL, "zstd", "compression failed: %s", ZSTD_getErrorName(r));
    }
    st = fv__codec_result(st, buf, r, out, out_len);
    fv__codec_tls_put(FV__TLS_ZSTD_CCTX, c, fv__zstd_free_cctx);
    return st;
}
