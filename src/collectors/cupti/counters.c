/* counters.c -- per-kernel hardware counters through CUPTI range profiling
 * (cupti_range_profiler.h + cupti_profiler_host.h, CUPTI 13), the library
 * Nsight Compute is built on.
 *
 * Auto range: every kernel launch profiled is one range. The metrics are
 * those that fit in ONE pass (choose_metrics), so every launch is counted
 * as it runs, once, in the program's own cache state (user replay with
 * nothing to replay); a set of several passes (MEMHEAT_COUNTERS_METRICS=all)
 * uses kernel replay, which saves and restores the memory a launch writes so
 * the program's results do not change. Ranges fill a counter-data image of
 * G.max_ranges entries; when it is full (checked after each launch) and at
 * exit, the image is decoded, each range's metrics are evaluated and given to
 * the launches recorded by inject.c in launch order (collect: only when
 * ranges and launches pair one to one), and the image is re-armed. A graph
 * launch stops the profiler first, so the kernel nodes no callback records
 * make no range. With MEMHEAT_COUNTERS_SAMPLE=config only the first launch
 * of each configuration is profiled: the profiler is stopped (its ranges
 * decoded) before a launch of a configuration seen already, started again
 * before a new one, and only profiled launches are recorded (the join gives
 * their counters to every launch of the configuration). In the timing run
 * (counters_too) a new configuration starts the profiler only while the
 * profiler's host time stays within g->budget of the run's time (a start
 * costs about 25 ms on an H200): over it, the launch runs unprofiled and a
 * later launch of the configuration may be counted. Only the first CUDA
 * context is profiled; launches in other contexts are listed without
 * counters.
 *
 * cupti_profiler_host.h includes the C++ header <string> although it declares
 * only C; compat/string (an empty file) lets this C file include it. */
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/cupti/cupti_internal.h"
#include "util/clock.h"

/* What memheat asks for, and where each value goes; in the order kept
 * while one replay pass holds them (choose_metrics). */
enum {
    M_DRAM_RD, M_DRAM_WR, M_TIME, M_FFMA, M_FADD, M_FMUL, M_LD_SEC, M_ST_SEC, M_LD_REQ, M_ST_REQ, M_WARPS, M_OCC,
    M_DFMA, M_DADD, M_DMUL, M_COUNT
};
static const char *const metric_names[M_COUNT] = {
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
    "gpu__time_duration.sum",
    "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "sm__warps_active.avg.per_cycle_active",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_dadd_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_dmul_pred_on.sum",
};

struct mh_cupti_prof {
    CUcontext ctx;
    uint32_t ctx_id;
    CUpti_RangeProfiler_Object *obj;
    CUpti_Profiler_Host_Object *host;
    uint8_t *avail;
    uint8_t *config;
    size_t config_size;
    uint8_t *image;
    size_t image_size;
    const char *names[M_COUNT]; /* the metrics this chip supports */
    int slot[M_COUNT];          /* names[i] is metric slot[i] */
    size_t n;
    size_t in_image;            /* launches since the last Start */
    size_t first;               /* g->prof_out->kernels index at the last Start: the image's launches follow */
    int started;
};

/* Records the first failure in g->error; returns 1 if r failed. */
static int failed(mh_cupti_ctx *g, const char *what, CUptiResult r) {
    if (r == CUPTI_SUCCESS) return 0;
    const char *s = NULL;
    cuptiGetResultString(r, &s);
    if (!g->error[0]) snprintf(g->error, sizeof g->error, "%s: %s", what, s ? s : "CUPTI error");
    if (r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES || r == CUPTI_ERROR_NOT_SUPPORTED ||
        r == CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED || r == CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED)
        g->prof_unavailable = 1;
    return 1;
}

static void collect(mh_cupti_ctx *g, mh_cupti_prof *p);
static int arm(mh_cupti_ctx *g, mh_cupti_prof *p);

