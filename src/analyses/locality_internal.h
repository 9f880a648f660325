/* locality_internal.h -- what the locality analysis's files share
 * (locality.c: the address counts and the metrics of a launch that ended;
 * locality_steps.c: the logical time steps and their entropies): the
 * per-launch state of each stage and the run that holds them. */
#ifndef MH_LOCALITY_INTERNAL_H
#define MH_LOCALITY_INTERNAL_H

#include "memheat/locality.h"

#include <math.h>

#include "analyses/canon.h"
#include "analyses/groupbuf.h"
#include "analyses/loccount.h"
#include "util/bigmem.h"

typedef struct psl_acc {
    double sum[MH_LOC_NBITS];
    uint64_t steps;
} psl_acc;

typedef struct blk_ent {
    uint32_t block;
    uint32_t idx; /* 0 = empty, else accumulator row + 1 */
} blk_ent;

typedef struct lstate { /* stage 1's */
    uint32_t launch;
    mh_lcnt cnt;      /* access count per canonical address (loccount.h); once split, of part 0 (empty with c1) */
    uint64_t unattributed;
    int split;        /* part 1 counted in an lpart */
} lstate;

typedef struct lpart { /* stage 1b's or 1c's: the counts of one part of a split launch */
    uint32_t launch;
    mh_lcnt cnt;
} lpart;

/* The counts of one part of the split launches, where a stage of its own
 * counts them: part 1 with three stages (stage 1b), part 0 with c1 too
 * (stage 1c). */
typedef struct lparts {
    lpart *v;
    size_t n, cap;
    size_t bytes;        /* capacity held (loccount.h) */
    mh_big_cache tables; /* key and count arrays of ended launches, for the next ones */
} lparts;

typedef struct lsteps { /* stage 2's */
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
    lparts pb;           /* stage 1b's per-launch counts of part 1 */
    lparts pc;           /* stage 1c's of part 0 (c1) */
    size_t bytes, bytes2, peak; /* stage 1's, 2's */
    mh_big_cache tables; /* stage 1's key and count arrays of ended launches, for the next ones */
    mh_stage own;        /* the hand-over of mh_loc_run_feed */
    /* three stages (mh_loc_run_three): stage 2's target for finished steps
     * while it runs, and the launches it has seen (their mark sent) */
    int three;
    int evalb;           /* stage 3b evaluates every other step (mh_loc_run_evalb) */
    int c1;              /* stage 1c counts part 0 of split launches (mh_loc_run_part0) */
    mh_stage *defer;
    mh_stage_seen seen;
};

/* c * log2(c) for small counts, the entropy sums' hot spot: the same
 * expression as the fallback, so the same bits. The table is filled once,
 * thread-safely, by mh_loc_clog2_init (locality.c). */
#define MH_LOC_CLOG_N 1024
extern double mh_loc_clog2[MH_LOC_CLOG_N];
void mh_loc_clog2_init(void);
static inline double mh_loc_c_log2_c(double c) {
    return c < MH_LOC_CLOG_N ? mh_loc_clog2[(unsigned)c] : c * log2(c);
}

/* ---- locality_steps.c ---- */

/* The steps' state of a launch (NULL: none); its release. */
lsteps *mh_loc_steps_find(mh_loc_run *lr, uint32_t launch);
void mh_loc_steps_free(mh_loc_run *lr, lsteps *s);
/* The group buffer's hand-over of a finished step (mh_grp_done_fn). */
int mh_loc_step_done(void *ctx, const mh_grp_key *k, mh_grp_entry *v, size_t n, mh_err *err);

#endif
