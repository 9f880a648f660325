/* cuda_internal.h -- what the CUDA collector's files share: its one
 * process-wide state, the structures in it, and the functions one file calls
 * in another. Not a public header: only libmemheat_cuda.so includes it.
 *
 *   inject.c   the state, start and exit, the trace header, callback dispatch
 *   self.c     memheat's own allocations, its warnings, a trace-writing failure
 *   modules.c  lazy module patching and unpatching; every module's static
 *              __shared__ array names, read from its cubin at load (util/cubin.h)
 *   launch.c   allocations, record buffers, the per-launch decision, the
 *              launch callbacks (trace set-up and read-back), the driver-API
 *              launch entry/exit (with the one-run timing hook)
 *   copies.c   memcpy/memset calls forwarded to the hosted timing collector
 *
 * The state is one struct, mh_cuda, which inject.c owns and hands to every
 * function of the other files (the Sanitizer passes it back to the callback
 * as its userdata); see its locking rules below. Calls go one way: inject.c
 * calls launch.c, modules.c, gate.c and copies.c; launch.c calls modules.c
 * and gate.c; modules.c calls gate.c; all of them call self.c. */
#ifndef MEMHEAT_CUDA_INTERNAL_H
#define MEMHEAT_CUDA_INTERNAL_H

#define _GNU_SOURCE
#include <cuda.h>
#include <dlfcn.h>
#include <inttypes.h>
#include <pthread.h>
#include <sanitizer.h>
#include <generated_cuda_meta.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "collectors/site/site.h"
#include "collectors/timing_hook.h"
#include "cuda_dev.h"
#include "util/cubin.h"
#include "util/demangle.h"
#include "memheat/collect.h"
#include "memheat/trace.h"

#define MH_CUDA_PRODUCER "memheat-cuda 0.1.0"
#define MH_CUDA_PATCH_FILE "memheat_cuda_patch.fatbin"
#define MH_CUDA_MAX_CTX 64
#define MH_CUDA_DEFAULT_BUFFER (256ull << 20)  /* bytes of records per traced launch */
#define MH_CUDA_DRAIN_RECORDS (1u << 17)       /* records copied to the host at a time */
#define MH_CUDA_MAX_SEQ_SLOTS (64u << 20)      /* traced threads per launch */
#define MH_CUDA_MAX_ARGS 128                   /* kernel-parameter pointers recorded per traced launch */
#define MH_CUDA_DYN_SMEM_ALIGN 1024u           /* slack past dynamic shared memory: its start is rounded up */


typedef struct mh_cuda_buf {
    CUcontext ctx;
    mh_cuda_desc *desc;  /* device */
    mh_access *rec;      /* device, cap records */
    uint32_t *seq;       /* device, seq_slots counters */
    uint32_t *host_seq;  /* host copy of the counters */
    mh_access *host;     /* drain staging, MH_CUDA_DRAIN_RECORDS records: pinned (sanitizerAllocHost:
                            copies 5-10x faster than to pageable memory) or, failing that, malloc'd */
    int host_pinned;
    uint64_t cap;
    uint64_t seq_slots;
    struct mh_cuda_buf *next;
} mh_cuda_buf;

/* A traced launch between its LAUNCH_BEGIN and LAUNCH_END callbacks. */
typedef struct mh_cuda_flight {
    Sanitizer_LaunchHandle h;
    mh_cuda_buf *buf;
    CUcontext ctx;
    CUmodule mod;
    uint32_t id;
    uint64_t func_pc, func_size;
    struct mh_cuda_flight *next;
} mh_cuda_flight;

/* A module that has had a launch selected for tracing (patching state). */
typedef struct mh_cuda_module {
    CUcontext ctx;
    CUmodule mod;
    int patched;       /* instrumented now */
    int stuck;         /* removing the patch failed: it stays patched */
    int unpatching;    /* chosen by mh_cuda_unpatch_idle, patch being removed */
    int failed;        /* patching failed: its launches are not traced */
    uint32_t inflight; /* traced launches of it between LAUNCH_BEGIN and LAUNCH_END */
} mh_cuda_module;

/* A context's launch gate (gate.c): launch calls inside, and whether a
 * module's code is being changed. */
typedef struct mh_cuda_gate_slot {
    CUcontext ctx; /* NULL: free */
    uint32_t inside;
    int closed;
} mh_cuda_gate_slot;

