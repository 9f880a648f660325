/* split_exec.c -- the split scheduler (mh_split_exec): one host thread per
 * device deals splits from a shared iteration counter onto nslots CUDA
 * streams, each slot owning device buffers (and pinned staging for pageable
 * host buffers), so copy-in, kernel and copy-out of successive splits
 * overlap. The first split on a device runs with its stages serialised: its
 * stage times give the loop's class and the speedup model's rates. When the
 * split size is tuned, a few splits of each candidate size follow, pipelined,
 * and the size with the best steady-state rate processes the rest.
 *
 * Streams, events and memory come from a context (mh_split_ctx): per device
 * one device arena and one pinned arena that the slots' buffers are carved
 * from, kept between runs when the caller holds the context.
 *
 * It drives the device only through mh_split_backend, so the CPU tests run
 * this exact code over a fake device. */
#include <assert.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "split_internal.h"


static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- state -------------------------------------------------------------- */

typedef struct shared {
    pthread_mutex_t mu;
    size_t next; /* first iteration not yet dealt */
    size_t n;
    int failed;
    int code;
    mh_err err;
} shared;

typedef struct slot {
    void *stream; /* the context's; not owned */
    void *ev[4]; /* before copy-in, after copy-in, after kernel, after copy-out */
    void **dbuf;  /* per splittable buffer, carved from the device arena */
    void **stage; /* per splittable buffer, carved from the pinned arena;
                     NULL when the host buffer is pinned */
    size_t b, e;
    int busy;
    int tag; /* trial candidate index, -1 otherwise */
    double t_pack;
} slot;

typedef struct worker {
    const mh_split_backend *be;
    const mh_split_loop *loop;
    shared *sh;
    int dev;
    int mode, nslots, tune, host_threads, ndev;
    size_t fixed, alloc_iters, lo, hi, wave, budget;
    mh_split_devres *res; /* the context's resources for this device */
    const int *staged;
    slot *slots;
    void **dfused;
    void *ev_ref;
    int cursor;
    /* outcome */
    int code;
    mh_err err;
    double t_setup, t_fused, t_in, t_c, t_out, t_host, t_tune, tune_over;
    double r_in, r_c, r_out; /* seconds per iteration, probe split */
    double last_stage[3];    /* in, compute, out of the last completed split */
    double in_first, in_last, out_last; /* device timeline (s after ev_ref): first
                                copy-in queued, last copy-in done, last copy-out done */
    size_t iters, nsplits, split_final, dev_bytes, staging_bytes;
    int kind, ncand;
    size_t cand[MH_SPLIT_MAX_CANDIDATES];
    double cand_rate[MH_SPLIT_MAX_CANDIDATES];
    double first_done[MH_SPLIT_MAX_CANDIDATES], last_done[MH_SPLIT_MAX_CANDIDATES];
    size_t first_iters[MH_SPLIT_MAX_CANDIDATES], cand_iters[MH_SPLIT_MAX_CANDIDATES];
    int done_count[MH_SPLIT_MAX_CANDIDATES];
} worker;

static int worker_fail(worker *w, int code) {
    w->code = code;
    pthread_mutex_lock(&w->sh->mu);
    if (!w->sh->failed) {
        w->sh->failed = 1;
        w->sh->code = code;
        w->sh->err = w->err;
        w->sh->err.code = code;
    }
    pthread_mutex_unlock(&w->sh->mu);
    return code;
}

/* Deal up to `want` iterations; 0 when none left or the run failed. With
 * taper set (the steady phase of a tuned run), the last splits shrink so
 * the pipeline's drain (last split's compute + copy-out) stays short. */
static int take_ex(worker *w, size_t want, int taper, size_t *b, size_t *e) {
    int ok = 0;
    pthread_mutex_lock(&w->sh->mu);
    if (taper) want = mh_split_taper(w->sh->n - w->sh->next, want, w->lo, w->nslots, w->ndev);
    if (!w->sh->failed && w->sh->next < w->sh->n) {
        *b = w->sh->next;
        *e = (w->sh->n - *b) > want ? *b + want : w->sh->n;
        w->sh->next = *e;
        ok = 1;
    }
    pthread_mutex_unlock(&w->sh->mu);
    return ok;
}

