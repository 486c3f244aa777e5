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
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "cache.h"
#include "alloc.h"
#include "core/config.h"

#define FV__SHM_MAX_PROCS 1024
#define FV__SHM_NAME_MAX 64
#define FV__SHM_BLOCK_MAX 16384u
#define FV__NIL (-1)

enum { FV__E_FREE = 0, FV__E_WRITING = 1, FV__E_READY = 2 };

typedef struct fv__shm_proc {
    int32_t pid;                 /* 0: free slot; written last when registering */
    uint32_t pad;
    uint64_t start;              /* start time (/proc/PID/stat field 22), 0 if unknown */
} fv__shm_proc;

typedef struct fv__shm_entry {
    uint64_t file, chunk;
    uint32_t ifd;
    uint32_t state;              /* FV__E_*: the truth the repair trusts */
    uint64_t nbytes;
    uint64_t stamp;              /* LRU clock at the last use */
    int32_t first, nblk;         /* block chain */
    int32_t hnext;               /* hash chain (READY) or free-entry list (FREE) */
    int32_t prev, next;          /* LRU list; head = most recently used */
    int32_t pad;
} fv__shm_entry;

typedef struct fv__shm_header {
    /* written once at creation */
    uint64_t magic;
    uint32_t version, header_bytes;
    uint64_t segment_bytes, capacity, block_bytes;
    uint32_t nblocks, nentries, nbuckets, max_procs;
    uint64_t off_entries, off_buckets, off_next, off_bitmap, off_sort, off_data;
    char name[FV__SHM_NAME_MAX];
    uint64_t nonce;              /* tells this segment from a later one of the same name */
    pthread_mutex_t mu;
    /* guarded by mu */
    uint32_t unlinked, nprocs;
    uint64_t limit;              /* <= capacity (fv_cache_set_capacity) */
    int32_t free_block, free_entry, lru_head, lru_tail;
    uint32_t nfree_blocks, pad;
    uint64_t clock;
    uint64_t hits, misses, evictions, bytes, entries, repairs;
    fv__shm_proc procs[FV__SHM_MAX_PROCS];
} fv__shm_header;

struct fv__shm {
    fv__shm_header *h;
    size_t map_bytes;
    fv__shm_entry *E;
    int32_t *B, *N;
    uint8_t *bitmap;
    uint64_t *sortbuf;
    uint8_t *data;
    pid_t pid;                   /* this process */
    int registered;              /* pid is in the table */
    int no_register;             /* detached (at exit), or the table was full */
    int detached;
};

/* keep stores on either side of a state change in program order (a process may die
 * at any instruction; the next lock owner sees everything stored before that) */
#define FV__BARRIER() atomic_signal_fence(memory_order_seq_cst)

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
    p += 2;                      /* field 3: state */
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
            dead = 1;   /* exited, not yet reaped */
        else if (start && pr->start && start != pr->start)
            dead = 1;   /* the pid now belongs to another process */
    }
    errno = saved;
    return dead;
}

/* Drop dead pids and recount. Under the lock. */
static void
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
static int
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

/* ---- lists --------------------------------------------------------------------------- */

static uint32_t
fv__shm_hash(const fv__shm *s, uint64_t file, uint32_t ifd, uint64_t chunk)
{
    uint64_t h = file ^ (chunk * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)ifd << 40);
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return (uint32_t)h & (s->h->nbuckets - 1);
}

static int32_t
fv__blocks_for(const fv__shm *s, uint64_t nbytes)
{
    return (int32_t)((nbytes + s->h->block_bytes - 1) / s->h->block_bytes);
}

static void
fv__lru_remove(fv__shm *s, int32_t i)
{
    fv__shm_entry *e = &s->E[i];
    if (e->prev != FV__NIL)
        s->E[e->prev].next = e->next;
    else
        s->h->lru_head = e->next;
    if (e->next != FV__NIL)
        s->E[e->next].prev = e->prev;
    else
        s->h->lru_tail = e->prev;
    e->prev = e->next = FV__NIL;
}

static void
fv__lru_front(fv__shm *s, int32_t i)
{
    fv__shm_entry *e = &s->E[i];
    e->prev = FV__NIL;
    e->next = s->h->lru_head;
    if (s->h->lru_head != FV__NIL)
        s->E[s->h->lru_head].prev = i;
    s->h->lru_head = i;
    if (s->h->lru_tail == FV__NIL)
        s->h->lru_tail = i;
}

