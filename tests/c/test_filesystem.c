/* fv_file: reads and writes into host buffers (always) and device buffers (when a
 * GPU exists), O_DIRECT and buffered, odd offsets and counts, end of file, bad
 * arguments, descriptor leaks. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fovea/fovea.h"
#include "internal.h" /* fv__cuda_memcpy */
#include "check.h"

static const fv_device HOST = { FV_DEVICE_CPU, 0 };

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint8_t
rnd8(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint8_t)(rng_state >> 24);
}

/* Descriptors open on files under `under` (the test's temp dir). Only those:
 * cuFile's driver (loaded at run time; compatibility mode on machines without
 * nvidia-fs) opens descriptors of its own on first use (log files, /dev
 * entries) and keeps them for the process lifetime, so a count of all of
 * /proc/self/fd moves without a leak. A leaked descriptor of a test file is
 * still counted. */
static int
count_fds(const char *under)
{
    int n = 0;
    size_t ul = strlen(under);
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    if (!d)
        return -1;
    while ((e = readdir(d))) {
        char link[300], target[4096];
        if (e->d_name[0] == '.')
            continue;
        snprintf(link, sizeof link, "/proc/self/fd/%s", e->d_name);
        ssize_t k = readlink(link, target, sizeof target - 1);
        if (k <= 0)
            continue;
        target[k] = 0;
        if (strncmp(target, under, ul) == 0 && (target[ul] == '/' || target[ul] == 0))
            n++;
    }
    closedir(d);
    return n;
}

static char tmpdir[256];

static void
path_in_tmp(char *out, size_t n, const char *name)
{
    snprintf(out, n, "%s/%s", tmpdir, name);
}

static int
write_file(const char *path, const uint8_t *data, size_t n)
{
    FILE *fp = fopen(path, "wb");
    if (!fp)
        return -1;
    size_t w = fwrite(data, 1, n, fp);
    fclose(fp);
    return w == n ? 0 : -1;
}

/* Reads at a grid of offsets and counts, host buffers, against the data. */
static void
test_reads(const char *path, const char *flags, const uint8_t *data, size_t size)
{
    fv_file *f = NULL;
    CHECK_OK(fv_file_open(path, flags, 0644, &f));
    if (!f)
        return;
    /* aligned and unaligned buffers (the +1 shifts the address) */
    uint8_t *raw = aligned_alloc(4096, (size + 8192 + 8191) & ~(size_t)4095);
    const uint64_t offs[] = { 0, 1, 511, 4096, 4097, 8191, 65536 + 3, size / 2, size - 4097, size - 1 };
    const size_t counts[] = { 0, 1, 3, 4096, 4095, 8192 + 17, 100000, (size_t)5 << 20, (size_t)9 << 20 };
    for (size_t io = 0; io < sizeof offs / sizeof *offs; io++)
        for (size_t ic = 0; ic < sizeof counts / sizeof *counts; ic++)
            for (int shift = 0; shift < 2; shift++) {
                uint64_t off = offs[io];
                size_t count = counts[ic], got = 12345;
                uint8_t *buf = raw + (shift ? 1 : 0);
                memset(buf, 0xA5, count);
                fv_status st = fv_file_pread(f, buf, HOST, count, off, &got);
                size_t want = off >= size ? 0 : (size - off < count ? size - off : count);
                if (st != FV_OK || got != want || memcmp(buf, data + off, want) != 0) {
                    fv_t_fail++;
                    fprintf(stderr, "pread %s off %llu count %zu shift %d: st %d got %zu want %zu (%s)\n", flags,
                            (unsigned long long)off, count, shift, st, got, want, fv_error_message());
                } else
                    fv_t_pass++;
            }
    /* past the end: 0 bytes, no error */
    size_t got = 7;
    CHECK_OK(fv_file_pread(f, raw, HOST, 100, size + 10, &got));
    CHECK(got == 0);
    /* the whole file in one read (parallel pieces) */
    CHECK_OK(fv_file_pread(f, raw, HOST, size + 8192, 0, &got));
    CHECK(got == size && memcmp(raw, data, size) == 0);
    free(raw);
    CHECK_OK(fv_file_close(f));
}

