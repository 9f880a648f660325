/* test_fixes.c -- the latency-bound cause judges only what memheat can see:
 * three kernels with the same few warps, the same traced loads and the same
 * 40 us (make_profile latency). A kernel whose FP instructions were not
 * counted is latency-bound; the same with its FP32 work counted at 36 us of
 * the pipes is not (its busiest pipe is near its time); dense math (a
 * CUTLASS GEMM) whose FP work was not counted is not judged at all. A kernel
 * latency-bound in two configurations is one fix: summed, its spread kept. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mh_test.h"
#include "report/fixes.h"
#include "store/store.h"

static const char *make_profile;

static const mh_fix *fix_of(const mh_fixes *fx, const char *kernel, const char *cause) {
    for (size_t i = 0; i < fx->n; i++)
        if (!strcmp(fx->v[i].kernel, kernel) && !strcmp(fx->v[i].cause, cause)) return &fx->v[i];
    return NULL;
}

/* The fixes of make_profile's profile `mode` (made, read, removed). */
static void fixes_of(const char *mode, mh_fixes *fx) {
    char path[64], cmd[1024];
    snprintf(path, sizeof path, "fixes_%s.mhdb", mode);
    remove(path);
    snprintf(cmd, sizeof cmd, "%s %s %s", make_profile, mode, path);
    CHECK(system(cmd) == 0);
    mh_err err = {0};
    mh_db *db;
    memset(fx, 0, sizeof *fx);
    CHECK(mh_db_open(&db, path, 0, &err) == MH_OK);
    json_t *root = NULL;
    CHECK(mh_db_read_summary(db, &root, &err) == MH_OK);
    CHECK(mh_fixes_compute(db, root, fx, &err) == MH_OK);
    json_decref(root);
    mh_db_close(db);
    remove(path);
}

static void test_latency_bound(void) {
    mh_fixes fx;
    fixes_of("latency", &fx);
    const mh_fix *plain = fix_of(&fx, "lat_plain", "latency_bound");
    CHECK(plain != NULL);
    /* one fix for its two configurations: 10 launches of 40 us, all of it but the pipes' few ns */
    CHECK(plain && plain->launches == 10 && plain->configs == 2);
    CHECK(plain && plain->saving_ns > 399000 && plain->saving_ns <= 400000 && plain->base_ns == 400000);
    CHECK(plain && plain->cost_min == 8 && plain->cost_max == 16); /* warps resident per SM */
    CHECK(plain && strstr(plain->model, "2 configurations") == plain->model);
    size_t n = 0;
    for (size_t i = 0; i < fx.n; i++) n += !strcmp(fx.v[i].kernel, "lat_plain");
    CHECK_EQ_U(n, 1);
    CHECK(fix_of(&fx, "lat_fp", "latency_bound") == NULL);
    CHECK(fix_of(&fx, "cutlass_sgemm_nn", "latency_bound") == NULL);
    mh_fixes_free(&fx);
}

/* A loop of six kernels whose names add up to far more than 1 KB is one
 * launch-bound chain naming all six, whole (their names were cut at 1 KB:
 * the last name of the chain then matched no kernel). */
static void test_chain_names(void) {
    mh_fixes fx;
    fixes_of("chain", &fx);
    size_t chains = 0;
    for (size_t i = 0; i < fx.n; i++) {
        const mh_fix *r = &fx.v[i];
        if (strcmp(r->cause, "launch_chain")) continue;
        chains++;
        CHECK_EQ_U(r->configs, 6);
        CHECK(r->kernels && strlen(r->kernels) == 6 * 300 + 5 * 3);
        for (int k = 0; k < 6 && r->kernels; k++) {
            char head[16];
            snprintf(head, sizeof head, "chain_k%d", k);
            CHECK(strstr(r->kernels, head) != NULL);
        }
    }
    CHECK_EQ_U(chains, 1);
    mh_fixes_free(&fx);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: test_report_fixes MAKE_PROFILE\n");
        return 2;
    }
    make_profile = argv[1];
    static const mh_test_case cases[] = {T(test_latency_bound), T(test_chain_names)};
    return mh_test_run(cases, sizeof cases / sizeof cases[0]);
}
