/* The tiled 3-D CUDA rank filter (a full 3 x 3 x 3 box over 8/16-bit and
 * float32 data, src/cuda/filters/filternd-rank.cu):
 *  - on the host (runs everywhere): a model of its selection (each 3 x 3 plane
 *    sorted by FV_CU_FLT_R3_SORT9, the planes merged by FV_CU_FLT_R3_MERGE, the rank read
 *    at FV_CU_FLT_R3_POS; NaN, or -0.0 with a zero selected: scipy's quickselect)
 *    against a sort of the window, every rank, float and packed 8/16-bit lanes;
 *  - on the GPU: every mode, origins -1..1 per axis, tiny, thin, odd and 64^3
 *    shapes, strided views, NaN / +-inf / -0.0 among the floats, NaN and -0.0
 *    cval, ranks 13, 6, 25 (compile time), 0, 26 and random; bit for bit
 *    against the host model of scipy (test_cuda_filters.c's runnd), the
 *    generic kernels (variant "generic" of "cuda.filternd") and the CPU backend (+-0 equal).
 * FOVEA_FILTERS_BENCH=1 adds timings of 256^3 float32 (tiled and generic).
 * Exits 77 (ctest: skipped) after the host part without a usable GPU. */
#define FV_CUDA_FILTERS_NO_MAIN
#include "test_cuda_filters.c"

#include "cuda/filters/rank3d-net.h"

/* ---- host model of the selection ------------------------------------------------ */

static float
m3_min(float a, float b)
{
    return fminf(a, b);
}
static float
m3_max(float a, float b)
{
    return fmaxf(a, b);
}

/* the kernel's network on one float window w[27] (C order: plane, row, column) */
static float
m3_net_f(const float *w, int rank)
{
    float p[27];
    for (int k = 0; k < 3; k++) {
        float *v = p + 9 * k;
        memcpy(v, w + 9 * k, 9 * sizeof(float));
#define C(I, J)                     \
    {                               \
        float c0 = v[I], c1 = v[J]; \
        v[I] = m3_min(c0, c1);      \
        v[J] = m3_max(c0, c1);      \
    }
        FV_CU_FLT_R3_SORT9(C)
#undef C
    }
    float *v = p;
#define C(I, J)                     \
    {                               \
        float c0 = v[I], c1 = v[J]; \
        v[I] = m3_min(c0, c1);      \
        v[J] = m3_max(c0, c1);      \
    }
    FV_CU_FLT_R3_MERGE(C)
#undef C
    float u[27];
#define AT(K, I) u[K] = v[I];
    FV_CU_FLT_R3_POS(AT)
#undef AT
    return u[rank];
}

/* 8-bit lanes: 4 windows per 32-bit word, unsigned byte-wise min / max
 * (signed data: the order-preserving bias, as __vmins4 orders them) */
static uint32_t
m3_vmin4(uint32_t a, uint32_t b)
{
    uint32_t r = 0;
    for (int l = 0; l < 4; l++) {
        uint32_t x = (a >> (8 * l)) & 255, y = (b >> (8 * l)) & 255;
        r |= (x < y ? x : y) << (8 * l);
    }
    return r;
}
static uint32_t
m3_vmax4(uint32_t a, uint32_t b)
{
    uint32_t r = 0;
    for (int l = 0; l < 4; l++) {
        uint32_t x = (a >> (8 * l)) & 255, y = (b >> (8 * l)) & 255;
        r |= (x < y ? y : x) << (8 * l);
    }
    return r;
}

static void
m3_net_u8x4(const uint8_t w[4][27], int rank, uint8_t out[4])
{
    uint32_t p[27];
    for (int i = 0; i < 27; i++)
        p[i] = (uint32_t)w[0][i] | (uint32_t)w[1][i] << 8 | (uint32_t)w[2][i] << 16 | (uint32_t)w[3][i] << 24;
    for (int k = 0; k < 3; k++) {
        uint32_t *v = p + 9 * k;
#define C(I, J)                        \
    {                                  \
        uint32_t c0 = v[I], c1 = v[J]; \
        v[I] = m3_vmin4(c0, c1);       \
        v[J] = m3_vmax4(c0, c1);       \
    }
        FV_CU_FLT_R3_SORT9(C)
#undef C
    }
    uint32_t *v = p;
#define C(I, J)                        \
    {                                  \
        uint32_t c0 = v[I], c1 = v[J]; \
        v[I] = m3_vmin4(c0, c1);       \
        v[J] = m3_vmax4(c0, c1);       \
    }
    FV_CU_FLT_R3_MERGE(C)
#undef C
    uint32_t u[27];
#define AT(K, I) u[K] = v[I];
    FV_CU_FLT_R3_POS(AT)
#undef AT
    for (int l = 0; l < 4; l++)
        out[l] = (uint8_t)(u[rank] >> (8 * l));
}

static int
cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* the kernel's float result (bits) for window w and rank: the network, or
 * scipy's quickselect where the kernel runs it */
