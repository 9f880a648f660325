/* html.c -- `memheat report`: one self-contained HTML file per profile.
 *
 * The page is: embedded CSS; the profile summary as JSON in
 * <script type="application/json" id="mh-data"> (escaped for <script>); per heat
 * map two base64 blobs of folded runs (consecutive sectors with identical
 * temperatures in one region become one run with a count): run meta as
 * uint32 little-endian (tag_lo, tag_hi, count, region + 1) and nine
 * temperatures per run as uint8, uint16 or uint32 (the narrowest that holds
 * the map's hottest cell: a sampled block's map rarely passes 255 warps), and a third blob of each run's access kinds (uint32: 3 bits per
 * word, analyses/heat.h MH_HEAT_KINDS_OF; runs fold only when their kinds match
 * too; the map's "kinds" says whether the profile recorded them); then the embedded JS (assets/util.js, heatmap.js, findings.js,
 * timeline.js, report.js concatenated into one function scope), which draws
 * everything. Findings whose source is found (source.c: where the report is
 * written, or in the --source directories) get the lines around their line as
 * "snippet". A profile of several
 * processes is read through one launch per distinct content across ranks
 * (rankview.c, mh_db_read_keep): the page holds those launches, the
 * reference rank's kernels and timeline, for the script the launches and
 * findings across ranks, and the static section on ranks (ranks.c), so it
 * grows by a summary row per rank. Nothing is fetched: a
 * Content-Security-Policy forbids any network access from the page. */
#include "report/fixes.h"
#include "util/demangle.h"
#include "util/kname.h"
#include "report/names.h"
#include "report/rankview.h"
#include "report/rollup.h"
#include "report/source.h"
#include "report/report.h"
#include "util/grow.h"

#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct fold {
    uint32_t *meta;  /* 4 per run */
    uint32_t *temps; /* 9 per run */
    uint32_t *kinds; /* 1 per run: packed kinds per word */
    size_t nruns, cap;
    int unknown;     /* a touched row without kinds (a profile written before them) */
    int have_prev;
    mh_db_heat_row prev;
} fold;

static int fold_row(void *vctx, const mh_db_heat_row *r) {
    fold *f = vctx;
    if (f->have_prev && r->tag == f->prev.tag + 1 && r->region == f->prev.region && r->sector == f->prev.sector &&
        r->kinds == f->prev.kinds && memcmp(r->word, f->prev.word, sizeof r->word) == 0 &&
        f->meta[(f->nruns - 1) * 4 + 2] < UINT32_MAX) {
        f->meta[(f->nruns - 1) * 4 + 2]++;
        f->prev = *r;
        return 0;
    }
    if (f->nruns == f->cap) {
        size_t capm = f->cap, capt = f->cap, capk = f->cap; /* one capacity, three arrays: meta x4, temps x9, kinds */
        uint32_t *m = mh_grow(f->meta, &capm, f->nruns + 1, 4 * sizeof *m, 1024);
        if (!m) return MH_ERR_NOMEM;
        f->meta = m;
        uint32_t *t = mh_grow(f->temps, &capt, f->nruns + 1, 9 * sizeof *t, 1024);
        if (!t) return MH_ERR_NOMEM;
        f->temps = t;
        uint32_t *k = mh_grow(f->kinds, &capk, f->nruns + 1, sizeof *k, 1024);
        if (!k) return MH_ERR_NOMEM;
        f->kinds = k;
        f->cap = capm;
    }
    uint32_t *m = f->meta + f->nruns * 4, *t = f->temps + f->nruns * 9;
    m[0] = (uint32_t)r->tag;
    m[1] = (uint32_t)(r->tag >> 32);
    m[2] = 1;
    m[3] = (uint32_t)(r->region + 1);
    memcpy(t, r->word, sizeof r->word);
    t[8] = r->sector;
    f->kinds[f->nruns] = r->kinds;
    if (!r->kinds && r->sector) f->unknown = 1;
    f->nruns++;
    f->prev = *r;
    f->have_prev = 1;
    return 0;
}

/* little-endian bytes of v[0..n) with `width` bytes each, into a new buffer */
static unsigned char *le_bytes(const uint32_t *v, size_t n, int width) {
    unsigned char *b = malloc(n * (size_t)width + 1), *p = b;
    if (!b) return NULL;
    for (size_t i = 0; i < n; i++) {
        for (int k = 0; k < width; k++) *p++ = (unsigned char)(v[i] >> (8 * k));
    }
    return b;
}

