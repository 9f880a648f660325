/* cupti_internal.h -- the injection library's one process-wide context, shared
 * by inject.c (activity records, callbacks, exit) and counters.c (range
 * profiling). Not a public header: only libmemheat_cupti.so includes it. */
#ifndef MEMHEAT_CUPTI_INTERNAL_H
#define MEMHEAT_CUPTI_INTERNAL_H

#include <cuda.h>
#include <cupti.h>
#include <pthread.h>
#include <stddef.h>

#include "collectors/timing_hook.h"
#include "memheat/timing.h"

enum { MH_CUPTI_TIMING = 0, MH_CUPTI_COUNTERS = 1 };

/* The steps of a range-profiling cycle whose host time is counted. */
enum { MH_PROF_INIT, MH_PROF_CONFIG, MH_PROF_START, MH_PROF_STOP, MH_PROF_DECODE, MH_PROF_EVAL, MH_PROF_STEPS };

typedef struct mh_cupti_prof mh_cupti_prof; /* A kernel launch call's function, geometry and stream. */
typedef struct mh_cupti_geom {
    CUfunction f;
    unsigned grid[3], block[3], smem;
    CUstream stream;
} mh_cupti_geom;

/* From the parameters of launch API `api` (enum mh_hook_api of
 * collectors/timing_hook.h); 0 for another API (events.c). */
int mh_cupti_launch_geometry(int api, const void *params, mh_cupti_geom *out);

/* counters.c */
typedef struct mh_cupti_ev mh_cupti_ev;     /* events.c */

typedef struct mh_cupti_ctx {
    pthread_mutex_t lock;        /* guards t, error, oom */
    int mode;                    /* MH_CUPTI_TIMING or MH_CUPTI_COUNTERS */
    int kernel_events;           /* timing mode: kernel times from events (1) or activity records (0) */
    int hosted;                  /* started by the CUDA collector's hook (no CUPTI callbacks) */
    int activity;                /* activity buffers registered (flushes are safe) */
    int copies_mode;             /* hosted: 1 copies timed with events (default), 0 not timed */
    int launches_mode;           /* hosted: 1 launches timed (default), 0 not (MEMHEAT_TIMING_LAUNCHES=0) */
    mh_cupti_ev *ev;             /* event timing state (events.c) */
    int no_holds;                /* MEMHEAT_TIMING_HOLD=0: idle streams not held (events.c) */
    char out_path[1024];         /* MEMHEAT_TIMING_OUT */
    CUpti_SubscriberHandle sub;
    mh_timing t;                 /* what is written at exit */
    int counters_too;            /* timing mode that also profiles the first launch of each configuration */
    mh_timing ctr;               /* counters_too: the profiled launches, joined onto t at exit */
    mh_timing *prof_out;         /* where profiled launches are recorded: &t (counters mode) or &ctr */
    char error[512];             /* first error, "" if none */
    int prof_unavailable;        /* counters cannot be read on this device/driver */
    int oom;
    int finished;
    size_t max_ranges;           /* ranges per counter-data image before a decode */
    mh_cupti_prof *prof;         /* range profiler of the (first) context: counters mode, or counters_too */
    uint64_t lost_launches;      /* profiled launches left without counters (counters.c: collect) */
    uint64_t lost_ranges;        /* the ranges of their images */
    char lost_first[128];        /* the first of them, by name */
    int setup_tries;             /* range-profiler set-ups attempted (at most 2) */
    int sample_config;           /* MEMHEAT_COUNTERS_SAMPLE=config: first launch of each configuration only */
    int debug;                   /* MEMHEAT_TIMING_DEBUG=1: the profiler's host time printed at exit */
    uint64_t prof_ns[MH_PROF_STEPS]; /* host time in each step of a profiling cycle (counters.c) */
    uint64_t prof_cycles;        /* profiler starts */
    double budget;               /* counters_too: the profiler's host time may reach this share of the run's */
    uint64_t began_ns;           /* when the process started (mh_clock_ns's clock) */
    uint64_t deferred_launches;  /* new configurations' launches left unprofiled: over the budget */
    uint64_t *configs_seen;      /* open-addressed hashes of the configurations profiled (0 = empty slot) */
    size_t nconfigs_seen, cap_configs_seen;
} mh_cupti_ctx;

