/* fv_file: positional reads and writes between files and host or device memory
 * (include/fovea/filesystem.h). The POSIX part lives here and is always built;
 * device buffers go to cuFile or to the pinned-buffer staging of the CUDA backend
 * (src/cuda/io), which CPU-only builds replace with stubs.
 *
 * Host transfers of 4 MiB and more are split into 2 MiB pieces read or written
 * in parallel on the library's thread pool (page-cache copies and NVMe queues
 * both scale with it). O_DIRECT files keep a second, buffered descriptor for the
 * parts of a transfer that are not 4096-aligned. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "alloc.h"
#include "cuda/io/cuda-io.h"
#include "core/config.h"

#ifndef O_DIRECT
#define O_DIRECT 0
#endif

#define FV__IO_ALIGN ((size_t)4096)
#define FV__IO_PIECE ((size_t)2 << 20)    /* parallel unit for host transfers */
#define FV__IO_ROUND_PIECES 64            /* pieces per parallel round (128 MiB) */
#define FV__IO_MAX_CALL ((size_t)1 << 30) /* bytes per read/write system call */

struct fv_file {
    int fd;  /* as opened: O_DIRECT when direct */
    int bfd; /* buffered twin for unaligned parts of O_DIRECT files; == fd otherwise */
    int direct;
    int writable;
    int readable;
    void *cufile;    /* registered cuFile handle, or NULL */
    int cufile_mode; /* FV__CUFILE_* the handle was registered under */
    atomic_int cufile_failed;
    char *path;
};

/* ---- flags ---------------------------------------------------------------------- */

static fv_status
parse_flags(const char *flags, int *oflags, int *direct, int *no_gds)
{
    const char *p = flags;
    if (!flags || !*flags)
        return fv_error_set(FV_EINVAL, "filesystem", "open: empty flags (use \"r\", \"r+\", \"w\" or \"a\")");
    switch (*p++) {
    case 'r':
        *oflags = O_RDONLY;
        break;
    case 'w':
        *oflags = O_RDWR | O_CREAT | O_TRUNC;
        break;
    case 'a':
        *oflags = O_RDWR | O_CREAT;
        break;
    default:
        return fv_error_set(FV_EINVAL, "filesystem", "open: flags \"%s\" must start with 'r', 'w' or 'a'", flags);
    }
    if (*p == '+') {
        if (*oflags == O_RDONLY)
            *oflags = O_RDWR;
        p++;
    }
    *direct = 1;
    *no_gds = 0;
    for (; *p; p++) {
        switch (*p) {
        case 'n':
        case 'm':
            *direct = 0;
            break;
        case 'p':
            *no_gds = 1;
            break;
        case 'b':
            break;
        default:
            return fv_error_set(FV_EINVAL, "filesystem",
                                "open: unknown flag '%c' in \"%s\" (\"r\", \"r+\", \"w\" or \"a\", then "
                                "any of 'n' no O_DIRECT, 'p' POSIX only, 'm', 'b')",
                                *p, flags);
        }
    }
    return FV_OK;
}

/* FOVEA_CUFILE: "off" never, "compat"/"on" also in compatibility mode, else GDS only. */
static int
cufile_wanted_mode(void)
{
    const char *e = fv__env(FV__ENV_CUFILE);
    if (e && (!strcmp(e, "off") || !strcmp(e, "0") || !strcmp(e, "no")))
        return 0;
    if (e && (!strcmp(e, "compat") || !strcmp(e, "on") || !strcmp(e, "1")))
        return FV__CUFILE_COMPAT;
    return FV__CUFILE_GDS;
}

/* ---- open / close ---------------------------------------------------------------- */

/* The buffered twin of an O_DIRECT descriptor: the same open file reopened
 * through /proc (the same inode even after a rename), else by path. */
static int
open_twin(int fd, const char *path, int oflags)
{
    char proc[64];
    int fl = (oflags & O_ACCMODE) | O_CLOEXEC;
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    int t = open(proc, fl);
    if (t < 0 && path && *path)
        t = open(path, fl);
    return t;
}

/* Completes f around f->fd (set): twin, cuFile registration. Owns nothing on failure
 * except what it sets in f. */
