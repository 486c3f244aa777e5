/* Internals of the shared-memory tile cache, shared by cache-shm.c (the segment:
 * layout, processes, create / attach / detach) and cache-shm-ops.c (lists, lock
 * and repair, lookup / insert, test hooks). The design is described at the top of
 * cache-shm.c. */
#ifndef FV_CACHE_SHM_INTERNAL_H
#define FV_CACHE_SHM_INTERNAL_H

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

enum {
    FV__E_FREE = 0,
    FV__E_WRITING = 1,
    FV__E_READY = 2
};

typedef struct fv__shm_proc {
    int32_t pid; /* 0: free slot; written last when registering */
    uint32_t pad;
    uint64_t start; /* start time (/proc/PID/stat field 22), 0 if unknown */
} fv__shm_proc;

typedef struct fv__shm_entry {
    uint64_t file, chunk;
    uint32_t ifd;
    uint32_t state; /* FV__E_*: the truth the repair trusts */
    uint64_t nbytes;
    uint64_t stamp;      /* LRU clock at the last use */
    int32_t first, nblk; /* block chain */
    int32_t hnext;       /* hash chain (READY) or free-entry list (FREE) */
    int32_t prev, next;  /* LRU list; head = most recently used */
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
    uint64_t nonce; /* tells this segment from a later one of the same name */
    pthread_mutex_t mu;
    /* guarded by mu */
    uint32_t unlinked, nprocs;
    uint64_t limit; /* <= capacity (fv_cache_set_capacity) */
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
    pid_t pid;       /* this process */
    int registered;  /* pid is in the table */
    int no_register; /* detached (at exit), or the table was full */
    int detached;
};

/* keep stores on either side of a state change in program order (a process may die
 * at any instruction; the next lock owner sees everything stored before that) */
#define FV__BARRIER() atomic_signal_fence(memory_order_seq_cst)

/* cache-shm.c */
void fv__shm_prune(fv__shm *s);
int fv__shm_register(fv__shm *s);

/* cache-shm-ops.c */
void fv__shm_repair(fv__shm *s);
int fv__shm_lock(fv__shm *s);
void fv__shm_unlock(fv__shm *s);

#endif
