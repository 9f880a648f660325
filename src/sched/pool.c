/* pool.c -- mh_pool (pool.h): the batches a plan's units consume on the
 * ring's workers, read in place in their held trace chunks or copied. */
#include "sched/pool.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "sched/ring.h"

/* ACCESSES records waiting for, or in, the workers: each read in place in
 * its trace chunk (held, mh_trace_hold) or, where it is not in one (a
 * filtered copy, a decoded record), copied into v. */
typedef struct batch {
    mh_access *v;
    size_t ncopy, cap;       /* accesses copied into v */
    size_t n;                /* accesses in the batch, in place or copied */
    size_t *rec_n;           /* accesses per original record, in order */
    const mh_access **rec_v; /* per record: where it lies, or NULL: the next ones copied into v */
    size_t nrec, caprec;
    mh_trace_holds holds;    /* the chunks the records lie in */
    const mh_record *rec;    /* set: the job is this one record instead */
    void **hand;             /* the analyses' hand-overs (mh_pool_hands) */
} batch;

struct mh_pool {
    mh_ring *ring;
    mh_pool_unit unit[MH_PLAN_MAX_UNITS];
    unsigned nunits;
    unsigned nhands;
    void (*release[MH_PLAN_MAX_ANALYSES])(void *hand);
    batch b[MH_POOL_SLOTS];
};

/* A batch through unit u on its worker. */
static int feed_batch(mh_pool *p, const mh_pool_unit *u, batch *b, mh_err *err) {
    size_t off = 0;
    mh_stage_in in = {.hand = b->hand[u->hand], .lent = u->lent >= 0 ? b->hand[u->lent] : NULL};
    for (size_t i = 0; i < b->nrec; i++) {
        in.v = b->rec_v[i] ? b->rec_v[i] : b->v + off;
        in.n = b->rec_n[i];
        in.rec = i;
        if (!b->rec_v[i]) off += b->rec_n[i];
        int rc = u->stage(u->run, &in, err);
        if (rc) return rc;
        in.off += b->rec_n[i];
    }
    assert(off == b->ncopy && in.off == b->n);
    (void)p;
    return MH_OK;
}

/* A ring job: a batch in one of p->b, or (rec set) one record. */
static int ring_feed(void *ctx, unsigned pos, const void *job, mh_err *err) {
    mh_pool *p = ctx;
    batch *b = (batch *)job; /* one of p->b: the stages write its hand-overs */
    const mh_pool_unit *u = &p->unit[pos];
    if (b->rec) return u->record ? u->record(u->run, b->rec, err) : MH_OK;
    return feed_batch(p, u, b, err);
}

static batch *cur(mh_pool *p) { return &p->b[mh_ring_slot(p->ring)]; }

/* Empties b (no worker reads it), giving its chunks back. */
static void batch_clear(batch *b) {
    mh_trace_holds_clear(&b->holds);
    b->n = b->ncopy = b->nrec = 0;
    b->rec = NULL;
}

int mh_pool_new(mh_pool **out, const mh_plan *plan, const mh_pool_unit *units, const mh_pool_hands *hands,
                mh_err *err) {
    assert(plan->nworkers >= 1 && plan->nunits >= 1);
    *out = NULL;
    mh_pool *p = calloc(1, sizeof *p);
    if (!p) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    p->nunits = plan->nunits;
    memcpy(p->unit, units, plan->nunits * sizeof *units);
    assert(hands->n <= MH_PLAN_MAX_ANALYSES);
    p->nhands = hands->n;
    for (unsigned h = 0; h < hands->n; h++) p->release[h] = hands->release[h];
    for (int s = 0; s < MH_POOL_SLOTS; s++) {
        p->b[s].hand = calloc(hands->n ? hands->n : 1, sizeof *p->b[s].hand);
        if (!p->b[s].hand) goto nomem;
        for (unsigned h = 0; h < hands->n; h++)
            if (!(p->b[s].hand[h] = calloc(1, hands->size[h] ? hands->size[h] : 1))) goto nomem;
    }
    int rc = mh_ring_new(&p->ring, plan->nunits, plan->nworkers, MH_POOL_SLOTS, ring_feed, p, err);
    if (rc) {
        mh_pool_free(p);
        return rc;
    }
    for (unsigned u = 0; u < plan->nunits; u++) {
        mh_ring_place(p->ring, u, plan->unit[u].worker);
        if (plan->unit[u].follows >= 0) mh_ring_follow(p->ring, u, (unsigned)plan->unit[u].follows);
    }
    *out = p;
    return MH_OK;
nomem:
    mh_pool_free(p);
    return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
}

/* Hands the current slot's job to the units in mask; the next slot (every
 * worker is done with it) is emptied for filling. 1: a unit has failed. */
static int submit(mh_pool *p, unsigned mask) {
    int failed = mh_ring_submit(p->ring, cur(p), mask);
    batch_clear(cur(p));
    return failed;
}

/* Hands the batch being filled to every unit, if it holds any accesses. */
static int flush(mh_pool *p, mh_err *err) {
    if (cur(p)->n == 0) return MH_OK;
    if (!submit(p, ~0u)) return MH_OK;
    int rc = mh_ring_drain(p->ring, err); /* a unit failed: its error */
    return rc ? rc : mh_err_set(err, MH_ERR_INTERNAL, "analysis workers stopped");
}

int mh_pool_barrier(mh_pool *p, mh_err *err) {
    int rc = flush(p, err);
    return rc ? rc : mh_ring_drain(p->ring, err);
}

void mh_pool_record(mh_pool *p, const mh_record *rec, unsigned mask) {
    cur(p)->rec = rec; /* the slot's batch is empty after the barrier */
    submit(p, mask);   /* no unit has failed: the barrier said so */
}

int mh_pool_drain(mh_pool *p, mh_err *err) { return mh_ring_drain(p->ring, err); }

int mh_pool_accesses(mh_pool *p, const mh_access *v, size_t n, mh_trace_hold *hold, mh_err *err) {
    batch *b = cur(p);
    if (!hold && b->ncopy + n > b->cap) {
        size_t cap = b->cap ? b->cap : MH_POOL_BATCH;
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
    return b->n >= MH_POOL_BATCH ? flush(p, err) : MH_OK;
}

void mh_pool_times_get(mh_pool *p, mh_pool_times *t) {
    memset(t, 0, sizeof *t);
    t->cpu = mh_ring_cpu_s(p->ring);
    for (unsigned u = 0; u < p->nunits; u++) t->unit_cpu[u] = mh_ring_unit_cpu_s(p->ring, u);
    mh_ring_waits(p->ring, &t->room, t->unit_wait);
}

void mh_pool_free(mh_pool *p) {
    if (!p) return;
    mh_ring_free(p->ring); /* drained: every job done */
    for (int s = 0; s < MH_POOL_SLOTS; s++) {
        batch *b = &p->b[s];
        batch_clear(b);
        for (unsigned h = 0; b->hand && h < p->nhands; h++) {
            if (b->hand[h] && p->release[h]) p->release[h](b->hand[h]);
            free(b->hand[h]);
        }
        free(b->hand);
        mh_trace_holds_free(&b->holds);
        free(b->v);
        free(b->rec_n);
        free(b->rec_v);
    }
    free(p);
}
