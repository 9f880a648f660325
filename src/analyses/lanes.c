/* lanes.c -- mh_pass's launch lanes (lanes.h): launches analysed side by
 * side, results handed on in the serial pass's order.
 *
 * The reading thread fills one input batch per lane: the records the model
 * takes, each copied once for all lanes into a shared block that every batch
 * pointing into it holds (counted), and the lane's accesses:
 * where the access arrays lie in a trace chunk, the batch points at them and
 * holds the chunk (mh_trace_hold), else they are copied into the batch.
 * A batch goes to its lane when it is full, or at an owned kernel end; with
 * few lanes (a machine of few cores, where the reader, the decompressing
 * helper and the lanes share them) only once it holds MARK_SEND accesses, so
 * that a launch of a few thousand accesses does not wake its lane alone (on
 * 2 cores the wake-ups cost more than such a launch's analysis; on 16, where
 * lanes wait for work, it gained nothing: bench/analyses/README.md); a lane
 * holds at most MAX_QUEUED batches, then the reader waits. The lanes'
 * threads (lanes_thread.c) analyse each lane's two halves, heat maps and
 * patterns, and locality, each with its own model and its own place in the
 * lane's queue; a batch goes back when both halves are through it. The
 * reader keeps the owned kernel ends in trace order and hands a lane's
 * results on when that lane's marks for the oldest one are there: the first
 * half's results, then the second's (the serial pass's order: heat maps,
 * then locality). An error of a lane is queued in its place too, so the
 * first error in trace order is the one returned (within one kernel end,
 * the first half's before the second's). One mutex guards every queue;
 * lanes and reader touch it once per batch or result. */
#include "analyses/lanes.h"

#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/lanes_internal.h"
#include "util/clock.h"
#include "util/grow.h"

#define BATCH_ACCESSES (1u << 15) /* accesses that send a batch off */
#define BATCH_RECORDS 4096u       /* records that send a batch off */
#define MAX_QUEUED 4              /* batches queued per lane before the reader may wait (each ~2 MiB) */
#define QUEUED_BUDGET (1u << 22)  /* accesses queued over all lanes past which it does wait (128 MiB of chunks) */
#define MARK_SEND (1u << 13)      /* accesses that send a batch off at an owned kernel end (few lanes) */
#define MARK_SEND_LANES 4         /* lanes up to which MARK_SEND applies */
#define SHARED_BLOCK ((size_t)64 << 10)

/* pthread_cond_wait, its time added to *ns (mh_lanes_times). */
static void timed_wait(pthread_cond_t *cv, pthread_mutex_t *mu, uint64_t *ns) {
    uint64_t t0 = mh_clock_ns();
    pthread_cond_wait(cv, mu);
    *ns += mh_clock_ns() - t0;
}

/* ---- batches ---- */

static void sblock_release(sblock *b) {
    if (b && atomic_fetch_sub_explicit(&b->refs, 1, memory_order_acq_rel) == 1) free(b);
}

#define ROUND8(n) (((n) + 7) & ~(size_t)7)

/* Room for n bytes in the reader's shared block (a new block when it is
 * full): all of a record's copies are made in one block, the one its
 * batches hold. 0 without memory. */
static int shared_room(mh_lanes *L, size_t n) {
    if (!L->sb || L->sb->cap - L->sb->used < n) {
        size_t cap = n > SHARED_BLOCK ? n : SHARED_BLOCK;
        sblock *b = malloc(sizeof *b + cap);
        if (!b) return 0;
        atomic_init(&b->refs, 1);
        b->used = 0;
        b->cap = cap;
        sblock_release(L->sb);
        L->sb = b;
    }
    return 1;
}

/* n bytes of the room shared_room made. */
static void *shared_alloc(mh_lanes *L, size_t n) {
    n = ROUND8(n);
    assert(L->sb && L->sb->cap - L->sb->used >= n);
    void *p = L->sb->data + L->sb->used;
    L->sb->used += n;
    return p;
}

static size_t str_bytes(const char *s) { return s ? ROUND8(strlen(s) + 1) : 0; }

static void shared_str(mh_lanes *L, const char **s) {
    if (!*s) return;
    size_t n = strlen(*s) + 1;
    char *d = shared_alloc(L, n);
    memcpy(d, *s, n);
    *s = d;
}

