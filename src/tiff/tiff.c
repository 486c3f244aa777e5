/* A validating TIFF / BigTIFF directory parser (no libtiff).
 *
 * Reads the header, the main IFD chain and every SubIFD with pread (never mmap),
 * checks each offset and byte count against the file size with overflow-safe
 * arithmetic, detects loops in the chain and cycles through SubIFDs, caps the
 * counts (FV__TIFF_MAX_*) and the memory the metadata may take, and records
 * what the formats and the slide reader need (fv__tiff_ifd). Sizes are computed
 * and checked before anything is allocated. Pixel data is never read here.
 * Tag tables, error messages and reading tag values are in tiff-tags.c. */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "tiff.h"
#include "alloc.h"
#include "tiff-internal.h"

#ifndef O_CLOEXEC
#define O_CLOEXEC 0
#endif

/* Metadata memory (tag lists, chunk arrays, strings) one file may make us
 * allocate: 4x the file size plus 16 MiB, at most 1 GiB. Real files need a few
 * times less than their own size; hostile ones that point many directories at
 * the same bytes stop here instead of exhausting memory. */
#define FV__TIFF_BUDGET_SLACK ((uint64_t)16 << 20)
#define FV__TIFF_BUDGET_MAX ((uint64_t)1 << 30)

/* ---- parsing ------------------------------------------------------------------------ */

typedef struct pctx {
    fv__tiff *t;
    int cap; /* allocated ifds */
    uint64_t used, budget;
} pctx;

static fv_status
charge(pctx *c, int idx, uint64_t bytes, const char *what)
{
    if (bytes > c->budget - c->used)
        return fv__tiff_derr(c->t, idx, FV_EFORMAT,
                             "%s would take the file's metadata past %llu bytes (corrupt or hostile file)", what,
                             (unsigned long long)c->budget);
    c->used += bytes;
    return FV_OK;
}

/* The first value of an integer tag, or dflt when absent or empty. */
static fv_status
get_uint1(pctx *c, int idx, uint16_t tagno, uint64_t dflt, uint64_t *out)
{
    const fv__tiff_tag *tag = fv__tiff_find_tag(&c->t->ifds[idx], tagno);
    *out = dflt;
    if (!tag || !tag->count)
        return FV_OK;
    if (!fv__tiff_is_uint_type(tag->type))
        return fv__tiff_derr(c->t, idx, FV_EFORMAT, "%s (%u) has type %s, expected SHORT or LONG",
                             fv__tiff_tag_name(tagno), tagno, fv__tiff_type_name(tag->type));
    return fv__tiff_tag_u64(c->t, tag, out, 1);
}

/* A text tag into *out (NULL when absent); counted against the budget. */
static fv_status
get_text(pctx *c, int idx, uint16_t tagno, char **out)
{
    const fv__tiff_tag *tag = fv__tiff_find_tag(&c->t->ifds[idx], tagno);
    if (!tag)
        return FV_OK;
    if (!fv__tiff_is_text_type(tag->type))
        return fv__tiff_derr(c->t, idx, FV_EFORMAT, "%s (%u) has type %s, expected ASCII", fv__tiff_tag_name(tagno),
                             tagno, fv__tiff_type_name(tag->type));
    if (tag->count > FV__TIFF_MAX_TEXT)
        return fv__tiff_derr(c->t, idx, FV_EFORMAT, "%s (%u) is %llu bytes long (limit %u)", fv__tiff_tag_name(tagno),
                             tagno, (unsigned long long)tag->count, (unsigned)FV__TIFF_MAX_TEXT);
    fv_status st = charge(c, idx, tag->count + 1, fv__tiff_tag_name(tagno));
    if (st)
        return st;
    return fv__tiff_tag_string(c->t, tag, out);
}

/* An optional resolution: 0 when absent or unusable (metadata only); a read error
 * (FV_EIO) still fails the open. */
