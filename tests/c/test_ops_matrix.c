/* The op matrix: every filter / morphology op that has kernel variants
 * (src/core/plan.h), run over dtypes x modes x shapes x layouts x variants and
 * compared with the CPU backend's result on contiguous host arrays.
 *
 * Each row of ROWS is one op with fixed parameters and the variant tables its
 * calls reach. For every case (a dtype pair, a mode, a shape: 1-d to 3-d, odd
 * and thin extents, plus the larger shapes the tiled variants need; input and
 * output contiguous, strided with the first axis reversed, or in Fortran order)
 * the reference is the op on host arrays with the planner's own choices; then
 * every variant of every table of the row that this build registers is forced
 * (tv_force) and the op runs on its backend (cpu.* tables on host arrays, cuda.*
 * on device arrays, op-level tables on both) in the case's layouts:
 *  - on the CPU every bit must match (NaN: any payload);
 *  - on the GPU order statistics, morphology and distances every bit (+-0
 *    equal); sums (correlations, uniform, Gaussian, Laplace, gradient norms)
 *    within float rounding: float32 outputs 1e-5, float64 1e-12 of the
 *    magnitude max|x| * sum|w| (the GPU may sum float32 data in float and
 *    uniform filters as window sums), integer outputs one apart at most.
 * Every variant of every table must run (the planner reports the one it took,
 * fv__plan_last) in at least one case, so a table whose variant no row reaches
 * fails here (cpu.lines "avx2" only where the CPU has AVX2, "fused" of
 * "separable" only on the GPU).
 *
 * Without a usable GPU the CPU part runs; the CUDA build then exits 77 (ctest:
 * skipped) when it passed. "--rows NAME" runs only the rows whose name starts
 * with NAME; "--full" every mode and layout on the larger shapes too; "--refs"
 * also the CPU references of rows with no table this build can run.
 * FOVEA_TEST_CUDA_ONLY=1 (compute-sanitizer runs): a fifth of the small cases, no
 * larger shapes, and no check that every variant ran. */
#define FV_T_SEED 0x6f70736d61747278ull
#include "harness.h"

#include "core/plan.h"

/* ---- rows ---------------------------------------------------------------------------- */

enum op {
    OP_CORR1D,
    OP_CONV1D,
    OP_UNIF1D,
    OP_MIN1D,
    OP_MAX1D,
    OP_CORR,
    OP_MINFP,
    OP_MAXFP,
    OP_RANK,
    OP_UNIFORM,
    OP_GAUSS,
    OP_MINBOX,
    OP_LAPLACE,
    OP_GRADNORM,
    OP_EROSION,
    OP_PROPAGATE,
    OP_EDT,
    OP_EDT_IND,
    OP_CDT,
    OP_LMAX,
    OP_RECON,
    OP_WATERSHED
};
enum kind {
    SUM,
    ORDER
};
enum data {
    D_FULL,
    D_LEVELS,
    D_SPARSE,
    D_SMOOTH
};

#define MAXT 6

typedef struct row {
    const char *name;
    enum op op;
    enum kind kind;
    const char *tables[MAXT];
    const char *pairs; /* "in>out in>out ...", dtype names ("f32", "u8", ...); "x" for out: in's */
    int modes;         /* bit mask of fv_mode; 0: reflect only (the op takes none) */
    int axis;          /* 1-d filters: -1 the last axis */
    int64_t size;      /* taps / window / box extent / rank (-1: median) */
    int64_t origin;
    const double *w; /* 1-d weights (size of them) */
    int fp;          /* n-d footprints: 0 the box, 1 corners off */
    enum data data;
    int64_t big[3][3]; /* larger shapes for the tiled and vector variants (0: none) */
    int bignd[3];
} row;

static const double W5SYM[] = { 0.1, 0.3, 0.2, 0.3, 0.1 };
static const double W4GEN[] = { 1.0, 2.0, -1.0, 0.5 };
static const double W3DY[] = { 0.25, 0.5, 0.25 };
static const double W5ANTI[] = { -1.0, -2.0, 0.0, 2.0, 1.0 };
static const double W7THIRD[] = { 1.0 / 3, 1.0 / 3, 1.0 / 3, 0.1, 0.2, 0.3, 0.4 };

#define F1D "cpu.lines", "cuda.filter1d", "cuda.filter1d.loads", "cuda.filter1d.acc", "cuda.filter1d.row_u8_chunk"
#define SEP "cpu.lines", "separable", "cuda.sep2", "cuda.sep2.loads", "cuda.filter1d"
#define ND "cpu.lines", "cuda.filternd"
#define ALLMODES 0x1f
#define PAIRS_SUM \
    "f64>x f32>x u8>x i8>x i16>x u16>x i32>x u8>f32 u16>f32 i8>i16 i16>f32 i32>f64 f64>f32 f32>u8 i64>f64 bool>x"
#define PAIRS_ORDER "f64>x f32>x u8>x i8>x u16>x i16>x i32>x u32>x i64>x u64>x bool>x"

