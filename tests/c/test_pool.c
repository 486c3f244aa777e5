/* The thread pool: every index exactly once, concurrent callers, nesting, fork. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "internal.h"
#include "check.h"

typedef struct {
    atomic_int *hits;
    int nested;
} job_arg;

static void
mark(void *p, int64_t b, int64_t e)
{
    job_arg *a = p;
    for (int64_t i = b; i < e; i++)
        atomic_fetch_add(&a->hits[i], 1);
    if (a->nested) {
        job_arg inner = { a->hits, 0 };
        (void)inner;
    }
}

static void
nested_outer(void *p, int64_t b, int64_t e)
{
    job_arg *a = p;
    for (int64_t i = b; i < e; i++) {
        job_arg inner = { a->hits + i * 10, 0 };
        fv__parallel_for(NULL, 10, 1, mark, &inner); /* runs serially inside a task */
    }
}

static int
all_once(atomic_int *hits, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        if (atomic_load(&hits[i]) != 1)
            return 0;
    return 1;
}

static void *
caller(void *p)
{
    int64_t n = 200003;
    atomic_int *hits = calloc((size_t)n, sizeof *hits);
    job_arg a = { hits, 0 };
    for (int r = 0; r < 20; r++) {
        for (int64_t i = 0; i < n; i++)
            atomic_store(&hits[i], 0);
        fv__parallel_for(NULL, n, 100, mark, &a);
        if (!all_once(hits, n)) {
            free(hits);
            return (void *)1;
        }
    }
    free(hits);
    return NULL;
}

int
main(void)
{
    CHECK(fv_num_threads() >= 1);
    for (int64_t n = 0; n < 70; n += 7) {
        atomic_int hits[70] = { 0 };
        job_arg a = { hits, 0 };
        fv__parallel_for(NULL, n, 1, mark, &a);
        CHECK(all_once(hits, n));
    }
    /* several threads posting jobs at once */
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, caller, NULL);
    for (int i = 0; i < 4; i++) {
        void *r;
        pthread_join(t[i], &r);
        CHECK(r == NULL);
    }
    /* nested parallel_for */
    atomic_int nh[1000] = { 0 };
    job_arg na = { nh, 0 };
    fv__parallel_for(NULL, 100, 1, nested_outer, &na);
    CHECK(all_once(nh, 1000));
    /* a context limited to one thread */
    fv_context *ctx;
    CHECK_OK(fv_context_new(&ctx));
    CHECK_OK(fv_context_set_threads(ctx, 1));
    atomic_int h1[5000] = { 0 };
    job_arg a1 = { h1, 0 };
    fv__parallel_for(ctx, 5000, 1, mark, &a1);
    CHECK(all_once(h1, 5000));
    fv_context_free(ctx);
    /* after fork the child gets a working pool of its own */
    pid_t pid = fork();
    if (pid == 0) {
        atomic_int *hc = calloc(100000, sizeof *hc);
        job_arg ac = { hc, 0 };
        fv__parallel_for(NULL, 100000, 10, mark, &ac);
        int ok = all_once(hc, 100000);
        free(hc);
        _exit(ok ? 0 : 1);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    return fv_t_summary("test_pool");
}
