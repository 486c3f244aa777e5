/* Fault injection (docs/robustness.md, section 1 "Faults"):
 *
 *  - allocation failure at every allocation (k = 1 .. all) of one cycle: open,
 *    metadata, read_region (cached, cache hit, nocache, native), associated images,
 *    the batch loader, close, with the per-process and the shared-memory cache; and
 *    every allocation of a read on an open handle, of fv_cache_configure, of
 *    fv_slide_convert: each call returns FV_OK with the right pixels (the few
 *    allocations that only cost speed: a cache entry, a cached copy) or FV_ENOMEM,
 *    nothing leaks (fv__alloc_live, and LeakSanitizer in the ASan build), and the
 *    next call without the fault succeeds with the same pixels;
 *  - read faults at every pread of the cycle: EIO and end of file give FV_EIO, make
 *    an open handle fail every later call (sticky), and a failed read leaves zeros
 *    in out (no partial pixels); short reads and EINTR are retried (same pixels);
 *  - file descriptors: many handles opened, read and closed from 8 threads,
 *    corrupt and missing files among them, leave the /proc/self/fd count as it was,
 *    and every descriptor on a slide file carries FD_CLOEXEC.
 *
 * argv[1]: the seed corpus directory tiff_open/ (tests/fuzz/make_corpus.c: small
 * slides of every layout and codec, and mutated files). --quick: three slides, every
 * 7th allocation and read, fewer opens (the valgrind step in tools/test). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "fovea/fovea.h"
#include "alloc.h"
#include "tiff/tiff.h"
#include "slide/cache.h"
#include "check.h"

static const fv_device CPU = { FV_DEVICE_CPU, 0 };
static const char *corpus;
static int quick;
static fv_context *ctx1; /* one thread: allocations and reads come in a fixed order */

static double
now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double t_section;

static void
section(const char *title)
{
    double t = now();
    if (t_section > 0)
        printf("  (%.1f s)\n", t - t_section);
    t_section = t;
    if (title)
        printf("%s\n", title);
    fflush(stdout);
}

/* ---- one cycle over a slide ------------------------------------------------------------------- */

typedef struct cyc {
    uint64_t hash;   /* FNV-1a over every pixel and metadata string */
    int zero_ok;     /* every failed read left zeros in out */
    int sticky_ok;   /* after a failed read (FV_EIO / FV_EFORMAT) the handle keeps failing */
    int failed_read; /* a read (not open) failed */
    char msg[300];
} cyc;

static void
mix(cyc *c, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        c->hash = (c->hash ^ b[i]) * 1099511628211ull;
}

static void
mix_str(cyc *c, const char *s)
{
    if (s)
        mix(c, s, strlen(s) + 1);
}

static int
all_zero(const fv_array *a)
{
    const uint8_t *p = fv_array_data(a);
    int64_t n = fv_array_nbytes(a);
    for (int64_t i = 0; i < n; i++)
        if (p[i])
            return 0;
    return 1;
}

/* A read that failed: out must hold zeros, and the handle must now fail every call
 * when the error came from the file. */
static void
after_failure(cyc *c, fv_slide *s, fv_status st, fv_array *out)
{
    c->failed_read = 1;
    if (out && !all_zero(out))
        c->zero_ok = 0;
    if (st == FV_EIO || st == FV_EFORMAT) {
        fv_array *o = NULL;
        int64_t shape[3] = { 4, 4, 3 };
        if (fv_array_new(NULL, FV_UINT8, 3, shape, CPU, &o) == FV_OK) {
            fv_status again = fv_slide_read_region(s, ctx1, 0, 0, 0, 4, 4, NULL, o);
            if (again != st || !strstr(fv_error_message(), "failed earlier"))
                c->sticky_ok = 0;
            fv_array_unref(o);
        }
    }
}

