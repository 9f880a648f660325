/* lanes_work.c -- the lanes' threads (lanes_work.h): each runs its lane's
 * halves batch by batch in order, and, while the reader waits for the
 * lanes, another lane's waiting half (pick, stealable): one launch of 10^6
 * accesses, the last of a trace, gets two threads. What a half's executor
 * puts goes into its output queue for the reader (lanes.c), a mark after
 * each owned kernel end. */
#ifdef __linux__
#define _GNU_SOURCE /* pthread_setname_np: the lanes show as memheat-lane in top and perf */
#endif
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "sched/lanes_batch.h"
#include "sched/lanes_state.h"
#include "sched/lanes_work.h"
#include "util/clock.h"

#define STEAL_MIN (1u << 13) /* accesses of a batch another lane's thread may take */

static onode *onode_new(half *h, int kind) {
    onode *o = calloc(1, sizeof *o);
    if (!o) return NULL;
    o->kind = kind;
    if (h->minetail) h->minetail->next = o;
    else h->mine = o;
    h->minetail = o;
    return o;
}

int mh_lanes_put(mh_lanes_half *h, void *result, mh_err *err) {
    onode *o = onode_new(h, O_RESULT);
    if (!o) {
        h->ln->L->work.drop(result);
        return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    }
    o->res = result;
    return MH_OK;
}

/* The batch's records through h's executor; the batch is only read (the
 * other half reads it at the same time: send pointed its accesses). */
static int lane_batch(half *h, const lbatch *b, mh_err *err) {
    const mh_lanes_work *w = &h->ln->L->work;
    for (size_t i = 0; i < b->n; i++) {
        const item *it = &b->it[i];
        int rc = w->feed(h->exec, &it->rec, err);
        if (rc) return rc;
        if (it->mark && !onode_new(h, O_MARK)) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    }
    return MH_OK;
}

static int lane_finish(half *h, mh_err *err) { return h->ln->L->work.finish(h->exec, err); }

/* Moves what the half emitted to its output queue (under the lock). */
static void publish_mine(half *h) {
    if (!h->mine) return;
    if (h->otail) h->otail->next = h->mine;
    else h->ohead = h->mine;
    h->otail = h->minetail;
    h->mine = h->minetail = NULL;
}

static void fail(half *h, int rc, const mh_err *e) {
    onode *o = onode_new(h, O_ERR);
    h->failed = 1;
    if (!o) return; /* no memory even for that: the reader sees failed */
    o->rc = rc;
    o->err = *e;
}

/* A batch every half of ln is through (the oldest in its queue: the halves
 * take the batches in order) goes back to the free list (under the lock). */
static void batch_done(mh_lanes *L, lane *ln, lbatch *b) {
    assert(ln->qhead == b);
    ln->qhead = b->next;
    if (!ln->qhead) ln->qtail = NULL;
    ln->nq--;
    ln->backlog -= b->total;
    L->backlog -= b->total;
    mh_lbatch_reset(b);
    b->next = L->freeb;
    L->freeb = b;
}

/* Whether half h has a batch no thread analyses (under the lock). */
static int ready(const half *h) { return h->next && !h->busy; }

/* The same, and worth another thread's while: the reader waits for the
 * lanes (the end of the trace, a launch for the pass's own workers, a full
 * queue), so spare threads are spare, and the batch is not small. While
 * the reader reads on, a lane that falls behind is caught up with by the
 * lanes' waits for the reader anyway, and moving a half to another core
 * costs its tables' cache lines: on the training job's every-launch trace
 * (3.4 x 10^8 accesses, decompression the bound), taking a ready half at
 * any time moved 30-44% of the batches and cost 25-35% more CPU, 13-16%
 * more time. A wake-up costs more than a small launch's analysis. */
static int stealable(const half *h) { return ready(h) && h->ln->L->draining && h->next->total >= STEAL_MIN; }

/* Where a thread of lane me finds work (under the lock): its own lane's
 * ready half with the oldest batch, else a stealable half of another lane (a
 * lane alone at the end of a trace gets its locality analysed beside its
 * heat maps), else NULL. */
static half *pick(mh_lanes *L, lane *me) {
    half *best = NULL;
    for (unsigned k = 0; k < me->nh; k++)
        if (ready(&me->h[k]) && (!best || me->h[k].next->seq < best->next->seq)) best = &me->h[k];
    for (unsigned i = 1; i < L->n && !best; i++) {
        lane *o = &L->v[(me->idx + i) % L->n];
        for (unsigned k = 0; k < o->nh && !best; k++)
            if (stealable(&o->h[k])) best = &o->h[k];
    }
    return best;
}

/* Lane ln has a ready half: wakes its thread where it waits, else (a
 * stealable one) another thread that waits (under the lock). */
