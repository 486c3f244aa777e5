/* Minimal test harness: CHECK counts, prints failures, and the summary line
 * "N passed, N failed" that CI reads. */
#ifndef FV_TEST_CHECK_H
#define FV_TEST_CHECK_H

#include <stdio.h>
#include <string.h>

static int fv_t_pass, fv_t_fail;

#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (cond)                                                                    \
            fv_t_pass++;                                                             \
        else {                                                                       \
            fv_t_fail++;                                                             \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                            \
    } while (0)

#define CHECK_OK(call)                                                                               \
    do {                                                                                             \
        fv_status st_ = (call);                                                                      \
        if (st_ == FV_OK)                                                                            \
            fv_t_pass++;                                                                             \
        else {                                                                                       \
            fv_t_fail++;                                                                             \
            fprintf(stderr, "%s:%d: %s -> %s: %s\n", __FILE__, __LINE__, #call, fv_status_name(st_), \
                    fv_error_message());                                                             \
        }                                                                                            \
    } while (0)

/* call must fail with code and its message must contain text */
#define CHECK_ERR(call, code, text)                                                                         \
    do {                                                                                                    \
        fv_status st_ = (call);                                                                             \
        if (st_ == (code) && strstr(fv_error_message(), (text)))                                            \
            fv_t_pass++;                                                                                    \
        else {                                                                                              \
            fv_t_fail++;                                                                                    \
            fprintf(stderr, "%s:%d: %s -> %s '%s', wanted %s containing '%s'\n", __FILE__, __LINE__, #call, \
                    fv_status_name(st_), fv_error_message(), fv_status_name(code), (text));                 \
        }                                                                                                   \
    } while (0)

static int
fv_t_summary(const char *name)
{
    printf("%s: %d passed, %d failed\n", name, fv_t_pass, fv_t_fail);
    return fv_t_fail ? 1 : 0;
}

#endif