static const row ROWS[] = {
    { "correlate1d.sym.last",
      OP_CORR1D,
      SUM,
      { F1D },
      PAIRS_SUM,
      ALLMODES,
      -1,
      5,
      0,
      W5SYM,
      0,
      D_FULL,
      { { 64, 1030 }, { 200, 512 }, { 6, 40, 300 } },
      { 2, 2, 3 } },
    { "correlate1d.general.axis0",
      OP_CORR1D,
      SUM,
      { F1D },
      PAIRS_SUM,
      ALLMODES,
      0,
      4,
      -1,
      W4GEN,
      0,
      D_FULL,
      { { 200, 512 } },
      { 2 } },
    { "correlate1d.anti.last",
      OP_CORR1D,
      SUM,
      { F1D },
      "f32>x u8>x i16>f32 f64>x",
      ALLMODES,
      -1,
      5,
      1,
      W5ANTI,
      0,
      D_FULL,
      { { 64, 1024 } },
      { 2 } },
    { "correlate1d.dyadic.axis0",
      OP_CORR1D,
      SUM,
      { F1D },
      "u8>x i8>x u16>x i16>x bool>x u8>i16 u8>i32 i16>u8",
      ALLMODES,
      0,
      3,
      0,
      W3DY,
      0,
      D_FULL,
      { { 64, 500 } },
      { 2 } },
    { "correlate1d.inexact.axis0",
      OP_CORR1D,
      SUM,
      { F1D },
      "u8>x u16>x i16>x u8>i32",
      ALLMODES,
      0,
      7,
      2,
      W7THIRD,
      0,
      D_FULL,
      { { 64, 500 } },
      { 2 } },
    { "convolve1d.general.last",
      OP_CONV1D,
      SUM,
      { F1D },
      "f64>x f32>x u8>x",
      ALLMODES,
      -1,
      4,
      1,
      W4GEN,
      0,
      D_FULL,
      { { 0 } },
      { 0 } },
    { "uniform_filter1d.6.axis0",
      OP_UNIF1D,
      SUM,
      { F1D },
      PAIRS_SUM,
      ALLMODES,
      0,
      6,
      0,
      NULL,
      0,
      D_FULL,
      { { 64, 500 } },
      { 2 } },
    { "uniform_filter1d.5.last",
      OP_UNIF1D,
      SUM,
      { F1D },
      PAIRS_SUM,
      ALLMODES,
      -1,
      5,
      -2,
      NULL,
      0,
      D_FULL,
      { { 64, 1030 } },
      { 2 } },
    { "minimum_filter1d.4.last",
      OP_MIN1D,
      ORDER,
      { F1D },
      PAIRS_ORDER,
      ALLMODES,
      -1,
      4,
      0,
      NULL,
      0,
      D_FULL,
      { { 64, 1030 } },
      { 2 } },
    { "maximum_filter1d.3.axis0",
      OP_MAX1D,
      ORDER,
      { F1D },
      PAIRS_ORDER,
      ALLMODES,
      0,
      3,
      1,
      NULL,
      0,
      D_FULL,
      { { 200, 512 }, { 5, 64, 260 } },
      { 2, 3 } },
    { "correlate.3",
      OP_CORR,
      SUM,
      { ND },
      PAIRS_SUM,
      ALLMODES,
      0,
      3,
      0,
      NULL,
      0,
      D_FULL,
      { { 130, 150 }, { 30, 40, 50 } },
      { 2, 3 } },
    { "correlate.5.corners",
      OP_CORR,
      SUM,
      { ND },
      "f32>x f64>x u8>f32 u16>x",
      ALLMODES,
      0,
      5,
      0,
      NULL,
      1,
      D_FULL,
      { { 70, 90 } },
      { 2 } },
    { "minimum_filter.fp.3",
      OP_MINFP,
      ORDER,
      { ND },
      PAIRS_ORDER,
      ALLMODES,
      0,
      3,
      0,
      NULL,
      1,
      D_FULL,
      { { 130, 150 } },
      { 2 } },
    { "maximum_filter.fp.5",
      OP_MAXFP,
      ORDER,
      { ND },
      "f32>x u8>x i16>x f64>x",
      ALLMODES,
      0,
      5,
      0,
      NULL,
      1,
      D_FULL,
      { { 130, 150 } },
      { 2 } },
    { "median_filter.3",
      OP_RANK,
      ORDER,
      { ND },
      PAIRS_ORDER,
      ALLMODES,
      0,
      3,
      -1,
      NULL,
      0,
      D_FULL,
      { { 130, 150 }, { 20, 24, 40 } },
      { 2, 3 } },
    { "rank_filter.3.corners",
      OP_RANK,
      ORDER,
      { ND },
      "f32>x u8>x u16>x",
      ALLMODES,
      0,
      3,
      1,
      NULL,
      1,
      D_FULL,
      { { 0 } },
      { 0 } },
    { "uniform_filter.5",
      OP_UNIFORM,
      SUM,
      { SEP },
      PAIRS_SUM,
      ALLMODES,
      0,
      5,
      0,
      NULL,
      0,
      D_FULL,
      { { 300, 257 }, { 300, 256 } },
      { 2, 2 } },
    { "uniform_filter.4",
      OP_UNIFORM,
      SUM,
      { SEP },
      "u8>x f32>x u16>f32",
      ALLMODES,
      0,
      4,
      -1,
      NULL,
      0,
      D_FULL,
      { { 0 } },
      { 0 } },
    { "gaussian_filter.1.5",
      OP_GAUSS,
      SUM,
      { SEP },
      PAIRS_SUM,
      ALLMODES,
      0,
      0,
      0,
      NULL,
      0,
      D_FULL,
      { { 300, 257 }, { 130, 1030 } },
      { 2, 2 } },
    { "gaussian_filter.order1",
      OP_GAUSS,
      SUM,
      { SEP },
      "f32>x f64>x u8>f32",
      ALLMODES,
      0,
      1,
      0,
      NULL,
      0,
      D_FULL,
      { { 0 } },
      { 0 } },
    { "minimum_filter.box.3",
      OP_MINBOX,
      ORDER,
      { SEP },
      PAIRS_ORDER,
      ALLMODES,
      0,
      3,
      0,
      NULL,
      0,
      D_FULL,
      { { 300, 257 } },
      { 2 } },
    { "laplace",
      OP_LAPLACE,
      SUM,
      { "cuda.laplace" },
      "f32>x f64>x u8>x i16>x u8>f32 f32>f64",
      ALLMODES,
      0,
      0,
      0,
      NULL,
      0,
      D_FULL,
      { { 100, 1030 } },
      { 2 } },
    { "gradient_norm",
      OP_GRADNORM,
      SUM,
      { "cuda.gradient_norm" },
      "f32>x f64>x",
      1,
      0,
      0,
      0,
      NULL,
      0,
      D_FULL,
      { { 100, 1030 } },
      { 2 } },
    { "binary_erosion.1",
      OP_EROSION,
      ORDER,
      { "binary_erosion", "cuda.binary_erosion" },
      "bool>x u8>bool i8>u8",
      1,
      0,
      3,
      0,
      NULL,
      1,
      D_FULL,
      { { 130, 150 } },
      { 2 } },
    { "binary_erosion.box.2",
      OP_EROSION,
      ORDER,
      { "binary_erosion", "cuda.binary_erosion" },
      "bool>x u8>x",
      1,
      0,
      3,
      2,
      NULL,
      0,
      D_FULL,
      { { 130, 150 } },
      { 2 } },
    { "binary_propagation",
      OP_PROPAGATE,
      ORDER,
      { "binary_erosion", "cuda.binary_flood", "cuda.binary_erosion" },
      "bool>x u8>bool",
      1,
      0,
      3,
      0,
      NULL,
      1,
      D_SPARSE,
      { { 130, 150 } },
      { 2 } },
    { "distance_transform_edt",
      OP_EDT,
      ORDER,
      { "cuda.distance_transform_edt" },
      "bool>f64 u8>f64",
      1,
      0,
      0,
      0,
      NULL,
      0,
      D_FULL,
      { { 90, 110 } },
      { 2 } },
    { "distance_transform_edt.indices",
      OP_EDT_IND,
      ORDER,
      { "cuda.distance_transform_edt" },
      "bool>i32 u8>i64",
      1,
      0,
      0,
      0,
      NULL,
      0,
      D_FULL,
      { { 40, 50 } },
      { 2 } },
    { "distance_transform_cdt.taxicab",
      OP_CDT,
      ORDER,
      { "cpu.distance_transform_cdt" },
      "bool>i32 u8>i32",
      1,
      0,
      1,
      0,
      NULL,
      0,
      D_SPARSE,
      { { 60, 70 } },
      { 2 } },
    { "distance_transform_cdt.chessboard",
      OP_CDT,
      ORDER,
      { "cpu.distance_transform_cdt" },
      "bool>i32",
      1,
      0,
      2,
      0,
      NULL,
      0,
      D_SPARSE,
      { { 20, 30, 25 } },
      { 3 } },
    { "reconstruction.dilation",
      OP_RECON,
      ORDER,
      { "cuda.reconstruction" },
      "f64>x f32>x u8>x i16>x i32>x",
      1,
      0,
      0,
      0,
      NULL,
      0,
      D_SMOOTH,
      { { 120, 130 } },
      { 2 } },
    { "reconstruction.erosion",
      OP_RECON,
      ORDER,
      { "cuda.reconstruction" },
      "f64>x u16>x",
      1,
      0,
      1,
      0,
      NULL,
      0,
      D_SMOOTH,
      { { 64, 70 } },
      { 2 } },
    { "watershed",
      OP_WATERSHED,
      ORDER,
      { "cuda.watershed" },
      "f64>i32 f32>i32",
      1,
      0,
      0,
      0,
      NULL,
      0,
      D_SMOOTH,
      { { 70, 75 } },
      { 2 } },
    { "local_maxima",
      OP_LMAX,
      ORDER,
      { "cpu.local_maxima" },
      "u8>x f64>u8 i16>bool",
      1,
      0,
      0,
      0,
      NULL,
      0,
      D_LEVELS,
      { { 300, 200 } },
      { 2 } },
};
#define NROWS ((int)(sizeof ROWS / sizeof ROWS[0]))

