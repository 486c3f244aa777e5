/* Tile cache types: per-process LRU, no cache, and the shared-memory cache used by
 * several processes (fork children, spawned processes attaching by name or through
 * FOVEA_CACHE_SHM), its capacity bound, recovery from a process killed while
 * holding the lock, removal of the segment by the last process, run-time switches
 * and bad arguments.
 *
 * The binary re-executes itself (posix_spawn) with "child-*" arguments for the
 * spawned-process cases. Forks happen before any thread exists (the thread tests
 * come last), as in a DataLoader that forks its workers. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "fovea/fovea.h"
#include "slide/cache.h"
#include "check.h"
#include "tiff-writer.h"

extern char **environ;

static const fv_device CPU = { FV_DEVICE_CPU, 0 };
enum {
    W = 512,
    H = 384,
    T = 64,
    NTILES = (W / T) * (H / T),
    TILE_BYTES = T * T * 3
};

#define px tfw_px

static void
write_tiled_tiff(const char *path)
{
    CHECK(tfw_write_raw_slide(path, W, H, T) == 0);
}

/* Read (x, y, w, h) in the calling thread (no pool threads: forks stay safe) and
 * compare with the ground truth. */
static int
region_ok(fv_slide *s, int64_t x, int64_t y, int64_t w, int64_t h)
{
    int64_t shape[3] = { h, w, 3 };
    fv_array *a = NULL;
    if (fv_array_new(NULL, FV_UINT8, 3, shape, CPU, &a))
        return 0;
    fv_read_options o = { FV_PIXEL_RGB, 1, 0 };
    int ok = fv_slide_read_region(s, NULL, x, y, 0, w, h, &o, a) == FV_OK;
    const uint8_t *p = fv_array_data(a);
    for (int64_t r = 0; ok && r < h; r++)
        for (int64_t c = 0; ok && c < w; c++)
            for (int k = 0; k < 3; k++)
                if (p[(r * w + c) * 3 + k] != px(x + c, y + r, k)) {
                    ok = 0;
                    break;
                }
    fv_array_unref(a);
    return ok;
}

static int
shm_exists(const char *name)
{
    char p[300];
    snprintf(p, sizeof p, "/dev/shm/%s", name[0] == '/' ? name + 1 : name);
    return access(p, F_OK) == 0;
}

static fv_cache_stats
stats(void)
{
    fv_cache_stats s;
    fv_cache_get_stats(&s);
    return s;
}

static int
consistent(void)
{
    char msg[256] = "";
    int r = fv__cache_check(msg, sizeof msg);
    if (r)
        fprintf(stderr, "cache check: %s\n", msg);
    return r == 0;
}

/* ---- synthetic tiles through the cache API ---------------------------------------------- */

static size_t
syn_size(uint64_t k)
{
    return 1 + (size_t)((k * 2654435761u) % 60000);
}

static uint8_t
syn_byte(uint64_t k, size_t i)
{
    return (uint8_t)((k * 131 + i * 7 + (i >> 9)) & 255);
}

/* acquire key k; on a miss "decode" and publish. 1: hit with the right bytes,
 * 0: miss, -1: a hit with wrong bytes. */
static int
syn_get(uint64_t k)
{
    fv__tile_key key = { 0x5eed0000ull + (k >> 20), (uint32_t)(k & 7), k };
    int must = 0;
    fv__tile *t = fv__cache_acquire(&key, &must);
    if (t) {
        int ok = t->nbytes == syn_size(k);
        for (size_t i = 0; ok && i < t->nbytes; i += 97)
            ok = t->data[i] == syn_byte(k, i);
        if (ok && t->nbytes)
            ok = t->data[t->nbytes - 1] == syn_byte(k, t->nbytes - 1);
        fv__tile_unref(t);
        return ok ? 1 : -1;
    }
    if (!must)
        return -1;
    t = fv__tile_new(syn_size(k));
    for (size_t i = 0; i < t->nbytes; i++)
        t->data[i] = syn_byte(k, i);
    fv__cache_finish(&key, t);
    fv__tile_unref(t);
    return 0;
}

/* random workload: n gets over `keys` keys; returns the number of bad hits */
static int
syn_workload(unsigned seed, int n, int keys)
{
    int bad = 0;
    for (int i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        if (syn_get((seed >> 8) % (unsigned)keys) < 0)
            bad++;
    }
    return bad;
}

/* ---- children ------------------------------------------------------------------------------ */

static pid_t
spawn_self(const char *self, char *const args[], int in_fd, int out_fd)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    if (in_fd >= 0)
        posix_spawn_file_actions_adddup2(&fa, in_fd, 0);
    if (out_fd >= 0)
        posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
    char *argv[8] = { (char *)self };
    for (int i = 0; i < 6 && args[i]; i++)
        argv[i + 1] = args[i];
    pid_t pid = -1;
    if (posix_spawn(&pid, self, &fa, NULL, argv, environ) != 0)
        pid = -1;
    posix_spawn_file_actions_destroy(&fa);
    return pid;
}

