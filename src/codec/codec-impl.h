/* Between codec.c and the codec-<name>.c files (private to src/codec).
 *
 * codec.c validates the request (fv__chunk_bytes, out_len, sample format,
 * predictor), picks the table entry, calls its decode function and then runs the
 * shared post-processing of the lossless byte codecs (16-bit byte order, TIFF
 * horizontal predictor). A decode function therefore gets a validated chunk and
 * an output buffer of exactly fv__chunk_bytes bytes, and must fill all of it or
 * fail with FV_EFORMAT ("<codec>: ...") or FV_EUNSUPPORTED. */
#ifndef FV_CODEC_IMPL_H
#define FV_CODEC_IMPL_H

#include "codec.h"

typedef fv_status (*fv__codec_decode_fn)(const fv__chunk_info *ci, const uint8_t *src, size_t src_len, uint8_t *out,
                                         size_t out_len);
/* pixels: fv__chunk_bytes bytes; for the lossless byte codecs already predicted
 * and in the file's byte order (codec.c does both). */
typedef fv_status (*fv__codec_encode_fn)(const fv__chunk_info *ci, int level, const uint8_t *pixels, size_t len,
                                         uint8_t **out, size_t *out_len);

/* The declarations of the codecs' decode / encode functions, NAME##_decode and
 * NAME##_encode (the two types above). */
#define FV__CODEC_DECODE(NAME) \
    fv_status NAME##_decode(const fv__chunk_info *ci, const uint8_t *src, size_t src_len, uint8_t *out, size_t out_len)
#define FV__CODEC_ENCODE(NAME)                                                                                     \
    fv_status NAME##_encode(const fv__chunk_info *ci, int level, const uint8_t *pixels, size_t len, uint8_t **out, \
                            size_t *out_len)

FV__CODEC_DECODE(fv__none);
FV__CODEC_ENCODE(fv__none);
FV__CODEC_DECODE(fv__lzw);
FV__CODEC_DECODE(fv__jpeg);
/* Decode at least rect = {x0, y0, w, h} (validated, inside the chunk) into out
 * (out_len >= the whole chunk's bytes), rows of got[2] pixels; got = {x, y, w, h}
 * is the rectangle written. */
fv_status fv__jpeg_decode_rect(const fv__chunk_info *ci, const uint8_t *src, size_t src_len, const uint32_t rect[4],
                               uint8_t *out, size_t out_len, uint32_t got[4]);
/* Decode exactly rect (validated, inside the chunk) into out: rect[3] rows of
 * rect[2] pixels, row r at out + r * stride (out_len bytes from out). */
fv_status fv__jpeg_decode_into(const fv__chunk_info *ci, const uint8_t *src, size_t src_len, const uint32_t rect[4],
                               uint8_t *out, size_t out_len, size_t stride);
FV__CODEC_ENCODE(fv__jpeg);
FV__CODEC_DECODE(fv__deflate);
FV__CODEC_ENCODE(fv__deflate);
FV__CODEC_DECODE(fv__jp2k);
FV__CODEC_DECODE(fv__zstd);
FV__CODEC_ENCODE(fv__zstd);
FV__CODEC_DECODE(fv__webp);

/* An encoder's output buffer of n bytes (fv__malloc) in *buf; FV_ENOMEM naming
 * codec when it cannot be had. */
fv_status fv__codec_outbuf(const char *codec, size_t n, uint8_t **buf);
/* An encoder's result: after an error st, buf freed and st; else buf (from
 * fv__malloc, at least n bytes) shrunk to n bytes in *out (buf itself when
 * shrinking fails), *out_len = n, FV_OK. Either way buf is the caller's no more. */
fv_status fv__codec_result(fv_status st, uint8_t *buf, size_t n, uint8_t **out, size_t *out_len);

/* Version strings for fv__codec_versions ("2.5.0"); static storage; called once. */
const char *fv__jpeg_version(void);
const char *fv__jp2k_version(void);
const char *fv__deflate_version(void);
const char *fv__zstd_version(void);
const char *fv__webp_version(void);

/* ---- per-thread reusable codec contexts -------------------------------------
 * A codec takes its context out of the calling thread's slot (NULL: none yet,
 * create one), uses it, and puts it back; contexts left in slots are destroyed
 * when the thread exits (pthread key destructor) or on fv__codec_thread_cleanup.
 * Only stateless-between-calls contexts belong here (zstd and libdeflate). */
typedef enum fv__codec_tls_slot {
    FV__TLS_DEFLATE_DEC,
    FV__TLS_DEFLATE_ENC,
    FV__TLS_ZSTD_DCTX,
    FV__TLS_ZSTD_CCTX,
    FV__TLS_COUNT
} fv__codec_tls_slot;

void *fv__codec_tls_take(fv__codec_tls_slot slot);
/* Stores obj (ownership moves to the slot); destroys it at once when the slot
 * cannot hold it. obj NULL is a no-op. */
void fv__codec_tls_put(fv__codec_tls_slot slot, void *obj, void (*destroy)(void *));
/* Destroy the calling thread's cached contexts now (tests; pool shutdown). */
void fv__codec_thread_cleanup(void);

#endif
