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
    mh_collect_cfg_free(&a);
    mh_collect_cfg_free(&b);
    setenv("MEMHEAT_BLOCKS", "zero", 1);
    mh_err err = {0};
    CHECK(mh_collect_cfg_from_env(&b, &err) == MH_ERR_ARG);
    CHECK(strstr(err.msg, "MEMHEAT_BLOCKS") != NULL);
    unsetenv("MEMHEAT_BLOCKS");
}

static void test_want_launch(void) {
    mh_collect_cfg c;
    mh_collect_cfg_init(&c);
    snprintf(c.kernel_regex, sizeof c.kernel_regex, "^gemm");
    c.launch_skip = 1;
    c.launch_count = 2;
    CHECK(mh_collect_cfg_finish(&c, NULL) == MH_OK);
    mh_collect_state st = {0};
    CHECK(!mh_collect_want_launch(&c, &st, "_Z4gemmv", "gemm()")); /* matched, skipped */
    CHECK(!mh_collect_want_launch(&c, &st, "_Z4axpyv", "axpy()")); /* no match */
    CHECK(mh_collect_want_launch(&c, &st, "_Z4gemmv", "gemm()"));  /* demangled name matches */
    CHECK(mh_collect_want_launch(&c, &st, "gemm_v2", NULL));       /* mangled name matches */
    CHECK(!mh_collect_want_launch(&c, &st, "gemm_v3", NULL));      /* count reached */
    CHECK_EQ_U(st.traced, 2);
    mh_collect_cfg_free(&c);
    mh_err err = {0};
    mh_collect_cfg_init(&c);
    snprintf(c.kernel_regex, sizeof c.kernel_regex, "([");
    CHECK(mh_collect_cfg_finish(&c, &err) == MH_ERR_ARG);
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

MH_TEST_MAIN(T(test_parse_block), T(test_env_roundtrip), T(test_want_launch), T(test_blocks))
