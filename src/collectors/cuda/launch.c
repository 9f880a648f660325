/* launch.c -- the CUDA collector's per-launch work: allocation records,
 * device record buffers, the decision to trace a launch (made at the driver
 * call's entry), the launch callbacks that set a traced launch up and read
 * its records back, and the forwarding of launches to the timing collector in
 * one run (collectors/timing_hook.h). Part of libmemheat_cuda.so; the shared
 * state is in cuda_internal.h. */
#include "cuda_internal.h"

/* Per host thread: the dynamic shared memory of the launch being made (from
 * the driver-API callback, read by the launch callback). */
static _Thread_local uint32_t tl_dyn_smem;
static _Thread_local int tl_have_dyn_smem;
/* Set by the launch callback when this thread's launch is traced (read at the
 * driver call's exit, for the timing collector). */
static _Thread_local int tl_traced;
/* The launch call whose start event the hosted timing collector still owes
 * (one run): saved at the driver call's entry, given at LAUNCH_BEGIN. */
static _Thread_local int tl_hook_api;
static _Thread_local const void *tl_hook_params;
/* The kernel's name and CUfunction as LAUNCH_BEGIN gave them, for the
 * timing collector at the driver call's exit (the call's own parameters may
 * hold a CUkernel handle the driver names nothing for). */
static _Thread_local char tl_begin_name[8192];
static _Thread_local void *tl_begin_func;
static _Thread_local int tl_have_begin;
/* The launch's parameters as the driver call got them (kernelParams, or the
 * `extra` array), valid until the call returns; read only for a traced launch. */
static _Thread_local void **tl_kparams;
static _Thread_local void **tl_kextra;
/* The call site of this thread's launch in progress (collectors/site/site.h),
 * captured at the driver call's entry, MH_SITE_NONE without one. */
static _Thread_local uint32_t tl_site = MH_SITE_NONE;

/* ---- allocations ---- */

void mh_cuda_on_alloc(mh_cuda *mh, const Sanitizer_ResourceMemoryData *m, int async) {
    if (mh_cuda_own_now()) return;
    const char *label = async ? "cudaMallocAsync" : "cudaMalloc";
    if (m->flags & SANITIZER_MEMORY_FLAG_MODULE) label = "__device__ variable";
    else if (m->flags & SANITIZER_MEMORY_FLAG_MANAGED) label = "cudaMallocManaged";
    else if (m->flags & SANITIZER_MEMORY_FLAG_CG_RUNTIME) return; /* the runtime's own */
    else if (async && m->memoryPool) label = "memory pool";
    pthread_mutex_lock(&mh->mu);
    if (mh->w) {
        mh_alloc a = {.id = mh->next_alloc++, .launch = MH_TRACE_NO_LAUNCH, .base = m->address, .size = m->size,
                      .space = MH_SPACE_GLOBAL, .label = label};
        mh_err err;
        if (mh_trace_write_alloc(mh->w, &a, &err) != MH_OK) mh_cuda_writer_failed(mh, &err);
    }
    pthread_mutex_unlock(&mh->mu);
}

void mh_cuda_on_free(mh_cuda *mh, const Sanitizer_ResourceMemoryData *m) {
    if (mh_cuda_own_now()) return;
    pthread_mutex_lock(&mh->mu);
    if (mh->w) {
        mh_free f = {.base = m->address, .space = MH_SPACE_GLOBAL};
        mh_err err;
        if (mh_trace_write_free(mh->w, &f, &err) != MH_OK) mh_cuda_writer_failed(mh, &err);
    }
    pthread_mutex_unlock(&mh->mu);
}

/* ---- record buffers (device calls outside mu) ---- */

static void mh_cuda_buf_destroy(mh_cuda_buf *b) {
    mh_cuda_own_begin();
    if (b->desc) sanitizerFree(b->ctx, b->desc);
    if (b->rec) sanitizerFree(b->ctx, b->rec);
    if (b->seq) sanitizerFree(b->ctx, b->seq);
    mh_cuda_own_end();
    free(b->host_seq);
    if (b->host_pinned) {
        mh_cuda_own_begin();
        sanitizerFreeHost(b->ctx, b->host);
        mh_cuda_own_end();
    } else {
        free(b->host);
    }
    free(b);
}

