/* The GPU slide reader (src/cuda/io) against the CPU reader: read_region and
 * read_regions into device memory on JPEG pyramids (nvJPEG), deflate and raw
 * pyramids (CPU decode + copy), RGB / RGBA / native outputs, regions past the
 * edges and far outside, batches that share tiles, whole levels cut into passes
 * (16-pixel tiles), the batch loader on the device, and a corrupt JPEG tile
 * (the error names the chunk; the output is zero; the handle is sticky). JPEG
 * pixels must agree within decoder tolerance (mean |diff| < 1, max < 16); other
 * codecs exactly. Exits 77 (ctest: skipped) without a usable GPU; everything is
 * freed, so compute-sanitizer's leak check must stay quiet. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "fovea/fovea.h"
#include "internal.h"
#include "tiff/tiff.h"
#define FV_T_SEED 0x9e3779b97f4a7c15ull
#include "harness.h" /* check.h, variant-force.h, xorshift.h, arrays, devices */
#include "tiff-writer.h"

/* Compare host a with device b (same shape); jpeg: tolerance, else exact. */
static int
same_pixels(const fv_array *a, const fv_array *b, int jpeg, const char *what)
{
    size_t n = (size_t)fv_array_nbytes(a);
    uint8_t *hb = malloc(n ? n : 1);
    if (!hb)
        return 0;
    if (cudaMemcpy(hb, fv_array_data(b), n, cudaMemcpyDeviceToHost) != cudaSuccess) {
        free(hb);
        fprintf(stderr, "%s: cudaMemcpy failed\n", what);
        return 0;
    }
    const uint8_t *ha = fv_array_data(a);
    double sum = 0;
    int maxd = 0;
    size_t ndiff = 0;
    for (size_t i = 0; i < n; i++) {
        int d = abs((int)ha[i] - (int)hb[i]);
        sum += d;
        ndiff += d != 0;
        if (d > maxd)
            maxd = d;
    }
    free(hb);
    double mean = n ? sum / (double)n : 0;
    int ok = jpeg ? (mean < 1.0 && maxd < 16) : maxd == 0;
    if (!ok)
        fprintf(stderr, "%s: mean |diff| %.3f, max %d, %zu of %zu bytes differ\n", what, mean, maxd, ndiff, n);
    return ok;
}

static int
all_zero_device(const fv_array *b)
{
    size_t n = (size_t)fv_array_nbytes(b);
    uint8_t *hb = malloc(n ? n : 1);
    int ok = hb && cudaMemcpy(hb, fv_array_data(b), n, cudaMemcpyDeviceToHost) == cudaSuccess;
    for (size_t i = 0; ok && i < n; i++)
        ok = hb[i] == 0;
    free(hb);
    return ok;
}

/* One region on both paths. */
static void
check_region(fv_slide *s, int64_t x, int64_t y, int level, int64_t w, int64_t h, fv_pixel_format fmt, int jpeg,
             const char *name)
{
    int64_t shape[3];
    fv_dtype dt;
    fv_array *a = NULL, *b = NULL;
    fv_read_options o = { fmt, 0, 0 };
    CHECK_OK(fv_slide_region_shape(s, w, h, fmt, shape, &dt));
    CHECK_OK(fv_array_new(NULL, dt, 3, shape, CPU, &a));
    CHECK_OK(fv_array_new(NULL, dt, 3, shape, GPU, &b));
    if (!a || !b)
        goto done;
    CHECK_OK(fv_slide_read_region(s, NULL, x, y, level, w, h, &o, a));
    CHECK_OK(fv_slide_read_region(s, NULL, x, y, level, w, h, &o, b));
    char what[200];
    snprintf(what, sizeof what, "%s: region (%lld, %lld) level %d %lldx%lld format %d", name, (long long)x,
             (long long)y, level, (long long)w, (long long)h, (int)fmt);
    CHECK(same_pixels(a, b, jpeg, what));
done:
    fv_array_unref(a);
    fv_array_unref(b);
}

