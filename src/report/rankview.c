/* rankview.c -- the report of a profile of many ranks (rankview.h).
 *
 * A job of a thousand ranks runs the same launches a thousand times; most
 * are the same heat map, the same findings. From the narrow rows of every
 * rank (mh_db_read_ranks) this finds:
 *  - the launches across ranks (a kernel configuration and its n-th launch
 *    in each process) and, per launch, its distinct contents (variants:
 *    ranks whose heat maps read the same rows, heat_share.c, over regions of
 *    the same sizes and labels); the page shows one launch per variant, the
 *    reference rank's (the first in rank order) where it has that content;
 *  - each finding across ranks (launch, kind, space, object): the ranks that
 *    have it and the spread of its cost;
 *  - the summary per rank: kernel time (accesses when not timed) against the
 *    median of the ranks, bandwidth, launches, the common findings it lacks
 *    and the others it has; the ranks most off the median first.
 * Everything is sorted and searched by key, so its cost grows as
 * n log n in the rows, not with their square. */
#define _GNU_SOURCE 1 /* asprintf, open_memstream */
#include "report/rankview.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "util/sort.h"

static long long jint(const json_t *o, const char *k) { return (long long)json_integer_value(json_object_get(o, k)); }
static const char *jstr(const json_t *o, const char *k) {
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

static int cmp_id(const void *a, const void *b) {
    long long x = ((const mh_rank_id *)a)->id, y = ((const mh_rank_id *)b)->id;
    return x < y ? -1 : x > y;
}
static const mh_rank_id *find_id(const mh_rank_id *v, size_t n, long long id) {
    mh_rank_id key = {.id = id};
    return n ? bsearch(&key, v, n, sizeof *v, cmp_id) : NULL;
}

/* ---- launches across ranks ---- */

typedef struct lrec {
    long long id, nth;
    int pi;
    char *cfg, *content;
} lrec;

static int cmp_cfg_pi(const void *a, const void *b) {
    const lrec *x = a, *y = b;
    int c = strcmp(x->cfg, y->cfg);
    if (c) return c;
    if (x->pi != y->pi) return x->pi < y->pi ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}
static int cmp_group(const void *a, const void *b) {
    const lrec *x = a, *y = b;
    int c = strcmp(x->cfg, y->cfg);
    if (c) return c;
    if (x->nth != y->nth) return x->nth < y->nth ? -1 : 1;
    return x->pi < y->pi ? -1 : x->pi > y->pi;
}

static uint64_t fnv(const char *s) {
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* A launch's configuration: "name|grid|block|dyn_smem". */
static char *config_of(const json_t *l) {
    const json_t *g = json_object_get(l, "grid"), *b = json_object_get(l, "block");
    const char *name = jstr(l, "display_name")[0] ? jstr(l, "display_name") : jstr(l, "name");
    char *s = NULL;
    if (asprintf(&s, "%s|%lld,%lld,%lld|%lld,%lld,%lld|%lld", name, (long long)json_integer_value(json_array_get(g, 0)),
                 (long long)json_integer_value(json_array_get(g, 1)), (long long)json_integer_value(json_array_get(g, 2)),
                 (long long)json_integer_value(json_array_get(b, 0)), (long long)json_integer_value(json_array_get(b, 1)),
                 (long long)json_integer_value(json_array_get(b, 2)), jint(l, "dyn_smem")) < 0)
        return NULL;
    return s;
}

/* Appends a map's content ("space:rows_from:regions digest;") to *s. */
static int add_content(char **s, size_t *len, const json_t *m) {
    char part[160];
    int n = snprintf(part, sizeof part, "%s:%lld:%016llx;", jstr(m, "space"), jint(m, "rows_from"),
                     (unsigned long long)fnv(jstr(m, "regions")));
    char *t = realloc(*s, *len + (size_t)n + 1);
    if (!t) return -1;
    memcpy(t + *len, part, (size_t)n + 1);
    *s = t;
    *len += (size_t)n;
    return 0;
}

static int groups(mh_rank_view *v) {
    const json_t *ls = json_object_get(v->rows, "launches"), *maps = json_object_get(v->rows, "heat_maps");
    size_t nl = json_array_size(ls), nm = json_array_size(maps), n = 0, mi = 0;
    lrec *r = calloc(nl ? nl : 1, sizeof *r);
    int rc = r ? 0 : -1;
    /* launches by id, maps by (launch, id): a merge walk gives each launch its maps */
    for (size_t i = 0; i < nl && !rc; i++) {
        const json_t *l = json_array_get(ls, i);
        long long id = jint(l, "id");
        char *content = strdup("");
        size_t clen = 0;
        while (mi < nm && jint(json_array_get(maps, mi), "launch") < id) mi++;
        while (content && mi < nm && jint(json_array_get(maps, mi), "launch") == id)
            if (add_content(&content, &clen, json_array_get(maps, mi++))) {
                free(content);
                content = NULL;
            }
        int pi = mh_report_rank_index(&v->p, jint(l, "process"));
        char *cfg = config_of(l);
        if (!content || !cfg) rc = -1;
        if (pi < 0 || rc) {
            free(content);
            free(cfg);
            continue;
        }
        r[n++] = (lrec){.id = id, .pi = pi, .cfg = cfg, .content = content};
    }
    if (!rc) { /* the n-th launch of a configuration in each process */
        mh_sort(r, n, sizeof *r, cmp_cfg_pi);
        for (size_t i = 0; i < n; i++)
            r[i].nth = i && r[i - 1].pi == r[i].pi && !strcmp(r[i - 1].cfg, r[i].cfg) ? r[i - 1].nth + 1 : 0;
        mh_sort(r, n, sizeof *r, cmp_group);
        v->lg = calloc(n ? n : 1, sizeof *v->lg);
        v->g = calloc(n ? n : 1, sizeof *v->g);
        if (!v->lg || !v->g) rc = -1;
    }
    size_t *first = calloc(n ? n : 1, sizeof *first); /* a variant's first member, index in r */
    if (!first) rc = -1;
    for (size_t i = 0; i < n && !rc;) {
        size_t j = i;
        while (j < n && r[j].nth == r[i].nth && !strcmp(r[j].cfg, r[i].cfg)) j++;
        mh_rank_group *g = &v->g[v->ng++];
        if (!(g->v = calloc(j - i, sizeof *g->v))) rc = -1;
        for (size_t k = i; k < j && !rc; k++) { /* members in rank order */
            size_t x = 0;
            while (x < g->nv && strcmp(r[first[x]].content, r[k].content) != 0) x++;
            if (x == g->nv) {
                if (!(g->v[x].on = calloc(v->p.n, 1))) {
                    rc = -1;
                    break;
                }
                g->v[x].launch = r[k].id;
                first[x] = k;
                g->nv++;
            }
            g->v[x].on[r[k].pi] = 1;
            g->v[x].n++;
            g->nranks++;
            v->lg[v->nlg++] = (mh_rank_id){.id = r[k].id, .a = v->ng - 1, .b = x, .c = (size_t)r[k].pi};
        }
        i = j;
    }
    free(first);
    for (size_t i = 0; i < n; i++) {
        free(r[i].cfg);
        free(r[i].content);
    }
    free(r);
    if (!rc) mh_sort(v->lg, v->nlg, sizeof *v->lg, cmp_id);
    return rc;
}

/* ---- findings across ranks ---- */

typedef struct frec {
    size_t group, pi;
    long long id;
    const char *kind, *space, *obj;
    double cost;
} frec;

static int cmp_fkey(const void *a, const void *b) {
    const frec *x = a, *y = b;
    if (x->group != y->group) return x->group < y->group ? -1 : 1;
    int c = strcmp(x->kind, y->kind);
    if (!c) c = strcmp(x->space, y->space);
    if (!c) c = strcmp(x->obj, y->obj);
    if (c) return c;
    return x->pi < y->pi ? -1 : x->pi > y->pi;
}

static int findings(mh_rank_view *v) {
    const json_t *fs = json_object_get(v->rows, "findings");
    size_t nf = json_array_size(fs), n = 0;
    frec *r = calloc(nf ? nf : 1, sizeof *r);
    v->fl = calloc(nf ? nf : 1, sizeof *v->fl);
    v->fk = calloc(nf ? nf : 1, sizeof *v->fk);
    if (!r || !v->fl || !v->fk) {
        free(r);
        return -1;
    }
    for (size_t i = 0; i < nf; i++) {
        const json_t *f = json_array_get(fs, i);
        const mh_rank_id *l = find_id(v->lg, v->nlg, jint(f, "launch"));
        if (!l) continue;
        r[n++] = (frec){.group = l->a, .pi = l->c, .id = jint(f, "id"), .kind = jstr(f, "kind"),
                        .space = jstr(f, "space"), .obj = jstr(f, "object_label"),
                        .cost = json_number_value(json_object_get(f, "cost"))};
    }
    mh_sort(r, n, sizeof *r, cmp_fkey);
    int rc = 0;
    for (size_t i = 0; i < n && !rc;) {
        size_t j = i;
        while (j < n && r[j].group == r[i].group && !strcmp(r[j].kind, r[i].kind) && !strcmp(r[j].space, r[i].space) &&
               !strcmp(r[j].obj, r[i].obj))
            j++;
        mh_rank_fkey *k = &v->fk[v->nfk++];
        if (!(k->on = calloc(v->p.n, 1))) {
            rc = -1;
            break;
        }
        for (size_t q = i; q < j;) { /* the cost on one rank: the sum of its findings of this key */
            double c = 0;
            size_t e = q;
            for (; e < j && r[e].pi == r[q].pi; e++) {
                c += r[e].cost;
                v->fl[v->nfl++] = (mh_rank_id){.id = r[e].id, .a = v->nfk - 1};
            }
            if (!k->n || c < k->cost_min) k->cost_min = c;
            if (!k->n || c > k->cost_max) k->cost_max = c;
            k->on[r[q].pi] = 1;
            k->n++;
            q = e;
        }
        i = j;
    }
    free(r);
    if (!rc) mh_sort(v->fl, v->nfl, sizeof *v->fl, cmp_id);
    return rc;
}

/* ---- the summary per rank ---- */

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int cmp_sum(const void *a, const void *b) {
    const mh_rank_sum *x = a, *y = b;
    if (x->outlier != y->outlier) return x->outlier > y->outlier ? -1 : 1;
    if (x->set != y->set) return x->set ? -1 : 1;
    if (x->outlier == 2) { /* most off the median first, either way */
        double dx = fabs(log(x->ratio)), dy = fabs(log(y->ratio));
        if (dx != dy) return dx > dy ? -1 : 1;
    } else if (x->metric != y->metric) {
        return x->metric > y->metric ? -1 : 1; /* slowest first */
    }
    return x->pi < y->pi ? -1 : x->pi > y->pi;
}

static int summary(mh_rank_view *v) {
    size_t n = v->p.n, m = 0;
    v->s = calloc(n, sizeof *v->s);
    double *vals = calloc(n, sizeof *vals);
    if (!v->s || !vals) {
        free(vals);
        return -1;
    }
    for (size_t i = 0; i < n; i++) v->timed |= json_is_number(json_object_get(v->p.v[i].p, "kernel_ns"));
    for (size_t i = 0; i < n; i++) {
        const json_t *q = v->p.v[i].p;
        mh_rank_sum *s = &v->s[i];
        s->pi = i;
        s->accesses = json_number_value(json_object_get(q, "accesses"));
        s->traced = jint(q, "launches_traced");
        s->run = json_is_integer(json_object_get(q, "launches_run")) ? jint(q, "launches_run") : -1;
        s->set = v->timed ? json_is_number(json_object_get(q, "kernel_ns")) : 1;
        s->metric = v->timed ? json_number_value(json_object_get(q, "kernel_ns")) : s->accesses;
        double ns = json_number_value(json_object_get(q, "counted_ns")), by = json_number_value(json_object_get(q, "dram_bytes"));
        s->bw = ns > 0 && json_is_number(json_object_get(q, "dram_bytes")) ? by / ns * 1e9 : -1;
        if (s->set) vals[m++] = s->metric;
    }
    mh_sort(vals, m, sizeof *vals, cmp_double);
    v->median = m ? (m % 2 ? vals[m / 2] : (vals[m / 2 - 1] + vals[m / 2]) / 2) : 0;
    free(vals);
    for (size_t k = 0; k < v->fg.n; k++) { /* common: on more than half the ranks */
        const mh_rank_fgroup *g = &v->fg.v[k];
        int common = 2 * g->nranks > n;
        for (size_t i = 0; i < n; i++) {
            if (common && !g->on[i]) v->s[i].absent++;
            if (!common && g->on[i]) v->s[i].extra++;
        }
    }
    for (size_t i = 0; i < n; i++) {
        mh_rank_sum *s = &v->s[i];
        s->ratio = s->set && v->median > 0 ? s->metric / v->median : 0;
        if (s->ratio > MH_RANK_IMBALANCE || (s->ratio > 0 && s->ratio < 1 / MH_RANK_IMBALANCE)) s->outlier = 2;
        else if (s->absent || s->extra) s->outlier = 1;
    }
    mh_sort(v->s, n, sizeof *v->s, cmp_sum);
    return 0;
}

/* ---- what the page shows ---- */

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static int keep(mh_rank_view *v) {
    size_t nk = 0;
    for (size_t i = 0; i < v->ng; i++) nk += v->g[i].nv;
    v->keep = calloc(nk ? nk : 1, sizeof *v->keep);
    v->keep_procs = calloc(nk + 1, sizeof *v->keep_procs);
    if (!v->keep || !v->keep_procs) return -1;
    for (size_t i = 0; i < v->ng; i++)
        for (size_t x = 0; x < v->g[i].nv; x++) {
            long long id = v->g[i].v[x].launch;
            v->keep[v->nkeep++] = id;
            v->keep_procs[v->nkp++] = v->p.v[find_id(v->lg, v->nlg, id)->c].id;
        }
    v->keep_procs[v->nkp++] = v->p.v[v->ref].id;
    mh_sort(v->keep, v->nkeep, sizeof *v->keep, cmp_i64);
    mh_sort(v->keep_procs, v->nkp, sizeof *v->keep_procs, cmp_i64);
    size_t u = 0; /* distinct */
    for (size_t i = 0; i < v->nkp; i++)
        if (!u || v->keep_procs[u - 1] != v->keep_procs[i]) v->keep_procs[u++] = v->keep_procs[i];
    v->nkp = u;
    return 0;
}

void mh_report_rank_view_free(mh_rank_view *v) {
    if (!v) return;
    for (size_t i = 0; i < v->ng; i++) {
        for (size_t x = 0; x < v->g[i].nv; x++) free(v->g[i].v[x].on);
        free(v->g[i].v);
    }
    for (size_t i = 0; i < v->nfk; i++) free(v->fk[i].on);
    free(v->g);
    free(v->fk);
    free(v->lg);
    free(v->fl);
    free(v->s);
    free(v->keep);
    free(v->keep_procs);
    mh_report_rank_findings_free(&v->fg);
    mh_report_rank_kernels_free(&v->k);
    mh_report_rank_procs_free(&v->p);
    json_decref(v->rows);
    free(v);
}

int mh_report_rank_view(json_t *rows, mh_rank_view **out) {
    *out = NULL;
    mh_rank_view *v = calloc(1, sizeof *v);
    if (!v) {
        json_decref(rows);
        return -1;
    }
    v->rows = rows;
    if (mh_report_rank_procs(rows, &v->p)) goto fail;
    if (v->p.n < 2) {
        mh_report_rank_view_free(v);
        return 0;
    }
    v->ref = 0;
    if (groups(v) || findings(v) || mh_report_rank_findings(rows, &v->p, 0, &v->fg) ||
        mh_report_rank_kernels(rows, &v->p, &v->k) || summary(v) || keep(v))
        goto fail;
    *out = v;
    return 0;
fail:
    mh_report_rank_view_free(v);
    return -1;
}

/* ---- page data ---- */

static json_t *ranks_text(const mh_rank_procs *p, const unsigned char *on) {
    char lab[512];
    mh_report_rank_list_short(p, on, lab, sizeof lab);
    return json_string(lab);
}

/* base64 of a bit per rank (bit i%8 of byte i/8 = rank position i) */
static json_t *bits_of(const unsigned char *on, size_t n) {
    unsigned char *b = calloc(n / 8 + 1, 1);
    char *text = NULL;
    size_t len = 0;
    FILE *f = b ? open_memstream(&text, &len) : NULL;
    json_t *r = NULL;
    if (f) {
        for (size_t i = 0; i < n; i++)
            if (on[i]) b[i / 8] |= (unsigned char)(1u << (i % 8));
        mh_report_base64(f, b, (n + 7) / 8);
        if (fclose(f) == 0) r = json_stringn(text, len);
    }
    free(text);
    free(b);
    return r;
}

static int set(json_t *o, const char *k, json_t *v) { return !v || json_object_set_new(o, k, v) ? -1 : 0; }

int mh_report_rank_view_annotate(const mh_rank_view *v, json_t *root) {
    int rc = 0;
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(root, "processes"), i, e) {
        int pi = mh_report_rank_index(&v->p, jint(e, "id"));
        if (pi >= 0) rc |= set(e, "label", json_string(v->p.v[pi].label));
    }
    json_array_foreach(json_object_get(root, "launches"), i, e) {
        const mh_rank_id *l = find_id(v->lg, v->nlg, jint(e, "id"));
        if (!l) continue;
        rc |= set(e, "rank_group", json_integer((json_int_t)l->a));
        rc |= set(e, "variant", json_integer((json_int_t)l->b));
    }
    json_array_foreach(json_object_get(root, "findings"), i, e) {
        const mh_rank_id *f = find_id(v->fl, v->nfl, jint(e, "id"));
        if (!f) continue;
        const mh_rank_fkey *k = &v->fk[f->a];
        rc |= set(e, "ranks_on", bits_of(k->on, v->p.n));
        rc |= set(e, "ranks_n", json_integer((json_int_t)k->n));
        rc |= set(e, "cost_min", json_real(k->cost_min));
        rc |= set(e, "cost_max", json_real(k->cost_max));
    }
    json_t *gs = json_array();
    rc |= set(root, "rank_groups", gs);
    unsigned char *on = calloc(v->p.n, 1);
    if (!on) rc = -1;
    for (size_t g = 0; g < v->ng && !rc; g++) {
        const mh_rank_group *G = &v->g[g];
        json_t *o = json_object(), *vs = json_array();
        memset(on, 0, v->p.n);
        for (size_t x = 0; x < G->nv; x++) {
            json_t *vo = json_object();
            for (size_t q = 0; q < v->p.n; q++) on[q] |= G->v[x].on[q];
            rc |= set(vo, "launch", json_integer(G->v[x].launch));
            rc |= set(vo, "n", json_integer((json_int_t)G->v[x].n));
            rc |= set(vo, "ranks", ranks_text(&v->p, G->v[x].on));
            rc |= json_array_append_new(vs, vo);
        }
        rc |= set(o, "id", json_integer((json_int_t)g));
        rc |= set(o, "n", json_integer((json_int_t)G->nranks));
        rc |= set(o, "ranks", ranks_text(&v->p, on));
        rc |= set(o, "identical", json_boolean(G->nv == 1 && G->nranks == v->p.n));
        rc |= set(o, "variants", vs);
        rc |= json_array_append_new(gs, o);
    }
    free(on);
    json_t *rv = json_object(), *rk = json_array();
    rc |= set(root, "rank_view", rv);
    for (size_t q = 0; q < v->p.n && !rc; q++)
        rc |= json_array_append_new(rk, v->p.v[q].has_rank ? json_integer(v->p.v[q].rank) : json_string(v->p.v[q].label));
    rc |= set(rv, "n", json_integer((json_int_t)v->p.n));
    rc |= set(rv, "ref", json_integer(v->p.v[v->ref].id));
    rc |= set(rv, "ref_label", json_string(v->p.v[v->ref].label));
    rc |= set(rv, "ranks", rk);
    return rc ? -1 : 0;
}
