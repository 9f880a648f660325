/* cuda_dev.h -- the launch descriptor shared by the injection library (C) and
 * the device patch code (patch.cu).
 *
 * One descriptor lives in device memory for each traced launch. Untraced
 * launches get a NULL descriptor, so the patch returns at its first test. The
 * record buffer holds mh_access records in the trace's own 32-byte layout, so
 * the host writes them to the trace without converting them. */
#ifndef MEMHEAT_CUDA_DEV_H
#define MEMHEAT_CUDA_DEV_H

#include <stdint.h>

#include "memheat/trace.h"

typedef struct mh_cuda_desc {
    unsigned long long count; /* records claimed so far; may pass cap (the rest are dropped) */
    unsigned long long cap;   /* records that fit in rec[] */
    mh_access *rec;           /* device buffer of cap records */
    uint32_t *seq;            /* one sequence counter per traced thread */
    uint32_t launch;          /* mh_launch.id */
    uint32_t first;           /* first traced linear block id */
    uint32_t nblocks;         /* traced blocks from `first` on */
    uint32_t nthreads;        /* threads per block */
} mh_cuda_desc;

#endif
