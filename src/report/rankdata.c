/* rankdata.c -- the view by rank, computed once (rankdata.h).
 *
 * Data-parallel jobs run the same kernels on every rank; what a user asks is
 * "is one rank slower?" and "is this problem everywhere?". From the summary
 * JSON of a profile of several processes this computes: the processes in
 * rank order with their labels; per kernel, a cell per rank and the slowest
 * rank against the median (load imbalance); the findings grouped by (kernel,
 * kind, space, object) with the ranks that have them and the spread of their
 * cost. The report's rank section (with rankview.c), the diff and `memheat
 * analyze` show these numbers; none computes them again. */
#include "report/rankdata.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/grow.h"
#include "util/sort.h"

static long long jint(const json_t *o, const char *k) { return (long long)json_integer_value(json_object_get(o, k)); }
static double jnum(const json_t *o, const char *k) { return json_number_value(json_object_get(o, k)); }
static const char *jstr(const json_t *o, const char *k) {
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

static const char *const rank_keys[] = {"rank", "ompi_rank", "pmi_rank", "slurm_procid"};

static int cmp_proc(const void *a, const void *b) {
    const mh_rank_proc *x = a, *y = b;
    if (x->has_rank != y->has_rank) return x->has_rank ? -1 : 1;
    long long kx = x->has_rank ? x->rank : x->id, ky = y->has_rank ? y->rank : y->id;
    if (kx != ky) return kx < ky ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

int mh_report_rank_procs(const json_t *root, mh_rank_procs *out) {
    memset(out, 0, sizeof *out);
    const json_t *all = json_object_get(root, "processes");
    size_t n = json_array_size(all);
    if (!n) return 0;
    out->v = calloc(n, sizeof *out->v);
    if (!out->v) return -1;
    for (size_t i = 0; i < n; i++) {
        mh_rank_proc *r = &out->v[i];
        r->p = json_array_get(all, i);
        r->id = jint(r->p, "id");
        for (size_t k = 0; k < sizeof rank_keys / sizeof *rank_keys && !r->has_rank; k++)
            if (json_is_integer(json_object_get(r->p, rank_keys[k]))) {
                r->rank = jint(r->p, rank_keys[k]);
                r->has_rank = 1;
            }
        if (r->has_rank) snprintf(r->label, sizeof r->label, "rank %lld", r->rank);
        else snprintf(r->label, sizeof r->label, "pid %lld", jint(r->p, "pid"));
    }
    mh_sort(out->v, n, sizeof *out->v, cmp_proc);
    out->n = n;
    if (!(out->byid = malloc(n * sizeof *out->byid))) {
        mh_report_rank_procs_free(out);
        return -1;
    }
    for (size_t i = 0; i < n; i++) out->byid[i] = i;
    /* insertion sort by id: the rank order is usually the id order already */
    for (size_t i = 1; i < n; i++) {
        size_t x = out->byid[i], j = i;
        for (; j > 0 && out->v[out->byid[j - 1]].id > out->v[x].id; j--) out->byid[j] = out->byid[j - 1];
        out->byid[j] = x;
    }
    return 0;
}

void mh_report_rank_procs_free(mh_rank_procs *p) {
    free(p->v);
    free(p->byid);
    memset(p, 0, sizeof *p);
}

int mh_report_rank_index(const mh_rank_procs *p, long long id) {
    size_t lo = 0, hi = p->n; /* binary search of byid */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        long long m = p->v[p->byid[mid]].id;
        if (m == id) return (int)p->byid[mid];
        if (m < id) lo = mid + 1;
        else hi = mid;
    }
    return -1;
}

void mh_report_rank_list(const mh_rank_procs *p, const unsigned char *on, char *buf, size_t cap) {
    size_t len = 0, shown = 0, count = 0;
    int all_ranked = 1;
    buf[0] = '\0';
    for (size_t i = 0; i < p->n; i++)
        if (on[i]) {
            count++;
            all_ranked &= p->v[i].has_rank;
        }
#define APPEND(...)                                                                                                   \
    do {                                                                                                              \
        if (len < cap) len += (size_t)snprintf(buf + len, cap - len, __VA_ARGS__);                                    \
    } while (0)
    if (!all_ranked) { /* labels as they are */
        for (size_t i = 0; i < p->n; i++)
            if (on[i]) APPEND("%s%s", shown++ ? ", " : "", p->v[i].label);
        return;
    }
    APPEND("%s", count == 1 ? "rank " : "ranks ");
    for (size_t i = 0; i < p->n;) { /* runs of consecutive ranks: "0-3" */
        if (!on[i]) {
            i++;
            continue;
        }
        size_t j = i;
        while (j + 1 < p->n && on[j + 1] && p->v[j + 1].rank == p->v[j].rank + 1) j++;
        if (j > i) APPEND("%s%lld-%lld", shown++ ? ", " : "", p->v[i].rank, p->v[j].rank);
        else APPEND("%s%lld", shown++ ? ", " : "", p->v[i].rank);
        i = j + 1;
    }
#undef APPEND
}

int mh_report_rank_list_short(const mh_rank_procs *p, const unsigned char *on, char *buf, size_t cap) {
    size_t count = 0;
    for (size_t i = 0; i < p->n; i++) count += on[i] != 0;
    unsigned char *off = 2 * count > p->n && count < p->n ? malloc(p->n) : NULL;
    if (!off) {
        mh_report_rank_list(p, on, buf, cap);
        return 0;
    }
    for (size_t i = 0; i < p->n; i++) off[i] = !on[i];
    char *but = malloc(cap);
    int shorter = 0;
    if (but) {
        size_t k = (size_t)snprintf(but, cap, "all but ");
        if (k < cap) mh_report_rank_list(p, off, but + k, cap - k);
        mh_report_rank_list(p, on, buf, cap);
        if ((shorter = strlen(but) < strlen(buf))) memcpy(buf, but, strlen(but) + 1);
    } else {
        mh_report_rank_list(p, on, buf, cap);
    }
    free(but);
    free(off);
    return shorter;
}

/* ---- launch lookup by id ---- */

typedef struct lidx {
    long long id;
    const json_t *l;
} lidx;

static int cmp_lidx(const void *a, const void *b) {
    long long x = ((const lidx *)a)->id, y = ((const lidx *)b)->id;
    return x < y ? -1 : x > y;
}

static lidx *launch_index(const json_t *root, size_t *n) {
    const json_t *ls = json_object_get(root, "launches");
    *n = json_array_size(ls);
    lidx *v = malloc((*n ? *n : 1) * sizeof *v);
    if (!v) return NULL;
    for (size_t i = 0; i < *n; i++) {
        v[i].l = json_array_get(ls, i);
        v[i].id = jint(v[i].l, "id");
    }
    mh_sort(v, *n, sizeof *v, cmp_lidx);
    return v;
}

static const json_t *launch_of(const lidx *v, size_t n, long long id) {
    lidx key = {.id = id};
    const lidx *h = bsearch(&key, v, n, sizeof *v, cmp_lidx);
    return h ? h->l : NULL;
}

static const char *launch_name(const json_t *l) {
    return jstr(l, "display_name")[0] ? jstr(l, "display_name") : jstr(l, "name");
}

/* ---- kernels ---- */

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static mh_rank_krow *krow_of(mh_rank_kernels *k, size_t *cap, const char *name) {
    for (size_t i = 0; i < k->n; i++)
        if (!strcmp(k->v[i].name, name)) return &k->v[i];
    mh_rank_krow *v = mh_grow(k->v, cap, k->n + 1, sizeof *v, 16);
    if (!v) return NULL;
    k->v = v;
    mh_rank_krow *r = &v[k->n];
    memset(r, 0, sizeof *r);
    r->c = calloc(k->np ? k->np : 1, sizeof *r->c);
    if (!r->c) return NULL;
    k->n++;
    snprintf(r->name, sizeof r->name, "%s", name);
    return r;
}

int mh_report_rank_kernels(const json_t *root, const mh_rank_procs *p, mh_rank_kernels *out) {
    memset(out, 0, sizeof *out);
    out->np = p->n;
    const json_t *kernels = json_object_get(root, "kernels");
    size_t i, cap = 0;
    json_t *k;
    json_array_foreach(kernels, i, k) out->timed |= json_is_integer(json_object_get(k, "process"));
    if (out->timed) {
        json_array_foreach(kernels, i, k) {
            int pi = mh_report_rank_index(p, jint(k, "process"));
            if (pi < 0) continue;
            mh_rank_krow *r = krow_of(out, &cap, jstr(k, "name"));
            if (!r) goto nomem;
            r->c[pi].v += jnum(k, "total_ns");
            r->c[pi].v2 = jnum(k, "bandwidth_Bps");
            r->c[pi].set = 1;
        }
    } else {
        json_array_foreach(json_object_get(root, "launches"), i, k) {
            int pi = mh_report_rank_index(p, jint(k, "process"));
            if (pi < 0) continue;
            mh_rank_krow *r = krow_of(out, &cap, launch_name(k));
            if (!r) goto nomem;
            r->c[pi].v += 1;
            r->c[pi].v2 += jnum(k, "recorded");
            r->c[pi].set = 1;
        }
    }
    double *vals = malloc((p->n ? p->n : 1) * sizeof *vals);
    if (!vals) goto nomem;
    for (size_t r = 0; r < out->n; r++) {
        mh_rank_krow *row = &out->v[r];
        double worst = -1;
        row->m = 0;
        for (size_t c = 0; c < p->n; c++) {
            if (!row->c[c].set) continue;
            double metric = out->timed ? row->c[c].v : row->c[c].v2;
            vals[row->m++] = metric;
            if (metric > worst) worst = metric, row->worst = c;
        }
        mh_sort(vals, row->m, sizeof *vals, cmp_double);
        size_t m = row->m;
        row->median = m ? (m % 2 ? vals[m / 2] : (vals[m / 2 - 1] + vals[m / 2]) / 2) : 0;
        row->ratio = row->median > 0 ? worst / row->median : 0;
    }
    free(vals);
    return 0;
nomem:
    mh_report_rank_kernels_free(out);
    return -1;
}

void mh_report_rank_kernels_free(mh_rank_kernels *k) {
    for (size_t i = 0; i < k->n; i++) free(k->v[i].c);
    free(k->v);
    memset(k, 0, sizeof *k);
}

const mh_rank_krow *mh_report_rank_kernel(const mh_rank_kernels *k, const char *name) {
    for (size_t i = 0; name && i < k->n; i++)
        if (!strcmp(k->v[i].name, name)) return &k->v[i];
    return NULL;
}

/* ---- findings ---- */

static int cmp_fgroup(const void *a, const void *b) {
    double x = ((const mh_rank_fgroup *)a)->cost_total, y = ((const mh_rank_fgroup *)b)->cost_total;
    return x > y ? -1 : x < y;
}

int mh_report_rank_findings(const json_t *root, const mh_rank_procs *p, int with_coalesced, mh_rank_findings *out) {
    memset(out, 0, sizeof *out);
    out->np = p->n;
    size_t nl, cap = 0, i;
    lidx *li = launch_index(root, &nl);
    if (!li) return -1;
    json_t *f;
    json_array_foreach(json_object_get(root, "findings"), i, f) {
        if (!with_coalesced && !strcmp(jstr(f, "kind"), "coalesced")) continue;
        const json_t *l = launch_of(li, nl, jint(f, "launch"));
        int pi = l ? mh_report_rank_index(p, jint(l, "process")) : -1;
        if (pi < 0) continue;
        const char *kn = launch_name(l), *kind = jstr(f, "kind"), *sp = jstr(f, "space"), *obj = jstr(f, "object_label");
        mh_rank_fgroup *g = NULL;
        for (size_t k = 0; k < out->n && !g; k++)
            if (!strcmp(out->v[k].kernel, kn) && !strcmp(out->v[k].kind, kind) && !strcmp(out->v[k].space, sp) &&
                !strcmp(out->v[k].object, obj))
                g = &out->v[k];
        if (!g) {
            mh_rank_fgroup *v = mh_grow(out->v, &cap, out->n + 1, sizeof *v, 16);
            if (!v) goto nomem;
            out->v = v;
            g = &v[out->n];
            memset(g, 0, sizeof *g);
            g->on = calloc(p->n, 1);
            g->cost = calloc(p->n, sizeof *g->cost);
            out->n++;
            if (!g->on || !g->cost) goto nomem;
            snprintf(g->kernel, sizeof g->kernel, "%s", kn);
            snprintf(g->kind, sizeof g->kind, "%s", kind);
            snprintf(g->space, sizeof g->space, "%s", sp);
            snprintf(g->object, sizeof g->object, "%s", obj);
            g->top = i;
        }
        double c = jnum(f, "cost");
        if (c > jnum(json_array_get(json_object_get(root, "findings"), g->top), "cost")) g->top = i;
        if (!g->on[pi]) g->nranks++;
        g->on[pi] = 1;
        g->cost[pi] += c;
        g->cost_total += c;
    }
    for (size_t k = 0; k < out->n; k++) {
        mh_rank_fgroup *g = &out->v[k];
        int first = 1;
        for (size_t c = 0; c < p->n; c++) {
            if (!g->on[c]) continue;
            if (first || g->cost[c] < g->cost_min) g->cost_min = g->cost[c];
            if (first || g->cost[c] > g->cost_max) g->cost_max = g->cost[c];
            first = 0;
        }
    }
    mh_sort(out->v, out->n, sizeof *out->v, cmp_fgroup);
    free(li);
    return 0;
nomem:
    free(li);
    mh_report_rank_findings_free(out);
    return -1;
}

void mh_report_rank_findings_free(mh_rank_findings *f) {
    for (size_t i = 0; i < f->n; i++) {
        free(f->v[i].on);
        free(f->v[i].cost);
    }
    free(f->v);
    memset(f, 0, sizeof *f);
}
