/* profile_in.c -- `memheat heatmap` and `memheat analyze` on a profile
 * (.mhdb) instead of a trace (profile_in.h).
 *
 * `memheat run` keeps the profile and, by default, not the trace, so the
 * commands that read a trace must read a profile too. The file kind is told
 * by its first bytes (SQLite's header), never by its name. The profile holds
 * what the trace side computes (heat maps with their regions, findings,
 * bank conflicts, locality): here it is read back through the store's reader
 * and handed to the same renderers (mh_heat_render, mh_heat_write_csv,
 * mh_analyze_print_locality, a finding's mh_fview) or printed in the same
 * shape. The store never
 * runs an analysis, and nothing here does either. */
#include "cli/fixes_print.h"
#include "cli/profile_in.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/group.h"
#include "render/analyze.h"
#include "analyses/patterns.h"
#include "store/store.h"
#include "render/finding_view.h"
#include "render/summary.h"
#include "report/rankdata.h"
#include "report/rollup.h"
#include "util/demangle.h"
#include "util/grow.h"

int mh_cli_input_kind(const char *path) {
    static const char sqlite_magic[16] = "SQLite format 3"; /* with its NUL: 16 bytes */
    char b[16];
    FILE *f = fopen(path, "rb");
    if (!f) return MH_CLI_IN_TRACE;
    size_t n = fread(b, 1, sizeof b, f);
    fclose(f);
    return n == sizeof b && memcmp(b, sqlite_magic, sizeof b) == 0 ? MH_CLI_IN_PROFILE : MH_CLI_IN_TRACE;
}

static int space_parse(const char *name) {
    for (unsigned s = 0; s < MH_SPACE_COUNT; s++)
        if (name && !strcmp(mh_space_name(s), name)) return (int)s;
    return -1;
}

static uint64_t dropped_total(const json_t *root) {
    const char *s = json_string_value(json_object_get(json_object_get(root, "meta"), "dropped_total"));
    return s ? strtoull(s, NULL, 10) : 0;
}

/* The profile, checked as every reader checks it (mh_db_open), its summary
 * and, in notice, why it does not cover the whole run ("" when it does:
 * mh_db_notice, what report and diff say too). */
static int open_summary(const char *path, mh_db **db, json_t **root, char *notice, size_t cap, mh_err *err) {
    int rc = mh_db_open(db, path, 0, err);
    if (rc) return rc;
    rc = mh_db_read_summary(*db, root, err);
    if (rc) {
        mh_db_close(*db);
        *db = NULL;
        return rc;
    }
    mh_db_notice(*db, notice, cap);
    return rc;
}

/* After the output: an incomplete profile exits 4 with its notice, as report and diff do. */
static int incomplete(int rc, const char *notice, mh_err *err) {
    return rc == MH_OK && notice[0] ? mh_err_set(err, MH_ERR_TRUNCATED, "%s", notice) : rc;
}

/* ---- heatmap ---- */

typedef struct rows_buf {
    mh_heat_row *v;
    size_t n, cap;
} rows_buf;

static int take_row(void *ctx, const mh_db_heat_row *r) {
    rows_buf *b = ctx;
    mh_heat_row *v = mh_grow(b->v, &b->cap, b->n + 1, sizeof *v, 1024);
    if (!v) return MH_ERR_NOMEM;
    b->v = v;
    mh_heat_row *o = &v[b->n++];
    o->tag = r->tag;
    memcpy(o->word, r->word, sizeof o->word);
    o->sector = r->sector;
    o->region = r->region;
    for (unsigned w = 0; w < MH_HEAT_WORDS; w++) o->kinds[w] = (uint8_t)MH_HEAT_KINDS_OF(r->kinds, w);
    return 0;
}

static void dim3_of(const json_t *a, mh_dim3 *d) {
    d->x = (uint32_t)json_integer_value(json_array_get(a, 0));
    d->y = (uint32_t)json_integer_value(json_array_get(a, 1));
    d->z = (uint32_t)json_integer_value(json_array_get(a, 2));
}

