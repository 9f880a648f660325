/* exec.c -- an executor: the analyses of one model (exec.h). */
#include "pass/exec.h"

#include <assert.h>
#include <string.h>

void mh_exec_note_used(mh_model *m, const mh_heat_result *r) {
    for (size_t i = 0; i < r->nregions; i++) {
        const mh_heat_region *g = &r->regions[i];
        if (g->obj < 0 || (size_t)g->obj >= m->nobjs || m->objs[g->obj].arg < 0 || g->used_hi <= g->used_lo)
            continue;
        uint64_t base = m->objs[g->obj].a.base, size = m->objs[g->obj].a.size;
        uint64_t lo = g->used_lo > base ? g->used_lo - base : 0, hi = g->used_hi - base;
        if (g->used_hi <= base) continue;
        if (hi > size) hi = size;
        mh_model_note_used(m, g->obj, lo, hi);
    }
}

/* What row em->row emitted: the bytes a heat map's views used into the
 * model, the analyses that take it, then the sink. */
static int emitted(void *ctx, int kind, const void *result, mh_err *err) {
    mh_exec_emitter *em = ctx;
    mh_exec *ex = em->ex;
    if (kind == MH_RESULT_HEAT) mh_exec_note_used(ex->m, result);
    int rc = MH_OK;
    for (unsigned i = 0; i < mh_nanalyses && rc == MH_OK; i++)
        if ((em->takers >> i & 1u) && ex->run[i]) rc = mh_analyses[i]->take(ex->run[i], kind, result, err);
    return rc ? rc : ex->sink.fn(ex->sink.ctx, em->row, kind, result, err);
}

int mh_exec_open(mh_exec *ex, unsigned on, mh_model *m, const mh_pass_opts *o, const mh_exec_sink *sink,
                 mh_err *err) {
    memset(ex, 0, sizeof *ex);
    ex->m = m;
    ex->on = on;
    ex->sink = *sink;
    uint32_t spaces = o->heat_spaces;
    for (unsigned i = 0; i < mh_nanalyses; i++)
        if ((on >> i & 1u) && spaces) spaces |= mh_analyses[i]->maps;
    int rc = MH_OK;
    for (unsigned i = 0; i < mh_nanalyses && rc == MH_OK; i++) {
        ex->nparts[i] = 1;
        if (!(on >> i & 1u)) continue;
        ex->em[i] = (mh_exec_emitter){{emitted, &ex->em[i]}, ex, i, 0};
        for (unsigned k = 0; k < mh_nanalyses; k++)
            if (mh_analyses[k]->take && mh_analyses_bit(mh_analyses[k]->needs) == 1u << i) ex->em[i].takers |= 1u << k;
        mh_analysis_env env = {m, o->group_budget, spaces, &ex->em[i].emit};
        rc = mh_analyses[i]->open(&ex->run[i], &env, err);
    }
    if (rc) mh_exec_close(ex);
    return rc;
}

int mh_exec_parts(mh_exec *ex, unsigned i, unsigned n, mh_err *err) {
    assert(ex->run[i] && mh_analyses[i]->parts && n >= 2 && n <= MH_EXEC_MAX_PARTS);
    int rc = mh_analyses[i]->parts(ex->run[i], n, ex->part[i], err);
    if (rc == MH_OK) ex->nparts[i] = n;
    return rc;
}

int mh_exec_feed_row(mh_exec *ex, unsigned i, const mh_record *rec, mh_err *err) {
    const mh_analysis *a = mh_analyses[i];
    int rc = a->feed(ex->run[i], rec, err);
    for (unsigned k = 0; k + 1 < ex->nparts[i] && rc == MH_OK; k++) rc = a->feed(ex->part[i][k], rec, err);
    return rc;
}

int mh_exec_feed(mh_exec *ex, const mh_record *rec, mh_err *err) {
    int rc = rec->type != MH_REC_ACCESSES ? mh_model_feed(ex->m, rec, err) : MH_OK;
    for (unsigned i = 0; i < mh_nanalyses && rc == MH_OK; i++)
        if (ex->run[i]) rc = mh_exec_feed_row(ex, i, rec, err);
    return rc;
}

int mh_exec_finish(mh_exec *ex, mh_err *err) {
    int rc = MH_OK;
    for (unsigned i = 0; i < mh_nanalyses && rc == MH_OK; i++)
        if (ex->run[i]) rc = mh_analyses[i]->finish(ex->run[i], err);
    return rc;
}

void *mh_exec_take(mh_exec *ex, unsigned i) {
    void *r = ex->run[i];
    ex->run[i] = NULL;
    return r;
}

void mh_exec_close(mh_exec *ex) {
    for (unsigned i = 0; i < mh_nanalyses; i++) {
        const mh_analysis *a = mh_analyses[i];
        if (ex->run[i]) a->close(ex->run[i]);
        for (unsigned k = 0; k + 1 < MH_EXEC_MAX_PARTS; k++)
            if (ex->part[i][k]) a->close(ex->part[i][k]);
        ex->run[i] = NULL;
        memset(ex->part[i], 0, sizeof ex->part[i]);
    }
}
