/* spawn.c -- running the profiled program.
 *
 * mh_run_spawn forks and execs the program with extra environment variables,
 * reports an exec failure through a close-on-exec pipe (so "no such program"
 * is an error message, not a silent exit code 127), and waits. While the
 * program runs, memheat ignores SIGINT/SIGQUIT so that a Ctrl-C stops the
 * program, not memheat, and what was collected is still finished and kept. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "memheat/run.h"

int mh_run_spawn(char *const *argv, char *const *extra_env, int *status, mh_err *err) {
    int pfd[2];
    if (pipe(pfd) != 0) return mh_err_set(err, MH_ERR_IO, "pipe: %s", strerror(errno));
    fcntl(pfd[1], F_SETFD, FD_CLOEXEC);
    struct sigaction ign = {.sa_handler = SIG_IGN}, old_int, old_quit;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGINT, &ign, &old_int);
    sigaction(SIGQUIT, &ign, &old_quit);
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(pfd[0]);
        close(pfd[1]);
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGQUIT, &old_quit, NULL);
        return mh_err_set(err, MH_ERR_IO, "fork: %s", strerror(e));
    }
    if (pid == 0) {
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGQUIT, &old_quit, NULL);
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
    close(pfd[1]);
    int child_errno = 0;
    ssize_t n;
    do n = read(pfd[0], &child_errno, sizeof child_errno);
    while (n < 0 && errno == EINTR);
    close(pfd[0]);
    int ws = 0;
    while (waitpid(pid, &ws, 0) < 0 && errno == EINTR) {}
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    if (n == (ssize_t)sizeof child_errno)
        return mh_err_set(err, MH_ERR_CHILD, "cannot run '%s': %s", argv[0], strerror(child_errno));
    if (WIFEXITED(ws)) *status = WEXITSTATUS(ws);
    else if (WIFSIGNALED(ws)) *status = 128 + WTERMSIG(ws);
    else *status = 1;
    return MH_OK;
}
