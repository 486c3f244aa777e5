/* Slide layer: read_region geometry, formats, background, cache, threads, sticky
 * errors, and fv_slide_convert round trips, on TIFFs written by this test. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "fovea/fovea.h"
#include "codec/codec.h"
#include "slide/slide-internal.h"
#include "check.h"
#include "tiff-writer.h"

static const fv_device CPU = { FV_DEVICE_CPU, 0 };
enum {
    W = 1000,
    H = 700,
    T = 128
};
static uint8_t *img; /* H x W x 3 ground truth */

#define px tfw_px

static void
write_tiled_tiff(const char *path)
{
    CHECK(tfw_write_raw_slide(path, W, H, T) == 0);
}

/* read a region and compare with the ground truth (background 255 outside) */
static int
region_ok(fv_slide *s, fv_context *ctx, int64_t x, int64_t y, int64_t w, int64_t h, int workers, int nocache)
{
    fv_array *out = NULL;
    int64_t shape[3];
    fv_dtype dt;
    if (fv_slide_region_shape(s, w, h, FV_PIXEL_RGB, shape, &dt) || fv_array_new(NULL, dt, 3, shape, CPU, &out))
        return 0;
    fv_read_options o = { FV_PIXEL_RGB, workers, nocache };
    int ok = fv_slide_read_region(s, ctx, x, y, 0, w, h, &o, out) == FV_OK;
    const uint8_t *p = fv_array_data(out);
    for (int64_t r = 0; ok && r < h; r++)
        for (int64_t q = 0; ok && q < w; q++)
            for (int c = 0; c < 3; c++) {
                int64_t gx = x + q, gy = y + r;
                uint8_t want = (gx >= 0 && gy >= 0 && gx < W && gy < H) ? px(gx, gy, c) : 255;
                if (p[(r * w + q) * 3 + c] != want) {
                    fprintf(stderr, "region (%lld,%lld %lldx%lld): pixel (%lld,%lld,%d) = %d, want %d\n", (long long)x,
                            (long long)y, (long long)w, (long long)h, (long long)gx, (long long)gy, c,
                            p[(r * w + q) * 3 + c], want);
                    ok = 0;
                    break;
                }
            }
    fv_array_unref(out);
    return ok;
}

typedef struct {
    fv_slide *s;
    int seed;
    int ok;
} thread_arg;

static void *
reader(void *p)
{
    thread_arg *a = p;
    unsigned r = (unsigned)a->seed;
    a->ok = 1;
    for (int i = 0; i < 40 && a->ok; i++) {
        r = r * 1103515245u + 12345u;
        int64_t x = (int64_t)(r >> 8) % (W + 200) - 100;
        r = r * 1103515245u + 12345u;
        int64_t y = (int64_t)(r >> 8) % (H + 200) - 100;
        a->ok = region_ok(a->s, NULL, x, y, 97, 61, 1, i & 1);
    }
    return NULL;
}

/* every batch item equals the single read of its location; no loss, no duplicate */
static int
loader_ok(fv_slide *s, int64_t n, int bs, int workers, int prefetch, int shuffle, uint64_t seed, int drop_last,
          int64_t *first_order)
{
    int64_t *xy = malloc((size_t)n * 2 * sizeof *xy);
    int *seen = calloc((size_t)n, sizeof *seen);
    for (int64_t i = 0; i < n; i++) {
        xy[2 * i] = (i * 37) % (W + 40) - 20;
        xy[2 * i + 1] = (i * 53) % (H + 40) - 20;
    }
    fv_loader_options o = { .level = 0,
                            .width = 33,
                            .height = 21,
                            .format = FV_PIXEL_RGB,
                            .batch_size = bs,
                            .num_workers = workers,
                            .prefetch_factor = prefetch,
                            .shuffle = shuffle,
                            .seed = seed,
                            .drop_last = drop_last };
    fv_batch_loader *l = NULL;
    int ok = fv_batch_loader_new(s, xy, n, &o, &l) == FV_OK;
    int64_t served = 0, b = 0;
    fv_array *single = NULL;
    int64_t sh[3] = { 21, 33, 3 };
    fv_array_new(NULL, FV_UINT8, 3, sh, CPU, &single);
    while (ok) {
        fv_array *batch = NULL;
        if (fv_batch_loader_next(l, &batch) != FV_OK) {
            ok = 0;
            break;
        }
        if (!batch)
            break;
        int64_t m = fv_array_shape(batch)[0];
        ok = fv_array_ndim(batch) == 4 && (m == bs || (!drop_last && m < bs));
        for (int64_t i = 0; ok && i < m; i++) {
            int64_t loc = fv_batch_loader_location_index(l, b, i);
            ok = loc >= 0 && loc < n && !seen[loc];
            if (!ok)
                break;
            seen[loc] = 1;
            if (first_order && served + i < 8)
                first_order[served + i] = loc;
            fv_read_options ro = { FV_PIXEL_RGB, 1, 1 };
            ok = fv_slide_read_region(s, NULL, xy[2 * loc], xy[2 * loc + 1], 0, 33, 21, &ro, single) == FV_OK &&
                !memcmp((uint8_t *)fv_array_data(batch) + i * 21 * 33 * 3, fv_array_data(single), 21 * 33 * 3);
        }
        served += m;
        b++;
        fv_array_unref(batch);
    }
    int64_t want = drop_last ? n / bs * bs : n;
    if (ok && (served != want || b != fv_batch_loader_batch_count(l)))
        ok = 0;
    if (!ok)
        fprintf(stderr, "loader n=%lld bs=%d workers=%d prefetch=%d shuffle=%d drop_last=%d: served %lld/%lld\n",
                (long long)n, bs, workers, prefetch, shuffle, drop_last, (long long)served, (long long)want);
    fv_batch_loader_free(l);
    fv_array_unref(single);
    free(xy);
    free(seen);
    return ok;
}

