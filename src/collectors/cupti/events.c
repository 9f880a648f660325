/* events.c -- kernel durations from CUDA events recorded around each launch,
 * the timing method of seed 003, for the timing pass's "events" kernel mode.
 *
 * Why: on GPUs before Blackwell, CUPTI's kernel activity records get their
 * timestamps through software instrumentation of the kernel, and on an H200
 * that made many-block memory-bound kernels measurably slower (docs/timing.md).
 * An event is a stream command: recording one before and one after a launch
 * leaves the kernel untouched. At the driver's launch callbacks (enter/exit)
 * this file records a start and an end event on the launch's stream; completed
 * pairs are resolved lazily (cuEventQuery, never blocking the program) and at
 * exit. A launch queued on an idle stream is held (one run only,
 * mh_cupti_ev_hold): a stream wait on a word of pinned host memory is
 * queued before its start event, and released once the kernel is queued,
 * so that the span does not hold the host's launch gap; a watchdog thread
 * releases a hold left for more than a few milliseconds (the launch is then
 * marked a gap), so no program waits on memheat for good.
 * Absolute start times, for the timeline, are offsets from a reference
 * event per context whose host time (CUPTI's clock) is read once right after
 * it completes. Memcpy and memset records come from the Activity API, which
 * does not instrument kernels -- except when hosted by the CUDA collector (one
 * run), where that API is refused: there copies are bracketed by events too
 * (mh_cupti_ev_copy_begin/_end, called from the collector's copies.c).
 *
 * State lives in the one process-wide context (cupti_internal.h). */
#include <cuda.h>
#include <cupti.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "collectors/cupti/cupti_internal.h"
#include "util/grow.h"

/* A launch or copy whose events are not resolved yet. */
typedef struct ev_pending {
    size_t kidx;       /* index into g->t.kernels, or g->t.copies when copy */
    int copy;
    CUevent start, end;
    int ref;           /* index into refs */
} ev_pending;

typedef struct ev_ref {
    CUcontext ctx;
    CUevent ev;
    uint64_t host_ns;  /* CUPTI timestamp when ev had completed */
} ev_ref;

/* What a CUfunction's launches share, looked up once per function. */
typedef struct fn_info {
    CUfunction f;
    char *name;
    uint32_t regs, static_smem;
} fn_info;

#define FN_SLOTS 4096 /* open addressing; beyond that, looked up every launch */

/* The last end event memheat recorded on a stream (a launch's or a copy's),
 * kept out of the pool while it is the stream's last. A launch queued while
 * it has not completed finds the stream busy: its start event fires only
 * when that earlier work ends, after the kernel was queued, so the span is
 * the kernel's alone. A launch queued on an idle stream has its start event
 * fire at once, before the host has finished queueing the kernel: the span
 * holds that launch gap (2.5x a 4 us kernel's time in PyTorch's training
 * job), and the launch is marked MH_TIMED_GAP. */
typedef struct ev_tail {
    CUcontext ctx;
    CUstream stream;
    CUevent ev;   /* NULL: free slot */
    int resolved; /* its pair was resolved: the event goes back to the pool when replaced */
} ev_tail;

#define TAILS 64 /* streams followed; past that, the oldest is forgotten */

/* Holds of idle streams: one 32-bit word of pinned host memory per thread
 * that launches (HOLD_SLOTS threads; past that, launches are not held). A
 * held launch queues "wait until word == seq" before its start event; the
 * thread stores seq once the kernel and its end event are queued. armed[i]
 * is the seq thread i waits for (0: none): whoever swaps it to 0 first (the
 * launch's exit, or the watchdog after WATCH_NS) stores the word. */
#define HOLD_SLOTS 1024
#define WATCH_NS 4000000L /* the watchdog's period: a hold older than one to two periods is released */

