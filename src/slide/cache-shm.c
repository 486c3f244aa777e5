/* The shared-memory tile cache: one LRU of decoded tiles in a POSIX shared-memory
 * segment, used by every process attached to it (a DataLoader's workers).
 *
 * Segment layout (offsets from the segment start, so each process may map it
 * anywhere; all sizes derive from the capacity, fixed at creation):
 *
 *   header    magic, version, layout (capacity, block size, counts, offsets), name,
 *             the robust process-shared mutex, then everything the mutex guards:
 *             list heads, LRU clock, statistics, the table of attached pids
 *   entries   nentries x 64 bytes: key, state, nbytes, LRU stamp, first block,
 *             block count, hash-chain link (or free-list link), LRU prev/next
 *   buckets   nbuckets int32 heads of the hash chains (a power of two >= nentries)
 *   next      nblocks int32: the chain of a tile's blocks, or the free-block list
 *   scratch   a bitmap of nblocks bits and nentries (stamp, index) pairs, used
 *             only by repair and check
 *   data      nblocks x block_bytes, page-aligned
 *
 * Allocator: fixed-size blocks (16 KiB, smaller for small capacities so that there
 * are at least 64) chained per tile, so a tile of any size fits as soon as enough
 * blocks are free and nothing ever needs compaction; the waste is under one block
 * per tile. nblocks x block_bytes <= capacity, and an insert also checks the byte
 * count against the limit (fv_cache_set_capacity can lower it), so the cached
 * bytes never exceed the capacity. A tile uses at least one block, so nentries =
 * nblocks entries always suffice. Inserting evicts from the LRU tail until the
 * tile's blocks, its bytes and an entry are free.
 *
 * Crash safety: every update happens under the robust mutex, and each entry's state
 * is the truth: an insert marks its entry WRITING first and READY last (after the
 * data, the block chain, the hash and LRU links), an eviction marks it FREE first.
 * The list heads, hash chains, LRU links, free lists and byte/entry counts are all
 * derived data. When pthread_mutex_lock reports EOWNERDEAD (a process died holding
 * the lock), the repair rebuilds all of them from the READY entries (whose block
 * chains are validated: in range, no block used twice), the LRU order from the
 * stamps, and drops whatever was half done; then pthread_mutex_consistent. Repair
 * is idempotent, so a process dying during repair is repaired again.
 *
 * Lifetime: the header holds the pids (with their start times, so a reused pid is
 * not mistaken for the old process) of the attached processes. A process registers
 * when it creates or attaches, and a fork child on its first use of the inherited
 * mapping (so fork+exec children that never touch the cache do not keep the segment
 * alive). Detaching (at exit, or when the process configures another cache) drops
 * the pid, prunes dead pids (kill(pid, 0) fails with ESRCH, or /proc says zombie or
 * a different start time) and, when no live process is left, shm_unlinks the
 * segment and marks it removed (an attach that raced with the unlink then fails).
 * Attaching prunes dead pids too. The mapping stays valid after the unlink for the
 * processes that hold it. Creating a segment also collects the fovea-cache-*
 * segments in /dev/shm whose processes have all died (DataLoader workers end with
 * os._exit, so when their parent is killed nobody detaches).
 *
 * Liveness is judged by pid, so processes sharing one segment must share a pid
 * namespace (one container). The creating process's name is "/fovea-cache-PID-N",
 * mode 0600 (the same user only).
 *
 * Hits copy the tile out of the segment into a private fv__tile under the lock, so
 * an entry may be evicted at any time without references in shared memory.
 * Decodes of one key are deduplicated within a process (cache.c's pending entries),
 * not across processes: two processes missing the same tile both decode it and the
 * second insert just refreshes the entry. */
#include "cache-shm-internal.h"

/* ---- layout ------------------------------------------------------------------------ */

static uint64_t
fv__align(uint64_t v, uint64_t a)
{
    return (v + a - 1) / a * a;
}

