/* ring.h -- the scheduler's worker threads: a ring of jobs (batches of
 * accesses, or one record: pool.h) that its units (the analyses' stages)
 * consume each at its own pace.
 *
 * Unit u (0 .. nunits-1) always runs on one worker, u * nworkers / nunits
 * unless placed elsewhere (mh_ring_place), so an analysis's memory stays in
 * one thread's malloc arena and cache; a worker hosting several units feeds
 * them a job in unit order. A job's slot (0 .. slots-1, the caller's buffer) is given
 * back only when every worker is done with it; the submitting thread blocks
 * only when all slots are in the workers.
 *
 * A unit may follow another (mh_ring_follow): it takes a job only once that
 * unit is done with it, so the first can hand it results through the job's
 * slot (two stages of one analysis, each on its own worker).
 *
 * Errors: a unit that fails takes no further job (a unit following it takes
 * none from the failed job on); the others go on up to the
 * failed job, so the error returned is the first by job, then by unit order,
 * whatever the timing. Jobs submitted after a failure are dropped. */
#ifndef MH_SCHED_RING_H
#define MH_SCHED_RING_H

#include <stddef.h>

#include "memheat/err.h"

#define MH_RING_MAX_UNITS 32

/* Feeds job to unit; runs on the unit's worker. */
typedef int (*mh_ring_fn)(void *ctx, unsigned unit, const void *job, mh_err *err);

typedef struct mh_ring mh_ring;

/* Starts nworkers threads (1 .. nunits) for nunits units (1 .. MH_RING_MAX_UNITS)
 * over slots slots (>= 2). On failure nothing is left running and *out = NULL. */
int mh_ring_new(mh_ring **out, unsigned nunits, unsigned nworkers, unsigned slots, mh_ring_fn fn, void *ctx,
                mh_err *err);
/* Unit u takes each job after unit first is done with it (first < u; set
 * before the first submit). */
void mh_ring_follow(mh_ring *r, unsigned u, unsigned first);
/* Unit u runs on worker worker instead (set before the first submit). */
void mh_ring_place(mh_ring *r, unsigned u, unsigned worker);
/* The slot the next job is to be built in: no worker reads it. */
unsigned mh_ring_slot(const mh_ring *r);
/* Hands job (built in mh_ring_slot's slot) to the units in mask (bit per
 * unit), then waits until the next slot is free. Returns 1 without handing
 * it over when a unit has failed (mh_ring_drain then says which), else 0. */
int mh_ring_submit(mh_ring *r, const void *job, unsigned mask);
/* Waits until every submitted job is done (or dropped after an error) and
 * returns the first error (see above), once: later drains return MH_OK
 * (jobs stay dropped). Every slot is then free. */
int mh_ring_drain(mh_ring *r, mh_err *err);
/* CPU seconds the workers spent on the jobs done so far; the same of unit u. */
double mh_ring_cpu_s(mh_ring *r);
double mh_ring_unit_cpu_s(mh_ring *r, unsigned u);
/* Seconds the submitter waited for a free slot (*room), and the worker of
 * each unit u (0 .. nunits-1) for a job or for a unit it follows (units
 * sharing a worker show the same: its waits). */
void mh_ring_waits(mh_ring *r, double *room, double *unit_wait);
/* Drains, stops and joins the workers. NULL is fine. */
void mh_ring_free(mh_ring *r);

#endif