static void
fv__hash_remove(fv__shm *s, int32_t i)
{
    fv__shm_entry *e = &s->E[i];
    int32_t *pp = &s->B[fv__shm_hash(s, e->file, e->ifd, e->chunk)];
    for (uint32_t steps = 0; *pp != FV__NIL && steps <= s->h->nentries; steps++) {
        if (*pp == i) {
            *pp = e->hnext;
            break;
        }
        pp = &s->E[*pp].hnext;
    }
}

/* Remove a READY entry and free its blocks. */
static void
fv__shm_drop(fv__shm *s, int32_t i)
{
    fv__shm_header *h = s->h;
    fv__shm_entry *e = &s->E[i];
    e->state = FV__E_FREE;
    FV__BARRIER();
    fv__hash_remove(s, i);
    fv__lru_remove(s, i);
    if (e->nblk > 0) {
        int32_t last = e->first;
        for (int32_t k = 1; k < e->nblk; k++)
            last = s->N[last];
        s->N[last] = h->free_block;
        h->free_block = e->first;
        h->nfree_blocks += (uint32_t)e->nblk;
    }
    h->bytes -= e->nbytes;
    h->entries--;
    e->hnext = h->free_entry;
    h->free_entry = i;
}

static int
fv__cmp_stamp_desc(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    return x[0] < y[0] ? 1 : x[0] > y[0] ? -1 : 0;
}

#define FV__BIT(s, b) ((s)->bitmap[(b) >> 3] & (1u << ((b) & 7)))
#define FV__SETBIT(s, b) ((s)->bitmap[(b) >> 3] |= (uint8_t)(1u << ((b) & 7)))
#define FV__CLRBIT(s, b) ((s)->bitmap[(b) >> 3] &= (uint8_t) ~(1u << ((b) & 7)))

/* Rebuild everything derived from the READY entries (see the top of the file). */
static void
fv__shm_repair(fv__shm *s)
{
    fv__shm_header *h = s->h;
    uint32_t nb = h->nblocks, ne = h->nentries;
    if (h->limit > h->capacity)
        h->limit = h->capacity;
    memset(s->bitmap, 0, (nb + 7) / 8);
    for (uint32_t i = 0; i < h->nbuckets; i++)
        s->B[i] = FV__NIL;
    h->bytes = h->entries = 0;
    h->free_entry = FV__NIL;
    uint32_t nsort = 0;
    uint64_t maxstamp = h->clock;
    for (int32_t i = (int32_t)ne - 1; i >= 0; i--) {
        fv__shm_entry *e = &s->E[i];
        int ok = e->state == FV__E_READY && e->nbytes > 0 && e->nbytes <= h->capacity &&
                 e->nblk == fv__blocks_for(s, e->nbytes);
        int32_t claimed = 0;
        if (ok) {
            int32_t b = e->first;
            for (; claimed < e->nblk; claimed++) {
                if (b < 0 || (uint32_t)b >= nb || FV__BIT(s, b)) {
                    ok = 0;
                    break;
                }
                FV__SETBIT(s, b);
                b = s->N[b];
            }
        }
        if (!ok) {
            int32_t b = e->first;
            for (int32_t k = 0; k < claimed; k++) {
                FV__CLRBIT(s, b);
                b = s->N[b];
            }
            e->state = FV__E_FREE;
            e->prev = e->next = FV__NIL;
            e->hnext = h->free_entry;
            h->free_entry = i;
            continue;
        }
        int32_t *head = &s->B[fv__shm_hash(s, e->file, e->ifd, e->chunk)];
        e->hnext = *head;
        *head = i;
        s->sortbuf[2 * nsort] = e->stamp;
        s->sortbuf[2 * nsort + 1] = (uint64_t)i;
        nsort++;
        if (e->stamp > maxstamp)
            maxstamp = e->stamp;
        h->bytes += e->nbytes;
        h->entries++;
    }
    h->free_block = FV__NIL;
    h->nfree_blocks = 0;
    for (int32_t b = (int32_t)nb - 1; b >= 0; b--)
        if (!FV__BIT(s, b)) {
            s->N[b] = h->free_block;
            h->free_block = b;
            h->nfree_blocks++;
        }
    qsort(s->sortbuf, nsort, 2 * sizeof(uint64_t), fv__cmp_stamp_desc);
    h->lru_head = h->lru_tail = FV__NIL;
    for (uint32_t k = nsort; k-- > 0;)   /* oldest first, each pushed to the front */
        fv__lru_front(s, (int32_t)s->sortbuf[2 * k + 1]);
    h->clock = maxstamp;
    while (h->bytes > h->limit && h->lru_tail != FV__NIL) {
        fv__shm_drop(s, h->lru_tail);
        h->evictions++;
    }
    fv__shm_prune(s);
}