int mh_cli_profile_heat(const char *path, uint32_t space_mask, mh_cli_heat_fn fn, void *ctx, size_t *nlaunches,
                        uint64_t *dropped, mh_err *err) {
    mh_db *db;
    json_t *root;
    char notice[600];
    int rc = open_summary(path, &db, &root, notice, sizeof notice, err);
    if (rc) return rc;
    if (nlaunches) *nlaunches = json_array_size(json_object_get(root, "launches"));
    if (dropped) *dropped = dropped_total(root);
    rows_buf rows = {0};
    mh_heat_region *reg = NULL;
    size_t capreg = 0, i;
    json_t *m;
    json_array_foreach(json_object_get(root, "heat_maps"), i, m) {
        int space = space_parse(mh_sum_str(m, "space", ""));
        if (space < 0 || (space_mask && !(space_mask & (1u << space)))) continue;
        const json_t *lj = mh_sum_launch(root, mh_sum_int(m, "launch"));
        mh_model_launch ml = {0};
        ml.l.id = (uint32_t)mh_sum_int(m, "launch");
        ml.l.name = lj ? mh_sum_str(lj, "name", "") : "";
        ml.l.display_name = lj ? mh_sum_str(lj, "display_name", ml.l.name) : "";
        if (lj) {
            dim3_of(json_object_get(lj, "grid"), &ml.l.grid);
            dim3_of(json_object_get(lj, "block"), &ml.l.block);
            ml.n_blocks = (uint32_t)mh_sum_int(lj, "n_blocks");
            ml.n_sampled = (uint32_t)mh_sum_int(lj, "n_sampled");
            ml.threads_per_block = (uint32_t)mh_sum_int(lj, "threads_per_block");
            ml.warps_per_block = (uint32_t)mh_sum_int(lj, "warps_per_block");
            ml.ended = (int)mh_sum_int(lj, "ended");
        }
        const json_t *rj = json_object_get(m, "regions");
        size_t nreg = json_array_size(rj);
        mh_heat_region *g = mh_grow(reg, &capreg, nreg ? nreg : 1, sizeof *g, 16);
        if (!g) {
            rc = mh_err_set(err, MH_ERR_NOMEM, "out of memory reading %s", path);
            break;
        }
        reg = g;
        for (size_t k = 0; k < nreg; k++) {
            const json_t *r = json_array_get(rj, k);
            const json_t *obj = json_object_get(r, "object");
            reg[k] = (mh_heat_region){.obj = json_is_integer(obj) ? json_integer_value(obj) : -1,
                                      .label = mh_sum_str(r, "label", ""),
                                      .start = mh_sum_hex(r, "start"),
                                      .end = mh_sum_hex(r, "end"),
                                      .first_tag = mh_sum_hex(r, "first_tag"),
                                      .last_tag = mh_sum_hex(r, "last_tag"),
                                      .first_row = (size_t)mh_sum_int(r, "first_row"),
                                      .nrows = (size_t)mh_sum_int(r, "nrows")};
        }
        rows.n = 0;
        rc = mh_db_read_heat(db, mh_sum_int(m, "id"), take_row, &rows, err);
        if (rc == MH_ERR_NOMEM) rc = mh_err_set(err, MH_ERR_NOMEM, "out of memory reading %s", path);
        if (rc) break;
        for (size_t k = 0; k < rows.n; k++) /* a damaged region index must not reach the renderer */
            if (rows.v[k].region >= (int32_t)nreg) rows.v[k].region = -1;
        mh_heat_result r = {.model = NULL, .launch = &ml, .space = (unsigned)space,
                            .sector_size = (uint32_t)mh_sum_int(m, "sector_size"), .accesses = (uint64_t)mh_sum_int(m, "accesses"),
                            .rows = rows.v, .nrows = rows.n, .regions = reg, .nregions = nreg};
        if ((rc = fn(ctx, &r, err)) != MH_OK) break;
    }
    free(rows.v);
    free(reg);
    json_decref(root);
    mh_db_close(db);
    return incomplete(rc, notice, err);
}