static void mh_cuda_buf_put(mh_cuda *mh, mh_cuda_buf *b) {
    pthread_mutex_lock(&mh->mu);
    b->next = mh->free_bufs;
    mh->free_bufs = b;
    pthread_mutex_unlock(&mh->mu);
}

/* A buffer of this context with room for `slots` sequence counters. */
static mh_cuda_buf *mh_cuda_buf_get(mh_cuda *mh, CUcontext ctx, uint64_t slots) {
    mh_cuda_buf **pp, *b = NULL;
    pthread_mutex_lock(&mh->mu);
    for (pp = &mh->free_bufs; *pp; pp = &(*pp)->next)
        if ((*pp)->ctx == ctx) {
            b = *pp;
            *pp = b->next;
            break;
        }
    uint64_t cap = mh->buffer_records;
    pthread_mutex_unlock(&mh->mu);
    if (!b) {
        b = calloc(1, sizeof *b);
        if (!b) return NULL;
        b->ctx = ctx;
        b->cap = cap;
        size_t hb = (size_t)MH_CUDA_DRAIN_RECORDS * sizeof(mh_access);
        mh_cuda_own_begin();
        b->host_pinned = sanitizerAllocHost(ctx, (void **)&b->host, hb) == SANITIZER_SUCCESS && b->host;
        mh_cuda_own_end();
        if (!b->host_pinned) b->host = malloc(hb);
        mh_cuda_own_begin();
        int ok = b->host && sanitizerAlloc(ctx, (void **)&b->desc, sizeof(mh_cuda_desc)) == SANITIZER_SUCCESS &&
                 sanitizerAlloc(ctx, (void **)&b->rec, (size_t)b->cap * sizeof(mh_access)) == SANITIZER_SUCCESS;
        mh_cuda_own_end();
        if (!ok) {
            mh_cuda_buf_destroy(b);
            return NULL;
        }
    }
    b->next = NULL;
    if (b->seq_slots < slots) {
        mh_cuda_own_begin();
        if (b->seq) sanitizerFree(ctx, b->seq);
        free(b->host_seq);
        b->seq = NULL;
        b->seq_slots = 0;
        b->host_seq = malloc((size_t)slots * sizeof(uint32_t));
        if (b->host_seq &&
            sanitizerAlloc(ctx, (void **)&b->seq, (size_t)slots * sizeof(uint32_t)) == SANITIZER_SUCCESS)
            b->seq_slots = slots;
        mh_cuda_own_end();
        if (!b->seq) {
            mh_cuda_buf_put(mh, b);
            return NULL;
        }
    }
    return b;
}

void mh_cuda_drop_ctx_bufs(mh_cuda *mh, CUcontext ctx) {
    mh_cuda_buf *mine = NULL;
    pthread_mutex_lock(&mh->mu);
    mh_cuda_buf **pp = &mh->free_bufs;
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
    if (mh->w && mh_trace_flush(mh->w, &err) != MH_OK) mh_cuda_writer_failed(mh, &err);
    pthread_mutex_unlock(&mh->mu);
    while (mine) {
        mh_cuda_buf *next = mine->next;
        mh_cuda_buf_destroy(mine);
        mine = next;
    }
    pthread_mutex_lock(&mh->patch_mu);
    for (int i = 0; i < mh->n_patched_ctx; i++)
        if (mh->patched_ctx[i] == ctx) mh->patched_ctx[i] = mh->patched_ctx[--mh->n_patched_ctx];
    pthread_mutex_unlock(&mh->patch_mu);
    mh_cuda_module_forget(mh, ctx, NULL);
}

/* ---- kernel arguments ---- */

typedef CUresult (*mh_cuda_param_info_fn)(CUfunction, size_t, size_t *, size_t *);
static mh_cuda_param_info_fn g_param_info;
static pthread_once_t g_param_info_once = PTHREAD_ONCE_INIT;

/* cuFuncGetParamInfo is CUDA 12.4's: looked up, so an older driver still loads us. */
static void mh_cuda_param_info_init(void) {
    *(void **)&g_param_info = dlsym(RTLD_DEFAULT, "cuFuncGetParamInfo");
}