static void prof_free(mh_cupti_prof *p) {
    if (!p) return;
    if (p->host) {
        CUpti_Profiler_Host_Deinitialize_Params hd = {CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE, NULL, p->host};
        cuptiProfilerHostDeinitialize(&hd);
    }
    free(p->avail);
    free(p->config);
    free(p->image);
    free(p);
}

/* Arms the counter-data image and starts collecting. */
static int arm(mh_cupti_ctx *g, mh_cupti_prof *p) {
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params ci;
    memset(&ci, 0, sizeof ci);
    ci.structSize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE;
    ci.pRangeProfilerObject = p->obj;
    ci.counterDataSize = p->image_size;
    ci.pCounterData = p->image;
    uint64_t t0 = mh_clock_ns();
    CUptiResult r = cuptiRangeProfilerCounterDataImageInitialize(&ci);
    g->prof_ns[MH_PROF_INIT] += mh_clock_ns() - t0;
    if (failed(g, "cuptiRangeProfilerCounterDataImageInitialize", r)) return -1;
    CUpti_RangeProfiler_SetConfig_Params sc;
    memset(&sc, 0, sizeof sc);
    sc.structSize = CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE;
    sc.pRangeProfilerObject = p->obj;
    sc.configSize = p->config_size;
    sc.pConfig = p->config;
    sc.counterDataImageSize = p->image_size;
    sc.pCounterDataImage = p->image;
    sc.range = CUPTI_AutoRange;
    /* one pass: the launch runs once, as the program runs it, and is
     * counted (user replay with nothing to replay: no memory saved and
     * restored, the program's own cache state); more: kernel replay */
    sc.replayMode = g->prof_out->counters.passes <= 1 ? CUPTI_UserReplay : CUPTI_KernelReplay;
    sc.maxRangesPerPass = g->max_ranges;
    sc.numNestingLevels = 1;
    sc.minNestingLevel = 1;
    sc.passIndex = 0;
    sc.targetNestingLevel = 1;
    t0 = mh_clock_ns();
    r = cuptiRangeProfilerSetConfig(&sc);
    g->prof_ns[MH_PROF_CONFIG] += mh_clock_ns() - t0;
    if (failed(g, "cuptiRangeProfilerSetConfig", r)) return -1;
    CUpti_RangeProfiler_Start_Params st = {CUpti_RangeProfiler_Start_Params_STRUCT_SIZE, NULL, p->obj};
    t0 = mh_clock_ns();
    r = cuptiRangeProfilerStart(&st);
    g->prof_ns[MH_PROF_START] += mh_clock_ns() - t0;
    g->prof_cycles++;
    if (failed(g, "cuptiRangeProfilerStart", r)) return -1;
    p->started = 1;
    p->in_image = 0;
    p->first = g->prof_out->nkernels;
    return 0;
}

static double val(const double *v, const int *have, int m) { return have[m] ? v[m] : NAN; }

/* The records of p's context in [p->first, end of g->prof_out->kernels): the
 * launches profiled since the image was armed. */
static size_t image_launches(const mh_cupti_ctx *g, const mh_cupti_prof *p) {
    size_t n = 0;
    for (size_t i = p->first; i < g->prof_out->nkernels; i++) n += g->prof_out->kernels[i].context == p->ctx_id;
    return n;
}