static int write_map(mh_db *db, FILE *out, json_t *map, mh_err *err) {
    int64_t id = json_integer_value(json_object_get(map, "id"));
    fold f;
    memset(&f, 0, sizeof f);
    int rc = mh_db_read_heat(db, id, fold_row, &f, err);
    if (rc == MH_ERR_NOMEM) mh_err_set(err, rc, "out of memory folding heat map %lld", (long long)id);
    uint32_t hottest = 0; /* the narrowest width that holds every temperature: most maps fit a byte */
    for (size_t i = 0; !rc && i < f.nruns * 9; i++)
        if (f.temps[i] > hottest) hottest = f.temps[i];
    int width = hottest <= 0xff ? 1 : hottest <= 0xffff ? 2 : 4;
    unsigned char *mb = rc ? NULL : le_bytes(f.meta, f.nruns * 4, 4);
    unsigned char *tb = rc ? NULL : le_bytes(f.temps, f.nruns * 9, width);
    unsigned char *kb = rc ? NULL : le_bytes(f.kinds, f.nruns, 4);
    if (!rc && (!mb || !tb || !kb)) rc = mh_err_set(err, MH_ERR_NOMEM, "out of memory encoding heat map %lld", (long long)id);
    if (!rc) {
        fprintf(out, "<script type=\"application/octet-stream\" id=\"heat-%lld-m\" data-runs=\"%zu\">", (long long)id,
                f.nruns);
        mh_report_base64(out, mb, f.nruns * 16);
        fprintf(out, "</script>\n<script type=\"application/octet-stream\" id=\"heat-%lld-t\" data-width=\"%d\">",
                (long long)id, width);
        mh_report_base64(out, tb, f.nruns * 9 * (size_t)width);
        fprintf(out, "</script>\n<script type=\"application/octet-stream\" id=\"heat-%lld-k\">", (long long)id);
        mh_report_base64(out, kb, f.nruns * 4);
        fputs("</script>\n", out);
        json_object_set_new(map, "runs", json_integer((json_int_t)f.nruns));
        json_object_set_new(map, "kinds", json_boolean(!f.unknown));
    }
    free(mb);
    free(tb);
    free(kb);
    free(f.meta);
    free(f.temps);
    free(f.kinds);
    return rc;
}

/* What the page shows the way the terminal does (issue 40): the ranked fixes
 * (fixes.c: the first screen, its savings computed once, in C), object labels
 * and kernel names shortened (util/kname.h; the whole ones kept beside). */
static void short_labels(json_t *arr, const char *key, const char *out_key) {
    size_t i;
    json_t *o;
    json_array_foreach(arr, i, o) {
        const char *l = json_string_value(json_object_get(o, key));
        if (!l) continue;
        char s[256];
        mh_kname_label(l, 72, s, sizeof s);
        if (strcmp(s, l)) json_object_set_new(o, out_key, json_string(s));
    }
}

/* Every kernel name of the page, its short form unlike every other's
 * (mh_kname_unique) and its whole demangled name. */
static json_t *kernel_names(const json_t *root) {
    static const char *const arrays[] = {"kernels", "launches", "kernel_runs"};
    json_t *seen = json_object(), *names = json_object(), *o;
    const char **v = NULL;
    size_t n = 0, cap = 0, i;
    char *shown = NULL;
    int ok = seen && names;
    for (size_t a = 0; ok && a < sizeof arrays / sizeof *arrays; a++)
        json_array_foreach(json_object_get(root, arrays[a]), i, o) {
            const char *name = json_string_value(json_object_get(o, "name"));
            if (!ok || !name || json_object_get(seen, name)) continue;
            const char **g = mh_grow(v, &cap, n + 1, sizeof *v, 64);
            if (!g || json_object_set_new(seen, name, json_true())) {
                ok = 0;
                break;
            }
            v = g;
            v[n++] = name;
        }
    if (ok && n && (!(shown = malloc(n * 256)) || mh_kname_unique(v, n, 72, 72, shown, 256, 256))) ok = 0;
    for (i = 0; ok && i < n; i++) {
        char *full = mh_demangle(v[i]);
        json_object_set_new(names, v[i], json_pack("{s:s,s:s}", "short", shown + i * 256, "full", full ? full : v[i]));
        free(full);
    }
    free(shown);
    free(v);
    json_decref(seen);
    if (!ok) json_object_clear(names);
    return names;
}

static int annotate_fixes(mh_db *db, json_t *root, mh_err *err) {
    mh_fixes fx;
    int rc = mh_fixes_compute(db, root, &fx, err);
    if (rc) return rc;
    json_object_set_new(root, "fixes", mh_fixes_json(&fx));
    mh_fixes_free(&fx);
    short_labels(json_object_get(root, "findings"), "object_label", "object_short");
    size_t i;
    json_t *m;
    json_array_foreach(json_object_get(root, "heat_maps"), i, m) short_labels(json_object_get(m, "regions"), "label", "label_short");
    json_object_set_new(root, "kernel_names", kernel_names(root));
    return MH_OK;
}

/* The most groups of one kind the page holds (costliest first). */
#define MH_REPORT_GROUPS 200

/* "groups_site" and, where some site lies inside NVTX ranges, "groups_nvtx":
 * findings, launches and GPU time by the user's code (rollup.c, as `memheat
 * analyze --group-by` prints them), for the page's "By your code" section.
 * Nothing when the profile recorded no call site. */
