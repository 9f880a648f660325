/* analyze.c -- `memheat analyze`: runs mh_pass (pass.h) with the pattern
 * detector (global heat maps) and the locality metrics, collects their
 * results, and renders them as text or JSON (memheat/analyze.h). */
#include "memheat/analyze.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "memheat/heat.h"
#include "memheat/pass.h"
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
        po.heat_spaces = 1u << MH_SPACE_GLOBAL;
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
    res->times = st->times;
    res->split_pat = st->split_pat;
    mh_pass_notice(st, path, res->notice, sizeof res->notice);
    res->pat = mh_pass_take_patterns(p);
    mh_pass_close(p);
    return rc;
}

void mh_analyze_free(mh_analyze_result *res) {
    mh_pat_run_free(res->pat);
    free(res->loc);
    if (res->model_ok) mh_model_free(&res->model);
    memset(res, 0, sizeof *res);
}

/* ---- text ---- */

static const char *kernel_name(const mh_analyze_result *res, uint32_t launch) {
    const mh_model_launch *ml = mh_model_launch_get(&res->model, launch);
    return ml && ml->l.display_name ? ml->l.display_name : "?";
}

static void print_finding(FILE *f, size_t i, const mh_pat_finding *x) {
    fprintf(f, "#%-3zu %-17s cost %-10.0f launch %u %s  %s", i + 1, mh_pat_kind_name(x->kind), x->cost, x->launch,
            x->kernel ? x->kernel : "?", mh_space_name(x->space));
    if (x->obj >= 0) fprintf(f, " '%s' (object %" PRId64 ")", x->label && *x->label ? x->label : "?", x->obj);
    else fprintf(f, " (outside known objects)");
    if (x->pc) fprintf(f, "  pc 0x%" PRIx64, x->pc);
    if (x->file) fprintf(f, " %s:%u", x->file, x->line);
    fputc('\n', f);
    fprintf(f, "     %s\n", x->summary);
    char pcs[1024];
    if (mh_pat_pcs_text(x, pcs, sizeof pcs))
        fprintf(f, "     %s; figures above: pc 0x%" PRIx64 ", the costliest\n", pcs, x->pc);
    if (x->sectors && x->space == MH_SPACE_GLOBAL)
        fprintf(f, "     heat: %" PRIu64 " sectors, hottest word %u warps, hottest sector %u warps\n", x->sectors,
                x->max_word_temp, x->max_sector_temp);
    if (x->has_example) {
        fprintf(f, "     example sector at offset %" PRIu64 " (tag 0x%" PRIx64 "): words", x->example_off,
                x->example.tag);
        for (int w = 0; w < MH_HEAT_WORDS; w++) fprintf(f, " %u", x->example.word[w]);
        fprintf(f, " | sector %u\n", x->example.sector);
    }
    fprintf(f, "     fix: %s\n", x->suggestion);
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
    if (res->pat) {
        size_t n = 0, shown = 0, coalesced = 0;
        const mh_pat_finding *v = mh_pat_findings(res->pat, &n);
        fprintf(f, "Findings, most costly first (cost = estimated avoidable sector transactions or wavefronts):\n");
        for (size_t i = 0; i < n; i++) {
            if (v[i].kind == MH_PAT_COALESCED) {
                coalesced++;
                if (!show_coalesced) continue;
            }
            if (max_findings && shown >= max_findings) continue;
            print_finding(f, shown++, &v[i]);
        }
        if (!shown) fprintf(f, "  (none)\n");
        if (coalesced && !show_coalesced) {
            fprintf(f, "Well coalesced:");
            for (size_t i = 0; i < n; i++)
                if (v[i].kind == MH_PAT_COALESCED)
                    fprintf(f, " launch %u '%s';", v[i].launch, v[i].label && *v[i].label ? v[i].label : "?");
            fputc('\n', f);
        }
        const mh_bank_table *bt = mh_pat_banks(res->pat);
        if (bt->n) {
            fprintf(f, "\nShared-memory bank conflicts per pc (degree = wavefronts per warp access; extra = bank conflicts):\n");
            fprintf(f, "  %-6s %-18s %10s %8s %5s %12s\n", "launch", "pc", "requests", "avg", "max", "extra");
            for (size_t i = 0; i < bt->n; i++) {
                const mh_bank_pc *b = &bt->v[i];
                fprintf(f, "  %-6u 0x%-16" PRIx64 " %10" PRIu64 " %8.2f %5u %12" PRIu64 "\n", b->launch, b->pc,
                        b->requests, b->requests ? (double)b->sum_degree / (double)b->requests : 0.0, b->max_degree,
                        b->extra);
            }
        }
    }
    for (size_t i = 0; i < res->nloc; i++)
        mh_analyze_print_locality(f, res->loc[i].launch, kernel_name(res, res->loc[i].launch), &res->loc[i].r);
    return ferror(f) ? MH_ERR_IO : MH_OK;
}

