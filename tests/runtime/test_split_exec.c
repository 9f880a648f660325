/* test_split_exec.c -- the split scheduler (src/runtime/split_exec.c) run
 * over the fake CPU backend: every iteration computed exactly once with the
 * right data, budget respected, several devices, pinned and staged buffers,
 * tuning, and errors (callback and injected device failures at every call)
 * reported with nothing left allocated. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../mh_test.h"
#include "fake_backend.h"
#include "split_internal.h"

typedef struct job {
    size_t n;
    uint32_t *a, *b, *c;  /* c = a + b + fused[0]; b is INOUT: b += 1 */
    unsigned char *visits;
    pthread_mutex_t mu;
    long fail_split_at;  /* callback fails when begin >= this (0: never) */
    size_t max_split;
} job;

static int kernel(const mh_split_launch *l, void *user, mh_err *err) {
    job *j = user;
    const uint32_t *a = l->split[0];
    uint32_t *b = l->split[1], *c = l->split[2];
    uint32_t k = *(const uint32_t *)l->fused[0];
    if (j->fail_split_at && l->begin >= (size_t)j->fail_split_at)
        return mh_err_set(err, MH_ERR_ARG, "test kernel refuses iteration %zu", l->begin);
    for (size_t i = 0; i < l->end - l->begin; i++) {
        c[i] = a[i] + b[i] + k;
        b[i] += 1;
    }
    pthread_mutex_lock(&j->mu);
    for (size_t i = l->begin; i < l->end; i++) j->visits[i]++;
    if (l->end - l->begin > j->max_split) j->max_split = l->end - l->begin;
    pthread_mutex_unlock(&j->mu);
    return 0;
}

static uint32_t fused_k = 1000;

static void job_init(job *j, size_t n) {
    memset(j, 0, sizeof *j);
    j->n = n;
    j->a = malloc(n * 4);
    j->b = malloc(n * 4);
    j->c = malloc(n * 4);
    j->visits = calloc(n, 1);
    pthread_mutex_init(&j->mu, NULL);
    for (size_t i = 0; i < n; i++) {
        j->a[i] = (uint32_t)(i * 2654435761u);
        j->b[i] = (uint32_t)(i ^ 0x5bd1e995u);
        j->c[i] = 0xDEADBEEF;
    }
}

static void job_free(job *j) {
    free(j->a);
    free(j->b);
    free(j->c);
    free(j->visits);
    pthread_mutex_destroy(&j->mu);
}

/* number of iterations whose result is wrong or visited != once */
static size_t job_bad(const job *j) {
    size_t bad = 0;
    for (size_t i = 0; i < j->n; i++) {
        uint32_t a = (uint32_t)(i * 2654435761u), b = (uint32_t)(i ^ 0x5bd1e995u);
        if (j->visits[i] != 1 || j->c[i] != a + b + fused_k || j->b[i] != b + 1) bad++;
    }
    return bad;
}

static mh_split_buf bufs[3];
static mh_split_fused fz = {&fused_k, sizeof fused_k};

static mh_split_loop make_loop(job *j) {
    bufs[0] = (mh_split_buf){j->a, 4, MH_SPLIT_IN};
    bufs[1] = (mh_split_buf){j->b, 4, MH_SPLIT_INOUT};
    bufs[2] = (mh_split_buf){j->c, 4, MH_SPLIT_OUT};
    mh_split_loop L = {j->n, bufs, 3, &fz, 1, kernel, j};
    return L;
}

