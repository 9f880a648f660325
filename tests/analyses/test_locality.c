/* test_locality.c -- AIWC locality metrics on traces small enough to work out
 * by hand: footprint, 90% footprint, entropy with n bits dropped, relative
 * local memory usage, parallel spatial locality; independence from where
 * buffers were placed; the memory budget of the step groups; private
 * (local-space) addresses being per thread. */
#include <math.h>
#include <stdlib.h>

#include "../mh_test.h"
#include "render/analyze.h"
#include "tbuild.h"

/* Entropy in bits of a distribution given as counts. */
static double H(const double *c, int n) {
    double tot = 0, h = 0;
    for (int i = 0; i < n; i++) tot += c[i];
    for (int i = 0; i < n; i++)
        if (c[i] > 0) h -= c[i] / tot * log2(c[i] / tot);
    return h;
}

#define NEAR(a, b) CHECK(fabs((a) - (b)) < 1e-9)

static void test_entropy_helper(void) {
    uint64_t k[4] = {0, 4, 8, 12};
    NEAR(mh_loc_entropy(k, NULL, 4, 0), 2.0);
    NEAR(mh_loc_entropy(k, NULL, 4, 2), 2.0);  /* 4-byte apart: dropping 2 bits changes nothing */
    NEAR(mh_loc_entropy(k, NULL, 4, 3), 1.0);  /* {0,0,1,1} */
    NEAR(mh_loc_entropy(k, NULL, 4, 4), 0.0);
    uint64_t c[4] = {2, 1, 1, 0};
    NEAR(mh_loc_entropy(k, c, 4, 0), 1.5);
    uint64_t r[3] = {7, 7, 9}; /* repeated keys without counts */
    double e[2] = {2, 1};
    NEAR(mh_loc_entropy(r, NULL, 3, 0), H(e, 2));
    NEAR(mh_loc_entropy(k, NULL, 0, 0), 0.0);
}

/* Launch "k": grid 2, block 4 threads. Object A (16 floats) at abase, shared S
 * (4 floats). Block 0: thread t reads A[t] (seq 0), A[0] (seq 1), writes S[t]
 * (seq 2). Block 1: thread 0 only, same three accesses. */
static int write_small(tb *t, const char *name, uint64_t abase, uint64_t budget_dummy) {
    (void)budget_dummy;
    if (!tb_open(t, name)) return 0;
    tb_alloc(t, 0, MH_TRACE_NO_LAUNCH, abase, 64, MH_SPACE_GLOBAL, "A");
    tb_alloc(t, 1, 0, 0x40, 16, MH_SPACE_SHARED, "S");
    tb_launch(t, 0, "k", 2, 4);
    for (uint16_t th = 0; th < 4; th++) tb_acc(t, 0, 0, th, 0, abase + 4u * th, 4, MH_KIND_LOAD, MH_SPACE_GLOBAL, 1);
    for (uint16_t th = 0; th < 4; th++) tb_acc(t, 0, 0, th, 1, abase, 4, MH_KIND_LOAD, MH_SPACE_GLOBAL, 2);
    for (uint16_t th = 0; th < 4; th++) tb_acc(t, 0, 0, th, 2, 0x40 + 4u * th, 4, MH_KIND_STORE, MH_SPACE_SHARED, 3);
    tb_acc(t, 0, 1, 0, 0, abase, 4, MH_KIND_LOAD, MH_SPACE_GLOBAL, 1);
    tb_acc(t, 0, 1, 0, 1, abase, 4, MH_KIND_LOAD, MH_SPACE_GLOBAL, 2);
    tb_acc(t, 0, 1, 0, 2, 0x40, 4, MH_KIND_STORE, MH_SPACE_SHARED, 3);
    tb_end(t, 0);
    return tb_close(t);
}