/* ---- JSON ---- */

static json_t *jstr(const char *s) { return json_string(s ? s : ""); }

/* A kernel-argument view: {"index", "type", "name", "allocation", "offset",
 * "range": [first byte, last byte] used}; NULL for any other object. */
static json_t *arg_json(const mh_model *m, int64_t obj) {
    if (obj < 0 || (size_t)obj >= m->nobjs || m->objs[obj].arg < 0) return NULL;
    const mh_model_obj *o = &m->objs[obj];
    json_t *a = json_object();
    json_object_set_new(a, "index", json_integer(o->arg));
    json_object_set_new(a, "type", jstr(o->arg_type));
    if (o->arg_name && *o->arg_name) json_object_set_new(a, "name", jstr(o->arg_name));
    if (o->parent >= 0 && (size_t)o->parent < m->nobjs) {
        const mh_alloc *p = &m->objs[o->parent].a;
        json_object_set_new(a, "allocation", json_integer(o->parent));
        json_object_set_new(a, "allocation_label", jstr(p->label));
        json_object_set_new(a, "offset", json_integer((json_int_t)(o->a.base - p->base)));
    }
    if (o->used_hi > o->used_lo)
        json_object_set_new(a, "range", json_pack("[I, I]", (json_int_t)o->used_lo, (json_int_t)(o->used_hi - 1)));
    return a;
}

static json_t *finding_json(const mh_model *m, const mh_pat_finding *x) {
    json_t *o = json_object();
    json_object_set_new(o, "kind", jstr(mh_pat_kind_name(x->kind)));
    json_object_set_new(o, "cost", json_real(x->cost));
    json_object_set_new(o, "launch", json_integer(x->launch));
    json_object_set_new(o, "kernel", jstr(x->kernel));
    json_object_set_new(o, "space", jstr(mh_space_name(x->space)));
    json_object_set_new(o, "object", json_integer(x->obj));
    json_object_set_new(o, "label", jstr(x->label));
    json_t *arg = arg_json(m, x->obj);
    if (arg) json_object_set_new(o, "arg", arg);
    json_object_set_new(o, "pc", json_integer((json_int_t)x->pc));
    json_t *pa = json_array();
    for (size_t i = 0; i < x->npcs; i++) {
        json_t *p = json_object();
        json_object_set_new(p, "pc", json_integer((json_int_t)x->pcs[i].pc));
        json_object_set_new(p, "cost", json_real(x->pcs[i].cost));
        if (x->pcs[i].file) {
            json_object_set_new(p, "file", jstr(x->pcs[i].file));
            json_object_set_new(p, "line", json_integer(x->pcs[i].line));
        }
        json_array_append_new(pa, p);
    }
    json_object_set_new(o, "pcs", pa);
    if (x->file) {
        json_t *s = json_object();
        json_object_set_new(s, "file", jstr(x->file));
        json_object_set_new(s, "line", json_integer(x->line));
        json_object_set_new(s, "function", jstr(x->function));
        json_object_set_new(o, "source", s);
    } else {
        json_object_set_new(o, "source", json_null());
    }
    json_t *e = json_object();
    json_object_set_new(e, "sectors", json_integer((json_int_t)x->sectors));
    json_object_set_new(e, "flagged", json_integer((json_int_t)x->flagged));
    json_object_set_new(e, "requests", json_integer((json_int_t)x->requests));
    json_object_set_new(e, "request_sectors", json_integer((json_int_t)x->req_sectors));
    json_object_set_new(e, "ideal_sectors", json_integer((json_int_t)x->ideal_sectors));
    json_object_set_new(e, "stride_bytes", json_integer(x->stride));
    json_object_set_new(e, "elem_size", json_integer(x->elem_size));
    json_object_set_new(e, "max_word_temp", json_integer(x->max_word_temp));
    json_object_set_new(e, "max_sector_temp", json_integer(x->max_sector_temp));
    if (x->kind == MH_PAT_BANK_CONFLICT) {
        json_object_set_new(e, "degree_avg", json_real(x->degree_avg));
        json_object_set_new(e, "degree_max", json_integer(x->degree_max));
    }
    if (x->has_example) {
        json_t *ex = json_object(), *w = json_array();
        for (int i = 0; i < MH_HEAT_WORDS; i++) json_array_append_new(w, json_integer(x->example.word[i]));
        json_object_set_new(ex, "offset", json_integer((json_int_t)x->example_off));
        json_object_set_new(ex, "tag", json_integer((json_int_t)x->example.tag));
        json_object_set_new(ex, "words", w);
        json_object_set_new(ex, "sector", json_integer(x->example.sector));
        char kt[MH_HEAT_WORDS + 1]; /* per word: L, S, A, M (several), . (untouched) */
        json_object_set_new(ex, "kinds", json_string(mh_heat_kinds_text(mh_heat_kinds_pack(&x->example), x->example.word, kt)));
        json_object_set_new(e, "example", ex);
    }
    json_object_set_new(o, "evidence", e);
    json_object_set_new(o, "summary", jstr(x->summary));
    json_object_set_new(o, "suggestion", jstr(x->suggestion));
    return o;
}