/* Fill the layout fields of L for `capacity`; -1 when it is out of range. */
static int
fv__shm_layout(uint64_t capacity, fv__shm_header *L)
{
    uint64_t bb = FV__SHM_BLOCK_MAX;
    while (bb > 64 && capacity / bb < 64)
        bb /= 2;
    uint64_t nb = capacity / bb;
    if (nb == 0 || nb > (1u << 30))
        return -1;
    uint64_t nbk = 16;
    while (nbk < nb)
        nbk *= 2;
    memset(L, 0, sizeof *L);
    L->magic = FV__CACHE_SHM_MAGIC;
    L->version = FV__CACHE_SHM_VERSION;
    L->header_bytes = (uint32_t)sizeof(fv__shm_header);
    L->capacity = capacity;
    L->block_bytes = bb;
    L->nblocks = (uint32_t)nb;
    L->nentries = (uint32_t)nb;
    L->nbuckets = (uint32_t)nbk;
    L->max_procs = FV__SHM_MAX_PROCS;
    uint64_t off = fv__align(sizeof(fv__shm_header), 64);
    L->off_entries = off;
    off = fv__align(off + nb * sizeof(fv__shm_entry), 64);
    L->off_buckets = off;
    off = fv__align(off + nbk * 4, 64);
    L->off_next = off;
    off = fv__align(off + nb * 4, 64);
    L->off_bitmap = off;
    off = fv__align(off + (nb + 7) / 8, 64);
    L->off_sort = off;
    off = fv__align(off + nb * 16, 4096);
    L->off_data = off;
    L->segment_bytes = off + nb * bb;
    return 0;
}

static void
fv__shm_bind(fv__shm *s, void *map, size_t bytes)
{
    s->h = map;
    s->map_bytes = bytes;
    uint8_t *base = map;
    s->E = (fv__shm_entry *)(base + s->h->off_entries);
    s->B = (int32_t *)(base + s->h->off_buckets);
    s->N = (int32_t *)(base + s->h->off_next);
    s->bitmap = base + s->h->off_bitmap;
    s->sortbuf = (uint64_t *)(base + s->h->off_sort);
    s->data = base + s->h->off_data;
    s->pid = getpid();
}

const char *
fv__shm_name(const fv__shm *s)
{
    return s->h->name;
}

/* ---- processes ----------------------------------------------------------------------- */

/* Start time of pid (0 when unknown) and its state letter. */
static uint64_t
fv__proc_start(pid_t pid, char *state)
{
    char path[64], buf[1024];
    *state = 0;
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    char *p = strrchr(buf, ')');
    if (!p || p[1] != ' ')
        return 0;
    p += 2; /* field 3: state */
    *state = *p;
    for (int f = 3; f < 22; f++) {
        p = strchr(p, ' ');
        if (!p)
            return 0;
        p++;
    }
    return strtoull(p, NULL, 10);
}

static int
fv__proc_dead(const fv__shm_proc *pr)
{
    int saved = errno, dead = 0;
    if (kill(pr->pid, 0) == -1 && errno == ESRCH)
        dead = 1;
    else {
        char st;
        uint64_t start = fv__proc_start(pr->pid, &st);
        if (st == 'Z' || st == 'X')
            dead = 1; /* exited, not yet reaped */
        else if (start && pr->start && start != pr->start)
            dead = 1; /* the pid now belongs to another process */
    }
    errno = saved;
    return dead;
}

/* Drop dead pids and recount. Under the lock. */
void
fv__shm_prune(fv__shm *s)
{
    fv__shm_header *h = s->h;
    uint32_t n = 0;
    for (int i = 0; i < FV__SHM_MAX_PROCS; i++) {
        fv__shm_proc *pr = &h->procs[i];
        if (!pr->pid)
            continue;
        if (pr->pid != s->pid && fv__proc_dead(pr))
            pr->pid = 0;
        else
            n++;
    }
    h->nprocs = n;
}

/* Add this process to the table. 0, or -1 when the segment was removed or the
 * table is full (the process then uses the mapping without being counted). */
