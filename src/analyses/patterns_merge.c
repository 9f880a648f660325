/* patterns_merge.c -- mh_pat_run_merge (analyses/patterns.h): the pattern
 * runs of mh_pass's launch lanes (lanes.c) made into one, equal to the run
 * the serial pass builds.
 *
 * Why the result is the serial one: a launch's findings, requests and bank
 * statistics come from that launch alone, and each launch went to exactly
 * one run. Findings and requests are sorted by total orders
 * (mh_pat_cmp_finding, mh_pat_cmp_req), so concatenating and sorting gives
 * the serial arrays. Bank statistics keep insertion order (it is the output
 * order), so they are merged by the rank the caller gives each launch.
 * Findings point into their run's model: the strings are re-pointed to the
 * same entries (same index) of dst's model, which was fed the same records. */
#include "analyses/patterns_state.h"

#include "analyses/finding.h"

#include <stdlib.h>
#include <string.h>

#include "util/grow.h"
#include "util/sort.h"

static int merge_banks(mh_pat_run *dst, mh_pat_run *const *src, size_t nsrc,
                       uint64_t (*rank)(void *ctx, uint32_t launch), void *ctx, mh_err *err) {
    size_t total = dst->banks.n;
    for (size_t s = 0; s < nsrc; s++) total += src[s]->banks.n;
    if (total == dst->banks.n) return MH_OK;
    size_t *at = calloc(nsrc + 1, sizeof *at);
    if (!at) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    mh_bank_table out;
    mh_bank_init(&out);
    int rc = MH_OK;
    /* k-way merge: each table is in non-decreasing rank; equal ranks never
     * come from two tables (one launch, one run) */
    for (size_t k = 0; k < total && rc == MH_OK; k++) {
        size_t best = SIZE_MAX;
        uint64_t br = 0;
        for (size_t s = 0; s <= nsrc; s++) {
            const mh_bank_table *t = s ? &src[s - 1]->banks : &dst->banks;
            if (at[s] >= t->n) continue;
            uint64_t r = rank(ctx, t->v[at[s]].launch);
            if (best == SIZE_MAX || r < br) {
                best = s;
                br = r;
            }
        }
        const mh_bank_table *t = best ? &src[best - 1]->banks : &dst->banks;
        rc = mh_bank_put(&out, &t->v[at[best]++], err);
    }
    free(at);
    if (rc) {
        mh_bank_free(&out);
        return rc;
    }
    mh_bank_free(&dst->banks);
    dst->banks = out;
    return MH_OK;
}

int mh_pat_run_merge(mh_pat_run *dst, mh_pat_run *const *src, size_t nsrc,
                     uint64_t (*rank)(void *ctx, uint32_t launch), void *ctx, mh_err *err) {
    size_t nf = dst->nf, nreq = dst->nreq;
    for (size_t s = 0; s < nsrc; s++) {
        nf += src[s]->nf;
        nreq += src[s]->nreq;
    }
    if (nf > dst->nf) {
        mh_pat_finding *v = mh_grow(dst->f, &dst->capf, nf, sizeof *v, 32);
        if (!v) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
        dst->f = v;
    }
    if (nreq > dst->nreq) {
        mh_pat_req *v = mh_grow(dst->req, &dst->capreq, nreq, sizeof *v, 64);
        if (!v) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
        dst->req = v;
    }
    int rc = merge_banks(dst, src, nsrc, rank, ctx, err);
    if (rc) return rc;
    for (size_t s = 0; s < nsrc; s++) {
        mh_pat_run *r = src[s];
        for (size_t i = 0; i < r->nf; i++) {
            mh_pat_finding *f = &dst->f[dst->nf++];
            *f = r->f[i]; /* takes its pcs */
            mh_finding_rebind(f, r->model, dst->model);
        }
        r->nf = 0;
        if (r->nreq) memcpy(dst->req + dst->nreq, r->req, r->nreq * sizeof *r->req);
        dst->nreq += r->nreq;
        if (r->peak > dst->peak) dst->peak = r->peak;
        dst->merged_split += mh_pat_run_split(r);
    }
    if (dst->nf) mh_sort(dst->f, dst->nf, sizeof *dst->f, mh_pat_cmp_finding);
    if (dst->nreq) mh_sort(dst->req, dst->nreq, sizeof *dst->req, mh_pat_cmp_req);
    return MH_OK;
}