static json_t *metrics_json(const mh_loc_metrics *m) {
    json_t *o = json_object(), *en = json_array(), *ps = json_array();
    json_object_set_new(o, "accesses", json_integer((json_int_t)m->accesses));
    json_object_set_new(o, "footprint", json_integer((json_int_t)m->footprint));
    json_object_set_new(o, "footprint90", json_integer((json_int_t)m->footprint90));
    for (int d = 0; d < MH_LOC_NBITS; d++) {
        json_array_append_new(en, json_real(m->entropy[d]));
        json_array_append_new(ps, json_real(m->psl[d]));
    }
    json_object_set_new(o, "entropy", en);
    json_object_set_new(o, "psl", ps);
    json_object_set_new(o, "psl_steps", json_integer((json_int_t)m->psl_steps));
    json_object_set_new(o, "psl_blocks", json_integer(m->psl_blocks));
    return o;
}

/* Every launch with its grid and traced blocks: per-block figures (and the
 * scaling of whole-kernel hardware counters, bench/oracle) need them. */
static json_t *kernels_json(const mh_analyze_result *res) {
    json_t *a = json_array();
    for (size_t i = 0; i < res->model.nlaunches; i++) {
        const mh_model_launch *ml = &res->model.launches[i];
        json_t *o = json_object();
        json_object_set_new(o, "launch", json_integer(ml->l.id));
        json_object_set_new(o, "name", jstr(ml->l.name));
        json_object_set_new(o, "kernel", jstr(ml->l.display_name ? ml->l.display_name : ml->l.name));
        json_object_set_new(o, "grid_blocks", json_integer(ml->n_blocks));
        json_object_set_new(o, "block_threads", json_integer(ml->threads_per_block));
        json_object_set_new(o, "traced_blocks", json_integer(ml->n_sampled));
        json_array_append_new(a, o);
    }
    return a;
}

/* Per (launch, pc) of shared memory: wavefronts, their conflict-free ideal and
 * the extra (bank conflicts), as Nsight Compute counts them per instruction. */
static void banks_json(json_t *ba, const mh_bank_table *bt) {
    for (size_t i = 0; i < bt->n; i++) {
        const mh_bank_pc *b = &bt->v[i];
        json_t *o = json_object();
        json_object_set_new(o, "launch", json_integer(b->launch));
        json_object_set_new(o, "pc", json_integer((json_int_t)b->pc));
        json_object_set_new(o, "object", json_integer(b->obj));
        json_object_set_new(o, "kind", jstr(mh_kind_name(b->kind)));
        json_object_set_new(o, "requests", json_integer((json_int_t)b->requests));
        json_object_set_new(o, "wavefronts", json_integer((json_int_t)b->sum_degree));
        json_object_set_new(o, "ideal_wavefronts", json_integer((json_int_t)b->ideal));
        double avg = b->requests ? (double)b->sum_degree / (double)b->requests : 0.0;
        json_object_set_new(o, "degree_avg", json_real(avg));
        json_object_set_new(o, "degree_max", json_integer(b->max_degree));
        json_object_set_new(o, "extra_wavefronts", json_integer((json_int_t)b->extra));
        json_t *pb = json_array(); /* the worst request's distinct words per bank */
        for (unsigned k = 0; k < MH_BANK_COUNT; k++) json_array_append_new(pb, json_integer(b->ex_banks[k]));
        json_object_set_new(o, "banks", pb);
        json_array_append_new(ba, o);
    }
}

