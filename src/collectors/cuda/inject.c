/* inject.c -- memheat's CUDA collector: an injection library that the CUDA
 * driver loads through CUDA_INJECTION64_PATH (set by `memheat run`).
 *
 * It owns everything that happens inside the profiled process:
 *   - reads the sampling configuration from MEMHEAT_* (collect.h);
 *   - subscribes to Compute Sanitizer callbacks: contexts (device description
 *     for the trace header), modules (patch every global, shared and local
 *     memory instruction with the device code of patch.cu), allocations and
 *     frees (mh_alloc / mh_free records), launches;
 *   - for a launch that is traced, gives the patch a device descriptor and a
 *     record buffer, and at the launch's end waits for it, copies the records
 *     into the trace, writes mh_kernel_end with the exact number dropped if
 *     the buffer was too small, and flushes, so a later crash loses nothing;
 *   - for a launch that is not traced, passes a NULL descriptor (the patch
 *     returns at its first test);
 *   - closes the trace at exit().
 *
 * The Sanitizer calls back into plain functions with no room for a caller's
 * state, so the library keeps one process-wide context, `g_mh` (plus the
 * thread-local dynamic-shared-memory size of the launch being made on the
 * calling thread, which the driver-API callback hands to the launch callback).
 * Callbacks may come from several host threads: a recursive mutex serialises
 * them (recursive because our own sanitizerAlloc can re-enter the resource
 * callback on the same thread). */
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

#include "cuda_dev.h"
#include "demangle.h"
#include "memheat/collect.h"
#include "memheat/trace.h"

#define MH_CUDA_PRODUCER "memheat-cuda 0.1.0"
#define MH_CUDA_PATCH_FILE "memheat_cuda_patch.fatbin"
#define MH_CUDA_MAX_CTX 64
#define MH_CUDA_DEFAULT_BUFFER (256ull << 20)  /* bytes of records per traced launch */
#define MH_CUDA_DRAIN_RECORDS (1u << 17)       /* records copied to the host at a time */
#define MH_CUDA_MAX_SEQ_SLOTS (64u << 20)      /* traced threads per launch */