static void check_small(const mh_analyze_result *res) {
    CHECK_EQ_U(res->nloc, 1);
    if (res->nloc != 1) return;
    const mh_loc_result *r = &res->loc[0].r;
    const mh_loc_metrics *g = &r->m[MH_SPACE_GLOBAL], *s = &r->m[MH_SPACE_SHARED], *t = &r->m[MH_LOC_TOTAL];
    /* global: A[0] 7 times, A[1..3] once: 10 accesses, 4 addresses */
    CHECK_EQ_U(g->accesses, 10);
    CHECK_EQ_U(g->footprint, 4);
    CHECK_EQ_U(g->footprint90, 3); /* 7+1+1 = 9 >= 0.9*10 */
    double cg[4] = {7, 1, 1, 1}, cg3[2] = {8, 2};
    NEAR(g->entropy[0], H(cg, 4));
    NEAR(g->entropy[2], H(cg, 4));
    NEAR(g->entropy[3], H(cg3, 2)); /* offsets {0,4} and {8,12} merge */
    NEAR(g->entropy[4], 0.0);
    NEAR(g->entropy[10], 0.0);
    /* shared: S[0] twice (same offset in both blocks' windows), S[1..3] once */
    CHECK_EQ_U(s->accesses, 5);
    CHECK_EQ_U(s->footprint, 4);
    CHECK_EQ_U(s->footprint90, 4); /* 2+1+1 = 4 < 4.5 */
    double cs[4] = {2, 1, 1, 1};
    NEAR(s->entropy[0], H(cs, 4));
    /* total */
    CHECK_EQ_U(t->accesses, 15);
    CHECK_EQ_U(t->footprint, 8);
    double ct[8] = {7, 1, 1, 1, 2, 1, 1, 1};
    NEAR(t->entropy[0], H(ct, 8));
    NEAR(r->rel_local, 5.0 / 15.0);
    /* PSL. Block 0 steps: seq0 4 distinct A words (2 bits; 1 bit with n=3; 0
     * with n=4), seq1 one address (0), seq2 4 distinct S words (2 / 1 / 0).
     * Block 1: every step one access (0). */
    NEAR(t->psl[0], ((2.0 + 0 + 2) / 3 + 0) / 2);
    NEAR(t->psl[3], ((1.0 + 0 + 1) / 3 + 0) / 2);
    NEAR(t->psl[4], 0.0);
    CHECK_EQ_U(t->psl_blocks, 2);
    CHECK_EQ_U(t->psl_steps, 6);
    NEAR(g->psl[0], ((2.0 + 0) / 2 + 0) / 2);
    NEAR(s->psl[0], (2.0 + 0) / 2);
    CHECK_EQ_U(s->psl_steps, 2);
    CHECK_EQ_U(r->psl_split, 0);
    CHECK_EQ_U(r->unattributed, 0);
}

static void test_small_by_hand(void) {
    tb t;
    CHECK(write_small(&t, "small", 0x10000, 0));
    mh_analyze_result res;
    mh_err err = {0};
    CHECK(mh_analyze_file(t.path, NULL, &res, &err) == MH_OK);
    check_small(&res);
    mh_analyze_free(&res);
    unlink(t.path);
}

/* The same kernel with A at an odd, unaligned base gives identical metrics:
 * addresses are offsets in their allocation. */
static void test_placement_independent(void) {
    tb t1, t2;
    CHECK(write_small(&t1, "place1", 0x10000, 0));
    CHECK(write_small(&t2, "place2", 0x7f00000123ccull, 0));
    mh_analyze_result a, b;
    CHECK(tb_analyze_both(&t1, &t2, &a, &b));
    check_small(&b);
    if (a.nloc == 1 && b.nloc == 1)
        for (int c = 0; c < MH_LOC_COLS; c++) {
            const mh_loc_metrics *x = &a.loc[0].r.m[c], *y = &b.loc[0].r.m[c];
            CHECK_EQ_U(x->footprint, y->footprint);
            for (int d = 0; d < MH_LOC_NBITS; d++) {
                NEAR(x->entropy[d], y->entropy[d]);
                NEAR(x->psl[d], y->psl[d]);
            }
        }
    tb_free_both(&t1, &t2, &a, &b);
}

/* Uniform: 256 threads each read one distinct float once -> entropy 8 bits,
 * n bits dropped -> 8 - (n - 2) for n >= 2; 90% footprint = ceil(230.4). One
 * step of 256 distinct words per block -> PSL equals the entropy. */
