/* Forcing kernel variants in C tests through the planner's internal call
 * (src/core/plan.h), never the environment: tv_force(op, name) makes this
 * thread's calls of op start at variant name (the planner still falls to the
 * next variant where that one does not apply); tv_force(op, NULL) restores the
 * planner's own choice. An unknown op or name fails the test at once. */
#ifndef FOVEA_TESTS_VARIANT_FORCE_H
#define FOVEA_TESTS_VARIANT_FORCE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/plan.h"
#include "fovea/fovea.h"

static inline void
tv_force(const char *op, const char *name)
{
    if (fv__plan_force(op, name) != FV_OK) {
        fprintf(stderr, "tv_force(%s, %s): %s\n", op ? op : "NULL", name ? name : "NULL", fv_error_message());
        exit(1);
    }
}

/* "--variant op:name" arguments (ctest runs a test again on other variants):
 * forces each for the whole run. */
static inline void
tv_force_args(int argc, char **argv)
{
    for (int i = 1; i + 1 < argc; i++) {
        if (strcmp(argv[i], "--variant") != 0)
            continue;
        char buf[256];
        snprintf(buf, sizeof buf, "%s", argv[++i]);
        char *colon = strchr(buf, ':');
        if (!colon) {
            fprintf(stderr, "--variant %s: expected op:name\n", buf);
            exit(1);
        }
        *colon = '\0';
        tv_force(buf, colon + 1);
        printf("variant %s:%s forced\n", buf, colon + 1);
    }
}

#endif
