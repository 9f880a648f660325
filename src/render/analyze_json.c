/* analyze_json.c -- the JSON document of `memheat analyze` (schema in
 * docs/metrics.md): the header's scalars, then the arrays: kernels,
 * findings, each analysis's tables (its row's arrays: bank conflicts,
 * global requests, ...), locality; one element per launch, finding or pc.
 *
 * jansson builds and prints every element. A many-launch document is mostly
 * those arrays (8,000 launches: 34 MB, a second of one core on the 16-core
 * machine, longer than the analysis), so their elements are printed in
 * slices that a thread per CPU takes in turn, each element with the
 * document's flags on its own, and the texts are put together in order:
 * every element printed alone at
 * depth 0 is the same text as inside the document with 4 more spaces after
 * each line break (at depth 2), so the bytes are what one json_dumpf of the
 * whole tree prints (bench/analyses/same_output.sh compares them). */
#include "render/analyze.h"

#include <errno.h>
#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyses/heat.h"
#include "pass/table.h"
#include "render/finding_view.h"
#include "util/outfile.h"

#define FLAGS (JSON_INDENT(2) | JSON_REAL_PRECISION(10))
#define SLICE 128 /* elements per slice: a thread's unit of work */
#define MAX_THREADS 16

static json_t *jstr(const char *s) { return json_string(s ? s : ""); }

static json_t *metrics_json(const mh_loc_metrics *m) {
    json_t *o = json_object(), *en = json_array(), *ps = json_array();
    json_object_set_new(o, "accesses", json_integer((json_int_t)m->accesses));
    json_object_set_new(o, "footprint", json_integer((json_int_t)m->footprint));
    json_object_set_new(o, "footprint90", json_integer((json_int_t)m->footprint90));
    for (int d = 0; d < MH_LOC_NBITS; d++) {
        json_array_append_new(en, json_real(m->entropy[d]));
        json_array_append_new(ps, json_real(m->psl[d]));
    }
    json_object_set_new(o, "entropy", en);
    json_object_set_new(o, "psl", ps);
    json_object_set_new(o, "psl_steps", json_integer((json_int_t)m->psl_steps));
    json_object_set_new(o, "psl_blocks", json_integer(m->psl_blocks));
    return o;
}

static json_t *loc_json(const mh_analyze_result *res, const mh_analyze_loc *l) {
    const mh_model_launch *ml = mh_model_launch_get(&res->model, l->launch);
    json_t *o = json_object(), *sp = json_object();
    json_object_set_new(o, "launch", json_integer(l->launch));
    json_object_set_new(o, "kernel", jstr(ml && ml->l.display_name ? ml->l.display_name : "?"));
    json_object_set_new(o, "rel_local", json_real(l->r.rel_local));
    json_object_set_new(o, "unattributed", json_integer((json_int_t)l->r.unattributed));
    json_object_set_new(o, "psl_split", json_integer((json_int_t)l->r.psl_split));
    for (int c = 0; c < MH_LOC_COLS; c++) /* a space without accesses has no metrics: left out */
        if (c == MH_LOC_TOTAL || l->r.m[c].accesses)
            json_object_set_new(sp, c == MH_LOC_TOTAL ? "total" : mh_space_name((unsigned)c), metrics_json(&l->r.m[c]));
    json_object_set_new(o, "spaces", sp);
    return o;
}

/* Every launch with its grid and traced blocks: per-block figures (and the
 * scaling of whole-kernel hardware counters, bench/oracle) need them. */
static json_t *kernel_json(const mh_model_launch *ml) {
    json_t *o = json_object();
    json_object_set_new(o, "launch", json_integer(ml->l.id));
    json_object_set_new(o, "name", jstr(ml->l.name));
    json_object_set_new(o, "kernel", jstr(ml->l.display_name ? ml->l.display_name : ml->l.name));
    json_object_set_new(o, "grid_blocks", json_integer(ml->n_blocks));
    json_object_set_new(o, "block_threads", json_integer(ml->threads_per_block));
    json_object_set_new(o, "traced_blocks", json_integer(ml->n_sampled));
    return o;
}

/* ---- the arrays, printed in slices ---- */

/* The document's arrays: kernels, findings, the analyses' tables, locality. */
enum { A_KERNELS, A_FINDINGS, A_ROW, A_LOCALITY };
#define MAX_ARRAYS (3 + 4 * MH_ANALYSES_MAX)

typedef struct array {
    const char *key;
    int kind;
    const mh_analysis_array *ra; /* A_ROW: the row's array, of run (NULL: did not run) */
    const void *run;
} array;