typedef struct ev_holds {
    uint32_t *words;   /* pinned, mapped (cuMemHostAlloc): the device reads them */
    _Atomic uint32_t armed[HOLD_SLOTS];
    uint32_t seen[HOLD_SLOTS]; /* the watchdog's: armed[i] at its last look */
    _Atomic uint32_t nslots;
    _Atomic uint64_t forced;   /* holds the watchdog released */
    struct { CUcontext ctx; CUdeviceptr p; } dev[16]; /* the words' device address per context */
    size_t ndev;
    pid_t watcher;     /* the process whose watchdog runs (a forked child starts its own) */
    int off;           /* no holds: allocation or a stream wait failed once */
} ev_holds;

struct mh_cupti_ev {
    ev_pending *pend;
    size_t npend, cap;
    size_t next_resolve; /* resolve completed pairs when npend reaches this */
    fn_info fn[FN_SLOTS];
    size_t nfn;
    CUcontext last_ctx;  /* one-entry cache of the ids of a (context, stream) */
    CUstream last_stream;
    uint32_t last_sid, last_dev, last_ctx_id;
    CUevent *pool;     /* free events */
    size_t npool, cappool;
    ev_ref refs[64];
    size_t nrefs;
    ev_tail tail[TAILS];
    size_t next_tail;  /* slot replaced when a new stream comes and all are taken */
    uint64_t untimed;  /* launches seen without events (unknown launch API) */
    ev_holds hold;
};

/* The copy being issued on this thread (hosted: between copy_begin and copy_end). */
static _Thread_local struct {
    int active;
    CUevent start;
    CUstream stream;
    CUcontext ctx;
    int kind;
    uint64_t bytes;
    uint32_t value;
} tl_copy;

/* The launch being issued on this thread (between enter and exit). */
static _Thread_local struct {
    int active;
    CUevent start;
    CUstream stream;
    CUfunction f;
    unsigned grid[3], block[3], smem;
} tl_launch;

/* This thread's hold: its slot (-1 none yet), the seq of its last hold,
 * and whether the launch being issued holds its stream (owned: this thread
 * swapped armed to 0 at the exit and must store the word). */
static _Thread_local struct {
    int slot;
    uint32_t seq;
    int active, owned;
} tl_hold = {-1, 0, 0, 0};

static mh_cupti_ev *state(mh_cupti_ctx *g) {
    if (!g->ev) g->ev = calloc(1, sizeof *g->ev);
    return g->ev;
}

static CUevent take_event(mh_cupti_ev *s) {
    if (s->npool) return s->pool[--s->npool];
    CUevent e = NULL;
    if (cuEventCreate(&e, CU_EVENT_DEFAULT) != CUDA_SUCCESS) return NULL;
    return e;
}

/* The start event of this thread's next launch or copy, reserved at the
 * driver call's entry (mh_cupti_ev_prepare), where no driver lock is held.
 * The start is recorded later, inside the driver's own launch or copy path
 * (the Sanitizer's LAUNCH_BEGIN and MEMCPY/MEMSET callbacks), where creating
 * an event waits for a lock this very thread holds: cuEventCreate there
 * froze split_vecadd for good (pthread_rwlock_wrlock under cuEventCreate
 * under cuMemcpyHtoDAsync_v2, cuda-gdb on an H100). So nothing is created
 * and no lock is taken there: the reserved event is only recorded. */
static _Thread_local CUevent tl_reserved;

static CUevent take_reserved(void) {
    CUevent e = tl_reserved;
    tl_reserved = NULL;
    return e;
}

static void give_event(mh_cupti_ev *s, CUevent e) {
    if (!e) return;
    CUevent *p = mh_grow(s->pool, &s->cappool, s->npool + 1, sizeof *p, 256);
    if (!p) {
        cuEventDestroy(e);
        return;
    }
    s->pool = p;
    s->pool[s->npool++] = e;
}

static ev_tail *tail_find(mh_cupti_ev *s, CUcontext ctx, CUstream stream) {
    for (size_t i = 0; i < TAILS; i++)
        if (s->tail[i].ev && s->tail[i].ctx == ctx && s->tail[i].stream == stream) return &s->tail[i];
    return NULL;
}