/* read (x, y, w, h) of level into a new array (filled with 0xA5 first) and hash it */
static fv_status
read_one(cyc *c, fv_slide *s, int64_t x, int64_t y, int level, int64_t w, int64_t h, fv_pixel_format f, int nocache)
{
    int64_t shape[3];
    fv_dtype dt;
    fv_array *out = NULL;
    fv_status st;
    if ((st = fv_slide_region_shape(s, w, h, f, shape, &dt)) || (st = fv_array_new(NULL, dt, 3, shape, CPU, &out)))
        return st;
    memset(fv_array_data(out), 0xA5, (size_t)fv_array_nbytes(out));
    fv_read_options o = { f, 0, nocache };
    if ((st = fv_slide_read_region(s, ctx1, x, y, level, w, h, &o, out)))
        after_failure(c, s, st, out);
    else
        mix(c, fv_array_data(out), (size_t)fv_array_nbytes(out));
    fv_array_unref(out);
    return st;
}

/* open, metadata, regions, associated images, loader, close; the first error */
static fv_status
cycle(const char *path, cyc *c)
{
    fv_slide *s = NULL;
    fv_status st;
    memset(c, 0, sizeof *c);
    c->hash = 1469598103934665603ull;
    c->zero_ok = c->sticky_ok = 1;
    if ((st = fv_slide_open(path, &s)))
        goto done;
    mix_str(c, fv_slide_vendor(s));
    mix_str(c, fv_slide_metadata_json(s));
    for (int i = 0; i < fv_slide_property_count(s); i++)
        mix_str(c, fv_slide_property_value(s, fv_slide_property_name(s, i)));
    int nl = fv_slide_level_count(s);
    for (int lv = 0; lv < nl && lv < 3; lv++) {
        fv_level_info li;
        if ((st = fv_slide_level_info(s, lv, &li)))
            goto done;
        int64_t w = li.width < 96 ? li.width : 96, h = li.height < 80 ? li.height : 80;
        int64_t x = (int64_t)((double)(li.width - w) * li.downsample),
                y = (int64_t)((double)(li.height - h) * li.downsample);
        if ((st = read_one(c, s, x, y, lv, w, h, FV_PIXEL_RGB, 0)) ||  /* decode + cache insert */
            (st = read_one(c, s, x, y, lv, w, h, FV_PIXEL_RGB, 0)) ||  /* cache hit */
            (st = read_one(c, s, 0, 0, lv, w, h, FV_PIXEL_NATIVE, 1))) /* partial decode, no cache */
            goto done;
    }
    if ((st = read_one(c, s, -7, -5, 0, 40, 30, FV_PIXEL_RGBA, 0))) /* background */
        goto done;
    for (int i = 0; i < fv_slide_associated_count(s); i++) {
        const char *name = fv_slide_associated_name(s, i);
        int64_t w, h, shape[3];
        fv_dtype dt;
        fv_array *out = NULL;
        if ((st = fv_slide_associated_size(s, name, &w, &h)) ||
            (st = fv_slide_region_shape(s, w, h, FV_PIXEL_RGB, shape, &dt)) ||
            (st = fv_array_new(NULL, FV_UINT8, 3, shape, CPU, &out)))
            goto done;
        memset(fv_array_data(out), 0xA5, (size_t)fv_array_nbytes(out));
        if ((st = fv_slide_read_associated(s, name, FV_PIXEL_RGB, out)))
            after_failure(c, s, st, out);
        else
            mix(c, fv_array_data(out), (size_t)fv_array_nbytes(out));
        fv_array_unref(out);
        if (st)
            goto done;
    }
    /* the batch loader, served in this thread: patches anywhere, then whole tiles of a
     * tile-aligned grid (decoded straight into the batch); batches of 2, 2, 1 (the
     * second reuses the first's buffer) */
    fv_level_info l0;
    if ((st = fv_slide_level_info(s, 0, &l0)))
        goto done;
    int64_t tw = l0.tile_width && l0.tile_width <= 256 ? l0.tile_width : 24;
    int64_t th = l0.tile_height && l0.tile_height <= 256 ? l0.tile_height : 16;
    for (int pass = 0; pass < 2 && !st; pass++) {
        int64_t xy[10] = { 0, 0, 33, 17, 5, 60, 64, 3, 200, 130 };
        int64_t grid[10] = { 0, 0, tw, 0, 0, th, tw, th, 2 * tw, 0 };
        fv_loader_options lo = {
            .level = 0, .width = pass ? tw : 24, .height = pass ? th : 16, .format = FV_PIXEL_RGB, .batch_size = 2
        };
        fv_batch_loader *l = NULL;
        if ((st = fv_batch_loader_new(s, pass ? grid : xy, 5, &lo, &l)))
            goto done;
        for (;;) {
            fv_array *b = NULL;
            if ((st = fv_batch_loader_next(l, &b))) {
                if (st == FV_EIO || st == FV_EFORMAT)
                    after_failure(c, s, st, NULL);
                break;
            }
            if (!b)
                break;
            mix(c, fv_array_data(b), (size_t)fv_array_nbytes(b));
            fv_array_unref(b);
        }
        fv_batch_loader_free(l);
    }
done:
    if (st)
        snprintf(c->msg, sizeof c->msg, "%s", fv_error_message());
    fv_slide_unref(s);
    fv_cache_clear();
    return st;
}

