/* test_advice.c -- the framework advice table (report/advice.h): the table
 * compiled in parses, and every figure it quotes is the one its pair
 * recorded in bench/advice/results.json (the GPU run of bench/advice/pairs.py);
 * a damaged table is refused with its line; kernels are matched by substring
 * of the demangled name with exclusions, PyTorch-only entries only in a
 * PyTorch program, an entry of the fix's own cause before one of any, a
 * library_kernel entry last. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mh_test.h"
#include "report/advice.h"

static const char *results_path;

static void test_builtin_matches_results(void) {
    mh_advice_table t;
    mh_err err = {0};
    CHECK(mh_advice_builtin(&t, &err) == MH_OK);
    CHECK(t.n >= 6);
    json_error_t je;
    json_t *res = json_load_file(results_path, 0, &je);
    CHECK(res != NULL);
    const char *dev = json_string_value(json_object_get(res, "device"));
    for (size_t i = 0; res && i < t.n; i++) {
        const mh_advice *a = &t.v[i];
        char pair[48];
        snprintf(pair, sizeof pair, "%s", a->pair);
        char *fig = strchr(pair, '/');
        CHECK(fig != NULL);
        if (!fig) continue;
        *fig++ = '\0';
        json_t *f = json_object_get(json_object_get(json_object_get(json_object_get(res, "pairs"), pair), "figures"), fig);
        if (!f) fprintf(stderr, "entry %s: %s has no figure in %s\n", a->family, a->pair, results_path);
        CHECK(f != NULL);
        if (!f) continue;
        /* the table quotes the recorded figure, to its 0.1 us */
        CHECK_NEAR(a->slow_us, json_number_value(json_object_get(f, "slow_us")), 0.05);
        CHECK_NEAR(a->fixed_us, json_number_value(json_object_get(f, "fixed_us")), 0.05);
        CHECK(dev && !strcmp(a->device, dev));
        CHECK(a->fixed_us < a->slow_us);
    }
    json_decref(res);
    mh_advice_free(&t);
}

static int parse_fails(const char *text, const char *want) {
    mh_advice_table t;
    mh_err err = {0};
    int rc = mh_advice_parse(text, strlen(text), &t, &err);
    if (rc == MH_OK) {
        mh_advice_free(&t);
        return 0;
    }
    if (!strstr(err.msg, want)) fprintf(stderr, "error '%s' lacks '%s'\n", err.msg, want);
    return rc == MH_ERR_FORMAT && strstr(err.msg, want) != NULL && t.v == NULL;
}

#define GOOD "g\tany\tsmall_grid\tfoo|!bar\tp/f\t10\t5\tdev\ttitle\tadvice\n"

static void test_parse_errors(void) {
    mh_advice_table t;
    mh_err err = {0};
    const char *ok = "# comment\n\n" GOOD "h\tpytorch\t*\tx\tp/g\t3.5\t0\tdev\tt\ta\r\n";
    CHECK(mh_advice_parse(ok, strlen(ok), &t, &err) == MH_OK);
    CHECK_EQ_U(t.n, 2);
    CHECK(t.n == 2 && !t.v[0].pytorch && t.v[1].pytorch && t.v[1].slow_us == 3.5 && !strcmp(t.v[1].text, "a"));
    mh_advice_free(&t);
    CHECK(parse_fails(GOOD "g\tany\tsmall_grid\tfoo\tp/f\t10\t5\tdev\ttitle\n", "line 2: fewer than 10"));
    CHECK(parse_fails(GOOD GOOD "g\tany\tsmall_grid\tfoo\tp/f\t10\t5\tdev\ttitle\tadvice\textra\n", "line 3: more than"));
    CHECK(parse_fails("g\tany\tno_such_cause\tfoo\tp/f\t10\t5\tdev\ttitle\tadvice\n", "line 1: unknown cause"));
    CHECK(parse_fails("g\tjax\tsmall_grid\tfoo\tp/f\t10\t5\tdev\ttitle\tadvice\n", "framework"));
    CHECK(parse_fails("g\tany\tsmall_grid\tfoo\tp/f\t5\t10\tdev\ttitle\tadvice\n", "fixed < slow"));
    CHECK(parse_fails("g\tany\tsmall_grid\tfoo\tp/f\t10\tfast\tdev\ttitle\tadvice\n", "not a number"));
    CHECK(parse_fails("g\tany\tsmall_grid\tfoo\tpf\t10\t5\tdev\ttitle\tadvice\n", "pair/figure"));
    CHECK(parse_fails("G-1\tany\tsmall_grid\tfoo\tp/f\t10\t5\tdev\ttitle\tadvice\n", "family"));
    CHECK(parse_fails("g\tany\tsmall_grid\t-\tp/f\t10\t5\tdev\ttitle\tadvice\n", "no kernels"));
    CHECK(parse_fails("g\tany\tsmall_grid\t\tp/f\t10\t5\tdev\ttitle\tadvice\n", "empty field"));
}

