/* Compression 5: TIFF LZW (TIFF 6.0 section 13), decoder only.
 *
 * Codes are read MSB-first, 9 to 12 bits wide; 256 = Clear, 257 = EOI, table
 * entries from 258. The width grows one code early ("early change"): to w+1 bits
 * as soon as the next free entry reaches 2^w - 1, as libtiff writes it.
 *
 * Every table entry is a string that already sits in the output: the entry made
 * after code c is the previous code's string plus the first byte of c's string,
 * and those bytes are contiguous in the output. So an entry is just (offset,
 * length) into out, and emitting a code is one copy from earlier output. */
#include <string.h>
#include "codec-impl.h"

#define LZW_CLEAR 256u
#define LZW_EOI 257u
#define LZW_FIRST 258u
#define LZW_MAX_CODES 4096u

/* The input byte where the code just read starts (for messages). */
static size_t
fv__lzw_at(size_t in, unsigned have, unsigned width)
{
    return (in * 8 - have - width) / 8;
}

fv_status
fv__lzw_decode(const fv__chunk_info *ci, const uint8_t *src, size_t src_len, uint8_t *out, size_t out_len)
{
    uint32_t off[LZW_MAX_CODES]; /* entries >= LZW_FIRST: offset of the string in out */
    uint32_t len[LZW_MAX_CODES]; /* and its length */
    uint64_t bits = 0;           /* bit reservoir, next code in the low `have` bits */
    unsigned have = 0, width = 9, next = LZW_FIRST;
    size_t in = 0, op = 0;
    size_t prev_pos = 0, prev_len = 0; /* the previous code's string in out */
    int have_prev = 0;

    (void)ci;
    if (src_len >= 2 && src[0] == 0 && (src[1] & 1))
        return fv_error_set(FV_EFORMAT, "lzw", "old-style (pre-TIFF 6.0, LSB-first) LZW is not supported");
    /* chunks are < 1 GiB (FV__MAX_CHUNK_BYTES), so offsets fit 32 bits */
    for (;;) {
        if (have < width) {
            /* refill up to 7 bytes; bits above `have` are stale and masked off */
            while (have <= 56 && in < src_len) {
                bits = (bits << 8) | src[in++];
                have += 8;
            }
            if (have < width)
                goto end; /* no EOI: the data ends here */
        }
        unsigned code = (unsigned)(bits >> (have - width)) & ((1u << width) - 1u);
        have -= width;
        if (code == LZW_CLEAR) {
            width = 9;
            next = LZW_FIRST;
            have_prev = 0;
            continue;
        }
        if (code == LZW_EOI)
            break;
        size_t pos = op, n;
        if (code < 256) {
            if (op >= out_len)
                goto overrun;
            out[op++] = (uint8_t)code;
            n = 1;
        } else if (!have_prev) {
            return fv_error_set(FV_EFORMAT, "lzw", "code %u at byte %zu follows a Clear code (a literal must)", code,
                                fv__lzw_at(in, have, width));
        } else if (code < next) {
            n = len[code];
            if (n > out_len - op)
                goto overrun;
            const uint8_t *s = out + off[code]; /* ends at or before op */
            if (n <= 16) {
                for (size_t i = 0; i < n; i++)
                    out[op + i] = s[i];
            } else {
                memcpy(out + op, s, n);
            }
            op += n;
        } else if (code == next) {
            /* the string being defined: previous string + its own first byte */
            n = prev_len + 1;
            if (n > out_len - op)
                goto overrun;
            memmove(out + op, out + prev_pos, prev_len);
            out[op + prev_len] = out[prev_pos];
            op += n;
        } else {
            return fv_error_set(FV_EFORMAT, "lzw", "code %u at byte %zu is beyond the table (next entry %u)", code,
                                fv__lzw_at(in, have, width), next);
        }
        if (have_prev) {
            if (next >= LZW_MAX_CODES)
                return fv_error_set(FV_EFORMAT, "lzw", "string table overflow at byte %zu (no Clear code)",
                                    fv__lzw_at(in, have, width));
            off[next] = (uint32_t)prev_pos;
            len[next] = (uint32_t)(prev_len + 1);
            next++;
            if (next >= (1u << width) - 1u && width < 12)
                width++;
        }
        prev_pos = pos;
        prev_len = n;
        have_prev = 1;
    }
end:
    if (op != out_len)
        return fv_error_set(FV_EFORMAT, "lzw", "stream decodes to %zu bytes, expected %zu (truncated or corrupt)", op,
                            out_len);
    return FV_OK;
overrun:
    return fv_error_set(FV_EFORMAT, "lzw", "stream decodes to more than the expected %zu bytes", out_len);
}
