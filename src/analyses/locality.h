/* locality.h -- AIWC memory-locality metrics per traced launch.
 *
 * Per launch, per address space and over all spaces (index MH_LOC_TOTAL):
 * total memory footprint, 90% footprint, memory-address entropy with n = 0..10
 * low bits dropped, relative local (shared) memory usage, and parallel spatial
 * locality with n = 0..10 bits dropped (AIWC paper, sections 3-5). Exact
 * definitions, units and what counts as an address: docs/metrics.md.
 *
 * mh_loc_run is streaming: it is fed trace records after mh_model_feed and
 * hands a result per launch to a callback when the launch ends. Memory is the
 * distinct canonical addresses of the launches in flight (16 bytes each), the
 * sampled blocks' accumulators, and the logical-time-step groups still open,
 * which are capped by a byte budget (see src/analyses/groupbuf.h). */
#ifndef MH_ANALYSES_LOCALITY_H
#define MH_ANALYSES_LOCALITY_H

#include <stddef.h>
#include <stdint.h>

#include "analyses/model.h"
#include "memheat/err.h"
#include "memheat/trace.h"

#define MH_LOC_NBITS 11              /* n = 0..10 low bits dropped */
#define MH_LOC_TOTAL MH_SPACE_COUNT  /* index of the all-spaces column */
#define MH_LOC_COLS (MH_SPACE_COUNT + 1)

typedef struct mh_loc_metrics {
    uint64_t accesses;
    uint64_t footprint;            /* distinct canonical addresses */
    uint64_t footprint90;          /* fewest addresses covering >= 90% of accesses */
    double entropy[MH_LOC_NBITS];  /* bits; entropy[0] = memory-address entropy */
    double psl[MH_LOC_NBITS];      /* parallel spatial locality, bits */
    uint64_t psl_steps;            /* (block, seq) steps that went into psl */
    uint32_t psl_blocks;           /* blocks averaged over */
} mh_loc_metrics;

typedef struct mh_loc_result {
    const mh_model *model;
    const mh_model_launch *launch;
    mh_loc_metrics m[MH_LOC_COLS]; /* per enum mh_space, then MH_LOC_TOTAL */
    double rel_local;              /* shared-space accesses / all accesses (0 if none) */
    uint64_t unattributed;         /* accesses outside every known object */
    uint64_t psl_split;            /* steps split by the memory budget (upper bound): 0 = exact */
} mh_loc_result;

typedef int (*mh_loc_emit_fn)(void *ctx, const mh_loc_result *r, mh_err *err);

typedef struct mh_loc_opts {
    size_t group_budget;  /* bytes for open logical-time-step groups; 0 = 64 MiB */
    mh_loc_emit_fn emit;
    void *ctx;
} mh_loc_opts;

typedef struct mh_loc_run mh_loc_run;

int mh_loc_run_new(mh_loc_run **lr, const mh_model *m, const mh_loc_opts *o, mh_err *err);
/* Feed every record after mh_model_feed has seen it; emits on KERNEL_END. */
int mh_loc_run_feed(mh_loc_run *lr, const mh_record *rec, mh_err *err);
/* The feed of ACCESSES records in stages on the pass's workers (the
 * locality's row, src/analyses/locality_row.c): locality_state.h. */
/* Emits launches that never ended (cut-short trace). */
int mh_loc_run_finish(mh_loc_run *lr, mh_err *err);
void mh_loc_run_free(mh_loc_run *lr);
/* Peak bytes of analysis state (address counts, accumulators, open groups). */
size_t mh_loc_run_peak_bytes(const mh_loc_run *lr);

/* Entropy in bits of the distribution given by counts[i] for sorted keys[i]
 * after dropping `drop` low bits of every key (equal shifted keys merge).
 * counts may be NULL (each key counts once, keys may repeat). */
double mh_loc_entropy(const uint64_t *keys, const uint64_t *counts, size_t n, unsigned drop);

#endif
