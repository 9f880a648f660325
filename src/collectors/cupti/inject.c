/* inject.c -- libmemheat_cupti.so: the timing pass's injection library.
 *
 * Loaded into the profiled program through CUDA_INJECTION64_PATH; CUDA calls
 * InitializeInjection() at cuInit. Two modes, chosen by MEMHEAT_TIMING_MODE:
 *   "timing"   (default) nothing instrumented or replayed: memcpy and memset
 *              records from the Activity API (GPU start/end timestamps), and
 *              kernel times from CONCURRENT_KERNEL activity records (the
 *              times PyTorch's profiler and Nsight Systems show; every kernel
 *              node of a CUDA graph has its own), or, with
 *              MEMHEAT_TIMING_KERNELS=events, from CUDA events recorded
 *              around each driver launch (events.c; see docs/timing.md).
 *              With MEMHEAT_TIMING_COUNTERS=config the same run also
 *              profiles the first launch of each configuration (counters.c,
 *              one pass, as it runs) and joins its counters onto every
 *              activity record of that configuration at exit.
 *   "counters" CUPTI range profiling, auto range + kernel replay: each kernel
 *              launch is one range, replayed as many passes as the metrics need
 *              (counters.c). Launch names are taken from launch callbacks.
 * Hosted (one run of the program): the CUDA collector loads this library and
 * calls memheat_timing_attach() instead (collectors/timing_hook.h): no CUPTI
 * callbacks (the Sanitizer holds the one subscription), launches forwarded to
 * events.c by the CUDA collector, copy records asked per context.
 * At exit (or when a context is destroyed) the results go to MEMHEAT_TIMING_OUT
 * as a memheat-timing JSON file (include/memheat/timing.h, docs/timing.md).
 *
 * CUPTI's callbacks carry no user state that survives to atexit, so this file
 * keeps ONE process-wide context struct, `G`; nothing else is global (plus one
 * thread-local flag that pairs a runtime launch with the driver launch under it). */
#include <cuda.h>
#include <cupti.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collectors/cupti/cupti_internal.h"
#include "util/clock.h"
#include "memheat/collect.h"
#include "memheat/timing.h"

#define MH_ACT_BUF (8u << 20)

static mh_cupti_ctx G = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* 1 while a runtime launch on this thread already recorded its driver launch. */
static _Thread_local int tl_driver_recorded;

static void note_error(const char *what, CUptiResult r) {
    const char *s = NULL;
    cuptiGetResultString(r, &s);
    pthread_mutex_lock(&G.lock);
    if (!G.error[0]) snprintf(G.error, sizeof G.error, "%s: %s", what, s ? s : "unknown CUPTI error");
    pthread_mutex_unlock(&G.lock);
}

/* ---- device attributes ------------------------------------------------ */