/* the small shapes every case runs on */
static const int64_t SMALL[][3] = { { 37 }, { 13, 37 }, { 1, 29 }, { 30, 1 }, { 2, 2 }, { 5, 7, 9 }, { 3, 1, 8 } };
static const int SMALLND[] = { 1, 2, 2, 2, 2, 3, 3 };
#define NSMALL ((int)(sizeof SMALLND / sizeof SMALLND[0]))

static fv_dtype
dtype_of(const char *s, size_t n)
{
    static const struct {
        const char *n;
        fv_dtype d;
    } t[] = { { "bool", FV_BOOL }, { "u8", FV_UINT8 },    { "i8", FV_INT8 },    { "u16", FV_UINT16 },
              { "i16", FV_INT16 }, { "u32", FV_UINT32 },  { "i32", FV_INT32 },  { "u64", FV_UINT64 },
              { "i64", FV_INT64 }, { "f32", FV_FLOAT32 }, { "f64", FV_FLOAT64 } };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (strlen(t[i].n) == n && memcmp(t[i].n, s, n) == 0)
            return t[i].d;
    fprintf(stderr, "unknown dtype %.*s\n", (int)n, s);
    exit(1);
}

/* the pairs of a row: returns their number */
static int
parse_pairs(const char *s, fv_dtype *in, fv_dtype *out, int max)
{
    int n = 0;
    while (*s && n < max) {
        const char *gt = strchr(s, '>'), *end = strchr(s, ' ');
        if (!end)
            end = s + strlen(s);
        in[n] = dtype_of(s, (size_t)(gt - s));
        out[n] = (end - gt - 1 == 1 && gt[1] == 'x') ? in[n] : dtype_of(gt + 1, (size_t)(end - gt - 1));
        n++;
        s = *end ? end + 1 : end;
    }
    return n;
}

