/* timed.c -- what the run layer does with the timing file of a run.
 *
 * The same on every path (mh_run_timed_finish): counters
 * joined onto the timeline, the measured peak from `memheat calibrate
 * --bandwidth` looked up by device name, ONE bandwidth analysis, and one JSON
 * file left at opts->timing_path (docs/timing.md), kept in memory for the
 * table and the profile. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run_internal.h"
#include "util/grow.h"

void mh_run_timed_init(mh_run_timed *tm) {
    memset(tm, 0, sizeof *tm);
    mh_timing_init(&tm->t);
}

void mh_run_timed_free(mh_run_timed *tm) {
    mh_run_outputs_free(&tm->extra);
    mh_timing_free(&tm->t);
    if (tm->analyzed) mh_bw_report_free(&tm->rep);
    free(tm->json);
    mh_run_timed_init(tm);
}

int mh_run_timed_load(mh_run_timed *tm, const char *path, mh_err *err) {
    mh_run_timed_free(tm);
    int rc = mh_timing_load(&tm->t, path, err);
    tm->loaded = rc == MH_OK;
    return rc;
}

int mh_run_timed_load_all(const mh_run_opts *o, mh_run_timed *tm, const char *path, mh_err *err) {
    mh_run_outputs outs;
    int rc = mh_run_outputs_list(path, &outs, err);
    if (rc) return rc;
    if (outs.n == 0) {
        mh_run_outputs_free(&outs);
        return mh_err_set(err, MH_ERR_EMPTY, "no timing file appeared (%s)", path);
    }
    rc = mh_run_timed_load(tm, outs.v[0].path, err);
    tm->pid = outs.v[0].pid;
    if (rc == MH_OK && strcmp(outs.v[0].path, path) != 0 && strcmp(outs.v[0].path, o->timing_path) != 0)
        remove(outs.v[0].path);
    /* the other processes' files, under names of their own beside the run's */
    size_t stem = strlen(o->timing_path);
    if (stem > 5 && !strcmp(o->timing_path + stem - 5, ".json")) stem -= 5;
    for (size_t i = 1; i < outs.n && rc == MH_OK; i++) {
        mh_run_output *x = &outs.v[i];
        char dst[MH_RUN_OUTPUT_MAX];
        snprintf(dst, sizeof dst, "%.*s.%llu.json", (int)stem, o->timing_path, (unsigned long long)x->pid);
        if (strcmp(dst, x->path) != 0 && rename(x->path, dst) != 0) continue;
        snprintf(x->path, sizeof x->path, "%s", dst);
        mh_run_output *v = mh_grow(tm->extra.v, &tm->extra.cap, tm->extra.n + 1, sizeof *v, 4);
        if (!v) {
            rc = mh_err_set(err, MH_ERR_NOMEM, "out of memory");
            break;
        }
        tm->extra.v = v;
        v[tm->extra.n++] = *x;
    }
    mh_run_outputs_free(&outs);
    mh_run_outputs_remove(path);
    return rc;
}

/* "<timing_path><suffix>", malloc'd. */
static char *part_path(const mh_run_opts *o, const char *suffix) {
    size_t n = strlen(o->timing_path) + strlen(suffix) + 1;
    char *p = malloc(n);
    if (p) snprintf(p, n, "%s%s", o->timing_path, suffix);
    return p;
}

void mh_run_timed_counters(const mh_run_opts *o, const mh_run_backend *timer, mh_run_timed *tm) {
    mh_timing *t = &tm->t;
    mh_timing c;
    mh_timing_init(&c);
    mh_err e2 = {0};
    int status = 0;
    uint64_t wall = 0;
    char *part = part_path(o, ".counters.part");
    int r2 = part ? mh_run_pass(o, timer, MH_RUN_COUNTERS, part, NULL, NULL, &status, &wall, &e2)
                  : mh_err_set(&e2, MH_ERR_NOMEM, "out of memory");
    if (r2 == MH_OK) r2 = mh_timing_load(&c, part, &e2);
    if (r2 == MH_OK) {
        r2 = mh_timing_merge_counters(t, &c, &e2);
        /* traced launches left with their instrumented time take the replay's */
        size_t replayed = r2 == MH_OK ? mh_timing_replay_times(t) : 0;
        if (replayed && !o->quiet)
            fprintf(stderr, "memheat: %zu instrumented launch%s timed by the counters run's kernel replay instead "
                    "(marked \"replayed\")\n", replayed, replayed == 1 ? "" : "es");
        if (r2 == MH_OK && status != 0 && strcmp(t->counters.status, "ok") == 0) {
            snprintf(t->counters.status, sizeof t->counters.status, "partial");
            snprintf(t->counters.message, sizeof t->counters.message,
                     "the program exited with status %d under the counters pass", status);
        }
    }
    if (r2 != MH_OK) {
        t->counters.requested = 1;
        snprintf(t->counters.status, sizeof t->counters.status, "failed");
        snprintf(t->counters.message, sizeof t->counters.message, "%s", e2.msg);
    }
    t->counters_run = (mh_timing_run){.ran = wall > 0, .exit_status = status, .wall_ns = wall};
    /* counters of the first process only; the other processes' files go too */
    if (part) mh_run_outputs_reset(part, NULL);
    free(part);
    mh_timing_free(&c);
}

