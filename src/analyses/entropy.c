/* entropy.c -- c * log2(c) from a table, and the entropy of a sorted key
 * list (entropy.h). */
#include "analyses/entropy.h"

#include <pthread.h>
#include <stdint.h>
#include <stddef.h>

#include "analyses/locality.h"

/* The c * log2(c) table (entropy.h). */
double mh_loc_clog2[MH_LOC_CLOG_N];
static pthread_once_t clog2_once = PTHREAD_ONCE_INIT;

static void clog2_fill(void) {
    for (unsigned c = 2; c < MH_LOC_CLOG_N; c++) mh_loc_clog2[c] = (double)c * log2((double)c);
}

void mh_loc_clog2_init(void) { pthread_once(&clog2_once, clog2_fill); }

double mh_loc_entropy(const uint64_t *keys, const uint64_t *counts, size_t n, unsigned drop) {
    mh_loc_clog2_init();
    /* H = log2(N) - (1/N) * sum c log2 c over runs of equal (key >> drop). */
    double total = 0, acc = 0;
    size_t i = 0;
    while (i < n) {
        uint64_t k = keys[i] >> drop;
        double c = 0;
        while (i < n && keys[i] >> drop == k) {
            c += counts ? (double)counts[i] : 1.0;
            i++;
        }
        if (c > 1) acc += mh_loc_c_log2_c(c);
        total += c;
    }
    if (total <= 0) return 0;
    double h = log2(total) - acc / total;
    return h < 0 ? 0 : h;
}
