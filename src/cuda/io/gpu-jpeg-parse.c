/* GPU JPEG decoding, the host-side half: stream parsing (fv__jpeg_probe,
 * fv__jpeg_splice_tables and the structural check that decode runs on every
 * stream). Plain C, compiled in every CUDA build, fuzz-safe (every length is
 * bounds-checked). The decoder is in gpu-jpeg.c, which describes both. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/io/gpu-jpeg-internal.h"

/* ---- host-side parsing ------------------------------------------------------------ */

static unsigned
rd16(const uint8_t *p)
{
    return (unsigned)p[0] << 8 | p[1];
}

/* SOFn markers: C0..CF except DHT (C4), JPG (C8) and DAC (CC) */
static int
is_sof(int m)
{
    return m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC;
}

/* Walk the markers of data[0..len) up to and including the first SOS header.
 * Fills *out (when not NULL) and *entropy (offset of the first entropy-coded byte).
 * Sets the error message and returns FV_EFORMAT on anything malformed. */
fv_status
fv__jpeg_walk_headers(const uint8_t *data, size_t len, fv__jpeg_probe_info *out, size_t *entropy)
{
    fv__jpeg_probe_info info;
    int have_sof = 0, have_dqt = 0, have_dht = 0;
    size_t pos = 2;

    memset(&info, 0, sizeof info);
    info.adobe_transform = -1;
    info.sof = -1;
    if (!data || len < 4 || data[0] != 0xFF || data[1] != 0xD8)
        return fv_error_set(FV_EFORMAT, FV__GJ_DOMAIN, "not a JPEG stream (no SOI marker)");
    for (;;) {
        int m;
        size_t seglen;
        const uint8_t *p;
        if (pos >= len || data[pos] != 0xFF)
            return fv_error_set(FV_EFORMAT, FV__GJ_DOMAIN,
                                pos >= len ? "stream ends before SOS (truncated or tables only)"
                                           : "no marker where one must be (offset %zu)",
                                pos);
        while (pos < len && data[pos] == 0xFF) /* fill bytes */
            pos++;
        if (pos >= len)
            return fv_error_set(FV_EFORMAT, FV__GJ_DOMAIN, "stream ends before SOS (truncated)");
        m = data[pos++];
        if (m == 0x01 || (m >= 0xD0 && m <= 0xD7)) /* TEM, RSTn: no length */
            continue;
        if (m == 0xD8)
            return fv_error_set(FV_EFORMAT, FV__GJ_DOMAIN, "second SOI marker at offset %zu", pos - 2);
        if (m == 0xD9)
            return fv_error_set(FV_EFORMAT, FV__GJ_DOMAIN, "EOI before any SOS (an abbreviated tables-only stream?)");
        if (m == 0x00)
            return fv_error_set(FV_EFORMAT, FV__GJ_DOMAIN, "invalid marker 0xFF00 at offset %zu", pos - 2);
        if (len - pos < 2)
            return fv_error_set(FV_EFORMAT, FV__GJ_DOMAIN, "truncated marker segment 0xFF%02X", m);
        seglen = rd16(data + pos);
        if (seglen < 2 || seglen > len - pos)
            return fv_error_set(FV_EFORMAT, FV__GJ_DOMAIN,
                                "marker 0xFF%02X at offset %zu: length %zu runs past the end (%zu bytes)", m, pos - 2,
                                seglen, len);
        p = data + pos + 2; /* payload */
        seglen -= 2;        /* payload length */
        if (is_sof(m)) {
            int nf;
            if (have_sof)
                return fv_error_set(FV_EFORMAT, FV__GJ_DOMAIN, "more than one SOF marker");
            if (seglen < 6)
                return fv_error_set(FV_EFORMAT, FV__GJ_DOMAIN, "SOF segment too short");
            nf = p[5];
            if (nf < 1 || nf > 4 || seglen != 6 + 3 * (size_t)nf)
                return fv_error_set(FV_EFORMAT, FV__GJ_DOMAIN, "SOF: %d components in a %zu-byte segment", nf,
                                    seglen + 2);
            info.sof = m - 0xC0;
            info.precision = p[0];
            info.height = (int)rd16(p + 1);
            info.width = (int)rd16(p + 3);
            info.components = nf;
            if (info.width == 0)
                return fv_error_set(FV_EFORMAT, FV__GJ_DOMAIN, "SOF: width 0");
            for (int c = 0; c < nf; c++) {
                int h = p[6 + 3 * c + 1] >> 4, v = p[6 + 3 * c + 1] & 15;
                if (h < 1 || h > 4 || v < 1 || v > 4)
                    return fv_error_set(FV_EFORMAT, FV__GJ_DOMAIN, "SOF: component %d has sampling %dx%d", c, h, v);
                info.hsamp[c] = h;
                info.vsamp[c] = v;
            }
            have_sof = 1;
        } else if (m == 0xDB) {
            have_dqt = 1;
        } else if (m == 0xC4) {
            have_dht = 1;
        } else if (m == 0xE0 && seglen >= 5 && memcmp(p, "JFIF\0", 5) == 0) {
            info.jfif = 1;
        } else if (m == 0xEE && seglen >= 12 && memcmp(p, "Adobe", 5) == 0) {
            info.adobe_transform = p[11];
        } else if (m == 0xDA) {
            int ns;
            if (!have_sof)
                return fv_error_set(FV_EFORMAT, FV__GJ_DOMAIN, "SOS before SOF");
            if (seglen < 1)
                return fv_error_set(FV_EFORMAT, FV__GJ_DOMAIN, "SOS segment too short");
            ns = p[0];
            if (ns < 1 || ns > 4 || seglen != 4 + 2 * (size_t)ns)
                return fv_error_set(FV_EFORMAT, FV__GJ_DOMAIN, "SOS: %d components in a %zu-byte segment", ns,
                                    seglen + 2);
            pos += 2 + seglen;
            break;
        }
        pos += 2 + seglen;
    }

    /* what nvJPEG's batched decoders take (see the header) */
    info.gpu_ok = (info.sof == 0 || info.sof == 1) && info.precision == 8 && info.height > 0 && have_dqt && have_dht &&
        (info.components == 1 || info.components == 3);
    if (info.gpu_ok && info.components == 3) {
        /* chroma at 1x1; luma a supported multiple: 4:4:4, 4:2:2, 4:2:0, 4:4:0, 4:1:1, 4:1:0 */
        int h = info.hsamp[0], v = info.vsamp[0];
        int chroma11 = info.hsamp[1] == 1 && info.vsamp[1] == 1 && info.hsamp[2] == 1 && info.vsamp[2] == 1;
        int luma = (h == 1 && v == 1) || (h == 2 && v == 1) || (h == 2 && v == 2) || (h == 1 && v == 2) ||
            (h == 4 && v == 1) || (h == 4 && v == 2);
        info.gpu_ok = chroma11 && luma;
    }
    if (out)
        *out = info;
    if (entropy)
        *entropy = pos;
    return FV_OK;
}

