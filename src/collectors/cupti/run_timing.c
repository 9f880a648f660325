/* run_timing.c -- `memheat run`'s timing pass (see include/memheat/run.h).
 *
 * Runs the program once with libmemheat_cupti.so in "timing" mode (CUPTI
 * Activity API only: GPU timestamps of every kernel, memcpy and memset, nothing
 * replayed), then, when counters are asked for, once more in "counters" mode
 * (range profiling with kernel replay, which serializes and slows kernels, so
 * it never shares a run with the clean timing). The counters are joined to the
 * timeline by launch order, the measured peak from `memheat calibrate
 * --bandwidth` is looked up by device name, the analysis of bandwidth.h is
 * added, and one JSON file is left at opts->timing_path (docs/timing.md).
 * Built everywhere: it only spawns; without the library it fails cleanly. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "memheat/bandwidth.h"
#include "memheat/run.h"
#include "memheat/timing.h"

#define MH_CUPTI_LIB "libmemheat_cupti.so"

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The program's command line, for the record (truncated to cap). */
static void join_argv(char *const *argv, char *out, size_t cap) {
    size_t n = 0;
    out[0] = '\0';
    for (size_t i = 0; argv[i] && n + 1 < cap; i++) {
        int w = snprintf(out + n, cap - n, "%s%s", i ? " " : "", argv[i]);
        if (w < 0) break;
        n += (size_t)w;
    }
    if (n >= cap) out[cap - 1] = '\0';
}

/* One run of the program under the library in `mode`; results at `out`. */
static int one_pass(const mh_run_opts *o, const char *lib, const char *mode, const char *out, const char *cmd,
                    mh_timing_run *run, mh_err *err) {
    if (unlink(out) != 0 && errno != ENOENT)
        return mh_err_set(err, MH_ERR_IO, "cannot replace %s: %s", out, strerror(errno));
    size_t lo = strlen(out) + 32, ll = strlen(lib) + 32, lc = strlen(cmd) + 32;
    char *e_inj = malloc(ll), *e_out = malloc(lo), *e_mode = malloc(64), *e_cmd = malloc(lc);
    if (!e_inj || !e_out || !e_mode || !e_cmd) {
        free(e_inj), free(e_out), free(e_mode), free(e_cmd);
        return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    }
    snprintf(e_inj, ll, "CUDA_INJECTION64_PATH=%s", lib);
    snprintf(e_out, lo, "MEMHEAT_TIMING_OUT=%s", out);
    snprintf(e_mode, 64, "MEMHEAT_TIMING_MODE=%s", mode);
    snprintf(e_cmd, lc, "MEMHEAT_COMMAND=%s", cmd);
    char *extra[] = {e_inj, e_out, e_mode, e_cmd, NULL};
    int status = 0;
    uint64_t t0 = now_ns();
    int rc = mh_run_spawn(o->argv, extra, &status, err);
    uint64_t t1 = now_ns();
    /* the child got its own copies of the strings; putenv in the child only */
    free(e_inj), free(e_out), free(e_mode), free(e_cmd);
    if (rc != MH_OK) return rc;
    run->ran = 1;
    run->exit_status = status;
    run->wall_ns = t1 - t0;
    return MH_OK;
}

