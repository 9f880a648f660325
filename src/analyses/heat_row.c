/* heat_row.c -- the heat maps as a row of the pass (analysis.h): one run
 * per executor, in up to four parts on as many units (mh_heat_run_split),
 * each map emitted at its launch's end for the patterns and the consumers. */
#include <string.h>

#include "analyses/analysis.h"
#include "analyses/heat.h"

static int row_emit(void *ctx, const mh_heat_result *r, mh_err *err) {
    const mh_emit *e = ctx;
    return e->fn(e->ctx, MH_RESULT_HEAT, r, err);
}

static int row_open(void **run, const mh_analysis_env *env, mh_err *err) {
    mh_heat_run_opts ho = {.space_mask = env->heat_spaces, .emit = row_emit, .ctx = (void *)env->emit};
    return mh_heat_run_new((mh_heat_run **)run, env->model, &ho, err);
}

static int row_parts(void *run, unsigned n, void **peers, mh_err *err) {
    return mh_heat_run_split(run, n, (mh_heat_run **)peers, err);
}

static int row_feed(void *run, const mh_record *rec, mh_err *err) { return mh_heat_run_feed(run, rec, err); }
static int row_finish(void *run, mh_err *err) { return mh_heat_run_finish(run, err); }
static void row_close(void *run) { mh_heat_run_free(run); }
static size_t row_peak(const void *run) { return mh_heat_run_peak_bytes(run); }

/* A batch's record through one part (every stage of the heat maps is a part). */
static int row_stage(void *run, const mh_stage_in *in, mh_err *err) {
    mh_record rec;
    memset(&rec, 0, sizeof rec);
    rec.type = MH_REC_ACCESSES;
    rec.u.accesses.v = in->v;
    rec.u.accesses.n = in->n;
    return mh_heat_run_feed(run, &rec, err);
}

static const mh_analysis_stage stages[] = {
    {"maps", {MH_RUNG_BASE, MH_STAGE_RECORDS}, row_stage, NULL},
    {"second part", {MH_RUNG_PARTS2, MH_STAGE_PART}, row_stage, NULL},
    {"third part", {MH_RUNG_PARTS4, MH_STAGE_PART}, row_stage, NULL},
    {"fourth part", {MH_RUNG_PARTS4, MH_STAGE_PART}, row_stage, NULL},
};

const mh_analysis mh_analysis_heat = {
    .name = "heat",
    .half = 0,
    .stages = stages,
    .nstages = sizeof stages / sizeof stages[0],
    .open = row_open,
    .parts = row_parts,
    .feed = row_feed,
    .finish = row_finish,
    .close = row_close,
    .peak = row_peak,
};