static void add_device(uint32_t ordinal) {
    CUdevice dev;
    if (cuDeviceGet(&dev, (int)ordinal) != CUDA_SUCCESS) return;
    mh_timing_device d;
    memset(&d, 0, sizeof d);
    d.id = ordinal;
    cuDeviceGetName(d.name, sizeof d.name - 1, dev);
    int v = 0;
#define ATTR(field, a)                                                  \
    do {                                                                \
        if (cuDeviceGetAttribute(&v, a, dev) == CUDA_SUCCESS && v >= 0) \
            d.field = (uint32_t)v;                                      \
    } while (0)
    ATTR(cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    ATTR(cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    ATTR(sm_count, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    ATTR(sm_clock_khz, CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
    ATTR(mem_clock_khz, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
    ATTR(bus_width_bits, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
    ATTR(max_threads_per_sm, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
#undef ATTR
    if (cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, dev) == CUDA_SUCCESS && v > 0)
        d.l2_bytes = (uint64_t)v;
    size_t mem = 0;
    if (cuDeviceTotalMem(&mem, dev) == CUDA_SUCCESS) d.global_mem_bytes = mem;
    pthread_mutex_lock(&G.lock);
    if (mh_timing_add_device(&G.t, &d) < 0) G.oom = 1;
    pthread_mutex_unlock(&G.lock);
}

/* ---- activity buffers (timing mode) ----------------------------------- */

static void CUPTIAPI buf_requested(uint8_t **buffer, size_t *size, size_t *max_records) {
    void *p = NULL;
    if (posix_memalign(&p, 8, MH_ACT_BUF) != 0) p = NULL;
    *buffer = p;
    *size = p ? MH_ACT_BUF : 0;
    *max_records = 0;
}

static int copy_kind(uint8_t k) {
    switch (k) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return MH_COPY_HTOD;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return MH_COPY_DTOH;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return MH_COPY_DTOD;
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return MH_COPY_HTOH;
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return MH_COPY_PTOP;
    default: return MH_COPY_OTHER;
    }
}

static void take_record(CUpti_Activity *rec) {
    switch (rec->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        CUpti_ActivityKernel10 *a = (CUpti_ActivityKernel10 *)rec;
        mh_timing_kernel *k = mh_timing_add_kernel(&G.t, a->name);
        if (!k) {
            G.oom = 1;
            return;
        }
        k->device = a->deviceId;
        k->context = a->contextId;
        k->stream = a->streamId;
        k->correlation = a->correlationId;
        k->start_ns = a->start;
        k->end_ns = a->end >= a->start ? a->end : a->start;
        k->grid[0] = (uint32_t)a->gridX, k->grid[1] = (uint32_t)a->gridY, k->grid[2] = (uint32_t)a->gridZ;
        k->block[0] = (uint32_t)a->blockX, k->block[1] = (uint32_t)a->blockY, k->block[2] = (uint32_t)a->blockZ;
        k->dyn_smem = (uint32_t)a->dynamicSharedMemory;
        k->static_smem = (uint32_t)a->staticSharedMemory;
        k->regs = a->registersPerThread;
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
        CUpti_ActivityMemcpy6 *a = (CUpti_ActivityMemcpy6 *)rec;
        mh_timing_copy *c = mh_timing_add_copy(&G.t);
        if (!c) {
            G.oom = 1;
            return;
        }
        c->kind = copy_kind(a->copyKind);
        c->device = a->deviceId, c->context = a->contextId, c->stream = a->streamId;
        c->correlation = a->correlationId;
        c->start_ns = a->start;
        c->end_ns = a->end >= a->start ? a->end : a->start;
        c->bytes = a->bytes;
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
        CUpti_ActivityMemset4 *a = (CUpti_ActivityMemset4 *)rec;
        mh_timing_copy *c = mh_timing_add_copy(&G.t);
        if (!c) {
            G.oom = 1;
            return;
        }
        c->kind = MH_COPY_MEMSET;
        c->device = a->deviceId, c->context = a->contextId, c->stream = a->streamId;
        c->correlation = a->correlationId;
        c->start_ns = a->start;
        c->end_ns = a->end >= a->start ? a->end : a->start;
        c->bytes = a->bytes;
        c->value = a->value;
        break;
    }
    default: break;
    }
}

static void CUPTIAPI buf_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size, size_t valid) {
    (void)ctx, (void)stream, (void)size;
    CUpti_Activity *rec = NULL;
    pthread_mutex_lock(&G.lock);
    while (cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS) take_record(rec);
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) == CUPTI_SUCCESS) G.t.dropped_records += dropped;
    pthread_mutex_unlock(&G.lock);
    free(buffer);
}

/* ---- callbacks -------------------------------------------------------- */

/* Counters mode: this thread's launch call is profiled (decided at its entry). */
static _Thread_local int tl_profiled;
static _Thread_local mh_cupti_geom tl_geom;
static _Thread_local int tl_have_geom;

static void record_launch(const CUpti_CallbackData *cb) {
    uint32_t dev = 0, ctx_id = 0;
    cuptiGetDeviceId(cb->context, &dev);
    cuptiGetContextId(cb->context, &ctx_id);
    pthread_mutex_lock(&G.lock);
    mh_timing_kernel *k = mh_timing_add_kernel(G.prof_out, cb->symbolName ? cb->symbolName : "?");
    if (k) {
        k->device = dev;
        k->context = ctx_id;
        k->correlation = cb->correlationId;
        if (tl_have_geom) { /* a configuration's record: joined to its launches by configuration */
            memcpy(k->grid, tl_geom.grid, sizeof k->grid);
            memcpy(k->block, tl_geom.block, sizeof k->block);
            k->dyn_smem = tl_geom.smem;
        }
    } else {
        G.oom = 1;
    }
    pthread_mutex_unlock(&G.lock);
    mh_cupti_prof_after_launch(&G, cb->context);
}

/* The launch entry point of a CUPTI driver callback id (timing_hook.h). */
static int hook_api(CUpti_CallbackId id) {
    switch (id) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel: return MH_HOOK_KERNEL;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: return MH_HOOK_KERNEL_PTSZ;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel: return MH_HOOK_COOP;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz: return MH_HOOK_COOP_PTSZ;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx: return MH_HOOK_EX;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: return MH_HOOK_EX_PTSZ;
    default: return MH_HOOK_NONE;
    }
}

