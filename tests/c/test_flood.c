/* fv_binary_erosion with iterations < 1 as one labelling (FV__OP_BINARY_FLOOD:
 * scipy's binary_fill_holes and binary_propagation) against the passes until
 * nothing changes (variant "iterate" of "binary_erosion") on the CPU, and the CUDA backend (where a
 * GPU is usable) against both.
 *
 * Cases: 1..4-d images of random extents (1 included), sparse inputs (long,
 * maze-like paths: many passes) and dense ones; random point-symmetric
 * 3 x ... x 3 structures holding their centre, the cross and the full cube;
 * inputs of bool (raw bytes other than 0 / 1), uint8, int8, uint16 and
 * float32 (-0.0 counts as zero, NaN as nonzero); no mask or masks of bool,
 * uint8 (values 0, 1, 3) or float32 (-0.0, NaN); border 0 / 1; dilation and
 * erosion; bool, uint8 and float32 outputs; in place (out is the input);
 * iterations 0 and -1. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fovea/fovea.h"
#include "check.h"
#define FV_T_SEED 0x51f0a3c2d9e87b61ull
#include "xorshift.h"
#include "variant-force.h"

static const fv_device CPU = { FV_DEVICE_CPU, 0 };
static const fv_device GPU = { FV_DEVICE_CUDA, 0 };
static fv_context *ctx;
static int have_gpu, ncases;

static int64_t
irand(int64_t lo, int64_t hi) /* [lo, hi] */
{
    return lo + (int64_t)(next_u64() % (uint64_t)(hi - lo + 1));
}

/* A random binary-ish array: value v with probability dens, else zero, in
 * dtype dt (bool: raw bytes 1..255; float32: -0.0 for some zeros, NaN for some
 * set values). */
static fv_array *
random_array(fv_dtype dt, int nd, const int64_t *shape, double dens)
{
    fv_array *a = NULL;
    CHECK_OK(fv_array_new(ctx, dt, nd, shape, CPU, &a));
    const int64_t n = fv_array_size(a);
    char *p = fv_array_data(a);
    for (int64_t i = 0; i < n; i++) {
        const int on = uniform() < dens;
        switch (dt) {
        case FV_BOOL:
        case FV_UINT8:
            ((uint8_t *)p)[i] = on ? (uint8_t)irand(1, 255) : 0;
            break;
        case FV_INT8:
            ((int8_t *)p)[i] = on ? (int8_t)(irand(0, 1) ? -3 : 1) : 0;
            break;
        case FV_UINT16:
            ((uint16_t *)p)[i] = on ? (uint16_t)(256 * irand(1, 3)) : 0;
            break;
        default:
            ((float *)p)[i] = on ? (irand(0, 7) ? 0.5f : NAN) : (irand(0, 1) ? -0.0f : 0.0f);
            break;
        }
    }
    return a;
}

/* A copy of a on dev (queued on ctx's stream; to_cpu waits for it). */
static fv_array *
copy_to(const fv_array *a, fv_device dev)
{
    fv_array *c = NULL;
    CHECK_OK(fv_array_new(ctx, fv_array_dtype(a), fv_array_ndim(a), fv_array_shape(a), dev, &c));
    CHECK_OK(fv_copy(ctx, a, c));
    return c;
}

static fv_array *
to_cpu(const fv_array *d)
{
    fv_array *h = copy_to(d, CPU);
    CHECK_OK(fv_context_synchronize(ctx));
    return h;
}

/* A random point-symmetric 3^nd structure with its centre (kind 0), the cross
 * (1) or the full cube (2). */
static void
structure(int nd, int kind, uint8_t *s, int64_t *sshape)
{
    int n = 1;
    for (int d = 0; d < nd; d++) {
        n *= 3;
        sshape[d] = 3;
    }
    for (int c = 0; c < n; c++) {
        int rest = c, hops = 0;
        for (int d = 0; d < nd; d++) {
            hops += rest % 3 != 1;
            rest /= 3;
        }
        s[c] = (uint8_t)(kind == 2 ? 1 : kind == 1 ? hops <= 1 : uniform() < 0.4);
    }
    for (int c = 0; c < n / 2; c++)
        s[n - 1 - c] = s[c] = (uint8_t)(s[c] | s[n - 1 - c]);
    s[n / 2] = 1;
}

static int
same_values(const fv_array *a, const fv_array *b)
{
    return fv_array_nbytes(a) == fv_array_nbytes(b) &&
        memcmp(fv_array_data(a), fv_array_data(b), (size_t)fv_array_nbytes(a)) == 0;
}

