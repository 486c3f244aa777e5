/* CUDA kernel of FV__OP_SEP2: two 1-D passes of a separable filter (correlate1d,
 * uniform_filter1d, minimum/maximum_filter1d; gaussian_filter, uniform_filter,
 * minimum/maximum_filter with a full box, sobel, prewitt, ...) in ONE kernel,
 * with the bits of the pass-by-pass chain (filter1d.cu, through a temporary of
 * the intermediate dtype).
 *
 * Axes: the tile's rows run along the sparser of the two pass axes, its
 * columns along the denser (coalesced; 16-byte chunks for interior tiles);
 * every other axis is a batch. Pass 1 runs down the columns (its axis is the
 * sparser one: gaussian_filter, sobel(axis=0), ...) or, `pd`, along the rows
 * (prewitt(axis=-1), sobel(axis=1), ...). A block takes an output tile of
 * FV_CU_SEP_TP x FV_CU_SEP_TQ elements:
 *  1. loads the input tile plus both halos into shared memory, converted to
 *     pass 1's accumulator type. Along pass 1's axis the tile is extended with
 *     pass 1's mode (cval in constant mode); along pass 2's with pass 2's mode,
 *     so that a halo line there is the intermediate's own boundary extension
 *     (a line outside the image in constant mode is the intermediate's cval
 *     and is not loaded);
 *  2. pass 1 (each thread R outputs (fv_d_win_r) of one line slid through
 *     registers, filter1d.cu's fv_k_flt_tile2 arithmetic and order), each result
 *     rounded to the intermediate dtype exactly as filter1d's store does, then
 *     read back in pass 2's accumulator type: the shared intermediate holds the
 *     values the unfused chain's second pass would read from its temporary;
 *  3. pass 2 likewise, results to shared;
 *  4. the output tile is written once, coalesced along the rows (whole
 *     interior tiles as 16-byte vectors where the output allows).
 * Float data whose unfused pass would redo lines serially (min/max over NaN,
 * uniform sums through NaN or inf) sets a device flag when such a value appears
 * (input, or intermediate); the pass-by-pass chain is then queued behind the
 * fused kernel with that flag as its guard (its kernels return at once when the
 * flag is clear), so those rare inputs get the unfused bits too.
 *
 * The fused path is taken (fv__cuda_sep2 declines otherwise, and src/ops runs
 * the passes one by one; FOVEA_SEP_UNFUSED=1 forces that) when:
 *  - the two passes are along different axes of an array of >= 2 dimensions;
 *  - input dtype bool, uint8, uint16, int16, int32, float32 or float64, and the
 *    intermediate is the input dtype (bool: uint8), float32 or float64, with the
 *    output dtype the intermediate's (or bool from a uint8 intermediate);
 *  - each window has at most FV_CU_WIN_MAXTAPS taps; min/max at most 24 (the direct
 *    min/max of filter1d; longer ones take its doubling passes);
 *  - no pass is a uniform filter that filter1d runs serially (non-exact sums
 *    into integer outputs: float data, or a non-integral / huge cval in
 *    constant mode); in constant mode, no NaN cval for min/max and no NaN/inf
 *    cval for uniform passes over float data;
 *  - both arrays aligned to their element size and within 2^31 bytes (32-bit
 *    index math), and the tiles fit the device's shared memory.
 *
 * Strip kernels (fv_k_sep_strip, fv_k_sep_strip_pd; below): float32 data,
 * intermediate and output with both windows of 3, 5, 9 or 17 taps and the
 * columns contiguous in both arrays take a kernel compiled for that window
 * size instead of the tiles: a block walks down a strip of columns, pass 1's
 * window (or pass 2's, pd) slides through registers, and the input is read
 * once (no halo rows recomputed per tile). Other float32 cases of those sizes
 * take the tile kernel compiled for the size (fv_cu_sep_spec); the rest the general
 * tile kernel. The same file holds the 1-D strip kernel (fv_k_sep_strip1,
 * fv__cuda_strip1d) that filter1d.cu runs first for float32 passes along any
 * axis but the last. FOVEA_SEP_NOSTRIP=1 / FOVEA_SEP_NOSPEC=1 turn the strip /
 * size-compiled kernels off (timing comparisons; the bits are the same). */
