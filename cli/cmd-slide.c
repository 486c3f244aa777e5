/* fovea info FILE, fovea read, fovea convert: whole-slide images from the shell. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <sys/stat.h>
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

int
fv_cli_parse_i64(const char *s, int64_t *out)
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
            if (fv_cli_parse_i64(argv[++i], &level))
                goto usage;
        } else if (!strcmp(a, "--location") && i + 2 < argc) {
            if (fv_cli_parse_i64(argv[i + 1], &x) || fv_cli_parse_i64(argv[i + 2], &y))
                goto usage;
            i += 2;
        } else if (!strcmp(a, "--size") && i + 2 < argc) {
            if (fv_cli_parse_i64(argv[i + 1], &w) || fv_cli_parse_i64(argv[i + 2], &h))
                goto usage;
            i += 2;
        } else if (!strcmp(a, "--format") && i + 1 < argc) {
            fmt = argv[++i];
        } else if (!strcmp(a, "--workers") && i + 1 < argc) {
            if (fv_cli_parse_i64(argv[++i], &workers))
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
    fv_pixel_format pf = !strcmp(fmt, "rgb") ? FV_PIXEL_RGB
        : !strcmp(fmt, "rgba")               ? FV_PIXEL_RGBA
        : !strcmp(fmt, "native")             ? FV_PIXEL_NATIVE
                                             : (fv_pixel_format)-1;
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
    fv_read_options ro = { pf, (int)workers, 0 };
    if (fv_slide_region_shape(s, w, h, pf, shape, &dt) ||
        fv_array_new(NULL, dt, 3, shape, (fv_device){ FV_DEVICE_CPU, 0 }, &out) ||
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
    fprintf(stderr,
            "usage: fovea read FILE [--level L] [--location X Y] [--size W H] [--format rgb|rgba|native] "
            "[--workers N] -o OUT.{png,tiff,npy}\n");
    return 2;
}

void
fv_cli_progress(void *user, double f)
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
    fv_convert_options o = { 0 };
    int progress = isatty(2), quiet = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int64_t v;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            printf("usage: fovea convert IN OUT [--tile-size 256] [--compression jpeg|deflate|zstd|none]\n"
                   "                     [--quality Q] [--workers N] [--classic] [--progress|--no-progress]\n\n"
                   "Write a tiled, pyramidal BigTIFF (RGB) from level 0 of any slide fovea reads.\n"
                   "--quality: JPEG quality 1..100 (default 90), or the deflate/zstd level.\n"
                   "--no-progress: neither the progress bar nor the final \"OUT: written\" line.\n");
            return 0;
        } else if (!strcmp(a, "--tile-size") && i + 1 < argc) {
            if (fv_cli_parse_i64(argv[++i], &v))
                goto usage;
            o.tile_size = (int)v;
        } else if (!strcmp(a, "--quality") && i + 1 < argc) {
            if (fv_cli_parse_i64(argv[++i], &v))
                goto usage;
            o.quality = (int)v;
        } else if (!strcmp(a, "--workers") && i + 1 < argc) {
            if (fv_cli_parse_i64(argv[++i], &v))
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
            quiet = 1;
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
        o.progress = fv_cli_progress;
    if (fv_slide_convert(in, outp, &o))
        return fv__fail("convert");
    if (!quiet) /* --no-progress: quiet, for scripts */
        printf("%s: written\n", outp);
    return 0;
usage:
    fprintf(stderr,
            "usage: fovea convert IN OUT [--tile-size 256] [--compression jpeg|deflate|zstd|none] "
            "[--quality Q] [--workers N] [--classic]\n");
    return 2;
}


/* mkdir -p */
static int
mkdir_p(const char *path)
{
    char buf[4096];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        return -1;
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(buf, 0755) && errno != EEXIST)
                return -1;
            *p = '/';
        }
    return mkdir(buf, 0755) && errno != EEXIST ? -1 : 0;
}

