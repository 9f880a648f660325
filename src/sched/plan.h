/* plan.h -- how many threads go where: the pure decision the scheduler
 * starts from (plan.c, tested by tests/sched/test_plan.c).
 *
 * The pass's analyses are fed accesses in batches on worker threads, each
 * analysis in one or more stages; a stage on a unit of its own is a ring
 * unit (ring.h). Every analysis has its base stages on units from the
 * start; its other stages, each marked with a rung of the ladder below,
 * get units of their own only when the plan climbs to that rung, else the
 * analysis does their work in the stage before (or, for a part, in its
 * first part). The plan climbs rung by rung while the threads cover every
 * unit up to that rung; a rung is taken only when it adds a unit and the
 * rungs it builds on were taken:
 *
 *   MH_RUNG_STAGES   grouping apart from evaluation, and a counting stage
 *                    between the first and the grouping one (first rung)
 *   MH_RUNG_PARTS2   an analysis in parts: the second part    (on STAGES)
 *   MH_RUNG_HELPERS  a helper before each evaluation stage    (on STAGES)
 *   MH_RUNG_COUNTS2  a second counting stage                  (on HELPERS)
 *   MH_RUNG_PARTS4   the third and fourth parts     (on COUNTS2 and PARTS2)
 *   MH_RUNG_OWNERS   a stage for what the first stage keeps   (on PARTS4)
 *
 * A light stage (MH_STAGE_LIGHT) is a unit that counts for no thread: it
 * shares the worker of the plan's first unit. Units are numbered in the
 * analyses' order, stages in their order; unit u of the n counted ones is
 * on worker u * workers / n, so neighbours share a worker when there are
 * fewer workers than units. A stage follows the nearest stage before it
 * that has a unit (it takes each batch after that one, reading what it
 * handed over), parts follow nothing. A stage that borrows takes the first
 * stage of the analysis lending to it as well (its keys), from the
 * MH_RUNG_STAGES rung on, when that analysis runs. */
#ifndef MH_SCHED_PLAN_H
#define MH_SCHED_PLAN_H

#include <stdint.h>

#define MH_PLAN_MAX_ANALYSES 8
#define MH_PLAN_MAX_STAGES 8
#define MH_PLAN_MAX_UNITS 32

enum mh_rung {
    MH_RUNG_BASE = 0, /* a unit from the start */
    MH_RUNG_STAGES,
    MH_RUNG_PARTS2,
    MH_RUNG_HELPERS,
    MH_RUNG_COUNTS2,
    MH_RUNG_PARTS4,
    MH_RUNG_OWNERS,
    MH_RUNG_COUNT
};

/* mh_plan_stage.flags */
#define MH_STAGE_RECORDS 1u /* the stage that takes every other record (one per analysis) */
#define MH_STAGE_PART 2u    /* a part of the analysis (a copy fed the same batches), not a stage after one */
#define MH_STAGE_LIGHT 4u   /* counts for no thread: on the first unit's worker */
#define MH_STAGE_BORROWS 8u /* reads the lender's first-stage keys (see above) */

typedef struct mh_plan_stage {
    uint8_t rung;  /* enum mh_rung: from which rung it has a unit of its own */
    uint8_t flags; /* MH_STAGE_* */
} mh_plan_stage;

typedef struct mh_plan_analysis {
    const mh_plan_stage *stage;
    unsigned nstages;
    int lender; /* the analysis (index in the plan's input) whose keys a borrowing stage reads, -1 = none */
} mh_plan_analysis;

typedef struct mh_plan_unit {
    uint8_t analysis, stage; /* what runs on it */
    uint8_t worker;
    int8_t follows;          /* the unit it takes each batch after, -1 = none */
    int8_t borrows;          /* the unit whose hand-over keys it reads, -1 = none */
} mh_plan_unit;

typedef struct mh_plan {
    unsigned threads;  /* threads asked for (resolved: >= 1) */
    unsigned nlanes;   /* launch lanes: threads > 1 and lanes allowed, else 0 */
    unsigned nworkers; /* worker threads of the ring; 0 = everything on the calling thread */
    unsigned nunits;   /* ring units (light ones included) */
    unsigned counted;  /* units that count for a thread */
    unsigned rungs;    /* bit per rung taken (bit MH_RUNG_BASE always) */
    mh_plan_unit unit[MH_PLAN_MAX_UNITS];
    /* per analysis: stage s has a unit of its own (on[a] bit s); the unit of
     * stage s (at[a][s], -1 = none); the parts it runs in (1, 2 or 4); the
     * analysis it borrows keys from at this plan (-1 = none) */
    unsigned on[MH_PLAN_MAX_ANALYSES];
    int8_t at[MH_PLAN_MAX_ANALYSES][MH_PLAN_MAX_STAGES];
    unsigned parts[MH_PLAN_MAX_ANALYSES];
    int borrows[MH_PLAN_MAX_ANALYSES];
} mh_plan;

/* The plan for na analyses a[] and threads threads (>= 1). fixed: the
 * threads were asked for (--threads); else, on a machine of several cores,
 * every counted unit gets a worker of its own even past threads (the kernel
 * balances them: bench/analyses/README.md). lanes: launch lanes may be
 * used (no consumer of every record). Pure: no allocation, no clock. */
void mh_plan_make(mh_plan *p, const mh_plan_analysis *a, unsigned na, unsigned threads, int fixed, int lanes);

/* The name of a rung ("base", "stages", "parts2", ...). */
const char *mh_rung_name(unsigned rung);

#endif
