/* group.c -- findings, time and bandwidth by the user's code (analyses/group.h). */
#include "analyses/group.h"

#include <stdlib.h>
#include <string.h>

#include "util/grow.h"
#include "util/sort.h"

typedef struct group {
    char *key, *label;
    size_t findings;
    double cost;
    double launches, time_ns, bytes, timed_ns; /* timed_ns: time of the launches whose bytes are known */
    uint64_t traced;
    char *top_kind, *top_kernel, *top_object, *top_evidence, *top_fix;
    double top_cost;
} group;

struct mh_groups {
    int by;
    group *v;
    size_t n, cap;
};

int mh_group_parse(const char *s) {
    if (!s) return -1;
    if (!strcmp(s, "site")) return MH_GROUP_SITE;
    if (!strcmp(s, "nvtx")) return MH_GROUP_NVTX;
    if (!strcmp(s, "kernel")) return MH_GROUP_KERNEL;
    return -1;
}

const char *mh_group_name(int by) {
    switch (by) {
    case MH_GROUP_SITE: return "site";
    case MH_GROUP_NVTX: return "nvtx";
    case MH_GROUP_KERNEL: return "kernel";
    default: return "none";
    }
}

mh_groups *mh_groups_new(int by) {
    mh_groups *g = calloc(1, sizeof *g);
    if (g) g->by = by;
    return g;
}

static void group_free(group *x) {
    free(x->key);
    free(x->label);
    free(x->top_kind);
    free(x->top_kernel);
    free(x->top_object);
    free(x->top_evidence);
    free(x->top_fix);
}

void mh_groups_free(mh_groups *g) {
    if (!g) return;
    for (size_t i = 0; i < g->n; i++) group_free(&g->v[i]);
    free(g->v);
    free(g);
}

/* The group of key, added when new (groups are few: a linear search). */
static group *get(mh_groups *g, const char *key, const char *label) {
    if (!key) key = "";
    for (size_t i = 0; i < g->n; i++)
        if (!strcmp(g->v[i].key, key)) return &g->v[i];
    group *v = mh_grow(g->v, &g->cap, g->n + 1, sizeof *v, 16);
    if (!v) return NULL;
    g->v = v;
    group *x = &v[g->n];
    memset(x, 0, sizeof *x);
    x->key = strdup(key);
    x->label = strdup(label && *label ? label : *key ? key : "(none)");
    if (!x->key || !x->label) {
        group_free(x);
        return NULL;
    }
    g->n++;
    return x;
}

static char *dup(const char *s) { return strdup(s ? s : ""); }

int mh_groups_add_finding(mh_groups *g, const char *key, const char *label, const char *kind, double cost,
                          const char *kernel, const char *object, const char *evidence, const char *fix) {
    group *x = get(g, key, label);
    if (!x) return MH_ERR_NOMEM;
    x->findings++;
    x->cost += cost;
    if (!x->top_kind || cost > x->top_cost) {
        free(x->top_kind);
        free(x->top_kernel);
        free(x->top_object);
        free(x->top_evidence);
        free(x->top_fix);
        x->top_kind = dup(kind);
        x->top_kernel = dup(kernel);
        x->top_object = dup(object);
        x->top_evidence = dup(evidence);
        x->top_fix = dup(fix);
        x->top_cost = cost;
        if (!x->top_kind || !x->top_kernel || !x->top_object || !x->top_evidence || !x->top_fix) return MH_ERR_NOMEM;
    }
    return MH_OK;
}

int mh_groups_add_time(mh_groups *g, const char *key, const char *label, double launches, double time_ns,
                       double bytes) {
    group *x = get(g, key, label);
    if (!x) return MH_ERR_NOMEM;
    x->launches += launches;
    x->time_ns += time_ns;
    if (bytes > 0) {
        x->bytes += bytes;
        x->timed_ns += time_ns;
    }
    return MH_OK;
}

int mh_groups_add_traced(mh_groups *g, const char *key, const char *label) {
    group *x = get(g, key, label);
    if (!x) return MH_ERR_NOMEM;
    x->traced++;
    return MH_OK;
}

static int cmp(const void *a, const void *b) {
    const group *x = a, *y = b;
    if (x->cost != y->cost) return x->cost < y->cost ? 1 : -1;
    if (x->time_ns != y->time_ns) return x->time_ns < y->time_ns ? 1 : -1;
    return strcmp(x->key, y->key);
}

void mh_groups_finish(mh_groups *g) {
    if (g->n) mh_sort(g->v, g->n, sizeof *g->v, cmp);
}

void mh_groups_print(const mh_groups *g, FILE *f, size_t max) {
    fprintf(f, "By %s (findings' cost = estimated avoidable sector transactions or wavefronts):\n",
            g->by == MH_GROUP_SITE ? "call site in your code" : g->by == MH_GROUP_NVTX ? "NVTX range" : "kernel");
    if (!g->n) fprintf(f, "  (no groups: the trace has no %s)\n", g->by == MH_GROUP_SITE ? "call sites" : "ranges");
    for (size_t i = 0; i < g->n && (!max || i < max); i++) {
        const group *x = &g->v[i];
        fprintf(f, "#%-3zu %s\n", i + 1, x->label);
        fprintf(f, "     %zu finding%s, cost %.0f; %.0f launch%s (%llu traced)", x->findings, x->findings == 1 ? "" : "s",
                x->cost, x->launches, x->launches == 1 ? "" : "es", (unsigned long long)x->traced);
        if (x->time_ns > 0) fprintf(f, "; GPU time %.3f ms", x->time_ns / 1e6);
        if (x->timed_ns > 0) fprintf(f, ", %.1f GB/s", x->bytes / x->timed_ns);
        fputc('\n', f);
        if (x->top_kind)
            fprintf(f, "     top: %s in %s on %s: %s\n", x->top_kind, x->top_kernel, x->top_object[0] ? x->top_object : "?",
                    x->top_evidence);
        if (x->top_fix && x->top_fix[0]) fprintf(f, "     fix: %s\n", x->top_fix);
    }
}

json_t *mh_groups_json(const mh_groups *g) {
    json_t *a = json_array();
    for (size_t i = 0; a && i < g->n; i++) {
        const group *x = &g->v[i];
        json_t *o = json_pack("{s:s, s:s, s:I, s:f, s:f, s:I, s:f}", "key", x->key, "label", x->label, "findings",
                              (json_int_t)x->findings, "cost", x->cost, "launches", x->launches, "traced",
                              (json_int_t)x->traced, "time_ns", x->time_ns);
        if (!o) continue;
        json_object_set_new(o, "bandwidth_Bps", x->timed_ns > 0 ? json_real(x->bytes / x->timed_ns * 1e9) : json_null());
        json_object_set_new(o, "top", x->top_kind ? json_pack("{s:s, s:s, s:s, s:s, s:s, s:f}", "kind", x->top_kind,
                                                              "kernel", x->top_kernel, "object", x->top_object,
                                                              "evidence", x->top_evidence, "fix", x->top_fix,
                                                              "cost", x->top_cost)
                                                  : json_null());
        json_array_append_new(a, o);
    }
    return a;
}
