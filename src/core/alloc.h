/* Heap memory for the library (internal), with allocation-failure injection for
 * tests.
 *
 * Every malloc / calloc / realloc / aligned_alloc / strdup in src/core, src/tiff,
 * src/codec and src/slide goes through these wrappers. They are the C library's
 * functions plus one relaxed atomic load, and their memory is the C library's:
 * fv__free and free() release it interchangeably (buffers handed to callers stay
 * plain malloc memory). The codec libraries allocate on their own; their failures
 * are mapped to FV_ENOMEM where they report them (src/codec/). */
#ifndef FV_ALLOC_H
#define FV_ALLOC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

void *fv__malloc(size_t n);
void *fv__calloc(size_t n, size_t size);
/* On failure returns NULL and leaves p allocated, as realloc. */
void *fv__realloc(void *p, size_t n);
/* align: a power of two; n is rounded up to a multiple of align. */
void *fv__aligned_alloc(size_t align, size_t n);
/* n bytes on an align boundary (align: a power of two, at most 4096; from 256
 * KiB on a page boundary) for array data; *base receives what to pass to fv__free. Below the huge-page size a
 * plain malloc of n + align, so that a freed buffer is reused whole by the next
 * one of its size (glibc's aligned_alloc asks for more than the chunk it leaves,
 * which made the heap shrink and grow, fresh pages faulted in, on every call). */
void *fv__host_buffer(size_t align, size_t n, void **base);
char *fv__strdup(const char *s);
void fv__free(void *p);

/* ---- testing only (tests/c/test_faults.c; inert unless armed) -------------------
 *
 * fv__alloc_fail_after(n), n >= 1: counting from this call, the n-th allocation
 * through the wrappers above fails (returns NULL with errno = ENOMEM); every other
 * one succeeds. fv__alloc_fail_from(n): the n-th and every later one fail.
 * n == 0: count only. n < 0: off (the default). Process-wide, thread-safe; with
 * several threads allocating, which call is the n-th is up to the scheduler.
 * fv__alloc_count: allocations made (or refused) since the last arming call;
 * fv__alloc_failures: how many of them were refused. fv__alloc_live: successful
 * allocations minus fv__free calls (of non-NULL pointers) since then; over a span
 * that frees all it allocates (open ... close, cache cleared) it returns to its
 * start value, a leak check that works without LeakSanitizer. */
void fv__alloc_fail_after(int64_t n);
/* (the host-allocation fault point of the general mechanism below) */
void fv__alloc_fail_from(int64_t n);
int64_t fv__alloc_count(void);
int64_t fv__alloc_failures(void);
int64_t fv__alloc_live(void);

/* Fault points: the same injection for other kinds of failure. fv__fault_hit
 * counts one attempt at `which` and says whether it must fail; fv__fault_arm(which,
 * n, all) arms it as fv__alloc_fail_after (all = 0) / fv__alloc_fail_from (all = 1)
 * do for host allocations. FV__FAULT_DEVICE_ALLOC: every device allocation of the
 * CUDA backend (array memory, call scratch, the GPU slide path's buffers and
 * tile cache) fails as an out-of-memory would (cudaErrorMemoryAllocation). */
enum {
    FV__FAULT_HOST_ALLOC,
    FV__FAULT_DEVICE_ALLOC,
    FV__FAULT_COUNT
};
int fv__fault_hit(int which);
void fv__fault_arm(int which, int64_t n, int all);
int64_t fv__fault_count(int which);
int64_t fv__fault_failures(int which);

#ifdef __cplusplus
}
#endif

#endif