/* 1 when stream's last recorded work had not completed yet (lock held). */
static int stream_busy(mh_cupti_ev *s, CUcontext ctx, CUstream stream) {
    const ev_tail *t = tail_find(s, ctx, stream);
    return t && cuEventQuery(t->ev) == CUDA_ERROR_NOT_READY;
}

/* end, just recorded on stream, becomes its last (lock held). */
static void tail_set(mh_cupti_ev *s, CUcontext ctx, CUstream stream, CUevent end) {
    ev_tail *t = tail_find(s, ctx, stream);
    if (!t) {
        for (size_t i = 0; i < TAILS && !t; i++)
            if (!s->tail[i].ev) t = &s->tail[i];
        if (!t) t = &s->tail[s->next_tail++ % TAILS];
    }
    if (t->ev && t->resolved) give_event(s, t->ev);
    *t = (ev_tail){ctx, stream, end, 0};
}

/* Whether e is some stream's last event; if so it is marked resolved and
 * stays out of the pool (lock held). */
static int tail_keeps(mh_cupti_ev *s, CUevent e) {
    for (size_t i = 0; i < TAILS; i++)
        if (s->tail[i].ev == e) {
            s->tail[i].resolved = 1;
            return 1;
        }
    return 0;
}

/* Reference event of ctx, made on first use. Recorded on a private
 * non-blocking stream, so that reading its host time waits for nothing of
 * the program's: synchronizing the launch's own stream here (as before)
 * waited for the program's queued work while holding the collector's lock,
 * which other threads issuing launches and copies wait for. Lock held.
 * Returns its index or -1. */
