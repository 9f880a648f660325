/* test_split_tune.c -- tuning decisions on recorded stage times, and the
 * speedup model (src/runtime/split_tune.c). */
#include "../mh_test.h"
#include "split_internal.h"

static void test_model(void) {
    /* The seed's table (percent of base time): scalar product, Monte Carlo,
     * Black-Scholes; ideal speedups reported there 1.91579, 1.54489, 2.14373. */
    CHECK_NEAR(mh_split_ideal_speedup(0, 52.19789, 0.22676, 47.57535), 1.91579, 1e-4);
    CHECK_NEAR(mh_split_ideal_speedup(0, 21.55109, 13.71958, 64.72933), 1.54489, 1e-4);
    CHECK_NEAR(mh_split_ideal_speedup(0, 46.64777, 41.9736, 11.37863), 2.14373, 1e-4);
    CHECK_NEAR(mh_split_ideal_speedup(0, 1, 1, 1), 3.0, 1e-12);
    CHECK_NEAR(mh_split_ideal_speedup(2, 1, 1, 1), 5.0 / 3.0, 1e-12); /* fused copy is not hidden */
    CHECK_NEAR(mh_split_ideal_speedup(0, 0, 0, 0), 1.0, 1e-12);
}

static void test_classify(void) {
    CHECK(mh_split_classify(1.0, 0.5, 0.1) == MH_SPLIT_COPY_BOUND);
    CHECK(mh_split_classify(0.2, 1.0, 0.5) == MH_SPLIT_COPY_BOUND); /* copy-out dominates */
    CHECK(mh_split_classify(1.0, 0.5, 3.0) == MH_SPLIT_COMPUTE_BOUND);
    CHECK(mh_split_classify(1.0, 0.5, 1.0) == MH_SPLIT_BALANCED);
    CHECK(mh_split_classify(1.0, 0.5, 0.8) == MH_SPLIT_BALANCED);  /* edge: 0.8 x copy */
    CHECK(mh_split_classify(1.0, 0.5, 1.25) == MH_SPLIT_BALANCED); /* edge: 1.25 x copy */
    CHECK(mh_split_classify(1.0, 0.5, 1.26) == MH_SPLIT_COMPUTE_BOUND);
}

static void test_candidates(void) {
    size_t c[MH_SPLIT_MAX_CANDIDATES];
    int n = mh_split_candidates(MH_SPLIT_COPY_BOUND, 100, 8000, 1000, c, MH_SPLIT_MAX_CANDIDATES);
    CHECK(n == 3 && c[0] == 2000 && c[1] == 4000 && c[2] == 8000);
    n = mh_split_candidates(MH_SPLIT_COMPUTE_BOUND, 100, 8000, 1000, c, MH_SPLIT_MAX_CANDIDATES);
    CHECK(n == 4 && c[0] == 250 && c[1] == 500 && c[2] == 1000 && c[3] == 2000);
    /* clamped to [lo, hi] and deduplicated */
    n = mh_split_candidates(MH_SPLIT_COMPUTE_BOUND, 400, 600, 1000, c, MH_SPLIT_MAX_CANDIDATES);
    CHECK(n == 3 && c[0] == 400 && c[1] == 500 && c[2] == 600);
    n = mh_split_candidates(MH_SPLIT_COPY_BOUND, 50, 50, 1000, c, MH_SPLIT_MAX_CANDIDATES);
    CHECK(n == 1 && c[0] == 50);
    /* balanced: x2 ladder from wave/4 to hi */
    n = mh_split_candidates(MH_SPLIT_BALANCED, 1, 4000, 1000, c, MH_SPLIT_MAX_CANDIDATES);
    CHECK(n == 5 && c[0] == 250 && c[1] == 500 && c[2] == 1000 && c[3] == 2000 && c[4] == 4000);
    /* long ladder thinned to max, both ends kept, ascending */
    n = mh_split_candidates(MH_SPLIT_BALANCED, 1, 1u << 20, 4, c, 4);
    CHECK(n == 4 && c[0] == 1 && c[3] == (1u << 20));
    for (int i = 1; i < n; i++) CHECK(c[i] > c[i - 1]);
}

static void test_trials_and_pick(void) {
    size_t c[3] = {100, 200, 400};
    /* 6 splits per trial: 600+1200+2400 = 4200 iterations; 3/4 of n=10000 fits all */
    CHECK(mh_split_fit_trials(c, 3, 10000, 1, 6) == 3);
    CHECK(mh_split_fit_trials(c, 3, 5600, 1, 6) == 3);  /* 4200 = 3/4 x 5600 */
    /* n=5000 -> 3750 allowed: drop 400 (4200 -> 1800) */
    CHECK(mh_split_fit_trials(c, 3, 5000, 1, 6) == 2);
    /* two devices halve the per-device share */
    CHECK(mh_split_fit_trials(c, 3, 10000, 2, 6) == 2);
    CHECK(mh_split_fit_trials(c, 3, 100, 1, 6) == 0);

    double r1[4] = {5e6, 9e6, 7e6, 9e6};
    CHECK(mh_split_pick_best(r1, 4) == 1); /* first of the ties */
    double r2[2] = {0, 0};
    CHECK(mh_split_pick_best(r2, 2) == -1);
    CHECK(mh_split_pick_best(r1, 0) == -1);
    /* recorded trial: the copy-bound loop got faster with larger splits */
    size_t cand[3] = {1000, 2000, 4000};
    double rate[3] = {1.0e9 * 0.70, 1.0e9 * 0.85, 1.0e9 * 0.92};
    CHECK(cand[mh_split_pick_best(rate, 3)] == 4000);

    /* pick by predicted time: equal rates -> the smaller split (less drain) */
    double flat[3] = {1e9, 1e9, 1e9};
    CHECK(mh_split_pick(cand, flat, 3, 100000000, 1e-9) == 0);
    /* no drain cost -> the best rate */
    CHECK(mh_split_pick(cand, rate, 3, 100000000, 0) == 2);
    /* large drain cost outweighs a slightly better rate: 1e8/0.92e9 + 4000*1e-4
     * = 0.5087 vs 1e8/0.85e9 + 2000*1e-4 = 0.3176 vs 1e8/0.7e9 + 0.1 = 0.2429 */
    CHECK(mh_split_pick(cand, rate, 3, 100000000, 1e-4) == 0);
    CHECK(mh_split_pick(cand, r2, 2, 10, 0) == -1);
    /* overhead: 1e6 iterations tuned in 2.5 ms, best rate 5e8/s -> 2 ms needed */
    CHECK_NEAR(mh_split_tune_overhead(2.5e-3, 1000000, 5e8), 0.5e-3, 1e-12);
    CHECK_NEAR(mh_split_tune_overhead(1.0e-3, 1000000, 5e8), 0.0, 1e-12);
    CHECK_NEAR(mh_split_tune_overhead(1.0e-3, 10, 0), 1.0e-3, 1e-12);
}

MH_TEST_MAIN(T(test_model), T(test_classify), T(test_candidates), T(test_trials_and_pick))
