/* clock.h -- the monotonic wall clock and a thread's CPU clock, for the
 * timings memheat measures itself (pass times, waits, the run's wall time).
 * Header only: three inline calls of clock_gettime. */
#ifndef MH_UTIL_CLOCK_H
#define MH_UTIL_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t mh_clock_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static inline double mh_clock_s(void) { return (double)mh_clock_ns() * 1e-9; }

/* CPU time of the calling thread so far, seconds. */
static inline double mh_clock_thread_cpu_s(void) {
    struct timespec t;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) != 0) return 0;
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

#endif
