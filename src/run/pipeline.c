/* pipeline.c -- `memheat run` after option parsing: the passes, the timing
 * read once, the profile they feed.
 *
 * Separate passes (the default, CUDA), as ncu replays an application: (1)
 * the timing run, un-instrumented but for the first launch of each
 * configuration, which it also counts (--no-counters: none), so kernel times
 * are the program's own, (2) with --counters a counters run of every launch
 * (also where the timing run's counters failed), (3) the traced run. The
 * traced run's program starts with the timing run, so that what it does
 * before CUDA (an interpreter's start, imports: most of a short Python job)
 * overlaps the timing run; its collector holds it at CUDA's initialization
 * (the start gate) until the timing passes have ended, so their GPU work is
 * alone on the GPU. Not for --no-overlap or a rank of a job (serial_reason).
 * One pass (--passes one): the program runs ONCE under the tracer with the
 * timer riding in the same process
 * (MH_RUN_JOINED); a counters run follows only with --counters.
 * Then the timing file is loaded once, analysed once (the table printed and
 * the profile's rows come from the same report), and trace + timing are
 * imported into NAME.mhdb. A program that fails in a pass ends the passes,
 * but what it left is imported all the same, and the error says which pass
 * failed with which status. A signal forwarded to the program (spawn.c)
 * ends the passes the same way: what was collected is imported, and the
 * error says the run was interrupted. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "import/import.h"
#include "store/store.h"
#include "run_internal.h"
#include "util/outname.h"

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

/* Keeps the first failure of the program (MH_ERR_CHILD) across passes. */
typedef struct child_state {
    int rc;
    mh_err err;
    int exit_status;
} child_state;

static int pass_result(int rc, const mh_err *perr, const char *what, child_state *cs, mh_err *err) {
    if (rc == MH_OK) return MH_OK;
    if (rc == MH_ERR_CHILD) {
        if (cs->rc == MH_OK) {
            cs->rc = rc;
            cs->err = *perr;
        }
        return MH_OK;
    }
    return mh_err_set(err, rc, "%s: %s", what, perr->msg);
}

/* The timing pass of separate passes (counting each configuration's first
 * launch by default) and, with --counters or where its counters failed, the
 * counters pass. */
static int timer_passes(const mh_run_opts *o, const mh_run_backend *timer, int counters, mh_run_timed *tm,
                        child_state *cs, mh_err *err) {
    int status = 0;
    mh_err perr = {0};
    /* by default the timing run counts the first launch of each
     * configuration itself; --counters asks for every launch (a run of its own) */
    int inline_counters = counters && o->counters < 0;
    if (!o->quiet)
        fprintf(stderr, "memheat: timing pass%s: %s\n", inline_counters ? " (with counters)" : "", o->argv[0]);
    int rc = mh_run_timed_pass(o, timer, inline_counters ? MH_RUN_TIMING_COUNTERS : MH_RUN_TIMING, tm, &status,
                               &perr);
    cs->exit_status = status;
    if ((rc = pass_result(rc, &perr, "timing pass", cs, err)) != MH_OK) return rc;
    if (inline_counters && tm->loaded && strcmp(tm->t.counters.status, "failed") == 0 && cs->rc == MH_OK &&
        !mh_run_interrupted()) {
        if (!o->quiet)
            fprintf(stderr, "memheat: counters failed in the timing pass (%s); a counters pass instead\n",
                    tm->t.counters.message);
        inline_counters = 0;
    }
    if (counters && !inline_counters && tm->loaded && cs->rc == MH_OK && !mh_run_interrupted()) {
        if (!o->quiet) fprintf(stderr, "memheat: counters pass: %s\n", o->argv[0]);
        mh_run_timed_counters(o, timer, tm);
    }
    return MH_OK;
}

const char *mh_run_rank_var(void) {
    size_t n = sizeof mh_outname_rank_vars / sizeof mh_outname_rank_vars[0];
    for (size_t i = 0; i < n; i++) {
        const char *v = getenv(mh_outname_rank_vars[i]);
        if (v && *v) return mh_outname_rank_vars[i];
    }
    return NULL;
}

/* Why the traced run may not start before the timing run has ended, or NULL
 * when it may: --no-overlap, or a program that is one rank of a job or starts
 * one, whose start-up takes what a second copy of it cannot share (a
 * rendezvous port, its rank in the job). "" when no reason needs saying. */
