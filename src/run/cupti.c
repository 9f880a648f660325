/* cupti.c -- the timing back end: libmemheat_cupti.so (CUPTI), how a pass
 * of it is prepared and checked (timed.c does the rest).
 *
 * Passes: MH_RUN_TIMING, the program alone under the library (CUPTI Activity
 * API: GPU timestamps of every kernel, memcpy and memset, nothing replayed);
 * MH_RUN_COUNTERS, range profiling of every launch (serializes kernels, so
 * it never shares a run with the clean timing); MH_RUN_TIMING_COUNTERS, the
 * timing run that also profiles the first launch of each configuration (the
 * default's: one run fewer; the profiled launches are a configuration's
 * first, the rest run unprofiled); MH_RUN_JOINED, the
 * library loaded by the CUDA tracer in the traced run (MEMHEAT_TIMING_LIB).
 * */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run_internal.h"

#define MH_CUPTI_LIB "libmemheat_cupti.so"

void mh_run_join_argv(char *const *argv, char *out, size_t cap) {
    size_t n = 0;
    out[0] = '\0';
    for (size_t i = 0; argv && argv[i] && n + 1 < cap; i++) {
        int w = snprintf(out + n, cap - n, "%s%s", i ? " " : "", argv[i]);
        if (w < 0) break;
        n += (size_t)w;
    }
    if (n >= cap) out[cap - 1] = '\0';
}

static int find_lib(const mh_run_opts *o, char *lib, size_t cap, mh_err *err) {
    const char *env_lib = getenv("MEMHEAT_CUPTI_LIB");
    if (env_lib && *env_lib) {
        snprintf(lib, cap, "%s", env_lib);
        if (access(lib, R_OK) != 0) return mh_err_set(err, MH_ERR_DEP, "MEMHEAT_CUPTI_LIB=%s: no such file", lib);
        return MH_OK;
    }
    if (mh_run_find_file(o, MH_CUPTI_LIB, lib, cap, NULL) != MH_OK)
        return mh_err_set(err, MH_ERR_DEP,
                          "the timing collector (" MH_CUPTI_LIB ") is not installed beside memheat: it is built only "
                          "where the CUDA toolkit and CUPTI are present");
    return MH_OK;
}

int mh_run_cupti_prepare(const mh_run_opts *o, int pass, const char *out, mh_run_cmd *cmd, mh_err *err) {
    char lib[1024], command[1024];
    int rc = find_lib(o, lib, sizeof lib, err);
    if (rc) return rc;
    if (!out || !out[0]) return mh_err_set(err, MH_ERR_ARG, "no path for the timing results");
    if ((rc = mh_run_outputs_reset(out, err)) != MH_OK) return rc;
    mh_run_join_argv(o->argv, command, sizeof command);
    const char *mode = pass == MH_RUN_COUNTERS ? "counters" : "timing";
    if (pass == MH_RUN_JOINED) {
        rc = mh_run_cmd_env(cmd, "MEMHEAT_TIMING_LIB", lib, err);
    } else if (pass == MH_RUN_TIMING || pass == MH_RUN_COUNTERS || pass == MH_RUN_TIMING_COUNTERS) {
        rc = mh_run_cmd_env(cmd, "CUDA_INJECTION64_PATH", lib, err);
        if (rc == MH_OK) rc = mh_run_cmd_args(cmd, o->argv, err);
        if (rc == MH_OK && pass == MH_RUN_TIMING_COUNTERS) rc = mh_run_cmd_env(cmd, "MEMHEAT_TIMING_COUNTERS", "config", err);
        /* the counters run profiles every launch (one pass each, as it
         * runs); MEMHEAT_COUNTERS_SAMPLE=config in memheat's environment,
         * inherited, profiles the first launch of each configuration only */
    } else {
        return mh_err_set(err, MH_ERR_INTERNAL, "the timing collector has no pass %d", pass);
    }
    char abs[2200], cwd[1024]; /* absolute: children that change directory write beside the others */
    if (out[0] != '/' && getcwd(cwd, sizeof cwd) && (size_t)snprintf(abs, sizeof abs, "%s/%s", cwd, out) < sizeof abs)
        out = abs;
    if (rc == MH_OK) rc = mh_run_cmd_env(cmd, "MEMHEAT_TIMING_OUT", out, err);
    if (rc == MH_OK) rc = mh_run_cmd_env(cmd, "MEMHEAT_TIMING_MODE", mode, err);
    if (rc == MH_OK) rc = mh_run_cmd_env(cmd, "MEMHEAT_COMMAND", command, err);
    return rc;
}

int mh_run_cupti_check(const mh_run_opts *o, int pass, const char *out, int status, mh_err *err) {
    int have = mh_run_outputs_any(out);
    if (pass == MH_RUN_COUNTERS) /* the caller records a failing program as "partial" */
        return have ? MH_OK : mh_err_set(err, MH_ERR_EMPTY, "the counters pass wrote nothing (status %d)", status);
    if (status != 0)
        return mh_err_set(err, MH_ERR_CHILD, "the program %s exited with status %d under the timing pass",
                          o->argv[0], status);
    if (!have)
        return mh_err_set(err, MH_ERR_EMPTY, "%s initialized no CUDA driver, so the timing collector never loaded "
                          "(not a CUDA program, or it ran no CUDA work)", o->argv[0]);
    return MH_OK;
}