static int take(worker *w, size_t want, size_t *b, size_t *e) { return take_ex(w, want, 0, b, e); }

static int has_in(int dir) { return dir & MH_SPLIT_IN; }
static int has_out(int dir) { return dir & MH_SPLIT_OUT; }

/* Wait for a slot's split, copy its staged outputs home, account its times. */
static int complete(worker *w, slot *sl) {
    const mh_split_backend *be = w->be;
    const mh_split_loop *L = w->loop;
    int rc;
    assert(sl->busy);
    sl->busy = 0;
    if ((rc = be->event_sync(be->ctx, sl->ev[3], &w->err))) return rc;
    double t0 = now_s();
    for (int i = 0; i < L->n_split; i++) {
        const mh_split_buf *B = &L->split[i];
        if (has_out(B->dir) && sl->stage[i])
            mh_split_pool_copy(w->res->pool, (char *)B->host + sl->b * B->bytes_per_iter, sl->stage[i],
                               (sl->e - sl->b) * B->bytes_per_iter);
    }
    double t_unpack = now_s() - t0;
    double e_in, e_c, e_out, done;
    if ((rc = be->event_elapsed(be->ctx, sl->ev[0], sl->ev[1], &e_in, &w->err))) return rc;
    if ((rc = be->event_elapsed(be->ctx, sl->ev[1], sl->ev[2], &e_c, &w->err))) return rc;
    if ((rc = be->event_elapsed(be->ctx, sl->ev[2], sl->ev[3], &e_out, &w->err))) return rc;
    if ((rc = be->event_elapsed(be->ctx, w->ev_ref, sl->ev[3], &done, &w->err))) return rc;
    double in0 = 0, in1 = 0;
    if ((rc = be->event_elapsed(be->ctx, w->ev_ref, sl->ev[0], &in0, &w->err))) return rc;
    if ((rc = be->event_elapsed(be->ctx, w->ev_ref, sl->ev[1], &in1, &w->err))) return rc;
    if (w->nsplits == 0 || in0 < w->in_first) w->in_first = in0;
    if (in1 > w->in_last) w->in_last = in1;
    if (done > w->out_last) w->out_last = done;
    size_t it = sl->e - sl->b;
    if (w->mode == MH_SPLIT_SERIAL) {
        w->t_in += e_in + sl->t_pack;
        w->t_c += e_c;
        w->t_out += e_out + t_unpack;
    }
    w->t_host += sl->t_pack + t_unpack;
    if (sl->tag >= 0) {
        int j = sl->tag;
        if (w->done_count[j] == 0 || done < w->first_done[j]) {
            w->first_done[j] = done;
            w->first_iters[j] = it;
        }
        if (w->done_count[j] == 0 || done > w->last_done[j]) w->last_done[j] = done;
        w->cand_iters[j] += it;
        w->done_count[j]++;
    }
    w->last_stage[0] = e_in + sl->t_pack;
    w->last_stage[1] = e_c;
    w->last_stage[2] = e_out + t_unpack;
    w->iters += it;
    w->nsplits++;
    return MH_OK;
}

/* Queue one split [b,e) on the next slot (waiting for that slot's previous
 * split first). */
