/* analyze.c -- `memheat analyze`: runs mh_pass (pass.h) with the pattern
 * detector (global heat maps) and the locality metrics, collects their
 * results, and renders them as text or JSON (memheat/analyze.h). */
#include "render/analyze.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/heat.h"
#include "analyses/sites.h"
#include "pass/pass.h"
#include "pass/table.h"
#include "render/finding_view.h"
#include "util/demangle.h"
#include "util/grow.h"
#include "util/outfile.h"

static int loc_emit(void *ctx, const mh_loc_result *r, mh_err *err) {
    mh_analyze_result *res = ctx;
    if (res->nloc == res->caploc) {
        mh_analyze_loc *v = mh_grow(res->loc, &res->caploc, res->nloc + 1, sizeof *v, 8);
        if (!v) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
        res->loc = v;
    }
    mh_analyze_loc *l = &res->loc[res->nloc++];
    l->launch = r->launch ? r->launch->l.id : 0;
    l->r = *r;
    l->r.launch = NULL;
    l->r.model = NULL;
    res->split_loc += r->psl_split;
    return MH_OK;
}

int mh_analyze_file(const char *path, const mh_analyze_opts *o, mh_analyze_result *res, mh_err *err) {
    mh_analyze_opts opts = {0};
    if (o) opts = *o;
    memset(res, 0, sizeof *res);
    mh_pass_opts po = {0};
    po.group_budget = opts.group_budget;
    po.threads = opts.threads;
    po.progress = opts.progress;
    po.progress_ctx = opts.progress_ctx;
    if (!opts.no_patterns) {
        po.analyses |= MH_PASS_PATTERNS;
        po.heat_spaces = 1u << MH_SPACE_GLOBAL | 1u << MH_SPACE_SHARED; /* what the patterns read */
    }
    if (!opts.no_locality) po.analyses |= MH_PASS_LOCALITY;
    mh_pass *p;
    int rc = mh_pass_open(&p, path, &res->model, &po, err);
    if (rc) return rc;
    res->model_ok = 1;
    mh_pass_consumer c = {.ctx = res, .loc = loc_emit};
    rc = mh_pass_add(p, &c, err);
    if (rc == MH_OK) rc = mh_pass_run(p, err);
    const mh_pass_stats *st = mh_pass_stats_get(p);
    res->accesses = st->accesses;
    res->complete = st->complete;
    res->partial = st->partial;
    res->truncated = st->truncated;
    res->peak_heat = st->peak_heat;
    res->peak_loc = st->peak_loc;
    res->peak_pat = st->peak_pat;
    for (unsigned i = 0; i < MH_PASS_MAX_ANALYSES; i++) res->peak_total += st->peak[i];
    res->times = st->times;
    res->split_pat = st->split_pat;
    mh_pass_notice(st, path, res->notice, sizeof res->notice);
    res->results = mh_pass_take_results(p);
    if (!res->results && rc == MH_OK) rc = mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    if (res->results) res->pat = mh_pass_results_run(res->results, MH_PASS_ROW(MH_PASS_PATTERNS));
    mh_pass_close(p);
    if ((rc == MH_OK || res->partial) && res->model_ok) {
        mh_err serr;
        if (mh_sites_resolve(&res->model.sites, NULL, &serr) != MH_OK && rc == MH_OK) {
            *err = serr;
            rc = serr.code;
        }
        res->group_by = opts.group_by;
        if (opts.group_by != MH_GROUP_NONE) res->groups = mh_analyze_group(res, opts.group_by);
    }
    /* an end record followed by damage (a cut chunk after it) is not a
     * complete trace: what the exit code says, the JSON says */
    if (rc != MH_OK) res->complete = 0;
    return rc;
}

const mh_pat_finding *const *mh_analyze_findings(const mh_analyze_result *res, size_t *n) {
    *n = 0;
    return res->results ? mh_pass_results_findings(res->results, n) : NULL;
}

/* ---- groups ---- */

