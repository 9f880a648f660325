/* profile_in.c -- `memheat heatmap` and `memheat analyze` on a profile
 * (.mhdb) instead of a trace (profile_in.h).
 *
 * `memheat run` keeps the profile and, by default, not the trace, so the
 * commands that read a trace must read a profile too. The file kind is told
 * by its first bytes (SQLite's header), never by its name. The profile holds
 * what the trace side computes (heat maps with their regions, findings,
 * bank conflicts, locality): here it is read back through the store's reader
 * and handed to the same renderers (mh_heat_render, mh_heat_write_csv,
 * mh_analyze_print_locality) or printed in the same shape. The store never
 * runs an analysis, and nothing here does either. */
#include "cli/profile_in.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "render/analyze.h"
#include "memheat/patterns.h"
#include "memheat/store.h"
#include "report/rankdata.h"
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

/* ---- small readers of the summary JSON ---- */

static uint64_t jhex(const json_t *o, const char *key) {
    const char *s = json_string_value(json_object_get(o, key));
    return s ? strtoull(s, NULL, 16) : 0;
}

static int64_t jint(const json_t *o, const char *key) { return json_integer_value(json_object_get(o, key)); }

static double jnum(const json_t *o, const char *key) { return json_number_value(json_object_get(o, key)); }

static const char *jstr(const json_t *o, const char *key, const char *dflt) {
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : dflt;
}

static int space_parse(const char *name) {
    for (unsigned s = 0; s < MH_SPACE_COUNT; s++)
        if (name && !strcmp(mh_space_name(s), name)) return (int)s;
    return -1;
}

static const json_t *launch_json(const json_t *root, int64_t id) {
    size_t i;
    json_t *l;
    json_array_foreach(json_object_get(root, "launches"), i, l) if (jint(l, "id") == id) return l;
    return NULL;
}

static const char *kernel_of(const json_t *root, int64_t launch) {
    const json_t *l = launch_json(root, launch);
    return l ? jstr(l, "display_name", jstr(l, "name", "?")) : "?";
}

static uint64_t dropped_total(const json_t *root) {
    const char *s = json_string_value(json_object_get(json_object_get(root, "meta"), "dropped_total"));
    return s ? strtoull(s, NULL, 10) : 0;
}

static int open_summary(const char *path, mh_db **db, json_t **root, mh_err *err) {
    int rc = mh_db_open(db, path, 0, err);
    if (rc) return rc;
    rc = mh_db_read_summary(*db, root, err);
    if (rc) {
        mh_db_close(*db);
        *db = NULL;
    }
    return rc;
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
    int rc = open_summary(path, &db, &root, err);
    if (rc) return rc;
    if (nlaunches) *nlaunches = json_array_size(json_object_get(root, "launches"));
    if (dropped) *dropped = dropped_total(root);
    rows_buf rows = {0};
    mh_heat_region *reg = NULL;
    size_t capreg = 0, i;
    json_t *m;
    json_array_foreach(json_object_get(root, "heat_maps"), i, m) {
        int space = space_parse(jstr(m, "space", ""));
        if (space < 0 || (space_mask && !(space_mask & (1u << space)))) continue;
        const json_t *lj = launch_json(root, jint(m, "launch"));
        mh_model_launch ml = {0};
        ml.l.id = (uint32_t)jint(m, "launch");
        ml.l.name = lj ? jstr(lj, "name", "") : "";
        ml.l.display_name = lj ? jstr(lj, "display_name", ml.l.name) : "";
        if (lj) {
            dim3_of(json_object_get(lj, "grid"), &ml.l.grid);
            dim3_of(json_object_get(lj, "block"), &ml.l.block);
            ml.n_blocks = (uint32_t)jint(lj, "n_blocks");
            ml.n_sampled = (uint32_t)jint(lj, "n_sampled");
            ml.threads_per_block = (uint32_t)jint(lj, "threads_per_block");
            ml.warps_per_block = (uint32_t)jint(lj, "warps_per_block");
            ml.ended = (int)jint(lj, "ended");
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
                                      .label = jstr(r, "label", ""),
                                      .start = jhex(r, "start"),
                                      .end = jhex(r, "end"),
                                      .first_tag = jhex(r, "first_tag"),
                                      .last_tag = jhex(r, "last_tag"),
                                      .first_row = (size_t)jint(r, "first_row"),
                                      .nrows = (size_t)jint(r, "nrows")};
        }
        rows.n = 0;
        rc = mh_db_read_heat(db, jint(m, "id"), take_row, &rows, err);
        if (rc == MH_ERR_NOMEM) rc = mh_err_set(err, MH_ERR_NOMEM, "out of memory reading %s", path);
        if (rc) break;
        for (size_t k = 0; k < rows.n; k++) /* a damaged region index must not reach the renderer */
            if (rows.v[k].region >= (int32_t)nreg) rows.v[k].region = -1;
        mh_heat_result r = {.model = NULL, .launch = &ml, .space = (unsigned)space,
                            .sector_size = (uint32_t)jint(m, "sector_size"), .accesses = (uint64_t)jint(m, "accesses"),
                            .rows = rows.v, .nrows = rows.n, .regions = reg, .nregions = nreg};
        if ((rc = fn(ctx, &r, err)) != MH_OK) break;
    }
    free(rows.v);
    free(reg);
    json_decref(root);
    mh_db_close(db);
    return rc;
}