int
fv__shm_register(fv__shm *s)
{
    fv__shm_header *h = s->h;
    if (h->unlinked)
        return -1;
    fv__shm_prune(s);
    char st;
    uint64_t start = fv__proc_start(s->pid, &st);
    int slot = -1;
    for (int i = 0; i < FV__SHM_MAX_PROCS; i++) {
        if (h->procs[i].pid == s->pid) {
            slot = i;
            break;
        }
        if (!h->procs[i].pid && slot < 0)
            slot = i;
    }
    if (slot < 0)
        return -1;
    if (h->procs[slot].pid != s->pid) {
        h->procs[slot].start = start;
        FV__BARRIER();
        h->procs[slot].pid = s->pid;
        h->nprocs++;
    } else
        h->procs[slot].start = start;
    s->registered = 1;
    return 0;
}

/* ---- create / attach / detach ---------------------------------------------------------- */

static void
fv__shm_init(fv__shm *s)
{
    fv__shm_header *h = s->h;
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
    pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
    pthread_mutex_init(&h->mu, &a);
    pthread_mutexattr_destroy(&a);
    h->limit = h->capacity;
    for (uint32_t i = 0; i < h->nbuckets; i++)
        s->B[i] = FV__NIL;
    for (uint32_t b = 0; b < h->nblocks; b++)
        s->N[b] = b + 1 < h->nblocks ? (int32_t)(b + 1) : FV__NIL;
    h->free_block = 0;
    h->nfree_blocks = h->nblocks;
    for (uint32_t i = 0; i < h->nentries; i++) {
        fv__shm_entry *e = &s->E[i];
        e->state = FV__E_FREE;
        e->first = e->prev = e->next = FV__NIL;
        e->hnext = i + 1 < h->nentries ? (int32_t)(i + 1) : FV__NIL;
    }
    h->free_entry = 0;
    h->lru_head = h->lru_tail = FV__NIL;
    fv__shm_register(s);
}

static void fv__shm_collect(void);