/* ---- the ops ------------------------------------------------------------------------- */

typedef struct mcase {
    const row *r;
    fv_mode mode;
    double cval;
    int nd;
    int64_t shape[3];
} mcase;

/* the row's n-d footprint / weights for nd axes: K^nd, corners off with fp == 1
 * (weights: integers and halves, one zero); returns the element count */
static int64_t
footprint(const row *r, int nd, uint8_t *fp, double *w, int64_t *fshape)
{
    const int64_t k = r->size;
    int64_t n = 1;
    for (int d = 0; d < nd; d++) {
        fshape[d] = k;
        n *= k;
    }
    for (int64_t j = 0; j < n; j++) {
        int64_t q = j, edges = 0;
        for (int d = nd - 1; d >= 0; d--) {
            int64_t c = q % k;
            q /= k;
            edges += c == 0 || c == k - 1;
        }
        fp[j] = !(r->fp == 1 && nd > 1 && edges == nd);
        w[j] = fp[j] ? (double)((j * 7 + 3) % 9) / 2.0 - 1.5 : 0.0;
    }
    return n;
}

static fv_status
run_op(const mcase *c, const fv_array *in, fv_array *out)
{
    const row *r = c->r;
    const int nd = c->nd, axis = r->axis < 0 ? nd - 1 : (r->axis < nd ? r->axis : nd - 1);
    uint8_t fp[125];
    double w[125];
    int64_t fshape[3], origins[3] = { 0, 0, 0 }, sizes[3];
    fv_mode modes[3] = { c->mode, c->mode, c->mode };
    switch (r->op) {
    case OP_CORR1D:
        return fv_correlate1d(ctx, in, out, r->w, r->size, axis, c->mode, c->cval, r->origin);
    case OP_CONV1D:
        return fv_convolve1d(ctx, in, out, r->w, r->size, axis, c->mode, c->cval, r->origin);
    case OP_UNIF1D:
        return fv_uniform_filter1d(ctx, in, out, r->size, axis, c->mode, c->cval, r->origin);
    case OP_MIN1D:
        return fv_minimum_filter1d(ctx, in, out, r->size, axis, c->mode, c->cval, r->origin);
    case OP_MAX1D:
        return fv_maximum_filter1d(ctx, in, out, r->size, axis, c->mode, c->cval, r->origin);
    case OP_CORR:
        footprint(r, nd, fp, w, fshape);
        return fv_correlate(ctx, in, out, w, fshape, c->mode, c->cval, NULL);
    case OP_MINFP:
    case OP_MAXFP:
        footprint(r, nd, fp, w, fshape);
        return (r->op == OP_MINFP ? fv_minimum_filter : fv_maximum_filter)(ctx, in, out, fp, NULL, fshape, c->mode,
                                                                           c->cval, NULL);
    case OP_MINBOX:
        for (int d = 0; d < nd; d++)
            fshape[d] = r->size;
        return fv_minimum_filter(ctx, in, out, NULL, NULL, fshape, c->mode, c->cval, NULL);
    case OP_RANK: {
        int64_t n = footprint(r, nd, fp, w, fshape), sel = 0;
        for (int64_t j = 0; j < n; j++)
            sel += fp[j];
        return fv_rank_filter(ctx, in, out, fp, fshape, r->origin < 0 ? sel / 2 : sel - 1 - r->origin, c->mode, c->cval,
                              NULL);
    }
    case OP_UNIFORM:
        for (int d = 0; d < nd; d++) {
            sizes[d] = r->size;
            origins[d] = d == 0 ? r->origin : 0;
        }
        return fv_uniform_filter(ctx, in, out, sizes, modes, c->cval, origins);
    case OP_GAUSS: {
        double sigma[3] = { 1.5, 1.0, 0.8 };
        int order[3] = { (int)r->size, 0, 0 };
        return fv_gaussian_filter(ctx, in, out, sigma, order, modes, c->cval, 4.0, NULL);
    }
    case OP_LAPLACE: {
        int axes[3] = { 0, 1, 2 };
        return fv_laplace(ctx, in, out, axes, nd, modes, c->cval);
    }
    case OP_GRADNORM: {
        const fv_array *parts[2] = { in, in };
        return fv_gradient_norm(ctx, parts, 2, 2.0, out);
    }
    case OP_EROSION:
    case OP_PROPAGATE: {
        int64_t n = footprint(r, nd, fp, w, fshape);
        if (r->fp == 1) /* the cross: generate_binary_structure(nd, 1) */
            for (int64_t j = 0, q; j < n; j++) {
                int off = 0;
                q = j;
                for (int d = 0; d < nd; d++, q /= 3)
                    off += q % 3 != 1;
                fp[j] = off <= 1;
            }
        if (r->op == OP_EROSION)
            return fv_binary_erosion(ctx, in, out, fp, fshape, (int)r->origin ? (int)r->origin : 1, NULL, 0, NULL, 0);
        /* binary_propagation(in, mask=in's complement... ): dilation of the seeds until stable within the mask */
        fv_array *mask = NULL;
        fv_status st = fv_array_new(ctx, FV_BOOL, nd, c->shape, fv_array_device(in), &mask);
        if (!st) {
            fv_array *h = new_array(FV_BOOL, nd, c->shape, CPU);
            for (int64_t i = 0; i < fv_array_size(h); i++) /* a fixed maze: same on every run */
                ((uint8_t *)fv_array_data(h))[i] = (uint8_t)((i * 2654435761u >> 7) % 5 != 0);
            st = fv_copy(ctx, h, mask);
            fv_array_unref(h);
        }
        if (!st)
            st = fv_binary_erosion(ctx, in, out, fp, fshape, 0, mask, 0, NULL, 1);
        fv_array_unref(mask);
        return st;
    }
    case OP_EDT:
        return fv_distance_transform_edt(ctx, in, NULL, out, NULL);
    case OP_EDT_IND:
        return fv_distance_transform_edt(ctx, in, NULL, NULL, out);
    case OP_CDT: {
        int64_t n = 1;
        for (int d = 0; d < nd; d++) {
            fshape[d] = 3;
            n *= 3;
        }
        for (int64_t j = 0; j < n; j++) {
            int64_t q = j;
            int off = 0;
            for (int d = 0; d < nd; d++, q /= 3)
                off += q % 3 != 1;
            fp[j] = r->size == 2 || off <= 1;
        }
        return fv_distance_transform_cdt(ctx, in, fp, fshape, out, NULL);
    }
    case OP_LMAX:
        return fv_local_maxima(ctx, in, out, NULL, 0);
    case OP_RECON:
    case OP_WATERSHED: {
        /* the second array from the first on the host: the seed one below (dilation)
         * or above (erosion) the mask, or the markers (a few labelled pixels) */
        fv_array *h = to_host(in), *second = NULL;
        const fv_dtype dt = fv_array_dtype(in), sdt = r->op == OP_RECON ? dt : FV_INT32;
        fv_array *hs = new_array(sdt, nd, c->shape, CPU);
        fv_status st = FV_EINVAL;
        if (h && hs) {
            double lo = -INFINITY, hi = INFINITY;
            if (!is_float(dt)) { /* the dtype's range */
                const int bits = 8 * (int)fv_dtype_size(dt);
                lo = hx_is_signed(dt) ? -ldexp(1.0, bits - 1) : 0;
                hi = dt == FV_BOOL ? 1 : hx_is_signed(dt) ? ldexp(1.0, bits - 1) - 1 : ldexp(1.0, bits) - 1;
            }
            for (int64_t i = 0; i < fv_array_size(h); i++) {
                const double v = get_elem(fv_array_data(h), dt, i);
                const double sv = r->op == OP_WATERSHED ? ((i * 7919) % 97 == 0 ? (double)(1 + i % 13) : 0.0)
                                                        : fmin(fmax(r->size ? v + 1 : v - 1, lo), hi);
                set_elem(fv_array_data(hs), sdt, i, sv);
            }
            st = fv_array_new(ctx, sdt, nd, c->shape, fv_array_device(in), &second);
            if (!st)
                st = fv_copy(ctx, hs, second);
        }
        if (!st)
            st = r->op == OP_RECON
                ? fv_reconstruction(ctx, second, in, out, r->size ? FV_RECONSTRUCT_EROSION : FV_RECONSTRUCT_DILATION,
                                    NULL, NULL, NULL)
                : fv_watershed(ctx, in, second, NULL, out, 1, NULL, NULL, NULL, 0.0, 0);
        fv_array_unref(h);
        fv_array_unref(hs);
        fv_array_unref(second);
        return st;
    }
    }
    return FV_EINVAL;
}