/* Stops, decodes and hands the ranges to the recorded launches (lock held). */
static void collect(mh_cupti_ctx *g, mh_cupti_prof *p) {
    if (!p->started) return;
    p->started = 0;
    CUpti_RangeProfiler_Stop_Params sp;
    memset(&sp, 0, sizeof sp);
    sp.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE;
    sp.pRangeProfilerObject = p->obj;
    uint64_t t0 = mh_clock_ns();
    CUptiResult r = cuptiRangeProfilerStop(&sp);
    g->prof_ns[MH_PROF_STOP] += mh_clock_ns() - t0;
    if (failed(g, "cuptiRangeProfilerStop", r)) return;
    if (!sp.isAllPassSubmitted) { /* user replay of a set that needs more passes: nothing to decode */
        snprintf(g->error, sizeof g->error, "the counters need %u replay passes and only one ran",
                 g->prof_out->counters.passes);
        return;
    }
    CUpti_RangeProfiler_DecodeData_Params dd;
    memset(&dd, 0, sizeof dd);
    dd.structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE;
    dd.pRangeProfilerObject = p->obj;
    t0 = mh_clock_ns();
    r = cuptiRangeProfilerDecodeData(&dd);
    g->prof_ns[MH_PROF_DECODE] += mh_clock_ns() - t0;
    if (failed(g, "cuptiRangeProfilerDecodeData", r)) return;
    g->prof_out->counters.ranges_dropped += dd.numOfRangeDropped;
    CUpti_RangeProfiler_GetCounterDataInfo_Params gi;
    memset(&gi, 0, sizeof gi);
    gi.structSize = CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE;
    gi.pCounterDataImage = p->image;
    gi.counterDataImageSize = p->image_size;
    if (failed(g, "cuptiRangeProfilerGetCounterDataInfo", cuptiRangeProfilerGetCounterDataInfo(&gi))) return;

    /* Auto ranges are numbered, not named after their kernel, so range r is
     * the r-th launch profiled since the image was armed. That holds only
     * when every range has its launch: a range of a kernel the callbacks did
     * not see (a launch entry point of a later CUDA) would shift every later
     * launch onto another kernel's counters, so an image whose range count
     * differs from its launch count gives no counters at all (its launches
     * are counted lost, the first one named). */
    size_t n = image_launches(g, p);
    if (gi.numTotalRanges != n) {
        g->lost_launches += n;
        g->lost_ranges += gi.numTotalRanges;
        for (size_t i = p->first; i < g->prof_out->nkernels && !g->lost_first[0]; i++)
            if (g->prof_out->kernels[i].context == p->ctx_id)
                snprintf(g->lost_first, sizeof g->lost_first, "%s", g->prof_out->kernels[i].name);
        return;
    }
    size_t next = p->first;
    t0 = mh_clock_ns();
    for (size_t r = 0; r < gi.numTotalRanges; r++) {
        while (g->prof_out->kernels[next].context != p->ctx_id) next++;
        double out[M_COUNT];
        CUpti_Profiler_Host_EvaluateToGpuValues_Params ev;
        memset(&ev, 0, sizeof ev);
        ev.structSize = CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE;
        ev.pHostObject = p->host;
        ev.pCounterDataImage = p->image;
        ev.counterDataImageSize = p->image_size;
        ev.rangeIndex = r;
        ev.ppMetricNames = p->names;
        ev.numMetrics = p->n;
        ev.pMetricValues = out;
        if (failed(g, "cuptiProfilerHostEvaluateToGpuValues", cuptiProfilerHostEvaluateToGpuValues(&ev))) return;
        double v[M_COUNT];
        int have[M_COUNT] = {0};
        for (size_t i = 0; i < p->n; i++) {
            v[p->slot[i]] = out[i];
            have[p->slot[i]] = 1;
        }
        mh_timing_kernel *k = &g->prof_out->kernels[next++];
        mh_timing_counters *c = &k->c;
        k->has_counters = 1;
        c->dram_read_bytes = val(v, have, M_DRAM_RD);
        c->dram_write_bytes = val(v, have, M_DRAM_WR);
        c->ld_requests = val(v, have, M_LD_REQ);
        c->ld_sectors = val(v, have, M_LD_SEC);
        c->st_requests = val(v, have, M_ST_REQ);
        c->st_sectors = val(v, have, M_ST_SEC);
        c->occupancy_pct = val(v, have, M_OCC);
        c->warps_per_sm = val(v, have, M_WARPS);
        c->flops_sp = val(v, have, M_FADD) + val(v, have, M_FMUL) + 2 * val(v, have, M_FFMA);
        c->flops_dp = val(v, have, M_DADD) + val(v, have, M_DMUL) + 2 * val(v, have, M_DFMA);
        c->replay_ns = val(v, have, M_TIME);
        g->prof_out->counters.ranges++;
    }
    g->prof_ns[MH_PROF_EVAL] += mh_clock_ns() - t0;
}