/* The group a launch belongs to: key and label. */
static void group_of(const mh_analyze_result *res, int by, uint32_t launch, const char *kernel, const char **key,
                     const char **label) {
    const mh_sites_site *s = mh_sites_of_launch(&res->model.sites, launch);
    switch (by) {
    case MH_GROUP_SITE:
        *key = s ? s->label : "";
        *label = s ? s->label : "(no call site recorded)";
        break;
    case MH_GROUP_NVTX:
        *key = s ? s->nvtx_path : "";
        *label = s && s->nvtx_path[0] ? s->nvtx_path : "(outside NVTX ranges)";
        break;
    default:
        *key = kernel ? kernel : "?";
        *label = *key;
    }
}

mh_groups *mh_analyze_group(const mh_analyze_result *res, int by) {
    mh_groups *g = mh_groups_new(by);
    if (!g) return NULL;
    const char *key, *label;
    size_t n = 0;
    const mh_pat_finding *const *v = mh_analyze_findings(res, &n);
    for (size_t i = 0; i < n; i++) {
        if (v[i]->kind == MH_PAT_COALESCED) continue;
        group_of(res, by, v[i]->launch, v[i]->kernel, &key, &label);
        mh_groups_add_finding(g, key, label, mh_pat_kind_name(v[i]->kind), v[i]->cost,
                              v[i]->kernel ? v[i]->kernel : "?", v[i]->name[0] ? v[i]->name : v[i]->label,
                              v[i]->summary, v[i]->suggestion);
    }
    for (size_t i = 0; i < res->model.nlaunches; i++) {
        const mh_model_launch *ml = &res->model.launches[i];
        group_of(res, by, ml->l.id, ml->l.display_name, &key, &label);
        mh_groups_add_traced(g, key, label);
    }
    /* every launch, traced or not: per (site, configuration) */
    const mh_sites *ss = &res->model.sites;
    for (size_t i = 0; i < ss->nconfigs; i++) {
        const mh_sites_site *s = mh_sites_get(ss, ss->configs[i].site);
        if (by == MH_GROUP_SITE) mh_groups_add_time(g, s ? s->label : "", s ? s->label : NULL, (double)ss->configs[i].launches, 0, 0);
        else if (by == MH_GROUP_NVTX) mh_groups_add_time(g, s ? s->nvtx_path : "", s && s->nvtx_path[0] ? s->nvtx_path : "(outside NVTX ranges)", (double)ss->configs[i].launches, 0, 0);
    }
    if (by == MH_GROUP_KERNEL)
        for (size_t i = 0; i < res->model.nstats; i++) {
            char *dm = mh_demangle(res->model.stats[i].name);
            const char *k = dm ? dm : res->model.stats[i].name;
            mh_groups_add_time(g, k, k, (double)res->model.stats[i].launches, 0, 0);
            free(dm);
        }
    mh_groups_finish(g);
    return g;
}

void mh_analyze_free(mh_analyze_result *res) {
    mh_groups_free(res->groups);
    mh_pass_results_free(res->results);
    free(res->loc);
    if (res->model_ok) mh_model_free(&res->model);
    memset(res, 0, sizeof *res);
}

/* ---- text ---- */

static const char *kernel_name(const mh_analyze_result *res, uint32_t launch) {
    const mh_model_launch *ml = mh_model_launch_get(&res->model, launch);
    return ml && ml->l.display_name ? ml->l.display_name : "?";
}