#include "filter-sep2.cuh"

/* ==== host side =================================================================== */

/* Fill one pass; 0 when the fused kernel does not reproduce filter1d for it.
 * dt: the pass's input dtype, odt: its output dtype; devw: device weights are
 * taken (kind FV_CU_WIN_AUTO; the caller passes them to the kernel). */
static int
fv_cu_sep_pass_fill(fv_cu_sep_pass *ps, const fv__filter1d_params *f, fv_dtype dt, fv_dtype odt, int devw)
{
    const int isf = dt == FV_FLOAT32 || dt == FV_FLOAT64;
    memset(ps, 0, sizeof *ps);
    if (f->size < 1 || f->size > FV_CU_WIN_MAXTAPS || f->mode < 0 || f->mode >= FV_MODE_COUNT)
        return 0;
    int64_t left = f->size / 2 + f->origin;
    if (left < 0 || left >= f->size)
        return 0;
    ps->size = (int)f->size;
    ps->left = (int)left;
    ps->mode = f->mode;
    ps->cval = f->cval;
    const int cmode = f->mode == FV_MODE_CONSTANT;
    switch (f->kind) {
    case FV__F1D_CORRELATE: {
        if (!f->weights) { /* device weights (devw: a kernel that resolves them, FV_CU_WIN_AUTO) */
            if (!devw || !f->dweights)
                return 0;
            ps->kind = FV_CU_WIN_AUTO;
            break;
        }
        int sym = fv__ni_symmetry(f->weights, f->size);
        ps->kind = sym > 0 ? FV_CU_WIN_SYM : sym < 0 ? FV_CU_WIN_ANTI : FV_CU_WIN_CORR;
        for (int i = 0; i < ps->size; i++) {
            ps->w[i] = f->weights[i];
            ps->wf[i] = (float)f->weights[i];
        }
        break;
    }
    case FV__F1D_UNIFORM: {
        ps->kind = FV_CU_WIN_USUM;
        /* filter1d's exact_sum; without it, integer outputs take its serial kernel */
        const int exact =
            !isf && fv_dtype_size(dt) <= 4 && (!cmode || (f->cval == floor(f->cval) && fabs(f->cval) <= 4294967296.0));
        if (!exact && (fv_dtype_is_integer(odt) || odt == FV_BOOL))
            return 0;
        if (isf) {
            if (cmode && !isfinite(f->cval))
                return 0;
            ps->track = 2;
        }
        break;
    }
    case FV__F1D_MINIMUM:
    case FV__F1D_MAXIMUM:
        ps->kind = f->kind == FV__F1D_MINIMUM ? FV_CU_WIN_MIN : FV_CU_WIN_MAX;
        if (f->size > FV_CU_SEP_MM_DIRECT)
            return 0;
        if (isf && f->size > 1) {
            if (cmode && f->cval != f->cval)
                return 0;
            ps->track = 1;
        }
        break;
    default:
        return 0;
    }
    return 1;
}

/* every axis but a and b (and those of length 1) a batch axis of t; the number
 * of batch lines */
static int64_t
fv_cu_sep_batch_axes(fv_cu_sep_args *t, const fv_array *in, const fv_array *out, int a, int b)
{
    int64_t n = 1;
    for (int d = 0; d < in->ndim; d++) {
        if (d == a || d == b || in->shape[d] == 1)
            continue;
        t->bshape[t->nb] = (int)in->shape[d];
        t->bs_in[t->nb] = (int)in->strides[d];
        t->bs_out[t->nb] = (int)out->strides[d];
        t->nb++;
        n *= in->shape[d];
    }
    return n;
}

/* a device int cleared on the stream: the flag the kernels set on tracked values */
static fv_status
fv_cu_sep_flag_new(fv_context *ctx, const fv_cu_exec *x, fv_array **buf, int **flag)
{
    fv_status st = fv_cu_tmp_new(ctx, x->device, sizeof(int), buf);
    if (st != FV_OK)
        return st;
    *flag = (int *)(*buf)->data;
    return fv_cu_zero(*flag, sizeof(int), x->stream);
}