/* ---- analyze ---- */

/* The locality rows of one launch folded back into an mh_loc_result. */
static void loc_of(const json_t *root, int64_t launch, mh_loc_result *r) {
    memset(r, 0, sizeof *r);
    size_t i;
    json_t *o;
    json_array_foreach(json_object_get(root, "locality"), i, o) {
        if (mh_sum_int(o, "launch") != launch) continue;
        const char *sp = mh_sum_str(o, "space", "");
        int c = !strcmp(sp, "all") ? MH_LOC_TOTAL : space_parse(sp);
        if (c < 0) continue;
        mh_loc_metrics *m = &r->m[c];
        m->accesses = (uint64_t)mh_sum_int(o, "accesses");
        m->footprint = (uint64_t)mh_sum_int(o, "footprint");
        m->footprint90 = (uint64_t)mh_sum_int(o, "footprint90");
        if (c == MH_LOC_TOTAL) r->rel_local = mh_sum_num(o, "local_share");
        const json_t *curves = json_object_get(o, "curves");
        for (int k = 0; k < 2; k++) {
            size_t j;
            json_t *pt;
            json_array_foreach(json_object_get(curves, k ? "psl" : "entropy"), j, pt) {
                json_int_t bits = json_integer_value(json_array_get(pt, 0));
                if (bits < 0 || bits >= MH_LOC_NBITS) continue;
                (k ? m->psl : m->entropy)[bits] = json_number_value(json_array_get(pt, 1));
            }
        }
    }
}

/* Launch ids with locality rows, in order (the rows are sorted by launch). */
static size_t loc_launches(const json_t *root, int64_t *ids, size_t cap) {
    size_t n = 0, i;
    json_t *o;
    json_array_foreach(json_object_get(root, "locality"), i, o) {
        int64_t id = mh_sum_int(o, "launch");
        if (n && ids[n - 1] == id) continue;
        if (n == cap) break;
        ids[n++] = id;
    }
    return n;
}

/* Several processes: the findings grouped by (kernel, kind, space, object)
 * across ranks (rankdata.c), "on all N ranks" with the spread of the cost,
 * else the ranks that have it. Nothing for one process. */
static void print_rank_groups(FILE *f, const json_t *root, const mh_cli_profile_analyze_opts *o) {
    mh_rank_procs p;
    if (mh_report_rank_procs(root, &p)) return;
    mh_rank_findings fg = {0};
    if (p.n > 1 && !mh_report_rank_findings(root, &p, o->show_coalesced, &fg)) {
        fprintf(f, "\nBy rank (%zu processes; the same finding on several ranks is one line, cost per rank):\n", p.n);
        for (size_t i = 0; i < fg.n; i++) {
            const mh_rank_fgroup *g = &fg.v[i];
            char lab[512];
            mh_report_rank_list(&p, g->on, lab, sizeof lab);
            fprintf(f, "  %-17s %s  %s '%s': ", g->kind, g->kernel, g->space, g->object[0] ? g->object : "?");
            if (g->nranks == p.n) fprintf(f, "on all %zu ranks", p.n);
            else fprintf(f, "on %s only", lab);
            if (g->cost_min == g->cost_max) fprintf(f, ", cost %.0f\n", g->cost_min);
            else fprintf(f, ", cost %.0f-%.0f\n", g->cost_min, g->cost_max);
        }
        if (!fg.n) fprintf(f, "  (none)\n");
        mh_report_rank_findings_free(&fg);
    }
    mh_report_rank_procs_free(&p);
}

