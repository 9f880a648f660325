/* check.h -- the timing tests' assertions: print the failing expression and
 * count it; main returns non-zero when any failed. */
#ifndef MH_TIMING_CHECK_H
#define MH_TIMING_CHECK_H
#include <math.h>
#include <stdio.h>

static int mh_failures;
#define CHECK(cond)                                                                 \
    do {                                                                            \
        if (!(cond)) {                                                              \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
            mh_failures++;                                                          \
        }                                                                           \
    } while (0)
/* |a - b| <= tol * max(1, |b|) */
#define CHECK_NEAR(a, b, tol)                                                                       \
    do {                                                                                            \
        double a_ = (a), b_ = (b);                                                                  \
        if (!(fabs(a_ - b_) <= (tol) * (fabs(b_) > 1 ? fabs(b_) : 1))) {                            \
            fprintf(stderr, "%s:%d: %s = %.17g, expected %.17g\n", __FILE__, __LINE__, #a, a_, b_); \
            mh_failures++;                                                                          \
        }                                                                                           \
    } while (0)
#endif
