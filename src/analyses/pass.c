/* pass.c -- mh_pass: the one streaming pass reader -> model -> analyses ->
 * consumers (memheat/pass.h), with the built-in analyses fed by worker
 * threads (pass_units.c, ring.h); what the two files share is in
 * pass_internal.h.
 *
 * The loop: ACCESSES records go into a batch, read in place in their trace
 * chunk, which the batch holds (mh_trace_hold), or copied where they are not
 * in one (filtered, decoded); a full batch goes into a ring of RING_SLOTS
 * batches that the built-in analyses (heat, patterns, locality each own their
 * state; the last two in two stages, U_*) consume each at its own pace on
 * their workers, while this thread
 * reads on into the next free slot; it waits only when every slot is in the
 * workers. Any other record is a barrier: every batch through every analysis,
 * then the model, then the analyses and consumers here (a kernel end after
 * many accesses gives the locality unit's end to its worker meanwhile:
 * end_split). Heat maps and locality results are emitted only at a kernel
 * end or at the finish, so every emission and consumer call happens on this
 * thread, in trace order, whatever the thread count.
 * Episodes of small launches go to launch lanes instead (lanes.c; which
 * executor takes an episode: lanes_launch), whose results come back here,
 * in trace order, with mh_lanes_deliver. */
#include "memheat/pass.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyses/pass_internal.h"
#include "util/clock.h"
#include "util/grow.h"

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

/* ---- emissions: heat -> patterns -> consumers; locality -> consumers ---- */

/* The maps of a lane's launch (lanes.c), in their turn: the lane's own
 * patterns took them already; the bytes used go into this model too. */
static int heat_out(mh_pass *p, const mh_heat_result *r, mh_err *err) {
    int rc = MH_OK;
    for (size_t i = 0; i < p->nc && rc == MH_OK; i++)
        if (p->c[i].heat) rc = p->c[i].heat(p->c[i].ctx, r, err);
    if (rc == MH_OK) {
        p->st.maps++;
        p->st.sectors += r->nrows;
    }
    return rc;
}

static int lane_heat_in(void *ctx, const mh_heat_result *r, mh_err *err) {
    mh_pass *p = ctx;
    mh_lanes_note_used(p->m, r);
    return heat_out(p, r, err);
}

static int heat_emit(void *ctx, const mh_heat_result *r, mh_err *err) {
    mh_pass *p = ctx;
    /* the bytes each argument view of the launch used, before the findings name it */
    mh_lanes_note_used(p->m, r);
    int rc = p->pat ? mh_pat_run_heat(p->pat, r, err) : MH_OK;
    return rc ? rc : heat_out(p, r, err);
}

static int loc_emit(void *ctx, const mh_loc_result *r, mh_err *err) {
    mh_pass *p = ctx;
    if (p->loc_hold) { /* on the locality worker: only p->held is touched, handed on by end_split */
        if (p->nheld == p->capheld) {
            mh_loc_result *v = mh_grow(p->held, &p->capheld, p->nheld + 1, sizeof *v, 4);
            if (!v) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
            p->held = v;
        }
        p->held[p->nheld++] = *r; /* flat: model and launch pointers stay valid */
        return MH_OK;
    }
    int rc = MH_OK;
    for (size_t i = 0; i < p->nc && rc == MH_OK; i++)
        if (p->c[i].loc) rc = p->c[i].loc(p->c[i].ctx, r, err);
    return rc;
}

/* ---- open / close ---- */

