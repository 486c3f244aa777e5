/* fovea deconvolve: Richardson-Lucy deconvolution of a TIFF / OME-TIFF stack
 * (fv_stack_read -> fv_richardson_lucy on the CPU or a GPU -> fv_stack_write_ome). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "commands.h"
#include "fovea/fovea.h"

#define CMD "deconvolve"

typedef struct fv__dc_progress {
    fv_context *ctx; /* synchronised before each report on a GPU, so the bar shows finished work */
    int gpu;
} fv__dc_progress;

static void
fv__dc_report(void *user, int done, int total)
{
    const fv__dc_progress *p = user;
    if (p->gpu)
        fv_context_synchronize(p->ctx);
    fv_cli_progress(NULL, total > 0 ? (double)done / (double)total : 1.0);
}

static int
fv__dc_fail(void)
{
    fprintf(stderr, "fovea " CMD ": %s\n", fv_error_message());
    return 1;
}

/* "S" or "SZ,SY,SX" (2-d images: "SY,SX") into sigma[ndim]; -1 when malformed. */
static int
fv__dc_sigmas(const char *s, int ndim, double *sigma)
{
    double v[3];
    int n = 0;
    char *end;
    while (n < 3) {
        v[n++] = strtod(s, &end);
        if (end == s || !isfinite(v[n - 1]) || v[n - 1] < 0)
            return -1;
        if (*end != ',')
            break;
        s = end + 1;
    }
    if (*end || (n != 1 && n != ndim))
        return -1;
    for (int d = 0; d < ndim; d++)
        sigma[d] = n == 1 ? v[0] : v[d];
    return 0;
}

/* A normalised Gaussian PSF (float32, radius ceil(4 sigma) per axis, as scipy). */
static fv_status
fv__dc_gaussian(int ndim, const double *sigma, fv_array **out)
{
    int64_t shape[3], r[3];
    const fv_device host = { FV_DEVICE_CPU, 0 };
    for (int d = 0; d < ndim; d++) {
        r[d] = (int64_t)ceil(4.0 * sigma[d]);
        if (r[d] > 512)
            return fv_error_set(FV_EINVAL, CMD, "--sigma %g gives a PSF too large", sigma[d]);
        shape[d] = 2 * r[d] + 1;
    }
    fv_status st = fv_array_new(NULL, FV_FLOAT32, ndim, shape, host, out);
    if (st != FV_OK)
        return st;
    float *p = fv_array_data(*out);
    const int64_t n = fv_array_size(*out);
    for (int64_t i = 0; i < n; i++) {
        double e = 0.0;
        int64_t k = i;
        for (int d = ndim - 1; d >= 0; d--) {
            const double x = (double)(k % shape[d] - r[d]);
            k /= shape[d];
            if (sigma[d] > 0)
                e += x * x / (2.0 * sigma[d] * sigma[d]);
        }
        p[i] = (float)exp(-e);
    }
    return FV_OK;
}

/* a as float32 with ndim axes (a 3-d stack of one page becomes 2-d when ndim is 2). */
static fv_status
fv__dc_float(const fv_array *a, int ndim, fv_array **out)
{
    const int64_t *s = fv_array_shape(a);
    const fv_device host = { FV_DEVICE_CPU, 0 };
    fv_status st = fv_array_new(NULL, FV_FLOAT32, ndim, s + (fv_array_ndim(a) - ndim), host, out);
    if (st != FV_OK)
        return st;
    fv_array *v = NULL;
    if ((st = fv_array_view(a, ndim, s + (fv_array_ndim(a) - ndim), fv_array_strides(a) + (fv_array_ndim(a) - ndim), 0,
                            &v)) == FV_OK)
        st = fv_astype(NULL, v, *out);
    fv_array_unref(v);
    return st;
}

