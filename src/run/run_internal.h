/* run_internal.h -- the run layer's own declarations: each back end's steps
 * (one file per back end, listed in the table of backends.c) and the timing
 * post-processing that the pipeline and mh_run_timing share. */
#ifndef MH_RUN_INTERNAL_H
#define MH_RUN_INTERNAL_H

#include "analyses/bandwidth.h"
#include "run/run.h"
#include "import/import.h"
#include "store/store.h"
#include "memheat/timing.h"

/* cuda.c: the CUDA Sanitizer tracer (libmemheat_cuda.so). */
int mh_run_cuda_detect(const char *program);
int mh_run_cuda_prepare(const mh_run_opts *o, int pass, const char *out, mh_run_cmd *cmd, mh_err *err);
int mh_run_cuda_check(const mh_run_opts *o, int pass, const char *out, int status, mh_err *err);

/* oclgrind.c: OpenCL under the Oclgrind simulator (libmemheat_oclgrind.so). */
int mh_run_ocl_prepare(const mh_run_opts *o, int pass, const char *out, mh_run_cmd *cmd, mh_err *err);
int mh_run_ocl_check(const mh_run_opts *o, int pass, const char *out, int status, mh_err *err);

/* cupti.c: the CUPTI timing collector (libmemheat_cupti.so). */
int mh_run_cupti_prepare(const mh_run_opts *o, int pass, const char *out, mh_run_cmd *cmd, mh_err *err);
int mh_run_cupti_check(const mh_run_opts *o, int pass, const char *out, int status, mh_err *err);

/* The program's command line, for the record (truncated to cap). */
void mh_run_join_argv(char *const *argv, char *out, size_t cap);

/* The timing of one run, loaded once and post-processed once. */
/* ---- the files of one output path, one per process (outputs.c) ---- */
#define MH_RUN_OUTPUT_MAX 1200
typedef struct mh_run_output {
    char path[MH_RUN_OUTPUT_MAX];
    uint64_t pid; /* from the manifest, 0 = unknown */
} mh_run_output;
typedef struct mh_run_outputs {
    mh_run_output *v;
    size_t n, cap;
    size_t empty; /* names claimed but left empty */
} mh_run_outputs;
/* Removes path, its manifest <path>.procs and every file that lists. */
int mh_run_outputs_reset(const char *path, mh_err *err);
/* The non-empty files the manifest of path names, in claim order; path alone
 * (if non-empty) where no manifest exists. */
int mh_run_outputs_list(const char *path, mh_run_outputs *out, mh_err *err);
void mh_run_outputs_free(mh_run_outputs *o);
/* 1 when some process left a non-empty file for path. */
int mh_run_outputs_any(const char *path);
/* The processes of a run: traces paired with timing files (first: the one
 * loaded, of process first_pid; extra: the others) by pid, else in order;
 * timing files left over become processes of their own. malloc'd, *n set. */
mh_db_import_proc *mh_run_pair_procs(const mh_run_outputs *traces, const mh_db_timing_in *first, uint64_t first_pid,
                                     const mh_run_outputs *extra, size_t *n);
/* Removes the manifest <path>.procs (after its files were imported). */
void mh_run_outputs_remove(const char *path);

typedef struct mh_run_timed {
    mh_timing t;
    int loaded;        /* t holds a timing file's contents */
    mh_bw_report rep;  /* mh_bw_analyze(t), valid when analyzed */
    int analyzed;
    char *json;        /* the file as written at o->timing_path (kept in the profile) */
    uint64_t pid;      /* the process that wrote t, 0 = unknown */
    mh_run_outputs extra; /* other processes' timing files, kept as <timing stem>.<pid>.json */
} mh_run_timed;

void mh_run_timed_init(mh_run_timed *tm);
void mh_run_timed_free(mh_run_timed *tm);
/* Loads the timing files a pass left for `path` (outputs.c): the first into
 * tm, the others (other processes') renamed to <timing stem>.<pid>.json
 * beside o->timing_path and listed in tm->extra. */
int mh_run_timed_load_all(const mh_run_opts *o, mh_run_timed *tm, const char *path, mh_err *err);
/* Loads the timing file `path` into tm (once). */
int mh_run_timed_load(mh_run_timed *tm, const char *path, mh_err *err);
/* The timing pass (pass: MH_RUN_TIMING or MH_RUN_TIMING_COUNTERS) in its own
 * process: tm loaded from its file; *status the
 * program's. MH_ERR_CHILD when the program failed (tm loaded if anything was written). */
int mh_run_timed_pass(const mh_run_opts *o, const mh_run_backend *timer, int pass, mh_run_timed *tm, int *status,
                      mh_err *err);
/* Runs the counters pass of `timer` (every launch profiled, or the first of
 * each configuration with MEMHEAT_COUNTERS_SAMPLE=config) and joins its counters onto tm->t; a failed pass is
 * recorded in tm->t.counters, not returned. */
void mh_run_timed_counters(const mh_run_opts *o, const mh_run_backend *timer, mh_run_timed *tm);
/* Post-processing, the same for every path: measured peak from the
 * calibration store, one bandwidth analysis, the file rewritten at
 * o->timing_path with its "analysis", its text kept in tm->json. */
int mh_run_timed_finish(const mh_run_opts *o, mh_run_timed *tm, mh_err *err);

#endif