/* Bytes of a by-value struct parameter searched for pointers (PyTorch's
 * kernels take their tensors' data pointers inside functor and TensorIterator
 * structs of a few hundred bytes). */
#define MH_CUDA_STRUCT_SCAN 1024u

/* Could v be a device pointer? Device allocations live high in the 48-bit
 * virtual address space; sizes, strides and counts inside a struct do not,
 * and the model keeps only values inside a known allocation anyway. */
static int mh_cuda_pointer_like(uint64_t v) { return v >= (1ull << 32) && v < (1ull << 48) && !(v & 3); }

/* The pointers of a traced launch's parameters into out[] (at most cap);
 * returns how many. Every 8-byte parameter (a pointer, or a scalar the
 * analysis drops when it lies in no allocation), and every pointer-like
 * 8-byte-aligned word inside a by-value struct parameter, named
 * "field +N" (its byte offset in the struct) in names[]. Values come from
 * kernelParams[i], else from the `extra` form's buffer
 * (CU_LAUNCH_PARAM_BUFFER_POINTER at the parameter's offset). */
static uint32_t mh_cuda_read_args(CUfunction f, uint32_t id, mh_karg *out, char (*names)[24], uint32_t cap) {
    pthread_once(&g_param_info_once, mh_cuda_param_info_init);
    void **kp = tl_kparams, **ex = tl_kextra;
    if (!g_param_info || !f || (!kp && !ex)) return 0;
    const unsigned char *pbuf = NULL;
    size_t pbytes = 0;
    if (!kp)
        for (int i = 0; i < 16 && ex[i] != CU_LAUNCH_PARAM_END; i += 2) {
            if (ex[i] == CU_LAUNCH_PARAM_BUFFER_POINTER) pbuf = ex[i + 1];
            else if (ex[i] == CU_LAUNCH_PARAM_BUFFER_SIZE && ex[i + 1]) pbytes = *(const size_t *)ex[i + 1];
        }
    uint32_t n = 0;
    for (uint32_t i = 0; n < cap; i++) {
        size_t off = 0, size = 0;
        if (g_param_info(f, i, &off, &size) != CUDA_SUCCESS) break; /* past the last parameter */
        if (size < 8) continue;
        const unsigned char *p = NULL;
        if (kp)
            p = kp[i];
        else if (pbuf && off + size <= pbytes)
            p = pbuf + off;
        if (!p) continue;
        if (size == 8) {
            uint64_t v = 0;
            memcpy(&v, p, 8);
            if (!v) continue;
            names[n][0] = '\0';
            out[n] = (mh_karg){.launch = id, .index = i, .offset = (uint32_t)off, .size = 8, .value = v,
                               .space = MH_SPACE_GLOBAL, .type = "", .name = names[n]};
            n++;
            continue;
        }
        /* a struct by value: its 8-byte-aligned words that look like pointers
         * (a struct holding pointers is 8-byte aligned, so is its offset) */
        if (off % 8) continue;
        for (size_t j = 0; j + 8 <= size && j < MH_CUDA_STRUCT_SCAN && n < cap; j += 8) {
            uint64_t v = 0;
            memcpy(&v, p + j, 8);
            if (!mh_cuda_pointer_like(v)) continue;
            snprintf(names[n], sizeof names[n], "field +%zu", j);
            out[n] = (mh_karg){.launch = id, .index = i, .offset = (uint32_t)(off + j), .size = (uint32_t)size,
                               .value = v, .space = MH_SPACE_GLOBAL, .type = "", .name = names[n]};
            n++;
        }
    }
    return n;
}

/* ---- launches ---- */

/* Under mu. */
void mh_cuda_write_dropped(mh_cuda *mh, uint32_t launch, uint64_t n, const char *why) {
    if (!mh->w) return;
    mh_dropped d = {.launch = launch, .count = n, .reason = why};
    mh_err err;
    if (mh_trace_write_dropped(mh->w, &d, &err) != MH_OK) mh_cuda_writer_failed(mh, &err);
}

