/* backends.c -- THE table of back ends of `memheat run`, and the one way a
 * pass of any of them is run: build the command (the back end's prepare, plus
 * a timer riding in the same process), spawn it, check what it left.
 *
 * Adding a back end is one entry here plus its folder under src/collectors/
 * (what runs in the profiled process) and its file here in src/run/ (detect,
 * prepare, check). docs/ARCHITECTURE.md, "How to add a collector". */
#include <string.h>

#include "run_internal.h"
#include "util/clock.h"

const mh_run_backend mh_run_backends[] = {
    /* tracers, in the order auto detection tries them */
    {"oclgrind", "opencl", MH_RUN_TRACER, "OpenCL under the Oclgrind simulator (libmemheat_oclgrind.so)",
     mh_run_is_opencl_host, mh_run_ocl_prepare, mh_run_ocl_check},
    {"cuda", "cuda", MH_RUN_TRACER, "CUDA, Compute Sanitizer collector (libmemheat_cuda.so)",
     mh_run_cuda_detect, mh_run_cuda_prepare, mh_run_cuda_check},
    /* timers */
    {"cupti", "cuda", MH_RUN_TIMER, "CUDA timing and counters, CUPTI collector (libmemheat_cupti.so)",
     NULL, mh_run_cupti_prepare, mh_run_cupti_check},
    {NULL, NULL, 0, NULL, NULL, NULL, NULL}};

const mh_run_backend *mh_run_backend_find(const char *name) {
    for (const mh_run_backend *b = mh_run_backends; name && b->name; b++)
        if (strcmp(b->name, name) == 0) return b;
    return NULL;
}

const mh_run_backend *mh_run_backend_pick(const char *name, const char *program, mh_err *err) {
    if (name && *name && strcmp(name, "auto") != 0) {
        const mh_run_backend *b = mh_run_backend_find(name);
        if (b && b->role == MH_RUN_TRACER) return b;
        char names[256] = "auto";
        for (b = mh_run_backends; b->name; b++)
            if (b->role == MH_RUN_TRACER && strlen(names) + strlen(b->name) + 3 < sizeof names)
                strcat(strcat(names, ", "), b->name);
        mh_err_set(err, MH_ERR_ARG, "unknown --backend '%s' (%s)", name, names);
        return NULL;
    }
    for (const mh_run_backend *b = mh_run_backends; b->name; b++)
        if (b->role == MH_RUN_TRACER && b->detect && b->detect(program)) return b;
    mh_err_set(err, MH_ERR_ARG, "no back end serves '%s'; choose one with --backend", program);
    return NULL;
}

const mh_run_backend *mh_run_backend_timer(const mh_run_backend *tracer) {
    for (const mh_run_backend *b = mh_run_backends; tracer && b->name; b++)
        if (b->role == MH_RUN_TIMER && strcmp(b->platform, tracer->platform) == 0) return b;
    return NULL;
}

int mh_run_build(const mh_run_opts *o, const mh_run_backend *b, int pass, const char *out,
                 const mh_run_backend *joined, const char *joined_out, mh_run_cmd *cmd, mh_err *err) {
    if (!o->argv || !o->argv[0])
        return mh_err_set(err, MH_ERR_ARG, "no program to run (memheat run [options] -- PROGRAM ARGS)");
    int rc = b->prepare(o, pass, out, cmd, err);
    if (rc == MH_OK && joined) rc = joined->prepare(o, MH_RUN_JOINED, joined_out, cmd, err);
    return rc;
}


int mh_run_pass(const mh_run_opts *o, const mh_run_backend *b, int pass, const char *out,
                const mh_run_backend *joined, const char *joined_out, int *status, uint64_t *wall_ns, mh_err *err) {
    mh_run_cmd cmd;
    mh_run_cmd_init(&cmd);
    *status = 0;
    *wall_ns = 0;
    int rc = mh_run_build(o, b, pass, out, joined, joined_out, &cmd, err);
    if (rc == MH_OK) {
        uint64_t t0 = mh_clock_ns();
        rc = mh_run_spawn(cmd.argv, cmd.env, status, err);
        *wall_ns = mh_clock_ns() - t0;
    }
    mh_run_cmd_free(&cmd);
    if (rc != MH_OK) return rc;
    return b->check(o, pass, out, *status, err);
}
