/* Fuzz target: a slide through the public API, pixels included.
 *
 * Input layout: FZ_RR_PARAMS (12) parameter bytes, then the file. The file is
 * opened with fv_slide_open; the levels, properties, metadata JSON and
 * associated images are queried, and three regions are read, each from 4
 * parameter bytes:
 *   [0] bits 0-1: pixel format (RGB, RGBA, native; 3 = RGB), bits 2-6: level
 *       (mod the level count), bit 7: go through the tile cache (cleared after
 *       every input, so inputs cannot see each other's tiles)
 *   [1] x, [2] y: position as a fraction of the level-0 size, from -1/14 to
 *       15/14 of it (regions cross every edge)
 *   [3] low/high nibble: width/height = 1 + 8 * nibble (1..121 pixels)
 * One worker thread decodes (deterministic). Associated images at most 256 x 256
 * are read too. Anything may fail; nothing may crash, hang or leak. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "fovea/fovea.h"
#include "fuzz_util.h"

#define FZ_RR_PARAMS 12

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const fv_device CPU = { FV_DEVICE_CPU, 0 };
static volatile size_t sink;

static void
read_one(fv_slide *s, const uint8_t *p, int64_t w0, int64_t h0)
{
    static const fv_pixel_format fmts[4] = { FV_PIXEL_RGB, FV_PIXEL_RGBA, FV_PIXEL_NATIVE, FV_PIXEL_RGB };
    fv_read_options o = { fmts[p[0] & 3], 1, (p[0] & 0x80) ? 0 : 1 };
    int level = ((p[0] >> 2) & 31) % fv_slide_level_count(s);
    int64_t x = ((int64_t)p[1] - 16) * w0 / 224, y = ((int64_t)p[2] - 16) * h0 / 224;
    int64_t w = 1 + 8 * (p[3] & 15), h = 1 + 8 * (p[3] >> 4);
    int64_t shape[3];
    fv_dtype dt;
    fv_array *out = NULL;
    if (fv_slide_region_shape(s, w, h, o.format, shape, &dt) != FV_OK)
        abort(); /* small sizes are always valid */
    if (fv_array_new(NULL, dt, 3, shape, CPU, &out) != FV_OK)
        return;
    if (fv_slide_read_region(s, NULL, x, y, level, w, h, &o, out) == FV_OK) {
        const uint8_t *px = fv_array_data(out);
        size_t n = (size_t)(shape[0] * shape[1] * shape[2]) * fv_dtype_size(dt);
        size_t acc = 0;
        for (size_t i = 0; i < n; i++)
            acc += px[i];
        sink += acc;
    } else if (!fv_error_message()[0]) {
        abort();
    }
    fv_array_unref(out);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < FZ_RR_PARAMS)
        return 0;
    fv_slide *s = NULL;
    if (fv_slide_open(fz_file(data + FZ_RR_PARAMS, size - FZ_RR_PARAMS), &s) != FV_OK)
        return 0;
    int n = fv_slide_level_count(s);
    if (n < 1)
        abort(); /* open promises a level */
    fv_level_info l0;
    if (fv_slide_level_info(s, 0, &l0) != FV_OK)
        abort();
    for (int i = 0; i < n; i++) {
        fv_level_info li;
        if (fv_slide_level_info(s, i, &li) != FV_OK || li.width < 1 || li.height < 1)
            abort();
    }
    const char *json = fv_slide_metadata_json(s);
    sink += json ? strlen(json) : 0;
    for (int i = 0; i < fv_slide_property_count(s); i++) {
        const char *k = fv_slide_property_name(s, i);
        if (!k || !fv_slide_property_value(s, k))
            abort();
    }
    for (int i = 0; i < 3; i++)
        read_one(s, data + 4 * i, l0.width, l0.height);
    for (int i = 0; i < fv_slide_associated_count(s) && i < 4; i++) {
        const char *name = fv_slide_associated_name(s, i);
        int64_t aw, ah;
        fv_array *out = NULL;
        if (fv_slide_associated_size(s, name, &aw, &ah) != FV_OK || aw < 1 || ah < 1 || aw > 256 || ah > 256)
            continue;
        int64_t shape[3] = { ah, aw, 4 };
        if (fv_array_new(NULL, FV_UINT8, 3, shape, CPU, &out) == FV_OK) {
            (void)fv_slide_read_associated(s, name, FV_PIXEL_RGBA, out);
            fv_array_unref(out);
        }
    }
    fv_slide_unref(s);
    fv_cache_clear();
    return 0;
}
