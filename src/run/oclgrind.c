/* oclgrind.c -- the OpenCL back end: an OpenCL host program runs inside
 * Debian's Oclgrind simulator with memheat's plugin loaded (oclgrind
 * --plugins libmemheat_oclgrind.so PROGRAM ARGS). Detection of OpenCL host
 * programs for `--backend auto` is in detect_opencl.c.
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

#include "run_internal.h"

#define MH_OCL_PLUGIN_FILE "libmemheat_oclgrind.so"

int mh_run_ocl_prepare(const mh_run_opts *o, int pass, const char *out, mh_run_cmd *cmd, mh_err *err) {
    if (pass != MH_RUN_TRACE) return mh_err_set(err, MH_ERR_INTERNAL, "the Oclgrind tracer has no pass %d", pass);
    char oclgrind[PATH_MAX], plugin[PATH_MAX], prog[PATH_MAX];
    const char *tool = getenv("MEMHEAT_OCLGRIND");
    if (!mh_run_which(tool && *tool ? tool : "oclgrind", oclgrind, sizeof oclgrind))
        return mh_err_set(err, MH_ERR_DEP,
                          "the Oclgrind simulator ('oclgrind') was not found: install Debian package oclgrind "
                          "(scripts/install-deps.sh)");
    mh_err ferr = {0};
    if (mh_run_find_file(o, MH_OCL_PLUGIN_FILE, plugin, sizeof plugin, &ferr) != MH_OK)
        return mh_err_set(err, ferr.code, "memheat's Oclgrind plugin: %s", ferr.msg);
    if (!mh_run_which(o->argv[0], prog, sizeof prog))
        return mh_err_set(err, MH_ERR_ARG, "program '%s' not found or not executable", o->argv[0]);
    /* stale traces of an earlier run must not pass for this run's */
    int rc = mh_run_outputs_reset(out, err);
    if (rc == MH_OK) rc = mh_collect_cfg_to_env(&o->collect, err);
    if (rc == MH_OK) rc = mh_run_cmd_arg(cmd, oclgrind, err);
    /* NVTX ranges open at each launch (call sites): the collector serves NVTX's injection,
     * unless another tool's is set already */
    const char *nv = getenv("NVTX_INJECTION64_PATH");
    if (rc == MH_OK && !(nv && *nv)) rc = mh_run_cmd_env(cmd, "NVTX_INJECTION64_PATH", plugin, err);
    if (rc == MH_OK) rc = mh_run_cmd_arg(cmd, "--plugins", err);
    if (rc == MH_OK) rc = mh_run_cmd_arg(cmd, plugin, err);
    if (rc == MH_OK) rc = mh_run_cmd_args(cmd, o->argv, err);
    return rc;
}

int mh_run_ocl_check(const mh_run_opts *o, int pass, const char *out, int status, mh_err *err) {
    (void)pass;
    int traced = mh_run_outputs_any(out);
    if (status != 0)
        return mh_err_set(err, MH_ERR_CHILD, "'%s' exited with status %d under Oclgrind%s", o->argv[0], status,
                          traced ? "; the trace keeps what was collected" : "");
    if (!traced)
        return mh_err_set(err, MH_ERR_DEP,
                          "no trace was written: '%s' created no OpenCL context (is it an OpenCL host program?) "
                          "or Oclgrind could not load " MH_OCL_PLUGIN_FILE, o->argv[0]);
    return MH_OK;
}
