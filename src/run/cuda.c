/* cuda.c -- the CUDA back end: the program runs with the Compute Sanitizer
 * collector injected (libmemheat_cuda.so through CUDA_INJECTION64_PATH); its
 * device patch, memheat_cuda_patch.fatbin, lies beside it. Needs no
 * Sanitizer headers, so it is built everywhere and gives a clear error where
 * the collector was not built. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run_internal.h"

static int file_exists(const char *path) {
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* Any program may be a CUDA program: the CUDA back end is auto's last resort. */
int mh_run_cuda_detect(const char *program) {
    (void)program;
    return 1;
}

int mh_run_cuda_prepare(const mh_run_opts *o, int pass, const char *out, mh_run_cmd *cmd, mh_err *err) {
    if (pass != MH_RUN_TRACE) return mh_err_set(err, MH_ERR_INTERNAL, "the CUDA tracer has no pass %d", pass);
    char lib[1024], patch[1100];
    const char *env_lib = getenv("MEMHEAT_CUDA_LIB");
    if (env_lib && *env_lib) {
        snprintf(lib, sizeof lib, "%s", env_lib);
        if (!file_exists(lib)) return mh_err_set(err, MH_ERR_DEP, "MEMHEAT_CUDA_LIB=%s: no such file", lib);
    } else if (mh_run_find_file(o, "libmemheat_cuda.so", lib, sizeof lib, NULL) != MH_OK) {
        return mh_err_set(err, MH_ERR_DEP,
                          "the CUDA collector (libmemheat_cuda.so) is not installed beside memheat: it is built only "
                          "where the CUDA toolkit and the Compute Sanitizer API headers are present");
    }
    const char *slash = strrchr(lib, '/');
    snprintf(patch, sizeof patch, "%.*s/memheat_cuda_patch.fatbin", slash ? (int)(slash - lib) : 1,
             slash ? lib : ".");
    if (!file_exists(patch))
        return mh_err_set(err, MH_ERR_DEP, "the CUDA collector's device patch %s is missing", patch);
    if (!out || !out[0]) return mh_err_set(err, MH_ERR_ARG, "no trace path given (-o/--output)");
    int rc = mh_run_outputs_reset(out, err); /* stale files of an earlier run must not pass for this one's */
    if (rc == MH_OK) rc = mh_collect_cfg_to_env(&o->collect, err);
    if (rc == MH_OK) rc = mh_run_cmd_env(cmd, "CUDA_INJECTION64_PATH", lib, err);
    /* NVTX ranges open at each launch (call sites): the collector serves NVTX's injection,
     * unless another tool's is set already */
    const char *nv = getenv("NVTX_INJECTION64_PATH");
    if (rc == MH_OK && !(nv && *nv)) rc = mh_run_cmd_env(cmd, "NVTX_INJECTION64_PATH", lib, err);
    if (rc == MH_OK) rc = mh_run_cmd_args(cmd, o->argv, err);
    return rc;
}

int mh_run_cuda_check(const mh_run_opts *o, int pass, const char *out, int status, mh_err *err) {
    (void)pass;
    int traced = mh_run_outputs_any(out);
    if (status != 0)
        return mh_err_set(err, MH_ERR_CHILD, "the profiled program %s exited with status %d%s", o->argv[0], status,
                          traced ? "; the trace keeps what was collected before" : "; no trace was written");
    if (!traced)
        return mh_err_set(err, MH_ERR_CUDA,
                          "%s ran but no trace was written: it created no CUDA context, or the collector failed "
                          "to start (see its memheat-cuda: messages above)", o->argv[0]);
    return MH_OK;
}
