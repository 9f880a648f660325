/* test_site_trace.c -- call sites from capture to label: a site captured
 * here, written with its objects, launch and counts (trace version 5), read
 * back record by record, then symbolised by memheat (libdw) to this file's
 * function and line; and the capture's cost per launch, measured. */
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analyses/sites.h"
#include "collectors/site/site.h"
#include "mh_test.h"
#include "util/framefilter.h"

static char g_path[256];
static int g_line; /* the line of the capture below */

__attribute__((noinline)) static uint32_t capture_here(mh_site_state *s) {
    uint32_t id = mh_site_capture(s, 0); g_line = __LINE__;
    return id;
}

static void write_trace(void) {
    mh_site_state *s;
    mh_err err;
    CHECK(mh_site_open(&s, &err) == MH_OK);
    uint32_t id[2];
#pragma GCC unroll 1
    for (volatile int i = 0; i < 2; i++) id[i] = capture_here(s); /* one call site: one id */
    uint32_t a = id[0];
    CHECK(a != MH_SITE_NONE && a == id[1]);
    CHECK(capture_here(s) != a); /* another line of the caller: another site (not written) */
    mh_collect_launch key = {.name = "_Z6kernelPf", .grid = {4, 1, 1}, .block = {128, 1, 1}};
    for (int i = 0; i < 3; i++) mh_site_count(s, a, &key);
    mh_trace_header h = {.producer = "test", .command = "", .note = "",
                         .device = {.name = "dev", .warp_size = 32, .sector_size = 32}};
    mh_trace_writer *w;
    CHECK(mh_trace_create(&w, g_path, &h, NULL, &err) == MH_OK);
    mh_launch l = {.id = 0, .name = "_Z6kernelPf", .display_name = "kernel(float*)", .grid = {4, 1, 1},
                   .block = {128, 1, 1}, .n_sampled = MH_TRACE_ALL_BLOCKS};
    CHECK(mh_trace_write_launch(w, &l, &err) == MH_OK);
    CHECK(mh_site_write_new(s, w, &err) == MH_OK);
    mh_launch_site ls = {.launch = 0, .site = a};
    CHECK(mh_trace_write_launch_site(w, &ls, &err) == MH_OK);
    CHECK(mh_site_write_stats(s, w, &err) == MH_OK);
    CHECK(mh_trace_close(w, &err) == MH_OK);
    mh_site_close(s);
}

static void test_roundtrip_and_symbols(void) {
    snprintf(g_path, sizeof g_path, "/tmp/mh_site_trace_%d.mht", (int)getpid());
    write_trace();
    mh_trace_reader *r;
    mh_err err;
    CHECK(mh_trace_open(&r, g_path, &err) == MH_OK);
    if (!r) return;
    mh_sites sites = {0};
    mh_record rec;
    int nobj = 0, nsite = 0, nls = 0, nst = 0;
    while (mh_trace_next(r, &rec, &err) == MH_OK && rec.type != MH_REC_EOF) {
        nobj += rec.type == MH_REC_SITE_OBJECT;
        nsite += rec.type == MH_REC_SITE;
        nls += rec.type == MH_REC_LAUNCH_SITE;
        nst += rec.type == MH_REC_SITE_STATS;
        if (rec.type == MH_REC_SITE) {
            CHECK(rec.u.site.n_native >= 2);
            CHECK(rec.u.site.n_python == 0);
            CHECK(rec.u.site.user < rec.u.site.n_native); /* the test program is not a library */
        }
        if (rec.type == MH_REC_SITE_STATS) CHECK_EQ_U(rec.u.site_stats.launches, 3);
        CHECK(mh_sites_feed(&sites, &rec, &err) == MH_OK);
    }
    CHECK(mh_trace_complete(r));
    mh_trace_close_reader(r);
    CHECK(nobj >= 2 && nsite == 2 && nls == 1 && nst == 1);
    CHECK(mh_sites_resolve(&sites, "", &err) == MH_OK);
    const mh_sites_site *e = mh_sites_of_launch(&sites, 0);
    CHECK(e != NULL);
    if (e) {
        CHECK(e->user >= 0);
        const mh_sites_frame *f = e->user >= 0 ? &e->frames[e->user] : NULL;
        CHECK(f && strstr(f->function, "capture_here") != NULL);
        CHECK(f && strstr(f->file, "test_site_trace.c") != NULL);
        /* optimised code may attribute the call to its function's first line */
        CHECK(f && (f->line == (uint32_t)g_line || f->line + 1 == (uint32_t)g_line));
        char want[64];
        snprintf(want, sizeof want, "test_site_trace.c:%u", f ? f->line : 0);
        CHECK(e->label && strstr(e->label, want) == e->label);
        if (e->label && strstr(e->label, want) != e->label) fprintf(stderr, "label: %s\n", e->label);
        CHECK_EQ_U(e->launches, 3);
        /* a user filter that names this file leaves the caller (test_roundtrip... in the same file) out too */
    }
    mh_sites_free(&sites);
    remove(g_path);
}

/* nvcc's launch code: the user's line calls a host function named like the
 * kernel, defined at the kernel's definition, which calls
 * __device_stub__<kernel>; that function is often inlined into the user's.
 * Either way the user's frame is the line that launched, not the kernel's
 * definition. */
static int g_launch_line[2];

