/* fv_nearest_points (include/fovea/metrics.h) against brute force written
 * here: random integer point sets of 1-4 dimensions (sparse, dense, on a
 * line, with duplicates), every sweep axis (points sorted along it), ties
 * resolved to the lowest row, 1 and 3 threads, and the argument errors. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fovea/fovea.h"
#include "check.h"

static const fv_device CPU = { FV_DEVICE_CPU, 0 };

static uint64_t rng = 0xda942042e4dd58b5ull;
static int64_t
rand_below(int64_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (int64_t)(rng % (uint64_t)n);
}

static int sort_axis, sort_nd;
static int
cmp_rows(const void *x, const void *y)
{
    const int64_t a = ((const int64_t *)x)[sort_axis], b = ((const int64_t *)y)[sort_axis];
    return (a > b) - (a < b);
}

static void
one_case(fv_context *ctx, int nd, int64_t n, int64_t m, int64_t extent, int axis, int line)
{
    int64_t ps[2] = { n, nd }, qs[2] = { m, nd };
    fv_array *P = NULL, *Q = NULL, *D = NULL, *I = NULL;
    CHECK_OK(fv_array_new(NULL, FV_INT64, 2, ps, CPU, &P));
    CHECK_OK(fv_array_new(NULL, FV_INT64, 2, qs, CPU, &Q));
    CHECK_OK(fv_array_new(NULL, FV_INT64, 1, &m, CPU, &D));
    CHECK_OK(fv_array_new(NULL, FV_INT64, 1, &m, CPU, &I));
    int64_t *p = fv_array_data(P), *q = fv_array_data(Q);
    for (int64_t i = 0; i < n * nd; i++)
        p[i] = line && (i % nd) != axis ? 7 : rand_below(extent) - extent / 3;
    for (int64_t i = 0; i < m * nd; i++)
        q[i] = rand_below(extent + 10) - extent / 3 - 5;
    sort_axis = axis;
    sort_nd = nd;
    qsort(p, (size_t)n, (size_t)nd * sizeof(int64_t), cmp_rows);
    CHECK_OK(fv_nearest_points(ctx, P, axis, Q, D, I));
    const int64_t *d = fv_array_data(D), *ix = fv_array_data(I);
    int64_t bad = 0;
    for (int64_t k = 0; k < m; k++) {
        int64_t best = INT64_MAX, bi = -1;
        for (int64_t i = 0; i < n; i++) {
            int64_t s = 0;
            for (int c = 0; c < nd; c++) {
                int64_t e = p[i * nd + c] - q[k * nd + c];
                s += e * e;
            }
            if (s < best) {
                best = s;
                bi = i;
            }
        }
        bad += d[k] != best || ix[k] != bi;
    }
    CHECK(bad == 0);
    if (bad)
        fprintf(stderr, "  nd %d n %lld axis %d line %d: %lld wrong\n", nd, (long long)n, axis, line, (long long)bad);
    fv_array_unref(P);
    fv_array_unref(Q);
    fv_array_unref(D);
    fv_array_unref(I);
}

static void
test_errors(void)
{
    int64_t s22[2] = { 2, 2 }, s23[2] = { 1, 3 }, s0[2] = { 0, 2 }, m1 = 1, m2 = 2;
    fv_array *P = NULL, *Q = NULL, *Q3 = NULL, *E = NULL, *D = NULL, *D2 = NULL, *F = NULL;
    CHECK_OK(fv_array_zeros(NULL, FV_INT64, 2, s22, CPU, &P));
    CHECK_OK(fv_array_zeros(NULL, FV_INT64, 2, s22, CPU, &Q));
    CHECK_OK(fv_array_zeros(NULL, FV_INT64, 2, s23, CPU, &Q3));
    CHECK_OK(fv_array_zeros(NULL, FV_INT64, 2, s0, CPU, &E));
    CHECK_OK(fv_array_zeros(NULL, FV_INT64, 1, &m2, CPU, &D));
    CHECK_OK(fv_array_zeros(NULL, FV_INT64, 1, &m1, CPU, &D2));
    CHECK_OK(fv_array_zeros(NULL, FV_FLOAT64, 2, s22, CPU, &F));
    CHECK_ERR(fv_nearest_points(NULL, NULL, 0, Q, D, NULL), FV_EINVAL, "NULL points");
    CHECK_ERR(fv_nearest_points(NULL, F, 0, Q, D, NULL), FV_EDTYPE, "int64");
    CHECK_ERR(fv_nearest_points(NULL, P, 0, Q3, D, NULL), FV_EINVAL, "coordinates");
    CHECK_ERR(fv_nearest_points(NULL, E, 0, Q, D, NULL), FV_EINVAL, "no points");
    CHECK_ERR(fv_nearest_points(NULL, P, 2, Q, D, NULL), FV_EINVAL, "axis");
    CHECK_ERR(fv_nearest_points(NULL, P, 0, Q, D2, NULL), FV_EINVAL, "one entry per query");
    CHECK_ERR(fv_nearest_points(NULL, P, 0, Q, D, D), FV_EINVAL, "overlap");
    int64_t *p = fv_array_data(P);
    p[0] = 5; /* rows (5, 0), (0, 0): not sorted by column 0 */
    CHECK_ERR(fv_nearest_points(NULL, P, 0, Q, D, NULL), FV_EINVAL, "not sorted");
    p[0] = 0;
    p[1] = (int64_t)1 << 28;
    CHECK_ERR(fv_nearest_points(NULL, P, 0, Q, D, NULL), FV_EINVAL, "2^28");
    fv_array *all[7] = { P, Q, Q3, E, D, D2, F };
    for (int k = 0; k < 7; k++)
        fv_array_unref(all[k]);
}

int
main(void)
{
    fv_context *ctxs[2] = { NULL, NULL };
    CHECK_OK(fv_context_new(&ctxs[0]));
    CHECK_OK(fv_context_new(&ctxs[1]));
    CHECK_OK(fv_context_set_threads(ctxs[0], 1));
    CHECK_OK(fv_context_set_threads(ctxs[1], 3));
    for (int c = 0; c < 2; c++)
        for (int nd = 1; nd <= 4; nd++)
            for (int axis = 0; axis < nd; axis++) {
                one_case(ctxs[c], nd, 1, 50, 100, axis, 0);
                one_case(ctxs[c], nd, 300, 700, 1000, axis, 0); /* sparse */
                one_case(ctxs[c], nd, 2000, 500, 12, axis, 0);  /* dense, many duplicates and ties */
                one_case(ctxs[c], nd, 400, 300, 500, axis, 1);  /* all on one line along axis */
            }
    test_errors();
    fv_context_free(ctxs[0]);
    fv_context_free(ctxs[1]);
    return fv_t_summary("test_nearest");
}
