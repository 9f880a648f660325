/* pass.c -- mh_pass: the one streaming pass reader -> model -> analyses ->
 * consumers (pass/pass.h).
 *
 * The loop: a record is checked against the model (bad ones are skipped
 * and counted), then goes to the executor of its launch's episode: the
 * pass's own (exec.h: its model and its runs of the table's analyses), fed
 * here or, for accesses, batch by batch on the scheduler's workers
 * (sched/pool.h, laid out by sched/plan.h); or a launch lane's
 * (sched/lanes.h; lane_exec.c). Any record but accesses is a barrier for
 * the workers: every batch through every stage, then the model, then the
 * analyses and consumers here (a kernel end after many accesses gives the
 * end of an analysis whose end is long to its worker meanwhile:
 * end_apart). Results are emitted only at a kernel end or at the finish,
 * and every emission and consumer call happens on this thread, in trace
 * order, whatever the thread count. */
#include "pass/pass.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pass/exec.h"
#include "pass/lane_exec.h"
#include "pass/results.h"
#include "pass/table.h"
#include "sched/lanes.h"
#include "sched/plan.h"
#include "sched/pool.h"
#include "util/clock.h"
#include "util/grow.h"

#define END_SPLIT_MIN (1u << 15) /* accesses since the last kernel end that make an end apart worth a hand-off */
#define PROGRESS_EVERY 0.5       /* seconds between progress lines */
#define BIG_EPISODE (1u << 22)   /* accesses of an episode after which the next one is split by analysis */
/* The same with at most FEW_LANES lanes (a machine of 2 cores): there two
 * lanes of launches of 10^6 accesses or more ran no faster than the ring's
 * stages, and each lane held a whole launch's state (bench/analyses/README.md). */
#define BIG_EPISODE_FEW (1u << 20)
#define FEW_LANES 2
#define MAIN (-1)                /* the executor of launches analysed here (by stage), not in a lane */

struct mh_pass {
    mh_pass_opts o;
    unsigned on; /* the rows that run (table.h) */
    mh_trace_reader *r;
    mh_model own_model;
    mh_model *m;
    int model_ok;
    mh_exec ex; /* MAIN's analyses */
    mh_pass_consumer *c;
    size_t nc;
    mh_pass_stats st;
    int ran;
    /* workers */
    mh_plan plan;
    unsigned row_of[MH_ANALYSES_MAX]; /* the plan's analysis a is row row_of[a] */
    mh_pool *pool;
    int apart;           /* the row whose kernel end runs on its worker (end_apart), -1 = none */
    unsigned apart_mask; /* its record stage's unit */
    /* bad-record check of accesses: the verdict for the last launch id asked,
     * valid until the model changes (a non-access record) */
    int chk_valid, chk_why;
    uint32_t chk_id;
    size_t chk_idx;    /* model index of launch chk_id when it may take accesses */
    uint64_t *read_of; /* per model launch index: accesses taken for it, checked at its kernel end */
    size_t capread;
    mh_access *keep; /* the good accesses of a record that had bad ones */
    size_t capkeep;
    /* a kernel end apart: the apart row's results held back until the
     * others are done on this thread */
    int holding;
    mh_result **held;
    size_t nheld, capheld;
    uint64_t acc_at_end; /* st.accesses at the last kernel end */
    /* launch lanes: launches that overlap in time form an episode,
     * analysed by one executor: a lane, or MAIN */
    mh_lanes *lanes;
    mh_lane_work lw;
    unsigned nlanes, rr;
    int32_t *own;    /* per model launch index: its executor */
    uint64_t *ep_of; /* per model launch index: its episode */
    size_t capl;
    unsigned inflight; /* launches announced and not ended */
    int ep_exec, any_ep;
    uint64_t ep_no, ep_acc;
    uint32_t own_id; /* owner_of's cache */
    int own_last, own_valid;
    /* progress */
    double t0, last_progress;
};

unsigned mh_pass_default_threads(void) {
    const char *e = getenv("MEMHEAT_THREADS");
    if (e && *e) {
        char *end;
        unsigned long v = strtoul(e, &end, 10);
        if (*end == '\0' && v >= 1 && v <= 1024) return (unsigned)v;
    }
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n >= 1 ? (unsigned)(n > 1024 ? 1024 : n) : 1;
}

const char *mh_pass_stage_name(unsigned i, const char **analysis) {
    for (unsigned r = 0; r < mh_nanalyses; r++) {
        const mh_analysis *a = mh_analyses[r];
        if (i < a->nstages) {
            if (analysis) *analysis = a->name;
            return a->stages[i].name;
        }
        i -= a->nstages;
    }
    return NULL;
}

