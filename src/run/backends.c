/* backends.c -- THE table of back ends of `memheat run` and how one is
 * picked (run_pass.c runs a pass of one).
 *
 * Adding a back end is one entry here plus its folder under src/collectors/
 * (what runs in the profiled process) and its file here in src/run/ (detect,
 * prepare, check). docs/ARCHITECTURE.md, "How to add a collector". */
#include <string.h>

#include "run_internal.h"

const mh_run_backend mh_run_backends[] = {
    /* tracers, in the order auto detection tries them */
    {"oclgrind", "opencl", MH_RUN_TRACER, "OpenCL under the Oclgrind simulator (libmemheat_oclgrind.so)",
     mh_run_is_opencl_host, mh_run_ocl_prepare, mh_run_ocl_check, 0},
    {"cuda", "cuda", MH_RUN_TRACER, "CUDA, Compute Sanitizer collector (libmemheat_cuda.so)",
     mh_run_cuda_detect, mh_run_cuda_prepare, mh_run_cuda_check, 1},
    /* timers */
    {"cupti", "cuda", MH_RUN_TIMER, "CUDA timing and counters, CUPTI collector (libmemheat_cupti.so)",
     NULL, mh_run_cupti_prepare, mh_run_cupti_check, 0},
    {NULL, NULL, 0, NULL, NULL, NULL, NULL, 0}};

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