static void CUPTIAPI on_callback(void *ud, CUpti_CallbackDomain dom, CUpti_CallbackId id, const void *data) {
    (void)ud;
    int profiling = G.mode == MH_CUPTI_COUNTERS || G.counters_too; /* launches go to the range profiler */
    if (dom == CUPTI_CB_DOMAIN_RESOURCE) {
        const CUpti_ResourceData *rd = data;
        if (id == CUPTI_CBID_RESOURCE_CONTEXT_CREATED) {
            uint32_t dev = 0;
            if (cuptiGetDeviceId(rd->context, &dev) == CUPTI_SUCCESS) add_device(dev);
            if (profiling) mh_cupti_prof_context_created(&G, rd->context);
        } else if (id == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) {
            if (profiling) mh_cupti_prof_context_ending(&G, rd->context);
            if (G.mode == MH_CUPTI_TIMING) cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
            if (G.kernel_events) mh_cupti_ev_context_ending(&G, rd->context);
        }
        return;
    }
    const CUpti_CallbackData *cb = data;
    if (dom == CUPTI_CB_DOMAIN_RUNTIME_API) {
        if (cb->callbackSite == CUPTI_API_ENTER) {
            tl_driver_recorded = 0;
            tl_have_geom = 0;
            if (!G.prof && G.mode == MH_CUPTI_COUNTERS && cb->context) mh_cupti_prof_context_created(&G, cb->context);
        } else if (!tl_driver_recorded) {
            const int *rv = cb->functionReturnValue; /* cudaError_t */
            if (rv && *rv != 0) return;
            /* sampled: a launch of no known configuration is not recorded (its range, if any, is dropped) */
            if (G.mode == MH_CUPTI_COUNTERS && !G.sample_config) record_launch(cb);
            else mh_cupti_ev_untimed(&G); /* no driver launch seen: no events around it */
        }
        return;
    }
    if (dom == CUPTI_CB_DOMAIN_DRIVER_API && cb->callbackSite == CUPTI_API_ENTER) {
        if (!profiling) {
            mh_cupti_ev_prepare(&G);
            mh_cupti_ev_enter(&G, hook_api(id), cb->functionParams);
        }
        else {
            if (!G.prof) mh_cupti_prof_context_created(&G, cb->context);
            if (id == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch || id == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz) {
                mh_cupti_prof_before_graph(&G, cb->context);
                tl_profiled = 0; /* its kernel nodes are not recorded (and make no range) */
                return;
            }
            int geom = mh_cupti_launch_geometry(hook_api(id), cb->functionParams, &tl_geom);
            CUstreamCaptureStatus cap = CU_STREAM_CAPTURE_STATUS_NONE;
            if (geom && cuStreamIsCapturing(tl_geom.stream, &cap) == CUDA_SUCCESS &&
                cap != CU_STREAM_CAPTURE_STATUS_NONE) {
                tl_profiled = 0; /* captured into a graph, not run: no range, no record */
                return;
            }
            tl_have_geom = G.sample_config && geom;
            tl_profiled = mh_cupti_prof_before_launch(&G, cb->context, cb->symbolName, tl_have_geom ? &tl_geom : NULL);
        }
        return;
    }
    if (dom == CUPTI_CB_DOMAIN_DRIVER_API && cb->callbackSite == CUPTI_API_EXIT) {
        const CUresult *rv = cb->functionReturnValue;
        if (!profiling)
            mh_cupti_ev_exit(&G, cb->context, rv && *rv != CUDA_SUCCESS, cb->correlationId, cb->symbolName, NULL,
                             MH_TIMED_CLEAN);
        else if ((!rv || *rv == CUDA_SUCCESS) && tl_profiled) record_launch(cb);
        tl_have_geom = 0;
        tl_driver_recorded = 1;
    }
}

