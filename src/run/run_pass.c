/* run_pass.c -- the one way a pass of any back end is run: build the command
 * (the back end's prepare, plus a timer riding in the same process), spawn
 * it, check what it left. */
#include "run_internal.h"
#include "util/clock.h"

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