static const char *serial_reason(const mh_run_opts *o) {
    if (o->no_overlap) return "";
    if (mh_run_rank_var()) return "a rank of a job: its start-up joins the job";
    static const char *const launchers[] = {"torchrun", "mpirun", "mpiexec", "orterun", "srun", "deepspeed",
                                            "accelerate", "horovodrun", "jsrun", "aprun"};
    const char *base = strrchr(o->argv[0], '/');
    base = base ? base + 1 : o->argv[0];
    for (size_t i = 0; i < sizeof launchers / sizeof launchers[0]; i++)
        if (strcmp(base, launchers[i]) == 0) return "a launcher of a job: its start-up joins the job";
    if (strncmp(base, "python", 6) == 0 && o->argv[1] && strcmp(o->argv[1], "-m") == 0 && o->argv[2] &&
        strncmp(o->argv[2], "torch.distributed.", 18) == 0)
        return "a launcher of a job: its start-up joins the job";
    return NULL;
}

/* The passes; fills tm (timing loaded, not yet finished) and cs. */
static int run_passes(const mh_run_opts *o, const mh_run_backend *tracer, const mh_run_backend *timer,
                      mh_run_timed *tm, child_state *cs, mh_err *err) {
    int status = 0, rc;
    uint64_t wall = 0;
    mh_err perr = {0};
    /* counters: asked for, or by default where the passes are separate */
    int counters = timer && (o->counters > 0 || (o->counters < 0 && o->passes == MH_PASSES_SEPARATE));
    if (o->passes == MH_PASSES_ONE && o->trace) {
        if (!o->quiet)
            fprintf(stderr, "memheat: traced run (%s%s): %s\n", tracer->name, timer ? ", timed" : "", o->argv[0]);
        rc = mh_run_pass(o, tracer, MH_RUN_TRACE, o->collect.trace_path, timer, o->timing_path, &status, &wall,
                         &perr);
        cs->exit_status = status;
        if ((rc = pass_result(rc, &perr, "traced run", cs, err)) != MH_OK) return rc;
        if (timer) {
            mh_err lerr = {0};
            int lrc = mh_run_timed_load_all(o, tm, o->timing_path, &lerr);
            if (lrc == MH_ERR_EMPTY)
                fprintf(stderr, "memheat: warning: no timing file appeared (%s); the profile is built from the trace "
                        "alone\n", o->timing_path);
            else if (lrc != MH_OK)
                fprintf(stderr, "memheat: warning: timing of the traced run: %s\n", lerr.msg);
            else {
                tm->t.timing_run = (mh_timing_run){.ran = 1, .exit_status = status, .wall_ns = wall};
                size_t kept = mh_timing_borrow_times(&tm->t);
                if (kept && !o->quiet)
                    fprintf(stderr, "memheat: %zu launch%s without a clean time (traced, or queued on an idle "
                            "stream) and no clean launch of %s configuration: left out of the time figures "
                            "(--passes separate times every launch)\n", kept, kept == 1 ? "" : "es",
                            kept == 1 ? "its" : "their");
            }
        }
        if (counters && tm->loaded && cs->rc == MH_OK && !mh_run_interrupted()) {
            if (!o->quiet) fprintf(stderr, "memheat: counters run: %s\n", o->argv[0]);
            mh_run_timed_counters(o, timer, tm);
        }
        return MH_OK;
    }
    /* the traced run starts now: its start-up overlaps the timing run, its
     * GPU work waits at the start gate until the timing passes have ended */
    mh_run_early early = {0};
    const char *serial = timer && o->trace && tracer->start_gate ? serial_reason(o) : "";
    if (!serial) {
        rc = mh_run_early_start(o, tracer, MH_RUN_TRACE, o->collect.trace_path, &early, &perr);
        if (rc != MH_OK) return mh_err_set(err, rc, "traced pass: %s", perr.msg); /* as it would fail later */
    } else if (*serial && !o->quiet) {
        fprintf(stderr, "memheat: the traced run starts after the timing run (%s)\n", serial);
    }
    if (timer && (rc = timer_passes(o, timer, counters, tm, cs, err)) != MH_OK) {
        mh_run_early_cancel(&early);
        return rc;
    }
    if (!o->trace || cs->rc != MH_OK || mh_run_interrupted()) {
        mh_run_early_cancel(&early); /* the passes end here: a traced run waiting at the gate is not wanted */
        return MH_OK;
    }
    if (!o->quiet)
        fprintf(stderr, "memheat: traced pass (%s%s): %s\n", tracer->name,
                early.child ? "; started during the timing pass, GPU work after it" : "", o->argv[0]);
    if (early.child)
        rc = mh_run_early_finish(o, tracer, MH_RUN_TRACE, o->collect.trace_path, &early, &status, &wall, &perr);
    else
        rc = mh_run_pass(o, tracer, MH_RUN_TRACE, o->collect.trace_path, NULL, NULL, &status, &wall, &perr);
    cs->exit_status = status;
    return pass_result(rc, &perr, "traced pass", cs, err);
}