static int ref_of(mh_cupti_ev *s, CUcontext ctx) {
    for (size_t i = 0; i < s->nrefs; i++)
        if (s->refs[i].ctx == ctx) return (int)i;
    if (s->nrefs == sizeof s->refs / sizeof s->refs[0]) return -1;
    if (cuCtxPushCurrent(ctx) != CUDA_SUCCESS) return -1;
    CUevent e = NULL;
    CUstream st = NULL;
    int ok = cuEventCreate(&e, CU_EVENT_DEFAULT) == CUDA_SUCCESS &&
             cuStreamCreate(&st, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS &&
             cuEventRecord(e, st) == CUDA_SUCCESS && cuEventSynchronize(e) == CUDA_SUCCESS;
    uint64_t now = 0;
    cuptiGetTimestamp(&now);
    if (st) cuStreamDestroy(st);
    CUcontext popped;
    cuCtxPopCurrent(&popped);
    if (!ok) {
        if (e) cuEventDestroy(e);
        return -1;
    }
    s->refs[s->nrefs] = (ev_ref){ctx, e, now};
    return (int)s->nrefs++;
}

/* Copies f and the launch geometry from any struct with cuLaunchKernel's
 * field names (the params of the plain and cooperative launches, and the
 * CUlaunchConfig of cuLaunchKernelEx). */
#define TAKE_LAUNCH(func, c)                                                    \
    do {                                                                        \
        out->f = (func);                                                        \
        out->grid[0] = (c)->gridDimX, out->grid[1] = (c)->gridDimY;             \
        out->grid[2] = (c)->gridDimZ;                                           \
        out->block[0] = (c)->blockDimX, out->block[1] = (c)->blockDimY;         \
        out->block[2] = (c)->blockDimZ;                                         \
        out->smem = (c)->sharedMemBytes;                                        \
        out->stream = (c)->hStream;                                             \
    } while (0)

int mh_cupti_launch_geometry(int api, const void *params, mh_cupti_geom *out) {
    if (!params) return 0;
    switch (api) {
    case MH_HOOK_KERNEL:
    case MH_HOOK_KERNEL_PTSZ: {
        const cuLaunchKernel_params *p = params;
        TAKE_LAUNCH(p->f, p);
        break;
    }
    case MH_HOOK_COOP:
    case MH_HOOK_COOP_PTSZ: {
        const cuLaunchCooperativeKernel_params *p = params;
        TAKE_LAUNCH(p->f, p);
        break;
    }
    case MH_HOOK_EX:
    case MH_HOOK_EX_PTSZ: {
        const cuLaunchKernelEx_params *p = params;
        if (!p->config) return 0;
        TAKE_LAUNCH(p->f, p->config);
        break;
    }
    default: return 0;
    }
    /* the _ptsz entry points mean the per-thread default stream by NULL */
    if (!out->stream && (api == MH_HOOK_KERNEL_PTSZ || api == MH_HOOK_COOP_PTSZ || api == MH_HOOK_EX_PTSZ))
        out->stream = CU_STREAM_PER_THREAD;
    return 1;
}

/* Fills the launch geometry and stream from a launch call's parameters
 * (api: enum mh_hook_api); 0 if this launch API is not one memheat times. */
static int launch_params(int api, const void *params) {
    mh_cupti_geom g;
    if (!mh_cupti_launch_geometry(api, params, &g)) return 0;
    tl_launch.f = g.f;
    memcpy(tl_launch.grid, g.grid, sizeof g.grid);
    memcpy(tl_launch.block, g.block, sizeof g.block);
    tl_launch.smem = g.smem;
    tl_launch.stream = g.stream;
    return 1;
}

/* A stream being captured into a graph must not get events (they would
 * become graph nodes) nor be synchronized: such launches are not timed. */
static int capturing(CUstream s) {
    CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_NONE;
    return cuStreamIsCapturing(s, &st) != CUDA_SUCCESS || st != CU_STREAM_CAPTURE_STATUS_NONE;
}

/* Name, registers and static shared memory of f, cached by CUfunction (a
 * handle the driver could reuse after a module unload: then a stale name is
 * possible; programs that unload modules mid-run are rare). The name is
 * `symbol` where the caller has it (the Sanitizer's or CUPTI's own name of
 * the launch), else the driver's name of f. Lock held. */
static const fn_info *fn_lookup(mh_cupti_ev *s, CUfunction f, const char *symbol, fn_info *scratch) {
    size_t h = (size_t)((((uintptr_t)f >> 4) * 0x9e3779b97f4a7c15ull) >> 52) % FN_SLOTS;
    fn_info *slot = NULL;
    for (size_t i = 0; i < FN_SLOTS; i++) {
        fn_info *e = &s->fn[(h + i) % FN_SLOTS];
        if (!e->name) {
            slot = e; /* f is not in the table */
            break;
        }
        if (e->f == f) return e;
    }
    if (s->nfn >= FN_SLOTS * 3 / 4) slot = NULL; /* keep probes short: stop inserting */
    const char *name = symbol && *symbol ? symbol : NULL;
    if (!name && (cuFuncGetName(&name, f) != CUDA_SUCCESS || !name)) name = "?";
    int v = 0;
    scratch->f = f;
    scratch->regs = cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_NUM_REGS, f) == CUDA_SUCCESS ? (uint32_t)v : 0;
    scratch->static_smem =
        cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f) == CUDA_SUCCESS ? (uint32_t)v : 0;
    scratch->name = (char *)name; /* the driver's string: copied by the caller right away */
    if (slot) {
        char *kept = strdup(name);
        if (kept) {
            *slot = *scratch;
            slot->name = kept;
            s->nfn++;
            return slot;
        }
    }
    return scratch;
}

/* Device, context and stream ids of a launch, into the cache of s. With its
 * own CUPTI subscription the timing collector asks CUPTI (the ids of its
 * activity records); hosted by the CUDA collector it has no subscription, so
 * it asks the driver (cuCtxGetId, cuStreamGetId): CUPTI's id calls failed
 * there and are not made per launch. Lock held. */
