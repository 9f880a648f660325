/* merge.c -- the join of a counters pass onto the timeline (timing.h).
 *
 * A counters pass that profiled every launch is joined by launch order per
 * device: launches of the timeline take the counters records in order where
 * the names agree, stepping over timed launches that have no record (the
 * kernel nodes of CUDA graphs, which the counters pass does not profile); a
 * diverging program stops the join ("partial"). A pass that profiled only
 * the first launch of each configuration (MEMHEAT_COUNTERS_SAMPLE=config:
 * fewer records than launches, one per configuration) gives each record to EVERY launch of
 * its configuration (name, grid, block, dynamic shared memory). Launches that
 * a profiled-every-launch pass left without counters get those of the first
 * record of their name. Before a join in the timing run itself, the
 * kernels the profiler queued inside profiled launches are dropped. */
#include "memheat/timing.h"
#include "util/sort.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Indices of t's kernels on one device, in launch order (correlation id, then
 * start time: the runtime numbers API calls in the order they are made). */
typedef struct ord {
    const mh_timing_kernel *k;
    size_t idx;
} ord;

static int cmp_ord(const void *a, const void *b) {
    const ord *x = a, *y = b;
    if (x->k->correlation != y->k->correlation) return x->k->correlation < y->k->correlation ? -1 : 1;
    if (x->k->start_ns != y->k->start_ns) return x->k->start_ns < y->k->start_ns ? -1 : 1;
    return x->idx < y->idx ? -1 : (x->idx > y->idx);
}

static ord *launch_order(const mh_timing *t, uint32_t dev, size_t *n) {
    ord *o = malloc((t->nkernels ? t->nkernels : 1) * sizeof *o);
    if (!o) return NULL;
    size_t m = 0;
    for (size_t i = 0; i < t->nkernels; i++)
        if (t->kernels[i].device == dev) o[m++] = (ord){&t->kernels[i], i};
    mh_sort(o, m, sizeof *o, cmp_ord);
    *n = m;
    return o;
}

/* Appends dev to the set devs[0..*n) if absent (cap is large enough). */
static void dev_set_add(uint32_t *devs, size_t *n, uint32_t dev) {
    for (size_t i = 0; i < *n; i++)
        if (devs[i] == dev) return;
    devs[(*n)++] = dev;
}

/* How far the timeline may run ahead of the counters records (launches the
 * counters pass did not record) before the passes count as diverged. */
#define ALIGN_AHEAD 4096

/* ---- join by configuration ---- */

typedef struct cfg_key {
    const char *name;
    uint32_t cfg[7]; /* grid, block, dyn_smem; all 0 when the records carry no configuration */
    const mh_timing_kernel *k;
    size_t pos;      /* position in launch order: the first record of a configuration wins */
} cfg_key;

static cfg_key key_of(const mh_timing_kernel *k, int with_cfg, size_t pos) {
    cfg_key c = {k->name ? k->name : "", {0}, k, pos};
    if (with_cfg) {
        memcpy(c.cfg, k->grid, sizeof k->grid);
        memcpy(c.cfg + 3, k->block, sizeof k->block);
        c.cfg[6] = k->dyn_smem;
    }
    return c;
}

static int cmp_cfg(const void *x, const void *y) {
    const cfg_key *a = x, *b = y;
    int c = strcmp(a->name, b->name);
    if (c) return c;
    return memcmp(a->cfg, b->cfg, sizeof a->cfg);
}

static int cmp_key(const void *x, const void *y) {
    int c = cmp_cfg(x, y);
    if (c) return c;
    const cfg_key *a = x, *b = y;
    return a->pos < b->pos ? -1 : (a->pos > b->pos);
}

/* 1 when the records carry their configuration (grid 0: they do not, and
 * match by name). */
static int has_config(const ord *b, size_t nb) {
    for (size_t i = 0; i < nb; i++)
        if (b[i].k->grid[0] != 0) return 1;
    return 0;
}

/* 1 when the records b hold one per configuration (a sampled pass), 0 when
 * some configuration repeats (every launch profiled); -1 out of memory. */
