/* ranks.c -- the report's section on ranks, for a profile of several
 * processes (a multi-process run, or `memheat merge` of per-rank profiles):
 * static HTML from the numbers of rankview.c and rankdata.c (no script), a
 * section of its own after the main page. Its size grows by one summary row
 * per rank, whatever the number of kernels and findings:
 *  - the ranks: kernel time (accesses when not timed) against the median of
 *    the ranks, bandwidth, launches, the common findings a rank lacks and
 *    the others it has; the ranks most off the median first, then those
 *    whose findings differ, then the slowest;
 *  - per kernel: the ranks that ran it, median, fastest and slowest rank,
 *    slowest against the median (load imbalance, shaded above 1.10x);
 *  - the findings grouped by (kernel, kind, space, object), those on every
 *    rank folded into one line with the spread of their cost, the others
 *    naming their ranks. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/rankview.h"
#include "report/report.h"

static const char *jstr(const json_t *o, const char *k) {
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

static void fmt_metric(char *b, size_t n, int timed, double v) {
    if (timed) snprintf(b, n, "%.3f ms", v / 1e6);
    else snprintf(b, n, "%.0f", v);
}

/* "strided b (k)" of finding group g, escaped */
static void finding_name(FILE *out, const mh_rank_fgroup *g) {
    mh_report_html_text(out, g->kind);
    fputc(' ', out);
    mh_report_html_text(out, g->object[0] ? g->object : "(no object)");
    fputs(" (", out);
    mh_report_html_text(out, g->kernel);
    fputc(')', out);
}

/* The findings cell of rank pi: the common ones it lacks, the others it has (two named, then a count). */
static void findings_cell(FILE *out, const mh_rank_view *v, const mh_rank_sum *s, size_t common) {
    if (!s->absent && !s->extra) {
        fprintf(out, "<td class=\"mh-fall\">all %zu common</td>", common);
        return;
    }
    fputs("<td class=\"mh-fdiff\">", out);
    for (int pass = 0; pass < 2; pass++) {
        size_t want = pass ? s->extra : s->absent, shown = 0;
        if (!want) continue;
        if (pass && s->absent) fputs("; ", out);
        fputs(pass ? "also " : "lacks ", out);
        for (size_t k = 0; k < v->fg.n && shown < 2; k++) {
            const mh_rank_fgroup *g = &v->fg.v[k];
            int common_g = 2 * g->nranks > v->p.n;
            if (pass ? (!common_g && g->on[s->pi]) : (common_g && !g->on[s->pi])) {
                if (shown++) fputs(", ", out);
                finding_name(out, g);
            }
        }
        if (want > shown) fprintf(out, " and %zu more", want - shown);
    }
    fputs("</td>", out);
}