/* ---- emissions: the analyses' results to the consumers ---- */

static int hand_out(mh_pass *p, int kind, const void *result, mh_err *err) {
    int rc = MH_OK;
    if (kind == MH_RESULT_HEAT) {
        const mh_heat_result *r = result;
        for (size_t i = 0; i < p->nc && rc == MH_OK; i++)
            if (p->c[i].heat) rc = p->c[i].heat(p->c[i].ctx, r, err);
        if (rc == MH_OK) {
            p->st.maps++;
            p->st.sectors += r->nrows;
        }
    } else {
        for (size_t i = 0; i < p->nc && rc == MH_OK; i++)
            if (p->c[i].loc) rc = p->c[i].loc(p->c[i].ctx, result, err);
    }
    return rc;
}

/* MAIN's sink: the consumers, or, for the row ending apart on its worker,
 * a copy held until end_apart hands it on (only p->held is touched then). */
static int main_sink(void *ctx, unsigned row, int kind, const void *result, mh_err *err) {
    mh_pass *p = ctx;
    if (p->holding && (int)row == p->apart) {
        if (p->nheld == p->capheld) {
            mh_result **v = mh_grow(p->held, &p->capheld, p->nheld + 1, sizeof *v, 4);
            if (!v) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
            p->held = v;
        }
        if (!(p->held[p->nheld] = mh_result_copy(kind, row, result)))
            return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
        p->nheld++;
        return MH_OK;
    }
    return hand_out(p, kind, result, err);
}

/* A lane's result in its turn, pointing at this pass's model (its heat
 * maps were taken by the lane's own analyses; the bytes used go into this
 * model too). */
static int lane_result(void *ctx, mh_result *c, mh_err *err) {
    mh_pass *p = ctx;
    if (!mh_result_repoint(c, p->m)) return MH_OK; /* a launch this pass's model never held: nothing to name it by */
    if (c->kind == MH_RESULT_HEAT) mh_exec_note_used(p->m, &c->u.heat);
    return hand_out(p, c->kind, mh_result_get(c), err);
}

/* ---- open / close ---- */

int mh_pass_open(mh_pass **out, const char *path, mh_model *model, const mh_pass_opts *o, mh_err *err) {
    *out = NULL;
    mh_pass *p = calloc(1, sizeof *p);
    if (!p) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    if (o) p->o = *o;
    p->on = mh_analyses_resolve(p->o.analyses);
    p->apart = -1;
    p->m = model ? model : &p->own_model;
    int rc = mh_trace_open(&p->r, path, err);
    if (rc == MH_OK) rc = mh_model_init(p->m, mh_trace_header_get(p->r), err);
    if (rc == MH_OK) p->model_ok = 1;
    if (rc == MH_OK) {
        mh_exec_sink sink = {main_sink, p};
        rc = mh_exec_open(&p->ex, p->on, p->m, &p->o, &sink, err);
    }
    if (rc != MH_OK && p->model_ok) mh_err_wrap(err, "%s", path); /* an analysis refused the trace: name it */
    if (rc != MH_OK) {
        if (model && p->model_ok) mh_model_free(model); /* the caller frees only after success */
        p->model_ok = model ? 0 : p->model_ok;
        mh_pass_close(p);
        return rc;
    }
    *out = p;
    return MH_OK;
}

const mh_model *mh_pass_model(const mh_pass *p) { return p->m; }

int mh_pass_add(mh_pass *p, const mh_pass_consumer *c, mh_err *err) {
    assert(!p->ran);
    mh_pass_consumer *v = realloc(p->c, (p->nc + 1) * sizeof *v);
    if (!v) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    p->c = v;
    p->c[p->nc++] = *c;
    return MH_OK;
}

const mh_pass_stats *mh_pass_stats_get(const mh_pass *p) { return &p->st; }
const mh_pat_run *mh_pass_patterns(const mh_pass *p) { return p->ex.run[MH_PASS_ROW(MH_PASS_PATTERNS)]; }

void mh_pass_close(mh_pass *p) {
    if (!p) return;
    mh_pool_free(p->pool);
    mh_lanes_free(p->lanes);
    free(p->own);
    free(p->ep_of);
    free(p->read_of);
    mh_exec_close(&p->ex);
    if (p->model_ok && p->m == &p->own_model) mh_model_free(&p->own_model);
    if (p->r) mh_trace_close_reader(p->r);
    for (size_t i = 0; i < p->nheld; i++) mh_result_free(p->held[i]);
    free(p->held);
    free(p->keep);
    free(p->c);
    free(p);
}

