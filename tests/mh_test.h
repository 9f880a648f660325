/* mh_test.h -- the smallest test harness: CHECK records a failure with its
 * line and goes on; MH_TEST_MAIN (or mh_test_run from a main of one's own)
 * runs the listed tests and prints the "N passed, N failed" line. Shared by
 * every C test under tests/. */
#ifndef MH_TEST_H
#define MH_TEST_H

#include <stdio.h>
#include <stdlib.h>

static int mh_test_failures;
static int mh_test_checks;

#define CHECK(cond)                                                                     \
    do {                                                                                \
        mh_test_checks++;                                                               \
        if (!(cond)) {                                                                  \
            mh_test_failures++;                                                         \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);   \
        }                                                                               \
    } while (0)

#define CHECK_EQ_U(a, b)                                                                          \
    do {                                                                                          \
        unsigned long long va_ = (unsigned long long)(a), vb_ = (unsigned long long)(b);          \
        mh_test_checks++;                                                                         \
        if (va_ != vb_) {                                                                         \
            mh_test_failures++;                                                                   \
            fprintf(stderr, "%s:%d: %s == %llu, expected %s == %llu\n", __FILE__, __LINE__, #a, va_, \
                    #b, vb_);                                                                     \
        }                                                                                         \
    } while (0)

/* |a - b| <= tol */
#define CHECK_NEAR(a, b, tol)                                                                         \
    do {                                                                                              \
        double a_ = (a), b_ = (b), t_ = (tol);                                                        \
        mh_test_checks++;                                                                             \
        if (!(a_ - b_ <= t_ && b_ - a_ <= t_)) {                                                      \
            mh_test_failures++;                                                                       \
            fprintf(stderr, "%s:%d: %s == %.17g, expected %.17g (within %g)\n", __FILE__, __LINE__, #a, \
                    a_, b_, t_);                                                                      \
        }                                                                                             \
    } while (0)

/* |a - b| <= tol * max(1, |b|) */
#define CHECK_NEAR_REL(a, b, tol)                                                                     \
    do {                                                                                              \
        double a_ = (a), b_ = (b), d_ = a_ - b_, m_ = b_ < 0 ? -b_ : b_;                              \
        mh_test_checks++;                                                                             \
        if (!((d_ < 0 ? -d_ : d_) <= (tol) * (m_ > 1 ? m_ : 1))) {                                    \
            mh_test_failures++;                                                                       \
            fprintf(stderr, "%s:%d: %s == %.17g, expected %.17g (relative %g)\n", __FILE__, __LINE__,  \
                    #a, a_, b_, (double)(tol));                                                       \
        }                                                                                             \
    } while (0)

typedef struct mh_test_case {
    const char *name;
    void (*fn)(void);
} mh_test_case;

static inline int mh_test_run(const mh_test_case *cases, size_t n) {
    int passed = 0, failed = 0;
    for (size_t i = 0; i < n; i++) {
        int before = mh_test_failures;
        cases[i].fn();
        if (mh_test_failures == before) {
            passed++;
            printf("ok   %s\n", cases[i].name);
        } else {
            failed++;
            printf("FAIL %s\n", cases[i].name);
        }
    }
    if (mh_test_checks == 0) {
        printf("no checks ran\n");
        return 1;
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}

#define MH_TEST_MAIN(...)                                                  \
    int main(void) {                                                       \
        static const mh_test_case cases_[] = {__VA_ARGS__};                \
        return mh_test_run(cases_, sizeof cases_ / sizeof cases_[0]);      \
    }
#define T(fn) {#fn, fn}

#endif
