/* TIFF / BigTIFF parser and vendor layouts (src/tiff).
 *
 * The files are written here by a tiny TIFF writer (classic and BigTIFF, both
 * byte orders, tiles and strips, SubIFDs linked or not), then parsed; hostile
 * files are the same writer's output with entries replaced or bytes patched.
 * Every rejected file checks the status code and a message substring; the
 * mutation and truncation sweeps at the end check that nothing crashes, hangs
 * or leaks (run under ASan/UBSan in CI). */
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fovea/fovea.h"
#include "tiff/tiff.h"
#include "tiff/xml.h"
#include "check.h"

/* ---- the TIFF writer (tests/c/tiff-writer.h), directories laid out at the end ---------- */

#include "tiff-writer.h"

enum {
    BYTE = 1,
    ASCII = 2,
    SHORT = 3,
    LONG = 4,
    RATIONAL = 5,
    UNDEF = 7,
    DOUBLE = 12,
    IFD = 13,
    LONG8 = 16,
    IFD8 = 18
};

typedef tfw_entry tw_entry;

typedef struct tw_ifd {
    tfw_ifd d; /* the entries; off and next_pos once laid out */
    int sub[64], nsub, sub_linked;
    int next; /* index of the next directory in its chain, -1 for none */
} tw_ifd;

/* a file whose directories (tw_new_ifd: their indices) are laid out by tw_finish,
 * each after its out-of-line values, in index order; then the header's first
 * directory (ifd[first]), the chains (next) and the SubIFDs offsets are patched */
typedef struct tw {
    tfw f; /* the bytes: big, be, buf, len */
    tw_ifd *ifd;
    int nifd, cifd;
    int first;
} tw;

static uint64_t
tw_append(tw *w, const void *p, size_t n)
{
    return tfw_append(&w->f, p, n);
}

static void
tw_patch(tw *w, uint64_t pos, uint64_t v, int size)
{
    tfw_patch(&w->f, pos, v, size);
}

static void
tw_init(tw *w, int big, int be)
{
    memset(w, 0, sizeof *w);
    tfw_init(&w->f, big, be);
}

static void
tw_free(tw *w)
{
    for (int i = 0; i < w->nifd; i++)
        tfw_ifd_free(&w->ifd[i].d);
    free(w->ifd);
    tfw_free(&w->f);
    memset(w, 0, sizeof *w);
}

static int
tw_new_ifd(tw *w)
{
    if (w->nifd == w->cifd) {
        w->cifd = w->cifd ? w->cifd * 2 : 8;
        w->ifd = realloc(w->ifd, (size_t)w->cifd * sizeof *w->ifd);
    }
    tw_ifd *d = &w->ifd[w->nifd];
    memset(d, 0, sizeof *d);
    d->next = -1;
    return w->nifd++;
}

static tw_entry *
tw_raw(tw *w, int i, uint16_t tag, uint16_t type, uint64_t count, const void *bytes, size_t len)
{
    return tfw_raw(&w->ifd[i].d, tag, type, count, bytes, len);
}

/* integer values (RATIONAL: count pairs, 2*count values) */
static void
tw_add(tw *w, int i, uint16_t tag, uint16_t type, uint64_t count, const uint64_t *v)
{
    tfw_ints(&w->f, &w->ifd[i].d, tag, type, count, v);
}

static void
tw_add1(tw *w, int i, uint16_t tag, uint16_t type, uint64_t v)
{
    tfw_int(&w->f, &w->ifd[i].d, tag, type, v);
}

static void
tw_ascii(tw *w, int i, uint16_t tag, const char *s)
{
    tfw_text(&w->ifd[i].d, tag, s, strlen(s));
}

static void
tw_remove(tw *w, int i, uint16_t tag)
{
    tfw_remove(&w->ifd[i].d, tag);
}

/* an image: w x h, tiled (tw x th) or stripped (rows per strip rps), samples x 8
 * bits; each chunk gets 8 bytes of data. */
static void
tw_image(tw *w, int i, uint64_t width, uint64_t height, uint32_t tlw, uint32_t tlh, uint32_t rps, int samples)
{
    tw_add1(w, i, 256, LONG, width);
    tw_add1(w, i, 257, LONG, height);
    uint64_t bps[8] = { 8, 8, 8, 8, 8, 8, 8, 8 };
    tw_add(w, i, 258, SHORT, (uint64_t)samples, bps);
    tw_add1(w, i, 259, SHORT, 1);
    tw_add1(w, i, 262, SHORT, samples >= 3 ? 2 : 1);
    tw_add1(w, i, 277, SHORT, (uint64_t)samples);
    uint64_t n;
    if (tlw) {
        tw_add1(w, i, 322, SHORT, tlw);
        tw_add1(w, i, 323, SHORT, tlh);
        n = ((width + tlw - 1) / tlw) * ((height + tlh - 1) / tlh);
    } else {
        tw_add1(w, i, 278, LONG, rps);
        n = (height + rps - 1) / rps;
    }
    uint64_t *offs = malloc(n * 8), *cnts = malloc(n * 8);
    for (uint64_t k = 0; k < n; k++) {
        uint8_t blob[8] = { 0xAB, (uint8_t)k, (uint8_t)(k >> 8), 1, 2, 3, 4, 5 };
        offs[k] = tw_append(w, blob, 8);
        cnts[k] = 8;
    }
    int t = w->f.big ? LONG8 : LONG;
    tw_add(w, i, tlw ? 324 : 273, (uint16_t)t, n, offs);
    tw_add(w, i, tlw ? 325 : 279, (uint16_t)t, n, cnts);
    free(offs);
    free(cnts);
}

/* ifd[parent]'s SubIFDs entry (tag 330) holds kids (offsets patched by tw_finish);
 * linked: the kids also form a chain */
static void
tw_subifds(tw *w, int parent, const int *kids, int n, int linked)
{
    tw_ifd *d = &w->ifd[parent];
    for (int k = 0; k < n; k++)
        d->sub[d->nsub++] = kids[k];
    d->sub_linked = linked;
    tw_raw(w, parent, 330, w->f.big ? IFD8 : IFD, (uint64_t)n, NULL, (size_t)n * (w->f.big ? 8 : 4));
    if (linked)
        for (int k = 0; k + 1 < n; k++)
            w->ifd[kids[k]].next = kids[k + 1];
}

/* lay out the directories, then patch every directory offset */
static void
tw_finish(tw *w)
{
    const int osz = w->f.big ? 8 : 4;
    for (int i = 0; i < w->nifd; i++)
        tfw_write_ifd(&w->f, &w->ifd[i].d);
    tw_patch(w, w->f.big ? 8 : 4, w->nifd ? w->ifd[w->first].d.off : 0, osz);
    for (int i = 0; i < w->nifd; i++) {
        tfw_ifd *d = &w->ifd[i].d;
        tw_patch(w, d->next_pos, w->ifd[i].next >= 0 ? w->ifd[w->ifd[i].next].d.off : 0, osz);
        for (int k = 0; k < d->n; k++)
            if (d->e[k].tag == 330 && w->ifd[i].nsub)
                for (int s = 0; s < w->ifd[i].nsub; s++)
                    tw_patch(w, d->e[k].val_pos + (uint64_t)s * (uint64_t)osz, w->ifd[w->ifd[i].sub[s]].d.off, osz);
    }
}

static char tmpdir[64];
static int file_no;

static const char *
tw_write(tw *w)
{
    static char path[128];
    snprintf(path, sizeof path, "%s/f%04d.tif", tmpdir, file_no++);
    FILE *f = fopen(path, "wb");
    fwrite(w->f.buf, 1, w->f.len, f);
    fclose(f);
    return path;
}

static const char *
write_bytes(const void *p, size_t n)
{
    static char path[128];
    snprintf(path, sizeof path, "%s/f%04d.bin", tmpdir, file_no++);
    FILE *f = fopen(path, "wb");
    if (n)
        fwrite(p, 1, n, f);
    fclose(f);
    return path;
}

/* open + detect; returns the status of the first failure */
static fv_status
open_layout(const char *path, fv__tiff **t, fv__layout *l)
{
    memset(l, 0, sizeof *l);
    fv_status st = fv__tiff_open(path, t);
    if (st)
        return st;
    st = fv__layout_detect(*t, l);
    if (st) {
        fv__tiff_close(*t);
        *t = NULL;
    }
    return st;
}

static fv_status
open_only(const char *path)
{
    fv__tiff *t = NULL;
    fv_status st = fv__tiff_open(path, &t);
    fv__tiff_close(t);
    return st;
}

static fv_status
detect_only(const char *path)
{
    fv__tiff *t = NULL;
    fv__layout l;
    fv_status st = open_layout(path, &t, &l);
    fv__layout_free(&l);
    fv__tiff_close(t);
    return st;
}

static int
prop_is(const fv__layout *l, const char *key, const char *want)
{
    const char *v = fv__layout_prop(l, key);
    if (!v || strcmp(v, want)) {
        fprintf(stderr, "  property %s = %s, wanted %s\n", key, v ? v : "(absent)", want);
        return 0;
    }
    return 1;
}

/* ---- a pyramid in every byte order and offset size ------------------------------------------ */

