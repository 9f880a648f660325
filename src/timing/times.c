/* times.c -- what memheat makes of a timeline's launch times (timing.h):
 * per-kernel aggregates; a traced launch's time taken another way (the
 * median of its configuration's untraced launches, or the counters run's
 * replay time); and the GPU's time shared among kernels that ran side by
 * side on several streams (the denominator of their bandwidth). Apart from
 * timing.c (the file format), which libmemheat_cupti.so compiles alone. */
#include "memheat/timing.h"
#include "util/sort.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- aggregation ------------------------------------------------------ */

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : (x > y);
}

double mh_timing_median_u64(uint64_t *v, size_t n) {
    if (n == 0) return 0.0;
    mh_sort(v, n, sizeof *v, cmp_u64);
    if (n % 2) return (double)v[n / 2];
    return ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2.0;
}

typedef struct by_name {
    const mh_timing_kernel *k;
} by_name;

static int cmp_by_name(const void *a, const void *b) {
    const mh_timing_kernel *x = ((const by_name *)a)->k, *y = ((const by_name *)b)->k;
    if (x->device != y->device) return x->device < y->device ? -1 : 1;
    int c = strcmp(x->name, y->name);
    if (c) return c;
    return x->seq < y->seq ? -1 : (x->seq > y->seq);
}

