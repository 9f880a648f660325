/* diff.c -- `memheat diff A B`: what changed between two profiles, per kernel
 * name: total and median GPU time, effective bandwidth and its share of peak,
 * the bound verdict, and the findings (kind + data object + space) that
 * appeared in B or disappeared from A. CampProf's "monitor the improvement"
 * and CUTHERMO's tune-and-re-profile loop, as one table.
 *
 * Kernels pair by name; a fix often renames the kernel, so B's kernels can be
 * paired with A's by the user (--pair OLD=NEW) or, for those left unpaired
 * by name, in the order of their first launch (--match order). Every output
 * says which pairing each row used.
 *
 * Profiles of several processes (ranks) add a table by rank: per kernel
 * row, each rank's time and bandwidth in A and B side by side and the load
 * imbalance (slowest rank / median) in A and in B, from rankdata.c. Ranks
 * match by rank number, then the rest in rank order. The main table sums a
 * kernel's time over the processes (bandwidth and % of peak time-weighted;
 * median and bound of the process with the most time).
 *
 * The output leads with the run's total (issue 40): kernel time, host<->
 * device copy time, and the fixes (fixes.c) resolved, new and kept, with
 * their estimated savings. Kernels are keyed by their full (mangled) names;
 * the names shown are util/kname.h's short ones, made longer where two
 * different kernels would print alike (template arguments, then the whole
 * name). */
#include "report/fixes.h"
#include "report/names.h"
#include "report/rankdata.h"
#include "report/report.h"
#include "util/grow.h"
#include "util/demangle.h"
#include "util/kname.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct side {
    int present;
    long first;       /* order of first appearance: first traced launch id, else 1e9 + first timed run */
    const char *name; /* this profile's name of the kernel */
    double total_ns, median_ns, bw_Bps, pct;
    const char *bound;
    long count, traced;
    json_t *findings; /* array of strings */
} side;

typedef struct krow {
    const char *name;
    side s[2];
    const char *paired; /* NULL = by name; "--pair", "launch order": B's side is s[1].name */
    char shown[768];    /* the name for people, unlike every other row's (unique_names) */
} krow;

typedef struct kset {
    krow *v;
    size_t n, cap;
} kset;

static krow *kget(kset *k, const char *name) {
    if (!name) name = "(unnamed)"; /* a damaged profile: a name that is NULL or not text */
    for (size_t i = 0; i < k->n; i++)
        if (strcmp(k->v[i].name, name) == 0) return &k->v[i];
    if (k->n == k->cap) {
        krow *nv = mh_grow(k->v, &k->cap, k->n + 1, sizeof *nv, 16);
        if (!nv) return NULL;
        k->v = nv;
    }
    krow *r = &k->v[k->n++];
    memset(r, 0, sizeof *r);
    r->name = name;
    for (int j = 0; j < 2; j++) {
        r->s[j].first = -1;
        r->s[j].total_ns = r->s[j].median_ns = r->s[j].bw_Bps = r->s[j].pct = NAN;
        r->s[j].findings = json_array();
    }
    return r;
}