fv_status
fv__jpeg_probe(const uint8_t *data, size_t len, fv__jpeg_probe_info *out)
{
    if (!out)
        return fv_error_set(FV_EINVAL, FV__GJ_DOMAIN, "probe: out is NULL");
    memset(out, 0, sizeof *out);
    out->adobe_transform = -1;
    return fv__jpeg_walk_headers(data, len, out, NULL);
}

size_t
fv__jpeg_splice_tables(const uint8_t *tables, size_t tables_len, const uint8_t *tile, size_t tile_len, uint8_t *dst,
                       size_t cap)
{
    size_t head, need;
    if (!tile || tile_len < 4 || tile[0] != 0xFF || tile[1] != 0xD8 || !dst)
        return 0;
    if (!tables || tables_len == 0) {
        if (cap < tile_len)
            return 0;
        memmove(dst, tile, tile_len);
        return tile_len;
    }
    /* SOI ... EOI, at least SOI EOI */
    if (tables_len < 4 || tables[0] != 0xFF || tables[1] != 0xD8 || tables[tables_len - 2] != 0xFF ||
        tables[tables_len - 1] != 0xD9)
        return 0;
    head = tables_len - 2;        /* tables without EOI */
    need = head + (tile_len - 2); /* + tile without SOI; cannot overflow: both fit in memory */
    if (need < head || cap < need)
        return 0;
    memcpy(dst, tables, head);
    memcpy(dst + head, tile + 2, tile_len - 2);
    return need;
}

/* The entropy-coded part of data[0..len) from `pos` (just after the first SOS
 * header): only stuffed bytes, fill bytes, RSTn, and between scans DHT / DQT / DRI
 * / COM / APPn / SOS segments may appear, and an EOI must end it. */
fv_status
fv__jpeg_check_entropy(const uint8_t *data, size_t len, size_t pos)
{
    while (pos < len) {
        const uint8_t *ff = memchr(data + pos, 0xFF, len - pos);
        int m;
        if (!ff)
            break;
        pos = (size_t)(ff - data) + 1;
        while (pos < len && data[pos] == 0xFF)
            pos++;
        if (pos >= len)
            break;
        m = data[pos++];
        if (m == 0x00 || (m >= 0xD0 && m <= 0xD7))
            continue;
        if (m == 0xD9)
            return FV_OK;
        if (m == 0xC4 || m == 0xDB || m == 0xDD || m == 0xDA || m == 0xFE || (m >= 0xE0 && m <= 0xEF)) {
            size_t seglen;
            if (len - pos < 2 || (seglen = rd16(data + pos)) < 2 || seglen > len - pos)
                return fv_error_set(FV_EFORMAT, FV__GJ_DOMAIN, "marker 0xFF%02X at offset %zu runs past the end", m,
                                    pos - 2);
            pos += seglen;
            continue;
        }
        return fv_error_set(FV_EFORMAT, FV__GJ_DOMAIN, "corrupt entropy-coded data (marker 0xFF%02X at offset %zu)", m,
                            pos - 2);
    }
    return fv_error_set(FV_EFORMAT, FV__GJ_DOMAIN, "truncated: no EOI marker after the entropy-coded data");
}