__attribute__((noinline)) static uint32_t __device_stub__Z11fake_kernelv(mh_site_state *s) {
    uint32_t id = mh_site_capture(s, 0);
    __asm__ volatile("" ::: "memory"); /* no tail call: every frame stays on the stack */
    return id;
}
static inline __attribute__((always_inline)) uint32_t fake_kernel_inlined(mh_site_state *s) {
    uint32_t id = __device_stub__Z11fake_kernelv(s);
    __asm__ volatile("" ::: "memory");
    return id;
}
__attribute__((noinline)) static uint32_t fake_kernel_called(mh_site_state *s) {
    uint32_t id = __device_stub__Z11fake_kernelv(s);
    __asm__ volatile("" ::: "memory");
    return id;
}
__attribute__((noinline)) static uint32_t launch_fake(mh_site_state *s, int inlined) {
    uint32_t id;
    if (inlined) {
        id = fake_kernel_inlined(s); g_launch_line[1] = __LINE__;
    } else {
        id = fake_kernel_called(s); g_launch_line[0] = __LINE__;
    }
    __asm__ volatile("" ::: "memory");
    return id;
}

static void check_wrapper(int inlined) {
    char path[256];
    snprintf(path, sizeof path, "/tmp/mh_site_stub_%d_%d.mht", (int)getpid(), inlined);
    mh_site_state *st;
    mh_err err;
    CHECK(mh_site_open(&st, &err) == MH_OK);
    if (!st) return;
    uint32_t a = launch_fake(st, inlined);
    mh_trace_header h = {.producer = "test", .command = "", .note = "",
                         .device = {.name = "dev", .warp_size = 32, .sector_size = 32}};
    mh_trace_writer *w;
    CHECK(mh_trace_create(&w, path, &h, NULL, &err) == MH_OK);
    mh_launch l = {.id = 0, .name = "fake_kernel", .display_name = "fake_kernel", .grid = {1, 1, 1},
                   .block = {32, 1, 1}, .n_sampled = MH_TRACE_ALL_BLOCKS};
    mh_launch_site ls = {.launch = 0, .site = a};
    CHECK(w && mh_trace_write_launch(w, &l, &err) == MH_OK && mh_site_write_new(st, w, &err) == MH_OK &&
          mh_trace_write_launch_site(w, &ls, &err) == MH_OK && mh_trace_close(w, &err) == MH_OK);
    mh_site_close(st);
    mh_trace_reader *r;
    CHECK(mh_trace_open(&r, path, &err) == MH_OK);
    if (!r) return;
    mh_sites sites = {0};
    mh_record rec;
    while (mh_trace_next(r, &rec, &err) == MH_OK && rec.type != MH_REC_EOF) CHECK(mh_sites_feed(&sites, &rec, &err) == MH_OK);
    mh_trace_close_reader(r);
    CHECK(mh_sites_resolve(&sites, "", &err) == MH_OK);
    const mh_sites_site *e = mh_sites_of_launch(&sites, 0);
    const mh_sites_frame *f = e && e->user >= 0 ? &e->frames[e->user] : NULL;
    CHECK(f && strstr(f->function, "launch_fake") != NULL);
    CHECK(f && strstr(f->file, "test_site_trace.c") != NULL);
    CHECK(f && (f->line == (uint32_t)g_launch_line[inlined] || f->line + 1 == (uint32_t)g_launch_line[inlined]));
    CHECK(e && e->scope && !strcmp(e->scope, inlined ? "fake_kernel()" : "fake_kernel_called")); /* what it launched */
    if (f && f->line != (uint32_t)g_launch_line[inlined])
        fprintf(stderr, "%s: user frame %s at line %u, launched at %d\n", inlined ? "inlined" : "called", f->function,
                f->line, g_launch_line[inlined]);
    mh_sites_free(&sites);
    remove(path);
}

static void test_launch_wrapper(void) {
    check_wrapper(0);
    check_wrapper(1);
}

/* What a launch's capture costs: the unwind, the Python and NVTX look-ups and
 * the dedup of a known site, per call (printed for bench/sites; a bound
 * generous enough for a loaded CI machine keeps the test meaningful). */
static void test_cost(void) {
    mh_site_state *s;
    mh_err err;
    CHECK(mh_site_open(&s, &err) == MH_OK);
    enum { N = 20000 };
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < N; i++) capture_here(s);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double ns = ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / N;
    mh_site_counts c;
    mh_site_counts_get(s, &c);
    CHECK_EQ_U(c.sites, 1);
    CHECK_EQ_U(c.captures, N);
    fprintf(stderr, "capture: %.0f ns per launch (%d captures, one site)\n", ns, N);
    CHECK(ns < 200000);
    mh_site_close(s);
}

/* Framework objects are never the user's and never symbolised: JAX's CUDA
 * plugin (hundreds of MB; libdw took 90 s over its frames at import) and the
 * CUDA libraries pip installs are framework code; a user's own are not. */
static void test_framework_objects(void) {
    static const char *const theirs[] = {
        "/v/lib/python3.12/site-packages/jax_plugins/xla_cuda13/xla_cuda_plugin.so",
        "/v/lib/python3.12/site-packages/jaxlib/libjax_common.so",
        "/v/lib/python3.12/site-packages/nvidia/cu13/lib/libcublasLt.so.13",
        "/v/lib/python3.12/site-packages/torch/lib/libtorch_cuda.so", "/usr/bin/python3.12"};
    for (size_t i = 0; i < sizeof theirs / sizeof *theirs; i++) {
        mh_frame_desc d = {.object = theirs[i]};
        CHECK(mh_frame_filtered(&d, NULL));
    }
    static const char *const mine[] = {"/home/me/app/build/solver", "/home/me/app/lib/libmykernels.so"};
    for (size_t i = 0; i < sizeof mine / sizeof *mine; i++) {
        mh_frame_desc d = {.object = mine[i]};
        CHECK(!mh_frame_filtered(&d, NULL));
    }
}

MH_TEST_MAIN(T(test_roundtrip_and_symbols), T(test_launch_wrapper), T(test_cost), T(test_framework_objects))
