/* locality_state.h -- what the locality analysis's files share
 * (locality.c: the address counts and the metrics of a launch that ended;
 * locality_steps.c: the logical time steps and their entropies): the
 * per-launch state of each stage and the run that holds them. */
#ifndef MH_LOCALITY_INTERNAL_H
#define MH_LOCALITY_INTERNAL_H

#include "analyses/locality.h"

#include <math.h>

#include "analyses/canon.h"
#include "analyses/entropy.h"
#include "analyses/groupbuf.h"
#include "analyses/loccount.h"
#include "analyses/stage.h"
#include "util/bigmem.h"

typedef struct psl_acc {
    double sum[MH_LOC_NBITS];
    uint64_t steps;
} psl_acc;

typedef struct blk_ent {
    uint32_t block;
    uint32_t idx; /* 0 = empty, else accumulator row + 1 */
} blk_ent;

typedef struct lstate { /* the counting stage's */
    uint32_t launch;
    mh_lcnt cnt;      /* access count per canonical address (loccount.h); once split, of part 0 (empty with c1) */
    uint64_t unattributed;
    int split;        /* part 1 counted in an lpart */
} lstate;

typedef struct lpart { /* the second-half or first-half stage's: the counts of one part of a split launch */
    uint32_t launch;
    mh_lcnt cnt;
} lpart;

/* The counts of one part of the split launches, where a stage of its own
 * counts them: part 1 with the evaluation apart (the second-half stage), part 0 with c1 too
 * (the first-half stage). */
typedef struct lparts {
    lpart *v;
    size_t n, cap;
    size_t bytes;        /* capacity held (loccount.h) */
    mh_big_cache tables; /* key and count arrays of ended launches, for the next ones */
} lparts;

typedef struct lsteps { /* the steps stage's */
    uint32_t launch;
    blk_ent *bt;      /* block -> accumulator row */
    size_t bcap, bn;
    psl_acc *acc;     /* bn rows of MH_LOC_COLS */
    uint64_t split_at_start;
} lsteps;


struct mh_loc_run {
    const mh_model *model;
    mh_loc_opts o;
    mh_canon canon;
    mh_grp *grp;
    lstate *ls;
    size_t nls, capls;
    lsteps *st2;
    size_t nst2, capst2;
    lparts pb;           /* the second-half stage's per-launch counts of part 1 */
    lparts pc;           /* the first-half stage's of part 0 (c1) */
    size_t bytes, bytes2, peak; /* the counting stage's, 2's */
    mh_big_cache tables; /* the counting stage's key and count arrays of ended launches, for the next ones */
    mh_stage own;        /* the hand-over of mh_loc_run_feed */
    /* the evaluation apart (mh_loc_run_eval_apart): the steps stage's target for finished steps
     * while it runs, and the launches it has seen (their mark sent) */
    int eval_apart;
    int helpers;           /* the helper stage evaluates every other step (mh_loc_run_helpers) */
    int first_apart;              /* the first-half stage counts part 0 of split launches (mh_loc_run_first_apart) */
    mh_stage *defer;
    mh_stage_seen seen;
};

/* ---- locality_steps.c ---- */

/* The steps' state of a launch (NULL: none); its release. */
lsteps *mh_loc_steps_find(mh_loc_run *lr, uint32_t launch);
void mh_loc_steps_free(mh_loc_run *lr, lsteps *s);
/* The group buffer's hand-over of a finished step (mh_grp_done_fn). */
int mh_loc_step_done(void *ctx, const mh_grp_key *k, mh_grp_entry *v, size_t n, mh_err *err);

/* ---- the feed of ACCESSES records in stages (the row's, locality_row.c) ----
 * mh_loc_run_feed of an ACCESSES record in stages, which may run on threads
 * of their own, each a batch behind the one before (the scheduler): the
 * counting stage counts the accesses per canonical address; the steps
 * stage, after the counting stage is done with the same record, groups
 * them into logical time steps. Record rec of a batch (accesses from off on
 * in the batch's hand-over st, analyses/stage.h) goes through the stages
 * in order, records in trace order in each; nothing else may be fed to lr
 * while a stage runs. given: NULL, or the canonical keys of every access of
 * the batch, which the patterns' keys stage has made already (given[off +
 * i] for access i, mh_pat_run_keys_all): the same keys, which every later
 * stage reads in place (st->keys) instead of making and copying its own.
 * The results and the peak equal mh_loc_run_feed's whichever stages are
 * apart (each call below is made before the first record):
 *  - mh_loc_run_eval_apart: the counting stage counts the first half of the
 *    keys of a launch split in two parts and the second-half stage, after
 *    it, the other half; the steps stage only groups, putting each step it
 *    finishes into the hand-over, and the evaluation stage, after it, takes
 *    that record's steps' entropies;
 *  - mh_loc_run_first_apart (with the evaluation apart): the first half of
 *    a split launch's keys is counted by the first-half stage, after the
 *    second-half stage and before the steps stage, the counting stage then
 *    only making the keys (or taking them) and counting a launch until it
 *    splits; the part's table moves whole;
 *  - mh_loc_run_helpers (with the evaluation apart): the helper stage, after
 *    the steps stage and before the evaluation stage, evaluates every other
 *    step of record rec (MH_STAGE_HELPED) into the hand-over, and the
 *    evaluation stage adds those up with its own in order; it touches
 *    nothing of lr's, so it runs beside the evaluation stage. */
int mh_loc_run_count(mh_loc_run *lr, const mh_access *v, size_t n, mh_stage *st, size_t off, size_t rec,
                     const uint64_t *given, mh_err *err);
int mh_loc_run_count_second(mh_loc_run *lr, const mh_access *v, size_t n, mh_stage *st, size_t off, size_t rec,
                            mh_err *err);
int mh_loc_run_count_first(mh_loc_run *lr, const mh_access *v, size_t n, mh_stage *st, size_t off, size_t rec,
                           mh_err *err);
int mh_loc_run_steps(mh_loc_run *lr, const mh_access *v, size_t n, mh_stage *st, size_t off, size_t rec,
                     mh_err *err);
int mh_loc_run_help(const mh_loc_run *lr, mh_stage *st, size_t rec, mh_err *err);
int mh_loc_run_eval(mh_loc_run *lr, mh_stage *st, size_t rec, mh_err *err);
void mh_loc_run_eval_apart(mh_loc_run *lr);
void mh_loc_run_first_apart(mh_loc_run *lr);
void mh_loc_run_helpers(mh_loc_run *lr);

#endif