/* Checks made before anything runs, so a bad name fails the same way on
 * every back end: the program exists, the profile's folder is writable. */
static int check_inputs(const mh_run_opts *o, mh_err *err) {
    char prog[4096];
    const char *name = o->argv ? o->argv[0] : NULL;
    struct stat sb;
    if (name && strchr(name, '/') && stat(name, &sb) == 0) { /* there, but maybe not a program */
        if (S_ISDIR(sb.st_mode)) return mh_err_set(err, MH_ERR_ARG, "'%s' is a folder, not a program", name);
        if (!S_ISREG(sb.st_mode)) return mh_err_set(err, MH_ERR_ARG, "'%s' is not a program (not a regular file)", name);
        if (access(name, X_OK) != 0) return mh_err_set(err, MH_ERR_ARG, "'%s' is not executable", name);
    }
    if (name && !mh_run_which(name, prog, sizeof prog))
        return mh_err_set(err, MH_ERR_ARG, "no program '%s' (%s)", name,
                          strchr(name, '/') ? "no such file" : "not found on PATH");
    char dir[4096];
    const char *slash = strrchr(o->profile_path, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - o->profile_path + (slash == o->profile_path)) : 1,
             slash ? o->profile_path : ".");
    if (access(dir, F_OK) != 0)
        return mh_err_set(err, MH_ERR_IO, "cannot write %s: folder %s does not exist", o->profile_path, dir);
    if (access(dir, W_OK) != 0)
        return mh_err_set(err, MH_ERR_IO, "cannot write %s: folder %s is not writable", o->profile_path, dir);
    return MH_OK;
}

/* After a signal was forwarded to the program: say so, and where the data is. */
static int interrupted(const mh_run_opts *o, int irc, mh_err *err) {
    int sig = mh_run_interrupted();
    if (irc == MH_OK || irc == MH_ERR_TRUNCATED)
        return mh_err_set(err, MH_ERR_CHILD, "interrupted by signal %d (forwarded to the program): what it "
                          "collected is in %s", sig, o->profile_path);
    return mh_err_set(err, MH_ERR_CHILD, "interrupted by signal %d (forwarded to the program); no profile "
                      "written (import what is left with: memheat import %s -o %s)", sig, o->collect.trace_path,
                      o->profile_path);
}

