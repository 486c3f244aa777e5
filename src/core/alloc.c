/* Heap wrappers with allocation-failure injection (alloc.h). */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include "alloc.h"

/* Host buffers of FV__HUGE_MIN bytes or more (array data: batches of patches,
 * whole levels, filter outputs) start on a 2 MiB boundary and are advised for
 * transparent huge pages. A fresh buffer is faulted in page by page as it is
 * first written; at 4 KiB a 50 MB batch of 256 patches takes ~12 800 faults,
 * which made the batch loader 36 % slower at batch_size 256 than at 64 on the
 * build VM; with the advice it is ~25. Advice only: where THP is off or madvise
 * fails nothing changes. From 32 MiB only: below it the allocator's own reuse
 * of freed memory is cheaper than fresh huge pages, which are zeroed on every
 * call (fovea.astype of a 4-16 MiB float32 array took 2.7 ms at a 4 MiB
 * threshold, 0.5-0.9 ms at 32 MiB; NumPy 0.1-0.9 ms). */
#define FV__HUGE_MIN ((size_t)32 << 20)
#define FV__HUGE_PAGE ((size_t)2 << 20)
#define FV__PAGE_ALIGN_MIN ((size_t)256 << 10)
#define FV__THP_ADVISE_MIN ((size_t)4 << 20)

/* Fault points (alloc.h): armed 0 off (one relaxed load per check), 1 counting */
static struct {
    atomic_int armed;
    atomic_int all;      /* fail the target and every later one */
    atomic_llong target; /* 1-based; 0: never fail */
    atomic_llong count, failed;
} fv__faults[FV__FAULT_COUNT];
static atomic_llong fv__af_live; /* host allocations minus fv__free calls while armed */
#define fv__af_armed (fv__faults[FV__FAULT_HOST_ALLOC].armed)

int
fv__fault_hit(int which)
{
    if (!atomic_load_explicit(&fv__faults[which].armed, memory_order_relaxed))
        return 0;
    long long k = atomic_fetch_add_explicit(&fv__faults[which].count, 1, memory_order_relaxed) + 1;
    long long t = atomic_load_explicit(&fv__faults[which].target, memory_order_relaxed);
    if (t > 0 && (k == t || (k > t && atomic_load_explicit(&fv__faults[which].all, memory_order_relaxed)))) {
        atomic_fetch_add_explicit(&fv__faults[which].failed, 1, memory_order_relaxed);
        return 1;
    }
    return 0;
}

void
fv__fault_arm(int which, int64_t n, int all)
{
    atomic_store(&fv__faults[which].armed, 0);
    atomic_store(&fv__faults[which].count, 0);
    atomic_store(&fv__faults[which].failed, 0);
    if (which == FV__FAULT_HOST_ALLOC)
        atomic_store(&fv__af_live, 0);
    atomic_store(&fv__faults[which].target, n > 0 ? (long long)n : 0);
    atomic_store(&fv__faults[which].all, all);
    atomic_store(&fv__faults[which].armed, n >= 0);
}

int64_t
fv__fault_count(int which)
{
    return atomic_load(&fv__faults[which].count);
}
int64_t
fv__fault_failures(int which)
{
    return atomic_load(&fv__faults[which].failed);
}

static int
fv__alloc_refuse(void)
{
    if (!fv__fault_hit(FV__FAULT_HOST_ALLOC))
        return 0;
    errno = ENOMEM;
    return 1;
}

static void *
fv__alloc_got(void *p)
{
    if (p && atomic_load_explicit(&fv__af_armed, memory_order_relaxed))
        atomic_fetch_add_explicit(&fv__af_live, 1, memory_order_relaxed);
    return p;
}

void *
fv__malloc(size_t n)
{
    return fv__alloc_refuse() ? NULL : fv__alloc_got(malloc(n));
}

void *
fv__calloc(size_t n, size_t size)
{
    return fv__alloc_refuse() ? NULL : fv__alloc_got(calloc(n, size));
}

void *
fv__realloc(void *p, size_t n)
{
    if (fv__alloc_refuse())
        return NULL;
    void *q = realloc(p, n ? n : 1); /* never realloc(p, 0): it may free p */
    return p ? q : fv__alloc_got(q);
}

void *
fv__aligned_alloc(size_t align, size_t n)
{
    if (fv__alloc_refuse())
        return NULL;
    const int huge = n >= FV__HUGE_MIN;
    if (huge && align < FV__HUGE_PAGE)
        align = FV__HUGE_PAGE;
    if (n % align)
        n += align - n % align;
    void *p = aligned_alloc(align, n ? n : align);
#ifdef MADV_HUGEPAGE
    if (p && huge)
        (void)madvise(p, n, MADV_HUGEPAGE);
#endif
    return fv__alloc_got(p);
}

void *
fv__host_buffer(size_t align, size_t n, void **base)
{
    if (n >= FV__HUGE_MIN || n > SIZE_MAX - align)
        return *base = fv__aligned_alloc(align, n);
    if (n >= FV__PAGE_ALIGN_MIN && align < 4096)
        align = 4096; /* large ones on a page: zoom(o0) of 512^2 float32 was 25 % slower 64-aligned */
    char *p = *base = fv__malloc(n + align);
#ifdef MADV_HUGEPAGE
    if (p && n >= FV__THP_ADVISE_MIN) { /* advice only, as NumPy gives its data from 4 MiB */
        uintptr_t lo = ((uintptr_t)p + 4095) & ~(uintptr_t)4095;
        uintptr_t hi = ((uintptr_t)p + n + align) & ~(uintptr_t)4095;
        (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
    }
#endif
    return p ? p + (align - (uintptr_t)p % align) % align : NULL;
}

char *
fv__strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = fv__malloc(n); /* counted there */
    if (p)
        memcpy(p, s, n);
    return p;
}

void
fv__free(void *p)
{
    if (p && atomic_load_explicit(&fv__af_armed, memory_order_relaxed))
        atomic_fetch_sub_explicit(&fv__af_live, 1, memory_order_relaxed);
    free(p);
}

void
fv__alloc_fail_after(int64_t n)
{
    fv__fault_arm(FV__FAULT_HOST_ALLOC, n, 0);
}
void
fv__alloc_fail_from(int64_t n)
{
    fv__fault_arm(FV__FAULT_HOST_ALLOC, n, 1);
}
int64_t
fv__alloc_count(void)
{
    return fv__fault_count(FV__FAULT_HOST_ALLOC);
}
int64_t
fv__alloc_failures(void)
{
    return fv__fault_failures(FV__FAULT_HOST_ALLOC);
}
int64_t
fv__alloc_live(void)
{
    return atomic_load(&fv__af_live);
}