/* psf /= sum(psf); FV_EINVAL when the sum is not positive. */
static fv_status
fv__dc_normalise(fv_array *psf)
{
    float *p = fv_array_data(psf);
    const int64_t n = fv_array_size(psf);
    double sum = 0.0;
    for (int64_t i = 0; i < n; i++)
        sum += p[i];
    if (!(sum > 0) || !isfinite(sum))
        return fv_error_set(FV_EINVAL, CMD, "the PSF must have a positive, finite sum (got %g)", sum);
    for (int64_t i = 0; i < n; i++)
        p[i] = (float)(p[i] / sum);
    return FV_OK;
}

/* Run on dev: copies there and back when it is a GPU. */
static fv_status
fv__dc_run(fv_context *ctx, fv_device dev, const fv_array *img, const fv_array *psf, int iters, int filter, double fe,
           int progress, fv_array *res)
{
    fv_array *di = NULL, *dp = NULL, *dr = NULL;
    fv__dc_progress pr = { ctx, dev.type == FV_DEVICE_CUDA };
    fv_status st = FV_OK;
    if (dev.type == FV_DEVICE_CUDA) {
        if ((st = fv_array_new(ctx, FV_FLOAT32, fv_array_ndim(img), fv_array_shape(img), dev, &di)) ||
            (st = fv_array_new(ctx, FV_FLOAT32, fv_array_ndim(psf), fv_array_shape(psf), dev, &dp)) ||
            (st = fv_array_new(ctx, FV_FLOAT32, fv_array_ndim(img), fv_array_shape(img), dev, &dr)) ||
            (st = fv_copy(ctx, img, di)) || (st = fv_copy(ctx, psf, dp)))
            goto done;
    }
    st = fv_richardson_lucy(ctx, di ? di : img, dp ? dp : psf, iters, 0, filter, fe, dr ? dr : res,
                            progress ? fv__dc_report : NULL, &pr);
    if (st == FV_OK && dr)
        st = fv_copy(ctx, dr, res);
    if (st == FV_OK)
        st = fv_context_synchronize(ctx);
done:
    fv_array_unref(di);
    fv_array_unref(dp);
    fv_array_unref(dr);
    return st;
}

