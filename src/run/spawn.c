/* spawn.c -- running the profiled program.
 *
 * mh_run_spawn forks and execs the program with extra environment variables,
 * reports an exec failure through a close-on-exec pipe (so "no such program"
 * is an error message, not a silent exit code 127), and waits. Split in two
 * (mh_run_spawn_start, mh_run_spawn_wait), a program may also start in the
 * background while another runs (its start-up overlapping that run, its GPU
 * work held at the start gate): it gets the terminal when it is waited for,
 * signals to memheat reach both, and mh_run_spawn_cancel ends one whose run
 * is no longer wanted (SIGTERM, SIGKILL after 3 s).
 *
 * Signals: the program runs in its own process group (its pgid is its pid),
 * which is given the terminal when memheat has it, so Ctrl-C and Ctrl-\ reach
 * the program, not memheat. SIGTERM, SIGINT, SIGHUP and SIGQUIT sent to
 * memheat itself (a job's time limit, a scheduler, kill) are forwarded to
 * the program's group; memheat waits for the program to end and then imports
 * what was collected (mh_run_interrupted says which signal came).
 *
 * Job control: Ctrl-Z stops the program's group (it has the terminal);
 * memheat sees the program stop (SIGTSTP, SIGTTIN, SIGTTOU) and stops too
 * (its own process group with SIGSTOP, as the terminal would have stopped
 * it, when it had the terminal; else only itself), so the shell gets its job
 * back. SIGTSTP sent to memheat is forwarded to the program's group, and
 * memheat stops once the program has. SIGCONT to memheat (the shell's fg or
 * bg, kill -CONT) is forwarded to the program's group, which gets the
 * terminal back when memheat is in the foreground. A program stopped by
 * SIGSTOP alone (a debugger, kill -STOP) does not stop memheat. SIGKILL of
 * memheat cannot be caught: the program gets SIGTERM from the kernel
 * (PR_SET_PDEATHSIG) instead of running on orphaned, and the trace it leaves
 * is imported later with `memheat import`. */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "run/run.h"

/* A signal handler can only reach static state: the groups to forward to
 * (the program in the foreground and one started early, waiting at the start
 * gate) and the last signal memheat received while a program ran (0 = none). */
#define NGROUPS 2
static volatile sig_atomic_t g_pgid[NGROUPS], g_signal;
/* memheat stopped itself with the program: the wait loop continues the
 * program once the terminal is back (so it does not stop again on SIGTTIN). */
static volatile sig_atomic_t g_selfstop;

static const int g_forwarded[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT};
#define NFWD (sizeof g_forwarded / sizeof g_forwarded[0])

static void forward(int sig) {
    g_signal = sig;
    for (int i = 0; i < NGROUPS; i++)
        if (g_pgid[i] > 0) kill(-(pid_t)g_pgid[i], sig);
}

/* SIGTSTP, SIGCONT: passed on to the program, not an interruption. */
static void forward_job(int sig) {
    int saved = errno;
    for (int i = 0; i < NGROUPS; i++)
        if (g_pgid[i] > 0 && !(sig == SIGCONT && g_selfstop)) kill(-(pid_t)g_pgid[i], sig);
    errno = saved;
}

static const int g_job[] = {SIGTSTP, SIGCONT};
#define NJOB (sizeof g_job / sizeof g_job[0])

int mh_run_interrupted(void) { return g_signal; }

/* memheat's own handlers while any program runs: installed by the first
 * start, put back when the last program is reaped. */
static struct sigaction g_old[NFWD], g_oldjc[NJOB];
static int g_running;

static void handlers_take(void) {
    if (g_running++) return;
    struct sigaction fw = {.sa_handler = forward}, jc = {.sa_handler = forward_job, .sa_flags = SA_RESTART};
    sigemptyset(&fw.sa_mask);
    sigemptyset(&jc.sa_mask);
    for (size_t i = 0; i < NFWD; i++) sigaction(g_forwarded[i], &fw, &g_old[i]);
    for (size_t i = 0; i < NJOB; i++) sigaction(g_job[i], &jc, &g_oldjc[i]);
}

static void handlers_give(void) {
    assert(g_running > 0);
    if (--g_running) return;
    for (size_t i = 0; i < NFWD; i++) sigaction(g_forwarded[i], &g_old[i], NULL);
    for (size_t i = 0; i < NJOB; i++) sigaction(g_job[i], &g_oldjc[i], NULL);
}

/* Whether memheat gave each group the terminal (not read by the handlers). */
static int g_gave[NGROUPS];

static void group_set(pid_t pg, int gave) {
    for (int i = 0; i < NGROUPS; i++)
        if (g_pgid[i] == 0) {
            g_pgid[i] = pg;
            g_gave[i] = gave;
            return;
        }
    assert(!"more programs at once than signal slots");
}

static int group_gave(pid_t pg) {
    for (int i = 0; i < NGROUPS; i++)
        if (g_pgid[i] == pg) return g_gave[i];
    return 0;
}

static void group_clear(pid_t pg) {
    for (int i = 0; i < NGROUPS; i++)
        if (g_pgid[i] == pg) g_pgid[i] = 0;
}

/* Gives the terminal on fd 0 to group pg when this process has it in the
 * foreground; returns 1 when it did. */
static int give_terminal(pid_t pg) {
    if (!isatty(STDIN_FILENO) || tcgetpgrp(STDIN_FILENO) != getpgrp()) return 0;
    struct sigaction ign = {.sa_handler = SIG_IGN}, old;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGTTOU, &ign, &old);
    int ok = tcsetpgrp(STDIN_FILENO, pg) == 0;
    sigaction(SIGTTOU, &old, NULL);
    return ok;
}