static void summary_table(FILE *out, const mh_rank_view *v) {
    size_t common = 0, hosts = 0, timed_outliers = 0;
    for (size_t k = 0; k < v->fg.n; k++) common += 2 * v->fg.v[k].nranks > v->p.n;
    for (size_t i = 0; i < v->p.n; i++) {
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++) seen = !strcmp(jstr(v->p.v[i].p, "host"), jstr(v->p.v[j].p, "host"));
        hosts += !seen;
        timed_outliers += v->s[i].outlier == 2;
    }
    const char *cmd = jstr(v->p.v[0].p, "command");
    int one_cmd = 1;
    for (size_t i = 1; i < v->p.n && one_cmd; i++) one_cmd = !strcmp(cmd, jstr(v->p.v[i].p, "command"));
    char med[64];
    fmt_metric(med, sizeof med, v->timed, v->median);
    fprintf(out, "<p class=\"mh-note\" id=\"mh-ranks-intro\">%zu ranks on %zu host%s; median %s %s; %zu rank%s more than "
                 "10%% off the median.",
            v->p.n, hosts, hosts == 1 ? "" : "s", v->timed ? "kernel time" : "accesses traced", med, timed_outliers,
            timed_outliers == 1 ? "" : "s");
    if (one_cmd) {
        fputs(" Every rank ran <code>", out);
        mh_report_html_text(out, cmd);
        fputs("</code>.", out);
    }
    fputs(" Heat maps, findings and timeline above are the reference rank's (", out);
    mh_report_html_text(out, v->p.v[v->ref].label);
    fputs("), with the launches that differ on other ranks shown once per distinct content.</p>\n", out);
    fprintf(out,
            "<h3>Ranks</h3>\n<p class=\"mh-note\">%s against the median of the ranks; ranks more than 10%% off it "
            "first, then those whose findings differ from the common ones (found on more than half the ranks), "
            "then the slowest.</p>\n<table class=\"mh-ranks-summary\"><thead><tr><th>rank</th><th>host</th><th>pid</th>"
            "<th>%s</th><th>vs median</th><th>bandwidth</th><th>launches traced / run</th><th>findings</th>%s"
            "</tr></thead><tbody>\n",
            v->timed ? "Kernel time (the sum over its kernels)" : "Not timed: accesses traced",
            v->timed ? "kernel time" : "accesses", one_cmd ? "" : "<th>command</th>");
    for (size_t i = 0; i < v->p.n; i++) {
        const mh_rank_sum *s = &v->s[i];
        const mh_rank_proc *p = &v->p.v[s->pi];
        fprintf(out, "<tr class=\"mh-out%d\" data-ratio=\"%.4f\"><td title=\"", s->outlier, s->ratio);
        mh_report_html_text(out, jstr(p->p, "devices"));
        fputs("\">", out);
        mh_report_html_text(out, p->label);
        fputs("</td><td>", out);
        mh_report_html_text(out, jstr(p->p, "host"));
        fprintf(out, "</td><td>%lld</td>", (long long)json_integer_value(json_object_get(p->p, "pid")));
        char m[64];
        fmt_metric(m, sizeof m, v->timed, s->metric);
        if (s->set) fprintf(out, "<td>%s</td><td>%.2f&times;</td>", m, s->ratio);
        else fputs("<td class=\"mh-none\">&mdash;</td><td class=\"mh-none\">&mdash;</td>", out);
        if (s->bw >= 0) fprintf(out, "<td>%.1f GB/s</td>", s->bw / 1e9);
        else fputs("<td class=\"mh-none\">&mdash;</td>", out);
        if (s->run >= 0) fprintf(out, "<td>%lld / %lld</td>", s->traced, s->run);
        else fprintf(out, "<td>%lld</td>", s->traced);
        findings_cell(out, v, s, common);
        if (!one_cmd) {
            fputs("<td style=\"text-align:left\">", out);
            mh_report_html_text(out, jstr(p->p, "command"));
            fputs("</td>", out);
        }
        fputs("</tr>\n", out);
    }
    fputs("</tbody></table>\n", out);
}

static void kernel_table(FILE *out, const mh_rank_view *v) {
    const mh_rank_kernels *k = &v->k;
    fprintf(out,
            "<h3>Kernels by rank</h3>\n<p class=\"mh-note\">%s</p>\n<table class=\"mh-ranks-kernels\"><thead><tr>"
            "<th>kernel</th><th>ranks</th><th>median</th><th>fastest</th><th>slowest</th><th>slowest / median</th>"
            "</tr></thead><tbody>\n",
            k->timed ? "Kernel time (ms) and bandwidth (GB/s) over the ranks; slowest rank against the median."
                     : "Not timed (simulator or --no-timing): accesses traced over the ranks; the rank with the most "
                       "accesses against the median.");
    for (size_t r = 0; r < k->n; r++) {
        const mh_rank_krow *row = &k->v[r];
        size_t lo = 0;
        int have = 0;
        for (size_t c = 0; c < v->p.n; c++) {
            if (!row->c[c].set) continue;
            double x = k->timed ? row->c[c].v : row->c[c].v2, y = k->timed ? row->c[lo].v : row->c[lo].v2;
            if (!have || x < y) lo = c;
            have = 1;
        }
        const mh_rank_cell *f = &row->c[lo], *w = &row->c[row->worst];
        char med[64], a[64], b[64];
        fmt_metric(med, sizeof med, k->timed, row->median);
        fmt_metric(a, sizeof a, k->timed, k->timed ? f->v : f->v2);
        fmt_metric(b, sizeof b, k->timed, k->timed ? w->v : w->v2);
        fputs("<tr><td class=\"mh-kname\">", out);
        mh_report_html_text(out, row->name);
        fprintf(out, "</td><td>%zu</td><td>%s</td><td>%s", row->m, med, a);
        if (k->timed) fprintf(out, ", %.1f GB/s", f->v2 / 1e9);
        fputs(" (", out);
        mh_report_html_text(out, v->p.v[lo].label);
        fprintf(out, ")</td><td>%s", b);
        if (k->timed) fprintf(out, ", %.1f GB/s", w->v2 / 1e9);
        fputs(" (", out);
        mh_report_html_text(out, v->p.v[row->worst].label);
        fprintf(out, ")</td><td class=\"%s\" data-ratio=\"%.4f\">", row->ratio > MH_RANK_IMBALANCE ? "mh-imbalanced" : "mh-balanced",
                row->ratio);
        if (row->m > 1) fprintf(out, "%.2f&times;", row->ratio);
        else fputs("one rank", out);
        fputs("</td></tr>\n", out);
    }
    fputs("</tbody></table>\n", out);
}