static void
test_writes(const char *path, const char *flags, const uint8_t *data, size_t size)
{
    fv_file *f = NULL;
    size_t put = 0, got = 0;
    CHECK_OK(fv_file_open(path, flags, 0600, &f));
    if (!f)
        return;
    CHECK(fv_file_writable(f) == 1);
    /* the whole data in uneven pieces, out of order, at unaligned offsets */
    const size_t cuts[] = { 0, 3, 4096, 4099, 70000, (size_t)3 << 20, size };
    size_t ncuts = sizeof cuts / sizeof *cuts;
    for (size_t i = ncuts - 1; i > 0; i--) {
        size_t a = cuts[i - 1], b = cuts[i];
        CHECK_OK(fv_file_pwrite(f, data + a, HOST, b - a, a, &put));
        CHECK(put == b - a);
    }
    uint8_t *back = malloc(size);
    CHECK_OK(fv_file_pread(f, back, HOST, size, 0, &got));
    CHECK(got == size && memcmp(back, data, size) == 0);
    /* overwrite a middle range, from an unaligned buffer */
    CHECK_OK(fv_file_pwrite(f, data + 1, HOST, 10000, 12345, &put));
    CHECK_OK(fv_file_pread(f, back, HOST, size, 0, &got));
    CHECK(got == size && memcmp(back + 12345, data + 1, 10000) == 0 && memcmp(back, data, 12345) == 0);
    /* extend past the end with a hole */
    CHECK_OK(fv_file_pwrite(f, data, HOST, 5, size + 100, &put));
    struct stat st;
    CHECK(stat(path, &st) == 0 && (size_t)st.st_size == size + 105);
    free(back);
    CHECK_OK(fv_file_close(f));
}

static void
test_errors(const char *path)
{
    fv_file *f = NULL;
    size_t n = 0;
    uint8_t buf[16];
    char missing[512], dir[512];
    path_in_tmp(missing, sizeof missing, "no/such/file");
    snprintf(dir, sizeof dir, "%s", tmpdir);

    CHECK_ERR(fv_file_open(path, "x", 0644, &f), FV_EINVAL, "must start with");
    CHECK(f == NULL);
    CHECK_ERR(fv_file_open(path, "", 0644, &f), FV_EINVAL, "empty flags");
    CHECK_ERR(fv_file_open(path, NULL, 0644, &f), FV_EINVAL, "empty flags");
    CHECK_ERR(fv_file_open(path, "rw", 0644, &f), FV_EINVAL, "unknown flag 'w'");
    CHECK_ERR(fv_file_open(path, "rq", 0644, &f), FV_EINVAL, "unknown flag 'q'");
    CHECK_ERR(fv_file_open("", "r", 0644, &f), FV_EINVAL, "empty path");
    CHECK_ERR(fv_file_open(NULL, "r", 0644, &f), FV_EINVAL, "empty path");
    CHECK_ERR(fv_file_open(missing, "r", 0644, &f), FV_EIO, "No such file");
    CHECK_ERR(fv_file_open(dir, "r", 0644, &f), FV_EIO, "Is a directory");
    CHECK_ERR(fv_file_open(path, "r", 0644, NULL), FV_EINVAL, "out is NULL");
    CHECK_ERR(fv_file_discard_page_cache(missing), FV_EIO, "No such file");
    CHECK_ERR(fv_file_discard_page_cache(""), FV_EINVAL, "empty path");
    CHECK_ERR(fv_file_from_fd(-1, 0, NULL, &f), FV_EINVAL, "not an open descriptor");
    CHECK_ERR(fv_file_pread(NULL, buf, HOST, 1, 0, &n), FV_EINVAL, "NULL or closed");

    CHECK_OK(fv_file_open(path, "r", 0644, &f));
    if (!f)
        return;
    CHECK(fv_file_writable(f) == 0);
    CHECK_ERR(fv_file_pwrite(f, buf, HOST, 1, 0, &n), FV_EINVAL, "read-only");
    CHECK_ERR(fv_file_pread(f, NULL, HOST, 1, 0, &n), FV_EINVAL, "buffer is NULL");
    CHECK_ERR(fv_file_pread(f, buf, HOST, 1, 0, NULL), FV_EINVAL, "nread is NULL");
    CHECK_ERR(fv_file_pread(f, buf, HOST, 1, UINT64_MAX, &n), FV_EINVAL, "out of range");
    CHECK_ERR(fv_file_pread(f, buf, HOST, SIZE_MAX, 0, &n), FV_EINVAL, "out of range");
    CHECK_ERR(fv_file_pread(f, buf, HOST, 2, (uint64_t)INT64_MAX, &n), FV_EINVAL, "out of range");
    CHECK_ERR(fv_file_pread(f, buf, (fv_device){ (fv_device_type)7, 0 }, 1, 0, &n), FV_EINVAL, "device type");
    CHECK_OK(fv_file_pread(f, NULL, HOST, 0, 0, &n)); /* nothing to do */
    CHECK(n == 0);
    if (!fv_cuda_available())
        CHECK_ERR(fv_file_pread(f, buf, (fv_device){ FV_DEVICE_CUDA, 0 }, 1, 0, &n), FV_EDEVICE, "cuda:0");
    else
        CHECK_ERR(fv_file_pread(f, buf, (fv_device){ FV_DEVICE_CUDA, 999 }, 1, 0, &n), FV_EDEVICE, "999");
    CHECK(strcmp(fv_file_path(f), path) == 0);
    CHECK_OK(fv_file_close(f));
    CHECK_OK(fv_file_close(NULL));
    /* a file opened for writing only (from a descriptor) refuses reads */
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    CHECK(fd >= 0);
    CHECK_OK(fv_file_from_fd(fd, 1, NULL, &f));
    if (f) {
        CHECK_ERR(fv_file_pread(f, buf, HOST, 1, 0, &n), FV_EINVAL, "not open for reading");
        CHECK(strcmp(fv_file_path(f), path) == 0); /* from /proc */
        CHECK_OK(fv_file_close(f));                /* closes fd */
    }
    CHECK(fcntl(fd, F_GETFD) == -1 && errno == EBADF);
}

