/* pool.h -- the analyses' stages on worker threads: batches of accesses
 * through a ring of units (ring.h), laid out by a plan (plan.h).
 *
 * The caller (the pass) adds the accesses of the records it reads; they go
 * into the batch being filled, read in place in their trace chunk, which the
 * batch holds (mh_trace_hold), or copied where they are not in one; a full
 * batch is handed to every unit, and the caller reads on into the next free
 * slot (it waits only while every slot is in the workers). A unit runs one
 * stage of one analysis: each record of a batch goes through it in order
 * (mh_stage_fn), with the batch's hand-over of that analysis (its stages
 * write and read it in turn: the ring orders them) and, for a stage that
 * borrows, the lender's. Any other record is the caller's, on its thread,
 * once the workers are idle (mh_pool_barrier); or, as a record job, the
 * record through chosen units (mh_pool_record).
 *
 * Errors are the ring's: the first by batch, then by unit order. */
#ifndef MH_SCHED_POOL_H
#define MH_SCHED_POOL_H

#include <stddef.h>

#include "memheat/err.h"
#include "memheat/trace.h"
#include "sched/plan.h"

#define MH_POOL_BATCH (1u << 15) /* accesses per batch: 1 MiB (one trace chunk), about a ms of work */
#define MH_POOL_SLOTS 8          /* batches: one being filled, the others in the workers */

/* One record of a batch as a stage sees it. */
typedef struct mh_stage_in {
    const mh_access *v;
    size_t n;         /* the record's accesses */
    size_t off;       /* the first one's place among the batch's accesses */
    size_t rec;       /* the record's place among the batch's records */
    void *hand;       /* the analysis's hand-over of this batch */
    const void *lent; /* a borrowing stage's: the lender's hand-over; else NULL */
} mh_stage_in;

/* A record of a batch through a stage of run. */
typedef int (*mh_stage_fn)(void *run, const mh_stage_in *in, mh_err *err);

typedef struct mh_pool_unit {
    void *run;            /* the analysis's run (or its part) */
    mh_stage_fn stage;    /* a batch's records, one by one */
    int (*record)(void *run, const mh_record *rec, mh_err *err); /* a record job, NULL = none taken */
    unsigned hand;        /* which hand-over it reads and writes (one per analysis) */
    int lent;             /* the hand-over it borrows, -1 = none */
} mh_pool_unit;

/* Hand-over storage: n per slot (at most MH_PLAN_MAX_ANALYSES), hand i of
 * size[i] bytes, zeroed at first and emptied by release[i] (NULL: nothing
 * to release) at the end; the arrays are copied. */
typedef struct mh_pool_hands {
    unsigned n;
    const size_t *size;
    void (*const *release)(void *hand);
} mh_pool_hands;

typedef struct mh_pool mh_pool;

/* Starts plan's workers (plan->nworkers >= 1) for its units, unit u being
 * units[u]. On failure nothing is left running. */
int mh_pool_new(mh_pool **out, const mh_plan *plan, const mh_pool_unit *units, const mh_pool_hands *hands,
                mh_err *err);
/* Adds a record's accesses: in place when hold is the chunk they lie in
 * (borrowed from the reader: the batch takes a reference), else copied; a
 * batch of MH_POOL_BATCH accesses or more goes to the units. */
int mh_pool_accesses(mh_pool *p, const mh_access *v, size_t n, mh_trace_hold *hold, mh_err *err);
/* Every access added so far through every unit: before the caller's state
 * changes. The first error by batch, then in unit order. */
int mh_pool_barrier(mh_pool *p, mh_err *err);
/* Record rec as a job of the units in mask (bit per unit: their record
 * callback), after a barrier; rec must stay valid until mh_pool_drain. */
void mh_pool_record(mh_pool *p, const mh_record *rec, unsigned mask);
/* Waits until every job is done; the first error, once. */
int mh_pool_drain(mh_pool *p, mh_err *err);

/* Where the workers' time went (CPU seconds: all of them, per unit;
 * seconds the caller waited for a slot, each unit's worker for work). */
typedef struct mh_pool_times {
    double cpu, room;
    double unit_cpu[MH_PLAN_MAX_UNITS], unit_wait[MH_PLAN_MAX_UNITS];
} mh_pool_times;
void mh_pool_times_get(mh_pool *p, mh_pool_times *t);
/* Drains, stops the workers and frees everything. NULL is fine. */
void mh_pool_free(mh_pool *p);

#endif
