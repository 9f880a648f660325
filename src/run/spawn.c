/* spawn.c -- running the profiled program.
 *
 * mh_run_spawn forks and execs the program with extra environment variables,
 * reports an exec failure through a close-on-exec pipe (so "no such program"
 * is an error message, not a silent exit code 127), and waits.
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
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run/run.h"

/* A signal handler can only reach static state: the group to forward to and
 * the last signal memheat received while a program ran (0 = none). */
static volatile sig_atomic_t g_pgid, g_signal;
/* memheat stopped itself with the program: the wait loop continues the
 * program once the terminal is back (so it does not stop again on SIGTTIN). */
static volatile sig_atomic_t g_selfstop;

static const int g_forwarded[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT};
#define NFWD (sizeof g_forwarded / sizeof g_forwarded[0])

static void forward(int sig) {
    g_signal = sig;
    if (g_pgid > 0) kill(-(pid_t)g_pgid, sig);
}

/* SIGTSTP, SIGCONT: passed on to the program, not an interruption. */
static void forward_job(int sig) {
    int saved = errno;
    if (g_pgid > 0 && !(sig == SIGCONT && g_selfstop)) kill(-(pid_t)g_pgid, sig);
    errno = saved;
}

static const int g_job[] = {SIGTSTP, SIGCONT};
#define NJOB (sizeof g_job / sizeof g_job[0])

int mh_run_interrupted(void) { return g_signal; }

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

int mh_run_spawn(char *const *argv, char *const *extra_env, int *status, mh_err *err) {
    int pfd[2];
    if (pipe(pfd) != 0) return mh_err_set(err, MH_ERR_IO, "pipe: %s", strerror(errno));
    fcntl(pfd[1], F_SETFD, FD_CLOEXEC);
    struct sigaction fw = {.sa_handler = forward}, old[NFWD], jc = {.sa_handler = forward_job, .sa_flags = SA_RESTART},
                     oldjc[NJOB];
    sigemptyset(&fw.sa_mask);
    sigemptyset(&jc.sa_mask);
    pid_t parent = getpid(), mypg = getpgrp();
    int had_tty = isatty(STDIN_FILENO) && tcgetpgrp(STDIN_FILENO) == mypg;
    g_pgid = 0;
    for (size_t i = 0; i < NFWD; i++) sigaction(g_forwarded[i], &fw, &old[i]);
    for (size_t i = 0; i < NJOB; i++) sigaction(g_job[i], &jc, &oldjc[i]);
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(pfd[0]);
        close(pfd[1]);
        for (size_t i = 0; i < NFWD; i++) sigaction(g_forwarded[i], &old[i], NULL);
        for (size_t i = 0; i < NJOB; i++) sigaction(g_job[i], &oldjc[i], NULL);
        return mh_err_set(err, MH_ERR_IO, "fork: %s", strerror(e));
    }
    if (pid == 0) {
        setpgid(0, 0);
        if (had_tty) give_terminal(getpid());
        prctl(PR_SET_PDEATHSIG, SIGTERM); /* memheat killed (even SIGKILL): the program is told */
        if (getppid() != parent) _exit(128 + SIGTERM);
        for (size_t i = 0; i < NFWD; i++) sigaction(g_forwarded[i], &old[i], NULL);
        for (size_t i = 0; i < NJOB; i++) sigaction(g_job[i], &oldjc[i], NULL);
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
    g_pgid = pid;
    if (g_signal) kill(-pid, g_signal); /* a signal before the group existed */
    int gave = had_tty && give_terminal(pid);
    close(pfd[1]);
    int child_errno = 0;
    ssize_t n;
    do n = read(pfd[0], &child_errno, sizeof child_errno);
    while (n < 0 && errno == EINTR);
    close(pfd[0]);
    int ws = 0;
    for (;;) {
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
    g_pgid = 0;
    if (gave) give_terminal(mypg);
    for (size_t i = 0; i < NFWD; i++) sigaction(g_forwarded[i], &old[i], NULL);
    for (size_t i = 0; i < NJOB; i++) sigaction(g_job[i], &oldjc[i], NULL);
    if (n == (ssize_t)sizeof child_errno)
        return mh_err_set(err, MH_ERR_CHILD, "cannot run '%s': %s", argv[0], strerror(child_errno));
    if (WIFEXITED(ws)) *status = WEXITSTATUS(ws);
    else if (WIFSIGNALED(ws)) *status = 128 + WTERMSIG(ws);
    else *status = 1;
    return MH_OK;
}
