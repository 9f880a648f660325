/* analysis.h -- an analysis as the pass runs it: one row of the table
 * (src/pass/table.c). Each analysis's file defines its row (const
 * mh_analysis mh_analysis_<name>) and the pass does the rest: opens a run
 * per executor (the pass itself, each launch lane's half), feeds it every
 * record or, on the workers, its stages batch by batch, finishes it, merges
 * the lanes' runs, and hands what it emits to the other analyses (take) and
 * to the consumers. Nothing else names an analysis.
 *
 * A run's feed must only touch its own state and read the model: it runs on
 * a worker for ACCESSES records (stage by stage, each on its own unit when
 * the plan gives it one: sched/plan.h), or all of it in a launch lane with
 * the lane's model copy. It emits only at a kernel end or in finish; what it
 * emits is copied and handed on later when it runs in a lane, so an
 * analysis that keeps results across launches needs a merge. */
#ifndef MH_ANALYSES_ANALYSIS_H
#define MH_ANALYSES_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "analyses/model.h"
#include "analyses/patterns.h"
#include "memheat/err.h"
#include "memheat/trace.h"
#include "sched/plan.h"
#include "sched/pool.h"

/* What an analysis emits for the others and the consumers (results.h). */
enum mh_result_kind {
    MH_RESULT_HEAT, /* mh_heat_result: one (launch, space) map */
    MH_RESULT_LOC,  /* mh_loc_result: one launch's locality metrics */
    MH_RESULT_KINDS
};

/* Where a run's results go: fn(ctx, kind, result). */
typedef struct mh_emit {
    int (*fn)(void *ctx, int kind, const void *result, mh_err *err);
    void *ctx;
} mh_emit;

/* What a run is opened with. */
typedef struct mh_analysis_env {
    mh_model *model;         /* the executor's model (read; heat maps note bytes used) */
    size_t group_budget;     /* bytes per grouping buffer; 0 = the analysis's default */
    uint32_t heat_spaces;    /* spaces to map (bit per space); 0 = all */
    const mh_emit *emit;     /* where its results go; valid as long as the run */
} mh_analysis_env;

/* One stage on the workers. The first stage of a staged analysis, and each
 * stage after it in order, takes a batch once the stage before it (with a
 * unit) is done with it, through the batch's hand-over (hand_size bytes). */
typedef struct mh_analysis_stage {
    const char *name;       /* what it does: "keys", "grouping", ... */
    mh_plan_stage plan;     /* from which rung it has a unit of its own; flags */
    mh_stage_fn fn;         /* a record of a batch through it (a part: the whole record) */
    void (*apart)(void *run); /* it has a unit of its own: called before the first record */
} mh_analysis_stage;

/* A table of the analysis's kept results in `memheat analyze`'s JSON. */
typedef struct mh_analysis_array {
    const char *key;
    size_t (*count)(const void *run);
    json_t *(*element)(const void *run, const mh_model *m, size_t i);
    int omit_empty; /* no key at all when the table is empty */
} mh_analysis_array;

typedef struct mh_analysis {
    const char *name;
    const char *needs; /* the analysis it implies and takes the results of (take), or NULL */
    const char *with;  /* it runs whenever that analysis does, or NULL */
    unsigned half;   /* its half of a launch lane: 0 or 1 */
    int end_apart;   /* its kernel end is long: ended on its worker while the others end on the reading thread */
    const char *lender; /* the analysis whose first-stage keys its borrowing stage reads, or NULL */
    uint32_t maps;   /* heat-map spaces it takes (bit per space), added to the asked ones */
    void (*lend)(void *run); /* a borrower reads its keys: make them for every access */
    const mh_analysis_stage *stages; /* on the workers, in order: the first is the base */
    unsigned nstages;
    size_t hand_size;                  /* bytes of a batch's hand-over, zeroed at first */
    void (*hand_release)(void *hand);  /* its memory, at the end */

    int (*open)(void **run, const mh_analysis_env *env, mh_err *err);
    /* split into n parts (MH_STAGE_PART stages): peers[0 .. n-2] are fed like run */
    int (*parts)(void *run, unsigned n, void **peers, mh_err *err);
    int (*feed)(void *run, const mh_record *rec, mh_err *err);
    /* another analysis's result (a kind its needs emit), before the consumers */
    int (*take)(void *run, int kind, const void *result, mh_err *err);
    int (*finish)(void *run, mh_err *err);
    /* the lanes' finished runs src[0 .. n) into finished run dst (rank: each
     * launch's place in the serial order, mh_pat_run_merge); NULL = keeps nothing across launches */
    int (*merge)(void *dst, void *const *src, size_t n, uint64_t (*rank)(void *ctx, uint32_t launch), void *ctx,
                 mh_err *err);
    void (*close)(void *run);
    size_t (*peak)(const void *run);     /* bytes at most held */
    uint64_t (*split)(const void *run);  /* work split by the memory budget (approximate results); NULL = never */

    /* what it keeps for `memheat analyze` and the store */
    const mh_pat_finding *(*findings)(const void *run, size_t *n); /* most costly first */
    void (*text)(FILE *f, const void *run, const mh_model *m);   /* its tables as text */
    const mh_analysis_array *arrays;                             /* and as JSON */
    unsigned narrays;
} mh_analysis;

#endif