/* ---- analyze ---- */

/* The summary of a stored evidence line: the text before "; at N pcs:". */
static size_t summary_len(const char *ev) {
    for (const char *p = strstr(ev, "; at "); p; p = strstr(p + 1, "; at ")) {
        const char *q = p + 5;
        while (*q >= '0' && *q <= '9') q++;
        if (q > p + 5 && !strncmp(q, " pcs:", 5)) return (size_t)(p - ev);
    }
    return strlen(ev);
}

/* A kernel argument's view as analyze's JSON on a trace gives it (index,
 * type, name, allocation, offset, range), from the profile's objects; NULL
 * for any other object or a profile without argument columns. */
static json_t *object_arg(const json_t *root, int64_t obj) {
    size_t i;
    json_t *o, *p;
    json_array_foreach(json_object_get(root, "objects"), i, o) {
        if (jint(o, "id") != obj) continue;
        const json_t *a = json_object_get(o, "arg");
        if (!json_is_object(a)) return NULL;
        json_t *r = json_object();
        json_object_set_new(r, "index", json_integer(jint(a, "index")));
        json_object_set_new(r, "type", json_string(jstr(a, "type", "")));
        if (*jstr(a, "name", "")) json_object_set_new(r, "name", json_string(jstr(a, "name", "")));
        const json_t *par = json_object_get(a, "allocation");
        if (json_is_integer(par)) {
            json_object_set_new(r, "allocation", json_integer(json_integer_value(par)));
            size_t j;
            json_array_foreach(json_object_get(root, "objects"), j, p) if (jint(p, "id") == json_integer_value(par)) {
                json_object_set_new(r, "allocation_label", json_string(jstr(p, "label", "")));
                json_object_set_new(r, "offset", json_integer((json_int_t)(jhex(o, "base") - jhex(p, "base"))));
            }
        }
        const json_t *rg = json_object_get(a, "range");
        if (json_array_size(rg) == 2) json_object_set_new(r, "range", json_deep_copy(rg));
        return r;
    }
    return NULL;
}

static uint64_t object_base(const json_t *root, int64_t obj) {
    size_t i;
    json_t *o;
    json_array_foreach(json_object_get(root, "objects"), i, o) if (jint(o, "id") == obj) return jhex(o, "base");
    return 0;
}

