/* split_host.c -- the host backend of the split scheduler: the "device" is
 * the CPU and its memory. Used by mh_split_run when memheat is built without
 * CUDA, so a program written against split.h runs everywhere: the kernel
 * callback gets host pointers to the split's buffers (l->stream is an opaque
 * handle, l->device 0) and computes the split itself, synchronously.
 *
 * Streams run every operation at once (a call returns when it is done), so an
 * event's time is the moment it is recorded, and copies are memcpy. The
 * device's free memory is half of what the system reports available; a wave
 * is 1,024 iterations per online CPU. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "split_internal.h"

static int h_count(void *c, int *n, mh_err *err) {
    (void)c, (void)err;
    *n = 1;
    return MH_OK;
}

static int h_info(void *c, int dev, size_t *free_bytes, size_t *wave, mh_err *err) {
    (void)c, (void)dev;
    long pages = sysconf(_SC_AVPHYS_PAGES), psz = sysconf(_SC_PAGESIZE), cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (pages <= 0 || psz <= 0) return mh_err_set(err, MH_ERR_DEP, "split: host backend: free memory unknown");
    *free_bytes = (size_t)pages * (size_t)psz / 2;
    *wave = (size_t)(cpus > 0 ? cpus : 1) * 1024;
    return MH_OK;
}

static int h_set(void *c, int dev, mh_err *err) {
    (void)c;
    return dev == 0 ? MH_OK : mh_err_set(err, MH_ERR_ARG, "split: host backend has one device, not %d", dev);
}

static int h_alloc(void *c, void **p, size_t bytes, mh_err *err) {
    (void)c;
    *p = malloc(bytes ? bytes : 1);
    return *p ? MH_OK : mh_err_set(err, MH_ERR_NOMEM, "split: host backend: out of memory (%zu bytes)", bytes);
}

static void h_free(void *c, void *p) {
    (void)c;
    free(p);
}

static int h_pinned(void *c, const void *p) {
    (void)c, (void)p;
    return 1; /* host memory is what the "device" reads: no staging needed */
}

/* Streams and events are small heap objects; an event holds a time. */
static int h_obj(void *c, void **o, mh_err *err) {
    (void)c;
    *o = calloc(1, sizeof(double));
    return *o ? MH_OK : mh_err_set(err, MH_ERR_NOMEM, "split: host backend: out of memory");
}

static int h_sync(void *c, void *o, mh_err *err) {
    (void)c, (void)o, (void)err;
    return MH_OK; /* everything already ran */
}

static int h_record(void *c, void *e, void *s, mh_err *err) {
    (void)c, (void)s, (void)err;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    *(double *)e = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
    return MH_OK;
}

static int h_elapsed(void *c, void *from, void *to, double *sec, mh_err *err) {
    (void)c, (void)err;
    *sec = *(const double *)to - *(const double *)from;
    return MH_OK;
}

static int h_copy(void *c, void *dst, const void *src, size_t n, void *s, mh_err *err) {
    (void)c, (void)s, (void)err;
    if (n) memcpy(dst, src, n);
    return MH_OK;
}

static int h_after(void *c, mh_err *err) {
    (void)c, (void)err;
    return MH_OK;
}

static const mh_split_backend host_backend = {
    .ctx = NULL,
    .device_count = h_count,
    .device_info = h_info,
    .set_device = h_set,
    .dev_alloc = h_alloc,
    .dev_free = h_free,
    .host_alloc = h_alloc,
    .host_free = h_free,
    .is_pinned = h_pinned,
    .stream_create = h_obj,
    .stream_destroy = h_free,
    .stream_sync = h_sync,
    .event_create = h_obj,
    .event_destroy = h_free,
    .event_record = h_record,
    .event_sync = h_sync,
    .event_elapsed = h_elapsed,
    .copy_h2d = h_copy,
    .copy_d2h = h_copy,
    .after_launch = h_after,
};

const mh_split_backend *mh_split_host_backend(void) { return &host_backend; }
