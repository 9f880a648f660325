/* test_atomics.c -- the atomic-contention analysis (src/analyses/atomics.c):
 * a histogram kernel whose every update is an atomicAdd on 16 bins is an
 * atomic_contention finding with its figures (operations, requests,
 * addresses, lanes of a request on one address, warps on the hottest
 * address) and no hot spot; the same stream of loads is still a hot spot;
 * atomics spread over many addresses are no finding; shared-memory atomics
 * get the shared-memory fix; the result is the same on every thread count
 * (the analysis runs in launch lanes too and merges). */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "render/analyze.h"
#include "tbuild.h"
#include "../mh_test.h"

enum { BINS = 16, ITERS = 8, THREADS = 256 };

/* Launch `launch` of a histogram: ITERS rounds, each thread loading its
 * element of `in` (coalesced) and updating bin (tid * 7 + i * 3) % BINS of
 * `hist` with `kind` (every warp's 32 lanes hit 16 bins, two lanes each). */
static void histogram(tb *t, uint32_t launch, unsigned kind, unsigned space, uint64_t hist, int spread, unsigned stride) {
    for (uint32_t i = 0; i < ITERS; i++)
        for (uint16_t w = 0; w < THREADS / 32; w++) {
            for (uint16_t l = 0; l < 32; l++) {
                uint16_t th = (uint16_t)(w * 32 + l);
                tb_acc(t, launch, 0, th, 2 * i, 0x200000 + 4u * (i * THREADS + th), 4, MH_KIND_LOAD, MH_SPACE_GLOBAL,
                       0x100);
            }
            for (uint16_t l = 0; l < 32; l++) {
                uint16_t th = (uint16_t)(w * 32 + l);
                uint32_t bin = spread ? i * THREADS + th : (th * 7u + i * 3u) % BINS;
                tb_acc(t, launch, 0, th, 2 * i + 1, hist + (uint64_t)stride * bin, 4, kind, space, 0x110);
            }
        }
}

/* A trace of one histogram launch; the bins' object is labelled "hist",
 * its bins `stride` bytes apart. */
static int make_strided(tb *t, const char *name, unsigned kind, unsigned space, int spread, unsigned stride) {
    if (!tb_open(t, name)) return 0;
    tb_alloc(t, 0, MH_TRACE_NO_LAUNCH, 0x200000, 4u * ITERS * THREADS, MH_SPACE_GLOBAL, "in");
    uint64_t hist = space == MH_SPACE_SHARED ? 0x1000 : 0x100000;
    uint32_t size = spread ? stride * ITERS * THREADS : stride * BINS;
    tb_alloc(t, 1, space == MH_SPACE_SHARED ? 0 : MH_TRACE_NO_LAUNCH, hist, size, space, "hist");
    tb_launch(t, 0, "histogram", 1, THREADS);
    tb_pcinfo(t, 0x110, "histogram", "hist.cu", 12);
    histogram(t, 0, kind, space, hist, spread, stride);
    tb_end(t, 0);
    return tb_close(t);
}

static int make(tb *t, const char *name, unsigned kind, unsigned space, int spread) {
    return make_strided(t, name, kind, space, spread, 4);
}

static const mh_pat_finding *find(const mh_analyze_result *r, const char *kind) {
    size_t n = 0;
    const mh_pat_finding *const *v = mh_analyze_findings(r, &n);
    for (size_t i = 0; i < n; i++)
        if (!strcmp(mh_pat_kind_name(v[i]->kind), kind) && v[i]->label && !strcmp(v[i]->label, "hist")) return v[i];
    return NULL;
}