fv_status
fv__shm_create(uint64_t capacity, fv__shm **out)
{
    static atomic_uint counter;
    fv__shm_header L;
    *out = NULL;
    if (fv__shm_layout(capacity, &L))
        return fv_error_set(FV_EINVAL, "cache",
                            "shared-memory capacity %llu bytes is out of range (64 bytes to "
                            "16 TiB)",
                            (unsigned long long)capacity);
    fv__shm_collect();
    fv__shm *s = fv__calloc(1, sizeof *s);
    if (!s)
        return fv_error_set(FV_ENOMEM, "cache", "out of host memory");
    char name[FV__SHM_NAME_MAX];
    int fd = -1;
    for (int tries = 0; tries < 64 && fd < 0; tries++) {
        snprintf(name, sizeof name, "/fovea-cache-%d-%u", (int)getpid(), atomic_fetch_add(&counter, 1));
        fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0) {
        int e = errno;
        fv__free(s);
        return fv_error_set(FV_EIO, "cache", "cannot create a shared-memory segment: %s", strerror(e));
    }
    int r = ftruncate(fd, (off_t)L.segment_bytes) ? errno : 0;
    while (!r && (r = posix_fallocate(fd, 0, (off_t)L.segment_bytes)) == EINTR) /* no SIGBUS on a full /dev/shm */
        r = 0;
    void *map = MAP_FAILED;
    if (!r) {
        map = mmap(NULL, L.segment_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (map == MAP_FAILED)
            r = errno;
    }
    close(fd);
    if (r) {
        shm_unlink(name);
        fv__free(s);
        return fv_error_set(FV_ENOMEM, "cache",
                            "cannot reserve %llu bytes of shared memory for a %llu-byte "
                            "cache: %s (is /dev/shm large enough? e.g. docker run --shm-size)",
                            (unsigned long long)L.segment_bytes, (unsigned long long)capacity, strerror(r));
    }
    fv__shm_header *h = map;
    memcpy(h, &L, offsetof(fv__shm_header, name));
    snprintf(h->name, sizeof h->name, "%s", name);
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    h->nonce = ((uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec) ^ ((uint64_t)getpid() << 40) ^
        (uint64_t)(uintptr_t)map;
    h->magic = 0;
    fv__shm_bind(s, map, L.segment_bytes);
    fv__shm_init(s);
    FV__BARRIER();
    atomic_thread_fence(memory_order_release);
    h->magic = FV__CACHE_SHM_MAGIC; /* last: a complete segment */
    *out = s;
    return FV_OK;
}

/* Open, map and validate segment `nm` ("/name"). */
static fv_status
fv__shm_map(const char *nm, fv__shm **out)
{
    fv_status st = FV_OK;
    void *map = MAP_FAILED;
    size_t bytes = 0;
    fv__shm *s = NULL;
    *out = NULL;
    int fd = shm_open(nm, O_RDWR | O_CLOEXEC, 0);
    if (fd < 0) {
        if (errno == ENOENT)
            return fv_error_set(FV_EIO, "cache",
                                "no shared-memory cache named %s (/dev/shm%s): it was never "
                                "created, or the last process using it has exited",
                                nm, nm);
        return fv_error_set(FV_EIO, "cache", "cannot open shared-memory segment %s: %s", nm, strerror(errno));
    }
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        st = fv_error_set(FV_EIO, "cache", "cannot stat shared-memory segment %s: %s", nm, strerror(errno));
        goto done;
    }
    bytes = (size_t)sb.st_size;
    if (sb.st_size < (off_t)sizeof(fv__shm_header)) {
        st = fv_error_set(FV_EFORMAT, "cache", "%s is not a fovea cache segment (%lld bytes, too small)", nm,
                          (long long)sb.st_size);
        goto done;
    }
    map = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED) {
        st = fv_error_set(FV_EIO, "cache", "cannot map shared-memory segment %s: %s", nm, strerror(errno));
        goto done;
    }
    fv__shm_header *h = map, L;
    if (h->magic != FV__CACHE_SHM_MAGIC) {
        st = fv_error_set(FV_EFORMAT, "cache", "%s is not a fovea cache segment (bad magic)", nm);
        goto done;
    }
    if (h->version != FV__CACHE_SHM_VERSION || h->header_bytes != sizeof(fv__shm_header)) {
        st = fv_error_set(FV_EFORMAT, "cache",
                          "%s is a fovea cache segment of version %u (header %u bytes); this "
                          "library uses version %u (header %u bytes)",
                          nm, h->version, h->header_bytes, FV__CACHE_SHM_VERSION, (unsigned)sizeof(fv__shm_header));
        goto done;
    }
    if (fv__shm_layout(h->capacity, &L) || memcmp(&L, h, offsetof(fv__shm_header, name)) || L.segment_bytes != bytes) {
        st = fv_error_set(FV_EFORMAT, "cache", "%s: inconsistent cache segment layout", nm);
        goto done;
    }
    if (!(s = fv__calloc(1, sizeof *s))) {
        st = fv_error_set(FV_ENOMEM, "cache", "out of host memory");
        goto done;
    }
    fv__shm_bind(s, map, bytes);
    s->no_register = 1;
done:
    close(fd);
    if (st) {
        if (map != MAP_FAILED)
            munmap(map, bytes);
        return st;
    }
    *out = s;
    return FV_OK;
}