/* ---- bad records: skipped and counted, never fed (pass.h) ---- */

static void note_skip(mh_pass *p, int why, uint32_t launch, uint64_t n) {
    if (!p->st.skipped[why]) p->st.skipped_launch[why] = launch;
    p->st.skipped[why] += n;
    p->st.skipped_total += n;
}

static size_t launch_index(const mh_pass *p, uint32_t id) {
    const mh_model_launch *ml = mh_model_launch_get(p->m, id);
    assert(ml);
    return (size_t)(ml - p->m->launches);
}

static int access_bad(mh_pass *p, uint32_t launch) {
    if (p->chk_valid && launch == p->chk_id) return p->chk_why;
    p->chk_id = launch;
    p->chk_why = mh_model_check_access(p->m, launch);
    if (!p->chk_why) p->chk_idx = launch_index(p, launch);
    p->chk_valid = 1;
    return p->chk_why;
}

/* Drops the accesses naming an unknown or ended launch from rec (pointing
 * it at a filtered copy when there are any) and counts the others per
 * launch (read_of). */
static int filter_accesses(mh_pass *p, mh_record *rec, mh_err *err) {
    const mh_access *v = rec->u.accesses.v;
    size_t n = rec->u.accesses.n, i = 0;
    if (rec->u.accesses.one_launch && !access_bad(p, v[0].launch)) { /* no access to look at */
        p->read_of[p->chk_idx] += n;
        return MH_OK;
    }
    for (; i < n && !access_bad(p, v[i].launch); i++) p->read_of[p->chk_idx]++;
    if (i == n) return MH_OK;
    rec->u.accesses.one_launch = 0;
    if (n > p->capkeep) {
        mh_access *k = realloc(p->keep, n * sizeof *k);
        if (!k) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
        p->keep = k;
        p->capkeep = n;
    }
    memcpy(p->keep, v, i * sizeof *v);
    size_t k = i;
    for (; i < n; i++) {
        int why = access_bad(p, v[i].launch);
        if (why) {
            note_skip(p, why, v[i].launch, 1);
        } else {
            p->read_of[p->chk_idx]++;
            p->keep[k++] = v[i];
        }
    }
    rec->u.accesses.v = p->keep;
    rec->u.accesses.n = k;
    return MH_OK;
}

/* An accepted LAUNCH record, before the model takes it: its count of
 * accesses read starts at 0. */
static int count_launch(mh_pass *p, mh_err *err) {
    size_t i = p->m->nlaunches;
    uint64_t *r = mh_grow(p->read_of, &p->capread, i + 1, sizeof *r, 256);
    if (!r) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    p->read_of = r;
    r[i] = 0;
    return MH_OK;
}

/* An accepted KERNEL_END record: the accesses its collector wrote for the
 * launch against those read (a block lost or repeated with valid checksums). */
static void count_check(mh_pass *p, const mh_kernel_end *e) {
    uint64_t got = p->read_of[launch_index(p, e->launch)];
    if (got == e->recorded) return;
    if (!p->st.miscounted) {
        p->st.miscounted_launch = e->launch;
        p->st.miscounted_stated = e->recorded;
        p->st.miscounted_read = got;
    }
    p->st.miscounted++;
}

int mh_pass_notice(const mh_pass_stats *st, const char *path, char *buf, size_t cap) {
    size_t len = 0;
    buf[0] = '\0';
#define ADD(...)                                                                                         \
    do {                                                                                                 \
        if (len < cap) {                                                                                 \
            int w_ = snprintf(buf + len, cap - len, __VA_ARGS__);                                        \
            if (w_ > 0) len += (size_t)w_;                                                               \
        }                                                                                                \
    } while (0)
    if (st->skipped_total) {
        ADD("%s: skipped %llu bad entries (valid checksums, contradicting the trace):", path,
            (unsigned long long)st->skipped_total);
        const char *sep = " ";
        for (int w = 1; w < MH_BAD_COUNT; w++) {
            if (!st->skipped[w]) continue;
            ADD("%s%llu %s (first: launch %u)", sep, (unsigned long long)st->skipped[w], mh_model_bad_text(w),
                st->skipped_launch[w]);
            sep = ", ";
        }
        ADD("; every other record was used");
    }
    int cover = 0; /* said once, after what does not add up */
    if (st->miscounted) {
        ADD("%s%slaunch %u's kernel end counts %llu accesses, %llu were read", len ? "; " : path, len ? "" : ": ",
            st->miscounted_launch, (unsigned long long)st->miscounted_stated,
            (unsigned long long)st->miscounted_read);
        ADD(" (accesses lost or repeated");
        if (st->miscounted > 1) ADD("; %llu launches so", (unsigned long long)st->miscounted);
        ADD(")");
        cover = 1;
    }
    if (st->inconsistency[0]) {
        ADD("%s%s%s", len ? "; " : path, len ? "" : ": ", st->inconsistency);
        cover = 1;
    } else if (!st->complete && !st->partial) {
        ADD("%s%s ends without its end record (the run stopped early)", len ? "; " : "", len ? "it" : path);
        cover = 1;
    }
    if (cover) ADD(": results cover what it holds");
#undef ADD
    return buf[0] != '\0';
}

