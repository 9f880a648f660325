/* plan.c -- mh_plan_make: the ladder of plan.h walked for a thread count,
 * then the units numbered, placed on workers and chained. */
#include "sched/plan.h"

#include <assert.h>
#include <string.h>

/* The rungs each rung builds on (bits): taken only after those were. */
static const unsigned rung_needs[MH_RUNG_COUNT] = {
    [MH_RUNG_BASE] = 0,
    [MH_RUNG_STAGES] = 0,
    [MH_RUNG_PARTS2] = 1u << MH_RUNG_STAGES,
    [MH_RUNG_HELPERS] = 1u << MH_RUNG_STAGES,
    [MH_RUNG_COUNTS2] = 1u << MH_RUNG_HELPERS,
    [MH_RUNG_PARTS4] = 1u << MH_RUNG_COUNTS2 | 1u << MH_RUNG_PARTS2,
    [MH_RUNG_OWNERS] = 1u << MH_RUNG_PARTS4,
};

static const char *const rung_names[MH_RUNG_COUNT] = {"base", "stages", "parts2", "helpers",
                                                      "counts2", "parts4", "owners"};

const char *mh_rung_name(unsigned rung) { return rung < MH_RUNG_COUNT ? rung_names[rung] : "?"; }

/* Units that count for a thread which rung r adds. */
static unsigned rung_units(const mh_plan_analysis *a, unsigned na, unsigned r) {
    unsigned n = 0;
    for (unsigned i = 0; i < na; i++)
        for (unsigned s = 0; s < a[i].nstages; s++)
            if (a[i].stage[s].rung == r && !(a[i].stage[s].flags & MH_STAGE_LIGHT)) n++;
    return n;
}

void mh_plan_make(mh_plan *p, const mh_plan_analysis *a, unsigned na, unsigned threads, int fixed, int lanes) {
    assert(na <= MH_PLAN_MAX_ANALYSES && threads >= 1);
    memset(p, 0, sizeof *p);
    memset(p->at, -1, sizeof p->at);
    p->threads = threads;
    /* the ladder: each rung while the threads cover every counted unit up to it */
    unsigned counted = rung_units(a, na, MH_RUNG_BASE);
    p->rungs = 1u << MH_RUNG_BASE;
    for (unsigned r = MH_RUNG_BASE + 1; r < MH_RUNG_COUNT; r++) {
        unsigned add = rung_units(a, na, r);
        if (add == 0 || (p->rungs & rung_needs[r]) != rung_needs[r] || threads < counted + add) continue;
        p->rungs |= 1u << r;
        counted += add;
    }
    /* the units in the analyses' order, stages in order */
    unsigned n = 0, k = 0;
    int first = -1;
    for (unsigned i = 0; i < na; i++) {
        assert(a[i].nstages <= MH_PLAN_MAX_STAGES);
        p->parts[i] = 1;
        p->borrows[i] = -1;
        int prev = -1; /* the nearest stage before with a unit */
        for (unsigned s = 0; s < a[i].nstages; s++) {
            const mh_plan_stage *st = &a[i].stage[s];
            if (!(p->rungs >> st->rung & 1u)) continue;
            assert(n < MH_PLAN_MAX_UNITS);
            mh_plan_unit *u = &p->unit[n];
            u->analysis = (uint8_t)i;
            u->stage = (uint8_t)s;
            u->follows = u->borrows = -1;
            if (st->flags & MH_STAGE_PART) {
                p->parts[i]++;
            } else {
                u->follows = (int8_t)prev;
                prev = (int)n;
            }
            if ((st->flags & MH_STAGE_BORROWS) && a[i].lender >= 0 && (p->rungs >> MH_RUNG_STAGES & 1u)) {
                int lu = p->at[a[i].lender][0];
                assert(lu >= 0 && u->follows < 0); /* the lender comes first; one stage followed */
                u->follows = u->borrows = (int8_t)lu;
                p->borrows[i] = a[i].lender;
            }
            if (!(st->flags & MH_STAGE_LIGHT)) k++;
            if (first < 0) first = (int)n;
            p->on[i] |= 1u << s;
            p->at[i][s] = (int8_t)n++;
        }
    }
    p->nunits = n;
    p->counted = counted;
    assert(k == counted);
    /* lanes: one per thread asked for */
    if (threads > 1 && counted > 0 && lanes) p->nlanes = threads;
    /* workers: one per counted unit at most; on several cores one per unit
     * even past the cores unless the threads were asked for */
    unsigned w = threads;
    if (!fixed && threads > 1 && threads < counted) w = counted;
    p->nworkers = threads > 1 && counted > 0 ? (w < counted ? w : counted) : 0;
    /* placement: counted unit j of counted on worker j * workers / counted;
     * a light unit beside the first unit */
    for (unsigned u = 0, j = 0; u < n && p->nworkers; u++) {
        const mh_plan_stage *st = &a[p->unit[u].analysis].stage[p->unit[u].stage];
        if (st->flags & MH_STAGE_LIGHT) continue;
        p->unit[u].worker = (uint8_t)((uint64_t)j++ * p->nworkers / counted);
    }
    for (unsigned u = 0; u < n && p->nworkers; u++) {
        const mh_plan_stage *st = &a[p->unit[u].analysis].stage[p->unit[u].stage];
        if (st->flags & MH_STAGE_LIGHT) p->unit[u].worker = p->unit[first].worker;
    }
}
