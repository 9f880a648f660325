/* test_demangle.c -- mh_demangle turns nvcc's mangled kernel names into
 * readable ones and leaves C names alone. */
#include <stdlib.h>
#include <string.h>

#include "util/demangle.h"
#include "../mh_test.h"

static void test_mangled(void) {
    char *d = mh_demangle("_Z8gemm_v00iiifPKfiS0_ifPfi");
    CHECK(d != NULL);
    if (d) CHECK(strcmp(d, "gemm_v00(int, int, int, float, float const*, int, float const*, int, float, float*, int)") == 0);
    free(d);
    d = mh_demangle("_ZN4vec14axpyIfEEviT_PKS1_PS1_");
    CHECK(d != NULL);
    if (d) CHECK(strcmp(d, "void vec1::axpy<float>(int, float, float const*, float*)") == 0);
    free(d);
}

static void test_plain(void) {
    CHECK(mh_demangle("saxpy_kernel") == NULL);
    CHECK(mh_demangle("_Zgarbage!") == NULL);
    CHECK(mh_demangle(NULL) == NULL);
}

MH_TEST_MAIN(T(test_mangled), T(test_plain))