static void
test_pyramid(int big, int be)
{
    tw w;
    tw_init(&w, big, be);
    int a = tw_new_ifd(&w), b = tw_new_ifd(&w), c = tw_new_ifd(&w);
    tw_image(&w, a, 1000, 700, 256, 256, 0, 3);
    tw_ascii(&w, a, 270, "level zero");
    tw_ascii(&w, a, 305, "fovea test writer");
    tw_ascii(&w, a, 271, "Make");
    tw_ascii(&w, a, 272, "Model");
    tw_ascii(&w, a, 306, "2024:01:02 03:04:05");
    tw_ascii(&w, a, 315, "Artist");
    tw_ascii(&w, a, 33432, "(c)");
    tw_ascii(&w, a, 316, "host");
    tw_ascii(&w, a, 269, "doc");
    uint64_t res[2] = { 40000, 10 };
    tw_add(&w, a, 282, RATIONAL, 1, res);
    tw_add(&w, a, 283, RATIONAL, 1, res);
    tw_add1(&w, a, 296, SHORT, 3);
    tw_image(&w, b, 500, 350, 256, 256, 0, 3);
    tw_add1(&w, b, 254, LONG, 1);
    tw_image(&w, c, 250, 175, 128, 128, 0, 3);
    tw_add1(&w, c, 254, LONG, 1);
    uint64_t xpos[2] = { 3, 2 };
    tw_add(&w, a, 286, RATIONAL, 1, xpos);
    uint8_t icc[100] = { 0 };
    tw_raw(&w, a, 34675, UNDEF, sizeof icc, icc, sizeof icc);
    uint8_t unknown[4] = { 1, 2, 3, 4 };
    tw_raw(&w, c, 40000, 99, 4, unknown, 4); /* unknown type: ignored */
    w.ifd[a].next = b;
    w.ifd[b].next = c;
    tw_finish(&w);
    const char *path = tw_write(&w);

    fv__tiff *t = NULL;
    fv__layout l;
    CHECK_OK(open_layout(path, &t, &l));
    if (t) {
        CHECK(t->bigtiff == big && t->big_endian == be);
        CHECK(t->nifds == 3);
        CHECK(t->file_size == w.f.len);
        const fv__tiff_ifd *d = &t->ifds[0];
        CHECK(d->width == 1000 && d->height == 700 && d->tile_width == 256 && d->tile_height == 256);
        CHECK(d->samples == 3 && d->bits == 8 && d->compression == 1 && d->photometric == 2 && d->planar == 1);
        CHECK(d->nchunks == 4 * 3);
        CHECK(d->chunk_bytes[5] == 8 && d->chunk_offsets[5] < w.f.len);
        uint8_t blob[8];
        CHECK_OK(fv__tiff_pread(t, d->chunk_offsets[5], blob, 8));
        CHECK(blob[0] == 0xAB && blob[1] == 5);
        CHECK(d->parent == -1 && d->chain_index == 0 && t->ifds[2].chain_index == 2);
        CHECK(d->description && !strcmp(d->description, "level zero"));
        CHECK(d->x_resolution == 4000 && d->resolution_unit == 3);
        CHECK(t->ifds[1].subfile_type == 1 && t->ifds[2].tile_width == 128);
        CHECK(fv__tiff_find_tag(&t->ifds[2], 40000) == NULL);
        /* tag accessors */
        const fv__tiff_tag *tg = fv__tiff_find_tag(d, 256);
        uint64_t u[2];
        double f;
        char *s = NULL;
        CHECK(tg && tg->count == 1);
        CHECK_OK(fv__tiff_tag_u64(t, tg, u, 1));
        CHECK(u[0] == 1000);
        CHECK_ERR(fv__tiff_tag_u64(t, tg, u, 2), FV_EFORMAT, "has 1 values, 2 needed");
        CHECK_OK(fv__tiff_tag_f64(t, fv__tiff_find_tag(d, 282), &f, 1));
        CHECK(f == 4000);
        CHECK_ERR(fv__tiff_tag_u64(t, fv__tiff_find_tag(d, 270), u, 1), FV_EFORMAT, "expected an unsigned integer");
        CHECK_ERR(fv__tiff_tag_f64(t, fv__tiff_find_tag(d, 270), &f, 1), FV_EFORMAT, "expected a number");
        CHECK_OK(fv__tiff_tag_string(t, fv__tiff_find_tag(d, 305), &s));
        CHECK(s && !strcmp(s, "fovea test writer"));
        free(s);
        CHECK_ERR(fv__tiff_tag_string(t, tg, &s), FV_EFORMAT, "expected ASCII");
        CHECK_ERR(fv__tiff_pread(t, w.f.len - 4, blob, 8), FV_EFORMAT, "past the end of the file");
        CHECK(fv__tiff_find_tag(d, 12345) == NULL);

        CHECK(!strcmp(l.vendor, "generic-tiff"));
        CHECK(l.nlevels == 3);
        CHECK(l.levels[0].ifd == 0 && l.levels[1].ifd == 1 && l.levels[2].ifd == 2);
        CHECK(l.levels[1].width == 500 && l.levels[1].height == 350 && l.levels[1].downsample == 2);
        CHECK(l.levels[2].downsample == 4);
        CHECK(l.nassoc == 0);
        CHECK(l.mpp_x == 2.5 && l.mpp_y == 2.5);
        CHECK(prop_is(&l, "openslide.vendor", "generic-tiff"));
        CHECK(prop_is(&l, "openslide.level-count", "3"));
        CHECK(prop_is(&l, "openslide.level[0].width", "1000"));
        CHECK(prop_is(&l, "openslide.level[1].height", "350"));
        CHECK(prop_is(&l, "openslide.level[1].downsample", "2"));
        CHECK(prop_is(&l, "openslide.level[2].tile-width", "128"));
        CHECK(prop_is(&l, "openslide.mpp-x", "2.5"));
        CHECK(prop_is(&l, "openslide.comment", "level zero"));
        CHECK(prop_is(&l, "tiff.ImageDescription", "level zero"));
        CHECK(prop_is(&l, "tiff.Software", "fovea test writer"));
        CHECK(prop_is(&l, "tiff.Make", "Make") && prop_is(&l, "tiff.Model", "Model"));
        CHECK(prop_is(&l, "tiff.DateTime", "2024:01:02 03:04:05") && prop_is(&l, "tiff.Artist", "Artist"));
        CHECK(prop_is(&l, "tiff.Copyright", "(c)") && prop_is(&l, "tiff.HostComputer", "host"));
        CHECK(prop_is(&l, "tiff.DocumentName", "doc"));
        CHECK(prop_is(&l, "tiff.XResolution", "4000") && prop_is(&l, "tiff.YResolution", "4000"));
        CHECK(prop_is(&l, "tiff.ResolutionUnit", "centimeter"));
        CHECK(prop_is(&l, "tiff.XPosition", "1.5") && !fv__layout_prop(&l, "tiff.YPosition"));
        CHECK(prop_is(&l, "openslide.icc-size", "100"));
        CHECK(fv__layout_prop(&l, "openslide.objective-power") == NULL);
        for (int i = 1; i < l.nprops; i++)
            CHECK(strcmp(l.props[i - 1].key, l.props[i].key) < 0);
    }
    fv__layout_free(&l);
    fv__tiff_close(t);
    tw_free(&w);
}

/* a stripped single image; reduced IFDs after it are ignored */
static void
test_stripped(void)
{
    tw w;
    tw_init(&w, 0, 0);
    int a = tw_new_ifd(&w), b = tw_new_ifd(&w);
    tw_image(&w, a, 300, 101, 0, 0, 10, 1);
    tw_image(&w, b, 150, 50, 0, 0, 1000, 1); /* rows per strip past the height: clamped */
    tw_add1(&w, b, 254, LONG, 1);
    w.ifd[a].next = b;
    tw_finish(&w);
    fv__tiff *t = NULL;
    fv__layout l;
    CHECK_OK(open_layout(tw_write(&w), &t, &l));
    if (t) {
        CHECK(t->ifds[0].tile_width == 0 && t->ifds[0].rows_per_strip == 10 && t->ifds[0].nchunks == 11);
        CHECK(t->ifds[1].rows_per_strip == 50 && t->ifds[1].nchunks == 1);
        CHECK(t->ifds[0].photometric == 1 && t->ifds[0].samples == 1);
        CHECK(l.nlevels == 1 && l.levels[0].width == 300 && l.levels[0].downsample == 1);
        CHECK(prop_is(&l, "openslide.level-count", "1"));
        CHECK(fv__layout_prop(&l, "openslide.level[0].tile-width") == NULL);
        CHECK(prop_is(&l, "tiff.ResolutionUnit", "inch"));
        CHECK(fv__layout_prop(&l, "tiff.ImageDescription") == NULL);
        CHECK(fv__layout_prop(&l, "openslide.mpp-x") == NULL);
    }
    fv__layout_free(&l);
    fv__tiff_close(t);
    tw_free(&w);
}

/* MPP from the resolution tags (generic TIFF, as OpenSlide 4): inch, the
 * default inch, centimetre (test_pyramid), and "none" */
