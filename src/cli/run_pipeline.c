/* run_pipeline.c -- the passes of `memheat run` and the profile they feed.
 *
 * Order, as ncu replays an application: (1) the timing pass, un-instrumented,
 * so kernel times are the program's own; (2) the traced pass with the
 * collector; (3) the import of both into NAME.mhdb. A program that fails in a
 * pass ends the passes, but its partial trace and timing are imported all the
 * same, and the error says which pass failed with which status. */
#include "cli/run_pipeline.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "memheat/bandwidth.h"
#include "memheat/store.h"

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void progress(void *ctx, const char *line, int done) {
    (void)ctx;
    if (!isatty(STDERR_FILENO)) return;
    fprintf(stderr, "\r\033[Kmemheat: %s%s", line, done ? "\n" : "");
}

int mh_run_pipeline(const mh_run_opts *o, const mh_pipeline_opts *po, mh_err *err) {
    uint64_t start = now_ns();
    mh_run_result res = {0}, tres = {0};
    int child_rc = MH_OK;
    mh_err child_err = {0};
    const char *backend = o->backend == MH_BACKEND_OCLGRIND ? "oclgrind" : "cuda";
    unlink(o->collect.trace_path);
    unlink(o->timing_path);
    if (o->timing && o->backend == MH_BACKEND_CUDA) {
        if (!o->quiet) fprintf(stderr, "memheat: timing pass: %s\n", o->argv[0]);
        int rc = mh_run_timing(o, &tres, &child_err);
        if (rc != MH_OK && rc != MH_ERR_CHILD) return mh_err_set(err, rc, "timing pass: %s", child_err.msg);
        if (rc == MH_ERR_CHILD) child_rc = rc;
    }
    if (o->trace && child_rc == MH_OK) {
        if (!o->quiet) fprintf(stderr, "memheat: traced pass (%s): %s\n", backend, o->argv[0]);
        int rc = o->backend == MH_BACKEND_OCLGRIND ? mh_run_oclgrind(o, &res, &child_err)
                                                  : mh_run_cuda(o, &res, &child_err);
        if (rc != MH_OK && rc != MH_ERR_CHILD) return mh_err_set(err, rc, "traced pass: %s", child_err.msg);
        if (rc == MH_ERR_CHILD) child_rc = rc;
    }
    int have_trace = access(o->collect.trace_path, R_OK) == 0;
    int have_timing = access(o->timing_path, R_OK) == 0;
    if (have_timing && !o->quiet) {
        /* The first answer a user wants: time and bandwidth per kernel against the card. */
        mh_err perr = {0};
        if (mh_bw_print_file(stdout, o->timing_path, 0, 20, &perr) != MH_OK)
            fprintf(stderr, "memheat: warning: timing table: %s\n", perr.msg);
    }
    if (!have_trace && !have_timing) {
        if (child_rc != MH_OK) {
            *err = child_err;
            return child_rc;
        }
        return mh_err_set(err, MH_ERR_CHILD, "the program ran but no collector output appeared (%s)",
                          o->trace ? o->collect.trace_path : o->timing_path);
    }
    mh_db_import_opts io = {
        .trace_path = have_trace ? o->collect.trace_path : NULL,
        .timing_path = have_timing ? o->timing_path : NULL,
        .run = {.argv = o->argv, .backend = backend, .memheat_version = MEMHEAT_VERSION,
                .start_unix_ns = start, .end_unix_ns = now_ns(),
                .exit_status = res.exit_status ? res.exit_status : tres.exit_status,
                .trace_path = po->keep_trace && have_trace ? o->collect.trace_path : NULL},
        .progress = progress};
    mh_err ierr = {0};
    int irc = mh_db_import_trace(po->profile_path, 1, &io, &ierr);
    if (irc == MH_OK && have_trace && !po->keep_trace) unlink(o->collect.trace_path);
    if (!o->quiet && (irc == MH_OK || irc == MH_ERR_TRUNCATED))
        fprintf(stderr, "memheat: profile written to %s%s\n", po->profile_path,
                po->keep_trace && have_trace ? " (trace kept)" : "");
    if (child_rc != MH_OK) {
        *err = child_err;
        return child_rc;
    }
    if (irc != MH_OK) {
        *err = ierr;
        return irc;
    }
    return MH_OK;
}
