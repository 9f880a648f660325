/* patterns_row.c -- the pattern analysis as a row of the pass
 * (analysis.h): its stages on the workers, the heat maps it takes, the
 * lanes' runs merged, and what it keeps (findings, shared-memory bank
 * conflicts per pc, global requests per pc and object) as text and JSON. */
#include <inttypes.h>

#include "analyses/analysis.h"
#include "analyses/patterns_state.h"

static int row_open(void **run, const mh_analysis_env *env, mh_err *err) {
    mh_pat_opts po = {env->group_budget};
    return mh_pat_run_new((mh_pat_run **)run, env->model, &po, err);
}

static int row_take(void *run, int kind, const void *result, mh_err *err) {
    return kind == MH_RESULT_HEAT ? mh_pat_run_heat(run, result, err) : MH_OK;
}

static int row_feed(void *run, const mh_record *rec, mh_err *err) { return mh_pat_run_feed(run, rec, err); }
static int row_finish(void *run, mh_err *err) { return mh_pat_run_finish(run, err); }
static void row_close(void *run) { mh_pat_run_free(run); }
static size_t row_peak(const void *run) { return mh_pat_run_peak_bytes(run); }
static uint64_t row_split(const void *run) { return mh_pat_run_split(run); }
static const mh_pat_finding *row_findings(const void *run, size_t *n) { return mh_pat_findings(run, n); }

static int row_merge(void *dst, void *const *src, size_t n, uint64_t (*rank)(void *ctx, uint32_t launch), void *ctx,
                     mh_err *err) {
    return mh_pat_run_merge(dst, (mh_pat_run *const *)src, n, rank, ctx, err);
}

static void row_release(void *hand) { mh_stage_free(hand); }

/* ---- stages ---- */

static int st_keys(void *run, const mh_stage_in *in, mh_err *err) {
    return mh_pat_run_keys(run, in->v, in->n, in->hand, in->off, in->rec, err);
}
static int st_counts(void *run, const mh_stage_in *in, mh_err *err) {
    return mh_pat_run_counts(run, in->v, in->n, in->hand, in->off, in->rec, err);
}
static int st_owners(void *run, const mh_stage_in *in, mh_err *err) {
    return mh_pat_run_owners(run, in->v, in->n, in->hand, in->off, in->rec, err);
}
static int st_group(void *run, const mh_stage_in *in, mh_err *err) {
    return mh_pat_run_group(run, in->v, in->n, in->hand, in->off, in->rec, err);
}
static int st_help(void *run, const mh_stage_in *in, mh_err *err) {
    return mh_pat_run_help(run, in->hand, in->rec, err);
}
static int st_eval(void *run, const mh_stage_in *in, mh_err *err) {
    return mh_pat_run_eval(run, in->hand, in->rec, err);
}

static void apart_three(void *run) { mh_pat_run_eval_apart(run); }
static void apart_owners(void *run) { mh_pat_run_owners_apart(run); }
static void apart_evalb(void *run) { mh_pat_run_helpers(run); }
static void lend_keys(void *run) { mh_pat_run_keys_all(run); }

static const mh_analysis_stage stages[] = {
    {"keys", {MH_RUNG_BASE, 0}, st_keys, NULL},
    {"execution counts", {MH_RUNG_STAGES, 0}, st_counts, apart_three},
    {"word owners", {MH_RUNG_OWNERS, 0}, st_owners, apart_owners},
    {"grouping", {MH_RUNG_BASE, MH_STAGE_RECORDS}, st_group, NULL},
    {"evaluation helper", {MH_RUNG_HELPERS, 0}, st_help, apart_evalb},
    {"evaluation", {MH_RUNG_STAGES, 0}, st_eval, apart_three},
};

/* ---- tables as text and JSON ---- */

static void row_text(FILE *f, const void *run, const mh_model *m) {
    (void)m;
    const mh_bank_table *bt = mh_pat_banks(run);
    if (!bt->n) return;
    fprintf(f, "\nShared-memory bank conflicts per pc (degree = wavefronts per warp access; extra = bank conflicts):\n");
    fprintf(f, "  %-6s %-18s %10s %8s %5s %12s\n", "launch", "pc", "requests", "avg", "max", "extra");
    for (size_t i = 0; i < bt->n; i++) {
        const mh_bank_pc *b = &bt->v[i];
        fprintf(f, "  %-6u 0x%-16" PRIx64 " %10" PRIu64 " %8.2f %5u %12" PRIu64 "\n", b->launch, b->pc, b->requests,
                b->requests ? (double)b->sum_degree / (double)b->requests : 0.0, b->max_degree, b->extra);
    }
}

