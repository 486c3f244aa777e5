/* The library's CPU thread pool: persistent workers, shared by every caller.
 *
 * A parallel_for posts a job (on the caller's stack) to a list; idle workers join
 * jobs that still have unclaimed chunks and fewer than max_workers participants.
 * The caller works on its own job, then unlinks it and waits until every worker
 * that joined has left. Several callers may run jobs at once. After fork() the
 * child starts with no pool and creates a fresh one on first use. */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <pthread.h>
#include <unistd.h>
#include <stdatomic.h>
#include "internal.h"
#include "alloc.h"
#include "core/config.h"

typedef struct fv__job {
    fv__range_fn fn;
    void *arg;
    int64_t n, chunk, nchunks;
    atomic_llong next; /* next unclaimed chunk */
    int workers;       /* participants, the caller included (pool mutex) */
    int max_workers;
    struct fv__job *next_job;
} fv__job;

typedef struct fv__pool {
    pthread_mutex_t mu;
    pthread_cond_t work_cv; /* a job was posted */
    pthread_cond_t done_cv; /* a worker left a job */
    fv__job *head;
    int size; /* threads including the caller */
} fv__pool;

static fv__pool *fv__the_pool;
static pthread_mutex_t fv__pool_init_mu = PTHREAD_MUTEX_INITIALIZER;
static atomic_int fv__pool_size_cached; /* 0: not detected yet (racing detections agree) */
static _Thread_local int fv__in_task;
static pthread_once_t fv__atfork_once = PTHREAD_ONCE_INIT;

static void
fv__atfork_child(void)
{
    /* the workers did not survive the fork; the old pool (and any lock state) is
     * abandoned, and a new one is created on first use */
    fv__the_pool = NULL;
    pthread_mutex_init(&fv__pool_init_mu, NULL);
    fv__in_task = 0;
}

static void
fv__register_atfork(void)
{
    pthread_atfork(NULL, NULL, fv__atfork_child);
}

static int
fv__detect_size(void)
{
    const char *env = fv__env(FV__ENV_NUM_THREADS);
    if (env && *env) {
        char *end;
        long v = strtol(env, &end, 10);
        if (*end == '\0' && v > 0 && v <= 4096)
            return (int)v;
    }
#ifdef CPU_COUNT
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
#endif
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

int
fv_num_threads(void)
{
    int n = atomic_load_explicit(&fv__pool_size_cached, memory_order_relaxed);
    if (!n) {
        n = fv__detect_size();
        atomic_store_explicit(&fv__pool_size_cached, n, memory_order_relaxed);
    }
    return n;
}

static void
fv__run_chunks(fv__job *job)
{
    int64_t c;
    while ((c = atomic_fetch_add_explicit(&job->next, 1, memory_order_relaxed)) < job->nchunks) {
        int64_t b = c * job->chunk, e = b + job->chunk;
        job->fn(job->arg, b, e < job->n ? e : job->n);
    }
}

static void *
fv__worker(void *p)
{
    fv__pool *pool = p;
    fv__in_task = 1; /* nested parallel_for calls from a task run serially */
    pthread_mutex_lock(&pool->mu);
    for (;;) {
        fv__job *job = pool->head;
        while (job &&
               (job->workers >= job->max_workers ||
                atomic_load_explicit(&job->next, memory_order_relaxed) >= job->nchunks))
            job = job->next_job;
        if (!job) {
            pthread_cond_wait(&pool->work_cv, &pool->mu);
            continue;
        }
        job->workers++;
        pthread_mutex_unlock(&pool->mu);
        fv__run_chunks(job);
        pthread_mutex_lock(&pool->mu);
        job->workers--;
        pthread_cond_broadcast(&pool->done_cv);
    }
    return NULL;
}

static fv__pool *
fv__pool_get(void)
{
    pthread_once(&fv__atfork_once, fv__register_atfork);
    fv__pool *pool = __atomic_load_n(&fv__the_pool, __ATOMIC_ACQUIRE);
    if (pool)
        return pool;
    pthread_mutex_lock(&fv__pool_init_mu);
    pool = fv__the_pool;
    if (!pool && (pool = fv__calloc(1, sizeof *pool))) {
        pthread_mutex_init(&pool->mu, NULL);
        pthread_cond_init(&pool->work_cv, NULL);
        pthread_cond_init(&pool->done_cv, NULL);
        pool->size = 1;
        int want = fv_num_threads();
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old); /* workers take no signals */
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        for (int i = 1; i < want; i++) {
            pthread_t t;
            if (pthread_create(&t, &attr, fv__worker, pool) != 0)
                break; /* run with the workers we have */
            pool->size++;
        }
        pthread_attr_destroy(&attr);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        __atomic_store_n(&fv__the_pool, pool, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&fv__pool_init_mu);
    return pool;
}

void
fv__parallel_for(fv_context *ctx, int64_t n, int64_t grain, fv__range_fn fn, void *arg)
{
    if (n <= 0)
        return;
    if (grain < 1)
        grain = 1;
    int nt = fv_context_threads(ctx);
    if (nt <= 1 || n <= grain || fv__in_task) {
        fn(arg, 0, n);
        return;
    }
    fv__pool *pool = fv__pool_get();
    if (!pool || pool->size <= 1) {
        fn(arg, 0, n);
        return;
    }
    if (nt > pool->size)
        nt = pool->size;
    /* about 4 chunks per thread for balance, never below the grain */
    int64_t chunk = (n + (int64_t)nt * 4 - 1) / ((int64_t)nt * 4);
    if (chunk < grain)
        chunk = grain;
    fv__job job = { .fn = fn,
                    .arg = arg,
                    .n = n,
                    .chunk = chunk,
                    .nchunks = (n + chunk - 1) / chunk,
                    .workers = 1,
                    .max_workers = nt };
    atomic_init(&job.next, 0);

    pthread_mutex_lock(&pool->mu);
    job.next_job = pool->head; /* newest first: small late jobs are not starved */
    pool->head = &job;
    pthread_cond_broadcast(&pool->work_cv);
    pthread_mutex_unlock(&pool->mu);

    fv__in_task = 1;
    fv__run_chunks(&job);
    fv__in_task = 0;

    pthread_mutex_lock(&pool->mu);
    for (fv__job **pp = &pool->head; *pp; pp = &(*pp)->next_job)
        if (*pp == &job) {
            *pp = job.next_job;
            break;
        }
    while (job.workers > 1)
        pthread_cond_wait(&pool->done_cv, &pool->mu);
    pthread_mutex_unlock(&pool->mu);
}
