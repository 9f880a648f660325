/* lanes.c -- the launch lanes' reading side (lanes.h): launches analysed
 * side by side, results handed on in the serial pass's order.
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
 * holds at most MAX_QUEUED batches, then the reader waits (lanes_batch.c
 * builds the batches). The lanes' threads (lanes_work.c) run each lane's
 * halves, each with its own executor and its own place in the lane's queue;
 * a batch goes back when every half is through it. The reader keeps the
 * owned kernel ends in trace order and hands a lane's results on when that
 * lane's marks for the oldest one are there: the first half's results, then
 * the second's. An error of a lane is queued in its place too, so the
 * first error in trace order is the one returned (within one kernel end,
 * the first half's before the second's). One mutex guards every queue;
 * lanes and reader touch it once per batch or result. */
#include "sched/lanes.h"

#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "sched/lanes_batch.h"
#include "sched/lanes_state.h"
#include "sched/lanes_work.h"
#include "util/clock.h"
#include "util/grow.h"

#define BATCH_ACCESSES (1u << 15) /* accesses that send a batch off */
#define BATCH_RECORDS 4096u       /* records that send a batch off */
#define MAX_QUEUED 4              /* batches queued per lane before the reader may wait (each ~2 MiB) */
#define QUEUED_BUDGET (1u << 22)  /* accesses queued over all lanes past which it does wait (128 MiB of chunks) */
#define QUEUED_PER_LANE (1u << 20) /* ... and per lane, with fewer than 4 lanes (32 MiB of chunks each) */
#define MARK_SEND (1u << 13)      /* accesses that send a batch off at an owned kernel end (few lanes) */
#define MARK_SEND_LANES 4         /* lanes up to which MARK_SEND applies */

/* pthread_cond_wait, its time added to *ns (mh_lanes_times_get). */
static void timed_wait(pthread_cond_t *cv, pthread_mutex_t *mu, uint64_t *ns) {
    uint64_t t0 = mh_clock_ns();
    pthread_cond_wait(cv, mu);
    *ns += mh_clock_ns() - t0;
}

/* ---- the reader's side ---- */

int mh_lanes_new(mh_lanes **out, unsigned n, const mh_lanes_work *work, mh_err *err) {
    assert(work->halves == 1 || work->halves == 2);
    *out = NULL;
    mh_lanes *L = calloc(1, sizeof *L);
    if (!L) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    L->v = calloc(n, sizeof *L->v);
    if (!L->v) {
        free(L);
        return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    }
    L->work = *work;
    L->mark_send = n <= MARK_SEND_LANES ? MARK_SEND : 0;
    pthread_mutex_init(&L->mu, NULL);
    pthread_cond_init(&L->rcv, NULL);
    int rc = MH_OK;
    L->n = n;
    unsigned nh = work->halves;
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
            rc = work->open(work->ctx, i, k, h, &h->exec, err);
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

static void onode_free(mh_lanes *L, onode *o) {
    if (o->kind == O_RESULT && o->res) L->work.drop(o->res);
    free(o);
}

/* Hands on half h's results up to its next mark (under the lock, released
 * around the sink). Returns 1 when the mark was reached, 0 when not there
 * yet, < 0 with *rc set on an error. */
static int take_half(mh_lanes *L, half *h, int *rc, mh_err *err) {
    for (;;) {
        onode *o = pop_out(h);
        if (!o) return 0;
        if (o->kind == O_MARK) {
            onode_free(L, o);
            return 1;
        }
        if (o->kind == O_ERR) {
            *rc = o->rc;
            if (err) *err = o->err;
            onode_free(L, o);
            return -1;
        }
        pthread_mutex_unlock(&L->mu);
        *rc = L->work.deliver(L->work.ctx, o->res, err);
        onode_free(L, o);
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
 * accesses (a training step's) kept one lane busy and the others idle. The
 * budget is QUEUED_PER_LANE per lane up to QUEUED_BUDGET: the chunks it
 * holds are most of the peak memory of a pass of 2 lanes. */
static int must_wait(const mh_lanes *L, const lane *ln) {
    uint64_t budget = (uint64_t)L->n * QUEUED_PER_LANE < QUEUED_BUDGET ? (uint64_t)L->n * QUEUED_PER_LANE : QUEUED_BUDGET;
    return ln->nq >= MAX_QUEUED && L->backlog >= budget && !ln->h[0].failed && !ln->h[ln->nh - 1].failed;
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
    if (!mh_lbatch_copy_record(L, &copy, rec)) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    for (unsigned i = 0; i < L->n; i++) {
        lane *ln = &L->v[i];
        item *it = mh_lbatch_item(ln->cur);
        if (!it || !mh_lbatch_hold_shared(L, ln->cur)) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
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
        item *it = mh_lbatch_item(b);
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
    item *it = mh_lbatch_item(b);
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

unsigned mh_lanes_count(const mh_lanes *L) { return L->n; }
unsigned mh_lanes_halves(const mh_lanes *L) { return L->work.halves; }
void *mh_lanes_exec(const mh_lanes *L, unsigned lane, unsigned half) {
    assert(lane < L->n && half < L->v[lane].nh);
    return L->v[lane].h[half].exec;
}

void mh_lanes_times_get(mh_lanes *L, mh_lanes_times *t) {
    pthread_mutex_lock(&L->mu);
    t->idle = (double)L->idle_ns * 1e-9;
    t->room = (double)L->room_ns * 1e-9;
    t->results = (double)L->results_ns * 1e-9;
    t->moved = (double)L->moved;
    t->cpu = t->cpu_max = 0;
    for (unsigned i = 0; i < L->n; i++)
        for (unsigned k = 0; k < L->v[i].nh; k++) {
            double c = L->v[i].h[k].cpu;
            t->cpu += c;
            if (c > t->cpu_max) t->cpu_max = c;
        }
    pthread_mutex_unlock(&L->mu);
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

/* One lane's queued batches, unsent results and executors. */
static void *lane_free(void *arg) {
    lane *ln = arg;
    while (ln->qhead) {
        lbatch *b = ln->qhead;
        ln->qhead = b->next;
        mh_lbatch_free(b);
    }
    mh_lbatch_free(ln->cur);
    for (unsigned k = 0; k < ln->nh; k++) {
        half *h = &ln->h[k];
        for (onode *o = h->ohead, *nx; o; o = nx) {
            nx = o->next;
            onode_free(ln->L, o);
        }
        for (onode *o = h->mine, *nx; o; o = nx) {
            nx = o->next;
            onode_free(ln->L, o);
        }
        if (h->exec) ln->L->work.close(h->exec);
    }
    return NULL;
}

void mh_lanes_free(mh_lanes *L) {
    if (!L) return;
    mh_lanes_stop(L);
    /* a thread per lane: every lane's models hold every launch, and its
     * analyses every launch's statistics (8,000 launches on 16 lanes: 32 ms
     * on one thread of a 16-core machine, a tenth of the run) */
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
        mh_lbatch_free(b);
    }
    mh_lbatch_shared_release(L->sb);
    free(L->pending);
    free(L->v);
    pthread_cond_destroy(&L->rcv);
    pthread_mutex_destroy(&L->mu);
    free(L);
}