static void print_finding(FILE *f, const json_t *root, size_t n, const json_t *x) {
    const json_t *obj = json_object_get(x, "object");
    const char *label = jstr(x, "object_label", "");
    const char *ev = jstr(x, "evidence", "");
    const char *file = jstr(x, "file", NULL);
    uint64_t pc = jhex(x, "pc");
    int64_t launch = jint(x, "launch");
    fprintf(f, "#%-3zu %-17s cost %-10.0f launch %" PRId64 " %s  %s", n + 1, jstr(x, "kind", "?"), jnum(x, "cost"),
            launch, kernel_of(root, launch), jstr(x, "space", "?"));
    if (json_is_integer(obj)) fprintf(f, " '%s' (object %" PRId64 ")", *label ? label : "?", (int64_t)json_integer_value(obj));
    else fprintf(f, " (outside known objects)");
    if (pc) fprintf(f, "  pc 0x%" PRIx64, pc);
    if (file) fprintf(f, " %s:%" PRId64, file, jint(x, "line"));
    fputc('\n', f);
    size_t sl = summary_len(ev);
    fprintf(f, "     %.*s\n", (int)sl, ev);
    if (ev[sl]) fprintf(f, "     %s; figures above: pc 0x%" PRIx64 ", the costliest\n", ev + sl + 2, pc);
    int64_t sectors = jint(x, "sectors");
    if (sectors && !strcmp(jstr(x, "space", ""), "global"))
        fprintf(f, "     heat: %" PRId64 " sectors\n", sectors);
    const json_t *temps = json_object_get(x, "temps");
    if (json_array_size(temps) == MH_HEAT_WORDS + 1) {
        uint64_t tag = jhex(x, "example_tag"), base = json_is_integer(obj) ? object_base(root, json_integer_value(obj)) : 0;
        uint64_t at = tag * 32u;
        fprintf(f, "     example sector at offset %" PRIu64 " (tag 0x%" PRIx64 "): words", at >= base ? at - base : 0,
                tag);
        for (int w = 0; w < MH_HEAT_WORDS; w++) fprintf(f, " %" PRId64, (int64_t)json_integer_value(json_array_get(temps, (size_t)w)));
        fprintf(f, " | sector %" PRId64 "\n", (int64_t)json_integer_value(json_array_get(temps, MH_HEAT_WORDS)));
    }
    fprintf(f, "     fix: %s\n", jstr(x, "advice", ""));
}