static void test_fixed_remainder(void) {
    fake_dev f;
    fake_init(&f, 1, 1 << 20, 64);
    mh_split_backend be = fake_backend(&f);
    job j;
    job_init(&j, 1003); /* 1003 = 10 x 100 + 3 */
    mh_split_loop L = make_loop(&j);
    mh_split_opts o;
    mh_split_opts_init(&o);
    o.split_iters = 100;
    mh_split_report r;
    mh_err err;
    int rc = mh_split_exec(&be, &L, &o, &r, &err);
    CHECK(rc == MH_OK);
    CHECK_EQ_U(job_bad(&j), 0);
    CHECK_EQ_U(r.n_splits, 11);
    CHECK_EQ_U(r.split_iters, 100);
    CHECK_EQ_U(j.max_split, 100);
    CHECK(f.live == 0);
    /* each byte crossed once: in a,b (8/iter) + fused 4; out b,c (8/iter) */
    CHECK(f.h2d_bytes == 1003 * 8 + 4);
    CHECK(f.d2h_bytes == 1003 * 8);
    CHECK(r.ideal_speedup >= 1.0 && r.ideal_speedup <= 3.0);
    CHECK(r.t_in_span > 0 && r.t_in_span <= r.t_total);
    CHECK(r.t_drain >= 0 && r.t_drain <= r.t_total);
    job_free(&j);
    fake_destroy(&f);
}

static void test_budget_4x(void) {
    /* data 12 bytes/iter x 100000 = 1.2 MB, budget 64 KiB: ~18x the budget */
    fake_dev f;
    fake_init(&f, 1, 1 << 30, 256);
    mh_split_backend be = fake_backend(&f);
    job j;
    job_init(&j, 100000);
    mh_split_loop L = make_loop(&j);
    mh_split_opts o;
    mh_split_opts_init(&o);
    o.budget_bytes = 64 << 10;
    mh_split_report r;
    mh_err err;
    CHECK(mh_split_exec(&be, &L, &o, &r, &err) == MH_OK);
    CHECK_EQ_U(job_bad(&j), 0);
    CHECK(f.dev_peak <= (size_t)(64 << 10));
    CHECK(r.device_bytes <= (size_t)(64 << 10));
    CHECK(r.kind != MH_SPLIT_UNTUNED); /* tuned: classified */
    CHECK(r.n_candidates >= 1);
    int found = 0;
    for (int i = 0; i < r.n_candidates; i++) found |= r.candidates[i] == r.split_iters;
    CHECK(found);
    CHECK(f.live == 0);
    /* fixed split larger than the budget allows: refused */
    o.split_iters = 10000;
    CHECK(mh_split_exec(&be, &L, &o, &r, &err) == MH_ERR_NOMEM);
    CHECK(strstr(err.msg, "budget") != NULL);
    /* budget below fused + one iteration per slot */
    o.split_iters = 0;
    o.budget_bytes = 39; /* fused 4 + 3 slots x 12 bytes = 40 */
    CHECK(mh_split_exec(&be, &L, &o, &r, &err) == MH_ERR_NOMEM);
    CHECK(f.live == 0);
    job_free(&j);
    fake_destroy(&f);
}

static void test_multi_device_pinned(void) {
    fake_dev f;
    fake_init(&f, 4, 1 << 20, 64);
    mh_split_backend be = fake_backend(&f);
    job j;
    job_init(&j, 50001);
    f.pinned[f.n_pinned++] = j.a; /* a is "pinned": copied directly */
    mh_split_loop L = make_loop(&j);
    mh_split_opts o;
    mh_split_opts_init(&o);
    int devs[3] = {0, 2, 3};
    o.devices = devs;
    o.n_devices = 3;
    o.nstreams = 2;
    mh_split_report r;
    mh_err err;
    CHECK(mh_split_exec(&be, &L, &o, &r, &err) == MH_OK);
    CHECK_EQ_U(job_bad(&j), 0);
    CHECK(r.n_devices == 3);
    CHECK(r.nstreams == 2);
    /* staging only for b and c (a is pinned): 2 slots x split x 8 bytes */
    CHECK(r.staging_bytes > 0 && r.staging_bytes % 8 == 0);
    CHECK(f.live == 0);
    /* a device that does not exist */
    devs[1] = 7;
    CHECK(mh_split_exec(&be, &L, &o, &r, &err) == MH_ERR_ARG);
    CHECK(strstr(err.msg, "device 7") != NULL);
    job_free(&j);
    fake_destroy(&f);
}

