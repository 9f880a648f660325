/* run.h -- the run layer (src/run/): how `memheat run` starts a program with
 * memheat's collectors loaded, and what it does with what they leave.
 *
 * The CLI parses options into an mh_run_opts and calls mh_run_pipeline. The
 * pipeline picks back ends from ONE table (mh_run_backends): tracers (the CUDA
 * Sanitizer collector, the Oclgrind plugin) write a trace at
 * opts->collect.trace_path; the timer (the CUPTI collector) writes a timing
 * file (include/memheat/timing.h). Each entry says which programs it serves
 * (detect), which environment and argv its pass needs (prepare), and what the
 * pass must have left (check). By default (--passes separate) each collector
 * has its own run of the program: timing, counters, trace; --passes one runs
 * it ONCE, traced, with the timer riding in the same process (MH_RUN_JOINED). */
#ifndef MH_RUN_RUN_H
#define MH_RUN_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "memheat/collect.h"
#include "memheat/err.h"

/* How many runs of the program. */
enum mh_run_passes {
    MH_PASSES_ONE = 0,      /* one traced run, timing in the same process (event times) */
    MH_PASSES_SEPARATE = 1, /* timing run (CUPTI activity, counters of each configuration's first launch),
                             * [counters run with --counters,] traced run */
    MH_PASSES_AUTO = 2      /* the CLI's default: separate, but one for a rank of a job (mh_run_rank_var) */
};

typedef struct mh_run_opts {
    const char *backend;    /* tracer name from the table ("cuda", "oclgrind"); NULL or "auto" = detect */
    mh_collect_cfg collect; /* sampling; collect.trace_path = where the trace goes */
    int passes;             /* enum mh_run_passes */
    int trace;              /* trace the program (default 1) */
    int timing;             /* time kernels and copies (default 1; no timer for OpenCL) */
    int counters;           /* hardware counters: 1 a counters run of every launch, 0 off, -1 = the
                             * default of `passes` (off for one pass; for separate passes the timing run
                             * counts the first launch of each configuration) */
    char timing_path[1024]; /* NAME.timing.json */
    char profile_path[1100];/* NAME.mhdb (the pipeline's import target) */
    int keep_trace;         /* keep NAME.mht after the import */
    int no_overlap;         /* --no-overlap: the traced run starts after the timing run ends, not during it */
    char self_dir[1024];    /* directory of the memheat executable (collector libs beside it or in ../lib/memheat) */
    int quiet;
    char *const *argv;      /* the program and its arguments */
} mh_run_opts;

typedef struct mh_run_result {
    int exit_status;   /* the program's exit status of the last pass (or 128+signal) */
    int traced;        /* 1 if a trace was written */
    int timed;         /* 1 if timing results were written */
} mh_run_result;

/* ---- one command to spawn: argv plus extra environment (owned strings) ---- */
typedef struct mh_run_cmd {
    char **argv;       /* NULL-terminated */
    size_t argc, argv_cap;
    char **env;        /* "K=V", NULL-terminated; added to memheat's own environment */
    size_t nenv, env_cap;
} mh_run_cmd;

void mh_run_cmd_init(mh_run_cmd *c);
void mh_run_cmd_free(mh_run_cmd *c);
int mh_run_cmd_arg(mh_run_cmd *c, const char *arg, mh_err *err);
/* Appends the program's argv (o->argv). */
int mh_run_cmd_args(mh_run_cmd *c, char *const *argv, mh_err *err);
/* Sets K=V (replacing an earlier K). */
int mh_run_cmd_env(mh_run_cmd *c, const char *key, const char *value, mh_err *err);
/* The value of K in c's extra environment, or NULL. */
const char *mh_run_cmd_getenv(const mh_run_cmd *c, const char *key);

/* ---- back ends ---- */
enum mh_run_role { MH_RUN_TRACER = 1, MH_RUN_TIMER = 2 };
/* What one pass of a back end does. */
enum mh_run_pass {
    MH_RUN_TRACE = 0,    /* tracer: write the trace */
    MH_RUN_TIMING = 1,   /* timer, own process: timeline only (nothing replayed) */
    MH_RUN_COUNTERS = 2, /* timer, own process: hardware counters (kernel replay) */
    MH_RUN_JOINED = 3,   /* timer riding in the tracer's process: timeline */
    MH_RUN_TIMING_COUNTERS = 4 /* timer, own process: timeline, and the counters of the first launch of
                                * each configuration (one pass, as it runs) joined onto it */
};

typedef struct mh_run_backend {
    const char *name;     /* "cuda", "oclgrind", "cupti": --backend value, profile's run.backend */
    const char *platform; /* "cuda", "opencl": a timer serves the tracer of its platform */
    int role;             /* enum mh_run_role */
    const char *what;     /* one line for messages and --help */
    /* auto detection: 1 if this tracer serves program (NULL: never picked by auto) */
    int (*detect)(const char *program);
    /* Adds this back end's argv (wrapper + program, tracers and own-process
     * timers) and environment for `pass` to cmd; out is the file the pass
     * writes (trace or timing JSON). Checks that the collector's files exist. */
    int (*prepare)(const mh_run_opts *o, int pass, const char *out, mh_run_cmd *cmd, mh_err *err);
    /* After the program exited with `status`: MH_OK when out was written as
     * expected, MH_ERR_CHILD when the program failed, another error when the
     * collector did not start. */
    int (*check)(const mh_run_opts *o, int pass, const char *out, int status, mh_err *err);
    /* 1: its collector waits at the start gate (MEMHEAT_START_GATE), so its
     * pass can start while another runs (mh_run_early_start) */
    int start_gate;
} mh_run_backend;

