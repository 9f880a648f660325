/* test_plan.c -- mh_plan_make (src/sched/plan.h), pure: for the pass's
 * analyses as they are staged (heat maps in up to four parts; patterns and
 * locality in up to six stages, the locality's first borrowing the
 * patterns' keys) the ladder climbs at the thread counts the pass has
 * always used (5 units on any multi-core machine, every stage apart at 9,
 * the heat maps in two parts at 10, helpers at 12, the locality's second
 * counting stage at 13, the heat maps in four parts at 15, the patterns'
 * word owners at 16), with fewer analyses it climbs as far as their stages
 * allow, units follow the stage before them, and a light unit shares the
 * first unit's worker without costing a thread. */
#include <string.h>

#include "sched/plan.h"
#include "../mh_test.h"

enum { HEAT, PAT, LOC };

static const mh_plan_stage heat_st[] = {{MH_RUNG_BASE, MH_STAGE_RECORDS},
                                        {MH_RUNG_PARTS2, MH_STAGE_PART},
                                        {MH_RUNG_PARTS4, MH_STAGE_PART},
                                        {MH_RUNG_PARTS4, MH_STAGE_PART}};
/* keys, execution counts, word owners, grouping, evaluation helper, evaluation */
static const mh_plan_stage pat_st[] = {{MH_RUNG_BASE, 0},    {MH_RUNG_STAGES, 0},
                                       {MH_RUNG_OWNERS, 0},  {MH_RUNG_BASE, MH_STAGE_RECORDS},
                                       {MH_RUNG_HELPERS, 0}, {MH_RUNG_STAGES, 0}};
/* counts (borrowing), second half, first half, steps, evaluation helper, evaluation */
static const mh_plan_stage loc_st[] = {{MH_RUNG_BASE, MH_STAGE_BORROWS}, {MH_RUNG_STAGES, 0},
                                       {MH_RUNG_COUNTS2, 0},             {MH_RUNG_BASE, MH_STAGE_RECORDS},
                                       {MH_RUNG_HELPERS, 0},             {MH_RUNG_STAGES, 0}};

/* The analyses of mask (bit HEAT, PAT, LOC), in that order; *idx: each one's index or -1. */
static unsigned input(unsigned mask, mh_plan_analysis *a, int *idx) {
    unsigned n = 0;
    idx[HEAT] = idx[PAT] = idx[LOC] = -1;
    if (mask & 1u << HEAT) {
        idx[HEAT] = (int)n;
        a[n++] = (mh_plan_analysis){heat_st, 4, -1};
    }
    if (mask & 1u << PAT) {
        idx[PAT] = (int)n;
        a[n++] = (mh_plan_analysis){pat_st, 6, -1};
    }
    if (mask & 1u << LOC) {
        idx[LOC] = (int)n;
        a[n++] = (mh_plan_analysis){loc_st, 6, idx[PAT]};
    }
    return n;
}

static mh_plan plan_of(unsigned mask, unsigned threads, int fixed, int *idx) {
    mh_plan_analysis a[3];
    unsigned n = input(mask, a, idx);
    mh_plan p;
    mh_plan_make(&p, a, n, threads, fixed, 1);
    return p;
}

/* The counted units at each thread count for the three analyses. */
static void test_ladder_all(void) {
    static const struct {
        unsigned threads, counted, parts_heat;
        unsigned pat_on, loc_on; /* stage bits with a unit */
    } want[] = {
        {1, 5, 1, 011, 011},  {2, 5, 1, 011, 011},  {5, 5, 1, 011, 011},   {8, 5, 1, 011, 011},
        {9, 9, 1, 053, 053},  {10, 10, 2, 053, 053}, {11, 10, 2, 053, 053}, {12, 12, 2, 073, 073},
        {13, 13, 2, 073, 077}, {14, 13, 2, 073, 077}, {15, 15, 4, 073, 077}, {16, 16, 4, 077, 077},
        {64, 16, 4, 077, 077},
    };
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        int idx[3];
        mh_plan p = plan_of(7, want[k].threads, 1, idx);
        CHECK_EQ_U(p.counted, want[k].counted);
        CHECK_EQ_U(p.nunits, want[k].counted);
        CHECK_EQ_U(p.parts[idx[HEAT]], want[k].parts_heat);
        CHECK_EQ_U(p.on[idx[PAT]], want[k].pat_on);
        CHECK_EQ_U(p.on[idx[LOC]], want[k].loc_on);
        /* fixed threads: one worker each up to the units, serial at 1 */
        unsigned w = want[k].threads == 1 ? 0 : want[k].threads < want[k].counted ? want[k].threads : want[k].counted;
        CHECK_EQ_U(p.nworkers, w);
        CHECK_EQ_U(p.nlanes, want[k].threads > 1 ? want[k].threads : 0);
    }
}

