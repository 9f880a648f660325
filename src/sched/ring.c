/* ring.c -- mh_ring: the pass's worker threads and the ring of jobs they
 * consume (ring.h). One mutex guards the ring; jobs are batches of 2^15
 * accesses (about a millisecond of work), so a lock per job and worker is cheap.
 * Job s lives in slot s % slots; each worker keeps a cursor (the next job it
 * takes) and the slot of job s is free once every cursor is past s. */
#ifdef __linux__
#define _GNU_SOURCE /* pthread_setname_np: worker w shows as memheat-w<w> in top and perf */
#endif
#include "sched/ring.h"

#include <assert.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/clock.h"

typedef struct ring_job {
    const void *job;
    unsigned mask;
} ring_job;

typedef struct ring_worker {
    mh_ring *r;
    unsigned w;
    pthread_t tid;
    uint64_t cursor; /* next job this worker takes; guarded by mu */
    uint64_t wait_ns; /* under mu: waiting for a job or for a unit followed (mh_ring_waits) */
} ring_worker;

struct mh_ring {
    unsigned nunits, nworkers, slots;
    mh_ring_fn fn;
    void *ctx;
    pthread_mutex_t mu;
    pthread_cond_t go, done;
    ring_job *jobs;
    ring_worker *wk;
    uint64_t head;     /* jobs submitted */
    uint64_t stop_seq; /* the earliest failed job; UINT64_MAX = none */
    uint64_t fail_seq[MH_RING_MAX_UNITS];
    int fail_rc[MH_RING_MAX_UNITS];
    int follows[MH_RING_MAX_UNITS]; /* the unit each one follows, or -1 (mh_ring_follow) */
    unsigned worker[MH_RING_MAX_UNITS]; /* the worker each unit runs on (mh_ring_place) */
    mh_err fail_err[MH_RING_MAX_UNITS];
    int reported; /* the error was returned by a drain */
    double cpu;   /* CPU seconds the workers spent on jobs */
    double unit_cpu[MH_RING_MAX_UNITS]; /* the same, per unit */
    uint64_t room_ns; /* the submitter waiting for a free slot */
    int stop;
};

static unsigned unit_worker(const mh_ring *r, unsigned u) { return r->worker[u]; }

static uint64_t min_cursor(const mh_ring *r) {
    uint64_t m = UINT64_MAX;
    for (unsigned w = 0; w < r->nworkers; w++)
        if (r->wk[w].cursor < m) m = r->wk[w].cursor;
    return m;
}

static void *ring_main(void *arg) {
    ring_worker *me = arg;
    mh_ring *r = me->r;
#ifdef __linux__
    char name[16];
    snprintf(name, sizeof name, "memheat-w%u", me->w);
    pthread_setname_np(pthread_self(), name);
#endif
    pthread_mutex_lock(&r->mu);
    for (;;) {
        uint64_t w0 = mh_clock_ns();
        while (!r->stop && me->cursor == r->head) pthread_cond_wait(&r->go, &r->mu);
        me->wait_ns += mh_clock_ns() - w0;
        if (me->cursor == r->head) break; /* stopping, all done */
        uint64_t s = me->cursor;
        ring_job j = r->jobs[s % r->slots];
        int take[MH_RING_MAX_UNITS] = {0};
        for (unsigned u = 0; u < r->nunits; u++) {
            take[u] = unit_worker(r, u) == me->w && (j.mask >> u & 1u) && r->fail_seq[u] == UINT64_MAX &&
                      s <= r->stop_seq;
            int f = r->follows[u];
            if (!take[u] || f < 0) continue;
            /* the unit followed is on another worker: wait until it is past this job (on this
             * worker it comes first anyway: units run in unit order) */
            unsigned fw = unit_worker(r, (unsigned)f);
            uint64_t f0 = mh_clock_ns();
            while (fw != me->w && r->wk[fw].cursor <= s && r->fail_seq[f] > s) pthread_cond_wait(&r->done, &r->mu);
            me->wait_ns += mh_clock_ns() - f0;
            if (r->fail_seq[f] <= s) take[u] = 0; /* its input of this job is not there */
        }
        if (s > r->stop_seq) memset(take, 0, sizeof take); /* a unit failed at an earlier job meanwhile */
        pthread_mutex_unlock(&r->mu);
        int rc[MH_RING_MAX_UNITS] = {0};
        double ucpu[MH_RING_MAX_UNITS] = {0};
        mh_err e[MH_RING_MAX_UNITS];
        double cpu0 = mh_clock_thread_cpu_s();
        for (unsigned u = 0; u < r->nunits; u++) {
            if (!take[u]) continue;
            int f = r->follows[u]; /* read-only once jobs run */
            if (f >= 0 && take[f] && rc[f]) { /* the unit followed failed this job here: no input */
                take[u] = 0;
                continue;
            }
            memset(&e[u], 0, sizeof e[u]);
            double u0 = mh_clock_thread_cpu_s();
            rc[u] = r->fn(r->ctx, u, j.job, &e[u]);
            ucpu[u] = mh_clock_thread_cpu_s() - u0;
        }
        double cpu = mh_clock_thread_cpu_s() - cpu0;
        pthread_mutex_lock(&r->mu);
        r->cpu += cpu;
        for (unsigned u = 0; u < r->nunits; u++) r->unit_cpu[u] += ucpu[u];
        for (unsigned u = 0; u < r->nunits; u++) {
            if (!take[u] || rc[u] == 0) continue;
            r->fail_seq[u] = s;
            r->fail_rc[u] = rc[u];
            r->fail_err[u] = e[u];
            if (s < r->stop_seq) r->stop_seq = s;
        }
        me->cursor = s + 1;
        pthread_cond_broadcast(&r->done); /* the submitter, a drain, workers of following units */
    }
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

static void ring_join(mh_ring *r, unsigned started) {
    pthread_mutex_lock(&r->mu);
    r->stop = 1;
    pthread_cond_broadcast(&r->go);
    pthread_mutex_unlock(&r->mu);
    for (unsigned w = 0; w < started; w++) pthread_join(r->wk[w].tid, NULL);
}

static void ring_release(mh_ring *r) {
    pthread_mutex_destroy(&r->mu);
    pthread_cond_destroy(&r->go);
    pthread_cond_destroy(&r->done);
    free(r->jobs);
    free(r->wk);
    free(r);
}

int mh_ring_new(mh_ring **out, unsigned nunits, unsigned nworkers, unsigned slots, mh_ring_fn fn, void *ctx,
                mh_err *err) {
    assert(nunits >= 1 && nunits <= MH_RING_MAX_UNITS && nworkers >= 1 && nworkers <= nunits && slots >= 2);
    *out = NULL;
    mh_ring *r = calloc(1, sizeof *r);
    if (!r) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    r->jobs = calloc(slots, sizeof *r->jobs);
    r->wk = calloc(nworkers, sizeof *r->wk);
    if (!r->jobs || !r->wk) {
        free(r->jobs);
        free(r->wk);
        free(r);
        return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    }
    r->nunits = nunits;
    r->nworkers = nworkers;
    r->slots = slots;
    r->fn = fn;
    r->ctx = ctx;
    r->stop_seq = UINT64_MAX;
    for (unsigned u = 0; u < MH_RING_MAX_UNITS; u++) {
        r->fail_seq[u] = UINT64_MAX;
        r->follows[u] = -1;
        r->worker[u] = u < nunits ? (unsigned)((uint64_t)u * nworkers / nunits) : 0;
    }
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->go, NULL);
    pthread_cond_init(&r->done, NULL);
    unsigned started = 0;
    for (unsigned w = 0; w < nworkers; w++) {
        r->wk[w].r = r;
        r->wk[w].w = w;
        if (pthread_create(&r->wk[w].tid, NULL, ring_main, &r->wk[w]) != 0) break;
        started++;
    }
    if (started < nworkers) {
        ring_join(r, started);
        ring_release(r);
        return mh_err_set(err, MH_ERR_INTERNAL, "cannot start analysis threads");
    }
    *out = r;
    return MH_OK;
}