/* ---- slides of the corpus ------------------------------------------------------------------------ */

static char **files;
static int nfiles;

static int
cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
list_corpus(void)
{
    DIR *d = opendir(corpus);
    if (!d) {
        fprintf(stderr, "test_faults: cannot open %s\n", corpus);
        exit(1);
    }
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        files = realloc(files, (size_t)(nfiles + 1) * sizeof *files);
        files[nfiles] = malloc(strlen(corpus) + strlen(de->d_name) + 2);
        sprintf(files[nfiles], "%s/%s", corpus, de->d_name);
        nfiles++;
    }
    closedir(d);
    qsort(files, (size_t)nfiles, sizeof *files, cmp_str);
}

static const char *
base(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* the slides worth a full sweep: valid ones of each layout and codec, and some broken ones */
static int
selected(const char *path, int valid_only)
{
    static const char *const pick[] = {
        "aperio-jpeg",
        "aperio-jp2k",
        "philips",
        "ome-subifds",
        "ome-chain-zstd-big",
        "convert-jpeg-bigtiff",
        "generic-jpeg-tables-big-be",
        "generic-jpeg-gray-stripped",
        "generic-lzw-pred-stripped",
        "generic-adobe-deflate-rgba-be",
        "generic-zstd-16bit-gray-stripped",
        "generic-webp-lossy-rgba",
        "generic-jp2k-ycbcr",
        "generic-none-tiled-le",
        "mut-next-loops",
        "mut-truncated-half",
        "mut-entry09-value",
    };
    static const char *const few[] = { "aperio-jpeg", "philips", "generic-lzw-pred-stripped" };
    const char *b = base(path);
    int n = quick ? 3 : (int)(sizeof pick / sizeof pick[0]);
    for (int i = 0; i < n; i++)
        if (!strcmp(b, quick ? few[i] : pick[i]))
            return !valid_only || strncmp(b, "mut-", 4);
    return 0;
}

/* ---- allocation failures -------------------------------------------------------------------------- */

static int64_t total_k, total_nomem, total_ok;

static void
alloc_sweep(const char *path, int from)
{
    cyc ref, c;
    fv_status st0 = cycle(path, &ref); /* warm: per-thread codec contexts exist from now on */
    fv__alloc_fail_after(0);
    st0 = cycle(path, &ref);
    int64_t n = fv__alloc_count(), live = fv__alloc_live();
    fv__alloc_fail_after(-1);
    CHECK(live == 0);
    if (st0 && strncmp(base(path), "mut-", 4))
        fprintf(stderr, "%s: %s\n", path, ref.msg);
    int nomem = 0, ok = 0, step = quick ? 7 : 1;
    for (int64_t k = 1; k <= n; k += step) {
        if (from)
            fv__alloc_fail_from(k);
        else
            fv__alloc_fail_after(k);
        fv_status st = cycle(path, &c);
        int64_t lv = fv__alloc_live(), nf = fv__alloc_failures();
        fv__alloc_fail_after(-1);
        int good = nf >= 1 && lv == 0 && c.zero_ok;
        if (st == FV_ENOMEM)
            nomem++;
        else if (st == st0 && c.hash == ref.hash)
            ok++; /* an allocation that only costs speed (a cache entry or copy) */
        else
            good = 0;
        if (!good) {
            fv_t_fail++;
            fprintf(stderr,
                    "%s: allocation %lld of %lld failed%s: %s '%s' (reference %s), %lld failures, "
                    "%lld blocks leaked, zeros %d, same pixels %d\n",
                    base(path), (long long)k, (long long)n, from ? " (and all after)" : "", fv_status_name(st), c.msg,
                    fv_status_name(st0), (long long)nf, (long long)lv, c.zero_ok, c.hash == ref.hash);
        } else
            fv_t_pass++;
        /* and without the fault everything works again */
        st = cycle(path, &c);
        if (st != st0 || c.hash != ref.hash) {
            fv_t_fail++;
            fprintf(stderr, "%s: after allocation %lld failed, a fresh cycle gives %s '%s' (reference %s)\n",
                    base(path), (long long)k, fv_status_name(st), c.msg, fv_status_name(st0));
        }
    }
    total_k += (n + step - 1) / step;
    total_nomem += nomem;
    total_ok += ok;
    printf("  %-36s %s %4lld allocations: %4d FV_ENOMEM, %3d unaffected%s\n", base(path),
           st0 ? fv_status_name(st0) : "ok", (long long)n, nomem, ok, from ? " (all failing from k on)" : "");
}

/* On one open handle: the k-th allocation of a read fails; the next read succeeds
 * (FV_ENOMEM is not sticky) with the right pixels. */
static void
alloc_handle(const char *path)
{
    fv_slide *s = NULL;
    CHECK_OK(fv_slide_open(path, &s));
    if (!s)
        return;
    int64_t shape[3];
    fv_dtype dt;
    fv_array *ref = NULL, *out = NULL;
    fv_level_info li;
    fv_slide_level_info(s, 0, &li);
    int64_t w = li.width < 150 ? li.width : 150, h = li.height < 130 ? li.height : 130;
    CHECK_OK(fv_slide_region_shape(s, w, h, FV_PIXEL_RGB, shape, &dt));
    CHECK_OK(fv_array_new(NULL, dt, 3, shape, CPU, &ref));
    CHECK_OK(fv_array_new(NULL, dt, 3, shape, CPU, &out));
    size_t nb = (size_t)fv_array_nbytes(out);
    fv_read_options o = { FV_PIXEL_RGB, 0, 0 };
    CHECK_OK(fv_slide_read_region(s, ctx1, 0, 0, 0, w, h, &o, ref));
    fv_cache_clear();
    fv__alloc_fail_after(0);
    CHECK_OK(fv_slide_read_region(s, ctx1, 0, 0, 0, w, h, &o, out));
    int64_t n = fv__alloc_count();
    fv__alloc_fail_after(-1);
    int bad = 0;
    for (int64_t k = 1; k <= n; k++) {
        fv_cache_clear();
        fv__alloc_fail_after(k);
        fv_status st = fv_slide_read_region(s, ctx1, 0, 0, 0, w, h, &o, out);
        fv__alloc_fail_after(-1);
        if (st == FV_ENOMEM ? !all_zero(out) : (st != FV_OK || memcmp(fv_array_data(out), fv_array_data(ref), nb)))
            bad++;
        memset(fv_array_data(out), 0, nb);
        if (fv_slide_read_region(s, ctx1, 0, 0, 0, w, h, &o, out) || memcmp(fv_array_data(out), fv_array_data(ref), nb))
            bad++;
    }
    CHECK(bad == 0 && n > 0);
    printf("  %-36s one handle: %lld allocations per read, each failing once, then reading again\n", base(path),
           (long long)n);
    fv_array_unref(ref);
    fv_array_unref(out);
    fv_slide_unref(s);
}

static void
alloc_misc(const char *tmpdir)
{
    /* fv_cache_configure (shared memory) at every allocation: no segment left behind */
    fv__alloc_fail_after(0);
    CHECK_OK(fv_cache_configure(FV_CACHE_SHARED_MEMORY, 1 << 20));
    int64_t n = fv__alloc_count();
    fv__alloc_fail_after(-1);
    CHECK_OK(fv_cache_configure(FV_CACHE_PER_PROCESS, 64 << 20));
    for (int64_t k = 1; k <= n; k++) {
        fv__alloc_fail_after(k);
        fv_status st = fv_cache_configure(FV_CACHE_SHARED_MEMORY, 1 << 20);
        fv__alloc_fail_after(-1);
        CHECK(st == FV_ENOMEM || st == FV_OK);
        if (st == FV_OK) {
            char msg[200] = "";
            CHECK(fv__cache_check(msg, sizeof msg) == 0);
        }
        CHECK_OK(fv_cache_configure(FV_CACHE_PER_PROCESS, 64 << 20));
    }
    printf("  fv_cache_configure(shared_memory)     %lld allocations\n", (long long)n);

    /* fv_slide_convert at every allocation (one encoder thread): no partial output stays */
    char src[600], dst[600];
    snprintf(src, sizeof src, "%s/generic-none-tiled-le", corpus);
    snprintf(dst, sizeof dst, "%s/converted.tif", tmpdir);
    fv_convert_options co = { .tile_size = 32, .compression = FV_COMPRESS_JPEG, .num_workers = 1 };
    for (int comp = 0; comp < 2; comp++) {
        co.compression = comp ? FV_COMPRESS_DEFLATE : FV_COMPRESS_JPEG;
        CHECK_OK(fv_slide_convert(src, dst, &co)); /* warm */
        fv__alloc_fail_after(0);
        CHECK_OK(fv_slide_convert(src, dst, &co));
        n = fv__alloc_count();
        int64_t live = fv__alloc_live();
        fv__alloc_fail_after(-1);
        CHECK(live == 0);
        int bad = 0;
        for (int64_t k = 1; k <= n; k++) {
            remove(dst);
            fv__alloc_fail_after(k);
            fv_status st = fv_slide_convert(src, dst, &co);
            int64_t lv = fv__alloc_live();
            fv__alloc_fail_after(-1);
            struct stat sb;
            if ((st != FV_ENOMEM && st != FV_OK) || lv != 0 || (st && stat(dst, &sb) == 0)) {
                bad++;
                fprintf(stderr, "convert: allocation %lld: %s '%s', %lld leaked\n", (long long)k, fv_status_name(st),
                        fv_error_message(), (long long)lv);
            }
        }
        CHECK(bad == 0);
        CHECK_OK(fv_slide_convert(src, dst, &co));
        printf("  fv_slide_convert(%s)               %lld allocations\n", comp ? "deflate" : "jpeg   ", (long long)n);
    }
    remove(dst);
}

/* ---- read faults ---------------------------------------------------------------------------------- */

static void
io_sweep(const char *path)
{
    static const char *const kinds[] = { "", "EIO", "EOF", "short read", "EINTR" };
    cyc ref, c;
    fv__tiff_io_fault(0, 0);
    fv_status st0 = cycle(path, &ref);
    int64_t n = fv__tiff_io_count();
    fv__tiff_io_fault(-1, 0);
    int bad = 0, sticky = 0;
    for (int kind = FV__IO_FAULT_EIO; kind <= FV__IO_FAULT_EINTR; kind++)
        for (int64_t k = 1 + (quick ? kind : 0); k <= n; k += quick ? 7 : 1) {
            fv__alloc_fail_after(0); /* leak count */
            fv__tiff_io_fault(k, kind);
            fv_status st = cycle(path, &c);
            int64_t lv = fv__alloc_live();
            fv__tiff_io_fault(-1, 0);
            fv__alloc_fail_after(-1);
            int good;
            if (kind == FV__IO_FAULT_EIO || kind == FV__IO_FAULT_EOF)
                /* every read matters: the cycle fails with FV_EIO (a broken file may fail
                 * earlier with its own error, before the faulty read) */
                good = (st == FV_EIO &&
                        strstr(c.msg, kind == FV__IO_FAULT_EIO ? "Input/output error" : "unexpected end of file")) ||
                    (st0 && st == st0 && !c.failed_read);
            else
                good = st == st0 && c.hash == ref.hash;
            good = good && c.zero_ok && c.sticky_ok && lv == 0;
            sticky += c.failed_read && st == FV_EIO;
            if (!good) {
                bad++;
                fprintf(stderr,
                        "%s: %s at read %lld of %lld: %s '%s' (reference %s), zeros %d, sticky %d, "
                        "%lld leaked\n",
                        base(path), kinds[kind], (long long)k, (long long)n, fv_status_name(st), c.msg,
                        fv_status_name(st0), c.zero_ok, c.sticky_ok, (long long)lv);
            }
            /* the file itself is fine: a new handle reads it */
            if ((kind == FV__IO_FAULT_EIO || kind == FV__IO_FAULT_EOF) &&
                (cycle(path, &c) != st0 || c.hash != ref.hash))
                bad++;
        }
    /* every read short: still the same pixels */
    fv__tiff_io_fault(1, FV__IO_FAULT_SHORT | FV__IO_FAULT_PERSIST);
    fv_status st = cycle(path, &c);
    fv__tiff_io_fault(-1, 0);
    CHECK(st == st0 && c.hash == ref.hash);
    CHECK(bad == 0);
    printf("  %-36s %3lld reads x 4 faults%s (%d failed reads on an open handle, sticky)\n", base(path), (long long)n,
           quick ? " (every 7th read)" : "", sticky);
}

/* ---- a file rewritten under an open handle ------------------------------------------------------- */

/* The slide is copied, opened and read; then the copy is overwritten in place (same
 * size, same inode) with random bytes after its first 16, or cut to half: reads
 * through the open handle decode the new bytes or fail (sticky), never crash, and a
 * failed read leaves zeros. */
static void
rewrite_test(const char *path, const char *tmpdir, int truncate_it)
{
    char copy[700];
    snprintf(copy, sizeof copy, "%s/rewritten.tif", tmpdir);
    FILE *fi = fopen(path, "rb");
    if (!fi)
        return;
    fseek(fi, 0, SEEK_END);
    long n = ftell(fi);
    rewind(fi);
    uint8_t *buf = malloc((size_t)n);
    size_t got = fread(buf, 1, (size_t)n, fi);
    fclose(fi);
    FILE *fo = fopen(copy, "wb");
    fwrite(buf, 1, got, fo);
    fclose(fo);
    fv_slide *s = NULL;
    if (fv_slide_open(copy, &s) != FV_OK) {
        free(buf);
        remove(copy);
        return;
    }
    cyc c;
    memset(&c, 0, sizeof c);
    c.zero_ok = c.sticky_ok = 1;
    fv_level_info li;
    fv_slide_level_info(s, 0, &li);
    int64_t w = li.width < 64 ? li.width : 64, h = li.height < 64 ? li.height : 64;
    CHECK_OK(read_one(&c, s, 0, 0, 0, w, h, FV_PIXEL_RGB, 1));
    if (truncate_it)
        CHECK(truncate(copy, n / 2) == 0);
    else {
        unsigned r = (unsigned)n;
        for (long i = 16; i < n; i++) {
            r = r * 1103515245u + 12345u;
            buf[i] = (uint8_t)(r >> 16);
        }
        int fd = open(copy, O_WRONLY); /* in place: the open handle's file */
        CHECK(fd >= 0 && pwrite(fd, buf, (size_t)n, 0) == n);
        close(fd);
    }
    int fails = 0;
    for (int lv = 0; lv < fv_slide_level_count(s); lv++) {
        fv_slide_level_info(s, lv, &li);
        w = li.width < 200 ? li.width : 200;
        h = li.height < 200 ? li.height : 200;
        fv_status st = read_one(&c, s, 0, 0, lv, w, h, FV_PIXEL_RGBA, 1);
        fails += st != FV_OK;
        CHECK(st == FV_OK || st == FV_EFORMAT || st == FV_EIO);
    }
    CHECK(c.zero_ok && c.sticky_ok);
    if (!c.zero_ok || !c.sticky_ok)
        fprintf(stderr, "%s %s: zeros %d, sticky %d: %s\n", base(path), truncate_it ? "truncated" : "rewritten",
                c.zero_ok, c.sticky_ok, fv_error_message());
    fv_slide_unref(s);
    free(buf);
    remove(copy);
    (void)fails;
}

/* ---- file descriptors ------------------------------------------------------------------------------ */

static int
count_fds(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return -1;
    while (readdir(d))
        n++;
    closedir(d);
    return n; /* includes the directory's own descriptor, the same each time */
}

/* descriptors on files under corpus without FD_CLOEXEC (-1 when /proc is missing) */
static int
fds_without_cloexec(int *seen)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return -1;
    int bad = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        char link[64], target[1200];
        if (de->d_name[0] == '.')
            continue;
        snprintf(link, sizeof link, "/proc/self/fd/%s", de->d_name);
        ssize_t n = readlink(link, target, sizeof target - 1);
        if (n <= 0)
            continue;
        target[n] = '\0';
        if (strncmp(target, corpus, strlen(corpus)) && !strstr(target, "/fovea-cache-"))
            continue;
        int fl = fcntl(atoi(de->d_name), F_GETFD);
        if (fl < 0)
            continue; /* closed meanwhile by another thread */
        (*seen)++;
        if (!(fl & FD_CLOEXEC))
            bad++;
    }
    closedir(d);
    return bad;
}