static void
test_resolution_units(void)
{
    static const struct {
        int unit; /* 0: no ResolutionUnit tag */
        uint64_t xres, yres;
        const char *mppx, *mppy, *unit_prop;
    } cases[] = {
        { 2, 50800, 25400, "0.5", "1", "inch" },
        { 0, 100, 100, "254", "254", "inch" },
        { 1, 3, 3, NULL, NULL, "none" },
        { 7, 3, 3, NULL, NULL, "unknown" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tw w;
        tw_init(&w, 0, 0);
        int a = tw_new_ifd(&w);
        tw_image(&w, a, 64, 64, 16, 16, 0, 3);
        uint64_t xr[2] = { cases[i].xres, 1 }, yr[2] = { cases[i].yres, 1 };
        tw_add(&w, a, 282, RATIONAL, 1, xr);
        tw_add(&w, a, 283, RATIONAL, 1, yr);
        if (cases[i].unit)
            tw_add1(&w, a, 296, SHORT, (uint64_t)cases[i].unit);
        tw_finish(&w);
        fv__tiff *t = NULL;
        fv__layout l;
        CHECK_OK(open_layout(tw_write(&w), &t, &l));
        if (t) {
            if (cases[i].mppx)
                CHECK(prop_is(&l, "openslide.mpp-x", cases[i].mppx) && prop_is(&l, "openslide.mpp-y", cases[i].mppy));
            else
                CHECK(!fv__layout_prop(&l, "openslide.mpp-x") && !fv__layout_prop(&l, "openslide.mpp-y"));
            CHECK(prop_is(&l, "tiff.ResolutionUnit", cases[i].unit_prop));
        }
        fv__layout_free(&l);
        fv__tiff_close(t);
        tw_free(&w);
    }
}

/* levels as SubIFDs: linked as libtiff/libvips write them, or listed only as
 * tifffile does; with a second page after */
static void
test_subifds(int big, int linked)
{
    tw w;
    tw_init(&w, big, big);
    int a = tw_new_ifd(&w), p2 = tw_new_ifd(&w), s1 = tw_new_ifd(&w), s2 = tw_new_ifd(&w), s3 = tw_new_ifd(&w);
    tw_image(&w, a, 2048, 1024, 256, 256, 0, 3);
    tw_image(&w, p2, 100, 100, 0, 0, 100, 3); /* a second page, not reduced */
    tw_image(&w, s1, 1024, 512, 256, 256, 0, 3);
    tw_image(&w, s2, 512, 256, 256, 256, 0, 3);
    tw_image(&w, s3, 256, 128, 256, 256, 0, 3);
    if (linked)
        for (int k = s1; k <= s3; k++)
            tw_add1(&w, k, 254, LONG, 1);
    int kids[3] = { s1, s2, s3 };
    tw_subifds(&w, a, kids, 3, linked);
    w.ifd[a].next = p2;
    tw_finish(&w);
    fv__tiff *t = NULL;
    fv__layout l;
    CHECK_OK(open_layout(tw_write(&w), &t, &l));
    if (t) {
        CHECK(t->nifds == 5);
        CHECK(t->ifds[0].chain_index == 0 && t->ifds[1].chain_index == 1);
        CHECK(t->ifds[2].parent == 0 && t->ifds[2].chain_index == -1 && t->ifds[4].parent == 0);
        CHECK(t->ifds[2].width == 1024 && t->ifds[3].width == 512 && t->ifds[4].width == 256);
        CHECK(l.nlevels == 4 && l.levels[1].ifd == 2 && l.levels[3].ifd == 4);
        CHECK(l.levels[3].downsample == 8);
        CHECK(prop_is(&l, "openslide.level[3].width", "256"));
    }
    fv__layout_free(&l);
    fv__tiff_close(t);
    tw_free(&w);
}

/* odd directory offsets are accepted (libtiff does) */
static void
test_odd_offset(void)
{
    tw w;
    tw_init(&w, 0, 0);
    int a = tw_new_ifd(&w);
    tw_image(&w, a, 64, 64, 16, 16, 0, 1);
    tw_finish(&w);
    /* move the directory one byte on: copy it after a pad byte */
    size_t ilen = w.f.len - (size_t)w.ifd[a].d.off;
    uint8_t *copy = malloc(ilen);
    memcpy(copy, w.f.buf + w.ifd[a].d.off, ilen);
    w.f.buf = realloc(w.f.buf, w.f.len + ilen + 1);
    w.f.cap = w.f.len + ilen + 1;
    uint64_t at = w.f.len + 1;
    w.f.buf[w.f.len] = 0;
    memcpy(w.f.buf + at, copy, ilen);
    w.f.len = (size_t)at + ilen;
    tw_patch(&w, 4, at, 4);
    free(copy);
    CHECK(at & 1);
    CHECK_OK(detect_only(tw_write(&w)));
    tw_free(&w);
}

/* one handle read from several threads at once (pread, no shared state) */
typedef struct reader_arg {
    const fv__tiff *t;
    int bad;
} reader_arg;

static void *
reader(void *p)
{
    reader_arg *a = p;
    for (int rep = 0; rep < 50; rep++)
        for (int i = 0; i < a->t->nifds; i++) {
            const fv__tiff_ifd *d = &a->t->ifds[i];
            for (uint64_t k = 0; k < d->nchunks; k++) {
                uint8_t blob[8];
                if (fv__tiff_pread(a->t, d->chunk_offsets[k], blob, 8) != FV_OK || blob[0] != 0xAB ||
                    blob[1] != (uint8_t)k)
                    a->bad++;
            }
            uint64_t wv = 0;
            if (fv__tiff_tag_u64(a->t, fv__tiff_find_tag(d, 256), &wv, 1) != FV_OK || wv != d->width)
                a->bad++;
        }
    return NULL;
}

static void
test_threads(void)
{
    tw w;
    tw_init(&w, 1, 1);
    int a = tw_new_ifd(&w), b = tw_new_ifd(&w);
    tw_image(&w, a, 512, 512, 32, 32, 0, 3);
    tw_image(&w, b, 256, 256, 32, 32, 0, 3);
    w.ifd[a].next = b;
    tw_finish(&w);
    fv__tiff *t = NULL;
    CHECK_OK(fv__tiff_open(tw_write(&w), &t));
    if (t) {
        pthread_t th[4];
        reader_arg args[4];
        for (int i = 0; i < 4; i++) {
            args[i].t = t;
            args[i].bad = 0;
            pthread_create(&th[i], NULL, reader, &args[i]);
        }
        for (int i = 0; i < 4; i++) {
            pthread_join(th[i], NULL);
            CHECK(args[i].bad == 0);
        }
    }
    fv__tiff_close(t);
    tw_free(&w);
}

/* ---- vendors --------------------------------------------------------------------------------- */

static const char *aperio_desc =
    "Aperio Image Library v12.0.5\r\n46000x32914 [0,100 46000x32814] (256x256) JPEG/RGB Q=30|AppMag = 20|"
    "StripeWidth = 2040|ScanScope ID = SS1234|Filename = CMU-1|Date = 12/29/09|Time = 09:59:15|"
    "User = b414003d|MPP = 0.4990|Left = 25.691574|Top = 23.449873|junk without equals|= novalue";

static void
test_aperio(int old_layout)
{
    tw w;
    tw_init(&w, 0, 0);
    int l0 = tw_new_ifd(&w), th = tw_new_ifd(&w), l1 = tw_new_ifd(&w), lab = tw_new_ifd(&w), mac = tw_new_ifd(&w);
    tw_image(&w, l0, 1024, 768, 256, 256, 0, 3);
    tw_ascii(&w, l0, 270, aperio_desc);
    tw_image(&w, th, 128, 96, 0, 0, 16, 3);
    tw_ascii(&w, th, 270, "Aperio Image Library v12.0.5\r\n1024x768 -> 128x96 - |AppMag = 20");
    tw_image(&w, l1, 256, 192, 256, 256, 0, 3);
    tw_ascii(&w, l1, 270, "Aperio Image Library v12.0.5\r\n1024x768 -> 256x192 - |AppMag = 20");
    tw_image(&w, lab, 60, 50, 0, 0, 50, 3);
    tw_image(&w, mac, 200, 70, 0, 0, 70, 3);
    if (old_layout) {
        /* old files: no names in the descriptions; NewSubfileType tells */
        tw_add1(&w, lab, 254, LONG, 1);
        tw_add1(&w, mac, 254, LONG, 9);
    } else {
        tw_ascii(&w, lab, 270, "Aperio Image Library v12.0.5\nlabel 60x50");
        tw_ascii(&w, mac, 270, "Aperio Image Library v12.0.5\r\nmacro 200x70");
    }
    w.ifd[l0].next = th;
    w.ifd[th].next = l1;
    w.ifd[l1].next = lab;
    w.ifd[lab].next = mac;
    tw_finish(&w);
    /* an empty tile (bytecount 0, offset 0) in level 1: allowed */
    for (int k = 0; k < w.ifd[l1].d.n; k++) {
        tw_entry *e = &w.ifd[l1].d.e[k];
        if (e->tag == 324)
            tw_patch(&w, e->val_pos, 0, 4);
        if (e->tag == 325)
            tw_patch(&w, e->val_pos, 0, 4);
    }
    fv__tiff *t = NULL;
    fv__layout l;
    CHECK_OK(open_layout(tw_write(&w), &t, &l));
    if (t) {
        CHECK(!strcmp(l.vendor, "aperio"));
        CHECK(l.nlevels == 2 && l.levels[0].ifd == 0 && l.levels[1].ifd == 2 && l.levels[1].downsample == 4);
        CHECK(t->ifds[2].chunk_bytes[0] == 0 && t->ifds[2].chunk_offsets[0] == 0);
        CHECK(l.nassoc == 3);
        CHECK(!strcmp(l.assoc[0].name, "thumbnail") && l.assoc[0].ifd == 1 && !l.assoc[0].jpeg);
        CHECK(!strcmp(l.assoc[1].name, "label") && l.assoc[1].ifd == 3);
        CHECK(!strcmp(l.assoc[2].name, "macro") && l.assoc[2].ifd == 4);
        CHECK(l.mpp_x == 0.499 && l.mpp_y == 0.499 && l.objective_power == 20);
        CHECK(prop_is(&l, "aperio.AppMag", "20"));
        CHECK(prop_is(&l, "aperio.MPP", "0.4990"));
        CHECK(prop_is(&l, "aperio.ScanScope ID", "SS1234"));
        CHECK(prop_is(&l, "aperio.Top", "23.449873"));
        CHECK(prop_is(&l, "openslide.mpp-x", "0.499") && prop_is(&l, "openslide.mpp-y", "0.499"));
        CHECK(prop_is(&l, "openslide.objective-power", "20"));
        CHECK(prop_is(&l, "openslide.vendor", "aperio"));
        CHECK(prop_is(&l, "openslide.associated.label.width", "60"));
        CHECK(prop_is(&l, "openslide.associated.thumbnail.height", "96"));
        CHECK(prop_is(&l, "tiff.ImageDescription", aperio_desc));
        CHECK(fv__layout_prop(&l, "aperio.") == NULL);
    }
    fv__layout_free(&l);
    fv__tiff_close(t);
    tw_free(&w);
}

static const char b64chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static char *
b64(const uint8_t *p, size_t n)
{
    char *s = malloc(n / 3 * 4 + 8), *o = s;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
        *o++ = b64chars[v >> 18 & 63];
        *o++ = b64chars[v >> 12 & 63];
        *o++ = i + 1 < n ? b64chars[v >> 6 & 63] : '=';
        *o++ = i + 2 < n ? b64chars[v & 63] : '=';
    }
    *o = '\0';
    return s;
}

