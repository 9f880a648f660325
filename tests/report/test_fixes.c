/* test_fixes.c -- the latency-bound cause judges only what memheat can see:
 * three kernels with the same few warps, the same traced loads and the same
 * 40 us (make_profile latency). A kernel whose FP instructions were not
 * counted is latency-bound; the same with its FP32 work counted at 36 us of
 * the pipes is not (its busiest pipe is near its time); dense math (a
 * CUTLASS GEMM) whose FP work was not counted is not judged at all. A kernel
 * latency-bound in two configurations is one fix: summed, its spread kept.
 * Library kernels the advice table names (make_profile advice): the FP32
 * GEMMs are one fix, saving their untraced time times the share the table's
 * pair saved, the TF32 GEMM none; in a PyTorch program the PyTorch entry
 * speaks, and a foreach kernel is a fix of the fused optimizer's entry, its
 * small grid told the same. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mh_test.h"
#include "report/advice.h"
#include "report/fixes.h"
#include "store/store.h"
#include "util/kname.h"

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

static const mh_advice *entry(const mh_advice_table *t, const char *family) {
    for (size_t i = 0; i < t->n; i++)
        if (!strcmp(t->v[i].family, family)) return &t->v[i];
    return NULL;
}

static const mh_fix *library_fix(const mh_fixes *fx, const mh_advice *a, size_t *n) {
    const mh_fix *f = NULL;
    *n = 0;
    for (size_t i = 0; i < fx->n; i++)
        if (!strcmp(fx->v[i].cause, "library_kernel")) {
            ++*n;
            if (a && !strcmp(fx->v[i].advice, a->family)) f = &fx->v[i];
        }
    return f;
}

static void check_gemm_fix(const mh_fixes *fx, const mh_advice *a, size_t nlib) {
    size_t n;
    const mh_fix *f = library_fix(fx, a, &n);
    CHECK_EQ_U(n, nlib);
    CHECK(a != NULL && f != NULL);
    if (!f || !a) return;
    CHECK(!strcmp(f->advice, a->family) && !strcmp(f->fix, a->text) && !strcmp(f->title, a->title));
    CHECK(strstr(f->kernel, "sm80_xmma_gemm_f32f32_f32f32") == f->kernel); /* the costlier of the two */
    CHECK(f->kernels && strstr(f->kernels, "simt_sgemm") && !strstr(f->kernels, "tf32f32"));
    CHECK_EQ_U(f->launches, 6);
    CHECK_EQ_U(f->configs, 2);
    CHECK_NEAR(f->base_ns, 4 * 100000.0 + 2 * 50000.0, 1e-6);
    CHECK_NEAR(f->saving_ns, 500000.0 * (1.0 - a->fixed_us / a->slow_us), 1e-6);
    CHECK(fx->n && &fx->v[0] == f); /* the largest saving of the run */
}

static void test_library_advice(void) {
    mh_advice_table t;
    mh_err err = {0};
    CHECK(mh_advice_builtin(&t, &err) == MH_OK);
    mh_fixes fx;
    fixes_of("advice", &fx);
    check_gemm_fix(&fx, entry(&t, "fp32_gemm"), 1);
    mh_fixes_free(&fx);

    fixes_of("advice_torch", &fx);
    check_gemm_fix(&fx, entry(&t, "fp32_gemm_torch"), 2);
    /* the foreach kernel: one fix, the optimizer's entry; its small grid (AdamW(fused=True) as well) is
     * folded into it, not listed again with a saving out of the same time */
    const mh_advice *opt = entry(&t, "fused_optimizer_torch");
    size_t n;
    const mh_fix *o = library_fix(&fx, opt, &n);
    CHECK(o && opt && o->launches == 5 && !o->kernels);
    CHECK(o && opt && fabs(o->saving_ns - 150000.0 * (1.0 - opt->fixed_us / opt->slow_us)) < 1e-6);
    CHECK(o && strstr(o->kinds, "small_grid") != NULL);
    const char *foreach = "at::native::(anonymous namespace)::multi_tensor_apply_kernel<TensorListMetadata<2>>";
    CHECK(fix_of(&fx, foreach, "small_grid") == NULL);
    size_t on_foreach = 0;
    for (size_t i = 0; i < fx.n; i++) on_foreach += fx.v[i].kernel && !strcmp(fx.v[i].kernel, foreach);
    CHECK_EQ_U(on_foreach, 1);
    mh_fixes_free(&fx);
    mh_advice_free(&t);
}

/* Two ATen kernels whose short forms are alike print differently in the
 * fix list (terminal, JSON, report); copies keep their text. */
static void test_short_names_differ(void) {
    static const char *const ew[2] = {
        "_ZN2at6native18elementwise_kernelILi128ELi2EZNS0_22gpu_kernel_impl_nocastIZZZNS0_23direct_copy_kernel_cudaERNS_"
        "18TensorIteratorBaseEENKUlvE1_clEvENKUlvE8_clEvEUlfE_EEvS4_RKT_EUliE_EEviT1_",
        "_ZN2at6native18elementwise_kernelILi128ELi2EZNS0_22gpu_kernel_impl_nocastIZZZNS0_23direct_copy_kernel_cudaERNS_"
        "18TensorIteratorBaseEENKUlvE1_clEvENKUlvE6_clEvEUlfE_EEvS4_RKT_EUliE_EEviT1_"};
    char a[160], b[160];
    mh_kname(ew[0], MH_KNAME_SHORT, 64, a, sizeof a);
    mh_kname(ew[1], MH_KNAME_SHORT, 64, b, sizeof b);
    CHECK(!strcmp(a, b)); /* alike, each shortened alone */
    mh_fix v[4];
    memset(v, 0, sizeof v);
    v[0].kernel = (char *)ew[0], v[1].kernel = (char *)ew[1], v[2].kernel = (char *)"(copies host to device)";
    v[3].kernel = (char *)ew[0];
    mh_fixes fx = {.v = v, .n = 4};
    char shown[4][160];
    CHECK(mh_fixes_short_names(&fx, 4, 64, shown[0], 160, 160) == MH_OK);
    CHECK(strcmp(shown[0], shown[1]) != 0);
    CHECK(!strcmp(shown[0], shown[3])); /* one kernel, one name */
    CHECK(!strcmp(shown[2], "(copies host to device)"));
    CHECK(mh_kname_cols(shown[0]) <= 64 && mh_kname_cols(shown[1]) <= 64);
    CHECK(strstr(shown[0], "elementwise_kernel") != NULL);
    json_t *j = mh_fixes_json(&fx);
    CHECK(j && json_array_size(j) == 4);
    const char *k0 = json_string_value(json_object_get(json_array_get(j, 0), "kernel_short"));
    const char *k1 = json_string_value(json_object_get(json_array_get(j, 1), "kernel_short"));
    CHECK(k0 && k1 && strcmp(k0, k1) != 0);
    json_decref(j);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: test_report_fixes MAKE_PROFILE\n");
        return 2;
    }
    make_profile = argv[1];
    static const mh_test_case cases[] = {T(test_latency_bound), T(test_chain_names), T(test_library_advice),
                                         T(test_short_names_differ)};
    return mh_test_run(cases, sizeof cases / sizeof cases[0]);
}