static void test_uniform_sweep(void) {
    tb t;
    CHECK(tb_open(&t, "uniform"));
    tb_alloc(&t, 0, MH_TRACE_NO_LAUNCH, 0x5000, 1024, MH_SPACE_GLOBAL, "X");
    tb_launch(&t, 0, "sweep", 1, 256);
    for (uint16_t th = 0; th < 256; th++) tb_acc(&t, 0, 0, th, 0, 0x5000 + 4u * th, 4, 0, MH_SPACE_GLOBAL, 1);
    tb_end(&t, 0);
    CHECK(tb_close(&t));
    mh_analyze_result res;
    CHECK(mh_analyze_file(t.path, NULL, &res, NULL) == MH_OK);
    CHECK_EQ_U(res.nloc, 1);
    if (res.nloc == 1) {
        const mh_loc_metrics *g = &res.loc[0].r.m[MH_LOC_TOTAL];
        CHECK_EQ_U(g->footprint, 256);
        CHECK_EQ_U(g->footprint90, 231);
        for (int d = 0; d < MH_LOC_NBITS; d++) {
            double want = d <= 2 ? 8.0 : 8.0 - (d - 2);
            NEAR(g->entropy[d], want);
            NEAR(g->psl[d], want);
        }
        NEAR(res.loc[0].r.rel_local, 0.0);
    }
    mh_analyze_free(&res);
    unlink(t.path);
}

/* Launches with many distinct addresses, touched 1-3 times each, the
 * repeats far apart in the trace: counted from sorted batches merged over
 * several rounds (launch 0, 10^5 addresses) and moved to the hash map past
 * 2^18 distinct ones (launch 1, 4 x 10^5): footprints and entropies at every
 * level against the counts worked out here. */
static int cmp_desc(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x > y ? -1 : x < y;
}

static void test_many_distinct(void) {
    static const uint32_t sizes[2] = {100000, 400000};
    tb t;
    CHECK(tb_open(&t, "many"));
    tb_alloc(&t, 0, MH_TRACE_NO_LAUNCH, 0x10000000, 4u * 400000, MH_SPACE_GLOBAL, "X");
    for (uint32_t l = 0; l < 2; l++) {
        tb_launch(&t, l, "many", 1, 256);
        uint32_t seq = 0, k = 0;
        for (uint32_t round = 0; round < 3; round++) /* address i is touched 1 + i % 3 times */
            for (uint32_t i = 0; i < sizes[l]; i++) {
                uint32_t j = (i * 7919u) % sizes[l]; /* a scattered order, the same each round */
                if (j % 3 < round) continue;
                tb_acc(&t, l, 0, (uint16_t)(k % 256), seq, 0x10000000 + 4ull * j, 4, 0, MH_SPACE_GLOBAL, 1);
                if (++k % 256 == 0) seq++;
            }
        tb_end(&t, l);
    }
    CHECK(tb_close(&t));
    mh_analyze_result res;
    CHECK(mh_analyze_file(t.path, NULL, &res, NULL) == MH_OK);
    CHECK_EQ_U(res.nloc, 2);
    for (size_t l = 0; l < res.nloc && l < 2; l++) {
        uint32_t n = sizes[res.loc[l].launch ? 1 : 0];
        uint64_t *keys = malloc(n * sizeof *keys), *cnt = malloc(n * sizeof *cnt), total = 0;
        for (uint32_t i = 0; i < n; i++) {
            keys[i] = 4ull * i;
            cnt[i] = 1 + i % 3;
            total += cnt[i];
        }
        const mh_loc_metrics *g = &res.loc[l].r.m[MH_SPACE_GLOBAL];
        CHECK_EQ_U(g->footprint, n);
        CHECK_EQ_U(g->accesses, total);
        for (int d = 0; d < MH_LOC_NBITS; d++) NEAR(g->entropy[d], mh_loc_entropy(keys, cnt, n, (unsigned)d));
        qsort(cnt, n, sizeof *cnt, cmp_desc);
        uint64_t run = 0, k90 = 0;
        while (run * 10 < total * 9) run += cnt[k90++];
        CHECK_EQ_U(g->footprint90, k90);
        free(keys);
        free(cnt);
    }
    mh_analyze_free(&res);
    unlink(t.path);
}

/* A budget too small to hold every step forces early hand-overs: counted,
 * while footprint and entropy (which do not need the groups) stay exact. */
