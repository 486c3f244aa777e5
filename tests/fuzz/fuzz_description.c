/* Fuzz target: vendor metadata in ImageDescription (the Aperio description, the
 * Philips DPUfsImport XML, OME-XML) and how it names levels and associated images.
 *
 * The harness wraps the input text in a TIFF it builds (fuzz_util.h). Input
 * layout: two flag bytes, then the text; the text is cut at NUL bytes and
 * piece i becomes the ImageDescription of directory i (directory 0 = level 0,
 * then the extra levels, then the associated images).
 *   [0] bits 0-1: 0 plain; 1 Software "Philips DP v1.0"; 2 piece 0 prefixed with
 *       "Aperio Image Library v12.0.5\r\n"; 3 both
 *       bits 2-3: extra pyramid levels (0..3), each half the size of the last
 *       bit 4: BigTIFF, bit 5: big-endian
 *       bit 6: the extra levels are SubIFDs of directory 0 (OME), else chained
 *       bit 7: two stripped associated directories follow (NewSubfileType 1, 9)
 *   [1] bit 0: level 0 stripped; bit 1: NewSubfileType 1 on the extra levels;
 *       bits 2-3: level 0 size (1024x768, 2000x1000, 512x512, 1x1);
 *       bits 4-5: tile size (256, 512, 128, 16); bits 6-7: samples (3, 1, 4, 2)
 * The slide is opened through the public API (fv_slide_open: parser, detection,
 * properties, metadata JSON) and its associated images are sized and read (at
 * most 256 x 256: Philips keeps them as base64 JPEG inside the XML). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "fovea/fovea.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const fv_device CPU = { FV_DEVICE_CPU, 0 };
static volatile size_t sink;

#define FZ_MAX_PIECES 8

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const uint32_t dims[4][2] = { { 1024, 768 }, { 2000, 1000 }, { 512, 512 }, { 1, 1 } };
    static const uint32_t tiles[4] = { 256, 512, 128, 16 };
    static const int spp[4] = { 3, 1, 4, 2 };
    static const char aperio[] = "Aperio Image Library v12.0.5\r\n";
    if (size < 2)
        return 0;
    const uint8_t f0 = data[0], f1 = data[1];
    const char *text = (const char *)data + 2;
    size_t tlen = size - 2;
    /* pieces of the text */
    const char *piece[FZ_MAX_PIECES];
    size_t plen[FZ_MAX_PIECES];
    int np = 0;
    for (size_t a = 0; np < FZ_MAX_PIECES;) {
        const char *z = memchr(text + a, '\0', tlen - a);
        size_t b = z ? (size_t)(z - text) : tlen;
        piece[np] = text + a;
        plen[np++] = b - a;
        if (!z)
            break;
        a = b + 1;
    }
    int nextra = (f0 >> 2) & 3, subifds = (f0 >> 6) & 1, nassoc = (f0 & 0x80) ? 2 : 0;
    int samples = spp[f1 >> 6];
    uint32_t W = dims[(f1 >> 2) & 3][0], H = dims[(f1 >> 2) & 3][1], T = tiles[(f1 >> 4) & 3];
    tfw w;
    tfw_init(&w, (f0 >> 4) & 1, (f0 >> 5) & 1);
    tfw_ifd d[1 + 3 + 2];
    memset(d, 0, sizeof d);
    int nd = 1 + nextra + nassoc;
    for (int i = 0; i < nd; i++) {
        int assoc = i > nextra;
        uint64_t lw = assoc ? (i == nextra + 1 ? 128 : 60) : W >> i, lh = assoc ? (i == nextra + 1 ? 96 : 50) : H >> i;
        if (!lw)
            lw = 1;
        if (!lh)
            lh = 1;
        int stripped = assoc || (i == 0 && (f1 & 1));
        tfw_dummy_image(&w, &d[i], lw, lh, stripped ? 0 : T, stripped ? 0 : T, stripped ? (uint32_t)lh : 0,
                        assoc ? 3 : samples);
        if (i < np) {
            if (i == 0 && (f0 & 2)) {
                char *s = malloc(sizeof aperio - 1 + plen[0]);
                memcpy(s, aperio, sizeof aperio - 1);
                memcpy(s + sizeof aperio - 1, piece[0], plen[0]);
                tfw_text(&d[i], 270, s, sizeof aperio - 1 + plen[0]);
                free(s);
            } else {
                tfw_text(&d[i], 270, piece[i], plen[i]);
            }
        }
        if (f0 & 1)
            tfw_text(&d[i], 305, "Philips DP v1.0", 15);
        if (i >= 1 && !assoc && (f1 & 2))
            tfw_int(&w, &d[i], 254, TFW_LONG, 1);
        if (assoc)
            tfw_int(&w, &d[i], 254, TFW_LONG, i == nextra + 1 ? 1 : 9);
    }
    uint64_t off[1 + 3 + 2];
    if (subifds && nextra) {
        /* the extra levels first, then directory 0 listing them, then the rest */
        for (int i = 1; i <= nextra; i++)
            off[i] = tfw_write_ifd(&w, &d[i]);
        uint64_t kids[3];
        for (int i = 0; i < nextra; i++)
            kids[i] = off[1 + i];
        tfw_ints(&w, &d[0], 330, w.big ? TFW_IFD8 : TFW_IFD, (uint64_t)nextra, kids);
        off[0] = tfw_write_ifd(&w, &d[0]);
        tfw_first(&w, off[0]);
        const tfw_ifd *prev = &d[0];
        for (int i = nextra + 1; i < nd; i++) {
            off[i] = tfw_write_ifd(&w, &d[i]);
            tfw_link(&w, prev, off[i]);
            prev = &d[i];
        }
    } else {
        for (int i = 0; i < nd; i++) {
            off[i] = tfw_write_ifd(&w, &d[i]);
            if (i)
                tfw_link(&w, &d[i - 1], off[i]);
            else
                tfw_first(&w, off[0]);
        }
    }
    for (int i = 0; i < nd; i++)
        tfw_ifd_free(&d[i]);

    fv_slide *s = NULL;
    if (fv_slide_open(fz_file(w.buf, w.len), &s) == FV_OK) {
        const char *json = fv_slide_metadata_json(s);
        sink += json ? strlen(json) : 0;
        for (int i = 0; i < fv_slide_property_count(s); i++) {
            const char *k = fv_slide_property_name(s, i);
            if (!k || !fv_slide_property_value(s, k))
                abort();
        }
        for (int i = 0; i < fv_slide_level_count(s); i++) {
            fv_level_info li;
            if (fv_slide_level_info(s, i, &li) != FV_OK || li.width < 1 || li.height < 1 || !(li.downsample > 0))
                abort();
        }
        for (int i = 0; i < fv_slide_associated_count(s); i++) {
            const char *name = fv_slide_associated_name(s, i);
            int64_t aw = 0, ah = 0;
            if (!name)
                abort();
            if (fv_slide_associated_size(s, name, &aw, &ah) != FV_OK || aw < 1 || ah < 1 || aw > 256 || ah > 256)
                continue;
            int64_t shape[3] = { ah, aw, 3 };
            fv_array *out = NULL;
            if (fv_array_new(NULL, FV_UINT8, 3, shape, CPU, &out) == FV_OK) {
                (void)fv_slide_read_associated(s, name, FV_PIXEL_RGB, out);
                fv_array_unref(out);
            }
        }
        fv_slide_unref(s);
    }
    tfw_free(&w);
    return 0;
}
