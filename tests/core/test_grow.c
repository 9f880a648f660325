/* test_grow.c -- mh_grow (src/util/grow.h): first growth, doubling, an exact
 * fit left alone, and byte-size overflow refused with the array kept. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../mh_test.h"
#include "util/grow.h"

static void test_first(void) {
    size_t cap = 0;
    int *a = mh_grow(NULL, &cap, 1, sizeof *a, 16);
    CHECK(a != NULL);
    CHECK_EQ_U(cap, 16);
    free(a);
    cap = 0; /* a first need above `first`: doubled from first until it fits */
    a = mh_grow(NULL, &cap, 100, sizeof *a, 16);
    CHECK(a != NULL);
    CHECK_EQ_U(cap, 128);
    free(a);
    cap = 0; /* first 0 means 1 */
    a = mh_grow(NULL, &cap, 3, sizeof *a, 0);
    CHECK(a != NULL);
    CHECK_EQ_U(cap, 4);
    free(a);
    cap = 0; /* nothing needed yet still gives an array */
    a = mh_grow(NULL, &cap, 0, sizeof *a, 8);
    CHECK(a != NULL);
    CHECK_EQ_U(cap, 8);
    free(a);
}

static void test_double_keeps_contents(void) {
    size_t cap = 0, n = 0;
    int *a = NULL;
    for (int i = 0; i < 1000; i++) {
        int *g = mh_grow(a, &cap, n + 1, sizeof *g, 4);
        CHECK(g != NULL);
        if (!g) break;
        a = g;
        a[n++] = i;
    }
    CHECK_EQ_U(cap, 1024);
    int bad = 0;
    for (size_t i = 0; i < n; i++) bad += a[i] != (int)i;
    CHECK_EQ_U(bad, 0);
    free(a);
}

static void test_exact_need(void) {
    size_t cap = 0;
    char *a = mh_grow(NULL, &cap, 32, 1, 32);
    CHECK(a != NULL);
    CHECK_EQ_U(cap, 32);
    char *b = mh_grow(a, &cap, 32, 1, 32); /* fits: same array, same capacity */
    CHECK(b == a);
    CHECK_EQ_U(cap, 32);
    b = mh_grow(a, &cap, 7, 1, 32);
    CHECK(b == a);
    CHECK_EQ_U(cap, 32);
    b = mh_grow(a, &cap, 33, 1, 32); /* one more: doubled */
    CHECK(b != NULL);
    CHECK_EQ_U(cap, 64);
    free(b ? b : a);
}

static void test_overflow(void) {
    size_t cap = 4;
    double *a = malloc(cap * sizeof *a);
    CHECK(a != NULL);
    a[3] = 2.5;
    /* need * elem overflows size_t */
    CHECK(mh_grow(a, &cap, SIZE_MAX / sizeof *a + 1, sizeof *a, 4) == NULL);
    CHECK_EQ_U(cap, 4);
    CHECK(mh_grow(a, &cap, SIZE_MAX, sizeof *a, 4) == NULL);
    CHECK_EQ_U(cap, 4);
    /* doubling the count overflows size_t itself (and so does need * elem) */
    CHECK(mh_grow(a, &cap, SIZE_MAX / 2 + 2, 2, 4) == NULL);
    CHECK_EQ_U(cap, 4);
    CHECK(mh_grow(a, &cap, 5, 0, 4) == NULL); /* elem 0 refused */
    CHECK_EQ_U(cap, 4);
    CHECK(a[3] == 2.5); /* the array is still the caller's, intact */
    free(a);
}

MH_TEST_MAIN(T(test_first), T(test_double_keeps_contents), T(test_exact_need), T(test_overflow))
