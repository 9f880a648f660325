/* lane_exec.c -- a launch lane's half: an executor on a copy of the model
 * (lane_exec.h). */
#include "pass/lane_exec.h"

#include <stdlib.h>

#include "pass/exec.h"
#include "pass/table.h"

typedef struct lane_exec {
    mh_model m;
    int model_ok, ex_ok;
    mh_exec ex;
    mh_lanes_half *out;
} lane_exec;

/* What the half's analyses emit, after they took it: copied for the reader. */
static int lane_sink(void *ctx, unsigned row, int kind, const void *result, mh_err *err) {
    lane_exec *le = ctx;
    mh_result *c = mh_result_copy(kind, row, result);
    if (!c) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    return mh_lanes_put(le->out, c, err);
}

static void lane_close(void *exec) {
    lane_exec *le = exec;
    if (!le) return;
    if (le->ex_ok) mh_exec_close(&le->ex);
    if (le->model_ok) mh_model_free(&le->m);
    free(le);
}

static int lane_open(void *ctx, unsigned lane, unsigned half, mh_lanes_half *out, void **exec, mh_err *err) {
    mh_lane_work *lw = ctx;
    (void)lane;
    *exec = NULL;
    lane_exec *le = calloc(1, sizeof *le);
    if (!le) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    le->out = out;
    int rc = mh_model_init(&le->m, lw->hdr, err);
    if (rc == MH_OK) {
        le->model_ok = 1;
        mh_exec_sink sink = {lane_sink, le};
        rc = mh_exec_open(&le->ex, lw->rows[half], &le->m, lw->o, &sink, err);
    }
    if (rc) {
        lane_close(le);
        return rc;
    }
    le->ex_ok = 1;
    *exec = le;
    return MH_OK;
}

static int lane_feed(void *exec, const mh_record *rec, mh_err *err) {
    return mh_exec_feed(&((lane_exec *)exec)->ex, rec, err);
}

static int lane_finish(void *exec, mh_err *err) { return mh_exec_finish(&((lane_exec *)exec)->ex, err); }

static int lane_deliver(void *ctx, void *result, mh_err *err) {
    mh_lane_work *lw = ctx;
    return lw->result(lw->ctx, result, err);
}

static void lane_drop(void *result) { mh_result_free(result); }

void mh_lane_work_init(mh_lane_work *lw, unsigned on, const mh_pass_opts *o, const mh_trace_header *hdr,
                       int (*result)(void *ctx, mh_result *c, mh_err *err), void *ctx) {
    lw->on = on;
    lw->o = o;
    lw->hdr = hdr;
    lw->result = result;
    lw->ctx = ctx;
    lw->rows[0] = lw->rows[1] = 0;
    for (unsigned i = 0; i < mh_nanalyses; i++)
        if (on >> i & 1u) lw->rows[mh_analyses[i]->half ? 1 : 0] |= 1u << i;
    lw->halves = lw->rows[0] && lw->rows[1] ? 2 : 1;
    if (lw->halves == 1) lw->rows[0] |= lw->rows[1];
}

void mh_lane_work_get(mh_lane_work *lw, mh_lanes_work *w) {
    *w = (mh_lanes_work){lw, lw->halves, lane_open, lane_feed, lane_finish, lane_close, lane_deliver, lane_drop};
}

unsigned mh_lane_work_half(const mh_lane_work *lw, unsigned row) {
    return lw->halves == 2 && (lw->rows[1] >> row & 1u) ? 1 : 0;
}

void *mh_lane_exec_run(const mh_lane_work *lw, void *exec, unsigned row) {
    (void)lw;
    lane_exec *le = exec;
    return le ? le->ex.run[row] : NULL;
}
