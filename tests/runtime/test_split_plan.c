/* test_split_plan.c -- split boundaries, remainders, budget arithmetic and
 * argument validation of mh_split_ (src/runtime/split_plan.c). */
#include <stdint.h>
#include <string.h>

#include "../mh_test.h"
#include "split_internal.h"

static int dummy_kernel(const mh_split_launch *l, void *u, mh_err *e) {
    (void)l, (void)u, (void)e;
    return 0;
}

static void test_bounds(void) {
    /* 10 iterations in splits of 4: [0,4) [4,8) [8,10) */
    size_t b, e;
    CHECK_EQ_U(mh_split_count(10, 4), 3);
    mh_split_bounds(10, 4, 0, &b, &e);
    CHECK_EQ_U(b, 0);
    CHECK_EQ_U(e, 4);
    mh_split_bounds(10, 4, 2, &b, &e);
    CHECK_EQ_U(b, 8);
    CHECK_EQ_U(e, 10);
    CHECK_EQ_U(mh_split_count(12, 4), 3);
    mh_split_bounds(12, 4, 2, &b, &e);
    CHECK_EQ_U(e, 12);
    CHECK_EQ_U(mh_split_count(3, 8), 1); /* split larger than the loop */
    mh_split_bounds(3, 8, 0, &b, &e);
    CHECK_EQ_U(b, 0);
    CHECK_EQ_U(e, 3);
    CHECK_EQ_U(mh_split_count(7, 0), 0);
    /* every iteration in exactly one split, for many shapes */
    for (size_t n = 1; n < 60; n++)
        for (size_t s = 1; s < 20; s++) {
            size_t next = 0, k, cnt = mh_split_count(n, s);
            for (k = 0; k < cnt; k++) {
                mh_split_bounds(n, s, k, &b, &e);
                CHECK(b == next && e > b && e - b <= s);
                next = e;
            }
            CHECK(next == n);
        }
    /* near SIZE_MAX: no overflow in the last split's end */
    size_t big = SIZE_MAX - 5;
    mh_split_bounds(big, SIZE_MAX / 2, 1, &b, &e);
    CHECK(b == SIZE_MAX / 2 && e == big);
}

static void test_budget(void) {
    size_t it = 0;
    mh_err err;
    /* 1000 bytes, 100 fused, 3 slots, 12 bytes/iter: (1000-100)/3/12 = 25 */
    CHECK(mh_split_budget_iters(1000, 0, 100, 12, 3, &it, &err) == MH_OK);
    CHECK_EQ_U(it, 25);
    CHECK(mh_split_device_bytes(100, 12, 3, 25) <= 1000);
    CHECK(mh_split_device_bytes(100, 12, 3, 26) > 1000);
    /* reserve counts against the budget */
    CHECK(mh_split_budget_iters(1000, 300, 100, 12, 3, &it, &err) == MH_OK);
    CHECK_EQ_U(it, 16);
    /* fused alone too large */
    CHECK(mh_split_budget_iters(1000, 0, 1001, 12, 3, &it, &err) == MH_ERR_NOMEM);
    CHECK(strstr(err.msg, "fused") != NULL);
    /* not one iteration per slot */
    CHECK(mh_split_budget_iters(130, 0, 100, 12, 3, &it, &err) == MH_ERR_NOMEM);
    CHECK(mh_split_budget_iters(136, 0, 100, 12, 3, &it, &err) == MH_OK);
    CHECK_EQ_U(it, 1);
    /* nothing splittable: unbounded */
    CHECK(mh_split_budget_iters(1000, 0, 100, 0, 3, &it, &err) == MH_OK);
    CHECK(it == SIZE_MAX);
    /* staging */
    CHECK_EQ_U(mh_split_staging_iters(1 << 20, 0, 3), SIZE_MAX);
    CHECK_EQ_U(mh_split_staging_iters(1200, 4, 3), 100);
    CHECK_EQ_U(mh_split_staging_iters(10, 4, 3), 1);
    /* tuned upper bound: at least 32 splits per device, under budget & staging */
    CHECK_EQ_U(mh_split_tune_hi(3200, 1, 1000, 1000), 100);
    CHECK_EQ_U(mh_split_tune_hi(3200, 2, 1000, 1000), 50);
    CHECK_EQ_U(mh_split_tune_hi(3201, 1, 1000, 1000), 101);
    CHECK_EQ_U(mh_split_tune_hi(3200, 1, 40, 1000), 40);
    CHECK_EQ_U(mh_split_tune_hi(3200, 1, 1000, 30), 30);
    CHECK_EQ_U(mh_split_tune_hi(5, 1, 1000, 1000), 1);
}