/* The static __shared__ arrays of a loaded module's kernels (only modules
 * whose cubin names some). */
typedef struct mh_cuda_modsyms {
    CUcontext ctx;
    CUmodule mod;
    mh_cubin cubin;
} mh_cuda_modsyms;

/* Locking: `mu` guards the host-side state below (writer, lists, counters)
 * and is never held while calling the Sanitizer or the driver, which take
 * locks of their own (holding ours across them deadlocked two host threads
 * launching while a third allocated). `patch_mu` serialises the patching
 * calls, as the Sanitizer API requires; launch callbacks only try it (see
 * "module patching" below). `mod_mu` guards the module table. mu and patch_mu
 * are never held together. `gate_mu` guards the launch gates (gate.c) and is
 * never held across a call into the Sanitizer or the driver either. */
typedef struct mh_cuda {
    pthread_mutex_t mu;
    pthread_mutex_t patch_mu;
    pthread_mutex_t mod_mu;     /* the module table (mods); never held across a Sanitizer call */
    pthread_mutex_t gate_mu;    /* the launch gates below (gate.c) */
    pthread_cond_t gate_cv;
    mh_cuda_gate_slot gate[MH_CUDA_MAX_CTX];
    uint64_t gate_close_timeouts, gate_enter_timeouts; /* under gate_mu (MEMHEAT_CUDA_DEBUG=1) */
    int active;                 /* configuration read and callbacks subscribed */
    mh_collect_cfg cfg;         /* read-only after InitializeInjection */
    int eager_patch;            /* every launch is selected: patch modules at load (read-only after init) */
    int start_at_entry;         /* hosted timing: a launch's start event at the call's entry, not at
                                   LAUNCH_BEGIN (MEMHEAT_TIMING_START=entry; read-only after init) */
    int keep_patched;           /* MEMHEAT_CUDA_KEEP_PATCHED=1: never unpatch (for measuring the cost) */
    int patch_nosync;           /* MEMHEAT_CUDA_PATCH_SYNC=0: no gate and no context sync around (un)patching
                                   (diagnosis) */
    mh_collect_state st;
    Sanitizer_SubscriberHandle sub;
    mh_trace_writer *w;         /* NULL before the first context, after close, or after an error */
    int closed;
    char patch_path[1024];
    CUcontext patched_ctx[MH_CUDA_MAX_CTX]; /* under patch_mu */
    int n_patched_ctx;
    uint64_t modules_patched, patch_failures; /* under patch_mu */
    uint64_t modules_unpatched, unpatch_failures; /* under patch_mu */
    uint64_t sync_failures;     /* mh_cuda_patch_quiesce, under patch_mu */
    mh_cuda_module *mods;       /* under mod_mu: modules selected at least once */
    size_t n_mods, cap_mods;
    mh_cuda_modsyms *syms;      /* under mod_mu: shared-array names per loaded module */
    size_t n_syms, cap_syms;
    uint64_t cubins_named, cubins_unnamed, cubins_failed; /* under mod_mu (MEMHEAT_CUDA_DEBUG=1) */
    char cubin_err[160];        /* under mod_mu: why the first cubin could not be read */
    uint32_t next_launch;
    uint32_t next_alloc;
    uint64_t buffer_records;
    uint32_t smem_reserved;     /* bytes at the start of every block's shared window the system keeps */
    uint64_t launches_traced;
    /* how launches were decided (printed at exit with MEMHEAT_CUDA_DEBUG=1) */
    uint64_t dbg_entry_unknown, dbg_entry_used, dbg_name_differs, dbg_module_differs;
    /* host time spent on traced launches, by part (atomic adds; printed with
     * MEMHEAT_CUDA_DEBUG=1): waits for the context's work before (un)patching,
     * patching, unpatching, the wait for a traced kernel at its end, and the
     * read-back of its records */
    uint64_t ns_quiesce, ns_patch, ns_unpatch, ns_kernel_wait, ns_readback, ns_copy, ns_write;
    uint64_t dbg_copied, dbg_kept; /* records copied back (holes included) and kept */
    uint64_t selected_open;     /* launches selected for tracing whose LAUNCH_END has not run yet */
    uint64_t graph_kernels;     /* kernel nodes of graph launches: counted, not traced or timed */
    mh_cuda_buf *free_bufs;
    mh_cuda_flight *flights;
    mh_timing_hook timing;      /* one run: the timing collector's entry points (all NULL without it) */
    mh_site_state *sites;       /* call sites (collectors/site/site.h); NULL: not captured */
} mh_cuda;