/* p->host: a new host object for chip (the old one, if any, released). */
static int host_new(mh_cupti_ctx *g, mh_cupti_prof *p, const char *chip) {
    if (p->host) {
        CUpti_Profiler_Host_Deinitialize_Params hd = {CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE, NULL,
                                                      p->host};
        cuptiProfilerHostDeinitialize(&hd);
        p->host = NULL;
    }
    CUpti_Profiler_Host_Initialize_Params hi;
    memset(&hi, 0, sizeof hi);
    hi.structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE;
    hi.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    hi.pChipName = chip;
    hi.pCounterAvailabilityImage = p->avail;
    if (failed(g, "cuptiProfilerHostInitialize", cuptiProfilerHostInitialize(&hi))) return -1;
    p->host = hi.pHostObject;
    return 0;
}

/* A fresh host object holding the metrics names[0, n): its config image in
 * p->config and the replay passes it needs in *passes. 0, or -1 (g->error
 * set where CUPTI failed). */
static int host_config(mh_cupti_ctx *g, mh_cupti_prof *p, const char *chip, const char **names, size_t n,
                       size_t *passes) {
    free(p->config);
    p->config = NULL;
    if (host_new(g, p, chip) != 0) return -1;
    CUpti_Profiler_Host_ConfigAddMetrics_Params am = {CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE, NULL,
                                                      p->host, names, n};
    if (failed(g, "cuptiProfilerHostConfigAddMetrics", cuptiProfilerHostConfigAddMetrics(&am))) return -1;
    CUpti_Profiler_Host_GetConfigImageSize_Params cs = {CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE,
                                                        NULL, p->host, 0};
    if (failed(g, "cuptiProfilerHostGetConfigImageSize", cuptiProfilerHostGetConfigImageSize(&cs))) return -1;
    p->config_size = cs.configImageSize;
    p->config = malloc(p->config_size ? p->config_size : 1);
    if (!p->config) {
        g->oom = 1;
        snprintf(g->error, sizeof g->error, "out of memory setting up range profiling");
        return -1;
    }
    CUpti_Profiler_Host_GetConfigImage_Params gc = {CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE, NULL,
                                                    p->host, p->config_size, p->config};
    if (failed(g, "cuptiProfilerHostGetConfigImage", cuptiProfilerHostGetConfigImage(&gc))) return -1;
    CUpti_Profiler_Host_GetNumOfPasses_Params np = {CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE, NULL,
                                                    p->config_size, p->config, 0};
    *passes = cuptiProfilerHostGetNumOfPasses(&np) == CUPTI_SUCCESS ? np.numOfPasses : 0;
    return 0;
}

/* The metrics profiled: those this chip knows, from the first of
 * metric_names on, each kept only while the set still takes ONE replay pass.
 * A kernel replayed over several passes has its memory restored between
 * them, and the DRAM bytes of a later pass count that traffic too: on a
 * PyTorch training step they came out 1.4-2.3x Nsight Compute's; in one
 * pass 18 of 25 kernels are within 10% of it (docs/timing.md). MEMHEAT_COUNTERS_METRICS
 * =all keeps every metric (several passes), =NAME,NAME... exactly those; never
 * in the timing run (counters_too), whose launches must run once. */