void mh_ring_follow(mh_ring *r, unsigned u, unsigned first) {
    assert(first < u && u < r->nunits && r->head == 0);
    pthread_mutex_lock(&r->mu);
    r->follows[u] = (int)first;
    pthread_mutex_unlock(&r->mu);
}

void mh_ring_place(mh_ring *r, unsigned u, unsigned worker) {
    assert(u < r->nunits && worker < r->nworkers && r->head == 0);
    pthread_mutex_lock(&r->mu);
    r->worker[u] = worker;
    pthread_mutex_unlock(&r->mu);
}

unsigned mh_ring_slot(const mh_ring *r) { return (unsigned)(r->head % r->slots); }

int mh_ring_submit(mh_ring *r, const void *job, unsigned mask) {
    pthread_mutex_lock(&r->mu);
    int failed = r->stop_seq != UINT64_MAX;
    if (!failed) {
        r->jobs[r->head % r->slots] = (ring_job){job, mask};
        r->head++;
        pthread_cond_broadcast(&r->go);
        /* the next job's slot held job head - slots: free once every worker is past it */
        uint64_t t0 = mh_clock_ns();
        while (r->head - min_cursor(r) >= r->slots) pthread_cond_wait(&r->done, &r->mu);
        r->room_ns += mh_clock_ns() - t0;
    }
    pthread_mutex_unlock(&r->mu);
    return failed;
}

int mh_ring_drain(mh_ring *r, mh_err *err) {
    pthread_mutex_lock(&r->mu);
    while (min_cursor(r) < r->head) pthread_cond_wait(&r->done, &r->mu);
    int rc = MH_OK;
    uint64_t best = UINT64_MAX;
    for (unsigned u = 0; u < r->nunits; u++)
        if (r->fail_seq[u] < best) { /* strict: the first unit wins a tie */
            best = r->fail_seq[u];
            rc = r->fail_rc[u];
            if (err) *err = r->fail_err[u];
        }
    if (r->reported) rc = MH_OK;
    if (rc) r->reported = 1;
    pthread_mutex_unlock(&r->mu);
    return rc;
}

void mh_ring_free(mh_ring *r) {
    if (!r) return;
    ring_join(r, r->nworkers);
    ring_release(r);
}

double mh_ring_cpu_s(mh_ring *r) {
    pthread_mutex_lock(&r->mu);
    double c = r->cpu;
    pthread_mutex_unlock(&r->mu);
    return c;
}

void mh_ring_waits(mh_ring *r, double *room, double *unit_wait) {
    pthread_mutex_lock(&r->mu);
    *room = (double)r->room_ns * 1e-9;
    for (unsigned u = 0; u < r->nunits; u++) unit_wait[u] = (double)r->wk[unit_worker(r, u)].wait_ns * 1e-9;
    pthread_mutex_unlock(&r->mu);
}

double mh_ring_unit_cpu_s(mh_ring *r, unsigned u) {
    assert(u < r->nunits);
    pthread_mutex_lock(&r->mu);
    double c = r->unit_cpu[u];
    pthread_mutex_unlock(&r->mu);
    return c;
}