int
fv_cmd_deconvolve(int argc, char **argv)
{
    const char *in = NULL, *outp = NULL, *psf_path = NULL, *sigma_s = NULL, *want = "auto";
    int64_t iters = 30;
    int progress = isatty(2), quiet = 0, filter = 0, rc = 1, ndim;
    double fe = 0.0, sigma[3], phys[3];
    fv_array *stack = NULL, *pstack = NULL, *img = NULL, *psf = NULL, *res = NULL;
    fv_context *ctx = NULL;
    fv_device dev = { FV_DEVICE_CPU, 0 };
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            printf("usage: fovea deconvolve IN.tif (--psf PSF.tif | --sigma S[,SY,SX]) -o OUT.ome.tif\n"
                   "                        [--iterations 30] [--device auto|cpu|cuda] [--filter-epsilon E]\n"
                   "                        [--progress|--no-progress]\n\n"
                   "Richardson-Lucy deconvolution (scikit-image's richardson_lucy, clip=False) of a\n"
                   "TIFF / OME-TIFF stack (every full-resolution page a z-plane; one page: a 2-d image)\n"
                   "with a PSF stack (normalised to sum 1) or a Gaussian PSF of sigma pixels (one value,\n"
                   "or one per axis z,y,x). Written as float32 OME-TIFF. --device auto runs on the GPU\n"
                   "when one is present. Stacks larger than memory: add --dask [--workers N] (the Python\n"
                   "command, python -m fovea; chunked with fovea.dask, docs/dask.md).\n");
            return 0;
        } else if (!strcmp(a, "--psf") && i + 1 < argc) {
            psf_path = argv[++i];
        } else if (!strcmp(a, "--sigma") && i + 1 < argc) {
            sigma_s = argv[++i];
        } else if ((!strcmp(a, "-o") || !strcmp(a, "--output")) && i + 1 < argc) {
            outp = argv[++i];
        } else if (!strcmp(a, "--iterations") && i + 1 < argc) {
            if (fv_cli_parse_i64(argv[++i], &iters) || iters < 0 || iters > 100000) {
                fprintf(stderr, "fovea " CMD ": --iterations must be an integer in 0..100000\n");
                return 2;
            }
        } else if (!strcmp(a, "--device") && i + 1 < argc) {
            want = argv[++i];
            if (strcmp(want, "auto") && strcmp(want, "cpu") && strcmp(want, "cuda"))
                goto usage;
        } else if (!strcmp(a, "--filter-epsilon") && i + 1 < argc) {
            char *end;
            fe = strtod(argv[++i], &end);
            if (end == argv[i] || *end)
                goto usage;
            filter = fe != 0.0;
        } else if (!strcmp(a, "--progress")) {
            progress = 1;
        } else if (!strcmp(a, "--no-progress")) {
            progress = 0;
            quiet = 1;
        } else if (a[0] != '-' && !in) {
            in = a;
        } else {
            goto usage;
        }
    }
    if (!in || !outp || !!psf_path == !!sigma_s) {
        if (in && outp)
            fprintf(stderr, "fovea " CMD ": give exactly one of --psf and --sigma\n");
        goto usage;
    }
    if (!strcmp(want, "cuda") && !fv_cuda_available()) {
        fprintf(stderr, "fovea " CMD ": --device cuda: CUDA is not available: %s\n", fv_cuda_unavailable_reason());
        return 1;
    }
    if (strcmp(want, "cpu") && fv_cuda_available())
        dev.type = FV_DEVICE_CUDA;

    if (fv_stack_read(in, &stack, phys))
        goto fail;
    ndim = fv_array_shape(stack)[0] == 1 ? 2 : 3;
    if (psf_path) {
        if (fv_stack_read(psf_path, &pstack, NULL))
            goto fail;
        if (ndim == 2 && fv_array_shape(pstack)[0] != 1) {
            fprintf(stderr, "fovea " CMD ": %s has %lld planes but %s is a 2-d image\n", psf_path,
                    (long long)fv_array_shape(pstack)[0], in);
            goto done;
        }
        if (fv__dc_float(pstack, ndim, &psf))
            goto fail;
    } else {
        if (fv__dc_sigmas(sigma_s, ndim, sigma)) {
            fprintf(stderr, "fovea " CMD ": --sigma wants one value >= 0 or %d comma-separated ones, got '%s'\n", ndim,
                    sigma_s);
            goto done;
        }
        if (fv__dc_gaussian(ndim, sigma, &psf))
            goto fail;
    }
    if (fv__dc_normalise(psf) || fv__dc_float(stack, ndim, &img))
        goto fail;
    const fv_device host = { FV_DEVICE_CPU, 0 };
    if (fv_array_new(NULL, FV_FLOAT32, ndim, fv_array_shape(img), host, &res) || fv_context_new(&ctx) ||
        (dev.type == FV_DEVICE_CUDA && fv_context_set_cuda(ctx, 0, NULL)))
        goto fail;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (fv__dc_run(ctx, dev, img, psf, (int)iters, filter, fe, progress && iters > 0, res))
        goto fail;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (ndim == 2)
        phys[0] = 0.0;
    if (fv_stack_write_ome(outp, res, phys))
        goto fail;
    if (!quiet)
        printf("%s: written (%lld iterations on %s in %.2f s)\n", outp, (long long)iters,
               dev.type == FV_DEVICE_CUDA ? "cuda:0" : "cpu",
               (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
    rc = 0;
    goto done;
fail:
    rc = fv__dc_fail();
done:
    fv_array_unref(stack);
    fv_array_unref(pstack);
    fv_array_unref(img);
    fv_array_unref(psf);
    fv_array_unref(res);
    fv_context_free(ctx);
    return rc;
usage:
    fprintf(stderr,
            "usage: fovea " CMD " IN.tif (--psf PSF.tif | --sigma S[,SY,SX]) -o OUT.ome.tif "
            "[--iterations 30] [--device auto|cpu|cuda] [--filter-epsilon E] [--progress|--no-progress]\n");
    return 2;
}
