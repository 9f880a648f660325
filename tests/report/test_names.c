/* test_names.c -- kernel names for people (src/report/names.c, util/kname.c):
 * Itanium names demangle (names over 1024 characters too), plain names pass
 * through, names shorten as Nsight Compute shows them (no return type, no
 * parameters, template arguments while they fit), and the summary gets
 * full/short names. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "mh_test.h"
#include "report/names.h"
#include "util/demangle.h"
#include "util/kname.h"

static void test_demangle(void) {
    char *d = mh_demangle("_Z11h_histogramPKfPfi");
    CHECK(d && !strcmp(d, "h_histogram(float const*, float*, int)"));
    free(d);
    CHECK(mh_demangle("saxpy") == NULL);      /* C / OpenCL names stay */
    CHECK(mh_demangle("_Zgarbage!") == NULL); /* does not demangle: shown as stored */
    char out[256];
    mh_names_display("_Z11h_histogramPKfPfi", out, sizeof out);
    CHECK(!strcmp(out, "h_histogram"));
    mh_names_display("patStrided", out, sizeof out);
    CHECK(!strcmp(out, "patStrided"));
}

static void test_short(void) {
    /* void gemm<cutlass::...<128, 128, 32>, ...>(Params) - a long template instance */
    const char *full = "void cutlass::Kernel<cutlass::gemm::kernel::Gemm<cutlass::gemm::threadblock::MmaPipelined<"
                       "cutlass::gemm::GemmShape<128, 128, 8>, float, float>, true> >(cutlass::gemm::Params)";
    char out[256];
    size_t n = mh_names_short(full, out, sizeof out);
    CHECK(n <= MH_NAMES_SHORT);
    CHECK(!strcmp(out, "cutlass::Kernel<\xe2\x80\xa6>"));
    char shortname[80] = "k(int)";
    mh_names_short(shortname, out, sizeof out);
    CHECK(!strcmp(out, "k"));
    char huge[300];
    memset(huge, 'x', sizeof huge - 1);
    huge[sizeof huge - 1] = 0;
    mh_names_short(huge, out, sizeof out);
    CHECK(mh_kname_cols(out) == MH_NAMES_SHORT && strstr(out, MH_KNAME_ELLIPSIS));
}

/* issue 39: the names a person reads, as ncu shows them (the terminal table
 * printed the first 40 characters of the mangled symbol) */
static void test_ncu_names(void) {
    char out[512];
    mh_kname("_ZN7cutlass7Kernel2I43cutlass_80_simt_sgemm_256x128_8x4_nn_align1EEvNT_6ParamsE", MH_KNAME_SHORT, 64, out,
             sizeof out);
    CHECK(!strcmp(out, "cutlass::Kernel2<cutlass_80_simt_sgemm_256x128_8x4_nn_align1>"));
    mh_kname("_ZN2at6native18elementwise_kernelILi128ELi2EZNS0_22gpu_kernel_impl_nocastIZZZNS0_23direct_copy_kernel_"
             "cudaERNS_18TensorIteratorBaseEENKUlvE1_clEvENKUlvE8_clEvEUlfE_EEvS4_RKT_EUliE_EEviT1_",
             MH_KNAME_SHORT, 64, out, sizeof out);
    CHECK(!strcmp(out, "at::native::elementwise_kernel<128, 2, \xe2\x80\xa6>"));
    mh_kname("_ZN12_GLOBAL__N_13fooEv", MH_KNAME_SHORT, 64, out, sizeof out); /* parentheses inside the name */
    CHECK(!strcmp(out, "(anonymous namespace)::foo"));
    mh_kname("_Z11h_histogramPKfPfi", MH_KNAME_WHOLE, 0, out, sizeof out);
    CHECK(!strcmp(out, "h_histogram(float const*, float*, int)"));
    mh_kname("saxpy", MH_KNAME_SHORT, 64, out, sizeof out);
    CHECK(!strcmp(out, "saxpy"));
}

/* A cuDNN-sized name (over 1,600 characters) demangles: __cxa_demangle alone
 * refuses every name over 1024 (util/demangle.c). */