static json_t *jstr(const char *s) { return json_string(s ? s : ""); }

/* Per (launch, pc) of shared memory: wavefronts, their conflict-free ideal and
 * the extra (bank conflicts), as Nsight Compute counts them per instruction. */
static json_t *bank_json(const void *run, const mh_model *m, size_t i) {
    (void)m;
    const mh_bank_pc *b = &mh_pat_banks(run)->v[i];
    json_t *o = json_object();
    json_object_set_new(o, "launch", json_integer(b->launch));
    json_object_set_new(o, "pc", json_integer((json_int_t)b->pc));
    json_object_set_new(o, "object", json_integer(b->obj));
    json_object_set_new(o, "kind", jstr(mh_kind_name(b->kind)));
    json_object_set_new(o, "requests", json_integer((json_int_t)b->requests));
    json_object_set_new(o, "wavefronts", json_integer((json_int_t)b->sum_degree));
    json_object_set_new(o, "ideal_wavefronts", json_integer((json_int_t)b->ideal));
    double avg = b->requests ? (double)b->sum_degree / (double)b->requests : 0.0;
    json_object_set_new(o, "degree_avg", json_real(avg));
    json_object_set_new(o, "degree_max", json_integer(b->max_degree));
    json_object_set_new(o, "extra_wavefronts", json_integer((json_int_t)b->extra));
    json_t *pb = json_array(); /* the worst request's distinct words per bank */
    for (unsigned k = 0; k < MH_BANK_COUNT; k++) json_array_append_new(pb, json_integer(b->ex_banks[k]));
    json_object_set_new(o, "banks", pb);
    return o;
}

static size_t bank_count(const void *run) { return mh_pat_banks(run)->n; }

/* Per (launch, pc, object) of global memory: warp requests and sectors. */
static json_t *request_json(const void *run, const mh_model *m, size_t i) {
    (void)m;
    size_t n;
    const mh_pat_req *r = &mh_pat_requests(run, &n)[i];
    json_t *o = json_object();
    json_object_set_new(o, "launch", json_integer(r->launch));
    json_object_set_new(o, "pc", json_integer((json_int_t)r->pc));
    json_object_set_new(o, "object", json_integer(r->obj));
    json_object_set_new(o, "kind", jstr(mh_kind_name(r->kind)));
    json_object_set_new(o, "requests", json_integer((json_int_t)r->requests));
    json_object_set_new(o, "sectors", json_integer((json_int_t)r->sectors));
    json_object_set_new(o, "ideal_sectors", json_integer((json_int_t)r->ideal_sectors));
    json_object_set_new(o, "lines", json_integer((json_int_t)r->lines));
    json_object_set_new(o, "ideal_lines", json_integer((json_int_t)r->ideal_lines));
    return o;
}

static size_t request_count(const void *run) {
    size_t n = 0;
    mh_pat_requests(run, &n);
    return n;
}

static const mh_analysis_array arrays[] = {
    {"bank_conflicts", bank_count, bank_json, 0},
    {"global_requests", request_count, request_json, 0},
};

const mh_analysis mh_analysis_patterns = {
    .name = "patterns",
    .needs = "heat",
    /* global maps, and shared ones (the words a launch reads but never writes) */
    .maps = 1u << MH_SPACE_GLOBAL | 1u << MH_SPACE_SHARED,
    .half = 0,
    .stages = stages,
    .nstages = sizeof stages / sizeof stages[0],
    .hand_size = sizeof(mh_stage),
    .hand_release = row_release,
    .open = row_open,
    .feed = row_feed,
    .take = row_take,
    .finish = row_finish,
    .merge = row_merge,
    .lend = lend_keys,
    .close = row_close,
    .peak = row_peak,
    .split = row_split,
    .findings = row_findings,
    .text = row_text,
    .arrays = arrays,
    .narrays = sizeof arrays / sizeof arrays[0],
};