static void findings_table(FILE *out, const mh_rank_view *v) {
    const mh_rank_findings *fg = &v->fg;
    fputs("<h3>Findings by rank</h3>\n<table class=\"mh-ranks-findings\"><thead><tr><th>kernel</th><th>finding</th>"
          "<th>space</th><th>object</th><th>where</th></tr></thead><tbody>\n",
          out);
    for (size_t k = 0; k < fg->n; k++) {
        const mh_rank_fgroup *g = &fg->v[k];
        const char *fld[4] = {g->kernel, g->kind, g->space, g->object};
        fputs("<tr>", out);
        for (int q = 0; q < 4; q++) {
            fputs("<td>", out);
            mh_report_html_text(out, fld[q]);
            fputs("</td>", out);
        }
        char lab[512];
        int but = mh_report_rank_list_short(&v->p, g->on, lab, sizeof lab);
        if (g->nranks == v->p.n)
            fprintf(out, "<td class=\"mh-every\" data-cost-min=\"%.0f\" data-cost-max=\"%.0f\">the same on every rank "
                    "(all %zu; cost %.0f&ndash;%.0f)</td>",
                    g->cost_min, g->cost_max, v->p.n, g->cost_min, g->cost_max);
        else {
            fprintf(out, "<td class=\"mh-some\" data-ranks=\"%zu\">", g->nranks);
            mh_report_html_text(out, lab);
            if (but) fprintf(out, " (%zu of %zu)</td>", g->nranks, v->p.n);
            else fputs(" only</td>", out);
        }
        fputs("</tr>\n", out);
    }
    if (!fg->n) fputs("<tr><td colspan=\"5\">no findings</td></tr>\n", out);
    fputs("</tbody></table>\n", out);
}

int mh_report_ranks_html(const mh_rank_view *v, FILE *out) {
    if (!v || v->p.n < 2) return 0;
    fputs("<section id=\"mh-ranks\" style=\"margin:1em 2em;font:14px sans-serif\">\n<h2>Processes and ranks</h2>\n"
          "<style>#mh-ranks table{border-collapse:collapse;margin:.5em 0}#mh-ranks td,#mh-ranks th{border:1px solid "
          "#ccc;padding:2px 6px;text-align:right}#mh-ranks td:first-child,#mh-ranks .mh-kname{text-align:left}"
          "#mh-ranks .mh-imbalanced,#mh-ranks .mh-out2{background:#fdd}#mh-ranks .mh-out1{background:#ffe}"
          "#mh-ranks .mh-every,#mh-ranks .mh-fall{color:#555}#mh-ranks .mh-fdiff{text-align:left}</style>\n",
          out);
    summary_table(out, v);
    kernel_table(out, v);
    findings_table(out, v);
    fputs("</section>\n", out);
    return 0;
}