static void test_serial_mode(void) {
    fake_dev f;
    fake_init(&f, 1, 1 << 20, 64);
    mh_split_backend be = fake_backend(&f);
    job j;
    job_init(&j, 777);
    mh_split_loop L = make_loop(&j);
    mh_split_opts o;
    mh_split_opts_init(&o);
    o.mode = MH_SPLIT_SERIAL;
    o.split_iters = 50;
    mh_split_report r;
    mh_err err;
    CHECK(mh_split_exec(&be, &L, &o, &r, &err) == MH_OK);
    CHECK_EQ_U(job_bad(&j), 0);
    CHECK_EQ_U(r.n_splits, 16);
    CHECK(r.t_in > 0 && r.t_out > 0 && r.t_compute > 0);
    job_free(&j);
    fake_destroy(&f);
}

static void test_callback_error(void) {
    fake_dev f;
    fake_init(&f, 2, 1 << 20, 64);
    mh_split_backend be = fake_backend(&f);
    job j;
    job_init(&j, 5000);
    j.fail_split_at = 2500;
    mh_split_loop L = make_loop(&j);
    mh_split_opts o;
    mh_split_opts_init(&o);
    o.split_iters = 100;
    mh_err err;
    mh_err_clear(&err);
    int rc = mh_split_exec(&be, &L, &o, NULL, &err);
    CHECK(rc == MH_ERR_ARG); /* the callback's own code */
    CHECK(strstr(err.msg, "kernel callback") != NULL);
    CHECK(strstr(err.msg, "refuses iteration") != NULL);
    CHECK(f.live == 0);
    job_free(&j);
    fake_destroy(&f);
}

/* Fail each fallible backend call in turn: always an error, never a leak.
 * tuned=0: fixed split, so the call sequence is deterministic; tuned=1: the
 * sequence depends on timings, so a k past the run's last call may pass. */
static void injected_failures(int tuned) {
    fake_dev f;
    fake_init(&f, 1, 1 << 20, 64);
    mh_split_backend be = fake_backend(&f);
    job j;
    job_init(&j, 2000);
    mh_split_loop L = make_loop(&j);
    mh_split_opts o;
    mh_split_opts_init(&o);
    o.split_iters = tuned ? 0 : 150;
    mh_err err;
    CHECK(mh_split_exec(&be, &L, &o, NULL, &err) == MH_OK);
    long total = f.calls + (tuned ? 40 : 0);
    CHECK(total > 50);
    int wrong = 0, leaks = 0;
    for (long k = 1; k <= total; k++) {
        fake_dev g;
        fake_init(&g, 1, 1 << 20, 64);
        g.fail_at = k;
        mh_split_backend bg = fake_backend(&g);
        mh_err_clear(&err);
        int rc = mh_split_exec(&bg, &L, &o, NULL, &err);
        /* a failure inside teardown's stream_sync is ignored by design */
        if (rc == MH_OK ? (!tuned && g.calls < k) : (rc != MH_ERR_CUDA || !strstr(err.msg, "injected"))) {
            fprintf(stderr, "fail_at=%ld: rc=%d msg=%s\n", k, rc, err.msg);
            wrong++;
        }
        if (g.live != 0) leaks++;
        fake_destroy(&g);
    }
    CHECK(wrong == 0);
    CHECK(leaks == 0);
    job_free(&j);
    fake_destroy(&f);
}

static void test_empty_and_args(void) {
    fake_dev f;
    fake_init(&f, 0, 1 << 20, 64);
    mh_split_backend be = fake_backend(&f);
    job j;
    job_init(&j, 10);
    mh_split_loop L = make_loop(&j);
    mh_err err;
    CHECK(mh_split_exec(&be, &L, NULL, NULL, &err) == MH_ERR_DEP); /* no device */
    L.n_iters = 0;
    mh_split_report r;
    CHECK(mh_split_exec(&be, &L, NULL, &r, &err) == MH_OK);
    CHECK(r.n_splits == 0);
    job_free(&j);
    fake_destroy(&f);
}

