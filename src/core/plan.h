/* Kernel variants and the one planner that picks among them (docs/naming.md,
 * "Variants").
 *
 * An op with several kernels (a tiled and a generic one, vector and scalar
 * loads, ...) lists them in one variant table, in the order the planner tries
 * them: the fastest first, a variant that always applies last. The registered
 * kernel of the op (the function the dispatch table calls) asks the planner,
 * which returns the first variant whose supports() accepts the arguments. A
 * variant either launches the work itself (launch set: fv__plan_run) or, where
 * the variants are ways one kernel function runs (which loads, which
 * accumulator), names the choice the registered kernel then follows
 * (launch NULL: fv__plan_pick and the variant's index).
 *
 * A forced choice (tests, timing comparisons) starts the search at the named
 * variant: it runs where it applies, and otherwise the planner falls to the
 * variants after it in table order, then to those before it. It is set per
 * thread with fv__plan_force, or for the whole process with the debug variable
 * FOVEA_VARIANT="op:name,op:name" (read once, at the first plan; a forced
 * choice of the thread wins). Names: "<backend>.<op>[.<aspect>]", e.g.
 * "cuda.correlate", "cpu.lines".
 *
 * Tables register themselves when the library loads (FV__VARIANTS), so tests
 * and the Python hook (_fovea._variants) list every op and variant. */
#ifndef FV_CORE_PLAN_H
#define FV_CORE_PLAN_H

#include "fovea/status.h"

#ifdef __cplusplus
extern "C" {
#endif

struct fv_context;

typedef struct fv__variant {
    const char *name;
    /* 1 when the variant can run these arguments on device (a CUDA device
     * ordinal; -1 on the CPU); NULL: always */
    int (*supports)(const void *args, int device);
    /* runs it (fv__plan_run); NULL: the registered kernel runs the pick */
    fv_status (*launch)(struct fv_context *ctx, void *args);
} fv__variant;

typedef struct fv__variant_table {
    const char *op;
    const fv__variant *variants;
    int count;
    int slot; /* set at registration: the table's index in the registry */
} fv__variant_table;

/* The most tables one process holds. */
#define FV__PLAN_MAX 64

/* Defines the static table SYM for op OP with the variants given (braced
 * fv__variant initialisers) and registers it when the library loads. */
#define FV__VARIANTS(SYM, OP, ...)                                                                          \
    static const fv__variant SYM##_list[] = { __VA_ARGS__ };                                                \
    static fv__variant_table SYM = { OP, SYM##_list, (int)(sizeof SYM##_list / sizeof SYM##_list[0]), -1 }; \
    __attribute__((constructor)) static void SYM##_register(void)                                           \
    {                                                                                                       \
        fv__plan_register(&SYM);                                                                            \
    }

void fv__plan_register(fv__variant_table *t);

/* The variant to run for args on device (see above); NULL when none applies.
 * Records the pick for fv__plan_last. */
const fv__variant *fv__plan_pick(const fv__variant_table *t, const void *args, int device);
/* Index of the picked variant in t, -1 when none applies. */
int fv__plan_index(const fv__variant_table *t, const void *args, int device);
/* Picks and launches; FV_ENOKERNEL when no variant applies or the pick has no launch. */
fv_status fv__plan_run(const fv__variant_table *t, struct fv_context *ctx, void *args, int device);

/* Internal hooks for tests (C tests; _fovea._force_variant / _variants /
 * _last_variant). fv__plan_force: this thread's forced choice for op (name
 * NULL or "": none; op NULL: clear every op); FV_EINVAL for an unknown op or
 * name. */
fv_status fv__plan_force(const char *op, const char *name);
/* The table of op, NULL when unknown; fv__plan_table_at(i), i < fv__plan_count(),
 * in registration order. */
const fv__variant_table *fv__plan_table(const char *op);
int fv__plan_count(void);
const fv__variant_table *fv__plan_table_at(int i);
/* The name of the variant this thread's last plan of op picked; NULL before any
 * (or when none applied). fv__plan_forget clears the record. */
const char *fv__plan_last(const char *op);
void fv__plan_forget(void);

#ifdef __cplusplus
}
#endif

#endif
