/* analyze.h -- one pass over a trace that produces everything `memheat
 * analyze` reports: the findings of every analysis (most costly first), the
 * tables the analyses keep (bank conflicts, global requests, ...: each
 * analysis's row renders its own) and the locality metrics, plus text and
 * JSON renderings.
 *
 * The work is one mh_pass (pass.h): model, heat maps (global space),
 * locality and patterns are fed record by record; nothing re-reads the
 * trace. A trace cut short is analysed up to its last whole chunk and the
 * result says so. */
#ifndef MH_RENDER_ANALYZE_H
#define MH_RENDER_ANALYZE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analyses/group.h"
#include "analyses/locality.h"
#include "analyses/model.h"
#include "analyses/patterns.h"
#include "memheat/err.h"
#include "pass/pass.h"

typedef struct mh_analyze_opts {
    size_t group_budget; /* bytes per grouping buffer (locality, patterns); 0 = 64 MiB */
    int no_locality;     /* skip locality metrics */
    int no_patterns;     /* skip heat maps and pattern detection */
    unsigned threads;    /* analysis threads, 0 = default (mh_pass_default_threads) */
    int group_by;        /* enum mh_group_by: roll findings up by call site, NVTX path or kernel */
    void (*progress)(void *ctx, const char *line, int done); /* status lines, NULL = none */
    void *progress_ctx;
} mh_analyze_opts;

typedef struct mh_analyze_loc {
    uint32_t launch;
    mh_loc_result r; /* r.launch and r.model cleared: resolve with launch */
} mh_analyze_loc;

typedef struct mh_analyze_result {
    int model_ok;
    mh_model model;
    mh_pass_results *results; /* the analyses' runs and findings */
    const mh_pat_run *pat;    /* the pattern analysis's run in results, NULL if it did not run */
    mh_analyze_loc *loc;
    size_t nloc, caploc;
    uint64_t accesses;
    int truncated;        /* the trace ends inside a chunk */
    int partial;          /* reading stopped early (cut or damage): results cover what came before */
    int complete;         /* END record seen and the whole file read without error */
    size_t peak_heat, peak_loc, peak_pat;
    size_t peak_total;    /* every analysis's peak, summed */
    mh_pass_times times;  /* mh_pass_stats */
    uint64_t split_loc, split_pat;
    char notice[1024];    /* mh_pass_notice: why results miss part of the trace; "" = they do not */
    int group_by;         /* opts.group_by */
    mh_groups *groups;    /* opts.group_by: the findings by call site / NVTX path / kernel, else NULL */
} mh_analyze_result;

/* Runs the whole analysis. When reading stops early (file cut short, damaged
 * chunk) the error is returned and the result is still complete for the
 * records before it (res->partial = 1; res->truncated = 1 for a cut). On
 * other errors the result is unusable; free it either way. */
int mh_analyze_file(const char *path, const mh_analyze_opts *o, mh_analyze_result *res, mh_err *err);
void mh_analyze_free(mh_analyze_result *res);

/* The findings of every analysis, most costly first (n of them). */
const mh_pat_finding *const *mh_analyze_findings(const mh_analyze_result *res, size_t *n);
/* The groups of opts.group_by from the model's (resolved) call sites and
 * the findings: also what a profile's import stores per site. */
mh_groups *mh_analyze_group(const mh_analyze_result *res, int by);
/* Findings (most costly first), the analyses' tables and locality tables as
 * text (the groups first, when asked for). */
int mh_analyze_print(FILE *f, const mh_analyze_result *res, size_t max_findings, int show_coalesced);
/* One launch's locality table, as mh_analyze_print prints it (also used for
 * the locality read back from a profile). */
void mh_analyze_print_locality(FILE *f, uint32_t launch, const char *kernel, const mh_loc_result *r);
/* JSON document (schema in docs/metrics.md); path "-" = stdout. */
int mh_analyze_write_json(const char *path, const mh_analyze_result *res, mh_err *err);

#endif
