/* A C user of the installed library. */
#include <stdio.h>
#include <fovea/fovea.h>

int
main(void)
{
    fv_array *a = NULL, *b = NULL;
    int64_t shape[2] = { 3, 4 };
    fv_device cpu = { FV_DEVICE_CPU, 0 };
    if (fv_array_zeros(NULL, FV_UINT8, 2, shape, cpu, &a) || fv_array_new(NULL, FV_FLOAT32, 2, shape, cpu, &b) ||
        fv_astype(NULL, a, b)) {
        fprintf(stderr, "%s\n", fv_error_message());
        return 1;
    }
    printf("fovea %s: astype ok, %lld elements\n", fv_version(), (long long)fv_array_size(b));
    fv_array_unref(a);
    fv_array_unref(b);
    return 0;
}
