/* test_collect.c -- the shared sampling configuration: block parsing, the
 * environment round trip, launch selection (regex, skip, count) and block lists. */
#include <string.h>

#include "../mh_test.h"
#include "memheat/collect.h"

static void test_parse_block(void) {
    mh_dim3 d;
    int is3d = -1;
    CHECK(mh_collect_parse_block("7", &d, &is3d, NULL) == MH_OK);
    CHECK(d.x == 7 && !is3d);
    CHECK(mh_collect_parse_block("1,2,3", &d, &is3d, NULL) == MH_OK);
    CHECK(d.x == 1 && d.y == 2 && d.z == 3 && is3d);
    mh_err err = {0};
    CHECK(mh_collect_parse_block("1,2", &d, &is3d, &err) == MH_ERR_ARG);
    CHECK(strstr(err.msg, "1,2") != NULL);
    CHECK(mh_collect_parse_block("-1", &d, &is3d, NULL) == MH_ERR_ARG);
    CHECK(mh_collect_parse_block("1,,2", &d, &is3d, NULL) == MH_ERR_ARG);
    CHECK(mh_collect_parse_block("1,2,3,", &d, &is3d, NULL) == MH_ERR_ARG);
    CHECK(mh_collect_parse_block("99999999999", &d, &is3d, NULL) == MH_ERR_ARG);
    CHECK(mh_collect_parse_block("", &d, &is3d, NULL) == MH_ERR_ARG);
}

static void test_env_roundtrip(void) {
    mh_collect_cfg a, b;
    mh_collect_cfg_init(&a);
    snprintf(a.trace_path, sizeof a.trace_path, "/tmp/x.mht");
    a.block = (mh_dim3){2, 1, 0};
    a.block_3d = 1;
    a.nblocks = 4;
    a.launch_skip = 3;
    a.launch_count = 2;
    a.warp_size = 16;
    snprintf(a.kernel_regex, sizeof a.kernel_regex, "gemm|spmv");
    CHECK(mh_collect_cfg_finish(&a, NULL) == MH_OK);
    CHECK(mh_collect_cfg_to_env(&a, NULL) == MH_OK);
    CHECK(mh_collect_cfg_from_env(&b, NULL) == MH_OK);
    CHECK(!strcmp(b.trace_path, "/tmp/x.mht"));
    CHECK(b.block.x == 2 && b.block.y == 1 && b.block_3d && b.nblocks == 4);
    CHECK(b.launch_skip == 3 && b.launch_count == 2 && b.warp_size == 16 && b.have_regex);
    CHECK(!b.trace_collectives);
    mh_collect_cfg_free(&b);
    a.trace_collectives = 1;
    CHECK(mh_collect_cfg_to_env(&a, NULL) == MH_OK);
    CHECK(mh_collect_cfg_from_env(&b, NULL) == MH_OK);
    CHECK(b.trace_collectives);
    mh_collect_cfg_free(&a);
    mh_collect_cfg_free(&b);
    setenv("MEMHEAT_BLOCKS", "zero", 1);
    mh_err err = {0};
    CHECK(mh_collect_cfg_from_env(&b, &err) == MH_ERR_ARG);
    CHECK(strstr(err.msg, "MEMHEAT_BLOCKS") != NULL);
    unsetenv("MEMHEAT_BLOCKS");
}

/* A launch of `name` with a 1-D grid of g blocks of 128 threads. */
static mh_collect_launch L(const char *name, const char *display, uint32_t g) {
    return (mh_collect_launch){name, display, {g, 1, 1}, {128, 1, 1}, 0};
}