static int one_per_config(const ord *b, size_t nb) {
    int with_cfg = has_config(b, nb);
    cfg_key *keys = malloc((nb ? nb : 1) * sizeof *keys);
    if (!keys) return -1;
    for (size_t i = 0; i < nb; i++) keys[i] = key_of(b[i].k, with_cfg, i);
    mh_sort(keys, nb, sizeof *keys, cmp_cfg);
    int one = 1;
    for (size_t i = 1; i < nb && one; i++) one = cmp_cfg(&keys[i - 1], &keys[i]) != 0;
    free(keys);
    return one;
}

/* Gives every launch a[i] that has no counters yet those of the first record
 * of b (in launch order) with its configuration. Returns the launches still
 * without counters, or -1 when out of memory. */
static long join_by_config(mh_timing *t, const ord *a, size_t na, const ord *b, size_t nb, uint64_t *matched) {
    int with_cfg = has_config(b, nb);
    cfg_key *keys = malloc((nb ? nb : 1) * sizeof *keys);
    if (!keys) return -1;
    size_t nk = 0;
    for (size_t i = 0; i < nb; i++)
        if (b[i].k->has_counters) keys[nk++] = key_of(b[i].k, with_cfg, i);
    mh_sort(keys, nk, sizeof *keys, cmp_key);
    long missing = 0;
    for (size_t i = 0; i < na; i++) {
        mh_timing_kernel *k = &t->kernels[a[i].idx];
        if (k->has_counters) continue;
        cfg_key want = key_of(k, with_cfg, 0);
        cfg_key *hit = nk ? bsearch(&want, keys, nk, sizeof *keys, cmp_cfg) : NULL;
        if (!hit) {
            missing++;
            continue;
        }
        while (hit > keys && cmp_cfg(hit - 1, &want) == 0) hit--;
        k->has_counters = 1;
        k->c = hit->k->c;
        (*matched)++;
    }
    free(keys);
    return missing;
}

