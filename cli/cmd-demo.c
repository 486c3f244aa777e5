/* fovea demo: the main job in miniature. For now: report the backends, run the
 * core operations (astype, broadcast multiply/add, device copies) on a synthetic
 * image on the CPU and, when a GPU exists, on the GPU, and check they agree. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "commands.h"
#include "fovea/fovea.h"

static double
fv__now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#define FV__TRY(call)                                                \
    do {                                                             \
        if ((st = (call)) != FV_OK) {                                \
            fprintf(stderr, "fovea demo: %s\n", fv_error_message()); \
            goto done;                                               \
        }                                                            \
    } while (0)

/* img (uint8, HxW) -> float32 -> * gain (1xW, broadcast) -> + offset (0-d) -> uint16 */
static fv_status
fv__pipeline(fv_context *ctx, fv_device dev, const fv_array *img, const fv_array *gain, const fv_array *offset,
             fv_array **result, double *seconds)
{
    fv_status st;
    fv_array *f = NULL, *g = NULL, *h = NULL, *u = NULL;
    const int64_t *shape = fv_array_shape(img);
    double t0 = fv__now();
    FV__TRY(fv_array_new(ctx, FV_FLOAT32, 2, shape, dev, &f));
    FV__TRY(fv_array_new(ctx, FV_FLOAT32, 2, shape, dev, &g));
    FV__TRY(fv_array_new(ctx, FV_FLOAT32, 2, shape, dev, &h));
    FV__TRY(fv_array_new(ctx, FV_UINT16, 2, shape, dev, &u));
    FV__TRY(fv_astype(ctx, img, f));
    FV__TRY(fv_multiply(ctx, f, gain, g));
    FV__TRY(fv_add(ctx, g, offset, h));
    FV__TRY(fv_astype(ctx, h, u));
    FV__TRY(fv_context_synchronize(ctx));
    *seconds = fv__now() - t0;
    *result = fv_array_ref(u);
done:
    fv_array_unref(f);
    fv_array_unref(g);
    fv_array_unref(h);
    fv_array_unref(u);
    return st;
}

int
fv_cmd_demo(int argc, char **argv)
{
    int64_t n = 4096;
    const char *want = "auto";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--size") && i + 1 < argc)
            n = atoll(argv[++i]);
        else if (!strcmp(argv[i], "--device") && i + 1 < argc)
            want = argv[++i];
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: fovea demo [--size N] [--device auto|cpu|cuda]\n\n"
                   "Runs astype, broadcast multiply/add and device copies on an N x N image\n"
                   "(default 4096) on the CPU and, when a GPU exists, on the GPU.\n");
            return 0;
        } else {
            fprintf(stderr, "fovea demo: unexpected argument '%s'\n", argv[i]);
            return 2;
        }
    }
    if (n < 1 || n > 65536) {
        fprintf(stderr, "fovea demo: --size must be in 1..65536\n");
        return 2;
    }
    int use_gpu = fv_cuda_available();
    if (!strcmp(want, "cpu"))
        use_gpu = 0;
    else if (!strcmp(want, "cuda") && !use_gpu) {
        fprintf(stderr, "fovea demo: --device cuda: CUDA is not available: %s\n", fv_cuda_unavailable_reason());
        return 1;
    }

    fv_status st = FV_OK;
    fv_array *img = NULL, *gain = NULL, *offset = NULL, *cpu_res = NULL;
    fv_array *dimg = NULL, *dgain = NULL, *doffset = NULL, *gpu_res = NULL, *back = NULL;
    const fv_device cpu = { FV_DEVICE_CPU, 0 }, gpu = { FV_DEVICE_CUDA, 0 };
    int64_t shape[2] = { n, n }, row[2] = { 1, n };

    printf("fovea %s demo\n", fv_version());
    printf("  backends: cpu (%d threads)%s\n", fv_num_threads(), fv_cuda_available() ? ", cuda" : "");
    if (!fv_cuda_available())
        printf("  cuda    : unavailable (%s)\n", fv_cuda_unavailable_reason());

    /* a synthetic image with structure (not flat): gradients plus a hash pattern */
    FV__TRY(fv_array_new(NULL, FV_UINT8, 2, shape, cpu, &img));
    FV__TRY(fv_array_new(NULL, FV_FLOAT32, 2, row, cpu, &gain));
    FV__TRY(fv_array_new(NULL, FV_FLOAT32, 0, NULL, cpu, &offset));
    uint8_t *p = fv_array_data(img);
    for (int64_t y = 0; y < n; y++)
        for (int64_t x = 0; x < n; x++) {
            uint32_t h = (uint32_t)(x * 2654435761u) ^ (uint32_t)(y * 40503u);
            p[y * n + x] = (uint8_t)((x + y) / 2 + (h >> 28));
        }
    float *gp = fv_array_data(gain);
    for (int64_t x = 0; x < n; x++)
        gp[x] = 1.0f + 0.5f * (float)x / (float)n; /* flat-field correction */
    *(float *)fv_array_data(offset) = 10.0f;

    double tcpu = 0, tgpu = 0;
    FV__TRY(fv__pipeline(NULL, cpu, img, gain, offset, &cpu_res, &tcpu));
    double mpix = (double)n * (double)n / 1e6;
    printf("  cpu     : %lld x %lld uint8 -> float32 * gain + offset -> uint16 in %.1f ms (%.0f Mpixel/s)\n",
           (long long)n, (long long)n, tcpu * 1e3, mpix / tcpu);

    if (use_gpu) {
        FV__TRY(fv_array_new(NULL, FV_UINT8, 2, shape, gpu, &dimg));
        FV__TRY(fv_array_new(NULL, FV_FLOAT32, 2, row, gpu, &dgain));
        FV__TRY(fv_array_new(NULL, FV_FLOAT32, 0, NULL, gpu, &doffset));
        FV__TRY(fv_copy(NULL, img, dimg));
        FV__TRY(fv_copy(NULL, gain, dgain));
        FV__TRY(fv_copy(NULL, offset, doffset));
        double warm;
        fv_array *tmp = NULL;
        FV__TRY(fv__pipeline(NULL, gpu, dimg, dgain, doffset, &tmp, &warm)); /* warm-up */
        fv_array_unref(tmp);
        FV__TRY(fv__pipeline(NULL, gpu, dimg, dgain, doffset, &gpu_res, &tgpu));
        FV__TRY(fv_array_new(NULL, FV_UINT16, 2, shape, cpu, &back));
        FV__TRY(fv_copy(NULL, gpu_res, back));
        int same = memcmp(fv_array_data(back), fv_array_data(cpu_res), (size_t)fv_array_nbytes(back)) == 0;
        printf("  cuda    : same pipeline in %.2f ms (%.0f Mpixel/s); equals the CPU result: %s\n", tgpu * 1e3,
               mpix / tgpu, same ? "yes" : "NO");
        if (!same)
            st = FV_EINTERNAL;
    }
    const uint16_t *r = fv_array_data(cpu_res);
    uint64_t sum = 0;
    for (int64_t i = 0; i < n * n; i++)
        sum += r[i];
    printf("  result  : mean %.3f; %s\n", (double)sum / (double)(n * n),
           use_gpu ? "ran on cpu and cuda" : "ran on cpu (no GPU)");
done:
    fv_array_unref(img);
    fv_array_unref(gain);
    fv_array_unref(offset);
    fv_array_unref(cpu_res);
    fv_array_unref(dimg);
    fv_array_unref(dgain);
    fv_array_unref(doffset);
    fv_array_unref(gpu_res);
    fv_array_unref(back);
    return st == FV_OK ? 0 : 1;
}
