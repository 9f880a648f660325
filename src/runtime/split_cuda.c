/* split_cuda.c -- the CUDA runtime backend of the split scheduler and the
 * public entry point mh_split_run. Plain C over the C-callable CUDA runtime
 * API; every failing call becomes MH_ERR_CUDA naming the call. */
#include <cuda_runtime_api.h>

#include "split_internal.h"

static int cu(cudaError_t e, mh_err *err, const char *what) {
    if (e == cudaSuccess) return MH_OK;
    return mh_err_set(err, MH_ERR_CUDA, "split: %s: %s (%s)", what, cudaGetErrorString(e), cudaGetErrorName(e));
}

static int c_device_count(void *ctx, int *n, mh_err *err) {
    (void)ctx;
    cudaError_t e = cudaGetDeviceCount(n);
    if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver) {
        *n = 0;
        return mh_err_set(err, MH_ERR_DEP, "split: no usable CUDA device: %s", cudaGetErrorString(e));
    }
    return cu(e, err, "cudaGetDeviceCount");
}

static int c_device_info(void *ctx, int dev, size_t *free_bytes, size_t *wave, mh_err *err) {
    (void)ctx;
    int rc, sms = 0, tps = 0;
    size_t total = 0;
    if ((rc = cu(cudaSetDevice(dev), err, "cudaSetDevice"))) return rc;
    if ((rc = cu(cudaMemGetInfo(free_bytes, &total), err, "cudaMemGetInfo"))) return rc;
    if ((rc = cu(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), err, "cudaDeviceGetAttribute")))
        return rc;
    if ((rc = cu(cudaDeviceGetAttribute(&tps, cudaDevAttrMaxThreadsPerMultiProcessor, dev), err,
                 "cudaDeviceGetAttribute")))
        return rc;
    *wave = (size_t)sms * (size_t)tps;
    return MH_OK;
}

static int c_set_device(void *ctx, int dev, mh_err *err) {
    (void)ctx;
    return cu(cudaSetDevice(dev), err, "cudaSetDevice");
}

static int c_dev_alloc(void *ctx, void **p, size_t bytes, mh_err *err) {
    (void)ctx;
    cudaError_t e = cudaMalloc(p, bytes);
    if (e != cudaSuccess) {
        *p = NULL;
        cudaGetLastError();
        return mh_err_set(err, MH_ERR_CUDA, "split: cudaMalloc(%zu bytes): %s", bytes, cudaGetErrorString(e));
    }
    return MH_OK;
}

static void c_dev_free(void *ctx, void *p) {
    (void)ctx;
    cudaFree(p);
}

static int c_host_alloc(void *ctx, void **p, size_t bytes, mh_err *err) {
    (void)ctx;
    cudaError_t e = cudaMallocHost(p, bytes);
    if (e != cudaSuccess) {
        *p = NULL;
        cudaGetLastError();
        return mh_err_set(err, MH_ERR_CUDA, "split: cudaMallocHost(%zu bytes): %s", bytes, cudaGetErrorString(e));
    }
    return MH_OK;
}

static void c_host_free(void *ctx, void *p) {
    (void)ctx;
    cudaFreeHost(p);
}

static int c_is_pinned(void *ctx, const void *p) {
    (void)ctx;
    struct cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return a.type == cudaMemoryTypeHost;
}

static int c_stream_create(void *ctx, void **s, mh_err *err) {
    (void)ctx;
    cudaStream_t st = NULL;
    int rc = cu(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking), err, "cudaStreamCreate");
    *s = rc ? NULL : (void *)st;
    return rc;
}

static void c_stream_destroy(void *ctx, void *s) {
    (void)ctx;
    cudaStreamDestroy((cudaStream_t)s);
}

static int c_stream_sync(void *ctx, void *s, mh_err *err) {
    (void)ctx;
    return cu(cudaStreamSynchronize((cudaStream_t)s), err, "cudaStreamSynchronize");
}

static int c_event_create(void *ctx, void **e, mh_err *err) {
    (void)ctx;
    cudaEvent_t ev = NULL;
    int rc = cu(cudaEventCreate(&ev), err, "cudaEventCreate");
    *e = rc ? NULL : (void *)ev;
    return rc;
}

static void c_event_destroy(void *ctx, void *e) {
    (void)ctx;
    cudaEventDestroy((cudaEvent_t)e);
}

static int c_event_record(void *ctx, void *e, void *s, mh_err *err) {
    (void)ctx;
    return cu(cudaEventRecord((cudaEvent_t)e, (cudaStream_t)s), err, "cudaEventRecord");
}

static int c_event_sync(void *ctx, void *e, mh_err *err) {
    (void)ctx;
    return cu(cudaEventSynchronize((cudaEvent_t)e), err, "cudaEventSynchronize (a copy or kernel failed)");
}

static int c_event_elapsed(void *ctx, void *from, void *to, double *sec, mh_err *err) {
    (void)ctx;
    float ms = 0;
    int rc = cu(cudaEventElapsedTime(&ms, (cudaEvent_t)from, (cudaEvent_t)to), err, "cudaEventElapsedTime");
    *sec = 1e-3 * (double)ms;
    return rc;
}

static int c_copy_h2d(void *ctx, void *dst, const void *src, size_t n, void *s, mh_err *err) {
    (void)ctx;
    return cu(cudaMemcpyAsync(dst, src, n, cudaMemcpyHostToDevice, (cudaStream_t)s), err,
              "cudaMemcpyAsync host->device");
}

static int c_copy_d2h(void *ctx, void *dst, const void *src, size_t n, void *s, mh_err *err) {
    (void)ctx;
    return cu(cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToHost, (cudaStream_t)s), err,
              "cudaMemcpyAsync device->host");
}

static int c_after_launch(void *ctx, mh_err *err) {
    (void)ctx;
    return cu(cudaGetLastError(), err, "kernel launch");
}

static const mh_split_backend cuda_backend = {
    NULL,           c_device_count,   c_device_info,  c_set_device,   c_dev_alloc,
    c_dev_free,     c_host_alloc,     c_host_free,    c_is_pinned,    c_stream_create,
    c_stream_destroy, c_stream_sync,  c_event_create, c_event_destroy, c_event_record,
    c_event_sync,   c_event_elapsed,  c_copy_h2d,     c_copy_d2h,     c_after_launch,
};

int mh_split_run(const mh_split_loop *loop, const mh_split_opts *opts, mh_split_report *report, mh_err *err) {
    return mh_split_exec(&cuda_backend, loop, opts, report, err);
}

int mh_split_ctx_open(mh_split_ctx **ctx, mh_err *err) {
    *ctx = mh_split_ctx_new(&cuda_backend);
    return *ctx ? MH_OK : mh_err_set(err, MH_ERR_NOMEM, "split: out of host memory");
}

int mh_split_run_ctx(mh_split_ctx *ctx, const mh_split_loop *loop, const mh_split_opts *opts,
                     mh_split_report *report, mh_err *err) {
    return mh_split_exec_ctx(ctx, loop, opts, report, err);
}
