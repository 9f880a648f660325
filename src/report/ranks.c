/* ranks.c -- the report's view by rank, for a profile of several processes
 * (a multi-process run, or `memheat merge` of per-rank profiles): static
 * HTML from the numbers of rankdata.c (no script), a section of its own
 * after the main page, ranks in order; one process writes nothing. Per
 * kernel, one column per rank (kernel time and bandwidth where the run was
 * timed, else traced launches and accesses) and the slowest rank against the
 * median (load imbalance); the findings with those on every rank folded into
 * one line with the spread of their cost. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/rankdata.h"
#include "report/report.h"

static long long jint(const json_t *o, const char *k) { return (long long)json_integer_value(json_object_get(o, k)); }
static const char *jstr(const json_t *o, const char *k) {
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

static int kernel_table(FILE *out, const json_t *root, const mh_rank_procs *p) {
    mh_rank_kernels k;
    if (mh_report_rank_kernels(root, p, &k)) return -1;
    fprintf(out, "<h3>Kernels by rank</h3>\n<p class=\"mh-note\">%s</p>\n<table class=\"mh-ranks-kernels\"><thead><tr>"
            "<th>kernel</th>",
            k.timed ? "Kernel time (ms) and bandwidth (GB/s) per rank; slowest rank against the median of the ranks."
                    : "Not timed (simulator or --no-timing): traced launches / accesses per rank; the rank with the "
                      "most accesses against the median.");
    for (size_t c = 0; c < p->n; c++) {
        fputs("<th>", out);
        mh_report_html_text(out, p->v[c].label);
        fputs("</th>", out);
    }
    fputs("<th>slowest / median</th></tr></thead><tbody>\n", out);
    for (size_t r = 0; r < k.n; r++) {
        const mh_rank_krow *row = &k.v[r];
        fputs("<tr><td class=\"mh-kname\">", out);
        mh_report_html_text(out, row->name);
        fputs("</td>", out);
        for (size_t c = 0; c < p->n; c++) {
            const mh_rank_cell *ce = &row->c[c];
            if (!ce->set) fputs("<td class=\"mh-none\">&mdash;</td>", out);
            else if (k.timed) fprintf(out, "<td>%.3f ms<br>%.1f GB/s</td>", ce->v / 1e6, ce->v2 / 1e9);
            else fprintf(out, "<td>%.0f / %.0f</td>", ce->v, ce->v2);
        }
        fprintf(out, "<td class=\"%s\" data-ratio=\"%.4f\">", row->ratio > MH_RANK_IMBALANCE ? "mh-imbalanced" : "mh-balanced",
                row->ratio);
        if (row->m > 1) {
            fprintf(out, "%.2f&times; (", row->ratio);
            mh_report_html_text(out, p->v[row->worst].label);
            fputs(")", out);
        } else {
            fputs("one rank", out);
        }
        fputs("</td></tr>\n", out);
    }
    fputs("</tbody></table>\n", out);
    mh_report_rank_kernels_free(&k);
    return 0;
}

static int findings_table(FILE *out, const json_t *root, const mh_rank_procs *p) {
    mh_rank_findings fg;
    if (mh_report_rank_findings(root, p, 1, &fg)) return -1;
    fputs("<h3>Findings by rank</h3>\n<table class=\"mh-ranks-findings\"><thead><tr><th>kernel</th><th>finding</th>"
          "<th>space</th><th>object</th><th>where</th></tr></thead><tbody>\n",
          out);
    for (size_t k = 0; k < fg.n; k++) {
        const mh_rank_fgroup *g = &fg.v[k];
        const char *fld[4] = {g->kernel, g->kind, g->space, g->object};
        fputs("<tr>", out);
        for (int q = 0; q < 4; q++) {
            fputs("<td>", out);
            mh_report_html_text(out, fld[q]);
            fputs("</td>", out);
        }
        char lab[512];
        mh_report_rank_list(p, g->on, lab, sizeof lab);
        if (g->nranks == p->n)
            fprintf(out, "<td class=\"mh-every\" data-cost-min=\"%.0f\" data-cost-max=\"%.0f\">the same on every rank "
                    "(all %zu; cost %.0f&ndash;%.0f)</td>",
                    g->cost_min, g->cost_max, p->n, g->cost_min, g->cost_max);
        else {
            fputs("<td class=\"mh-some\">", out);
            mh_report_html_text(out, lab);
            fputs(" only</td>", out);
        }
        fputs("</tr>\n", out);
    }
    if (!fg.n) fputs("<tr><td colspan=\"5\">no findings</td></tr>\n", out);
    fputs("</tbody></table>\n", out);
    mh_report_rank_findings_free(&fg);
    return 0;
}

int mh_report_ranks_html(const json_t *root, FILE *out) {
    mh_rank_procs p;
    if (mh_report_rank_procs(root, &p)) return -1;
    if (p.n < 2) {
        mh_report_rank_procs_free(&p);
        return 0;
    }
    fputs("<section id=\"mh-ranks\" style=\"margin:1em 2em;font:14px sans-serif\">\n<h2>Processes and ranks</h2>\n"
          "<style>#mh-ranks table{border-collapse:collapse;margin:.5em 0}#mh-ranks td,#mh-ranks th{border:1px solid "
          "#ccc;padding:2px 6px;text-align:right}#mh-ranks td:first-child,#mh-ranks .mh-kname{text-align:left}"
          "#mh-ranks .mh-imbalanced{background:#fdd}#mh-ranks .mh-every{color:#555}</style>\n"
          "<table class=\"mh-ranks-procs\"><thead><tr><th>process</th><th>rank</th><th>pid</th><th>host</th>"
          "<th>launches traced / run</th><th>devices</th><th>command</th></tr></thead><tbody>\n",
          out);
    for (size_t i = 0; i < p.n; i++) {
        const json_t *q = p.v[i].p;
        fprintf(out, "<tr><td>#%lld</td><td>", p.v[i].id);
        mh_report_html_text(out, p.v[i].label);
        fprintf(out, "</td><td>%lld</td><td>", jint(q, "pid"));
        mh_report_html_text(out, jstr(q, "host"));
        fprintf(out, "</td><td>%lld / %lld</td><td>", jint(q, "launches_traced"), jint(q, "launches_run"));
        mh_report_html_text(out, jstr(q, "devices"));
        fputs("</td><td style=\"text-align:left\">", out);
        mh_report_html_text(out, jstr(q, "command"));
        fputs("</td></tr>\n", out);
    }
    fputs("</tbody></table>\n", out);
    int rc = kernel_table(out, root, &p);
    if (!rc) rc = findings_table(out, root, &p);
    fputs("</section>\n", out);
    mh_report_rank_procs_free(&p);
    return rc;
}
