/* inject.c -- memheat's CUDA collector: an injection library that the CUDA
 * driver loads through CUDA_INJECTION64_PATH (set by `memheat run`).
 *
 * The library owns everything that happens inside the profiled process:
 *   - reads the sampling configuration from MEMHEAT_* (collect.h);
 *   - subscribes to Compute Sanitizer callbacks: contexts (device description
 *     for the trace header), modules (patched with the device code of
 *     patch.cu when a launch of theirs is traced: modules.c), allocations and
 *     frees (mh_alloc / mh_free records), launches (launch.c);
 *   - for a launch that is traced, gives the patch a device descriptor and a
 *     record buffer, and at the launch's end waits for it, copies the records
 *     into the trace, writes mh_kernel_end with the exact number dropped if
 *     the buffer was too small, and flushes (the writer's own thread codes and
 *     writes the chunk; a fatal signal waits for it), so a later crash loses
 *     nothing;
 *   - for a launch that is not traced, passes a NULL descriptor (the patch
 *     returns at its first test) or runs an unpatched module;
 *   - with MEMHEAT_TIMING_LIB, hosts the timing collector in the same run
 *     (collectors/timing_hook.h) and forwards it launches and copies (copies.c);
 *   - closes the trace at exit().
 *
 * This file: the state, start and exit, the trace header, the callback
 * dispatch. The state is this file's one static, g_state: the Sanitizer hands
 * it back to the callback as userdata, every other function is handed it;
 * only the driver's entry point (InitializeInjection) and the atexit, fatal
 * signal and fork handlers, which take no arguments, name it. Callbacks may come from several host threads: the locking rules
 * are in cuda_internal.h (mu is recursive because our own sanitizerAlloc can
 * re-enter the resource callback on the same thread). */
#include "cuda_internal.h"

#include <signal.h>

static mh_cuda g_state = {.mu = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP, .patch_mu = PTHREAD_MUTEX_INITIALIZER,
                          .mod_mu = PTHREAD_MUTEX_INITIALIZER, .gate_mu = PTHREAD_MUTEX_INITIALIZER,
                          .gate_cv = PTHREAD_COND_INITIALIZER};

/* ---- trace creation: header from the first context's device ---- */

/* ---- a program that dies on a signal, a program that forks ----
 * Chunks of the trace are written on the writer's thread (mh_cuda_open_trace).
 * A program that dies on a signal would lose the chunks that thread has not
 * written yet (a few milliseconds' worth: the last traced launches): where the
 * program has no handler of its own when the trace opens, the handler waits
 * for them (at most 5 s), then the signal takes its default course. */
static void mh_cuda_on_fatal(int sig) {
    mh_trace_writer *w = __atomic_load_n(&g_state.w, __ATOMIC_ACQUIRE);
    for (int i = 0; w && i < 5000 && mh_trace_pending(w) > 0; i++) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    raise(sig); /* SA_RESETHAND put the default action back */
}

/* Under mu, once the trace is open. */
static void mh_cuda_catch_fatal(void) {
    static int done;
    if (done) return;
    done = 1;
    static const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction old, sa;
        if (sigaction(sigs[i], NULL, &old) != 0 || old.sa_handler != SIG_DFL || (old.sa_flags & SA_SIGINFO)) continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = mh_cuda_on_fatal;
        sa.sa_flags = SA_RESETHAND | SA_NODEFER;
        sigemptyset(&sa.sa_mask);
        sigaction(sigs[i], &sa, NULL);
    }
}

/* A child forked without exec shares the parent's trace file but not the
 * writer's thread: it never writes to it (and its exit does not close it). */
static void mh_cuda_forked_child(void) {
    g_state.w = NULL;
    g_state.closed = 1;
}

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