/* a JPEG header that only names its size: 64 x 32 */
static const uint8_t fake_jpeg[] = { 0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 'J',  'F',  'I',  'F',  0x00, 0x01, 0x01, 0x00,
                                     0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0xFF, 0xC0, 0x00, 0x11, 0x08, 0x00, 0x20, 0x00,
                                     0x40, 0x03, 0x01, 0x22, 0x00, 0x02, 0x11, 0x01, 0x03, 0x11, 0x01, 0xFF, 0xD9 };

static char *
philips_xml(int nreps, int spacing_bad, const char *root_type)
{
    static const char *spacings[] = { "&quot;0.00025&quot; &quot;0.00025&quot;",
                                      "&quot;0.0005&quot; &quot;0.0005&quot;", "&quot;0.001&quot; &quot;0.001&quot;",
                                      "&quot;0.002&quot; &quot;0.002&quot;", "&quot;0.004&quot; &quot;0.004&quot;" };
    char *jpeg = b64(fake_jpeg, sizeof fake_jpeg);
    size_t cap = 1 << 16;
    char *x = malloc(cap);
    int n = snprintf(x, cap,
                     "<?xml version=\"1.0\" encoding=\"UTF-8\" ?>\n"
                     "<!-- a comment -->\n"
                     "<DataObject ObjectType=\"%s\">\n"
                     "\t<Attribute Name=\"DICOM_MANUFACTURER\" PMSVR=\"IString\">PHILIPS &amp; co</Attribute>\n"
                     "\t<Attribute Name=\"PIM_DP_SCANNED_IMAGES\" PMSVR=\"IDataObjectArray\">\n\t\t<Array>\n"
                     "\t\t\t<DataObject ObjectType=\"DPScannedImage\">\n"
                     "\t\t\t\t<Attribute Name=\"DICOM_PIXEL_SPACING\" PMSVR=\"IDoubleArray\">&quot;0.000226891&quot; "
                     "&quot;0.000226907&quot;</Attribute>\n"
                     "\t\t\t\t<Attribute Name=\"PIM_DP_IMAGE_TYPE\" PMSVR=\"IString\">WSI</Attribute>\n"
                     "\t\t\t\t<Attribute Name=\"PIIM_PIXEL_DATA_REPRESENTATION_SEQUENCE\" PMSVR=\"IDataObjectArray\">"
                     "\n\t\t\t\t\t<Array>\n",
                     root_type);
    for (int i = 0; i < nreps; i++)
        n += snprintf(x + n, cap - (size_t)n,
                      "\t\t\t\t\t\t<DataObject ObjectType=\"PixelDataRepresentation\">\n"
                      "\t\t\t\t\t\t\t<Attribute Name=\"DICOM_PIXEL_SPACING\" PMSVR=\"IDoubleArray\">%s</Attribute>\n"
                      "\t\t\t\t\t\t\t<Attribute Name=\"PIIM_PIXEL_DATA_REPRESENTATION_NUMBER\" "
                      "PMSVR=\"IUInt16\">%d</Attribute>\n"
                      "\t\t\t\t\t\t</DataObject>\n",
                      spacing_bad && i == 1 ? "&quot;0.0005&quot;" : spacings[i], i);
    n += snprintf(x + n, cap - (size_t)n,
                  "\t\t\t\t\t</Array>\n\t\t\t\t</Attribute>\n\t\t\t</DataObject>\n"
                  "\t\t\t<DataObject ObjectType=\"DPScannedImage\">\n"
                  "\t\t\t\t<Attribute Name=\"PIM_DP_IMAGE_DATA\" PMSVR=\"IString\">%s</Attribute>\n"
                  "\t\t\t\t<Attribute Name=\"PIM_DP_IMAGE_TYPE\" PMSVR=\"IString\">MACROIMAGE</Attribute>\n"
                  "\t\t\t</DataObject>\n"
                  "\t\t\t<DataObject ObjectType=\"DPScannedImage\">\n"
                  "\t\t\t\t<Attribute Name=\"PIM_DP_IMAGE_DATA\" PMSVR=\"IString\"><![CDATA[%s]]></Attribute>\n"
                  "\t\t\t\t<Attribute Name=\"PIM_DP_IMAGE_TYPE\" PMSVR=\"IString\">LABELIMAGE</Attribute>\n"
                  "\t\t\t</DataObject>\n"
                  "\t\t</Array>\n\t</Attribute>\n"
                  "\t<Attribute Name=\"PIM_DP_UFS_BARCODE\" PMSVR=\"IString\">MzMxMTk0MA==</Attribute>\n"
                  "</DataObject>\n",
                  jpeg, jpeg);
    free(jpeg);
    return x;
}

/* Philips: padded levels, downsamples from the XML, label from a directory,
 * macro from base64 in the XML */
static const char *
philips_file(tw *w, const char *xml, int reduced_bit, int label_ifd)
{
    tw_init(w, 1, 0);
    static const uint64_t dims[4][2] = { { 1024, 768 }, { 512, 512 }, { 256, 256 }, { 256, 256 } };
    int prev = -1;
    for (int i = 0; i < 4; i++) {
        int d = tw_new_ifd(w);
        tw_image(w, d, dims[i][0], dims[i][1], 256, 256, 0, 3);
        tw_ascii(w, d, 305, "Philips DP v1.0");
        if (i == 0)
            tw_ascii(w, d, 270, xml);
        else {
            tw_ascii(w, d, 270, "level=1 mag=20 quality=80");
            if (reduced_bit)
                tw_add1(w, d, 254, LONG, 1);
        }
        if (prev >= 0)
            w->ifd[prev].next = d;
        prev = d;
    }
    if (label_ifd) {
        int d = tw_new_ifd(w);
        tw_image(w, d, 70, 50, 0, 0, 50, 3);
        tw_ascii(w, d, 270, "Label");
        w->ifd[prev].next = d;
    }
    tw_finish(w);
    return tw_write(w);
}

static void
test_philips(void)
{
    tw w;
    char *xml = philips_xml(4, 0, "DPUfsImport");
    fv__tiff *t = NULL;
    fv__layout l;
    CHECK_OK(open_layout(philips_file(&w, xml, 1, 1), &t, &l));
    if (t) {
        CHECK(!strcmp(l.vendor, "philips"));
        CHECK(l.nlevels == 4);
        CHECK(l.levels[1].downsample == 2 && l.levels[2].downsample == 4 && l.levels[3].downsample == 8);
        /* level 0's padded size divided by the downsample, not the TIFF sizes */
        CHECK(l.levels[0].width == 1024 && l.levels[0].height == 768);
        CHECK(l.levels[1].width == 512 && l.levels[1].height == 384);
        CHECK(l.levels[2].width == 256 && l.levels[2].height == 192);
        CHECK(l.levels[3].width == 128 && l.levels[3].height == 96);
        CHECK(l.nassoc == 2);
        CHECK(!strcmp(l.assoc[0].name, "label") && l.assoc[0].ifd == 4 && !l.assoc[0].jpeg);
        CHECK(!strcmp(l.assoc[1].name, "macro") && l.assoc[1].ifd == -1);
        CHECK(l.assoc[1].jpeg && l.assoc[1].jpeg_len == sizeof fake_jpeg &&
              !memcmp(l.assoc[1].jpeg, fake_jpeg, sizeof fake_jpeg));
        CHECK(prop_is(&l, "openslide.associated.macro.width", "64"));
        CHECK(prop_is(&l, "openslide.associated.macro.height", "32"));
        CHECK(prop_is(&l, "philips.DICOM_MANUFACTURER", "PHILIPS & co"));
        CHECK(prop_is(&l, "philips.PIM_DP_IMAGE_TYPE", "WSI"));
        CHECK(prop_is(&l, "philips.DICOM_PIXEL_SPACING", "\"0.000226891\" \"0.000226907\""));
        CHECK(prop_is(&l, "philips.PIIM_PIXEL_DATA_REPRESENTATION_SEQUENCE[2].DICOM_PIXEL_SPACING",
                      "\"0.001\" \"0.001\""));
        CHECK(prop_is(&l, "philips.PIIM_PIXEL_DATA_REPRESENTATION_SEQUENCE[3].PIIM_PIXEL_DATA_REPRESENTATION_NUMBER",
                      "3"));
        CHECK(prop_is(&l, "openslide.mpp-x", "0.226907") && prop_is(&l, "openslide.mpp-y", "0.22689100000000001"));
        CHECK(prop_is(&l, "openslide.barcode", "3311940"));
        CHECK(prop_is(&l, "openslide.level[3].downsample", "8"));
        CHECK(prop_is(&l, "openslide.level[3].width", "128"));
        CHECK(fv__layout_prop(&l, "tiff.ImageDescription") == NULL);
        CHECK(fv__layout_prop(&l, "openslide.comment") == NULL);
        CHECK(fv__layout_prop(&l, "philips.PIM_DP_IMAGE_DATA") == NULL); /* not the first WSI image */
        CHECK(prop_is(&l, "tiff.Software", "Philips DP v1.0"));
    }
    fv__layout_free(&l);
    fv__tiff_close(t);
    tw_free(&w);

    /* without the label directory, the label comes from the XML (CDATA) */
    CHECK_OK(open_layout(philips_file(&w, xml, 1, 0), &t, &l));
    if (t) {
        CHECK(l.nassoc == 2 && !strcmp(l.assoc[0].name, "label") && l.assoc[0].ifd == -1 &&
              l.assoc[0].jpeg_len == sizeof fake_jpeg);
    }
    fv__layout_free(&l);
    fv__tiff_close(t);
    tw_free(&w);
    free(xml);

    /* bad Philips metadata */
    xml = philips_xml(3, 0, "DPUfsImport");
    CHECK_ERR(detect_only(philips_file(&w, xml, 1, 0)), FV_EFORMAT, "3 pixel spacings for 4 tiled levels");
    tw_free(&w);
    free(xml);
    xml = philips_xml(4, 1, "DPUfsImport");
    CHECK_ERR(detect_only(philips_file(&w, xml, 1, 0)), FV_EFORMAT, "level 1: cannot parse pixel spacing");
    tw_free(&w);
    free(xml);
    xml = philips_xml(4, 0, "DPUfsImport");
    CHECK_ERR(detect_only(philips_file(&w, xml, 0, 0)), FV_EFORMAT, "not reduced-resolution");
    tw_free(&w);
    /* truncated XML */
    xml[strlen(xml) / 2] = '\0';
    CHECK_ERR(detect_only(philips_file(&w, xml, 1, 0)), FV_EFORMAT, "philips: malformed XML");
    tw_free(&w);
    free(xml);
    xml = philips_xml(4, 0, "DPUfsImport");
    char *p = strstr(xml, "</Attribute>");
    memcpy(p, "</Attribxte>", 12);
    CHECK_ERR(detect_only(philips_file(&w, xml, 1, 0)), FV_EFORMAT, "does not match");
    tw_free(&w);
    free(xml);
    xml = philips_xml(4, 0, "DPUfsImport-ish DPUfsImport2");
    CHECK_ERR(detect_only(philips_file(&w, xml, 1, 0)), FV_EFORMAT, "expected <DataObject ObjectType=\"DPUfsImport\">");
    tw_free(&w);
    free(xml);
    xml = philips_xml(4, 0, "DPUfsImport");
    p = strstr(xml, ">WSI<");
    memcpy(p, ">XXX<", 5);
    CHECK_ERR(detect_only(philips_file(&w, xml, 1, 0)), FV_EFORMAT, "expected one WSI image in the XML, found 0");
    tw_free(&w);
    free(xml);
}