static int issue(worker *w, size_t b, size_t e, int tag) {
    const mh_split_backend *be = w->be;
    const mh_split_loop *L = w->loop;
    slot *sl = &w->slots[w->cursor];
    int rc;
    w->cursor = (w->cursor + 1) % w->nslots;
    if (sl->busy && (rc = complete(w, sl))) return rc;
    assert(e > b && e - b <= w->alloc_iters);
    sl->b = b;
    sl->e = e;
    sl->tag = tag;
    double t0 = now_s();
    for (int i = 0; i < L->n_split; i++) {
        const mh_split_buf *B = &L->split[i];
        if (has_in(B->dir) && sl->stage[i])
            mh_split_pool_copy(w->res->pool, sl->stage[i], (const char *)B->host + b * B->bytes_per_iter,
                               (e - b) * B->bytes_per_iter);
    }
    sl->t_pack = now_s() - t0;
    if ((rc = be->event_record(be->ctx, sl->ev[0], sl->stream, &w->err))) return rc;
    for (int i = 0; i < L->n_split; i++) {
        const mh_split_buf *B = &L->split[i];
        if (!has_in(B->dir)) continue;
        const void *src = sl->stage[i] ? sl->stage[i] : (const char *)B->host + b * B->bytes_per_iter;
        if ((rc = be->copy_h2d(be->ctx, sl->dbuf[i], src, (e - b) * B->bytes_per_iter, sl->stream, &w->err)))
            return rc;
    }
    if ((rc = be->event_record(be->ctx, sl->ev[1], sl->stream, &w->err))) return rc;
    mh_split_launch l = {w->dev, sl->stream, b, e, sl->dbuf, w->dfused};
    mh_err_clear(&w->err);
    rc = L->kernel(&l, L->user, &w->err);
    if (rc) {
        if (w->err.msg[0] == '\0') mh_err_set(&w->err, rc, "returned %d", rc);
        if (rc < 0 || rc > MH_ERR_INTERNAL) rc = MH_ERR_INTERNAL;
        return mh_err_wrap_rc(&w->err, rc, "split: kernel callback for iterations [%zu,%zu) on device %d", b, e,
                              w->dev);
    }
    if ((rc = be->after_launch(be->ctx, &w->err)))
        return mh_err_wrap_rc(&w->err, rc, "split: kernel launch for iterations [%zu,%zu) on device %d", b, e,
                              w->dev);
    if ((rc = be->event_record(be->ctx, sl->ev[2], sl->stream, &w->err))) return rc;
    for (int i = 0; i < L->n_split; i++) {
        const mh_split_buf *B = &L->split[i];
        if (!has_out(B->dir)) continue;
        void *dst = sl->stage[i] ? sl->stage[i] : (char *)B->host + b * B->bytes_per_iter;
        if ((rc = be->copy_d2h(be->ctx, dst, sl->dbuf[i], (e - b) * B->bytes_per_iter, sl->stream, &w->err)))
            return rc;
    }
    if ((rc = be->event_record(be->ctx, sl->ev[3], sl->stream, &w->err))) return rc;
    sl->busy = 1;
    if (w->mode == MH_SPLIT_SERIAL) return complete(w, sl);
    return MH_OK;
}

static int drain(worker *w) {
    for (int k = 0; k < w->nslots; k++) {
        slot *sl = &w->slots[(w->cursor + k) % w->nslots];
        if (sl->busy) {
            int rc = complete(w, sl);
            if (rc) return rc;
        }
    }
    return MH_OK;
}

static size_t align_up(size_t v) { return (v + MH_SPLIT_ALIGN - 1) & ~(MH_SPLIT_ALIGN - 1); }

/* Make the context's arena at *p at least `need` bytes (and not over `cap`,
 * so a smaller budget than an earlier run's is honoured). */
static int arena_fit(worker *w, void **p, size_t *have, size_t need, size_t cap, int pinned) {
    const mh_split_backend *be = w->be;
    if (*p && *have >= need && *have <= cap) return MH_OK;
    if (*p) {
        if (pinned) be->host_free(be->ctx, *p);
        else be->dev_free(be->ctx, *p);
        *p = NULL;
        *have = 0;
    }
    if (need == 0) return MH_OK;
    int rc = pinned ? be->host_alloc(be->ctx, p, need, &w->err) : be->dev_alloc(be->ctx, p, need, &w->err);
    if (rc) {
        *p = NULL;
        return rc;
    }
    *have = need;
    return MH_OK;
}