static void mh_cuda_open_trace(mh_cuda *mh, CUdevice dev) {
    pthread_mutex_lock(&mh->mu);
    int need = !mh->w && !mh->closed;
    pthread_mutex_unlock(&mh->mu);
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
    /* the device's UUID for the process record, as nvidia-smi prints it */
    char uuid[48];
    const char *uuids[1];
    uint32_t nuuids = 0;
    CUuuid u;
    if (cuDeviceGetUuid(&u, dev) == CUDA_SUCCESS) {
        const unsigned char *b = (const unsigned char *)u.bytes;
        snprintf(uuid, sizeof uuid, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
                 b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
        uuids[nuuids++] = uuid;
    }
    mh_err err;
    mh_err_clear(&err);
    pthread_mutex_lock(&mh->mu);
    mh->smem_reserved = reserved;
    /* one trace per process: the first takes the path, later ones <stem>.<pid>.mht (collect.h).
     * Chunks are coded and written on the writer's own thread: a traced
     * launch's end hands its records over instead of waiting for zstd. */
    mh_trace_writer_opts wo = {.background = 1};
    if (!mh->w && !mh->closed &&
        mh_collect_trace_open(&mh->w, mh->cfg.trace_path, &h, &wo, uuids, nuuids, NULL, 0, &err) != MH_OK) {
        mh_cuda_warn("cannot create the trace: %s", err.msg);
        mh->w = NULL;
        mh->closed = 1;
    }
    if (mh->w) mh_cuda_catch_fatal();
    pthread_mutex_unlock(&mh->mu);
}



static void SANITIZERAPI mh_cuda_callback(void *userdata, Sanitizer_CallbackDomain domain, Sanitizer_CallbackId cbid,
                                          const void *cbdata) {
    mh_cuda *mh = userdata;
    if (domain == SANITIZER_CB_DOMAIN_DRIVER_API) {
        if (!mh_cuda_copy_api(mh, cbid, cbdata)) mh_cuda_on_driver_api(mh, cbid, (const Sanitizer_CallbackData *)cbdata);
    } else if (domain == SANITIZER_CB_DOMAIN_MEMCPY) {
        if (cbid == SANITIZER_CBID_MEMCPY_STARTING) mh_cuda_on_memcpy(mh, cbdata);
    } else if (domain == SANITIZER_CB_DOMAIN_MEMSET) {
        if (cbid == SANITIZER_CBID_MEMSET_STARTING) mh_cuda_on_memset(mh, cbdata);
    } else if (domain == SANITIZER_CB_DOMAIN_RESOURCE) {
        switch (cbid) {
        case SANITIZER_CBID_RESOURCE_CONTEXT_CREATION_FINISHED: {
            const Sanitizer_ResourceContextData *c = cbdata;
            mh_cuda_open_trace(mh, c->device);
            if (mh->timing.context_created) mh->timing.context_created(c->context, (int)c->device);
            break;
        }
        case SANITIZER_CBID_RESOURCE_CONTEXT_DESTROY_STARTING: {
            const Sanitizer_ResourceContextData *c = cbdata;
            if (mh->timing.context_ending) mh->timing.context_ending(c->context);
            mh_cuda_drop_ctx_bufs(mh, c->context);
            mh_cuda_gate_forget(mh, c->context);
            break;
        }
        case SANITIZER_CBID_RESOURCE_MODULE_LOADED: {
            const Sanitizer_ResourceModuleData *m = cbdata;
            mh_cuda_module_loaded(mh, m); /* its static __shared__ array names, from the cubin */
            /* Every launch traced (no --kernel/--launch-skip/--launch-count):
             * nothing to gain from waiting, patch at load as before. */
            if (mh->eager_patch) (void)mh_cuda_module_acquire(mh, m->context, m->module, 0);
            break;
        }
        case SANITIZER_CBID_RESOURCE_MODULE_UNLOAD_STARTING: {
            /* Modules are patched lazily, at their first traced launch
             * (mh_cuda_module_acquire); an unloaded one is forgotten, as its
             * handle may be reused. */
            const Sanitizer_ResourceModuleData *m = cbdata;
            mh_cuda_module_forget(mh, m->context, m->module);
            break;
        }
        case SANITIZER_CBID_RESOURCE_DEVICE_MEMORY_ALLOC:
            mh_cuda_on_alloc(mh, cbdata, 0);
            break;
        case SANITIZER_CBID_RESOURCE_MEMORY_ALLOC_ASYNC:
            mh_cuda_on_alloc(mh, cbdata, 1);
            break;
        case SANITIZER_CBID_RESOURCE_DEVICE_MEMORY_FREE:
        case SANITIZER_CBID_RESOURCE_MEMORY_FREE_ASYNC:
            mh_cuda_on_free(mh, cbdata);
            break;
        default:
            break;
        }
    } else if (domain == SANITIZER_CB_DOMAIN_GRAPHS) {
        if (cbid == SANITIZER_CBID_GRAPHS_NODE_LAUNCH_BEGIN) mh_cuda_graph_node(mh, cbdata);
    } else if (domain == SANITIZER_CB_DOMAIN_LAUNCH) {
        if (cbid == SANITIZER_CBID_LAUNCH_BEGIN)
            mh_cuda_launch_begin(mh, cbdata);
        else if (cbid == SANITIZER_CBID_LAUNCH_END)
            mh_cuda_launch_end(mh, cbdata);
    }
}

/* ---- start and end ---- */

/* Under mu: one MH_REC_LAUNCH_STATS record per configuration seen. */
static void mh_cuda_write_launch_stats(mh_cuda *mh) {
    mh_err err;
    const mh_collect_state *st = &mh->st;
    for (size_t i = 0; i < st->capconfigs && mh->w; i++) {
        const mh_collect_config *c = &st->configs[i];
        if (!c->name) continue;
        mh_launch_stats ls = {.name = c->name, .grid = c->grid, .block = c->block, .dyn_smem = c->dyn_smem,
                              .launches = c->launches, .traced = c->traced};
        if (mh_trace_write_launch_stats(mh->w, &ls, &err) != MH_OK) mh_cuda_writer_failed(mh, &err);
    }
    if (st->oom) mh_cuda_write_dropped(mh, MH_TRACE_NO_LAUNCH, 0, "launch counts incomplete: out of memory");
}

static void mh_cuda_at_exit(void) {
    mh_cuda *mh = &g_state;
    const char *dbg = getenv("MEMHEAT_CUDA_DEBUG");
    if (dbg && *dbg == '1')
        fprintf(stderr,
                "memheat-cuda: decisions: at entry %" PRIu64 ", entry without function info %" PRIu64
                ", name differs at begin %" PRIu64 ", module differs %" PRIu64 "; modules patched %" PRIu64
                ", unpatched %" PRIu64 "; gate timeouts: closing %" PRIu64 ", entering %" PRIu64 "\n",
                mh->dbg_entry_used, mh->dbg_entry_unknown, mh->dbg_name_differs, mh->dbg_module_differs,
                mh->modules_patched, mh->modules_unpatched, mh->gate_close_timeouts, mh->gate_enter_timeouts);
    if (dbg && *dbg == '1')
        fprintf(stderr,
                "memheat-cuda: traced launches %" PRIu64 ", host ms: waits before (un)patching %.1f, patching %.1f, "
                "unpatching %.1f, waits for traced kernels %.1f, read-back %.1f (copies %.1f, trace writes %.1f); "
                "records copied %" PRIu64 ", kept %" PRIu64 "\n",
                mh->launches_traced, mh->ns_quiesce / 1e6, mh->ns_patch / 1e6, mh->ns_unpatch / 1e6,
                mh->ns_kernel_wait / 1e6, mh->ns_readback / 1e6, mh->ns_copy / 1e6, mh->ns_write / 1e6,
                mh->dbg_copied, mh->dbg_kept);
    if (dbg && *dbg == '1') {
        pthread_mutex_lock(&mh->mod_mu);
        fprintf(stderr,
                "memheat-cuda: cubins: %" PRIu64 " name shared arrays, %" PRIu64 " name none, %" PRIu64
                " not read%s%s%s\n",
                mh->cubins_named, mh->cubins_unnamed, mh->cubins_failed, mh->cubins_failed ? " (first: " : "",
                mh->cubins_failed ? mh->cubin_err : "", mh->cubins_failed ? ")" : "");
        pthread_mutex_unlock(&mh->mod_mu);
    }
    pthread_mutex_lock(&mh->mu);
    if (mh->w) {
        mh_err err;
        if (mh_site_write_stats(mh->sites, mh->w, &err) != MH_OK) mh_cuda_writer_failed(mh, &err);
    }
    if (mh->w && mh->graph_kernels)
        mh_cuda_write_dropped(mh, MH_TRACE_NO_LAUNCH, mh->graph_kernels,
                              "kernel launches from CUDA graphs: counted, not traced or timed in one run "
                              "(--passes separate times each graph kernel)");
    if (mh->w) mh_cuda_write_launch_stats(mh);
    if (mh->w) {
        mh_err err;
        if (mh_trace_close(mh->w, &err) != MH_OK) mh_cuda_warn("closing the trace failed: %s", err.msg);
        mh->w = NULL;
    }
    mh->closed = 1;
    pthread_mutex_unlock(&mh->mu);
    pthread_mutex_lock(&mh->patch_mu);
    if (mh->patch_failures) mh_cuda_warn("%s", "some modules could not be patched; their kernels are not traced");
    pthread_mutex_unlock(&mh->patch_mu);
}

static int mh_cuda_find_patch(void) {
    mh_cuda *mh = &g_state;
    const char *env = getenv("MEMHEAT_CUDA_PATCH");
    if (env && *env) {
        snprintf(mh->patch_path, sizeof mh->patch_path, "%s", env);
    } else {
        Dl_info info;
        if (!dladdr((void *)&mh_cuda_find_patch, &info) || !info.dli_fname) return -1;
        const char *slash = strrchr(info.dli_fname, '/');
        int dirlen = slash ? (int)(slash - info.dli_fname) : 1;
        snprintf(mh->patch_path, sizeof mh->patch_path, "%.*s/%s", dirlen, slash ? info.dli_fname : ".",
                 MH_CUDA_PATCH_FILE);
    }
    struct stat sb;
    return stat(mh->patch_path, &sb) == 0 ? 0 : -1;
}

/* One run for trace and timing: with MEMHEAT_TIMING_LIB set (by `memheat
 * run`), the timing collector (libmemheat_cupti.so) is loaded into this
 * process and attached through its hook (collectors/timing_hook.h): it cannot
 * subscribe to CUPTI's callbacks beside the Sanitizer, so this library
 * forwards it the launches. Called before any context exists (inside cuInit). */
static void mh_cuda_load_timing(void) {
    mh_cuda *mh = &g_state;
    const char *lib = getenv("MEMHEAT_TIMING_LIB");
    if (!lib || !*lib) return;
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    mh_timing_attach_fn attach = NULL;
    if (h) *(void **)&attach = dlsym(h, MH_TIMING_HOOK_SYMBOL);
    if (!attach) {
        mh_cuda_warn("cannot load the timing collector, kernel times are missing: %s", h ? lib : dlerror());
        return;
    }
    mh_timing_hook hook;
    memset(&hook, 0, sizeof hook);
    if (!attach(&hook) || hook.version != MH_TIMING_HOOK_VERSION) {
        mh_cuda_warn("the timing collector %s did not start; kernel times are missing", lib);
        return;
    }
    mh->timing = hook;
}

/* Called by the CUDA driver when it loads this library (CUDA_INJECTION64_PATH). */
__attribute__((visibility("default"))) int InitializeInjection(void);

__attribute__((visibility("default"))) int InitializeInjection(void) {
    mh_cuda *mh = &g_state;
    /* started while memheat's timing run still uses the GPU: wait for its end
     * here, before any GPU work (what ran until now, the start-up, overlapped it) */
    mh_collect_start_wait();
    pthread_mutex_lock(&mh->mu);
    if (mh->active) {
        pthread_mutex_unlock(&mh->mu);
        return 1;
    }
    mh_err err;
    mh_err_clear(&err);
    if (mh_collect_cfg_from_env(&mh->cfg, &err) != MH_OK) {
        mh_cuda_warn("bad sampling configuration, nothing is traced: %s", err.msg);
        pthread_mutex_unlock(&mh->mu);
        return 0;
    }
    if (mh_cuda_find_patch() != 0) {
        mh_cuda_warn("device patch not found at %s, nothing is traced", mh->patch_path);
        pthread_mutex_unlock(&mh->mu);
        return 0;
    }
    uint64_t bytes = mh->cfg.buffer_bytes ? mh->cfg.buffer_bytes : MH_CUDA_DEFAULT_BUFFER;
    mh->buffer_records = bytes / sizeof(mh_access);
    const char *ts = getenv("MEMHEAT_TIMING_START");
    mh->start_at_entry = ts && !strcmp(ts, "entry");
    mh->eager_patch = mh->cfg.launch_policy == MH_LAUNCH_ALL && !mh->cfg.have_regex &&
                       mh->cfg.launch_skip == 0 && mh->cfg.launch_count == 0;
    const char *kp = getenv("MEMHEAT_CUDA_KEEP_PATCHED");
    mh->keep_patched = kp && *kp == '1';
    const char *ps = getenv("MEMHEAT_CUDA_PATCH_SYNC");
    mh->patch_nosync = ps && *ps == '0';
    if (mh->buffer_records < 1024) mh->buffer_records = 1024;
    SanitizerResult r = sanitizerSubscribe(&mh->sub, mh_cuda_callback, mh);
    if (r != SANITIZER_SUCCESS) {
        mh_cuda_warn("cannot subscribe to the Compute Sanitizer API (%s); nothing is traced", mh_cuda_sanstr(r));
        pthread_mutex_unlock(&mh->mu);
        return 0;
    }
    sanitizerEnableDomain(1, mh->sub, SANITIZER_CB_DOMAIN_RESOURCE);
    sanitizerEnableDomain(1, mh->sub, SANITIZER_CB_DOMAIN_LAUNCH);
    sanitizerEnableCallback(1, mh->sub, SANITIZER_CB_DOMAIN_GRAPHS, SANITIZER_CBID_GRAPHS_NODE_LAUNCH_BEGIN);
    static const Sanitizer_CallbackId launch_apis[] = {
        SANITIZER_CBID_DRIVER_API_cuLaunchKernel,           SANITIZER_CBID_DRIVER_API_cuLaunchKernel_ptsz,
        SANITIZER_CBID_DRIVER_API_cuLaunchKernelEx,         SANITIZER_CBID_DRIVER_API_cuLaunchKernelEx_ptsz,
        SANITIZER_CBID_DRIVER_API_cuLaunchCooperativeKernel, SANITIZER_CBID_DRIVER_API_cuLaunchCooperativeKernel_ptsz,
    };
    for (size_t i = 0; i < sizeof launch_apis / sizeof launch_apis[0]; i++)
        sanitizerEnableCallback(1, mh->sub, SANITIZER_CB_DOMAIN_DRIVER_API, launch_apis[i]);
    /* after the subscription: CUPTI's activity API enabled before it left the
     * Sanitizer's callbacks silent (measured on an H100, CUDA 13.0) */
    mh_cuda_load_timing();
    mh_cuda_copies_enable(mh); /* only with the timing collector hosted */
    mh_err serr;
    if (mh_site_open(&mh->sites, &serr) != MH_OK) mh->sites = NULL; /* launches without call sites */
    atexit(mh_cuda_at_exit);
    pthread_atfork(NULL, NULL, mh_cuda_forked_child);
    mh->active = 1;
    pthread_mutex_unlock(&mh->mu);
    return 1;
}