void mh_lanes_offer(mh_lanes *L, lane *ln) {
    int any = 0, big = 0;
    for (unsigned k = 0; k < ln->nh; k++) {
        any |= ready(&ln->h[k]);
        big |= stealable(&ln->h[k]);
    }
    if (ln->idle && any) {
        pthread_cond_signal(&ln->cv);
        return;
    }
    if (!big) return;
    for (unsigned i = 1; i < L->n; i++) {
        lane *o = &L->v[(ln->idx + i) % L->n];
        if (o->idle) {
            o->idle = 0; /* one wake-up per offer */
            pthread_cond_signal(&o->cv);
            return;
        }
    }
}

/* The reader starts waiting for the lanes (under the lock): the threads
 * that wait are offered the stealable halves. */
void mh_lanes_drain_begin(mh_lanes *L) {
    if (L->draining++ == 0)
        for (unsigned i = 0; i < L->n; i++) mh_lanes_offer(L, &L->v[i]);
}

void mh_lanes_drain_end(mh_lanes *L) { L->draining--; }

/* Whether lane ln's halves have no batch left, in hand or waiting (under the lock). */
static int drained(const lane *ln) {
    for (unsigned k = 0; k < ln->nh; k++)
        if (ln->h[k].next || ln->h[k].busy) return 0;
    return 1;
}

/* One lane's thread: the batches of its halves in order, and of other
 * lanes' halves while it has none; at the finish, its halves' finish and
 * their last marks. */
void *mh_lanes_thread(void *arg) {
    lane *me = arg;
    mh_lanes *L = me->L;
#ifdef __linux__
    pthread_setname_np(pthread_self(), "memheat-lane");
#endif
    pthread_mutex_lock(&L->mu);
    for (;;) {
        half *h = L->stopping ? NULL : pick(L, me);
        if (!h) {
            if (L->stopping || (L->finishing && drained(me))) break;
            uint64_t t0 = mh_clock_ns();
            me->idle = 1;
            pthread_cond_wait(&me->cv, &L->mu);
            me->idle = 0;
            L->idle_ns += mh_clock_ns() - t0;
            continue;
        }
        lbatch *b = h->next;
        /* a small batch that the lane's other half also waits for: both
         * here, one after the other (one round of the lock, no wake-up) */
        half *h2 = NULL;
        if (h->ln == me && b->total < STEAL_MIN)
            for (unsigned k = 0; k < me->nh; k++)
                if (&me->h[k] != h && ready(&me->h[k]) && me->h[k].next == b) h2 = &me->h[k];
        half *hs[2] = {h, h2};
        if (h2 && h2 < h) hs[0] = h2, hs[1] = h; /* in the halves' order: a lane's first error first */
        for (unsigned j = 0; j < 2 && hs[j]; j++) {
            hs[j]->next = b->next; /* NULL: send sets it */
            hs[j]->busy = 1;
        }
        if (!h2) mh_lanes_offer(L, h->ln); /* its other half, for a thread that waits */
        int failed[2] = {hs[0]->failed, h2 ? hs[1]->failed : 0};
        pthread_mutex_unlock(&L->mu);
        mh_err e[2] = {{0}, {0}};
        int rc[2] = {MH_OK, MH_OK};
        double cpu[2] = {0, 0};
        for (unsigned j = 0; j < 2 && hs[j]; j++) {
            double cpu0 = mh_clock_thread_cpu_s();
            rc[j] = failed[j] ? MH_OK : lane_batch(hs[j], b, &e[j]);
            cpu[j] = mh_clock_thread_cpu_s() - cpu0;
        }
        pthread_mutex_lock(&L->mu);
        for (unsigned j = 0; j < 2 && hs[j]; j++) {
            hs[j]->cpu += cpu[j];
            if (rc[j]) fail(hs[j], rc[j], &e[j]);
            publish_mine(hs[j]);
            hs[j]->busy = 0;
            if (--b->left == 0) batch_done(L, h->ln, b);
        }
        if (h->ln != me) {
            L->moved++;
            pthread_cond_signal(&h->ln->cv); /* its lane's thread may wait for it */
        }
        pthread_cond_broadcast(&L->rcv);
    }
    for (unsigned k = 0; k < me->nh && !L->stopping; k++) { /* stopping: another thread may be in a half */
        half *h = &me->h[k];
        if (L->finishing && !h->failed) {
            pthread_mutex_unlock(&L->mu);
            mh_err e = {0};
            double cpu0 = mh_clock_thread_cpu_s();
            int rc = lane_finish(h, &e);
            double cpu = mh_clock_thread_cpu_s() - cpu0;
            pthread_mutex_lock(&L->mu);
            h->cpu += cpu;
            if (rc) fail(h, rc, &e);
        }
        if (!onode_new(h, O_MARK)) h->failed = 1; /* the half is done */
        publish_mine(h);
    }
    me->done = 1;
    pthread_cond_broadcast(&L->rcv);
    pthread_mutex_unlock(&L->mu);
    return NULL;
}