/* memheat has the terminal in the foreground. */
static int have_terminal(void) { return isatty(STDIN_FILENO) && tcgetpgrp(STDIN_FILENO) == getpgrp(); }

int mh_run_spawn_start(char *const *argv, char *const *extra_env, int foreground, long *child, mh_err *err) {
    int pfd[2];
    *child = 0;
    if (pipe(pfd) != 0) return mh_err_set(err, MH_ERR_IO, "pipe: %s", strerror(errno));
    fcntl(pfd[1], F_SETFD, FD_CLOEXEC);
    pid_t parent = getpid();
    int tty = foreground && have_terminal();
    handlers_take();
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(pfd[0]);
        close(pfd[1]);
        handlers_give();
        return mh_err_set(err, MH_ERR_IO, "fork: %s", strerror(e));
    }
    if (pid == 0) {
        setpgid(0, 0);
        if (tty) give_terminal(getpid());
        prctl(PR_SET_PDEATHSIG, SIGTERM); /* memheat killed (even SIGKILL): the program is told */
        if (getppid() != parent) _exit(128 + SIGTERM);
        for (size_t i = 0; i < NFWD; i++) sigaction(g_forwarded[i], &g_old[i], NULL);
        for (size_t i = 0; i < NJOB; i++) sigaction(g_job[i], &g_oldjc[i], NULL);
        close(pfd[0]);
        for (size_t i = 0; extra_env && extra_env[i]; i++) {
            char kv[8192];
            snprintf(kv, sizeof kv, "%s", extra_env[i]);
            char *eq = strchr(kv, '=');
            if (eq) {
                *eq = '\0';
                setenv(kv, eq + 1, 1);
            }
        }
        execvp(argv[0], argv);
        int e = errno;
        ssize_t ignored = write(pfd[1], &e, sizeof e);
        (void)ignored;
        _exit(127);
    }
    setpgid(pid, pid); /* also here: no window where a forwarded signal misses the group */
    int gave = tty && give_terminal(pid);
    group_set(pid, gave);
    if (g_signal) kill(-pid, g_signal); /* a signal before the group existed */
    close(pfd[1]);
    int child_errno = 0;
    ssize_t n;
    do n = read(pfd[0], &child_errno, sizeof child_errno);
    while (n < 0 && errno == EINTR);
    close(pfd[0]);
    if (n == (ssize_t)sizeof child_errno) {
        int ws;
        while (waitpid(pid, &ws, 0) < 0 && errno == EINTR) {}
        group_clear(pid);
        if (gave) give_terminal(getpgrp());
        handlers_give();
        return mh_err_set(err, MH_ERR_CHILD, "cannot run '%s': %s", argv[0], strerror(child_errno));
    }
    *child = pid;
    return MH_OK;
}

void mh_run_spawn_wait(long child, int *status) {
    pid_t pid = (pid_t)child, mypg = getpgrp();
    int ws = 0;
    int gave = group_gave(pid), ended = 0;
    if (!gave) {
        /* a program started in the background may have ended, or stopped
         * reading the terminal (SIGTTIN): it gets the terminal now, and is continued */
        int early = waitpid(pid, &ws, WUNTRACED | WNOHANG) == pid;
        ended = early && !WIFSTOPPED(ws);
        gave = !ended && have_terminal() && give_terminal(pid);
        if (early && !ended) kill(-pid, SIGCONT);
    }
    while (!ended) {
        pid_t w = waitpid(pid, &ws, WUNTRACED);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0 || !WIFSTOPPED(ws)) break;
        int why = WSTOPSIG(ws);
        if (why != SIGTSTP && why != SIGTTIN && why != SIGTTOU) continue; /* SIGSTOP alone: a debugger */
        /* the program stopped for job control: stop with it, as the terminal would have */
        if (gave) give_terminal(mypg);
        g_selfstop = 1;
        kill(gave ? 0 : getpid(), SIGSTOP);
        /* continued (fg, bg, kill -CONT): the terminal back to the program if in the foreground */
        g_selfstop = 0;
        if (gave) give_terminal(pid);
        kill(-pid, SIGCONT);
    }
    group_clear(pid);
    if (gave) give_terminal(mypg);
    handlers_give();
    if (WIFEXITED(ws)) *status = WEXITSTATUS(ws);
    else if (WIFSIGNALED(ws)) *status = 128 + WTERMSIG(ws);
    else *status = 1;
}

void mh_run_spawn_cancel(long child) {
    pid_t pid = (pid_t)child;
    kill(-pid, SIGTERM);
    kill(-pid, SIGCONT); /* stopped (SIGTTIN): it must run to end */
    int ws;
    for (int i = 0; i < 300; i++) { /* 3 s for its own clean-up, then SIGKILL */
        pid_t w = waitpid(pid, &ws, WNOHANG);
        if (w == pid || (w < 0 && errno != EINTR)) goto reaped;
        struct timespec step = {0, 10000000};
        nanosleep(&step, NULL);
    }
    kill(-pid, SIGKILL);
    while (waitpid(pid, &ws, 0) < 0 && errno == EINTR) {}
reaped:
    group_clear(pid);
    handlers_give();
}

int mh_run_spawn(char *const *argv, char *const *extra_env, int *status, mh_err *err) {
    long child;
    int rc = mh_run_spawn_start(argv, extra_env, 1, &child, err);
    if (rc != MH_OK) return rc;
    mh_run_spawn_wait(child, status);
    return MH_OK;
}