/* The arrays in document order; their number. */
static size_t arrays_of(const mh_analyze_result *res, array *v) {
    size_t n = 0;
    v[n++] = (array){"kernels", A_KERNELS, NULL, NULL};
    v[n++] = (array){"findings", A_FINDINGS, NULL, NULL};
    for (unsigned i = 0; i < mh_nanalyses; i++) {
        const void *run = res->results ? mh_pass_results_run(res->results, i) : NULL;
        for (unsigned k = 0; k < mh_analyses[i]->narrays; k++) {
            const mh_analysis_array *ra = &mh_analyses[i]->arrays[k];
            if (ra->omit_empty && (!run || ra->count(run) == 0)) continue;
            v[n++] = (array){ra->key, A_ROW, ra, run};
        }
    }
    v[n++] = (array){"locality", A_LOCALITY, NULL, NULL};
    return n;
}

static size_t array_len(const mh_analyze_result *res, const array *a) {
    size_t n = 0;
    switch (a->kind) {
    case A_KERNELS: return res->model.nlaunches;
    case A_FINDINGS: mh_analyze_findings(res, &n); return n;
    case A_ROW: return a->run ? a->ra->count(a->run) : 0;
    default: return res->nloc;
    }
}

static json_t *element(const mh_analyze_result *res, const array *a, size_t i) {
    size_t n;
    switch (a->kind) {
    case A_KERNELS: return kernel_json(&res->model.launches[i]);
    case A_FINDINGS: {
        mh_fview fv;
        mh_fview_from_trace(&fv, &res->model, mh_analyze_findings(res, &n)[i]);
        json_t *o = mh_fview_json(&fv);
        mh_fview_free(&fv);
        return o;
    }
    case A_ROW: return a->ra->element(a->run, &res->model, i);
    default: return loc_json(res, &res->loc[i]);
    }
}

/* Elements [a, b) of one array as the document has them: each at depth 2,
 * separated by ",\n". */
typedef struct slice {
    const mh_analyze_result *res;
    const array *array;
    size_t a, b;
    char *text;
    size_t len, cap;
    int bad; /* out of memory */
} slice;

static int put(slice *s, const char *t, size_t n) {
    if (s->len + n + 1 > s->cap) {
        size_t cap = s->cap ? s->cap : 4096;
        while (cap < s->len + n + 1) cap *= 2;
        char *p = realloc(s->text, cap);
        if (!p) return 0;
        s->text = p;
        s->cap = cap;
    }
    memcpy(s->text + s->len, t, n);
    s->len += n;
    s->text[s->len] = '\0';
    return 1;
}

static void *print_slice(void *arg) {
    slice *s = arg;
    for (size_t i = s->a; i < s->b && !s->bad; i++) {
        json_t *o = element(s->res, s->array, i);
        char *t = o ? json_dumps(o, FLAGS) : NULL;
        json_decref(o);
        int ok = t && put(s, i > s->a ? ",\n    " : "    ", i > s->a ? 6 : 4);
        for (const char *p = t; ok && *p;) { /* 4 more spaces after each line break */
            const char *nl = strchr(p, '\n');
            size_t n = nl ? (size_t)(nl - p) + 1 : strlen(p);
            ok = put(s, p, n) && (!nl || put(s, "    ", 4));
            p += n;
        }
        free(t);
        if (!ok) s->bad = 1;
    }
    return NULL;
}

/* The slices of the arrays, taken in turn by up to MAX_THREADS
 * threads (this one included). */
typedef struct printing {
    slice *sl;
    size_t n;
    atomic_size_t next;
} printing;

static void *print_some(void *arg) {
    printing *pp = arg;
    for (size_t i; (i = atomic_fetch_add(&pp->next, 1)) < pp->n;) print_slice(&pp->sl[i]);
    return NULL;
}

/* Prints the arrays (na of them) as slices of SLICE elements, in array
 * order (*sl, *nsl; first[a]: array a's first slice). One thread per CPU takes
 * the next slice until none is left: a few threads (a fresh thread's first
 * allocations make the allocator an arena of its own, and 80 of them at once
 * did not scale on 16 cores), kept busy to the end by slices of even size. */
