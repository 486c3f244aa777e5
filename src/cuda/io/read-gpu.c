/* The GPU slide reader: read_region / read_regions into device memory.
 *
 * A request (n regions of w x h pixels of one directory) is cut into passes that
 * fit a bounded device scratch buffer. For each pass:
 *   1. plan: the pieces (regions, or bands of tile rows of a large region), the
 *      distinct chunks they touch (each read and decoded once per pass) and a
 *      slot for each chunk: its entry in the device tile cache (gpu-cache.h) when
 *      it was decoded before (nothing to read or decode), else a new cache entry,
 *      or a place in the scratch buffer when the cache is off or full;
 *   2. read (host threads, pread): JPEG chunks' compressed bytes into pinned
 *      staging, the TIFF JPEGTables spliced in front; every other chunk, and any
 *      JPEG the GPU decoder cannot take (progressive, 12-bit, odd sampling, wrong
 *      size), decoded on the CPU through the tile cache and copied to its slot;
 *   3. decode: the JPEG chunks in one nvJPEG batch per output mode, straight into
 *      their slots (YCbCr -> interleaved RGB; RGB-coded and gray streams planar);
 *   4. assemble: one kernel writes every output pixel (crop, stitch, format
 *      conversion, background) from the slots;
 *   5. after the pass's stream finished: the new cache entries are published.
 * All device work runs on the reader's own non-blocking stream, ordered after the
 * caller's stream (the context's, else the legacy default stream) by an event;
 * the call waits for its stream only (never the whole device) before it returns,
 * so the output is ready for any stream.
 *
 * Readers (stream, events, nvJPEG decoder, pinned staging, device scratch) are
 * kept in a per-process pool and reused: concurrent calls (the batch loader's
 * workers) each take their own, so reads and decodes of different batches
 * overlap. A GPU decode failure (a corrupt tile) falls back to the CPU decoder for
 * that pass's JPEG chunks, which names the bad chunk; the read then fails like a
 * CPU read (sticky error, zero-filled output).
 *
 * The readers' pool is in read-gpu-reader.c. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include "internal.h"
#include "alloc.h"
#include "codec/codec.h"
#include "slide/slide-internal.h"
#include "cuda/cuda-kernels.h"
#include "cuda/io/gpu-cache.h"
#include "cuda/io/gpu-jpeg.h"
#include "cuda/io/read-gpu.h"

#include "cuda/io/read-gpu-internal.h"

#define FV__PASS_SCRATCH ((size_t)256 << 20) /* decoded slots per pass (at least one chunk) */
#define FV__PASS_MAX_CHUNKS 2048
#define FV__ALIGN(x) (((x) + 255) & ~(size_t)255)

/* ---- statistics ------------------------------------------------------------------ */

static pthread_mutex_t g_stats_mu = PTHREAD_MUTEX_INITIALIZER;
static fv__gpu_read_stats g_stats;

void
fv__slide_gpu_stats(fv__gpu_read_stats *out, int reset)
{
    pthread_mutex_lock(&g_stats_mu);
    *out = g_stats;
    if (reset)
        memset(&g_stats, 0, sizeof g_stats);
    pthread_mutex_unlock(&g_stats_mu);
}

static double
fv__now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- one pass ------------------------------------------------------------------------- */

enum {
    FV__CHUNK_MISSING = 0,
    FV__CHUNK_GPU = 1,
    FV__CHUNK_CPU = 2,
    FV__CHUNK_CACHED = 3
};

typedef struct fv__pass_chunk {
    uint64_t chunk;
    int kind;                  /* FV__CHUNK_* (GPU may turn CPU after the probe) */
    int mode;                  /* fv__gpujpeg_mode for GPU chunks */
    size_t staged, staged_len; /* GPU: offset and length of the spliced stream in pinned */
    fv__tile *tile;            /* CPU: the decoded tile (host) */
    fv__gpucache_entry *hit;   /* CACHED: the device tile cache's entry (referenced) */
    fv__gpucache_entry *fresh; /* GPU / CPU: the cache entry decoded into, or NULL */
    uint8_t *dst;              /* the slot's device pixels */
} fv__pass_chunk;

