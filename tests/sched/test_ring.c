/* test_ring.c -- mh_ring (src/sched/ring.h), the scheduler's workers: every
 * unit gets the jobs of its mask in order, a slot is never rebuilt while a
 * worker reads it, and with failing units the error returned is the first
 * by job, then by unit, whatever the timing (workers are jittered); a unit
 * that follows another takes each job only after it (mh_ring_follow). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sched/ring.h"
#include "../mh_test.h"

enum { SLOTS = 4, UNITS = 3, JOBS = 200 };

typedef struct job {
    uint64_t seq;
    unsigned mask;
} job;

typedef struct ctx {
    job slot[SLOTS];
    uint64_t fail_at[UNITS];  /* UINT64_MAX = never */
    uint64_t last[UNITS];     /* the last job seen + 1 */
    uint64_t got[UNITS];      /* jobs taken */
    int after_fail[UNITS];    /* jobs taken after failing (must stay 0) */
    int out_of_order, torn, wrong_mask;
    int failed[UNITS];
    unsigned seed[UNITS];
    int follow;               /* unit 2 follows unit 1 */
    int stage_done[JOBS];     /* unit 1 is done with the job */
    int early;                /* unit 2 took a job of unit 1's before unit 1 was done */
} ctx;

static void jitter(unsigned *seed) {
    unsigned r = (unsigned)rand_r(seed) % 8;
    if (r < 5) return;
    struct timespec ts = {0, (long)(r - 4) * 20000};
    nanosleep(&ts, NULL);
}

static int feed(void *c_, unsigned u, const void *j_, mh_err *err) {
    ctx *c = c_;
    const job *j = j_;
    uint64_t seq = j->seq;
    if (c->failed[u]) c->after_fail[u]++;
    if (!(j->mask >> u & 1u)) c->wrong_mask++;
    if (seq < c->last[u]) c->out_of_order++;
    c->last[u] = seq + 1;
    c->got[u]++;
    if (u == 2 && c->follow && (j->mask & 2u) && !c->stage_done[seq]) c->early++;
    jitter(&c->seed[u]);
    if (j->seq != seq) c->torn++; /* the slot was rebuilt under this worker */
    if (u == 1) c->stage_done[seq] = 1;
    if (seq == c->fail_at[u]) {
        c->failed[u] = 1;
        return mh_err_set(err, MH_ERR_IO, "unit %u job %llu", u, (unsigned long long)seq);
    }
    return MH_OK;
}

/* Submits JOBS jobs (every 7th for unit 2 alone), then drains. */
static int run(ctx *c, unsigned workers, mh_err *err, uint64_t *submitted) {
    mh_ring *r;
    CHECK(mh_ring_new(&r, UNITS, workers, SLOTS, feed, c, err) == MH_OK);
    if (c->follow) mh_ring_follow(r, 2, 1);
    unsigned main_seed = workers * 31u;
    uint64_t s = 0;
    for (; s < JOBS; s++) {
        job *j = &c->slot[mh_ring_slot(r)];
        j->seq = s;
        j->mask = s % 7 == 6 ? 4u : 7u;
        jitter(&main_seed);
        if (mh_ring_submit(r, j, j->mask)) break;
    }
    *submitted = s;
    int rc = mh_ring_drain(r, err);
    mh_err again = {0};
    CHECK(mh_ring_drain(r, &again) == MH_OK); /* reported once */
    mh_ring_free(r);
    return rc;
}

static void ctx_init(ctx *c, unsigned round) {
    memset(c, 0, sizeof *c);
    for (unsigned u = 0; u < UNITS; u++) {
        c->fail_at[u] = UINT64_MAX;
        c->seed[u] = round * 7u + u;
    }
}

/* Without errors every unit gets every job of its mask, in order. */
static void test_all_jobs(void) {
    for (unsigned w = 1; w <= UNITS; w++)
        for (unsigned round = 0; round < 3; round++) {
            ctx c;
            ctx_init(&c, round);
            mh_err err = {0};
            uint64_t n;
            CHECK(run(&c, w, &err, &n) == MH_OK);
            CHECK_EQ_U(n, JOBS);
            uint64_t mine = JOBS - JOBS / 7; /* jobs 6, 13, ... go to unit 2 alone */
            CHECK_EQ_U(c.got[0], mine);
            CHECK_EQ_U(c.got[1], mine);
            CHECK_EQ_U(c.got[2], JOBS);
            CHECK(c.out_of_order == 0 && c.torn == 0 && c.wrong_mask == 0);
        }
}

/* Failing units: the first by job, then by unit order wins, every time. */
static void test_first_error(void) {
    static const struct {
        uint64_t f0, f1, f2;
        unsigned want_unit;
        uint64_t want_job;
    } cases[] = {
        {UINT64_MAX, 40, 40, 1, 40}, /* a tie: the unit first in order */
        {90, 60, 30, 2, 30},         /* a later unit fails first */
        {50, UINT64_MAX, 49, 2, 49},
        {UINT64_MAX, UINT64_MAX, 0, 2, 0},
        {3, 3, 3, 0, 3},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        for (unsigned w = 1; w <= UNITS; w++)
            for (unsigned round = 0; round < 4; round++) {
                ctx c;
                ctx_init(&c, round + 10 * (unsigned)k);
                c.fail_at[0] = cases[k].f0;
                c.fail_at[1] = cases[k].f1;
                c.fail_at[2] = cases[k].f2;
                mh_err err = {0};
                uint64_t n;
                CHECK(run(&c, w, &err, &n) == MH_ERR_IO);
                char want[64];
                snprintf(want, sizeof want, "unit %u job %llu", cases[k].want_unit,
                         (unsigned long long)cases[k].want_job);
                CHECK(strcmp(err.msg, want) == 0);
                if (strcmp(err.msg, want) != 0) fprintf(stderr, "got '%s', want '%s'\n", err.msg, want);
                CHECK(n > cases[k].want_job && n < JOBS); /* submitting stopped */
                for (unsigned u = 0; u < UNITS; u++) {
                    CHECK(c.after_fail[u] == 0);
                    /* every unit saw every job of its mask up to the failed one */
                    if (!c.failed[u]) CHECK(c.last[u] > cases[k].want_job);
                }
                CHECK(c.out_of_order == 0 && c.torn == 0);
            }
}

/* Unit 2 following unit 1: every job of both after unit 1's, on any number
 * of workers; when unit 1 fails, unit 2 takes no job from that one on. */
static void test_follow(void) {
    for (unsigned w = 1; w <= UNITS; w++)
        for (unsigned round = 0; round < 4; round++) {
            ctx c;
            ctx_init(&c, round + 50);
            c.follow = 1;
            mh_err err = {0};
            uint64_t n;
            CHECK(run(&c, w, &err, &n) == MH_OK);
            CHECK_EQ_U(c.got[2], JOBS);
            CHECK(c.early == 0 && c.out_of_order == 0 && c.torn == 0);
            ctx_init(&c, round + 60);
            c.follow = 1;
            c.fail_at[1] = 40;
            CHECK(run(&c, w, &err, &n) == MH_ERR_IO);
            CHECK(strcmp(err.msg, "unit 1 job 40") == 0);
            CHECK(c.early == 0 && c.last[2] <= 40);
        }
}

MH_TEST_MAIN({"all_jobs", test_all_jobs}, {"first_error", test_first_error}, {"follow", test_follow})
