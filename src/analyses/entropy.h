/* entropy.h -- the entropy sums of the locality metrics: c * log2(c) of
 * the counts, from a table for small counts (entropy.c), and the entropy
 * of a sorted list of keys (analyses/locality.h's mh_loc_entropy). */
#ifndef MH_ANALYSES_ENTROPY_H
#define MH_ANALYSES_ENTROPY_H

#include <math.h>

/* c * log2(c) for small counts, the entropy sums' hot spot: the same
 * expression as the fallback, so the same bits. The table is filled once,
 * thread-safely, by mh_loc_clog2_init (entropy.c). */
#define MH_LOC_CLOG_N 1024
extern double mh_loc_clog2[MH_LOC_CLOG_N];
void mh_loc_clog2_init(void);
static inline double mh_loc_c_log2_c(double c) {
    return c < MH_LOC_CLOG_N ? mh_loc_clog2[(unsigned)c] : c * log2(c);
}

#endif