static void test_budget_eviction(void) {
    tb t;
    CHECK(tb_open(&t, "budget"));
    tb_alloc(&t, 0, MH_TRACE_NO_LAUNCH, 0x8000, 4096, MH_SPACE_GLOBAL, "X");
    tb_launch(&t, 0, "many_steps", 1, 128);
    /* thread-major order (as Oclgrind runs work-items), and half the block
     * never accesses memory: no step is ever whole, every step stays open */
    for (uint16_t th = 0; th < 64; th++)
        for (uint32_t s = 0; s < 200; s++) tb_acc(&t, 0, 0, th, s, 0x8000 + 4u * ((th + s) % 1024), 4, 0, 0, 1);
    tb_end(&t, 0);
    CHECK(tb_close(&t));
    mh_analyze_result big, small;
    mh_analyze_opts ob = {0}, os = {0};
    os.group_budget = 16 * 1024;
    CHECK(mh_analyze_file(t.path, &ob, &big, NULL) == MH_OK);
    CHECK(mh_analyze_file(t.path, &os, &small, NULL) == MH_OK);
    if (big.nloc == 1 && small.nloc == 1) {
        CHECK_EQ_U(big.loc[0].r.psl_split, 0);
        CHECK(small.loc[0].r.psl_split > 0);
        CHECK_EQ_U(big.loc[0].r.m[MH_LOC_TOTAL].psl_steps, 200);
        CHECK(small.loc[0].r.m[MH_LOC_TOTAL].psl_steps > 200);
        CHECK_EQ_U(small.loc[0].r.m[MH_LOC_TOTAL].footprint, big.loc[0].r.m[MH_LOC_TOTAL].footprint);
        NEAR(small.loc[0].r.m[MH_LOC_TOTAL].entropy[0], big.loc[0].r.m[MH_LOC_TOTAL].entropy[0]);
        /* step s: 64 consecutive words -> 6 bits */
        NEAR(big.loc[0].r.m[MH_LOC_TOTAL].psl[0], 6.0);
        CHECK(small.peak_loc < big.peak_loc);
    } else {
        CHECK(0);
    }
    mh_analyze_free(&big);
    mh_analyze_free(&small);
    unlink(t.path);
}

/* 200 steps of 64 threads written step by step (as the CUDA collector
 * writes them), in a block of `block` threads: each thread at step s reads
 * word (3 t + s) mod 1024 of X. */
static int steps_trace(tb *t, const char *name, uint32_t block) {
    if (!tb_open(t, name)) return 0;
    tb_alloc(t, 0, MH_TRACE_NO_LAUNCH, 0x8000, 4096, MH_SPACE_GLOBAL, "X");
    tb_launch(t, 0, "steps", 1, block);
    for (uint32_t s = 0; s < 200; s++)
        for (uint16_t th = 0; th < 64; th++) tb_acc(t, 0, 0, th, s, 0x8000 + 4u * ((3u * th + s) % 1024), 4, 0, 0, 1);
    tb_end(t, 0);
    return tb_close(t);
}

/* A step that every thread of the block has added to is whole and handed
 * over at once: the same metrics as when the steps wait for the launch's
 * end (a 65th thread that never accesses memory), with far less memory held. */
static void test_whole_steps(void) {
    tb a, b;
    CHECK(steps_trace(&a, "whole", 64));
    CHECK(steps_trace(&b, "open", 65));
    mh_analyze_result ra, rb;
    CHECK(tb_analyze_both(&a, &b, &ra, &rb));
    if (ra.nloc == 1 && rb.nloc == 1) {
        const mh_loc_metrics *x = &ra.loc[0].r.m[MH_LOC_TOTAL], *y = &rb.loc[0].r.m[MH_LOC_TOTAL];
        CHECK_EQ_U(x->psl_steps, 200);
        CHECK_EQ_U(y->psl_steps, 200);
        CHECK_EQ_U(ra.loc[0].r.psl_split, 0);
        for (int d = 0; d < MH_LOC_NBITS; d++) CHECK(x->psl[d] == y->psl[d]);
        NEAR(x->psl[0], 6.0); /* 64 distinct words per step */
        CHECK_EQ_U(x->footprint, y->footprint);
        /* whole steps hold one step's 64 entries at a time; open ones all 200 */
        CHECK(ra.peak_loc + 200 * 64 * 16 / 2 < rb.peak_loc);
    } else {
        CHECK(0);
    }
    tb_free_both(&a, &b, &ra, &rb);
}

