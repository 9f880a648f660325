/* exec.h -- an executor: the pass's analyses on one model (the pass's
 * own, or a launch lane's copy). It opens a run of every analysis that
 * runs (table.h), in table order, feeds records through them, and routes
 * what each emits: first to the analyses that take it (patterns take heat
 * maps), then to the executor's sink. */
#ifndef MH_PASS_EXEC_H
#define MH_PASS_EXEC_H

#include "pass/pass.h"
#include "pass/table.h"

#define MH_EXEC_MAX_PARTS 4

/* Where an executor's results go after the analyses took them: fn(ctx,
 * row that emitted, kind, result). */
typedef struct mh_exec_sink {
    int (*fn)(void *ctx, unsigned row, int kind, const void *result, mh_err *err);
    void *ctx;
} mh_exec_sink;

typedef struct mh_exec mh_exec;

/* One row's emission (internal to exec.c; here for its size). */
typedef struct mh_exec_emitter {
    mh_emit emit; /* the row's env.emit */
    mh_exec *ex;
    unsigned row;
    unsigned takers; /* the rows that take what it emits (bits) */
} mh_exec_emitter;

struct mh_exec {
    mh_model *m;
    unsigned on;                          /* rows that run (bit per row) */
    void *run[MH_ANALYSES_MAX];           /* row i's run, NULL when it does not */
    void *part[MH_ANALYSES_MAX][MH_EXEC_MAX_PARTS - 1]; /* its other parts (mh_exec_parts) */
    unsigned nparts[MH_ANALYSES_MAX];     /* 1, 2 or 4 */
    mh_exec_emitter em[MH_ANALYSES_MAX];
    mh_exec_sink sink;
};

/* Opens the runs of rows `on` (resolved, table.h) on model m, in table
 * order; o: group budget and heat spaces. On failure the runs opened are
 * closed. */
int mh_exec_open(mh_exec *ex, unsigned on, mh_model *m, const mh_pass_opts *o, const mh_exec_sink *sink,
                 mh_err *err);
/* Row i in n parts (its MH_STAGE_PART stages on units of their own). */
int mh_exec_parts(mh_exec *ex, unsigned i, unsigned n, mh_err *err);
/* Record rec through row i's run and parts (not the model). */
int mh_exec_feed_row(mh_exec *ex, unsigned i, const mh_record *rec, mh_err *err);
/* Record rec through the model (unless accesses), then every run in order. */
int mh_exec_feed(mh_exec *ex, const mh_record *rec, mh_err *err);
/* Every run finished, in table order. */
int mh_exec_finish(mh_exec *ex, mh_err *err);
/* Run i handed to the caller (NULL if none): it is no longer closed here. */
void *mh_exec_take(mh_exec *ex, unsigned i);
/* Closes every run and part (the model is the caller's). */
void mh_exec_close(mh_exec *ex);

/* The bytes each argument view of heat map r's launch used, noted in
 * model m (done at every heat map before the findings name the view). */
void mh_exec_note_used(mh_model *m, const mh_heat_result *r);

#endif