/* the output's shape: the input's, or (nd, *shape) for the index outputs */
static int
out_shape(const mcase *c, int64_t *shape)
{
    if (c->r->op == OP_EDT_IND) {
        shape[0] = c->nd;
        memcpy(shape + 1, c->shape, (size_t)c->nd * sizeof(int64_t));
        return c->nd + 1;
    }
    memcpy(shape, c->shape, (size_t)c->nd * sizeof(int64_t));
    return c->nd;
}

/* max |x| * sum |w| (the sums' magnitude; 1 for the others) */
static double
magnitude(const mcase *c, const fv_array *h)
{
    const row *r = c->r;
    double mx = 0, sw = 1;
    for (int64_t i = 0; i < fv_array_size(h); i++) {
        double v = fabs(get_elem(fv_array_data(h), fv_array_dtype(h), i));
        if (isfinite(v) && v > mx)
            mx = v;
    }
    if (r->w) {
        sw = 0;
        for (int64_t k = 0; k < r->size; k++)
            sw += fabs(r->w[k]);
    } else if (r->op == OP_CORR) {
        uint8_t fp[125];
        double w[125];
        int64_t fs[3], n = footprint(r, c->nd, fp, w, fs);
        sw = 0;
        for (int64_t j = 0; j < n; j++)
            sw += fabs(w[j]);
    } else if (r->op == OP_LAPLACE) {
        sw = 4.0 * c->nd;
    } else if (r->op == OP_GRADNORM) {
        sw = 2.0;
    }
    return mx * sw;
}