static const char *ome_xml_fmt =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<OME xmlns=\"http://www.openmicroscopy.org/Schemas/OME/2016-06\" "
    "xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" UUID=\"urn:uuid:1234\">\n"
    "<Instrument ID=\"Instrument:0\"><Objective ID=\"Objective:0\" NominalMagnification=\"10\"/>"
    "<Objective ID=\"Objective:1\" NominalMagnification=\"40.0\"/></Instrument>\n"
    "<Image ID=\"Image:0\" Name=\"slide &lt;1&gt;\"><ObjectiveSettings ID=\"Objective:1\"/>\n"
    "<Pixels BigEndian=\"false\" DimensionOrder=\"XYCZT\" ID=\"Pixels:0\" %s SizeC=\"3\" SizeT=\"1\" "
    "SizeX=\"2000\" SizeY=\"1000\" SizeZ=\"1\" Type=\"uint8\" Interleaved=\"true\">\n"
    "<Channel ID=\"Channel:0:0\" SamplesPerPixel=\"3\"><LightPath/></Channel>\n"
    "<TiffData IFD=\"0\" PlaneCount=\"1\"/></Pixels></Image></OME>";

static const char *
ome_file(tw *w, const char *xml, int subifds)
{
    tw_init(w, 0, 1);
    int a = tw_new_ifd(w), b = tw_new_ifd(w), c = tw_new_ifd(w);
    tw_image(w, a, 2000, 1000, 512, 512, 0, 3);
    tw_ascii(w, a, 270, xml);
    tw_image(w, b, 1000, 500, 512, 512, 0, 3);
    tw_image(w, c, 500, 250, 0, 0, 64, 3); /* a stripped SubIFD level */
    tw_add1(w, b, 254, LONG, 1);
    tw_add1(w, c, 254, LONG, 1);
    if (subifds) {
        int kids[2] = { b, c };
        tw_subifds(w, a, kids, 2, 0);
    } else {
        w->ifd[a].next = b;
        w->ifd[b].next = c;
    }
    tw_finish(w);
    return tw_write(w);
}

static void
test_ome(void)
{
    char xml[4096];
    tw w;
    fv__tiff *t = NULL;
    fv__layout l;
    snprintf(xml, sizeof xml, ome_xml_fmt, "PhysicalSizeX=\"250\" PhysicalSizeXUnit=\"nm\" PhysicalSizeY=\"0.25\"");
    CHECK_OK(open_layout(ome_file(&w, xml, 1), &t, &l));
    if (t) {
        CHECK(!strcmp(l.vendor, "ome-tiff"));
        CHECK(l.nlevels == 3 && l.levels[1].ifd == 1 && l.levels[2].ifd == 2 && l.levels[2].downsample == 4);
        CHECK(t->ifds[2].tile_width == 0);
        CHECK(l.mpp_x == 0.25 && l.mpp_y == 0.25 && l.objective_power == 40);
        CHECK(prop_is(&l, "ome.PhysicalSizeX", "250"));
        CHECK(prop_is(&l, "ome.PhysicalSizeXUnit", "nm"));
        CHECK(prop_is(&l, "ome.SizeC", "3"));
        CHECK(prop_is(&l, "ome.Type", "uint8"));
        CHECK(prop_is(&l, "ome.Image.Name", "slide <1>"));
        CHECK(prop_is(&l, "ome.NominalMagnification", "40.0"));
        CHECK(prop_is(&l, "openslide.objective-power", "40"));
        CHECK(prop_is(&l, "openslide.mpp-x", "0.25") && prop_is(&l, "openslide.mpp-y", "0.25"));
        CHECK(prop_is(&l, "openslide.vendor", "ome-tiff"));
        CHECK(fv__layout_prop(&l, "tiff.ImageDescription") != NULL);
    }
    fv__layout_free(&l);
    fv__tiff_close(t);
    tw_free(&w);

    /* main-chain pyramid, mm and the default unit (µm) */
    snprintf(xml, sizeof xml, ome_xml_fmt, "PhysicalSizeX=\"0.0005\" PhysicalSizeXUnit=\"mm\" PhysicalSizeY=\"0.5\"");
    CHECK_OK(open_layout(ome_file(&w, xml, 0), &t, &l));
    if (t)
        CHECK(l.nlevels == 2 && l.mpp_x == 0.5 && l.mpp_y == 0.5); /* the stripped page is no level */
    fv__layout_free(&l);
    fv__tiff_close(t);
    tw_free(&w);

    /* a unit that is no length: mpp unknown */
    snprintf(xml, sizeof xml, ome_xml_fmt, "PhysicalSizeX=\"1\" PhysicalSizeXUnit=\"pixel\"");
    CHECK_OK(open_layout(ome_file(&w, xml, 1), &t, &l));
    if (t)
        CHECK(l.mpp_x == 0 && l.mpp_y == 0 && !fv__layout_prop(&l, "openslide.mpp-x"));
    fv__layout_free(&l);
    fv__tiff_close(t);
    tw_free(&w);

    /* malformed OME-XML */
    snprintf(xml, sizeof xml, ome_xml_fmt, "PhysicalSizeX=\"1\" PhysicalSizeXUnit=\"pixel\"");
    xml[strlen(xml) - 6] = '\0'; /* cut "</OME>" */
    CHECK_ERR(detect_only(ome_file(&w, xml, 1)), FV_EFORMAT, "ome-tiff: malformed XML: unclosed element <OME>");
    tw_free(&w);
    snprintf(xml, sizeof xml, "<OME xmlns=\"http://www.openmicroscopy.org/Schemas/OME/2016-06\"><Image/></OME>");
    CHECK_ERR(detect_only(ome_file(&w, xml, 1)), FV_EFORMAT, "no Image/Pixels");
    tw_free(&w);
    snprintf(xml, sizeof xml, "<OME xmlns=\"http://www.openmicroscopy.org/Schemas/OME/2016-06\" a=b></OME>");
    CHECK_ERR(detect_only(ome_file(&w, xml, 1)), FV_EFORMAT, "attribute value without quotes");
    tw_free(&w);
}

/* ---- the XML reader alone ----------------------------------------------------------------------- */