static int setup(worker *w) {
    const mh_split_backend *be = w->be;
    const mh_split_loop *L = w->loop;
    mh_split_devres *res = w->res;
    int rc;
    w->slots = calloc((size_t)w->nslots, sizeof *w->slots);
    if (!w->slots) return mh_err_set(&w->err, MH_ERR_NOMEM, "split: out of host memory");
    if (L->n_fused > 0 && !(w->dfused = calloc((size_t)L->n_fused, sizeof *w->dfused)))
        return mh_err_set(&w->err, MH_ERR_NOMEM, "split: out of host memory");
    /* streams and events the context lacks (a failed earlier creation left
     * NULL entries only) */
    for (int k = res->nslots; k < w->nslots; k++) {
        if (!res->stream[k] && (rc = be->stream_create(be->ctx, &res->stream[k], &w->err))) return rc;
        for (int j = 0; j < 4; j++)
            if (!res->ev[k][j] && (rc = be->event_create(be->ctx, &res->ev[k][j], &w->err))) return rc;
        res->nslots = k + 1;
    }
    if (!res->ev_ref && (rc = be->event_create(be->ctx, &res->ev_ref, &w->err))) return rc;
    w->ev_ref = res->ev_ref;
    size_t dneed = 0, hneed = 0;
    for (int i = 0; i < L->n_split; i++) {
        size_t bytes = align_up(w->alloc_iters * L->split[i].bytes_per_iter) * (size_t)w->nslots;
        dneed += bytes;
        if (w->staged[i]) hneed += bytes;
    }
    for (int i = 0; i < L->n_fused; i++) dneed += align_up(L->fused[i].bytes);
    if ((rc = arena_fit(w, &res->darena, &res->dbytes, dneed, w->budget, 0))) return rc;
    if ((rc = arena_fit(w, &res->harena, &res->hbytes, hneed, SIZE_MAX, 1))) return rc;
    w->dev_bytes = dneed;
    w->staging_bytes = hneed;
    /* staging copy threads: the caller copies too, so host_threads - 1 more */
    if (hneed && w->host_threads > 1 && mh_split_pool_threads(res->pool) != w->host_threads - 1) {
        mh_split_pool_free(res->pool);
        res->pool = mh_split_pool_new(w->host_threads - 1); /* NULL: plain memcpy */
    }
    char *d = res->darena, *h = res->harena;
    for (int k = 0; k < w->nslots; k++) {
        slot *sl = &w->slots[k];
        size_t nb = L->n_split > 0 ? (size_t)L->n_split : 1;
        if (!(sl->dbuf = calloc(nb, sizeof *sl->dbuf)) || !(sl->stage = calloc(nb, sizeof *sl->stage)))
            return mh_err_set(&w->err, MH_ERR_NOMEM, "split: out of host memory");
        sl->stream = res->stream[k];
        for (int j = 0; j < 4; j++) sl->ev[j] = res->ev[k][j];
        for (int i = 0; i < L->n_split; i++) {
            size_t bytes = align_up(w->alloc_iters * L->split[i].bytes_per_iter);
            sl->dbuf[i] = d;
            d += bytes;
            if (w->staged[i]) {
                sl->stage[i] = h;
                h += bytes;
            }
        }
    }
    for (int i = 0; i < L->n_fused; i++) {
        w->dfused[i] = d;
        d += align_up(L->fused[i].bytes);
    }
    assert(d == (char *)res->darena + dneed || dneed == 0);
    return MH_OK;
}

/* The run's host-side state; the context keeps streams, events and arenas.
 * Nothing may still use the buffers when the context is reused: sync. */
static void teardown(worker *w) {
    const mh_split_backend *be = w->be;
    mh_err ignore;
    if (w->slots) {
        for (int k = 0; k < w->nslots; k++) {
            slot *sl = &w->slots[k];
            if (sl->stream) be->stream_sync(be->ctx, sl->stream, &ignore);
            free(sl->dbuf);
            free(sl->stage);
        }
        free(w->slots);
        w->slots = NULL;
    }
    free(w->dfused);
    w->dfused = NULL;
}

/* Release one device's resources (the device must be current). */
static void devres_release(const mh_split_backend *be, mh_split_devres *r) {
    mh_err ignore;
    for (int k = 0; k < MH_SPLIT_MAX_SLOTS; k++)
        if (r->stream[k]) be->stream_sync(be->ctx, r->stream[k], &ignore);
    if (r->darena) be->dev_free(be->ctx, r->darena);
    if (r->harena) be->host_free(be->ctx, r->harena);
    for (int k = 0; k < MH_SPLIT_MAX_SLOTS; k++) {
        for (int j = 0; j < 4; j++)
            if (r->ev[k][j]) be->event_destroy(be->ctx, r->ev[k][j]);
        if (r->stream[k]) be->stream_destroy(be->ctx, r->stream[k]);
    }
    if (r->ev_ref) be->event_destroy(be->ctx, r->ev_ref);
    mh_split_pool_free(r->pool);
    memset(r, 0, sizeof *r);
}

