/* Compressions 33003 and 33005: Aperio's JPEG 2000 codestreams through OpenJPEG.
 *
 * 33003 holds YCbCr components (chroma usually subsampled 2x horizontally, as
 * component subsampling of the codestream) and comes out as RGB by the JFIF
 * equations with OpenSlide's rounding; 33005 holds RGB. Subsampled components are
 * replicated (nearest neighbour), as OpenSlide does. The input is a raw J2K
 * codestream; a JP2 file (box format) is accepted too. OpenJPEG reads from our
 * buffer through stream callbacks, reports through per-call message callbacks
 * (never stderr), runs strict (truncated codestreams fail) and on the calling
 * thread only (the caller decodes chunks in parallel). */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <openjpeg.h>
#include "codec-impl.h"

/* JPEG 2000 tiles in one TIFF chunk: 4096 = a 16384-pixel chunk in tiles of 256 */
#define FV__J2K_MAX_TILES 4096

const char *
fv__jp2k_version(void)
{
    return opj_version();
}

/* ---- YCbCr -> RGB ------------------------------------------------------------------
 * R = Y + 1.402 (Cr - 128), G = Y - 0.34414 (Cb - 128) - 0.71414 (Cr - 128),
 * B = Y + 1.772 (Cb - 128); R and B chroma terms rounded, G in 16.16 fixed point
 * with the rounding half folded into the Cb term. */
static int16_t fv__r_cr[256], fv__b_cb[256];
static int32_t fv__g_cb[256], fv__g_cr[256];
static pthread_once_t fv__ycc_once = PTHREAD_ONCE_INIT;

static void
fv__ycc_init(void)
{
    for (int i = 0; i < 256; i++) {
        double c = i - 128;
        fv__r_cr[i] = (int16_t)lround(1.402 * c);
        fv__b_cb[i] = (int16_t)lround(1.772 * c);
        fv__g_cb[i] = (int32_t)lround(65536.0 * (0.5 - 0.34414 * c));
        fv__g_cr[i] = (int32_t)lround(65536.0 * -0.71414 * c);
    }
}

static inline uint8_t
fv__clamp8(int v)
{
    return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
}

/* ---- stream over a memory buffer ----------------------------------------------------- */

typedef struct fv__j2k_src {
    const uint8_t *data;
    size_t len, pos;
} fv__j2k_src;

static OPJ_SIZE_T
fv__j2k_read(void *buf, OPJ_SIZE_T n, void *user)
{
    fv__j2k_src *s = user;
    size_t left = s->len - s->pos;
    if (!left)
        return (OPJ_SIZE_T)-1;
    if (n > left)
        n = left;
    memcpy(buf, s->data + s->pos, n);
    s->pos += n;
    return n;
}

static OPJ_OFF_T
fv__j2k_skip(OPJ_OFF_T n, void *user)
{
    fv__j2k_src *s = user;
    size_t old = s->pos;
    if (n >= 0)
        s->pos = (uint64_t)n > s->len - s->pos ? s->len : s->pos + (size_t)n;
    else
        s->pos = (uint64_t) - (n + 1) + 1 > s->pos ? 0 : s->pos - (size_t)(-(n + 1) + 1);
    if (n && s->pos == old)
        return -1;
    return (OPJ_OFF_T)s->pos - (OPJ_OFF_T)old;
}

static OPJ_BOOL
fv__j2k_seek(OPJ_OFF_T off, void *user)
{
    fv__j2k_src *s = user;
    if (off < 0 || (uint64_t)off > s->len)
        return OPJ_FALSE;
    s->pos = (size_t)off;
    return OPJ_TRUE;
}

/* ---- messages ------------------------------------------------------------------------ */

typedef struct fv__j2k_msg {
    char text[256]; /* the first error */
} fv__j2k_msg;

static void
fv__j2k_error(const char *msg, void *user)
{
    fv__j2k_msg *m = user;
    if (m->text[0] || !msg)
        return;
    snprintf(m->text, sizeof m->text, "%s", msg);
    size_t n = strlen(m->text);
    while (n && (m->text[n - 1] == '\n' || m->text[n - 1] == '\r' || m->text[n - 1] == ' '))
        m->text[--n] = '\0';
}