/* Monotonic host time in ns (for the debug line's costs). */
static inline uint64_t mh_cuda_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
/* Adds the time since t0 to *acc. */
static inline void mh_cuda_spent(uint64_t *acc, uint64_t t0) {
    __atomic_add_fetch(acc, mh_cuda_now_ns() - t0, __ATOMIC_RELAXED);
}

/* mh_cuda_module_acquire results */
enum { MH_ACQ_OK = 0, MH_ACQ_FAILED = -1, MH_ACQ_BUSY = -2 };

/* self.c */
/* Around memheat's own device allocations on this thread (the allocation
 * callbacks ignore those: mh_cuda_own_now). */
void mh_cuda_own_begin(void);
void mh_cuda_own_end(void);
int mh_cuda_own_now(void);
void mh_cuda_warn(const char *fmt, const char *detail);
const char *mh_cuda_sanstr(SanitizerResult r);
/* Stops tracing after an error in the trace writer; keeps what was written. Under mu. */
void mh_cuda_writer_failed(mh_cuda *mh, mh_err *err);

/* modules.c */
int mh_cuda_module_acquire(mh_cuda *mh, CUcontext ctx, CUmodule mod, int launch);
int mh_cuda_module_acquire_patched(mh_cuda *mh, CUcontext ctx, CUmodule mod);
void mh_cuda_module_release(mh_cuda *mh, CUcontext ctx, CUmodule mod, int unpatch);
void mh_cuda_module_untraced(mh_cuda *mh, int unpatch);
void mh_cuda_module_forget(mh_cuda *mh, CUcontext ctx, CUmodule mod);
void mh_cuda_module_loaded(mh_cuda *mh, const Sanitizer_ResourceModuleData *m);
int mh_cuda_shared_objects(mh_cuda *mh, CUcontext ctx, CUmodule mod, const char *func, uint64_t static_size, uint64_t dyn,
                           mh_cubin_objs *out);
int mh_cuda_no_more_launches(mh_cuda *mh);

/* gate.c */
void mh_cuda_gate_enter(mh_cuda *mh, CUcontext ctx); /* at a launch call's entry, after memheat's decision */
void mh_cuda_gate_leave(mh_cuda *mh);          /* at its exit (no-op if this thread did not enter) */
int mh_cuda_gate_close(mh_cuda *mh, CUcontext ctx);  /* 0: no launch call of ctx inside, none can enter; -1: gave up */
void mh_cuda_gate_open(mh_cuda *mh, CUcontext ctx);
void mh_cuda_gate_forget(mh_cuda *mh, CUcontext ctx);

/* launch.c */
void mh_cuda_on_alloc(mh_cuda *mh, const Sanitizer_ResourceMemoryData *m, int async);
void mh_cuda_on_free(mh_cuda *mh, const Sanitizer_ResourceMemoryData *m);
void mh_cuda_drop_ctx_bufs(mh_cuda *mh, CUcontext ctx);
void mh_cuda_write_dropped(mh_cuda *mh, uint32_t launch, uint64_t n, const char *why);
void mh_cuda_dropped_locked(mh_cuda *mh, uint32_t launch, uint64_t n, const char *why);
void mh_cuda_launch_begin(mh_cuda *mh, const Sanitizer_LaunchData *ld);
void mh_cuda_launch_end(mh_cuda *mh, const Sanitizer_LaunchData *ld);
void mh_cuda_on_driver_api(mh_cuda *mh, Sanitizer_CallbackId cbid, const Sanitizer_CallbackData *cb);
void mh_cuda_graph_node(mh_cuda *mh, const Sanitizer_GraphNodeLaunchData *g);

/* copies.c (one run, with the timing collector hosted) */
void mh_cuda_copies_enable(mh_cuda *mh);
/* 1 when cbid is a memcpy/memset driver call (handled), else 0. */
int mh_cuda_copy_api(mh_cuda *mh, Sanitizer_CallbackId cbid, const Sanitizer_CallbackData *cb);
void mh_cuda_on_memcpy(mh_cuda *mh, const Sanitizer_MemcpyData *m);
void mh_cuda_on_memset(mh_cuda *mh, const Sanitizer_MemsetData *m);

#endif