/* n regions in one read_regions call on both paths. */
static void
check_batch(fv_slide *s, const int64_t *xy, int64_t n, int level, int64_t w, int64_t h, fv_pixel_format fmt, int jpeg,
            const char *name)
{
    int64_t shape[3], shape4[4];
    fv_dtype dt;
    fv_array *a = NULL, *b = NULL;
    fv_read_options o = { fmt, 2, 0 };
    CHECK_OK(fv_slide_region_shape(s, w, h, fmt, shape, &dt));
    shape4[0] = n, shape4[1] = shape[0], shape4[2] = shape[1], shape4[3] = shape[2];
    CHECK_OK(fv_array_new(NULL, dt, 4, shape4, CPU, &a));
    CHECK_OK(fv_array_new(NULL, dt, 4, shape4, GPU, &b));
    if (!a || !b)
        goto done;
    CHECK_OK(fv_slide_read_regions(s, NULL, xy, n, level, w, h, &o, a));
    CHECK_OK(fv_slide_read_regions(s, NULL, xy, n, level, w, h, &o, b));
    char what[200];
    snprintf(what, sizeof what, "%s: batch of %lld, level %d, %lldx%lld", name, (long long)n, level, (long long)w,
             (long long)h);
    CHECK(same_pixels(a, b, jpeg, what));
done:
    fv_array_unref(a);
    fv_array_unref(b);
}

static void
check_slide(const char *path, int jpeg, const char *name)
{
    fv_slide *s = NULL;
    CHECK_OK(fv_slide_open(path, &s));
    if (!s)
        return;
    int nl = fv_slide_level_count(s);
    fv_level_info l0;
    CHECK_OK(fv_slide_level_info(s, 0, &l0));
    const fv_pixel_format fmts[3] = { FV_PIXEL_RGB, FV_PIXEL_RGBA, FV_PIXEL_NATIVE };
    for (int k = 0; k < 40; k++) {
        int level = (int)irand(0, nl - 1);
        fv_level_info li;
        CHECK_OK(fv_slide_level_info(s, level, &li));
        int64_t w = irand(1, 300), h = irand(1, 300);
        int64_t x = irand(-200, l0.width + 100), y = irand(-200, l0.height + 100);
        check_region(s, x, y, level, w, h, fmts[k % 3], jpeg, name);
    }
    check_region(s, -5000, -5000, 0, 64, 32, FV_PIXEL_RGB, jpeg, name);                   /* all outside */
    check_region(s, l0.width - 10, l0.height - 10, 0, 64, 64, FV_PIXEL_RGBA, jpeg, name); /* corner */
    for (int level = 0; level < nl; level++) { /* whole levels (many passes with small tiles) */
        fv_level_info li;
        CHECK_OK(fv_slide_level_info(s, level, &li));
        check_region(s, 0, 0, level, li.width, li.height, FV_PIXEL_RGB, jpeg, name);
    }
    /* batches: random patches (sharing tiles), some repeated, some outside */
    int64_t xy[2 * 97];
    for (int i = 0; i < 97; i++) {
        xy[2 * i] = i % 10 == 9 ? xy[2 * (i - 1)] : irand(-100, l0.width);
        xy[2 * i + 1] = i % 10 == 9 ? xy[2 * (i - 1) + 1] : irand(-100, l0.height);
    }
    check_batch(s, xy, 97, 0, 96, 80, FV_PIXEL_RGB, jpeg, name);
    check_batch(s, xy, 13, nl - 1, 33, 47, FV_PIXEL_RGBA, jpeg, name);
    /* the loader on the device yields what read_regions gives */
    fv_loader_options lo = { .level = 0,
                             .width = 64,
                             .height = 64,
                             .format = FV_PIXEL_RGB,
                             .batch_size = 8,
                             .num_workers = 3,
                             .prefetch_factor = 2,
                             .shuffle = 1,
                             .seed = 7,
                             .device = GPU };
    fv_batch_loader *ld = NULL;
    CHECK_OK(fv_batch_loader_new(s, xy, 97, &lo, &ld));
    int64_t b = 0, items = 0;
    for (fv_array *batch = NULL; ld; b++) {
        CHECK_OK(fv_batch_loader_next(ld, &batch));
        if (!batch)
            break;
        CHECK(fv_array_device(batch).type == FV_DEVICE_CUDA);
        int64_t nb = fv_array_shape(batch)[0];
        int64_t bxy[16];
        for (int64_t i = 0; i < nb; i++) {
            int64_t loc = fv_batch_loader_location_index(ld, b, i);
            bxy[2 * i] = xy[2 * loc], bxy[2 * i + 1] = xy[2 * loc + 1];
        }
        int64_t shape4[4] = { nb, 64, 64, 3 };
        fv_array *a = NULL;
        CHECK_OK(fv_array_new(NULL, FV_UINT8, 4, shape4, CPU, &a));
        if (a) {
            fv_read_options o = { FV_PIXEL_RGB, 1, 0 };
            CHECK_OK(fv_slide_read_regions(s, NULL, bxy, nb, 0, 64, 64, &o, a));
            CHECK(same_pixels(a, batch, jpeg, "loader batch"));
        }
        fv_array_unref(a);
        fv_array_unref(batch);
        items += nb;
    }
    CHECK(items == 97);
    fv_batch_loader_free(ld);
    fv_slide_unref(s);
}