static int choose_metrics(mh_cupti_ctx *g, mh_cupti_prof *p, const char *chip) {
    const char *only = g->counters_too ? NULL : getenv("MEMHEAT_COUNTERS_METRICS");
    int all = only && strcmp(only, "all") == 0, listed = only && *only && !all;
    const char *known[M_COUNT];
    int kslot[M_COUNT];
    size_t nk = 0, passes = 0;
    if (host_new(g, p, chip) != 0) return -1;
    for (int m = 0; m < M_COUNT; m++) { /* an unknown metric must not cost the rest */
        if (listed && !strstr(only, metric_names[m])) continue;
        CUpti_Profiler_Host_GetMetricProperties_Params mp;
        memset(&mp, 0, sizeof mp);
        mp.structSize = CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE;
        mp.pHostObject = p->host;
        mp.pMetricName = metric_names[m];
        if (cuptiProfilerHostGetMetricProperties(&mp) != CUPTI_SUCCESS) continue;
        known[nk] = metric_names[m];
        kslot[nk++] = m;
    }
    if (nk == 0) {
        snprintf(g->error, sizeof g->error, "none of memheat's metrics is known for chip %s", chip);
        g->prof_unavailable = 1;
        return -1;
    }
    p->n = 0;
    for (size_t i = 0; i < nk; i++) {
        p->names[p->n] = known[i];
        p->slot[p->n] = kslot[i];
        if (all || listed || p->n == 0) { /* asked for, or the first: kept without a trial */
            p->n++;
            continue;
        }
        if (host_config(g, p, chip, p->names, p->n + 1, &passes) != 0) return -1;
        if (passes <= 1) p->n++;
    }
    if (host_config(g, p, chip, p->names, p->n, &passes) != 0) return -1;
    g->prof_out->counters.passes = (uint32_t)passes;
    char *m = g->prof_out->counters.metrics;
    size_t cap = sizeof g->prof_out->counters.metrics, at = 0;
    m[0] = '\0';
    for (size_t i = 0; i < p->n && at < cap; i++)
        at += (size_t)snprintf(m + at, cap - at, "%s%s", i ? "," : "", p->names[i]);
    return 0;
}

void mh_cupti_prof_context_created(mh_cupti_ctx *g, CUcontext ctx) {
    pthread_mutex_lock(&g->lock);
    if (g->prof || g->setup_tries >= 2 || !ctx) {
        pthread_mutex_unlock(&g->lock);
        return;
    }
    if (g->setup_tries++ == 1) g->error[0] = '\0'; /* the retry replaces the first failure */
    mh_cupti_prof *p = calloc(1, sizeof *p);
    if (!p) {
        g->oom = 1;
        pthread_mutex_unlock(&g->lock);
        return;
    }
    p->ctx = ctx;
    cuptiGetContextId(ctx, &p->ctx_id);
    uint32_t dev = 0;
    cuptiGetDeviceId(ctx, &dev);

    CUpti_Profiler_Initialize_Params pi = {CUpti_Profiler_Initialize_Params_STRUCT_SIZE, NULL};
    if (failed(g, "cuptiProfilerInitialize", cuptiProfilerInitialize(&pi))) goto fail;
    CUpti_RangeProfiler_Enable_Params en = {CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE, NULL, ctx, NULL};
    if (failed(g, "cuptiRangeProfilerEnable", cuptiRangeProfilerEnable(&en))) goto fail;
    p->obj = en.pRangeProfilerObject;

    CUpti_Profiler_GetCounterAvailability_Params ca;
    memset(&ca, 0, sizeof ca);
    ca.structSize = CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE;
    ca.ctx = ctx;
    if (failed(g, "cuptiProfilerGetCounterAvailability", cuptiProfilerGetCounterAvailability(&ca))) goto fail;
    p->avail = malloc(ca.counterAvailabilityImageSize ? ca.counterAvailabilityImageSize : 1);
    if (!p->avail) goto oom;
    ca.pCounterAvailabilityImage = p->avail;
    if (failed(g, "cuptiProfilerGetCounterAvailability", cuptiProfilerGetCounterAvailability(&ca))) goto fail;

    CUpti_Device_GetChipName_Params cn = {CUpti_Device_GetChipName_Params_STRUCT_SIZE, NULL, dev, NULL};
    if (failed(g, "cuptiDeviceGetChipName", cuptiDeviceGetChipName(&cn))) goto fail;

    if (choose_metrics(g, p, cn.pChipName) != 0) goto fail;

    CUpti_RangeProfiler_GetCounterDataSize_Params ds;
    memset(&ds, 0, sizeof ds);
    ds.structSize = CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE;
    ds.pRangeProfilerObject = p->obj;
    ds.pMetricNames = p->names;
    ds.numMetrics = p->n;
    ds.maxNumOfRanges = g->max_ranges;
    ds.maxNumRangeTreeNodes = (uint32_t)g->max_ranges;
    if (failed(g, "cuptiRangeProfilerGetCounterDataSize", cuptiRangeProfilerGetCounterDataSize(&ds))) goto fail;
    p->image_size = ds.counterDataSize;
    p->image = malloc(p->image_size ? p->image_size : 1);
    if (!p->image) goto oom;
    if (arm(g, p) != 0) goto fail;
    g->prof = p;
    pthread_mutex_unlock(&g->lock);
    return;
oom:
    g->oom = 1;
    snprintf(g->error, sizeof g->error, "out of memory setting up range profiling");
fail:
    if (p->obj) {
        CUpti_RangeProfiler_Disable_Params di = {CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE, NULL, p->obj};
        cuptiRangeProfilerDisable(&di);
    }
    prof_free(p);
    pthread_mutex_unlock(&g->lock);
}

