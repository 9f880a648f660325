/* copies.c -- the program's memcpy and memset calls, forwarded to the
 * timing collector it hosts in a one-run profile (collectors/timing_hook.h).
 *
 * Why here: CUPTI's activity records, which time copies in a run of their
 * own, are refused beside the Sanitizer (CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_
 * SUPPORTED), so in one run the timing collector brackets each copy with
 * events, as it does launches. The Sanitizer's MEMCPY/MEMSET callback says
 * what is copied (bytes, direction, the stream it is queued on) just before it
 * is queued; the driver call's exit is where the copy has been queued (or,
 * for a synchronous copy, done). So: a driver-API entry of any memcpy/memset
 * call marks this thread and has the timing collector reserve a start event
 * (prepare: nothing may be created inside the driver's copy path); the first
 * MEMCPY/MEMSET callback inside it records it (copy_begin); the call's exit
 * ends the copy (copy_end). Copies the
 * Sanitizer makes for memheat itself come with no driver call of the program
 * and are not timed. Enabled only with the timing collector hosted. Part of
 * libmemheat_cuda.so. */
#include "cuda_internal.h"

#include "memheat/timing.h"

/* Every driver memcpy/memset entry point (sanitizer_driver_cbid.h). */
#define MH_CUDA_COPY_APIS(X) \
    X(cuMemcpy) X(cuMemcpy2D) X(cuMemcpy2DAsync) X(cuMemcpy2DAsync_v2) X(cuMemcpy2DAsync_v2_ptsz) \
    X(cuMemcpy2DUnaligned) X(cuMemcpy2DUnaligned_v2) X(cuMemcpy2DUnaligned_v2_ptds) X(cuMemcpy2D_v2) \
    X(cuMemcpy2D_v2_ptds) X(cuMemcpy3D) X(cuMemcpy3DAsync) X(cuMemcpy3DAsync_v2) \
    X(cuMemcpy3DAsync_v2_ptsz) X(cuMemcpy3DBatchAsync) X(cuMemcpy3DBatchAsync_ptsz) \
    X(cuMemcpy3DBatchAsync_v2) X(cuMemcpy3DBatchAsync_v2_ptsz) X(cuMemcpy3DPeer) \
    X(cuMemcpy3DPeerAsync) X(cuMemcpy3DPeerAsync_ptsz) X(cuMemcpy3DPeer_ptds) X(cuMemcpy3D_v2) \
    X(cuMemcpy3D_v2_ptds) X(cuMemcpyAsync) X(cuMemcpyAsync_ptsz) X(cuMemcpyAtoA) X(cuMemcpyAtoA_v2) \
    X(cuMemcpyAtoA_v2_ptds) X(cuMemcpyAtoD) X(cuMemcpyAtoD_v2) X(cuMemcpyAtoD_v2_ptds) \
    X(cuMemcpyAtoH) X(cuMemcpyAtoHAsync) X(cuMemcpyAtoHAsync_v2) X(cuMemcpyAtoHAsync_v2_ptsz) \
    X(cuMemcpyAtoH_v2) X(cuMemcpyAtoH_v2_ptds) X(cuMemcpyBatchAsync) X(cuMemcpyBatchAsync_ptsz) \
    X(cuMemcpyBatchAsync_v2) X(cuMemcpyBatchAsync_v2_ptsz) X(cuMemcpyDtoA) X(cuMemcpyDtoA_v2) \
    X(cuMemcpyDtoA_v2_ptds) X(cuMemcpyDtoD) X(cuMemcpyDtoDAsync) X(cuMemcpyDtoDAsync_v2) \
    X(cuMemcpyDtoDAsync_v2_ptsz) X(cuMemcpyDtoD_v2) X(cuMemcpyDtoD_v2_ptds) X(cuMemcpyDtoH) \
    X(cuMemcpyDtoHAsync) X(cuMemcpyDtoHAsync_v2) X(cuMemcpyDtoHAsync_v2_ptsz) X(cuMemcpyDtoH_v2) \
    X(cuMemcpyDtoH_v2_ptds) X(cuMemcpyHtoA) X(cuMemcpyHtoAAsync) X(cuMemcpyHtoAAsync_v2) \
    X(cuMemcpyHtoAAsync_v2_ptsz) X(cuMemcpyHtoA_v2) X(cuMemcpyHtoA_v2_ptds) X(cuMemcpyHtoD) \
    X(cuMemcpyHtoDAsync) X(cuMemcpyHtoDAsync_v2) X(cuMemcpyHtoDAsync_v2_ptsz) X(cuMemcpyHtoD_v2) \
    X(cuMemcpyHtoD_v2_ptds) X(cuMemcpyPeer) X(cuMemcpyPeerAsync) X(cuMemcpyPeerAsync_ptsz) \
    X(cuMemcpyPeer_ptds) X(cuMemcpy_ptds) X(cuMemcpy_v2) X(cuMemsetD16) X(cuMemsetD16Async) \
    X(cuMemsetD16Async_ptsz) X(cuMemsetD16_v2) X(cuMemsetD16_v2_ptds) X(cuMemsetD2D16) \
    X(cuMemsetD2D16Async) X(cuMemsetD2D16Async_ptsz) X(cuMemsetD2D16_v2) X(cuMemsetD2D16_v2_ptds) \
    X(cuMemsetD2D32) X(cuMemsetD2D32Async) X(cuMemsetD2D32Async_ptsz) X(cuMemsetD2D32_v2) \
    X(cuMemsetD2D32_v2_ptds) X(cuMemsetD2D8) X(cuMemsetD2D8Async) X(cuMemsetD2D8Async_ptsz) \
    X(cuMemsetD2D8_v2) X(cuMemsetD2D8_v2_ptds) X(cuMemsetD32) X(cuMemsetD32Async) \
    X(cuMemsetD32Async_ptsz) X(cuMemsetD32_v2) X(cuMemsetD32_v2_ptds) X(cuMemsetD8) \
    X(cuMemsetD8Async) X(cuMemsetD8Async_ptsz) X(cuMemsetD8_v2) X(cuMemsetD8_v2_ptds)