int mh_timing_merge_counters(mh_timing *t, const mh_timing *ctr, mh_err *err) {
    uint64_t matched = 0;
    int diverged = 0;
    char why[256] = "";
    size_t ndev = 0;
    uint32_t *devs = malloc((t->nkernels + ctr->nkernels + 1) * sizeof *devs);
    if (!devs) return mh_err_set(err, MH_ERR_NOMEM, "out of memory joining counters");
    for (size_t i = 0; i < t->nkernels; i++) dev_set_add(devs, &ndev, t->kernels[i].device);
    for (size_t i = 0; i < ctr->nkernels; i++) dev_set_add(devs, &ndev, ctr->kernels[i].device);
    for (size_t d = 0; d < ndev; d++) {
        uint32_t dev = devs[d];
        size_t na, nb;
        ord *a = launch_order(t, dev, &na);
        ord *b = launch_order(ctr, dev, &nb);
        long missing = 0;
        if (!a || !b) goto nomem;
        int sampled = nb < na ? one_per_config(b, nb) : 0;
        if (sampled < 0) goto nomem;
        if (sampled) {
            /* one record per configuration */
            missing = join_by_config(t, a, na, b, nb, &matched);
            if (missing < 0) goto nomem;
            if (missing > 0 && !diverged) {
                snprintf(why, sizeof why, "device %u: %ld of %zu launches have no counters of their configuration",
                         dev, missing, na);
                diverged = 1;
            }
            free(a);
            free(b);
            continue;
        }
        /* every launch: in order, names agreeing. A timed launch the
         * counters pass has no record of (a CUDA graph's kernel node: the
         * profiler stops for graph launches) is stepped over when the record
         * turns up within ALIGN_AHEAD launches; else the passes diverged. */
        int here = 0, holes = 0;
        size_t i = 0, j = 0;
        while (i < na && j < nb) {
            if (strcmp(a[i].k->name, b[j].k->name) != 0) {
                size_t ahead = i + 1;
                while (ahead < na && ahead <= i + ALIGN_AHEAD && strcmp(a[ahead].k->name, b[j].k->name) != 0) ahead++;
                if (ahead < na && ahead <= i + ALIGN_AHEAD) {
                    holes = 1; /* a[i..ahead) have no record: filled by name below */
                    i = ahead;
                    continue;
                }
                if (!diverged)
                    snprintf(why, sizeof why, "launch %zu on device %u differs between passes (%.80s vs %.80s)", i,
                             dev, a[i].k->name, b[j].k->name);
                diverged = here = 1;
                break;
            }
            if (!b[j].k->has_counters) {
                holes = 1;
                i++, j++;
                continue;
            }
            mh_timing_kernel *k = &t->kernels[a[i].idx];
            k->has_counters = 1;
            k->c = b[j].k->c;
            matched++;
            i++, j++;
        }
        if (!here && i < na) holes = 1;
        if (!here && holes && join_by_config(t, a, na, b, nb, &matched) < 0) goto nomem;
        if (!here && j < nb && !diverged) {
            snprintf(why, sizeof why, "device %u: %zu launches timed, %zu profiled", dev, na, nb);
            diverged = 1;
        }
        free(a);
        free(b);
        continue;
    nomem:
        free(a);
        free(b);
        free(devs);
        return mh_err_set(err, MH_ERR_NOMEM, "out of memory joining counters");
    }
    free(devs);
    mh_timing_counter_info *ci = &t->counters;
    ci->requested = 1;
    ci->ranges = ctr->counters.ranges;
    ci->ranges_dropped = ctr->counters.ranges_dropped;
    ci->passes = ctr->counters.passes;
    snprintf(ci->metrics, sizeof ci->metrics, "%s", ctr->counters.metrics);
    ci->matched = matched;
    if (strcmp(ctr->counters.status, "ok") != 0 && ctr->counters.status[0]) {
        snprintf(ci->status, sizeof ci->status, "%s", ctr->counters.status);
        snprintf(ci->message, sizeof ci->message, "%s", ctr->counters.message);
    } else if (diverged || ctr->counters.ranges_dropped) {
        snprintf(ci->status, sizeof ci->status, "partial");
        snprintf(ci->message, sizeof ci->message, "%s", diverged ? why : "CUPTI dropped ranges");
    } else {
        snprintf(ci->status, sizeof ci->status, "ok");
        ci->message[0] = '\0';
    }
    return MH_OK;
}

/* ---- the profiler's own kernels ---- */

typedef struct corr_key {
    uint32_t context, correlation;
    const char *name;
} corr_key;

static int cmp_corr(const void *x, const void *y) {
    const corr_key *a = x, *b = y;
    if (a->context != b->context) return a->context < b->context ? -1 : 1;
    return a->correlation < b->correlation ? -1 : (a->correlation > b->correlation);
}

long mh_timing_drop_profiler_kernels(mh_timing *t, const mh_timing *profiled) {
    if (!profiled->nkernels) return 0;
    corr_key *keys = malloc(profiled->nkernels * sizeof *keys);
    if (!keys) return -1;
    for (size_t i = 0; i < profiled->nkernels; i++) {
        const mh_timing_kernel *k = &profiled->kernels[i];
        keys[i] = (corr_key){k->context, k->correlation, k->name ? k->name : ""};
    }
    mh_sort(keys, profiled->nkernels, sizeof *keys, cmp_corr);
    size_t kept = 0;
    for (size_t i = 0; i < t->nkernels; i++) {
        mh_timing_kernel *k = &t->kernels[i];
        corr_key want = {k->context, k->correlation, NULL};
        const corr_key *hit = bsearch(&want, keys, profiled->nkernels, sizeof *keys, cmp_corr);
        if (hit && strcmp(hit->name, k->name ? k->name : "") != 0) {
            free(k->name);
            continue;
        }
        t->kernels[kept++] = *k;
    }
    free(keys);
    long dropped = (long)(t->nkernels - kept);
    t->nkernels = kept;
    for (size_t i = 0; i < kept; i++) t->kernels[i].seq = i;
    return dropped;
}
