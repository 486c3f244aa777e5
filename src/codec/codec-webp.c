/* Compression 50001: WebP (lossy or lossless) through libwebp, decoded straight
 * into the caller's buffer as RGB or RGBA. */
#include <stdio.h>
#include <webp/decode.h>
#include "codec-impl.h"

const char *
fv__webp_version(void)
{
    static char v[16]; /* called once, under fv__codec_versions' pthread_once */
    int n = WebPGetDecoderVersion();
    snprintf(v, sizeof v, "%d.%d.%d", (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff);
    return v;
}

static const char *
fv__webp_status(VP8StatusCode s)
{
    switch (s) {
    case VP8_STATUS_OK:
        return "ok";
    case VP8_STATUS_OUT_OF_MEMORY:
        return "out of memory";
    case VP8_STATUS_INVALID_PARAM:
        return "invalid parameter";
    case VP8_STATUS_BITSTREAM_ERROR:
        return "corrupt bitstream";
    case VP8_STATUS_UNSUPPORTED_FEATURE:
        return "unsupported feature";
    case VP8_STATUS_SUSPENDED:
        return "suspended";
    case VP8_STATUS_USER_ABORT:
        return "aborted";
    case VP8_STATUS_NOT_ENOUGH_DATA:
        return "truncated stream";
    }
    return "unknown error";
}

fv_status
fv__webp_decode(const fv__chunk_info *ci, const uint8_t *src, size_t src_len, uint8_t *out, size_t out_len)
{
    if (ci->bits != 8 || (ci->samples != 3 && ci->samples != 4))
        return fv_error_set(FV_EUNSUPPORTED, "webp", "%u samples of %u bits (WebP holds 8-bit RGB or RGBA)",
                            ci->samples, ci->bits);
    WebPDecoderConfig cfg;
    if (!WebPInitDecoderConfig(&cfg))
        return fv_error_set(FV_EINTERNAL, "webp", "libwebp version mismatch");
    VP8StatusCode s = WebPGetFeatures(src, src_len, &cfg.input);
    if (s != VP8_STATUS_OK)
        return fv_error_set(s == VP8_STATUS_OUT_OF_MEMORY ? FV_ENOMEM : FV_EFORMAT, "webp", "%s (%zu-byte stream)",
                            fv__webp_status(s), src_len);
    if (cfg.input.width != (int)ci->width || cfg.input.height != (int)ci->height)
        return fv_error_set(FV_EFORMAT, "webp", "image is %dx%d, expected %ux%u", cfg.input.width, cfg.input.height,
                            ci->width, ci->height);
    if (cfg.input.has_animation)
        return fv_error_set(FV_EFORMAT, "webp", "animated WebP in a TIFF chunk");
    cfg.options.use_threads = 0; /* the caller decodes chunks in parallel */
    cfg.output.colorspace = ci->samples == 4 ? MODE_RGBA : MODE_RGB;
    cfg.output.is_external_memory = 1;
    cfg.output.width = cfg.input.width;
    cfg.output.height = cfg.input.height;
    cfg.output.u.RGBA.rgba = out;
    cfg.output.u.RGBA.stride = (int)ci->width * ci->samples;
    cfg.output.u.RGBA.size = out_len;
    s = WebPDecode(src, src_len, &cfg);
    WebPFreeDecBuffer(&cfg.output); /* nothing to free for external memory; keeps the API contract */
    if (s != VP8_STATUS_OK)
        return fv_error_set(s == VP8_STATUS_OUT_OF_MEMORY ? FV_ENOMEM : FV_EFORMAT, "webp", "%s (%zu-byte stream)",
                            fv__webp_status(s), src_len);
    return FV_OK;
}