static double num(json_t *o, const char *k) {
    json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static int has_str(json_t *arr, const char *s) {
    size_t i;
    json_t *v;
    json_array_foreach(arr, i, v) if (strcmp(json_string_value(v), s) == 0) return 1;
    return 0;
}

static int collect(kset *k, json_t *root, int j) {
    size_t i;
    json_t *o;
    json_array_foreach(json_object_get(root, "kernels"), i, o) {
        krow *r = kget(k, json_string_value(json_object_get(o, "name")));
        if (!r) return MH_ERR_NOMEM;
        side *s = &r->s[j];
        if (s->present && !isnan(s->total_ns)) { /* the same kernel in another process: sum, bandwidth time-weighted */
            double t0 = s->total_ns, t1 = num(o, "total_ns"), t = t0 + t1;
            if (!isnan(t1) && t > 0) {
                s->bw_Bps = (s->bw_Bps * t0 + num(o, "bandwidth_Bps") * t1) / t;
                s->pct = (s->pct * t0 + num(o, "pct_peak") * t1) / t;
                s->total_ns = t;
            }
            s->count += (long)num(o, "count");
            continue;
        }
        s->present = 1;
        s->name = r->name;
        s->count = (long)num(o, "count");
        s->total_ns = num(o, "total_ns");
        s->median_ns = num(o, "median_ns");
        s->bw_Bps = num(o, "bandwidth_Bps");
        s->pct = num(o, "pct_peak");
        s->bound = json_string_value(json_object_get(o, "bound"));
    }
    json_t *launches = json_object_get(root, "launches");
    json_array_foreach(launches, i, o) {
        const char *name = json_string_value(json_object_get(o, "name"));
        const char *disp = json_string_value(json_object_get(o, "display_name"));
        if (!name) name = "(unnamed)"; /* a damaged profile */
        krow *r = NULL;
        for (size_t q = 0; q < k->n && !r; q++)
            if (strcmp(k->v[q].name, name) == 0 || (disp && strcmp(k->v[q].name, disp) == 0)) r = &k->v[q];
        if (!r) r = kget(k, name); /* keyed by the full (mangled) name, as the timing names kernels */
        if (!r) return MH_ERR_NOMEM;
        side *s = &r->s[j];
        s->present = 1;
        s->name = r->name;
        s->traced++;
        json_int_t id = json_integer_value(json_object_get(o, "id"));
        if (s->first < 0 || id < s->first) s->first = (long)id;
        size_t fi;
        json_t *f;
        json_array_foreach(json_object_get(root, "findings"), fi, f) {
            if (json_integer_value(json_object_get(f, "launch")) != id) continue;
            const char *kind = json_string_value(json_object_get(f, "kind"));
            if (!kind || strcmp(kind, "coalesced") == 0) continue;
            const char *obj = json_string_value(json_object_get(f, "object_label"));
            const char *sp = json_string_value(json_object_get(f, "space"));
            char key[512];
            snprintf(key, sizeof key, "%s in %s (%s)", kind, obj && obj[0] ? obj : "(unnamed object)", sp ? sp : "?");
            if (!has_str(s->findings, key)) json_array_append_new(s->findings, json_string_nocheck(key));
        }
    }
    json_array_foreach(json_object_get(root, "kernel_runs"), i, o) { /* untraced kernels: order of their first run */
        const char *name = json_string_value(json_object_get(o, "name"));
        for (size_t q = 0; name && q < k->n; q++)
            if (k->v[q].s[j].present && k->v[q].s[j].first < 0 && strcmp(k->v[q].name, name) == 0)
                k->v[q].s[j].first = 1000000000L + (long)i;
    }
    return MH_OK;
}

static krow *kfind(kset *k, const char *name) {
    for (size_t i = 0; i < k->n; i++)
        if (strcmp(k->v[i].name, name) == 0) return &k->v[i];
    return NULL;
}

static long first_of(const side *s) { return s->first < 0 ? 2000000000L : s->first; }

/* Moves B's row kb into A's row ka (which has no B side). */
static void join_b(krow *ka, krow *kb, const char *how) {
    json_decref(ka->s[1].findings);
    ka->s[1] = kb->s[1];
    memset(&kb->s[1], 0, sizeof kb->s[1]); /* present = 0: taken */
    kb->s[1].findings = json_array();
    ka->paired = how;
}

/* Pairs the rows of B collected in kb with A's rows in k, then appends B's
 * unpaired rows: by --pair first, then by name, then (order) by launch order. */
static int pair_rows(kset *k, kset *kb, const mh_report_diff_opts *o) {
    size_t na = k->n;
    for (size_t p = 0; o && p < o->npairs; p++) {
        krow *ra = kfind(k, o->pair_old[p]), *rb = kfind(kb, o->pair_new[p]);
        if (ra && rb && rb->s[1].present && !ra->s[1].present) join_b(ra, rb, "--pair");
    }
    for (size_t i = 0; i < kb->n; i++) {
        krow *rb = &kb->v[i], *ra = rb->s[1].present ? kfind(k, rb->name) : NULL;
        if (ra && !ra->s[1].present && !ra->paired) join_b(ra, rb, NULL);
    }
    if (o && o->match_order) {
        for (;;) { /* the earliest unpaired A with the earliest unpaired B */
            krow *ra = NULL, *rb = NULL;
            for (size_t i = 0; i < na; i++)
                if (!k->v[i].s[1].present && k->v[i].s[0].present && (!ra || first_of(&k->v[i].s[0]) < first_of(&ra->s[0])))
                    ra = &k->v[i];
            for (size_t i = 0; i < kb->n; i++)
                if (kb->v[i].s[1].present && (!rb || first_of(&kb->v[i].s[1]) < first_of(&rb->s[1]))) rb = &kb->v[i];
            if (!ra || !rb) break;
            join_b(ra, rb, "launch order");
        }
    }
    for (size_t i = 0; i < kb->n; i++) {
        if (!kb->v[i].s[1].present) continue;
        krow *r = kget(k, kb->v[i].name);
        if (!r) return MH_ERR_NOMEM;
        json_decref(r->s[1].findings);
        r->s[1] = kb->v[i].s[1];
        kb->v[i].s[1].findings = json_array();
        kb->v[i].s[1].present = 0;
    }
    return MH_OK;
}

static void fmt_ns(char *b, size_t n, double ns) {
    if (isnan(ns)) snprintf(b, n, "-");
    else if (ns >= 1e9) snprintf(b, n, "%.3f s", ns / 1e9);
    else if (ns >= 1e6) snprintf(b, n, "%.3f ms", ns / 1e6);
    else if (ns >= 1e3) snprintf(b, n, "%.2f us", ns / 1e3);
    else snprintf(b, n, "%.0f ns", ns);
}

static void fmt_num(char *b, size_t n, double v, int prec) {
    if (isnan(v)) snprintf(b, n, "-");
    else snprintf(b, n, "%.*f", prec, v);
}

static void fmt_change(char *b, size_t n, double a, double v) {
    if (isnan(a) || isnan(v) || a == 0) snprintf(b, n, "-");
    else snprintf(b, n, "%+.1f%%", (v - a) / a * 100.0);
}

/* Every row's shown name, unlike every other row's (mh_kname_unique). */
static int unique_names(kset *k) {
    if (!k->n) return MH_OK;
    const char **names = malloc(k->n * sizeof *names);
    if (!names) return MH_ERR_NOMEM;
    for (size_t i = 0; i < k->n; i++) names[i] = k->v[i].name;
    int rc = mh_kname_unique(names, k->n, 72, 120, k->v[0].shown, sizeof k->v[0], sizeof k->v[0].shown);
    free(names);
    return rc ? MH_ERR_NOMEM : MH_OK;
}

/* The run as a whole, A against B. */
typedef struct totals {
    double kernel_ns[2], copy_ns[2];
    size_t resolved, added, kept;
    double resolved_ns, added_ns;
    int have_fixes;
} totals;

static double copies_ns(const json_t *root) {
    double t = 0;
    size_t i;
    json_t *o;
    json_array_foreach(json_object_get(root, "copies"), i, o) {
        const char *kind = json_string_value(json_object_get(o, "kind"));
        double d = num(o, "dur_ns");
        if (kind && (!strcmp(kind, "HtoD") || !strcmp(kind, "DtoH")) && !isnan(d)) t += d;
    }
    return t;
}

/* A fix's key in A's names: B's kernel paired with an A row takes its name. */
static void fix_key(const kset *k, const mh_fix *f, int side, char *buf, size_t cap) {
    const char *kn = f->kernel ? f->kernel : "";
    for (size_t i = 0; side && i < k->n; i++)
        if (k->v[i].paired && k->v[i].s[1].name && !strcmp(k->v[i].s[1].name, kn)) kn = k->v[i].name;
    snprintf(buf, cap, "%s|%s|%s|%s", kn, f->cause, f->space, f->object ? f->object : "");
}

/* The fixes of x (side xs: 0 = A, 1 = B) the other side y lacks: counted
 * with their savings into *n and *ns; returns how many y has too. */
static size_t missing(const kset *k, const mh_fixes *x, int xs, const mh_fixes *y, size_t *n, double *ns) {
    char kx[2048], ky[2048];
    size_t both = 0;
    for (size_t i = 0; i < x->n; i++) {
        fix_key(k, &x->v[i], xs, kx, sizeof kx);
        int found = 0;
        for (size_t j = 0; j < y->n && !found; j++) {
            fix_key(k, &y->v[j], !xs, ky, sizeof ky);
            found = !strcmp(kx, ky);
        }
        if (found) both++;
        else {
            (*n)++;
            if (!isnan(x->v[i].saving_ns)) *ns += x->v[i].saving_ns;
        }
    }
    return both;
}

static int fixes_diff(mh_db *a, mh_db *b, json_t *ra, json_t *rb, const kset *k, totals *t, mh_err *err) {
    mh_fixes fa, fb;
    int rc = mh_fixes_compute(a, ra, &fa, err);
    if (rc) return rc;
    if ((rc = mh_fixes_compute(b, rb, &fb, err))) {
        mh_fixes_free(&fa);
        return rc;
    }
    t->have_fixes = 1;
    size_t in_both = missing(k, &fa, 0, &fb, &t->resolved, &t->resolved_ns);
    missing(k, &fb, 1, &fa, &t->added, &t->added_ns);
    t->kept = in_both;
    mh_fixes_free(&fa);
    mh_fixes_free(&fb);
    return MH_OK;
}

static void totals_of(const kset *k, json_t *ra, json_t *rb, totals *t) {
    for (int j = 0; j < 2; j++) {
        t->kernel_ns[j] = 0;
        for (size_t i = 0; i < k->n; i++)
            if (!isnan(k->v[i].s[j].total_ns)) t->kernel_ns[j] += k->v[i].s[j].total_ns;
    }
    t->copy_ns[0] = copies_ns(ra);
    t->copy_ns[1] = copies_ns(rb);
}

/* "total: kernel time 2.31 ms -> 1.20 ms (-48.0%); ...", one line. */
static void totals_text(const totals *t, char *buf, size_t cap) {
    char a[32], b[32], c[32], d[32], e[32], g[32], ca[32], cb[32];
    fmt_ns(a, 32, t->kernel_ns[0]), fmt_ns(b, 32, t->kernel_ns[1]), fmt_change(c, 32, t->kernel_ns[0], t->kernel_ns[1]);
    fmt_ns(d, 32, t->copy_ns[0]), fmt_ns(e, 32, t->copy_ns[1]), fmt_change(g, 32, t->copy_ns[0], t->copy_ns[1]);
    fmt_ns(ca, 32, t->resolved_ns), fmt_ns(cb, 32, t->added_ns);
    size_t n = (size_t)snprintf(buf, cap, "total: kernel time %s -> %s (%s); host<->device copies %s -> %s (%s)", a, b,
                                c, d, e, g);
    if (t->have_fixes && n < cap)
        snprintf(buf + n, cap - n, "; fixes: %zu resolved (est. %s in A), %zu new (est. %s in B), %zu in both",
                 t->resolved, ca, t->added, cb, t->kept);
}

static void term_table(FILE *f, kset *k, int color, const char *pa, const char *pb, const totals *tot) {
    const char *grn = color ? "\x1b[32m" : "", *red = color ? "\x1b[31m" : "", *off = color ? "\x1b[0m" : "";
    fputs("memheat diff: A = ", f);
    mh_report_term_text(f, pa);
    fputs(", B = ", f);
    mh_report_term_text(f, pb);
    char tl[512];
    totals_text(tot, tl, sizeof tl);
    fprintf(f, "\n%s", tl);
    size_t npair = 0, norder = 0;
    for (size_t i = 0; i < k->n; i++)
        if (k->v[i].paired && !strcmp(k->v[i].paired, "--pair")) npair++;
        else if (k->v[i].paired) norder++;
    fprintf(f, "\npairing: by name%s", npair || norder ? "" : " (only)");
    if (npair) fprintf(f, "; %zu by --pair", npair);
    if (norder) fprintf(f, "; %zu by launch order (--match order)", norder);
    fputc('\n', f);
    size_t w = 24; /* the name column: as wide as the widest name, at most 100 */
    for (size_t i = 0; i < k->n; i++) {
        size_t c = mh_kname_cols(k->v[i].shown);
        if (c > w) w = c < 100 ? c : 100;
    }
    fprintf(f, "%-*s %12s %12s %8s %10s %10s %7s %7s  %s\n", (int)w, "kernel", "time A", "time B", "change", "GB/s A",
            "GB/s B", "%pk A", "%pk B", "bound A -> B");
    for (size_t i = 0; i < k->n; i++) {
        krow *r = &k->v[i];
        char ta[32], tb[32], ch[32], ba[32], bb[32], pka[32], pkb[32];
        fmt_ns(ta, sizeof ta, r->s[0].total_ns);
        fmt_ns(tb, sizeof tb, r->s[1].total_ns);
        fmt_change(ch, sizeof ch, r->s[0].total_ns, r->s[1].total_ns);
        fmt_num(ba, sizeof ba, r->s[0].bw_Bps / 1e9, 1);
        fmt_num(bb, sizeof bb, r->s[1].bw_Bps / 1e9, 1);
        fmt_num(pka, sizeof pka, r->s[0].pct, 1);
        fmt_num(pkb, sizeof pkb, r->s[1].pct, 1);
        mh_report_term_text(f, r->shown); /* whole: two kernels never print alike */
        for (size_t p = mh_kname_cols(r->shown); p < w; p++) fputc(' ', f);
        const char *cc = "";
        if (!isnan(r->s[0].total_ns) && !isnan(r->s[1].total_ns))
            cc = r->s[1].total_ns < r->s[0].total_ns ? grn : (r->s[1].total_ns > r->s[0].total_ns ? red : "");
        fprintf(f, " %12s %12s %s%8s%s %10s %10s %7s %7s  %s -> %s%s\n", ta, tb, cc, ch, off, ba, bb, pka, pkb,
                r->s[0].bound ? r->s[0].bound : "-", r->s[1].bound ? r->s[1].bound : "-",
                !r->s[0].present ? "  (only in B)" : (!r->s[1].present ? "  (only in A)" : ""));
        if (r->paired) {
            fprintf(f, "    paired by %s: A ", r->paired);
            mh_report_term_text(f, r->name);
            fputs(" = B ", f);
            mh_report_term_text(f, r->s[1].name ? r->s[1].name : "?");
            fputc('\n', f);
        }
        size_t j;
        json_t *v;
        json_array_foreach(r->s[1].findings, j, v) if (!has_str(r->s[0].findings, json_string_value(v))) {
            fprintf(f, "    %s+ appeared:    ", red);
            mh_report_term_text(f, json_string_value(v));
            fprintf(f, "%s\n", off);
        }
        json_array_foreach(r->s[0].findings, j, v) if (!has_str(r->s[1].findings, json_string_value(v))) {
            fprintf(f, "    %s- disappeared: ", grn);
            mh_report_term_text(f, json_string_value(v));
            fprintf(f, "%s\n", off);
        }
    }
}

static void html_cell(FILE *f, const char *s, const char *cls) {
    fprintf(f, "<td%s%s%s>", cls ? " class=\"" : "", cls ? cls : "", cls ? "\"" : "");
    mh_report_html_text(f, s);
    fputs("</td>", f);
}

/* ---- by rank ---- */

typedef struct rpair {
    int a, b; /* index in A's / B's processes, -1 = none */
} rpair;

typedef struct rankdiff {
    mh_rank_procs pa, pb;
    mh_rank_kernels ka, kb;
    rpair *pairs;
    size_t npairs;
} rankdiff;

static void rankdiff_free(rankdiff *d) {
    mh_report_rank_procs_free(&d->pa);
    mh_report_rank_procs_free(&d->pb);
    mh_report_rank_kernels_free(&d->ka);
    mh_report_rank_kernels_free(&d->kb);
    free(d->pairs);
    memset(d, 0, sizeof *d);
}

/* Ranks of A and B paired: same rank number first, then the rest in order. */
static int rankdiff_init(rankdiff *d, json_t *ra, json_t *rb) {
    memset(d, 0, sizeof *d);
    if (mh_report_rank_procs(ra, &d->pa) || mh_report_rank_procs(rb, &d->pb)) return MH_ERR_NOMEM;
    if (d->pa.n < 2 && d->pb.n < 2) return MH_OK; /* one process each: no table */
    if (mh_report_rank_kernels(ra, &d->pa, &d->ka) || mh_report_rank_kernels(rb, &d->pb, &d->kb)) return MH_ERR_NOMEM;
    d->pairs = calloc(d->pa.n + d->pb.n + 1, sizeof *d->pairs);
    unsigned char *used = calloc(d->pb.n + 1, 1);
    if (!d->pairs || !used) {
        free(used);
        return MH_ERR_NOMEM;
    }
    for (size_t i = 0; i < d->pa.n; i++) {
        int m = -1;
        for (size_t j = 0; j < d->pb.n && m < 0 && d->pa.v[i].has_rank; j++)
            if (!used[j] && d->pb.v[j].has_rank && d->pb.v[j].rank == d->pa.v[i].rank) m = (int)j;
        if (m >= 0) used[m] = 1;
        d->pairs[d->npairs++] = (rpair){(int)i, m};
    }
    size_t j = 0; /* A's unmatched ranks take B's unmatched ones in order */
    for (size_t i = 0; i < d->npairs; i++) {
        if (d->pairs[i].b >= 0) continue;
        while (j < d->pb.n && used[j]) j++;
        if (j < d->pb.n) {
            d->pairs[i].b = (int)j;
            used[j] = 1;
        }
    }
    for (j = 0; j < d->pb.n; j++)
        if (!used[j]) d->pairs[d->npairs++] = (rpair){-1, (int)j};
    free(used);
    return MH_OK;
}

static void pair_label(const rankdiff *d, const rpair *q, char *buf, size_t n) {
    const char *la = q->a >= 0 ? d->pa.v[q->a].label : "-", *lb = q->b >= 0 ? d->pb.v[q->b].label : "-";
    if (!strcmp(la, lb)) snprintf(buf, n, "%s", la);
    else snprintf(buf, n, "%s / %s", la, lb);
}

/* A cell for people: "12.000 ms, 3.4 GB/s" or "2 launches, 1234 accesses". */
static void fmt_cell(char *b, size_t n, const mh_rank_cell *c, int timed) {
    if (!c || !c->set) snprintf(b, n, "-");
    else if (timed) {
        char t[32];
        fmt_ns(t, sizeof t, c->v);
        snprintf(b, n, "%s, %.1f GB/s", t, c->v2 / 1e9);
    } else snprintf(b, n, "%.0f launch%s, %.0f acc", c->v, c->v == 1 ? "" : "es", c->v2);
}

static void fmt_imbalance(char *b, size_t n, const mh_rank_krow *r, const mh_rank_procs *p) {
    if (!r || r->m < 2) snprintf(b, n, "-");
    else snprintf(b, n, "%.2fx (%s)", r->ratio, p->v[r->worst].label);
}

static const mh_rank_cell *cell_of(const mh_rank_krow *r, int idx) { return r && idx >= 0 ? &r->c[idx] : NULL; }

/* The per-rank rows of kernel r in A and B (B under its paired name);
 * 0 when neither profile has any. */
static int rank_rows_of(const rankdiff *d, const krow *r, const mh_rank_krow **xa, const mh_rank_krow **xb) {
    *xa = r->s[0].present ? mh_report_rank_kernel(&d->ka, r->name) : NULL;
    *xb = r->s[1].present ? mh_report_rank_kernel(&d->kb, r->s[1].name ? r->s[1].name : r->name) : NULL;
    return *xa || *xb;
}

static void term_ranks(FILE *f, kset *k, const rankdiff *d, int color) {
    const char *red = color ? "\x1b[31m" : "", *off = color ? "\x1b[0m" : "";
    fprintf(f, "\nby rank (A: %zu process%s, B: %zu; ranks matched by rank number, then in order; %s):\n", d->pa.n,
            d->pa.n == 1 ? "" : "es", d->pb.n,
            d->ka.timed || d->kb.timed ? "kernel time, bandwidth" : "not timed: traced launches, accesses");
    fprintf(f, "%-40s %-16s %-26s %-26s %8s\n", "kernel", "rank", "A", "B", "change");
    for (size_t i = 0; i < k->n; i++) {
        krow *r = &k->v[i];
        const mh_rank_krow *xa, *xb;
        if (!rank_rows_of(d, r, &xa, &xb)) continue;
        mh_report_term_text(f, r->shown);
        fputc('\n', f);
        for (size_t q = 0; q < d->npairs; q++) {
            const mh_rank_cell *ca = cell_of(xa, d->pairs[q].a), *cb = cell_of(xb, d->pairs[q].b);
            if ((!ca || !ca->set) && (!cb || !cb->set)) continue;
            char lab[140], sa[64], sb[64], ch[32];
            pair_label(d, &d->pairs[q], lab, sizeof lab);
            fmt_cell(sa, sizeof sa, ca, d->ka.timed);
            fmt_cell(sb, sizeof sb, cb, d->kb.timed);
            if (ca && cb && ca->set && cb->set && d->ka.timed == d->kb.timed)
                fmt_change(ch, sizeof ch, d->ka.timed ? ca->v : ca->v2, d->kb.timed ? cb->v : cb->v2);
            else snprintf(ch, sizeof ch, "-");
            fprintf(f, "%-40s %-16s %-26s %-26s %8s\n", "", lab, sa, sb, ch);
        }
        char ia[96], ib[96];
        fmt_imbalance(ia, sizeof ia, xa, &d->pa);
        fmt_imbalance(ib, sizeof ib, xb, &d->pb);
        int hot_a = xa && xa->m > 1 && xa->ratio > MH_RANK_IMBALANCE, hot_b = xb && xb->m > 1 && xb->ratio > MH_RANK_IMBALANCE;
        fprintf(f, "%-40s %-16s %s%-26s%s %s%-26s%s\n", "", "slowest/median", hot_a ? red : "", ia, hot_a ? off : "",
                hot_b ? red : "", ib, hot_b ? off : "");
    }
}

static void html_ranks(FILE *f, kset *k, const rankdiff *d) {
    fprintf(f, "<h2>By rank</h2><p class=\"muted\">A: %zu process%s, B: %zu; ranks matched by rank number, then in "
               "order. %s Slowest / median above %.2f is flagged.</p>\n"
               "<div class=\"table-box\"><table class=\"data\" id=\"diff-ranks\"><thead><tr><th>Kernel</th><th>Rank</th><th>A</th><th>B</th>"
               "<th>Change</th></tr></thead><tbody>\n",
            d->pa.n, d->pa.n == 1 ? "" : "es", d->pb.n,
            d->ka.timed || d->kb.timed ? "Kernel time and bandwidth." : "Not timed: traced launches and accesses.",
            MH_RANK_IMBALANCE);
    for (size_t i = 0; i < k->n; i++) {
        krow *r = &k->v[i];
        const mh_rank_krow *xa, *xb;
        if (!rank_rows_of(d, r, &xa, &xb)) continue;
        const char *shown = r->shown;
        for (size_t q = 0; q < d->npairs; q++) {
            const mh_rank_cell *ca = cell_of(xa, d->pairs[q].a), *cb = cell_of(xb, d->pairs[q].b);
            if ((!ca || !ca->set) && (!cb || !cb->set)) continue;
            char lab[140], sa[64], sb[64], ch[32];
            pair_label(d, &d->pairs[q], lab, sizeof lab);
            fmt_cell(sa, sizeof sa, ca, d->ka.timed);
            fmt_cell(sb, sizeof sb, cb, d->kb.timed);
            const char *cls = NULL;
            if (ca && cb && ca->set && cb->set && d->ka.timed == d->kb.timed) {
                double va = d->ka.timed ? ca->v : ca->v2, vb = d->kb.timed ? cb->v : cb->v2;
                fmt_change(ch, sizeof ch, va, vb);
                if (d->ka.timed && va != vb) cls = vb < va ? "better" : "worse";
            } else snprintf(ch, sizeof ch, "-");
            fputs("<tr>", f);
            html_cell(f, shown, "mono");
            html_cell(f, lab, NULL);
            html_cell(f, sa, NULL);
            html_cell(f, sb, NULL);
            html_cell(f, ch, cls);
            fputs("</tr>\n", f);
        }
        char ia[96], ib[96];
        fmt_imbalance(ia, sizeof ia, xa, &d->pa);
        fmt_imbalance(ib, sizeof ib, xb, &d->pb);
        fputs("<tr class=\"imbalance\">", f);
        html_cell(f, shown, "mono");
        html_cell(f, "slowest / median", NULL);
        fprintf(f, "<td class=\"%s\" data-ratio=\"%.4f\">", xa && xa->m > 1 && xa->ratio > MH_RANK_IMBALANCE ? "worse" : "",
                xa && xa->m > 1 ? xa->ratio : 0.0);
        mh_report_html_text(f, ia);
        fprintf(f, "</td><td class=\"%s\" data-ratio=\"%.4f\">", xb && xb->m > 1 && xb->ratio > MH_RANK_IMBALANCE ? "worse" : "",
                xb && xb->m > 1 ? xb->ratio : 0.0);
        mh_report_html_text(f, ib);
        fputs("</td><td></td></tr>\n", f);
    }
    fputs("</tbody></table></div>\n", f);
}

static void html_page(FILE *f, kset *k, const char *pa, const char *pb, const rankdiff *d, const totals *tot) {
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
          "<title>memheat diff</title><style>\n",
          f);
    fwrite(mh_report_asset_report_css, 1, mh_report_asset_report_css_len, f);
    fputs(".better{color:#1a7f37;font-weight:600}.worse{color:#b42318;font-weight:600}"
          "ul.fd{margin:2px 0 6px 18px;padding:0;white-space:normal;min-width:14em;text-align:left}</style></head><body>\n"
          "<header class=\"top\"><h1>memheat diff</h1><div class=\"muted mono\">A = ",
          f);
    mh_report_html_text(f, pa);
    fputs("<br>B = ", f);
    mh_report_html_text(f, pb);
    char tl[512];
    totals_text(tot, tl, sizeof tl);
    fputs("</div></header><main><p id=\"diff-total\"><b>", f);
    mh_report_html_text(f, tl);
    /* tables scroll inside their box at 800 px (the page itself never sideways) */
    fputs("</b></p><div class=\"table-box\"><table class=\"data\" id=\"diff-table\"><thead><tr><th>Kernel</th>"
          "<th>Time A</th><th>Time B</th><th>Change</th><th>GB/s A</th><th>GB/s B</th><th>% peak A</th>"
          "<th>% peak B</th><th>Bound A</th><th>Bound B</th><th>Findings appeared</th><th>Findings disappeared</th>"
          "</tr></thead><tbody>\n",
          f);
    for (size_t i = 0; i < k->n; i++) {
        krow *r = &k->v[i];
        char b[64];
        fputs("<tr>", f);
        if (r->paired) {
            fputs("<td class=\"mono\">", f);
            mh_report_html_text(f, r->name);
            fputs(" &rarr; ", f);
            mh_report_html_text(f, r->s[1].name ? r->s[1].name : "?");
            fputs("<div class=\"muted\">paired by ", f);
            mh_report_html_text(f, r->paired);
            fputs("</div></td>", f);
        } else {
            char *full = mh_demangle(r->name);
            fputs("<td class=\"mono\" title=\"", f);
            mh_report_html_text(f, full ? full : r->name);
            fputs("\">", f);
            mh_report_html_text(f, r->shown);
            fputs("</td>", f);
            free(full);
        }
        fmt_ns(b, sizeof b, r->s[0].total_ns);
        html_cell(f, b, NULL);
        fmt_ns(b, sizeof b, r->s[1].total_ns);
        html_cell(f, b, NULL);
        fmt_change(b, sizeof b, r->s[0].total_ns, r->s[1].total_ns);
        const char *cls = NULL;
        if (!isnan(r->s[0].total_ns) && !isnan(r->s[1].total_ns) && r->s[0].total_ns != r->s[1].total_ns)
            cls = r->s[1].total_ns < r->s[0].total_ns ? "better" : "worse";
        html_cell(f, b, cls);
        fmt_num(b, sizeof b, r->s[0].bw_Bps / 1e9, 1);
        html_cell(f, b, NULL);
        fmt_num(b, sizeof b, r->s[1].bw_Bps / 1e9, 1);
        html_cell(f, b, NULL);
        fmt_num(b, sizeof b, r->s[0].pct, 1);
        html_cell(f, b, NULL);
        fmt_num(b, sizeof b, r->s[1].pct, 1);
        html_cell(f, b, NULL);
        html_cell(f, r->s[0].bound ? r->s[0].bound : "-", NULL);
        html_cell(f, r->s[1].bound ? r->s[1].bound : "-", NULL);
        for (int dir = 0; dir < 2; dir++) {
            json_t *from = r->s[dir ? 0 : 1].findings, *other = r->s[dir ? 1 : 0].findings;
            fputs("<td><ul class=\"fd\">", f);
            size_t j;
            json_t *v;
            json_array_foreach(from, j, v) if (!has_str(other, json_string_value(v))) {
                fprintf(f, "<li class=\"%s\">", dir ? "better" : "worse");
                mh_report_html_text(f, json_string_value(v));
                fputs("</li>", f);
            }
            fputs("</ul></td>", f);
        }
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table></div>\n", f);
    if (d->npairs) html_ranks(f, k, d);
    fputs("</main></body></html>\n", f);
}

int mh_report_diff(mh_db *a, mh_db *b, FILE *term, int color, FILE *html, mh_err *err) {
    return mh_report_diff_ex(a, b, term, color, html, NULL, err);
}

int mh_report_diff_ex(mh_db *a, mh_db *b, FILE *term, int color, FILE *html, const mh_report_diff_opts *o,
                      mh_err *err) {
    json_t *ra = NULL, *rb = NULL;
    int rc = mh_db_read_summary(a, &ra, err);
    if (!rc) rc = mh_db_read_summary(b, &rb, err);
    kset k = {0}, kb = {0};
    if (!rc) rc = collect(&k, ra, 0);
    if (!rc) rc = collect(&kb, rb, 1);
    if (!rc) rc = pair_rows(&k, &kb, o);
    for (size_t i = 0; i < kb.n; i++) {
        json_decref(kb.v[i].s[0].findings);
        json_decref(kb.v[i].s[1].findings);
    }
    free(kb.v);
    rankdiff rd;
    memset(&rd, 0, sizeof rd);
    if (!rc) rc = rankdiff_init(&rd, ra, rb);
    if (rc == MH_ERR_NOMEM) mh_err_set(err, rc, "out of memory comparing profiles");
    totals tot;
    memset(&tot, 0, sizeof tot);
    if (!rc) {
        if ((rc = unique_names(&k))) mh_err_set(err, rc, "out of memory comparing profiles");
        totals_of(&k, ra, rb, &tot);
        if (!rc) rc = fixes_diff(a, b, ra, rb, &k, &tot, err);
    }
    if (!rc) {
        if (term) term_table(term, &k, color, mh_db_path(a), mh_db_path(b), &tot);
        if (term && rd.npairs) term_ranks(term, &k, &rd, color);
        if (html) html_page(html, &k, mh_db_path(a), mh_db_path(b), &rd, &tot);
    }
    rankdiff_free(&rd);
    for (size_t i = 0; i < k.n; i++) {
        json_decref(k.v[i].s[0].findings);
        json_decref(k.v[i].s[1].findings);
    }
    free(k.v);
    json_decref(ra);
    json_decref(rb);
    return rc;
}
