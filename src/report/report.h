/* report.h -- memheat's human-facing outputs of a profile database (mh_report_):
 * the self-contained HTML report, the diff of two profiles (terminal + HTML),
 * and the escaping every name from the profiled program goes through. */
#ifndef MEMHEAT_REPORT_H
#define MEMHEAT_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "memheat/err.h"
#include "store/store.h"

typedef struct mh_report_opts {
    mh_db_progress_fn progress; /* NULL = quiet */
    void *progress_ctx;
    /* where a finding's source is looked for when the file the trace names
     * cannot be read (--source DIR; src/report/source.h) */
    const char *const *source_dirs;
    size_t nsource_dirs;
} mh_report_opts;

/* Writes the whole HTML report of db to out. */
int mh_report_html(mh_db *db, FILE *out, const mh_report_opts *o, mh_err *err);

/* Compares two profiles per kernel name: times, bandwidth, bound, findings
 * that appeared or disappeared. term (may be NULL) gets a table (color = ANSI
 * colours); html (may be NULL) gets a self-contained page. */
int mh_report_diff(mh_db *a, mh_db *b, FILE *term, int color, FILE *html, mh_err *err);
/* The same with kernel pairing: pair_old[i] in A is B's pair_new[i]
 * (--pair OLD=NEW); match_order pairs kernels left unpaired by name in the
 * order of their first launch (--match order). Output names the pairing. */
typedef struct mh_report_diff_opts {
    const char *const *pair_old, *const *pair_new;
    size_t npairs;
    int match_order;
} mh_report_diff_opts;
int mh_report_diff_ex(mh_db *a, mh_db *b, FILE *term, int color, FILE *html, const mh_report_diff_opts *o,
                      mh_err *err);

/* The section on ranks of a profile of several processes (ranks.c): the
 * summary per rank (time or accesses against the median, bandwidth,
 * findings it lacks or adds; outliers first), per kernel the spread over the
 * ranks, the findings with "the same on every rank" folded. v: rankview.h;
 * writes nothing for NULL or one process. Returns 0. */
struct mh_rank_view;
int mh_report_ranks_html(const struct mh_rank_view *v, FILE *out);

/* ---- escaping (escape.c) ---- */
/* JSON text made safe inside <script>: '<', '>', '&', U+2028 and U+2029 become
 * \uXXXX escapes (they can only occur inside JSON strings, so the JSON value is
 * unchanged). Returns a malloc'ed string or NULL when out of memory. */
char *mh_report_json_for_script(const char *json);
/* Writes s with & < > " ' as character references. */
void mh_report_html_text(FILE *f, const char *s);
/* Writes s for a terminal: control characters (ESC included) become '?'. */
void mh_report_term_text(FILE *f, const char *s);
/* Writes n bytes as base64 (no line breaks). */
void mh_report_base64(FILE *f, const void *data, size_t n);

/* The embedded page assets (generated from assets/ at build time); the page's
 * script is util.js, heatmap.js, findings.js, timeline.js, report.js in one
 * function scope. */
extern const char mh_report_asset_util_js[];
extern const size_t mh_report_asset_util_js_len;
extern const char mh_report_asset_heatmap_js[];
extern const size_t mh_report_asset_heatmap_js_len;
extern const char mh_report_asset_findings_js[];
extern const size_t mh_report_asset_findings_js_len;
extern const char mh_report_asset_timeline_js[];
extern const size_t mh_report_asset_timeline_js_len;
extern const char mh_report_asset_report_js[];
extern const size_t mh_report_asset_report_js_len;
extern const char mh_report_asset_report_css[];
extern const size_t mh_report_asset_report_css_len;

#endif
