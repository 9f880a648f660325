/* outputs.c -- the files one pass of `memheat run` left, one per process.
 *
 * The run layer names one path per output (the trace, the timing file); the
 * collectors of a program of several processes each claim their own file
 * beside it and list it in <path>.procs (collect.h, mh_collect_claim). Before
 * a pass the run layer removes what an earlier run left under that path;
 * afterwards it reads exactly the files the manifest names, or the plain path
 * alone where no manifest appeared (a collector from before the manifest). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run_internal.h"
#include "util/grow.h"

/* "<dir of path>/<name>" into out. */
static int beside(const char *path, const char *name, char *out, size_t cap) {
    const char *slash = strrchr(path, '/');
    int n = slash ? snprintf(out, cap, "%.*s/%s", (int)(slash - path), path, name) : snprintf(out, cap, "%s", name);
    return n >= 0 && (size_t)n < cap ? 0 : -1;
}

/* Calls fn for every "<pid> <name>" line of path's manifest; -1 when none. */
static int each_listed(const char *path, int (*fn)(void *, const char *, uint64_t), void *ctx) {
    char man[MH_RUN_OUTPUT_MAX + 8];
    snprintf(man, sizeof man, "%s.procs", path);
    FILE *f = fopen(man, "r");
    if (!f) return -1;
    char line[1200];
    int rc = 0;
    while (!rc && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *sp = strchr(line, ' ');
        if (!sp || !sp[1] || strchr(sp + 1, '/')) continue; /* not a line a collector writes */
        char full[MH_RUN_OUTPUT_MAX];
        if (beside(path, sp + 1, full, sizeof full) != 0) continue;
        rc = fn(ctx, full, strtoull(line, NULL, 10));
    }
    fclose(f);
    return rc;
}

static int remove_one(void *ctx, const char *file, uint64_t pid) {
    (void)ctx;
    (void)pid;
    remove(file);
    return 0;
}

int mh_run_outputs_reset(const char *path, mh_err *err) {
    each_listed(path, remove_one, NULL);
    char man[MH_RUN_OUTPUT_MAX + 8];
    snprintf(man, sizeof man, "%s.procs", path);
    if (unlink(man) != 0 && errno != ENOENT)
        return mh_err_set(err, MH_ERR_IO, "cannot remove %s: %s", man, strerror(errno));
    if (unlink(path) != 0 && errno != ENOENT)
        return mh_err_set(err, MH_ERR_IO, "cannot replace %s: %s", path, strerror(errno));
    return MH_OK;
}

typedef struct list_ctx {
    mh_run_outputs *out;
    int nomem;
} list_ctx;

static int add_one(void *vctx, const char *file, uint64_t pid) {
    list_ctx *c = vctx;
    mh_run_outputs *o = c->out;
    struct stat st;
    if (stat(file, &st) != 0) return 0; /* claimed and then removed: nothing to read */
    if (st.st_size == 0) {
        o->empty++; /* claimed, never written: the process ended first */
        return 0;
    }
    mh_run_output *v = mh_grow(o->v, &o->cap, o->n + 1, sizeof *v, 4);
    if (!v) {
        c->nomem = 1;
        return 1;
    }
    o->v = v;
    snprintf(v[o->n].path, sizeof v[o->n].path, "%s", file);
    v[o->n].pid = pid;
    o->n++;
    return 0;
}

int mh_run_outputs_list(const char *path, mh_run_outputs *out, mh_err *err) {
    memset(out, 0, sizeof *out);
    list_ctx c = {out, 0};
    if (each_listed(path, add_one, &c) < 0) add_one(&c, path, 0);
    if (c.nomem) {
        mh_run_outputs_free(out);
        return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    }
    return MH_OK;
}

void mh_run_outputs_free(mh_run_outputs *o) {
    free(o->v);
    memset(o, 0, sizeof *o);
}

void mh_run_outputs_remove(const char *path) {
    char man[MH_RUN_OUTPUT_MAX + 8];
    snprintf(man, sizeof man, "%s.procs", path);
    unlink(man);
}

int mh_run_outputs_any(const char *path) {
    mh_run_outputs o;
    if (mh_run_outputs_list(path, &o, NULL) != MH_OK) return 0;
    int any = o.n > 0;
    mh_run_outputs_free(&o);
    return any;
}

mh_db_import_proc *mh_run_pair_procs(const mh_run_outputs *traces, const mh_db_timing_in *first, uint64_t first_pid,
                                     const mh_run_outputs *extra, size_t *n) {
    size_t nt = (first ? 1 : 0) + extra->n, cap = traces->n + nt;
    mh_db_import_proc *p = calloc(cap ? cap : 1, sizeof *p);
    char *used = calloc(nt + 1, 1);
    if (!p || !used) {
        free(p);
        free(used);
        return NULL;
    }
    /* timing k: 0 = first (loaded), then extra[k - 1] when first is given */
    #define T_PID(k) (first ? ((k) == 0 ? first_pid : extra->v[(k) - 1].pid) : extra->v[k].pid)
    size_t m = 0;
    for (size_t i = 0; i < traces->n; i++) {
        p[m].trace_path = traces->v[i].path;
        p[m].pid = traces->v[i].pid;
        m++;
    }
    /* one process wrote both (one-pass run): the same pid */
    for (size_t i = 0; i < m; i++)
        for (size_t k = 0; k < nt && p[i].pid; k++)
            if (!used[k] && T_PID(k) == p[i].pid) {
                used[k] = 1;
                if (first && k == 0) p[i].timing = first;
                else p[i].timing_path = extra->v[first ? k - 1 : k].path;
                break;
            }
    /* separate passes: other processes, paired in the order they started */
    size_t k = 0;
    for (size_t i = 0; i < m; i++) {
        if (p[i].timing || p[i].timing_path) continue;
        while (k < nt && used[k]) k++;
        if (k == nt) break;
        used[k] = 1;
        if (first && k == 0) p[i].timing = first;
        else p[i].timing_path = extra->v[first ? k - 1 : k].path;
    }
    for (k = 0; k < nt; k++) /* timed processes without a trace */
        if (!used[k]) {
            p[m].pid = T_PID(k);
            if (first && k == 0) p[m].timing = first;
            else p[m].timing_path = extra->v[first ? k - 1 : k].path;
            m++;
        }
    #undef T_PID
    free(used);
    *n = m;
    return p;
}