static fv_status
file_setup(fv_file *f, int oflags, int no_gds)
{
    struct stat st;
    if (fstat(f->fd, &st) != 0)
        return fv_error_set(FV_EIO, "filesystem", "fstat(%s): %s", f->path, strerror(errno));
    if (S_ISDIR(st.st_mode))
        return fv_error_set(FV_EIO, "filesystem", "open(%s): %s", f->path, strerror(EISDIR));
    int acc = oflags & O_ACCMODE;
    f->readable = acc == O_RDONLY || acc == O_RDWR;
    f->writable = acc == O_WRONLY || acc == O_RDWR;
    f->bfd = f->fd;
    if (f->direct) {
        int t = open_twin(f->fd, f->path, oflags);
        if (t < 0)
            return fv_error_set(FV_EIO, "filesystem", "open(%s) without O_DIRECT (for unaligned transfers): %s",
                                f->path, strerror(errno));
        f->bfd = t;
    }
    /* cuFile only for O_DIRECT files (GDS needs it), when asked and working */
    int want = cufile_wanted_mode();
    if (f->direct && !no_gds && want && S_ISREG(st.st_mode)) {
        int mode = fv__cufile_mode();
        if (mode >= want) {
            void *h = NULL;
            if (fv__cufile_register(f->fd, &h) == FV_OK) {
                f->cufile = h;
                f->cufile_mode = mode;
            }
            fv_error_clear(); /* a refused file just takes the POSIX path */
        }
    }
    return FV_OK;
}

static fv_status
file_new(const char *path, fv_file **out)
{
    fv_file *f = fv__calloc(1, sizeof *f);
    if (!f || !(f->path = fv__strdup(path ? path : ""))) {
        fv__free(f);
        return fv_error_set(FV_ENOMEM, "filesystem", "out of memory");
    }
    f->fd = f->bfd = -1;
    atomic_init(&f->cufile_failed, 0);
    *out = f;
    return FV_OK;
}

static void
file_free(fv_file *f)
{
    fv__cufile_deregister(f->cufile);
    if (f->bfd >= 0 && f->bfd != f->fd)
        close(f->bfd);
    fv__free(f->path);
    fv__free(f);
}

fv_status
fv_file_open(const char *path, const char *flags, unsigned int mode, fv_file **out)
{
    int oflags = 0, direct = 0, no_gds = 0;
    fv_file *f = NULL;
    fv_status st;
    if (!out)
        return fv_error_set(FV_EINVAL, "filesystem", "open: out is NULL");
    *out = NULL;
    if (!path || !*path)
        return fv_error_set(FV_EINVAL, "filesystem", "open: empty path");
    if ((st = parse_flags(flags, &oflags, &direct, &no_gds)) != FV_OK)
        return st;
    if ((st = file_new(path, &f)) != FV_OK)
        return st;
    f->direct = direct && O_DIRECT != 0;
    do
        f->fd = open(path, oflags | O_CLOEXEC | (f->direct ? O_DIRECT : 0), (mode_t)mode);
    while (f->fd < 0 && errno == EINTR);
    if (f->fd < 0 && f->direct && errno == EINVAL) { /* the filesystem refuses O_DIRECT */
        f->direct = 0;
        f->fd = open(path, oflags | O_CLOEXEC, (mode_t)mode);
    }
    if (f->fd < 0) {
        st = fv_error_set(FV_EIO, "filesystem", "open(%s, \"%s\"): %s", path, flags, strerror(errno));
        goto done;
    }
    st = file_setup(f, oflags, no_gds);
done:
    if (st != FV_OK) {
        if (f->fd >= 0)
            close(f->fd);
        file_free(f);
        return st;
    }
    *out = f;
    return FV_OK;
}

fv_status
fv_file_from_fd(int fd, int no_gds, const char *path, fv_file **out)
{
    char link[PATH_MAX];
    fv_file *f = NULL;
    fv_status st;
    if (!out)
        return fv_error_set(FV_EINVAL, "filesystem", "from_fd: out is NULL");
    *out = NULL;
    int fl = fd >= 0 ? fcntl(fd, F_GETFL) : -1;
    if (fl < 0)
        return fv_error_set(FV_EINVAL, "filesystem", "from_fd: %d is not an open descriptor", fd);
    if (!path || !*path) {
        char proc[64];
        snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
        ssize_t n = readlink(proc, link, sizeof link - 1);
        link[n > 0 ? n : 0] = '\0';
        path = link;
    }
    if ((st = file_new(path, &f)) != FV_OK)
        return st;
    f->fd = fd;
    f->direct = O_DIRECT != 0 && (fl & O_DIRECT) != 0;
    st = file_setup(f, fl, no_gds);
    if (st != FV_OK) {
        if (f->bfd == fd)
            f->bfd = -1;
        f->fd = -1; /* the caller keeps fd */
        file_free(f);
        return st;
    }
    *out = f;
    return FV_OK;
}