static uint32_t
m3_kernel_f(const float *w, int rank)
{
    int nan = 0, negz = 0;
    for (int i = 0; i < 27; i++) {
        nan |= w[i] != w[i];
        negz |= w[i] == 0 && signbit(w[i]);
    }
    float t = m3_net_f(w, rank);
    if (nan || (negz && t == 0)) {
        double buf[27];
        for (int i = 0; i < 27; i++)
            buf[i] = w[i];
        t = (float)m_select(buf, 0, 26, rank);
    }
    uint32_t b;
    memcpy(&b, &t, 4);
    return b;
}

static void
test_model(void)
{
    static const float sp[] = { 0.0f, -0.0f, 1.0f, -1.0f, INFINITY, -INFINITY, 2.5f, 1e-40f };
    int bad = 0;
    for (int it = 0; it < 200000; it++) {
        float w[27];
        int kind = it % 4; /* 0 random, 1 few distinct values, 2 specials, 3 with NaN */
        for (int i = 0; i < 27; i++) {
            if (kind == 1)
                w[i] = (float)irand(0, 3);
            else if (kind >= 2 && irand(0, 2) == 0)
                w[i] = sp[irand(0, 7)];
            else
                w[i] = (float)uniform_in(-100.0, 100.0);
        }
        if (kind == 3)
            w[irand(0, 26)] = NAN;
        int rank = (int)(it / 4 % 27);
        uint32_t got = m3_kernel_f(w, rank);
        double buf[27];
        for (int i = 0; i < 27; i++)
            buf[i] = w[i];
        double want_d = m_select(buf, 0, 26, rank);
        float want = (float)want_d;
        uint32_t wb;
        memcpy(&wb, &want, 4);
        float gf;
        memcpy(&gf, &got, 4);
        if (got != wb && !(isnan(want) && isnan(gf))) {
            if (bad++ < 5)
                fprintf(stderr, "model float: case %d rank %d: 0x%08x != scipy 0x%08x\n", it, rank, got, wb);
        }
        if (kind == 0 || kind == 1) { /* also against a sort (no NaN) */
            for (int i = 0; i < 27; i++)
                buf[i] = w[i];
            qsort(buf, 27, sizeof(double), cmp_double);
            if ((double)m3_net_f(w, rank) != buf[rank] && bad++ < 5)
                fprintf(stderr, "model float: case %d rank %d: not the sorted value\n", it, rank);
        }
    }
    for (int it = 0; it < 50000; it++) {
        uint8_t w[4][27], out[4];
        int rank = it % 27, hi = it % 2 ? 255 : 3;
        for (int l = 0; l < 4; l++)
            for (int i = 0; i < 27; i++)
                w[l][i] = (uint8_t)irand(0, hi);
        m3_net_u8x4((const uint8_t(*)[27])w, rank, out);
        for (int l = 0; l < 4; l++) {
            double buf[27];
            for (int i = 0; i < 27; i++)
                buf[i] = w[l][i];
            qsort(buf, 27, sizeof(double), cmp_double);
            if (out[l] != (uint8_t)buf[rank] && bad++ < 5)
                fprintf(stderr, "model u8x4: case %d lane %d rank %d: %d != %g\n", it, l, rank, out[l], buf[rank]);
        }
    }
    CHECK(bad == 0);
    printf("test_cuda_rank3d: host model done, %d mismatches\n", bad);
}

/* ---- GPU cases ------------------------------------------------------------------- */

static void
test_rank3d(void)
{
    static const fv_dtype tp[][2] = { { FV_UINT8, FV_UINT8 },   { FV_INT8, FV_INT8 },       { FV_UINT16, FV_UINT16 },
                                      { FV_INT16, FV_INT16 },   { FV_FLOAT32, FV_FLOAT32 }, { FV_UINT8, FV_FLOAT32 },
                                      { FV_FLOAT32, FV_INT16 }, { FV_INT16, FV_UINT8 },     { FV_FLOAT64, FV_FLOAT64 },
                                      { FV_INT32, FV_INT32 } };
    /* median, percentile 25, rank -2 (compile time), min, max, random, rank 1 */
    static const int rsel[] = { 10 + 13, 10 + 6, 10 + 25, 0, 2, -1, 10 + 1 };
    static const int64_t shp[][3] = { { 1, 1, 1 },   { 1, 40, 33 }, { 40, 1, 1 }, { 2, 2, 2 },   { 3, 3, 3 },
                                      { 9, 17, 33 }, { 13, 9, 70 }, { 1, 5, 1 },  { 17, 8, 32 }, { 64, 64, 64 } };
    int n = 0;
    for (int mode = 0; mode < FV_MODE_COUNT; mode++) {
        for (size_t t = 0; t < sizeof tp / sizeof tp[0]; t++) {
            for (size_t si = 0; si < sizeof shp / sizeof shp[0]; si++, n++) {
                if (shp[si][0] == 64 && (n % 3) != 0)
                    continue; /* a third of the 64^3 cases keeps the run short */
                casend c;
                memset(&c, 0, sizeof c);
                c.idt = tp[t][0];
                c.odt = tp[t][1];
                c.kind = FV__FND_RANK;
                c.mode = mode;
                c.nd = 3;
                for (int d = 0; d < 3; d++) {
                    c.shape[d] = shp[si][d];
                    c.fshape[d] = 3;
                }
                c.origins[0] = n % 3 - 1;
                c.origins[1] = (n / 3) % 3 - 1;
                c.origins[2] = (n / 9) % 3 - 1;
                c.cval = cvals[n % 7];
                if (is_float(c.idt) && n % 11 == 0)
                    c.cval = NAN;
                if (is_float(c.idt) && n % 13 == 0)
                    c.cval = -0.0;
                c.lin = n % 3;
                c.lout = (n / 3) % 3;
                c.specials = is_float(c.idt) ? 1 + n % 2 : 0;
                c.wide = (n / 2) % 2;
                c.rank_sel = rsel[n % 7];
                c.tiled = 1;
                runnd(&c);
            }
        }
    }
    /* a footprint that is not the full box, and a 3x3x2 box: the generic kernels */
    for (int k = 0; k < 2; k++) {
        casend c;
        memset(&c, 0, sizeof c);
        c.idt = FV_FLOAT32;
        c.odt = FV_FLOAT32;
        c.kind = FV__FND_RANK;
        c.mode = k;
        c.nd = 3;
        c.shape[0] = 11;
        c.shape[1] = 12;
        c.shape[2] = 35;
        c.fshape[0] = c.fshape[1] = 3;
        c.fshape[2] = k ? 2 : 3;
        c.use_fp = !k;
        c.fp_density = 0.7;
        c.specials = 1;
        c.rank_sel = -1;
        c.tiled = 0; /* the generic kernels: no promise on a selected zero's sign (ndimage.md) */
        runnd(&c);
    }
}