static void test_want_launch(void) {
    mh_collect_cfg c;
    mh_collect_cfg_init(&c);
    c.launch_policy = MH_LAUNCH_ALL;
    snprintf(c.kernel_regex, sizeof c.kernel_regex, "^gemm");
    c.launch_skip = 1;
    c.launch_count = 2;
    CHECK(mh_collect_cfg_finish(&c, NULL) == MH_OK);
    mh_collect_state st = {0};
    mh_collect_launch a = L("_Z4gemmv", "gemm()", 4), b = L("_Z4axpyv", "axpy()", 4);
    mh_collect_launch g2 = L("gemm_v2", NULL, 4), g3 = L("gemm_v3", NULL, 4);
    CHECK(!mh_collect_want_launch(&c, &st, &a));  /* matched, skipped */
    CHECK(!mh_collect_want_launch(&c, &st, &b));  /* no match */
    CHECK(mh_collect_want_launch(&c, &st, &a));   /* demangled name matches */
    CHECK(mh_collect_want_launch(&c, &st, &g2));  /* mangled name matches */
    CHECK(!mh_collect_want_launch(&c, &st, &g3)); /* count reached */
    CHECK(!mh_collect_more_possible(&c, &st));
    CHECK_EQ_U(st.traced, 2);
    CHECK_EQ_U(st.launches, 5);
    CHECK_EQ_U(st.nconfigs, 4); /* gemm, axpy, gemm_v2, gemm_v3 */
    mh_collect_state_free(&st);
    mh_collect_cfg_free(&c);
    mh_err err = {0};
    mh_collect_cfg_init(&c);
    snprintf(c.kernel_regex, sizeof c.kernel_regex, "([");
    CHECK(mh_collect_cfg_finish(&c, &err) == MH_ERR_ARG);
}

/* Default policy: the first launch of each (name, grid, block, dynamic shared
 * memory) is traced, every launch counted per configuration. */
static void test_policy_config(void) {
    mh_collect_cfg c;
    mh_collect_cfg_init(&c);
    CHECK(c.launch_policy == MH_LAUNCH_CONFIG);
    CHECK(mh_collect_cfg_finish(&c, NULL) == MH_OK);
    mh_collect_state st = {0};
    mh_collect_launch k4 = L("k", NULL, 4), k8 = L("k", NULL, 8), j4 = L("j", NULL, 4);
    mh_collect_launch k4s = k4;
    k4s.dyn_smem = 1024;
    int traced = 0;
    for (int i = 0; i < 100; i++) {
        traced += mh_collect_want_launch(&c, &st, &k4);
        traced += mh_collect_want_launch(&c, &st, &k8);
        traced += mh_collect_want_launch(&c, &st, &j4);
        traced += mh_collect_want_launch(&c, &st, &k4s);
    }
    CHECK_EQ_U(traced, 4);
    CHECK_EQ_U(st.launches, 400);
    CHECK_EQ_U(st.nconfigs, 4);
    uint64_t sum = 0, tr = 0;
    for (size_t i = 0; i < st.capconfigs; i++)
        if (st.configs[i].name) {
            CHECK_EQ_U(st.configs[i].launches, 100);
            CHECK_EQ_U(st.configs[i].traced, 1);
            sum += st.configs[i].launches;
            tr += st.configs[i].traced;
        }
    CHECK_EQ_U(sum, 400);
    CHECK_EQ_U(tr, 4);
    /* a launch the collector could not trace after all: the next one of its configuration is taken */
    mh_collect_launch n = L("new", NULL, 2);
    CHECK(mh_collect_want_launch(&c, &st, &n));
    mh_collect_unselect(&c, &st, &n);
    CHECK(mh_collect_want_launch(&c, &st, &n));
    CHECK(!mh_collect_want_launch(&c, &st, &n));
    /* many configurations: the table grows and keeps every count */
    char name[32];
    for (int i = 0; i < 1000; i++) {
        snprintf(name, sizeof name, "k%d", i % 500);
        mh_collect_launch x = L(name, NULL, 1);
        CHECK(mh_collect_want_launch(&c, &st, &x) == (i < 500));
    }
    CHECK_EQ_U(st.nconfigs, 505);
    mh_collect_state_free(&st);
    mh_collect_cfg_free(&c);
}