typedef struct fd_arg {
    int id, errors, cloexec_bad, seen;
} fd_arg;

static void *
fd_worker(void *p)
{
    fd_arg *a = p;
    unsigned r = 12345u + (unsigned)a->id * 7919u;
    for (int i = 0; i < (quick ? 20 : 300); i++) {
        r = r * 1103515245u + 12345u;
        const char *path = files[(r >> 8) % (unsigned)nfiles];
        char missing[700];
        if (i % 17 == 5) {
            snprintf(missing, sizeof missing, "%s/no-such-file-%d", corpus, i);
            path = missing;
        }
        fv_slide *s = NULL;
        if (fv_slide_open(path, &s) != FV_OK)
            continue; /* corrupt or missing: nothing may stay open */
        fv_array *o = NULL;
        int64_t shape[3] = { 20, 30, 3 };
        if (fv_array_new(NULL, FV_UINT8, 3, shape, CPU, &o) == FV_OK) {
            fv_read_options ro = { FV_PIXEL_RGB, 1, (int)(r & 1) };
            if (fv_slide_read_region(s, NULL, 3, 2, 0, 30, 20, &ro, o))
                a->errors++;
            fv_array_unref(o);
        }
        if (i % 8 == 0) {
            int bad = fds_without_cloexec(&a->seen);
            if (bad > 0)
                a->cloexec_bad += bad;
        }
        fv_slide_unref(s);
    }
    return NULL;
}