/* FNV-1a of a launch configuration; never 0 (the empty slot). */
static uint64_t config_hash(const char *name, const mh_cupti_geom *geom) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (const unsigned char *c = (const unsigned char *)name; *c; c++) h = (h ^ *c) * 0x100000001b3ull;
    const unsigned dims[7] = {geom->grid[0], geom->grid[1], geom->grid[2], geom->block[0], geom->block[1],
                              geom->block[2], geom->smem};
    for (int i = 0; i < 7; i++) h = (h ^ dims[i]) * 0x100000001b3ull;
    return h ? h : 1;
}

/* 1 when configuration h was profiled already. Lock held. */
static int config_seen(const mh_cupti_ctx *g, uint64_t h) {
    if (!g->cap_configs_seen) return 0;
    size_t j = (size_t)(h % g->cap_configs_seen);
    while (g->configs_seen[j]) {
        if (g->configs_seen[j] == h) return 1;
        j = (j + 1) % g->cap_configs_seen;
    }
    return 0;
}

/* Adds h (not in the set) to the configurations profiled; -1 out of memory. Lock held. */
static int config_add(mh_cupti_ctx *g, uint64_t h) {
    if (2 * (g->nconfigs_seen + 1) > g->cap_configs_seen) {
        size_t cap = g->cap_configs_seen ? 2 * g->cap_configs_seen : 1024;
        uint64_t *t = calloc(cap, sizeof *t);
        if (!t) return -1;
        for (size_t i = 0; i < g->cap_configs_seen; i++) {
            uint64_t v = g->configs_seen[i];
            if (!v) continue;
            size_t j = (size_t)(v % cap);
            while (t[j]) j = (j + 1) % cap;
            t[j] = v;
        }
        free(g->configs_seen);
        g->configs_seen = t;
        g->cap_configs_seen = cap;
    }
    size_t j = (size_t)(h % g->cap_configs_seen);
    while (g->configs_seen[j]) j = (j + 1) % g->cap_configs_seen;
    g->configs_seen[j] = h;
    g->nconfigs_seen++;
    return 0;
}

/* 1 when the profiler's host time so far is over g->budget (a share of the
 * time since the collector started; 0 = no budget). Lock held. */