static fv_status
get_resolution(pctx *c, int idx, uint16_t tagno, double *out)
{
    const fv__tiff_tag *tag = fv__tiff_find_tag(&c->t->ifds[idx], tagno);
    double v = 0;
    *out = 0;
    if (!tag || !tag->count)
        return FV_OK;
    fv_status st = fv__tiff_tag_f64(c->t, tag, &v, 1);
    if (st == FV_EIO)
        return st;
    if (st) {
        fv_error_clear();
        return FV_OK;
    }
    *out = v > 0 && v < 1e300 ? v : 0;
    return FV_OK;
}

/* The chunk (tile or strip) offsets and byte counts: right count, right types,
 * every chunk inside the file. */
static fv_status
read_chunks(pctx *c, int idx, uint16_t off_tag, uint16_t cnt_tag, const char *unit)
{
    fv__tiff *t = c->t;
    fv__tiff_ifd *d = &t->ifds[idx];
    const fv__tiff_tag *to = fv__tiff_find_tag(d, off_tag), *tb = fv__tiff_find_tag(d, cnt_tag);
    if (!to)
        return fv__tiff_derr(t, idx, FV_EFORMAT, "%s image without %s", unit[0] == 't' ? "tiled" : "stripped",
                             fv__tiff_tag_name(off_tag));
    if (!tb)
        return fv__tiff_derr(t, idx, FV_EFORMAT, "%s image without %s", unit[0] == 't' ? "tiled" : "stripped",
                             fv__tiff_tag_name(cnt_tag));
    const fv__tiff_tag *tags[2] = { to, tb };
    for (int k = 0; k < 2; k++) {
        if (!fv__tiff_is_uint_type(tags[k]->type))
            return fv__tiff_derr(t, idx, FV_EFORMAT, "%s (%u) has type %s, expected SHORT, LONG or LONG8",
                                 fv__tiff_tag_name(tags[k]->tag), tags[k]->tag, fv__tiff_type_name(tags[k]->type));
        if (tags[k]->count != d->nchunks)
            return fv__tiff_derr(t, idx, FV_EFORMAT, "%s (%u) has %llu values, expected %llu (one per %s)",
                                 fv__tiff_tag_name(tags[k]->tag), tags[k]->tag, (unsigned long long)tags[k]->count,
                                 (unsigned long long)d->nchunks, unit);
    }
    fv_status st = charge(c, idx, d->nchunks * 16, "the chunk index");
    if (st)
        return st;
    size_t n = (size_t)d->nchunks;
    d->chunk_offsets = fv__malloc(n * sizeof(uint64_t));
    d->chunk_bytes = fv__malloc(n * sizeof(uint64_t));
    if (!d->chunk_offsets || !d->chunk_bytes)
        return fv__tiff_derr(t, idx, FV_ENOMEM, "out of memory for %zu %s offsets", n, unit);
    if ((st = fv__tiff_tag_u64(t, to, d->chunk_offsets, n)) || (st = fv__tiff_tag_u64(t, tb, d->chunk_bytes, n)))
        return st;
    for (size_t i = 0; i < n; i++) {
        uint64_t o = d->chunk_offsets[i], b = d->chunk_bytes[i];
        if (b && (o > t->file_size || b > t->file_size - o))
            return fv__tiff_derr(t, idx, FV_EFORMAT,
                                 "%s %zu (offset %llu, %llu bytes) runs past the end of the file (%llu bytes)", unit, i,
                                 (unsigned long long)o, (unsigned long long)b, (unsigned long long)t->file_size);
    }
    return FV_OK;
}