/* ---- the workers ---- */

/* The plan for this pass's analyses (their stages, the lender of a stage
 * that borrows) and thread count. */
static void make_plan(mh_pass *p, unsigned threads, int lanes) {
    mh_plan_analysis pa[MH_ANALYSES_MAX];
    mh_plan_stage ps[MH_ANALYSES_MAX][MH_PLAN_MAX_STAGES];
    int index_of[MH_ANALYSES_MAX];
    unsigned n = 0;
    for (unsigned i = 0; i < mh_nanalyses; i++) {
        index_of[i] = -1;
        if (!(p->on >> i & 1u)) continue;
        const mh_analysis *a = mh_analyses[i];
        assert(a->nstages >= 1 && a->nstages <= MH_PLAN_MAX_STAGES);
        for (unsigned s = 0; s < a->nstages; s++) ps[n][s] = a->stages[s].plan;
        pa[n] = (mh_plan_analysis){ps[n], a->nstages, -1};
        for (unsigned l = 0; l < mh_nanalyses; l++)
            if ((mh_analyses_bit(a->lender) >> l & 1u) && index_of[l] >= 0) pa[n].lender = index_of[l];
        p->row_of[n] = i;
        index_of[i] = (int)n++;
    }
    mh_plan_make(&p->plan, pa, n, threads, p->o.threads != 0, lanes);
}

/* Starts the plan's workers: the analyses in parts split, each stage with
 * a unit told so, the lenders told to keep keys. */
static int pool_start(mh_pass *p, mh_err *err) {
    const mh_plan *pl = &p->plan;
    mh_pool_unit units[MH_PLAN_MAX_UNITS];
    size_t hsize[MH_ANALYSES_MAX];
    void (*hrel[MH_ANALYSES_MAX])(void *);
    unsigned na = 0;
    for (unsigned i = 0; i < mh_nanalyses; i++) na += p->on >> i & 1u;
    for (unsigned a = 0; a < na; a++) {
        const mh_analysis *an = mh_analyses[p->row_of[a]];
        hsize[a] = an->hand_size;
        hrel[a] = an->hand_release;
        if (pl->parts[a] > 1) {
            int rc = mh_exec_parts(&p->ex, p->row_of[a], pl->parts[a], err);
            if (rc) return rc;
        }
    }
    unsigned part_seen[MH_ANALYSES_MAX] = {0};
    for (unsigned u = 0; u < pl->nunits; u++) {
        unsigned a = pl->unit[u].analysis, row = p->row_of[a];
        const mh_analysis *an = mh_analyses[row];
        const mh_analysis_stage *st = &an->stages[pl->unit[u].stage];
        void *run = p->ex.run[row];
        if (st->plan.flags & MH_STAGE_PART) run = p->ex.part[row][part_seen[a]++];
        units[u] = (mh_pool_unit){run, st->fn, (st->plan.flags & MH_STAGE_RECORDS) ? an->feed : NULL, a,
                                  pl->unit[u].borrows >= 0 ? (int)pl->unit[pl->unit[u].borrows].analysis : -1};
        if (an->end_apart && (st->plan.flags & MH_STAGE_RECORDS)) {
            p->apart = (int)row;
            p->apart_mask = 1u << u;
        }
    }
    mh_pool_hands hands = {na, hsize, hrel};
    int rc = mh_pool_new(&p->pool, pl, units, &hands, err);
    if (rc) {
        p->apart = -1;
        return rc;
    }
    /* the stages with a unit of their own, and the lenders, told before the first record */
    for (unsigned a = 0; a < na; a++) {
        const mh_analysis *an = mh_analyses[p->row_of[a]];
        void *run = p->ex.run[p->row_of[a]];
        for (unsigned s = 0; s < an->nstages; s++)
            if ((pl->on[a] >> s & 1u) && an->stages[s].plan.rung != MH_RUNG_BASE && an->stages[s].apart)
                an->stages[s].apart(run);
        if (pl->borrows[a] >= 0) {
            const mh_analysis *ln = mh_analyses[p->row_of[pl->borrows[a]]];
            if (ln->lend) ln->lend(p->ex.run[p->row_of[pl->borrows[a]]]);
        }
    }
    return MH_OK;
}

