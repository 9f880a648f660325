/* test_names.c -- kernel names for people (src/report/names.c): Itanium
 * names demangle, plain names pass through, long template names shorten
 * with the kernel's own name kept, and the summary gets full/short names. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "mh_test.h"
#include "report/names.h"
#include "util/demangle.h"

static void test_demangle(void) {
    char *d = mh_demangle("_Z11h_histogramPKfPfi");
    CHECK(d && !strcmp(d, "h_histogram(float const*, float*, int)"));
    free(d);
    CHECK(mh_demangle("saxpy") == NULL);      /* C / OpenCL names stay */
    CHECK(mh_demangle("_Zgarbage!") == NULL); /* does not demangle: shown as stored */
    char out[256];
    mh_names_display("_Z11h_histogramPKfPfi", out, sizeof out);
    CHECK(!strcmp(out, "h_histogram(float const*, float*, int)"));
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
    CHECK(!strcmp(out, "void cutlass::Kernel<...>(cutlass::gemm::Params)"));
    char shortname[80] = "k(int)";
    mh_names_short(shortname, out, sizeof out);
    CHECK(!strcmp(out, "k(int)"));
    /* still too long without templates: parameters collapse, then a cut */
    char longp[400];
    snprintf(longp, sizeof longp, "kernel_with_a_rather_long_name_indeed(%s)",
             "float*, float*, float*, float*, float*, float*, float*, float*, float*, float*");
    mh_names_short(longp, out, sizeof out);
    CHECK(!strcmp(out, "kernel_with_a_rather_long_name_indeed(...)"));
    char huge[300];
    memset(huge, 'x', sizeof huge - 1);
    huge[sizeof huge - 1] = 0;
    n = mh_names_short(huge, out, sizeof out);
    CHECK(n == MH_NAMES_SHORT && !strcmp(out + n - 3, "..."));
}

static void test_annotate(void) {
    json_t *root = json_pack("{s:[{s:s},{s:s}],s:[{s:s}]}", "launches", "name", "_Z11h_histogramPKfPfi", "name",
                             "saxpy", "kernels", "name", "_Z11h_histogramPKfPfi");
    mh_names_annotate(root);
    json_t *l0 = json_array_get(json_object_get(root, "launches"), 0);
    CHECK(!strcmp(json_string_value(json_object_get(l0, "full_name")), "h_histogram(float const*, float*, int)"));
    CHECK(!strcmp(json_string_value(json_object_get(l0, "short_name")), "h_histogram(float const*, float*, int)"));
    CHECK(!strcmp(json_string_value(json_object_get(l0, "name")), "_Z11h_histogramPKfPfi")); /* kept: the key */
    json_t *l1 = json_array_get(json_object_get(root, "launches"), 1);
    CHECK(!strcmp(json_string_value(json_object_get(l1, "full_name")), "saxpy"));
    json_t *k0 = json_array_get(json_object_get(root, "kernels"), 0);
    CHECK(json_object_get(k0, "short_name") != NULL);
    json_decref(root);
}

MH_TEST_MAIN(T(test_demangle), T(test_short), T(test_annotate))