int mh_run_timed_finish(const mh_run_opts *o, mh_run_timed *tm, mh_err *err) {
    mh_timing *t = &tm->t;
    if (t->ndevices > 0) {
        char cal[1024];
        double bps = 0;
        if (mh_bw_calib_default_path(cal, sizeof cal, NULL) == MH_OK &&
            mh_bw_calib_lookup(cal, t->devices[0].name, &bps, NULL) == MH_OK && bps > 0)
            t->measured_peak_Bps = bps;
    }
    json_t *analysis = NULL;
    if (!tm->analyzed && mh_bw_analyze(t, 0.0, &tm->rep, NULL) == MH_OK) tm->analyzed = 1;
    if (tm->analyzed) analysis = mh_bw_report_json(&tm->rep);
    free(tm->json);
    tm->json = NULL;
    int rc = mh_timing_save_text(t, analysis, o->timing_path, &tm->json, err);
    json_decref(analysis);
    return rc;
}

/* The timing pass in its own process: tm loaded from its file. MH_ERR_CHILD
 * when the program failed (tm still loaded if the collector wrote anything). */
int mh_run_timed_pass(const mh_run_opts *o, const mh_run_backend *timer, int pass, mh_run_timed *tm, int *status,
                      mh_err *err) {
    uint64_t wall = 0;
    char *part = part_path(o, ".timing.part");
    if (!part) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    int rc = mh_run_pass(o, timer, pass, part, NULL, NULL, status, &wall, err);
    if (rc == MH_OK || rc == MH_ERR_CHILD) {
        mh_err lerr = {0};
        if (mh_run_timed_load_all(o, tm, part, &lerr) != MH_OK) {
            if (*status != 0)
                rc = mh_err_set(err, MH_ERR_CHILD, "the program %s exited with status %d before the timing "
                                "collector wrote anything", o->argv[0], *status);
            else
                rc = mh_err_set(err, lerr.code, "timing pass: %s", lerr.msg);
        } else {
            tm->t.timing_run = (mh_timing_run){.ran = 1, .exit_status = *status, .wall_ns = wall};
            mh_run_join_argv(o->argv, tm->t.command, sizeof tm->t.command);
            if (*status != 0)
                rc = mh_err_set(err, MH_ERR_CHILD, "the program %s exited with status %d under the timing pass "
                                "(results kept in %s)", o->argv[0], *status, o->timing_path);
        }
    }
    remove(part);
    free(part);
    return rc;
}

int mh_run_timing(const mh_run_opts *opts, mh_run_result *res, mh_err *err) {
    memset(res, 0, sizeof *res);
    mh_run_opts so = *opts; /* separate passes: the counters run profiles every launch */
    so.passes = MH_PASSES_SEPARATE;
    const mh_run_opts *o = &so;
    const mh_run_backend *timer = mh_run_backend_find("cupti");
    if (!o->timing_path[0]) return mh_err_set(err, MH_ERR_ARG, "no path for the timing results");
    mh_run_timed tm;
    mh_run_timed_init(&tm);
    int rc = mh_run_timed_pass(o, timer, MH_RUN_TIMING, &tm, &res->exit_status, err);
    if (tm.loaded) {
        if (o->counters != 0 && res->exit_status == 0) mh_run_timed_counters(o, timer, &tm);
        mh_err ferr = {0};
        int frc = mh_run_timed_finish(o, &tm, &ferr);
        if (frc == MH_OK) res->timed = 1;
        else if (rc == MH_OK) rc = mh_err_set(err, frc, "%s", ferr.msg);
    }
    mh_run_timed_free(&tm);
    return rc;
}