mh_split_ctx *mh_split_ctx_new(const mh_split_backend *be) {
    mh_split_ctx *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->be = be;
    pthread_mutex_init(&c->mu, NULL);
    return c;
}

void mh_split_ctx_close(mh_split_ctx *c) {
    if (!c) return;
    assert(!c->busy);
    mh_err ignore;
    for (int d = 0; d < c->ndev; d++) {
        mh_split_devres *r = &c->res[d];
        if (!r->nslots && !r->darena && !r->harena && !r->ev_ref && !r->stream[0] && !r->pool) continue;
        c->be->set_device(c->be->ctx, d, &ignore);
        devres_release(c->be, r);
    }
    free(c->res);
    pthread_mutex_destroy(&c->mu);
    free(c);
}

static size_t clampz(size_t v, size_t lo, size_t hi) { return v < lo ? lo : v > hi ? hi : v; }

static int slots_hold_trials(const worker *w) {
    for (int k = 0; k < w->nslots; k++)
        if (w->slots[k].busy && w->slots[k].tag >= 0) return 1;
    return 0;
}

static void trial_rates(worker *w) {
    for (int j = 0; j < w->ncand; j++) {
        double span = w->last_done[j] - w->first_done[j];
        w->cand_rate[j] = (w->done_count[j] >= 2 && span > 0)
                              ? (double)(w->cand_iters[j] - w->first_iters[j]) / span : 0;
    }
}

/* Try each candidate on nslots+2 real splits, pipelined; keep the one with
 * the least predicted time (steady rate plus fill/drain) for the rest. The
 * pipeline is not drained after the trials: while the last trial splits are
 * still in flight, further splits go out at the best size measured so far
 * (the largest candidate until one is measured), so the copy engines never
 * wait for the decision. */
static int tune(worker *w, size_t probe, double t_start, size_t *chosen) {
    int rc, per = w->nslots + 2;
    w->kind = mh_split_classify(w->r_in, w->r_out, w->r_c);
    w->ncand = mh_split_candidates(w->kind, w->lo, w->hi, w->wave, w->cand, MH_SPLIT_MAX_CANDIDATES);
    w->ncand = mh_split_fit_trials(w->cand, w->ncand, w->sh->n, w->ndev, per);
    size_t b, e;
    /* largest first: the splits still in flight at the decision are the smallest */
    for (int j = w->ncand - 1; j >= 0; j--)
        for (int r = 0; r < per && take(w, w->cand[j], &b, &e); r++)
            if ((rc = issue(w, b, e, j))) return rc;
    while (slots_hold_trials(w)) {
        trial_rates(w);
        int lead = mh_split_pick_best(w->cand_rate, w->ncand);
        size_t want = lead >= 0 ? w->cand[lead] : (w->ncand ? w->cand[w->ncand - 1] : probe);
        if (!take_ex(w, want, 1, &b, &e)) break;
        if ((rc = issue(w, b, e, -1))) return rc; /* completes that slot's earlier split */
    }
    if (slots_hold_trials(w) && (rc = drain(w))) return rc; /* loop ended inside the trials */
    trial_rates(w);
    double mx = w->r_in > w->r_out ? w->r_in : w->r_out;
    if (w->r_c > mx) mx = w->r_c;
    size_t left = w->sh->n - w->sh->next; /* racy read: an estimate is enough */
    int best = mh_split_pick(w->cand, w->cand_rate, w->ncand, left, w->r_in + w->r_c + w->r_out - mx);
    double best_rate = best >= 0 ? w->cand_rate[best] : 0;
    *chosen = best >= 0 ? w->cand[best] : probe;
    w->t_tune = now_s() - t_start;
    w->tune_over = mh_split_tune_overhead(w->t_tune, w->iters, best_rate);
    return MH_OK;
}