void mh_cuda_dropped_locked(mh_cuda *mh, uint32_t launch, uint64_t n, const char *why) {
    pthread_mutex_lock(&mh->mu);
    mh_cuda_write_dropped(mh, launch, n, why);
    pthread_mutex_unlock(&mh->mu);
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
static int mh_cuda_select(mh_cuda *mh, const mh_collect_launch *key, CUcontext ctx, CUmodule mod, int may_patch, uint32_t id) {
    pthread_mutex_lock(&mh->mu);
    int want = mh->w && mh_collect_want_launch(&mh->cfg, &mh->st, key);
    if (want) mh->selected_open++;
    int unpatch = mh_cuda_no_more_launches(mh);
    pthread_mutex_unlock(&mh->mu);
    int acq = MH_ACQ_BUSY, keep = 0;
    if (want) {
        acq = may_patch ? mh_cuda_module_acquire(mh, ctx, mod, 1) : mh_cuda_module_acquire_patched(mh, ctx, mod);
        if (acq == MH_ACQ_FAILED) {
            mh_cuda_dropped_locked(mh, id, 0, "launch not traced: its module could not be patched");
            keep = 1; /* its module never will be: no retry with the next launch */
        }
        if (acq != MH_ACQ_OK) {
            pthread_mutex_lock(&mh->mu);
            if (!keep) mh_collect_unselect(&mh->cfg, &mh->st, key);
            mh->selected_open--;
            pthread_mutex_unlock(&mh->mu);
        }
    }
    /* Idle modules lose their patch before this launch runs (its own module,
     * if traced, is held by its count in flight). */
    if (may_patch) mh_cuda_module_untraced(mh, unpatch);
    return want && acq == MH_ACQ_OK;
}

/* Driver-API entry of a launch: the decision, patching included. */
static void mh_cuda_decide_at_entry(mh_cuda *mh, CUfunction f, mh_dim3 grid, mh_dim3 block, uint32_t dyn) {
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
        __atomic_add_fetch(&mh->dbg_entry_unknown, 1, __ATOMIC_RELAXED);
        return; /* decided at LAUNCH_BEGIN */
    }
    tl_pend.key.name = strdup(name);
    /* the demangled name only matters to a --kernel regex: no demangling per launch otherwise */
    tl_pend.key.display = mh->cfg.have_regex ? mh_demangle(name) : NULL;
    if (!tl_pend.key.name) {
        mh_cuda_pending_clear();
        return;
    }
    tl_pend.key.grid = grid;
    tl_pend.key.block = block;
    tl_pend.key.dyn_smem = dyn;
    tl_pend.ctx = ctx;
    tl_pend.mod = mod;
    pthread_mutex_lock(&mh->mu);
    uint32_t id = mh->next_launch; /* for a drop notice only */
    pthread_mutex_unlock(&mh->mu);
    tl_pend.want = mh_cuda_select(mh, &tl_pend.key, ctx, mod, 1, id);
    tl_pend.valid = 1;
}

static int acq_mod_differs(CUcontext ctx, CUmodule mod, const Sanitizer_LaunchData *ld) {
    return ctx != ld->context || mod != ld->module;
}

/* Driver-API exit: a decision that no launch callback took (the launch
 * failed before it was made) is undone. */
static void mh_cuda_undo_at_exit(mh_cuda *mh) {
    if (!tl_pend.valid) return;
    if (tl_pend.want) {
        pthread_mutex_lock(&mh->mu);
        mh_collect_unselect(&mh->cfg, &mh->st, &tl_pend.key);
        mh->selected_open--;
        pthread_mutex_unlock(&mh->mu);
        mh_cuda_module_release(mh, tl_pend.ctx, tl_pend.mod, 0);
    }
    mh_cuda_pending_clear();
}