void mh_analyze_print_locality(FILE *f, uint32_t launch, const char *kernel, const mh_loc_result *r) {
    fprintf(f, "\nLocality (AIWC), launch %u %s: relative local memory usage %.4f\n", launch, kernel, r->rel_local);
    if (r->psl_split)
        fprintf(f, "  (PSL approximate: up to %" PRIu64 " steps were split by the memory budget; raise --group-mem)\n",
                r->psl_split);
    int cols[MH_LOC_COLS], nc = 0;
    for (int c = 0; c < MH_LOC_COLS; c++)
        if (r->m[c].accesses) cols[nc++] = c;
    fprintf(f, "  %-16s", "");
    for (int k = 0; k < nc; k++) fprintf(f, " %12s", cols[k] == MH_LOC_TOTAL ? "total" : mh_space_name(cols[k]));
    fprintf(f, "\n  %-16s", "accesses");
    for (int k = 0; k < nc; k++) fprintf(f, " %12" PRIu64, r->m[cols[k]].accesses);
    fprintf(f, "\n  %-16s", "footprint");
    for (int k = 0; k < nc; k++) fprintf(f, " %12" PRIu64, r->m[cols[k]].footprint);
    fprintf(f, "\n  %-16s", "90% footprint");
    for (int k = 0; k < nc; k++) fprintf(f, " %12" PRIu64, r->m[cols[k]].footprint90);
    for (int d = 0; d < MH_LOC_NBITS; d++) {
        fprintf(f, "\n  entropy n=%-6d", d);
        for (int k = 0; k < nc; k++) fprintf(f, " %12.4f", r->m[cols[k]].entropy[d]);
    }
    for (int d = 0; d < MH_LOC_NBITS; d++) {
        fprintf(f, "\n  PSL n=%-10d", d);
        for (int k = 0; k < nc; k++) fprintf(f, " %12.4f", r->m[cols[k]].psl[d]);
    }
    fputc('\n', f);
}

int mh_analyze_print(FILE *f, const mh_analyze_result *res, size_t max_findings, int show_coalesced) {
    fprintf(f, "memheat analyze: %zu launches, %" PRIu64 " accesses%s\n\n", res->model.nlaunches, res->accesses,
            res->truncated ? " (trace cut short: whole chunks only)"
                           : res->partial ? " (reading stopped at a damaged chunk: records before it only)" : "");
    if (res->split_pat)
        fprintf(f, "note: up to %" PRIu64 " warp requests were split by the memory budget; raise --group-mem\n\n",
                res->split_pat);
    if (res->groups) {
        mh_groups_print(res->groups, f, max_findings);
        fputc('\n', f);
    }
    int findings = 0; /* an analysis that finds ran */
    for (unsigned i = 0; i < mh_nanalyses && res->results; i++)
        findings |= mh_analyses[i]->findings && mh_pass_results_run(res->results, i);
    if (findings) {
        size_t n = 0, shown = 0, coalesced = 0;
        const mh_pat_finding *const *v = mh_analyze_findings(res, &n);
        fprintf(f, "Findings, most costly first (cost = estimated avoidable sector transactions or wavefronts):\n");
        for (size_t i = 0; i < n; i++) {
            if (v[i]->kind == MH_PAT_COALESCED) {
                coalesced++;
                if (!show_coalesced) continue;
            }
            if (max_findings && shown >= max_findings) continue;
            mh_fview fv;
            mh_fview_from_trace(&fv, &res->model, v[i]);
            mh_fview_text(f, shown++, &fv);
            mh_fview_free(&fv);
        }
        if (!shown) fprintf(f, "  (none)\n");
        if (coalesced && !show_coalesced) {
            fprintf(f, "Well coalesced:");
            for (size_t i = 0; i < n; i++)
                if (v[i]->kind == MH_PAT_COALESCED)
                    fprintf(f, " launch %u '%s';", v[i]->launch, v[i]->label && *v[i]->label ? v[i]->label : "?");
            fputc('\n', f);
        }
    }
    /* the tables each analysis keeps, in table order */
    for (unsigned i = 0; i < mh_nanalyses && res->results; i++) {
        const void *run = mh_pass_results_run(res->results, i);
        if (run && mh_analyses[i]->text) mh_analyses[i]->text(f, run, &res->model);
    }
    for (size_t i = 0; i < res->nloc; i++)
        mh_analyze_print_locality(f, res->loc[i].launch, kernel_name(res, res->loc[i].launch), &res->loc[i].r);
    return ferror(f) ? MH_ERR_IO : MH_OK;
}