static void
test_xml(void)
{
    fv__xml *x = NULL;
    const char *doc = "\xEF\xBB\xBF<?xml version='1.0'?><!DOCTYPE r [<!ENTITY e 'x'>]>"
                      "<r a=\"1&#65;&#x42;\tz\" b='&lt;&amp;&unknown;'><c>t1<![CDATA[<raw>&amp;]]>"
                      "<d/>t2</c><ns:c ns:q=\"v\">&#x20AC;</ns:c></r><!-- after -->";
    CHECK_OK(fv__xml_parse("t", doc, strlen(doc), &x));
    if (x) {
        int r = fv__xml_root(x);
        CHECK(!strcmp(fv__xml_name(x, r), "r"));
        CHECK(!strcmp(fv__xml_attr(x, r, "a"), "1AB z"));
        CHECK(!strcmp(fv__xml_attr(x, r, "b"), "<&&unknown;"));
        CHECK(fv__xml_attr(x, r, "zz") == NULL);
        int c = fv__xml_child(x, r, "c");
        CHECK(!strcmp(fv__xml_text(x, c), "t1<raw>&amp;t2"));
        CHECK(fv__xml_first_child(x, c) >= 0 && !strcmp(fv__xml_text(x, fv__xml_first_child(x, c)), ""));
        int c2 = fv__xml_next_named(x, c, "c");
        CHECK(c2 >= 0 && !strcmp(fv__xml_name(x, c2), "ns:c") && !strcmp(fv__xml_local(x, c2), "c"));
        CHECK(!strcmp(fv__xml_text(x, c2), "\xE2\x82\xAC"));
        CHECK(!strcmp(fv__xml_attr(x, c2, "q"), "v") && fv__xml_nattrs(x, c2) == 1);
        CHECK(fv__xml_parent(x, c2) == r && fv__xml_next_sibling(x, c2) == -1);
        CHECK(fv__xml_child(x, -5, "c") == -1 && !strcmp(fv__xml_text(x, 9999), ""));
    }
    fv__xml_free(x);
    static const struct {
        const char *doc, *msg;
    } bad[] = {
        { "", "no root element" },
        { "   ", "no root element" },
        { "<a>", "unclosed element <a>" },
        { "<a></b>", "does not match" },
        { "<a><b></a></b>", "does not match" },
        { "<a x=1/>", "without quotes" },
        { "<a x=\"1/>", "unterminated attribute value" },
        { "<a x=\"<\"/>", "'<' in an attribute value" },
        { "<a x/>", "without '='" },
        { "<a/><b/>", "a second root element" },
        { "text<a/>", "text outside the root element" },
        { "<a/>tail", "text outside the root element" },
        { "<1a/>", "bad element name" },
        { "<a><!-- x </a>", "unterminated comment" },
        { "<a><![CDATA[x</a>", "unterminated CDATA" },
        { "<a><?pi </a>", "unterminated processing instruction" },
        { "<a><!ELEMENT x></a>", "unsupported markup" },
        { "</a>", "end tag without a start tag" },
        { "<a", "unterminated start tag" },
        { "<a></a", "unterminated end tag" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        x = NULL;
        CHECK_ERR(fv__xml_parse("t", bad[i].doc, strlen(bad[i].doc), &x), FV_EFORMAT, bad[i].msg);
        CHECK(x == NULL);
    }
    /* nesting past the depth cap */
    size_t n = FV__XML_MAX_DEPTH + 10;
    char *deep = malloc(n * 3 + 1);
    for (size_t i = 0; i < n; i++)
        memcpy(deep + 3 * i, "<a>", 3);
    deep[3 * n] = '\0';
    CHECK_ERR(fv__xml_parse("t", deep, strlen(deep), &x), FV_EFORMAT, "nested too deeply");
    free(deep);
    CHECK_ERR(fv__xml_parse("t", "x", (size_t)FV__TIFF_MAX_TEXT + 1, &x), FV_EFORMAT, "limit");
    /* more elements than the cap (4 bytes each) */
    n = (size_t)FV__XML_MAX_ELEMENTS + 2;
    char *many = malloc(n * 4 + 8);
    memcpy(many, "<r>", 3);
    for (size_t i = 0; i < n; i++)
        memcpy(many + 3 + 4 * i, "<a/>", 4);
    memcpy(many + 3 + 4 * n, "</r>", 5);
    CHECK_ERR(fv__xml_parse("t", many, strlen(many), &x), FV_EFORMAT, "too many elements");
    free(many);
    CHECK_ERR(fv__xml_parse("t", NULL, 3, &x), FV_EINVAL, "NULL");
}

static void
test_helpers(void)
{
    double v = 0;
    char buf[64];
    CHECK(fv__parse_double(" 0.25 ", &v) && v == 0.25);
    CHECK(fv__parse_double("0,5", &v) && v == 0.5);
    CHECK(!fv__parse_double("0.25x", &v) && !fv__parse_double("", &v) && !fv__parse_double("inf", &v));
    CHECK(!fv__parse_double("nan", &v) && !fv__parse_double(NULL, &v));
    fv__format_double(buf, sizeof buf, 0.499);
    CHECK(!strcmp(buf, "0.499"));
    fv__format_double(buf, sizeof buf, (1503.0 / 501 + 1001.0 / 334) / 2);
    CHECK(!strcmp(buf, "2.9985029940119761")); /* as OpenSlide 4.0.1 prints it */
    fv__format_double(buf, sizeof buf, 4);
    CHECK(!strcmp(buf, "4"));
    fv__format_double(buf, sizeof buf, 0.1);
    CHECK(!strcmp(buf, "0.10000000000000001")); /* OpenSlide's %.17g */
    size_t n = 0;
    uint8_t *d = NULL;
    CHECK_OK(fv__base64_decode("aGVs\nbG8=", 9, &d, &n));
    CHECK(d && n == 5 && !memcmp(d, "hello", 5));
    free(d);
    CHECK_OK(fv__base64_decode("====", 4, &d, &n));
    CHECK(d == NULL && n == 0);
    uint32_t w = 0, h = 0;
    CHECK(fv__jpeg_dimensions(fake_jpeg, sizeof fake_jpeg, &w, &h) && w == 64 && h == 32);
    CHECK(!fv__jpeg_dimensions(fake_jpeg, 25, &w, &h)); /* truncated inside SOF */
    CHECK(!fv__jpeg_dimensions((const uint8_t *)"\xFF\xD8\xFF\xD9", 4, &w, &h));
}

/* ---- bad input ---------------------------------------------------------------------------------- */

/* a valid one-directory file to break */
static void
base_file(tw *w, int big)
{
    tw_init(w, big, 0);
    int a = tw_new_ifd(w);
    tw_image(w, a, 100, 80, 32, 32, 0, 3);
}

static const char *
finish_write(tw *w)
{
    tw_finish(w);
    return tw_write(w);
}

static void
test_bad_headers(void)
{
    CHECK_ERR(open_only(write_bytes("", 0)), FV_EFORMAT, "too short for a TIFF header");
    CHECK_ERR(open_only(write_bytes("II*", 3)), FV_EFORMAT, "too short for a TIFF header");
    CHECK_ERR(open_only(write_bytes("PK\x03\x04\x00\x00\x00\x00", 8)), FV_EFORMAT, "not a TIFF file (bad magic");
    CHECK_ERR(open_only(write_bytes("IM*\x00\x08\x00\x00\x00", 8)), FV_EFORMAT, "bad magic");
    CHECK_ERR(open_only(write_bytes("II\x2c\x00\x08\x00\x00\x00", 8)), FV_EFORMAT, "version 44");
    CHECK_ERR(open_only(write_bytes("II+\x00\x08\x00\x00\x00", 8)), FV_EFORMAT, "too short for a BigTIFF header");
    CHECK_ERR(open_only(write_bytes("II+\x00\x04\x00\x00\x00\x10\0\0\0\0\0\0\0", 16)), FV_EFORMAT,
              "bad BigTIFF header");
    CHECK_ERR(open_only(write_bytes("II*\x00\x00\x00\x00\x00", 8)), FV_EFORMAT, "no directories");
    CHECK_ERR(open_only(write_bytes("II*\x00\x08\x00\x00\x00", 8)), FV_EFORMAT, "past the end of the file");
    CHECK_ERR(open_only(write_bytes("MM\x00*\x00\x00\x00\x04", 8)), FV_EFORMAT, "inside the header");
    CHECK_ERR(open_only(write_bytes("II*\x00\x09\x00\x00\x00\x00\x00", 10)), FV_EFORMAT,
              "entry count runs past the end");
    CHECK_ERR(open_only(write_bytes("II*\x00\x08\x00\x00\x00\x00\x00", 10)), FV_EFORMAT, "has no entries");
    CHECK_ERR(open_only(write_bytes("II*\x00\x08\x00\x00\x00\x05\x00\x00\x00", 12)), FV_EFORMAT,
              "5 entries run past the end of the file");
    CHECK_ERR(open_only(write_bytes("II*\x00\x08\x00\x00\x00\x01\x10", 10)), FV_EFORMAT, "4097 entries (limit 4096)");
    CHECK_ERR(open_only(tmpdir), FV_EIO, "not a regular file");
    char path[128];
    snprintf(path, sizeof path, "%s/does-not-exist.tif", tmpdir);
    CHECK_ERR(open_only(path), FV_EIO, "cannot open");
    fv__tiff *t = (fv__tiff *)1;
    CHECK_ERR(fv__tiff_open(NULL, &t), FV_EINVAL, "path is NULL");
    CHECK(t == NULL);
    CHECK_ERR(fv__tiff_open(path, NULL), FV_EINVAL, "out is NULL");
    fv__tiff_close(NULL);
    fv__layout_free(NULL);
    CHECK(fv__layout_prop(NULL, "x") == NULL);
    CHECK_ERR(fv__layout_detect(NULL, NULL), FV_EINVAL, "NULL");
}

static void
test_bad_chains(void)
{
    tw w;
    /* A -> B -> A */
    tw_init(&w, 0, 0);
    int a = tw_new_ifd(&w), b = tw_new_ifd(&w);
    tw_image(&w, a, 100, 80, 32, 32, 0, 3);
    tw_image(&w, b, 50, 40, 32, 32, 0, 3);
    w.ifd[a].next = b;
    w.ifd[b].next = a;
    CHECK_ERR(open_only(finish_write(&w)), FV_EFORMAT, "points back at directory 0: a loop");
    tw_free(&w);
    /* A -> A */
    base_file(&w, 1);
    w.ifd[0].next = 0;
    CHECK_ERR(open_only(finish_write(&w)), FV_EFORMAT, "a loop");
    tw_free(&w);
    /* next pointer past the end, and odd past the end */
    base_file(&w, 0);
    tw_finish(&w);
    tw_patch(&w, w.ifd[0].d.next_pos, w.f.len + 101, 4);
    CHECK_ERR(open_only(tw_write(&w)), FV_EFORMAT, "past the end of the file");
    tw_free(&w);
    /* a SubIFD pointing at its parent */
    tw_init(&w, 0, 0);
    a = tw_new_ifd(&w);
    b = tw_new_ifd(&w);
    tw_image(&w, a, 100, 80, 32, 32, 0, 3);
    tw_image(&w, b, 50, 40, 32, 32, 0, 3);
    int kids[1] = { b };
    tw_subifds(&w, a, kids, 1, 0);
    tw_subifds(&w, b, (int[]){ a }, 1, 0);
    tw_finish(&w);
    CHECK_ERR(open_only(tw_write(&w)), FV_EFORMAT, "points at directory 0 (offset");
    tw_free(&w);
    /* a SubIFD chain that loops: S1 -> S2 -> S3 -> S2, only S1 listed */
    tw_init(&w, 1, 1);
    a = tw_new_ifd(&w);
    b = tw_new_ifd(&w);
    int c = tw_new_ifd(&w), d = tw_new_ifd(&w);
    tw_image(&w, a, 100, 80, 32, 32, 0, 3);
    tw_image(&w, b, 50, 40, 32, 32, 0, 3);
    tw_image(&w, c, 25, 20, 32, 32, 0, 3);
    tw_image(&w, d, 12, 10, 32, 32, 0, 3);
    tw_subifds(&w, a, (int[]){ b }, 1, 0);
    w.ifd[b].next = c;
    w.ifd[c].next = d;
    w.ifd[d].next = c;
    CHECK_ERR(open_only(finish_write(&w)), FV_EFORMAT, "points back at directory 2: a loop");
    tw_free(&w);
    /* S1 -> S2 -> S1 with S1 listed: the chain just ends there (libtiff links) */
    tw_init(&w, 0, 0);
    a = tw_new_ifd(&w);
    b = tw_new_ifd(&w);
    c = tw_new_ifd(&w);
    tw_image(&w, a, 100, 80, 32, 32, 0, 3);
    tw_image(&w, b, 50, 40, 32, 32, 0, 3);
    tw_image(&w, c, 25, 20, 32, 32, 0, 3);
    tw_subifds(&w, a, (int[]){ b }, 1, 0);
    w.ifd[b].next = c;
    w.ifd[c].next = b;
    CHECK_OK(detect_only(finish_write(&w)));
    tw_free(&w);
    /* a SubIFD chain running into the main chain: a cycle */
    tw_init(&w, 0, 0);
    a = tw_new_ifd(&w);
    b = tw_new_ifd(&w);
    tw_image(&w, a, 100, 80, 32, 32, 0, 3);
    tw_image(&w, b, 50, 40, 32, 32, 0, 3);
    c = tw_new_ifd(&w);
    tw_image(&w, c, 20, 20, 32, 32, 0, 3);
    w.ifd[a].next = b;
    tw_subifds(&w, a, (int[]){ c }, 1, 0);
    w.ifd[c].next = b;
    CHECK_ERR(open_only(finish_write(&w)), FV_EFORMAT, "a cycle");
    tw_free(&w);
    /* SubIFDs of the wrong type */
    base_file(&w, 0);
    tw_add1(&w, 0, 330, SHORT, 8);
    CHECK_ERR(open_only(finish_write(&w)), FV_EFORMAT, "SubIFDs has type SHORT");
    tw_free(&w);
    /* more directories than the cap: a chain of 4097 small ones */
    tw_init(&w, 0, 0);
    uint8_t blob[8] = { 1 };
    uint64_t off = tw_append(&w, blob, 8), one = 8;
    int prev = -1;
    for (int i = 0; i <= FV__TIFF_MAX_IFDS; i++) {
        int d = tw_new_ifd(&w);
        tw_add1(&w, d, 256, SHORT, 8);
        tw_add1(&w, d, 257, SHORT, 1);
        tw_add(&w, d, 273, LONG, 1, &off);
        tw_add(&w, d, 279, LONG, 1, &one);
        if (prev >= 0)
            w.ifd[prev].next = d;
        prev = d;
    }
    CHECK_ERR(open_only(finish_write(&w)), FV_EFORMAT, "more than 4096 directories");
    tw_free(&w);
}

static void
test_bad_entries(void)
{
    tw w;
    uint64_t v;
    /* an entry whose size overflows (BigTIFF count 2^62 of LONG8) */
    base_file(&w, 1);
    v = 0;
    tw_entry *e = tw_raw(&w, 0, 50000, LONG8, (uint64_t)1 << 62, &v, 8);
    (void)e;
    CHECK_ERR(open_only(finish_write(&w)), FV_EFORMAT, "overflow a 64-bit size");
    tw_free(&w);
    /* an entry past the end (classic count 0xFFFFFFFF of LONG) */
    base_file(&w, 0);
    tw_raw(&w, 0, 50000, LONG, 0xFFFFFFFFu, &v, 8);
    CHECK_ERR(open_only(finish_write(&w)), FV_EFORMAT, "run past the end of the file");
    tw_free(&w);
    /* ImageWidth as ASCII, missing, zero, too big */
    base_file(&w, 0);
    tw_remove(&w, 0, 256);
    tw_ascii(&w, 0, 256, "100");
    CHECK_ERR(open_only(finish_write(&w)), FV_EFORMAT, "ImageWidth (256) has type ASCII");
    tw_free(&w);
    base_file(&w, 0);
    tw_remove(&w, 0, 257);
    CHECK_ERR(open_only(finish_write(&w)), FV_EFORMAT, "no ImageLength (257)");
    tw_free(&w);
    base_file(&w, 0);
    tw_remove(&w, 0, 256);
    tw_add1(&w, 0, 256, LONG, 0);
    CHECK_ERR(open_only(finish_write(&w)), FV_EFORMAT, "image width 0 is out of range");
    tw_free(&w);
    base_file(&w, 0);
    tw_remove(&w, 0, 257);
    tw_add1(&w, 0, 257, LONG, ((uint64_t)1 << 24) + 1);
    CHECK_ERR(open_only(finish_write(&w)), FV_EFORMAT, "image height 16777217 is out of range");
    tw_free(&w);
    /* tile sizes */
    base_file(&w, 0);
    tw_remove(&w, 0, 322);
    tw_add1(&w, 0, 322, LONG, 0);
    CHECK_ERR(open_only(finish_write(&w)), FV_EFORMAT, "tile size 0x32 is out of range");
    tw_free(&w);
    base_file(&w, 0);
    tw_remove(&w, 0, 323);
    tw_add1(&w, 0, 323, LONG, 20000);
    CHECK_ERR(open_only(finish_write(&w)), FV_EFORMAT, "tile size 32x20000 is out of range");
    tw_free(&w);
    base_file(&w, 0);
    tw_remove(&w, 0, 323);
    CHECK_ERR(open_only(finish_write(&w)), FV_EFORMAT, "TileWidth and TileLength must come together");
    tw_free(&w);
    /* more tiles than the cap: 2^24 x 2^24 in 16 x 16 tiles */
    base_file(&w, 0);
    tw_remove(&w, 0, 256);
    tw_remove(&w, 0, 257);
    tw_remove(&w, 0, 322);
    tw_remove(&w, 0, 323);
    tw_add1(&w, 0, 256, LONG, (uint64_t)1 << 24);
    tw_add1(&w, 0, 257, LONG, (uint64_t)1 << 24);
    tw_add1(&w, 0, 322, LONG, 16);
    tw_add1(&w, 0, 323, LONG, 16);
    CHECK_ERR(open_only(finish_write(&w)), FV_EFORMAT, "exceed the limit of 16777216");
    tw_free(&w);
    /* offsets / byte counts of the wrong length */
    base_file(&w, 0);
    tw_remove(&w, 0, 324);
    uint64_t offs[5] = { 16, 16, 16, 16, 16 };
    tw_add(&w, 0, 324, LONG, 5, offs);
    CHECK_ERR(open_only(finish_write(&w)), FV_EFORMAT, "TileOffsets (324) has 5 values, expected 12 (one per tile)");
    tw_free(&w);
    base_file(&w, 0);
    tw_remove(&w, 0, 325);
    tw_add(&w, 0, 325, LONG, 5, offs);
    CHECK_ERR(open_only(finish_write(&w)), FV_EFORMAT, "TileByteCounts (325) has 5 values, expected 12");
    tw_free(&w);
    base_file(&w, 0);
    tw_remove(&w, 0, 325);
    CHECK_ERR(open_only(finish_write(&w)), FV_EFORMAT, "tiled image without TileByteCounts");
    tw_free(&w);
    base_file(&w, 0);
    tw_remove(&w, 0, 324);
    tw_ascii(&w, 0, 324, "hello world");
    CHECK_ERR(open_only(finish_write(&w)), FV_EFORMAT, "TileOffsets (324) has type ASCII");
    tw_free(&w);
    /* a tile past the end of the file */
    base_file(&w, 0);
    tw_finish(&w);
    for (int k = 0; k < w.ifd[0].d.n; k++)
        if (w.ifd[0].d.e[k].tag == 324)
            tw_patch(&w, w.ifd[0].d.e[k].val_pos + 4 * 3, w.f.len - 4, 4);
    CHECK_ERR(open_only(tw_write(&w)), FV_EFORMAT, "tile 3 (offset");
    tw_free(&w);
    /* a strip whose byte count wraps around */
    tw_init(&w, 1, 0);
    tw_new_ifd(&w);
    tw_image(&w, 0, 100, 10, 0, 0, 10, 1);
    tw_finish(&w);
    for (int k = 0; k < w.ifd[0].d.n; k++)
        if (w.ifd[0].d.e[k].tag == 279)
            tw_patch(&w, w.ifd[0].d.e[k].val_pos, UINT64_MAX - 4, 8);
    CHECK_ERR(open_only(tw_write(&w)), FV_EFORMAT, "strip 0 (offset");
    tw_free(&w);
    /* planar configuration, samples, bits */
    base_file(&w, 0);
    tw_add1(&w, 0, 284, SHORT, 3);
    CHECK_ERR(open_only(finish_write(&w)), FV_EFORMAT, "PlanarConfiguration 3");
    tw_free(&w);
    base_file(&w, 0);
    tw_remove(&w, 0, 277);
    tw_add1(&w, 0, 277, SHORT, 0);
    CHECK_ERR(open_only(finish_write(&w)), FV_EFORMAT, "SamplesPerPixel 0");
    tw_free(&w);
    base_file(&w, 0);
    tw_remove(&w, 0, 258);
    tw_add1(&w, 0, 258, SHORT, 65);
    CHECK_ERR(open_only(finish_write(&w)), FV_EFORMAT, "BitsPerSample 65");
    tw_free(&w);
    /* planar 2: one tile per sample and position */
    base_file(&w, 0);
    tw_add1(&w, 0, 284, SHORT, 2);
    CHECK_ERR(open_only(finish_write(&w)), FV_EFORMAT, "expected 36 (one per tile)");
    tw_free(&w);
    /* text longer than the cap: a sparse file with a 17 MiB description */
    base_file(&w, 0);
    uint64_t big = (uint64_t)FV__TIFF_MAX_TEXT + 1;
    tw_entry *d = tw_raw(&w, 0, 270, ASCII, big, NULL, 4); /* offset patched below */
    (void)d;
    tw_finish(&w);
    const char *path = tw_write(&w);
    for (int k = 0; k < w.ifd[0].d.n; k++)
        if (w.ifd[0].d.e[k].tag == 270) {
            FILE *f = fopen(path, "r+b");
            uint8_t o[4];
            tfw_put(o, w.f.len, 4, 0);
            fseek(f, (long)w.ifd[0].d.e[k].val_pos, SEEK_SET);
            fwrite(o, 1, 4, f);
            fclose(f);
        }
    CHECK(truncate(path, (off_t)(w.f.len + big)) == 0);
    CHECK_ERR(open_only(path), FV_EFORMAT, "ImageDescription (270) is 16777217 bytes long (limit 16777216)");
    tw_free(&w);
    /* the metadata budget: directories sharing one huge chunk table in a
     * sparse 8 MiB file (each would take 16 MiB; budget 4 x 8 + 16 MiB) */
    tw_init(&w, 0, 0);
    int n_ifd = 12;
    for (int i = 0; i < n_ifd; i++) {
        int k = tw_new_ifd(&w);
        tw_add1(&w, k, 256, LONG, 16384);
        tw_add1(&w, k, 257, LONG, 16384);
        tw_add1(&w, k, 322, SHORT, 16);
        tw_add1(&w, k, 323, SHORT, 16);
        tw_raw(&w, k, 324, LONG, 1u << 20, NULL, 4);
        tw_raw(&w, k, 325, LONG, 1u << 20, NULL, 4);
        if (i)
            w.ifd[i - 1].next = k;
    }
    tw_finish(&w);
    uint64_t table = w.f.len; /* the zero-filled tables start at the end */
    for (int i = 0; i < n_ifd; i++)
        for (int k = 0; k < w.ifd[i].d.n; k++)
            if (w.ifd[i].d.e[k].tag == 324 || w.ifd[i].d.e[k].tag == 325)
                tw_patch(&w, w.ifd[i].d.e[k].val_pos, table, 4);
    path = tw_write(&w);
    CHECK(truncate(path, (off_t)(table + (8u << 20))) == 0);
    CHECK_ERR(open_only(path), FV_EFORMAT, "metadata past");
    tw_free(&w);
}

static void
test_bad_levels(void)
{
    tw w;
    /* Aperio levels that grow */
    tw_init(&w, 0, 0);
    int a = tw_new_ifd(&w), b = tw_new_ifd(&w);
    tw_image(&w, a, 100, 80, 32, 32, 0, 3);
    tw_ascii(&w, a, 270, "Aperio Image Library|MPP = x");
    tw_image(&w, b, 200, 80, 32, 32, 0, 3);
    w.ifd[a].next = b;
    CHECK_ERR(detect_only(finish_write(&w)), FV_EFORMAT, "aperio: ");
    CHECK(strstr(fv_error_message(), "levels are not strictly decreasing: level 1 (directory 1) is 200x80"));
    tw_free(&w);
    /* generic: two reduced levels of the same size */
    tw_init(&w, 0, 0);
    a = tw_new_ifd(&w);
    b = tw_new_ifd(&w);
    int c = tw_new_ifd(&w);
    tw_image(&w, a, 100, 80, 32, 32, 0, 3);
    tw_image(&w, b, 50, 40, 32, 32, 0, 3);
    tw_image(&w, c, 50, 40, 32, 32, 0, 3);
    tw_add1(&w, b, 254, LONG, 1);
    tw_add1(&w, c, 254, LONG, 1);
    w.ifd[a].next = b;
    w.ifd[b].next = c;
    CHECK_ERR(detect_only(finish_write(&w)), FV_EFORMAT, "generic-tiff: ");
    CHECK(strstr(fv_error_message(), "not strictly decreasing"));
    tw_free(&w);
    /* generic: a reduced level with other samples */
    tw_init(&w, 0, 0);
    a = tw_new_ifd(&w);
    b = tw_new_ifd(&w);
    tw_image(&w, a, 100, 80, 32, 32, 0, 3);
    tw_image(&w, b, 50, 40, 32, 32, 0, 1);
    tw_add1(&w, b, 254, LONG, 1);
    w.ifd[a].next = b;
    CHECK_ERR(detect_only(finish_write(&w)), FV_EFORMAT, "has 1 samples of 8 bits, level 0 has 3 of 8");
    tw_free(&w);
    /* volumetric */
    base_file(&w, 0);
    tw_add1(&w, 0, 32997, LONG, 4);
    CHECK_ERR(detect_only(finish_write(&w)), FV_EFORMAT, "ImageDepth 4");
    tw_free(&w);
    /* an Aperio description with garbage values: no error, no mpp */
    base_file(&w, 0);
    tw_ascii(&w, 0, 270, "Aperio|MPP = 0.5x|AppMag = |=|||MPP");
    fv__tiff *t = NULL;
    fv__layout l;
    CHECK_OK(open_layout(finish_write(&w), &t, &l));
    if (t)
        CHECK(!strcmp(l.vendor, "aperio") && l.mpp_x == 0 && l.objective_power == 0 &&
              prop_is(&l, "aperio.MPP", "0.5x") && prop_is(&l, "aperio.AppMag", ""));
    fv__layout_free(&l);
    fv__tiff_close(t);
    tw_free(&w);
    /* more than FV__MAX_LEVELS levels */
    tw_init(&w, 0, 0);
    int prev = -1;
    for (int i = 0; i < FV__MAX_LEVELS + 1; i++) {
        int k = tw_new_ifd(&w);
        tw_image(&w, k, 4000 - (uint64_t)i * 100, 4000 - (uint64_t)i * 100, 1024, 1024, 0, 1);
        if (i)
            tw_add1(&w, k, 254, LONG, 1);
        if (prev >= 0)
            w.ifd[prev].next = k;
        prev = k;
    }
    CHECK_ERR(detect_only(finish_write(&w)), FV_EFORMAT, "more than 32 pyramid levels");
    tw_free(&w);
}

/* ---- sweeps: truncation at every length, random byte flips --------------------------------------- */

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint32_t
rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 11);
}