typedef struct fv__pass {
    fv_slide *s;
    int ifd;
    const fv__tiff_ifd *d;
    int nocache;
    int jpeg_ok; /* nvJPEG is there for this pass */
    fv__pass_chunk *ch;
    int64_t nch;
    uint8_t *pinned;
    fv__task_error err; /* the first failure; its mutex also guards io_s */
    double io_s;
} fv__pass;


/* Decode chunk c on the CPU (through the cache unless nocache). */
static fv_status
fv__pass_cpu_decode(fv__pass *p, fv__pass_chunk *c)
{
    uint32_t got[4];
    fv__tile *t = NULL;
    fv_status st =
        fv__get_chunk(p->s, p->ifd, c->chunk, p->nocache ? FV__CHUNK_NOCACHE : FV__CHUNK_CACHE, NULL, &t, got);
    if (st)
        return st;
    c->kind = t ? FV__CHUNK_CPU : FV__CHUNK_MISSING;
    c->tile = t;
    return FV_OK;
}

/* Read chunk c's compressed stream into pinned staging (tables spliced in) and
 * decide whether the GPU decoder takes it. */
static fv_status
fv__pass_stage(fv__pass *p, fv__pass_chunk *c)
{
    const fv__tiff_ifd *d = p->d;
    uint64_t off = d->chunk_offsets[c->chunk], len = d->chunk_bytes[c->chunk];
    size_t tl = d->jpeg_tables ? d->jpeg_tables_len : 0;
    uint8_t *dst = p->pinned + c->staged;
    fv_status st;
    /* tables without EOI, then the tile without SOI: read the tile so that its SOI
     * lands on the last two table bytes, then write the tables over them */
    size_t lead = tl >= 4 ? tl - 4 : 0;
    if (tl >= 4 &&
        !(d->jpeg_tables[0] == 0xFF && d->jpeg_tables[1] == 0xD8 && d->jpeg_tables[tl - 2] == 0xFF &&
          d->jpeg_tables[tl - 1] == 0xD9))
        lead = 0, tl = 0; /* malformed tables: the CPU decoder gives the verdict */
    if ((st = fv__tiff_pread(p->s->tiff, off, dst + lead, (size_t)len)))
        return st;
    if (tl >= 4) {
        if (!(dst[lead] == 0xFF && dst[lead + 1] == 0xD8))
            return fv__pass_cpu_decode(p, c);
        memcpy(dst, d->jpeg_tables, tl - 2);
    }
    c->staged_len = lead + (size_t)len;
    fv__jpeg_probe_info info;
    fv__chunk_geom g;
    fv__chunk_geometry(d, c->chunk, &g);
    if (fv__jpeg_probe(dst, c->staged_len, &info) != FV_OK || !info.gpu_ok || info.width != (int)g.w ||
        info.height != (int)g.h)
        return fv__pass_cpu_decode(p, c);
    int comps = fv__decoded_samples(d);
    if (info.components != comps || (comps != 1 && comps != 3))
        return fv__pass_cpu_decode(p, c);
    int planar;
    if (comps == 1)
        planar = 1;
    else if (d->photometric == FV_TIFF_PHOTOMETRIC_YCBCR)
        planar = 0;
    else if (info.jfif)
        planar = 0; /* libjpeg's rule: JFIF means YCbCr */
    else if (info.adobe_transform >= 0)
        planar = info.adobe_transform == 0;
    else
        planar = 1; /* photometric RGB without markers: RGB components (Aperio) */
    if (planar)
        for (int k = 1; k < comps; k++)
            if (info.hsamp[k] != info.hsamp[0] || info.vsamp[k] != info.vsamp[0])
                return fv__pass_cpu_decode(p, c);
    c->mode = planar ? FV__GPUJPEG_PLANAR : FV__GPUJPEG_RGBI;
    return FV_OK;
}