static void ids_of(mh_cupti_ctx *g, mh_cupti_ev *s, CUcontext ctx, CUstream stream) {
    uint32_t dev = 0, ctx_id = 0, sid = 0;
    if (g->hosted) {
        CUdevice d = 0;
        unsigned long long id = 0;
        if (cuCtxGetDevice(&d) == CUDA_SUCCESS) dev = (uint32_t)d; /* the launch's context is current */
        if (cuCtxGetId(ctx, &id) == CUDA_SUCCESS) ctx_id = (uint32_t)id;
        if (cuStreamGetId(stream, &id) == CUDA_SUCCESS) sid = (uint32_t)id;
    } else {
        if (cuptiGetDeviceId(ctx, &dev) != CUPTI_SUCCESS) dev = 0;
        if (cuptiGetContextId(ctx, &ctx_id) != CUPTI_SUCCESS) ctx_id = 0;
        if (cuptiGetStreamIdEx(ctx, stream, 0, &sid) != CUPTI_SUCCESS) sid = 0;
    }
    s->last_dev = dev, s->last_ctx_id = ctx_id, s->last_sid = sid;
}

/* Resolves pending pairs; with block, waits for all of them. Lock held. */
static void resolve(mh_cupti_ctx *g, int block) {
    mh_cupti_ev *s = g->ev;
    if (!s) return;
    size_t keep = 0;
    for (size_t i = 0; i < s->npend; i++) {
        ev_pending *p = &s->pend[i];
        CUresult q = block ? cuEventSynchronize(p->end) : cuEventQuery(p->end);
        if (q == CUDA_ERROR_NOT_READY) {
            s->pend[keep++] = *p;
            continue;
        }
        float dur = 0, off = 0;
        uint64_t *start = p->copy ? &g->t.copies[p->kidx].start_ns : &g->t.kernels[p->kidx].start_ns;
        uint64_t *end = p->copy ? &g->t.copies[p->kidx].end_ns : &g->t.kernels[p->kidx].end_ns;
        if (q == CUDA_SUCCESS && cuEventElapsedTime(&dur, p->start, p->end) == CUDA_SUCCESS &&
            cuEventElapsedTime(&off, s->refs[p->ref].ev, p->start) == CUDA_SUCCESS) {
            *start = s->refs[p->ref].host_ns + (uint64_t)((double)off * 1e6 + 0.5);
            *end = *start + (uint64_t)((double)dur * 1e6 + 0.5);
        } else if (p->copy) {
            g->t.copies[p->kidx].kind = -1; /* marked: dropped when saving (see mh_cupti_ev_finish) */
            s->untimed++;
        } else {
            g->t.kernels[p->kidx].name[0] = '\0'; /* marked, as above */
            s->untimed++;
        }
        give_event(s, p->start);
        if (!tail_keeps(s, p->end)) give_event(s, p->end);
    }
    s->npend = keep;
}

void mh_cupti_ev_prepare(mh_cupti_ctx *g) {
    if (tl_reserved) return; /* kept from a call that queued nothing */
    pthread_mutex_lock(&g->lock);
    mh_cupti_ev *s = state(g);
    if (s) tl_reserved = take_event(s);
    pthread_mutex_unlock(&g->lock);
}

void mh_cupti_ev_enter(mh_cupti_ctx *g, int api, const void *params) {
    (void)g;
    tl_launch.active = 0;
    if (!launch_params(api, params) || capturing(tl_launch.stream)) return;
    CUevent e = take_reserved();
    if (!e) return; /* counted as untimed at the exit */
    if (cuEventRecord(e, tl_launch.stream) != CUDA_SUCCESS) {
        cuEventDestroy(e);
        return;
    }
    tl_launch.start = e;
    tl_launch.active = 1;
}

/* ---- holding an idle stream until the kernel is queued ---- */

static void *watchdog(void *arg) {
    ev_holds *h = arg;
    struct timespec ts = {0, WATCH_NS};
    for (;;) {
        nanosleep(&ts, NULL);
        uint32_t n = atomic_load(&h->nslots);
        for (uint32_t i = 0; i < n && i < HOLD_SLOTS; i++) {
            uint32_t a = atomic_load(&h->armed[i]);
            if (a && a == h->seen[i] && atomic_compare_exchange_strong(&h->armed[i], &a, 0)) {
                __atomic_store_n(&h->words[i], a, __ATOMIC_SEQ_CST);
                atomic_fetch_add(&h->forced, 1);
                a = 0;
            }
            h->seen[i] = a;
        }
    }
    return NULL;
}