/* Enables the launch callbacks of one domain: every callback whose name says
 * it launches a kernel (so new launch entry points of later CUDA versions are
 * covered without a list of ids). */
static void enable_launch_callbacks(CUpti_CallbackDomain dom, uint32_t max_id, int graphs) {
    for (uint32_t id = 1; id < max_id; id++) {
        const char *name = NULL;
        if (cuptiGetCallbackName(dom, id, &name) != CUPTI_SUCCESS || !name) continue;
        int launch = strstr(name, "LaunchKernel") || strstr(name, "LaunchCooperativeKernel") ||
                     strcmp(name, "cuLaunchGrid") == 0 || strcmp(name, "cuLaunchGridAsync") == 0 ||
                     (graphs && strstr(name, "GraphLaunch") && dom == CUPTI_CB_DOMAIN_DRIVER_API);
        if (!launch || strstr(name, "Multi")) continue;
        cuptiEnableCallback(1, G.sub, dom, id);
    }
}

/* ---- exit ------------------------------------------------------------- */

/* counters_too, lock held: the kernels the profiler queued itself (WaitNs,
 * in a profiled launch's call) dropped, then the profiled launches' counters
 * onto the activity records, each given to every launch of its configuration
 * (merge.c); a join that fails is the counters' status, never the timing's. */
static void join_counters(void) {
    mh_err err;
    mh_err_clear(&err);
    if (mh_timing_drop_profiler_kernels(&G.t, &G.ctr) < 0) G.oom = 1;
    mh_timing_counter_info *ci = &G.t.counters;
    if (mh_timing_merge_counters(&G.t, &G.ctr, &err) != MH_OK) {
        ci->requested = 1;
        snprintf(ci->status, sizeof ci->status, "failed");
        snprintf(ci->message, sizeof ci->message, "%s", err.msg);
    } else if (G.deferred_launches) {
        size_t n = strlen(ci->message);
        snprintf(ci->message + n, sizeof ci->message - n, "%s%llu launch%s of new configurations ran unprofiled, "
                 "the profiler's budget (%.0f%% of the run's time) spent: MEMHEAT_COUNTERS_BUDGET=0 lifts it, "
                 "--counters counts every launch in a run of its own", n ? "; " : "",
                 (unsigned long long)G.deferred_launches, G.deferred_launches == 1 ? "" : "es", 100.0 * G.budget);
    }
}