/* The workers' times, by stage in table order (pass.h). */
static void pool_times(mh_pass *p) {
    mh_pool_times t;
    mh_pool_times_get(p->pool, &t);
    p->st.times.workers_cpu = t.cpu;
    p->st.times.ring_room = t.room;
    for (unsigned u = 0; u < p->plan.nunits; u++) {
        unsigned row = p->row_of[p->plan.unit[u].analysis], k = p->plan.unit[u].stage;
        for (unsigned i = 0; i < row; i++) k += mh_analyses[i]->nstages;
        if (k < MH_PASS_MAX_STAGES) {
            p->st.times.unit_cpu[k] = t.unit_cpu[u];
            p->st.times.unit_wait[k] = t.unit_wait[u];
        }
    }
}

/* ---- the loop ---- */

static void progress(mh_pass *p, int done) {
    if (!p->o.progress) return;
    double t = mh_clock_s();
    if (!done && t - p->last_progress < PROGRESS_EVERY) return;
    p->last_progress = t;
    double dt = t - p->t0;
    char line[200];
    snprintf(line, sizeof line, "%s: %llu chunks, %llu launches, %.1f M accesses, %.2f M accesses/s",
             done ? "analysed" : "analysing", (unsigned long long)mh_trace_chunks_read(p->r),
             (unsigned long long)p->m->nlaunches, (double)p->st.accesses * 1e-6,
             dt > 0 ? (double)p->st.accesses * 1e-6 / dt : 0.0);
    p->o.progress(p->o.progress_ctx, line, done);
}

static int consumers_record(mh_pass *p, const mh_record *rec, mh_err *err) {
    for (size_t i = 0; i < p->nc; i++)
        if (p->c[i].record) {
            int rc = p->c[i].record(p->c[i].ctx, p->m, rec, err);
            if (rc) return rc;
        }
    return MH_OK;
}

/* One record, all on this thread: the serial path, and every non-access
 * record of the threaded one (after the workers are idle). */
static int feed_here(mh_pass *p, const mh_record *rec, mh_err *err) {
    if (rec->type != MH_REC_ACCESSES) p->chk_valid = 0; /* the model may change */
    int rc = mh_exec_feed(&p->ex, rec, err);
    if (rc == MH_OK) rc = consumers_record(p, rec, err);
    return rc;
}

/* A kernel end on the threaded pass: the apart row (sorting and summing
 * the launch's distinct addresses, the longest part) ends it on its worker
 * while the others end it here; its results are held back and handed to
 * the consumers after theirs, so every consumer call comes in the order of
 * feed_here, on this thread. The worker reads the model, which this thread
 * only changes in objects' used ranges (heat maps' emission). */
static int end_apart(mh_pass *p, const mh_record *rec, mh_err *err) {
    p->chk_valid = 0;
    int rc = mh_model_feed(p->m, rec, err);
    if (rc) return rc;
    p->holding = 1;
    mh_pool_record(p->pool, rec, p->apart_mask);
    for (unsigned i = 0; i < mh_nanalyses && rc == MH_OK; i++)
        if (p->ex.run[i] && (int)i != p->apart) rc = mh_exec_feed_row(&p->ex, i, rec, err);
    mh_err lerr = {0};
    int lrc = mh_pool_drain(p->pool, &lerr);
    p->holding = 0;
    if (rc == MH_OK && lrc != MH_OK) {
        rc = lrc;
        if (err) *err = lerr;
    }
    for (size_t i = 0; i < p->nheld; i++) {
        if (rc == MH_OK) rc = hand_out(p, p->held[i]->kind, mh_result_get(p->held[i]), err);
        mh_result_free(p->held[i]);
    }
    p->nheld = 0;
    if (rc == MH_OK) rc = consumers_record(p, rec, err);
    return rc;
}

/* ---- launch lanes ---- */

static int owner_of(mh_pass *p, uint32_t id) {
    if (!p->own_valid || p->own_id != id) {
        p->own_id = id;
        p->own_last = p->own[launch_index(p, id)];
        p->own_valid = 1;
    }
    return p->own_last;
}

static uint64_t episode_rank(void *ctx, uint32_t id) {
    mh_pass *p = ctx;
    return p->ep_of[launch_index(p, id)];
}