/* At most configs_per_kernel configurations of one kernel are traced (a
 * split size tuned at run time gives a new grid in every round); other
 * kernels keep their own quota; config:0 lifts the limit; the limit travels
 * through the environment. */
static void test_policy_config_cap(void) {
    mh_collect_cfg c;
    mh_collect_cfg_init(&c);
    CHECK(mh_collect_cfg_finish(&c, NULL) == MH_OK);
    CHECK_EQ_U(c.configs_per_kernel, MH_COLLECT_CONFIGS_PER_KERNEL);
    char buf[32];
    CHECK(!strcmp(mh_collect_policy_text(&c, buf, sizeof buf), "config"));
    mh_collect_state st = {0};
    int traced = 0, other = 0;
    for (int round = 0; round < 3; round++)
        for (uint32_t g = 1; g <= 10; g++) {
            mh_collect_launch k = L("vecadd", NULL, g), j = L("scale", NULL, g);
            int tk = mh_collect_want_launch(&c, &st, &k);
            /* the first four grids of vecadd, in their first round only */
            CHECK(tk == (round == 0 && g <= MH_COLLECT_CONFIGS_PER_KERNEL));
            traced += tk;
            if (g <= 2) other += mh_collect_want_launch(&c, &st, &j);
        }
    CHECK_EQ_U(traced, MH_COLLECT_CONFIGS_PER_KERNEL);
    CHECK_EQ_U(other, 2);        /* scale has its own quota */
    CHECK_EQ_U(st.launches, 36); /* every launch counted, capped ones too */
    CHECK_EQ_U(st.nconfigs, 12);
    mh_collect_state_free(&st);

    CHECK(mh_collect_parse_policy("config:2", &c, NULL) == MH_OK);
    CHECK(!strcmp(mh_collect_policy_text(&c, buf, sizeof buf), "config:2"));
    CHECK(mh_collect_cfg_to_env(&c, NULL) == MH_OK);
    mh_collect_cfg d;
    CHECK(mh_collect_cfg_from_env(&d, NULL) == MH_OK);
    CHECK(d.launch_policy == MH_LAUNCH_CONFIG && d.configs_per_kernel == 2);
    mh_collect_state sd = {0};
    traced = 0;
    for (uint32_t g = 1; g <= 5; g++) {
        mh_collect_launch k = L("vecadd", NULL, g);
        traced += mh_collect_want_launch(&d, &sd, &k);
    }
    CHECK_EQ_U(traced, 2);
    mh_collect_state_free(&sd);
    mh_collect_cfg_free(&d);

    CHECK(mh_collect_parse_policy("config:0", &c, NULL) == MH_OK);
    CHECK_EQ_U(c.configs_per_kernel, 0);
    traced = 0;
    for (uint32_t g = 1; g <= 50; g++) {
        mh_collect_launch k = L("vecadd", NULL, g);
        traced += mh_collect_want_launch(&c, &st, &k);
    }
    CHECK_EQ_U(traced, 50);
    CHECK(mh_collect_parse_policy("config:x", &c, NULL) == MH_ERR_ARG);
    CHECK(mh_collect_parse_policy("config:", &c, NULL) == MH_ERR_ARG);
    unsetenv("MEMHEAT_LAUNCH_POLICY");
    mh_collect_state_free(&st);
    mh_collect_cfg_free(&c);
}

/* "shape": a new grid of a traced (kernel, block, dynamic shared memory) is
 * counted, not traced (a sequence length new every step); a new block or
 * shared-memory size is a new shape, still under the per-kernel quota; the
 * policy travels through the environment. */