fv_status
fv_file_close(fv_file *f)
{
    fv_status st = FV_OK;
    if (!f)
        return FV_OK;
    fv__cufile_deregister(f->cufile);
    f->cufile = NULL;
    if (f->bfd >= 0 && f->bfd != f->fd && close(f->bfd) != 0 && errno != EINTR)
        st = fv_error_set(FV_EIO, "filesystem", "close(%s): %s", f->path, strerror(errno));
    f->bfd = -1;
    /* EINTR from close: the descriptor is gone on Linux; nothing to retry */
    if (f->fd >= 0 && close(f->fd) != 0 && errno != EINTR && st == FV_OK)
        st = fv_error_set(FV_EIO, "filesystem", "close(%s): %s", f->path, strerror(errno));
    f->fd = -1;
    file_free(f);
    return st;
}

const char *
fv_file_path(const fv_file *f)
{
    return f ? f->path : "";
}
int
fv_file_fd(const fv_file *f)
{
    return f ? f->fd : -1;
}
int
fv_file_direct(const fv_file *f)
{
    return f ? f->direct : 0;
}
int
fv_file_writable(const fv_file *f)
{
    return f ? f->writable : 0;
}

const char *
fv_file_backend(const fv_file *f)
{
    if (!f || !f->cufile || atomic_load(&f->cufile_failed))
        return "posix";
    return f->cufile_mode == FV__CUFILE_GDS ? "cufile" : "cufile-compat";
}

/* ---- host transfers ----------------------------------------------------------------- */

typedef struct io_err {
    int err; /* errno of the first failure, 0 when none */
    const char *call;
    uint64_t off;
} io_err;

/* Move len bytes at off through one descriptor, looping over EINTR and partial
 * transfers. Reads stop at end of file. Returns bytes moved; sets *e on failure.
 * stop_unaligned: an O_DIRECT descriptor; stop (without error) when progress
 * leaves alignment or the kernel refuses the alignment (EINVAL). */
static size_t
io_loop(int fd, int write, char *buf, size_t len, uint64_t off, int stop_unaligned, io_err *e)
{
    size_t done = 0;
    while (done < len) {
        size_t n = len - done < FV__IO_MAX_CALL ? len - done : FV__IO_MAX_CALL;
        ssize_t r =
            write ? pwrite(fd, buf + done, n, (off_t)(off + done)) : pread(fd, buf + done, n, (off_t)(off + done));
        if (r < 0) {
            if (errno == EINTR)
                continue;
            if (stop_unaligned && errno == EINVAL)
                break;
            e->err = errno;
            e->call = write ? "pwrite" : "pread";
            e->off = off + done;
            break;
        }
        if (r == 0) {
            if (write && !stop_unaligned) { /* no progress and no error: give up */
                e->err = EIO;
                e->call = "pwrite";
                e->off = off + done;
            }
            break;
        }
        done += (size_t)r;
        if (stop_unaligned && ((size_t)r & (FV__IO_ALIGN - 1)))
            break;
    }
    return done;
}

/* One span: the aligned body through the O_DIRECT descriptor, the rest (and all
 * of an unaligned span) through the buffered one. */
static size_t
io_span(const fv_file *f, int write, char *buf, size_t len, uint64_t off, io_err *e)
{
    size_t done = 0;
    if (f->direct && (((uintptr_t)buf | (uintptr_t)off) & (FV__IO_ALIGN - 1)) == 0) {
        size_t body = len & ~(FV__IO_ALIGN - 1);
        if (body)
            done = io_loop(f->fd, write, buf, body, off, 1, e);
        if (e->err)
            return done;
    }
    if (done < len) {
        size_t rest = io_loop(f->bfd, write, buf + done, len - done, off + done, 0, e);
        done += rest;
    }
    return done;
}

typedef struct io_job {
    const fv_file *f;
    int write;
    char *buf;
    size_t len;
    uint64_t off;
    size_t got[FV__IO_ROUND_PIECES];
    io_err err;
    pthread_mutex_t mu;
} io_job;