/* The fused kernels ("cuda.sep2"), in the planner's order: "strip", the strip
 * kernels (float32 throughout, both windows of 3, 5, 9 or 17 taps, the columns
 * contiguous); "sized", the tile kernel with the window size fixed at compile
 * time (float32 throughout, both windows of 3, 5, 9 or 17 taps); "general", the
 * tile kernel for every case. The first two still decline where their shared
 * memory does not fit (the next one runs). */
typedef struct fv_cu_sep_plan {
    const fv_cu_sep_job *j;
    fv_dtype in, mid, out;
} fv_cu_sep_plan;

static int
fv_cu_sep_sized_ok(const void *args, int device)
{
    const fv_cu_sep_plan *pa = (const fv_cu_sep_plan *)args;
    const int S = (int)pa->j->t.p1.size;
    return pa->in == FV_FLOAT32 && pa->mid == FV_FLOAT32 && pa->out == FV_FLOAT32 && S == pa->j->t.p2.size &&
        (S == 3 || S == 5 || S == 9 || S == 17);
}
static int
fv_cu_sep_strip_ok(const void *args, int device)
{
    const fv_cu_sep_plan *pa = (const fv_cu_sep_plan *)args;
    return fv_cu_sep_sized_ok(args, device) && pa->j->t.sc_in == (int)sizeof(float) &&
        pa->j->t.sc_out == (int)sizeof(float);
}

FV__VARIANTS(fv_cu_sep_variants, "cuda.sep2", { "strip", fv_cu_sep_strip_ok, NULL },
             { "sized", fv_cu_sep_sized_ok, NULL }, { "general", NULL, NULL })

/* The fused kernels' loads and stores ("cuda.sep2.loads"): "vector", 16-byte
 * ones where the rows' alignment allows; "scalar", element by element. */
FV__VARIANTS(fv_cu_sep_load_variants, "cuda.sep2.loads", { "vector", NULL, NULL }, { "scalar", NULL, NULL })

/* The 1-D passes of filter1d ("cuda.filter1d", fv__cuda_filter1d): "row", the
 * row kernels along the lines (float32 or uint8 data, windows of 3, 5, 9 or 17
 * taps, aligned whole chunks, centred windows); "strip", the strip kernel along
 * another axis (float32, the same windows); "tile", filter1d's tile kernels,
 * always. "row" and "strip" decline where their conditions fail (the tile
 * kernels run). */
typedef struct fv_cu_sep_1dplan {
    int row;
} fv_cu_sep_1dplan;
static int
fv_cu_sep_row_ok(const void *args, int device)
{
    return ((const fv_cu_sep_1dplan *)args)->row;
}
static int
fv_cu_sep_strip1_ok(const void *args, int device)
{
    return !((const fv_cu_sep_1dplan *)args)->row;
}

FV__VARIANTS(fv_cu_sep_1d_variants, "cuda.filter1d", { "row", fv_cu_sep_row_ok, NULL },
             { "strip", fv_cu_sep_strip1_ok, NULL }, { "tile", NULL, NULL })

/* The uint8 row kernel's chunk bytes ("cuda.filter1d.row_u8_chunk"): "vb8"
 * (H200 kernel times, convolve1d(9) 3840x2160: 25.2 us, against 26.8 with 4
 * and 42.3 with 16; 8192^2: 139, 149, 159), "vb4", "vb16"; each where the
 * lines are aligned whole chunks of its bytes. */
typedef struct fv_cu_sep_chunkplan {
    const fv_array *in, *out;
} fv_cu_sep_chunkplan;
static int
fv_cu_sep_vb8_ok(const void *args, int device)
{
    const fv_cu_sep_chunkplan *pa = (const fv_cu_sep_chunkplan *)args;
    return fv_cu_sep_chunks_fit(pa->in, pa->out, 8);
}
static int
fv_cu_sep_vb4_ok(const void *args, int device)
{
    const fv_cu_sep_chunkplan *pa = (const fv_cu_sep_chunkplan *)args;
    return fv_cu_sep_chunks_fit(pa->in, pa->out, 4);
}
static int
fv_cu_sep_vb16_ok(const void *args, int device)
{
    const fv_cu_sep_chunkplan *pa = (const fv_cu_sep_chunkplan *)args;
    return fv_cu_sep_chunks_fit(pa->in, pa->out, 16);
}