int mh_pass_open(mh_pass **out, const char *path, mh_model *model, const mh_pass_opts *o, mh_err *err) {
    *out = NULL;
    mh_pass *p = calloc(1, sizeof *p);
    if (!p) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    if (o) p->o = *o;
    if (p->o.analyses & MH_PASS_PATTERNS) {
        p->o.analyses |= MH_PASS_HEAT;
        /* patterns read global maps, and shared ones (the words a launch reads but never writes) */
        if (p->o.heat_spaces) p->o.heat_spaces |= 1u << MH_SPACE_GLOBAL | 1u << MH_SPACE_SHARED;
    }
    p->m = model ? model : &p->own_model;
    int rc = mh_trace_open(&p->r, path, err);
    if (rc == MH_OK) rc = mh_model_init(p->m, mh_trace_header_get(p->r), err);
    if (rc == MH_OK) p->model_ok = 1;
    if (rc == MH_OK && (p->o.analyses & MH_PASS_PATTERNS)) {
        mh_pat_opts po = {p->o.group_budget};
        rc = mh_pat_run_new(&p->pat, p->m, &po, err);
    }
    if (rc == MH_OK && (p->o.analyses & MH_PASS_HEAT)) {
        mh_heat_run_opts ho = {.space_mask = p->o.heat_spaces, .emit = heat_emit, .ctx = p};
        rc = mh_heat_run_new(&p->hr, p->m, &ho, err);
    }
    if (rc == MH_OK && (p->o.analyses & MH_PASS_LOCALITY)) {
        mh_loc_opts lo = {p->o.group_budget, loc_emit, p};
        rc = mh_loc_run_new(&p->lr, p->m, &lo, err);
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
const mh_pat_run *mh_pass_patterns(const mh_pass *p) { return p->pat; }

mh_pat_run *mh_pass_take_patterns(mh_pass *p) {
    mh_pat_run *pr = p->pat;
    p->pat = NULL;
    return pr;
}

void mh_pass_close(mh_pass *p) {
    if (!p) return;
    mh_pass_pool_stop(p);
    mh_lanes_free(p->lanes);
    free(p->own);
    free(p->ep_of);
    free(p->read_of);
    mh_heat_run_free(p->hr);
    for (int i = 0; i < MH_HEAT_PARTS - 1; i++) mh_heat_run_free(p->hrp[i]);
    mh_loc_run_free(p->lr);
    mh_pat_run_free(p->pat);
    if (p->model_ok && p->m == &p->own_model) mh_model_free(&p->own_model);
    if (p->r) mh_trace_close_reader(p->r);
    for (int i = 0; i < RING_SLOTS; i++) {
        mh_pass_batch_clear(&p->b[i]); /* the workers are stopped */
        mh_stage_free(&p->b[i].pst);
        mh_stage_free(&p->b[i].lst);
        mh_trace_holds_free(&p->b[i].holds);
        free(p->b[i].v);
        free(p->b[i].rec_n);
        free(p->b[i].rec_v);
    }
    free(p->keep);
    free(p->held);
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
 * record of the threaded one (after the pool is idle). */
static int feed_here(mh_pass *p, const mh_record *rec, mh_err *err) {
    if (rec->type != MH_REC_ACCESSES) p->chk_valid = 0; /* the model may change */
    int rc = mh_model_feed(p->m, rec, err);
    for (int u = 0; u < U_COUNT && rc == MH_OK; u++) rc = mh_pass_unit_feed(p, u, rec, err);
    if (rc == MH_OK) rc = consumers_record(p, rec, err);
    return rc;
}

/* A kernel end on the threaded pass: the locality unit (sorting and summing
 * the launch's distinct addresses, the longest part) on its worker while the
 * heat maps and patterns end here; its results are held back and handed to
 * the consumers after theirs, so every consumer call comes in the order of
 * feed_here, on this thread. The worker reads the model, which this thread
 * only changes in objects' used ranges (heat_emit). */
static int end_split(mh_pass *p, const mh_record *rec, mh_err *err) {
    p->chk_valid = 0;
    int rc = mh_model_feed(p->m, rec, err);
    if (rc) return rc;
    p->loc_hold = 1;
    mh_pass_cur_batch(p)->rec = rec; /* the slot's batch is empty after the barrier */
    mh_pass_pool_submit(p, 1u << p->loc_pos); /* no unit has failed: the barrier said so */
    rc = mh_pass_unit_feed(p, U_HEAT, rec, err);
    if (rc == MH_OK) rc = mh_pass_unit_feed(p, U_PAT, rec, err);
    mh_err lerr = {0};
    int lrc = mh_ring_drain(p->ring, &lerr);
    p->loc_hold = 0;
    if (rc == MH_OK && lrc != MH_OK) {
        rc = lrc;
        if (err) *err = lerr;
    }
    for (size_t i = 0; i < p->nheld && rc == MH_OK; i++) rc = loc_emit(p, &p->held[i], err);
    p->nheld = 0;
    if (rc == MH_OK) rc = consumers_record(p, rec, err);
    return rc;
}

/* ---- launch lanes ---- */

static int lane_loc_in(void *ctx, const mh_loc_result *r, mh_err *err) { return loc_emit(ctx, r, err); }

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
 * first and after an episode of BIG_EPISODE accesses or more (one big launch
 * keeps the analyses on workers of their own), else the lane with the least
 * work waiting (mh_lanes_pick: lanes slowed by others on their core get
 * less). Launches overlapping in time go to one executor, so each analysis
 * sees the launches in flight together as the serial pass does (grouping
 * buffers, budgets). */
static int lanes_launch(mh_pass *p, mh_err *err) {
    if (p->inflight == 0) {
        int exec = (!p->any_ep || p->ep_acc >= BIG_EPISODE) ? MAIN : (int)mh_lanes_pick(p->lanes, p->rr++);
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

/* Accesses for MAIN on the threaded pass: into the batch for the workers
 * (in place in chunk hold, or copied: batch_add). */
static int main_accesses(mh_pass *p, const mh_access *v, size_t n, mh_trace_hold *hold, mh_err *err) {
    batch *b = mh_pass_cur_batch(p);
    int rc = mh_pass_batch_add(b, v, n, hold, err);
    if (rc == MH_OK && b->n >= BATCH_ACCESSES) rc = mh_pass_pool_flush(p, err);
    return rc;
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
        rc = o == MAIN ? main_accesses(p, v + i, j - i, hold, err)
                       : mh_lanes_accesses(p->lanes, (unsigned)o, v + i, j - i, hold, err);
        i = j;
    }
    return rc;
}

int mh_pass_units_finish(mh_heat_run *hr, mh_pat_run *pat, mh_loc_run *lr, mh_err *err) {
    int rc = MH_OK;
    if (hr) rc = mh_heat_run_finish(hr, err);
    if (rc == MH_OK && pat) rc = mh_pat_run_finish(pat, err);
    if (rc == MH_OK && lr) rc = mh_loc_run_finish(lr, err);
    return rc;
}

static int finish_units(mh_pass *p, mh_err *err) { return mh_pass_units_finish(p->hr, p->pat, p->lr, err); }

static int has_record_consumer(const mh_pass *p) {
    for (size_t i = 0; i < p->nc; i++)
        if (p->c[i].record) return 1;
    return 0;
}

int mh_pass_run(mh_pass *p, mh_err *err) {
    assert(!p->ran);
    p->ran = 1;
    p->t0 = p->last_progress = mh_clock_s();
    double reader_cpu0 = mh_clock_thread_cpu_s();
    unsigned units = (p->hr != NULL) + 2 * (p->pat != NULL) + 2 * (p->lr != NULL); /* two stages each */
    unsigned threads = p->o.threads ? p->o.threads : mh_pass_default_threads();
    /* a third stage each (and stages 1b) where there is a thread for every
     * unit; on fewer cores five units keep them as busy (T on the 2-core
     * VM: 2.1-2.6 s with five, 2.4 s with nine, session 13) */
    unsigned units3 = units + 2 * (p->pat != NULL) + 2 * (p->lr != NULL);
    int three = threads >= units3 && units3 > units;
    if (three) units = units3;
    unsigned nheat = three && p->hr && threads > units ? 2 : 1; /* and a thread for half the heat maps' parts */
    units += nheat - 1;
    /* and the third stages' helpers (stages 3b), where there is a thread for each */
    unsigned unitsb = units + (p->pat != NULL) + (p->lr != NULL);
    int evalb = three && unitsb > units && threads >= unitsb;
    if (evalb) units = unitsb;
    /* and the first half of the locality's split counts (stage 1c) */
    int c1 = evalb && p->lr && threads > units;
    if (c1) units++;
    /* and the heat maps' parts on four units */
    if (c1 && nheat == 2 && threads >= units + 2) {
        nheat = 4;
        units += 2;
    }
    /* and the patterns' shared-memory word owners on a unit of their own */
    int pc1 = nheat == 4 && p->pat && threads > units;
    if (pc1) units++;
    int rc = MH_OK;
    /* Launch lanes, one per thread asked for: not for a consumer of every
     * record, whose calls would have to wait for the lanes' results. */
    if (threads > 1 && units > 0 && !has_record_consumer(p)) {
        mh_lanes_sink sink = {p, lane_heat_in, lane_loc_in};
        rc = mh_lanes_new(&p->lanes, threads, &p->o, &p->m->hdr, p->m, &sink, err);
        p->nlanes = threads;
    }
    /* One worker per unit at most (the work is split by analysis and stage,
     * U_*); with one unit the worker still overlaps reading and decompression
     * on this thread. By default every multi-core machine gets one worker per
     * unit even when that is more threads than cores: on 2 cores, one worker
     * per analysis let the kernel balance them (3.3 s vs 3.8 s for 4 x 10^7
     * accesses, bench/analyses/README.md), and five units cost no more than
     * three there (session 10). */
    if (!p->o.threads && threads > 1 && threads < units) threads = units;
    if (rc == MH_OK && threads > 1 && units > 0) rc = mh_pass_pool_start(p, threads < units ? threads : units, three, nheat, evalb, c1, pc1, err);
    p->st.threads = p->lanes ? p->nlanes : p->pool_ok ? p->nworkers : 1;
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
        if (!p->pool_ok) {
            rc = feed_here(p, &rec, err);
        } else if (rec.type == MH_REC_ACCESSES) {
            if (p->lanes) {
                rc = lanes_accesses(p, &rec, in_chunk, err);
            } else {
                /* the model ignores accesses; consumers see them here while the
                 * workers read the model, which changes only at barriers */
                rc = consumers_record(p, &rec, err);
                if (rc == MH_OK)
                    rc = main_accesses(p, rec.u.accesses.v, rec.u.accesses.n,
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
            if (rc == MH_OK) rc = mh_pass_pool_barrier(p, err);
            if (rc == MH_OK && rec.type == MH_REC_KERNEL_END && owner == MAIN && p->lr &&
                p->st.accesses - p->acc_at_end >= END_SPLIT_MIN)
                rc = end_split(p, &rec, err);
            else if (rc == MH_OK)
                rc = feed_here(p, &rec, err);
            if (at > 0) p->st.times.ends += mh_clock_s() - at;
            if (rec.type == MH_REC_KERNEL_END) p->acc_at_end = p->st.accesses;
            if (rc == MH_OK && p->lanes) rc = mh_lanes_record(p->lanes, &rec, owner, err);
            if (rc == MH_OK && p->lanes) rc = mh_lanes_deliver(p->lanes, 0, err);
        }
        progress(p, 0);
    }
    if (p->pool_ok) {
        /* what was read before the end, a cut or damage is still analysed;
         * after an error here, the batches handed over before it still come
         * first (their error wins: trace order) */
        mh_err werr = {0};
        int wrc = rc == MH_OK ? mh_pass_pool_barrier(p, &werr) : mh_ring_drain(p->ring, &werr);
        if (wrc != MH_OK) {
            rc = wrc;
            if (err) *err = werr;
        }
        mh_pass_pool_stop(p);
    }
    /* the lanes' launches that ended come first, as in the serial pass; the
     * launches that never ended are all of one executor (the last episode's) */
    if (rc == MH_OK && p->lanes) rc = mh_lanes_deliver(p->lanes, 1, err);
    if (rc == MH_OK) rc = finish_units(p, err);
    if (rc == MH_OK && p->lanes) rc = mh_lanes_finish(p->lanes, err);
    if (p->lanes) mh_lanes_stop(p->lanes); /* after an error, threads may still be in batches */
    if (rc == MH_OK && p->lanes && p->pat) rc = mh_lanes_merge_patterns(p->lanes, p->pat, episode_rank, p, err);
    p->st.complete = mh_trace_complete(p->r);
    snprintf(p->st.inconsistency, sizeof p->st.inconsistency, "%s", mh_trace_inconsistency(p->r));
    p->st.chunks = mh_trace_chunks_read(p->r);
    if (p->hr) p->st.peak_heat = mh_heat_run_peak_bytes(p->hr);
    if (p->lr) p->st.peak_loc = mh_loc_run_peak_bytes(p->lr);
    if (p->lanes) mh_lanes_peaks(p->lanes, &p->st.peak_heat, &p->st.peak_loc);
    if (p->lanes) mh_lanes_times(p->lanes, &p->st.times);
    mh_trace_times(p->r, &p->st.times.chunk_wait, &p->st.times.inflate_cpu);
    p->st.times.reader_cpu = mh_clock_thread_cpu_s() - reader_cpu0;
    p->st.times.wall = mh_clock_s() - p->t0;
    if (p->pat) {
        p->st.peak_pat = mh_pat_run_peak_bytes(p->pat);
        p->st.split_pat = mh_pat_run_split(p->pat);
    }
    if (read_rc != MH_OK && rc == MH_OK) {
        p->st.partial = 1;
        p->st.truncated = read_rc == MH_ERR_TRUNCATED;
        rc = read_rc;
        if (err) *err = rerr;
    }
    progress(p, 1);
    return rc;
}