/* Corrupt the middle of one JPEG tile: the GPU read must fail like the CPU read,
 * leave zeros, and make the handle sticky. */
static void
check_corrupt(const char *good, const char *bad)
{
    fv__tiff *t = NULL;
    CHECK_OK(fv__tiff_open(good, &t));
    if (!t)
        return;
    const fv__tiff_ifd *d = &t->ifds[0];
    uint64_t chunk = d->nchunks / 2, off = d->chunk_offsets[chunk], len = d->chunk_bytes[chunk];
    FILE *in = fopen(good, "rb"), *out = fopen(bad, "wb");
    CHECK(in && out);
    if (in && out) {
        uint8_t buf[1 << 16];
        size_t r;
        uint64_t pos = 0;
        while ((r = fread(buf, 1, sizeof buf, in)) > 0) {
            for (size_t i = 0; i < r; i++, pos++)
                if (pos >= off + len / 3 && pos < off + len - 2) /* garbage in the entropy-coded data */
                    buf[i] = (uint8_t)(0xFF ^ (pos * 37));
            fwrite(buf, 1, r, out);
        }
    }
    if (in)
        fclose(in);
    if (out)
        fclose(out);
    int64_t tx = (int64_t)(chunk % ((d->width + d->tile_width - 1) / d->tile_width)) * d->tile_width;
    int64_t ty = (int64_t)(chunk / ((d->width + d->tile_width - 1) / d->tile_width)) * d->tile_height;
    fv__tiff_close(t);

    fv_slide *s = NULL;
    CHECK_OK(fv_slide_open(bad, &s));
    if (!s)
        return;
    int64_t shape4[4] = { 4, 64, 64, 3 };
    fv_array *b = NULL;
    CHECK_OK(fv_array_new(NULL, FV_UINT8, 4, shape4, GPU, &b));
    int64_t xy[8] = { 0, 0, tx + 3, ty + 5, 64, 0, tx, ty };
    fv_read_options o = { FV_PIXEL_RGB, 2, 1 };
    fv_status st = fv_slide_read_regions(s, NULL, xy, 4, 0, 64, 64, &o, b);
    CHECK(st == FV_EFORMAT);
    if (st != FV_EFORMAT)
        fprintf(stderr, "corrupt tile: %s (%s)\n", fv_status_name(st), fv_error_message());
    char want[64];
    snprintf(want, sizeof want, "chunk %llu", (unsigned long long)chunk);
    CHECK(strstr(fv_error_message(), want) != NULL);
    CHECK(all_zero_device(b));
    /* sticky: a good region fails too, with the same message */
    fv_array_unref(b);
    b = NULL;
    int64_t shape1[4] = { 1, 64, 64, 3 };
    CHECK_OK(fv_array_new(NULL, FV_UINT8, 4, shape1, GPU, &b));
    CHECK_ERR(fv_slide_read_regions(s, NULL, xy, 1, 0, 64, 64, &o, b), FV_EFORMAT, "handle failed earlier");
    fv_array_unref(b);
    fv_slide_unref(s);
}