static void
fd_test(void)
{
    int before = count_fds();
    if (before < 0) {
        printf("  no /proc/self/fd: descriptor test skipped\n");
        return;
    }
    for (int round = 0; round < 2; round++) {
        /* round 1: with the shared-memory cache (its descriptors are closed after mapping) */
        if (round == 1)
            CHECK_OK(fv_cache_configure(FV_CACHE_SHARED_MEMORY, 4 << 20));
        pthread_t th[8];
        fd_arg args[8];
        for (int i = 0; i < 8; i++) {
            args[i] = (fd_arg){ .id = i + 8 * round };
            pthread_create(&th[i], NULL, fd_worker, &args[i]);
        }
        int seen = 0, bad = 0, errors = 0;
        for (int i = 0; i < 8; i++) {
            pthread_join(th[i], NULL);
            seen += args[i].seen;
            bad += args[i].cloexec_bad;
            errors += args[i].errors;
        }
        /* a descriptor of fv__tiff_open directly */
        fv__tiff *t = NULL;
        char p[700];
        snprintf(p, sizeof p, "%s/aperio-jpeg", corpus);
        CHECK_OK(fv__tiff_open(p, &t));
        if (t) {
            int fl = fcntl(t->fd, F_GETFD);
            CHECK(fl >= 0 && (fl & FD_CLOEXEC));
            fv__tiff_close(t);
        }
        CHECK(bad == 0 && seen > 0);
        CHECK_OK(fv_cache_configure(FV_CACHE_PER_PROCESS, 64 << 20));
        int after = count_fds();
        CHECK(after == before);
        printf("  8 threads x %d opens (%s cache): %d slide descriptors checked for FD_CLOEXEC, %d without; "
               "%d reads of broken files failed; fds %d -> %d\n",
               quick ? 20 : 300, round ? "shared-memory" : "per-process", seen, bad, errors, before, after);
    }
}