/* A thread with two records at one step (Oclgrind splits a wide copy into
 * several, one after the other) must not make the step look whole before
 * its last record came: 4 threads, step 0 gets the threads in `order`
 * (one of them twice), step 1 each thread once. */
static void check_step_twice(const char *name, const uint16_t order[5]) {
    tb t;
    CHECK(tb_open(&t, name));
    tb_alloc(&t, 0, MH_TRACE_NO_LAUNCH, 0x8000, 4096, MH_SPACE_GLOBAL, "X");
    tb_launch(&t, 0, "twice", 1, 4);
    for (int i = 0; i < 5; i++) tb_acc(&t, 0, 0, order[i], 0, 0x8000 + 4u * (uint32_t)i, 4, 0, 0, 1);
    for (uint16_t th = 0; th < 4; th++) tb_acc(&t, 0, 0, th, 1, 0x8100 + 4u * th, 4, 0, 0, 1);
    tb_end(&t, 0);
    CHECK(tb_close(&t));
    mh_analyze_result res;
    CHECK(mh_analyze_file(t.path, NULL, &res, NULL) == MH_OK);
    if (res.nloc == 1) {
        CHECK_EQ_U(res.loc[0].r.m[MH_LOC_TOTAL].psl_steps, 2);
        /* step 0: 5 words (log2 5), step 1: 4 words (2 bits) */
        NEAR(res.loc[0].r.m[MH_LOC_TOTAL].psl[0], (log2(5.0) + 2.0) / 2);
        CHECK_EQ_U(res.loc[0].r.psl_split, 0);
    } else {
        CHECK(0);
    }
    mh_analyze_free(&res);
    unlink(t.path);
}

static void test_step_thread_twice(void) {
    static const uint16_t first[5] = {0, 0, 1, 2, 3}, last[5] = {0, 1, 2, 3, 3};
    check_step_twice("twice0", first); /* rising order broken at once */
    check_step_twice("twice3", last);  /* all four threads in before the second record of thread 3 */
}

/* Private (local-space) addresses are per thread: two threads at the same
 * frame offset are two addresses. */
static void test_local_space_per_thread(void) {
    tb t;
    CHECK(tb_open(&t, "local"));
    tb_launch(&t, 0, "priv", 1, 2);
    tb_acc(&t, 0, 0, 0, 0, 0x10, 4, MH_KIND_STORE, MH_SPACE_LOCAL, 1);
    tb_acc(&t, 0, 0, 1, 0, 0x10, 4, MH_KIND_STORE, MH_SPACE_LOCAL, 1);
    tb_acc(&t, 0, 0, 0, 1, 0x10, 4, MH_KIND_LOAD, MH_SPACE_LOCAL, 2);
    tb_end(&t, 0);
    CHECK(tb_close(&t));
    mh_analyze_result res;
    CHECK(mh_analyze_file(t.path, NULL, &res, NULL) == MH_OK);
    if (res.nloc == 1) {
        CHECK_EQ_U(res.loc[0].r.m[MH_SPACE_LOCAL].footprint, 2);
        CHECK_EQ_U(res.loc[0].r.m[MH_SPACE_LOCAL].accesses, 3);
        NEAR(res.loc[0].r.m[MH_SPACE_LOCAL].psl[0], (1.0 + 0.0) / 2);
    } else {
        CHECK(0);
    }
    mh_analyze_free(&res);
    unlink(t.path);
}

/* One step of one block holds every access of the launch, so its parallel
 * spatial locality with d bits dropped is the launch's address entropy with
 * d bits dropped (computed apart, at the kernel end), per space and in
 * total. The offsets make neighbouring addresses first merge at different
 * levels (1 to 10 bits, with gaps), with repeats, in two spaces. */