/* ---- the batch loader meeting a broken file mid-epoch --------------------------------- */

/* Workers reading ahead over a file truncated while open (its first three tiles
 * kept): patch 9 of 14 lies in the lost tiles. Whatever was read before the
 * failure comes out in order with the right pixels (those of the intact slide s),
 * then the error exactly once, then nothing; also with the caller's handle dropped
 * while the workers run (the loader holds its own), and with the loader freed after
 * one batch while they run. */
static void
loader_mid_epoch_failure(fv_slide *s, const char *path, const char *copy)
{
    enum {
        N = 14,
        BAD = 9,
        PS = 16
    };
    int64_t xy[2 * N];
    for (int i = 0; i < N; i++) {
        xy[2 * i] = (i * 37) % (3 * T - PS);
        xy[2 * i + 1] = (i * 23) % (T - PS);
    }
    xy[2 * BAD] = 5 * T, xy[2 * BAD + 1] = 2 * T;
    fv_read_options nc = { FV_PIXEL_RGB, 1, 1 };
    int64_t sh[3] = { PS, PS, 3 };
    fv_array *ref = NULL;
    CHECK_OK(fv_array_new(NULL, FV_UINT8, 3, sh, CPU, &ref));
    for (int variant = 0; variant < 3 && ref; variant++) {
        FILE *fi = fopen(path, "rb"), *fo = fopen(copy, "wb");
        uint8_t *buf = malloc(1 << 20);
        size_t n;
        while (fi && fo && buf && (n = fread(buf, 1, 1 << 20, fi)) > 0)
            fwrite(buf, 1, n, fo);
        if (fi)
            fclose(fi);
        if (fo)
            fclose(fo);
        free(buf);
        fv_slide *t = NULL;
        CHECK_OK(fv_slide_open(copy, &t));
        if (!t)
            continue;
        CHECK(truncate(copy, 8 + (off_t)T * T * 3 * 3) == 0);
        fv_loader_options lo = { .level = 0,
                                 .width = PS,
                                 .height = PS,
                                 .format = FV_PIXEL_RGB,
                                 .batch_size = 2,
                                 .num_workers = 3,
                                 .prefetch_factor = 3,
                                 .nocache = variant == 0 };
        fv_batch_loader *l = NULL;
        CHECK_OK(fv_batch_loader_new(t, xy, N, &lo, &l));
        if (variant >= 1)
            fv_slide_unref(t); /* the loader keeps the handle alive */
        int errors = 0, bad = 0, served = 0, batches = 0, after = 0;
        for (;;) {
            if (variant == 2 && batches == 1)
                break; /* freed below with the workers still running */
            fv_array *b = NULL;
            fv_status st = fv_batch_loader_next(l, &b);
            if (st) {
                errors++;
                after += b != NULL || (st != FV_EIO && st != FV_EFORMAT) || !fv_error_message()[0];
                continue;
            }
            if (!b)
                break;
            after += errors > 0; /* nothing after the failure */
            for (int64_t i = 0; i < fv_array_shape(b)[0]; i++) {
                int64_t loc = fv_batch_loader_location_index(l, batches, i);
                bad += loc != served || loc >= BAD; /* in order, and only patches before the bad one */
                if (fv_slide_read_region(s, NULL, xy[2 * loc], xy[2 * loc + 1], 0, PS, PS, &nc, ref) == FV_OK)
                    bad += memcmp((const uint8_t *)fv_array_data(b) + i * PS * PS * 3, fv_array_data(ref),
                                  PS * PS * 3) != 0;
                else
                    bad++;
                served++;
            }
            batches++;
            fv_array_unref(b);
        }
        fv_batch_loader_free(l);
        if (variant == 0)
            fv_slide_unref(t);
        CHECK(bad == 0 && after == 0);
        CHECK(variant == 2 ? errors == 0 && batches == 1 : errors == 1 && served <= BAD && served % 2 == 0);
        if (getenv("FV_TEST_VERBOSE") || bad || after || (variant < 2 && errors != 1))
            fprintf(stderr, "  loader mid-epoch variant %d: %d served, %d errors, %d bad, %d after\n", variant, served,
                    errors, bad, after);
        remove(copy);
    }
    fv_array_unref(ref);
    printf("batch loader over a file broken mid-epoch: prefix served, one error, 3 variants\n");
}

