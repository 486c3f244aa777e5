/* Rank selection for the CPU rank filter: pruned sorting networks (run across
 * a chunk of outputs at once) and scipy's quickselect (NI_Select), which also
 * defines the result when NaN is present. */
#ifndef FV_RANK_NETWORK_H
#define FV_RANK_NETWORK_H

#include <stdint.h>
#include "internal.h"

enum {
    FV__RANK_CMP_BOTH = 0,
    FV__RANK_CMP_MIN = 1,
    FV__RANK_CMP_MAX = 2
};

/* Compare-exchange of wires a < b: a receives the minimum, b the maximum; MIN
 * and MAX compute only the side that is needed later. */
typedef struct fv__rank_cmp {
    int32_t a, b;
    int32_t op;
} fv__rank_cmp;

typedef struct fv__rank_net {
    int64_t n, rank, ncmp;
    fv__rank_cmp *cmp;
} fv__rank_net;

/* Whether a network is worth it for `count` values of dtype dt. */
int fv__rank_net_want(int64_t count, fv_dtype dt);
/* The comparators of Batcher's odd-even merge sort on count wires that wire
 * `rank` depends on. */
fv_status fv__rank_net_new(int64_t count, int64_t rank, fv__rank_net **out);
void fv__rank_net_free(fv__rank_net *net);

/* scipy's NI_Select on buf[0..max]: the rank-th smallest, partially reordering
 * buf exactly as scipy does (so NaN gives scipy's answer). */
double fv__ni_select(double *buf, int64_t max, int64_t rank);

#endif