/* ---- the matrix ---------------------------------------------------------------------- */

typedef struct reach {
    const char *table;
    int nvar;
    int ran[16];
} reach;

static reach reached[FV__PLAN_MAX];
static int nreached, have_gpu, full, refs, nchecks;
static const char *only;

static reach *
reach_of(const fv__variant_table *t)
{
    for (int i = 0; i < nreached; i++)
        if (reached[i].table == t->op)
            return &reached[i];
    reached[nreached].table = t->op;
    reached[nreached].nvar = t->count;
    return &reached[nreached++];
}

static fv_array *
host_input(const mcase *c, fv_dtype dt)
{
    fv_array *h = rand_host(dt, c->nd, c->shape, is_float(dt) && c->r->data != D_SMOOTH ? 40 : 0);
    for (int64_t i = 0; i < fv_array_size(h); i++) {
        if (c->r->data == D_SMOOTH && is_float(dt)) /* no ties, no specials */
            set_elem(fv_array_data(h), dt, i, uniform_in(-100.0, 100.0));
        if (c->r->data == D_LEVELS)
            set_elem(fv_array_data(h), dt, i, (double)irand(0, 4));
        else if (c->r->data == D_SPARSE)
            set_elem(fv_array_data(h), dt, i, irand(0, 9) != 0);
        else if (c->r->op == OP_EDT || c->r->op == OP_EDT_IND)
            set_elem(fv_array_data(h), dt, i, irand(0, 3) != 0);
    }
    return h;
}

/* one run of the case on dev with variant `name` of table t forced; compares
 * with ref */
/* the op on dev in the case's layouts, with variant vi of t forced (vi < 0: the
 * planner's own choice); its result on the host (NULL: failed); *ran: the variant
 * the planner took */
static fv_array *
run_on(const mcase *c, const fv_array *hin, fv_dtype odt, const fv__variant_table *t, int vi, fv_device dev, int lin,
       int lout, const char *what, const char **ran)
{
    int64_t osh[4];
    const int ond = out_shape(c, osh);
    fv_array *in = hx_upload(hin, lin, dev), *out = hx_view(odt, ond, osh, lout, dev), *got = NULL;
    if (in && out) {
        snprintf(current, sizeof current, "%s", what);
        if (vi >= 0)
            tv_force(t->op, t->variants[vi].name);
        fv__plan_forget();
        fv_status st = run_op(c, in, out);
        *ran = fv__plan_last(t->op);
        if (vi >= 0)
            tv_force(t->op, NULL);
        if (st != FV_OK)
            fprintf(stderr, "%s: %s: %s\n", what, fv_status_name(st), fv_error_message());
        CHECK(st == FV_OK);
        if (st == FV_OK)
            got = to_host(out);
    }
    fv_array_unref(in);
    fv_array_unref(out);
    return got;
}

