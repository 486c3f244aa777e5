/* The first error of the tasks of one parallel job (fv__parallel_for workers that
 * stop once any of them fails): its status and message, under a mutex the job
 * may use for its other shared fields too. */
#ifndef FV_CORE_TASK_ERROR_H
#define FV_CORE_TASK_ERROR_H

#include <pthread.h>
#include <stdio.h>
#include "fovea/fovea.h"

typedef struct fv__task_error {
    pthread_mutex_t mu;
    fv_status st;  /* FV_OK until the first failure */
    char msg[700]; /* its fv_error_message() */
} fv__task_error;

/* 1 once a task has failed. */
static inline int
fv__task_failed(fv__task_error *e)
{
    pthread_mutex_lock(&e->mu);
    int failed = e->st != FV_OK;
    pthread_mutex_unlock(&e->mu);
    return failed;
}

/* Records st and this thread's error message unless an error came first. */
static inline void
fv__task_fail(fv__task_error *e, fv_status st)
{
    pthread_mutex_lock(&e->mu);
    if (!e->st) {
        e->st = st;
        snprintf(e->msg, sizeof e->msg, "%s", fv_error_message());
    }
    pthread_mutex_unlock(&e->mu);
}

#endif
