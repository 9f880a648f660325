/* lanes.h -- launch lanes: launches analysed side by side on threads of
 * their own, their results handed on in trace order.
 *
 * A lane is a thread and one or two halves, each an executor of the
 * caller's (mh_lanes_work: its own copy of the model and its own analyses'
 * runs); a lane's thread may also run another lane's half while the
 * reading thread waits (lanes_work.c). The reading thread gives every lane
 * every record the model takes (so each half's model equals the caller's at
 * the same place in the trace) and the accesses of the launches that lane
 * owns. What a half emits (mh_lanes_put) is queued with a mark after each
 * owned kernel end; the reading thread hands the results to the caller
 * (work.deliver) in the order of the kernel ends in the trace: a lane's
 * first half's, then its second's. */
#ifndef MH_SCHED_LANES_H
#define MH_SCHED_LANES_H

#include "memheat/err.h"
#include "memheat/trace.h"

typedef struct mh_lanes mh_lanes;
typedef struct mh_lanes_half mh_lanes_half; /* where a half's results go (mh_lanes_put) */

/* What runs in the lanes' halves, the caller's. Every callback but deliver
 * runs on a lane's thread, on its half's executor only. */
typedef struct mh_lanes_work {
    void *ctx;
    unsigned halves; /* per lane: 1 or 2 */
    /* a new executor for half `half` of lane `lane` (*exec; its results go to out) */
    int (*open)(void *ctx, unsigned lane, unsigned half, mh_lanes_half *out, void **exec, mh_err *err);
    int (*feed)(void *exec, const mh_record *rec, mh_err *err);
    int (*finish)(void *exec, mh_err *err); /* the end of the trace: what is left is emitted */
    void (*close)(void *exec);
    /* on the reading thread, in trace order: a result put by an executor */
    int (*deliver)(void *ctx, void *result, mh_err *err);
    void (*drop)(void *result); /* a result's memory, after deliver or unsent */
} mh_lanes_work;

/* n lanes of work's halves (the executors opened on the calling thread). */
int mh_lanes_new(mh_lanes **out, unsigned n, const mh_lanes_work *work, mh_err *err);
/* Queues result (take: the lanes own it, also on failure) for the reader;
 * called by an executor while it is fed. */
int mh_lanes_put(mh_lanes_half *out, void *result, mh_err *err);
/* A record the model takes (not accesses), after the caller's model;
 * owner = the lane owning the launch of a KERNEL_END (its results are
 * handed on in this kernel end's turn), else -1. */
int mh_lanes_record(mh_lanes *l, const mh_record *rec, int owner, mh_err *err);
/* Accesses of launches lane `lane` owns: read in place when hold is the
 * trace chunk v lies in (borrowed from the reader: the lane takes its own
 * reference), else copied (hold NULL). */
int mh_lanes_accesses(mh_lanes *l, unsigned lane, const mh_access *v, size_t n, mh_trace_hold *hold, mh_err *err);
/* The lane with the fewest accesses waiting for it (sent, queued or being
 * analysed), the first such from lane `from` on: where the next launch goes. */
unsigned mh_lanes_pick(mh_lanes *l, unsigned from);
/* Hands every ready result on, in kernel-end order; wait = 1: all of them
 * (the lanes finish what they were given first). */
int mh_lanes_deliver(mh_lanes *l, int wait, mh_err *err);
/* Lets the executors finish (launches that never ended are emitted) and
 * hands their results on, lane by lane. */
int mh_lanes_finish(mh_lanes *l, mh_err *err);
/* Lanes, halves per lane, and the executor of half `half` of lane `lane`:
 * read by the caller after mh_lanes_stop (merging, peaks). */
unsigned mh_lanes_count(const mh_lanes *l);
unsigned mh_lanes_halves(const mh_lanes *l);
void *mh_lanes_exec(const mh_lanes *l, unsigned lane, unsigned half);

/* The lanes' CPU and waits, and the reader's waits for room and for results. */
typedef struct mh_lanes_times {
    double cpu, cpu_max; /* summed over the halves, and the busiest half's */
    double idle;         /* lanes waiting for work, summed */
    double moved;        /* batches a lane's thread ran for another lane's half */
    double room, results; /* the reader waiting for a lane's queue to have room, for results */
} mh_lanes_times;
void mh_lanes_times_get(mh_lanes *l, mh_lanes_times *t);
/* Stops and joins the threads (without finishing when mh_lanes_finish was
 * not called): after it, the executors are only read. */
void mh_lanes_stop(mh_lanes *l);
/* mh_lanes_stop, then closes the executors and frees everything. */
void mh_lanes_free(mh_lanes *l);

#endif