static void
test_from_fd(const char *path, const uint8_t *data, size_t size)
{
    fv_file *f = NULL;
    size_t got = 0;
    uint8_t buf[100];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    CHECK_OK(fv_file_from_fd(fd, 0, "label", &f));
    if (!f)
        return;
    CHECK(fv_file_fd(f) == fd && fv_file_direct(f) == 0);
    CHECK(strcmp(fv_file_path(f), "label") == 0);
    CHECK_OK(fv_file_pread(f, buf, HOST, sizeof buf, 7, &got));
    CHECK(got == sizeof buf && memcmp(buf, data + 7, sizeof buf) == 0);
    CHECK_OK(fv_file_close(f));
}

/* Device buffers: file -> device -> host against the data, and device -> file. */
static void
test_device(const char *path, const char *wpath, const uint8_t *data, size_t size)
{
    fv_array *dev = NULL;
    fv_file *f = NULL;
    int64_t shape = (int64_t)size + 4096;
    size_t got = 0, put = 0;
    fv_device cuda = { FV_DEVICE_CUDA, 0 };
    uint8_t *host = malloc(size + 4096);

    if (!fv_cuda_available()) {
        printf("device buffers: skipped (%s)\n", fv_cuda_unavailable_reason());
        free(host);
        return;
    }
    printf("cuFile: %s\n", fv_gds_status());
    CHECK_OK(fv_array_new(NULL, FV_UINT8, 1, &shape, cuda, &dev));
    if (!dev)
        goto done;
    uint8_t *d = fv_array_data(dev);
    const char *flagsets[] = { "r", "rn", "rp" };
    for (size_t fl = 0; fl < 3; fl++) {
        CHECK_OK(fv_file_open(path, flagsets[fl], 0644, &f));
        if (!f)
            continue;
        printf("device reads, flags \"%s\": backend %s, O_DIRECT %d\n", flagsets[fl], fv_file_backend(f),
               fv_file_direct(f));
        const uint64_t offs[] = { 0, 1, 4096, 12345, size - 3 };
        const size_t counts[] = { 1, 4095, 4096, (size_t)33 << 20, (size_t)70 << 20, size };
        for (size_t io = 0; io < 5; io++)
            for (size_t ic = 0; ic < 6; ic++)
                for (int shift = 0; shift < 2; shift++) {
                    uint64_t off = offs[io];
                    size_t count = counts[ic] > size ? size : counts[ic];
                    size_t want = size - off < count ? size - off : count;
                    got = 0;
                    fv_status st = fv_file_pread(f, d + shift, cuda, count, off, &got);
                    memset(host, 0x5A, want);
                    fv_status st2 = st ? st : fv__cuda_memcpy(NULL, host, HOST, d + shift, cuda, want);
                    if (st || st2 || got != want || memcmp(host, data + off, want) != 0) {
                        fv_t_fail++;
                        fprintf(stderr, "device pread %s off %llu count %zu shift %d: st %d/%d got %zu want %zu (%s)\n",
                                flagsets[fl], (unsigned long long)off, count, shift, st, st2, got, want,
                                fv_error_message());
                    } else
                        fv_t_pass++;
                }
        CHECK_OK(fv_file_close(f));
    }
    /* device -> file, then back through the host */
    {
        fv_file *w = NULL;
        fv_file *r0 = NULL;
        CHECK_OK(fv_file_open(path, "rn", 0644, &r0));
        if (r0) {
            CHECK_OK(fv_file_pread(r0, d, cuda, size, 0, &got)); /* data on the device */
            CHECK_OK(fv_file_close(r0));
        }
        CHECK_OK(fv_file_open(wpath, "w", 0600, &w));
        if (w) {
            CHECK_OK(fv_file_pwrite(w, d + 5, cuda, size - 5, 3, &put));
            CHECK(put == size - 5);
            CHECK_OK(fv_file_pread(w, host, HOST, size, 3, &got));
            CHECK(got == size - 5 && memcmp(host, data + 5, size - 5) == 0);
            CHECK_OK(fv_file_close(w));
        }
    }
done:
    fv_array_unref(dev);
    free(host);
}