void mh_cuda_launch_begin(mh_cuda *mh, const Sanitizer_LaunchData *ld) {
    uint32_t dyn = tl_have_dyn_smem ? tl_dyn_smem : 0;
    tl_have_dyn_smem = 0;
    const void *userdata = NULL;
    mh_cuda_buf *buf = NULL;
    mh_cuda_flight *fl = NULL;
    uint32_t ids[MH_COLLECT_MAX_BLOCKS];
    /* demangled only where a --kernel regex reads it here; a traced launch's record gets it below */
    char *display = ld->functionName && mh->cfg.have_regex ? mh_demangle(ld->functionName) : NULL;

    mh_collect_launch key = {.name = ld->functionName ? ld->functionName : "?", .display = display,
                             .grid = {ld->gridDim_x, ld->gridDim_y, ld->gridDim_z},
                             .block = {ld->blockDim_x, ld->blockDim_y, ld->blockDim_z}, .dyn_smem = dyn};
    pthread_mutex_lock(&mh->mu);
    uint32_t id = mh->next_launch++;
    pthread_mutex_unlock(&mh->mu);
    uint32_t site = tl_site; /* call sites: every launch counted at its site */
    tl_site = MH_SITE_NONE;
    mh_site_count(mh->sites, site, &key);
    int want;
    CUcontext acq_ctx = ld->context;
    CUmodule acq_mod = ld->module;
    if (tl_pend.valid && ld->functionName && !strcmp(tl_pend.key.name, ld->functionName)) {
        want = tl_pend.want; /* decided (and patched) at the driver call's entry */
        __atomic_add_fetch(&mh->dbg_entry_used, 1, __ATOMIC_RELAXED);
        if (want && acq_mod_differs(tl_pend.ctx, tl_pend.mod, ld))
            __atomic_add_fetch(&mh->dbg_module_differs, 1, __ATOMIC_RELAXED);
        acq_ctx = tl_pend.ctx;
        acq_mod = tl_pend.mod;
        tl_pend.want = 0;
        mh_cuda_pending_clear();
    } else {
        if (tl_pend.valid) __atomic_add_fetch(&mh->dbg_name_differs, 1, __ATOMIC_RELAXED);
        mh_cuda_undo_at_exit(mh);
        want = ld->functionName && mh_cuda_select(mh, &key, ld->context, ld->module, 0, id);
    }
    if (!want) goto untraced;
    if (!display) display = mh_demangle(ld->functionName);

    mh_dim3 grid = {ld->gridDim_x, ld->gridDim_y, ld->gridDim_z};
    uint32_t nthreads = ld->blockDim_x * ld->blockDim_y * ld->blockDim_z;
    uint64_t total = (uint64_t)grid.x * grid.y * grid.z;
    uint32_t n = mh_collect_sampled_list(&mh->cfg, grid, ids, MH_COLLECT_MAX_BLOCKS);
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
        mh_cuda_dropped_locked(mh, id, 0, "launch not traced: too many traced threads (use fewer --blocks)");
        goto untraced;
    }
    buf = mh_cuda_buf_get(mh, ld->context, slots);
    fl = calloc(1, sizeof *fl);
    if (!buf || !fl) {
        if (buf) mh_cuda_buf_put(mh, buf);
        free(fl);
        mh_cuda_dropped_locked(mh, id, 0, "launch not traced: cannot allocate the device record buffer");
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
        mh_cuda_dropped_locked(mh, id, 0, "launch not traced: cannot set up the device descriptor");
        mh_cuda_buf_put(mh, buf);
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
    mh_karg args[MH_CUDA_MAX_ARGS];
    char arg_names[MH_CUDA_MAX_ARGS][24];
    uint32_t nargs = mh_cuda_read_args(ld->function, id, args, arg_names, MH_CUDA_MAX_ARGS);
    /* The Sanitizer's shared offsets count from the start of the window,
     * whose first bytes the system reserves (1 KiB on sm_80 and later);
     * static __shared__ arrays come first, one object each where the
     * module's cubin names them (else one for all), dynamic shared memory
     * after them (its start rounded up: the object runs to the window's end). */
    mh_cubin_objs smem = {0};
    if (mh_cuda_shared_objects(mh, ld->context, ld->module, ld->functionName, l.static_smem, dyn, &smem) != MH_OK)
        mh_cubin_objs_free(&smem); /* out of memory: no shared objects, the window stays one */
    mh_err err;
    pthread_mutex_lock(&mh->mu);
    int ok = mh->w != NULL;
    if (ok && mh_trace_write_launch(mh->w, &l, &err) != MH_OK) {
        mh_cuda_writer_failed(mh, &err);
        ok = 0;
    }
    if (ok && site != MH_SITE_NONE) { /* call sites: the site's records, then the launch's */
        mh_launch_site ls = {.launch = id, .site = site};
        if (mh_site_write_new(mh->sites, mh->w, &err) != MH_OK ||
            mh_trace_write_launch_site(mh->w, &ls, &err) != MH_OK) {
            mh_cuda_writer_failed(mh, &err);
            ok = 0;
        }
    }
    for (uint32_t i = 0; ok && i < nargs; i++)
        if (mh_trace_write_karg(mh->w, &args[i], &err) != MH_OK) {
            mh_cuda_writer_failed(mh, &err);
            ok = 0;
        }
    for (size_t i = 0; ok && mh->w && i < smem.n; i++) {
        mh_alloc a = {.id = mh->next_alloc++, .launch = id, .base = smem.v[i].base, .size = smem.v[i].size,
                      .space = MH_SPACE_SHARED, .label = smem.v[i].label};
        if (mh_trace_write_alloc(mh->w, &a, &err) != MH_OK) mh_cuda_writer_failed(mh, &err);
    }
    if (ok) {
        fl->next = mh->flights;
        mh->flights = fl;
        mh->launches_traced++;
    }
    pthread_mutex_unlock(&mh->mu);
    mh_cubin_objs_free(&smem);
    if (!ok) {
        mh_cuda_buf_put(mh, buf);
        free(fl);
        goto untraced;
    }
    userdata = buf->desc;

untraced:
    free(display);
    tl_traced = userdata != NULL;
    if (ld->functionName && strlen(ld->functionName) < sizeof tl_begin_name) {
        strcpy(tl_begin_name, ld->functionName);
        tl_begin_func = ld->function;
        tl_have_begin = 1;
    }
    tl_kparams = tl_kextra = NULL;
    sanitizerSetLaunchCallbackData(ld->hLaunch, ld->function, ld->hStream, userdata);
    /* The start event as late as it can be, right before the kernel is
     * queued: after this callback's own stream work (a traced launch's
     * descriptor), and after the Sanitizer's processing of the call, which an
     * event recorded at the call's entry counted into the kernel's span. */
    if (tl_hook_params && mh->timing.launch_enter) mh->timing.launch_enter(tl_hook_api, tl_hook_params);
    tl_hook_params = NULL;
    if (want && !userdata) { /* selected, but not traced after all */
        pthread_mutex_lock(&mh->mu);
        mh_collect_unselect(&mh->cfg, &mh->st, &key);
        mh->selected_open--;
        pthread_mutex_unlock(&mh->mu);
        mh_cuda_module_release(mh, acq_ctx, acq_mod, 0);
    }
}