/* The locality rows of one launch folded back into an mh_loc_result. */
static void loc_of(const json_t *root, int64_t launch, mh_loc_result *r) {
    memset(r, 0, sizeof *r);
    size_t i;
    json_t *o;
    json_array_foreach(json_object_get(root, "locality"), i, o) {
        if (jint(o, "launch") != launch) continue;
        const char *sp = jstr(o, "space", "");
        int c = !strcmp(sp, "all") ? MH_LOC_TOTAL : space_parse(sp);
        if (c < 0) continue;
        mh_loc_metrics *m = &r->m[c];
        m->accesses = (uint64_t)jint(o, "accesses");
        m->footprint = (uint64_t)jint(o, "footprint");
        m->footprint90 = (uint64_t)jint(o, "footprint90");
        if (c == MH_LOC_TOTAL) r->rel_local = jnum(o, "local_share");
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
        int64_t id = jint(o, "launch");
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

static int print_text(FILE *f, const json_t *root, const mh_cli_profile_analyze_opts *o) {
    const json_t *meta = json_object_get(root, "meta");
    uint64_t accesses = 0;
    size_t i;
    json_t *x;
    json_array_foreach(json_object_get(root, "launches"), i, x) accesses += (uint64_t)jint(x, "recorded");
    int cut = !strcmp(jstr(meta, "trace_complete", "1"), "0");
    fprintf(f, "memheat analyze: %zu launches, %" PRIu64 " accesses%s (from the profile)\n\n",
            json_array_size(json_object_get(root, "launches")), accesses,
            cut ? " (trace cut short: whole chunks only)" : "");
    fprintf(f, "note: %s\n\n", NOT_STORED);
    if (!o->no_patterns) {
        size_t shown = 0, coalesced = 0;
        const json_t *fa = json_object_get(root, "findings");
        fprintf(f, "Findings, most costly first (cost = estimated avoidable sector transactions or wavefronts):\n");
        json_array_foreach(fa, i, x) {
            if (!strcmp(jstr(x, "kind", ""), "coalesced")) {
                coalesced++;
                if (!o->show_coalesced) continue;
            }
            if (o->max_findings && shown >= o->max_findings) continue;
            print_finding(f, root, shown++, x);
        }
        if (!shown) fprintf(f, "  (none)\n");
        print_rank_groups(f, root, o);
        if (coalesced && !o->show_coalesced) {
            fprintf(f, "Well coalesced:");
            json_array_foreach(fa, i, x) if (!strcmp(jstr(x, "kind", ""), "coalesced"))
                fprintf(f, " launch %" PRId64 " '%s';", jint(x, "launch"), *jstr(x, "object_label", "") ? jstr(x, "object_label", "") : "?");
            fputc('\n', f);
        }
        const json_t *ba = json_object_get(root, "bank_conflicts");
        if (json_array_size(ba)) {
            fprintf(f, "\nShared-memory bank conflicts per pc (degree = most distinct words in one bank):\n");
            fprintf(f, "  %-6s %-18s %10s %8s %5s %12s\n", "launch", "pc", "requests", "avg", "max", "extra");
            json_array_foreach(ba, i, x)
                fprintf(f, "  %-6" PRId64 " 0x%-16" PRIx64 " %10" PRId64 " %8.2f %5" PRId64 " %12s\n", jint(x, "launch"),
                        jhex(x, "pc"), jint(x, "accesses"), jnum(x, "degree"), jint(x, "max_degree"), "-");
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
            mh_analyze_print_locality(f, (uint32_t)ids[k], kernel_of(root, ids[k]), &r);
        }
        free(ids);
    }
    return ferror(f) ? MH_ERR_IO : MH_OK;
}

/* JSON in the shape of mh_analyze_write_json (docs/metrics.md), with what the
 * profile holds. */
static json_t *to_json(const json_t *root, const mh_cli_profile_analyze_opts *o) {
    json_t *d = json_object(), *fa = json_array(), *ba = json_array(), *la = json_array();
    const json_t *meta = json_object_get(root, "meta");
    uint64_t accesses = 0;
    size_t i;
    json_t *x;
    json_array_foreach(json_object_get(root, "launches"), i, x) accesses += (uint64_t)jint(x, "recorded");
    int cut = !strcmp(jstr(meta, "trace_complete", "1"), "0");
    json_object_set_new(d, "format", json_string("memheat-analyze-2"));
    json_object_set_new(d, "source", json_string("profile"));
    json_object_set_new(d, "not_stored", json_string(NOT_STORED));
    json_object_set_new(d, "accesses", json_integer((json_int_t)accesses));
    json_object_set_new(d, "launches", json_integer((json_int_t)json_array_size(json_object_get(root, "launches"))));
    json_object_set_new(d, "complete", json_boolean(!cut));
    json_object_set_new(d, "truncated", json_boolean(cut));
    json_object_set_new(d, "partial", json_boolean(cut));
    if (!o->no_patterns) {
        json_array_foreach(json_object_get(root, "findings"), i, x) {
            json_t *g = json_object(), *e = json_object();
            const char *ev = jstr(x, "evidence", "");
            const json_t *obj = json_object_get(x, "object");
            json_object_set_new(g, "kind", json_string(jstr(x, "kind", "")));
            json_object_set_new(g, "cost", json_real(jnum(x, "cost")));
            json_object_set_new(g, "launch", json_integer(jint(x, "launch")));
            json_object_set_new(g, "kernel", json_string(kernel_of(root, jint(x, "launch"))));
            json_object_set_new(g, "space", json_string(jstr(x, "space", "")));
            json_object_set_new(g, "object", json_integer(json_is_integer(obj) ? json_integer_value(obj) : -1));
            json_object_set_new(g, "label", json_string(jstr(x, "object_label", "")));
            json_t *arg = json_is_integer(obj) ? object_arg(root, json_integer_value(obj)) : NULL;
            if (arg) json_object_set_new(g, "arg", arg);
            json_object_set_new(g, "pc", json_integer((json_int_t)jhex(x, "pc")));
            if (jstr(x, "file", NULL)) {
                json_t *s = json_object();
                json_object_set_new(s, "file", json_string(jstr(x, "file", "")));
                json_object_set_new(s, "line", json_integer(jint(x, "line")));
                json_object_set_new(g, "source", s);
            } else {
                json_object_set_new(g, "source", json_null());
            }
            json_object_set_new(e, "sectors", json_integer(jint(x, "sectors")));
            json_object_set_new(e, "stride_bytes", json_integer(jint(x, "stride")));
            const json_t *temps = json_object_get(x, "temps");
            if (json_array_size(temps) == MH_HEAT_WORDS + 1) {
                json_t *ex = json_object(), *w = json_array();
                for (size_t k = 0; k < MH_HEAT_WORDS; k++) json_array_append(w, json_array_get(temps, k));
                json_object_set_new(ex, "tag", json_integer((json_int_t)jhex(x, "example_tag")));
                json_object_set_new(ex, "words", w);
                json_object_set_new(ex, "sector", json_incref(json_array_get(temps, MH_HEAT_WORDS)));
                json_object_set_new(e, "example", ex);
            }
            json_object_set_new(g, "evidence", e);
            size_t sl = summary_len(ev);
            json_object_set_new(g, "summary", json_stringn(ev, sl));
            if (ev[sl]) json_object_set_new(g, "pcs_text", json_string(ev + sl + 2));
            json_object_set_new(g, "suggestion", json_string(jstr(x, "advice", "")));
            json_array_append_new(fa, g);
        }
        json_array_foreach(json_object_get(root, "bank_conflicts"), i, x) {
            json_t *g = json_object();
            json_object_set_new(g, "launch", json_integer(jint(x, "launch")));
            json_object_set_new(g, "pc", json_integer((json_int_t)jhex(x, "pc")));
            json_object_set_new(g, "requests", json_integer(jint(x, "accesses")));
            json_object_set_new(g, "degree_avg", json_real(jnum(x, "degree")));
            json_object_set_new(g, "degree_max", json_integer(jint(x, "max_degree")));
            json_t *pb = json_object_get(x, "banks"); /* absent from profiles written before it */
            if (json_is_array(pb)) json_object_set(g, "banks", pb);
            json_array_append_new(ba, g);
        }
    }
    if (!o->no_locality) {
        json_array_foreach(json_object_get(root, "locality"), i, x) {
            int64_t id = jint(x, "launch");
            if (i && jint(json_array_get(json_object_get(root, "locality"), i - 1), "launch") == id) continue;
            mh_loc_result r;
            loc_of(root, id, &r);
            json_t *g = json_object(), *sp = json_object();
            json_object_set_new(g, "launch", json_integer(id));
            json_object_set_new(g, "kernel", json_string(kernel_of(root, id)));
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
    int rc = open_summary(path, &db, &root, err);
    if (rc) return rc;
    mh_db_close(db);
    json_t *d = (o->json || o->out) ? to_json(root, o) : NULL;
    if (o->json) rc = dump(d, "-", err);
    else if ((rc = print_text(stdout, root, o)) != MH_OK) rc = mh_err_set(err, MH_ERR_IO, "writing to stdout failed");
    if (rc == MH_OK && o->out) rc = dump(d, o->out, err);
    if (rc == MH_OK) {
        uint64_t dropped = dropped_total(root);
        if (dropped)
            fprintf(stderr, "memheat analyze: warning: the collector dropped %" PRIu64 " accesses; results undercount\n",
                    dropped);
    }
    json_decref(d);
    json_decref(root);
    return rc;
}