static void
run_variant(const mcase *c, const fv_array *hin, const fv_array *ref, fv_dtype odt, const fv__variant_table *t, int vi,
            fv_device dev, int lin, int lout, double mag)
{
    const char *name = t->variants[vi].name, *ran = NULL, *dran = NULL;
    char what[512];
    snprintf(what, sizeof what, "%s [%s>%s %s %dd %lldx%lldx%lld in %s out %s] %s:%s on %s", c->r->name,
             fv_dtype_name(fv_array_dtype(hin)), fv_dtype_name(odt), fv_mode_name(c->mode), c->nd,
             (long long)c->shape[0], (long long)(c->nd > 1 ? c->shape[1] : 1), (long long)(c->nd > 2 ? c->shape[2] : 1),
             hx_layout_name[lin], hx_layout_name[lout], t->op, name, dev.type == FV_DEVICE_CPU ? "cpu" : "cuda");
    fv_array *got = run_on(c, hin, odt, t, vi, dev, lin, lout, what, &ran);
    if (!got)
        return;
    if (ran && strcmp(ran, name) == 0)
        reach_of(t)->ran[vi] = 1;
    hx_tol tol = { 1, 0, 0.0, 0 };
    if (dev.type != FV_DEVICE_CPU) {
        /* every variant gives the default's bits (NaN: any payload, +-0 equal) */
        fv_array *def = run_on(c, hin, odt, t, -1, dev, lin, lout, what, &dran);
        tol.zeros = 1;
        CHECK(def && hx_compare(got, def, NULL, tol, what));
        fv_array_unref(def);
        if (c->r->kind == SUM) {
            tol.exact = 0;
            tol.rtol = odt == FV_FLOAT32 ? 1e-5 : 1e-12;
            tol.ione = 1;
        }
    }
    int64_t n = fv_array_size(ref);
    double *scale = malloc((size_t)(n ? n : 1) * sizeof(double));
    for (int64_t i = 0; i < n; i++)
        scale[i] = mag;
    CHECK(hx_compare(got, ref, scale, tol, what));
    nchecks++;
    free(scale);
    fv_array_unref(got);
}

static void
run_case(const mcase *c, fv_dtype idt, fv_dtype odt, int lin, int lout)
{
    const row *r = c->r;
    fv_array *hin = host_input(c, idt);
    int64_t osh[4];
    const int ond = out_shape(c, osh);
    fv_array *ref = new_array(odt, ond, osh, CPU);
    fv__plan_force(NULL, NULL);
    fv_status st = run_op(c, hin, ref);
    if (st != FV_OK) {
        fprintf(stderr, "%s [%s>%s %s %dd]: the CPU reference: %s: %s\n", r->name, fv_dtype_name(idt),
                fv_dtype_name(odt), fv_mode_name(c->mode), c->nd, fv_status_name(st), fv_error_message());
        CHECK(st == FV_OK);
    } else {
        double mag = r->kind == SUM ? magnitude(c, hin) : 0;
        for (int k = 0; k < MAXT && r->tables[k]; k++) {
            const fv__variant_table *t = fv__plan_table(r->tables[k]);
            if (!t)
                continue; /* not in this build */
            const int cuda_table = strncmp(t->op, "cuda.", 5) == 0, cpu_table = strncmp(t->op, "cpu.", 4) == 0;
            for (int vi = 0; vi < t->count; vi++) {
                if (!cuda_table)
                    run_variant(c, hin, ref, odt, t, vi, CPU, lin, lout, mag);
                if (!cpu_table && have_gpu)
                    run_variant(c, hin, ref, odt, t, vi, GPU, lin, lout, mag);
            }
        }
    }
    fv_array_unref(hin);
    fv_array_unref(ref);
}

/* rows with nothing to run in this build (no table registered, or CUDA tables
 * without a GPU) are skipped */
static int
row_runs(const row *r)
{
    if (refs)
        return 1;
    for (int k = 0; k < MAXT && r->tables[k]; k++) {
        const fv__variant_table *t = fv__plan_table(r->tables[k]);
        if (t && (have_gpu || strncmp(t->op, "cuda.", 5) != 0))
            return 1;
    }
    return 0;
}

