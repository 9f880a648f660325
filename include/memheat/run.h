/* run.h -- `memheat run`: the contract between the CLI and each back end.
 *
 * The CLI parses options into an mh_run_opts and calls one back end's entry
 * point. A back end runs the user's program (argv) with its collector loaded,
 * and leaves the trace at opts->trace_path (and, for the timing pass, its
 * results at opts->timing_path). It returns MH_ERR_CHILD with the program's exit
 * status when the program fails, after keeping whatever was collected. */
#ifndef MEMHEAT_RUN_H
#define MEMHEAT_RUN_H

#include <stddef.h>

#include "memheat/collect.h"
#include "memheat/err.h"

enum mh_backend { MH_BACKEND_AUTO = 0, MH_BACKEND_CUDA = 1, MH_BACKEND_OCLGRIND = 2 };

typedef struct mh_run_opts {
    int backend;            /* enum mh_backend */
    mh_collect_cfg collect; /* sampling; collect.trace_path = where the trace goes */
    int trace;              /* run the traced pass (default 1) */
    int timing;             /* run the un-instrumented timing pass first (CUDA; default 1) */
    int counters;           /* collect hardware counters in the timing pass (default 1) */
    char timing_path[1024]; /* where the timing pass writes its JSON */
    char self_dir[1024];    /* directory of the memheat executable (collector libs live beside it or in ../lib/memheat) */
    int quiet;
    char *const *argv;      /* the program and its arguments */
} mh_run_opts;

typedef struct mh_run_result {
    int exit_status;   /* the program's exit status of the last pass (or 128+signal) */
    int traced;        /* 1 if a trace was written */
    int timed;         /* 1 if timing results were written */
} mh_run_result;

int mh_run_cuda(const mh_run_opts *o, mh_run_result *res, mh_err *err);
int mh_run_timing(const mh_run_opts *o, mh_run_result *res, mh_err *err);
int mh_run_oclgrind(const mh_run_opts *o, mh_run_result *res, mh_err *err);
/* 1 if program (a path or a name on PATH) is an OpenCL host (links libOpenCL). */
int mh_run_is_opencl_host(const char *program);

/* Finds a collector file (e.g. "libmemheat_cuda.so") beside the executable,
 * in ../lib/memheat, or in the build tree; fills out (cap bytes). */
int mh_run_find_file(const mh_run_opts *o, const char *file, char *out, size_t cap, mh_err *err);
/* fork/exec argv with the current environment plus extra "K=V" strings
 * (NULL-terminated); waits; fills *status with the exit status (128+sig if killed). */
int mh_run_spawn(char *const *argv, char *const *extra_env, int *status, mh_err *err);

#endif
