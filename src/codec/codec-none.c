/* Compression 1: uncompressed samples (byte order and predictor: codec.c). */
#include <stdlib.h>
#include <string.h>
#include "codec-impl.h"
#include "alloc.h"

fv_status
fv__none_decode(const fv__chunk_info *ci, const uint8_t *src, size_t src_len, uint8_t *out, size_t out_len)
{
    /* Writers pad nothing here: a chunk of another size is a broken byte count. */
    if (src_len != out_len)
        return fv_error_set(FV_EFORMAT, "codec", "uncompressed %ux%u chunk holds %zu bytes, expected %zu", ci->width,
                            ci->height, src_len, out_len);
    memcpy(out, src, out_len);
    return FV_OK;
}

fv_status
fv__none_encode(const fv__chunk_info *ci, int level, const uint8_t *pixels, size_t len, uint8_t **out, size_t *out_len)
{
    uint8_t *p = fv__malloc(len);
    if (!p)
        return fv_error_set(FV_ENOMEM, "codec", "cannot allocate %zu bytes", len);
    memcpy(p, pixels, len);
    *out = p;
    *out_len = len;
    return FV_OK;
}