/* Who follows whom, and the borrowing, at 5, 9 and 16 threads. */
static void test_follows(void) {
    int idx[3];
    mh_plan p = plan_of(7, 2, 0, idx); /* 2 cores, default threads: a worker per unit */
    CHECK_EQ_U(p.nworkers, 5);
    CHECK_EQ_U(p.rungs, 1u << MH_RUNG_BASE);
    /* heat, pat keys, pat grouping, loc counts, loc steps */
    CHECK(p.unit[0].analysis == idx[HEAT] && p.unit[0].follows == -1);
    CHECK(p.unit[2].analysis == idx[PAT] && p.unit[2].stage == 3 && p.unit[2].follows == 1);
    CHECK(p.unit[3].analysis == idx[LOC] && p.unit[3].follows == -1 && p.unit[3].borrows == -1);
    CHECK(p.unit[4].stage == 3 && p.unit[4].follows == 3);
    CHECK(p.borrows[idx[LOC]] == -1);
    for (unsigned u = 0; u < 5; u++) CHECK_EQ_U(p.unit[u].worker, u);

    p = plan_of(7, 9, 1, idx);
    /* heat 0; pat keys 1, counts 2, grouping 3, evaluation 4; loc counts 5 (borrowing keys of unit 1),
     * second half 6, steps 7, evaluation 8 */
    CHECK_EQ_U(p.nunits, 9);
    CHECK(p.unit[2].follows == 1 && p.unit[3].follows == 2 && p.unit[4].follows == 3);
    CHECK(p.unit[5].follows == 1 && p.unit[5].borrows == 1);
    CHECK(p.unit[6].follows == 5 && p.unit[7].follows == 6 && p.unit[8].follows == 7);
    CHECK(p.borrows[idx[LOC]] == idx[PAT]);

    p = plan_of(7, 16, 1, idx);
    /* heat 0-3 (parts: no follows); pat keys 4, counts 5, owners 6, grouping 7, helper 8, evaluation 9;
     * loc counts 10, second 11, first 12, steps 13, helper 14, evaluation 15 */
    CHECK_EQ_U(p.nunits, 16);
    for (unsigned u = 0; u < 4; u++) CHECK(p.unit[u].follows == -1 && p.unit[u].analysis == idx[HEAT]);
    CHECK(p.unit[6].follows == 5 && p.unit[7].follows == 6 && p.unit[8].follows == 7 && p.unit[9].follows == 8);
    CHECK(p.unit[10].borrows == 4 && p.unit[12].follows == 11 && p.unit[13].follows == 12);
    CHECK(p.unit[15].follows == 14);
    CHECK_EQ_U(p.at[idx[PAT]][2], 6);
    CHECK_EQ_U(p.at[idx[LOC]][3], 13);
}

/* Fewer workers than units: neighbours share (unit u on u * workers / units). */
static void test_placement(void) {
    int idx[3];
    mh_plan p = plan_of(7, 2, 1, idx);
    static const unsigned want[5] = {0, 0, 0, 1, 1};
    CHECK_EQ_U(p.nworkers, 2);
    for (unsigned u = 0; u < 5; u++) CHECK_EQ_U(p.unit[u].worker, want[u]);
    p = plan_of(7, 3, 1, idx);
    static const unsigned want3[5] = {0, 0, 1, 1, 2};
    for (unsigned u = 0; u < 5; u++) CHECK_EQ_U(p.unit[u].worker, want3[u]);
}