static const Sanitizer_CallbackId copy_apis[] = {
#define MH_CUDA_CBID(n) SANITIZER_CBID_DRIVER_API_##n,
    MH_CUDA_COPY_APIS(MH_CUDA_CBID)
#undef MH_CUDA_CBID
};

/* This thread's copy call: 1 inside a memcpy/memset driver call, 2 once its
 * copy was given to the timing collector. */
static _Thread_local int tl_copy;
static _Thread_local int tl_copy_ptsz; /* the _ptsz/_ptds form: NULL means the per-thread stream */

static int is_per_thread(const char *name) {
    size_t n = strlen(name);
    return n > 5 && (!strcmp(name + n - 5, "_ptsz") || !strcmp(name + n - 5, "_ptds"));
}

void mh_cuda_copies_enable(mh_cuda *mh) {
    if (!mh->timing.copy_begin || !mh->timing.copy_end) return;
    sanitizerEnableDomain(1, mh->sub, SANITIZER_CB_DOMAIN_MEMCPY);
    sanitizerEnableDomain(1, mh->sub, SANITIZER_CB_DOMAIN_MEMSET);
    for (size_t i = 0; i < sizeof copy_apis / sizeof copy_apis[0]; i++)
        sanitizerEnableCallback(1, mh->sub, SANITIZER_CB_DOMAIN_DRIVER_API, copy_apis[i]);
}

int mh_cuda_copy_api(mh_cuda *mh, Sanitizer_CallbackId cbid, const Sanitizer_CallbackData *cb) {
    const char *name = NULL;
    switch (cbid) {
#define MH_CUDA_CASE(n)                       \
    case SANITIZER_CBID_DRIVER_API_##n:       \
        name = #n;                            \
        break;
        MH_CUDA_COPY_APIS(MH_CUDA_CASE)
#undef MH_CUDA_CASE
    default: return 0;
    }
    if (cb->callbackSite == SANITIZER_API_ENTER) {
        if (mh->timing.prepare) mh->timing.prepare(); /* the start event, made outside the driver's locks */
        tl_copy = 1;
        tl_copy_ptsz = is_per_thread(name);
    } else if (cb->callbackSite == SANITIZER_API_EXIT) {
        const CUresult *rv = cb->functionReturnValue;
        if (tl_copy == 2 && mh->timing.copy_end) mh->timing.copy_end(rv && *rv != CUDA_SUCCESS);
        tl_copy = 0;
    }
    return 1;
}

static void begin(mh_cuda *mh, CUcontext ctx, CUstream stream, int kind, uint64_t bytes, uint32_t value) {
    if (tl_copy != 1 || !mh->timing.copy_begin) return;
    if (!stream && tl_copy_ptsz) stream = CU_STREAM_PER_THREAD;
    mh->timing.copy_begin(ctx, stream, kind, bytes, value);
    tl_copy = 2;
}

void mh_cuda_on_memcpy(mh_cuda *mh, const Sanitizer_MemcpyData *m) {
    int kind;
    switch (m->direction) {
    case SANITIZER_MEMCPY_DIRECTION_HOST_TO_DEVICE: kind = MH_COPY_HTOD; break;
    case SANITIZER_MEMCPY_DIRECTION_DEVICE_TO_HOST: kind = MH_COPY_DTOH; break;
    case SANITIZER_MEMCPY_DIRECTION_HOST_TO_HOST: kind = MH_COPY_HTOH; break;
    case SANITIZER_MEMCPY_DIRECTION_DEVICE_TO_DEVICE:
        kind = m->srcContext && m->dstContext && m->srcContext != m->dstContext ? MH_COPY_PTOP : MH_COPY_DTOD;
        break;
    default: kind = MH_COPY_OTHER; break;
    }
    uint64_t bytes = m->size;
    if (!bytes && m->width) bytes = m->width * (m->height ? m->height : 1) * (m->depth ? m->depth : 1);
    begin(mh, m->apiContext, m->apiStream, kind, bytes, 0);
}

void mh_cuda_on_memset(mh_cuda *mh, const Sanitizer_MemsetData *m) {
    uint64_t bytes = m->width * (m->height ? m->height : 1) * (m->elementSize ? m->elementSize : 1);
    begin(mh, m->context, m->stream, MH_COPY_MEMSET, bytes, m->value);
}
