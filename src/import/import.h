/* import.h -- the whole import that `memheat run` calls after its passes
 * (src/import/import.c): the trace through one mh_pass (pass.h) with every
 * analysis, the profile database (store.h) as one of its consumers, then the
 * timing. It sits above both the analyses and the store; the store itself
 * never runs an analysis. */
#ifndef MH_IMPORT_IMPORT_H
#define MH_IMPORT_IMPORT_H

#include <stddef.h>
#include <stdint.h>

#include "memheat/err.h"
#include "store/store.h"

/* A timing already loaded (memheat run reads the file once): report =
 * mh_bw_analyze(timing) or NULL (then analysed on import), json = the
 * file's text kept as the "timing" document (NULL: none kept). */
struct mh_timing;
struct mh_bw_report;
typedef struct mh_db_timing_in {
    const struct mh_timing *timing;
    const struct mh_bw_report *report;
    const char *json;
} mh_db_timing_in;
/* A timing into db: analysed (bandwidth vs peak, verdicts, overlap:
 * mh_bw_analyze) unless in->report is given, then stored (mh_db_put_timing).
 * The same from a timing JSON file (docs/timing.md), loaded here and kept
 * as the "timing" document (src/import/timing_in.c). */
int mh_db_import_timing_loaded(mh_db *db, const mh_db_timing_in *in, mh_err *err);
int mh_db_import_timing(mh_db *db, const char *timing_path, mh_err *err);

typedef struct mh_db_import_opts {
    const char *trace_path;   /* traced pass output, NULL/"" = none */
    const char *timing_path;  /* timing pass output, NULL/"" = none */
    const mh_db_timing_in *timing; /* or the timing already loaded (wins over timing_path) */
    mh_db_run_info run;       /* run.trace_path is set by the caller when --keep-trace */
    mh_db_progress_fn progress;
    void *progress_ctx;
    unsigned threads;         /* analysis threads, 0 = default (mh_pass_default_threads) */
    size_t group_budget;      /* grouping budget of locality and patterns, 0 = 64 MiB */
    uint64_t pid;             /* the process, where its trace has no process record (0 = unknown) */
    const char *timing_file;  /* name of the timing file for the process row when `timing` is given */
} mh_db_import_opts;

/* Reads the trace -> model -> heat maps (-> locality and findings where those
 * analyses are built in) and the timing file into db, then mh_db_finish().
 * A cut-short trace is imported up to its last whole chunk; the profile is
 * still finished but meta.trace_complete = '0' says so, and the status
 * MH_ERR_TRUNCATED is returned after everything readable is stored. */
int mh_db_import(mh_db *db, const mh_db_import_opts *o, mh_err *err);
/* Convenience for the CLI: mh_db_create + mh_db_import + mh_db_close, on a
 * temporary file beside db_path renamed over it when the profile is usable
 * (complete, or holding what a cut or damaged trace had): a failed write
 * (disk full, read-only folder) leaves no file and any earlier profile as
 * it was. */
int mh_db_import_trace(const char *db_path, int overwrite, const mh_db_import_opts *o, mh_err *err);
/* One process's outputs (trace and/or timing) of a run of several. */
typedef struct mh_db_import_proc {
    const char *trace_path;        /* NULL: none */
    const char *timing_path;       /* NULL: none, or see timing */
    const mh_db_timing_in *timing; /* already loaded (wins over timing_path) */
    uint64_t pid;                  /* 0 = unknown */
} mh_db_import_proc;
/* A run of n processes into one profile at db_path (replaced): one process
 * is mh_db_import_trace; several are each imported beside db_path, then
 * merged (mh_db_merge), in the given order (process ids 1..n). o gives the
 * run row and the import settings; its trace/timing fields are ignored. */
int mh_db_import_procs(const char *db_path, const mh_db_import_opts *o, const mh_db_import_proc *procs, size_t n,
                       mh_err *err);

#endif