/* Fill the fields of directory idx from its tags. */
static fv_status
interpret(pctx *c, int idx)
{
    fv__tiff *t = c->t;
    fv__tiff_ifd *d = &t->ifds[idx];
    fv_status st;
    uint64_t v, w, h;

    /* dimensions (required) */
    for (int k = 0; k < 2; k++) {
        uint16_t tagno = k ? T_IMAGELENGTH : T_IMAGEWIDTH;
        const fv__tiff_tag *tag = fv__tiff_find_tag(d, tagno);
        if (!tag || !tag->count)
            return fv__tiff_derr(t, idx, FV_EFORMAT, "no %s (%u)", fv__tiff_tag_name(tagno), tagno);
        if ((st = get_uint1(c, idx, tagno, 0, k ? &h : &w)))
            return st;
    }
    if (w == 0 || w > FV__TIFF_MAX_DIM)
        return fv__tiff_derr(t, idx, FV_EFORMAT, "image width %llu is out of range (1..%llu)", (unsigned long long)w,
                             (unsigned long long)FV__TIFF_MAX_DIM);
    if (h == 0 || h > FV__TIFF_MAX_DIM)
        return fv__tiff_derr(t, idx, FV_EFORMAT, "image height %llu is out of range (1..%llu)", (unsigned long long)h,
                             (unsigned long long)FV__TIFF_MAX_DIM);
    d->width = w;
    d->height = h;

    /* sample layout */
    if ((st = get_uint1(c, idx, T_SAMPLESPERPIXEL, 1, &v)))
        return st;
    if (v == 0 || v > 65535)
        return fv__tiff_derr(t, idx, FV_EFORMAT, "SamplesPerPixel %llu is out of range (1..65535)",
                             (unsigned long long)v);
    d->samples = (uint16_t)v;
    if ((st = get_uint1(c, idx, T_BITSPERSAMPLE, 1, &v)))
        return st;
    if (v == 0 || v > 64)
        return fv__tiff_derr(t, idx, FV_EFORMAT, "BitsPerSample %llu is out of range (1..64)", (unsigned long long)v);
    d->bits = (uint16_t)v;
    if ((st = get_uint1(c, idx, T_SAMPLEFORMAT, 1, &v)))
        return st;
    d->sample_format = (uint16_t)(v > 65535 ? 0 : v);
    if ((st = get_uint1(c, idx, T_COMPRESSION, 1, &v)))
        return st;
    if (v > 65535)
        return fv__tiff_derr(t, idx, FV_EFORMAT, "Compression %llu is out of range", (unsigned long long)v);
    d->compression = (uint16_t)v;
    /* PhotometricInterpretation is required by the specification; when a writer
     * leaves it out, guess as libtiff does: RGB for 3+ samples, else grey */
    if ((st = get_uint1(c, idx, T_PHOTOMETRIC, d->samples >= 3 ? 2 : 1, &v)))
        return st;
    d->photometric = (uint16_t)(v > 65535 ? 65535 : v);
    if ((st = get_uint1(c, idx, T_PLANARCONFIG, 1, &v)))
        return st;
    if (v != 1 && v != 2)
        return fv__tiff_derr(t, idx, FV_EFORMAT, "PlanarConfiguration %llu is not 1 or 2", (unsigned long long)v);
    d->planar = (uint16_t)v;
    if ((st = get_uint1(c, idx, T_PREDICTOR, 1, &v)))
        return st;
    d->predictor = (uint16_t)(v > 65535 ? 0 : v);
    d->ycbcr_sub[0] = d->ycbcr_sub[1] = 2; /* the specification's default */
    const fv__tiff_tag *ys = fv__tiff_find_tag(d, T_YCBCRSUBSAMPLING);
    if (ys && ys->count >= 2) {
        uint64_t s2[2];
        if (!fv__tiff_is_uint_type(ys->type))
            return fv__tiff_derr(t, idx, FV_EFORMAT, "YCbCrSubsampling has type %s, expected SHORT",
                                 fv__tiff_type_name(ys->type));
        if ((st = fv__tiff_tag_u64(t, ys, s2, 2)))
            return st;
        d->ycbcr_sub[0] = (uint16_t)(s2[0] > 65535 ? 0 : s2[0]);
        d->ycbcr_sub[1] = (uint16_t)(s2[1] > 65535 ? 0 : s2[1]);
    }

    /* subfile type: NewSubfileType, else the old SubfileType (2 = reduced) */
    if (fv__tiff_find_tag(d, T_NEWSUBFILETYPE)) {
        if ((st = get_uint1(c, idx, T_NEWSUBFILETYPE, 0, &v)))
            return st;
        d->subfile_type = (uint32_t)v;
    } else {
        if ((st = get_uint1(c, idx, T_SUBFILETYPE, 1, &v)))
            return st;
        d->subfile_type = v == 2 ? 1u : v == 3 ? 2u : 0u;
    }

    /* chunks: tiles or strips */
    const fv__tiff_tag *tw = fv__tiff_find_tag(d, T_TILEWIDTH), *th = fv__tiff_find_tag(d, T_TILELENGTH);
    uint64_t planes = d->planar == 2 ? d->samples : 1;
    if (tw || th) {
        uint64_t tws, ths;
        if (!tw || !th || !tw->count || !th->count)
            return fv__tiff_derr(t, idx, FV_EFORMAT, "TileWidth and TileLength must come together");
        if ((st = get_uint1(c, idx, T_TILEWIDTH, 0, &tws)) || (st = get_uint1(c, idx, T_TILELENGTH, 0, &ths)))
            return st;
        if (tws == 0 || tws > FV__TIFF_MAX_TILE_DIM || ths == 0 || ths > FV__TIFF_MAX_TILE_DIM)
            return fv__tiff_derr(t, idx, FV_EFORMAT, "tile size %llux%llu is out of range (1..%d)",
                                 (unsigned long long)tws, (unsigned long long)ths, FV__TIFF_MAX_TILE_DIM);
        d->tile_width = (uint32_t)tws;
        d->tile_height = (uint32_t)ths;
        uint64_t across = (w + tws - 1) / tws, down = (h + ths - 1) / ths;
        uint64_t n = across * down; /* < 2^48: no overflow */
        if (n > FV__TIFF_MAX_CHUNKS || n * planes > FV__TIFF_MAX_CHUNKS)
            return fv__tiff_derr(t, idx, FV_EFORMAT, "%llu tiles (%llux%llu of %llux%llu) exceed the limit of %u",
                                 (unsigned long long)(n * planes), (unsigned long long)w, (unsigned long long)h,
                                 (unsigned long long)tws, (unsigned long long)ths, (unsigned)FV__TIFF_MAX_CHUNKS);
        d->nchunks = n * planes;
        d->rows_per_strip = 0;
        if ((st = read_chunks(c, idx, T_TILEOFFSETS, T_TILEBYTECOUNTS, "tile")))
            return st;
    } else {
        if ((st = get_uint1(c, idx, T_ROWSPERSTRIP, UINT32_MAX, &v)))
            return st;
        if (v == 0 || v > h)
            v = h;
        d->rows_per_strip = (uint32_t)v;
        uint64_t n = (h + v - 1) / v;
        if (n * planes > FV__TIFF_MAX_CHUNKS)
            return fv__tiff_derr(t, idx, FV_EFORMAT, "%llu strips exceed the limit of %u",
                                 (unsigned long long)(n * planes), (unsigned)FV__TIFF_MAX_CHUNKS);
        d->nchunks = n * planes;
        if ((st = read_chunks(c, idx, T_STRIPOFFSETS, T_STRIPBYTECOUNTS, "strip")))
            return st;
    }

    /* JPEGTables */
    const fv__tiff_tag *jt = fv__tiff_find_tag(d, T_JPEGTABLES);
    if (jt && jt->count) {
        if (jt->type != TY_UNDEFINED && jt->type != TY_BYTE)
            return fv__tiff_derr(t, idx, FV_EFORMAT, "JPEGTables has type %s, expected UNDEFINED",
                                 fv__tiff_type_name(jt->type));
        if (jt->count > FV__TIFF_MAX_TEXT)
            return fv__tiff_derr(t, idx, FV_EFORMAT, "JPEGTables is %llu bytes long (limit %u)",
                                 (unsigned long long)jt->count, (unsigned)FV__TIFF_MAX_TEXT);
        if ((st = charge(c, idx, jt->count, "JPEGTables")))
            return st;
        d->jpeg_tables = fv__malloc((size_t)jt->count);
        if (!d->jpeg_tables)
            return fv__tiff_derr(t, idx, FV_ENOMEM, "out of memory for JPEGTables");
        d->jpeg_tables_len = (size_t)jt->count;
        if ((st = fv__tiff_pread(t, jt->offset, d->jpeg_tables, d->jpeg_tables_len)))
            return st;
    }

    /* text and resolution (metadata) */
    if ((st = get_text(c, idx, T_IMAGEDESCRIPTION, &d->description)) ||
        (st = get_text(c, idx, T_SOFTWARE, &d->software)) || (st = get_text(c, idx, T_MAKE, &d->make)) ||
        (st = get_text(c, idx, T_MODEL, &d->model)) || (st = get_text(c, idx, T_DATETIME, &d->datetime)) ||
        (st = get_text(c, idx, T_ARTIST, &d->artist)) || (st = get_text(c, idx, T_COPYRIGHT, &d->copyright)) ||
        (st = get_text(c, idx, T_HOSTCOMPUTER, &d->host_computer)) ||
        (st = get_text(c, idx, T_DOCUMENTNAME, &d->document_name)))
        return st;
    if ((st = get_resolution(c, idx, T_XRESOLUTION, &d->x_resolution)) ||
        (st = get_resolution(c, idx, T_YRESOLUTION, &d->y_resolution)) ||
        (st = get_uint1(c, idx, T_RESOLUTIONUNIT, 2, &v)))
        return st;
    d->resolution_unit = (uint16_t)(v > 65535 ? 0 : v);
    return FV_OK;
}