static void
fv__pass_task(void *arg, int64_t begin, int64_t end)
{
    fv__pass *p = arg;
    double t0 = fv__now();
    for (int64_t i = begin; i < end; i++) {
        if (fv__task_failed(&p->err))
            break;
        fv__pass_chunk *c = &p->ch[i];
        fv_status st = FV_OK;
        if (c->kind == FV__CHUNK_GPU)
            st = fv__pass_stage(p, c);
        else if (c->kind == FV__CHUNK_CPU)
            st = fv__pass_cpu_decode(p, c);
        if (st) {
            fv__task_fail(&p->err, st);
            break;
        }
    }
    double dt = fv__now() - t0;
    pthread_mutex_lock(&p->err.mu);
    p->io_s += dt;
    pthread_mutex_unlock(&p->err.mu);
}

/* ---- planning ------------------------------------------------------------------------- */

typedef struct fv__plan {
    fv__gpu_piece *pieces;
    int64_t npieces, cap_pieces;
    int32_t *cells;
    int64_t ncells, cap_cells;
} fv__plan;

static int
fv__grow(void **p, int64_t *cap, int64_t need, size_t elem)
{
    if (need <= *cap)
        return 1;
    int64_t ncap = *cap ? *cap * 2 : 64;
    while (ncap < need)
        ncap *= 2;
    void *np = fv__realloc(*p, (size_t)ncap * elem);
    if (!np)
        return 0;
    *p = np;
    *cap = ncap;
    return 1;
}

/* Open-addressing map chunk -> slot for one pass. */
typedef struct fv__chunk_map {
    uint64_t *keys; /* chunk + 1 (0 = empty) */
    int32_t *vals;
    int64_t cap; /* power of two */
} fv__chunk_map;

static int32_t
fv__map_get_or_add(fv__chunk_map *m, uint64_t chunk, int32_t next)
{
    uint64_t h = (chunk + 1) * 0x9e3779b97f4a7c15ull;
    for (int64_t i = (int64_t)(h >> 20) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        if (m->keys[i] == chunk + 1)
            return m->vals[i];
        if (!m->keys[i]) {
            m->keys[i] = chunk + 1;
            m->vals[i] = next;
            return -1 - next; /* added */
        }
    }
}

