/* run_pipeline.h -- what `memheat run` does after parsing: passes, then profile. */
#ifndef MH_CLI_RUN_PIPELINE_H
#define MH_CLI_RUN_PIPELINE_H

#include "memheat/run.h"

typedef struct mh_pipeline_opts {
    char profile_path[1100]; /* NAME.mhdb */
    int keep_trace;
} mh_pipeline_opts;

/* Runs the timing pass (CUDA), the traced pass, and imports both into the
 * profile database. A failing program stops the passes but what it left is
 * still imported; the result is then MH_ERR_CHILD. */
int mh_run_pipeline(const mh_run_opts *o, const mh_pipeline_opts *po, mh_err *err);

#endif