static int annotate_rollups(json_t *root, mh_err *err) {
    json_t *sites = json_object_get(root, "sites"), *s;
    size_t i;
    int nvtx = 0;
    json_array_foreach(sites, i, s) {
        const char *p = json_string_value(json_object_get(s, "nvtx"));
        nvtx |= p && *p;
    }
    const int by[2] = {MH_GROUP_SITE, MH_GROUP_NVTX};
    const char *key[2] = {"groups_site", "groups_nvtx"};
    for (int k = 0; k < 2 && json_array_size(sites); k++) {
        if (by[k] == MH_GROUP_NVTX && !nvtx) break;
        mh_groups *g = mh_rollup_profile(root, by[k]);
        json_t *a = g ? mh_groups_json(g) : NULL;
        mh_groups_free(g);
        if (!a) return mh_err_set(err, MH_ERR_NOMEM, "out of memory grouping by call site");
        while (json_array_size(a) > MH_REPORT_GROUPS) json_array_remove(a, json_array_size(a) - 1);
        json_object_set_new(root, key[k], a);
    }
    return MH_OK;
}

int mh_report_html(mh_db *db, FILE *out, const mh_report_opts *o, mh_err *err) {
    /* several processes: the ranks compared first (rankview.c), then the
     * profile read through one launch per distinct content */
    json_t *rows = NULL, *root = NULL;
    mh_rank_view *rv = NULL;
    int rc = mh_db_read_ranks(db, &rows, err), kept = 0;
    if (!rc && mh_report_rank_view(rows, &rv)) rc = mh_err_set(err, MH_ERR_NOMEM, "out of memory comparing the ranks");
    if (!rc && rv)
        kept = !(rc = mh_db_read_keep(db, rv->keep, rv->nkeep, rv->keep_procs, rv->nkp, rv->p.v[rv->ref].id, err));
    if (!rc) rc = mh_db_read_summary(db, &root, err);
    if (rc == MH_OK) mh_names_annotate(root); /* full_name, short_name beside every kernel name (names.c) */
    if (rc) {
        if (kept) mh_db_read_keep_end(db);
        mh_report_rank_view_free(rv);
        return rc;
    }
    json_t *run = json_object_get(root, "run");
    const char *cmd = run ? json_string_value(json_object_get(run, "command")) : NULL;

    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'unsafe-inline';"
          " style-src 'unsafe-inline'; img-src data:\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>memheat report",
          out);
    if (cmd && cmd[0]) {
        fputs(" \xe2\x80\x94 ", out);
        mh_report_html_text(out, cmd);
    }
    fputs("</title>\n<style>\n", out);
    fwrite(mh_report_asset_report_css, 1, mh_report_asset_report_css_len, out);
    fputs("</style>\n</head><body>\n<main id=\"app\"><p>This report needs JavaScript.</p></main>\n", out);
    mh_report_ranks_html(rv, out); /* several processes: the ranks (ranks.c) */

    /* heat maps first: folding fills each map's "runs" count for the summary */
    json_t *maps = json_object_get(root, "heat_maps");
    size_t i;
    json_t *m;
    json_array_foreach(maps, i, m) {
        if (o && o->progress) {
            char line[128];
            snprintf(line, sizeof line, "report: heat map %zu of %zu", i + 1, json_array_size(maps));
            o->progress(o->progress_ctx, line, 0);
        }
        if ((rc = write_map(db, out, m, err))) break;
    }
    if (!rc) mh_report_source_annotate(root, o ? o->source_dirs : NULL, o ? o->nsource_dirs : 0); /* source.c */
    if (!rc && rv && mh_report_rank_view_annotate(rv, root))
        rc = mh_err_set(err, MH_ERR_NOMEM, "out of memory grouping ranks");
    if (!rc) rc = annotate_fixes(db, root, err);
    if (!rc) rc = annotate_rollups(root, err);
    if (!rc) {
        char *text = json_dumps(root, JSON_COMPACT);
        char *safe = text ? mh_report_json_for_script(text) : NULL;
        if (!safe) rc = mh_err_set(err, MH_ERR_NOMEM, "out of memory writing the report data");
        else {
            fputs("<script type=\"application/json\" id=\"mh-data\">", out);
            fputs(safe, out);
            fputs("</script>\n<script>\n(function () {\n\"use strict\";\n", out);
            const char *js[] = {mh_report_asset_util_js, mh_report_asset_heatmap_js, mh_report_asset_findings_js,
                                mh_report_asset_timeline_js, mh_report_asset_report_js};
            const size_t jslen[] = {mh_report_asset_util_js_len, mh_report_asset_heatmap_js_len,
                                    mh_report_asset_findings_js_len, mh_report_asset_timeline_js_len,
                                    mh_report_asset_report_js_len};
            for (size_t k = 0; k < sizeof js / sizeof js[0]; k++) fwrite(js[k], 1, jslen[k], out);
            fputs("})();\n</script>\n</body></html>\n", out);
        }
        free(text);
        free(safe);
    }
    if (o && o->progress) o->progress(o->progress_ctx, "report: done", 1);
    json_decref(root);
    if (kept) mh_db_read_keep_end(db);
    mh_report_rank_view_free(rv);
    if (!rc && ferror(out)) rc = mh_err_set(err, MH_ERR_IO, "write error");
    return rc;
}