/* Device memory for one traced launch in flight; reused across launches. */
typedef struct mh_cuda_buf {
    CUcontext ctx;
    mh_cuda_desc *desc;  /* device */
    mh_access *rec;      /* device, cap records */
    uint32_t *seq;       /* device, seq_slots counters */
    uint32_t *host_seq;  /* host copy of the counters */
    mh_access *host;     /* drain staging, MH_CUDA_DRAIN_RECORDS records */
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

/* Locking: `mu` guards the host-side state below (writer, lists, counters)
 * and is never held while calling the Sanitizer or the driver, which take
 * locks of their own (holding ours across them deadlocked two host threads
 * launching while a third allocated). `patch_mu` serialises the patching
 * calls, as the Sanitizer API requires; launch callbacks only try it (see
 * "module patching" below). `mod_mu` guards the module table. mu and patch_mu
 * are never held together. */
typedef struct mh_cuda {
    pthread_mutex_t mu;
    pthread_mutex_t patch_mu;
    pthread_mutex_t mod_mu;     /* the module table (mods); never held across a Sanitizer call */
    int active;                 /* configuration read and callbacks subscribed */
    mh_collect_cfg cfg;         /* read-only after InitializeInjection */
    int eager_patch;            /* every launch is selected: patch modules at load (read-only after init) */
    int keep_patched;           /* MEMHEAT_CUDA_KEEP_PATCHED=1: never unpatch (for measuring the cost) */
    mh_collect_state st;
    Sanitizer_SubscriberHandle sub;
    mh_trace_writer *w;         /* NULL before the first context, after close, or after an error */
    int closed;
    char patch_path[1024];
    CUcontext patched_ctx[MH_CUDA_MAX_CTX]; /* under patch_mu */
    int n_patched_ctx;
    uint64_t modules_patched, patch_failures; /* under patch_mu */
    uint64_t modules_unpatched, unpatch_failures; /* under patch_mu */
    mh_cuda_module *mods;       /* under mod_mu: modules selected at least once */
    size_t n_mods, cap_mods;
    uint32_t next_launch;
    uint32_t next_alloc;
    uint64_t buffer_records;
    uint32_t smem_reserved;     /* bytes at the start of every block's shared window the system keeps */
    uint64_t launches_traced;
    /* how launches were decided (printed at exit with MEMHEAT_CUDA_DEBUG=1) */
    uint64_t dbg_entry_unknown, dbg_entry_used, dbg_name_differs, dbg_module_differs;
    uint64_t selected_open;     /* launches selected for tracing whose LAUNCH_END has not run yet */
    mh_cuda_buf *free_bufs;
    mh_cuda_flight *flights;
} mh_cuda;

static mh_cuda g_mh = {.mu = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP, .patch_mu = PTHREAD_MUTEX_INITIALIZER,
                     .mod_mu = PTHREAD_MUTEX_INITIALIZER};
/* Per host thread: the dynamic shared memory of the launch being made (from
 * the driver-API callback, read by the launch callback), and whether the
 * thread is allocating memheat's own buffers (not the program's objects). */
static _Thread_local uint32_t tl_dyn_smem;
static _Thread_local int tl_have_dyn_smem;
static _Thread_local int tl_own_alloc;
/* Set while this thread holds patch_mu inside a patching call (callbacks the
 * Sanitizer makes from there must not take patch_mu again). */
static _Thread_local int tl_in_patch;

static void mh_cuda_warn(const char *fmt, const char *detail) {
    fprintf(stderr, "memheat-cuda: ");
    fprintf(stderr, fmt, detail ? detail : "");
    fputc('\n', stderr);
}

static const char *mh_cuda_sanstr(SanitizerResult r) {
    const char *s = NULL;
    if (sanitizerGetResultString(r, &s) != SANITIZER_SUCCESS || !s) return "unknown Sanitizer error";
    return s;
}

/* Stops tracing after an error in the trace writer; keeps what was written. Under mu. */
static void mh_cuda_writer_failed(mh_err *err) {
    mh_cuda_warn("trace writing failed, tracing stops: %s", err->msg);
    if (g_mh.w) mh_trace_abandon(g_mh.w);
    g_mh.w = NULL;
    g_mh.closed = 1;
}

/* ---- trace creation: header from the first context's device ---- */

static void mh_cuda_command_line(char *out, size_t cap) {
    out[0] = '\0';
    FILE *f = fopen("/proc/self/cmdline", "rb");
    if (!f) return;
    size_t n = fread(out, 1, cap - 1, f);
    fclose(f);
    out[n] = '\0';
    for (size_t i = 0; i + 1 < n; i++)
        if (out[i] == '\0') out[i] = ' ';
}

static uint32_t mh_cuda_attr(CUdevice dev, CUdevice_attribute a) {
    int v = 0;
    if (cuDeviceGetAttribute(&v, a, dev) != CUDA_SUCCESS || v < 0) return 0;
    return (uint32_t)v;
}

static void mh_cuda_open_trace(CUdevice dev) {
    pthread_mutex_lock(&g_mh.mu);
    int need = !g_mh.w && !g_mh.closed;
    pthread_mutex_unlock(&g_mh.mu);
    if (!need) return;
    char name[256] = "unknown NVIDIA GPU";
    if (cuDeviceGetName(name, sizeof name, dev) != CUDA_SUCCESS) snprintf(name, sizeof name, "unknown NVIDIA GPU");
    char command[2048];
    mh_cuda_command_line(command, sizeof command);
    size_t total = 0;
    if (cuDeviceTotalMem(&total, dev) != CUDA_SUCCESS) total = 0;
    uint32_t warp = mh_cuda_attr(dev, CU_DEVICE_ATTRIBUTE_WARP_SIZE);
    mh_trace_header h = {
        .producer = MH_CUDA_PRODUCER,
        .command = command,
        .note = "",
        .start_unix_ns = 0,
        .device = {
            .name = name,
            .flags = 0,
            .warp_size = warp ? warp : 32,
            .sector_size = 32,
            .sm_count = mh_cuda_attr(dev, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT),
            .cc_major = mh_cuda_attr(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
            .cc_minor = mh_cuda_attr(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR),
            .mem_clock_khz = mh_cuda_attr(dev, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE),
            .bus_width_bits = mh_cuda_attr(dev, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH),
            .l2_bytes = mh_cuda_attr(dev, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE),
            .max_warps_per_sm = mh_cuda_attr(dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR) /
                                (warp ? warp : 32),
            .global_mem_bytes = (uint64_t)total,
        },
    };
    struct timespec ts;
    if (clock_gettime(CLOCK_REALTIME, &ts) == 0)
        h.start_unix_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
    uint32_t reserved = mh_cuda_attr(dev, CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK);
    mh_err err;
    mh_err_clear(&err);
    pthread_mutex_lock(&g_mh.mu);
    g_mh.smem_reserved = reserved;
    if (!g_mh.w && !g_mh.closed && mh_trace_create(&g_mh.w, g_mh.cfg.trace_path, &h, NULL, &err) != MH_OK) {
        mh_cuda_warn("cannot create the trace: %s", err.msg);
        g_mh.w = NULL;
        g_mh.closed = 1;
    }
    pthread_mutex_unlock(&g_mh.mu);
}

/* ---- module patching (lazy) ----
 *
 * A module is patched only when a launch of it is selected for tracing, at
 * that launch's LAUNCH_BEGIN, before the launch is queued; launches of modules
 * never selected run the original code and cost nothing. `inflight` counts the
 * traced launches of a module between their BEGIN and END. Once a module has
 * no traced launch in flight its patch is removed (sanitizerUnpatchModule), so
 * the untraced launches that follow -- the thousands of repeats the launch
 * policy samples out -- run the original code at full speed; a later selected
 * launch patches it again.
 *
 * No launch callback ever waits for patch_mu: a patching call made while
 * another host thread is inside its own launch callback of the same context
 * can need that thread to leave the driver first, so waiting for patch_mu there
 * deadlocked two threads launching one module. A launch callback only tries
 * the lock: a selected launch that finds another thread patching is simply not
 * traced (the next launch of its configuration is selected instead), and an
 * unpatch that finds the lock taken is left to the next launch. The module
 * table has its own short lock, mod_mu, never held across a Sanitizer call. */

static mh_cuda_module *mh_cuda_module_find(CUcontext ctx, CUmodule mod) {
    for (size_t i = 0; i < g_mh.n_mods; i++)
        if (g_mh.mods[i].mod == mod && (!ctx || g_mh.mods[i].ctx == ctx)) return &g_mh.mods[i];
    return NULL;
}

/* Under mod_mu: the module's entry, added if new; NULL when out of memory. */
static mh_cuda_module *mh_cuda_module_get(CUcontext ctx, CUmodule mod) {
    mh_cuda_module *m = mh_cuda_module_find(ctx, mod);
    if (m) return m;
    if (g_mh.n_mods == g_mh.cap_mods) {
        size_t cap = g_mh.cap_mods ? 2 * g_mh.cap_mods : 16;
        mh_cuda_module *grown = realloc(g_mh.mods, cap * sizeof *grown);
        if (!grown) return NULL;
        g_mh.mods = grown;
        g_mh.cap_mods = cap;
    }
    m = &g_mh.mods[g_mh.n_mods++];
    *m = (mh_cuda_module){.ctx = ctx, .mod = mod};
    return m;
}

/* Loads the patch into ctx once and instruments mod. Under patch_mu (which
 * also guards patched_ctx). 0 on success. */
static int mh_cuda_patch_module(CUcontext ctx, CUmodule mod) {
    SanitizerResult r;
    int found = 0;
    for (int i = 0; i < g_mh.n_patched_ctx; i++)
        if (g_mh.patched_ctx[i] == ctx) found = 1;
    if (!found) {
        if (g_mh.n_patched_ctx == MH_CUDA_MAX_CTX) {
            if (g_mh.patch_failures++ == 0)
                mh_cuda_warn("more than 64 CUDA contexts%s; later ones are not traced", "");
            return -1;
        }
        tl_own_alloc++;
        r = sanitizerAddPatchesFromFile(g_mh.patch_path, ctx);
        tl_own_alloc--;
        if (r != SANITIZER_SUCCESS) {
            char msg[1200];
            snprintf(msg, sizeof msg, "%s (%s)", g_mh.patch_path, mh_cuda_sanstr(r));
            if (g_mh.patch_failures++ == 0) mh_cuda_warn("cannot load the device patch %s; kernels are not traced", msg);
            return -1;
        }
        g_mh.patched_ctx[g_mh.n_patched_ctx++] = ctx;
    }
    if ((r = sanitizerPatchInstructions(SANITIZER_INSTRUCTION_GLOBAL_MEMORY_ACCESS, mod, "mh_patch_global")) !=
            SANITIZER_SUCCESS ||
        (r = sanitizerPatchInstructions(SANITIZER_INSTRUCTION_SHARED_MEMORY_ACCESS, mod, "mh_patch_shared")) !=
            SANITIZER_SUCCESS ||
        (r = sanitizerPatchInstructions(SANITIZER_INSTRUCTION_LOCAL_MEMORY_ACCESS, mod, "mh_patch_local")) !=
            SANITIZER_SUCCESS ||
        (r = sanitizerPatchInstructions(SANITIZER_INSTRUCTION_BLOCK_ENTER, mod, "mh_patch_block_enter")) !=
            SANITIZER_SUCCESS ||
        (r = sanitizerPatchInstructions(SANITIZER_INSTRUCTION_BLOCK_EXIT, mod, "mh_patch_block_exit")) !=
            SANITIZER_SUCCESS ||
        (r = sanitizerPatchModule(mod)) != SANITIZER_SUCCESS) {
        if (g_mh.patch_failures++ == 0) mh_cuda_warn("cannot patch a module: %s", mh_cuda_sanstr(r));
        return -1;
    }
    g_mh.modules_patched++;
    return 0;
}

enum { MH_ACQ_OK = 0, MH_ACQ_FAILED = -1, MH_ACQ_BUSY = -2 };

/* For a launch selected for tracing (launch != 0): patches its module if
 * needed and counts the launch in flight (release it with
 * mh_cuda_module_release). MH_ACQ_BUSY when another thread holds patch_mu
 * (never waited for from a launch callback), MH_ACQ_FAILED when the module
 * cannot be patched. With launch == 0 (eager mode, at module load, outside any
 * launch): waits for the lock and patches only. */
static int mh_cuda_module_acquire(CUcontext ctx, CUmodule mod, int launch) {
    if (tl_in_patch) return MH_ACQ_FAILED; /* the Sanitizer's own module, from inside a patching call */
    if (launch) {
        if (pthread_mutex_trylock(&g_mh.patch_mu) != 0) return MH_ACQ_BUSY;
    } else {
        pthread_mutex_lock(&g_mh.patch_mu);
    }
    tl_in_patch++;
    int rc = MH_ACQ_OK, need = 0;
    pthread_mutex_lock(&g_mh.mod_mu);
    mh_cuda_module *m = mh_cuda_module_get(ctx, mod);
    if (!m || m->failed) rc = MH_ACQ_FAILED;
    else need = !m->patched;
    pthread_mutex_unlock(&g_mh.mod_mu);
    int failed = rc == MH_ACQ_OK && need && mh_cuda_patch_module(ctx, mod) != 0;
    pthread_mutex_lock(&g_mh.mod_mu);
    m = mh_cuda_module_find(ctx, mod); /* the table may have moved (forget) */
    if (rc == MH_ACQ_OK) {
        if (!m || failed) {
            if (m) m->failed = 1;
            rc = MH_ACQ_FAILED;
        } else {
            m->patched = 1;
            if (launch) m->inflight++;
        }
    }
    pthread_mutex_unlock(&g_mh.mod_mu);
    tl_in_patch--;
    pthread_mutex_unlock(&g_mh.patch_mu);
    return rc;
}

/* From a launch callback, where nothing may be patched: counts a traced
 * launch in flight if its module is patched already (MH_ACQ_OK), else
 * MH_ACQ_BUSY. */
static int mh_cuda_module_acquire_patched(CUcontext ctx, CUmodule mod) {
    int rc = MH_ACQ_BUSY;
    pthread_mutex_lock(&g_mh.mod_mu);
    mh_cuda_module *m = mh_cuda_module_find(ctx, mod);
    if (m && m->patched && !m->unpatching) {
        m->inflight++;
        rc = MH_ACQ_OK;
    }
    pthread_mutex_unlock(&g_mh.mod_mu);
    return rc;
}

/* Unpatches every patched module with no traced launch in flight, if no
 * other thread is patching (else the next launch does it). */
static void mh_cuda_unpatch_idle(void) {
    if (tl_in_patch || pthread_mutex_trylock(&g_mh.patch_mu) != 0) return;
    tl_in_patch++;
    for (;;) {
        CUcontext ctx = NULL;
        CUmodule mod = NULL;
        pthread_mutex_lock(&g_mh.mod_mu);
        for (size_t i = 0; i < g_mh.n_mods && !mod; i++) {
            mh_cuda_module *m = &g_mh.mods[i];
            if (m->patched && !m->inflight && !m->stuck) {
                ctx = m->ctx;
                mod = m->mod;
                m->unpatching = 1;
            }
        }
        pthread_mutex_unlock(&g_mh.mod_mu);
        if (!mod) break;
        /* Only the holder of patch_mu patches or unpatches, and launches of
         * this module can only become traced through patch_mu: unpatching
         * now is safe although mod_mu is released. */
        SanitizerResult r = sanitizerUnpatchModule(mod);
        pthread_mutex_lock(&g_mh.mod_mu);
        mh_cuda_module *m = mh_cuda_module_find(ctx, mod);
        if (m) m->unpatching = 0;
        if (r != SANITIZER_SUCCESS) {
            if (g_mh.unpatch_failures++ == 0)
                mh_cuda_warn("cannot unpatch a module (%s); its later launches keep the patched code",
                             mh_cuda_sanstr(r));
            if (m) m->stuck = 1; /* do not try again; stays patched */
        } else {
                if (m) m->patched = 0;
            g_mh.modules_unpatched++;
        }
        pthread_mutex_unlock(&g_mh.mod_mu);
    }
    tl_in_patch--;
    pthread_mutex_unlock(&g_mh.patch_mu);
}

/* A traced launch of mod ended (or was not set up after all). `unpatch`:
 * idle modules lose their patch now. */
static void mh_cuda_module_release(CUcontext ctx, CUmodule mod, int unpatch) {
    pthread_mutex_lock(&g_mh.mod_mu);
    mh_cuda_module *m = mh_cuda_module_find(ctx, mod);
    if (m && m->inflight) m->inflight--;
    pthread_mutex_unlock(&g_mh.mod_mu);
    if (unpatch) mh_cuda_unpatch_idle();
}

/* An untraced launch: idle patches go before it runs, where allowed. */
static void mh_cuda_module_untraced(int unpatch) {
    if (!unpatch) return;
    int any = 0;
    pthread_mutex_lock(&g_mh.mod_mu);
    for (size_t i = 0; i < g_mh.n_mods && !any; i++)
        if (g_mh.mods[i].patched && !g_mh.mods[i].inflight && !g_mh.mods[i].stuck) any = 1;
    pthread_mutex_unlock(&g_mh.mod_mu);
    if (any) mh_cuda_unpatch_idle();
}

/* The module is being unloaded (or its context destroyed: mod NULL, all of ctx). */
static void mh_cuda_module_forget(CUcontext ctx, CUmodule mod) {
    if (tl_in_patch) return; /* the Sanitizer's own modules, from inside a patching call */
    pthread_mutex_lock(&g_mh.mod_mu);
    for (size_t i = 0; i < g_mh.n_mods;) {
        mh_cuda_module *m = &g_mh.mods[i];
        if ((mod && m->mod == mod && (!ctx || m->ctx == ctx)) || (!mod && m->ctx == ctx))
            *m = g_mh.mods[--g_mh.n_mods];
        else
            i++;
    }
    pthread_mutex_unlock(&g_mh.mod_mu);
}

/* Under mu: idle patches can go now. Always, unless patches are kept or
 * every launch is traced anyway (eager mode). */
static int mh_cuda_no_more_launches(void) {
    if (g_mh.keep_patched) return 0;
    if (g_mh.eager_patch && g_mh.w) return 0;
    return 1;
}

/* ---- allocations ---- */

static void mh_cuda_on_alloc(const Sanitizer_ResourceMemoryData *m, int async) {
    if (tl_own_alloc) return;
    const char *label = async ? "cudaMallocAsync" : "cudaMalloc";
    if (m->flags & SANITIZER_MEMORY_FLAG_MODULE) label = "__device__ variable";
    else if (m->flags & SANITIZER_MEMORY_FLAG_MANAGED) label = "cudaMallocManaged";
    else if (m->flags & SANITIZER_MEMORY_FLAG_CG_RUNTIME) return; /* the runtime's own */
    else if (async && m->memoryPool) label = "memory pool";
    pthread_mutex_lock(&g_mh.mu);
    if (g_mh.w) {
        mh_alloc a = {.id = g_mh.next_alloc++, .launch = MH_TRACE_NO_LAUNCH, .base = m->address, .size = m->size,
                      .space = MH_SPACE_GLOBAL, .label = label};
        mh_err err;
        if (mh_trace_write_alloc(g_mh.w, &a, &err) != MH_OK) mh_cuda_writer_failed(&err);
    }
    pthread_mutex_unlock(&g_mh.mu);
}

static void mh_cuda_on_free(const Sanitizer_ResourceMemoryData *m) {
    if (tl_own_alloc) return;
    pthread_mutex_lock(&g_mh.mu);
    if (g_mh.w) {
        mh_free f = {.base = m->address, .space = MH_SPACE_GLOBAL};
        mh_err err;
        if (mh_trace_write_free(g_mh.w, &f, &err) != MH_OK) mh_cuda_writer_failed(&err);
    }
    pthread_mutex_unlock(&g_mh.mu);
}

/* ---- record buffers (device calls outside mu) ---- */

static void mh_cuda_buf_destroy(mh_cuda_buf *b) {
    tl_own_alloc++;
    if (b->desc) sanitizerFree(b->ctx, b->desc);
    if (b->rec) sanitizerFree(b->ctx, b->rec);
    if (b->seq) sanitizerFree(b->ctx, b->seq);
    tl_own_alloc--;
    free(b->host_seq);
    free(b->host);
    free(b);
}

static void mh_cuda_buf_put(mh_cuda_buf *b) {
    pthread_mutex_lock(&g_mh.mu);
    b->next = g_mh.free_bufs;
    g_mh.free_bufs = b;
    pthread_mutex_unlock(&g_mh.mu);
}

/* A buffer of this context with room for `slots` sequence counters. */
static mh_cuda_buf *mh_cuda_buf_get(CUcontext ctx, uint64_t slots) {
    mh_cuda_buf **pp, *b = NULL;
    pthread_mutex_lock(&g_mh.mu);
    for (pp = &g_mh.free_bufs; *pp; pp = &(*pp)->next)
        if ((*pp)->ctx == ctx) {
            b = *pp;
            *pp = b->next;
            break;
        }
    uint64_t cap = g_mh.buffer_records;
    pthread_mutex_unlock(&g_mh.mu);
    if (!b) {
        b = calloc(1, sizeof *b);
        if (!b) return NULL;
        b->ctx = ctx;
        b->cap = cap;
        b->host = malloc((size_t)MH_CUDA_DRAIN_RECORDS * sizeof(mh_access));
        tl_own_alloc++;
        int ok = b->host && sanitizerAlloc(ctx, (void **)&b->desc, sizeof(mh_cuda_desc)) == SANITIZER_SUCCESS &&
                 sanitizerAlloc(ctx, (void **)&b->rec, (size_t)b->cap * sizeof(mh_access)) == SANITIZER_SUCCESS;
        tl_own_alloc--;
        if (!ok) {
            mh_cuda_buf_destroy(b);
            return NULL;
        }
    }
    b->next = NULL;
    if (b->seq_slots < slots) {
        tl_own_alloc++;
        if (b->seq) sanitizerFree(ctx, b->seq);
        free(b->host_seq);
        b->seq = NULL;
        b->seq_slots = 0;
        b->host_seq = malloc((size_t)slots * sizeof(uint32_t));
        if (b->host_seq &&
            sanitizerAlloc(ctx, (void **)&b->seq, (size_t)slots * sizeof(uint32_t)) == SANITIZER_SUCCESS)
            b->seq_slots = slots;
        tl_own_alloc--;
        if (!b->seq) {
            mh_cuda_buf_put(b);
            return NULL;
        }
    }
    return b;
}

static void mh_cuda_drop_ctx_bufs(CUcontext ctx) {
    mh_cuda_buf *mine = NULL;
    pthread_mutex_lock(&g_mh.mu);
    mh_cuda_buf **pp = &g_mh.free_bufs;
    while (*pp) {
        mh_cuda_buf *b = *pp;
        if (b->ctx == ctx) {
            *pp = b->next;
            b->next = mine;
            mine = b;
        } else {
            pp = &b->next;
        }
    }
    mh_err err;
    if (g_mh.w && mh_trace_flush(g_mh.w, &err) != MH_OK) mh_cuda_writer_failed(&err);
    pthread_mutex_unlock(&g_mh.mu);
    while (mine) {
        mh_cuda_buf *next = mine->next;
        mh_cuda_buf_destroy(mine);
        mine = next;
    }
    pthread_mutex_lock(&g_mh.patch_mu);
    for (int i = 0; i < g_mh.n_patched_ctx; i++)
        if (g_mh.patched_ctx[i] == ctx) g_mh.patched_ctx[i] = g_mh.patched_ctx[--g_mh.n_patched_ctx];
    pthread_mutex_unlock(&g_mh.patch_mu);
    mh_cuda_module_forget(ctx, NULL);
}

/* ---- launches ---- */

/* Under mu. */
static void mh_cuda_write_dropped(uint32_t launch, uint64_t n, const char *why) {
    if (!g_mh.w) return;
    mh_dropped d = {.launch = launch, .count = n, .reason = why};
    mh_err err;
    if (mh_trace_write_dropped(g_mh.w, &d, &err) != MH_OK) mh_cuda_writer_failed(&err);
}

static void mh_cuda_dropped_locked(uint32_t launch, uint64_t n, const char *why) {
    pthread_mutex_lock(&g_mh.mu);
    mh_cuda_write_dropped(launch, n, why);
    pthread_mutex_unlock(&g_mh.mu);
}

/* ---- selection ----
 *
 * Patching from inside a launch callback deadlocks: the driver holds a lock
 * of the context there that sanitizerAddPatchesFromFile and
 * sanitizerPatchModule need for writing, and a second host thread asking for
 * the same lock (cuEventCreate, say) froze both (seen with cuda-gdb on an
 * H100). So a launch is selected, and its module patched, at the entry of the
 * driver's launch call (cuLaunchKernel and its variants), before the driver
 * takes its locks; idle patches are removed there too. The decision waits in
 * tl_pend for the launch callbacks. A launch that reaches LAUNCH_BEGIN without
 * such a decision (another launch API) is decided there, and traced only if
 * its module is patched already. */

typedef struct mh_cuda_pending {
    int valid;          /* a decision for this thread's launch in progress */
    int want;           /* selected, and its module acquired */
    CUcontext ctx;
    CUmodule mod;
    mh_collect_launch key; /* key.name and key.display owned */
} mh_cuda_pending;

static _Thread_local mh_cuda_pending tl_pend;

static void mh_cuda_pending_clear(void) {
    free((char *)tl_pend.key.name);
    free((char *)tl_pend.key.display);
    memset(&tl_pend, 0, sizeof tl_pend);
}

/* Counts the launch and decides whether it is traced; a selected launch has
 * its module acquired (patched when may_patch, else only if patched already).
 * Returns 1 when the launch is to be traced. */
static int mh_cuda_select(const mh_collect_launch *key, CUcontext ctx, CUmodule mod, int may_patch, uint32_t id) {
    pthread_mutex_lock(&g_mh.mu);
    int want = g_mh.w && mh_collect_want_launch(&g_mh.cfg, &g_mh.st, key);
    if (want) g_mh.selected_open++;
    int unpatch = mh_cuda_no_more_launches();
    pthread_mutex_unlock(&g_mh.mu);
    int acq = MH_ACQ_BUSY, keep = 0;
    if (want) {
        acq = may_patch ? mh_cuda_module_acquire(ctx, mod, 1) : mh_cuda_module_acquire_patched(ctx, mod);
        if (acq == MH_ACQ_FAILED) {
            mh_cuda_dropped_locked(id, 0, "launch not traced: its module could not be patched");
            keep = 1; /* its module never will be: no retry with the next launch */
        }
        if (acq != MH_ACQ_OK) {
            pthread_mutex_lock(&g_mh.mu);
            if (!keep) mh_collect_unselect(&g_mh.cfg, &g_mh.st, key);
            g_mh.selected_open--;
            pthread_mutex_unlock(&g_mh.mu);
        }
    }
    /* Idle modules lose their patch before this launch runs (its own module,
     * if traced, is held by its count in flight). */
    if (may_patch) mh_cuda_module_untraced(unpatch);
    return want && acq == MH_ACQ_OK;
}

/* Driver-API entry of a launch: the decision, patching included. */
static void mh_cuda_decide_at_entry(CUfunction f, mh_dim3 grid, mh_dim3 block, uint32_t dyn) {
    mh_cuda_pending_clear();
    const char *name = NULL;
    CUmodule mod = NULL;
    CUcontext ctx = NULL;
    /* The runtime launches through context-independent CUkernel handles (cast
     * to CUfunction): resolve one to the current context's function first. */
    CUfunction g = NULL;
    if (f && cuFuncGetName(&name, f) != CUDA_SUCCESS && cuKernelGetFunction(&g, (CUkernel)f) == CUDA_SUCCESS && g)
        f = g;
    name = NULL;
    if (!f || cuFuncGetName(&name, f) != CUDA_SUCCESS || !name || cuFuncGetModule(&mod, f) != CUDA_SUCCESS ||
        cuCtxGetCurrent(&ctx) != CUDA_SUCCESS || !ctx) {
        __atomic_add_fetch(&g_mh.dbg_entry_unknown, 1, __ATOMIC_RELAXED);
        return; /* decided at LAUNCH_BEGIN */
    }
    tl_pend.key.name = strdup(name);
    /* the demangled name only matters to a --kernel regex: no demangling per launch otherwise */
    tl_pend.key.display = g_mh.cfg.have_regex ? mh_cuda_demangle(name) : NULL;
    if (!tl_pend.key.name) {
        mh_cuda_pending_clear();
        return;
    }
    tl_pend.key.grid = grid;
    tl_pend.key.block = block;
    tl_pend.key.dyn_smem = dyn;
    tl_pend.ctx = ctx;
    tl_pend.mod = mod;
    pthread_mutex_lock(&g_mh.mu);
    uint32_t id = g_mh.next_launch; /* for a drop notice only */
    pthread_mutex_unlock(&g_mh.mu);
    tl_pend.want = mh_cuda_select(&tl_pend.key, ctx, mod, 1, id);
    tl_pend.valid = 1;
}

static int acq_mod_differs(CUcontext ctx, CUmodule mod, const Sanitizer_LaunchData *ld) {
    return ctx != ld->context || mod != ld->module;
}

/* Driver-API exit: a decision that no launch callback took (the launch
 * failed before it was made) is undone. */
static void mh_cuda_undo_at_exit(void) {
    if (!tl_pend.valid) return;
    if (tl_pend.want) {
        pthread_mutex_lock(&g_mh.mu);
        mh_collect_unselect(&g_mh.cfg, &g_mh.st, &tl_pend.key);
        g_mh.selected_open--;
        pthread_mutex_unlock(&g_mh.mu);
        mh_cuda_module_release(tl_pend.ctx, tl_pend.mod, 0);
    }
    mh_cuda_pending_clear();
}

static void mh_cuda_launch_begin(const Sanitizer_LaunchData *ld) {
    uint32_t dyn = tl_have_dyn_smem ? tl_dyn_smem : 0;
    tl_have_dyn_smem = 0;
    const void *userdata = NULL;
    mh_cuda_buf *buf = NULL;
    mh_cuda_flight *fl = NULL;
    uint32_t ids[MH_COLLECT_MAX_BLOCKS];
    char *display = ld->functionName ? mh_cuda_demangle(ld->functionName) : NULL;

    mh_collect_launch key = {.name = ld->functionName ? ld->functionName : "?", .display = display,
                             .grid = {ld->gridDim_x, ld->gridDim_y, ld->gridDim_z},
                             .block = {ld->blockDim_x, ld->blockDim_y, ld->blockDim_z}, .dyn_smem = dyn};
    pthread_mutex_lock(&g_mh.mu);
    uint32_t id = g_mh.next_launch++;
    pthread_mutex_unlock(&g_mh.mu);
    int want;
    CUcontext acq_ctx = ld->context;
    CUmodule acq_mod = ld->module;
    if (tl_pend.valid && ld->functionName && !strcmp(tl_pend.key.name, ld->functionName)) {
        want = tl_pend.want; /* decided (and patched) at the driver call's entry */
        __atomic_add_fetch(&g_mh.dbg_entry_used, 1, __ATOMIC_RELAXED);
        if (want && acq_mod_differs(tl_pend.ctx, tl_pend.mod, ld))
            __atomic_add_fetch(&g_mh.dbg_module_differs, 1, __ATOMIC_RELAXED);
        acq_ctx = tl_pend.ctx;
        acq_mod = tl_pend.mod;
        tl_pend.want = 0;
        mh_cuda_pending_clear();
    } else {
        if (tl_pend.valid) __atomic_add_fetch(&g_mh.dbg_name_differs, 1, __ATOMIC_RELAXED);
        mh_cuda_undo_at_exit();
        want = ld->functionName && mh_cuda_select(&key, ld->context, ld->module, 0, id);
    }
    if (!want) goto untraced;

    mh_dim3 grid = {ld->gridDim_x, ld->gridDim_y, ld->gridDim_z};
    uint32_t nthreads = ld->blockDim_x * ld->blockDim_y * ld->blockDim_z;
    uint64_t total = (uint64_t)grid.x * grid.y * grid.z;
    uint32_t n = mh_collect_sampled_list(&g_mh.cfg, grid, ids, MH_COLLECT_MAX_BLOCKS);
    uint32_t first, nblocks;
    if (n == MH_TRACE_ALL_BLOCKS) {
        first = 0;
        nblocks = total > UINT32_MAX ? UINT32_MAX : (uint32_t)total;
    } else {
        first = n ? ids[0] : 0;
        nblocks = n;
    }
    if (nblocks == 0 || nthreads == 0) goto untraced;

    uint64_t slots = (uint64_t)nblocks * nthreads;
    if (slots > MH_CUDA_MAX_SEQ_SLOTS) {
        mh_cuda_dropped_locked(id, 0, "launch not traced: too many traced threads (use fewer --blocks)");
        goto untraced;
    }
    buf = mh_cuda_buf_get(ld->context, slots);
    fl = calloc(1, sizeof *fl);
    if (!buf || !fl) {
        if (buf) mh_cuda_buf_put(buf);
        free(fl);
        mh_cuda_dropped_locked(id, 0, "launch not traced: cannot allocate the device record buffer");
        goto untraced;
    }

    int regs = 0, ssmem = 0;
    if (cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, ld->function) != CUDA_SUCCESS) regs = 0;
    if (cuFuncGetAttribute(&ssmem, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, ld->function) != CUDA_SUCCESS) ssmem = 0;
    fl->h = ld->hLaunch;
    fl->buf = buf;
    fl->ctx = acq_ctx;
    fl->mod = acq_mod;
    fl->id = id;
    if (sanitizerGetFunctionPcAndSize(ld->module, ld->functionName, &fl->func_pc, &fl->func_size) !=
        SANITIZER_SUCCESS)
        fl->func_pc = fl->func_size = 0;

    mh_cuda_desc d = {.t_start = ~0ull, .t_end = 0, .rec = buf->rec, .seq = buf->seq, .launch = id,
                      .first = first, .nblocks = nblocks, .nthreads = nthreads, .slots = (uint32_t)slots,
                      .per_thread = (uint32_t)(buf->cap / slots > UINT32_MAX ? UINT32_MAX : buf->cap / slots)};
    SanitizerResult r = sanitizerMemset(buf->seq, 0, (size_t)slots * sizeof(uint32_t), ld->hStream);
    if (r == SANITIZER_SUCCESS) r = sanitizerMemcpyHostToDeviceAsync(buf->desc, &d, sizeof d, ld->hStream);
    if (r != SANITIZER_SUCCESS) {
        mh_cuda_dropped_locked(id, 0, "launch not traced: cannot set up the device descriptor");
        mh_cuda_buf_put(buf);
        free(fl);
        goto untraced;
    }

    mh_launch l = {
        .id = id,
        .name = ld->functionName,
        .display_name = display ? display : ld->functionName,
        .grid = grid,
        .block = {ld->blockDim_x, ld->blockDim_y, ld->blockDim_z},
        .dyn_smem = dyn,
        .static_smem = (uint32_t)(ssmem > 0 ? ssmem : 0),
        .regs = (uint32_t)(regs > 0 ? regs : 0),
        .stream = (uint64_t)(uintptr_t)ld->stream,
        .n_sampled = n,
        .sampled = ids,
    };
    mh_err err;
    pthread_mutex_lock(&g_mh.mu);
    int ok = g_mh.w != NULL;
    if (ok && mh_trace_write_launch(g_mh.w, &l, &err) != MH_OK) {
        mh_cuda_writer_failed(&err);
        ok = 0;
    }
    uint64_t smem = (uint64_t)l.static_smem + dyn;
    if (ok && smem) {
        /* The Sanitizer's shared offsets count from the start of the window,
         * whose first bytes the system reserves (1 KiB on sm_80 and later). */
        mh_alloc a = {.id = g_mh.next_alloc++, .launch = id, .base = g_mh.smem_reserved, .size = smem,
                      .space = MH_SPACE_SHARED, .label = "shared window"};
        if (mh_trace_write_alloc(g_mh.w, &a, &err) != MH_OK) mh_cuda_writer_failed(&err);
    }
    if (ok) {
        fl->next = g_mh.flights;
        g_mh.flights = fl;
        g_mh.launches_traced++;
    }
    pthread_mutex_unlock(&g_mh.mu);
    if (!ok) {
        mh_cuda_buf_put(buf);
        free(fl);
        goto untraced;
    }
    userdata = buf->desc;

untraced:
    free(display);
    sanitizerSetLaunchCallbackData(ld->hLaunch, ld->function, ld->hStream, userdata);
    if (want && !userdata) { /* selected, but not traced after all */
        pthread_mutex_lock(&g_mh.mu);
        mh_collect_unselect(&g_mh.cfg, &g_mh.st, &key);
        g_mh.selected_open--;
        pthread_mutex_unlock(&g_mh.mu);
        mh_cuda_module_release(acq_ctx, acq_mod, 0);
    }
}

static void mh_cuda_launch_end(const Sanitizer_LaunchData *ld) {
    mh_cuda_flight **pp, *fl = NULL;
    pthread_mutex_lock(&g_mh.mu);
    for (pp = &g_mh.flights; *pp; pp = &(*pp)->next)
        if ((*pp)->h == ld->hLaunch) {
            fl = *pp;
            *pp = fl->next;
            break;
        }
    pthread_mutex_unlock(&g_mh.mu);
    if (!fl) return;
    mh_cuda_buf *buf = fl->buf;
    mh_cuda_desc d;
    SanitizerResult r = sanitizerStreamSynchronize(ld->hStream);
    if (r == SANITIZER_SUCCESS) r = sanitizerMemcpyDeviceToHost(&d, buf->desc, sizeof d, ld->hStream);
    if (r == SANITIZER_SUCCESS)
        r = sanitizerMemcpyDeviceToHost(buf->host_seq, buf->seq, (size_t)d.slots * sizeof(uint32_t), ld->hStream);
    mh_kernel_end e = {.launch = fl->id, .recorded = 0, .dropped = 0, .gpu_ns = 0};
    mh_err err;
    uint64_t over = 0;
    if (r != SANITIZER_SUCCESS) {
        /* The kernel faulted or the context is gone: nothing can be read back. */
        mh_cuda_dropped_locked(fl->id, 0, "records lost: the kernel failed before they could be read back");
    } else {
        uint32_t steps = 0;
        for (uint32_t i = 0; i < d.slots; i++) {
            uint32_t q = buf->host_seq[i];
            if (q > d.per_thread) over += q - d.per_thread;
            if (q > steps) steps = q;
        }
        if (steps > d.per_thread) steps = d.per_thread;
        uint64_t n = (uint64_t)steps * d.slots; /* records in the used rows, holes included */
        for (uint64_t off = 0; off < n; off += MH_CUDA_DRAIN_RECORDS) {
            uint64_t k = n - off < MH_CUDA_DRAIN_RECORDS ? n - off : MH_CUDA_DRAIN_RECORDS;
            if (sanitizerMemcpyDeviceToHost(buf->host, buf->rec + off, (size_t)k * sizeof(mh_access),
                                            ld->hStream) != SANITIZER_SUCCESS) {
                mh_cuda_dropped_locked(fl->id, 0, "records lost: device-to-host copy failed");
                break;
            }
            /* Keep the records that exist (step < the thread's final count). */
            size_t m = 0;
            for (uint64_t i = 0; i < k; i++) {
                uint64_t flat = off + i;
                uint32_t step = (uint32_t)(flat / d.slots), slot = (uint32_t)(flat % d.slots);
                if (step >= buf->host_seq[slot]) continue;
                mh_access a = buf->host[i];
                if (fl->func_size && a.pc >= fl->func_pc && a.pc < fl->func_pc + fl->func_size) a.pc -= fl->func_pc;
                buf->host[m++] = a;
            }
            if (!m) continue;
            pthread_mutex_lock(&g_mh.mu);
            int ok = g_mh.w && mh_trace_write_accesses(g_mh.w, buf->host, m, &err) == MH_OK;
            if (!ok && g_mh.w) mh_cuda_writer_failed(&err);
            pthread_mutex_unlock(&g_mh.mu);
            if (!ok) break;
            e.recorded += m;
        }
        if (d.t_end > d.t_start) e.gpu_ns = d.t_end - d.t_start;
    }
    pthread_mutex_lock(&g_mh.mu);
    if (over) {
        e.dropped += over;
        char why[200];
        snprintf(why, sizeof why,
                 "device record buffer full (%" PRIu32 " records per traced thread; raise --buffer-bytes)",
                 d.per_thread);
        mh_cuda_write_dropped(fl->id, over, why);
    }
    if (g_mh.w) {
        if (mh_trace_write_kernel_end(g_mh.w, &e, &err) != MH_OK || mh_trace_flush(g_mh.w, &err) != MH_OK)
            mh_cuda_writer_failed(&err);
    }
    g_mh.selected_open--;
    pthread_mutex_unlock(&g_mh.mu);
    mh_cuda_buf_put(buf);
    /* The kernel has finished (stream synchronised above): its module may
     * lose its patch, at the next launch's entry (never from a launch callback). */
    mh_cuda_module_release(fl->ctx, fl->mod, 0);
    free(fl);
}

/* ---- callback dispatch ---- */

static void mh_cuda_on_driver_api(Sanitizer_CallbackId cbid, const Sanitizer_CallbackData *cb) {
    if (!cb->functionParams) return;
    if (cb->callbackSite == SANITIZER_API_EXIT) {
        mh_cuda_undo_at_exit();
        return;
    }
    if (cb->callbackSite != SANITIZER_API_ENTER) return;
    CUfunction f = NULL;
    mh_dim3 grid = {0, 0, 0}, block = {0, 0, 0};
    switch (cbid) {
    case SANITIZER_CBID_DRIVER_API_cuLaunchKernel:
    case SANITIZER_CBID_DRIVER_API_cuLaunchKernel_ptsz: {
        const cuLaunchKernel_params *p = cb->functionParams;
        f = p->f;
        grid = (mh_dim3){p->gridDimX, p->gridDimY, p->gridDimZ};
        block = (mh_dim3){p->blockDimX, p->blockDimY, p->blockDimZ};
        tl_dyn_smem = p->sharedMemBytes;
        tl_have_dyn_smem = 1;
        break;
    }
    case SANITIZER_CBID_DRIVER_API_cuLaunchCooperativeKernel:
    case SANITIZER_CBID_DRIVER_API_cuLaunchCooperativeKernel_ptsz: {
        const cuLaunchCooperativeKernel_params *p = cb->functionParams;
        f = p->f;
        grid = (mh_dim3){p->gridDimX, p->gridDimY, p->gridDimZ};
        block = (mh_dim3){p->blockDimX, p->blockDimY, p->blockDimZ};
        tl_dyn_smem = p->sharedMemBytes;
        tl_have_dyn_smem = 1;
        break;
    }
    case SANITIZER_CBID_DRIVER_API_cuLaunchKernelEx:
    case SANITIZER_CBID_DRIVER_API_cuLaunchKernelEx_ptsz: {
        const cuLaunchKernelEx_params *p = cb->functionParams;
        const CUlaunchConfig *c = p->config;
        if (!c) return;
        f = p->f;
        grid = (mh_dim3){c->gridDimX, c->gridDimY, c->gridDimZ};
        block = (mh_dim3){c->blockDimX, c->blockDimY, c->blockDimZ};
        tl_dyn_smem = c->sharedMemBytes;
        tl_have_dyn_smem = 1;
        break;
    }
    default:
        return;
    }
    if (g_mh.eager_patch) return; /* every launch traced, modules patched at load: nothing to decide early */
    mh_cuda_decide_at_entry(f, grid, block, tl_dyn_smem);
}

static void SANITIZERAPI mh_cuda_callback(void *userdata, Sanitizer_CallbackDomain domain, Sanitizer_CallbackId cbid,
                                          const void *cbdata) {
    (void)userdata;
    if (domain == SANITIZER_CB_DOMAIN_DRIVER_API) {
        mh_cuda_on_driver_api(cbid, (const Sanitizer_CallbackData *)cbdata);
    } else if (domain == SANITIZER_CB_DOMAIN_RESOURCE) {
        switch (cbid) {
        case SANITIZER_CBID_RESOURCE_CONTEXT_CREATION_FINISHED:
            mh_cuda_open_trace(((const Sanitizer_ResourceContextData *)cbdata)->device);
            break;
        case SANITIZER_CBID_RESOURCE_CONTEXT_DESTROY_STARTING:
            mh_cuda_drop_ctx_bufs(((const Sanitizer_ResourceContextData *)cbdata)->context);
            break;
        case SANITIZER_CBID_RESOURCE_MODULE_LOADED:
            /* Every launch traced (no --kernel/--launch-skip/--launch-count):
             * nothing to gain from waiting, patch at load as before. */
            if (g_mh.eager_patch) {
                const Sanitizer_ResourceModuleData *m = cbdata;
                (void)mh_cuda_module_acquire(m->context, m->module, 0);
            }
            break;
        case SANITIZER_CBID_RESOURCE_MODULE_UNLOAD_STARTING: {
            /* Modules are patched lazily, at their first traced launch
             * (mh_cuda_module_acquire); an unloaded one is forgotten, as its
             * handle may be reused. */
            const Sanitizer_ResourceModuleData *m = cbdata;
            mh_cuda_module_forget(m->context, m->module);
            break;
        }
        case SANITIZER_CBID_RESOURCE_DEVICE_MEMORY_ALLOC:
            mh_cuda_on_alloc(cbdata, 0);
            break;
        case SANITIZER_CBID_RESOURCE_MEMORY_ALLOC_ASYNC:
            mh_cuda_on_alloc(cbdata, 1);
            break;
        case SANITIZER_CBID_RESOURCE_DEVICE_MEMORY_FREE:
        case SANITIZER_CBID_RESOURCE_MEMORY_FREE_ASYNC:
            mh_cuda_on_free(cbdata);
            break;
        default:
            break;
        }
    } else if (domain == SANITIZER_CB_DOMAIN_LAUNCH) {
        if (cbid == SANITIZER_CBID_LAUNCH_BEGIN)
            mh_cuda_launch_begin(cbdata);
        else if (cbid == SANITIZER_CBID_LAUNCH_END)
            mh_cuda_launch_end(cbdata);
    }
}

/* ---- start and end ---- */

/* Under mu: one MH_REC_LAUNCH_STATS record per configuration seen. */
static void mh_cuda_write_launch_stats(void) {
    mh_err err;
    const mh_collect_state *st = &g_mh.st;
    for (size_t i = 0; i < st->capconfigs && g_mh.w; i++) {
        const mh_collect_config *c = &st->configs[i];
        if (!c->name) continue;
        mh_launch_stats ls = {.name = c->name, .grid = c->grid, .block = c->block, .dyn_smem = c->dyn_smem,
                              .launches = c->launches, .traced = c->traced};
        if (mh_trace_write_launch_stats(g_mh.w, &ls, &err) != MH_OK) mh_cuda_writer_failed(&err);
    }
    if (st->oom) mh_cuda_write_dropped(MH_TRACE_NO_LAUNCH, 0, "launch counts incomplete: out of memory");
}

static void mh_cuda_at_exit(void) {
    const char *dbg = getenv("MEMHEAT_CUDA_DEBUG");
    if (dbg && *dbg == '1')
        fprintf(stderr,
                "memheat-cuda: decisions: at entry %" PRIu64 ", entry without function info %" PRIu64
                ", name differs at begin %" PRIu64 ", module differs %" PRIu64 "; modules patched %" PRIu64
                ", unpatched %" PRIu64 "\n",
                g_mh.dbg_entry_used, g_mh.dbg_entry_unknown, g_mh.dbg_name_differs, g_mh.dbg_module_differs,
                g_mh.modules_patched, g_mh.modules_unpatched);
    pthread_mutex_lock(&g_mh.mu);
    if (g_mh.w) mh_cuda_write_launch_stats();
    if (g_mh.w) {
        mh_err err;
        if (mh_trace_close(g_mh.w, &err) != MH_OK) mh_cuda_warn("closing the trace failed: %s", err.msg);
        g_mh.w = NULL;
    }
    g_mh.closed = 1;
    pthread_mutex_unlock(&g_mh.mu);
    pthread_mutex_lock(&g_mh.patch_mu);
    if (g_mh.patch_failures) mh_cuda_warn("%s", "some modules could not be patched; their kernels are not traced");
    pthread_mutex_unlock(&g_mh.patch_mu);
}

static int mh_cuda_find_patch(void) {
    const char *env = getenv("MEMHEAT_CUDA_PATCH");
    if (env && *env) {
        snprintf(g_mh.patch_path, sizeof g_mh.patch_path, "%s", env);
    } else {
        Dl_info info;
        if (!dladdr((void *)&mh_cuda_find_patch, &info) || !info.dli_fname) return -1;
        const char *slash = strrchr(info.dli_fname, '/');
        int dirlen = slash ? (int)(slash - info.dli_fname) : 1;
        snprintf(g_mh.patch_path, sizeof g_mh.patch_path, "%.*s/%s", dirlen, slash ? info.dli_fname : ".",
                 MH_CUDA_PATCH_FILE);
    }
    struct stat sb;
    return stat(g_mh.patch_path, &sb) == 0 ? 0 : -1;
}

/* One run for trace and timing: with MEMHEAT_TIMING_LIB set (by `memheat
 * run`), the timing collector (libmemheat_cupti.so) is loaded into this
 * process too and started as the driver would start it, so the program runs
 * once instead of once per pass. */
static void mh_cuda_load_timing(void) {
    const char *lib = getenv("MEMHEAT_TIMING_LIB");
    if (!lib || !*lib) return;
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    int (*init)(void) = NULL;
    if (h) *(void **)&init = dlsym(h, "InitializeInjection");
    if (!init) {
        mh_cuda_warn("cannot load the timing collector, kernel times are missing: %s", h ? lib : dlerror());
        return;
    }
    if (!init()) mh_cuda_warn("the timing collector %s did not start; kernel times are missing", lib);
}

/* Called by the CUDA driver when it loads this library (CUDA_INJECTION64_PATH). */
int InitializeInjection(void) {
    pthread_mutex_lock(&g_mh.mu);
    if (g_mh.active) {
        pthread_mutex_unlock(&g_mh.mu);
        return 1;
    }
    mh_err err;
    mh_err_clear(&err);
    if (mh_collect_cfg_from_env(&g_mh.cfg, &err) != MH_OK) {
        mh_cuda_warn("bad sampling configuration, nothing is traced: %s", err.msg);
        pthread_mutex_unlock(&g_mh.mu);
        return 0;
    }
    if (mh_cuda_find_patch() != 0) {
        mh_cuda_warn("device patch not found at %s, nothing is traced", g_mh.patch_path);
        pthread_mutex_unlock(&g_mh.mu);
        return 0;
    }
    uint64_t bytes = g_mh.cfg.buffer_bytes ? g_mh.cfg.buffer_bytes : MH_CUDA_DEFAULT_BUFFER;
    g_mh.buffer_records = bytes / sizeof(mh_access);
    g_mh.eager_patch = g_mh.cfg.launch_policy == MH_LAUNCH_ALL && !g_mh.cfg.have_regex &&
                       g_mh.cfg.launch_skip == 0 && g_mh.cfg.launch_count == 0;
    const char *kp = getenv("MEMHEAT_CUDA_KEEP_PATCHED");
    g_mh.keep_patched = kp && *kp == '1';
    if (g_mh.buffer_records < 1024) g_mh.buffer_records = 1024;
    SanitizerResult r = sanitizerSubscribe(&g_mh.sub, mh_cuda_callback, NULL);
    if (r != SANITIZER_SUCCESS) {
        mh_cuda_warn("cannot subscribe to the Compute Sanitizer API (%s); nothing is traced", mh_cuda_sanstr(r));
        pthread_mutex_unlock(&g_mh.mu);
        return 0;
    }
    sanitizerEnableDomain(1, g_mh.sub, SANITIZER_CB_DOMAIN_RESOURCE);
    sanitizerEnableDomain(1, g_mh.sub, SANITIZER_CB_DOMAIN_LAUNCH);
    static const Sanitizer_CallbackId launch_apis[] = {
        SANITIZER_CBID_DRIVER_API_cuLaunchKernel,           SANITIZER_CBID_DRIVER_API_cuLaunchKernel_ptsz,
        SANITIZER_CBID_DRIVER_API_cuLaunchKernelEx,         SANITIZER_CBID_DRIVER_API_cuLaunchKernelEx_ptsz,
        SANITIZER_CBID_DRIVER_API_cuLaunchCooperativeKernel, SANITIZER_CBID_DRIVER_API_cuLaunchCooperativeKernel_ptsz,
    };
    for (size_t i = 0; i < sizeof launch_apis / sizeof launch_apis[0]; i++)
        sanitizerEnableCallback(1, g_mh.sub, SANITIZER_CB_DOMAIN_DRIVER_API, launch_apis[i]);
    atexit(mh_cuda_at_exit);
    g_mh.active = 1;
    pthread_mutex_unlock(&g_mh.mu);
    mh_cuda_load_timing();
    return 1;
}