static void finish(void) {
    pthread_mutex_lock(&G.lock);
    int done = G.finished;
    G.finished = 1;
    pthread_mutex_unlock(&G.lock);
    if (done) return;
    if (G.mode == MH_CUPTI_COUNTERS || G.counters_too) {
        mh_cupti_prof_finish(&G);
        if (G.debug) mh_cupti_prof_print_cost(&G);
    }
    if (G.mode == MH_CUPTI_TIMING && G.activity) cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    pthread_mutex_lock(&G.lock);
    mh_timing *t = &G.t;
    if (G.kernel_events) mh_cupti_ev_finish(&G);
    if (G.debug && G.hosted)
        fprintf(stderr, "memheat: timing: %llu idle-stream holds released by the watchdog\n",
                (unsigned long long)mh_cupti_ev_holds_forced(&G));
    if (G.mode == MH_CUPTI_COUNTERS || G.counters_too) {
        mh_timing_counter_info *ci = &G.prof_out->counters;
        ci->requested = 1;
        if (G.error[0]) {
            snprintf(ci->status, sizeof ci->status, "%s", G.prof_unavailable ? "unavailable" : "failed");
            snprintf(ci->message, sizeof ci->message, "%s", G.error);
        } else if (G.lost_launches) {
            snprintf(ci->status, sizeof ci->status, "partial");
            snprintf(ci->message, sizeof ci->message,
                     "%llu profiled launch%s (the first %.100s) got no counters: their %llu range%s did not pair "
                     "one to one with them; every other launch keeps its own",
                     (unsigned long long)G.lost_launches, G.lost_launches == 1 ? "" : "es", G.lost_first,
                     (unsigned long long)G.lost_ranges, G.lost_ranges == 1 ? "" : "s");
        } else {
            snprintf(ci->status, sizeof ci->status, "ok");
        }
        if (G.counters_too) join_counters();
    } else if (G.error[0]) {
        snprintf(t->counters.message, sizeof t->counters.message, "%s", G.error);
    }
    if (G.oom) snprintf(t->counters.message, sizeof t->counters.message, "out of memory: records lost");
    if (G.mode == MH_CUPTI_TIMING) mh_timing_sort(t);
    mh_err err;
    mh_err_clear(&err);
    if (mh_timing_save(t, NULL, G.out_path, &err) != MH_OK) fprintf(stderr, "memheat: %s\n", err.msg);
    pthread_mutex_unlock(&G.lock);
}

/* ---- a program that dies on a signal ---------------------------------- */

/* Best effort to keep what was collected when the program crashes: write the
 * file, then die of the same signal. Not async-signal-safe (CUPTI, malloc),
 * so an alarm ends the process if saving hangs. Installed only where the
 * program has no handler of its own at the time CUDA starts. */
static void on_fatal(int sig) {
    alarm(10);
    finish();
    raise(sig); /* SA_RESETHAND put the default action back */
}

static void catch_fatal_signals(void) {
    static const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction old;
        if (sigaction(sigs[i], NULL, &old) != 0 || old.sa_handler != SIG_DFL) continue;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_fatal;
        sa.sa_flags = SA_RESETHAND | SA_NODEFER;
        sigemptyset(&sa.sa_mask);
        sigaction(sigs[i], &sa, NULL);
    }
}

/* ---- entry ------------------------------------------------------------ */

/* The only symbol the library exports (the rest is hidden by the build). */
__attribute__((visibility("default"))) int InitializeInjection(void);

/* When this process started, on mh_clock_ns's clock: from its start time in
 * /proc/self/stat and the uptime (both since boot); now when unknown. The
 * profiler's budget is a share of the program's whole run, its start-up
 * (before CUDA) included. */
