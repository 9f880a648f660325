/* lane_exec.h -- what runs in a launch lane's half (sched/lanes.h's
 * mh_lanes_work): an executor (exec.h) on a copy of the model, fed every
 * record the model takes and the lane's accesses; what it emits is copied
 * (results.h) and handed back to the pass in its turn. Half 0 runs the
 * analyses of half 0 (heat maps, patterns), half 1 the others (locality);
 * with analyses of one half only, a lane has one half. */
#ifndef MH_PASS_LANE_EXEC_H
#define MH_PASS_LANE_EXEC_H

#include "pass/pass.h"
#include "pass/results.h"
#include "sched/lanes.h"

typedef struct mh_lane_work {
    unsigned on;                  /* the rows that run */
    const mh_pass_opts *o;
    const mh_trace_header *hdr;   /* each half's model starts from it */
    unsigned halves;              /* 1 or 2 */
    unsigned rows[2];             /* the rows of each half (bits) */
    int (*result)(void *ctx, mh_result *c, mh_err *err); /* a result in its turn, on the reading thread */
    void *ctx;
} mh_lane_work;

void mh_lane_work_init(mh_lane_work *lw, unsigned on, const mh_pass_opts *o, const mh_trace_header *hdr,
                       int (*result)(void *ctx, mh_result *c, mh_err *err), void *ctx);
/* The callbacks for mh_lanes_new. */
void mh_lane_work_get(mh_lane_work *lw, mh_lanes_work *w);
/* The half row `row` runs in. */
unsigned mh_lane_work_half(const mh_lane_work *lw, unsigned row);
/* Row `row`'s run in executor exec (a half of a lane), NULL if none. */
void *mh_lane_exec_run(const mh_lane_work *lw, void *exec, unsigned row);

#endif