static void test_policy_shape(void) {
    mh_collect_cfg c;
    mh_collect_cfg_init(&c);
    CHECK(mh_collect_parse_policy("shape", &c, NULL) == MH_OK);
    CHECK(mh_collect_cfg_finish(&c, NULL) == MH_OK);
    char buf[32];
    CHECK(!strcmp(mh_collect_policy_text(&c, buf, sizeof buf), "shape"));
    mh_collect_state st = {0};
    int traced = 0;
    for (uint32_t g = 1; g <= 30; g++) {
        mh_collect_launch k = L("softmax", NULL, g);
        int t = mh_collect_want_launch(&c, &st, &k);
        CHECK(t == (g == 1));
        traced += t;
    }
    mh_collect_launch wide = {"softmax", NULL, {7, 1, 1}, {256, 1, 1}, 0};
    mh_collect_launch smem = {"softmax", NULL, {7, 1, 1}, {128, 1, 1}, 4096};
    mh_collect_launch other = L("gelu", NULL, 9);
    CHECK(mh_collect_want_launch(&c, &st, &wide) == 1);  /* another block size */
    CHECK(mh_collect_want_launch(&c, &st, &smem) == 1);  /* another shared-memory size */
    CHECK(mh_collect_want_launch(&c, &st, &wide) == 0);  /* that configuration again */
    CHECK(mh_collect_want_launch(&c, &st, &other) == 1); /* another kernel */
    CHECK_EQ_U(traced, 1);
    CHECK_EQ_U(st.launches, 34);
    CHECK_EQ_U(st.nconfigs, 33); /* every grid still counted on its own */
    mh_collect_state_free(&st);

    /* the per-kernel quota still holds among shapes; the text round-trips */
    CHECK(mh_collect_parse_policy("shape:2", &c, NULL) == MH_OK);
    CHECK(!strcmp(mh_collect_policy_text(&c, buf, sizeof buf), "shape:2"));
    CHECK(mh_collect_cfg_to_env(&c, NULL) == MH_OK);
    mh_collect_cfg d;
    CHECK(mh_collect_cfg_from_env(&d, NULL) == MH_OK);
    CHECK(d.launch_policy == MH_LAUNCH_SHAPE && d.configs_per_kernel == 2);
    traced = 0;
    for (uint32_t b = 32; b <= 256; b *= 2) {
        mh_collect_launch k = {"scan", NULL, {4, 1, 1}, {b, 1, 1}, 0};
        traced += mh_collect_want_launch(&d, &st, &k);
    }
    CHECK_EQ_U(traced, 2);
    CHECK(mh_collect_parse_policy("shape:", &c, NULL) == MH_ERR_ARG);
    unsetenv("MEMHEAT_LAUNCH_POLICY");
    mh_collect_state_free(&st);
    mh_collect_cfg_free(&d);
    mh_collect_cfg_free(&c);
}

/* NCCL kernels are counted, never traced, unless asked for; other kernels
 * are not affected. */
static void test_collectives(void) {
    mh_collect_cfg c;
    mh_collect_cfg_init(&c);
    c.launch_policy = MH_LAUNCH_ALL;
    CHECK(mh_collect_cfg_finish(&c, NULL) == MH_OK);
    mh_collect_state st = {0};
    mh_collect_launch ar = L("_Z29ncclDevKernel_AllReduce_Sum_f32P14ncclDevKernelArgs", NULL, 4);
    mh_collect_launch old = L("ncclKernel_AllReduce_RING_LL_Sum_float", NULL, 4), k = L("k", NULL, 4);
    CHECK(mh_collect_is_collective(ar.name) && mh_collect_is_collective(old.name) && !mh_collect_is_collective("k"));
    CHECK(!mh_collect_want_launch(&c, &st, &ar));
    CHECK(!mh_collect_want_launch(&c, &st, &old));
    CHECK(mh_collect_want_launch(&c, &st, &k));
    CHECK_EQ_U(st.launches, 3);
    CHECK_EQ_U(st.traced, 1);
    c.trace_collectives = 1;
    CHECK(mh_collect_want_launch(&c, &st, &ar));
    mh_collect_state_free(&st);
    mh_collect_cfg_free(&c);
}