static int print_arrays(const mh_analyze_result *res, const array *arr, size_t na, slice **sl, size_t *nsl,
                        size_t *first) {
    size_t k = 0;
    for (size_t a = 0; a < na; a++) k += (array_len(res, &arr[a]) + SLICE - 1) / SLICE;
    *sl = calloc(k ? k : 1, sizeof **sl);
    if (!*sl) return 0;
    k = 0;
    for (size_t a = 0; a < na; a++) {
        first[a] = k;
        size_t n = array_len(res, &arr[a]);
        for (size_t i = 0; i < n; i += SLICE)
            (*sl)[k++] = (slice){.res = res, .array = &arr[a], .a = i, .b = n - i < SLICE ? n : i + SLICE};
    }
    first[na] = *nsl = k;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    size_t t = cpus > 1 ? (size_t)cpus : 1;
    if (t > MAX_THREADS) t = MAX_THREADS;
    if (t > k) t = k ? k : 1;
    printing pp = {*sl, k, 0};
    pthread_t tid[MAX_THREADS];
    int started[MAX_THREADS] = {0};
    for (size_t i = 1; i < t; i++) started[i] = pthread_create(&tid[i], NULL, print_some, &pp) == 0;
    print_some(&pp); /* every slice gets printed, by this thread if no other starts */
    for (size_t i = 1; i < t; i++)
        if (started[i]) pthread_join(tid[i], NULL);
    int ok = 1;
    for (size_t i = 0; i < k; i++) ok &= !(*sl)[i].bad;
    return ok;
}

static int write_doc(FILE *f, const mh_analyze_result *res, json_t *root) {
    slice *sl = NULL;
    array arr[MAX_ARRAYS];
    size_t na = arrays_of(res, arr), nsl = 0, first[MAX_ARRAYS + 1];
    int ok = print_arrays(res, arr, na, &sl, &nsl, first);
    char *head = ok ? json_dumps(root, FLAGS) : NULL; /* "{\n  ...\n}": the scalars */
    size_t hl = head ? strlen(head) : 0;
    ok = head && hl >= 2 && fwrite(head, 1, hl - 2, f) == hl - 2;
    for (size_t a = 0; a < na && ok; a++) {
        ok = fprintf(f, ",\n  \"%s\": %s", arr[a].key, first[a] == first[a + 1] ? "[]" : "[\n") > 0;
        for (size_t i = first[a]; i < first[a + 1] && ok; i++)
            ok = (i == first[a] || fputs(",\n", f) != EOF) && fwrite(sl[i].text, 1, sl[i].len, f) == sl[i].len;
        if (ok && first[a] < first[a + 1]) ok = fputs("\n  ]", f) != EOF;
    }
    ok = ok && fputs("\n}\n", f) != EOF;
    free(head);
    for (size_t i = 0; sl && i < nsl; i++) free(sl[i].text);
    free(sl);
    return ok;
}

int mh_analyze_write_json(const char *path, const mh_analyze_result *res, mh_err *err) {
    json_t *root = json_object();
    json_object_set_new(root, "format", jstr("memheat-analyze-2"));
    json_object_set_new(root, "accesses", json_integer((json_int_t)res->accesses));
    json_object_set_new(root, "launches", json_integer((json_int_t)res->model.nlaunches));
    json_object_set_new(root, "complete", json_boolean(res->complete && !res->notice[0]));
    if (res->notice[0]) json_object_set_new(root, "notice", json_string(res->notice));
    json_object_set_new(root, "truncated", json_boolean(res->truncated));
    json_object_set_new(root, "partial", json_boolean(res->partial));
    json_object_set_new(root, "requests_split", json_integer((json_int_t)res->split_pat));
    json_object_set_new(root, "peak_bytes", json_integer((json_int_t)res->peak_total));
    if (res->model.sites.n) json_object_set_new(root, "sites", mh_sites_json(&res->model.sites));
    if (res->groups) {
        json_object_set_new(root, "group_by", json_string(mh_group_name(res->group_by)));
        json_object_set_new(root, "groups", mh_groups_json(res->groups));
    }
    int rc = MH_OK;
    if (!strcmp(path, "-")) {
        if (!write_doc(stdout, res, root)) rc = mh_err_set(err, MH_ERR_IO, "writing JSON to stdout failed");
    } else {
        /* a temporary beside path, renamed when complete: never a half-written JSON */
        mh_outfile of;
        rc = mh_outfile_open(&of, path, MH_OUTFILE_FORCE, err);
        if (rc == MH_OK && !write_doc(of.f, res, root)) {
            rc = mh_err_set(err, MH_ERR_IO, "write error on %s: %s", path, strerror(errno ? errno : EIO));
            mh_outfile_abort(&of);
        } else if (rc == MH_OK) {
            rc = mh_outfile_commit(&of, err);
        }
    }
    json_decref(root);
    return rc;
}