void mh_cuda_launch_end(mh_cuda *mh, const Sanitizer_LaunchData *ld) {
    mh_cuda_flight **pp, *fl = NULL;
    pthread_mutex_lock(&mh->mu);
    for (pp = &mh->flights; *pp; pp = &(*pp)->next)
        if ((*pp)->h == ld->hLaunch) {
            fl = *pp;
            *pp = fl->next;
            break;
        }
    pthread_mutex_unlock(&mh->mu);
    if (!fl) return;
    mh_cuda_buf *buf = fl->buf;
    mh_cuda_desc d;
    uint64_t t0 = mh_cuda_now_ns();
    SanitizerResult r = sanitizerStreamSynchronize(ld->hStream);
    mh_cuda_spent(&mh->ns_kernel_wait, t0);
    t0 = mh_cuda_now_ns();
    if (r == SANITIZER_SUCCESS) r = sanitizerMemcpyDeviceToHost(&d, buf->desc, sizeof d, ld->hStream);
    if (r == SANITIZER_SUCCESS)
        r = sanitizerMemcpyDeviceToHost(buf->host_seq, buf->seq, (size_t)d.slots * sizeof(uint32_t), ld->hStream);
    mh_kernel_end e = {.launch = fl->id, .recorded = 0, .dropped = 0, .gpu_ns = 0};
    mh_err err;
    uint64_t over = 0;
    if (r != SANITIZER_SUCCESS) {
        /* The kernel faulted or the context is gone: nothing can be read back. */
        mh_cuda_dropped_locked(mh, fl->id, 0, "records lost: the kernel failed before they could be read back");
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
            uint64_t tc = mh_cuda_now_ns();
            if (sanitizerMemcpyDeviceToHost(buf->host, buf->rec + off, (size_t)k * sizeof(mh_access),
                                            ld->hStream) != SANITIZER_SUCCESS) {
                mh_cuda_dropped_locked(mh, fl->id, 0, "records lost: device-to-host copy failed");
                break;
            }
            mh_cuda_spent(&mh->ns_copy, tc);
            __atomic_add_fetch(&mh->dbg_copied, k, __ATOMIC_RELAXED);
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
            __atomic_add_fetch(&mh->dbg_kept, m, __ATOMIC_RELAXED);
            uint64_t tw = mh_cuda_now_ns();
            pthread_mutex_lock(&mh->mu);
            int ok = mh->w && mh_trace_write_accesses(mh->w, buf->host, m, &err) == MH_OK;
            if (!ok && mh->w) mh_cuda_writer_failed(mh, &err);
            pthread_mutex_unlock(&mh->mu);
            mh_cuda_spent(&mh->ns_write, tw);
            if (!ok) break;
            e.recorded += m;
        }
        if (d.t_end > d.t_start) e.gpu_ns = d.t_end - d.t_start;
    }
    mh_cuda_spent(&mh->ns_readback, t0);
    pthread_mutex_lock(&mh->mu);
    if (over) {
        e.dropped += over;
        char why[200];
        snprintf(why, sizeof why,
                 "device record buffer full (%" PRIu32 " records per traced thread; raise --buffer-bytes)",
                 d.per_thread);
        mh_cuda_write_dropped(mh, fl->id, over, why);
    }
    if (mh->w) {
        uint64_t tw = mh_cuda_now_ns();
        if (mh_trace_write_kernel_end(mh->w, &e, &err) != MH_OK || mh_trace_flush(mh->w, &err) != MH_OK)
            mh_cuda_writer_failed(mh, &err);
        mh_cuda_spent(&mh->ns_write, tw);
    }
    mh->selected_open--;
    pthread_mutex_unlock(&mh->mu);
    mh_cuda_buf_put(mh, buf);
    /* The kernel has finished (stream synchronised above): its module may
     * lose its patch, at the next launch's entry (never from a launch callback). */
    mh_cuda_module_release(mh, fl->ctx, fl->mod, 0);
    free(fl);
}