int
main(void)
{
    const size_t size = ((size_t)37 << 20) + 4321; /* > one staging chunk, not aligned */
    char path[512], wpath[512];
    const char *base = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s/fovea-fs-XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    path_in_tmp(path, sizeof path, "data.bin");
    path_in_tmp(wpath, sizeof wpath, "written.bin");
    uint8_t *data = malloc(size);
    for (size_t i = 0; i < size; i++)
        data[i] = rnd8();
    if (write_file(path, data, size) != 0) {
        perror("write");
        return 1;
    }
    char realtmp[4096];
    if (!realpath(tmpdir, realtmp)) /* /proc/self/fd links name resolved paths */
        snprintf(realtmp, sizeof realtmp, "%s", tmpdir);
    int fds0 = count_fds(realtmp);

    fv_file *probe = NULL;
    CHECK_OK(fv_file_open(path, "r", 0644, &probe));
    int direct = probe ? fv_file_direct(probe) : 0;
    printf("O_DIRECT on %s: %s; backend %s; cuFile: %s\n", tmpdir, direct ? "yes" : "refused (buffered)",
           probe ? fv_file_backend(probe) : "?", fv_gds_status());
    fv_file_close(probe);

    test_reads(path, "r", data, size);  /* O_DIRECT where the filesystem allows */
    test_reads(path, "rn", data, size); /* page cache */
    test_reads(path, "r+p", data, size);
    test_writes(wpath, "w", data, size);
    test_writes(wpath, "wn", data, size);
    test_writes(wpath, "a", data, size); /* the existing file, overwritten in place */
    test_errors(path);
    test_from_fd(path, data, size);
    CHECK_OK(fv_file_discard_page_cache(path));
    test_reads(path, "rn", data, size); /* cold */
    test_device(path, wpath, data, size);

    int fds1 = count_fds(realtmp);
    CHECK(fds0 == 0 && fds0 == fds1);
    if (fds0 != fds1)
        fprintf(stderr, "descriptors: %d before, %d after\n", fds0, fds1);
    unlink(path);
    unlink(wpath);
    rmdir(tmpdir);
    free(data);
    return fv_t_summary("test_filesystem");
}