static uint64_t process_began_ns(void) {
    uint64_t now = mh_clock_ns();
    char buf[1024];
    double up = 0;
    unsigned long long start = 0;
    FILE *f = fopen("/proc/uptime", "r");
    int ok = f && fscanf(f, "%lf", &up) == 1;
    if (f) fclose(f);
    f = fopen("/proc/self/stat", "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f) fclose(f);
    buf[n] = '\0';
    const char *p = strrchr(buf, ')'); /* the name may hold spaces: fields count from after it */
    for (int field = 2; ok && p && field < 22; field++) p = strchr(p + 1, ' ');
    ok = ok && p && sscanf(p + 1, "%llu", &start) == 1;
    long hz = sysconf(_SC_CLK_TCK);
    double since = ok && hz > 0 ? up - (double)start / (double)hz : 0;
    return since > 0 && since * 1e9 < (double)now ? now - (uint64_t)(since * 1e9) : now;
}

/* What both entries share: the output path, the mode, the file's header
 * fields. Returns 0 when the collector has nothing to do. */
/* hosted: started by the CUDA collector (one run), which forwards launches:
 * timing mode, kernels timed with events. Standalone: the mode from
 * MEMHEAT_TIMING_MODE, kernels timed from CUPTI's activity records unless
 * MEMHEAT_TIMING_KERNELS=events. */
static int start_common(int hosted) {
    const char *out = getenv("MEMHEAT_TIMING_OUT");
    if (!out || !*out) {
        fprintf(stderr, "memheat: MEMHEAT_TIMING_OUT is not set; the timing collector does nothing\n");
        return 0;
    }
    /* one timing file per process: the first takes the path, later ones <stem>.<pid>.json (collect.h) */
    mh_err cerr;
    if (mh_collect_claim(out, G.out_path, sizeof G.out_path, &cerr) != MH_OK) {
        fprintf(stderr, "memheat: timing collector: %s\n", cerr.msg);
        return 0;
    }
    const char *mode = getenv("MEMHEAT_TIMING_MODE");
    G.mode = (!hosted && mode && strcmp(mode, "counters") == 0) ? MH_CUPTI_COUNTERS : MH_CUPTI_TIMING;
    const char *kt = getenv("MEMHEAT_TIMING_KERNELS");
    G.kernel_events = G.mode == MH_CUPTI_TIMING && (hosted || (kt && strcmp(kt, "events") == 0));
    mh_timing_init(&G.t);
    snprintf(G.t.producer, sizeof G.t.producer, "memheat-cupti %s",
             G.mode == MH_CUPTI_COUNTERS ? "counters" : "timing");
    snprintf(G.t.kernel_timing, sizeof G.t.kernel_timing, "%s",
             G.mode == MH_CUPTI_COUNTERS ? "none" : G.kernel_events ? "events" : "activity");
    const char *cmd = getenv("MEMHEAT_COMMAND");
    if (cmd) snprintf(G.t.command, sizeof G.t.command, "%s", cmd);
    const char *smp = getenv("MEMHEAT_COUNTERS_SAMPLE");
    G.sample_config = G.mode == MH_CUPTI_COUNTERS && smp && strcmp(smp, "config") == 0;
    /* the timing run that also profiles the first launch of each configuration */
    const char *tc = getenv("MEMHEAT_TIMING_COUNTERS");
    G.counters_too = G.mode == MH_CUPTI_TIMING && !hosted && !G.kernel_events && tc && strcmp(tc, "config") == 0;
    G.prof_out = &G.t;
    if (G.counters_too) {
        G.sample_config = 1;
        mh_timing_init(&G.ctr);
        G.prof_out = &G.ctr;
        /* MEMHEAT_COUNTERS_BUDGET: percent of the run's time the profiler may take (default 20; 0: no limit) */
        const char *bud = getenv("MEMHEAT_COUNTERS_BUDGET");
        G.budget = (bud && *bud ? strtod(bud, NULL) : 20.0) / 100.0;
        G.began_ns = process_began_ns();
    }
    const char *dbg = getenv("MEMHEAT_TIMING_DEBUG");
    G.debug = dbg && *dbg == '1';
    const char *rng = getenv("MEMHEAT_COUNTER_RANGES");
    G.max_ranges = rng ? (size_t)strtoul(rng, NULL, 10) : 0;
    if (G.max_ranges == 0) G.max_ranges = 256;
    return 1;
}

/* Memcpy and memset records from the Activity API (no subscriber needed). */
static CUptiResult enable_copy_activity(void) {
    CUptiResult r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY);
    if (r == CUPTI_SUCCESS) r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET);
    return r;
}

