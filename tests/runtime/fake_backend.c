/* fake_backend.c -- see fake_backend.h. */
#include "fake_backend.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct fake_alloc {
    size_t bytes;
    int is_dev;
} fake_alloc;

static int fallible(fake_dev *f, mh_err *err, const char *what) {
    pthread_mutex_lock(&f->mu);
    long n = ++f->calls;
    int fail = f->fail_at > 0 && n == f->fail_at;
    pthread_mutex_unlock(&f->mu);
    if (fail) return mh_err_set(err, MH_ERR_CUDA, "split: %s: injected failure (call %ld)", what, n);
    return MH_OK;
}

static void live_add(fake_dev *f, long d, long bytes) {
    pthread_mutex_lock(&f->mu);
    f->live += d;
    f->dev_live = (size_t)((long)f->dev_live + bytes);
    if (f->dev_live > f->dev_peak) f->dev_peak = f->dev_live;
    pthread_mutex_unlock(&f->mu);
}

static int f_count(void *c, int *n, mh_err *err) {
    fake_dev *f = c;
    *n = f->ndev;
    return fallible(f, err, "device_count");
}
static int f_info(void *c, int dev, size_t *fb, size_t *wave, mh_err *err) {
    fake_dev *f = c;
    (void)dev;
    *fb = f->free_bytes;
    *wave = f->wave;
    return fallible(f, err, "device_info");
}
static int f_set(void *c, int dev, mh_err *err) {
    (void)dev;
    return fallible(c, err, "set_device");
}
static int alloc_common(fake_dev *f, void **p, size_t bytes, int is_dev, mh_err *err, const char *what) {
    *p = NULL;
    int rc = fallible(f, err, what);
    if (rc) return rc;
    fake_alloc *a = malloc(sizeof *a + bytes);
    if (!a) return mh_err_set(err, MH_ERR_NOMEM, "fake: out of memory");
    a->bytes = bytes;
    a->is_dev = is_dev;
    memset(a + 1, 0xA5, bytes); /* garbage, like fresh device memory */
    *p = a + 1;
    live_add(f, 1, is_dev ? (long)bytes : 0);
    return MH_OK;
}
static void free_common(fake_dev *f, void *p) {
    fake_alloc *a = (fake_alloc *)p - 1;
    live_add(f, -1, a->is_dev ? -(long)a->bytes : 0);
    free(a);
}
static int f_dalloc(void *c, void **p, size_t n, mh_err *err) { return alloc_common(c, p, n, 1, err, "dev_alloc"); }
static void f_dfree(void *c, void *p) { free_common(c, p); }
static int f_halloc(void *c, void **p, size_t n, mh_err *err) { return alloc_common(c, p, n, 0, err, "host_alloc"); }
static void f_hfree(void *c, void *p) { free_common(c, p); }
static int f_pinned(void *c, const void *p) {
    fake_dev *f = c;
    for (int i = 0; i < f->n_pinned; i++)
        if (f->pinned[i] == p) return 1;
    return 0;
}
static int obj_create(fake_dev *f, void **o, size_t sz, mh_err *err, const char *what) {
    *o = NULL;
    int rc = fallible(f, err, what);
    if (rc) return rc;
    *o = calloc(1, sz);
    if (!*o) return mh_err_set(err, MH_ERR_NOMEM, "fake: out of memory");
    live_add(f, 1, 0);
    return MH_OK;
}
static void obj_destroy(fake_dev *f, void *o) {
    live_add(f, -1, 0);
    free(o);
}
static int f_screate(void *c, void **s, mh_err *err) { return obj_create(c, s, 16, err, "stream_create"); }
static void f_sdestroy(void *c, void *s) { obj_destroy(c, s); }
static int f_ssync(void *c, void *s, mh_err *err) {
    (void)s;
    return fallible(c, err, "stream_sync");
}
static int f_ecreate(void *c, void **e, mh_err *err) { return obj_create(c, e, sizeof(double), err, "event_create"); }
static void f_edestroy(void *c, void *e) { obj_destroy(c, e); }
static int f_erecord(void *c, void *e, void *s, mh_err *err) {
    (void)s;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    *(double *)e = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
    return fallible(c, err, "event_record");
}
static int f_esync(void *c, void *e, mh_err *err) {
    (void)e;
    return fallible(c, err, "event_sync");
}
static int f_elapsed(void *c, void *a, void *b, double *sec, mh_err *err) {
    *sec = *(double *)b - *(double *)a;
    return fallible(c, err, "event_elapsed");
}
static int f_h2d(void *c, void *dst, const void *src, size_t n, void *s, mh_err *err) {
    fake_dev *f = c;
    (void)s;
    int rc = fallible(f, err, "copy_h2d");
    if (rc) return rc;
    memcpy(dst, src, n);
    pthread_mutex_lock(&f->mu);
    f->h2d_bytes += (long)n;
    pthread_mutex_unlock(&f->mu);
    return MH_OK;
}
static int f_d2h(void *c, void *dst, const void *src, size_t n, void *s, mh_err *err) {
    fake_dev *f = c;
    (void)s;
    int rc = fallible(f, err, "copy_d2h");
    if (rc) return rc;
    memcpy(dst, src, n);
    pthread_mutex_lock(&f->mu);
    f->d2h_bytes += (long)n;
    pthread_mutex_unlock(&f->mu);
    return MH_OK;
}
static int f_after(void *c, mh_err *err) { return fallible(c, err, "after_launch"); }

void fake_init(fake_dev *f, int ndev, size_t free_bytes, size_t wave) {
    memset(f, 0, sizeof *f);
    pthread_mutex_init(&f->mu, NULL);
    f->ndev = ndev;
    f->free_bytes = free_bytes;
    f->wave = wave;
}

void fake_destroy(fake_dev *f) { pthread_mutex_destroy(&f->mu); }

mh_split_backend fake_backend(fake_dev *f) {
    mh_split_backend be = {f,         f_count,   f_info,     f_set,     f_dalloc, f_dfree,    f_halloc,
                           f_hfree,   f_pinned,  f_screate,  f_sdestroy, f_ssync, f_ecreate,  f_edestroy,
                           f_erecord, f_esync,   f_elapsed,  f_h2d,     f_d2h,    f_after};
    return be;
}
