/* Fuzz target: the batch loader over random location lists.
 *
 * Input layout: FZ_LD_PARAMS (16) parameter bytes, then the file.
 *   [0] bits 0-2: batch_size - 1 (1..8), bits 3-4: num_workers (0..3),
 *       bits 5-6: prefetch_factor - 1 (1..4), bit 7: shuffle
 *   [1] bit 0: drop_last, bit 1: nocache, bits 2-3: pixel format (RGB, RGBA,
 *       native; 3 = RGB), bits 4-7: stop after this many batches (0: all) and
 *       free the loader mid-iteration
 *   [2] bits 0-4: level (mod the level count), bits 5-7: how far locations may
 *       lie outside the level (0..7 / 14 of its size)
 *   [3] low/high nibble: patch width/height = 1 + 4 * nibble (1..61 pixels)
 *   [4] number of locations (mod 49: 0..48)
 *   [5..12] seed: the shuffle's and the locations' (xorshift)
 *   [13] bit 0: drop the caller's slide reference as soon as the loader exists
 *       (it holds its own: the handle is "closed" while batches are in flight;
 *       the pixel comparison is skipped then)
 *   [14..15] unused
 * Checks: each batch has the promised shape (batch_size but for a short last one,
 * none short with drop_last); the served location indices are in range and never
 * repeat; every served patch equals fv_slide_read_region of its location with
 * the same options, whenever that single read succeeds; a failed batch is
 * reported once with a message and the loader is finished after it; with no
 * failure, every location (all but the dropped tail) is served. Anything may fail;
 * nothing may crash, hang or leak. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fovea/fovea.h"
#include "fuzz_util.h"

#define FZ_LD_PARAMS 16
#define FZ_LD_MAXLOC 48

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const fv_device CPU = { FV_DEVICE_CPU, 0 };

static uint64_t
fz_next(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

/* The single read of location i equals item k of batch (when that read succeeds). */
static void
check_item(fv_slide *s, const fv_loader_options *o, const int64_t *xy, int64_t i, const fv_array *batch, int64_t k)
{
    int64_t shape[3];
    fv_dtype dt;
    fv_array *one = NULL;
    if (fv_slide_region_shape(s, o->width, o->height, o->format, shape, &dt) != FV_OK)
        abort();
    if (fv_array_new(NULL, dt, 3, shape, CPU, &one) != FV_OK)
        return;
    fv_read_options ro = { o->format, 1, o->nocache };
    if (fv_slide_read_region(s, NULL, xy[2 * i], xy[2 * i + 1], o->level, o->width, o->height, &ro, one) == FV_OK) {
        size_t item = (size_t)(shape[0] * shape[1] * shape[2]) * fv_dtype_size(dt);
        if (memcmp((const uint8_t *)fv_array_data(batch) + (size_t)k * item, fv_array_data(one), item) != 0)
            abort(); /* the loader served other pixels than read_region */
    }
    fv_array_unref(one);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < FZ_LD_PARAMS)
        return 0;
    const uint8_t *p = data;
    fv_slide *s = NULL;
    if (fv_slide_open(fz_file(data + FZ_LD_PARAMS, size - FZ_LD_PARAMS), &s) != FV_OK)
        return 0;
    static const fv_pixel_format fmts[4] = { FV_PIXEL_RGB, FV_PIXEL_RGBA, FV_PIXEL_NATIVE, FV_PIXEL_RGB };
    fv_loader_options o;
    memset(&o, 0, sizeof o);
    o.batch_size = 1 + (p[0] & 7);
    o.num_workers = (p[0] >> 3) & 3;
    o.prefetch_factor = 1 + ((p[0] >> 5) & 3);
    o.shuffle = p[0] >> 7;
    o.drop_last = p[1] & 1;
    o.nocache = (p[1] >> 1) & 1;
    o.format = fmts[(p[1] >> 2) & 3];
    o.level = (p[2] & 31) % fv_slide_level_count(s);
    o.width = 1 + 4 * (p[3] & 15);
    o.height = 1 + 4 * (p[3] >> 4);
    o.device = CPU;
    int stop_after = p[1] >> 4;
    int64_t n = p[4] % (FZ_LD_MAXLOC + 1);
    uint64_t seed = 0;
    memcpy(&seed, p + 5, 8);
    o.seed = seed;
    fv_level_info l0;
    if (fv_slide_level_info(s, 0, &l0) != FV_OK)
        abort();
    int64_t xy[2 * FZ_LD_MAXLOC];
    uint64_t r = seed | 1;
    int64_t out = (p[2] >> 5) & 7; /* up to out/14 of the size beyond each edge */
    for (int64_t i = 0; i < n; i++) {
        int64_t fx = (int64_t)(fz_next(&r) % (uint64_t)(14 + 2 * out)) - out;
        int64_t fy = (int64_t)(fz_next(&r) % (uint64_t)(14 + 2 * out)) - out;
        xy[2 * i] = fx * l0.width / 14 + (int64_t)(fz_next(&r) % 17);
        xy[2 * i + 1] = fy * l0.height / 14 + (int64_t)(fz_next(&r) % 17);
    }

    fv_batch_loader *l = NULL;
    if (fv_batch_loader_new(s, xy, n, &o, &l) != FV_OK) {
        if (!fv_error_message()[0])
            abort();
        fv_slide_unref(s);
        fv_cache_clear();
        return 0;
    }
    int early_close = p[13] & 1;
    if (early_close) {
        fv_slide_unref(s);
        s = NULL;
    }
    int64_t nb = fv_batch_loader_batch_count(l), served = 0, batches = 0;
    uint8_t seen[FZ_LD_MAXLOC] = { 0 };
    int failed = 0;
    for (;;) {
        if (stop_after && batches == stop_after)
            break; /* free mid-iteration: the workers must stop cleanly */
        fv_array *b = NULL;
        fv_status st = fv_batch_loader_next(l, &b);
        if (st != FV_OK) {
            if (b || !fv_error_message()[0] || failed)
                abort(); /* reported once, with a message, and no batch */
            failed = 1;
            continue;
        }
        if (!b)
            break;
        if (failed)
            abort(); /* nothing after a failure */
        int64_t k = fv_array_shape(b)[0];
        if (fv_array_ndim(b) != 4 || k < 1 || k > o.batch_size || fv_array_shape(b)[1] != o.height ||
            fv_array_shape(b)[2] != o.width || (o.drop_last && k != o.batch_size) ||
            (batches < nb - 1 && k != o.batch_size))
            abort();
        for (int64_t j = 0; j < k; j++) {
            int64_t i = fv_batch_loader_location_index(l, batches, j);
            if (i < 0 || i >= n || seen[i])
                abort();
            seen[i] = 1;
            if (s)
                check_item(s, &o, xy, i, b, j);
        }
        served += k;
        batches++;
        fv_array_unref(b);
    }
    if (!stop_after && !failed && served != (o.drop_last ? n - n % o.batch_size : n))
        abort(); /* every location served (but the dropped tail) */
    if (getenv("FZ_VERBOSE"))
        fprintf(stderr, "loader: %lld locations, %d per batch, %d workers, %lld of %lld batches, %lld served%s\n",
                (long long)n, o.batch_size, o.num_workers, (long long)batches, (long long)nb, (long long)served,
                failed ? ", failed" : "");
    fv_batch_loader_free(l);
    if (s)
        fv_slide_unref(s);
    fv_cache_clear();
    return 0;
}
