/* pass_units.c -- mh_pass's built-in analyses as units on worker threads
 * (pass_internal.h): each record or batch through a unit, the ring of
 * batches the workers consume (ring.h), and the batches themselves (records
 * read in place in their held trace chunks, or copied). */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/pass_internal.h"

int mh_pass_unit_feed(mh_pass *p, int u, const mh_record *rec, mh_err *err) {
    switch (u) {
    case U_HEAT: return p->hr ? mh_heat_run_feed(p->hr, rec, err) : MH_OK;
    case U_HEAT2: case U_HEAT3: case U_HEAT4:
        return p->hrp[u - U_HEAT2] ? mh_heat_run_feed(p->hrp[u - U_HEAT2], rec, err) : MH_OK;
    case U_PAT: return p->pat ? mh_pat_run_feed(p->pat, rec, err) : MH_OK;
    case U_PAT1: case U_PAT1B: case U_PAT1C: case U_PAT3B: case U_PAT3: case U_LOC1: case U_LOC1B: case U_LOC1C: case U_LOC3B: case U_LOC3:
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
        else if (u == U_PAT1C) rc = mh_pat_run_stage1c(p->pat, rec.u.accesses.v, rec.u.accesses.n, &b->pst, at, i, err);
        else if (u == U_PAT) rc = mh_pat_run_stage2(p->pat, rec.u.accesses.v, rec.u.accesses.n, &b->pst, at, i, err);
        else if (u == U_LOC1)
            rc = mh_loc_run_stage1(p->lr, rec.u.accesses.v, rec.u.accesses.n, &b->lst, at, i,
                                   p->three && p->pat ? b->pst.key : NULL, err);
        else if (u == U_LOC1B) rc = mh_loc_run_stage1b(p->lr, rec.u.accesses.v, rec.u.accesses.n, &b->lst, at, i, err);
        else if (u == U_LOC1C) rc = mh_loc_run_stage1c(p->lr, rec.u.accesses.v, rec.u.accesses.n, &b->lst, at, i, err);
        else if (u == U_LOC) rc = mh_loc_run_stage2(p->lr, rec.u.accesses.v, rec.u.accesses.n, &b->lst, at, i, err);
        else if (u == U_PAT3B) rc = mh_pat_run_stage3b(p->pat, &b->pst, i, err);
        else if (u == U_PAT3) rc = mh_pat_run_stage3(p->pat, &b->pst, i, err);
        else if (u == U_LOC3B) rc = mh_loc_run_stage3b(p->lr, &b->lst, i, err);
        else if (u == U_LOC3) rc = mh_loc_run_stage3(p->lr, &b->lst, i, err);
        else rc = mh_pass_unit_feed(p, u, &rec, err);
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
    return b->rec ? mh_pass_unit_feed(p, u, b->rec, err) : unit_feed_batch(p, u, b, err);
}

/* The stages of one analysis on the ring (at: each unit's ring position):
 * each takes a batch once the stage before it is done with it; stage 1b
 * and the third stage with three, stage 3b with evalb, stage 1c with c1. */
static void follow_stages(mh_ring *r, const unsigned *at, int s1, int s1b, int s1c, int s2, int s3b, int s3,
                          int three, int evalb, int c1) {
    mh_ring_follow(r, at[s2], at[c1 ? s1c : three ? s1b : s1]);
    if (!three) return;
    mh_ring_follow(r, at[s1b], at[s1]);
    if (c1) mh_ring_follow(r, at[s1c], at[s1b]);
    mh_ring_follow(r, at[s3], at[evalb ? s3b : s2]);
    if (evalb) mh_ring_follow(r, at[s3b], at[s2]);
}

/* Ring unit i is the pass's i-th unit in enum order (ring.h pins units to
 * workers, unit i on worker i * workers / units: with fewer workers than
 * units, neighbours share one). */
int mh_pass_pool_start(mh_pass *p, unsigned nworkers, int three, unsigned nheat, int evalb, int c1, int pc1,
                       mh_err *err) {
    assert(three || !evalb);
    assert(evalb || !c1);
    assert(three || !pc1);
    assert(nheat == 1 || nheat == 2 || nheat == 4);
    if (nheat > 1 && mh_heat_run_split(p->hr, nheat, p->hrp, err) != MH_OK) return err ? err->code : MH_ERR_NOMEM;
    const void *units[U_COUNT] = {p->hr,
                                  p->hrp[0],
                                  p->hrp[1],
                                  p->hrp[2],
                                  p->pat,
                                  three ? p->pat : NULL,
                                  pc1 ? p->pat : NULL,
                                  p->pat,
                                  evalb ? p->pat : NULL,
                                  three ? p->pat : NULL,
                                  p->lr,
                                  three ? p->lr : NULL,
                                  c1 ? p->lr : NULL,
                                  p->lr,
                                  evalb ? p->lr : NULL,
                                  three ? p->lr : NULL};
    _Static_assert(U_COUNT == 16 && U_COUNT <= MH_RING_MAX_UNITS, "one ring unit per pass unit");
    unsigned n = 0, at[U_COUNT];
    for (int u = 0; u < U_COUNT; u++)
        if (units[u]) {
            if (u == U_LOC) p->loc_pos = n;
            at[u] = n;
            p->unit_at[n++] = u;
        }
    int rc = mh_ring_new(&p->ring, n, nworkers, RING_SLOTS, ring_feed, p, err);
    if (rc == MH_OK && p->pat) {
        follow_stages(p->ring, at, U_PAT1, U_PAT1B, U_PAT1C, U_PAT, U_PAT3B, U_PAT3, three, evalb, pc1);
        if (three) mh_pat_run_three(p->pat);
        if (pc1) mh_pat_run_owners_apart(p->pat);
        if (three && p->lr) mh_pat_run_keys_all(p->pat); /* the locality's stages read them */
        if (evalb) mh_pat_run_evalb(p->pat);
    }
    if (rc == MH_OK && p->lr) {
        if (three && p->pat) mh_ring_follow(p->ring, at[U_LOC1], at[U_PAT1]); /* U_PAT1's keys */
        follow_stages(p->ring, at, U_LOC1, U_LOC1B, U_LOC1C, U_LOC, U_LOC3B, U_LOC3, three, evalb, c1 != 0);
        if (three) mh_loc_run_three(p->lr);
        if (c1) mh_loc_run_part0(p->lr);
        if (evalb) mh_loc_run_evalb(p->lr);
    }
    if (rc == MH_OK) {
        p->pool_ok = 1;
        p->three = three;
        p->nworkers = nworkers;
        p->nunits = n;
    }
    return rc;
}

void mh_pass_pool_stop(mh_pass *p) {
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

batch *mh_pass_cur_batch(mh_pass *p) { return &p->b[mh_ring_slot(p->ring)]; }

/* Empties b (no worker reads it), giving its chunks back. */
void mh_pass_batch_clear(batch *b) {
    mh_trace_holds_clear(&b->holds);
    b->n = b->ncopy = b->nrec = 0;
    b->rec = NULL;
}

/* Hands the current slot's job to the units in mask; the next slot (every
 * worker is done with it) is emptied for filling. 1: a unit has failed. */
int mh_pass_pool_submit(mh_pass *p, unsigned mask) {
    int failed = mh_ring_submit(p->ring, mh_pass_cur_batch(p), mask);
    mh_pass_batch_clear(mh_pass_cur_batch(p));
    return failed;
}

/* Hands the batch being filled to every unit, if it holds any accesses. */
int mh_pass_pool_flush(mh_pass *p, mh_err *err) {
    if (mh_pass_cur_batch(p)->n == 0) return MH_OK;
    if (!mh_pass_pool_submit(p, ~0u)) return MH_OK;
    int rc = mh_ring_drain(p->ring, err); /* a unit failed: its error */
    return rc ? rc : mh_err_set(err, MH_ERR_INTERNAL, "analysis workers stopped");
}

/* Every access read so far through every unit: before the model changes.
 * The first error by batch, then in unit order, whatever the timing. */
int mh_pass_pool_barrier(mh_pass *p, mh_err *err) {
    int rc = mh_pass_pool_flush(p, err);
    return rc ? rc : mh_ring_drain(p->ring, err);
}

/* Adds a record's accesses to b: in place when hold is the chunk they lie
 * in (borrowed from the reader: b takes a reference), else copied. */
int mh_pass_batch_add(batch *b, const mh_access *v, size_t n, mh_trace_hold *hold, mh_err *err) {
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