static void test_policy_every(void) {
    mh_collect_cfg c;
    mh_collect_cfg_init(&c);
    mh_err err = {0};
    CHECK(mh_collect_parse_policy("every:3", &c, NULL) == MH_OK);
    CHECK(c.launch_policy == MH_LAUNCH_EVERY && c.launch_every == 3);
    char buf[32];
    CHECK(!strcmp(mh_collect_policy_text(&c, buf, sizeof buf), "every:3"));
    CHECK(mh_collect_parse_policy("every:0", &c, &err) == MH_ERR_ARG);
    CHECK(strstr(err.msg, "every:0") != NULL);
    CHECK(mh_collect_parse_policy("some", &c, NULL) == MH_ERR_ARG);
    CHECK(mh_collect_parse_policy("all", &c, NULL) == MH_OK && c.launch_policy == MH_LAUNCH_ALL);
    CHECK(mh_collect_parse_policy("every:2", &c, NULL) == MH_OK);
    c.launch_skip = 1;
    CHECK(mh_collect_cfg_finish(&c, NULL) == MH_OK);
    mh_collect_state st = {0};
    mh_collect_launch k = L("k", NULL, 4);
    int got[7];
    for (int i = 0; i < 7; i++) got[i] = mh_collect_want_launch(&c, &st, &k);
    /* skip 1, then every second of the rest: launches 1, 3, 5 */
    CHECK(!got[0] && got[1] && !got[2] && got[3] && !got[4] && got[5] && !got[6]);
    /* the policy travels through the environment */
    CHECK(mh_collect_cfg_to_env(&c, NULL) == MH_OK);
    mh_collect_cfg d;
    CHECK(mh_collect_cfg_from_env(&d, NULL) == MH_OK);
    CHECK(d.launch_policy == MH_LAUNCH_EVERY && d.launch_every == 2);
    setenv("MEMHEAT_LAUNCH_POLICY", "sometimes", 1);
    CHECK(mh_collect_cfg_from_env(&d, &err) == MH_ERR_ARG);
    unsetenv("MEMHEAT_LAUNCH_POLICY");
    mh_collect_cfg_free(&d);
    mh_collect_state_free(&st);
    mh_collect_cfg_free(&c);
}

static void test_blocks(void) {
    mh_collect_cfg c;
    mh_collect_cfg_init(&c);
    mh_dim3 grid = {4, 3, 1};
    uint32_t ids[16];
    CHECK_EQ_U(mh_collect_sampled_list(&c, grid, ids, 16), 1);
    CHECK_EQ_U(ids[0], 0);
    c.block = (mh_dim3){1, 2, 0};
    c.block_3d = 1;
    c.nblocks = 3;
    CHECK_EQ_U(mh_collect_first_block(&c, grid), 9);
    CHECK_EQ_U(mh_collect_sampled_list(&c, grid, ids, 16), 3); /* 9, 10, 11 */
    CHECK(ids[2] == 11 && mh_collect_block_sampled(&c, grid, 10) && !mh_collect_block_sampled(&c, grid, 8));
    c.block = (mh_dim3){11, 0, 0};
    c.block_3d = 0;
    CHECK_EQ_U(mh_collect_sampled_list(&c, grid, ids, 16), 1); /* clipped at the grid's end */
    c.block = (mh_dim3){500, 0, 0};
    CHECK_EQ_U(mh_collect_first_block(&c, grid), 11);
    c.all_blocks = 1;
    CHECK_EQ_U(mh_collect_sampled_list(&c, grid, ids, 16), MH_TRACE_ALL_BLOCKS);
    CHECK(mh_collect_block_sampled(&c, grid, 5));
}

MH_TEST_MAIN(T(test_parse_block), T(test_env_roundtrip), T(test_want_launch), T(test_policy_config), T(test_policy_config_cap), T(test_policy_shape),
             T(test_policy_every), T(test_blocks), T(test_collectives))
