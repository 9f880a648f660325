/* gate.c -- the launch gate: no kernel of a context is queued while memheat
 * changes a module's code in that context. Part of libmemheat_cuda.so.
 *
 * Patching and unpatching a module change the code its launches run. A kernel
 * queued before the change and still running when it happens ran code that
 * was taken away under it ("an illegal instruction was encountered": the
 * coalesced example at 2^26 elements, two host threads launching on two
 * streams, 3 runs in 6 on the H100). Waiting for the context's work before the
 * change is not enough on its own: another thread may queue a kernel between
 * the wait and the change. So every launch call passes a gate at its entry
 * (after memheat's own decision there, where modules are patched) and leaves
 * it at its exit, once the kernel is queued; a thread about to change a
 * module's code closes the gate of that context, waits until no launch call
 * of the context is inside, waits for the context's queued work, changes the
 * code and opens the gate again. Launch calls of other contexts never wait
 * (one process driving several GPUs, whose kernels may wait for each other,
 * as NCCL's do, keeps going).
 *
 * Both waits are bounded, so that a wait memheat cannot foresee (the driver
 * needing a launching thread to move first) costs time, not a hang: a closer
 * that cannot get the launch calls out in MH_GATE_CLOSE_MS gives up (the
 * module keeps its patch, or the launch is not traced); a launch call that
 * finds the gate closed for MH_GATE_ENTER_MS goes in anyway. Both are counted
 * (MEMHEAT_CUDA_DEBUG=1). The gate is a mutex, a condition variable and a
 * count of launch calls inside per context; it lives in the collector's state
 * (mh_cuda, cuda_internal.h), which every function here is handed. */
#include "cuda_internal.h" /* first: it sets _GNU_SOURCE */

#include <assert.h>
#include <errno.h>
#include <time.h>

enum { MH_GATE_CLOSE_MS = 5000, MH_GATE_ENTER_MS = 10000 };

/* Whether this thread is inside a launch call, and in which context's gate. */
static _Thread_local int tl_gate_in;
static _Thread_local CUcontext tl_gate_ctx;

static struct timespec mh_gate_deadline(int ms) {
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    t.tv_sec += ms / 1000;
    t.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (t.tv_nsec >= 1000000000L) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000L;
    }
    return t;
}

/* Under gate_mu: the slot of ctx, added if new; NULL when the table is full
 * (that context is then not gated: counted as a timeout would be). */
static mh_cuda_gate_slot *mh_gate_slot(mh_cuda *mh, CUcontext ctx) {
    mh_cuda_gate_slot *free_slot = NULL;
    for (int i = 0; i < MH_CUDA_MAX_CTX; i++) {
        if (mh->gate[i].ctx == ctx) return &mh->gate[i];
        if (!free_slot && !mh->gate[i].ctx) free_slot = &mh->gate[i];
    }
    if (free_slot) *free_slot = (mh_cuda_gate_slot){.ctx = ctx};
    return free_slot;
}

void mh_cuda_gate_enter(mh_cuda *mh, CUcontext ctx) {
    if (tl_gate_in || !ctx || mh->patch_nosync) return;
    pthread_mutex_lock(&mh->gate_mu);
    mh_cuda_gate_slot *s = mh_gate_slot(mh, ctx);
    if (s) {
        struct timespec until = mh_gate_deadline(MH_GATE_ENTER_MS);
        while (s->closed)
            if (pthread_cond_timedwait(&mh->gate_cv, &mh->gate_mu, &until) == ETIMEDOUT) {
                mh->gate_enter_timeouts++;
                break;
            }
        s->inside++;
        tl_gate_in = 1;
        tl_gate_ctx = ctx;
    }
    pthread_mutex_unlock(&mh->gate_mu);
}

void mh_cuda_gate_leave(mh_cuda *mh) {
    if (!tl_gate_in) return;
    pthread_mutex_lock(&mh->gate_mu);
    mh_cuda_gate_slot *s = mh_gate_slot(mh, tl_gate_ctx);
    assert(s && s->inside > 0);
    if (s && s->inside > 0 && --s->inside == 0 && s->closed) pthread_cond_broadcast(&mh->gate_cv);
    pthread_mutex_unlock(&mh->gate_mu);
    tl_gate_in = 0;
    tl_gate_ctx = NULL;
}

int mh_cuda_gate_close(mh_cuda *mh, CUcontext ctx) {
    if (mh->patch_nosync) return 0;
    assert(!tl_gate_in); /* closed only at a launch call's entry, before this thread goes in */
    int rc = 0;
    pthread_mutex_lock(&mh->gate_mu);
    mh_cuda_gate_slot *s = mh_gate_slot(mh, ctx);
    if (!s || s->closed) { /* no slot; or closed by another closer (patch_mu makes that impossible) */
        mh->gate_close_timeouts++;
        pthread_mutex_unlock(&mh->gate_mu);
        return -1;
    }
    s->closed = 1;
    struct timespec until = mh_gate_deadline(MH_GATE_CLOSE_MS);
    while (s->inside > 0 && rc == 0)
        if (pthread_cond_timedwait(&mh->gate_cv, &mh->gate_mu, &until) == ETIMEDOUT) rc = -1;
    if (rc != 0) {
        s->closed = 0;
        mh->gate_close_timeouts++;
        pthread_cond_broadcast(&mh->gate_cv);
    }
    pthread_mutex_unlock(&mh->gate_mu);
    return rc;
}

void mh_cuda_gate_open(mh_cuda *mh, CUcontext ctx) {
    if (mh->patch_nosync) return;
    pthread_mutex_lock(&mh->gate_mu);
    mh_cuda_gate_slot *s = mh_gate_slot(mh, ctx);
    if (s) s->closed = 0;
    pthread_cond_broadcast(&mh->gate_cv);
    pthread_mutex_unlock(&mh->gate_mu);
}

/* The context is being destroyed: its slot is free again. */
void mh_cuda_gate_forget(mh_cuda *mh, CUcontext ctx) {
    pthread_mutex_lock(&mh->gate_mu);
    for (int i = 0; i < MH_CUDA_MAX_CTX; i++)
        if (mh->gate[i].ctx == ctx && !mh->gate[i].inside && !mh->gate[i].closed) mh->gate[i].ctx = NULL;
    pthread_mutex_unlock(&mh->gate_mu);
}