static void test_find(void) {
    const char *text = "star\tpytorch\t*\tmulti_tensor|!Fused\tp/a\t2\t1\td\tt\tstar text\n"
                       "grid\tpytorch\tsmall_grid\tmulti_tensor\tp/b\t2\t1\td\tt\tgrid text\n"
                       "gemm\tany\tlibrary_kernel\tgemm_f32f32_f32f32|simt_sgemm|!tf32\tp/c\t2\t1\td\tt\tgemm text\n"
                       "copy\tany\tpageable_copy\t-\tp/d\t2\t1\td\tt\tcopy text\n";
    mh_advice_table t;
    mh_err err = {0};
    CHECK(mh_advice_parse(text, strlen(text), &t, &err) == MH_OK);
    /* the cause's own entry before the entry of any cause; '*' never makes a library fix */
    const mh_advice *a = mh_advice_find(&t, "small_grid", "at::native::multi_tensor_apply_kernel<X>", 1);
    CHECK(a && !strcmp(a->family, "grid"));
    a = mh_advice_find(&t, "latency_bound", "at::native::multi_tensor_apply_kernel<X>", 1);
    CHECK(a && !strcmp(a->family, "star"));
    CHECK(mh_advice_find(&t, "library_kernel", "at::native::multi_tensor_apply_kernel<X>", 1) == NULL);
    /* exclusions; PyTorch-only entries outside PyTorch */
    CHECK(mh_advice_find(&t, "latency_bound", "multi_tensor_apply_kernel<FusedOptimizerTensorListMetadata<4>>", 1) ==
          NULL);
    CHECK(mh_advice_find(&t, "latency_bound", "at::native::multi_tensor_apply_kernel<X>", 0) == NULL);
    /* matched on the demangled name, case ignored; TF32 kernels excluded */
    a = mh_advice_find(&t, "library_kernel", "_ZN7cutlass7Kernel2I43cutlass_80_simt_sgemm_128x128_8x4_nn_align1EEvNT_6ParamsE", 0);
    CHECK(a && !strcmp(a->family, "gemm"));
    CHECK(mh_advice_find(&t, "library_kernel", "SM80_XMMA_GEMM_F32F32_F32F32_F32_TN_N", 0) != NULL);
    CHECK(mh_advice_find(&t, "library_kernel", "sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n", 0) == NULL);
    CHECK(mh_advice_find(&t, "library_kernel", "sm80_xmma_gemm_f32f32_f32f32_tf32", 0) == NULL);
    /* another fault of a kernel a library_kernel entry names: that entry speaks for it */
    a = mh_advice_find(&t, "bank_conflict", "cutlass_80_simt_sgemm_128x128_8x4_nn_align1", 0);
    CHECK(a && !strcmp(a->family, "gemm"));
    /* copies: no kernel */
    a = mh_advice_find(&t, "pageable_copy", "(copies host to device)", 0);
    CHECK(a && !strcmp(a->family, "copy"));
    CHECK(mh_advice_find(&t, "pageable_copy", "some_kernel", 0) == NULL);
    mh_advice_free(&t);
}

static void test_pytorch_kernel(void) {
    CHECK(mh_advice_pytorch_kernel("_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEESt5arrayIPcLm1EEEEviT0_T1_"));
    CHECK(mh_advice_pytorch_kernel("at::native::(anonymous namespace)::multi_tensor_apply_kernel<X>"));
    CHECK(!mh_advice_pytorch_kernel("_ZN7cutlass7Kernel2I43cutlass_80_simt_sgemm_128x128_8x4_nn_align1EEvNT_6ParamsE"));
    CHECK(!mh_advice_pytorch_kernel("sm80_xmma_gemm_f32f32_f32f32_f32_tn_n"));
    CHECK(!mh_advice_pytorch_kernel("_Z11h_histogramPKfPfi"));
    CHECK(!mh_advice_pytorch_kernel(NULL));
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: test_report_advice bench/advice/results.json\n");
        return 2;
    }
    results_path = argv[1];
    static const mh_test_case cases[] = {T(test_builtin_matches_results), T(test_parse_errors), T(test_find),
                                         T(test_pytorch_kernel)};
    return mh_test_run(cases, sizeof cases / sizeof cases[0]);
}