static void
run_row(const row *r, int *ncase)
{
    fv_dtype in[24], out[24];
    const int np = parse_pairs(r->pairs, in, out, 24);
    const int modes = r->modes ? r->modes : 1;
    if (!row_runs(r))
        return;
    for (int p = 0; p < np; p++)
        for (int m = 0; m < FV_MODE_COUNT; m++) {
            if (!(modes & (1 << m)))
                continue;
            mcase c = { r, (fv_mode)m, m == FV_MODE_CONSTANT ? (p & 1 ? -2.5 : 7.0) : 0.0, 0, { 0, 0, 0 } };
            for (int s = 0; s < NSMALL; s++) {
                c.nd = SMALLND[s];
                memcpy(c.shape, SMALL[s], sizeof c.shape);
                const int k = (*ncase)++;
                if (cuda_only && k % 5)
                    continue; /* compute-sanitizer runs: a fifth of the small cases */
                run_case(&c, in[p], out[p], k % HX_NLAYOUTS, (k / HX_NLAYOUTS + k) % HX_NLAYOUTS);
            }
            /* the larger shapes (interior tiles, the tiled and vector variants): every
             * dtype pair, two modes, five input layouts (--full: every mode) */
            if ((!full && m != FV_MODE_REFLECT && m != FV_MODE_CONSTANT && modes != 1) || cuda_only)
                continue;
            static const int lio[][2] = { { HX_CONTIG, HX_CONTIG },
                                          { HX_STRIDED, HX_FORTRAN },
                                          { HX_PADDED, HX_PADDED },
                                          { HX_PADDED_OFF, HX_CONTIG },
                                          { HX_ODD_PITCH, HX_PADDED_OFF } };
            for (int b = 0; b < 3 && r->bignd[b]; b++) {
                c.nd = r->bignd[b];
                memcpy(c.shape, r->big[b], sizeof c.shape);
                for (int l = 0; l < 5; l++)
                    if (full || l == 0 || (l + p + m) % 2)
                        run_case(&c, in[p], out[p], lio[l][0], lio[l][1]);
            }
        }
}

static int
cpu_has_avx2(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2");
#else
    return 0;
#endif
}

/* every variant of every table some row names ran at least once (without a GPU,
 * op-level tables that plan device data only are never consulted: skipped) */
static void
check_reached(void)
{
    const fv__variant_table *seen[FV__PLAN_MAX];
    int nseen = 0;
    for (int i = 0; i < NROWS; i++) {
        if (only && strncmp(ROWS[i].name, only, strlen(only)) != 0)
            continue;
        for (int k = 0; k < MAXT && ROWS[i].tables[k]; k++) {
            const fv__variant_table *t = fv__plan_table(ROWS[i].tables[k]);
            int dup = 0, any = 0;
            for (int j = 0; j < nseen; j++)
                dup |= seen[j] == t;
            if (!t || dup || (!have_gpu && strncmp(t->op, "cuda.", 5) == 0))
                continue;
            seen[nseen++] = t;
            const reach *re = reach_of(t);
            for (int v = 0; v < t->count; v++)
                any |= re->ran[v];
            if (!any && !have_gpu && strncmp(t->op, "cpu.", 4) != 0)
                continue;
            for (int v = 0; v < t->count; v++) {
                const char *n = t->variants[v].name;
                if (re->ran[v] || (!cpu_has_avx2() && !strcmp(t->op, "cpu.lines") && !strcmp(n, "avx2")) ||
                    (!have_gpu && !strcmp(t->op, "separable") && !strcmp(n, "fused")))
                    continue;
                fprintf(stderr, "variant %s:%s never ran (no row reaches it)\n", t->op, n);
                CHECK(re->ran[v]);
            }
        }
    }
}

static void
on_crash(int sig)
{
    fprintf(stderr, "test_ops_matrix: signal %d during: %s\n", sig, current);
    signal(sig, SIG_DFL);
    raise(sig);
}

int
main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--full"))
            full = 1;
        else if (!strcmp(argv[i], "--refs"))
            refs = 1;
        else if (!strcmp(argv[i], "--rows") && i + 1 < argc)
            only = argv[++i];
    }
    signal(SIGSEGV, on_crash);
    signal(SIGBUS, on_crash);
    signal(SIGFPE, on_crash);
    CHECK_OK(fv_context_new(&ctx));
    CHECK_OK(fv_context_set_threads(ctx, 4));           /* the threaded variants (blocks, axes) apply */
    cuda_only = getenv("FOVEA_TEST_CUDA_ONLY") != NULL; /* compute-sanitizer runs: fewer cases */
#ifdef FV_TEST_CUDA
    have_gpu = hx_have_gpu("test_ops_matrix");
#endif
    int ncase = 0;
    for (int i = 0; i < NROWS; i++)
        if (!only || strncmp(ROWS[i].name, only, strlen(only)) == 0)
            run_row(&ROWS[i], &ncase);
    if (!cuda_only)
        check_reached();
    printf("test_ops_matrix: %d cases, %d variant runs compared%s\n", ncase, nchecks,
           have_gpu ? " (CPU and CUDA)" : "");
    fv_context_free(ctx);
#ifdef FV_TEST_CUDA
    if (!have_gpu)
        return hx_skip("test_ops_matrix");
#endif
    return fv_t_summary("test_ops_matrix");
}