static void test_psl_levels_match_entropy(void) {
    static const uint32_t goff[] = {0, 0, 1, 2, 3, 8, 8, 8, 40, 44, 64, 200, 512, 516, 1020, 3000, 3000, 3072};
    static const uint32_t soff[] = {0, 4, 4, 12, 64, 128, 132, 1000};
    tb t;
    CHECK(tb_open(&t, "levels"));
    tb_alloc(&t, 0, MH_TRACE_NO_LAUNCH, 0x10000, 4096, MH_SPACE_GLOBAL, "G");
    tb_launch(&t, 0, "levels", 1, 64);
    uint16_t th = 0;
    for (size_t i = 0; i < sizeof goff / sizeof *goff; i++, th++)
        tb_acc(&t, 0, 0, th, 0, 0x10000 + goff[i], 1, MH_KIND_LOAD, MH_SPACE_GLOBAL, 1);
    for (size_t i = 0; i < sizeof soff / sizeof *soff; i++, th++)
        tb_acc(&t, 0, 0, th, 0, soff[i], 4, MH_KIND_STORE, MH_SPACE_SHARED, 2);
    tb_end(&t, 0);
    CHECK(tb_close(&t));
    mh_analyze_result res;
    CHECK(mh_analyze_file(t.path, NULL, &res, NULL) == MH_OK);
    CHECK_EQ_U(res.nloc, 1);
    if (res.nloc == 1) {
        const int cols[] = {MH_SPACE_GLOBAL, MH_SPACE_SHARED, MH_LOC_TOTAL};
        for (int c = 0; c < 3; c++) {
            const mh_loc_metrics *m = &res.loc[0].r.m[cols[c]];
            CHECK_EQ_U(m->psl_steps, 1);
            for (int d = 0; d < MH_LOC_NBITS; d++) NEAR(m->psl[d], m->entropy[d]);
        }
        /* and by hand: the global offsets with 0 and 3 bits dropped */
        const double g0[] = {2, 1, 1, 1, 3, 1, 1, 1, 1, 1, 1, 1, 2, 1}, g3[] = {5, 3, 2, 1, 1, 2, 1, 2, 1};
        NEAR(res.loc[0].r.m[MH_SPACE_GLOBAL].psl[0], H(g0, 14));
        NEAR(res.loc[0].r.m[MH_SPACE_GLOBAL].psl[3], H(g3, 9));
    }
    mh_analyze_free(&res);
    unlink(t.path);
}

/* A trace cut short is analysed up to its last whole chunk. */
static void test_truncated(void) {
    tb t;
    CHECK(tb_open(&t, "trunc"));
    tb_alloc(&t, 0, MH_TRACE_NO_LAUNCH, 0x5000, 1 << 20, MH_SPACE_GLOBAL, "X");
    tb_launch(&t, 0, "sweep", 1, 256);
    for (uint32_t s = 0; s < 400; s++)
        for (uint16_t th = 0; th < 256; th++) tb_acc(&t, 0, 0, th, s, 0x5000 + 4u * th + 1024u * s, 4, 0, 0, 1);
    tb_end(&t, 0);
    CHECK(tb_close(&t));
    FILE *f = fopen(t.path, "r+b");
    CHECK(f != NULL);
    if (f) {
        fseek(f, 0, SEEK_END);
        long n = ftell(f);
        CHECK(ftruncate(fileno(f), n - 100) == 0);
        fclose(f);
    }
    mh_analyze_result res;
    mh_err err = {0};
    int rc = mh_analyze_file(t.path, NULL, &res, &err);
    CHECK(rc == MH_ERR_TRUNCATED);
    CHECK(res.truncated);
    CHECK(res.accesses > 0 && res.accesses < 400u * 256u);
    CHECK_EQ_U(res.nloc, 1); /* the launch never ended: emitted at finish */
    if (res.nloc == 1) CHECK_EQ_U(res.loc[0].r.m[MH_LOC_TOTAL].accesses, res.accesses);
    mh_analyze_free(&res);
    unlink(t.path);
}

MH_TEST_MAIN(T(test_entropy_helper), T(test_small_by_hand), T(test_placement_independent), T(test_uniform_sweep),
             T(test_budget_eviction), T(test_local_space_per_thread), T(test_psl_levels_match_entropy),
             T(test_truncated), T(test_many_distinct), T(test_whole_steps), T(test_step_thread_twice))
