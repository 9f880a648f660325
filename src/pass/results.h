/* results.h -- a copy of what an analysis emitted (analysis.h's result
 * kinds), kept past the emission: a launch lane's results until their turn,
 * a result held while the others end a launch (pass.c). */
#ifndef MH_PASS_RESULTS_H
#define MH_PASS_RESULTS_H

#include "analyses/analysis.h"
#include "analyses/heat.h"
#include "analyses/locality.h"

typedef struct mh_result {
    int kind;        /* enum mh_result_kind */
    unsigned row;    /* the analysis that emitted it */
    int has_launch;  /* 0: a result of no launch (any id, UINT32_MAX too, is a trace's to use) */
    uint32_t launch; /* its launch, when has_launch */
    union {
        mh_heat_result heat; /* rows and regions owned */
        mh_loc_result loc;
    } u;
} mh_result;

/* A copy of result r of kind from row; NULL without memory. take: the
 * caller owns it (mh_result_free). */
mh_result *mh_result_copy(int kind, unsigned row, const void *r);
/* The copy pointing at model m (emitted on a copy of it, equal by index).
 * 0 when it has a launch that m does not hold (consumers of a heat map or a
 * locality result read its launch; the caller drops it). */
int mh_result_repoint(mh_result *c, const mh_model *m);
/* The result as emitted (for an mh_emit). */
const void *mh_result_get(const mh_result *c);
void mh_result_free(mh_result *c);

#endif