/* Lock the segment, repairing after a dead owner, and register a fork child on
 * its first use. 0, or -1 when the lock is unusable. */
static int
fv__shm_lock(fv__shm *s)
{
    int r = pthread_mutex_lock(&s->h->mu);
    if (r == EOWNERDEAD) {
        fv__shm_repair(s);
        s->h->repairs++;
        pthread_mutex_consistent(&s->h->mu);
        r = 0;
    }
    if (r)
        return -1;
    if (!s->registered && !s->no_register && fv__shm_register(s))
        s->no_register = 1;
    return 0;
}

static void
fv__shm_unlock(fv__shm *s)
{
    pthread_mutex_unlock(&s->h->mu);
}

/* The READY entry of key, or FV__NIL. A chain that leaves the table or loops
 * means corruption: repair and look again. */
static int32_t
fv__shm_find(fv__shm *s, const fv__tile_key *key)
{
    for (int attempt = 0; attempt < 2; attempt++) {
        int32_t i = s->B[fv__shm_hash(s, key->file, key->ifd, key->chunk)];
        uint32_t steps = 0;
        int bad = 0;
        while (i != FV__NIL) {
            if (i < 0 || (uint32_t)i >= s->h->nentries || ++steps > s->h->nentries) {
                bad = 1;
                break;
            }
            fv__shm_entry *e = &s->E[i];
            if (e->file == key->file && e->ifd == key->ifd && e->chunk == key->chunk &&
                e->state == FV__E_READY)
                return i;
            i = e->hnext;
        }
        if (!bad)
            return FV__NIL;
        fv__shm_repair(s);
        s->h->repairs++;
    }
    return FV__NIL;
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
        return fv_error_set(FV_EINVAL, "cache", "shared-memory capacity %llu bytes is out of range (64 bytes to "
                            "16 TiB)", (unsigned long long)capacity);
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
    while (!r && (r = posix_fallocate(fd, 0, (off_t)L.segment_bytes)) == EINTR)   /* no SIGBUS on a full /dev/shm */
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
        return fv_error_set(FV_ENOMEM, "cache", "cannot reserve %llu bytes of shared memory for a %llu-byte "
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
    h->magic = FV__CACHE_SHM_MAGIC;   /* last: a complete segment */
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
            return fv_error_set(FV_EIO, "cache", "no shared-memory cache named %s (/dev/shm%s): it was never "
                                "created, or the last process using it has exited", nm, nm);
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
        st = fv_error_set(FV_EFORMAT, "cache", "%s is a fovea cache segment of version %u (header %u bytes); this "
                          "library uses version %u (header %u bytes)", nm, h->version, h->header_bytes,
                          FV__CACHE_SHM_VERSION, (unsigned)sizeof(fv__shm_header));
        goto done;
    }
    if (fv__shm_layout(h->capacity, &L) || memcmp(&L, h, offsetof(fv__shm_header, name)) ||
        L.segment_bytes != bytes) {
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
        return fv_error_set(FV_EINVAL, "cache", "'%.300s' is not a shared-memory segment name (like "
                            "/fovea-cache-123-0, at most %d characters, no '/' inside)", name, FV__SHM_NAME_MAX - 2);
    snprintf(nm, sizeof nm, "%s%s", name[0] == '/' ? "" : "/", name);
    if ((st = fv__shm_map(nm, &s)))
        return st;
    if (fv__shm_lock(s))   /* no_register: registered below */
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
            goto unmap;   /* an unrecoverable lock: leave the segment as it is */
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

/* ---- operations ------------------------------------------------------------------------- */

int
fv__shm_lookup(fv__shm *s, const fv__tile_key *key, fv__tile **out)
{
    *out = NULL;
    if (fv__shm_lock(s))
        return 0;
    fv__shm_header *h = s->h;
    int32_t i = fv__shm_find(s, key);
    fv__tile *t = NULL;
    if (i != FV__NIL && (t = fv__tile_new(s->E[i].nbytes))) {
        fv__shm_entry *e = &s->E[i];
        uint64_t off = 0, bb = h->block_bytes;
        int32_t b = e->first;
        for (int32_t k = 0; k < e->nblk; k++) {
            uint64_t n = e->nbytes - off < bb ? e->nbytes - off : bb;
            memcpy(t->data + off, s->data + (uint64_t)b * bb, n);
            off += n;
            b = s->N[b];
        }
        e->stamp = ++h->clock;
        fv__lru_remove(s, i);
        fv__lru_front(s, i);
        h->hits++;
    } else
        h->misses++;
    fv__shm_unlock(s);
    *out = t;
    return t != NULL;
}

/* Testing only (tests/python/test_robust_cache.py): with FOVEA_TEST_SHM_INSERT_PAUSE=PATH
 * in the environment, an insert stops halfway - its entry WRITING, its blocks taken
 * off the free list, one block of data copied, the segment's lock held - creates
 * PATH and waits there to be killed (a DataLoader worker dying mid-insert). Once per
 * PATH: when PATH exists already, the insert goes on. Read only on this path. */
static void
fv__shm_test_pause(void)
{
    const char *path = fv__env(FV__ENV_TEST_SHM_INSERT_PAUSE);
    if (!path || !*path)
        return;
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return;
    close(fd);
    for (;;)
        pause();
}

void
fv__shm_insert(fv__shm *s, const fv__tile_key *key, const fv__tile *tile)
{
    if (fv__shm_lock(s))
        return;
    fv__shm_header *h = s->h;
    uint64_t nbytes = tile->nbytes, bb = h->block_bytes;
    int32_t need = fv__blocks_for(s, nbytes);
    int32_t i = fv__shm_find(s, key);
    if (i != FV__NIL) {   /* another process inserted it meanwhile */
        s->E[i].stamp = ++h->clock;
        fv__lru_remove(s, i);
        fv__lru_front(s, i);
        goto done;
    }
    if (nbytes == 0 || nbytes > h->limit || (uint64_t)need > h->nblocks)
        goto done;
    while ((h->nfree_blocks < (uint32_t)need || h->bytes + nbytes > h->limit || h->free_entry == FV__NIL) &&
           h->lru_tail != FV__NIL) {
        fv__shm_drop(s, h->lru_tail);
        h->evictions++;
    }
    if (h->nfree_blocks < (uint32_t)need || h->bytes + nbytes > h->limit || h->free_entry == FV__NIL)
        goto done;
    i = h->free_entry;
    fv__shm_entry *e = &s->E[i];
    e->state = FV__E_WRITING;
    FV__BARRIER();
    h->free_entry = e->hnext;
    e->file = key->file;
    e->ifd = key->ifd;
    e->chunk = key->chunk;
    e->nbytes = nbytes;
    e->nblk = need;
    e->first = h->free_block;
    int32_t last = e->first;
    for (int32_t k = 1; k < need; k++)
        last = s->N[last];
    h->free_block = s->N[last];
    s->N[last] = FV__NIL;
    h->nfree_blocks -= (uint32_t)need;
    uint64_t off = 0;
    for (int32_t b = e->first; b != FV__NIL; b = s->N[b]) {
        uint64_t n = nbytes - off < bb ? nbytes - off : bb;
        memcpy(s->data + (uint64_t)b * bb, tile->data + off, n);
        off += n;
        if (off == n)
            fv__shm_test_pause();   /* testing only: inert unless its variable is set */
    }
    e->stamp = ++h->clock;
    int32_t *head = &s->B[fv__shm_hash(s, key->file, key->ifd, key->chunk)];
    e->hnext = *head;
    *head = i;
    fv__lru_front(s, i);
    h->bytes += nbytes;
    h->entries++;
    FV__BARRIER();
    e->state = FV__E_READY;   /* last: the insert is complete */
done:
    fv__shm_unlock(s);
}

void
fv__shm_stats(fv__shm *s, fv_cache_stats *out)
{
    memset(out, 0, sizeof *out);
    if (fv__shm_lock(s))
        return;
    fv__shm_header *h = s->h;
    out->hits = h->hits;
    out->misses = h->misses;
    out->evictions = h->evictions;
    out->bytes = h->bytes;
    out->capacity = h->limit;
    out->entries = h->entries;
    fv__shm_unlock(s);
}

void
fv__shm_reset_stats(fv__shm *s)
{
    if (fv__shm_lock(s))
        return;
    s->h->hits = s->h->misses = s->h->evictions = 0;
    fv__shm_unlock(s);
}

void
fv__shm_clear(fv__shm *s)
{
    if (fv__shm_lock(s))
        return;
    while (s->h->lru_tail != FV__NIL)
        fv__shm_drop(s, s->h->lru_tail);
    fv__shm_unlock(s);
}

fv_status
fv__shm_set_limit(fv__shm *s, uint64_t bytes)
{
    if (bytes > s->h->capacity)
        return fv_error_set(FV_EINVAL, "cache", "the shared-memory cache %s holds at most %llu bytes (its size at "
                            "creation); configure a new one for %llu", s->h->name,
                            (unsigned long long)s->h->capacity, (unsigned long long)bytes);
    if (fv__shm_lock(s))
        return fv_error_set(FV_EIO, "cache", "%s: the cache lock is unrecoverable", s->h->name);
    s->h->limit = bytes;
    while (s->h->bytes > s->h->limit && s->h->lru_tail != FV__NIL) {
        fv__shm_drop(s, s->h->lru_tail);
        s->h->evictions++;
    }
    fv__shm_unlock(s);
    return FV_OK;
}

/* ---- tests ------------------------------------------------------------------------------ */

uint64_t
fv__shm_repairs(fv__shm *s)
{
    if (fv__shm_lock(s))
        return 0;
    uint64_t r = s->h->repairs;
    fv__shm_unlock(s);
    return r;
}

int
fv__shm_test_lock_and_break(fv__shm *s, int stage)
{
    if (fv__shm_lock(s))
        return -1;
    fv__shm_header *h = s->h;
    switch (stage) {
    case 2: {   /* an insert cut short after its links, before READY */
        int32_t need = h->nblocks >= 2 ? 2 : 1;
        while ((h->nfree_blocks < (uint32_t)need || h->free_entry == FV__NIL) && h->lru_tail != FV__NIL)
            fv__shm_drop(s, h->lru_tail);
        int32_t i = h->free_entry;
        if (i == FV__NIL || h->nfree_blocks < (uint32_t)need)
            break;
        fv__shm_entry *e = &s->E[i];
        e->state = FV__E_WRITING;
        h->free_entry = e->hnext;
        e->file = 0xdeadull;
        e->ifd = 1;
        e->chunk = 1;
        e->nbytes = (uint64_t)need * h->block_bytes;
        e->nblk = need;
        e->first = h->free_block;
        int32_t last = e->first;
        for (int32_t k = 1; k < need; k++)
            last = s->N[last];
        h->free_block = s->N[last];   /* nfree_blocks not yet updated */
        memset(s->data + (uint64_t)e->first * h->block_bytes, 0xab, h->block_bytes / 2);
        int32_t *head = &s->B[fv__shm_hash(s, e->file, e->ifd, e->chunk)];
        e->hnext = *head;
        *head = i;
        fv__lru_front(s, i);
        break;
    }
    case 3: {   /* an eviction cut short: FREE, out of the hash, blocks half returned */
        int32_t i = h->lru_tail;
        if (i == FV__NIL)
            break;
        fv__shm_entry *e = &s->E[i];
        e->state = FV__E_FREE;
        fv__hash_remove(s, i);
        h->free_block = e->first;   /* the old free list is lost; counts not updated */
        break;
    }
    case 4: {   /* an LRU move cut short: the tail is out of the list */
        int32_t i = h->lru_tail;
        if (i == FV__NIL)
            break;
        s->E[i].stamp = ++h->clock;
        fv__lru_remove(s, i);
        break;
    }
    default:
        break;
    }
    return 0;   /* still locked */
}

int
fv__shm_check(fv__shm *s, char *msg, size_t n)
{
#define FAIL(...)                                                                         \
    do {                                                                                  \
        snprintf(msg, n, __VA_ARGS__);                                                    \
        rc = -1;                                                                          \
        goto out;                                                                         \
    } while (0)
    int rc = 0;
    if (fv__shm_lock(s)) {
        snprintf(msg, n, "lock unusable");
        return -1;
    }
    fv__shm_header *h = s->h;
    uint32_t nb = h->nblocks, ne = h->nentries;
    uint64_t bytes = 0, entries = 0;
    memset(s->bitmap, 0, (nb + 7) / 8);
    if ((uint64_t)nb * h->block_bytes > h->capacity || h->limit > h->capacity)
        FAIL("layout exceeds the capacity");
    for (uint32_t i = 0; i < ne; i++) {
        fv__shm_entry *e = &s->E[i];
        if (e->state == FV__E_FREE)
            continue;
        if (e->state != FV__E_READY)
            FAIL("entry %u in state %u", i, e->state);
        if (e->nbytes == 0 || e->nblk != fv__blocks_for(s, e->nbytes))
            FAIL("entry %u: %llu bytes in %d blocks", i, (unsigned long long)e->nbytes, e->nblk);
        int32_t b = e->first;
        for (int32_t k = 0; k < e->nblk; k++) {
            if (b < 0 || (uint32_t)b >= nb || FV__BIT(s, b))
                FAIL("entry %u: bad or shared block %d", i, b);
            FV__SETBIT(s, b);
            b = s->N[b];
        }
        int32_t j = s->B[fv__shm_hash(s, e->file, e->ifd, e->chunk)];
        uint32_t steps = 0;
        while (j != FV__NIL && j != (int32_t)i && ++steps <= ne)
            j = s->E[j].hnext;
        if (j != (int32_t)i)
            FAIL("entry %u is not in its hash chain", i);
        bytes += e->nbytes;
        entries++;
    }
    if (bytes != h->bytes || entries != h->entries)
        FAIL("counts: %llu bytes / %llu entries, header says %llu / %llu", (unsigned long long)bytes,
             (unsigned long long)entries, (unsigned long long)h->bytes, (unsigned long long)h->entries);
    if (bytes > h->limit)
        FAIL("%llu bytes cached, limit %llu", (unsigned long long)bytes, (unsigned long long)h->limit);
    uint32_t nfree = 0;
    for (int32_t b = h->free_block; b != FV__NIL; b = s->N[b]) {
        if (b < 0 || (uint32_t)b >= nb || FV__BIT(s, b))
            FAIL("free list: bad or used block %d", b);
        FV__SETBIT(s, b);
        nfree++;
    }
    if (nfree != h->nfree_blocks)
        FAIL("free list has %u blocks, header says %u", nfree, h->nfree_blocks);
    for (uint32_t b = 0; b < nb; b++)
        if (!FV__BIT(s, b))
            FAIL("block %u is lost", b);
    uint64_t count = 0, prev_stamp = UINT64_MAX;
    int32_t prev = FV__NIL;
    for (int32_t i = h->lru_head; i != FV__NIL; i = s->E[i].next) {
        if (i < 0 || (uint32_t)i >= ne || ++count > entries)
            FAIL("LRU list is broken");
        if (s->E[i].state != FV__E_READY || s->E[i].prev != prev || s->E[i].stamp >= prev_stamp)
            FAIL("LRU entry %d out of order", i);
        prev_stamp = s->E[i].stamp;
        prev = i;
    }
    if (count != entries || h->lru_tail != prev)
        FAIL("LRU list has %llu entries of %llu", (unsigned long long)count, (unsigned long long)entries);
    count = 0;
    for (int32_t i = h->free_entry; i != FV__NIL; i = s->E[i].hnext) {
        if (i < 0 || (uint32_t)i >= ne || ++count > ne || s->E[i].state != FV__E_FREE)
            FAIL("free entry list is broken");
    }
    if (count + entries != ne)
        FAIL("free entry list has %llu entries, expected %llu", (unsigned long long)count,
             (unsigned long long)(ne - entries));
    uint32_t np = 0;
    for (int i = 0; i < FV__SHM_MAX_PROCS; i++)
        np += h->procs[i].pid != 0;
    if (np != h->nprocs)
        FAIL("%u pids in the table, header says %u", np, h->nprocs);
out:
    fv__shm_unlock(s);
    return rc;
#undef FAIL
}