static void
io_pieces(void *arg, int64_t begin, int64_t end)
{
    io_job *j = arg;
    for (int64_t i = begin; i < end; i++) {
        size_t a = (size_t)i * FV__IO_PIECE;
        size_t n = j->len - a < FV__IO_PIECE ? j->len - a : FV__IO_PIECE;
        io_err e = { 0, NULL, 0 };
        j->got[i] = io_span(j->f, j->write, j->buf + a, n, j->off + a, &e);
        if (e.err) {
            pthread_mutex_lock(&j->mu);
            if (!j->err.err || e.off < j->err.off)
                j->err = e;
            pthread_mutex_unlock(&j->mu);
        }
    }
}

static fv_status
io_error(const fv_file *f, const io_err *e, size_t len)
{
    return fv_error_set(FV_EIO, "filesystem", "%s(%s, offset %llu, %zu bytes): %s", e->call, f->path,
                        (unsigned long long)e->off, len, strerror(e->err));
}

/* Host memory <-> file, in parallel rounds of pieces for large transfers. */
static fv_status
io_host(const fv_file *f, int write, char *buf, size_t len, uint64_t off, size_t *done)
{
    size_t total = 0;
    *done = 0;
    if (len < 2 * FV__IO_PIECE || fv_num_threads() <= 1) {
        io_err e = { 0, NULL, 0 };
        total = io_span(f, write, buf, len, off, &e);
        *done = total;
        return e.err ? io_error(f, &e, len) : FV_OK;
    }
    io_job *j = fv__malloc(sizeof *j);
    if (!j)
        return fv_error_set(FV_ENOMEM, "filesystem", "out of memory");
    pthread_mutex_init(&j->mu, NULL);
    j->f = f;
    j->write = write;
    fv_status st = FV_OK;
    while (total < len) {
        size_t round = len - total;
        if (round > FV__IO_PIECE * FV__IO_ROUND_PIECES)
            round = FV__IO_PIECE * FV__IO_ROUND_PIECES;
        int64_t np = (int64_t)((round + FV__IO_PIECE - 1) / FV__IO_PIECE);
        j->buf = buf + total;
        j->len = round;
        j->off = off + total;
        j->err = (io_err){ 0, NULL, 0 };
        fv__parallel_for(NULL, np, 1, io_pieces, j);
        /* the bytes moved: pieces in order up to the first short one */
        size_t got = 0;
        int short_piece = 0;
        for (int64_t i = 0; i < np; i++) {
            size_t want =
                round - (size_t)i * FV__IO_PIECE < FV__IO_PIECE ? round - (size_t)i * FV__IO_PIECE : FV__IO_PIECE;
            got += j->got[i];
            if (j->got[i] < want) {
                short_piece = 1;
                break;
            }
        }
        total += got;
        if (j->err.err) {
            st = io_error(f, &j->err, len);
            break;
        }
        if (short_piece) /* end of file */
            break;
    }
    pthread_mutex_destroy(&j->mu);
    fv__free(j);
    *done = total;
    return st;
}

/* fv__host_io_fn for the staging: arg is the fv_file */
static fv_status
stage_read(void *arg, void *host, size_t len, uint64_t off, size_t *done)
{
    return io_host(arg, 0, host, len, off, done);
}

static fv_status
stage_write(void *arg, void *host, size_t len, uint64_t off, size_t *done)
{
    fv_status st = io_host(arg, 1, host, len, off, done);
    if (st == FV_OK && *done < len)
        st = fv_error_set(FV_EIO, "filesystem", "pwrite(%s, offset %llu): wrote %zu of %zu bytes",
                          ((fv_file *)arg)->path, (unsigned long long)off, *done, len);
    return st;
}

/* ---- pread / pwrite ------------------------------------------------------------------ */

static fv_status
check_args(const char *what, const fv_file *f, const void *buf, fv_device dev, size_t count, uint64_t off)
{
    if (!f || f->fd < 0)
        return fv_error_set(FV_EINVAL, "filesystem", "%s: file is NULL or closed", what);
    if (count > (size_t)SSIZE_MAX || off > (uint64_t)INT64_MAX || count > (uint64_t)INT64_MAX - off)
        return fv_error_set(FV_EINVAL, "filesystem", "%s: offset %llu + count %zu is out of range", what,
                            (unsigned long long)off, count);
    if (!buf && count)
        return fv_error_set(FV_EINVAL, "filesystem", "%s: buffer is NULL", what);
    if (dev.type != FV_DEVICE_CPU && dev.type != FV_DEVICE_CUDA)
        return fv_error_set(FV_EINVAL, "filesystem", "%s: unknown device type %d", what, (int)dev.type);
    if (dev.type == FV_DEVICE_CUDA)
        return fv__cuda_check_device(dev.id);
    return FV_OK;
}