static void test_long_name(void) {
    char name[4096];
    size_t p = (size_t)snprintf(name, sizeof name, "_Z6kernelI");
    for (int i = 0; i < 48; i++) p += (size_t)snprintf(name + p, sizeof name - p, "N9namespace20SomeLongStructName%02dE", i);
    snprintf(name + p, sizeof name - p, "EvT_");
    CHECK(strlen(name) > 1600);
    char *d = mh_demangle(name);
    CHECK(d != NULL);
    if (d) CHECK(!strncmp(d, "void kernel<namespace::SomeLongStructName00, ", 45));
    free(d);
    char out[256];
    mh_kname(name, MH_KNAME_SHORT, 64, out, sizeof out);
    CHECK(!strncmp(out, "kernel<namespace::SomeLongStructName00, ", 40));
}

/* A table of 48 columns: four CUTLASS kernels that all shorten to
 * `cutlass::Kernel2<…>` get names of their own, cut in the middle so their
 * differing ends show; the same name twice stays alike. */
static void test_unique(void) {
    const char *names[5] = {
        "_ZN7cutlass7Kernel2I43cutlass_80_simt_sgemm_256x128_8x4_nn_align1EEvNT_6ParamsE",
        "_ZN7cutlass7Kernel2I43cutlass_80_simt_sgemm_256x128_8x4_nt_align1EEvNT_6ParamsE",
        "_ZN7cutlass7Kernel2I43cutlass_80_simt_sgemm_128x256_8x4_nt_align1EEvNT_6ParamsE",
        "saxpy",
        "_ZN7cutlass7Kernel2I43cutlass_80_simt_sgemm_256x128_8x4_nn_align1EEvNT_6ParamsE",
    };
    char shown[5][128];
    char one[128];
    mh_kname(names[0], MH_KNAME_SHORT, 48, one, sizeof one);
    CHECK(strstr(one, "cutlass::Kernel2<") == one && mh_kname_cols(one) <= 48); /* alone: ncu's short form */
    CHECK(mh_kname_unique(names, 5, 48, 48, shown[0], sizeof shown[0], sizeof shown[0]) == 0);
    for (int i = 0; i < 5; i++) {
        CHECK(mh_kname_cols(shown[i]) <= 48);
        for (int j = 0; j < 5; j++)
            if (i != j) CHECK(!strcmp(shown[i], shown[j]) == !strcmp(names[i], names[j]));
    }
    CHECK(!strcmp(shown[3], "saxpy"));
    CHECK(strstr(shown[0], "cutlass::Kernel2<") == shown[0]);
    CHECK(strstr(shown[1], "nt_align1>") != NULL && strstr(shown[0], "nn_align1>") != NULL);
    /* no limit: the template argument whole */
    CHECK(mh_kname_unique(names, 3, 48, 0, shown[0], sizeof shown[0], sizeof shown[0]) == 0);
    CHECK(!strcmp(shown[2], "cutlass::Kernel2<cutlass_80_simt_sgemm_128x256_8x4_nt_align1>"));
}

static void test_annotate(void) {
    json_t *root = json_pack("{s:[{s:s},{s:s}],s:[{s:s}]}", "launches", "name", "_Z11h_histogramPKfPfi", "name",
                             "saxpy", "kernels", "name", "_Z11h_histogramPKfPfi");
    mh_names_annotate(root);
    json_t *l0 = json_array_get(json_object_get(root, "launches"), 0);
    CHECK(!strcmp(json_string_value(json_object_get(l0, "full_name")), "h_histogram(float const*, float*, int)"));
    CHECK(!strcmp(json_string_value(json_object_get(l0, "short_name")), "h_histogram"));
    CHECK(!strcmp(json_string_value(json_object_get(l0, "name")), "_Z11h_histogramPKfPfi")); /* kept: the key */
    json_t *l1 = json_array_get(json_object_get(root, "launches"), 1);
    CHECK(!strcmp(json_string_value(json_object_get(l1, "full_name")), "saxpy"));
    json_t *k0 = json_array_get(json_object_get(root, "kernels"), 0);
    CHECK(json_object_get(k0, "short_name") != NULL);
    json_decref(root);
}

MH_TEST_MAIN(T(test_demangle), T(test_short), T(test_ncu_names), T(test_long_name), T(test_unique),
             T(test_annotate))
