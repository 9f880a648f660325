/* pass.c -- mh_pass: the one streaming pass reader -> model -> analyses ->
 * consumers (memheat/pass.h), with the built-in analyses fed by worker
 * threads (ring.h).
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

#include "analyses/lanes.h"
#include "analyses/ring.h"
#include "util/clock.h"
#include "util/grow.h"

/* The built-in analyses as units. On the workers the patterns and the
 * locality metrics are two each: the patterns' per-access stage (U_PAT1) and
 * per-request one (U_PAT); the locality's address counts (U_LOC1) and time
 * steps (U_LOC); the second takes a batch after the first (ring.h's follow)
 * and reads what it handed over (memheat/stage.h). With enough threads the
 * second stages only group, and a third each (U_PAT3, U_LOC3) evaluates the
 * groups handed over, after the second; the patterns' execution counts
 * (U_PAT1B) and the locality's second half of the address counts (U_LOC1B),
 * else done by the first stage, then come between the first and the second,
 * and U_LOC1 follows U_PAT1 to take the canonical keys it made. Elsewhere
 * U_PAT and U_LOC feed every stage. With a thread more, the heat maps'
 * part 1 (mh_heat_part) is filled by a unit of its own (U_HEAT2), the
 * other sectors by U_HEAT, which emits both. */
enum { U_HEAT, U_HEAT2, U_PAT1, U_PAT1B, U_PAT, U_PAT3, U_LOC1, U_LOC1B, U_LOC, U_LOC3, U_COUNT };

#define BATCH_ACCESSES (1u << 17) /* accesses per batch: 4 MiB, a few ms of work */
#define END_SPLIT_MIN (1u << 15)  /* accesses since the last kernel end that make a split end worth a hand-off */
#define PROGRESS_EVERY 0.5        /* seconds between progress lines */
#define BIG_EPISODE (1u << 22)    /* accesses of an episode after which the next one is split by analysis */
#define RING_SLOTS 8              /* batches: one being filled, the others in the workers */
#define MAIN (-1)                 /* the executor of launches analysed here (by analysis), not in a lane */

/* ACCESSES records waiting for, or in, the workers: each read in place in
 * its trace chunk (held, mh_trace_hold) or, where it is not in one (a
 * filtered copy, a decoded record), copied into v. */
typedef struct batch {
    mh_access *v;
    size_t ncopy, cap;     /* accesses copied into v */
    size_t n;              /* accesses in the batch, in place or copied */
    size_t *rec_n;         /* accesses per original record, in order */
    const mh_access **rec_v; /* per record: where it lies, or NULL: the next ones copied into v */
    size_t nrec, caprec;
    mh_trace_holds holds;  /* the chunks the records lie in */
    const mh_record *rec; /* set: the job is this one record instead (a split kernel end) */
    mh_stage pst, lst;    /* hand-overs: U_PAT1 to U_PAT (to U_PAT3), U_LOC1 to U_LOC (to U_LOC3) */
} batch;

