/* ranks.c -- the report's view by rank, for a profile of several processes
 * (a multi-process run, or `memheat merge` of per-rank profiles).
 *
 * Data-parallel jobs run the same kernels on every rank; what a user asks is
 * "is one rank slower?" and "is this problem everywhere?". So: per kernel,
 * one column per rank (kernel time and bandwidth where the run was timed,
 * else traced launches and accesses), the slowest rank against the median
 * (load imbalance), and the findings with those identical on every rank
 * folded into one line. Static HTML from the summary JSON (no script), a
 * section of its own after the main page, ranks in order; one process
 * writes nothing. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"

#define MH_RANKS_MAX 256 /* columns shown; more processes are listed, not tabulated */
#define MH_IMBALANCE 1.10 /* slowest / median above this is flagged */

static long long jint(const json_t *o, const char *k) { return (long long)json_integer_value(json_object_get(o, k)); }
static double jnum(const json_t *o, const char *k) { return json_number_value(json_object_get(o, k)); }
static const char *jstr(const json_t *o, const char *k) {
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

/* "rank 3" from the first rank variable set, else "pid 1234". */
static void rank_label(const json_t *p, char *buf, size_t cap) {
    static const char *const keys[] = {"rank", "ompi_rank", "pmi_rank", "slurm_procid"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        if (json_is_integer(json_object_get(p, keys[i]))) {
            snprintf(buf, cap, "rank %lld", jint(p, keys[i]));
            return;
        }
    snprintf(buf, cap, "pid %lld", jint(p, "pid"));
}

/* Sort key: the rank where one is set, else after every rank in id order. */
static long long rank_key(const json_t *p) {
    static const char *const keys[] = {"rank", "ompi_rank", "pmi_rank", "slurm_procid"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        if (json_is_integer(json_object_get(p, keys[i]))) return jint(p, keys[i]);
    return (1ll << 40) + jint(p, "id");
}

static int cmp_proc(const void *a, const void *b) {
    long long x = rank_key(*(json_t *const *)a), y = rank_key(*(json_t *const *)b);
    return x < y ? -1 : x > y;
}

/* Index of process id `pid` in procs, or -1. */
static int proc_index(const json_t *procs, long long id) {
    size_t i;
    json_t *p;
    json_array_foreach(procs, i, p) if (jint(p, "id") == id) return (int)i;
    return -1;
}

typedef struct cell {
    double v, v2; /* time (ns) and bandwidth (B/s), or launches and accesses */
    int set;
} cell;

typedef struct krow {
    char name[256];
    cell c[MH_RANKS_MAX];
} krow;

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static krow *row_of(krow **rows, size_t *n, size_t *cap, const char *name) {
    for (size_t i = 0; i < *n; i++)
        if (!strcmp((*rows)[i].name, name)) return &(*rows)[i];
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 16;
        krow *r = realloc(*rows, nc * sizeof *r);
        if (!r) return NULL;
        *rows = r;
        *cap = nc;
    }
    krow *r = &(*rows)[(*n)++];
    memset(r, 0, sizeof *r);
    snprintf(r->name, sizeof r->name, "%s", name);
    return r;
}

static void kernel_table(FILE *out, const json_t *root, const json_t *procs, size_t np) {
    const json_t *kernels = json_object_get(root, "kernels");
    int timed = 0;
    size_t i;
    json_t *k;
    json_array_foreach(kernels, i, k) timed |= json_is_integer(json_object_get(k, "process"));
    krow *rows = NULL;
    size_t n = 0, cap = 0;
    if (timed) {
        json_array_foreach(kernels, i, k) {
            int pi = proc_index(procs, jint(k, "process"));
            krow *r = pi >= 0 && (size_t)pi < np ? row_of(&rows, &n, &cap, jstr(k, "name")) : NULL;
            if (!r) continue;
            r->c[pi].v += jnum(k, "total_ns");
            r->c[pi].v2 = jnum(k, "bandwidth_Bps");
            r->c[pi].set = 1;
        }
    } else {
        json_array_foreach(json_object_get(root, "launches"), i, k) {
            int pi = proc_index(procs, jint(k, "process"));
            const char *name = jstr(k, "display_name")[0] ? jstr(k, "display_name") : jstr(k, "name");
            krow *r = pi >= 0 && (size_t)pi < np ? row_of(&rows, &n, &cap, name) : NULL;
            if (!r) continue;
            r->c[pi].v += 1;
            r->c[pi].v2 += jnum(k, "recorded");
            r->c[pi].set = 1;
        }
    }
    fprintf(out, "<h3>Kernels by rank</h3>\n<p class=\"mh-note\">%s</p>\n<table class=\"mh-ranks-kernels\"><thead><tr>"
            "<th>kernel</th>",
            timed ? "Kernel time (ms) and bandwidth (GB/s) per rank; slowest rank against the median of the ranks."
                  : "Not timed (simulator or --no-timing): traced launches / accesses per rank; the rank with the "
                    "most accesses against the median.");
    json_t *p;
    json_array_foreach(procs, i, p) {
        if (i >= np) break;
        char lab[64];
        rank_label(p, lab, sizeof lab);
        fputs("<th>", out);
        mh_report_html_text(out, lab);
        fputs("</th>", out);
    }
    fputs("<th>slowest / median</th></tr></thead><tbody>\n", out);
    double *vals = malloc((np ? np : 1) * sizeof *vals);
    for (size_t r = 0; r < n && vals; r++) {
        fputs("<tr><td class=\"mh-kname\">", out);
        mh_report_html_text(out, rows[r].name);
        fputs("</td>", out);
        size_t m = 0, worst = 0;
        double metric_worst = -1;
        for (size_t c = 0; c < np; c++) {
            const cell *ce = &rows[r].c[c];
            if (!ce->set) {
                fputs("<td class=\"mh-none\">&mdash;</td>", out);
                continue;
            }
            if (timed) fprintf(out, "<td>%.3f ms<br>%.1f GB/s</td>", ce->v / 1e6, ce->v2 / 1e9);
            else fprintf(out, "<td>%.0f / %.0f</td>", ce->v, ce->v2);
            double metric = timed ? ce->v : ce->v2;
            vals[m++] = metric;
            if (metric > metric_worst) metric_worst = metric, worst = c;
        }
        qsort(vals, m, sizeof *vals, cmp_double);
        double med = m ? (m % 2 ? vals[m / 2] : (vals[m / 2 - 1] + vals[m / 2]) / 2) : 0;
        double ratio = med > 0 ? metric_worst / med : 0;
        char lab[64] = "";
        if (m) rank_label(json_array_get(procs, worst), lab, sizeof lab);
        fprintf(out, "<td class=\"%s\" data-ratio=\"%.4f\">", ratio > MH_IMBALANCE ? "mh-imbalanced" : "mh-balanced",
                ratio);
        if (m > 1) {
            fprintf(out, "%.2f&times; (", ratio);
            mh_report_html_text(out, lab);
            fputs(")", out);
        } else {
            fputs("one rank", out);
        }
        fputs("</td></tr>\n", out);
    }
    free(vals);
    free(rows);
    fputs("</tbody></table>\n", out);
}

typedef struct fgroup {
    char key[600]; /* kernel \x1f kind \x1f space \x1f object */
    unsigned char on[MH_RANKS_MAX];
    size_t count;
} fgroup;

static void findings_table(FILE *out, const json_t *root, const json_t *procs, size_t np) {
    const json_t *launches = json_object_get(root, "launches");
    fgroup *g = NULL;
    size_t n = 0, cap = 0, i;
    json_t *f;
    json_array_foreach(json_object_get(root, "findings"), i, f) {
        long long lid = jint(f, "launch");
        const json_t *l = NULL, *x;
        size_t j;
        json_array_foreach(launches, j, x) if (jint(x, "id") == lid) {
            l = x;
            break;
        }
        int pi = l ? proc_index(procs, jint(l, "process")) : -1;
        if (pi < 0 || (size_t)pi >= np) continue;
        char key[600];
        snprintf(key, sizeof key, "%s\x1f%s\x1f%s\x1f%s", jstr(l, "display_name"), jstr(f, "kind"),
                 jstr(f, "space"), jstr(f, "object_label"));
        size_t k = 0;
        while (k < n && strcmp(g[k].key, key)) k++;
        if (k == n) {
            if (n == cap) {
                size_t nc = cap ? cap * 2 : 16;
                fgroup *ng = realloc(g, nc * sizeof *ng);
                if (!ng) break;
                g = ng;
                cap = nc;
            }
            memset(&g[n], 0, sizeof g[n]);
            snprintf(g[n].key, sizeof g[n].key, "%s", key);
            n++;
        }
        g[k].on[pi] = 1;
        g[k].count++;
    }
    fputs("<h3>Findings by rank</h3>\n<table class=\"mh-ranks-findings\"><thead><tr><th>kernel</th><th>finding</th>"
          "<th>space</th><th>object</th><th>where</th></tr></thead><tbody>\n",
          out);
    for (size_t k = 0; k < n; k++) {
        char *fld[4] = {g[k].key, NULL, NULL, NULL};
        for (int q = 1; q < 4; q++) {
            fld[q] = strchr(fld[q - 1], '\x1f');
            if (fld[q]) *fld[q]++ = '\0';
            else fld[q] = "";
        }
        size_t on = 0;
        for (size_t c = 0; c < np; c++) on += g[k].on[c];
        fputs("<tr>", out);
        for (int q = 0; q < 4; q++) {
            fputs("<td>", out);
            mh_report_html_text(out, fld[q]);
            fputs("</td>", out);
        }
        if (on == np) {
            fputs("<td class=\"mh-every\">the same on every rank</td>", out);
        } else {
            fputs("<td class=\"mh-some\">", out);
            size_t shown = 0;
            for (size_t c = 0; c < np; c++) {
                if (!g[k].on[c]) continue;
                char lab[64];
                rank_label(json_array_get(procs, c), lab, sizeof lab);
                fputs(shown++ ? ", " : "", out);
                mh_report_html_text(out, lab);
            }
            fputs(" only</td>", out);
        }
        fputs("</tr>\n", out);
    }
    if (!n) fputs("<tr><td colspan=\"5\">no findings</td></tr>\n", out);
    fputs("</tbody></table>\n", out);
    free(g);
}

int mh_report_ranks_html(const json_t *root, FILE *out) {
    const json_t *all = json_object_get(root, "processes");
    size_t np = json_array_size(all);
    if (np < 2) return 0;
    /* columns in rank order */
    json_t **v = malloc(np * sizeof *v);
    json_t *procs = json_array();
    if (!v || !procs) {
        free(v);
        json_decref(procs);
        return -1;
    }
    for (size_t k = 0; k < np; k++) v[k] = json_array_get(all, k);
    qsort(v, np, sizeof *v, cmp_proc);
    for (size_t k = 0; k < np; k++) json_array_append(procs, v[k]);
    free(v);
    if (np > MH_RANKS_MAX) np = MH_RANKS_MAX;
    fputs("<section id=\"mh-ranks\" style=\"margin:1em 2em;font:14px sans-serif\">\n<h2>Processes and ranks</h2>\n"
          "<style>#mh-ranks table{border-collapse:collapse;margin:.5em 0}#mh-ranks td,#mh-ranks th{border:1px solid "
          "#ccc;padding:2px 6px;text-align:right}#mh-ranks td:first-child,#mh-ranks .mh-kname{text-align:left}"
          "#mh-ranks .mh-imbalanced{background:#fdd}#mh-ranks .mh-every{color:#555}</style>\n"
          "<table class=\"mh-ranks-procs\"><thead><tr><th>process</th><th>rank</th><th>pid</th><th>host</th>"
          "<th>launches traced / run</th><th>devices</th><th>command</th></tr></thead><tbody>\n",
          out);
    size_t i;
    json_t *p;
    json_array_foreach(procs, i, p) {
        char lab[64];
        rank_label(p, lab, sizeof lab);
        fprintf(out, "<tr><td>#%lld</td><td>", jint(p, "id"));
        mh_report_html_text(out, lab);
        fprintf(out, "</td><td>%lld</td><td>", jint(p, "pid"));
        mh_report_html_text(out, jstr(p, "host"));
        fprintf(out, "</td><td>%lld / %lld</td><td>", jint(p, "launches_traced"), jint(p, "launches_run"));
        mh_report_html_text(out, jstr(p, "devices"));
        fputs("</td><td style=\"text-align:left\">", out);
        mh_report_html_text(out, jstr(p, "command"));
        fputs("</td></tr>\n", out);
    }
    fputs("</tbody></table>\n", out);
    kernel_table(out, root, procs, np);
    findings_table(out, root, procs, np);
    fputs("</section>\n", out);
    json_decref(procs);
    return 0;
}