/* A context keeps streams, events and arenas between runs: the second run
 * creates nothing, a larger loop grows the arena, a smaller budget shrinks
 * it, closing releases everything; a context in use is refused. */
static void test_context_reuse(void) {
    fake_dev f;
    fake_init(&f, 2, 1 << 20, 64);
    mh_split_backend be = fake_backend(&f);
    mh_split_ctx *ctx = mh_split_ctx_new(&be);
    CHECK(ctx != NULL);
    job j;
    job_init(&j, 30000);
    mh_split_loop L = make_loop(&j);
    mh_split_opts o;
    mh_split_opts_init(&o);
    o.split_iters = 500;
    mh_split_report r;
    mh_err err;
    CHECK(mh_split_exec_ctx(ctx, &L, &o, &r, &err) == MH_OK);
    CHECK_EQ_U(job_bad(&j), 0);
    long live1 = f.live;
    size_t dev1 = f.dev_live;
    CHECK(live1 > 0);                 /* kept: 2 devices x (3 streams + 13 events + arena) */
    CHECK(dev1 == 2 * r.device_bytes); /* two arenas of exactly what the run used */
    long calls1 = f.calls;
    job_free(&j);
    job_init(&j, 30000);
    L = make_loop(&j);
    CHECK(mh_split_exec_ctx(ctx, &L, &o, &r, &err) == MH_OK);
    CHECK_EQ_U(job_bad(&j), 0);
    CHECK(f.live == live1 && f.dev_live == dev1); /* nothing new */
    CHECK(f.calls > calls1);
    /* larger splits: the arenas grow (replaced, not added) */
    o.split_iters = 2000;
    job_free(&j);
    job_init(&j, 30000);
    L = make_loop(&j);
    CHECK(mh_split_exec_ctx(ctx, &L, &o, &r, &err) == MH_OK);
    CHECK_EQ_U(job_bad(&j), 0);
    CHECK(f.live == live1 && f.dev_live > dev1);
    CHECK(f.dev_live == 2 * r.device_bytes);
    /* a budget below the arena: the run honours it */
    o.split_iters = 100;
    o.budget_bytes = 16 << 10;
    job_free(&j);
    job_init(&j, 30000);
    L = make_loop(&j);
    CHECK(mh_split_exec_ctx(ctx, &L, &o, &r, &err) == MH_OK);
    CHECK_EQ_U(job_bad(&j), 0);
    CHECK(f.dev_live <= 2 * (size_t)(16 << 10));
    /* in use by another run */
    ctx->busy = 1;
    CHECK(mh_split_exec_ctx(ctx, &L, &o, &r, &err) == MH_ERR_ARG);
    CHECK(strstr(err.msg, "in use") != NULL);
    ctx->busy = 0;
    /* a device listed twice would share one device's resources */
    int twice[2] = {1, 1};
    o.devices = twice;
    o.n_devices = 2;
    CHECK(mh_split_exec_ctx(ctx, &L, &o, &r, &err) == MH_ERR_ARG);
    mh_split_ctx_close(ctx);
    CHECK(f.live == 0 && f.dev_live == 0);
    job_free(&j);
    fake_destroy(&f);
}

/* The staging copy threads: every byte of copies above and below the
 * parallel threshold, with and without a pool. */
