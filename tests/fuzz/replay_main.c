/* A main() for the fuzz targets without libFuzzer: runs LLVMFuzzerTestOneInput
 * once on every file named on the command line, and on every file inside every
 * directory named (sorted; names starting with '.' and README files skipped; a
 * missing directory counts as empty). Built in the normal and sanitizer builds,
 * so ctest replays the regression inputs and the generated seed corpus
 * everywhere. Prints how many inputs ran; a crash is the sanitizer's report. */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot open %s: %s\n", path, strerror(errno));
        return -1;
    }
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    for (;;) {
        if (n == cap) {
            cap *= 2;
            buf = realloc(buf, cap);
        }
        size_t k = fread(buf + n, 1, cap - n, f);
        if (!k)
            break;
        n += k;
    }
    fclose(f);
    /* an exact-size copy, as libFuzzer gives: reads past the end are caught */
    uint8_t *in = malloc(n ? n : 1);
    memcpy(in, buf, n);
    free(buf);
    if (getenv("FOVEA_REPLAY_VERBOSE"))
        fprintf(stderr, "replay: %s (%zu bytes)\n", path, n);
    LLVMFuzzerTestOneInput(in, n);
    free(in);
    return 0;
}

static int
cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int
main(int argc, char **argv)
{
    int ran = 0, bad = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            printf("replay: %s: missing, nothing to replay\n", argv[i]);
            continue;
        }
        if (!S_ISDIR(st.st_mode)) {
            bad += run_file(argv[i]) != 0;
            ran++;
            continue;
        }
        DIR *d = opendir(argv[i]);
        if (!d) {
            fprintf(stderr, "replay: cannot open %s\n", argv[i]);
            bad++;
            continue;
        }
        char **names = NULL;
        size_t nn = 0, cap = 0;
        struct dirent *e;
        while ((e = readdir(d))) {
            if (e->d_name[0] == '.' || !strncmp(e->d_name, "README", 6))
                continue;
            if (nn == cap) {
                cap = cap ? 2 * cap : 64;
                names = realloc(names, cap * sizeof *names);
            }
            names[nn++] = strdup(e->d_name);
        }
        closedir(d);
        qsort(names, nn, sizeof *names, cmp);
        for (size_t k = 0; k < nn; k++) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", argv[i], names[k]);
            if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
                bad += run_file(path) != 0;
                ran++;
            }
            free(names[k]);
        }
        free(names);
    }
    printf("replay: %d inputs, %d unreadable\n", ran, bad);
    return bad ? 1 : 0;
}