fv_status
fv_file_pread(fv_file *f, void *buf, fv_device dev, size_t count, uint64_t off, size_t *nread)
{
    fv_status st;
    size_t done = 0, more = 0;
    if (nread)
        *nread = 0;
    if (!nread)
        return fv_error_set(FV_EINVAL, "filesystem", "pread: nread is NULL");
    if ((st = check_args("pread", f, buf, dev, count, off)) != FV_OK)
        return st;
    if (!f->readable)
        return fv_error_set(FV_EINVAL, "filesystem", "pread: %s is not open for reading", f->path);
    if (count == 0)
        return FV_OK;
    if (dev.type == FV_DEVICE_CPU) {
        st = io_host(f, 0, buf, count, off, &done);
        *nread = done;
        return st;
    }
    if (f->cufile && !atomic_load(&f->cufile_failed)) {
        st = fv__cufile_read(f->cufile, dev.id, buf, count, off, &done);
        if (st == FV_OK) {
            *nread = done;
            return FV_OK;
        }
        atomic_store(&f->cufile_failed, 1); /* the rest, and later calls, by POSIX */
    }
    st = fv__cuda_staged_read(dev.id, stage_read, f, (char *)buf + done, count - done, off + done, &more);
    *nread = done + more;
    return st;
}

fv_status
fv_file_pwrite(fv_file *f, const void *buf, fv_device dev, size_t count, uint64_t off, size_t *nwritten)
{
    fv_status st;
    size_t done = 0, more = 0;
    if (nwritten)
        *nwritten = 0;
    if (!nwritten)
        return fv_error_set(FV_EINVAL, "filesystem", "pwrite: nwritten is NULL");
    if ((st = check_args("pwrite", f, buf, dev, count, off)) != FV_OK)
        return st;
    if (!f->writable)
        return fv_error_set(FV_EINVAL, "filesystem", "pwrite: %s is open read-only (use \"r+\", \"w\" or \"a\")",
                            f->path);
    if (count == 0)
        return FV_OK;
    if (dev.type == FV_DEVICE_CPU) {
        st = stage_write(f, (void *)buf, count, off, &done);
        *nwritten = done;
        return st;
    }
    if (f->cufile && !atomic_load(&f->cufile_failed)) {
        st = fv__cufile_write(f->cufile, dev.id, buf, count, off, &done);
        if (st == FV_OK) {
            *nwritten = done;
            return FV_OK;
        }
        atomic_store(&f->cufile_failed, 1);
    }
    st = fv__cuda_staged_write(dev.id, stage_write, f, (const char *)buf + done, count - done, off + done, &more);
    *nwritten = done + more;
    return st;
}

/* ---- page cache and GDS --------------------------------------------------------------- */

fv_status
fv_file_discard_page_cache(const char *path)
{
    fv_status st = FV_OK;
    int fd, r;
    if (!path || !*path)
        return fv_error_set(FV_EINVAL, "filesystem", "discard_page_cache: empty path");
    do
        fd = open(path, O_RDONLY | O_CLOEXEC);
    while (fd < 0 && errno == EINTR);
    if (fd < 0)
        return fv_error_set(FV_EIO, "filesystem", "discard_page_cache: open(%s): %s", path, strerror(errno));
    if (fdatasync(fd) != 0 && errno != EINVAL) { /* EINVAL: special files that cannot sync */
        st = fv_error_set(FV_EIO, "filesystem", "discard_page_cache: fdatasync(%s): %s", path, strerror(errno));
        goto done;
    }
    if ((r = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED)) != 0) /* returns the error number */
        st = fv_error_set(FV_EIO, "filesystem", "discard_page_cache: posix_fadvise(%s): %s", path, strerror(r));
done:
    close(fd);
    return st;
}

int
fv_gds_available(void)
{
    if (!cufile_wanted_mode())
        return 0;
    return fv__cufile_mode() == FV__CUFILE_GDS;
}

const char *
fv_gds_status(void)
{
    if (!cufile_wanted_mode())
        return "unavailable: disabled by FOVEA_CUFILE=off";
    return fv__cufile_status();
}