static int
to_npy_or_null(const char *path)
{
    const char *dot = path ? strrchr(path, '.') : NULL;
    return dot && !strcmp(dot, ".npy");
}

/* fovea patches: a grid of patches through the batch loader, to one .npy or a folder of PNGs. */
int
fv_cmd_patches(int argc, char **argv)
{
    const char *file = NULL, *outp = NULL;
    int64_t level = 0, size = 256, stride = -1, workers = 0, batch = 64;
    int progress = isatty(2);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            printf("usage: fovea patches FILE [--level L] [--size 256] [--stride S] [--workers N] [--batch 64]\n"
                   "                       --out DIR|FILE.npy [--progress|--no-progress]\n\n"
                   "Export every SIZE x SIZE patch of a level on a STRIDE grid (default STRIDE = SIZE), read\n"
                   "by the batch loader, to one NumPy file (N, SIZE, SIZE, 3) or to DIR/x_y.png (level-0\n"
                   "coordinates in the names).\n");
            return 0;
        } else if (!strcmp(a, "--level") && i + 1 < argc) {
            if (fv_cli_parse_i64(argv[++i], &level))
                goto usage;
        } else if (!strcmp(a, "--size") && i + 1 < argc) {
            if (fv_cli_parse_i64(argv[++i], &size))
                goto usage;
        } else if (!strcmp(a, "--stride") && i + 1 < argc) {
            if (fv_cli_parse_i64(argv[++i], &stride))
                goto usage;
        } else if (!strcmp(a, "--workers") && i + 1 < argc) {
            if (fv_cli_parse_i64(argv[++i], &workers))
                goto usage;
        } else if (!strcmp(a, "--batch") && i + 1 < argc) {
            if (fv_cli_parse_i64(argv[++i], &batch))
                goto usage;
        } else if (!strcmp(a, "--out") && i + 1 < argc) {
            outp = argv[++i];
        } else if (!strcmp(a, "--progress")) {
            progress = 1;
        } else if (!strcmp(a, "--no-progress")) {
            progress = 0;
        } else if (a[0] != '-' && !file) {
            file = a;
        } else {
            goto usage;
        }
    }
    if (stride < 0)
        stride = size;
    if (!file || !outp || size < 1 || size > 16384 || stride < 1 || batch < 1 || batch > 65536 || workers < 0 ||
        workers > 1024)
        goto usage;
    if (workers == 0)
        workers = sysconf(_SC_NPROCESSORS_ONLN) > 0 ? sysconf(_SC_NPROCESSORS_ONLN) : 1;
    fv_slide *s = NULL;
    fv_batch_loader *l = NULL;
    int64_t *xy = NULL;
    FILE *npy = NULL;
    int rc = 1;
    if (fv_slide_open(file, &s))
        return fv__fail("patches");
    fv_level_info li;
    if (level < 0 || level > 1000 || fv_slide_level_info(s, (int)level, &li)) {
        fprintf(stderr, "fovea patches: level %lld is out of range (the slide has %d levels)\n", (long long)level,
                fv_slide_level_count(s));
        goto done;
    }
    int64_t nx = li.width >= size ? (li.width - size) / stride + 1 : 0;
    int64_t ny = li.height >= size ? (li.height - size) / stride + 1 : 0;
    int64_t n = nx * ny;
    if (n == 0) {
        fprintf(stderr, "fovea patches: the level (%lld x %lld) is smaller than one patch\n", (long long)li.width,
                (long long)li.height);
        goto done;
    }
    if (!(xy = malloc((size_t)n * 2 * sizeof *xy))) {
        fprintf(stderr, "fovea patches: out of memory\n");
        goto done;
    }
    for (int64_t j = 0; j < ny; j++)
        for (int64_t i = 0; i < nx; i++) {
            /* level-0 coordinates whose floor(x / downsample) is exactly the grid position */
            xy[2 * (j * nx + i)] = (int64_t)ceil((double)(i * stride) * li.downsample);
            xy[2 * (j * nx + i) + 1] = (int64_t)ceil((double)(j * stride) * li.downsample);
        }
    fv_loader_options o = { .level = (int)level,
                            .width = size,
                            .height = size,
                            .format = FV_PIXEL_RGB,
                            .batch_size = (int)batch,
                            .num_workers = (int)workers,
                            .prefetch_factor = 2 };
    if (fv_batch_loader_new(s, xy, n, &o, &l)) {
        fv__fail("patches");
        goto done;
    }
    const char *dot = strrchr(outp, '.');
    int to_npy = dot && !strcmp(dot, ".npy");
    if (to_npy) {
        if (!(npy = fopen(outp, "wb"))) {
            perror(outp);
            goto done;
        }
        char head[128];
        int hn =
            snprintf(head, sizeof head, "{'descr': '|u1', 'fortran_order': False, 'shape': (%lld, %lld, %lld, 3), }",
                     (long long)n, (long long)size, (long long)size);
        int pad = (64 - (10 + hn + 1) % 64) % 64;
        unsigned char pre[10] = { 0x93,
                                  'N',
                                  'U',
                                  'M',
                                  'P',
                                  'Y',
                                  1,
                                  0,
                                  (unsigned char)((hn + pad + 1) & 255),
                                  (unsigned char)((hn + pad + 1) >> 8) };
        fwrite(pre, 1, 10, npy);
        fwrite(head, 1, (size_t)hn, npy);
        for (int k = 0; k < pad; k++)
            fputc(' ', npy);
        fputc('\n', npy);
    } else if (mkdir_p(outp)) {
        fprintf(stderr, "fovea patches: cannot create %s\n", outp);
        goto done;
    }
    int64_t done_n = 0;
    for (int64_t b = 0;; b++) {
        fv_array *bt = NULL;
        if (fv_batch_loader_next(l, &bt)) {
            fv__fail("patches");
            goto done;
        }
        if (!bt)
            break;
        int64_t m = fv_array_shape(bt)[0], item = size * size * 3;
        const uint8_t *p = fv_array_data(bt);
        for (int64_t k = 0; k < m; k++) {
            int64_t loc = fv_batch_loader_location_index(l, b, k);
            if (to_npy) {
                if (fwrite(p + k * item, 1, (size_t)item, npy) != (size_t)item) {
                    fprintf(stderr, "fovea patches: write failed\n");
                    fv_array_unref(bt);
                    goto done;
                }
            } else {
                char path[4096], err[512];
                snprintf(path, sizeof path, "%s/%lld_%lld.png", outp, (long long)xy[2 * loc],
                         (long long)xy[2 * loc + 1]);
                if (fv_cli_write_image(path, p + k * item, size, size, 3, 1, err, sizeof err)) {
                    fprintf(stderr, "fovea patches: %s\n", err);
                    fv_array_unref(bt);
                    goto done;
                }
            }
        }
        done_n += m;
        fv_array_unref(bt);
        if (progress)
            fv_cli_progress(NULL, (double)done_n / (double)n);
    }
    printf("%s: %lld patches of %lld x %lld from level %lld\n", outp, (long long)n, (long long)size, (long long)size,
           (long long)level);
    rc = 0;
done:
    if (npy && fclose(npy) != 0 && rc == 0) {
        fprintf(stderr, "fovea patches: write failed\n");
        rc = 1;
    }
    if (rc && to_npy_or_null(outp))
        remove(outp);
    fv_batch_loader_free(l);
    free(xy);
    fv_slide_unref(s);
    return rc;
usage:
    fprintf(stderr,
            "usage: fovea patches FILE [--level L] [--size 256] [--stride S] [--workers N] [--batch 64] "
            "--out DIR|FILE.npy\n");
    return 2;
}