FV__VARIANTS(fv_cu_sep_chunk_variants, "cuda.filter1d.row_u8_chunk", { "vb8", fv_cu_sep_vb8_ok, NULL },
             { "vb4", fv_cu_sep_vb4_ok, NULL }, { "vb16", fv_cu_sep_vb16_ok, NULL })

/* One float32 pass along an axis other than the contiguous one, with a window
 * of 3, 5, 9 or 17 taps, by the 1-D strip kernel; FV__SEP2_DECLINED (nothing
 * queued, no error set) where it does not apply: filter1d.cu then runs it.
 * Float data with NaN (min/max) or NaN / inf (uniform) sets the flag, and
 * filter1d's kernels, queued behind with that flag as their guard, redo the
 * pass (filter1d redoes such lines serially). The planner's "cuda.filter1d"
 * picks it ("row", "strip") or not ("tile"). */
extern "C" fv_status
fv__cuda_strip1d(fv_context *ctx, const fv__op_args *a)
{
    static const char *dom = "filter1d";
    const fv__filter1d_params *f = (const fv__filter1d_params *)a->params;
    const fv_array *in = a->in;
    fv_array *out = a->out;
    fv_cu_sep_args t;
    fv_cu_exec x;
    fv_status st;
    fv_array *flagbuf = NULL;

    ctx = fv__ctx(ctx);
    if (!f || in->ndim < 1 || in->ndim != out->ndim)
        return FV__SEP2_DECLINED;
    const int nd = in->ndim, ax = f->axis, cd = nd - 1; /* the pass axis; the columns: the last axis */
    const int row = ax == cd;                           /* along the lines: fv_k_sep_row1 */
    {
        const fv_cu_sep_1dplan pa = { row };
        if (fv__plan_index(&fv_cu_sep_1d_variants, &pa, in->device.id) == 2)
            return FV__SEP2_DECLINED;
    }
    /* uint8 into uint8 along the lines: fv_k_sep_row1u8 (along the other axes the tile
     * kernel was the faster: a strip kernel with 1, 2 or 4 columns a thread took 80,
     * 54 and 45 us against its 34 for correlate1d(9) axis 0 on 3840x2160, H200) */
    const int u8 = row && in->dtype == FV_UINT8 && out->dtype == FV_UINT8;
    const fv_dtype dt = u8 ? FV_UINT8 : FV_FLOAT32;
    /* the 8-bit row kernel's chunk bytes (fv_cu_sep_chunk_variants), chosen below */
    int vb = u8 ? 8 : 0;
    const int64_t esz = u8 ? 1 : (int64_t)sizeof(float);
    if ((!u8 && (in->dtype != FV_FLOAT32 || out->dtype != FV_FLOAT32)) || ax < 0 || ax > cd || (nd < 2 && !row) ||
        fv_array_size(out) == 0)
        return FV__SEP2_DECLINED;
    for (int d = 0; d < nd; d++)
        if (in->shape[d] != out->shape[d])
            return FV__SEP2_DECLINED;
    if (in->strides[cd] != esz || out->strides[cd] != esz)
        return FV__SEP2_DECLINED;
    if (!fv_cu_flt_aligned(in) || !fv_cu_flt_aligned(out) || fv_cu_flt_extent(in) > INT32_MAX / 2 ||
        fv_cu_flt_extent(out) > INT32_MAX / 2)
        return FV__SEP2_DECLINED;
    if (in->shape[ax] > (1 << 29) || in->shape[cd] > (1 << 29))
        return FV__SEP2_DECLINED;
    const int S = (int)f->size;
    if (S != 3 && S != 5 && S != 9 && S != 17)
        return FV__SEP2_DECLINED;
    memset(&t, 0, sizeof t);
    if (!fv_cu_sep_pass_fill(&t.p1, f, dt, dt, 1))
        return FV__SEP2_DECLINED;
    if (t.p1.kind == FV_CU_WIN_AUTO) { /* device weights, resolved in the kernel */
        t.dw = f->dweights;
        t.dwst = f->dweights_stride;
    }
    /* whole chunks: aligned lines of a multiple of the chunk's bytes (uint8: 4-byte
     * chunks where the chosen ones do not fit), centred windows along the lines */
    if (row && vb) {
        const fv_cu_sep_chunkplan pa = { in, out };
        const int v = fv__plan_index(&fv_cu_sep_chunk_variants, &pa, in->device.id);
        vb = v == 0 ? 8 : v == 2 ? 16 : 4;
    }
    if (row && (!fv_cu_sep_chunks_fit(in, out, vb ? vb : 16) || t.p1.left != S / 2))
        return FV__SEP2_DECLINED;
    const int ra = row ? nd - 2 : ax; /* the axis of t.nr: the rows' (-1: one line) */
    t.nr = ra >= 0 ? (int)in->shape[ra] : 1;
    t.nc = (int)in->shape[cd];
    t.sr_in = ra >= 0 ? (int)in->strides[ra] : 0;
    t.sr_out = ra >= 0 ? (int)out->strides[ra] : 0;
    t.sc_in = t.sc_out = (int)sizeof(float);
    const int64_t nbatch = fv_cu_sep_batch_axes(&t, in, out, ra, cd);
    if (nbatch > INT32_MAX)
        return FV__SEP2_DECLINED;
    if (u8) { /* filter1d's float accumulation for 8-bit data: exact float sums, or checked ones */
        const fv_cu_flt_accplan pa = { dt, dt, t.p1.kind, f->weights, S, f->mode, f->cval };
        float chk = 0.0f;
        const int v = fv_cu_flt_acc_plan(&pa, in->device.id, &chk);
        if (v == 2)
            return FV__SEP2_DECLINED;
        if (v == 1)
            t.chk = chk;
    }
    const int redo = t.p1.track != 0;

    if ((st = fv_cu_begin(ctx, dom, a, 1, &x)) != FV_OK)
        return st;
    const size_t smax = fv_cu_flt_smem_optin(x.device);
    t.in = in->data;
    t.out = out->data;
    if (redo && (st = fv_cu_sep_flag_new(ctx, &x, &flagbuf, &t.flag)) != FV_OK)
        goto done;
    {
        const int sms = fv__cuda_sm_count(x.device);
        if (row) {
            switch (S) {
            case 3:
                st = fv_cu_sep_row1_go<3>(&t, sms, nbatch, x.stream, vb);
                break;
            case 5:
                st = fv_cu_sep_row1_go<5>(&t, sms, nbatch, x.stream, vb);
                break;
            case 9:
                st = fv_cu_sep_row1_go<9>(&t, sms, nbatch, x.stream, vb);
                break;
            default:
                st = fv_cu_sep_row1_go<17>(&t, sms, nbatch, x.stream, vb);
                break;
            }
        } else {
            switch (S) {
            case 3:
                st = fv_cu_sep_strip1_go<3>(&t, sms, nbatch, smax, x.stream);
                break;
            case 5:
                st = fv_cu_sep_strip1_go<5>(&t, sms, nbatch, smax, x.stream);
                break;
            case 9:
                st = fv_cu_sep_strip1_go<9>(&t, sms, nbatch, smax, x.stream);
                break;
            default:
                st = fv_cu_sep_strip1_go<17>(&t, sms, nbatch, smax, x.stream);
                break;
            }
        }
    }
    if (st == FV__SEP2_DECLINED || st != FV_OK || !redo)
        goto done;
    st = fv__cuda_filter1d_guarded(ctx, a, t.flag); /* NaN / inf seen: filter1d's pass, queued behind */
done:
    fv_cu_tmp_release(ctx, flagbuf);
    fv_cu_end(&x);
    return st;
}