/* An accepted LAUNCH record, before the model takes it: a launch while none
 * is in flight starts an episode, and its executor is chosen: MAIN for the
 * first and after an episode of BIG_EPISODE accesses or more (BIG_EPISODE_FEW
 * with few lanes; one big launch keeps the analyses on workers of their
 * own), else the lane with the least
 * work waiting (mh_lanes_pick: lanes slowed by others on their core get
 * less). Launches overlapping in time go to one executor, so each analysis
 * sees the launches in flight together as the serial pass does (grouping
 * buffers, budgets). */
static int lanes_launch(mh_pass *p, mh_err *err) {
    if (p->inflight == 0) {
        uint64_t big = p->nlanes <= FEW_LANES ? BIG_EPISODE_FEW : BIG_EPISODE;
        int exec = (!p->any_ep || p->ep_acc >= big) ? MAIN : (int)mh_lanes_pick(p->lanes, p->rr++);
        if (exec == MAIN && p->any_ep && p->ep_exec != MAIN) {
            int rc = mh_lanes_deliver(p->lanes, 1, err); /* MAIN hands results on at once */
            if (rc) return rc;
        }
        p->ep_exec = exec;
        p->any_ep = 1;
        p->ep_no++;
        p->ep_acc = 0;
    }
    size_t i = p->m->nlaunches;
    if (i >= p->capl) {
        size_t cap = p->capl;
        int32_t *o = mh_grow(p->own, &cap, i + 1, sizeof *o, 256);
        if (!o) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
        p->own = o;
        cap = p->capl;
        uint64_t *e = mh_grow(p->ep_of, &cap, i + 1, sizeof *e, 256);
        if (!e) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
        p->ep_of = e;
        p->capl = cap;
    }
    p->own[i] = p->ep_exec;
    p->ep_of[i] = p->ep_no;
    p->inflight++;
    return MH_OK;
}

/* The accesses of rec to their launches' executors; the lanes read them in
 * place where they lie in the reader's chunk (in_chunk: not a filtered or
 * decoded copy). */
static int lanes_accesses(mh_pass *p, const mh_record *rec, int in_chunk, mh_err *err) {
    const mh_access *v = rec->u.accesses.v;
    size_t n = rec->u.accesses.n;
    mh_trace_hold *hold = in_chunk ? mh_trace_hold_chunk(p->r) : NULL;
    int rc = MH_OK;
    p->ep_acc += n;
    for (size_t i = 0; i < n && rc == MH_OK;) {
        size_t j = i + 1;
        if (rec->u.accesses.one_launch) j = n;
        while (j < n && v[j].launch == v[i].launch) j++;
        int o = owner_of(p, v[i].launch);
        rc = o == MAIN ? mh_pool_accesses(p->pool, v + i, j - i, hold, err)
                       : mh_lanes_accesses(p->lanes, (unsigned)o, v + i, j - i, hold, err);
        i = j;
    }
    return rc;
}

/* The lanes' runs merged into MAIN's (analyses that keep results across
 * launches), the peaks the largest executor's. */
static int lanes_merge(mh_pass *p, mh_err *err) {
    int rc = MH_OK;
    unsigned nl = mh_lanes_count(p->lanes);
    void **src = calloc(nl ? nl : 1, sizeof *src);
    if (!src) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    for (unsigned i = 0; i < mh_nanalyses && rc == MH_OK; i++) {
        const mh_analysis *a = mh_analyses[i];
        if (!p->ex.run[i] || !a->merge) continue;
        size_t n = 0;
        for (unsigned l = 0; l < nl; l++) {
            void *run = mh_lane_exec_run(&p->lw, mh_lanes_exec(p->lanes, l, mh_lane_work_half(&p->lw, i)), i);
            if (run) src[n++] = run;
        }
        rc = a->merge(p->ex.run[i], src, n, episode_rank, p, err);
    }
    free(src);
    return rc;
}

static int has_record_consumer(const mh_pass *p) {
    for (size_t i = 0; i < p->nc; i++)
        if (p->c[i].record) return 1;
    return 0;
}

/* Peaks and approximations of the runs, the lanes' included. */
static void run_stats(mh_pass *p) {
    for (unsigned i = 0; i < mh_nanalyses && i < MH_PASS_MAX_ANALYSES; i++) {
        const mh_analysis *a = mh_analyses[i];
        if (!p->ex.run[i]) continue;
        if (a->peak) p->st.peak[i] = a->peak(p->ex.run[i]);
        for (unsigned l = 0; p->lanes && a->peak && l < mh_lanes_count(p->lanes); l++) {
            const void *run = mh_lane_exec_run(&p->lw, mh_lanes_exec(p->lanes, l, mh_lane_work_half(&p->lw, i)), i);
            size_t b = run ? a->peak(run) : 0;
            if (b > p->st.peak[i]) p->st.peak[i] = b;
        }
    }
    unsigned pat = MH_PASS_ROW(MH_PASS_PATTERNS);
    p->st.peak_heat = p->st.peak[MH_PASS_ROW(MH_PASS_HEAT)];
    p->st.peak_pat = p->st.peak[pat];
    p->st.peak_loc = p->st.peak[MH_PASS_ROW(MH_PASS_LOCALITY)];
    if (p->ex.run[pat] && mh_analyses[pat]->split) p->st.split_pat = mh_analyses[pat]->split(p->ex.run[pat]);
}