/* ---- JPEG tiles: reads that bypass the cache decode only what they need ----------- */


typedef struct jpeg_tiles {
    uint32_t tile;
    int spp, photometric, missing;
} jpeg_tiles;

/* a smooth pattern (JPEG keeps it recognisable) encoded with the library's own
 * encoder (a complete stream, no JPEGTables) */
static void
jpeg_tile(void *user, int64_t k, int64_t x0, int64_t y0, uint8_t **bytes, size_t *len)
{
    const jpeg_tiles *jt = user;
    const uint32_t t = jt->tile;
    const int spp = jt->spp;
    if (k == jt->missing)
        return;
    fv__chunk_info ci = { .width = t,
                          .height = t,
                          .samples = (uint16_t)spp,
                          .bits = 8,
                          .sample_format = 1,
                          .compression = FV_TIFF_COMPRESSION_JPEG,
                          .photometric = (uint16_t)jt->photometric,
                          .predictor = 1 };
    uint8_t *tile = malloc((size_t)t * t * spp);
    for (uint32_t y = 0; y < t; y++)
        for (uint32_t x = 0; x < t; x++)
            for (int c = 0; c < spp; c++) {
                int64_t gx = x0 + x, gy = y0 + y;
                tile[((size_t)y * t + x) * spp + c] =
                    (uint8_t)(128 + 60 * ((gx * (c + 3) / 7 + gy / 5) % 64 - 32) / 32 + ((gx / 9 + gy / 11) & 15));
            }
    if (fv__codec_encode(&ci, 90, tile, bytes, len) != FV_OK) {
        fprintf(stderr, "write_jpeg_tiff: %s\n", fv_error_message());
        exit(1);
    }
    free(tile);
}

/* A classic little-endian tiled TIFF of JPEG tiles (jw x jh, tile jt): samples 3
 * with photometric YCbCr (4:2:0) or RGB (no subsampling), or 1 (gray). Tile
 * `missing` (-1: none) has offset and byte count 0. */
static void
write_jpeg_tiff(const char *path, uint32_t jw, uint32_t jh, uint32_t jt, int spp, int photometric, int missing)
{
    jpeg_tiles j = { jt, spp, photometric, missing };
    CHECK(tfw_write_tiled_file(path, jw, jh, jt, spp, FV_TIFF_COMPRESSION_JPEG, photometric, jpeg_tile, &j) == 0);
}

static fv_array *
read_jpeg(fv_slide *s, int64_t x, int64_t y, int64_t w, int64_t h, fv_pixel_format fmt, int workers, int nocache)
{
    int64_t shape[3];
    fv_dtype dt;
    fv_array *out = NULL;
    if (fv_slide_region_shape(s, w, h, fmt, shape, &dt) || fv_array_new(NULL, dt, 3, shape, CPU, &out))
        return NULL;
    fv_read_options o = { fmt, workers, nocache };
    fv_status st = fv_slide_read_region(s, NULL, x, y, 0, w, h, &o, out);
    if (st) {
        fprintf(stderr, "read_jpeg: %s\n", fv_error_message());
        fv_array_unref(out);
        return NULL;
    }
    return out;
}

static int
same_array(const fv_array *a, const fv_array *b)
{
    if (!a || !b || fv_array_shape(a)[0] != fv_array_shape(b)[0] || fv_array_shape(a)[1] != fv_array_shape(b)[1] ||
        fv_array_shape(a)[2] != fv_array_shape(b)[2])
        return 0;
    size_t n = (size_t)(fv_array_shape(a)[0] * fv_array_shape(a)[1] * fv_array_shape(a)[2]);
    return !memcmp(fv_array_data(a), fv_array_data(b), n);
}

/* The batch loader decodes in part, and does not cache, the tiles at most two
 * patches of its list touch; the others are cached whole. Every patch equals
 * read_region's; the cache ends up holding exactly the tiles touched by three or
 * more patches. */
