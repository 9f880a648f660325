/* fake_backend.h -- a CPU stand-in for the CUDA backend of the split
 * scheduler: "device" memory is malloc'd, copies are synchronous memcpy,
 * events are host timestamps. It counts live objects and device bytes so
 * tests can check the budget and that error paths release everything, and it
 * can fail its N-th fallible call. */
#ifndef MH_TEST_FAKE_BACKEND_H
#define MH_TEST_FAKE_BACKEND_H

#include <pthread.h>
#include <stddef.h>

#include "split_internal.h"

typedef struct fake_dev {
    pthread_mutex_t mu;
    int ndev;
    size_t free_bytes; /* reported by device_info */
    size_t wave;
    long calls;        /* fallible calls so far */
    long fail_at;      /* fail the call with this number (1-based); 0: never */
    long live;         /* allocations + streams + events not yet released */
    size_t dev_live, dev_peak; /* device bytes */
    const void *pinned[8]; /* host pointers to report as pinned */
    int n_pinned;
    long h2d_bytes, d2h_bytes;
} fake_dev;

void fake_init(fake_dev *f, int ndev, size_t free_bytes, size_t wave);
void fake_destroy(fake_dev *f);
mh_split_backend fake_backend(fake_dev *f);

#endif