fv_status
fv__shm_attach(const char *name, fv__shm **out)
{
    char nm[FV__SHM_NAME_MAX + 2];
    fv__shm *s = NULL;
    fv_status st = FV_OK;
    *out = NULL;
    if (!name || !*name)
        return fv_error_set(FV_EINVAL, "cache", "the shared-memory segment name is empty");
    if (strlen(name) > FV__SHM_NAME_MAX - 2 || strchr(name + 1, '/'))
        return fv_error_set(FV_EINVAL, "cache",
                            "'%.300s' is not a shared-memory segment name (like "
                            "/fovea-cache-123-0, at most %d characters, no '/' inside)",
                            name, FV__SHM_NAME_MAX - 2);
    snprintf(nm, sizeof nm, "%s%s", name[0] == '/' ? "" : "/", name);
    if ((st = fv__shm_map(nm, &s)))
        return st;
    if (fv__shm_lock(s)) /* no_register: registered below */
        st = fv_error_set(FV_EIO, "cache", "%s: the cache lock is unrecoverable", nm);
    else {
        if (s->h->unlinked)
            st = fv_error_set(FV_EIO, "cache", "%s was removed (the last process using it has exited)", nm);
        else if (fv__shm_register(s))
            st = fv_error_set(FV_EIO, "cache", "%s: more than %d processes are attached", nm, FV__SHM_MAX_PROCS);
        fv__shm_unlock(s);
    }
    if (st) {
        munmap(s->h, s->map_bytes);
        fv__free(s);
        return st;
    }
    s->no_register = 0;
    *out = s;
    return FV_OK;
}

/* Remove the segments left behind by process groups that all died without
 * detaching (DataLoader workers leave with os._exit and never run atexit: if
 * their parent was killed first, nobody is left to unlink). Best effort, at
 * creation; a segment whose lock is busy is skipped. */
static void
fv__shm_collect(void)
{
    DIR *d = opendir("/dev/shm");
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d))) {
        char nm[FV__SHM_NAME_MAX + 2];
        fv__shm *s = NULL;
        if (strncmp(de->d_name, "fovea-cache-", 12) || strlen(de->d_name) > FV__SHM_NAME_MAX - 2)
            continue;
        snprintf(nm, sizeof nm, "/%s", de->d_name);
        if (fv__shm_map(nm, &s))
            continue;
        fv__shm_header *h = s->h;
        int r = pthread_mutex_trylock(&h->mu);
        if (r == EOWNERDEAD) {
            fv__shm_repair(s);
            h->repairs++;
            pthread_mutex_consistent(&h->mu);
            r = 0;
        }
        if (r == 0) {
            fv__shm_prune(s);
            if (h->nprocs == 0 && !h->unlinked) {
                h->unlinked = 1;
                shm_unlink(nm);
            }
            pthread_mutex_unlock(&h->mu);
        }
        munmap(s->h, s->map_bytes);
        fv__free(s);
    }
    closedir(d);
}

void
fv__shm_detach(fv__shm *s, int unmap)
{
    if (!s)
        return;
    if (!s->detached) {
        s->detached = s->no_register = 1;
        fv__shm_header *h = s->h;
        int r = pthread_mutex_lock(&h->mu);
        if (r == EOWNERDEAD) {
            fv__shm_repair(s);
            h->repairs++;
            pthread_mutex_consistent(&h->mu);
            r = 0;
        }
        if (r)
            goto unmap; /* an unrecoverable lock: leave the segment as it is */
        for (int i = 0; i < FV__SHM_MAX_PROCS; i++)
            if (h->procs[i].pid == s->pid)
                h->procs[i].pid = 0;
        s->registered = 0;
        fv__shm_prune(s);
        if (h->nprocs == 0 && !h->unlinked) {
            h->unlinked = 1;
            shm_unlink(h->name);
        }
        pthread_mutex_unlock(&h->mu);
    }
unmap:
    if (unmap) {
        munmap(s->h, s->map_bytes);
        fv__free(s);
    }
}

int
fv__shm_same(const fv__shm *a, const fv__shm *b)
{
    return a && b && a->h->nonce == b->h->nonce && !strcmp(a->h->name, b->h->name);
}

void
fv__shm_forget(fv__shm *s)
{
    if (s) {
        munmap(s->h, s->map_bytes);
        fv__free(s);
    }
}

void
fv__shm_forked(fv__shm *s)
{
    s->pid = getpid();
    s->registered = 0;
    s->no_register = s->detached;
}
