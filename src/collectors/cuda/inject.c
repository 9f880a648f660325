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
 *     the buffer was too small, and flushes, so a later crash loses nothing;
 *   - for a launch that is not traced, passes a NULL descriptor (the patch
 *     returns at its first test) or runs an unpatched module;
 *   - with MEMHEAT_TIMING_LIB, hosts the timing collector in the same run
 *     (collectors/timing_hook.h) and forwards it launches and copies (copies.c);
 *   - closes the trace at exit().
 *
 * This file: the state g_mh, start and exit, the trace header, the callback
 * dispatch. Callbacks may come from several host threads: the locking rules
 * are in cuda_internal.h (mu is recursive because our own sanitizerAlloc can
 * re-enter the resource callback on the same thread). */
#include "cuda_internal.h"

mh_cuda g_mh = {.mu = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP, .patch_mu = PTHREAD_MUTEX_INITIALIZER,
                .mod_mu = PTHREAD_MUTEX_INITIALIZER,
                .gate_mu = PTHREAD_MUTEX_INITIALIZER, .gate_cv = PTHREAD_COND_INITIALIZER};
_Thread_local int mh_cuda_own_alloc;

void mh_cuda_warn(const char *fmt, const char *detail) {
    fprintf(stderr, "memheat-cuda: ");
    fprintf(stderr, fmt, detail ? detail : "");
    fputc('\n', stderr);
}

const char *mh_cuda_sanstr(SanitizerResult r) {
    const char *s = NULL;
    if (sanitizerGetResultString(r, &s) != SANITIZER_SUCCESS || !s) return "unknown Sanitizer error";
    return s;
}

/* Stops tracing after an error in the trace writer; keeps what was written. Under mu. */
void mh_cuda_writer_failed(mh_err *err) {
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
    pthread_mutex_lock(&g_mh.mu);
    g_mh.smem_reserved = reserved;
    /* one trace per process: the first takes the path, later ones <stem>.<pid>.mht (collect.h) */
    if (!g_mh.w && !g_mh.closed &&
        mh_collect_trace_open(&g_mh.w, g_mh.cfg.trace_path, &h, uuids, nuuids, NULL, 0, &err) != MH_OK) {
        mh_cuda_warn("cannot create the trace: %s", err.msg);
        g_mh.w = NULL;
        g_mh.closed = 1;
    }
    pthread_mutex_unlock(&g_mh.mu);
}



static void SANITIZERAPI mh_cuda_callback(void *userdata, Sanitizer_CallbackDomain domain, Sanitizer_CallbackId cbid,
                                          const void *cbdata) {
    (void)userdata;
    if (domain == SANITIZER_CB_DOMAIN_DRIVER_API) {
        if (!mh_cuda_copy_api(cbid, cbdata)) mh_cuda_on_driver_api(cbid, (const Sanitizer_CallbackData *)cbdata);
    } else if (domain == SANITIZER_CB_DOMAIN_MEMCPY) {
        if (cbid == SANITIZER_CBID_MEMCPY_STARTING) mh_cuda_on_memcpy(cbdata);
    } else if (domain == SANITIZER_CB_DOMAIN_MEMSET) {
        if (cbid == SANITIZER_CBID_MEMSET_STARTING) mh_cuda_on_memset(cbdata);
    } else if (domain == SANITIZER_CB_DOMAIN_RESOURCE) {
        switch (cbid) {
        case SANITIZER_CBID_RESOURCE_CONTEXT_CREATION_FINISHED: {
            const Sanitizer_ResourceContextData *c = cbdata;
            mh_cuda_open_trace(c->device);
            if (g_mh.timing.context_created) g_mh.timing.context_created(c->context, (int)c->device);
            break;
        }
        case SANITIZER_CBID_RESOURCE_CONTEXT_DESTROY_STARTING: {
            const Sanitizer_ResourceContextData *c = cbdata;
            if (g_mh.timing.context_ending) g_mh.timing.context_ending(c->context);
            mh_cuda_drop_ctx_bufs(c->context);
            mh_cuda_gate_forget(c->context);
            break;
        }
        case SANITIZER_CBID_RESOURCE_MODULE_LOADED: {
            const Sanitizer_ResourceModuleData *m = cbdata;
            mh_cuda_module_loaded(m); /* its static __shared__ array names, from the cubin */
            /* Every launch traced (no --kernel/--launch-skip/--launch-count):
             * nothing to gain from waiting, patch at load as before. */
            if (g_mh.eager_patch) (void)mh_cuda_module_acquire(m->context, m->module, 0);
            break;
        }
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
                ", unpatched %" PRIu64 "; gate timeouts: closing %" PRIu64 ", entering %" PRIu64 "\n",
                g_mh.dbg_entry_used, g_mh.dbg_entry_unknown, g_mh.dbg_name_differs, g_mh.dbg_module_differs,
                g_mh.modules_patched, g_mh.modules_unpatched, g_mh.gate_close_timeouts, g_mh.gate_enter_timeouts);
    if (dbg && *dbg == '1') {
        pthread_mutex_lock(&g_mh.mod_mu);
        fprintf(stderr,
                "memheat-cuda: cubins: %" PRIu64 " name shared arrays, %" PRIu64 " name none, %" PRIu64
                " not read%s%s%s\n",
                g_mh.cubins_named, g_mh.cubins_unnamed, g_mh.cubins_failed, g_mh.cubins_failed ? " (first: " : "",
                g_mh.cubins_failed ? g_mh.cubin_err : "", g_mh.cubins_failed ? ")" : "");
        pthread_mutex_unlock(&g_mh.mod_mu);
    }
    pthread_mutex_lock(&g_mh.mu);
    if (g_mh.w) {
        mh_err err;
        if (mh_site_write_stats(g_mh.sites, g_mh.w, &err) != MH_OK) mh_cuda_writer_failed(&err);
    }
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
 * process and attached through its hook (collectors/timing_hook.h): it cannot
 * subscribe to CUPTI's callbacks beside the Sanitizer, so this library
 * forwards it the launches. Called before any context exists (inside cuInit). */
static void mh_cuda_load_timing(void) {
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
    g_mh.timing = hook;
}

/* Called by the CUDA driver when it loads this library (CUDA_INJECTION64_PATH). */
__attribute__((visibility("default"))) int InitializeInjection(void);

__attribute__((visibility("default"))) int InitializeInjection(void) {
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
    const char *ts = getenv("MEMHEAT_TIMING_START");
    g_mh.start_at_entry = ts && !strcmp(ts, "entry");
    g_mh.eager_patch = g_mh.cfg.launch_policy == MH_LAUNCH_ALL && !g_mh.cfg.have_regex &&
                       g_mh.cfg.launch_skip == 0 && g_mh.cfg.launch_count == 0;
    const char *kp = getenv("MEMHEAT_CUDA_KEEP_PATCHED");
    g_mh.keep_patched = kp && *kp == '1';
    const char *ps = getenv("MEMHEAT_CUDA_PATCH_SYNC");
    g_mh.patch_nosync = ps && *ps == '0';
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
    /* after the subscription: CUPTI's activity API enabled before it left the
     * Sanitizer's callbacks silent (measured on an H100, CUDA 13.0) */
    mh_cuda_load_timing();
    mh_cuda_copies_enable(); /* only with the timing collector hosted */
    mh_err serr;
    if (mh_site_open(&g_mh.sites, &serr) != MH_OK) g_mh.sites = NULL; /* launches without call sites */
    atexit(mh_cuda_at_exit);
    g_mh.active = 1;
    pthread_mutex_unlock(&g_mh.mu);
    return 1;
}
