/* fovea info FILE, fovea read, fovea convert: whole-slide images from the shell. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "commands.h"
#include "image-write.h"
#include "fovea/fovea.h"

static int
fv__fail(const char *cmd)
{
    fprintf(stderr, "fovea %s: %s\n", cmd, fv_error_message());
    return 1;
}

int
fv_cmd_info_file(const char *path, int json)
{
    fv_slide *s = NULL;
    if (fv_slide_open(path, &s))
        return fv__fail("info");
    if (json) {
        printf("%s\n", fv_slide_metadata_json(s));
        fv_slide_unref(s);
        return 0;
    }
    printf("%s\n  vendor      : %s\n", path, fv_slide_vendor(s));
    int samples;
    fv_dtype dt;
    fv_slide_native_layout(s, &samples, &dt);
    printf("  pixels      : %d x %s\n", samples, fv_dtype_name(dt));
    const char *mpp = fv_slide_property_value(s, "openslide.mpp-x");
    const char *mag = fv_slide_property_value(s, "openslide.objective-power");
    if (mpp)
        printf("  mpp         : %s x %s\n", mpp, fv_slide_property_value(s, "openslide.mpp-y"));
    if (mag)
        printf("  objective   : %sx\n", mag);
    printf("  levels      : %d\n", fv_slide_level_count(s));
    for (int i = 0; i < fv_slide_level_count(s); i++) {
        fv_level_info li;
        fv_slide_level_info(s, i, &li);
        printf("    [%d] %lld x %lld  downsample %.4g  tile %lld x %lld\n", i, (long long)li.width,
               (long long)li.height, li.downsample, (long long)li.tile_width, (long long)li.tile_height);
    }
    printf("  associated  :");
    for (int i = 0; i < fv_slide_associated_count(s); i++) {
        int64_t w = 0, h = 0;
        fv_slide_associated_size(s, fv_slide_associated_name(s, i), &w, &h);
        printf(" %s (%lld x %lld)", fv_slide_associated_name(s, i), (long long)w, (long long)h);
    }
    printf("%s\n  properties  : %d (fovea info --json lists them)\n", fv_slide_associated_count(s) ? "" : " none",
           fv_slide_property_count(s));
    fv_slide_unref(s);
    return 0;
}

static int
fv__parse_i64(const char *s, int64_t *out)
{
    char *end;
    long long v = strtoll(s, &end, 10);
    if (!*s || *end)
        return -1;
    *out = v;
    return 0;
}

int
fv_cmd_read(int argc, char **argv)
{
    const char *file = NULL, *outp = NULL, *fmt = "rgb";
    int64_t level = 0, x = 0, y = 0, w = -1, h = -1, workers = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            printf("usage: fovea read FILE [--level L] [--location X Y] [--size W H] [--format rgb|rgba|native]\n"
                   "                  [--workers N] -o OUT.{png,tiff,npy}\n\n"
                   "Read a region (location in level-0 pixels, size in pixels of the level; default:\n"
                   "the whole level) and write it to a PNG, TIFF or NumPy file.\n");
            return 0;
        } else if (!strcmp(a, "--level") && i + 1 < argc) {
            if (fv__parse_i64(argv[++i], &level))
                goto usage;
        } else if (!strcmp(a, "--location") && i + 2 < argc) {
            if (fv__parse_i64(argv[i + 1], &x) || fv__parse_i64(argv[i + 2], &y))
                goto usage;
            i += 2;
        } else if (!strcmp(a, "--size") && i + 2 < argc) {
            if (fv__parse_i64(argv[i + 1], &w) || fv__parse_i64(argv[i + 2], &h))
                goto usage;
            i += 2;
        } else if (!strcmp(a, "--format") && i + 1 < argc) {
            fmt = argv[++i];
        } else if (!strcmp(a, "--workers") && i + 1 < argc) {
            if (fv__parse_i64(argv[++i], &workers))
                goto usage;
        } else if ((!strcmp(a, "-o") || !strcmp(a, "--output")) && i + 1 < argc) {
            outp = argv[++i];
        } else if (a[0] != '-' && !file) {
            file = a;
        } else {
            goto usage;
        }
    }
    if (!file || !outp)
        goto usage;
    fv_pixel_format pf = !strcmp(fmt, "rgb") ? FV_PIXEL_RGB : !strcmp(fmt, "rgba") ? FV_PIXEL_RGBA
                       : !strcmp(fmt, "native") ? FV_PIXEL_NATIVE : (fv_pixel_format)-1;
    if ((int)pf < 0)
        goto usage;
    fv_slide *s = NULL;
    fv_array *out = NULL;
    int rc = 1;
    if (fv_slide_open(file, &s))
        return fv__fail("read");
    fv_level_info li;
    if (level < 0 || level > 1000 || fv_slide_level_info(s, (int)level, &li)) {
        fprintf(stderr, "fovea read: level %lld is out of range (the slide has %d levels)\n", (long long)level,
                fv_slide_level_count(s));
        goto done;
    }
    if (w < 0 || h < 0) {
        w = li.width;
        h = li.height;
    }
    int64_t shape[3];
    fv_dtype dt;
    fv_read_options ro = {pf, (int)workers, 0};
    if (fv_slide_region_shape(s, w, h, pf, shape, &dt) ||
        fv_array_new(NULL, dt, 3, shape, (fv_device){FV_DEVICE_CPU, 0}, &out) ||
        fv_slide_read_region(s, NULL, x, y, (int)level, w, h, &ro, out)) {
        fv__fail("read");
        goto done;
    }
    char err[512];
    if (fv_cli_write_image(outp, fv_array_data(out), w, h, (int)shape[2], (int)fv_dtype_size(dt), err, sizeof err)) {
        fprintf(stderr, "fovea read: %s\n", err);
        goto done;
    }
    printf("%s: %lld x %lld x %lld %s from level %lld at (%lld, %lld)\n", outp, (long long)h, (long long)w,
           (long long)shape[2], fv_dtype_name(dt), (long long)level, (long long)x, (long long)y);
    rc = 0;
done:
    fv_array_unref(out);
    fv_slide_unref(s);
    return rc;
usage:
    fprintf(stderr, "usage: fovea read FILE [--level L] [--location X Y] [--size W H] [--format rgb|rgba|native] "
                    "[--workers N] -o OUT.{png,tiff,npy}\n");
    return 2;
}

static void
fv__progress(void *user, double f)
{
    int width = 40, fill = (int)(f * width + 0.5);
    fprintf(stderr, "\r  [%.*s%*s] %5.1f%%", fill, "########################################", width - fill, "",
            100.0 * f);
    if (f >= 1.0)
        fputc('\n', stderr);
    fflush(stderr);
    (void)user;
}

int
fv_cmd_convert(int argc, char **argv)
{
    const char *in = NULL, *outp = NULL;
    fv_convert_options o = {0};
    int progress = isatty(2);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int64_t v;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            printf("usage: fovea convert IN OUT [--tile-size 256] [--compression jpeg|deflate|zstd|none]\n"
                   "                     [--quality Q] [--workers N] [--classic] [--progress|--no-progress]\n\n"
                   "Write a tiled, pyramidal BigTIFF (RGB) from level 0 of any slide fovea reads.\n"
                   "--quality: JPEG quality 1..100 (default 90), or the deflate/zstd level.\n");
            return 0;
        } else if (!strcmp(a, "--tile-size") && i + 1 < argc) {
            if (fv__parse_i64(argv[++i], &v))
                goto usage;
            o.tile_size = (int)v;
        } else if (!strcmp(a, "--quality") && i + 1 < argc) {
            if (fv__parse_i64(argv[++i], &v))
                goto usage;
            o.quality = (int)v;
        } else if (!strcmp(a, "--workers") && i + 1 < argc) {
            if (fv__parse_i64(argv[++i], &v))
                goto usage;
            o.num_workers = (int)v;
        } else if (!strcmp(a, "--compression") && i + 1 < argc) {
            const char *c = argv[++i];
            if (!strcmp(c, "jpeg"))
                o.compression = FV_COMPRESS_JPEG;
            else if (!strcmp(c, "deflate"))
                o.compression = FV_COMPRESS_DEFLATE;
            else if (!strcmp(c, "zstd"))
                o.compression = FV_COMPRESS_ZSTD;
            else if (!strcmp(c, "none"))
                o.compression = FV_COMPRESS_NONE;
            else
                goto usage;
        } else if (!strcmp(a, "--classic")) {
            o.classic_tiff = 1;
        } else if (!strcmp(a, "--progress")) {
            progress = 1;
        } else if (!strcmp(a, "--no-progress")) {
            progress = 0;
        } else if (a[0] != '-' && !in) {
            in = a;
        } else if (a[0] != '-' && !outp) {
            outp = a;
        } else {
            goto usage;
        }
    }
    if (!in || !outp)
        goto usage;
    if (progress)
        o.progress = fv__progress;
    if (fv_slide_convert(in, outp, &o))
        return fv__fail("convert");
    printf("%s: written\n", outp);
    return 0;
usage:
    fprintf(stderr, "usage: fovea convert IN OUT [--tile-size 256] [--compression jpeg|deflate|zstd|none] "
                    "[--quality Q] [--workers N] [--classic]\n");
    return 2;
}