/* b holds the reader's current shared block (once). */
static int batch_hold_shared(mh_lanes *L, lbatch *b) {
    if (!L->sb || (b->nsbs && b->sbs[b->nsbs - 1] == L->sb)) return 1;
    if (b->nsbs == b->capsbs) {
        sblock **v = mh_grow(b->sbs, &b->capsbs, b->nsbs + 1, sizeof *v, 8);
        if (!v) return 0;
        b->sbs = v;
    }
    atomic_fetch_add_explicit(&L->sb->refs, 1, memory_order_relaxed);
    b->sbs[b->nsbs++] = L->sb;
    return 1;
}

void mh_lanes_batch_reset(lbatch *b) {
    mh_trace_holds_clear(&b->holds);
    b->n = b->nacc = b->total = 0;
    for (size_t i = 0; i < b->nsbs; i++) sblock_release(b->sbs[i]);
    b->nsbs = 0;
}

static void batch_free(lbatch *b) {
    if (!b) return;
    mh_lanes_batch_reset(b);
    free(b->sbs);
    mh_trace_holds_free(&b->holds);
    free(b->it);
    free(b->acc);
    free(b);
}

static item *batch_item(lbatch *b) {
    if (b->n == b->cap) {
        item *v = mh_grow(b->it, &b->cap, b->n + 1, sizeof *v, 256);
        if (!v) return NULL;
        b->it = v;
    }
    item *it = &b->it[b->n++];
    memset(it, 0, sizeof *it);
    return it;
}

/* A deep copy of rec (a record the model takes) into *out, its strings and
 * lists in the reader's shared block. 0 without memory. */
static int copy_record(mh_lanes *L, mh_record *out, const mh_record *rec) {
    *out = *rec;
    mh_record *r = out;
    const mh_launch *l = &rec->u.launch;
    uint32_t ns = rec->type == MH_REC_LAUNCH && l->n_sampled != MH_TRACE_ALL_BLOCKS && l->sampled ? l->n_sampled : 0;
    size_t need = 0;
    switch (rec->type) {
    case MH_REC_LAUNCH: need = str_bytes(l->name) + str_bytes(l->display_name) + ROUND8(ns * sizeof(uint32_t)); break;
    case MH_REC_ALLOC: need = str_bytes(rec->u.alloc.label); break;
    case MH_REC_DROPPED: need = str_bytes(rec->u.dropped.reason); break;
    case MH_REC_PCINFO: need = str_bytes(rec->u.pcinfo.function) + str_bytes(rec->u.pcinfo.file); break;
    case MH_REC_LAUNCH_STATS: need = str_bytes(rec->u.launch_stats.name); break;
    case MH_REC_KARG: need = str_bytes(rec->u.karg.type) + str_bytes(rec->u.karg.name); break;
    default: return 1; /* FREE, KERNEL_END: no pointers */
    }
    if (!shared_room(L, need)) return 0;
    switch (rec->type) {
    case MH_REC_LAUNCH:
        shared_str(L, &r->u.launch.name);
        shared_str(L, &r->u.launch.display_name);
        if (ns) {
            uint32_t *s = shared_alloc(L, ns * sizeof *s);
            memcpy(s, l->sampled, ns * sizeof *s);
            r->u.launch.sampled = s;
        }
        break;
    case MH_REC_ALLOC: shared_str(L, &r->u.alloc.label); break;
    case MH_REC_DROPPED: shared_str(L, &r->u.dropped.reason); break;
    case MH_REC_PCINFO: shared_str(L, &r->u.pcinfo.function); shared_str(L, &r->u.pcinfo.file); break;
    case MH_REC_LAUNCH_STATS: shared_str(L, &r->u.launch_stats.name); break;
    default: shared_str(L, &r->u.karg.type); shared_str(L, &r->u.karg.name); break;
    }
    return 1;
}

/* ---- the reader's side ---- */