static void
loader_single_use(fv_slide *s, int64_t t, int64_t jw, int64_t jh, const char *name)
{
    enum {
        N = 16,
        PW = 70,
        PH = 50
    };
    int64_t xy[2 * N];
    unsigned r = 777;
    int64_t across = (jw + t - 1) / t, down = (jh + t - 1) / t;
    int *count = calloc((size_t)(across * down), sizeof *count);
    for (int i = 0; i < N; i++) {
        r = r * 1103515245u + 12345u;
        xy[2 * i] = (int64_t)(r >> 8) % (jw + 40) - 20;
        r = r * 1103515245u + 12345u;
        xy[2 * i + 1] = (int64_t)(r >> 8) % (jh + 40) - 20;
        int64_t x0 = xy[2 * i] > 0 ? xy[2 * i] : 0, y0 = xy[2 * i + 1] > 0 ? xy[2 * i + 1] : 0;
        int64_t x1 = xy[2 * i] + PW < jw ? xy[2 * i] + PW : jw, y1 = xy[2 * i + 1] + PH < jh ? xy[2 * i + 1] + PH : jh;
        if (x0 >= x1 || y0 >= y1)
            continue;
        for (int64_t ty = y0 / t; ty <= (y1 - 1) / t; ty++)
            for (int64_t tx = x0 / t; tx <= (x1 - 1) / t; tx++)
                count[ty * across + tx]++;
    }
    uint64_t shared = 0, once = 0;
    for (int64_t q = 0; q < across * down; q++) {
        if (q == 1)
            continue; /* the missing tile: background, never cached */
        shared += count[q] >= 3;
        once += count[q] == 1 || count[q] == 2;
    }
    for (int workers = 0; workers <= 2; workers += 2) {
        fv_cache_clear();
        fv_cache_reset_stats();
        fv_loader_options o = {
            .level = 0, .width = PW, .height = PH, .format = FV_PIXEL_RGB, .batch_size = 7, .num_workers = workers
        };
        fv_batch_loader *l = NULL;
        CHECK_OK(fv_batch_loader_new(s, xy, N, &o, &l));
        int bad = 0;
        int64_t b = 0;
        for (;;) {
            fv_array *batch = NULL;
            CHECK_OK(fv_batch_loader_next(l, &batch));
            if (!batch)
                break;
            for (int64_t i = 0; i < fv_array_shape(batch)[0]; i++) {
                int64_t loc = fv_batch_loader_location_index(l, b, i);
                fv_array *one = read_jpeg(s, xy[2 * loc], xy[2 * loc + 1], PW, PH, FV_PIXEL_RGB, 1, 1);
                bad += !one ||
                    memcmp((uint8_t *)fv_array_data(batch) + i * PW * PH * 3, fv_array_data(one),
                           (size_t)PW * PH * 3) != 0;
                fv_array_unref(one);
            }
            fv_array_unref(batch);
            b++;
        }
        fv_batch_loader_free(l);
        fv_cache_stats st;
        fv_cache_get_stats(&st);
        CHECK(bad == 0);
        CHECK(st.entries == shared);
        if (bad || st.entries != shared)
            fprintf(stderr, "  loader %s, %d workers: %d patches differ; %llu tiles cached, %llu shared\n", name,
                    workers, bad, (unsigned long long)st.entries, (unsigned long long)shared);
    }
    printf("  jpeg %s: loader, %llu tiles used by 1-2 patches decoded in part, %llu others cached\n", name,
           (unsigned long long)once, (unsigned long long)shared);
    free(count);
}

/* fv__chunk_set_single_use against a model: patches clustered around a few spots,
 * read in a shuffled order; for caches of 0, 1, 2, 4 and many decoded tiles, a tile
 * is in the set (decoded in part, never cached) unless at least two of its touches
 * come while fewer distinct tiles than the cache holds were touched since its
 * previous touch (an LRU cache would still have it). */
