/* scipy's NI_Select (ni_filters.c: Hoare partition, iterative), shared by the CPU
 * and CUDA rank filters so that both leave scipy's answer when NaN is present.
 *
 * FV__NI_SELECT(V, buf, lo, hi, rank) is the body of a function returning the
 * rank-th smallest of buf[lo..hi] (V *buf; int64_t lo, hi, rank: its parameters,
 * which it changes), reordering buf exactly as scipy does. The CPU backend
 * instantiates it for double (src/cpu/filters/rank-network.c), the CUDA backend
 * as a template over the value type (src/cuda/filters/filternd-rank.cuh): on the
 * input type itself it compares as scipy's doubles do (floats convert exactly;
 * integers keep their order, so the selected value is the same). */
#ifndef FV_OPS_NI_SELECT_H
#define FV_OPS_NI_SELECT_H

#define FV__NI_SELECT(V, buf, lo, hi, rank) \
    for (;;) {                              \
        if (lo == hi)                       \
            return buf[lo];                 \
        V x_ = buf[lo];                     \
        int64_t ii_ = lo - 1, jj_ = hi + 1; \
        for (;;) {                          \
            do                              \
                jj_--;                      \
            while (buf[jj_] > x_);          \
            do                              \
                ii_++;                      \
            while (buf[ii_] < x_);          \
            if (ii_ < jj_) {                \
                V t_ = buf[ii_];            \
                buf[ii_] = buf[jj_];        \
                buf[jj_] = t_;              \
            } else {                        \
                break;                      \
            }                               \
        }                                   \
        ii_ = jj_ - lo + 1;                 \
        if (rank < ii_) {                   \
            hi = jj_;                       \
        } else {                            \
            lo = jj_ + 1;                   \
            rank -= ii_;                    \
        }                                   \
    }

#endif