int mh_lanes_new(mh_lanes **out, unsigned n, const mh_pass_opts *o, const mh_trace_header *hdr, const mh_model *m,
                 const mh_lanes_sink *sink, mh_err *err) {
    *out = NULL;
    mh_lanes *L = calloc(1, sizeof *L);
    if (!L) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    L->v = calloc(n, sizeof *L->v);
    if (!L->v) {
        free(L);
        return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    }
    L->main = m;
    L->sink = *sink;
    L->mark_send = n <= MARK_SEND_LANES ? MARK_SEND : 0;
    pthread_mutex_init(&L->mu, NULL);
    pthread_cond_init(&L->rcv, NULL);
    int rc = MH_OK;
    L->n = n;
    int heat = (o->analyses & (MH_PASS_HEAT | MH_PASS_PATTERNS)) != 0, loc = (o->analyses & MH_PASS_LOCALITY) != 0;
    unsigned nh = heat && loc ? 2 : 1;
    for (unsigned i = 0; i < n; i++) {
        L->v[i].nh = nh;
        pthread_cond_init(&L->v[i].cv, NULL);
    }
    for (unsigned i = 0; i < n && rc == MH_OK; i++) {
        lane *ln = &L->v[i];
        ln->L = L;
        ln->idx = i;
        if (!(ln->cur = calloc(1, sizeof *ln->cur))) rc = mh_err_set(err, MH_ERR_NOMEM, "out of memory");
        for (unsigned k = 0; k < nh && rc == MH_OK; k++) {
            half *h = &ln->h[k];
            h->ln = ln;
            rc = mh_model_init(&h->m, hdr, err);
            if (rc) break;
            h->model_ok = 1;
            if (k == 0 && (o->analyses & MH_PASS_PATTERNS)) {
                mh_pat_opts po = {o->group_budget};
                rc = mh_pat_run_new(&h->pat, &h->m, &po, err);
            }
            if (rc == MH_OK && k == 0 && (o->analyses & MH_PASS_HEAT)) {
                mh_heat_run_opts ho = {.space_mask = o->heat_spaces, .emit = mh_lanes_heat_out, .ctx = h};
                rc = mh_heat_run_new(&h->hr, &h->m, &ho, err);
            }
            if (rc == MH_OK && k == nh - 1 && loc) {
                mh_loc_opts lo = {o->group_budget, mh_lanes_loc_out, h};
                rc = mh_loc_run_new(&h->lr, &h->m, &lo, err);
            }
        }
    }
    /* the threads once every lane is whole: a thread may take another lane's batches */
    for (unsigned i = 0; i < n && rc == MH_OK; i++) {
        lane *ln = &L->v[i];
        if (pthread_create(&ln->tid, NULL, mh_lanes_thread, ln) != 0)
            rc = mh_err_set(err, MH_ERR_NOMEM, "cannot start a lane thread");
        else
            ln->started = 1;
    }
    if (rc) {
        mh_lanes_free(L);
        return rc;
    }
    *out = L;
    return MH_OK;
}

static onode *pop_out(half *h) {
    onode *o = h->ohead;
    if (o) {
        h->ohead = o->next;
        if (!h->ohead) h->otail = NULL;
    }
    return o;
}

static void onode_free(onode *o) {
    if (o->kind == O_HEAT) {
        free((void *)o->h.rows);
        free((void *)o->h.regions);
    }
    free(o);
}

/* Hands one result to the sink, pointing at the main model. */
static int hand_on(mh_lanes *L, onode *o, mh_err *err) {
    const mh_model *m = L->main;
    const mh_model_launch *ml = mh_model_launch_get(m, o->launch);
    if (o->kind == O_HEAT) {
        o->h.model = m;
        o->h.launch = ml;
        mh_heat_region *reg = (mh_heat_region *)o->h.regions;
        for (size_t i = 0; i < o->h.nregions; i++)
            if (reg[i].obj >= 0 && (size_t)reg[i].obj < m->nobjs) reg[i].label = m->objs[reg[i].obj].a.label;
        return L->sink.heat ? L->sink.heat(L->sink.ctx, &o->h, err) : MH_OK;
    }
    o->l.model = m;
    o->l.launch = o->launch == UINT32_MAX ? NULL : ml;
    return L->sink.loc ? L->sink.loc(L->sink.ctx, &o->l, err) : MH_OK;
}

/* Hands on half h's results up to its next mark (under the lock, released
 * around the sink). Returns 1 when the mark was reached, 0 when not there
 * yet, < 0 with *rc set on an error. */
static int take_half(mh_lanes *L, half *h, int *rc, mh_err *err) {
    for (;;) {
        onode *o = pop_out(h);
        if (!o) return 0;
        if (o->kind == O_MARK) {
            onode_free(o);
            return 1;
        }
        if (o->kind == O_ERR) {
            *rc = o->rc;
            if (err) *err = o->err;
            onode_free(o);
            return -1;
        }
        pthread_mutex_unlock(&L->mu);
        *rc = hand_on(L, o, err);
        onode_free(o);
        pthread_mutex_lock(&L->mu);
        if (*rc) return -1;
    }
}

/* The same for lane ln: each half's results up to its mark, in turn
 * (ln->taken remembers the halves done when the next one's mark is not
 * there yet). */