static void
sweep(const uint8_t *good, size_t len, int flips)
{
    int ok = 0, failed = 0, unexpected = 0;
    for (size_t cut = 0; cut < len; cut += 1 + len / 600) {
        fv_status st = detect_only(write_bytes(good, cut));
        st == FV_OK ? ok++ : failed++;
        if (st != FV_OK && st != FV_EFORMAT)
            unexpected++;
    }
    uint8_t *m = malloc(len);
    for (int it = 0; it < flips; it++) {
        memcpy(m, good, len);
        int nflip = 1 + (int)(rnd() % 4);
        for (int k = 0; k < nflip; k++) {
            size_t at = rnd() % len;
            switch (rnd() % 3) {
            case 0:
                m[at] ^= (uint8_t)(1u << (rnd() % 8));
                break;
            case 1:
                m[at] = (uint8_t)rnd();
                break;
            default:
                m[at] = (uint8_t)(rnd() & 1 ? 0xFF : 0x00);
                break;
            }
        }
        fv_status st = detect_only(write_bytes(m, len));
        st == FV_OK ? ok++ : failed++;
        if (st != FV_OK && st != FV_EFORMAT && st != FV_EIO)
            unexpected++;
    }
    free(m);
    if (getenv("FV_TEST_VERBOSE"))
        fprintf(stderr, "sweep of %zu bytes: %d opened, %d rejected\n", len, ok, failed);
    CHECK(unexpected == 0);
    CHECK(failed > 0);
}