static void test_pool_copy(void) {
    size_t n = (size_t)21 << 20; /* not a multiple of the part size */
    unsigned char *src = malloc(n), *dst = malloc(n);
    for (size_t i = 0; i < n; i++) src[i] = (unsigned char)(i * 131u + (i >> 13));
    mh_split_pool *p = mh_split_pool_new(3);
    CHECK(p != NULL && mh_split_pool_threads(p) == 3);
    size_t sizes[4] = {n, n - 4097, MH_SPLIT_PAR_COPY_MIN, 1000};
    for (int round = 0; round < 3; round++)
        for (int k = 0; k < 4; k++) {
            memset(dst, 0, n);
            mh_split_pool_copy(round == 2 ? NULL : p, dst, src + 7, sizes[k] - 7);
            CHECK(memcmp(dst, src + 7, sizes[k] - 7) == 0);
            CHECK(dst[sizes[k] - 7] == 0); /* nothing past the end */
        }
    mh_split_pool_free(p);
    CHECK(mh_split_pool_new(0) == NULL);
    free(src);
    free(dst);
}

/* Pageable buffers large enough for the copy threads, run twice through one
 * context (the pool is kept), then closed. */
static void test_staged_large(void) {
    fake_dev f;
    fake_init(&f, 1, (size_t)1 << 30, 1 << 16);
    mh_split_backend be = fake_backend(&f);
    mh_split_ctx *ctx = mh_split_ctx_new(&be);
    job j;
    job_init(&j, (size_t)6 << 20); /* 24 MiB per buffer, splits of 2 Mi iterations = 8 MiB copies */
    mh_split_loop L = make_loop(&j);
    mh_split_opts o;
    mh_split_opts_init(&o);
    o.split_iters = (size_t)2 << 20;
    o.host_threads = 4;
    mh_split_report r;
    mh_err err;
    CHECK(mh_split_exec_ctx(ctx, &L, &o, &r, &err) == MH_OK);
    CHECK_EQ_U(job_bad(&j), 0);
    CHECK(r.staging_bytes > 0);
    CHECK(ctx->res[0].pool != NULL && mh_split_pool_threads(ctx->res[0].pool) == 3);
    mh_split_pool *kept = ctx->res[0].pool;
    job_free(&j);
    job_init(&j, (size_t)6 << 20);
    L = make_loop(&j);
    CHECK(mh_split_exec_ctx(ctx, &L, &o, &r, &err) == MH_OK);
    CHECK_EQ_U(job_bad(&j), 0);
    CHECK(ctx->res[0].pool == kept);
    mh_split_ctx_close(ctx);
    CHECK(f.live == 0);
    job_free(&j);
    fake_destroy(&f);
}

static void test_injected_failures(void) {
    injected_failures(0);
    injected_failures(1);
}

/* The host backend (split_host.c: the CPU as the device) computes every
 * iteration once, tuned and with a fixed split, with a budget of four
 * times less than the data; without CUDA, mh_split_run is this call
 * (split_nocuda.c). */
static void test_host_backend(void) {
    const mh_split_backend *be = mh_split_host_backend();
    job j;
    job_init(&j, 100003);
    mh_split_loop L = make_loop(&j);
    mh_split_opts o;
    mh_split_opts_init(&o);
    o.budget_bytes = 100003 * 12 / 4;
    mh_split_report r;
    mh_err err;
    CHECK(mh_split_exec(be, &L, &o, &r, &err) == MH_OK);
    CHECK_EQ_U(job_bad(&j), 0);
    CHECK(r.n_splits > 1);
    job_free(&j);
    job_init(&j, 5000); /* a fixed split size: 5 of 999 and the remainder */
    L = make_loop(&j);
    mh_split_opts_init(&o);
    o.split_iters = 999;
    CHECK(mh_split_exec(be, &L, &o, &r, &err) == MH_OK);
    CHECK_EQ_U(job_bad(&j), 0);
    CHECK_EQ_U(r.n_splits, 6);
    job_free(&j);
}

MH_TEST_MAIN(T(test_host_backend), T(test_fixed_remainder), T(test_budget_4x), T(test_multi_device_pinned), T(test_serial_mode),
             T(test_callback_error), T(test_injected_failures), T(test_context_reuse), T(test_pool_copy),
             T(test_staged_large), T(test_empty_and_args))