static int
wait_ok(pid_t pid)
{
    int status = 0;
    if (pid <= 0 || waitpid(pid, &status, 0) != pid)
        return 0;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fprintf(stderr, "child %d: status 0x%x\n", (int)pid, status);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* child-attach NAME PATH | child-env NAME PATH | child-hold NAME */
static int
child_main(int argc, char **argv)
{
    const char *mode = argv[1], *name = argc > 2 ? argv[2] : "";
    if (!strcmp(mode, "child-hold")) {
        /* attaching twice (a worker_init_fn in a fork child, say) keeps one registration */
        for (int i = 0; i < 2; i++)
            if (fv_cache_attach_shared(name) != FV_OK) {
                fprintf(stderr, "child-hold: %s\n", fv_error_message());
                return 2;
            }
        if (write(1, "r", 1) != 1)
            return 3;
        char c;
        while (read(0, &c, 1) > 0) {
        }
        return 0; /* exit: atexit detaches (and unlinks when last) */
    }
    if (argc < 4)
        return 2;
    if (!strcmp(mode, "child-attach")) {
        if (fv_cache_attach_shared(name) != FV_OK) {
            fprintf(stderr, "child-attach: %s\n", fv_error_message());
            return 3;
        }
    } else if (!strcmp(mode, "child-env")) {
        /* FOVEA_CACHE_SHM attaches on the first use */
        if (fv_cache_type_get() != FV_CACHE_SHARED_MEMORY || strcmp(fv_cache_shm_name(), name) != 0) {
            fprintf(stderr, "child-env: type %d name '%s'\n", (int)fv_cache_type_get(), fv_cache_shm_name());
            return 4;
        }
    } else
        return 2;
    fv_slide *s = NULL;
    if (fv_slide_open(argv[3], &s))
        return 5;
    fv_cache_stats a = stats();
    int ok = region_ok(s, 0, 0, W, H);
    fv_cache_stats b = stats();
    fv_slide_unref(s);
    if (!ok)
        return 6;
    /* child-attach reads an empty cache (all misses: it fills it), child-env a full one */
    if (!strcmp(mode, "child-attach") && b.misses - a.misses != NTILES)
        return 7;
    if (!strcmp(mode, "child-env") && b.hits - a.hits != NTILES)
        return 8;
    return 0;
}

/* ---- tests -------------------------------------------------------------------------------- */

static void
test_per_process(fv_slide *s)
{
    CHECK(fv_cache_type_get() == FV_CACHE_PER_PROCESS);
    CHECK(!strcmp(fv_cache_shm_name(), ""));
    CHECK(stats().capacity == (uint64_t)256 << 20);
    fv_cache_clear();
    fv_cache_reset_stats();
    CHECK(region_ok(s, 0, 0, 200, 200)); /* 4 x 4 tiles */
    fv_cache_stats a = stats();
    CHECK(region_ok(s, 0, 0, 200, 200));
    fv_cache_stats b = stats();
    CHECK(a.misses == 16 && b.hits == a.hits + 16 && b.entries == 16 && b.bytes == 16u * TILE_BYTES);
    CHECK_OK(fv_cache_set_capacity(3u * TILE_BYTES));
    CHECK(region_ok(s, 0, 0, W, H));
    b = stats();
    CHECK(b.bytes <= b.capacity && b.entries == 3 && b.evictions > 0);
    fv_cache_clear();
    CHECK(stats().entries == 0 && stats().bytes == 0);
    CHECK_OK(fv_cache_set_capacity(64u << 20));

    /* fork while this process has a pending decode: the child must not wait for it */
    fv__tile_key key = { 0xf0f0, 0, 77 };
    int must = 0;
    CHECK(fv__cache_acquire(&key, &must) == NULL && must == 1);
    pid_t pid = fork();
    if (pid == 0) {
        int m = 0;
        fv__tile *t = fv__cache_acquire(&key, &m); /* would hang on the parent's pending entry */
        int ok = !t && m == 1;
        fv__tile *nt = fv__tile_new(10);
        fv__cache_finish(&key, nt);
        fv__tile_unref(nt);
        t = fv__cache_acquire(&key, &m);
        ok &= t != NULL;
        fv__tile_unref(t);
        _exit(ok ? 0 : 1);
    }
    CHECK(wait_ok(pid));
    fv__tile *nt = fv__tile_new(10);
    fv__cache_finish(&key, nt);
    fv__tile_unref(nt);
    fv__tile *t = fv__cache_acquire(&key, &must);
    CHECK(t && t->nbytes == 10);
    fv__tile_unref(t);
}

static void
test_bad_arguments(void)
{
    CHECK_ERR(fv_cache_configure(FV_CACHE_SHARED_MEMORY, 0), FV_EINVAL, "at least 64 bytes");
    CHECK_ERR(fv_cache_configure(FV_CACHE_SHARED_MEMORY, 63), FV_EINVAL, "at least 64 bytes");
    CHECK_ERR(fv_cache_configure((fv_cache_type)7, 1), FV_EINVAL, "unknown cache type 7");
    CHECK_ERR(fv_cache_attach_shared(NULL), FV_EINVAL, "name is empty");
    CHECK_ERR(fv_cache_attach_shared(""), FV_EINVAL, "name is empty");
    CHECK_ERR(fv_cache_attach_shared("/a/b"), FV_EINVAL, "not a shared-memory segment name");
    CHECK_ERR(fv_cache_attach_shared("/fovea-test-no-such-segment"), FV_EIO,
              "no shared-memory cache named /fovea-test-no-such-segment");
    CHECK_ERR(fv_cache_attach_shared("fovea-test-no-such-segment"), FV_EIO, "/dev/shm/fovea-test-no-such-segment");

    /* segments that are not ours: too small, bad magic, another version */
    char name[64];
    snprintf(name, sizeof name, "/fovea-test-bad-%d", (int)getpid());
    uint64_t hdr[64 * 1024 / 8];
    for (int variant = 0; variant < 3; variant++) {
        memset(hdr, 0, sizeof hdr);
        size_t n = sizeof hdr;
        if (variant == 0)
            n = 16;
        else if (variant == 1)
            hdr[0] = 0x1234;
        else {
            hdr[0] = FV__CACHE_SHM_MAGIC;
            hdr[1] = 99; /* version 99 (low half), header size 0 */
        }
        int fd = shm_open(name, O_RDWR | O_CREAT | O_TRUNC, 0600);
        CHECK(fd >= 0);
        CHECK(write(fd, hdr, n) == (ssize_t)n);
        close(fd);
        if (variant == 0)
            CHECK_ERR(fv_cache_attach_shared(name), FV_EFORMAT, "too small");
        else if (variant == 1)
            CHECK_ERR(fv_cache_attach_shared(name), FV_EFORMAT, "not a fovea cache segment (bad magic)");
        else
            CHECK_ERR(fv_cache_attach_shared(name), FV_EFORMAT, "version 99");
        shm_unlink(name);
    }
    /* capacities out of range, or more than /dev/shm holds (checked at once: no SIGBUS later) */
    CHECK_ERR(fv_cache_configure(FV_CACHE_SHARED_MEMORY, (uint64_t)1 << 50), FV_EINVAL, "out of range");
    CHECK_ERR(fv_cache_configure(FV_CACHE_SHARED_MEMORY, (uint64_t)8 << 40), FV_ENOMEM, "cannot reserve");
    /* a failed configure or attach leaves the cache as it was */
    CHECK(fv_cache_type_get() == FV_CACHE_PER_PROCESS);
    CHECK(!strcmp(fv_cache_shm_name(), ""));
}

static void
test_nocache(fv_slide *s)
{
    CHECK_OK(fv_cache_configure(FV_CACHE_NONE, 123));
    CHECK(fv_cache_type_get() == FV_CACHE_NONE);
    CHECK(region_ok(s, 0, 0, W, H));
    CHECK(region_ok(s, 0, 0, W, H));
    fv_cache_stats a = stats();
    CHECK(a.hits == 0 && a.misses == 2 * NTILES && a.entries == 0 && a.bytes == 0 && a.capacity == 0);
    fv_cache_clear();
    fv_cache_reset_stats();
    CHECK(stats().misses == 0);
}

static void
test_shared_processes(fv_slide *s, const char *self, const char *path)
{
    CHECK_OK(fv_cache_configure(FV_CACHE_SHARED_MEMORY, 8u << 20));
    CHECK(fv_cache_type_get() == FV_CACHE_SHARED_MEMORY);
    char name[256];
    snprintf(name, sizeof name, "%s", fv_cache_shm_name());
    CHECK(!strncmp(name, "/fovea-cache-", 13));
    CHECK(shm_exists(name));
    fv_cache_stats a = stats();
    CHECK(a.capacity == 8u << 20 && a.hits == 0 && a.misses == 0 && a.entries == 0);

    /* the parent reads the top half; a fork child reads everything (top: hits, bottom:
     * misses that it inserts) and leaves with _exit like a DataLoader worker; then the
     * parent hits the bottom half */
    CHECK(region_ok(s, 0, 0, W, H / 2));
    a = stats();
    CHECK(a.misses == NTILES / 2 && a.entries == NTILES / 2);
    pid_t pid = fork();
    if (pid == 0) {
        fv_cache_stats c0 = stats();
        int ok = region_ok(s, 0, 0, W, H);
        fv_cache_stats c1 = stats();
        ok &= c1.hits - c0.hits == NTILES / 2 && c1.misses - c0.misses == NTILES / 2;
        _exit(ok ? 0 : 1);
    }
    CHECK(wait_ok(pid));
    fv_cache_stats b = stats();
    CHECK(b.entries == NTILES && b.bytes == (uint64_t)NTILES * TILE_BYTES);
    CHECK(region_ok(s, 0, H / 2, W, H / 2));
    fv_cache_stats c = stats();
    CHECK(c.hits == b.hits + NTILES / 2 && c.misses == b.misses);
    CHECK(consistent());

    /* a spawned process attaching by name fills an empty cache; the parent then hits */
    fv_cache_clear();
    CHECK(stats().entries == 0);
    char *args1[] = { "child-attach", name, (char *)path, NULL };
    CHECK(wait_ok(spawn_self(self, args1, -1, -1)));
    CHECK(shm_exists(name)); /* the child detached at exit; the parent is still attached */
    b = stats();
    CHECK(b.entries == NTILES);
    CHECK(region_ok(s, 0, 0, W, H));
    c = stats();
    CHECK(c.hits == b.hits + NTILES && c.misses == b.misses);

    /* a spawned process joining through FOVEA_CACHE_SHM hits everything */
    setenv("FOVEA_CACHE_SHM", name + 1, 1); /* without the slash works too */
    char *args2[] = { "child-env", name, (char *)path, NULL };
    CHECK(wait_ok(spawn_self(self, args2, -1, -1)));
    unsetenv("FOVEA_CACHE_SHM");
    CHECK(stats().hits == c.hits + NTILES);
    CHECK(consistent());

    /* detaching the last process removes the segment */
    CHECK_OK(fv_cache_configure(FV_CACHE_PER_PROCESS, 64u << 20));
    CHECK(!shm_exists(name));
    CHECK(!strcmp(fv_cache_shm_name(), ""));
    CHECK_ERR(fv_cache_attach_shared(name), FV_EIO, "no shared-memory cache named");
}

static void
test_capacity(fv_slide *s)
{
    const uint64_t cap = 1u << 20;
    CHECK_OK(fv_cache_configure(FV_CACHE_SHARED_MEMORY, cap));
    /* four processes (this one and three fork children) hammer 200 keys of 1..60000
     * bytes (~6 MB in all) at once */
    pid_t kids[3];
    for (int i = 0; i < 3; i++) {
        kids[i] = fork();
        if (kids[i] == 0)
            _exit(syn_workload(100u + (unsigned)i, 3000, 200) ? 1 : 0);
    }
    CHECK(syn_workload(7, 3000, 200) == 0);
    for (int i = 0; i < 3; i++)
        CHECK(wait_ok(kids[i]));
    fv_cache_stats a = stats();
    CHECK(a.bytes <= cap && a.capacity == cap);
    CHECK(a.hits + a.misses == 4 * 3000);
    CHECK(a.hits > 0 && a.evictions > 0 && a.entries > 0);
    CHECK(consistent());

    /* one tile larger than the capacity is never cached */
    fv__tile_key big = { 0xb16, 0, 0 };
    int must = 0;
    CHECK(!fv__cache_acquire(&big, &must) && must);
    fv__tile *t = fv__tile_new(cap + 1);
    fv__cache_finish(&big, t);
    fv__tile_unref(t);
    CHECK(!fv__cache_acquire(&big, &must) && must);
    fv__cache_finish(&big, NULL);
    CHECK(stats().bytes <= cap);

    /* the limit can be lowered (for every process), not raised past the segment */
    CHECK_OK(fv_cache_set_capacity(3u * TILE_BYTES));
    CHECK(region_ok(s, 0, 0, W, H));
    a = stats();
    CHECK(a.capacity == 3u * TILE_BYTES && a.bytes <= a.capacity && a.entries <= 3);
    CHECK_ERR(fv_cache_set_capacity(cap + 1), FV_EINVAL, "holds at most 1048576 bytes");
    CHECK_OK(fv_cache_set_capacity(0));
    CHECK(region_ok(s, 0, 0, 100, 100));
    CHECK(stats().entries == 0);
    CHECK_OK(fv_cache_set_capacity(cap));
    CHECK(consistent());
}

/* A child dies (SIGKILL) holding the lock with an operation half done: the parent's
 * next call recovers (EOWNERDEAD), repairs, and the cache stays consistent. */
static void
test_owner_dead(void)
{
    CHECK_OK(fv_cache_configure(FV_CACHE_SHARED_MEMORY, 4u << 20));
    for (int stage = 1; stage <= 4; stage++) {
        fv_cache_clear();
        for (uint64_t k = 1000; k < 1010; k++)
            CHECK(syn_get(k) == 0);
        uint64_t r0 = fv__cache_repairs();
        pid_t pid = fork();
        if (pid == 0) {
            if (fv__cache_test_lock_and_break(stage) == 0)
                raise(SIGKILL);
            _exit(1);
        }
        int status = 0;
        CHECK(waitpid(pid, &status, 0) == pid && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
        int hits = 0, bad = 0;
        for (uint64_t k = 1009; k >= 1000; k--) { /* the first call finds the lock owner dead */
            int r = syn_get(k);
            hits += r == 1;
            bad += r < 0;
        }
        CHECK(bad == 0);
        /* stage 3 lost the LRU tail (evicted); all else survives */
        CHECK(hits == (stage == 3 ? 9 : 10));
        CHECK(fv__cache_repairs() == r0 + 1);
        fv__tile_key dead = { 0xdead, 1, 1 }; /* stage 2's half-done insert is gone */
        int must = 0;
        fv__tile *t = fv__cache_acquire(&dead, &must);
        CHECK(!t && must);
        fv__cache_finish(&dead, NULL);
        CHECK(consistent());
        if (fv_t_fail)
            fprintf(stderr, "  (owner-dead stage %d)\n", stage);
    }
    CHECK(syn_workload(99, 2000, 100) == 0); /* still fully usable */
    CHECK(consistent());
    CHECK(stats().bytes <= 4u << 20);
}

/* The segment is removed when its last process detaches, including when the others
 * died without detaching; a fork child that never used the cache does not count. */
static void
test_unlink(const char *self)
{
    char name[256];
    /* the parent detaches first; a spawned holder is the last and removes it at exit */
    CHECK_OK(fv_cache_configure(FV_CACHE_SHARED_MEMORY, 1u << 20));
    snprintf(name, sizeof name, "%s", fv_cache_shm_name());
    int in[2], out[2];
    CHECK(pipe2(in, O_CLOEXEC) == 0 && pipe2(out, O_CLOEXEC) == 0);
    char *args[] = { "child-hold", name, NULL };
    pid_t pid = spawn_self(self, args, in[0], out[1]);
    close(in[0]);
    close(out[1]);
    char c = 0;
    CHECK(read(out[0], &c, 1) == 1 && c == 'r');
    close(out[0]);
    CHECK_OK(fv_cache_configure(FV_CACHE_NONE, 0));
    CHECK(shm_exists(name));
    close(in[1]); /* the holder exits */
    CHECK(wait_ok(pid));
    CHECK(!shm_exists(name));

    /* children that died without detaching: a zombie (not reaped yet) and a reaped one */
    for (int reap = 0; reap < 2; reap++) {
        CHECK_OK(fv_cache_configure(FV_CACHE_SHARED_MEMORY, 1u << 20));
        snprintf(name, sizeof name, "%s", fv_cache_shm_name());
        pid = fork();
        if (pid == 0) {
            syn_get(5); /* registers on first use */
            raise(SIGKILL);
            _exit(1);
        }
        if (reap) {
            int st;
            waitpid(pid, &st, 0);
        } else {
            siginfo_t si; /* wait until it is a zombie, without reaping it */
            waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT);
        }
        CHECK(syn_get(5) == 1); /* the child's insert */
        CHECK_OK(fv_cache_configure(FV_CACHE_PER_PROCESS, 1u << 20));
        CHECK(!shm_exists(name));
        if (!reap) {
            int st;
            waitpid(pid, &st, 0);
        }
    }

    /* a fork child that used the cache registered: it keeps the segment after the
     * parent leaves, and removes it when it exits */
    CHECK_OK(fv_cache_configure(FV_CACHE_SHARED_MEMORY, 1u << 20));
    snprintf(name, sizeof name, "%s", fv_cache_shm_name());
    int q[2];
    CHECK(pipe(q) == 0);
    pid = fork();
    if (pid == 0) {
        close(q[1]);
        int ok = syn_get(6) == 0;
        char x;
        while (read(q[0], &x, 1) > 0) {
        }
        ok &= syn_get(6) == 1;
        exit(ok ? 0 : 1); /* atexit: detach, the last one: unlink */
    }
    close(q[0]);
    struct timespec ts = { 0, 1000 * 1000 };
    for (int i = 0; i < 5000 && stats().entries == 0; i++) /* until the child has used it */
        nanosleep(&ts, NULL);
    CHECK_OK(fv_cache_configure(FV_CACHE_PER_PROCESS, 1u << 20));
    CHECK(shm_exists(name));
    close(q[1]);
    CHECK(wait_ok(pid));
    CHECK(!shm_exists(name));

    /* a segment whose processes all died without detaching (a DataLoader whose parent
     * was killed: the workers leave with _exit) is collected by the next creation */
    CHECK_OK(fv_cache_configure(FV_CACHE_NONE, 0));
    int g[2];
    CHECK(pipe(g) == 0);
    pid = fork();
    if (pid == 0) {
        close(g[0]);
        if (fv_cache_configure(FV_CACHE_SHARED_MEMORY, 1u << 20) != FV_OK)
            _exit(1);
        syn_get(9);
        const char *nm = fv_cache_shm_name();
        if (write(g[1], nm, strlen(nm) + 1) != (ssize_t)strlen(nm) + 1)
            _exit(2);
        _exit(0);
    }
    close(g[1]);
    char leaked[256] = "";
    CHECK(read(g[0], leaked, sizeof leaked - 1) > 0);
    close(g[0]);
    CHECK(wait_ok(pid));
    CHECK(leaked[0] && shm_exists(leaked));
    CHECK_OK(fv_cache_configure(FV_CACHE_SHARED_MEMORY, 1u << 20));
    CHECK(!shm_exists(leaked));
    CHECK_OK(fv_cache_configure(FV_CACHE_PER_PROCESS, 1u << 20));

    /* a fork child that never touches the cache (fork + exec, say) does not keep it */
    CHECK_OK(fv_cache_configure(FV_CACHE_SHARED_MEMORY, 1u << 20));
    snprintf(name, sizeof name, "%s", fv_cache_shm_name());
    int p[2];
    CHECK(pipe(p) == 0);
    pid = fork();
    if (pid == 0) {
        close(p[1]);
        char x;
        while (read(p[0], &x, 1) > 0) {
        }
        _exit(0);
    }
    close(p[0]);
    CHECK_OK(fv_cache_configure(FV_CACHE_PER_PROCESS, 1u << 20));
    CHECK(!shm_exists(name));
    close(p[1]);
    CHECK(wait_ok(pid));
}

/* Workers killed at random moments (often inside the lock, mid-copy or mid-update)
 * while the others keep going: no worker ever reads a wrong tile, and the segment
 * ends consistent. */
static void
test_random_kills(void)
{
    enum {
        NK = 6
    };
    CHECK_OK(fv_cache_configure(FV_CACHE_SHARED_MEMORY, 512u << 10));
    pid_t kids[NK];
    int bad = 0, killed = 0;
    for (int i = 0; i < NK; i++)
        if ((kids[i] = fork()) == 0)
            for (unsigned seed = (unsigned)i;; seed += 17)
                if (syn_workload(seed, 50, 120))
                    _exit(1);
    unsigned r = 12345;
    struct timespec ts = { 0, 2 * 1000 * 1000 };
    for (int round = 0; round < 150; round++) {
        nanosleep(&ts, NULL);
        r = r * 1103515245u + 12345u;
        int i = (int)((r >> 8) % NK);
        int st = 0;
        kill(kids[i], SIGKILL);
        waitpid(kids[i], &st, 0);
        bad += !(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
        killed++;
        if ((kids[i] = fork()) == 0)
            for (unsigned seed = (unsigned)round;; seed += 17)
                if (syn_workload(seed, 50, 120))
                    _exit(1);
    }
    for (int i = 0; i < NK; i++) {
        int st = 0;
        kill(kids[i], SIGKILL);
        waitpid(kids[i], &st, 0);
        bad += !(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
    }
    CHECK(bad == 0);
    CHECK(syn_workload(4242, 2000, 120) == 0);
    CHECK(consistent());
    fv_cache_stats a = stats();
    CHECK(a.bytes <= a.capacity && a.entries > 0);
    printf("random kills: %d workers killed, %llu lock recoveries\n", killed, (unsigned long long)fv__cache_repairs());
}

static void
test_switching(fv_slide *s)
{
    fv_cache_type seq[] = { FV_CACHE_PER_PROCESS,   FV_CACHE_SHARED_MEMORY, FV_CACHE_NONE, FV_CACHE_SHARED_MEMORY,
                            FV_CACHE_SHARED_MEMORY, FV_CACHE_PER_PROCESS,   FV_CACHE_NONE, FV_CACHE_PER_PROCESS };
    char prev[256] = "";
    for (size_t i = 0; i < sizeof seq / sizeof seq[0]; i++) {
        CHECK_OK(fv_cache_configure(seq[i], 2u << 20));
        CHECK(fv_cache_type_get() == seq[i]);
        CHECK((seq[i] == FV_CACHE_SHARED_MEMORY) == (fv_cache_shm_name()[0] != '\0'));
        if (prev[0])
            CHECK(!shm_exists(prev)); /* the previous segment went with the switch */
        snprintf(prev, sizeof prev, "%s", fv_cache_shm_name());
        fv_cache_stats a = stats();
        CHECK(a.hits == 0 && a.misses == 0 && a.entries == 0);
        CHECK(region_ok(s, 10, 10, 300, 200));
        CHECK(region_ok(s, 10, 10, 300, 200));
        fv_cache_stats b = stats();
        if (seq[i] == FV_CACHE_NONE)
            CHECK(b.hits == 0 && b.misses == 2 * 20);
        else
            CHECK(b.hits == 20 && b.misses == 20 && b.entries == 20);
    }
}

typedef struct {
    fv_slide *s;
    unsigned seed;
    int ok;
} targ;

static void *
reader(void *p)
{
    targ *a = p;
    a->ok = 1;
    unsigned seed = a->seed;
    for (int i = 0; i < 30; i++) {
        seed = seed * 1103515245u + 12345u;
        int64_t x = (seed >> 4) % (W - 100), y = (seed >> 12) % (H - 100);
        a->ok &= region_ok(a->s, x, y, 100, 100);
    }
    a->ok &= syn_workload(a->seed, 300, 150) == 0;
    return NULL;
}

typedef struct {
    int must;
    int ok;
} darg;

static void *
dedup(void *p)
{
    darg *a = p;
    fv__tile_key key = { 0xded0, 3, 3 };
    fv__tile *t = fv__cache_acquire(&key, &a->must);
    if (a->must) {
        struct timespec ts = { 0, 20 * 1000 * 1000 };
        nanosleep(&ts, NULL);
        t = fv__tile_new(1000);
        memset(t->data, 0x5a, 1000);
        fv__cache_finish(&key, t);
    }
    a->ok = t && t->nbytes == 1000 && t->data[999] == 0x5a;
    fv__tile_unref(t);
    return NULL;
}

static void
test_threads(fv_slide *s)
{
    for (int round = 0; round < 2; round++) {
        CHECK_OK(fv_cache_configure(round ? FV_CACHE_SHARED_MEMORY : FV_CACHE_PER_PROCESS, 2u << 20));
        pthread_t th[8];
        targ ta[8];
        for (int i = 0; i < 8; i++) {
            ta[i] = (targ){ s, (unsigned)(i + 1) * 7919u, 0 };
            pthread_create(&th[i], NULL, reader, &ta[i]);
        }
        int all = 1;
        for (int i = 0; i < 8; i++) {
            pthread_join(th[i], NULL);
            all &= ta[i].ok;
        }
        CHECK(all);
        fv_cache_stats a = stats();
        CHECK(a.bytes <= a.capacity && a.hits > 0);
        CHECK(consistent());

        /* concurrent requests for one key decode it once */
        fv_cache_reset_stats();
        darg da[8];
        for (int i = 0; i < 8; i++) {
            da[i] = (darg){ 0, 0 };
            pthread_create(&th[i], NULL, dedup, &da[i]);
        }
        int musts = 0;
        all = 1;
        for (int i = 0; i < 8; i++) {
            pthread_join(th[i], NULL);
            musts += da[i].must;
            all &= da[i].ok;
        }
        CHECK(all && musts == 1);
        a = stats();
        CHECK(a.misses == 1 && a.hits == 7);
    }
    /* a reconfiguration while readers run */
    pthread_t th[4];
    targ ta[4];
    for (int i = 0; i < 4; i++) {
        ta[i] = (targ){ s, (unsigned)(i + 11), 0 };
        pthread_create(&th[i], NULL, reader, &ta[i]);
    }
    for (int i = 0; i < 6; i++)
        CHECK_OK(fv_cache_configure((fv_cache_type)(i % 3), 1u << 20));
    int all = 1;
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        all &= ta[i].ok;
    }
    CHECK(all);
}

/* ---- memory pressure: many readers, a capacity of a few tiles or less -------------------- */

typedef struct parg {
    atomic_int *stop;
    int64_t snapshots, over, odd; /* stats seen; bytes > capacity; bytes != entries x tile */
    uint64_t max_entries;
} parg;

static void *
pressure_monitor(void *p)
{
    parg *a = p;
    while (!atomic_load(a->stop)) {
        fv_cache_stats st = stats(); /* one lock: bytes and capacity of the same moment */
        a->snapshots++;
        a->over += st.bytes > st.capacity;
        a->odd += st.bytes != st.entries * (uint64_t)TILE_BYTES;
        if (st.entries > a->max_entries)
            a->max_entries = st.entries;
        struct timespec ts = { 0, 20 * 1000 };
        nanosleep(&ts, NULL);
    }
    return NULL;
}

typedef struct rarg {
    fv_slide *s;
    unsigned seed;
    int ok;
} rarg;

static void *
pressure_reader(void *p)
{
    rarg *a = p;
    a->ok = 1;
    unsigned seed = a->seed;
    for (int i = 0; i < 25 && a->ok; i++) {
        seed = seed * 1103515245u + 12345u;
        int64_t w = 1 + (seed >> 20) % 150, h = 1 + (seed >> 8) % 150;
        int64_t x = (seed >> 3) % (W - w + 1), y = (seed >> 13) % (H - h + 1);
        a->ok = region_ok(a->s, x, y, w, h);
    }
    return NULL;
}

/* 12 readers check their pixels while a monitor checks, at every statistics
 * snapshot, that the cached bytes stay within the capacity (all tiles here have the
 * same size, so bytes = entries x tile), and the capacity changes under them. */
static void
test_pressure(fv_slide *s)
{
    static const uint64_t caps[] = { 0, TILE_BYTES - 1, TILE_BYTES, 2 * TILE_BYTES + 5, 5 * TILE_BYTES };
    for (int type = 0; type < 2; type++)
        for (size_t c = 0; c < sizeof caps / sizeof caps[0]; c++) {
            uint64_t cap = caps[c];
            if (type == 1 && cap < 64)
                continue; /* a segment holds at least 64 bytes */
            CHECK_OK(fv_cache_configure(type ? FV_CACHE_SHARED_MEMORY : FV_CACHE_PER_PROCESS, cap));
            atomic_int stop = 0;
            parg mon = { .stop = &stop };
            pthread_t mt, th[12];
            rarg ra[12];
            pthread_create(&mt, NULL, pressure_monitor, &mon);
            for (int i = 0; i < 12; i++) {
                ra[i] = (rarg){ s, (unsigned)(c * 100 + (size_t)i + 1) * 2654435761u, 0 };
                pthread_create(&th[i], NULL, pressure_reader, &ra[i]);
            }
            /* the capacity shrinks and grows back while they read */
            for (int k = 0; k < 20; k++) {
                CHECK_OK(fv_cache_set_capacity(k % 2 ? cap / 2 : cap));
                struct timespec ts = { 0, 2 * 1000 * 1000 };
                nanosleep(&ts, NULL);
            }
            int all = 1;
            for (int i = 0; i < 12; i++) {
                pthread_join(th[i], NULL);
                all &= ra[i].ok;
            }
            atomic_store(&stop, 1);
            pthread_join(mt, NULL);
            CHECK(all);
            CHECK(mon.snapshots > 0 && mon.over == 0 && mon.odd == 0);
            CHECK(mon.max_entries <= cap / TILE_BYTES);
            CHECK(consistent());
            fv_cache_stats st = stats();
            CHECK(st.bytes <= st.capacity && st.misses > 0);
            if (cap < TILE_BYTES)
                CHECK(st.entries == 0 && st.hits == 0);
            printf("pressure (%s, capacity %llu = %.2f tiles): %lld snapshots, at most %llu tiles held, "
                   "%llu hits / %llu misses / %llu evictions\n",
                   type ? "shared memory" : "per process", (unsigned long long)cap, (double)cap / TILE_BYTES,
                   (long long)mon.snapshots, (unsigned long long)mon.max_entries, (unsigned long long)st.hits,
                   (unsigned long long)st.misses, (unsigned long long)st.evictions);
        }
}

int
main(int argc, char **argv)
{
    if (argc > 1 && !strncmp(argv[1], "child-", 6))
        return child_main(argc, argv);
    alarm(300); /* a lock that never recovers fails the test instead of hanging it */
    unsetenv("FOVEA_CACHE_BYTES");
    unsetenv("FOVEA_CACHE_SHM");
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return 1;
    self[n] = '\0';
    char dir[] = "/tmp/fovea-test-cache-XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    char path[256];
    snprintf(path, sizeof path, "%s/a.tif", dir);
    write_tiled_tiff(path);
    fv_slide *s = NULL;
    CHECK_OK(fv_slide_open(path, &s));
    if (!s)
        return fv_t_summary("test_cache");

    /* "threads": only the multi-threaded parts (ThreadSanitizer in tools/test) */
    if (!(argc > 1 && !strcmp(argv[1], "threads"))) {
        test_per_process(s);
        test_bad_arguments();
        test_nocache(s);
        test_shared_processes(s, self, path);
        test_capacity(s);
        test_owner_dead();
        test_unlink(self);
        test_random_kills();
        test_switching(s);
    }
    test_threads(s); /* last: threads exist from here on */
    test_pressure(s);

    CHECK_OK(fv_cache_configure(FV_CACHE_SHARED_MEMORY, 1u << 20));
    char name[256];
    snprintf(name, sizeof name, "%s", fv_cache_shm_name());
    CHECK_OK(fv_cache_configure(FV_CACHE_PER_PROCESS, 1u << 20));
    CHECK(!shm_exists(name));
    fv_slide_unref(s);
    unlink(path);
    rmdir(dir);
    return fv_t_summary("test_cache");
}
