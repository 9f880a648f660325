/* run_pass.c -- the one way a pass of any back end is run: build the command
 * (the back end's prepare, plus a timer riding in the same process), spawn
 * it, check what it left. A pass may also start early, while another pass
 * runs: its program starts at once and its collector waits at the start gate
 * (include/memheat/collect.h) until mh_run_early_finish opens it. */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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

int mh_run_early_start(const mh_run_opts *o, const mh_run_backend *b, int pass, const char *out, mh_run_early *e,
                       mh_err *err) {
    memset(e, 0, sizeof *e);
    char cwd[1024] = "";
    if (out[0] != '/' && !getcwd(cwd, sizeof cwd)) return mh_err_set(err, MH_ERR_IO, "getcwd: %s", strerror(errno));
    if ((size_t)snprintf(e->gate, sizeof e->gate, "%s%s%s.gate", cwd, cwd[0] ? "/" : "", out) >= sizeof e->gate)
        return mh_err_set(err, MH_ERR_ARG, "output path too long: %s", out);
    int fd = open(e->gate, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) return mh_err_set(err, MH_ERR_IO, "cannot create %s: %s", e->gate, strerror(errno));
    close(fd);
    char val[sizeof e->gate + 24]; /* "<gate>:<pid>" */
    snprintf(val, sizeof val, "%s:%ld", e->gate, (long)getpid());
    mh_run_cmd cmd;
    mh_run_cmd_init(&cmd);
    int rc = mh_run_build(o, b, pass, out, NULL, NULL, &cmd, err);
    if (rc == MH_OK) rc = mh_run_cmd_env(&cmd, MH_COLLECT_START_GATE_ENV, val, err);
    if (rc == MH_OK) rc = mh_run_spawn_start(cmd.argv, cmd.env, 0, &e->child, err);
    mh_run_cmd_free(&cmd);
    if (rc != MH_OK) {
        unlink(e->gate);
        e->gate[0] = '\0';
    }
    return rc;
}

int mh_run_early_finish(const mh_run_opts *o, const mh_run_backend *b, int pass, const char *out, mh_run_early *e,
                        int *status, uint64_t *wall_ns, mh_err *err) {
    assert(e->child > 0);
    uint64_t t0 = mh_clock_ns();
    unlink(e->gate); /* the gate opens: the program goes on to its GPU work */
    e->gate[0] = '\0';
    mh_run_spawn_wait(e->child, status);
    e->child = 0;
    *wall_ns = mh_clock_ns() - t0;
    return b->check(o, pass, out, *status, err);
}

void mh_run_early_cancel(mh_run_early *e) {
    if (e->child > 0) mh_run_spawn_cancel(e->child);
    e->child = 0;
    if (e->gate[0]) unlink(e->gate);
    e->gate[0] = '\0';
}