static int take_until_mark(mh_lanes *L, lane *ln, int *rc, mh_err *err) {
    for (; ln->taken < ln->nh; ln->taken++) {
        int got = take_half(L, &ln->h[ln->taken], rc, err);
        if (got <= 0) return got;
    }
    ln->taken = 0;
    return 1;
}

/* Whether lane ln's half the reader waits for failed without the memory to
 * queue why (under the lock). */
static int lost(const lane *ln) {
    const half *h = &ln->h[ln->taken < ln->nh ? ln->taken : 0];
    return h->failed && !h->ohead;
}

static void send(mh_lanes *L, lane *ln) {
    if (!ln->cur || !ln->cur->n) return;
    lbatch *b = ln->cur;
    ln->cur = NULL;
    b->next = NULL;
    if (ln->qtail) ln->qtail->next = b;
    else ln->qhead = b;
    ln->qtail = b;
    ln->nq++;
    ln->backlog += b->total;
    L->backlog += b->total;
    b->left = ln->nh;
    b->seq = ln->sent++;
    /* the accesses copied into the batch are where they stay now; the
     * halves only read the items */
    for (size_t i = 0; i < b->n && b->nacc; i++) {
        item *it = &b->it[i];
        if (it->rec.type == MH_REC_ACCESSES && !it->ext) it->rec.u.accesses.v = b->acc + it->off;
    }
    for (unsigned k = 0; k < ln->nh; k++)
        if (!ln->h[k].next) ln->h[k].next = b;
    if (L->freeb) {
        ln->cur = L->freeb;
        L->freeb = ln->cur->next;
        ln->cur->next = NULL;
    } else {
        ln->cur = calloc(1, sizeof *ln->cur); /* NULL: send_batch says out of memory */
    }
    mh_lanes_offer(L, ln);
}

/* Whether the reader must wait before sending lane ln another batch: its
 * queue is full and so is the budget of all lanes. A lane's queue may grow
 * past MAX_QUEUED while the budget lasts, so that the reader gets past a
 * launch of many accesses to the next launches, for the other lanes; with
 * a queue bound per lane alone, a real program's launches of 10^5-10^6
 * accesses (a training step's) kept one lane busy and the others idle. */
static int must_wait(const mh_lanes *L, const lane *ln) {
    return ln->nq >= MAX_QUEUED && L->backlog >= QUEUED_BUDGET && !ln->h[0].failed && !ln->h[ln->nh - 1].failed;
}

/* Sends lane ln's batch, waiting (handing results on meanwhile) while
 * must_wait says so. */
static int send_batch(mh_lanes *L, lane *ln, mh_err *err) {
    int rc = MH_OK;
    pthread_mutex_lock(&L->mu);
    while (must_wait(L, ln)) {
        pthread_mutex_unlock(&L->mu);
        rc = mh_lanes_deliver(L, 0, err);
        pthread_mutex_lock(&L->mu);
        if (rc) break;
        if (must_wait(L, ln)) {
            mh_lanes_drain_begin(L);
            timed_wait(&L->rcv, &L->mu, &L->room_ns);
            mh_lanes_drain_end(L);
        }
    }
    if (rc == MH_OK) send(L, ln);
    pthread_mutex_unlock(&L->mu);
    if (rc == MH_OK && !ln->cur && !(ln->cur = calloc(1, sizeof *ln->cur)))
        rc = mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    return rc;
}

int mh_lanes_record(mh_lanes *L, const mh_record *rec, int owner, mh_err *err) {
    switch (rec->type) {
    case MH_REC_LAUNCH: case MH_REC_ALLOC: case MH_REC_FREE: case MH_REC_KERNEL_END:
    case MH_REC_DROPPED: case MH_REC_PCINFO: case MH_REC_LAUNCH_STATS: case MH_REC_KARG:
        break;
    default:
        return MH_OK; /* nothing in a lane reads the others */
    }
    if (owner >= 0) {
        if (L->pn == L->pcap) { /* unroll the ring into a bigger one */
            size_t cap = L->pcap ? L->pcap * 2 : 256;
            int *v = malloc(cap * sizeof *v);
            if (!v) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
            for (size_t i = 0; i < L->pn; i++) v[i] = L->pending[(L->phead + i) % L->pcap];
            free(L->pending);
            L->pending = v;
            L->pcap = cap;
            L->phead = 0;
        }
        L->pending[(L->phead + L->pn++) % L->pcap] = owner;
    }
    mh_record copy;
    if (!copy_record(L, &copy, rec)) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    for (unsigned i = 0; i < L->n; i++) {
        lane *ln = &L->v[i];
        item *it = batch_item(ln->cur);
        if (!it || !batch_hold_shared(L, ln->cur)) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
        it->rec = copy;
        it->mark = (int)i == owner;
        if ((it->mark && ln->cur->total >= L->mark_send) || ln->cur->n >= BATCH_RECORDS) {
            int rc = send_batch(L, ln, err);
            if (rc) return rc;
        }
    }
    return MH_OK;
}

