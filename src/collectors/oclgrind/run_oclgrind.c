/* run_oclgrind.c -- `memheat run --backend oclgrind`: runs an OpenCL host
 * program inside Debian's Oclgrind simulator with memheat's plugin loaded
 * (oclgrind --plugins libmemheat_oclgrind.so PROGRAM ARGS). Detection of
 * OpenCL host programs for `--backend auto` is in detect_opencl.c.
 *
 * The sampling configuration reaches the plugin through MEMHEAT_* variables
 * (collect.h). The program's exit status is passed back unchanged; whatever
 * the plugin wrote is kept when the program fails. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "memheat/run.h"
#include "ocl_path.h"

#define MH_OCL_PLUGIN_FILE "libmemheat_oclgrind.so"

int mh_run_oclgrind(const mh_run_opts *o, mh_run_result *res, mh_err *err) {
    memset(res, 0, sizeof *res);
    if (!o->argv || !o->argv[0]) return mh_err_set(err, MH_ERR_ARG, "no program to run");
    char oclgrind[PATH_MAX], plugin[PATH_MAX];
    const char *tool = getenv("MEMHEAT_OCLGRIND");
    if (!mh_ocl_which(tool && *tool ? tool : "oclgrind", oclgrind, sizeof oclgrind))
        return mh_err_set(err, MH_ERR_DEP,
                          "the Oclgrind simulator ('oclgrind') was not found: install Debian package oclgrind "
                          "(scripts/install-deps.sh)");
    if (mh_run_find_file(o, MH_OCL_PLUGIN_FILE, plugin, sizeof plugin, err) != MH_OK)
        return mh_err_wrap(err, "memheat's Oclgrind plugin");
    char prog[PATH_MAX];
    if (!mh_ocl_which(o->argv[0], prog, sizeof prog))
        return mh_err_set(err, MH_ERR_ARG, "program '%s' not found or not executable", o->argv[0]);

    /* a stale trace from an earlier run must not pass for this run's */
    if (unlink(o->collect.trace_path) != 0 && errno != ENOENT)
        return mh_err_set(err, MH_ERR_IO, "cannot replace %s: %s", o->collect.trace_path, strerror(errno));
    if (mh_collect_cfg_to_env(&o->collect, err) != MH_OK) return err ? err->code : MH_ERR_INTERNAL;

    size_t n = 0;
    while (o->argv[n]) n++;
    char **argv = calloc(n + 4, sizeof *argv);
    if (!argv) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    argv[0] = oclgrind;
    argv[1] = "--plugins";
    argv[2] = plugin;
    for (size_t i = 0; i < n; i++) argv[3 + i] = o->argv[i];
    argv[3 + n] = NULL;
    int status = 0;
    int rc = mh_run_spawn(argv, NULL, &status, err);
    free(argv);
    if (rc != MH_OK) return rc;

    struct stat st;
    res->exit_status = status;
    res->traced = stat(o->collect.trace_path, &st) == 0 && st.st_size > 0;
    if (status != 0)
        return mh_err_set(err, MH_ERR_CHILD, "'%s' exited with status %d under Oclgrind%s", o->argv[0], status,
                          res->traced ? "; the trace keeps what was collected" : "");
    if (!res->traced)
        return mh_err_set(err, MH_ERR_DEP,
                          "no trace was written: '%s' created no OpenCL context (is it an OpenCL host program?) "
                          "or Oclgrind could not load %s",
                          o->argv[0], plugin);
    return MH_OK;
}