fv_status
fv__slide_read_gpu(fv_slide *s, fv_context *ctx, int ifd, int64_t clip_w, int64_t clip_h, const int64_t *lxy, int64_t n,
                   int64_t w, int64_t h, fv_pixel_format format, int num_workers, int nocache, fv_array *out)
{
    fv_status st;
    int prev = -1;
    int dev = out->device.id;
    fv__gpu_reader *r = NULL;
    fv_context *lctx = NULL;
    fv__plan plan = { 0 };
    fv__pass_chunk *chunks = NULL;
    fv__chunk_map map = { 0 };
    uint8_t *layouts = NULL;
    int pass_inited = 0;
    fv__pass p;
    memset(&p, 0, sizeof p);
    const fv__tiff_ifd *d = &s->tiff->ifds[ifd];
    const int src_c = fv__decoded_samples(d), src_isz = d->bits / 8;
    const int out_c = (int)out->shape[out->ndim - 1], out_isz = (int)fv_dtype_size(out->dtype);
    const size_t out_bytes = (size_t)fv_array_nbytes(out);
    const int tiled = d->tile_width != 0;
    const int64_t cw = tiled ? d->tile_width : (int64_t)d->width;
    const int64_t chh = tiled ? d->tile_height : d->rows_per_strip;
    const uint64_t across = tiled ? (d->width + d->tile_width - 1) / d->tile_width : 1;
    const int64_t W = clip_w < (int64_t)d->width ? clip_w : (int64_t)d->width;
    const int64_t H = clip_h < (int64_t)d->height ? clip_h : (int64_t)d->height;
    const size_t slot_bytes = FV__ALIGN((size_t)cw * (size_t)chh * (size_t)src_c * (size_t)src_isz);
    int64_t max_chunks = (int64_t)(FV__PASS_SCRATCH / slot_bytes);
    if (max_chunks < 1)
        max_chunks = 1;
    if (max_chunks > FV__PASS_MAX_CHUNKS)
        max_chunks = FV__PASS_MAX_CHUNKS;
    if (src_c < 1 || src_c > 4 || (src_isz != 1 && src_isz != 2))
        return fv_error_set(FV_EUNSUPPORTED, "read_region", "%d samples of %d bits on the GPU", src_c, d->bits);

    if ((st = fv__cuda_check_device(dev)))
        return st;
    if ((st = fv__cuda_enter(dev, &prev)))
        return st;
    if ((st = fv__reader_get(dev, &r)))
        goto done;
    { /* order after the caller's stream (the context's, else the legacy default
         * stream): the output was allocated there, stream-ordered */
        cudaStream_t cs = (cudaStream_t)fv__cuda_stream_for(fv__ctx(ctx), dev);
        cudaError_t e;
        if ((e = cudaEventRecord(r->ev_in, cs)) != cudaSuccess ||
            (e = cudaStreamWaitEvent(r->stream, r->ev_in, 0)) != cudaSuccess) {
            st = fv__cuda_error("read_region: stream ordering", e);
            goto done;
        }
    }
    if ((st = fv__slide_failed(s)))
        goto done;
    if ((st = fv__slide_workers(&ctx, num_workers, &lctx)))
        goto done;

    if (h > INT32_MAX || w > ((int64_t)1 << 40) || (uint64_t)h * (uint64_t)w > ((uint64_t)1 << 40))
        goto oom;
    /* pieces: each region, cut into bands of tile rows when it touches more chunks
     * than a pass holds */
    for (int64_t i = 0; i < n; i++) {
        int64_t lx = lxy[2 * i], ly = lxy[2 * i + 1];
        int64_t ix0 = lx > 0 ? lx : 0, iy0 = ly > 0 ? ly : 0;
        int64_t ix1 = lx + w < W ? lx + w : W, iy1 = ly + h < H ? ly + h : H;
        int64_t region_off = i * h * w * out_c * out_isz;
        if (ix0 >= ix1 || iy0 >= iy1) { /* all background */
            if (!fv__grow((void **)&plan.pieces, &plan.cap_pieces, plan.npieces + 1, sizeof *plan.pieces))
                goto oom;
            plan.pieces[plan.npieces++] = (fv__gpu_piece){ region_off, lx, ly, 0, (int32_t)h, 0, 0, 0, 0, 0 };
            continue;
        }
        int64_t tx0 = ix0 / cw, tx1 = (ix1 - 1) / cw, ty0 = iy0 / chh, ty1 = (iy1 - 1) / chh;
        int64_t ntx = tx1 - tx0 + 1;
        int64_t band = max_chunks / ntx; /* tile rows per band */
        if (band < 1)
            band = 1; /* a row wider than a pass: one row per pass (the scratch grows) */
        for (int64_t ta = ty0; ta <= ty1; ta += band) {
            int64_t tb = ta + band - 1 < ty1 ? ta + band - 1 : ty1;
            int64_t y0 = ta == ty0 ? 0 : ta * chh - ly, y1 = tb == ty1 ? h : (tb + 1) * chh - ly;
            if (!fv__grow((void **)&plan.pieces, &plan.cap_pieces, plan.npieces + 1, sizeof *plan.pieces))
                goto oom;
            plan.pieces[plan.npieces++] = (fv__gpu_piece){ region_off + y0 * w * out_c * out_isz,
                                                           lx,
                                                           ly + y0,
                                                           0,
                                                           (int32_t)(y1 - y0),
                                                           (int32_t)tx0,
                                                           (int32_t)ta,
                                                           (int32_t)ntx,
                                                           (int32_t)(tb - ta + 1),
                                                           0 };
        }
    }
    /* a pass holds at most max_chunks chunks, or one piece that is wider */
    int64_t cap_slots = max_chunks;
    for (int64_t q = 0; q < plan.npieces; q++)
        if ((int64_t)plan.pieces[q].ntx * plan.pieces[q].nty > cap_slots)
            cap_slots = (int64_t)plan.pieces[q].ntx * plan.pieces[q].nty;
    map.cap = 1;
    while (map.cap < 2 * cap_slots + 2)
        map.cap *= 2;
    map.keys = fv__malloc((size_t)map.cap * sizeof *map.keys);
    map.vals = fv__malloc((size_t)map.cap * sizeof *map.vals);
    chunks = fv__malloc((size_t)cap_slots * sizeof *chunks);
    layouts = fv__malloc((size_t)cap_slots);
    if (!map.keys || !map.vals || !chunks || !layouts)
        goto oom;
    pthread_mutex_init(&p.err.mu, NULL);
    pass_inited = 1;
    int jpeg_ok = r->jpeg && d->compression == FV_TIFF_COMPRESSION_JPEG && src_isz == 1 && (src_c == 1 || src_c == 3);
    int usecache = !nocache && s->file_id != 0;

    for (int64_t pa = 0; pa < plan.npieces;) {
        /* gather pieces while their distinct chunks fit the pass */
        memset(map.keys, 0, (size_t)map.cap * sizeof *map.keys);
        int64_t nslots = 0, pb = pa;
        int pass_ok = 0;
        plan.ncells = 0;
        while (pb < plan.npieces) {
            fv__gpu_piece *pc = &plan.pieces[pb];
            int64_t need = (int64_t)pc->ntx * pc->nty;
            if (pb > pa && nslots + need > max_chunks)
                break;
            if (!fv__grow((void **)&plan.cells, &plan.cap_cells, plan.ncells + need, sizeof *plan.cells))
                goto oom_release;
            pc->cell_off = plan.ncells;
            for (int32_t ty = 0; ty < pc->nty; ty++)
                for (int32_t tx = 0; tx < pc->ntx; tx++) {
                    uint64_t chunk =
                        tiled ? (uint64_t)(pc->ty0 + ty) * across + (uint64_t)(pc->tx0 + tx) : (uint64_t)(pc->ty0 + ty);
                    int32_t slot = -1;
                    if (chunk < d->nchunks) {
                        slot = fv__map_get_or_add(&map, chunk, (int32_t)nslots);
                        if (slot < 0) { /* new */
                            slot = -1 - slot;
                            int missing = d->chunk_offsets[chunk] == 0 || d->chunk_bytes[chunk] == 0;
                            fv__gpucache_entry *hit =
                                missing || !usecache ? NULL : fv__gpucache_get(dev, s->file_id, (uint32_t)ifd, chunk);
                            chunks[nslots] = (fv__pass_chunk){
                                chunk,
                                missing ? FV__CHUNK_MISSING : hit ? FV__CHUNK_CACHED : jpeg_ok ? FV__CHUNK_GPU : FV__CHUNK_CPU,
                                0,
                                0,
                                0,
                                NULL,
                                hit,
                                NULL,
                                NULL
                            };
                            nslots++;
                        }
                    }
                    plan.cells[plan.ncells++] = slot;
                }
            pb++;
        }
        /* staging: compressed GPU streams */
        size_t staged = 0, tl = d->jpeg_tables ? d->jpeg_tables_len : 0;
        for (int64_t k = 0; k < nslots; k++)
            if (chunks[k].kind == FV__CHUNK_GPU) {
                uint64_t len = d->chunk_bytes[chunks[k].chunk];
                if (len > FV__MAX_CHUNK_BYTES + (1u << 20)) { /* the CPU path reports it */
                    chunks[k].kind = FV__CHUNK_CPU;
                    continue;
                }
                chunks[k].staged = staged;
                staged = FV__ALIGN(staged + tl + (size_t)len);
            }
        int64_t npieces = pb - pa;
        size_t plan_bytes = FV__ALIGN((size_t)npieces * sizeof(fv__gpu_piece)) +
            FV__ALIGN((size_t)(plan.ncells ? plan.ncells : 1) * sizeof(int32_t)) +
            FV__ALIGN((size_t)(nslots ? nslots : 1)) + FV__ALIGN((size_t)(nslots ? nslots : 1) * sizeof(uint8_t *));
        size_t slots_bytes = (size_t)nslots * slot_bytes;
        if ((st = fv__reader_reserve(r, staged + plan_bytes, slots_bytes + plan_bytes)))
            goto release;
        /* where each slot's pixels are: a cache entry (old or new), else scratch */
        for (int64_t k = 0; k < nslots; k++) {
            fv__pass_chunk *c = &chunks[k];
            if (c->kind == FV__CHUNK_CACHED) {
                c->dst = fv__gpucache_data(c->hit);
                continue;
            }
            if (usecache && c->kind != FV__CHUNK_MISSING)
                c->fresh = fv__gpucache_reserve(dev, s->file_id, (uint32_t)ifd, c->chunk, slot_bytes, r->stream);
            c->dst = c->fresh ? fv__gpucache_data(c->fresh) : r->scratch + (size_t)k * slot_bytes;
        }

        /* read (and CPU-decode) on the host threads */
        p.s = s, p.ifd = ifd, p.d = d, p.nocache = nocache, p.jpeg_ok = jpeg_ok;
        p.ch = chunks, p.nch = nslots, p.pinned = r->pinned;
        p.err.st = FV_OK, p.err.msg[0] = 0, p.io_s = 0;
        double t0 = fv__now();
        fv__parallel_for(ctx, nslots, 1, fv__pass_task, &p);
        double t_io = fv__now() - t0;
        if ((st = fv__slide_task_result(s, &p.err)))
            goto release;

        /* CPU-decoded chunks to their slots (pageable copies: the tiles may go) */
        int64_t ngpu = 0, ncpu = 0;
        int64_t nhit = 0;
        for (int64_t k = 0; k < nslots; k++) {
            fv__pass_chunk *c = &chunks[k];
            layouts[k] = c->kind == FV__CHUNK_MISSING ? FV__SLOT_MISSING : FV__SLOT_INTERLEAVED;
            if (c->kind == FV__CHUNK_CACHED) {
                layouts[k] = (uint8_t)fv__gpucache_layout(c->hit);
                nhit++;
            } else if (c->kind == FV__CHUNK_CPU && c->tile) {
                size_t nb = c->tile->nbytes < slot_bytes ? c->tile->nbytes : slot_bytes;
                cudaError_t e = cudaMemcpyAsync(c->dst, c->tile->data, nb, cudaMemcpyHostToDevice, r->stream);
                if (e != cudaSuccess) {
                    st = fv__cuda_error("read_region: cudaMemcpyAsync", e);
                    goto release;
                }
                ncpu++;
            } else if (c->kind == FV__CHUNK_GPU) {
                layouts[k] = c->mode == FV__GPUJPEG_PLANAR ? FV__SLOT_PLANAR : FV__SLOT_INTERLEAVED;
                ngpu++;
            }
        }
        /* the GPU decode, one batch per output mode */
        double dec_ms = 0, asm_ms = 0;
        if (ngpu) {
            fv__gpujpeg_item *items = fv__malloc((size_t)ngpu * sizeof *items);
            if (!items)
                goto oom_release;
            (void)cudaEventRecord(r->ev_dec0, r->stream);
            fv_status dst_ = FV_OK;
            for (int mode = 0; mode < 2 && !dst_; mode++) {
                int m = 0;
                for (int64_t k = 0; k < nslots; k++) {
                    fv__pass_chunk *c = &chunks[k];
                    if (c->kind != FV__CHUNK_GPU || c->mode != mode)
                        continue;
                    fv__gpujpeg_item *it = &items[m++];
                    memset(it, 0, sizeof *it);
                    it->data = r->pinned + c->staged;
                    it->len = c->staged_len;
                    uint8_t *slot = c->dst;
                    if (mode == FV__GPUJPEG_RGBI) {
                        it->dst[0] = slot;
                        it->pitch[0] = (size_t)cw * 3;
                    } else {
                        for (int q = 0; q < src_c; q++) {
                            it->dst[q] = slot + (size_t)q * (size_t)cw * (size_t)chh;
                            it->pitch[q] = (size_t)cw;
                        }
                    }
                }
                if (m)
                    dst_ = fv__gpujpeg_decode(r->jpeg, items, m, (fv__gpujpeg_mode)mode, r->stream);
            }
            fv__free(items);
            (void)cudaEventRecord(r->ev_dec1, r->stream);
            if (dst_) {
                /* the CPU decoder decides: it names a corrupt chunk, or decodes what
                 * nvJPEG refused */
                cudaError_t e = cudaStreamSynchronize(r->stream);
                if (e != cudaSuccess) {
                    st = fv__cuda_error("read_region: cudaStreamSynchronize", e);
                    goto release;
                }
                for (int64_t k = 0; k < nslots; k++) {
                    fv__pass_chunk *c = &chunks[k];
                    if (c->kind != FV__CHUNK_GPU)
                        continue;
                    if ((st = fv__pass_cpu_decode(&p, c))) {
                        char msg[700];
                        snprintf(msg, sizeof msg, "%s", fv_error_message());
                        st = fv_error_set(st, "read_region", "%s", msg);
                        fv__slide_set_sticky(s, st, msg);
                        goto release;
                    }
                    layouts[k] = c->tile ? FV__SLOT_INTERLEAVED : FV__SLOT_MISSING;
                    if (c->tile) {
                        size_t nb = c->tile->nbytes < slot_bytes ? c->tile->nbytes : slot_bytes;
                        if ((e = cudaMemcpyAsync(c->dst, c->tile->data, nb, cudaMemcpyHostToDevice, r->stream)) !=
                            cudaSuccess) {
                            st = fv__cuda_error("read_region: cudaMemcpyAsync", e);
                            goto release;
                        }
                    }
                    ngpu--, ncpu++;
                }
            }
        }
        /* the plan to the device, then the assembly */
        {
            uint8_t *hp = r->pinned + staged, *dp = r->scratch + slots_bytes;
            size_t o_cells = FV__ALIGN((size_t)npieces * sizeof(fv__gpu_piece));
            size_t o_lay = o_cells + FV__ALIGN((size_t)(plan.ncells ? plan.ncells : 1) * sizeof(int32_t));
            size_t o_ptr = o_lay + FV__ALIGN((size_t)(nslots ? nslots : 1));
            memcpy(hp, plan.pieces + pa, (size_t)npieces * sizeof(fv__gpu_piece));
            memcpy(hp + o_cells, plan.cells, (size_t)plan.ncells * sizeof(int32_t));
            memcpy(hp + o_lay, layouts, (size_t)nslots);
            for (int64_t k = 0; k < nslots; k++)
                memcpy(hp + o_ptr + (size_t)k * sizeof(uint8_t *), &chunks[k].dst, sizeof(uint8_t *));
            int32_t max_rows = 0;
            for (int64_t q = pa; q < pb; q++)
                if (plan.pieces[q].rows > max_rows)
                    max_rows = plan.pieces[q].rows;
            cudaError_t e = cudaMemcpyAsync(dp, hp, plan_bytes, cudaMemcpyHostToDevice, r->stream);
            if (e != cudaSuccess) {
                st = fv__cuda_error("read_region: cudaMemcpyAsync", e);
                goto release;
            }
            fv__gpu_assemble_args a = { .out = (uint8_t *)out->data,
                                        .slots = (const uint8_t *const *)(dp + o_ptr),
                                        .pieces = (const fv__gpu_piece *)dp,
                                        .cells = (const int32_t *)(dp + o_cells),
                                        .slot_layout = dp + o_lay,
                                        .npieces = (int)npieces,
                                        .max_rows = max_rows,
                                        .w = w,
                                        .out_c = out_c,
                                        .out_isz = out_isz,
                                        .format = (int)format,
                                        .src_c = src_c,
                                        .src_isz = src_isz,
                                        .cw = cw,
                                        .ch = chh,
                                        .clip_w = W,
                                        .clip_h = H };
            (void)cudaEventRecord(r->ev_asm0, r->stream);
            if ((st = fv__gpu_assemble(&a, r->stream)))
                goto release;
            (void)cudaEventRecord(r->ev_asm1, r->stream);
            /* the pinned staging and the tiles are reused: wait for this pass */
            if ((e = cudaStreamSynchronize(r->stream)) != cudaSuccess) {
                st = fv__cuda_error("read_region: cudaStreamSynchronize", e);
                goto release;
            }
            pass_ok = 1;
            float ms = 0;
            if (ngpu && cudaEventElapsedTime(&ms, r->ev_dec0, r->ev_dec1) == cudaSuccess)
                dec_ms = ms;
            if (cudaEventElapsedTime(&ms, r->ev_asm0, r->ev_asm1) == cudaSuccess)
                asm_ms = ms;
            (void)cudaGetLastError();
        }
        pthread_mutex_lock(&g_stats_mu);
        g_stats.tiles_gpu += (uint64_t)ngpu;
        g_stats.tiles_cpu += (uint64_t)ncpu;
        g_stats.tiles_cached += (uint64_t)nhit;
        for (int64_t k = 0; k < nslots; k++)
            if (chunks[k].kind == FV__CHUNK_GPU)
                g_stats.bytes_read += chunks[k].staged_len;
        g_stats.io_s += t_io;
        g_stats.decode_s += dec_ms * 1e-3;
        g_stats.assemble_s += asm_ms * 1e-3;
        pthread_mutex_unlock(&g_stats_mu);
    release:
        /* the stream has finished with the pass (or failed: the entries go) */
        for (int64_t k = 0; k < nslots; k++) {
            fv__pass_chunk *c = &chunks[k];
            fv__tile_unref(c->tile);
            c->tile = NULL;
            if (c->fresh && pass_ok && c->kind != FV__CHUNK_MISSING)
                fv__gpucache_publish(c->fresh, layouts[k], r->stream);
            else if (c->fresh)
                fv__gpucache_abandon(c->fresh, r->stream);
            fv__gpucache_put(c->hit);
            c->fresh = c->hit = NULL;
        }
        if (st)
            goto done;
        pa = pb;
        continue;
    oom_release:
        st = fv_error_set(FV_ENOMEM, "read_region", "out of host memory");
        goto release;
    }
    pthread_mutex_lock(&g_stats_mu);
    g_stats.regions += (uint64_t)n;
    pthread_mutex_unlock(&g_stats_mu);
    goto done;
oom:
    st = fv_error_set(FV_ENOMEM, "read_region", "out of host memory (or a region too large) for the GPU read");
done:
    if (st && r) { /* no partial pixels */
        (void)cudaMemsetAsync(out->data, 0, out_bytes, r->stream);
        (void)cudaStreamSynchronize(r->stream);
        (void)cudaGetLastError();
    }
    if (r)
        fv__reader_put(r);
    if (pass_inited)
        pthread_mutex_destroy(&p.err.mu);
    fv__free(plan.pieces);
    fv__free(plan.cells);
    fv__free(chunks);
    fv__free(layouts);
    fv__free(map.keys);
    fv__free(map.vals);
    fv_context_free(lctx);
    fv__cuda_leave(prev);
    return st;
}