static int over_budget(const mh_cupti_ctx *g) {
    if (g->budget <= 0) return 0;
    uint64_t spent = 0;
    for (int i = 0; i < MH_PROF_STEPS; i++) spent += g->prof_ns[i];
    return (double)spent > g->budget * (double)(mh_clock_ns() - g->began_ns);
}

int mh_cupti_prof_before_launch(mh_cupti_ctx *g, CUcontext ctx, const char *name, const mh_cupti_geom *geom) {
    pthread_mutex_lock(&g->lock);
    int first = 1; /* every launch, or one of no known configuration, is profiled */
    mh_cupti_prof *p = g->prof;
    if (g->counters_too && !geom) first = 0; /* no configuration to join it by */
    if (g->sample_config && geom) {
        uint64_t h = config_hash(name ? name : "?", geom);
        first = !config_seen(g, h);
        /* a new configuration starts the profiler only within the budget;
         * over it the launch runs unprofiled and a later one may be counted */
        if (first && p && p->ctx == ctx && !p->started && over_budget(g)) {
            first = 0;
            g->deferred_launches++;
        } else if (first && config_add(g, h) < 0) {
            g->oom = 1;
            first = -1;
        }
    }
    if (p && p->ctx == ctx && !g->error[0]) {
        if (first == 1 && !p->started) arm(g, p);
        else if (first != 1 && p->started) collect(g, p); /* an unprofiled launch runs at full speed */
    }
    pthread_mutex_unlock(&g->lock);
    return first == 1;
}

void mh_cupti_prof_before_graph(mh_cupti_ctx *g, CUcontext ctx) {
    pthread_mutex_lock(&g->lock);
    mh_cupti_prof *p = g->prof;
    if (p && p->ctx == ctx && p->started) collect(g, p);
    pthread_mutex_unlock(&g->lock);
}

void mh_cupti_prof_after_launch(mh_cupti_ctx *g, CUcontext ctx) {
    pthread_mutex_lock(&g->lock);
    mh_cupti_prof *p = g->prof;
    if (p && p->started && p->ctx == ctx && ++p->in_image >= g->max_ranges) {
        collect(g, p);
        if (!g->error[0]) arm(g, p);
    }
    pthread_mutex_unlock(&g->lock);
}

static void teardown(mh_cupti_ctx *g) {
    mh_cupti_prof *p = g->prof;
    if (!p) return;
    collect(g, p);
    CUpti_RangeProfiler_Disable_Params di = {CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE, NULL, p->obj};
    cuptiRangeProfilerDisable(&di);
    prof_free(p);
    g->prof = NULL;
}

void mh_cupti_prof_context_ending(mh_cupti_ctx *g, CUcontext ctx) {
    pthread_mutex_lock(&g->lock);
    if (g->prof && g->prof->ctx == ctx) teardown(g);
    pthread_mutex_unlock(&g->lock);
}

void mh_cupti_prof_print_cost(const mh_cupti_ctx *g) {
    const uint64_t *ns = g->prof_ns;
    fprintf(stderr, "memheat-cupti: profiler: %llu starts, %llu ranges, %llu launches deferred; host ms: image init "
            "%.1f, set config %.1f, start %.1f, stop %.1f, decode %.1f, evaluate %.1f\n",
            (unsigned long long)g->prof_cycles, (unsigned long long)g->prof_out->counters.ranges,
            (unsigned long long)g->deferred_launches, ns[MH_PROF_INIT] / 1e6, ns[MH_PROF_CONFIG] / 1e6,
            ns[MH_PROF_START] / 1e6, ns[MH_PROF_STOP] / 1e6, ns[MH_PROF_DECODE] / 1e6, ns[MH_PROF_EVAL] / 1e6);
}

void mh_cupti_prof_finish(mh_cupti_ctx *g) {
    pthread_mutex_lock(&g->lock);
    teardown(g);
    pthread_mutex_unlock(&g->lock);
}