/* The words, their device address in ctx, this thread's slot and the
 * watchdog, made on first use (lock held; at the launch call's entry, where
 * the driver holds no lock of its own). 0 when holds are off. */
static CUdeviceptr hold_setup(ev_holds *h, CUcontext ctx) {
    if (h->off) return 0;
    if (!h->words) {
        void *p = NULL;
        if (cuMemHostAlloc(&p, HOLD_SLOTS * sizeof(uint32_t), CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP) !=
            CUDA_SUCCESS) {
            h->off = 1;
            return 0;
        }
        memset(p, 0, HOLD_SLOTS * sizeof(uint32_t));
        h->words = p;
    }
    if (h->watcher != getpid()) {
        pthread_t t;
        pthread_attr_t at;
        pthread_attr_init(&at);
        pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
        int bad = pthread_create(&t, &at, watchdog, h);
        pthread_attr_destroy(&at);
        if (bad) {
            h->off = 1;
            return 0;
        }
        h->watcher = getpid();
    }
    if (tl_hold.slot < 0) {
        uint32_t n = atomic_load(&h->nslots);
        if (n >= HOLD_SLOTS) return 0;
        tl_hold.slot = (int)n;
        atomic_store(&h->nslots, n + 1);
    }
    for (size_t i = 0; i < h->ndev; i++)
        if (h->dev[i].ctx == ctx) return h->dev[i].p;
    CUdeviceptr d = 0;
    if (h->ndev == sizeof h->dev / sizeof h->dev[0] || cuMemHostGetDevicePointer(&d, h->words, 0) != CUDA_SUCCESS)
        return 0;
    h->dev[h->ndev].ctx = ctx;
    h->dev[h->ndev++].p = d;
    return d;
}

void mh_cupti_ev_hold(mh_cupti_ctx *g, int api, const void *params) {
    tl_hold.active = tl_hold.owned = 0;
    mh_cupti_geom geo;
    CUcontext ctx = NULL;
    if (!mh_cupti_launch_geometry(api, params, &geo) || cuCtxGetCurrent(&ctx) != CUDA_SUCCESS || !ctx ||
        capturing(geo.stream))
        return;
    pthread_mutex_lock(&g->lock);
    mh_cupti_ev *s = state(g);
    CUdeviceptr d = s && !stream_busy(s, ctx, geo.stream) ? hold_setup(&s->hold, ctx) : 0;
    pthread_mutex_unlock(&g->lock);
    if (!d) return;
    ev_holds *h = &s->hold;
    uint32_t seq = ++tl_hold.seq;
    if (!seq) seq = ++tl_hold.seq; /* 0 means "not armed" */
    atomic_store(&h->armed[tl_hold.slot], seq);
    if (cuStreamWaitValue32(geo.stream, d + (CUdeviceptr)tl_hold.slot * sizeof(uint32_t), seq,
                            CU_STREAM_WAIT_VALUE_EQ) != CUDA_SUCCESS) {
        atomic_store(&h->armed[tl_hold.slot], 0);
        h->off = 1;
        return;
    }
    tl_hold.active = 1;
}

/* At the launch call's exit, first: claims this thread's hold (the watchdog
 * may have released it already). */
static void hold_claim(mh_cupti_ev *s) {
    if (!tl_hold.active || !s) return;
    uint32_t seq = tl_hold.seq;
    tl_hold.owned = atomic_compare_exchange_strong(&s->hold.armed[tl_hold.slot], &seq, 0);
}