int
main(void)
{
    if (!fv_cuda_available()) {
        printf("test_cuda_slide: skipped (%s)\n", fv_cuda_unavailable_reason());
        return 77;
    }
    char dir[] = "/tmp/fovea-cuda-slide-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    char src[300], jpg[300], jpg16[300], dfl[300], raw[300], bad[300];
    snprintf(src, sizeof src, "%s/src.tif", dir);
    snprintf(jpg, sizeof jpg, "%s/jpeg.tif", dir);
    snprintf(jpg16, sizeof jpg16, "%s/jpeg16.tif", dir);
    snprintf(dfl, sizeof dfl, "%s/deflate.tif", dir);
    snprintf(raw, sizeof raw, "%s/raw.tif", dir);
    snprintf(bad, sizeof bad, "%s/bad.tif", dir);
    CHECK(tfw_write_raw_slide(src, 1000, 700, 64) == 0);
    fv_convert_options co = { .tile_size = 128, .compression = FV_COMPRESS_JPEG, .quality = 90 };
    CHECK_OK(fv_slide_convert(src, jpg, &co));
    co.tile_size = 16; /* thousands of tiles: whole-level reads take several passes */
    CHECK_OK(fv_slide_convert(src, jpg16, &co));
    co.tile_size = 96;
    co.compression = FV_COMPRESS_DEFLATE;
    co.quality = 0;
    CHECK_OK(fv_slide_convert(src, dfl, &co));
    co.compression = FV_COMPRESS_NONE;
    CHECK_OK(fv_slide_convert(src, raw, &co));

    const char *info = strstr(fv_config_json(), "\"nvjpeg\"");
    printf("test_cuda_slide: %.120s\n", info ? info : "(no nvjpeg entry in the configuration)");
    check_slide(jpg, 1, "jpeg 128");
    check_slide(jpg16, 1, "jpeg 16");
    check_slide(dfl, 0, "deflate");
    check_slide(raw, 0, "raw");
    check_corrupt(jpg, bad);

    /* argument errors */
    fv_slide *s = NULL;
    CHECK_OK(fv_slide_open(jpg, &s));
    if (s) {
        fv_array *b = NULL;
        int64_t shape[3] = { 8, 8, 3 }, shape4[4] = { 2, 8, 8, 3 };
        CHECK_OK(fv_array_new(NULL, FV_UINT8, 3, shape, GPU, &b));
        CHECK_ERR(fv_slide_read_regions(s, NULL, (int64_t[]){ 0, 0 }, 1, 0, 8, 8, NULL, b), FV_EINVAL, "shape");
        int64_t xy[4] = { 0, 0, 8, 8 };
        fv_array_unref(b);
        b = NULL;
        CHECK_OK(fv_array_new(NULL, FV_UINT8, 4, shape4, GPU, &b));
        CHECK_ERR(fv_slide_read_regions(s, NULL, xy, 2, 9, 8, 8, NULL, b), FV_EINVAL, "level");
        CHECK_ERR(fv_slide_read_regions(s, NULL, xy, 0, 0, 8, 8, NULL, b), FV_EINVAL, "n >= 1");
        CHECK_OK(fv_slide_read_regions(s, NULL, xy, 2, 0, 8, 8, NULL, b));
        /* the reader pool freed between reads: the next read builds it again */
        fv_array *a = NULL;
        CHECK_OK(fv_array_new(NULL, FV_UINT8, 4, shape4, CPU, &a));
        if (a) {
            CHECK_OK(fv_slide_read_regions(s, NULL, xy, 2, 0, 8, 8, NULL, a));
            fv_slide_gpu_release();
            fv_slide_gpu_release(); /* twice: nothing left to free */
            CHECK_OK(fv_slide_read_regions(s, NULL, xy, 2, 0, 8, 8, NULL, b));
            CHECK(same_pixels(a, b, 1, "read after fv_slide_gpu_release"));
            fv_array_unref(a);
        }
        fv_array_unref(b);
        fv_slide_unref(s);
    }
    /* free the pooled readers and nvJPEG handles, so the leak check sees only leaks */
    fv_slide_gpu_release();
    fv_cache_clear();
    unlink(src), unlink(jpg), unlink(jpg16), unlink(dfl), unlink(raw), unlink(bad);
    rmdir(dir);
    return fv_t_summary("test_cuda_slide");
}