static void
run_case(int nd, const int64_t *shape, int skind, fv_dtype idt, double dens, int mkind, int border, int invert,
         fv_dtype odt, int inplace, int iterations)
{
    char what[256];
    snprintf(what, sizeof what,
             "nd %d shape %lld x .. structure %d in %s dens %.2f mask %d border %d invert %d "
             "out %s inplace %d iterations %d",
             nd, (long long)shape[0], skind, fv_dtype_name(idt), dens, mkind, border, invert, fv_dtype_name(odt),
             inplace, iterations);
    uint8_t st[81];
    int64_t sshape[4];
    structure(nd, skind, st, sshape);
    if (inplace)
        odt = idt;
    fv_array *in = random_array(idt, nd, shape, dens), *mask = NULL;
    if (mkind)
        mask = random_array(mkind == 1 ? FV_BOOL : mkind == 2 ? FV_UINT8 : FV_FLOAT32, nd, shape, 0.6);
    fv_array *ref = NULL, *got = NULL;
    CHECK_OK(fv_array_zeros(ctx, odt, nd, shape, CPU, &ref));
    CHECK_OK(fv_array_zeros(ctx, odt, nd, shape, CPU, &got));
    ncases++;

    /* the passes (reference) */
    tv_force("binary_erosion", "iterate");
    fv_array *rin = inplace ? copy_to(in, CPU) : fv_array_ref(in);
    fv_array *rout = inplace ? fv_array_ref(rin) : fv_array_ref(ref);
    CHECK_OK(fv_binary_erosion(ctx, rin, rout, st, sshape, iterations, mask, border, NULL, invert));
    if (inplace)
        CHECK_OK(fv_copy(ctx, rout, ref));
    fv_array_unref(rin);
    fv_array_unref(rout);
    tv_force("binary_erosion", NULL);

    /* the labelling on the CPU */
    fv_array *cin = inplace ? copy_to(in, CPU) : fv_array_ref(in);
    fv_array *cout = inplace ? fv_array_ref(cin) : fv_array_ref(got);
    CHECK_OK(fv_binary_erosion(ctx, cin, cout, st, sshape, iterations, mask, border, NULL, invert));
    if (inplace)
        CHECK_OK(fv_copy(ctx, cout, got));
    if (!same_values(ref, got)) {
        fv_t_fail++;
        fprintf(stderr, "%s: CPU labelling differs from the passes\n", what);
    } else {
        fv_t_pass++;
    }
    fv_array_unref(cin);
    fv_array_unref(cout);

    if (have_gpu) {
        fv_array *din = copy_to(in, GPU), *dmask = mask ? copy_to(mask, GPU) : NULL, *dout = NULL;
        if (inplace)
            dout = fv_array_ref(din);
        else
            CHECK_OK(fv_array_zeros(ctx, odt, nd, shape, GPU, &dout));
        CHECK_OK(fv_binary_erosion(ctx, din, dout, st, sshape, iterations, dmask, border, NULL, invert));
        fv_array *h = to_cpu(dout);
        if (!same_values(ref, h)) {
            fv_t_fail++;
            fprintf(stderr, "%s: CUDA labelling differs from the passes\n", what);
        } else {
            fv_t_pass++;
        }
        fv_array_unref(h);
        fv_array_unref(dout);
        fv_array_unref(dmask);
        fv_array_unref(din);
    }
    fv_array_unref(got);
    fv_array_unref(ref);
    fv_array_unref(mask);
    fv_array_unref(in);
}

int
main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    have_gpu = fv_cuda_available();
    CHECK_OK(fv_context_new(&ctx));
    static const fv_dtype idts[] = { FV_BOOL, FV_UINT8, FV_INT8, FV_UINT16, FV_FLOAT32 };
    static const fv_dtype odts[] = { FV_BOOL, FV_UINT8, FV_FLOAT32 };
    static const int64_t maxext[5] = { 0, 3000, 90, 22, 10 };
    for (int k = 0; k < 400; k++) {
        const int nd = (int)irand(1, 4);
        int64_t shape[4];
        for (int d = 0; d < nd; d++)
            shape[d] = irand(0, 9) ? irand(1, maxext[nd]) : 1;
        const double dens = irand(0, 1) ? 0.02 + 0.05 * uniform() : 0.2 + 0.5 * uniform();
        run_case(nd, shape, (int)irand(0, 2), idts[irand(0, 4)], dens, (int)irand(0, 3), (int)irand(0, 1),
                 (int)irand(0, 1), odts[irand(0, 2)], irand(0, 5) == 0, irand(0, 1) ? -1 : 0);
    }
    /* larger mazes: fill_holes (zeros in, mask, border 1, dilation) and propagation */
    for (int k = 0; k < 4; k++) {
        int64_t shape[2] = { irand(200, 400), irand(200, 500) };
        run_case(2, shape, k & 1, FV_BOOL, k < 2 ? 0.0 : 0.01, 1, k < 2, 1, FV_BOOL, 0, -1);
    }
    printf("test_flood: %d cases (%s)\n", ncases, have_gpu ? "CPU and CUDA" : "CPU only");
    if (have_gpu)
        CHECK_OK(fv_context_synchronize(ctx));
    fv_context_free(ctx);
    return fv_t_summary("test_flood");
}