void mh_cupti_ev_release(mh_cupti_ctx *g) {
    if (!tl_hold.active) return;
    mh_cupti_ev *s = g->ev;
    if (!tl_hold.owned) hold_claim(s); /* the exit's claim did not run (the collector finished in between) or lost */
    if (tl_hold.owned) __atomic_store_n(&s->hold.words[tl_hold.slot], tl_hold.seq, __ATOMIC_SEQ_CST);
    tl_hold.active = tl_hold.owned = 0;
}

uint64_t mh_cupti_ev_holds_forced(mh_cupti_ctx *g) { return g->ev ? atomic_load(&g->ev->hold.forced) : 0; }

void mh_cupti_ev_exit(mh_cupti_ctx *g, CUcontext ctx, int failed, uint32_t correlation, const char *symbol,
                      void *function, int timed) {
    hold_claim(g->ev);
    if (!tl_launch.active) {
        pthread_mutex_lock(&g->lock);
        if (state(g)) g->ev->untimed++;
        pthread_mutex_unlock(&g->lock);
        return;
    }
    tl_launch.active = 0;
    pthread_mutex_lock(&g->lock);
    mh_cupti_ev *s = state(g);
    if (!s) { /* out of memory */
        cuEventDestroy(tl_launch.start);
        pthread_mutex_unlock(&g->lock);
        return;
    }
    if (failed) { /* the launch failed: nothing ran */
        give_event(s, tl_launch.start);
        pthread_mutex_unlock(&g->lock);
        return;
    }
    /* the kernel is queued now: was the stream held, or still busy with earlier work? */
    if (timed == MH_TIMED_CLEAN && !tl_hold.owned && !stream_busy(s, ctx, tl_launch.stream)) timed = MH_TIMED_GAP;
    CUevent end = take_event(s);
    int ref = ref_of(s, ctx);
    if (!end || ref < 0 || cuEventRecord(end, tl_launch.stream) != CUDA_SUCCESS) {
        give_event(s, tl_launch.start);
        give_event(s, end);
        s->untimed++;
        pthread_mutex_unlock(&g->lock);
        return;
    }
    ev_pending *grown = mh_grow(s->pend, &s->cap, s->npend + 1, sizeof *grown, 1024);
    if (!grown) {
        g->oom = 1;
        give_event(s, tl_launch.start);
        give_event(s, end);
        pthread_mutex_unlock(&g->lock);
        return;
    }
    s->pend = grown;
    fn_info scratch;
    const fn_info *fi = fn_lookup(s, function ? (CUfunction)function : tl_launch.f, symbol, &scratch);
    mh_timing_kernel *k = mh_timing_add_kernel(&g->t, fi->name);
    if (!k) {
        g->oom = 1;
        give_event(s, tl_launch.start);
        give_event(s, end);
        pthread_mutex_unlock(&g->lock);
        return;
    }
    tail_set(s, ctx, tl_launch.stream, end);
    if (s->last_ctx != ctx || s->last_stream != tl_launch.stream) {
        ids_of(g, s, ctx, tl_launch.stream);
        s->last_ctx = ctx;
        s->last_stream = tl_launch.stream;
    }
    k->device = s->last_dev, k->context = s->last_ctx_id, k->stream = s->last_sid, k->correlation = correlation;
    k->timed = timed;
    memcpy(k->grid, tl_launch.grid, sizeof k->grid);
    memcpy(k->block, tl_launch.block, sizeof k->block);
    k->dyn_smem = tl_launch.smem;
    k->regs = fi->regs;
    k->static_smem = fi->static_smem;
    s->pend[s->npend++] = (ev_pending){(size_t)(k - g->t.kernels), 0, tl_launch.start, end, ref};
    if (s->npend >= s->next_resolve) { /* completed pairs only, never waits; amortized */
        resolve(g, 0);
        s->next_resolve = s->npend + 4096;
    }
    pthread_mutex_unlock(&g->lock);
}

