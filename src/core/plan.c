/* The planner over the kernel variant tables (plan.h). */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "core/config.h"
#include "core/internal.h"
#include "core/plan.h"

/* The registry: filled by the tables' constructors while the library loads
 * (one thread), read afterwards. */
static fv__variant_table *fv__plan_tables[FV__PLAN_MAX];
static int fv__plan_ntables;

/* Per thread: the forced variant of each table (index + 1, 0: none) and the last
 * pick (index + 1, 0: none yet, -1: none applied). */
static _Thread_local signed char fv__plan_forced[FV__PLAN_MAX];
static _Thread_local int fv__plan_nforced;
static _Thread_local signed char fv__plan_lastpick[FV__PLAN_MAX];

/* FOVEA_VARIANT, resolved once: index + 1 per table, 0: none. */
static signed char fv__plan_envforced[FV__PLAN_MAX];
static atomic_int fv__plan_envany;
static pthread_once_t fv__plan_envonce = PTHREAD_ONCE_INIT;

void
fv__plan_register(fv__variant_table *t)
{
    if (fv__plan_ntables >= FV__PLAN_MAX)
        return; /* never: FV__PLAN_MAX is above the tables the library has (test_variants) */
    t->slot = fv__plan_ntables;
    fv__plan_tables[fv__plan_ntables++] = t;
}

static int
fv__plan_find(const fv__variant_table *t, const char *name, size_t len)
{
    for (int i = 0; i < t->count; i++)
        if (strlen(t->variants[i].name) == len && memcmp(t->variants[i].name, name, len) == 0)
            return i;
    return -1;
}

static const fv__variant_table *
fv__plan_findop(const char *op, size_t len)
{
    for (int i = 0; i < fv__plan_ntables; i++)
        if (strlen(fv__plan_tables[i]->op) == len && memcmp(fv__plan_tables[i]->op, op, len) == 0)
            return fv__plan_tables[i];
    return NULL;
}

/* FOVEA_VARIANT="op:name,op:name": unknown ops or names are ignored (the
 * library prints nothing); docs/configuration.md. */
static void
fv__plan_envread(void)
{
    const char *s = fv__env(FV__ENV_VARIANT);
    int any = 0;
    while (s && *s) {
        const char *end = strchr(s, ',');
        size_t n = end ? (size_t)(end - s) : strlen(s);
        const char *colon = memchr(s, ':', n);
        if (colon) {
            const fv__variant_table *t = fv__plan_findop(s, (size_t)(colon - s));
            int i = t ? fv__plan_find(t, colon + 1, n - (size_t)(colon + 1 - s)) : -1;
            if (i >= 0) {
                fv__plan_envforced[t->slot] = (signed char)(i + 1);
                any = 1;
            }
        }
        s = end ? end + 1 : NULL;
    }
    atomic_store(&fv__plan_envany, any);
}

int
fv__plan_index(const fv__variant_table *t, const void *args, int device)
{
    int start = 0;
    if (t->slot < 0)
        return -1;
    if (fv__plan_nforced && fv__plan_forced[t->slot]) {
        start = fv__plan_forced[t->slot] - 1;
    } else {
        pthread_once(&fv__plan_envonce, fv__plan_envread);
        if (atomic_load_explicit(&fv__plan_envany, memory_order_relaxed) && fv__plan_envforced[t->slot])
            start = fv__plan_envforced[t->slot] - 1;
    }
    for (int k = 0; k < t->count; k++) {
        const int i = (start + k) % t->count;
        const fv__variant *v = &t->variants[i];
        if (!v->supports || v->supports(args, device)) {
            fv__plan_lastpick[t->slot] = (signed char)(i + 1);
            return i;
        }
    }
    fv__plan_lastpick[t->slot] = -1;
    return -1;
}

const fv__variant *
fv__plan_pick(const fv__variant_table *t, const void *args, int device)
{
    int i = fv__plan_index(t, args, device);
    return i < 0 ? NULL : &t->variants[i];
}

fv_status
fv__plan_run(const fv__variant_table *t, fv_context *ctx, void *args, int device)
{
    const fv__variant *v = fv__plan_pick(t, args, device);
    if (!v)
        return fv_error_set(FV_ENOKERNEL, t->op, "no kernel variant applies");
    if (!v->launch)
        return fv_error_set(FV_ENOKERNEL, t->op, "variant %s has no launch", v->name);
    return v->launch(ctx, args);
}

fv_status
fv__plan_force(const char *op, const char *name)
{
    if (!op) {
        memset(fv__plan_forced, 0, sizeof fv__plan_forced);
        fv__plan_nforced = 0;
        return FV_OK;
    }
    const fv__variant_table *t = fv__plan_findop(op, strlen(op));
    if (!t)
        return fv_error_set(FV_EINVAL, "force_variant", "no op %s has variants", op);
    int i = -1;
    if (name && *name && (i = fv__plan_find(t, name, strlen(name))) < 0)
        return fv_error_set(FV_EINVAL, "force_variant", "op %s has no variant %s", op, name);
    const int was = fv__plan_forced[t->slot] != 0;
    fv__plan_forced[t->slot] = (signed char)(i + 1);
    fv__plan_nforced += (i >= 0) - was;
    return FV_OK;
}

const fv__variant_table *
fv__plan_table(const char *op)
{
    return op ? fv__plan_findop(op, strlen(op)) : NULL;
}

int
fv__plan_count(void)
{
    return fv__plan_ntables;
}

const fv__variant_table *
fv__plan_table_at(int i)
{
    return i >= 0 && i < fv__plan_ntables ? fv__plan_tables[i] : NULL;
}

const char *
fv__plan_last(const char *op)
{
    const fv__variant_table *t = fv__plan_table(op);
    if (!t || fv__plan_lastpick[t->slot] <= 0)
        return NULL;
    return t->variants[fv__plan_lastpick[t->slot] - 1].name;
}

void
fv__plan_forget(void)
{
    memset(fv__plan_lastpick, 0, sizeof fv__plan_lastpick);
}
