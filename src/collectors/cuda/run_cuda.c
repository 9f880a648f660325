/* run_cuda.c -- `memheat run --backend cuda`: runs the user's program with the
 * CUDA collector injected (see include/memheat/run.h).
 *
 * The collector is libmemheat_cuda.so, loaded by the CUDA driver through
 * CUDA_INJECTION64_PATH; its device patch, memheat_cuda_patch.fatbin, lies
 * beside it. This file needs no Sanitizer headers, so it is built everywhere
 * and gives a clear error where the collector was not built. */
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "memheat/run.h"

static int mh_cuda_file_exists(const char *path) {
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

int mh_run_cuda(const mh_run_opts *o, mh_run_result *res, mh_err *err) {
    char lib[1024], patch[1100];
    memset(res, 0, sizeof *res);
    if (!o->argv || !o->argv[0]) return mh_err_set(err, MH_ERR_ARG, "no program to run (memheat run [options] -- PROGRAM ARGS)");

    const char *env_lib = getenv("MEMHEAT_CUDA_LIB");
    if (env_lib && *env_lib) {
        snprintf(lib, sizeof lib, "%s", env_lib);
        if (!mh_cuda_file_exists(lib))
            return mh_err_set(err, MH_ERR_DEP, "MEMHEAT_CUDA_LIB=%s: no such file", lib);
    } else if (mh_run_find_file(o, "libmemheat_cuda.so", lib, sizeof lib, NULL) != MH_OK) {
        return mh_err_set(err, MH_ERR_DEP,
                          "the CUDA collector (libmemheat_cuda.so) is not installed beside memheat: it is built only "
                          "where the CUDA toolkit and the Compute Sanitizer API headers are present");
    }
    const char *slash = strrchr(lib, '/');
    snprintf(patch, sizeof patch, "%.*s/memheat_cuda_patch.fatbin", slash ? (int)(slash - lib) : 1,
             slash ? lib : ".");
    if (!mh_cuda_file_exists(patch))
        return mh_err_set(err, MH_ERR_DEP, "the CUDA collector's device patch %s is missing", patch);

    const char *trace = o->collect.trace_path;
    if (!trace[0]) return mh_err_set(err, MH_ERR_ARG, "no trace path given (-o/--output)");
    if (unlink(trace) != 0 && errno != ENOENT)
        return mh_err_set(err, MH_ERR_IO, "cannot replace %s: %s", trace, strerror(errno));
    if (mh_collect_cfg_to_env(&o->collect, err) != MH_OK) return err ? err->code : MH_ERR_INTERNAL;

    char inj[1100];
    snprintf(inj, sizeof inj, "CUDA_INJECTION64_PATH=%s", lib);
    char *extra[] = {inj, NULL};
    int status = 0;
    int rc = mh_run_spawn(o->argv, extra, &status, err);
    if (rc != MH_OK) return rc;
    res->exit_status = status;

    struct stat sb;
    res->traced = stat(trace, &sb) == 0 && sb.st_size > 0;
    if (status != 0)
        return mh_err_set(err, MH_ERR_CHILD, "the profiled program %s exited with status %d%s", o->argv[0],
                          status, res->traced ? "; the trace keeps what was collected before" : "; no trace was written");
    if (!res->traced)
        return mh_err_set(err, MH_ERR_CUDA,
                          "%s ran but no trace was written: it created no CUDA context, or the collector failed "
                          "to start (see its memheat-cuda: messages above)", o->argv[0]);
    return MH_OK;
}