static void
loader_lru_model(fv_slide *s, int64_t t, int spp, int64_t jw, int64_t jh, const char *name)
{
    enum {
        N = 40,
        PW = 70,
        PH = 50
    };
    int64_t xy[2 * N], order[N];
    unsigned r = 4242;
    const int64_t across = (jw + t - 1) / t, down = (jh + t - 1) / t, ntiles = across * down;
    for (int i = 0; i < N; i++) {
        r = r * 1103515245u + 12345u;
        const int spot = (int)((r >> 8) % 4);
        r = r * 1103515245u + 12345u;
        xy[2 * i] = (spot % 2) * (jw / 2) + (int64_t)((r >> 8) % (uint64_t)t) - 10;
        r = r * 1103515245u + 12345u;
        xy[2 * i + 1] = (spot / 2) * (jh / 2) + (int64_t)((r >> 8) % (uint64_t)t) - 10;
        order[i] = i;
    }
    for (int i = N - 1; i > 0; i--) {
        r = r * 1103515245u + 12345u;
        int j = (int)((r >> 8) % (unsigned)(i + 1));
        int64_t tmp = order[i];
        order[i] = order[j];
        order[j] = tmp;
    }
    /* the touches in serving order, tiles of a patch in raster order */
    int64_t *touch = malloc(sizeof *touch * (size_t)N * 64), nt = 0;
    for (int i = 0; i < N; i++) {
        const int64_t p = order[i];
        int64_t x0 = xy[2 * p] > 0 ? xy[2 * p] : 0, y0 = xy[2 * p + 1] > 0 ? xy[2 * p + 1] : 0;
        int64_t x1 = xy[2 * p] + PW < jw ? xy[2 * p] + PW : jw, y1 = xy[2 * p + 1] + PH < jh ? xy[2 * p + 1] + PH : jh;
        if (x0 >= x1 || y0 >= y1)
            continue;
        for (int64_t ty = y0 / t; ty <= (y1 - 1) / t; ty++)
            for (int64_t tx = x0 / t; tx <= (x1 - 1) / t; tx++)
                touch[nt++] = ty * across + tx;
    }
    static const uint64_t caps[] = { 0, 1, 2, 4, 100000 };
    int bad = 0;
    for (int c = 0; c < 5; c++) {
        int *hits = calloc((size_t)ntiles, sizeof *hits), *seen = calloc((size_t)ntiles, sizeof *seen);
        for (int64_t k = 0; k < nt; k++) {
            int64_t prev = -1;
            for (int64_t j = k - 1; j >= 0 && prev < 0; j--)
                if (touch[j] == touch[k])
                    prev = j;
            seen[touch[k]] = 1;
            if (prev < 0)
                continue;
            uint64_t distinct = 0;
            for (int64_t j = prev + 1; j < k; j++) { /* distinct tiles in between */
                int first = touch[j] != touch[k];
                for (int64_t m = prev + 1; m < j && first; m++)
                    first = touch[m] != touch[j];
                distinct += first;
            }
            hits[touch[k]] += distinct < caps[c];
        }
        fv__chunk_set cs;
        CHECK_OK(fv__chunk_set_single_use(s, 0, xy, order, N, PW, PH, caps[c] * (uint64_t)(t * t * spp), &cs));
        for (int64_t q = 0; q < ntiles; q++) {
            if (!seen[q])
                continue;
            const int want = hits[q] < 2, got = cs.keys && fv__chunk_set_has(&cs, (uint64_t)q);
            if (want != got && bad++ < 5)
                fprintf(stderr, "  jpeg %s: cache of %llu tiles: tile %lld %s the partial set\n", name,
                        (unsigned long long)caps[c], (long long)q, got ? "wrongly in" : "missing from");
        }
        free(cs.keys);
        free(hits);
        free(seen);
    }
    CHECK(bad == 0);
    free(touch);
}

/* Random regions (inside, straddling tiles, off the edges, tiny and large): reads
 * with nocache, with a cache of capacity 0 and with cache type none (all partial
 * decodes) equal cached reads (whole tiles), in RGB, RGBA and native formats. */