/* 256^3 float32, median / rank -2 / percentile 25: tiled and generic */
static void
bench3d(cudaStream_t s)
{
    int64_t shape[3] = { 256, 256, 256 };
    fv_array *in = NULL, *out = NULL, *h = new_array(FV_FLOAT32, 3, shape, CPU);
    CHECK_OK(fv_array_new(ctx, FV_FLOAT32, 3, shape, GPU, &in));
    CHECK_OK(fv_array_new(ctx, FV_FLOAT32, 3, shape, GPU, &out));
    if (!h || !in || !out)
        goto done;
    fill(h, 0, 1);
    CHECK_OK(fv_copy(ctx, h, in));
    static const int ranks[] = { 13, 25, 6 };
    for (int u = 0; u < 2; u++) {
        for (int r = 0; r < 3; r++) {
            fv__filternd_params p;
            memset(&p, 0, sizeof p);
            p.kind = FV__FND_RANK;
            p.mode = FV_MODE_REFLECT;
            p.ndim = 3;
            p.fshape[0] = p.fshape[1] = p.fshape[2] = 3;
            p.count = 27;
            p.rank = ranks[r];
            fv__op_args a = { .in = in, .out = out, .in2 = NULL, .params = &p };
            cudaEvent_t e0, e1;
            cudaEventCreate(&e0);
            cudaEventCreate(&e1);
            CHECK_OK(u ? dispatch_untiled(&a) : fv__dispatch(ctx, FV__OP_FILTERND, &a));
            cudaEventRecord(e0, s);
            for (int i = 0; i < 20; i++)
                CHECK_OK(u ? dispatch_untiled(&a) : fv__dispatch(ctx, FV__OP_FILTERND, &a));
            cudaEventRecord(e1, s);
            cudaEventSynchronize(e1);
            float ms = 0;
            cudaEventElapsedTime(&ms, e0, e1);
            printf("bench rank3d 256^3 float32 rank %d %s: %.3f ms\n", ranks[r], u ? "generic" : "tiled", ms / 20);
            cudaEventDestroy(e0);
            cudaEventDestroy(e1);
        }
    }
done:
    fv_array_unref(h);
    fv_array_unref(in);
    fv_array_unref(out);
}

int
main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    test_model();
    if (!fv_cuda_available()) {
        printf("test_cuda_rank3d: GPU part skipped: %s\n", fv_cuda_unavailable_reason());
        return fv_t_fail ? fv_t_summary("test_cuda_rank3d") : 77;
    }
    signal(SIGFPE, on_crash);
    signal(SIGSEGV, on_crash);
    signal(SIGABRT, on_crash);
    cudaStream_t s = NULL;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess);
    CHECK_OK(fv_context_new(&ctx));
    CHECK_OK(fv_context_set_cuda(ctx, 0, s));
    snprintf(current, sizeof current, "%s", "test_rank3d");
    test_rank3d();
    printf("test_cuda_rank3d: test_rank3d done, %d cases, %d failed\n", ncases, fv_t_fail);
    const char *b = getenv("FOVEA_FILTERS_BENCH");
    if (b && *b && *b != '0')
        bench3d(s);
    CHECK_OK(fv_context_synchronize(ctx));
    fv_context_free(ctx);
    cudaStreamDestroy(s);
    printf("test_cuda_rank3d: %d cases; CPU kernels %s\n", ncases,
           cpu_kernels == 1 ? "compared" : "absent (model only)");
    return fv_t_summary("test_cuda_rank3d");
}