/* The same for the JSON: [{kernel, kind, space, object, ranks, all, cost_min, cost_max}]. */
static json_t *rank_groups_json(const json_t *root, const mh_cli_profile_analyze_opts *o) {
    mh_rank_procs p;
    if (mh_report_rank_procs(root, &p)) return NULL;
    mh_rank_findings fg = {0};
    json_t *a = NULL;
    if (p.n > 1 && !mh_report_rank_findings(root, &p, o->show_coalesced, &fg)) {
        a = json_array();
        for (size_t i = 0; i < fg.n; i++) {
            const mh_rank_fgroup *g = &fg.v[i];
            char lab[512];
            mh_report_rank_list(&p, g->on, lab, sizeof lab);
            json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:s, s:s, s:b, s:I, s:f, s:f}", "kernel", g->kernel,
                                               "kind", g->kind, "space", g->space, "object", g->object, "ranks", lab,
                                               "all", g->nranks == p.n, "nranks", (json_int_t)g->nranks, "cost_min",
                                               g->cost_min, "cost_max", g->cost_max));
        }
        mh_report_rank_findings_free(&fg);
    }
    mh_report_rank_procs_free(&p);
    return a;
}

static const char NOT_STORED[] =
    "a profile does not store per-finding request counts, hottest temperatures or the bank table's extra "
    "wavefronts: analyze the trace (memheat run --keep-trace) for them";

static int print_text(FILE *f, const json_t *root, const mh_fixes *fx, const mh_cli_profile_analyze_opts *o) {
    const json_t *meta = json_object_get(root, "meta");
    uint64_t accesses = 0;
    size_t i;
    json_t *x;
    json_array_foreach(json_object_get(root, "launches"), i, x) accesses += (uint64_t)mh_sum_int(x, "recorded");
    int cut = !strcmp(mh_sum_str(meta, "trace_complete", "1"), "0");
    fprintf(f, "memheat analyze: %zu launches, %" PRIu64 " accesses%s (from the profile)\n\n",
            json_array_size(json_object_get(root, "launches")), accesses,
            cut ? " (trace cut short: whole chunks only)" : "");
    fprintf(f, "note: %s\n\n", NOT_STORED);
    if (!o->no_patterns && fx && fx->n) { /* every cause, folded and ranked by its estimated saving (fixes.c) */
        mh_cli_fixes_print(f, fx, o->max_findings, 0);
        fputc('\n', f);
    }
    if (!o->no_patterns) {
        size_t shown = 0, coalesced = 0;
        const json_t *fa = json_object_get(root, "findings");
        fprintf(f, "Findings, most costly first (cost = estimated avoidable sector transactions or wavefronts):\n");
        json_array_foreach(fa, i, x) {
            if (!strcmp(mh_sum_str(x, "kind", ""), "coalesced")) {
                coalesced++;
                if (!o->show_coalesced) continue;
            }
            if (o->max_findings && shown >= o->max_findings) continue;
            mh_fview fv;
            mh_fview_from_profile(&fv, root, x);
            mh_fview_text(f, shown++, &fv);
            mh_fview_free(&fv);
        }
        if (!shown) fprintf(f, "  (none)\n");
        print_rank_groups(f, root, o);
        if (coalesced && !o->show_coalesced) {
            fprintf(f, "Well coalesced:");
            json_array_foreach(fa, i, x) if (!strcmp(mh_sum_str(x, "kind", ""), "coalesced"))
                fprintf(f, " launch %" PRId64 " '%s';", mh_sum_int(x, "launch"), *mh_sum_str(x, "object_label", "") ? mh_sum_str(x, "object_label", "") : "?");
            fputc('\n', f);
        }
        const json_t *ba = json_object_get(root, "bank_conflicts");
        if (json_array_size(ba)) {
            fprintf(f, "\nShared-memory bank conflicts per pc (degree = most distinct words in one bank):\n");
            fprintf(f, "  %-6s %-18s %10s %8s %5s %12s\n", "launch", "pc", "requests", "avg", "max", "extra");
            json_array_foreach(ba, i, x)
                fprintf(f, "  %-6" PRId64 " 0x%-16" PRIx64 " %10" PRId64 " %8.2f %5" PRId64 " %12s\n", mh_sum_int(x, "launch"),
                        mh_sum_hex(x, "pc"), mh_sum_int(x, "accesses"), mh_sum_num(x, "degree"), mh_sum_int(x, "max_degree"), "-");
        }
    }
    if (!o->no_locality) {
        size_t nl = json_array_size(json_object_get(root, "locality"));
        int64_t *ids = malloc((nl ? nl : 1) * sizeof *ids);
        if (!ids) return MH_ERR_NOMEM;
        size_t n = loc_launches(root, ids, nl);
        for (size_t k = 0; k < n; k++) {
            mh_loc_result r;
            loc_of(root, ids[k], &r);
            mh_analyze_print_locality(f, (uint32_t)ids[k], mh_sum_kernel(root, ids[k]), &r);
        }
        free(ids);
    }
    return ferror(f) ? MH_ERR_IO : MH_OK;
}