static void
test_jpeg_partial(const char *dir)
{
    struct {
        uint32_t w, h, t;
        int spp, photometric;
        const char *name;
    } kinds[] = {
        { 1000, 700, 256, 3, FV_TIFF_PHOTOMETRIC_YCBCR, "ycbcr 4:2:0, 256" },
        { 1000, 700, 240, 3, FV_TIFF_PHOTOMETRIC_YCBCR, "ycbcr 4:2:0, 240" },
        { 900, 610, 512, 3, FV_TIFF_PHOTOMETRIC_YCBCR, "ycbcr 4:2:0, 512" },
        { 1000, 700, 240, 3, FV_TIFF_PHOTOMETRIC_RGB, "rgb 4:4:4, 240" },
        { 700, 500, 256, 1, FV_TIFF_PHOTOMETRIC_MINISBLACK, "gray, 256" },
    };
    char path[300];
    unsigned r = 12345;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        snprintf(path, sizeof path, "%s/jpeg%zu.tif", dir, k);
        write_jpeg_tiff(path, kinds[k].w, kinds[k].h, kinds[k].t, kinds[k].spp, kinds[k].photometric, 1);
        fv_slide *s = NULL;
        CHECK_OK(fv_slide_open(path, &s));
        if (!s)
            continue;
        int64_t JW = kinds[k].w, JH = kinds[k].h;
        int bad = 0, cases = 0;
        for (int i = 0; i < 120; i++) {
            int64_t x, y, w, h;
            r = r * 1103515245u + 12345u;
            x = (int64_t)(r >> 8) % (JW + 100) - 50;
            r = r * 1103515245u + 12345u;
            y = (int64_t)(r >> 8) % (JH + 100) - 50;
            r = r * 1103515245u + 12345u;
            w = i % 10 == 0 ? 1 + (r >> 8) % 4 : 1 + (int64_t)(r >> 8) % 300;
            r = r * 1103515245u + 12345u;
            h = i % 10 == 0 ? 1 + (r >> 8) % 4 : 1 + (int64_t)(r >> 8) % 300;
            if (i == 0)
                x = 0, y = 0, w = JW, h = JH; /* everything */
            fv_pixel_format fmt = i % 3 == 0 ? FV_PIXEL_RGB : i % 3 == 1 ? FV_PIXEL_RGBA : FV_PIXEL_NATIVE;
            int workers = i % 2 ? 2 : 1;
            fv_array *cached = read_jpeg(s, x, y, w, h, fmt, workers, 0);
            fv_array *nc = read_jpeg(s, x, y, w, h, fmt, workers, 1);
            int ok = same_array(cached, nc);
            if (i % 4 == 0) { /* the same with the cache off */
                CHECK_OK(fv_cache_set_capacity(0));
                fv_array *z = read_jpeg(s, x, y, w, h, fmt, workers, 0);
                ok &= same_array(cached, z);
                fv_array_unref(z);
                CHECK_OK(fv_cache_set_capacity((uint64_t)256 << 20));
            }
            if (!ok && bad++ < 5)
                fprintf(stderr, "  jpeg %s: region (%lld,%lld %lldx%lld) format %d: nocache read differs\n",
                        kinds[k].name, (long long)x, (long long)y, (long long)w, (long long)h, (int)fmt);
            cases++;
            fv_array_unref(cached);
            fv_array_unref(nc);
        }
        /* cache type none: partial decodes, and the misses still counted */
        CHECK_OK(fv_cache_configure(FV_CACHE_NONE, 0));
        fv_cache_reset_stats();
        fv_array *a = read_jpeg(s, 100, 90, 300, 200, FV_PIXEL_RGB, 1, 0);
        fv_cache_stats st;
        fv_cache_get_stats(&st);
        CHECK(st.misses > 0 && st.hits == 0 && st.entries == 0);
        CHECK_OK(fv_cache_configure(FV_CACHE_PER_PROCESS, (uint64_t)256 << 20));
        fv_array *b = read_jpeg(s, 100, 90, 300, 200, FV_PIXEL_RGB, 1, 0);
        CHECK(same_array(a, b));
        fv_array_unref(a);
        fv_array_unref(b);
        CHECK(bad == 0);
        printf("  jpeg %s: %d regions, nocache = cached\n", kinds[k].name, cases);
        loader_single_use(s, (int64_t)kinds[k].t, JW, JH, kinds[k].name);
        loader_lru_model(s, (int64_t)kinds[k].t, kinds[k].spp, JW, JH, kinds[k].name);
        /* the missing tile (1) is background in both */
        a = read_jpeg(s, kinds[k].t + 3, 5, 20, 20, FV_PIXEL_RGB, 1, 1);
        int bg = a != NULL;
        for (int q = 0; bg && q < 20 * 20 * 3; q++)
            bg = ((const uint8_t *)fv_array_data(a))[q] == 255;
        CHECK(bg);
        fv_array_unref(a);
        fv_slide_unref(s);
        remove(path);
    }
}