/* Per (launch, pc, object) of global memory: warp requests and sectors. */
static void requests_json(json_t *ra, const mh_pat_run *pat) {
    size_t n = 0;
    const mh_pat_req *v = mh_pat_requests(pat, &n);
    for (size_t i = 0; i < n; i++) {
        json_t *o = json_object();
        json_object_set_new(o, "launch", json_integer(v[i].launch));
        json_object_set_new(o, "pc", json_integer((json_int_t)v[i].pc));
        json_object_set_new(o, "object", json_integer(v[i].obj));
        json_object_set_new(o, "kind", jstr(mh_kind_name(v[i].kind)));
        json_object_set_new(o, "requests", json_integer((json_int_t)v[i].requests));
        json_object_set_new(o, "sectors", json_integer((json_int_t)v[i].sectors));
        json_object_set_new(o, "ideal_sectors", json_integer((json_int_t)v[i].ideal_sectors));
        json_array_append_new(ra, o);
    }
}

int mh_analyze_write_json(const char *path, const mh_analyze_result *res, mh_err *err) {
    json_t *root = json_object();
    json_object_set_new(root, "format", jstr("memheat-analyze-1"));
    json_object_set_new(root, "accesses", json_integer((json_int_t)res->accesses));
    json_object_set_new(root, "launches", json_integer((json_int_t)res->model.nlaunches));
    json_object_set_new(root, "complete", json_boolean(res->complete && !res->notice[0]));
    if (res->notice[0]) json_object_set_new(root, "notice", json_string(res->notice));
    json_object_set_new(root, "truncated", json_boolean(res->truncated));
    json_object_set_new(root, "partial", json_boolean(res->partial));
    json_object_set_new(root, "requests_split", json_integer((json_int_t)res->split_pat));
    json_object_set_new(root, "peak_bytes", json_integer((json_int_t)(res->peak_heat + res->peak_loc + res->peak_pat)));
    json_t *fa = json_array(), *ba = json_array(), *la = json_array(), *ra = json_array();
    if (res->pat) {
        size_t n = 0;
        const mh_pat_finding *v = mh_pat_findings(res->pat, &n);
        for (size_t i = 0; i < n; i++) json_array_append_new(fa, finding_json(&res->model, &v[i]));
        banks_json(ba, mh_pat_banks(res->pat));
        requests_json(ra, res->pat);
    }
    for (size_t i = 0; i < res->nloc; i++) {
        const mh_analyze_loc *l = &res->loc[i];
        json_t *o = json_object(), *sp = json_object();
        json_object_set_new(o, "launch", json_integer(l->launch));
        json_object_set_new(o, "kernel", jstr(kernel_name(res, l->launch)));
        json_object_set_new(o, "rel_local", json_real(l->r.rel_local));
        json_object_set_new(o, "unattributed", json_integer((json_int_t)l->r.unattributed));
        json_object_set_new(o, "psl_split", json_integer((json_int_t)l->r.psl_split));
        for (int c = 0; c < MH_LOC_COLS; c++)
            json_object_set_new(sp, c == MH_LOC_TOTAL ? "total" : mh_space_name((unsigned)c), metrics_json(&l->r.m[c]));
        json_object_set_new(o, "spaces", sp);
        json_array_append_new(la, o);
    }
    json_object_set_new(root, "kernels", kernels_json(res));
    json_object_set_new(root, "findings", fa);
    json_object_set_new(root, "bank_conflicts", ba);
    json_object_set_new(root, "global_requests", ra);
    json_object_set_new(root, "locality", la);
    int rc = MH_OK;
    size_t flags = JSON_INDENT(2) | JSON_REAL_PRECISION(10);
    if (!strcmp(path, "-")) {
        if (json_dumpf(root, stdout, flags) != 0 || fputc('\n', stdout) == EOF)
            rc = mh_err_set(err, MH_ERR_IO, "writing JSON to stdout failed");
    } else {
        /* a temporary beside path, renamed when complete: never a half-written JSON */
        mh_outfile of;
        rc = mh_outfile_open(&of, path, MH_OUTFILE_FORCE, err);
        if (rc == MH_OK && (json_dumpf(root, of.f, flags) != 0 || fputc('\n', of.f) == EOF)) {
            rc = mh_err_set(err, MH_ERR_IO, "write error on %s: %s", path, strerror(errno ? errno : EIO));
            mh_outfile_abort(&of);
        } else if (rc == MH_OK) {
            rc = mh_outfile_commit(&of, err);
        }
    }
    json_decref(root);
    return rc;
}