/* JSON in the shape of mh_analyze_write_json (docs/metrics.md), with what the
 * profile holds. */
static json_t *to_json(const json_t *root, const mh_fixes *fx, const mh_cli_profile_analyze_opts *o, int noted) {
    json_t *d = json_object(), *fa = json_array(), *ba = json_array(), *la = json_array();
    const json_t *meta = json_object_get(root, "meta");
    uint64_t accesses = 0;
    size_t i;
    json_t *x;
    json_array_foreach(json_object_get(root, "launches"), i, x) accesses += (uint64_t)mh_sum_int(x, "recorded");
    int cut = !strcmp(mh_sum_str(meta, "trace_complete", "1"), "0");
    json_object_set_new(d, "format", json_string("memheat-analyze-2"));
    json_object_set_new(d, "source", json_string("profile"));
    json_object_set_new(d, "not_stored", json_string(NOT_STORED));
    json_object_set_new(d, "accesses", json_integer((json_int_t)accesses));
    json_object_set_new(d, "launches", json_integer((json_int_t)json_array_size(json_object_get(root, "launches"))));
    json_object_set_new(d, "complete", json_boolean(!cut && !noted)); /* exit 0: as from a trace */
    json_object_set_new(d, "truncated", json_boolean(cut));
    json_object_set_new(d, "partial", json_boolean(cut));
    if (!o->no_patterns) {
        json_array_foreach(json_object_get(root, "findings"), i, x) {
            mh_fview fv;
            mh_fview_from_profile(&fv, root, x);
            json_array_append_new(fa, mh_fview_json(&fv));
            mh_fview_free(&fv);
        }
        json_array_foreach(json_object_get(root, "bank_conflicts"), i, x) {
            json_t *g = json_object();
            json_object_set_new(g, "launch", json_integer(mh_sum_int(x, "launch")));
            json_object_set_new(g, "pc", json_integer((json_int_t)mh_sum_hex(x, "pc")));
            json_object_set_new(g, "requests", json_integer(mh_sum_int(x, "accesses")));
            json_object_set_new(g, "degree_avg", json_real(mh_sum_num(x, "degree")));
            json_object_set_new(g, "degree_max", json_integer(mh_sum_int(x, "max_degree")));
            json_t *pb = json_object_get(x, "banks"); /* absent from profiles written before it */
            if (json_is_array(pb)) json_object_set(g, "banks", pb);
            json_array_append_new(ba, g);
        }
    }
    if (!o->no_locality) {
        json_array_foreach(json_object_get(root, "locality"), i, x) {
            int64_t id = mh_sum_int(x, "launch");
            if (i && mh_sum_int(json_array_get(json_object_get(root, "locality"), i - 1), "launch") == id) continue;
            mh_loc_result r;
            loc_of(root, id, &r);
            json_t *g = json_object(), *sp = json_object();
            json_object_set_new(g, "launch", json_integer(id));
            json_object_set_new(g, "kernel", json_string(mh_sum_kernel(root, id)));
            json_object_set_new(g, "rel_local", json_real(r.rel_local));
            for (int c = 0; c < MH_LOC_COLS; c++) {
                if (c != MH_LOC_TOTAL && !r.m[c].accesses) continue; /* as from a trace: no metrics, left out */
                json_t *m = json_object(), *en = json_array(), *ps = json_array();
                json_object_set_new(m, "accesses", json_integer((json_int_t)r.m[c].accesses));
                json_object_set_new(m, "footprint", json_integer((json_int_t)r.m[c].footprint));
                json_object_set_new(m, "footprint90", json_integer((json_int_t)r.m[c].footprint90));
                for (int b = 0; b < MH_LOC_NBITS; b++) {
                    json_array_append_new(en, json_real(r.m[c].entropy[b]));
                    json_array_append_new(ps, json_real(r.m[c].psl[b]));
                }
                json_object_set_new(m, "entropy", en);
                json_object_set_new(m, "psl", ps);
                json_object_set_new(sp, c == MH_LOC_TOTAL ? "total" : mh_space_name((unsigned)c), m);
            }
            json_object_set_new(g, "spaces", sp);
            json_array_append_new(la, g);
        }
    }
    json_object_set_new(d, "findings", fa);
    if (!o->no_patterns && fx) json_object_set_new(d, "fixes", mh_fixes_json(fx));
    json_t *rg = o->no_patterns ? NULL : rank_groups_json(root, o);
    if (rg) json_object_set_new(d, "rank_groups", rg);
    json_object_set_new(d, "bank_conflicts", ba);
    json_object_set_new(d, "locality", la);
    return d;
}