static void test_taper(void) {
    /* plenty left: unchanged */
    CHECK_EQ_U(mh_split_taper(10000, 100, 10, 3, 1), 100);
    CHECK_EQ_U(mh_split_taper(300, 100, 10, 3, 1), 100);
    /* fewer than 3 splits of 100 left: 299/3+1 = 100, 150/3+1 = 51 */
    CHECK_EQ_U(mh_split_taper(150, 100, 10, 3, 1), 51);
    CHECK_EQ_U(mh_split_taper(20, 100, 10, 3, 1), 10); /* not below lo */
    CHECK_EQ_U(mh_split_taper(150, 100, 10, 3, 2), 26);
    /* dealing with taper covers the loop and ends in small splits */
    size_t left = 1000, last = 0, k = 0;
    while (left) {
        size_t t = mh_split_taper(left, 100, 4, 3, 1);
        t = t < left ? t : left;
        CHECK(t >= 1 && t <= 100);
        left -= t;
        last = t;
        k++;
    }
    CHECK(last <= 4 && k < 40);
}

static void test_validate(void) {
    float a[4], c[4];
    mh_split_buf bufs[2] = {{a, 4, MH_SPLIT_IN}, {c, 4, MH_SPLIT_OUT}};
    mh_split_loop L = {4, bufs, 2, NULL, 0, dummy_kernel, NULL};
    mh_split_opts o;
    mh_err err;
    mh_split_opts_init(&o);
    CHECK(mh_split_validate(&L, &o, &err) == MH_OK);
    CHECK(mh_split_iter_bytes(&L) == 8);
    L.kernel = NULL;
    CHECK(mh_split_validate(&L, &o, &err) == MH_ERR_ARG);
    L.kernel = dummy_kernel;
    bufs[1].dir = 4;
    CHECK(mh_split_validate(&L, &o, &err) == MH_ERR_ARG);
    CHECK(strstr(err.msg, "buffer 1") != NULL);
    bufs[1].dir = MH_SPLIT_OUT;
    bufs[0].bytes_per_iter = 0;
    CHECK(mh_split_validate(&L, &o, &err) == MH_ERR_ARG);
    bufs[0].bytes_per_iter = SIZE_MAX / 2;
    CHECK(mh_split_validate(&L, &o, &err) == MH_ERR_ARG); /* 4 x SIZE_MAX/2 overflows */
    bufs[0].bytes_per_iter = 4;
    o.nstreams = 1;
    CHECK(mh_split_validate(&L, &o, &err) == MH_ERR_ARG);
    o.nstreams = 2;
    CHECK(mh_split_validate(&L, &o, &err) == MH_OK);
    o.n_devices = 2;
    CHECK(mh_split_validate(&L, &o, &err) == MH_ERR_ARG); /* devices NULL */
    o.n_devices = 0;
    mh_split_fused fz = {NULL, 8};
    L.fused = &fz;
    L.n_fused = 1;
    CHECK(mh_split_validate(&L, &o, &err) == MH_ERR_ARG);
    CHECK(mh_split_validate(NULL, &o, &err) == MH_ERR_ARG);
}

MH_TEST_MAIN(T(test_bounds), T(test_budget), T(test_taper), T(test_validate))
