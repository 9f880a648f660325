/* table.c -- the table of the pass's analyses (table.h). Adding one: its
 * file in src/analyses/ defining its row, and one line below. */
#include "pass/table.h"

#include <string.h>

#define MH_ANALYSIS_ROWS(X) \
    X(heat)                 \
    X(patterns)             \
    X(locality)             \
    X(atomics)

#define DECLARE(name) extern const mh_analysis mh_analysis_##name;
#define ROW(name) &mh_analysis_##name,
MH_ANALYSIS_ROWS(DECLARE)
const mh_analysis *const mh_analyses[] = {MH_ANALYSIS_ROWS(ROW)};
const unsigned mh_nanalyses = sizeof mh_analyses / sizeof mh_analyses[0];
_Static_assert(sizeof mh_analyses / sizeof mh_analyses[0] <= MH_ANALYSES_MAX, "a bit and a plan slot per row");

unsigned mh_analyses_bit(const char *name) {
    for (unsigned i = 0; name && i < mh_nanalyses; i++)
        if (!strcmp(mh_analyses[i]->name, name)) return 1u << i;
    return 0;
}

unsigned mh_analyses_resolve(unsigned asked) {
    unsigned on = asked & ((1u << mh_nanalyses) - 1u), before;
    do {
        before = on;
        for (unsigned i = 0; i < mh_nanalyses; i++) {
            if (on >> i & 1u) on |= mh_analyses_bit(mh_analyses[i]->needs);
            if (mh_analyses_bit(mh_analyses[i]->with) & on) on |= 1u << i;
        }
    } while (on != before);
    return on;
}
