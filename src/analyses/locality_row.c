/* locality_row.c -- the locality metrics as a row of the pass
 * (analysis.h): their stages on the workers (the first reads the keys the
 * patterns' first stage made, where both have units of their own), a
 * launch's long end on its worker, each launch's metrics emitted for the
 * consumers. */
#include "analyses/analysis.h"
#include "analyses/locality_state.h"

static int row_emit(void *ctx, const mh_loc_result *r, mh_err *err) {
    const mh_emit *e = ctx;
    return e->fn(e->ctx, MH_RESULT_LOC, r, err);
}

static int row_open(void **run, const mh_analysis_env *env, mh_err *err) {
    mh_loc_opts lo = {env->group_budget, row_emit, (void *)env->emit};
    return mh_loc_run_new((mh_loc_run **)run, env->model, &lo, err);
}

static int row_feed(void *run, const mh_record *rec, mh_err *err) { return mh_loc_run_feed(run, rec, err); }
static int row_finish(void *run, mh_err *err) { return mh_loc_run_finish(run, err); }
static void row_close(void *run) { mh_loc_run_free(run); }
static size_t row_peak(const void *run) { return mh_loc_run_peak_bytes(run); }
static void row_release(void *hand) { mh_stage_free(hand); }

static int st_counts(void *run, const mh_stage_in *in, mh_err *err) {
    const uint64_t *given = in->lent ? ((const mh_stage *)in->lent)->key : NULL;
    return mh_loc_run_count(run, in->v, in->n, in->hand, in->off, in->rec, given, err);
}
static int st_counts_second(void *run, const mh_stage_in *in, mh_err *err) {
    return mh_loc_run_count_second(run, in->v, in->n, in->hand, in->off, in->rec, err);
}
static int st_counts_first(void *run, const mh_stage_in *in, mh_err *err) {
    return mh_loc_run_count_first(run, in->v, in->n, in->hand, in->off, in->rec, err);
}
static int st_steps(void *run, const mh_stage_in *in, mh_err *err) {
    return mh_loc_run_steps(run, in->v, in->n, in->hand, in->off, in->rec, err);
}
static int st_help(void *run, const mh_stage_in *in, mh_err *err) {
    return mh_loc_run_help(run, in->hand, in->rec, err);
}
static int st_eval(void *run, const mh_stage_in *in, mh_err *err) {
    return mh_loc_run_eval(run, in->hand, in->rec, err);
}

static void apart_three(void *run) { mh_loc_run_eval_apart(run); }
static void apart_part0(void *run) { mh_loc_run_first_apart(run); }
static void apart_evalb(void *run) { mh_loc_run_helpers(run); }

static const mh_analysis_stage stages[] = {
    {"address counts", {MH_RUNG_BASE, MH_STAGE_BORROWS}, st_counts, NULL},
    {"second half of the counts", {MH_RUNG_STAGES, 0}, st_counts_second, apart_three},
    {"first half of the counts", {MH_RUNG_COUNTS2, 0}, st_counts_first, apart_part0},
    {"time steps", {MH_RUNG_BASE, MH_STAGE_RECORDS}, st_steps, NULL},
    {"evaluation helper", {MH_RUNG_HELPERS, 0}, st_help, apart_evalb},
    {"evaluation", {MH_RUNG_STAGES, 0}, st_eval, apart_three},
};

const mh_analysis mh_analysis_locality = {
    .name = "locality",
    .half = 1,
    .end_apart = 1,
    .lender = "patterns",
    .stages = stages,
    .nstages = sizeof stages / sizeof stages[0],
    .hand_size = sizeof(mh_stage),
    .hand_release = row_release,
    .open = row_open,
    .feed = row_feed,
    .finish = row_finish,
    .close = row_close,
    .peak = row_peak,
};