/* A node of a graph launch: its kernels are counted under their
 * configuration (the launch table's counts are the program's), neither
 * traced nor timed: no driver launch call precedes them, so neither the
 * launch decision (made at the call's entry, where patching is safe) nor
 * the timing collector's events can bracket them. */
void mh_cuda_graph_node(mh_cuda *mh, const Sanitizer_GraphNodeLaunchData *g) {
    if (g->nodeType != CU_GRAPH_NODE_TYPE_KERNEL || g->isGraphUpload) return;
    const Sanitizer_LaunchData *ld = &g->launchData;
    mh_collect_launch key = {.name = ld->functionName ? ld->functionName : "?",
                             .grid = {ld->gridDim_x, ld->gridDim_y, ld->gridDim_z},
                             .block = {ld->blockDim_x, ld->blockDim_y, ld->blockDim_z}};
    pthread_mutex_lock(&mh->mu);
    mh_collect_count_launch(&mh->st, &key);
    mh->graph_kernels++;
    pthread_mutex_unlock(&mh->mu);
}

/* ---- callback dispatch ---- */

/* The launch entry point of a Sanitizer driver-API callback id (timing_hook.h). */
static int mh_cuda_hook_api(Sanitizer_CallbackId cbid) {
    switch (cbid) {
    case SANITIZER_CBID_DRIVER_API_cuLaunchKernel: return MH_HOOK_KERNEL;
    case SANITIZER_CBID_DRIVER_API_cuLaunchKernel_ptsz: return MH_HOOK_KERNEL_PTSZ;
    case SANITIZER_CBID_DRIVER_API_cuLaunchCooperativeKernel: return MH_HOOK_COOP;
    case SANITIZER_CBID_DRIVER_API_cuLaunchCooperativeKernel_ptsz: return MH_HOOK_COOP_PTSZ;
    case SANITIZER_CBID_DRIVER_API_cuLaunchKernelEx: return MH_HOOK_EX;
    case SANITIZER_CBID_DRIVER_API_cuLaunchKernelEx_ptsz: return MH_HOOK_EX_PTSZ;
    default: return MH_HOOK_NONE;
    }
}