static int cmp_stats_total(const void *a, const void *b) {
    const mh_timing_stats *x = a, *y = b;
    if (x->total_ns != y->total_ns) return x->total_ns > y->total_ns ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* acc + v where v is a figure; acc may be NAN (no figure yet) */
static double add_finite(double acc, double v) { return isfinite(v) ? (isnan(acc) ? v : acc + v) : acc; }

int mh_timing_aggregate(const mh_timing *t, mh_timing_stats **out, size_t *n, mh_err *err) {
    *out = NULL;
    *n = 0;
    if (t->nkernels == 0) return MH_OK;
    by_name *ix = malloc(t->nkernels * sizeof *ix);
    uint64_t *dur = malloc(t->nkernels * sizeof *dur);
    mh_timing_stats *st = calloc(t->nkernels, sizeof *st);
    double *share = mh_timing_shares(t);
    if (!ix || !dur || !st || !share) {
        free(ix);
        free(dur);
        free(st);
        free(share);
        return mh_err_set(err, MH_ERR_NOMEM, "out of memory aggregating kernels");
    }
    for (size_t i = 0; i < t->nkernels; i++) ix[i].k = &t->kernels[i];
    mh_sort(ix, t->nkernels, sizeof *ix, cmp_by_name);
    size_t ns = 0;
    for (size_t i = 0; i < t->nkernels;) {
        size_t j = i;
        mh_timing_stats *s = &st[ns++];
        s->name = ix[i].k->name;
        s->device = ix[i].k->device;
        s->min_ns = UINT64_MAX;
        /* a counter no launch measured (not in the set profiled) stays unknown, not 0 */
        s->ld_requests = s->ld_sectors = s->st_requests = s->st_sectors = NAN;
        s->flops_sp = s->flops_dp = NAN;
        double occ_w = 0, warps_w = 0, occ_t = 0, warps_t = 0;
        size_t nd = 0; /* measured durations in dur[] */
        while (j < t->nkernels && ix[j].k->device == s->device && strcmp(ix[j].k->name, s->name) == 0) {
            const mh_timing_kernel *k = ix[j].k;
            uint64_t d = k->end_ns - k->start_ns;
            s->count++;
            if (k->timed == MH_TIMED_INSTRUMENTED) s->instrumented++;
            if (mh_timing_measured(k)) {
                dur[i + nd++] = d;
                s->total_ns += d;
                if (d < s->min_ns) s->min_ns = d;
                if (d > s->max_ns) s->max_ns = d;
            } else {
                s->unmeasured++;
            }
            if (k->has_counters) {
                s->with_counters++;
                if (mh_timing_measured(k) && (isfinite(k->c.dram_read_bytes) || isfinite(k->c.dram_write_bytes))) {
                    s->dram_bytes = add_finite(s->dram_bytes, k->c.dram_read_bytes);
                    s->dram_bytes = add_finite(s->dram_bytes, k->c.dram_write_bytes);
                    s->counted_ns += share[k - t->kernels]; /* its share of the GPU (concurrent kernels) */
                    s->counted++;
                }
                s->ld_requests = add_finite(s->ld_requests, k->c.ld_requests);
                s->ld_sectors = add_finite(s->ld_sectors, k->c.ld_sectors);
                s->st_requests = add_finite(s->st_requests, k->c.st_requests);
                s->st_sectors = add_finite(s->st_sectors, k->c.st_sectors);
                s->flops_sp = add_finite(s->flops_sp, k->c.flops_sp);
                s->flops_dp = add_finite(s->flops_dp, k->c.flops_dp);
                if (isfinite(k->c.occupancy_pct)) {
                    occ_w += k->c.occupancy_pct * (double)d;
                    occ_t += (double)d;
                }
                if (isfinite(k->c.warps_per_sm)) {
                    warps_w += k->c.warps_per_sm * (double)d;
                    warps_t += (double)d;
                }
            }
            j++;
        }
        if (nd) {
            s->median_ns = mh_timing_median_u64(dur + i, nd);
        } else { /* no launch with a clean time: no time figure at all */
            s->median_ns = NAN;
            s->min_ns = 0;
        }
        s->occupancy_pct = occ_t > 0 ? occ_w / occ_t : NAN;
        s->warps_per_sm = warps_t > 0 ? warps_w / warps_t : NAN;
        i = j;
    }
    free(ix);
    free(dur);
    free(share);
    mh_sort(st, ns, sizeof *st, cmp_stats_total);
    *out = st;
    *n = ns;
    return MH_OK;
}

/* ---- GPU time share of concurrent kernels ------------------------------- */

typedef struct edge {
    uint64_t t;
    uint32_t device;
    int open; /* 1 start, 0 end */
    size_t k;
} edge;

static int cmp_edge(const void *pa, const void *pb) {
    const edge *a = pa, *b = pb;
    if (a->device != b->device) return a->device < b->device ? -1 : 1;
    if (a->t != b->t) return a->t < b->t ? -1 : 1;
    if (a->open != b->open) return a->open < b->open ? -1 : 1; /* ends before starts at one instant */
    return a->k < b->k ? -1 : (a->k > b->k);
}

/* share[i] = kernel i's share of its device's time: the integral over its
 * span of 1 / (kernels running at that instant). A kernel alone gets its
 * whole span; two identical kernels side by side on two streams get half
 * each, so bytes / share is what the kernel moved per unit of the GPU it had.
 * Sweep: S(t) = integral of 1/c, share = S(end) - S(start). */
double *mh_timing_shares(const mh_timing *t) {
    size_t n = t->nkernels;
    double *share = malloc((n ? n : 1) * sizeof *share);
    double *s_at_start = malloc((n ? n : 1) * sizeof *s_at_start);
    edge *e = malloc((2 * n + 1) * sizeof *e);
    if (!share || !s_at_start || !e) {
        free(share);
        free(s_at_start);
        free(e);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        const mh_timing_kernel *k = &t->kernels[i];
        e[2 * i] = (edge){k->start_ns, k->device, 1, i};
        e[2 * i + 1] = (edge){k->end_ns, k->device, 0, i};
    }
    mh_sort(e, 2 * n, sizeof *e, cmp_edge);
    double S = 0;
    long running = 0;
    for (size_t j = 0; j < 2 * n; j++) {
        if (j > 0 && e[j].device != e[j - 1].device) {
            S = 0;
            running = 0;
        } else if (j > 0 && running > 0) {
            S += (double)(e[j].t - e[j - 1].t) / (double)running;
        }
        if (e[j].open) {
            s_at_start[e[j].k] = S;
            running++;
        } else {
            share[e[j].k] = S - s_at_start[e[j].k];
            running--;
        }
    }
    assert(running == 0);
    free(s_at_start);
    free(e);
    return share;
}

/* ---- times of traced launches ------------------------------------------ */

static int same_config(const mh_timing_kernel *a, const mh_timing_kernel *b) {
    return a->device == b->device && a->dyn_smem == b->dyn_smem && !memcmp(a->grid, b->grid, sizeof a->grid) &&
           !memcmp(a->block, b->block, sizeof a->block) && !strcmp(a->name, b->name);
}

static int cmp_config(const void *pa, const void *pb) {
    const mh_timing_kernel *a = *(const mh_timing_kernel *const *)pa, *b = *(const mh_timing_kernel *const *)pb;
    int c = strcmp(a->name, b->name);
    if (c) return c;
    if (a->device != b->device) return a->device < b->device ? -1 : 1;
    c = memcmp(a->grid, b->grid, sizeof a->grid);
    if (c) return c;
    c = memcmp(a->block, b->block, sizeof a->block);
    if (c) return c;
    if (a->dyn_smem != b->dyn_smem) return a->dyn_smem < b->dyn_smem ? -1 : 1;
    return a < b ? -1 : (a > b); /* stable: launch order within a configuration */
}

size_t mh_timing_replay_times(mh_timing *t) {
    size_t n = 0;
    for (size_t i = 0; i < t->nkernels; i++) {
        mh_timing_kernel *k = &t->kernels[i];
        if (mh_timing_measured(k) || !k->has_counters || !isfinite(k->c.replay_ns) ||
            k->c.replay_ns <= 0)
            continue;
        k->end_ns = k->start_ns + (uint64_t)(k->c.replay_ns + 0.5);
        k->timed = MH_TIMED_REPLAYED;
        n++;
    }
    return n;
}

size_t mh_timing_borrow_times(mh_timing *t) {
    size_t marked = 0;
    for (size_t i = 0; i < t->nkernels; i++) marked += !mh_timing_measured(&t->kernels[i]);
    if (!marked) return 0;
    mh_timing_kernel **ix = malloc(t->nkernels * sizeof *ix);
    uint64_t *dur = malloc(t->nkernels * sizeof *dur);
    if (!ix || !dur) { /* nothing borrowed: every mark stays, which is the truth */
        free(ix);
        free(dur);
        return marked;
    }
    for (size_t i = 0; i < t->nkernels; i++) ix[i] = &t->kernels[i];
    mh_sort(ix, t->nkernels, sizeof *ix, cmp_config);
    size_t kept = 0;
    for (size_t i = 0; i < t->nkernels;) {
        size_t j = i, nclean = 0, ninst = 0;
        while (j < t->nkernels && same_config(ix[i], ix[j])) {
            if (ix[j]->timed == MH_TIMED_CLEAN) dur[nclean++] = ix[j]->end_ns - ix[j]->start_ns;
            else if (!mh_timing_measured(ix[j])) ninst++;
            j++;
        }
        if (ninst && nclean) {
            uint64_t med = (uint64_t)(mh_timing_median_u64(dur, nclean) + 0.5);
            for (size_t k = i; k < j; k++)
                if (!mh_timing_measured(ix[k])) {
                    ix[k]->end_ns = ix[k]->start_ns + med;
                    ix[k]->timed = MH_TIMED_BORROWED;
                }
        } else {
            kept += ninst;
        }
        i = j;
    }
    free(ix);
    free(dur);
    return kept;
}