int mh_lanes_accesses(mh_lanes *L, unsigned idx, const mh_access *v, size_t n, mh_trace_hold *hold, mh_err *err) {
    lane *ln = &L->v[idx];
    lbatch *b = ln->cur;
    if (hold) {
        if (mh_trace_holds_add(&b->holds, hold) != MH_OK) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
        item *it = batch_item(b);
        if (!it) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
        it->rec.type = MH_REC_ACCESSES;
        it->rec.u.accesses.n = n;
        it->rec.u.accesses.v = it->ext = v;
        b->total += n;
        return b->total >= BATCH_ACCESSES ? send_batch(L, ln, err) : MH_OK;
    }
    if (b->nacc + n > b->capacc) {
        /* room for a batch and one more record from the start: no copy by realloc later */
        mh_access *a = mh_grow(b->acc, &b->capacc, b->nacc + n, sizeof *a, 2 * BATCH_ACCESSES);
        if (!a) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
        b->acc = a;
    }
    item *it = batch_item(b);
    if (!it) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    it->rec.type = MH_REC_ACCESSES;
    it->rec.u.accesses.n = n;
    it->off = b->nacc;
    memcpy(b->acc + b->nacc, v, n * sizeof *v);
    b->nacc += n;
    b->total += n;
    return b->total >= BATCH_ACCESSES ? send_batch(L, ln, err) : MH_OK;
}

unsigned mh_lanes_pick(mh_lanes *L, unsigned from) {
    unsigned best = from % L->n;
    uint64_t least = UINT64_MAX;
    pthread_mutex_lock(&L->mu);
    for (unsigned k = 0; k < L->n; k++) {
        unsigned i = (from + k) % L->n;
        uint64_t b = L->v[i].backlog + (L->v[i].cur ? L->v[i].cur->total : 0);
        if (b < least) {
            least = b;
            best = i;
        }
    }
    pthread_mutex_unlock(&L->mu);
    return best;
}

int mh_lanes_deliver(mh_lanes *L, int wait, mh_err *err) {
    int rc = MH_OK;
    pthread_mutex_lock(&L->mu);
    if (wait) {
        for (unsigned i = 0; i < L->n; i++) {
            send(L, &L->v[i]);
            if (!L->v[i].cur) rc = mh_err_set(err, MH_ERR_NOMEM, "out of memory");
        }
        mh_lanes_drain_begin(L);
    }
    while (L->pn && rc == MH_OK) {
        lane *ln = &L->v[L->pending[L->phead]];
        int got = take_until_mark(L, ln, &rc, err);
        if (got < 0) break;
        if (got == 1) {
            L->phead = (L->phead + 1) % L->pcap;
            L->pn--;
            continue;
        }
        if (!wait) break;
        if (lost(ln)) { /* no memory to say why */
            rc = mh_err_set(err, MH_ERR_NOMEM, "out of memory");
            break;
        }
        timed_wait(&L->rcv, &L->mu, &L->results_ns);
    }
    if (wait) mh_lanes_drain_end(L);
    pthread_mutex_unlock(&L->mu);
    return rc;
}

int mh_lanes_finish(mh_lanes *L, mh_err *err) {
    int rc = mh_lanes_deliver(L, 1, err);
    pthread_mutex_lock(&L->mu);
    L->finishing = 1;
    for (unsigned i = 0; i < L->n; i++) pthread_cond_signal(&L->v[i].cv);
    /* lane by lane: only the last launches' lane has any (pass.c) */
    for (unsigned i = 0; i < L->n && rc == MH_OK; i++) {
        lane *ln = &L->v[i];
        for (;;) {
            int got = take_until_mark(L, ln, &rc, err);
            if (got) break;
            if (ln->done && !ln->h[ln->taken].ohead) {
                rc = mh_err_set(err, MH_ERR_NOMEM, "out of memory");
                break;
            }
            timed_wait(&L->rcv, &L->mu, &L->results_ns);
        }
    }
    pthread_mutex_unlock(&L->mu);
    return rc;
}