static int
find_ifd(const fv__tiff *t, uint64_t off)
{
    for (int i = 0; i < t->nifds; i++)
        if (t->ifds[i].offset == off)
            return i;
    return -1;
}

/* Read the directory at off as a new entry of t->ifds; *next gets its next-IFD
 * offset. ref: what pointed here, for messages. */
static fv_status
read_ifd(pctx *c, uint64_t off, int parent, int chain_index, uint64_t *next, const char *ref)
{
    fv__tiff *t = c->t;
    fv_status st;
    uint8_t *block = NULL;
    unsigned hdr = t->bigtiff ? 16 : 8, csz = t->bigtiff ? 8 : 2, esz = t->bigtiff ? 20 : 12, osz = t->bigtiff ? 8 : 4;

    if (t->nifds >= FV__TIFF_MAX_IFDS)
        return fv__tiff_err(t, FV_EFORMAT, "more than %d directories (%s)", FV__TIFF_MAX_IFDS, ref);
    if (off < hdr || off >= t->file_size)
        return fv__tiff_err(t, FV_EFORMAT, "directory offset %llu (%s) is %s (file is %llu bytes)",
                            (unsigned long long)off, ref, off < hdr ? "inside the header" : "past the end of the file",
                            (unsigned long long)t->file_size);
    /* odd offsets break the specification's word alignment but libtiff and
     * OpenSlide accept them; so do we (bounds are still checked) */
    uint8_t cb[8];
    if (off > t->file_size - csz)
        return fv__tiff_err(t, FV_EFORMAT, "directory at offset %llu (%s): entry count runs past the end of the file",
                            (unsigned long long)off, ref);
    if ((st = fv__tiff_pread(t, off, cb, csz)))
        return st;
    uint64_t n = fv__tiff_get_uint(cb, csz, t->big_endian);
    if (n == 0)
        return fv__tiff_err(t, FV_EFORMAT, "directory at offset %llu (%s) has no entries", (unsigned long long)off,
                            ref);
    if (n > FV__TIFF_MAX_TAGS)
        return fv__tiff_err(t, FV_EFORMAT, "directory at offset %llu (%s) has %llu entries (limit %d)",
                            (unsigned long long)off, ref, (unsigned long long)n, FV__TIFF_MAX_TAGS);
    uint64_t blen = n * esz + osz;
    if (blen > t->file_size - off - csz)
        return fv__tiff_err(t, FV_EFORMAT,
                            "directory at offset %llu (%s): %llu entries run past the end of the file (%llu bytes)",
                            (unsigned long long)off, ref, (unsigned long long)n, (unsigned long long)t->file_size);

    /* the new record (owned by t from here on, so close frees it on failure) */
    if (t->nifds == c->cap) {
        int ncap = c->cap ? c->cap * 2 : 8;
        if (ncap > FV__TIFF_MAX_IFDS)
            ncap = FV__TIFF_MAX_IFDS;
        fv__tiff_ifd *p = fv__realloc(t->ifds, (size_t)ncap * sizeof *p);
        if (!p)
            return fv__tiff_err(t, FV_ENOMEM, "out of memory for %d directories", ncap);
        t->ifds = p;
        c->cap = ncap;
    }
    int idx = t->nifds++;
    fv__tiff_ifd *d = &t->ifds[idx];
    memset(d, 0, sizeof *d);
    d->offset = off;
    d->parent = parent;
    d->chain_index = chain_index;

    if ((st = charge(c, idx, blen + n * sizeof(fv__tiff_tag), "the directory")))
        return st;
    block = fv__malloc((size_t)blen);
    d->tags = fv__malloc((size_t)n * sizeof *d->tags);
    if (!block || !d->tags) {
        st = fv__tiff_derr(t, idx, FV_ENOMEM, "out of memory for %llu entries", (unsigned long long)n);
        goto done;
    }
    if ((st = fv__tiff_pread(t, off + csz, block, (size_t)blen)))
        goto done;
    for (uint64_t i = 0; i < n; i++) {
        const uint8_t *e = block + i * esz;
        fv__tiff_tag tg;
        tg.tag = (uint16_t)fv__tiff_get_uint(e, 2, t->big_endian);
        tg.type = (uint16_t)fv__tiff_get_uint(e + 2, 2, t->big_endian);
        tg.count = fv__tiff_get_uint(e + 4, t->bigtiff ? 8 : 4, t->big_endian);
        unsigned sz = fv__tiff_type_size(tg.type);
        if (!sz)
            continue; /* unknown type: ignored, as the specification asks */
        if (tg.count > UINT64_MAX / sz) {
            st = fv__tiff_derr(t, idx, FV_EFORMAT, "%s (%u): %llu values of type %s overflow a 64-bit size",
                               fv__tiff_tag_name(tg.tag), tg.tag, (unsigned long long)tg.count,
                               fv__tiff_type_name(tg.type));
            goto done;
        }
        uint64_t bytes = tg.count * sz;
        uint64_t field = off + csz + i * esz + (t->bigtiff ? 12 : 8);
        if (bytes <= osz)
            tg.offset = field;
        else
            tg.offset = fv__tiff_get_uint(e + (t->bigtiff ? 12 : 8), osz, t->big_endian);
        if (tg.offset > t->file_size || bytes > t->file_size - tg.offset) {
            st = fv__tiff_derr(
                t, idx, FV_EFORMAT,
                "%s (%u): %llu values of type %s at offset %llu run past the end of the file (%llu bytes)",
                fv__tiff_tag_name(tg.tag), tg.tag, (unsigned long long)tg.count, fv__tiff_type_name(tg.type),
                (unsigned long long)tg.offset, (unsigned long long)t->file_size);
            goto done;
        }
        d->tags[d->ntags++] = tg;
    }
    *next = fv__tiff_get_uint(block + n * esz, osz, t->big_endian);
    st = interpret(c, idx);
done:
    fv__free(block);
    return st;
}

