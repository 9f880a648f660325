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
    unsigned long long t_start; /* %globaltimer (ns) at the earliest warp's block entry */
    unsigned long long t_end;   /* %globaltimer (ns) at the latest warp's block exit */
    mh_access *rec;             /* device buffer: per_thread steps x slots records */
    uint32_t *seq;              /* one sequence counter per traced thread (slots) */
    uint32_t launch;            /* mh_launch.id */
    uint32_t first;             /* first traced linear block id */
    uint32_t nblocks;           /* traced blocks from `first` on */
    uint32_t nthreads;          /* threads per block */
    uint32_t slots;             /* traced threads: nblocks * nthreads */
    uint32_t per_thread;        /* records each traced thread can store */
} mh_cuda_desc;

/* Record of traced thread `slot` at its sequence number `seq` lives at
 * rec[seq * slots + slot]: a warp's accesses at one step are adjacent (the
 * stores coalesce), no atomics are needed, and the host knows from the final
 * counters exactly which records exist and how many did not fit
 * (sum over threads of max(0, seq - per_thread)). */

#endif