extern "C" fv_status
fv__cuda_sep2(fv_context *ctx, const fv__op_args *a)
{
    static const char *dom = "separable_filter";
    const fv__sep2_params *sp = (const fv__sep2_params *)a->params;
    const fv_array *in = a->in;
    fv_array *out = a->out;
    const fv_dtype mid = (fv_dtype)(sp ? sp->mid : -1);
    fv_cu_sep_job j;
    fv_cu_exec x;
    fv_status st = FV_OK;
    fv_array *flagbuf = NULL, *tmp = NULL;
    int redo;

    ctx = fv__ctx(ctx);
    if (!sp || in->ndim < 2 || in->ndim != out->ndim || fv_array_size(out) == 0)
        return FV__SEP2_DECLINED;
    const int ap = sp->pass[0].axis, aq = sp->pass[1].axis;
    if (ap == aq || ap < 0 || aq < 0 || ap >= in->ndim || aq >= in->ndim)
        return FV__SEP2_DECLINED;
    for (int d = 0; d < in->ndim; d++)
        if (in->shape[d] != out->shape[d])
            return FV__SEP2_DECLINED;
    /* dtypes */
    fv_dtype idt = in->dtype == FV_BOOL ? FV_UINT8 : in->dtype;
    if (idt != FV_UINT8 && idt != FV_UINT16 && idt != FV_INT16 && idt != FV_INT32 && idt != FV_FLOAT32 &&
        idt != FV_FLOAT64)
        return FV__SEP2_DECLINED;
    if (mid != idt && mid != FV_FLOAT32 && mid != FV_FLOAT64)
        return FV__SEP2_DECLINED;
    if (!(out->dtype == mid || (out->dtype == FV_BOOL && mid == FV_UINT8)))
        return FV__SEP2_DECLINED;
    /* the accumulators filter1d would pick agree with the kernel's */
    const int acc1f = fv_cu_flt_acc_float(in->dtype, mid), acc2f = fv_cu_flt_acc_float(mid, out->dtype);
    if (acc2f != (mid == FV_FLOAT32) || acc1f != (mid == FV_FLOAT32 && idt != FV_INT32 && idt != FV_FLOAT64))
        return FV__SEP2_DECLINED;
    memset(&j, 0, sizeof j);
    if (!fv_cu_sep_pass_fill(&j.t.p1, &sp->pass[0], in->dtype, mid, 0) ||
        !fv_cu_sep_pass_fill(&j.t.p2, &sp->pass[1], mid, out->dtype, 0))
        return FV__SEP2_DECLINED;
    /* exact in float: the results are the double kernels' (where filter1d's
     * accumulator plan, fv_cu_flt_acc_plan, picks float_exact for both passes) */
    {
        const fv_cu_flt_accplan a1 = { in->dtype, mid, j.t.p1.kind, j.t.p1.w, j.t.p1.size, j.t.p1.mode, j.t.p1.cval };
        const fv_cu_flt_accplan a2 = { mid, out->dtype, j.t.p2.kind, j.t.p2.w, j.t.p2.size, j.t.p2.mode, j.t.p2.cval };
        float chk;
        j.fexact = mid == idt && fv_cu_flt_acc_plan(&a1, in->device.id, &chk) == 0 &&
            fv_cu_flt_acc_plan(&a2, in->device.id, &chk) == 0;
    }
    /* geometry: 32-bit byte offsets, q the denser axis */
    if (!fv_cu_flt_aligned(in) || !fv_cu_flt_aligned(out))
        return FV__SEP2_DECLINED; /* filter1d reports the error */
    if (fv_cu_flt_extent(in) > INT32_MAX / 2 || fv_cu_flt_extent(out) > INT32_MAX / 2)
        return FV__SEP2_DECLINED;
    const int64_t np = in->shape[ap], nq = in->shape[aq];
    if (np > (1 << 29) || nq > (1 << 29))
        return FV__SEP2_DECLINED;
    /* the tile's rows run along the sparser of the two axes, its columns along the denser */
    int64_t spi = in->strides[ap], sqi = in->strides[aq];
    const int pd = np > 1 && nq > 1 && (sqi < 0 ? -sqi : sqi) > (spi < 0 ? -spi : spi);
    const int ar = pd ? aq : ap, ac = pd ? ap : aq;
    j.t.pd = pd;
    j.t.nr = (int)in->shape[ar];
    j.t.nc = (int)in->shape[ac];
    j.t.sr_in = (int)in->strides[ar];
    j.t.sc_in = (int)in->strides[ac];
    j.t.sr_out = (int)out->strides[ar];
    j.t.sc_out = (int)out->strides[ac];
    const int64_t nbatch = fv_cu_sep_batch_axes(&j.t, in, out, ap, aq);
    if (nbatch > INT32_MAX)
        return FV__SEP2_DECLINED;
    j.t.ntr = (int)((j.t.nr + FV_CU_SEP_TP - 1) / FV_CU_SEP_TP);
    j.t.ntc = (int)((j.t.nc + FV_CU_SEP_TQ - 1) / FV_CU_SEP_TQ);
    j.t.ntiles = (int64_t)j.t.ntr * j.t.ntc * nbatch;
    j.t.odt = (int)out->dtype;
    { /* the loads and stores (fv_cu_sep_load_variants) */
        const int vec = fv__plan_index(&fv_cu_sep_load_variants, NULL, in->device.id) == 0;
        const int64_t spo = j.t.sr_out, sri = j.t.sr_in;
        j.t.fast = vec && (sri < 0 ? -sri : sri) % 16 == 0;
        j.t.vstore = vec && (spo < 0 ? -spo : spo) % 16 == 0 && ((uintptr_t)out->data & 15) == 0;
        for (int b = 0; b < j.t.nb; b++) /* every tile's rows start on 16-byte boundaries */
            if (j.t.bs_out[b] % 16)
                j.t.vstore = 0;
        j.t.obool = out->dtype == FV_BOOL;
    }
    redo = j.t.p1.track || j.t.p2.track;

    if ((st = fv_cu_begin(ctx, dom, a, 1, &x)) != FV_OK)
        return st;
    j.smem_max = fv_cu_flt_smem_optin(x.device);
    j.stream = x.stream;
    j.sms = fv__cuda_sm_count(x.device);
    j.nbatch = nbatch;
    {
        const fv_cu_sep_plan pa = { &j, idt, mid, out->dtype };
        j.kernel = fv__plan_index(&fv_cu_sep_variants, &pa, x.device);
    }
    {
        int64_t cap = (int64_t)j.sms * 16;
        j.grid = (unsigned)(j.t.ntiles < cap ? j.t.ntiles : cap);
    }
    j.t.in = in->data;
    j.t.out = out->data;
    if (redo && (st = fv_cu_sep_flag_new(ctx, &x, &flagbuf, &j.t.flag)) != FV_OK)
        goto done;
    switch (idt) {
    case FV_UINT8:
        st = fv_cu_sep_launch_mid<uint8_t>(&j, mid);
        break;
    case FV_UINT16:
        st = fv_cu_sep_launch_mid<uint16_t>(&j, mid);
        break;
    case FV_INT16:
        st = fv_cu_sep_launch_mid<int16_t>(&j, mid);
        break;
    case FV_INT32:
        st = fv_cu_sep_launch_mid<int32_t>(&j, mid);
        break;
    case FV_FLOAT32:
        st = fv_cu_sep_launch_mid<float>(&j, mid);
        break;
    default:
        st = fv_cu_sep_launch_mid<double>(&j, mid);
        break;
    }
    if (st != FV_OK || !redo)
        goto done;
    /* NaN / inf seen: the pass-by-pass chain, queued behind, runs only then */
    if ((st = fv_array_new(ctx, mid, in->ndim, in->shape, in->device, &tmp)) != FV_OK)
        goto done;
    {
        fv__op_args a1 = { in, NULL, tmp, &sp->pass[0] };
        fv__op_args a2 = { tmp, NULL, out, &sp->pass[1] };
        if ((st = fv__cuda_filter1d_guarded(ctx, &a1, j.t.flag)) != FV_OK)
            goto done;
        st = fv__cuda_filter1d_guarded(ctx, &a2, j.t.flag);
    }
done:
    fv_cu_tmp_release(ctx, tmp);
    fv_cu_tmp_release(ctx, flagbuf);
    fv_cu_end(&x);
    return st;
}

FV_KERNEL(SEP2, CUDA, FV_DTYPES_ALL, FV_MAX_NDIM, fv__cuda_sep2);