/* SubIFDs of directory p: each listed offset, plus any chain hanging off them
 * (libtiff links the SubIFDs it writes through their next pointers too). */
static fv_status
read_subifds(pctx *c, int p)
{
    fv__tiff *t = c->t;
    const fv__tiff_tag *tag = fv__tiff_find_tag(&t->ifds[p], T_SUBIFDS);
    if (!tag || !tag->count)
        return FV_OK;
    if (tag->type != TY_LONG && tag->type != TY_IFD && tag->type != TY_LONG8 && tag->type != TY_IFD8)
        return fv__tiff_derr(t, p, FV_EFORMAT, "SubIFDs has type %s, expected LONG or IFD",
                             fv__tiff_type_name(tag->type));
    if (tag->count > FV__TIFF_MAX_IFDS)
        return fv__tiff_derr(t, p, FV_EFORMAT, "SubIFDs lists %llu directories (limit %d)",
                             (unsigned long long)tag->count, FV__TIFF_MAX_IFDS);
    size_t n = (size_t)tag->count;
    uint64_t *list = fv__malloc(n * sizeof *list);
    if (!list)
        return fv__tiff_derr(t, p, FV_ENOMEM, "out of memory for SubIFDs");
    fv_status st = fv__tiff_tag_u64(t, tag, list, n);
    int first_child = t->nifds;
    char ref[96];
    for (size_t i = 0; i < n && !st; i++) {
        uint64_t off = list[i];
        int k = find_ifd(t, off);
        if (k >= first_child && t->ifds[k].parent == p)
            continue; /* already reached through a sibling's next pointer, or listed twice */
        if (k >= 0) {
            st = fv__tiff_derr(t, p, FV_EFORMAT, "SubIFDs entry %zu points at directory %d (offset %llu): a cycle", i,
                               k, (unsigned long long)off);
            break;
        }
        snprintf(ref, sizeof ref, "SubIFDs entry %zu of directory %d", i, p);
        uint64_t next = 0;
        if ((st = read_ifd(c, off, p, -1, &next, ref)))
            break;
        /* follow the chain until it meets a listed entry or ends */
        while (next && !st) {
            int listed = 0;
            for (size_t j = 0; j < n; j++)
                if (list[j] == next)
                    listed = 1;
            if (listed)
                break;
            k = find_ifd(t, next);
            if (k >= 0) {
                st = fv__tiff_derr(t, t->nifds - 1, FV_EFORMAT,
                                   "next directory offset %llu points back at directory %d: a %s",
                                   (unsigned long long)next, k, t->ifds[k].parent == p ? "loop" : "cycle");
                break;
            }
            snprintf(ref, sizeof ref, "next pointer of directory %d", t->nifds - 1);
            uint64_t o = next;
            next = 0;
            st = read_ifd(c, o, p, -1, &next, ref);
        }
    }
    fv__free(list);
    return st;
}