static void
test_sweeps(void)
{
    tw w;
    char *xml = philips_xml(4, 0, "DPUfsImport");
    philips_file(&w, xml, 1, 1);
    sweep(w.f.buf, w.f.len, 1500);
    tw_free(&w);
    free(xml);
    tw_init(&w, 0, 1);
    int a = tw_new_ifd(&w), b = tw_new_ifd(&w), c = tw_new_ifd(&w);
    tw_image(&w, a, 300, 200, 64, 64, 0, 3);
    tw_ascii(&w, a, 270, aperio_desc);
    tw_image(&w, b, 150, 100, 64, 64, 0, 3);
    tw_image(&w, c, 50, 30, 0, 0, 7, 3);
    tw_subifds(&w, a, (int[]){ b }, 1, 1);
    w.ifd[a].next = c;
    tw_finish(&w);
    sweep(w.f.buf, w.f.len, 3000);
    tw_free(&w);
    char ox[4096];
    snprintf(ox, sizeof ox, ome_xml_fmt, "PhysicalSizeX=\"250\" PhysicalSizeXUnit=\"nm\"");
    ome_file(&w, ox, 1);
    sweep(w.f.buf, w.f.len, 1500);
    tw_free(&w);
}

int
main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/fv_test_tiff_XXXXXX");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    for (int big = 0; big < 2; big++)
        for (int be = 0; be < 2; be++)
            test_pyramid(big, be);
    test_stripped();
    test_resolution_units();
    test_subifds(0, 1);
    test_subifds(0, 0);
    test_subifds(1, 1);
    test_subifds(1, 0);
    test_odd_offset();
    test_threads();
    test_aperio(0);
    test_aperio(1);
    test_philips();
    test_ome();
    test_xml();
    test_helpers();
    test_bad_headers();
    test_bad_chains();
    test_bad_entries();
    test_bad_levels();
    test_sweeps();

    /* clean up the temporary files */
    char path[160];
    for (int i = 0; i < file_no; i++) {
        snprintf(path, sizeof path, "%s/f%04d.tif", tmpdir, i);
        unlink(path);
        snprintf(path, sizeof path, "%s/f%04d.bin", tmpdir, i);
        unlink(path);
    }
    rmdir(tmpdir);
    return fv_t_summary("test_tiff");
}
