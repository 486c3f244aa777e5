/* Per-thread scratch buffers for the filter kernels (see filters-cpu.h). */
#include <pthread.h>
#include <stdlib.h>
#include "filters-cpu.h"

typedef struct fv__scratch {
    void *p;
    size_t n;
    int busy;
} fv__scratch;

static pthread_key_t fv__scratch_key;
static pthread_once_t fv__scratch_once = PTHREAD_ONCE_INIT;
static int fv__scratch_ok;

static void
fv__scratch_free(void *v)
{
    fv__scratch *s = v;
    if (s) {
        free(s->p);
        free(s);
    }
}

static void
fv__scratch_init(void)
{
    fv__scratch_ok = pthread_key_create(&fv__scratch_key, fv__scratch_free) == 0;
}

static void *
fv__aligned(size_t bytes)
{
    size_t sz = (bytes + 63) / 64 * 64;
    return aligned_alloc(64, sz ? sz : 64);
}

void *
fv__scratch_get(size_t bytes)
{
    pthread_once(&fv__scratch_once, fv__scratch_init);
    fv__scratch *s = fv__scratch_ok ? pthread_getspecific(fv__scratch_key) : NULL;
    if (fv__scratch_ok && !s && (s = calloc(1, sizeof *s)) && pthread_setspecific(fv__scratch_key, s)) {
        free(s);
        s = NULL;
    }
    if (!s || s->busy)
        return fv__aligned(bytes);
    if (s->n < bytes) {
        void *p = fv__aligned(bytes);
        if (!p)
            return NULL;
        free(s->p);
        s->p = p;
        s->n = bytes;
    }
    s->busy = 1;
    return s->p;
}

void
fv__scratch_put(void *p)
{
    if (!p)
        return;
    fv__scratch *s = fv__scratch_ok ? pthread_getspecific(fv__scratch_key) : NULL;
    if (s && s->busy && s->p == p)
        s->busy = 0;
    else
        free(p);
}