fv_status
fv__tiff_open(const char *path, fv__tiff **out)
{
    if (!out)
        return fv_error_set(FV_EINVAL, "tiff", "out is NULL");
    *out = NULL;
    if (!path)
        return fv_error_set(FV_EINVAL, "tiff", "path is NULL");
    fv_status st = FV_OK;
    pctx c = { 0 };
    fv__tiff *t = fv__calloc(1, sizeof *t);
    if (!t)
        return fv_error_set(FV_ENOMEM, "tiff", "out of memory");
    t->fd = -1;
    t->path = fv__strdup(path);
    if (!t->path) {
        st = fv_error_set(FV_ENOMEM, "tiff", "out of memory");
        goto done;
    }
    c.t = t;

    do
        t->fd = open(path, O_RDONLY | O_CLOEXEC);
    while (t->fd < 0 && errno == EINTR);
    if (t->fd < 0) {
        char eb[128];
        int e = errno;
        st = fv__tiff_err(t, FV_EIO, "cannot open: %s", fv__tiff_errno_text(e, eb, sizeof eb));
        goto done;
    }
    struct stat sb;
    if (fstat(t->fd, &sb) != 0) {
        char eb[128];
        int e = errno;
        st = fv__tiff_err(t, FV_EIO, "cannot stat: %s", fv__tiff_errno_text(e, eb, sizeof eb));
        goto done;
    }
    if (!S_ISREG(sb.st_mode)) {
        st = fv__tiff_err(t, FV_EIO, "not a regular file");
        goto done;
    }
    t->file_size = (uint64_t)sb.st_size;
    c.budget = t->file_size > (FV__TIFF_BUDGET_MAX - FV__TIFF_BUDGET_SLACK) / 4
        ? FV__TIFF_BUDGET_MAX
        : t->file_size * 4 + FV__TIFF_BUDGET_SLACK;

    /* header */
    uint8_t h[16];
    if (t->file_size < 8) {
        st = fv__tiff_err(t, FV_EFORMAT, "not a TIFF file: %llu bytes is too short for a TIFF header",
                          (unsigned long long)t->file_size);
        goto done;
    }
    if ((st = fv__tiff_pread(t, 0, h, 8)))
        goto done;
    if (h[0] == 'I' && h[1] == 'I')
        t->big_endian = 0;
    else if (h[0] == 'M' && h[1] == 'M')
        t->big_endian = 1;
    else {
        st = fv__tiff_err(t, FV_EFORMAT, "not a TIFF file (bad magic bytes %02x %02x)", h[0], h[1]);
        goto done;
    }
    unsigned version = (unsigned)fv__tiff_get_uint(h + 2, 2, t->big_endian);
    uint64_t first;
    if (version == 42) {
        first = fv__tiff_get_uint(h + 4, 4, t->big_endian);
    } else if (version == 43) {
        t->bigtiff = 1;
        if (t->file_size < 16) {
            st = fv__tiff_err(t, FV_EFORMAT, "not a TIFF file: %llu bytes is too short for a BigTIFF header",
                              (unsigned long long)t->file_size);
            goto done;
        }
        if ((st = fv__tiff_pread(t, 0, h, 16)))
            goto done;
        if (fv__tiff_get_uint(h + 4, 2, t->big_endian) != 8 || fv__tiff_get_uint(h + 6, 2, t->big_endian) != 0) {
            st = fv__tiff_err(t, FV_EFORMAT, "bad BigTIFF header (offset size %u, expected 8)",
                              (unsigned)fv__tiff_get_uint(h + 4, 2, t->big_endian));
            goto done;
        }
        first = fv__tiff_get_uint(h + 8, 8, t->big_endian);
    } else {
        st = fv__tiff_err(t, FV_EFORMAT, "not a TIFF file (version %u, expected 42 or 43)", version);
        goto done;
    }
    if (first == 0) {
        st = fv__tiff_err(t, FV_EFORMAT, "the file has no directories (first directory offset is 0)");
        goto done;
    }

    /* the main chain */
    uint64_t off = first;
    char ref[96];
    snprintf(ref, sizeof ref, "from the header");
    for (int ci = 0; off; ci++) {
        int k = find_ifd(t, off);
        if (k >= 0) {
            st = fv__tiff_derr(t, t->nifds - 1, FV_EFORMAT,
                               "next directory offset %llu points back at directory %d: a loop",
                               (unsigned long long)off, k);
            goto done;
        }
        uint64_t next = 0;
        if ((st = read_ifd(&c, off, -1, ci, &next, ref)))
            goto done;
        snprintf(ref, sizeof ref, "next pointer of directory %d", t->nifds - 1);
        off = next;
    }
    /* SubIFDs, breadth first: main chain, then its SubIFDs, then theirs */
    for (int i = 0; i < t->nifds; i++)
        if ((st = read_subifds(&c, i)))
            goto done;
done:
    if (st) {
        fv__tiff_close(t);
        return st;
    }
    *out = t;
    return FV_OK;
}

static void
ifd_free(fv__tiff_ifd *d)
{
    fv__free(d->chunk_offsets);
    fv__free(d->chunk_bytes);
    fv__free(d->jpeg_tables);
    fv__free(d->description);
    fv__free(d->software);
    fv__free(d->make);
    fv__free(d->model);
    fv__free(d->datetime);
    fv__free(d->artist);
    fv__free(d->copyright);
    fv__free(d->host_computer);
    fv__free(d->document_name);
    fv__free(d->tags);
}

void
fv__tiff_close(fv__tiff *t)
{
    if (!t)
        return;
    for (int i = 0; i < t->nifds; i++)
        ifd_free(&t->ifds[i]);
    fv__free(t->ifds);
    if (t->fd >= 0)
        close(t->fd);
    fv__free(t->path);
    fv__free(t);
}
