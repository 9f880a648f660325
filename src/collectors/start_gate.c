/* start_gate.c -- the start gate (include/memheat/collect.h,
 * mh_collect_start_wait): a run of the program that `memheat run` started
 * while another run of it still uses the GPU waits here, at CUDA's
 * initialization, until that run has ended.
 *
 * The gate is a file: MEMHEAT_START_GATE=<path>:<pid> says to wait while
 * <path> exists and process <pid> (memheat) lives; memheat removes the file to
 * open the gate. A file, not an inherited descriptor, because the programs
 * that matter most here start their GPU work in children that close every
 * descriptor they did not open (Python's subprocess, launchers); the
 * environment reaches them all. The CUDA collector waits here
 * (InitializeInjection); the run layer makes and removes the file
 * (src/run/run_pass.c, mh_run_early_start). */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "memheat/collect.h"

void mh_collect_start_wait(void) {
    const char *v = getenv(MH_COLLECT_START_GATE_ENV);
    if (!v || !*v) return;
    const char *colon = strrchr(v, ':');
    char path[4096];
    if (!colon || colon == v || (size_t)(colon - v) >= sizeof path) return;
    memcpy(path, v, (size_t)(colon - v));
    path[colon - v] = '\0';
    long pid = strtol(colon + 1, NULL, 10);
    /* 2 ms steps: nothing against the seconds a start-up takes */
    struct timespec step = {0, 2000000};
    while (access(path, F_OK) == 0) {
        if (pid > 0 && kill((pid_t)pid, 0) != 0 && errno == ESRCH) break; /* memheat is gone: no one will open it */
        nanosleep(&step, NULL);
    }
}