static void
fv__j2k_quiet(const char *msg, void *user)
{
    (void)msg;
    (void)user;
}

/* ---- decode ---------------------------------------------------------------------------- */

static fv_status
fv__j2k_fail(const fv__j2k_msg *m, const char *what)
{
    /* OpenJPEG reports its allocation failures only as text ("Not enough memory ...",
     * "Cannot allocate memory", "memory error") */
    int oom = strstr(m->text, "memory") || strstr(m->text, "Memory");
    return fv_error_set(oom ? FV_ENOMEM : FV_EFORMAT, "jp2k", "%s", m->text[0] ? m->text : what);
}

/* ---- the SIZ marker, checked before OpenJPEG sees the stream ------------------------------ */

static uint32_t
fv__be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* OpenJPEG allocates per tile of the codestream's tile grid while it reads the
 * header, and frees per tile after: a 500-byte stream declaring a 17 x 561417
 * image in 62,000 tiles took 1 s and 740 MB (20 s under ASan) before the size check
 * that follows opj_read_header could refuse it (found by fuzz_codec). So the SIZ
 * segment (the codestream's first, after SOC; inside the jp2c box of a JP2 file) is
 * checked first: the image must be the chunk's size, the tile grid as ISO 15444-1
 * A.5.1 requires, and at most FV__J2K_MAX_TILES tiles. */
static fv_status
fv__j2k_check_siz(const fv__chunk_info *ci, const uint8_t *p, size_t n, int jp2)
{
    if (jp2) {
        size_t i = 0;
        int found = 0;
        while (!found && n - i >= 8) {
            uint64_t len = fv__be32(p + i), hdr = 8;
            uint32_t type = fv__be32(p + i + 4);
            if (len == 1) {
                if (n - i < 16)
                    break;
                len = (uint64_t)fv__be32(p + i + 8) << 32 | fv__be32(p + i + 12);
                hdr = 16;
            } else if (len == 0)
                len = n - i;
            if (len < hdr || len > n - i)
                return fv_error_set(FV_EFORMAT, "jp2k", "JP2 box at offset %zu runs past the end of the stream", i);
            if (type == 0x6a703263u) { /* 'jp2c': the codestream */
                p += i + hdr;
                n = (size_t)(len - hdr);
                found = 1;
            } else
                i += (size_t)len;
        }
        if (!found)
            return fv_error_set(FV_EFORMAT, "jp2k", "JP2 file without a codestream box");
    }
    if (n < 42 || p[0] != 0xFF || p[1] != 0x4F || p[2] != 0xFF || p[3] != 0x51)
        return fv_error_set(FV_EFORMAT, "jp2k", "the codestream does not start with SOC and SIZ markers");
    uint32_t X = fv__be32(p + 8), Y = fv__be32(p + 12), XO = fv__be32(p + 16), YO = fv__be32(p + 20);
    uint32_t XT = fv__be32(p + 24), YT = fv__be32(p + 28), XTO = fv__be32(p + 32), YTO = fv__be32(p + 36);
    if (X <= XO || Y <= YO || X - XO != ci->width || Y - YO != ci->height)
        return fv_error_set(FV_EFORMAT, "jp2k", "image is %ux%u, expected %ux%u", X > XO ? X - XO : 0,
                            Y > YO ? Y - YO : 0, ci->width, ci->height);
    if (!XT || !YT || XTO > XO || YTO > YO || (uint64_t)XTO + XT <= XO || (uint64_t)YTO + YT <= YO)
        return fv_error_set(FV_EFORMAT, "jp2k", "bad tile grid: %ux%u tiles from (%u, %u) for an image from (%u, %u)",
                            XT, YT, XTO, YTO, XO, YO);
    uint64_t tw = ((uint64_t)X - XTO + XT - 1) / XT, th = ((uint64_t)Y - YTO + YT - 1) / YT;
    if (tw * th > FV__J2K_MAX_TILES)
        return fv_error_set(FV_EFORMAT, "jp2k", "%llu x %llu tiles of %ux%u in one chunk (limit %d)",
                            (unsigned long long)tw, (unsigned long long)th, XT, YT, FV__J2K_MAX_TILES);
    return FV_OK;
}

fv_status
fv__jp2k_decode(const fv__chunk_info *ci, const uint8_t *src, size_t src_len, uint8_t *out, size_t out_len)
{
    static const uint8_t jp2_magic[12] = { 0, 0, 0, 12, 'j', 'P', ' ', ' ', 13, 10, 0x87, 10 };
    opj_codec_t *codec = NULL;
    opj_stream_t *stream = NULL;
    opj_image_t *image = NULL;
    fv__j2k_msg msg = { { 0 } };
    fv__j2k_src s = { src, src_len, 0 };
    opj_dparameters_t params;
    fv_status st = FV_OK;
    int ycc = ci->compression == FV_TIFF_COMPRESSION_APERIO_JP2K_YCBCR;

    if (ci->bits != 8 || ci->samples != 3)
        return fv_error_set(FV_EUNSUPPORTED, "jp2k", "%u samples of %u bits (Aperio JPEG 2000 is 8-bit RGB)",
                            ci->samples, ci->bits);
    int jp2 = src_len >= sizeof jp2_magic && !memcmp(src, jp2_magic, sizeof jp2_magic);
    if ((st = fv__j2k_check_siz(ci, src, src_len, jp2)))
        return st;
    if (!(codec = opj_create_decompress(jp2 ? OPJ_CODEC_JP2 : OPJ_CODEC_J2K))) {
        st = fv_error_set(FV_ENOMEM, "jp2k", "cannot create a decoder");
        goto done;
    }
    opj_set_info_handler(codec, fv__j2k_quiet, NULL);
    opj_set_warning_handler(codec, fv__j2k_quiet, NULL);
    opj_set_error_handler(codec, fv__j2k_error, &msg);
    opj_set_default_decoder_parameters(&params);
    if (!opj_setup_decoder(codec, &params)) {
        st = fv__j2k_fail(&msg, "cannot set up the decoder");
        goto done;
    }
#if OPJ_VERSION_MAJOR > 2 || (OPJ_VERSION_MAJOR == 2 && OPJ_VERSION_MINOR >= 5)
    opj_decoder_set_strict_mode(codec, OPJ_TRUE);
#endif
    opj_codec_set_threads(codec, 0); /* 0: the calling thread only (1 would start a worker) */

    /* a buffer as large as the chunk (at most 1 MiB): one read callback for a tile */
    size_t bufsize = src_len < ((size_t)1 << 20) ? src_len : ((size_t)1 << 20);
    if (!(stream = opj_stream_create(bufsize, OPJ_TRUE))) {
        st = fv_error_set(FV_ENOMEM, "jp2k", "cannot create a stream");
        goto done;
    }
    opj_stream_set_user_data(stream, &s, NULL);
    opj_stream_set_user_data_length(stream, src_len);
    opj_stream_set_read_function(stream, fv__j2k_read);
    opj_stream_set_skip_function(stream, fv__j2k_skip);
    opj_stream_set_seek_function(stream, fv__j2k_seek);

    if (!opj_read_header(stream, codec, &image) || !image) {
        st = fv__j2k_fail(&msg, "cannot read the codestream header");
        goto done;
    }
    if (image->x1 <= image->x0 || image->y1 <= image->y0 || image->x1 - image->x0 != ci->width ||
        image->y1 - image->y0 != ci->height) {
        st = fv_error_set(FV_EFORMAT, "jp2k", "image is %ux%u, expected %ux%u",
                          image->x1 > image->x0 ? image->x1 - image->x0 : 0,
                          image->y1 > image->y0 ? image->y1 - image->y0 : 0, ci->width, ci->height);
        goto done;
    }
    if (image->numcomps != 3) {
        st = fv_error_set(FV_EFORMAT, "jp2k", "%u components, expected 3", image->numcomps);
        goto done;
    }
    if (!opj_decode(codec, stream, image) || !opj_end_decompress(codec, stream)) {
        st = fv__j2k_fail(&msg, "cannot decode the codestream");
        goto done;
    }

    /* per component: subsampling, and the first sample's index on each axis */
    const int32_t *data[3];
    uint32_t dx[3], dy[3], cx0[3], cy0[3], cw[3];
    for (int c = 0; c < 3; c++) {
        const opj_image_comp_t *k = &image->comps[c];
        if (!k->data || k->dx < 1 || k->dy < 1 || k->dx > 255 || k->dy > 255 || k->prec < 1 || k->prec > 8 || k->sgnd) {
            st = fv_error_set(FV_EFORMAT, "jp2k", "component %d: %u-bit%s, subsampling %ux%u%s", c, k->prec,
                              k->sgnd ? " signed" : "", k->dx, k->dy, k->data ? "" : ", no data");
            goto done;
        }
        if (k->prec != 8) {
            st = fv_error_set(FV_EFORMAT, "jp2k", "component %d has %u-bit samples, expected 8", c, k->prec);
            goto done;
        }
        dx[c] = k->dx;
        dy[c] = k->dy;
        cx0[c] = (image->x0 + k->dx - 1) / k->dx; /* ceil(x0 / dx) */
        cy0[c] = (image->y0 + k->dy - 1) / k->dy;
        /* the last pixel must map inside the component */
        uint32_t lastx = (image->x1 - 1) / k->dx - cx0[c], lasty = (image->y1 - 1) / k->dy - cy0[c];
        if (lastx >= k->w || lasty >= k->h) {
            st = fv_error_set(FV_EFORMAT, "jp2k", "component %d is %ux%u, too small for %ux%u / %ux%u", c, k->w, k->h,
                              ci->width, ci->height, k->dx, k->dy);
            goto done;
        }
        data[c] = k->data;
        cw[c] = k->w;
    }
    if (ycc)
        pthread_once(&fv__ycc_once, fv__ycc_init);
    size_t w = ci->width, h = ci->height;
    if ((size_t)w * h * 3 != out_len) {
        st = fv_error_set(FV_EINTERNAL, "jp2k", "output of %zu bytes for %zux%zu", out_len, w, h);
        goto done;
    }
    int full = dx[0] == 1 && dx[1] == 1 && dx[2] == 1;
    for (size_t y = 0; y < h; y++) {
        const int32_t *row[3];
        uint32_t ix[3], phase[3]; /* floor((x0 + x) / dx) and (x0 + x) % dx */
        for (int c = 0; c < 3; c++) {
            uint32_t cy = (uint32_t)((image->y0 + y) / dy[c]); /* below cy0 only when y0 is off the grid */
            row[c] = data[c] + (size_t)(cy > cy0[c] ? cy - cy0[c] : 0) * cw[c];
            ix[c] = image->x0 / dx[c];
            phase[c] = image->x0 % dx[c];
        }
        uint8_t *o = out + y * w * 3;
        if (full && !ycc) {
            for (size_t x = 0; x < w; x++) {
                o[3 * x] = fv__clamp8(row[0][x]);
                o[3 * x + 1] = fv__clamp8(row[1][x]);
                o[3 * x + 2] = fv__clamp8(row[2][x]);
            }
            continue;
        }
        for (size_t x = 0; x < w; x++) {
            int v[3];
            for (int c = 0; c < 3; c++) {
                v[c] = fv__clamp8(row[c][ix[c] > cx0[c] ? ix[c] - cx0[c] : 0]);
                if (++phase[c] == dx[c]) {
                    phase[c] = 0;
                    ix[c]++;
                }
            }
            if (ycc) {
                o[3 * x] = fv__clamp8(v[0] + fv__r_cr[v[2]]);
                o[3 * x + 1] = fv__clamp8(v[0] + ((fv__g_cb[v[1]] + fv__g_cr[v[2]]) >> 16));
                o[3 * x + 2] = fv__clamp8(v[0] + fv__b_cb[v[1]]);
            } else {
                o[3 * x] = (uint8_t)v[0];
                o[3 * x + 1] = (uint8_t)v[1];
                o[3 * x + 2] = (uint8_t)v[2];
            }
        }
    }
done:
    if (image)
        opj_image_destroy(image);
    if (stream)
        opj_stream_destroy(stream);
    if (codec)
        opj_destroy_codec(codec);
    return st;
}
