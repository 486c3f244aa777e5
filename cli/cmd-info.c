/* fovea info [--json]: build configuration and backends. */
#include <stdio.h>
#include <string.h>
#include "commands.h"
#include "fovea/fovea.h"

int
fv_cmd_info(int argc, char **argv)
{
    int json = 0;
    const char *file = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json"))
            json = 1;
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: fovea info [FILE] [--json]\n\nPrint the build configuration and the backends found,\n"
                   "or with FILE a slide's vendor, levels, associated images and properties.\n");
            return 0;
        } else if (argv[i][0] != '-' && !file) {
            file = argv[i];
        } else {
            fprintf(stderr, "fovea info: unexpected argument '%s'\n", argv[i]);
            return 2;
        }
    }
    if (file)
        return fv_cmd_info_file(file, json);
    if (json) {
        printf("%s\n", fv_config_json());
        return 0;
    }
    printf("fovea %s\n", fv_version());
    printf("  CPU backend : %d threads (FOVEA_NUM_THREADS to change)\n", fv_num_threads());
    if (fv_cuda_available()) {
        printf("  CUDA backend: %d device(s)\n", fv_cuda_device_count());
    } else {
        printf("  CUDA backend: unavailable (%s)\n", fv_cuda_unavailable_reason());
    }
    printf("  dtypes      : bool uint8 uint16 uint32 uint64 int8 int16 int32 int64 float32 float64\n");
    printf("  max ndim    : %d\n", FV_MAX_NDIM);
    printf("  config      : %s\n", fv_config_json());
    return 0;
}
