/* Selection networks and scipy's quickselect for the rank filter. */
#include <stdlib.h>
#include "rank-network.h"
#include "ops/filters/ni-select.h"

int
fv__rank_net_want(int64_t count, fv_dtype dt)
{
    if (count < 2)
        return 0;
    return count <= (fv_dtype_size(dt) >= 8 ? 64 : 128);
}

fv_status
fv__rank_net_new(int64_t count, int64_t rank, fv__rank_net **out)
{
    *out = NULL;
    int64_t n = 1;
    while (n < count)
        n <<= 1;
    /* Batcher's odd-even merge sort on n wires, comparators touching only
     * wires < count (the missing wires act as +inf and never move) */
    int64_t cap = 64, m = 0;
    fv__rank_cmp *all = malloc((size_t)cap * sizeof *all);
    char *need = calloc((size_t)n, 1);
    fv__rank_net *net = calloc(1, sizeof *net);
    if (!all || !need || !net)
        goto oom;
    for (int64_t p = 1; p < n; p <<= 1)
        for (int64_t k = p; k >= 1; k >>= 1)
            for (int64_t j = k % p; j + k < n; j += 2 * k)
                for (int64_t i = 0; i < k && i < n - j - k; i++)
                    if ((i + j) / (2 * p) == (i + j + k) / (2 * p)) {
                        int64_t a = i + j, b = i + j + k;
                        if (b >= count)
                            continue;
                        if (m == cap) {
                            fv__rank_cmp *t = realloc(all, (size_t)(cap *= 2) * sizeof *all);
                            if (!t)
                                goto oom;
                            all = t;
                        }
                        all[m].a = (int32_t)a;
                        all[m].b = (int32_t)b;
                        all[m].op = FV__RANK_CMP_BOTH;
                        m++;
                    }
    /* keep what wire `rank` depends on, walking backwards */
    need[rank] = 1;
    int64_t kept = 0;
    for (int64_t c = m - 1; c >= 0; c--) {
        int na = need[all[c].a], nb = need[all[c].b];
        if (!na && !nb) {
            all[c].op = -1;
            continue;
        }
        all[c].op = na && nb ? FV__RANK_CMP_BOTH : na ? FV__RANK_CMP_MIN : FV__RANK_CMP_MAX;
        need[all[c].a] = need[all[c].b] = 1;
        kept++;
    }
    net->cmp = malloc((size_t)(kept ? kept : 1) * sizeof *net->cmp);
    if (!net->cmp)
        goto oom;
    for (int64_t c = 0; c < m; c++)
        if (all[c].op >= 0)
            net->cmp[net->ncmp++] = all[c];
    net->n = count;
    net->rank = rank;
    free(all);
    free(need);
    *out = net;
    return FV_OK;
oom:
    free(all);
    free(need);
    fv__rank_net_free(net);
    return fv_error_set(FV_ENOMEM, "rank_filter", "out of host memory");
}

void
fv__rank_net_free(fv__rank_net *net)
{
    if (!net)
        return;
    free(net->cmp);
    free(net);
}

double
fv__ni_select(double *buf, int64_t max, int64_t rank)
{
    int64_t min = 0;
    FV__NI_SELECT(double, buf, min, max, rank)
}
