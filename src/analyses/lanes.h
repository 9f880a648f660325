/* lanes.h -- mh_pass's launch lanes (internal to the pass, src/analyses).
 *
 * A lane is a thread and two halves of analyses (heat maps and patterns;
 * locality), each with its own copy of the model and its own runs; a
 * lane's thread may also analyse another lane's half while the reading
 * thread waits (lanes.c). The pass's reading thread gives every lane
 * every record the model takes (so each half's model equals the pass's at
 * the same place in the trace) and the accesses of the launches that lane
 * owns. A lane's emissions (heat maps, locality results) are copied into
 * its halves' output queues with a mark after each owned kernel end; the reading
 * thread hands them to the pass in the order of the kernel ends in the
 * trace, re-pointed at the pass's model. See pass.h for when lanes are used. */
#ifndef MH_ANALYSES_LANES_H
#define MH_ANALYSES_LANES_H

#include "memheat/pass.h"

typedef struct mh_lanes mh_lanes;

typedef struct mh_lanes_sink {
    void *ctx; /* results, already pointing at the pass's model */
    int (*heat)(void *ctx, const mh_heat_result *r, mh_err *err);
    int (*loc)(void *ctx, const mh_loc_result *r, mh_err *err);
} mh_lanes_sink;

/* n lanes running the analyses of o (resolved: patterns imply heat) on
 * models started from hdr; results are re-pointed at model m. */
int mh_lanes_new(mh_lanes **out, unsigned n, const mh_pass_opts *o, const mh_trace_header *hdr, const mh_model *m,
                 const mh_lanes_sink *sink, mh_err *err);
/* A record the model takes (not accesses), after the pass's model; owner =
 * the lane owning the launch of a KERNEL_END (its results are handed on in
 * this kernel end's turn), else -1. */
int mh_lanes_record(mh_lanes *l, const mh_record *rec, int owner, mh_err *err);
/* Accesses of launches lane `lane` owns: read in place when hold is the
 * trace chunk v lies in (borrowed from the reader: the lane takes its own
 * reference), else copied (hold NULL). */
int mh_lanes_accesses(mh_lanes *l, unsigned lane, const mh_access *v, size_t n, mh_trace_hold *hold, mh_err *err);
/* The lane with the fewest accesses waiting for it (sent, queued or being
 * analysed), the first such from lane `from` on: where the next launch goes. */
unsigned mh_lanes_pick(mh_lanes *l, unsigned from);
/* Hands every ready result to the sink, in kernel-end order; wait = 1: all
 * of them (the lanes finish what they were given first). */
int mh_lanes_deliver(mh_lanes *l, int wait, mh_err *err);
/* Lets the lanes finish their analyses (launches that never ended are
 * emitted) and hands their results on, lane by lane. */
int mh_lanes_finish(mh_lanes *l, mh_err *err);
/* After mh_lanes_finish: the lanes' pattern runs merged into dst (rank: see
 * mh_pat_run_merge); peaks = the largest lane's. */
int mh_lanes_merge_patterns(mh_lanes *l, mh_pat_run *dst, uint64_t (*rank)(void *ctx, uint32_t launch), void *ctx,
                            mh_err *err);
void mh_lanes_peaks(const mh_lanes *l, size_t *heat, size_t *loc);
/* The lanes' CPU and waits, and the reader's waits for room and for results,
 * into t's lanes_* and wait_* fields. */
void mh_lanes_times(mh_lanes *l, mh_pass_times *t);
/* Stops and joins the threads (without finishing when mh_lanes_finish was
 * not called): after it, the lanes' runs and stats are only read. */
void mh_lanes_stop(mh_lanes *l);
/* mh_lanes_stop, then frees everything. */
void mh_lanes_free(mh_lanes *l);

/* Finishes an executor's analyses in the pass's order: heat maps, patterns,
 * locality (each may be NULL); defined in pass.c. */
int mh_pass_units_finish(mh_heat_run *hr, mh_pat_run *pat, mh_loc_run *lr, mh_err *err);

/* The bytes each argument view of r's launch used, noted in model m (the
 * pass's heat emission does it before the findings name the view). */
void mh_lanes_note_used(mh_model *m, const mh_heat_result *r);

#endif