/* counters.c */
/* Sets up range profiling on ctx; tried at context creation and, if that
 * failed, once more at the first launch (when the context is current). */
void mh_cupti_prof_context_created(mh_cupti_ctx *g, CUcontext ctx);
void mh_cupti_prof_after_launch(mh_cupti_ctx *g, CUcontext ctx);
/* With g->sample_config, at a launch call's entry: 1 when the launch is the
 * first of its (name, grid, block, dynamic shared memory) configuration and
 * is profiled (the profiler started if it was not), 0 when it runs
 * unprofiled (the profiler stopped and its ranges decoded first). Without
 * sampling every launch is profiled (1). */
int mh_cupti_prof_before_launch(mh_cupti_ctx *g, CUcontext ctx, const char *name, const mh_cupti_geom *geom);
/* At a graph launch's entry: the profiler is stopped (its ranges decoded) so
 * the graph's kernel nodes, which no launch callback records, make no range;
 * the next profiled launch starts it again. */
void mh_cupti_prof_before_graph(mh_cupti_ctx *g, CUcontext ctx);
void mh_cupti_prof_context_ending(mh_cupti_ctx *g, CUcontext ctx);
void mh_cupti_prof_finish(mh_cupti_ctx *g);
/* With g->debug: one line on stderr, the profiler's cycles and host time by step. */
void mh_cupti_prof_print_cost(const mh_cupti_ctx *g);

/* events.c (timing mode with kernel_events) */
/* api: enum mh_hook_api (collectors/timing_hook.h); params: that API's parameters.
 * At the exit: failed = the call returned an error, correlation = CUPTI's id
 * (0 when hosted), symbol and function = the launch's name and CUfunction
 * where the caller knows them (else NULL: taken from the call's parameters),
 * timed = enum mh_timed for the launch (MH_TIMED_CLEAN becomes MH_TIMED_GAP
 * when the stream was idle: events.c). */
/* At the entry of a driver launch or copy call, before the driver takes its
 * locks: reserves this thread's next start event (events.c). */
void mh_cupti_ev_prepare(mh_cupti_ctx *g);
void mh_cupti_ev_enter(mh_cupti_ctx *g, int api, const void *params);
/* At a launch call's entry (one run, a launch not traced): holds the launch's
 * stream when it is idle, so that the start event fires only once the kernel
 * is queued; mh_cupti_ev_release, after mh_cupti_ev_exit, lets it go. */
void mh_cupti_ev_hold(mh_cupti_ctx *g, int api, const void *params);
void mh_cupti_ev_release(mh_cupti_ctx *g);
uint64_t mh_cupti_ev_holds_forced(mh_cupti_ctx *g); /* holds the watchdog released */
void mh_cupti_ev_exit(mh_cupti_ctx *g, CUcontext ctx, int failed, uint32_t correlation, const char *symbol,
                      void *function, int timed);
void mh_cupti_ev_untimed(mh_cupti_ctx *g);
/* Hosted: a memcpy/memset about to be queued on stream, and its call's exit
 * on the same thread (timing_hook.h copy_begin/copy_end). */
void mh_cupti_ev_copy_begin(mh_cupti_ctx *g, CUcontext ctx, CUstream stream, int kind, uint64_t bytes,
                            uint32_t value);
void mh_cupti_ev_copy_end(mh_cupti_ctx *g, int failed);
void mh_cupti_ev_context_ending(mh_cupti_ctx *g, CUcontext ctx);
void mh_cupti_ev_finish(mh_cupti_ctx *g); /* lock held */

#endif