static int run_device(worker *w) {
    const mh_split_backend *be = w->be;
    const mh_split_loop *L = w->loop;
    int rc;
    double t0 = now_s();
    if ((rc = be->set_device(be->ctx, w->dev, &w->err))) return rc;
    if ((rc = setup(w))) return rc;
    w->t_setup = now_s() - t0;
    t0 = now_s();
    void *s0 = w->slots[0].stream;
    for (int i = 0; i < L->n_fused; i++)
        if ((rc = be->copy_h2d(be->ctx, w->dfused[i], L->fused[i].host, L->fused[i].bytes, s0, &w->err)))
            return rc;
    if ((rc = be->event_record(be->ctx, w->ev_ref, s0, &w->err))) return rc;
    if ((rc = be->event_sync(be->ctx, w->ev_ref, &w->err))) return rc;
    w->t_fused = now_s() - t0;

    size_t b, e, size;
    if (w->mode == MH_SPLIT_SERIAL) {
        size = w->fixed ? w->fixed : w->hi;
        w->split_final = size;
        while (take(w, size, &b, &e))
            if ((rc = issue(w, b, e, -1))) return rc;
        return MH_OK;
    }
    /* probe: the first split, stages serialised */
    size_t probe = w->fixed ? w->fixed : clampz(w->wave, w->lo, w->hi);
    double t_probe = now_s();
    if (!take(w, probe, &b, &e)) return MH_OK;
    w->mode = MH_SPLIT_SERIAL;
    rc = issue(w, b, e, -1);
    w->mode = MH_SPLIT_PIPELINED;
    if (rc) return rc;
    w->t_in = w->t_c = w->t_out = 0;
    w->r_in = w->last_stage[0] / (double)(e - b);
    w->r_c = w->last_stage[1] / (double)(e - b);
    w->r_out = w->last_stage[2] / (double)(e - b);
    size = probe;
    if (w->tune && (rc = tune(w, probe, t_probe, &size))) return rc;
    w->split_final = size;
    while (take_ex(w, size, w->tune, &b, &e))
        if ((rc = issue(w, b, e, -1))) return rc;
    if ((rc = drain(w))) return rc;
    w->t_in = w->r_in * (double)w->iters;
    w->t_c = w->r_c * (double)w->iters;
    w->t_out = w->r_out * (double)w->iters;
    return MH_OK;
}

static void *worker_main(void *arg) {
    worker *w = arg;
    int rc = run_device(w);
    if (rc) worker_fail(w, rc);
    teardown(w);
    return NULL;
}

void mh_split_opts_init(mh_split_opts *opts) { memset(opts, 0, sizeof *opts); }

