/* The shared-memory tile cache's entry operations: hash chains and the LRU, the
 * lock with repair after a dead owner, lookup / insert / stats / clear, and the
 * test hooks (repair count, a lock broken mid-update, the consistency check).
 * The segment itself (layout, processes, create / attach / detach) is in cache-shm.c. */
#include "cache-shm-internal.h"

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

#define FV__BIT(s, b) ((s)->bitmap[(b) >> 3] & (1u << ((b)&7)))
#define FV__SETBIT(s, b) ((s)->bitmap[(b) >> 3] |= (uint8_t)(1u << ((b)&7)))
#define FV__CLRBIT(s, b) ((s)->bitmap[(b) >> 3] &= (uint8_t) ~(1u << ((b)&7)))

/* Rebuild everything derived from the READY entries (see the top of the file). */
void
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
    for (uint32_t k = nsort; k-- > 0;) /* oldest first, each pushed to the front */
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
int
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

void
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
            if (e->file == key->file && e->ifd == key->ifd && e->chunk == key->chunk && e->state == FV__E_READY)
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
    if (i != FV__NIL) { /* another process inserted it meanwhile */
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
            fv__shm_test_pause(); /* testing only: inert unless its variable is set */
    }
    e->stamp = ++h->clock;
    int32_t *head = &s->B[fv__shm_hash(s, key->file, key->ifd, key->chunk)];
    e->hnext = *head;
    *head = i;
    fv__lru_front(s, i);
    h->bytes += nbytes;
    h->entries++;
    FV__BARRIER();
    e->state = FV__E_READY; /* last: the insert is complete */
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
        return fv_error_set(FV_EINVAL, "cache",
                            "the shared-memory cache %s holds at most %llu bytes (its size at "
                            "creation); configure a new one for %llu",
                            s->h->name, (unsigned long long)s->h->capacity, (unsigned long long)bytes);
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
    case 2: { /* an insert cut short after its links, before READY */
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
        h->free_block = s->N[last]; /* nfree_blocks not yet updated */
        memset(s->data + (uint64_t)e->first * h->block_bytes, 0xab, h->block_bytes / 2);
        int32_t *head = &s->B[fv__shm_hash(s, e->file, e->ifd, e->chunk)];
        e->hnext = *head;
        *head = i;
        fv__lru_front(s, i);
        break;
    }
    case 3: { /* an eviction cut short: FREE, out of the hash, blocks half returned */
        int32_t i = h->lru_tail;
        if (i == FV__NIL)
            break;
        fv__shm_entry *e = &s->E[i];
        e->state = FV__E_FREE;
        fv__hash_remove(s, i);
        h->free_block = e->first; /* the old free list is lost; counts not updated */
        break;
    }
    case 4: { /* an LRU move cut short: the tail is out of the list */
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
    return 0; /* still locked */
}

int
fv__shm_check(fv__shm *s, char *msg, size_t n)
{
#define FAIL(...)                      \
    do {                               \
        snprintf(msg, n, __VA_ARGS__); \
        rc = -1;                       \
        goto out;                      \
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