static int dump(const json_t *d, const char *path, mh_err *err) {
    size_t flags = JSON_INDENT(2) | JSON_REAL_PRECISION(10);
    if (!strcmp(path, "-")) {
        if (json_dumpf(d, stdout, flags) != 0 || fputc('\n', stdout) == EOF)
            return mh_err_set(err, MH_ERR_IO, "writing JSON to stdout failed");
        return MH_OK;
    }
    if (json_dump_file(d, path, flags) != 0) return mh_err_set(err, MH_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    return MH_OK;
}

int mh_cli_profile_analyze(const char *path, const mh_cli_profile_analyze_opts *o, mh_err *err) {
    mh_db *db;
    json_t *root;
    char notice[600];
    int rc = open_summary(path, &db, &root, notice, sizeof notice, err);
    if (rc) return rc;
    mh_fixes fx;
    int have_fx = 0;
    if (!o->no_patterns) {
        if ((rc = mh_fixes_compute(db, root, &fx, err)) != MH_OK) {
            mh_db_close(db);
            json_decref(root);
            return rc;
        }
        have_fx = 1;
    }
    mh_db_close(db);
    mh_groups *groups = o->group_by != MH_GROUP_NONE ? mh_rollup_profile(root, o->group_by) : NULL;
    if (o->group_by != MH_GROUP_NONE && !groups) {
        json_decref(root);
        if (have_fx) mh_fixes_free(&fx);
        return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    }
    json_t *d = (o->json || o->out) ? to_json(root, have_fx ? &fx : NULL, o, notice[0] != 0) : NULL;
    if (d && groups) {
        json_object_set_new(d, "group_by", json_string(mh_group_name(o->group_by)));
        json_object_set_new(d, "groups", mh_groups_json(groups));
    }
    if (d && json_object_get(root, "sites")) json_object_set(d, "sites", json_object_get(root, "sites"));
    if (!o->json && groups) {
        mh_groups_print(groups, stdout, o->max_findings);
        fputc('\n', stdout);
    }
    mh_groups_free(groups);
    if (o->json) rc = dump(d, "-", err);
    else if ((rc = print_text(stdout, root, have_fx ? &fx : NULL, o)) != MH_OK)
        rc = mh_err_set(err, MH_ERR_IO, "writing to stdout failed");
    if (rc == MH_OK && o->out) rc = dump(d, o->out, err);
    if (rc == MH_OK) {
        uint64_t dropped = dropped_total(root);
        if (dropped)
            fprintf(stderr, "memheat analyze: warning: the collector dropped %" PRIu64 " accesses; results undercount\n",
                    dropped);
    }
    json_decref(d);
    json_decref(root);
    if (have_fx) mh_fixes_free(&fx);
    return incomplete(rc, notice, err);
}