int mh_run_timing(const mh_run_opts *o, mh_run_result *res, mh_err *err) {
    memset(res, 0, sizeof *res);
    if (!o->argv || !o->argv[0]) return mh_err_set(err, MH_ERR_ARG, "no program to run (memheat run [options] -- PROGRAM ARGS)");
    if (!o->timing_path[0]) return mh_err_set(err, MH_ERR_ARG, "no path for the timing results");
    char lib[1024];
    const char *env_lib = getenv("MEMHEAT_CUPTI_LIB");
    if (env_lib && *env_lib) {
        snprintf(lib, sizeof lib, "%s", env_lib);
        if (access(lib, R_OK) != 0) return mh_err_set(err, MH_ERR_DEP, "MEMHEAT_CUPTI_LIB=%s: no such file", lib);
    } else if (mh_run_find_file(o, MH_CUPTI_LIB, lib, sizeof lib, NULL) != MH_OK) {
        return mh_err_set(err, MH_ERR_DEP,
                          "the timing collector (" MH_CUPTI_LIB ") is not installed beside memheat: it is built only "
                          "where the CUDA toolkit and CUPTI are present");
    }
    size_t pl = strlen(o->timing_path) + 32;
    char *p_time = malloc(pl), *p_ctr = malloc(pl);
    char cmd[1024];
    if (!p_time || !p_ctr) {
        free(p_time), free(p_ctr);
        return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    }
    snprintf(p_time, pl, "%s.timing.part", o->timing_path);
    snprintf(p_ctr, pl, "%s.counters.part", o->timing_path);
    join_argv(o->argv, cmd, sizeof cmd);

    mh_timing t, c;
    mh_timing_init(&t);
    mh_timing_init(&c);
    mh_timing_run run1 = {0}, run2 = {0};
    int rc = one_pass(o, lib, "timing", p_time, cmd, &run1, err);
    if (rc != MH_OK) goto out;
    res->exit_status = run1.exit_status;
    if (access(p_time, F_OK) != 0 && run1.exit_status == 0) {
        rc = mh_err_set(err, MH_ERR_EMPTY, "%s initialized no CUDA driver, so the timing collector never loaded "
                        "(not a CUDA program, or it ran no CUDA work)", o->argv[0]);
        goto out;
    }
    rc = mh_timing_load(&t, p_time, err);
    if (rc != MH_OK) {
        if (run1.exit_status != 0)
            rc = mh_err_set(err, MH_ERR_CHILD, "the program %s exited with status %d before the timing collector "
                            "wrote anything", o->argv[0], run1.exit_status);
        else
            mh_err_wrap(err, "timing pass");
        goto out;
    }
    t.timing_run = run1;
    snprintf(t.command, sizeof t.command, "%s", cmd);

    if (o->counters && run1.exit_status == 0) {
        mh_err e2;
        mh_err_clear(&e2);
        int r2 = one_pass(o, lib, "counters", p_ctr, cmd, &run2, &e2);
        if (r2 == MH_OK) r2 = mh_timing_load(&c, p_ctr, &e2);
        if (r2 == MH_OK) {
            r2 = mh_timing_merge_counters(&t, &c, &e2);
            if (r2 == MH_OK && run2.exit_status != 0 && strcmp(t.counters.status, "ok") == 0) {
                snprintf(t.counters.status, sizeof t.counters.status, "partial");
                snprintf(t.counters.message, sizeof t.counters.message,
                         "the program exited with status %d under the counters pass", run2.exit_status);
            }
        }
        if (r2 != MH_OK) {
            t.counters.requested = 1;
            snprintf(t.counters.status, sizeof t.counters.status, "failed");
            snprintf(t.counters.message, sizeof t.counters.message, "%s", e2.msg);
        }
        t.counters_run = run2;
    }

    if (t.ndevices > 0) {
        char cal[1024];
        double bps = 0;
        if (mh_bw_calib_default_path(cal, sizeof cal, NULL) == MH_OK &&
            mh_bw_calib_lookup(cal, t.devices[0].name, &bps, NULL) == MH_OK)
            t.measured_peak_Bps = bps;
    }
    mh_bw_report rep;
    json_t *analysis = NULL;
    if (mh_bw_analyze(&t, 0.0, &rep, NULL) == MH_OK) {
        analysis = mh_bw_report_json(&rep);
        mh_bw_report_free(&rep);
    }
    rc = mh_timing_save(&t, analysis, o->timing_path, err);
    json_decref(analysis);
    if (rc != MH_OK) goto out;
    res->timed = 1;
    if (run1.exit_status != 0)
        rc = mh_err_set(err, MH_ERR_CHILD, "the program %s exited with status %d under the timing pass (results kept "
                        "in %s)", o->argv[0], run1.exit_status, o->timing_path);
out:
    remove(p_time);
    remove(p_ctr);
    free(p_time);
    free(p_ctr);
    mh_timing_free(&t);
    mh_timing_free(&c);
    return rc;
}
