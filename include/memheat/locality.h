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
#ifndef MEMHEAT_LOCALITY_H
#define MEMHEAT_LOCALITY_H

#include <stddef.h>
#include <stdint.h>

#include "memheat/err.h"
#include "memheat/model.h"
#include "memheat/stage.h"
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
/* mh_loc_run_feed of an ACCESSES record in two stages, which may run on two
 * threads one batch apart (mh_pass): stage 1 counts the accesses per
 * canonical address; stage 2, after stage 1 is done with the same record,
 * groups them into logical time steps. Record rec of a batch (accesses from
 * off on in the batch's hand-over st, memheat/stage.h) goes through stage 1
 * then stage 2, records in trace order in each; nothing else may be fed to
 * lr while a stage runs. The results equal mh_loc_run_feed's. With
 * mh_loc_run_three, stage 1 counts half of the keys and stage 1b, after
 * stage 1 and before stage 2, the other half. given: NULL, or the canonical
 * keys of every access of the batch, which the patterns' stage 1 has made
 * already (given[off + i] for access i, mh_pat_run_keys_all): the same
 * keys, which every later stage reads in place (st->keys) instead of
 * making and copying its own. */
int mh_loc_run_stage1(mh_loc_run *lr, const mh_access *v, size_t n, mh_stage *st, size_t off, size_t rec,
                      const uint64_t *given, mh_err *err);
int mh_loc_run_stage1b(mh_loc_run *lr, const mh_access *v, size_t n, mh_stage *st, size_t off, size_t rec,
                       mh_err *err);
/* With three stages, a stage 1c too (call before the first record): after
 * stage 1b and before stage 2 it counts the first half of the keys of the
 * launches split in two parts, which stage 1 then leaves alone (it makes
 * the keys, or takes them, and counts a launch until it splits). The
 * results and the peak are unchanged: the part's table moves whole. */
void mh_loc_run_part0(mh_loc_run *lr);
int mh_loc_run_stage1c(mh_loc_run *lr, const mh_access *v, size_t n, mh_stage *st, size_t off, size_t rec,
                       mh_err *err);
int mh_loc_run_stage2(mh_loc_run *lr, const mh_access *v, size_t n, mh_stage *st, size_t off, size_t rec,
                      mh_err *err);
/* Three stages instead (call before the first record; with stage 1b): stage 2 only groups,
 * putting each step it finishes into the hand-over, and stage 3, after
 * stage 2 is done with record rec, takes that record's steps' entropies
 * (mh_loc_run_stage3). The results and the peak equal mh_loc_run_feed's. */
void mh_loc_run_three(mh_loc_run *lr);
int mh_loc_run_stage3(mh_loc_run *lr, mh_stage *st, size_t rec, mh_err *err);
/* With three stages, a stage 3b too (call before the first record): after
 * stage 2 and before stage 3 it evaluates every other step of record rec
 * (memheat/stage.h's MH_STAGE_HELPED) into the hand-over, and stage 3 adds
 * those up with its own in order. It touches nothing of lr's, so it runs
 * beside stage 3 (a batch ahead). The results and the peak are unchanged. */
void mh_loc_run_evalb(mh_loc_run *lr);
int mh_loc_run_stage3b(const mh_loc_run *lr, mh_stage *st, size_t rec, mh_err *err);
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