int mh_run_pipeline(const mh_run_opts *opts, mh_err *err) {
    uint64_t start = now_ns();
    mh_run_opts ro = *opts;
    const mh_run_opts *o = &ro;
    if (ro.passes == MH_PASSES_AUTO) {
        /* a rank's second run does not find its job again: the job's
         * rendezvous is over (torchrun, H200: two runs per rank hung) */
        const char *rank = mh_run_rank_var();
        ro.passes = rank ? MH_PASSES_ONE : MH_PASSES_SEPARATE;
        if (rank && !o->quiet)
            fprintf(stderr, "memheat: %s is set: a rank of a job runs once (--passes one; --passes separate runs it "
                    "twice)\n", rank);
    }
    int crc = check_inputs(o, err);
    if (crc) return crc;
    const mh_run_backend *tracer = mh_run_backend_pick(o->backend, o->argv ? o->argv[0] : "", err);
    if (!tracer) return err ? err->code : MH_ERR_ARG;
    /* a simulator has no GPU clock to time: only platforms with a timer are timed */
    const mh_run_backend *timer = o->timing ? mh_run_backend_timer(tracer) : NULL;
    if (!o->trace && !timer)
        return mh_err_set(err, MH_ERR_ARG, "--no-trace leaves nothing to do on the %s back end", tracer->name);
    child_state cs = {0};
    mh_run_timed tm;
    mh_run_timed_init(&tm);
    mh_run_outputs_reset(o->collect.trace_path, NULL);
    mh_run_outputs_reset(o->timing_path, NULL);
    int rc = run_passes(o, tracer, timer, &tm, &cs, err);
    if (rc != MH_OK) {
        mh_run_timed_free(&tm);
        return rc;
    }
    if (tm.loaded) {
        mh_err ferr = {0};
        if (mh_run_timed_finish(o, &tm, &ferr) != MH_OK)
            fprintf(stderr, "memheat: warning: timing results: %s\n", ferr.msg);
    }
    mh_run_outputs traces = {0};
    if (o->trace && mh_run_outputs_list(o->collect.trace_path, &traces, err) != MH_OK) {
        mh_run_timed_free(&tm);
        return err ? err->code : MH_ERR_NOMEM;
    }
    int have_trace = traces.n > 0;
    if (traces.empty && !o->quiet)
        fprintf(stderr, "memheat: warning: %zu process(es) began a trace and wrote nothing\n", traces.empty);
    if (tm.analyzed && !o->quiet) { /* the first answer a user wants: time and bandwidth per kernel */
        mh_bw_report_print(stdout, &tm.rep, 20);
        fflush(stdout); /* whole before any line on stderr: a terminal shows both, neither splits the other */
    }
    if (!have_trace && !tm.loaded) {
        mh_run_timed_free(&tm);
        mh_run_outputs_free(&traces);
        if (mh_run_interrupted()) return interrupted(o, MH_ERR_CHILD, err);
        if (cs.rc != MH_OK) {
            if (err) *err = cs.err;
            return cs.rc;
        }
        return mh_err_set(err, MH_ERR_CHILD, "the program ran but no collector output appeared (%s)",
                          o->trace ? o->collect.trace_path : o->timing_path);
    }
    mh_db_timing_in tin = {.timing = &tm.t, .report = tm.analyzed ? &tm.rep : NULL, .json = tm.json};
    mh_db_import_opts io = {
        .timing_file = o->timing_path,
        .run = {.argv = o->argv, .backend = tracer->name, .memheat_version = MEMHEAT_VERSION,
                .start_unix_ns = start, .end_unix_ns = now_ns(), .exit_status = cs.exit_status,
                .trace_path = o->keep_trace && have_trace ? o->collect.trace_path : NULL},
        .progress = progress};
    size_t nprocs = 0;
    mh_db_import_proc *procs = mh_run_pair_procs(&traces, tm.loaded ? &tin : NULL, tm.pid, &tm.extra, &nprocs);
    mh_err ierr = {0};
    int irc = procs ? mh_db_import_procs(o->profile_path, &io, procs, nprocs, &ierr)
                    : mh_err_set(&ierr, MH_ERR_NOMEM, "out of memory");
    free(procs);
    mh_run_timed_free(&tm);
    if (irc == MH_OK && !o->keep_trace)
        for (size_t i = 0; i < traces.n; i++) unlink(traces.v[i].path);
    if (irc == MH_OK && !o->keep_trace) mh_run_outputs_remove(o->collect.trace_path);
    if (!o->quiet && nprocs > 1 && (irc == MH_OK || irc == MH_ERR_TRUNCATED))
        fprintf(stderr, "memheat: %zu processes imported into one profile\n", nprocs);
    mh_run_outputs_free(&traces);
    if (!o->quiet && (irc == MH_OK || irc == MH_ERR_TRUNCATED)) {
        /* memheat's own peak, not the program's (issue 13: <= 2 GB) */
        struct rusage ru;
        double peak_mb = getrusage(RUSAGE_SELF, &ru) == 0 ? (double)ru.ru_maxrss / 1024.0 : 0.0;
        fprintf(stderr, "memheat: profile written to %s%s (memheat's peak memory %.0f MB)\n", o->profile_path,
                o->keep_trace && have_trace ? ", trace kept" : "", peak_mb);
    }
    if (mh_run_interrupted()) return interrupted(o, irc, err);
    if (irc != MH_OK && irc != MH_ERR_TRUNCATED && have_trace) {
        char msg[sizeof ierr.msg];
        snprintf(msg, sizeof msg, "%s", ierr.msg);
        mh_err_set(&ierr, irc, "%s; the trace is kept in %s (memheat import retries)", msg, o->collect.trace_path);
    }
    if (cs.rc != MH_OK) {
        if (err) *err = cs.err;
        return cs.rc;
    }
    if (irc != MH_OK) {
        if (err) *err = ierr;
        return irc;
    }
    return MH_OK;
}