int mh_pass_run(mh_pass *p, mh_err *err) {
    assert(!p->ran);
    p->ran = 1;
    p->t0 = p->last_progress = mh_clock_s();
    double reader_cpu0 = mh_clock_thread_cpu_s();
    unsigned threads = p->o.threads ? p->o.threads : mh_pass_default_threads();
    /* launch lanes, one per thread asked for: not for a consumer of every
     * record, whose calls would have to wait for the lanes' results */
    make_plan(p, threads, !has_record_consumer(p));
    int rc = MH_OK;
    if (p->plan.nlanes) {
        mh_lane_work_init(&p->lw, p->on, &p->o, &p->m->hdr, lane_result, p);
        mh_lanes_work w;
        mh_lane_work_get(&p->lw, &w);
        rc = mh_lanes_new(&p->lanes, p->plan.nlanes, &w, err);
        p->nlanes = p->plan.nlanes;
    }
    if (rc == MH_OK && p->plan.nworkers) rc = pool_start(p, err);
    p->st.threads = p->lanes ? p->nlanes : p->pool ? p->plan.nworkers : 1;
    mh_record rec;
    int read_rc = MH_OK;
    mh_err rerr = {0};
    while (rc == MH_OK) {
        read_rc = mh_trace_next(p->r, &rec, &rerr);
        if (read_rc != MH_OK || rec.type == MH_REC_EOF) break;
        p->st.records++;
        int in_chunk = 0;
        if (rec.type == MH_REC_ACCESSES) {
            const mh_access *read = rec.u.accesses.v;
            if ((rc = filter_accesses(p, &rec, err)) != MH_OK) break;
            in_chunk = rec.u.accesses.v == read && mh_trace_accesses_in_chunk(p->r);
            if (rec.u.accesses.n == 0) continue;
            p->st.accesses += rec.u.accesses.n;
        } else {
            int why = mh_model_check(p->m, &rec);
            if (why) {
                note_skip(p, why, rec.type == MH_REC_LAUNCH ? rec.u.launch.id : rec.u.kernel_end.launch, 1);
                continue;
            }
            if (rec.type == MH_REC_LAUNCH && (rc = count_launch(p, err)) != MH_OK) break;
            if (rec.type == MH_REC_KERNEL_END) count_check(p, &rec.u.kernel_end);
        }
        if (!p->pool) {
            rc = feed_here(p, &rec, err);
        } else if (rec.type == MH_REC_ACCESSES) {
            if (p->lanes) {
                rc = lanes_accesses(p, &rec, in_chunk, err);
            } else {
                /* the model ignores accesses; consumers see them here while the
                 * workers read the model, which changes only at barriers */
                rc = consumers_record(p, &rec, err);
                if (rc == MH_OK)
                    rc = mh_pool_accesses(p->pool, rec.u.accesses.v, rec.u.accesses.n,
                                          in_chunk ? mh_trace_hold_chunk(p->r) : NULL, err);
            }
        } else {
            int owner = MAIN;
            if (p->lanes && rec.type == MH_REC_LAUNCH) rc = lanes_launch(p, err);
            if (p->lanes && rec.type == MH_REC_KERNEL_END) {
                owner = owner_of(p, rec.u.kernel_end.launch);
                p->inflight--;
            }
            double at = rec.type == MH_REC_KERNEL_END && owner == MAIN ? mh_clock_s() : 0;
            if (rc == MH_OK) rc = mh_pool_barrier(p->pool, err);
            if (rc == MH_OK && rec.type == MH_REC_KERNEL_END && owner == MAIN && p->apart >= 0 &&
                p->st.accesses - p->acc_at_end >= END_SPLIT_MIN)
                rc = end_apart(p, &rec, err);
            else if (rc == MH_OK)
                rc = feed_here(p, &rec, err);
            if (at > 0) p->st.times.ends += mh_clock_s() - at;
            if (rec.type == MH_REC_KERNEL_END) p->acc_at_end = p->st.accesses;
            if (rc == MH_OK && p->lanes) rc = mh_lanes_record(p->lanes, &rec, owner, err);
            if (rc == MH_OK && p->lanes) rc = mh_lanes_deliver(p->lanes, 0, err);
        }
        progress(p, 0);
    }
    if (p->pool) {
        /* what was read before the end, a cut or damage is still analysed;
         * after an error here, the batches handed over before it still come
         * first (their error wins: trace order) */
        mh_err werr = {0};
        int wrc = rc == MH_OK ? mh_pool_barrier(p->pool, &werr) : mh_pool_drain(p->pool, &werr);
        if (wrc != MH_OK) {
            rc = wrc;
            if (err) *err = werr;
        }
        pool_times(p);
        mh_pool_free(p->pool);
        p->pool = NULL;
    }
    /* the lanes' launches that ended come first, as in the serial pass; the
     * launches that never ended are all of one executor (the last episode's) */
    if (rc == MH_OK && p->lanes) rc = mh_lanes_deliver(p->lanes, 1, err);
    if (rc == MH_OK) rc = mh_exec_finish(&p->ex, err);
    if (rc == MH_OK && p->lanes) rc = mh_lanes_finish(p->lanes, err);
    if (p->lanes) mh_lanes_stop(p->lanes); /* after an error, threads may still be in batches */
    if (rc == MH_OK && p->lanes) rc = lanes_merge(p, err);
    p->st.complete = mh_trace_complete(p->r);
    snprintf(p->st.inconsistency, sizeof p->st.inconsistency, "%s", mh_trace_inconsistency(p->r));
    p->st.chunks = mh_trace_chunks_read(p->r);
    run_stats(p);
    if (p->lanes) {
        mh_lanes_times lt;
        mh_lanes_times_get(p->lanes, &lt);
        p->st.times.lanes_cpu = lt.cpu;
        p->st.times.lanes_cpu_max = lt.cpu_max;
        p->st.times.lanes_idle = lt.idle;
        p->st.times.lanes_moved = lt.moved;
        p->st.times.wait_room = lt.room;
        p->st.times.wait_results = lt.results;
    }
    mh_trace_times(p->r, &p->st.times.chunk_wait, &p->st.times.inflate_cpu);
    p->st.times.reader_cpu = mh_clock_thread_cpu_s() - reader_cpu0;
    p->st.times.wall = mh_clock_s() - p->t0;
    if (read_rc != MH_OK && rc == MH_OK) {
        p->st.partial = 1;
        p->st.truncated = read_rc == MH_ERR_TRUNCATED;
        rc = read_rc;
        if (err) *err = rerr;
    }
    progress(p, 1);
    return rc;
}