/* Fewer analyses: each rung only where it adds a unit and what it builds on was taken. */
static void test_subsets(void) {
    int idx[3];
    /* heat + patterns: 3, stages at 5, two parts at 6, helpers at 7, no second counting stage, so no four parts */
    static const unsigned hp[][2] = {{4, 3}, {5, 5}, {6, 6}, {7, 7}, {8, 7}, {64, 7}};
    for (size_t k = 0; k < sizeof hp / sizeof hp[0]; k++) {
        mh_plan p = plan_of(1u << HEAT | 1u << PAT, hp[k][0], 1, idx);
        CHECK_EQ_U(p.counted, hp[k][1]);
        CHECK(!(p.rungs >> MH_RUNG_PARTS4 & 1u));
    }
    /* heat + locality: 3, 5, 6, 7, the second counting stage at 8, four parts at 10; no borrowing */
    static const unsigned hl[][2] = {{5, 5}, {6, 6}, {7, 7}, {8, 8}, {9, 8}, {10, 10}, {64, 10}};
    for (size_t k = 0; k < sizeof hl / sizeof hl[0]; k++) {
        mh_plan p = plan_of(1u << HEAT | 1u << LOC, hl[k][0], 1, idx);
        CHECK_EQ_U(p.counted, hl[k][1]);
        CHECK(p.borrows[idx[LOC]] == -1);
    }
    /* locality alone: 2, stages at 4, no parts to add, helpers at 5, second counting stage at 6 */
    static const unsigned lo[][2] = {{3, 2}, {4, 4}, {5, 5}, {6, 6}, {64, 6}};
    for (size_t k = 0; k < sizeof lo / sizeof lo[0]; k++) {
        mh_plan p = plan_of(1u << LOC, lo[k][0], 1, idx);
        CHECK_EQ_U(p.counted, lo[k][1]);
    }
    /* heat maps alone: the first rung adds nothing, so nothing above it is taken */
    mh_plan p = plan_of(1u << HEAT, 16, 1, idx);
    CHECK_EQ_U(p.counted, 1);
    CHECK_EQ_U(p.parts[idx[HEAT]], 1);
    CHECK_EQ_U(p.nworkers, 1);
    /* nothing at all: no workers, no lanes */
    p = plan_of(0, 16, 1, idx);
    CHECK_EQ_U(p.nunits, 0);
    CHECK_EQ_U(p.nworkers, 0);
    CHECK_EQ_U(p.nlanes, 0);
}

/* A light stage costs no thread and shares the first unit's worker. */
static void test_light(void) {
    static const mh_plan_stage light[] = {{MH_RUNG_BASE, MH_STAGE_RECORDS | MH_STAGE_LIGHT}};
    int idx[3];
    mh_plan_analysis a[4];
    unsigned n = input(7, a, idx);
    a[n++] = (mh_plan_analysis){light, 1, -1};
    for (unsigned t = 1; t <= 16; t++) {
        mh_plan p, q;
        mh_plan_make(&p, a, n, t, 1, 1);
        mh_plan_make(&q, a, n - 1, t, 1, 1);
        CHECK_EQ_U(p.counted, q.counted);
        CHECK_EQ_U(p.nworkers, q.nworkers);
        CHECK_EQ_U(p.rungs, q.rungs);
        CHECK_EQ_U(p.nunits, q.nunits + 1);
        CHECK(p.at[n - 1][0] == (int)q.nunits); /* the last unit */
        CHECK_EQ_U(p.unit[q.nunits].worker, p.unit[0].worker);
        for (unsigned u = 0; u < q.nunits; u++) CHECK_EQ_U(p.unit[u].worker, q.unit[u].worker);
    }
}

/* No lanes where they are not allowed; default threads on one core: serial. */
static void test_lanes_and_serial(void) {
    mh_plan_analysis a[3];
    int idx[3];
    unsigned n = input(7, a, idx);
    mh_plan p;
    mh_plan_make(&p, a, n, 8, 0, 0);
    CHECK_EQ_U(p.nlanes, 0);
    CHECK_EQ_U(p.nworkers, 5);
    mh_plan_make(&p, a, n, 1, 0, 1);
    CHECK_EQ_U(p.nlanes, 0);
    CHECK_EQ_U(p.nworkers, 0);
    CHECK(strcmp(mh_rung_name(MH_RUNG_OWNERS), "owners") == 0);
}

MH_TEST_MAIN({"ladder_all", test_ladder_all}, {"follows", test_follows}, {"placement", test_placement},
             {"subsets", test_subsets}, {"light", test_light}, {"lanes_and_serial", test_lanes_and_serial})
