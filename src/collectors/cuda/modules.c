/* modules.c -- the CUDA collector's module patching: a module is patched
 * when a launch of it is selected for tracing and unpatched when idle, so
 * untraced launches run the program's own code (details below). Part of
 * libmemheat_cuda.so; the shared state is in cuda_internal.h. */
#include "cuda_internal.h"
#include "util/grow.h"

/* Set while this thread holds patch_mu inside a patching call (callbacks the
 * Sanitizer makes from there must not take patch_mu again). */
static _Thread_local int tl_in_patch;

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
 * table has its own short lock, mod_mu, never held across a Sanitizer call.
 *
 * Patching and unpatching change the code that launches of the module run,
 * and kernels queued before the change may still be running (one of them,
 * from another host thread, ran patched code that an unpatch took away: "an
 * illegal instruction was encountered"). So both happen behind the context's
 * launch gate (gate.c): no launch call of the context inside, none let in,
 * the context's queued work drained, then the change. That costs one wait for
 * the context per patch and per unpatch, where the traced launch waits for
 * its kernel anyway. A gate that cannot be closed in time leaves the module
 * as it is: an unpatch is given up for good (the module keeps its patch, as
 * after a failed unpatch; its untraced launches run the patched code, which
 * records nothing without a traced launch's descriptor), a patch is given up
 * for good (its launches are not traced, as when patching fails). */

/* Waits for the work queued in ctx (see above). */
static void mh_cuda_patch_quiesce(mh_cuda *mh, CUcontext ctx) {
    if (mh->patch_nosync) return;
    uint64_t t0 = mh_cuda_now_ns();
    CUcontext cur = NULL;
    int pushed = cuCtxGetCurrent(&cur) == CUDA_SUCCESS && cur != ctx && cuCtxPushCurrent(ctx) == CUDA_SUCCESS;
    CUresult r = cuCtxSynchronize();
    if (pushed) cuCtxPopCurrent(&cur);
    mh_cuda_spent(&mh->ns_quiesce, t0);
    if (r != CUDA_SUCCESS && mh->sync_failures++ == 0) {
        const char *s = NULL;
        cuGetErrorString(r, &s);
        mh_cuda_warn("cannot wait for the context's kernels before (un)patching a module (%s)", s ? s : "?");
    }
}

static mh_cuda_module *mh_cuda_module_find(mh_cuda *mh, CUcontext ctx, CUmodule mod) {
    for (size_t i = 0; i < mh->n_mods; i++)
        if (mh->mods[i].mod == mod && (!ctx || mh->mods[i].ctx == ctx)) return &mh->mods[i];
    return NULL;
}

/* Under mod_mu: the module's entry, added if new; NULL when out of memory. */
static mh_cuda_module *mh_cuda_module_get(mh_cuda *mh, CUcontext ctx, CUmodule mod) {
    mh_cuda_module *m = mh_cuda_module_find(mh, ctx, mod);
    if (m) return m;
    mh_cuda_module *grown = mh_grow(mh->mods, &mh->cap_mods, mh->n_mods + 1, sizeof *grown, 16);
    if (!grown) return NULL;
    mh->mods = grown;
    m = &mh->mods[mh->n_mods++];
    *m = (mh_cuda_module){.ctx = ctx, .mod = mod};
    return m;
}

/* Loads the patch into ctx once and instruments mod: behind the launch gate
 * when `gated` (a module already in use), directly at the module's load.
 * Under patch_mu (which also guards patched_ctx). 0 on success, 1 when the
 * gate could not be closed (nothing changed), -1 when patching failed. */
static int mh_cuda_patch_module(mh_cuda *mh, CUcontext ctx, CUmodule mod, int gated) {
    SanitizerResult r;
    int found = 0;
    for (int i = 0; i < mh->n_patched_ctx; i++)
        if (mh->patched_ctx[i] == ctx) found = 1;
    if (!found) {
        if (mh->n_patched_ctx == MH_CUDA_MAX_CTX) {
            if (mh->patch_failures++ == 0)
                mh_cuda_warn("more than 64 CUDA contexts%s; later ones are not traced", "");
            return -1;
        }
        mh_cuda_own_begin();
        r = sanitizerAddPatchesFromFile(mh->patch_path, ctx);
        mh_cuda_own_end();
        if (r != SANITIZER_SUCCESS) {
            char msg[1200];
            snprintf(msg, sizeof msg, "%s (%s)", mh->patch_path, mh_cuda_sanstr(r));
            if (mh->patch_failures++ == 0) mh_cuda_warn("cannot load the device patch %s; kernels are not traced", msg);
            return -1;
        }
        mh->patched_ctx[mh->n_patched_ctx++] = ctx;
    }
    if (gated) {
        if (mh_cuda_gate_close(mh, ctx) != 0) return 1;
        mh_cuda_patch_quiesce(mh, ctx);
    }
    uint64_t t0 = mh_cuda_now_ns();
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
        mh_cuda_spent(&mh->ns_patch, t0);
        if (gated) mh_cuda_gate_open(mh, ctx);
        if (mh->patch_failures++ == 0) mh_cuda_warn("cannot patch a module: %s", mh_cuda_sanstr(r));
        return -1;
    }
    mh_cuda_spent(&mh->ns_patch, t0);
    if (gated) mh_cuda_gate_open(mh, ctx);
    mh->modules_patched++;
    return 0;
}

/* For a launch selected for tracing (launch != 0): patches its module if
 * needed and counts the launch in flight (release it with
 * mh_cuda_module_release). MH_ACQ_BUSY when another thread holds patch_mu
 * (never waited for from a launch callback), MH_ACQ_FAILED when the module
 * cannot be patched. With launch == 0 (eager mode, at module load, outside any
 * launch): waits for the lock and patches only. */
int mh_cuda_module_acquire(mh_cuda *mh, CUcontext ctx, CUmodule mod, int launch) {
    if (tl_in_patch) return MH_ACQ_FAILED; /* the Sanitizer's own module, from inside a patching call */
    if (launch) {
        if (pthread_mutex_trylock(&mh->patch_mu) != 0) return MH_ACQ_BUSY;
    } else {
        pthread_mutex_lock(&mh->patch_mu);
    }
    tl_in_patch++;
    int rc = MH_ACQ_OK, need = 0;
    pthread_mutex_lock(&mh->mod_mu);
    mh_cuda_module *m = mh_cuda_module_get(mh, ctx, mod);
    if (!m || m->failed) rc = MH_ACQ_FAILED;
    else need = !m->patched;
    pthread_mutex_unlock(&mh->mod_mu);
    int pr = rc == MH_ACQ_OK && need ? mh_cuda_patch_module(mh, ctx, mod, launch) : 0;
    int failed = pr != 0; /* a gate that stayed open fails too: never another 5 s wait for it */
    pthread_mutex_lock(&mh->mod_mu);
    m = mh_cuda_module_find(mh, ctx, mod); /* the table may have moved (forget) */
    if (rc == MH_ACQ_OK) {
        if (!m || failed) {
            if (m) m->failed = 1;
            rc = MH_ACQ_FAILED;
        } else {
            m->patched = 1;
            if (launch) m->inflight++;
        }
    }
    pthread_mutex_unlock(&mh->mod_mu);
    tl_in_patch--;
    pthread_mutex_unlock(&mh->patch_mu);
    return rc;
}

/* From a launch callback, where nothing may be patched: counts a traced
 * launch in flight if its module is patched already (MH_ACQ_OK), else
 * MH_ACQ_BUSY. */
int mh_cuda_module_acquire_patched(mh_cuda *mh, CUcontext ctx, CUmodule mod) {
    int rc = MH_ACQ_BUSY;
    pthread_mutex_lock(&mh->mod_mu);
    mh_cuda_module *m = mh_cuda_module_find(mh, ctx, mod);
    if (m && m->patched && !m->unpatching) {
        m->inflight++;
        rc = MH_ACQ_OK;
    }
    pthread_mutex_unlock(&mh->mod_mu);
    return rc;
}

/* Unpatches every patched module with no traced launch in flight, if no
 * other thread is patching (else the next launch does it). */
static void mh_cuda_unpatch_idle(mh_cuda *mh) {
    if (tl_in_patch || pthread_mutex_trylock(&mh->patch_mu) != 0) return;
    tl_in_patch++;
    for (;;) {
        CUcontext ctx = NULL;
        CUmodule mod = NULL;
        pthread_mutex_lock(&mh->mod_mu);
        for (size_t i = 0; i < mh->n_mods && !mod; i++) {
            mh_cuda_module *m = &mh->mods[i];
            if (m->patched && !m->inflight && !m->stuck) {
                ctx = m->ctx;
                mod = m->mod;
                m->unpatching = 1;
            }
        }
        pthread_mutex_unlock(&mh->mod_mu);
        if (!mod) break;
        /* Only the holder of patch_mu patches or unpatches, and launches of
         * this module can only become traced through patch_mu: unpatching
         * now is safe although mod_mu is released. */
        if (mh_cuda_gate_close(mh, ctx) != 0) {
            pthread_mutex_lock(&mh->mod_mu);
            mh_cuda_module *m = mh_cuda_module_find(mh, ctx, mod);
            if (m) {
                m->unpatching = 0;
                m->stuck = 1; /* keeps its patch (see above) */
            }
            pthread_mutex_unlock(&mh->mod_mu);
            continue;
        }
        mh_cuda_patch_quiesce(mh, ctx);
        uint64_t t0 = mh_cuda_now_ns();
        SanitizerResult r = sanitizerUnpatchModule(mod);
        mh_cuda_spent(&mh->ns_unpatch, t0);
        mh_cuda_gate_open(mh, ctx);
        pthread_mutex_lock(&mh->mod_mu);
        mh_cuda_module *m = mh_cuda_module_find(mh, ctx, mod);
        if (m) m->unpatching = 0;
        if (r != SANITIZER_SUCCESS) {
            if (mh->unpatch_failures++ == 0)
                mh_cuda_warn("cannot unpatch a module (%s); its later launches keep the patched code",
                             mh_cuda_sanstr(r));
            if (m) m->stuck = 1; /* do not try again; stays patched */
        } else {
            if (m) m->patched = 0;
            mh->modules_unpatched++;
        }
        pthread_mutex_unlock(&mh->mod_mu);
    }
    tl_in_patch--;
    pthread_mutex_unlock(&mh->patch_mu);
}

/* A traced launch of mod ended (or was not set up after all). `unpatch`:
 * idle modules lose their patch now. */
void mh_cuda_module_release(mh_cuda *mh, CUcontext ctx, CUmodule mod, int unpatch) {
    pthread_mutex_lock(&mh->mod_mu);
    mh_cuda_module *m = mh_cuda_module_find(mh, ctx, mod);
    if (m && m->inflight) m->inflight--;
    pthread_mutex_unlock(&mh->mod_mu);
    if (unpatch) mh_cuda_unpatch_idle(mh);
}

/* An untraced launch: idle patches go before it runs, where allowed. */
void mh_cuda_module_untraced(mh_cuda *mh, int unpatch) {
    if (!unpatch) return;
    int any = 0;
    pthread_mutex_lock(&mh->mod_mu);
    for (size_t i = 0; i < mh->n_mods && !any; i++)
        if (mh->mods[i].patched && !mh->mods[i].inflight && !mh->mods[i].stuck) any = 1;
    pthread_mutex_unlock(&mh->mod_mu);
    if (any) mh_cuda_unpatch_idle(mh);
}

/* The module is being unloaded (or its context destroyed: mod NULL, all of ctx). */
void mh_cuda_module_forget(mh_cuda *mh, CUcontext ctx, CUmodule mod) {
    if (tl_in_patch) return; /* the Sanitizer's own modules, from inside a patching call */
    pthread_mutex_lock(&mh->mod_mu);
    for (size_t i = 0; i < mh->n_mods;) {
        mh_cuda_module *m = &mh->mods[i];
        if ((mod && m->mod == mod && (!ctx || m->ctx == ctx)) || (!mod && m->ctx == ctx))
            *m = mh->mods[--mh->n_mods];
        else
            i++;
    }
    for (size_t i = 0; i < mh->n_syms;) {
        mh_cuda_modsyms *y = &mh->syms[i];
        if ((mod && y->mod == mod && (!ctx || y->ctx == ctx)) || (!mod && y->ctx == ctx)) {
            mh_cubin_free(&y->cubin);
            *y = mh->syms[--mh->n_syms];
        } else {
            i++;
        }
    }
    pthread_mutex_unlock(&mh->mod_mu);
}

/* ---- static __shared__ array names ----
 *
 * The Sanitizer hands every module's cubin at load, valid only during the
 * callback: it is read then (util/cubin.c: symbols of -G builds, the PTX
 * text of -lineinfo builds; release builds name nothing) and only what it
 * names is kept, per module, until the module is unloaded. A traced launch
 * gets one shared object per array (mh_cuda_shared_objects). */

void mh_cuda_module_loaded(mh_cuda *mh, const Sanitizer_ResourceModuleData *m) {
    if (tl_in_patch || !m->pCubin || !m->cubinSize) return; /* the Sanitizer's own, from a patching call */
    mh_cubin c;
    mh_err err = {0};
    int rc = mh_cubin_read(m->pCubin, m->cubinSize, &c, &err);
    pthread_mutex_lock(&mh->mod_mu);
    mh_cuda_modsyms *g = NULL;
    if (rc != MH_OK) {
        if (mh->cubins_failed++ == 0) snprintf(mh->cubin_err, sizeof mh->cubin_err, "%s", err.msg);
    } else if (c.n_kernels == 0) {
        mh->cubins_unnamed++;
    } else if ((g = mh_grow(mh->syms, &mh->cap_syms, mh->n_syms + 1, sizeof *g, 16)) != NULL) {
        mh->syms = g;
        mh->syms[mh->n_syms++] = (mh_cuda_modsyms){.ctx = m->context, .mod = m->module, .cubin = c};
        mh->cubins_named++;
        memset(&c, 0, sizeof c); /* kept */
    }
    pthread_mutex_unlock(&mh->mod_mu);
    mh_cubin_free(&c);
}

/* The shared objects of a traced launch of `func` (mangled) in mod: its
 * arrays by name where the module's cubin names them, else one object for
 * the static arrays; dynamic shared memory after them (cubin.h). */
int mh_cuda_shared_objects(mh_cuda *mh, CUcontext ctx, CUmodule mod, const char *func, uint64_t static_size, uint64_t dyn,
                           mh_cubin_objs *out) {
    pthread_mutex_lock(&mh->mod_mu);
    const mh_cubin_kernel *k = NULL;
    for (size_t i = 0; i < mh->n_syms && !k; i++)
        if (mh->syms[i].mod == mod && mh->syms[i].ctx == ctx) k = mh_cubin_kernel_find(&mh->syms[i].cubin, func);
    int rc = mh_cubin_objects(k, mh->smem_reserved, static_size, dyn, MH_CUDA_DYN_SMEM_ALIGN, out, NULL);
    pthread_mutex_unlock(&mh->mod_mu);
    return rc;
}

/* Under mu: idle patches can go now. Always, unless patches are kept or
 * every launch is traced anyway (eager mode). */
int mh_cuda_no_more_launches(mh_cuda *mh) {
    if (mh->keep_patched) return 0;
    if (mh->eager_patch && mh->w) return 0;
    return 1;
}