int mh_lanes_merge_patterns(mh_lanes *L, mh_pat_run *dst, uint64_t (*rank)(void *ctx, uint32_t launch), void *ctx,
                            mh_err *err) {
    mh_pat_run **src = calloc(L->n ? L->n : 1, sizeof *src);
    if (!src) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    size_t n = 0;
    for (unsigned i = 0; i < L->n; i++)
        if (L->v[i].h[0].pat) src[n++] = L->v[i].h[0].pat;
    int rc = mh_pat_run_merge(dst, src, n, rank, ctx, err);
    free(src);
    return rc;
}

void mh_lanes_times(mh_lanes *L, mh_pass_times *t) {
    pthread_mutex_lock(&L->mu);
    t->lanes_idle = (double)L->idle_ns * 1e-9;
    t->wait_room = (double)L->room_ns * 1e-9;
    t->wait_results = (double)L->results_ns * 1e-9;
    t->lanes_moved = (double)L->moved;
    t->lanes_cpu = t->lanes_cpu_max = 0;
    for (unsigned i = 0; i < L->n; i++)
        for (unsigned k = 0; k < L->v[i].nh; k++) {
            double c = L->v[i].h[k].cpu;
            t->lanes_cpu += c;
            if (c > t->lanes_cpu_max) t->lanes_cpu_max = c;
        }
    pthread_mutex_unlock(&L->mu);
}

void mh_lanes_peaks(const mh_lanes *L, size_t *heat, size_t *loc) {
    for (unsigned i = 0; i < L->n; i++) {
        const lane *ln = &L->v[i];
        const mh_heat_run *hr = ln->h[0].hr;
        const mh_loc_run *lr = ln->h[ln->nh ? ln->nh - 1 : 0].lr;
        size_t h = hr ? mh_heat_run_peak_bytes(hr) : 0, l = lr ? mh_loc_run_peak_bytes(lr) : 0;
        if (h > *heat) *heat = h;
        if (l > *loc) *loc = l;
    }
}

void mh_lanes_stop(mh_lanes *L) {
    pthread_mutex_lock(&L->mu);
    L->stopping = 1;
    for (unsigned i = 0; i < L->n; i++) pthread_cond_signal(&L->v[i].cv);
    pthread_mutex_unlock(&L->mu);
    for (unsigned i = 0; i < L->n; i++) /* all first: a thread may be in another lane's half */
        if (L->v[i].started) {
            pthread_join(L->v[i].tid, NULL);
            L->v[i].started = 0;
        }
}

/* One lane's queued batches, unsent results, analyses and models. */
static void *lane_free(void *arg) {
    lane *ln = arg;
    while (ln->qhead) {
        lbatch *b = ln->qhead;
        ln->qhead = b->next;
        batch_free(b);
    }
    batch_free(ln->cur);
    for (unsigned k = 0; k < ln->nh; k++) {
        half *h = &ln->h[k];
        for (onode *o = h->ohead, *nx; o; o = nx) {
            nx = o->next;
            onode_free(o);
        }
        for (onode *o = h->mine, *nx; o; o = nx) {
            nx = o->next;
            onode_free(o);
        }
        mh_heat_run_free(h->hr);
        mh_pat_run_free(h->pat);
        mh_loc_run_free(h->lr);
        if (h->model_ok) mh_model_free(&h->m);
    }
    return NULL;
}

void mh_lanes_free(mh_lanes *L) {
    if (!L) return;
    mh_lanes_stop(L);
    /* a thread per lane: every lane's models hold every launch, and its
     * patterns every launch's statistics (y's 8,000 launches on 16 lanes:
     * 32 ms on one thread of the 16-core machine, a tenth of the run) */
    for (unsigned i = 1; i < L->n; i++)
        L->v[i].started = pthread_create(&L->v[i].tid, NULL, lane_free, &L->v[i]) == 0;
    for (unsigned i = 0; i < L->n; i++) {
        lane *ln = &L->v[i];
        if (ln->started) pthread_join(ln->tid, NULL);
        else lane_free(ln);
        ln->started = 0;
        pthread_cond_destroy(&ln->cv);
    }
    while (L->freeb) {
        lbatch *b = L->freeb;
        L->freeb = b->next;
        batch_free(b);
    }
    sblock_release(L->sb);
    free(L->pending);
    free(L->v);
    pthread_cond_destroy(&L->rcv);
    pthread_mutex_destroy(&L->mu);
    free(L);
}