/* The table (src/run/backends.c), terminated by an entry with name NULL.
 * Tracers are listed in the order auto detection tries them. */
extern const mh_run_backend mh_run_backends[];

const mh_run_backend *mh_run_backend_find(const char *name);
/* name NULL/"auto": the first tracer whose detect() accepts program. */
const mh_run_backend *mh_run_backend_pick(const char *name, const char *program, mh_err *err);
/* The timer serving tracer's platform, or NULL. */
const mh_run_backend *mh_run_backend_timer(const mh_run_backend *tracer);

/* Collects the command of one pass: the program under b (and, when joined is
 * non-NULL, the timer riding in the same process, writing joined_out). */
int mh_run_build(const mh_run_opts *o, const mh_run_backend *b, int pass, const char *out,
                 const mh_run_backend *joined, const char *joined_out, mh_run_cmd *cmd, mh_err *err);

/* One run of the program (see mh_run_build); status and wall time in *status
 * / *wall_ns; the result of b->check. */
int mh_run_pass(const mh_run_opts *o, const mh_run_backend *b, int pass, const char *out,
                const mh_run_backend *joined, const char *joined_out, int *status, uint64_t *wall_ns, mh_err *err);

/* A pass started while another runs (its program's start-up overlapping
 * that run): the program starts at once with the start gate closed
 * (MEMHEAT_START_GATE, include/memheat/collect.h), so its collector waits at
 * CUDA's initialization; finish opens the gate, waits for the program and
 * checks like mh_run_pass (wall time from the gate's opening); cancel ends a
 * program whose pass is no longer wanted. Every started pass is finished or
 * cancelled. */
typedef struct mh_run_early {
    long child;      /* the program, 0 = none */
    char gate[1300]; /* the gate's file (absolute), "" once opened */
} mh_run_early;
int mh_run_early_start(const mh_run_opts *o, const mh_run_backend *b, int pass, const char *out, mh_run_early *e,
                       mh_err *err);
int mh_run_early_finish(const mh_run_opts *o, const mh_run_backend *b, int pass, const char *out, mh_run_early *e,
                        int *status, uint64_t *wall_ns, mh_err *err);
void mh_run_early_cancel(mh_run_early *e);

/* ---- the whole `memheat run` ---- */
/* Runs the passes (see enum mh_run_passes), post-processes the timing once
 * (measured peak, bandwidth analysis; rewritten at o->timing_path), prints
 * the bandwidth table, and imports trace + timing into o->profile_path. A
 * failing program stops the passes but what it left is still imported; the
 * result is then MH_ERR_CHILD. */
int mh_run_pipeline(const mh_run_opts *o, mh_err *err);

/* The rank variable a job's launcher set for this process (the first set of
 * util/outname.h's mh_outname_rank_vars, as %r reads them), or NULL: a
 * rank runs once by default, since a second run of it does not find the
 * job again (docs/ranks.md). */
const char *mh_run_rank_var(void);

/* The CUPTI timing pass(es) alone into o->timing_path (bench/timing's tool):
 * timing run, a counters run when o->counters != 0, post-processing. */
int mh_run_timing(const mh_run_opts *o, mh_run_result *res, mh_err *err);

/* 1 if program (a path or a name on PATH) is an OpenCL host (links libOpenCL). */
int mh_run_is_opencl_host(const char *program);

/* ---- files and processes ---- */
/* Finds a collector file (e.g. "libmemheat_cuda.so") in $MEMHEAT_LIB_DIR,
 * beside the executable, in ../lib/memheat, or in the build tree; fills out. */
int mh_run_find_file(const mh_run_opts *o, const char *file, char *out, size_t cap, mh_err *err);
/* Path of the executable `name`: name itself when it holds a '/', else the
 * first match on $PATH. Returns 1 and fills out (cap bytes) when found. */
int mh_run_which(const char *name, char *out, size_t cap);
/* fork/exec argv with the current environment plus extra "K=V" strings
 * (NULL-terminated); waits; fills *status with the exit status (128+sig if killed). */
int mh_run_spawn(char *const *argv, char *const *extra_env, int *status, mh_err *err);
/* mh_run_spawn in two steps: *child set once the program was exec'd (an exec
 * failure is MH_ERR_CHILD, "cannot run"); foreground: it gets the terminal at
 * once, else when waited for. Every started program must be waited for or
 * cancelled. */
int mh_run_spawn_start(char *const *argv, char *const *extra_env, int foreground, long *child, mh_err *err);
void mh_run_spawn_wait(long child, int *status);
/* Ends a started program that is not wanted any more (its process group:
 * SIGTERM, SIGKILL after 3 s) and reaps it. */
void mh_run_spawn_cancel(long child);
/* The signal (SIGTERM, SIGINT, SIGHUP, SIGQUIT) memheat received while a
 * program ran and forwarded to the program's process group; 0 = none. */
int mh_run_interrupted(void);

#endif