/* ---- results kept after the pass ---- */

struct mh_pass_results {
    void *run[MH_ANALYSES_MAX];
    const mh_pat_finding **f;
    size_t nf;
};

mh_pass_results *mh_pass_take_results(mh_pass *p) {
    mh_pass_results *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    size_t total = 0;
    for (unsigned i = 0; i < mh_nanalyses; i++) {
        size_t n = 0;
        if (p->ex.run[i] && mh_analyses[i]->findings) mh_analyses[i]->findings(p->ex.run[i], &n);
        total += n;
    }
    r->f = malloc((total ? total : 1) * sizeof *r->f);
    if (!r->f) {
        free(r);
        return NULL;
    }
    /* each row's findings merged into those before it: most costly first,
     * the earlier row's first on a tie */
    for (unsigned i = 0; i < mh_nanalyses; i++) {
        size_t n = 0;
        const mh_pat_finding *v = p->ex.run[i] && mh_analyses[i]->findings ? mh_analyses[i]->findings(p->ex.run[i], &n) : NULL;
        size_t a = r->nf, j = r->nf + n, k = n;
        r->nf += n;
        while (k > 0) /* from the back: the cheaper last, this row's on a tie */
            r->f[--j] = a > 0 && r->f[a - 1]->cost < v[k - 1].cost ? r->f[--a] : &v[--k];
    }
    for (unsigned i = 0; i < mh_nanalyses; i++) r->run[i] = mh_exec_take(&p->ex, i);
    return r;
}

const mh_pat_finding *const *mh_pass_results_findings(const mh_pass_results *r, size_t *n) {
    *n = r->nf;
    return r->f;
}

const void *mh_pass_results_run(const mh_pass_results *r, unsigned row) {
    return row < mh_nanalyses ? r->run[row] : NULL;
}

void mh_pass_results_free(mh_pass_results *r) {
    if (!r) return;
    for (unsigned i = 0; i < mh_nanalyses; i++)
        if (r->run[i]) mh_analyses[i]->close(r->run[i]);
    free(r->f);
    free(r);
}