/* The histogram of atomics: contention, not a hot spot. */
static void test_histogram(void) {
    tb t;
    CHECK(make(&t, "atomic_hist", MH_KIND_ATOMIC, MH_SPACE_GLOBAL, 0));
    mh_analyze_opts o = {.threads = 1};
    mh_analyze_result res;
    CHECK(mh_analyze_file(t.path, &o, &res, NULL) == MH_OK);
    const mh_pat_finding *f = find(&res, "atomic_contention");
    CHECK(f != NULL);
    if (f) {
        CHECK_EQ_U(f->flagged, ITERS * THREADS);        /* operations */
        CHECK_EQ_U(f->requests, ITERS * THREADS / 32);  /* warp requests */
        CHECK_EQ_U(f->degree_max, 2);                    /* two lanes of a warp on one bin */
        CHECK_NEAR(f->degree_avg, 2.0, 1e-12);
        CHECK_EQ_U(f->max_word_temp, THREADS / 32);      /* every warp on the hottest bin */
        /* the chain at L2: each request's 16 bins lie in one line, bins k and k + 8 on one word
         * position: 4 lanes a position, 4 steps a request, one 512-byte group */
        CHECK_NEAR(f->cost, ITERS * THREADS / 32 * 4, 1e-9);
        CHECK(strstr(f->summary, "256 operations one after another at L2 (1 512-byte group)") != NULL);
        CHECK_EQ_U(f->pc, 0x110);
        CHECK(f->file && !strcmp(f->file, "hist.cu") && f->line == 12);
        CHECK(strstr(f->summary, "2048 atomic operations (64 warp requests) on 16 addresses") != NULL);
        CHECK(strstr(f->suggestion, "privatise") != NULL && strstr(f->suggestion, "__match_any_sync") != NULL);
    }
    CHECK(find(&res, "hot_spot") == NULL);
    CHECK(find(&res, "random_hot") == NULL);
    CHECK(find(&res, "coalesced") == NULL); /* not "well coalesced" either */
    /* the per-pc table, in the JSON too */
    char jpath[600];
    snprintf(jpath, sizeof jpath, "%s.json", t.path);
    CHECK(mh_analyze_write_json(jpath, &res, NULL) == MH_OK);
    json_t *root = json_load_file(jpath, 0, NULL);
    const json_t *a = json_object_get(root, "atomics");
    CHECK(json_array_size(a) == 1);
    const json_t *e = json_array_get(a, 0);
    CHECK(json_integer_value(json_object_get(e, "operations")) == ITERS * THREADS);
    CHECK(json_integer_value(json_object_get(e, "degree_max")) == 2);
    CHECK(json_real_value(json_object_get(e, "addresses_per_request")) == 16.0);
    size_t i;
    json_t *x;
    int found = 0;
    json_array_foreach(json_object_get(root, "findings"), i, x) if (!strcmp(json_string_value(json_object_get(x, "kind")),
                                                                              "atomic_contention")) {
        found++;
        CHECK(json_integer_value(json_object_get(json_object_get(x, "evidence"), "degree_max")) == 2);
    }
    CHECK(found == 1);
    json_decref(root);
    unlink(jpath);
    mh_analyze_free(&res);
    /* every thread count and the launch lanes: the same findings */
    for (unsigned th = 2; th <= 16; th += 7) {
        mh_analyze_opts ot = {.threads = th};
        mh_analyze_result r2;
        CHECK(mh_analyze_file(t.path, &ot, &r2, NULL) == MH_OK);
        const mh_pat_finding *g = find(&r2, "atomic_contention");
        CHECK(g && g->flagged == ITERS * THREADS && g->degree_max == 2 && g->max_word_temp == THREADS / 32);
        CHECK(find(&r2, "hot_spot") == NULL);
        mh_analyze_free(&r2);
    }
    unlink(t.path);
}

/* The same stream of loads: a hot spot, no contention (the hot-spot rule is
 * unchanged where the words are loaded). */
static void test_loads_still_hot(void) {
    tb t;
    CHECK(make(&t, "load_hist", MH_KIND_LOAD, MH_SPACE_GLOBAL, 0));
    mh_analyze_result res;
    CHECK(mh_analyze_file(t.path, NULL, &res, NULL) == MH_OK);
    CHECK(find(&res, "hot_spot") != NULL || find(&res, "random_hot") != NULL);
    CHECK(find(&res, "atomic_contention") == NULL);
    mh_analyze_free(&res);
    unlink(t.path);
}

/* Atomics each on an address of its own: no contention. */
static void test_spread(void) {
    tb t;
    CHECK(make(&t, "atomic_spread", MH_KIND_ATOMIC, MH_SPACE_GLOBAL, 1));
    mh_analyze_result res;
    CHECK(mh_analyze_file(t.path, NULL, &res, NULL) == MH_OK);
    CHECK(find(&res, "atomic_contention") == NULL);
    mh_analyze_free(&res);
    unlink(t.path);
}

/* The chain at L2 follows the bins' layout: bins a sector apart share word
 * position 0 of their line (16 bins in 4 lines of one 512-byte group: each
 * request 8 lanes a line, 32 steps); bins a line apart spread over 4 groups
 * (2 lanes a line, 32 steps a request, a quarter in each group). */
static void test_chain_layouts(void) {
    static const struct {
        unsigned stride;
        double cost;
    } c[] = {{32, ITERS * THREADS / 32 * 32.0}, {128, ITERS * THREADS / 32 * 32.0 / 4}};
    for (size_t k = 0; k < sizeof c / sizeof *c; k++) {
        tb t;
        CHECK(make_strided(&t, "atomic_layout", MH_KIND_ATOMIC, MH_SPACE_GLOBAL, 0, c[k].stride));
        for (unsigned th = 1; th <= 8; th += 7) {
            mh_analyze_opts o = {.threads = th};
            mh_analyze_result res;
            CHECK(mh_analyze_file(t.path, &o, &res, NULL) == MH_OK);
            const mh_pat_finding *f = find(&res, "atomic_contention");
            CHECK(f != NULL);
            if (f) CHECK_NEAR(f->cost, c[k].cost, 1e-9);
            mh_analyze_free(&res);
        }
        unlink(t.path);
    }
}

/* Shared-memory atomics: the per-warp copies fix. */
static void test_shared(void) {
    tb t;
    CHECK(make(&t, "atomic_shared", MH_KIND_ATOMIC, MH_SPACE_SHARED, 0));
    mh_analyze_result res;
    CHECK(mh_analyze_file(t.path, NULL, &res, NULL) == MH_OK);
    const mh_pat_finding *f = find(&res, "atomic_contention");
    CHECK(f != NULL);
    if (f) {
        CHECK(f->space == MH_SPACE_SHARED);
        CHECK(strstr(f->suggestion, "per-warp") != NULL);
        CHECK_EQ_U(f->flagged, ITERS * THREADS);
        CHECK_NEAR(f->cost, ITERS * THREADS - BINS, 1e-9); /* operations behind another on their bin */
    }
    mh_analyze_free(&res);
    unlink(t.path);
}

MH_TEST_MAIN({"histogram", test_histogram}, {"loads_still_hot", test_loads_still_hot}, {"spread", test_spread},
             {"chain_layouts", test_chain_layouts}, {"shared", test_shared})