static int exec_run(mh_split_ctx *ctx, const mh_split_loop *loop, const mh_split_opts *opts_in,
                    mh_split_report *report, mh_err *err) {
    const mh_split_backend *be = ctx->be;
    double t_begin = now_s();
    mh_split_opts opts;
    mh_split_report rep;
    int rc;
    if (opts_in) opts = *opts_in;
    else mh_split_opts_init(&opts);
    memset(&rep, 0, sizeof rep);
    if ((rc = mh_split_validate(loop, &opts, err))) return rc;
    int nslots = opts.nstreams ? opts.nstreams : MH_SPLIT_DEFAULT_STREAMS;
    size_t staging = opts.staging_bytes ? opts.staging_bytes : MH_SPLIT_DEFAULT_STAGING;
    int host_threads = opts.host_threads ? opts.host_threads : 8;
    rep.n_iters = loop->n_iters;
    rep.nstreams = nslots;
    if (loop->n_iters == 0) {
        if (report) *report = rep;
        return MH_OK;
    }

    int count = 0;
    if ((rc = be->device_count(be->ctx, &count, err))) return rc;
    if (count <= 0) return mh_err_set(err, MH_ERR_DEP, "split: no CUDA device is visible");
    int ndev = opts.n_devices > 0 ? opts.n_devices : count;
    for (int i = 0; i < opts.n_devices; i++) {
        if (opts.devices[i] < 0 || opts.devices[i] >= count)
            return mh_err_set(err, MH_ERR_ARG, "split: device %d does not exist (%d visible)", opts.devices[i],
                              count);
        for (int k = 0; k < i; k++)
            if (opts.devices[k] == opts.devices[i])
                return mh_err_set(err, MH_ERR_ARG, "split: device %d is listed twice", opts.devices[i]);
    }
    if (ctx->ndev < count) {
        mh_split_devres *r = realloc(ctx->res, (size_t)count * sizeof *r);
        if (!r) return mh_err_set(err, MH_ERR_NOMEM, "split: out of host memory");
        memset(r + ctx->ndev, 0, (size_t)(count - ctx->ndev) * sizeof *r);
        ctx->res = r;
        ctx->ndev = count;
    }

    size_t budget = opts.budget_bytes, wave = opts.wave_iters;
    for (int i = 0; i < ndev; i++) {
        int dev = opts.n_devices > 0 ? opts.devices[i] : i;
        size_t fb = 0, wv = 0;
        if ((rc = be->device_info(be->ctx, dev, &fb, &wv, err))) return rc;
        fb += ctx->res[dev].dbytes; /* the context's own arena is ours to reuse */
        fb -= fb / 20;
        if (!opts.budget_bytes && (i == 0 || fb < budget)) budget = fb;
        if (!opts.wave_iters && i == 0) wave = wv;
    }
    if (wave == 0) wave = 1;
    size_t iter_bytes = mh_split_iter_bytes(loop), fused = mh_split_fused_bytes(loop), budget_iters;
    /* buffers start at MH_SPLIT_ALIGN inside the arena: keep room for the padding */
    size_t pad = ((size_t)nslots * (size_t)loop->n_split + (size_t)loop->n_fused) * MH_SPLIT_ALIGN;
    size_t reserve = opts.reserve_bytes > SIZE_MAX - pad ? SIZE_MAX : opts.reserve_bytes + pad;
    if ((rc = mh_split_budget_iters(budget, reserve, fused, iter_bytes, nslots, &budget_iters, err)))
        return rc;

    int *staged = calloc(loop->n_split > 0 ? (size_t)loop->n_split : 1, sizeof *staged);
    worker *ws = calloc((size_t)ndev, sizeof *ws);
    pthread_t *tid = calloc((size_t)ndev, sizeof *tid);
    shared sh;
    memset(&sh, 0, sizeof sh);
    if (!staged || !ws || !tid) {
        free(staged);
        free(ws);
        free(tid);
        return mh_err_set(err, MH_ERR_NOMEM, "split: out of host memory");
    }
    size_t staged_bytes = 0;
    for (int i = 0; i < loop->n_split; i++) {
        staged[i] = !be->is_pinned(be->ctx, loop->split[i].host);
        if (staged[i]) staged_bytes += loop->split[i].bytes_per_iter;
    }
    size_t fixed = opts.split_iters, hi, lo;
    if (fixed) {
        if (fixed > budget_iters) {
            free(staged);
            free(ws);
            free(tid);
            return mh_err_set(err, MH_ERR_NOMEM,
                              "split: split of %zu iterations needs %zu device bytes on each device, budget is %zu",
                              fixed, mh_split_device_bytes(fused, iter_bytes, nslots, fixed) + pad, budget);
        }
        if (fixed > loop->n_iters) fixed = loop->n_iters;
        hi = lo = fixed;
    } else {
        hi = mh_split_tune_hi(loop->n_iters, ndev, budget_iters, mh_split_staging_iters(staging, staged_bytes, nslots));
        lo = wave / 8 ? wave / 8 : 1;
        if (lo > hi) lo = hi;
    }
    pthread_mutex_init(&sh.mu, NULL);
    sh.n = loop->n_iters;
    int started = 0;
    for (int i = 0; i < ndev; i++) {
        worker *w = &ws[i];
        w->be = be;
        w->loop = loop;
        w->sh = &sh;
        w->dev = opts.n_devices > 0 ? opts.devices[i] : i;
        w->mode = opts.mode;
        w->nslots = nslots;
        w->tune = fixed == 0;
        w->host_threads = host_threads;
        w->ndev = ndev;
        w->fixed = fixed;
        w->alloc_iters = hi;
        w->lo = lo;
        w->hi = hi;
        w->wave = wave;
        w->budget = budget;
        w->res = &ctx->res[w->dev];
        w->staged = staged;
        if (pthread_create(&tid[i], NULL, worker_main, w) != 0) {
            mh_err_set(&w->err, MH_ERR_INTERNAL, "split: cannot start the thread for device %d", w->dev);
            worker_fail(w, MH_ERR_INTERNAL);
            break;
        }
        started++;
    }
    for (int i = 0; i < started; i++) pthread_join(tid[i], NULL);
    pthread_mutex_destroy(&sh.mu);

    rc = sh.failed ? sh.code : MH_OK;
    if (rc) {
        if (err) *err = sh.err;
    } else {
        rep.split_iters = ws[0].split_final;
        rep.n_devices = ndev;
        rep.kind = ws[0].kind;
        rep.budget_bytes = budget;
        rep.n_candidates = ws[0].ncand;
        for (int j = 0; j < ws[0].ncand; j++) {
            rep.candidates[j] = ws[0].cand[j];
            rep.cand_rate[j] = ws[0].cand_rate[j];
        }
        size_t done = 0;
        for (int i = 0; i < ndev; i++) {
            worker *w = &ws[i];
            done += w->iters;
            rep.n_splits += w->nsplits;
            if (w->dev_bytes > rep.device_bytes) rep.device_bytes = w->dev_bytes;
            if (w->staging_bytes > rep.staging_bytes) rep.staging_bytes = w->staging_bytes;
            if (w->t_setup > rep.t_setup) rep.t_setup = w->t_setup;
            if (w->t_fused > rep.t_fused) rep.t_fused = w->t_fused;
            if (w->t_tune > rep.t_tune) rep.t_tune = w->t_tune;
            if (w->tune_over > rep.tune_overhead) rep.tune_overhead = w->tune_over;
            rep.t_in += w->t_in / ndev;
            rep.t_compute += w->t_c / ndev;
            rep.t_out += w->t_out / ndev;
            rep.t_stage_host += w->t_host / ndev;
            if (w->in_last - w->in_first > rep.t_in_span) rep.t_in_span = w->in_last - w->in_first;
            if (w->out_last - w->in_last > rep.t_drain) rep.t_drain = w->out_last - w->in_last;
        }
        if (done != loop->n_iters)
            rc = mh_err_set(err, MH_ERR_INTERNAL, "split: %zu of %zu iterations ran", done, loop->n_iters);
        rep.t_total = now_s() - t_begin;
        rep.ideal_speedup = mh_split_ideal_speedup(rep.t_fused, rep.t_in, rep.t_out, rep.t_compute);
        double run = rep.t_total - rep.t_setup;
        rep.achieved_speedup = run > 0 ? (rep.t_fused + rep.t_in + rep.t_out + rep.t_compute) / run : 0;
        if (report) *report = rep;
    }
    free(staged);
    free(ws);
    free(tid);
    return rc;
}

int mh_split_exec_ctx(mh_split_ctx *ctx, const mh_split_loop *loop, const mh_split_opts *opts,
                      mh_split_report *report, mh_err *err) {
    if (!ctx) return mh_err_set(err, MH_ERR_ARG, "split: context is NULL");
    pthread_mutex_lock(&ctx->mu);
    int busy = ctx->busy;
    ctx->busy = 1;
    pthread_mutex_unlock(&ctx->mu);
    if (busy) return mh_err_set(err, MH_ERR_ARG, "split: the context is in use by another run");
    int rc = exec_run(ctx, loop, opts, report, err);
    pthread_mutex_lock(&ctx->mu);
    ctx->busy = 0;
    pthread_mutex_unlock(&ctx->mu);
    return rc;
}

int mh_split_exec(const mh_split_backend *be, const mh_split_loop *loop, const mh_split_opts *opts,
                  mh_split_report *report, mh_err *err) {
    mh_split_ctx *ctx = mh_split_ctx_new(be);
    if (!ctx) return mh_err_set(err, MH_ERR_NOMEM, "split: out of host memory");
    int rc = mh_split_exec_ctx(ctx, loop, opts, report, err);
    mh_split_ctx_close(ctx);
    return rc;
}
