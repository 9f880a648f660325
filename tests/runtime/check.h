/* check.h -- minimal assertion macros for the runtime tests: a failed check
 * prints where and what, and the test exits non-zero. */
#ifndef MH_TEST_CHECK_H
#define MH_TEST_CHECK_H
#include <stdio.h>

static int check_failures;
#define CHECK(c)                                                                   \
    do {                                                                           \
        if (!(c)) {                                                                \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c);  \
            check_failures++;                                                      \
        }                                                                          \
    } while (0)
#define CHECK_EQ_Z(a, b)                                                           \
    do {                                                                           \
        size_t a_ = (a), b_ = (b);                                                 \
        if (a_ != b_) {                                                            \
            fprintf(stderr, "%s:%d: %s == %zu, want %zu\n", __FILE__, __LINE__, #a, a_, b_); \
            check_failures++;                                                      \
        }                                                                          \
    } while (0)
#define CHECK_NEAR(a, b, tol)                                                      \
    do {                                                                           \
        double a_ = (a), b_ = (b);                                                 \
        if (!(a_ - b_ <= (tol) && b_ - a_ <= (tol))) {                             \
            fprintf(stderr, "%s:%d: %s == %.9g, want %.9g\n", __FILE__, __LINE__, #a, a_, b_); \
            check_failures++;                                                      \
        }                                                                          \
    } while (0)
#define CHECK_DONE()                                                               \
    do {                                                                           \
        if (check_failures) fprintf(stderr, "%d check(s) failed\n", check_failures); \
        return check_failures ? 1 : 0;                                             \
    } while (0)
#endif