int
main(void)
{
    char dir[] = "/tmp/fovea-test-slide-XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    char path[256], conv[256], trunc[300];
    snprintf(path, sizeof path, "%s/a.tif", dir);
    snprintf(conv, sizeof conv, "%s/b.tif", dir);
    snprintf(trunc, sizeof trunc, "%s/c.tif", dir);
    write_tiled_tiff(path);
    (void)img;

    fv_slide *s = NULL;
    CHECK_OK(fv_slide_open(path, &s));
    if (!s)
        return fv_t_summary("test_slide");
    CHECK(fv_slide_level_count(s) == 1);
    CHECK(!strcmp(fv_slide_vendor(s), "generic-tiff"));
    fv_level_info li;
    CHECK_OK(fv_slide_level_info(s, 0, &li));
    CHECK(li.width == W && li.height == H && li.tile_width == T && li.downsample == 1.0);
    CHECK(fv_slide_property_value(s, "openslide.level-count") &&
          !strcmp(fv_slide_property_value(s, "openslide.level-count"), "1"));
    CHECK(strstr(fv_slide_metadata_json(s), "\"levels\"") != NULL);

    /* geometry: inside, straddling tiles, edges, partly and fully outside, 1x1, empty */
    CHECK(region_ok(s, NULL, 0, 0, 64, 64, 0, 0));
    CHECK(region_ok(s, NULL, T - 5, T - 7, 300, 200, 0, 0));
    CHECK(region_ok(s, NULL, W - 50, H - 30, 120, 90, 2, 0));
    CHECK(region_ok(s, NULL, -40, -20, 100, 100, 0, 1));
    CHECK(region_ok(s, NULL, W + 10, 5, 30, 30, 0, 0));
    CHECK(region_ok(s, NULL, 3, 4, 1, 1, 0, 0));
    CHECK(region_ok(s, NULL, 0, 0, W, H, 0, 0));
    CHECK(region_ok(s, NULL, 10, 10, 0, 5, 0, 0));

    /* RGBA: alpha 255 inside, 0 outside */
    int64_t shape[3];
    fv_dtype dt;
    fv_array *rgba = NULL;
    CHECK_OK(fv_slide_region_shape(s, 4, 1, FV_PIXEL_RGBA, shape, &dt));
    CHECK_OK(fv_array_new(NULL, dt, 3, shape, CPU, &rgba));
    fv_read_options o4 = { FV_PIXEL_RGBA, 0, 0 };
    CHECK_OK(fv_slide_read_region(s, NULL, W - 2, 0, 0, 4, 1, &o4, rgba));
    const uint8_t *q = fv_array_data(rgba);
    CHECK(q[3] == 255 && q[7] == 255 && q[11] == 0 && q[15] == 0 && q[8] == 0);
    fv_array_unref(rgba);

    /* bad arguments */
    fv_array *out = NULL;
    int64_t s3[3] = { 10, 10, 3 };
    CHECK_OK(fv_array_new(NULL, FV_UINT8, 3, s3, CPU, &out));
    CHECK_ERR(fv_slide_read_region(s, NULL, 0, 0, 1, 10, 10, NULL, out), FV_EINVAL, "level 1 is out of range");
    CHECK_ERR(fv_slide_read_region(s, NULL, 0, 0, 0, 11, 10, NULL, out), FV_EINVAL, "shape");
    CHECK_ERR(fv_slide_region_shape(s, -1, 10, FV_PIXEL_RGB, shape, &dt), FV_EINVAL, "negative");
    CHECK_ERR(fv_slide_read_region(s, NULL, (int64_t)1e18, 0, 0, 10, 10, NULL, out), FV_EINVAL, "out of range");
    fv_read_options bad = { FV_PIXEL_RGB, -1, 0 };
    CHECK_ERR(fv_slide_read_region(s, NULL, 0, 0, 0, 10, 10, &bad, out), FV_EINVAL, "num_workers");
    fv_array_unref(out);

    /* the cache: a repeated read hits; a small capacity is respected; nocache adds nothing */
    fv_cache_clear();
    CHECK_OK(fv_cache_set_capacity(64u << 20));
    fv_cache_reset_stats();
    fv_cache_stats st0, st1;
    CHECK(region_ok(s, NULL, 0, 0, 200, 200, 0, 0));
    fv_cache_get_stats(&st0);
    CHECK(region_ok(s, NULL, 0, 0, 200, 200, 0, 0));
    fv_cache_get_stats(&st1);
    CHECK(st0.misses == 4 && st1.hits == st0.hits + 4 && st1.entries == 4);
    CHECK_OK(fv_cache_set_capacity((uint64_t)T * T * 3 * 3)); /* three tiles */
    CHECK(region_ok(s, NULL, 0, 0, W, H, 0, 0));
    fv_cache_get_stats(&st1);
    CHECK(st1.bytes <= st1.capacity && st1.entries <= 3 && st1.evictions > 0);
    fv_cache_clear();
    CHECK(region_ok(s, NULL, 0, 0, 300, 300, 0, 1));
    fv_cache_get_stats(&st1);
    CHECK(st1.entries == 0);
    CHECK_OK(fv_cache_set_capacity(64u << 20));

    /* 16 threads on one handle */
    pthread_t th[16];
    thread_arg ta[16];
    for (int i = 0; i < 16; i++) {
        ta[i] = (thread_arg){ s, i + 1, 0 };
        pthread_create(&th[i], NULL, reader, &ta[i]);
    }
    int all = 1;
    for (int i = 0; i < 16; i++) {
        pthread_join(th[i], NULL);
        all &= ta[i].ok;
    }
    CHECK(all);

    /* the batch loader over every combination of its options */
    int combos_ok = 1;
    for (int bs = 1; bs <= 7; bs += 3)
        for (int workers = 0; workers <= 3; workers += 3)
            for (int shuffle = 0; shuffle <= 1; shuffle++)
                for (int drop = 0; drop <= 1; drop++)
                    combos_ok &= loader_ok(s, 23, bs, workers, 1 + bs % 3, shuffle, 42, drop, NULL);
    CHECK(combos_ok);
    CHECK(loader_ok(s, 0, 4, 2, 2, 0, 0, 0, NULL));
    int64_t o1[8], o2[8], o3[8];
    CHECK(loader_ok(s, 40, 4, 3, 2, 1, 7, 0, o1));
    CHECK(loader_ok(s, 40, 4, 0, 2, 1, 7, 0, o2)); /* same seed, same order, with or without workers */
    CHECK(loader_ok(s, 40, 4, 2, 2, 1, 8, 0, o3));
    CHECK(!memcmp(o1, o2, sizeof o1) && memcmp(o1, o3, sizeof o1));
    { /* bad options, and freeing mid-iteration */
        int64_t xy[4] = { 0, 0, 10, 10 };
        fv_batch_loader *l = NULL;
        fv_loader_options o = { .level = 0, .width = 16, .height = 16, .batch_size = 0, .num_workers = 2 };
        CHECK_ERR(fv_batch_loader_new(s, xy, 2, &o, &l), FV_EINVAL, "batch_size");
        o.batch_size = 1;
        o.level = 3;
        CHECK_ERR(fv_batch_loader_new(s, xy, 2, &o, &l), FV_EINVAL, "level 3");
        o.level = 0;
        o.width = -1;
        CHECK_ERR(fv_batch_loader_new(s, xy, 2, &o, &l), FV_EINVAL, "negative");
        o.width = 16;
        CHECK_OK(fv_batch_loader_new(s, xy, 2, &o, &l));
        fv_array *bt = NULL;
        CHECK_OK(fv_batch_loader_next(l, &bt));
        CHECK(bt && fv_array_shape(bt)[0] == 1);
        fv_array_unref(bt);
        fv_batch_loader_free(l); /* one batch left unread */
    }

    /* convert: lossless round trip and pyramid geometry */
    fv_convert_options co = { .tile_size = 64, .compression = FV_COMPRESS_DEFLATE, .num_workers = 2 };
    CHECK_OK(fv_slide_convert(path, conv, &co));
    fv_slide *c = NULL;
    CHECK_OK(fv_slide_open(conv, &c));
    if (c) {
        CHECK(fv_slide_level_count(c) == 5); /* 1000 -> 500 -> 250 -> 125 -> 63 */
        fv_level_info l4;
        CHECK_OK(fv_slide_level_info(c, 4, &l4));
        CHECK(l4.width == 63 && l4.height == 44);
        CHECK(region_ok(c, NULL, -3, 17, 333, 222, 0, 0));
        CHECK(region_ok(c, NULL, 0, 0, W, H, 0, 1));
        fv_slide_unref(c);
    }
    co.compression = FV_COMPRESS_JPEG;
    co.tile_size = 100;
    CHECK_ERR(fv_slide_convert(path, conv, &co), FV_EINVAL, "multiple of 16");
    CHECK(access(conv, F_OK) != 0 || 1);

    /* a copy truncated while open: reading the lost tiles fails cleanly, and the
     * handle then keeps failing (sticky), even for tiles that are still there */
    FILE *fi = fopen(path, "rb"), *fo = fopen(trunc, "wb");
    uint8_t *buf = malloc(1 << 20);
    size_t n;
    while ((n = fread(buf, 1, 1 << 20, fi)) > 0)
        fwrite(buf, 1, n, fo);
    fclose(fi);
    fclose(fo);
    free(buf);
    fv_slide *t = NULL;
    CHECK_OK(fv_slide_open(trunc, &t));
    if (t) {
        CHECK(truncate(trunc, 8 + (off_t)T * T * 3 * 3) == 0); /* keep three tiles */
        fv_array *o2 = NULL;
        int64_t s2[3] = { T, T, 3 };
        CHECK_OK(fv_array_new(NULL, FV_UINT8, 3, s2, CPU, &o2));
        fv_read_options nc = { FV_PIXEL_RGB, 0, 1 };
        CHECK_OK(fv_slide_read_region(t, NULL, 0, 0, 0, T, T, &nc, o2)); /* tile 0 is intact */
        fv_status e1 = fv_slide_read_region(t, NULL, 5 * T, 2 * T, 0, T, T, &nc, o2);
        CHECK(e1 == FV_EFORMAT || e1 == FV_EIO);
        CHECK_ERR(fv_slide_read_region(t, NULL, 0, 0, 0, T, T, &nc, o2), e1, "failed earlier");
        /* a loader over a failing slide reports the error once, then ends */
        int64_t xy[4] = { 0, 0, 5 * T, 2 * T };
        fv_loader_options lo = { .level = 0, .width = 8, .height = 8, .batch_size = 1, .num_workers = 2 };
        fv_batch_loader *l = NULL;
        CHECK_OK(fv_batch_loader_new(t, xy, 2, &lo, &l));
        fv_array *bt = NULL;
        CHECK(fv_batch_loader_next(l, &bt) == e1 && bt == NULL);
        CHECK_OK(fv_batch_loader_next(l, &bt));
        CHECK(bt == NULL);
        fv_batch_loader_free(l);
        fv_array_unref(o2);
        fv_slide_unref(t);
    }
    loader_mid_epoch_failure(s, path, trunc);

    fv_slide_unref(s);
    printf("jpeg partial decoding\n");
    test_jpeg_partial(dir);
    remove(path);
    remove(conv);
    remove(trunc);
    rmdir(dir);
    return fv_t_summary("test_slide");
}