struct mh_pass {
    mh_pass_opts o;
    mh_trace_reader *r;
    mh_model own_model;
    mh_model *m;
    int model_ok;
    mh_heat_run *hr;
    mh_heat_run *hr2; /* part 1 of the heat maps on U_HEAT2, or NULL: hr fills both */
    mh_pat_run *pat;
    mh_loc_run *lr;
    mh_pass_consumer *c;
    size_t nc;
    mh_pass_stats st;
    int ran;
    /* workers (ring.h): ring unit i is unit_at[i]; batch b[s] is ring slot s */
    mh_ring *ring;
    unsigned nworkers, nunits;
    int pool_ok;
    int three; /* third stages (U_PAT3, U_LOC3) */
    int unit_at[U_COUNT];
    unsigned loc_pos;
    batch b[RING_SLOTS];
    /* bad-record check of accesses: the verdict for the last launch id asked,
     * valid until the model changes (a non-access record) */
    int chk_valid, chk_why;
    uint32_t chk_id;
    mh_access *keep; /* the good accesses of a record that had bad ones */
    size_t capkeep;
    /* a kernel end split over threads (end_split): locality results held
     * back until heat maps and patterns are done on this thread */
    int loc_hold;
    mh_loc_result *held;
    size_t nheld, capheld;
    uint64_t acc_at_end; /* st.accesses at the last kernel end */
    /* launch lanes (lanes.h): launches that overlap in time form an
     * episode, analysed by one executor: a lane, or MAIN */
    mh_lanes *lanes;
    unsigned nlanes, rr;
    int32_t *own;      /* per model launch index: its executor */
    uint64_t *ep_of;   /* per model launch index: its episode */
    size_t capl;
    unsigned inflight; /* launches announced and not ended */
    int ep_exec, any_ep;
    uint64_t ep_no, ep_acc;
    uint32_t own_id;   /* owner_of's cache */
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

static int unit_feed(mh_pass *p, int u, const mh_record *rec, mh_err *err) {
    switch (u) {
    case U_HEAT: return p->hr ? mh_heat_run_feed(p->hr, rec, err) : MH_OK;
    case U_HEAT2: return p->hr2 ? mh_heat_run_feed(p->hr2, rec, err) : MH_OK;
    case U_PAT: return p->pat ? mh_pat_run_feed(p->pat, rec, err) : MH_OK;
    case U_PAT1: case U_PAT1B: case U_PAT3: case U_LOC1: case U_LOC1B: case U_LOC3:
        return MH_OK; /* U_PAT and U_LOC feed every stage */
    case U_LOC: return p->lr ? mh_loc_run_feed(p->lr, rec, err) : MH_OK;
    }
    return MH_OK;
}

/* A batch through unit u on its worker (staged analyses write and read the
 * batch's hand-overs: U_PAT after U_PAT1, U_PAT3 after U_PAT; the same for
 * U_LOC*, ring.h). */
static int unit_feed_batch(mh_pass *p, int u, batch *b, mh_err *err) {
    size_t off = 0, at = 0;
    for (size_t i = 0; i < b->nrec; i++) {
        mh_record rec;
        memset(&rec, 0, sizeof rec);
        rec.type = MH_REC_ACCESSES;
        rec.u.accesses.v = b->rec_v[i] ? b->rec_v[i] : b->v + off;
        rec.u.accesses.n = b->rec_n[i];
        if (!b->rec_v[i]) off += b->rec_n[i];
        int rc;
        if (u == U_PAT1) rc = mh_pat_run_stage1(p->pat, rec.u.accesses.v, rec.u.accesses.n, &b->pst, at, i, err);
        else if (u == U_PAT1B) rc = mh_pat_run_stage1b(p->pat, rec.u.accesses.v, rec.u.accesses.n, &b->pst, at, i, err);
        else if (u == U_PAT) rc = mh_pat_run_stage2(p->pat, rec.u.accesses.v, rec.u.accesses.n, &b->pst, at, i, err);
        else if (u == U_LOC1)
            rc = mh_loc_run_stage1(p->lr, rec.u.accesses.v, rec.u.accesses.n, &b->lst, at, i,
                                   p->three && p->pat ? b->pst.key : NULL, err);
        else if (u == U_LOC1B) rc = mh_loc_run_stage1b(p->lr, rec.u.accesses.v, rec.u.accesses.n, &b->lst, at, i, err);
        else if (u == U_LOC) rc = mh_loc_run_stage2(p->lr, rec.u.accesses.v, rec.u.accesses.n, &b->lst, at, i, err);
        else if (u == U_PAT3) rc = mh_pat_run_stage3(p->pat, &b->pst, i, err);
        else if (u == U_LOC3) rc = mh_loc_run_stage3(p->lr, &b->lst, i, err);
        else rc = unit_feed(p, u, &rec, err);
        if (rc) return rc;
        at += b->rec_n[i];
    }
    assert(off == b->ncopy && at == b->n);
    return MH_OK;
}

/* ---- the workers: a ring of batches (ring.h) ---- */

/* A ring job: a batch in slot p->b[i], or (rec set) one record. */
static int ring_feed(void *ctx, unsigned pos, const void *job, mh_err *err) {
    mh_pass *p = ctx;
    batch *b = (batch *)job; /* one of p->b: the pattern stages write its hand-over */
    int u = p->unit_at[pos];
    return b->rec ? unit_feed(p, u, b->rec, err) : unit_feed_batch(p, u, b, err);
}

/* Ring unit i is the pass's i-th unit in enum order (ring.h pins units to
 * workers, unit i on worker i * workers / units: with fewer workers than
 * units, neighbours share one). */
static int pool_start(mh_pass *p, unsigned nworkers, int three, int heat2, mh_err *err) {
    if (heat2 && mh_heat_run_split(p->hr, &p->hr2, err) != MH_OK) return err ? err->code : MH_ERR_NOMEM;
    const void *units[U_COUNT] = {p->hr, p->hr2, p->pat, three ? p->pat : NULL, p->pat, three ? p->pat : NULL,
                                  p->lr, three ? p->lr : NULL, p->lr, three ? p->lr : NULL};
    unsigned n = 0, at[U_COUNT];
    for (int u = 0; u < U_COUNT; u++)
        if (units[u]) {
            if (u == U_LOC) p->loc_pos = n;
            at[u] = n;
            p->unit_at[n++] = u;
        }
    int rc = mh_ring_new(&p->ring, n, nworkers, RING_SLOTS, ring_feed, p, err);
    if (rc == MH_OK && p->pat) mh_ring_follow(p->ring, at[U_PAT], at[U_PAT1]);
    if (rc == MH_OK && p->lr) mh_ring_follow(p->ring, at[U_LOC], at[U_LOC1]);
    if (rc == MH_OK && three && p->pat) {
        mh_ring_follow(p->ring, at[U_PAT1B], at[U_PAT1]);
        mh_ring_follow(p->ring, at[U_PAT], at[U_PAT1B]);
        mh_ring_follow(p->ring, at[U_PAT3], at[U_PAT]);
        mh_pat_run_three(p->pat);
    }
    if (rc == MH_OK && three && p->lr) {
        if (p->pat) mh_ring_follow(p->ring, at[U_LOC1], at[U_PAT1]); /* U_PAT1's keys */
        mh_ring_follow(p->ring, at[U_LOC1B], at[U_LOC1]);
        mh_ring_follow(p->ring, at[U_LOC], at[U_LOC1B]);
        mh_ring_follow(p->ring, at[U_LOC3], at[U_LOC]);
        mh_loc_run_three(p->lr);
    }
    if (rc == MH_OK) {
        p->pool_ok = 1;
        p->three = three;
        p->nworkers = nworkers;
        p->nunits = n;
    }
    return rc;
}

static void pool_stop(mh_pass *p) {
    if (p->ring) { /* drained: every job done */
        p->st.times.workers_cpu = mh_ring_cpu_s(p->ring);
        _Static_assert(U_COUNT == sizeof p->st.times.unit_cpu / sizeof p->st.times.unit_cpu[0], "one per unit");
        for (unsigned i = 0; i < p->nunits; i++) p->st.times.unit_cpu[p->unit_at[i]] = mh_ring_unit_cpu_s(p->ring, i);
        double w[MH_RING_MAX_UNITS];
        mh_ring_waits(p->ring, &p->st.times.ring_room, w);
        for (unsigned i = 0; i < p->nunits; i++) p->st.times.unit_wait[p->unit_at[i]] = w[i];
    }
    mh_ring_free(p->ring);
    p->ring = NULL;
    p->pool_ok = 0;
}

static batch *cur_batch(mh_pass *p) { return &p->b[mh_ring_slot(p->ring)]; }

/* Empties b (no worker reads it), giving its chunks back. */
static void batch_clear(batch *b) {
    mh_trace_holds_clear(&b->holds);
    b->n = b->ncopy = b->nrec = 0;
    b->rec = NULL;
}

/* Hands the current slot's job to the units in mask; the next slot (every
 * worker is done with it) is emptied for filling. 1: a unit has failed. */
static int pool_submit(mh_pass *p, unsigned mask) {
    int failed = mh_ring_submit(p->ring, cur_batch(p), mask);
    batch_clear(cur_batch(p));
    return failed;
}

/* Hands the batch being filled to every unit, if it holds any accesses. */
static int pool_flush(mh_pass *p, mh_err *err) {
    if (cur_batch(p)->n == 0) return MH_OK;
    if (!pool_submit(p, ~0u)) return MH_OK;
    int rc = mh_ring_drain(p->ring, err); /* a unit failed: its error */
    return rc ? rc : mh_err_set(err, MH_ERR_INTERNAL, "analysis workers stopped");
}

/* Every access read so far through every unit: before the model changes.
 * The first error by batch, then in unit order, whatever the timing. */
static int pool_barrier(mh_pass *p, mh_err *err) {
    int rc = pool_flush(p, err);
    return rc ? rc : mh_ring_drain(p->ring, err);
}

/* Adds a record's accesses to b: in place when hold is the chunk they lie
 * in (borrowed from the reader: b takes a reference), else copied. */
static int batch_add(batch *b, const mh_access *v, size_t n, mh_trace_hold *hold, mh_err *err) {
    if (!hold && b->ncopy + n > b->cap) {
        size_t cap = b->cap ? b->cap : BATCH_ACCESSES;
        while (cap < b->ncopy + n) cap *= 2;
        mh_access *nv = realloc(b->v, cap * sizeof *nv);
        if (!nv) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
        b->v = nv;
        b->cap = cap;
    }
    if (b->nrec == b->caprec) {
        size_t cap = b->caprec ? b->caprec * 2 : 64;
        size_t *nr = realloc(b->rec_n, cap * sizeof *nr);
        if (!nr) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
        b->rec_n = nr;
        const mh_access **rv = realloc(b->rec_v, cap * sizeof *rv);
        if (!rv) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
        b->rec_v = rv;
        b->caprec = cap;
    }
    if (hold && mh_trace_holds_add(&b->holds, hold) != MH_OK) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    if (hold) {
        b->rec_v[b->nrec] = v;
    } else {
        memcpy(b->v + b->ncopy, v, n * sizeof *v);
        b->ncopy += n;
        b->rec_v[b->nrec] = NULL;
    }
    b->n += n;
    b->rec_n[b->nrec++] = n;
    return MH_OK;
}

/* ---- open / close ---- */

int mh_pass_open(mh_pass **out, const char *path, mh_model *model, const mh_pass_opts *o, mh_err *err) {
    *out = NULL;
    mh_pass *p = calloc(1, sizeof *p);
    if (!p) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    if (o) p->o = *o;
    if (p->o.analyses & MH_PASS_PATTERNS) {
        p->o.analyses |= MH_PASS_HEAT;
        if (p->o.heat_spaces) p->o.heat_spaces |= 1u << MH_SPACE_GLOBAL; /* patterns read global maps */
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
    pool_stop(p);
    mh_lanes_free(p->lanes);
    free(p->own);
    free(p->ep_of);
    mh_heat_run_free(p->hr);
    mh_heat_run_free(p->hr2);
    mh_loc_run_free(p->lr);
    mh_pat_run_free(p->pat);
    if (p->model_ok && p->m == &p->own_model) mh_model_free(&p->own_model);
    if (p->r) mh_trace_close_reader(p->r);
    for (int i = 0; i < RING_SLOTS; i++) {
        batch_clear(&p->b[i]); /* the workers are stopped */
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

static int access_bad(mh_pass *p, uint32_t launch) {
    if (p->chk_valid && launch == p->chk_id) return p->chk_why;
    p->chk_id = launch;
    p->chk_why = mh_model_check_access(p->m, launch);
    p->chk_valid = 1;
    return p->chk_why;
}

/* Drops the accesses naming an unknown or ended launch from rec (pointing
 * it at a filtered copy when there are any). */
static int filter_accesses(mh_pass *p, mh_record *rec, mh_err *err) {
    const mh_access *v = rec->u.accesses.v;
    size_t n = rec->u.accesses.n, i = 0;
    if (rec->u.accesses.one_launch && !access_bad(p, v[0].launch)) return MH_OK; /* no access to look at */
    while (i < n && !access_bad(p, v[i].launch)) i++;
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
        if (why) note_skip(p, why, v[i].launch, 1);
        else p->keep[k++] = v[i];
    }
    rec->u.accesses.v = p->keep;
    rec->u.accesses.n = k;
    return MH_OK;
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
    if (!st->complete && !st->partial)
        ADD("%s%s ends without its end record (the run stopped early): results cover what it holds",
            len ? "; " : "", st->skipped_total ? "it" : path);
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
    for (int u = 0; u < U_COUNT && rc == MH_OK; u++) rc = unit_feed(p, u, rec, err);
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
    cur_batch(p)->rec = rec; /* the slot's batch is empty after the barrier */
    pool_submit(p, 1u << p->loc_pos); /* no unit has failed: the barrier said so */
    rc = unit_feed(p, U_HEAT, rec, err);
    if (rc == MH_OK) rc = unit_feed(p, U_PAT, rec, err);
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

static size_t launch_index(const mh_pass *p, uint32_t id) {
    const mh_model_launch *ml = mh_model_launch_get(p->m, id);
    assert(ml);
    return (size_t)(ml - p->m->launches);
}

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
    batch *b = cur_batch(p);
    int rc = batch_add(b, v, n, hold, err);
    if (rc == MH_OK && b->n >= BATCH_ACCESSES) rc = pool_flush(p, err);
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
    int heat2 = three && p->hr && threads > units; /* and a thread for the heat maps' part 1 */
    if (heat2) units++;
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
    if (rc == MH_OK && threads > 1 && units > 0) rc = pool_start(p, threads < units ? threads : units, three, heat2, err);
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
            if (rc == MH_OK) rc = pool_barrier(p, err);
            if (rc == MH_OK && rec.type == MH_REC_KERNEL_END && owner == MAIN && p->lr &&
                p->st.accesses - p->acc_at_end >= END_SPLIT_MIN)
                rc = end_split(p, &rec, err);
            else if (rc == MH_OK)
                rc = feed_here(p, &rec, err);
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
        int wrc = rc == MH_OK ? pool_barrier(p, &werr) : mh_ring_drain(p->ring, &werr);
        if (wrc != MH_OK) {
            rc = wrc;
            if (err) *err = werr;
        }
        pool_stop(p);
    }
    /* the lanes' launches that ended come first, as in the serial pass; the
     * launches that never ended are all of one executor (the last episode's) */
    if (rc == MH_OK && p->lanes) rc = mh_lanes_deliver(p->lanes, 1, err);
    if (rc == MH_OK) rc = finish_units(p, err);
    if (rc == MH_OK && p->lanes) rc = mh_lanes_finish(p->lanes, err);
    if (p->lanes) mh_lanes_stop(p->lanes); /* after an error, threads may still be in batches */
    if (rc == MH_OK && p->lanes && p->pat) rc = mh_lanes_merge_patterns(p->lanes, p->pat, episode_rank, p, err);
    p->st.complete = mh_trace_complete(p->r);
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