int
main(int argc, char **argv)
{
    char tmpdir[] = "/tmp/fovea-faults-XXXXXX";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else
            corpus = argv[i];
    }
    static char abs_corpus[4096];
    if (!corpus || !realpath(corpus, abs_corpus)) {
        fprintf(stderr, "usage: test_faults [--quick] CORPUS/tiff_open (a directory)\n");
        return 2;
    }
    corpus = abs_corpus;
    if (!mkdtemp(tmpdir))
        return 1;
    list_corpus();
    CHECK_OK(fv_context_new(&ctx1));
    CHECK_OK(fv_context_set_threads(ctx1, 1));
    CHECK_OK(fv_cache_configure(FV_CACHE_PER_PROCESS, 64 << 20));

    section("allocation failures, one at a time (per-process cache)");
    for (int i = 0; i < nfiles; i++)
        if (selected(files[i], 0))
            alloc_sweep(files[i], 0);
    section("allocation failures, shared-memory cache");
    CHECK_OK(fv_cache_configure(FV_CACHE_SHARED_MEMORY, 8 << 20));
    for (int i = 0; i < nfiles; i++)
        if (selected(files[i], 1) && (strstr(files[i], "aperio-jpeg") || strstr(files[i], "ome-subifds")))
            alloc_sweep(files[i], 0);
    char msg[200] = "";
    CHECK(fv__cache_check(msg, sizeof msg) == 0);
    CHECK_OK(fv_cache_configure(FV_CACHE_PER_PROCESS, 64 << 20));
    section("allocation failures, every allocation from the k-th on");
    for (int i = 0; i < nfiles; i++)
        if (strstr(files[i], "philips") || (!quick && strstr(files[i], "generic-jpeg-tables-big-be")))
            alloc_sweep(files[i], 1);
    section("allocation failures on an open handle");
    for (int i = 0; i < nfiles; i++)
        if (strstr(files[i], "aperio-jpeg") || strstr(files[i], "generic-zstd-16bit-gray-stripped"))
            alloc_handle(files[i]);
    section("allocation failures in cache configuration and conversion");
    if (!quick)
        alloc_misc(tmpdir);
    printf("  %lld injected allocation failures: %lld FV_ENOMEM, %lld without effect on the result\n",
           (long long)total_k, (long long)total_nomem, (long long)total_ok);

    section("read faults (EIO, end of file, short read, EINTR) at every read");
    for (int i = 0; i < nfiles; i++)
        if (selected(files[i], 0))
            io_sweep(files[i]);

    section("files rewritten in place and truncated under an open handle");
    for (int i = 0; i < nfiles; i++)
        if (selected(files[i], 1)) {
            rewrite_test(files[i], tmpdir, 0);
            rewrite_test(files[i], tmpdir, 1);
        }

    section("file descriptors");
    fd_test();
    section(NULL);

    fv_context_free(ctx1);
    for (int i = 0; i < nfiles; i++)
        free(files[i]);
    free(files);
    rmdir(tmpdir);
    return fv_t_summary("test_faults");
}