void mh_cuda_on_driver_api(mh_cuda *mh, Sanitizer_CallbackId cbid, const Sanitizer_CallbackData *cb) {
    if (!cb->functionParams) return;
    if (cb->callbackSite == SANITIZER_API_EXIT) {
        /* the end event first, so that it follows the kernel as closely as it can */
        if (mh->timing.launch_exit) {
            const CUresult *rv = cb->functionReturnValue;
            mh->timing.launch_exit(mh_cuda_hook_api(cbid), cb->context, rv && *rv != CUDA_SUCCESS, tl_traced,
                                    tl_have_begin ? tl_begin_name : cb->symbolName,
                                    tl_have_begin ? tl_begin_func : NULL);
        }
        tl_have_begin = 0;
        tl_traced = 0;
        tl_hook_params = NULL;
        tl_kparams = tl_kextra = NULL;
        mh_cuda_undo_at_exit(mh);
        /* the kernel is queued (or the call failed): module code may change again */
        if (mh_cuda_hook_api(cbid) != MH_HOOK_NONE) mh_cuda_gate_leave(mh);
        return;
    }
    if (cb->callbackSite != SANITIZER_API_ENTER) return;
    tl_traced = 0;
    tl_have_begin = 0;
    tl_hook_params = NULL;
    /* ---- call sites (collectors/site/site.h): the host stack of every launch
     * call, deduplicated; the launch callbacks count and record it ---- */
    if (mh_cuda_hook_api(cbid) != MH_HOOK_NONE) tl_site = mh_site_capture(mh->sites, 1);
    CUfunction f = NULL;
    mh_dim3 grid = {0, 0, 0}, block = {0, 0, 0};
    switch (cbid) {
    case SANITIZER_CBID_DRIVER_API_cuLaunchKernel:
    case SANITIZER_CBID_DRIVER_API_cuLaunchKernel_ptsz: {
        const cuLaunchKernel_params *p = cb->functionParams;
        f = p->f;
        tl_kparams = p->kernelParams;
        tl_kextra = p->extra;
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
        tl_kparams = p->kernelParams;
        tl_kextra = NULL; /* the cooperative launch has no `extra` */
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
        tl_kparams = p->kernelParams;
        tl_kextra = p->extra;
        grid = (mh_dim3){c->gridDimX, c->gridDimY, c->gridDimZ};
        block = (mh_dim3){c->blockDimX, c->blockDimY, c->blockDimZ};
        tl_dyn_smem = c->sharedMemBytes;
        tl_have_dyn_smem = 1;
        break;
    }
    default:
        return;
    }
    /* every launch traced, modules patched at load: nothing to decide early */
    if (!mh->eager_patch) mh_cuda_decide_at_entry(mh, f, grid, block, tl_dyn_smem);
    /* After the decision (which may have patched or unpatched a module, as
     * this thread's launch call was not inside the gate yet): from here to
     * the call's exit no module code of this context changes (gate.c). */
    if (!mh->eager_patch) {
        CUcontext gctx = tl_pend.valid ? tl_pend.ctx : NULL;
        if (!gctx && cuCtxGetCurrent(&gctx) != CUDA_SUCCESS) gctx = NULL;
        mh_cuda_gate_enter(mh, gctx);
    }
    /* the start event is recorded at LAUNCH_BEGIN (mh_cuda_launch_begin),
     * reserved here, outside the driver's locks */
    if (mh->timing.prepare) mh->timing.prepare();
    /* a launch decided untraced here may have its idle stream held until it
     * is queued (timing_hook.h); a traced one never: its LAUNCH_BEGIN and
     * LAUNCH_END do stream work of their own */
    if (mh->timing.launch_hold && !mh->start_at_entry && !mh->eager_patch && tl_pend.valid && !tl_pend.want)
        mh->timing.launch_hold(mh_cuda_hook_api(cbid), cb->functionParams);
    if (mh->timing.launch_enter && mh->start_at_entry) {
        mh->timing.launch_enter(mh_cuda_hook_api(cbid), cb->functionParams);
    } else if (mh->timing.launch_enter) {
        tl_hook_api = mh_cuda_hook_api(cbid);
        tl_hook_params = cb->functionParams;
    }
}