void mh_cupti_ev_copy_begin(mh_cupti_ctx *g, CUcontext ctx, CUstream stream, int kind, uint64_t bytes,
                            uint32_t value) {
    (void)g;
    tl_copy.active = 0;
    if (capturing(stream)) return;
    CUevent e = take_reserved();
    if (!e) return;
    if (cuEventRecord(e, stream) != CUDA_SUCCESS) {
        cuEventDestroy(e);
        return;
    }
    tl_copy.start = e, tl_copy.stream = stream, tl_copy.ctx = ctx;
    tl_copy.kind = kind, tl_copy.bytes = bytes, tl_copy.value = value;
    tl_copy.active = 1;
}

void mh_cupti_ev_copy_end(mh_cupti_ctx *g, int failed) {
    if (!tl_copy.active) return;
    tl_copy.active = 0;
    pthread_mutex_lock(&g->lock);
    mh_cupti_ev *s = state(g);
    if (!s) { /* out of memory */
        cuEventDestroy(tl_copy.start);
        pthread_mutex_unlock(&g->lock);
        return;
    }
    CUevent end = failed ? NULL : take_event(s);
    CUcontext ctx = tl_copy.ctx;
    if (!ctx && cuCtxGetCurrent(&ctx) != CUDA_SUCCESS) ctx = NULL;
    int ref = end && ctx ? ref_of(s, ctx) : -1;
    ev_pending *grown = NULL;
    mh_timing_copy *c = NULL;
    if (end && ref >= 0 && cuEventRecord(end, tl_copy.stream) == CUDA_SUCCESS &&
        (grown = mh_grow(s->pend, &s->cap, s->npend + 1, sizeof *grown, 1024)) != NULL) {
        s->pend = grown;
        c = mh_timing_add_copy(&g->t);
    }
    if (!c) {
        if (!failed) s->untimed++;
        give_event(s, tl_copy.start);
        give_event(s, end);
        pthread_mutex_unlock(&g->lock);
        return;
    }
    tail_set(s, ctx, tl_copy.stream, end);
    if (s->last_ctx != ctx || s->last_stream != tl_copy.stream) {
        ids_of(g, s, ctx, tl_copy.stream);
        s->last_ctx = ctx;
        s->last_stream = tl_copy.stream;
    }
    c->kind = tl_copy.kind;
    c->device = s->last_dev, c->context = s->last_ctx_id, c->stream = s->last_sid;
    c->bytes = tl_copy.bytes;
    c->value = tl_copy.value;
    s->pend[s->npend++] = (ev_pending){(size_t)(c - g->t.copies), 1, tl_copy.start, end, ref};
    if (s->npend >= s->next_resolve) {
        resolve(g, 0);
        s->next_resolve = s->npend + 4096;
    }
    pthread_mutex_unlock(&g->lock);
}

void mh_cupti_ev_untimed(mh_cupti_ctx *g) {
    pthread_mutex_lock(&g->lock);
    if (state(g)) g->ev->untimed++;
    pthread_mutex_unlock(&g->lock);
}

void mh_cupti_ev_context_ending(mh_cupti_ctx *g, CUcontext ctx) {
    (void)ctx;
    pthread_mutex_lock(&g->lock);
    resolve(g, 1);
    pthread_mutex_unlock(&g->lock);
}

void mh_cupti_ev_finish(mh_cupti_ctx *g) {
    mh_cupti_ev *s = g->ev;
    if (!s) return;
    resolve(g, 1);
    /* launches whose events could not be read are removed, and counted */
    size_t j = 0;
    for (size_t i = 0; i < g->t.nkernels; i++) {
        if (g->t.kernels[i].name[0] == '\0') {
            free(g->t.kernels[i].name);
            continue;
        }
        g->t.kernels[j++] = g->t.kernels[i];
    }
    g->t.nkernels = j;
    j = 0;
    for (size_t i = 0; i < g->t.ncopies; i++)
        if (g->t.copies[i].kind >= 0) g->t.copies[j++] = g->t.copies[i];
    g->t.ncopies = j;
    g->t.dropped_records += s->untimed + s->npend;
    for (size_t i = 0; i < FN_SLOTS; i++) free(s->fn[i].name);
    memset(s->fn, 0, sizeof s->fn);
    s->nfn = 0;
}