__attribute__((visibility("default"))) int InitializeInjection(void) {
    if (!start_common(0)) return 1;
    CUptiResult r = cuptiSubscribe(&G.sub, on_callback, NULL);
    if (r != CUPTI_SUCCESS) {
        note_error("cuptiSubscribe", r);
        G.prof_unavailable = 1;
        atexit(finish);
        return 1;
    }
    cuptiEnableCallback(1, G.sub, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED);
    cuptiEnableCallback(1, G.sub, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING);
    if (G.mode == MH_CUPTI_TIMING) {
        r = cuptiActivityRegisterCallbacks(buf_requested, buf_completed);
        G.activity = r == CUPTI_SUCCESS;
        if (G.kernel_events) {
            /* driver launches only (the runtime launches through them; no
             * runtime callbacks keeps the per-launch cost down); graph
             * launches run kernels no event brackets: counted as untimed */
            enable_launch_callbacks(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE, 1);
        } else if (r == CUPTI_SUCCESS) {
            r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
            /* driver launches decide what the profiler counts; graph launches stop it */
            if (G.counters_too) enable_launch_callbacks(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE, 1);
        }
        if (r == CUPTI_SUCCESS) r = enable_copy_activity();
        if (r != CUPTI_SUCCESS) note_error("enabling CUPTI activity records", r);
    } else {
        enable_launch_callbacks(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE, 0);
        enable_launch_callbacks(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE, 1);
    }
    atexit(finish);
    catch_fatal_signals();
    return 1;
}

/* ---- hosted by the CUDA collector (one run: timing_hook.h) --------------- */

static void hook_enter(int api, const void *params) {
    if (!G.finished && G.launches_mode) mh_cupti_ev_enter(&G, api, params);
}

static void hook_prepare(void) {
    if (!G.finished && (G.launches_mode || G.copies_mode)) mh_cupti_ev_prepare(&G);
}

static void hook_hold(int api, const void *params) {
    if (!G.finished && G.launches_mode && !G.no_holds) mh_cupti_ev_hold(&G, api, params);
}

static void hook_exit(int api, void *ctx, int failed, int traced, const char *symbol, void *function) {
    (void)api;
    if (!G.finished && G.launches_mode)
        mh_cupti_ev_exit(&G, ctx, failed, 0, symbol, function, traced ? MH_TIMED_INSTRUMENTED : MH_TIMED_CLEAN);
    mh_cupti_ev_release(&G); /* after the end event: the held stream runs start, kernel, end */
}

static void hook_context_created(void *ctx, int device) {
    (void)ctx;
    add_device((uint32_t)device);
}

static void hook_copy_begin(void *ctx, void *stream, int kind, uint64_t bytes, uint32_t value) {
    if (!G.finished && G.copies_mode) mh_cupti_ev_copy_begin(&G, ctx, stream, kind, bytes, value);
}

static void hook_copy_end(int failed) {
    if (!G.finished && G.copies_mode) mh_cupti_ev_copy_end(&G, failed);
}

static void hook_context_ending(void *ctx) {
    if (G.activity) cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    mh_cupti_ev_context_ending(&G, ctx);
}

__attribute__((visibility("default"))) int memheat_timing_attach(mh_timing_hook *hook);

__attribute__((visibility("default"))) int memheat_timing_attach(mh_timing_hook *hook) {
    if (!hook) return 0;
    if (!start_common(1)) return 0; /* counters need CUPTI's callbacks: never hosted */
    G.hosted = 1;
    snprintf(G.t.producer, sizeof G.t.producer, "memheat-cupti timing (hosted by the CUDA collector)");
    /* Copies: CUPTI's activity buffers are refused beside the Sanitizer
     * (CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED, H100, CUDA 13.0), so
     * events bracket them as they do launches; MEMHEAT_TIMING_COPIES=0: not timed. */
    const char *cp = getenv("MEMHEAT_TIMING_COPIES");
    G.copies_mode = !(cp && *cp == '0');
    const char *kl = getenv("MEMHEAT_TIMING_LAUNCHES"); /* a diagnostic: 0 = launches not timed */
    G.launches_mode = !(kl && *kl == '0');
    const char *hl = getenv("MEMHEAT_TIMING_HOLD"); /* 0: idle streams are not held (launches there are gaps) */
    G.no_holds = hl && *hl == '0';
    *hook = (mh_timing_hook){.version = MH_TIMING_HOOK_VERSION, .launch_enter = hook_enter, .launch_exit = hook_exit,
                             .context_created = hook_context_created, .context_ending = hook_context_ending,
                             .copy_begin = hook_copy_begin, .copy_end = hook_copy_end,
                             .prepare = hook_prepare, .launch_hold = hook_hold};
    atexit(finish);
    catch_fatal_signals();
    return 1;
}
