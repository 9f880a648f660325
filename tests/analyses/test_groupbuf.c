/* test_groupbuf.c -- mh_grp_add_run (src/analyses/groupbuf.h) is n calls of
 * mh_grp_add: two buffers fed the same accesses, one an access at a time,
 * the other a run of one key at a time, hand the same groups over in the
 * same order, and end with the same counts, bytes and peak. The streams
 * push every reason a group leaves: made whole, the byte budget (evictions
 * inside a run), age (a group left alone for more than 2^20 accesses, handed
 * over inside a run), a launch's end. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/groupbuf.h"
#include "../mh_test.h"

/* What the callback saw: per group its key, size and a hash of its entries. */
typedef struct seen {
    uint64_t *v;
    size_t n, cap;
} seen;

static void seen_put(seen *s, uint64_t x) {
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 4096;
        s->v = realloc(s->v, s->cap * sizeof *s->v);
        if (!s->v) abort();
    }
    s->v[s->n++] = x;
}

static uint64_t mix(uint64_t h, uint64_t x) {
    h ^= x + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    return h * 0xBF58476D1CE4E5B9ull;
}

static int done(void *ctx, const mh_grp_key *k, mh_grp_entry *v, size_t n, mh_err *err) {
    (void)err;
    uint64_t h = mix(mix(mix(k->pc, k->launch), (uint64_t)k->block << 32 | k->seq), (uint64_t)k->warp << 8 | k->space);
    for (size_t i = 0; i < n; i++) h = mix(mix(h, v[i].canon), (uint64_t)v[i].raw_lo << 32 | v[i].thread);
    seen_put(ctx, mix(h, n));
    return MH_OK;
}

typedef struct rng {
    uint64_t s;
} rng;

static uint32_t next(rng *r, uint32_t m) {
    r->s ^= r->s << 13, r->s ^= r->s >> 7, r->s ^= r->s << 17;
    return (uint32_t)(r->s % m);
}

/* One stream into a (one access at a time) and b (runs). keys: distinct
 * steps in flight; lonely: a group touched once at the start, then left
 * for more than max_age accesses (handed over by age). */
static void stream(mh_grp *a, mh_grp *b, uint64_t seed, uint32_t keys, size_t runs, int lonely) {
    rng r = {seed};
    mh_err err = {0};
    mh_grp_entry e[64];
    if (lonely) {
        mh_grp_key k;
        mh_grp_key_set(&k, 7, 9, 1, 1, 0, 0);
        mh_grp_entry_set(&e[0], 42, 42, 3, 4, 1);
        CHECK(mh_grp_add(a, &k, &e[0], 0, 32, &err) == MH_OK);
        CHECK(mh_grp_add_run(b, &k, e, 1, 0, 32, &err) == MH_OK);
    }
    for (size_t i = 0; i < runs; i++) {
        uint32_t launch = 1 + next(&r, 2), warp = next(&r, 4), step = next(&r, keys);
        mh_grp_key k;
        mh_grp_key_set(&k, 0x100 + 16 * next(&r, 3), launch, next(&r, 2), step, (uint16_t)warp, 0);
        uint32_t n = 1 + next(&r, 40), full = next(&r, 4) ? 32 : 0, t0 = next(&r, 3) ? 0 : next(&r, 32);
        int whole = next(&r, 2) == 0; /* a whole warp request: 32 rising lanes, handed over at the next add */
        if (whole) n = 32, full = 32, t0 = 0;
        for (uint32_t j = 0; j < n; j++) {
            /* rising lanes from t0 mostly; now and then a repeated or falling one */
            uint32_t t = whole || next(&r, 16) ? warp * 32 + (t0 + j) % 32 : warp * 32 + next(&r, 32);
            mh_grp_entry_set(&e[j], (uint64_t)launch << 40 | next(&r, 1u << 20), next(&r, 1u << 30), (uint16_t)t, 4,
                             1);
        }
        for (uint32_t j = 0; j < n; j++) CHECK(mh_grp_add(a, &k, &e[j], warp * 32, full, &err) == MH_OK);
        CHECK(mh_grp_add_run(b, &k, e, n, warp * 32, full, &err) == MH_OK);
        if (next(&r, 5000) == 0) { /* a launch ends */
            CHECK(mh_grp_flush_launch(a, launch, &err) == MH_OK);
            CHECK(mh_grp_flush_launch(b, launch, &err) == MH_OK);
        }
    }
    if (lonely) { /* the lonely step again, long after it left: a split group */
        mh_grp_key k;
        mh_grp_key_set(&k, 7, 9, 1, 1, 0, 0);
        mh_grp_entry_set(&e[0], 43, 43, 4, 4, 1);
        mh_grp_entry_set(&e[1], 44, 44, 5, 4, 1);
        CHECK(mh_grp_add(a, &k, &e[0], 0, 32, &err) == MH_OK);
        CHECK(mh_grp_add(a, &k, &e[1], 0, 32, &err) == MH_OK);
        CHECK(mh_grp_add_run(b, &k, e, 2, 0, 32, &err) == MH_OK);
    }
}

static void same_run(size_t budget, uint64_t seed, uint32_t keys, size_t runs, int lonely) {
    seen sa = {0}, sb = {0};
    mh_grp *a, *b;
    mh_err err = {0};
    CHECK(mh_grp_new(&a, budget, done, &sa, &err) == MH_OK);
    CHECK(mh_grp_new(&b, budget, done, &sb, &err) == MH_OK);
    stream(a, b, seed, keys, runs, lonely);
    CHECK_EQ_U(mh_grp_bytes(a), mh_grp_bytes(b));
    CHECK(mh_grp_flush_all(a, &err) == MH_OK);
    CHECK(mh_grp_flush_all(b, &err) == MH_OK);
    CHECK(sa.n > 0);
    CHECK_EQ_U(sa.n, sb.n);
    size_t first_diff = sa.n;
    for (size_t i = 0; i < sa.n && i < sb.n; i++)
        if (sa.v[i] != sb.v[i]) {
            first_diff = i;
            break;
        }
    CHECK_EQ_U(first_diff, sa.n);
    CHECK_EQ_U(mh_grp_done_count(a), mh_grp_done_count(b));
    CHECK_EQ_U(mh_grp_evicted(a), mh_grp_evicted(b));
    CHECK_EQ_U(mh_grp_split(a), mh_grp_split(b));
    if (lonely) CHECK(mh_grp_split(a) > 0);
    CHECK_EQ_U(mh_grp_peak_bytes(a), mh_grp_peak_bytes(b));
    mh_grp_free(a);
    mh_grp_free(b);
    free(sa.v);
    free(sb.v);
}

/* A budget of no limit: groups leave when whole or at a launch's end. */
static void test_runs_whole(void) { same_run(SIZE_MAX, 1, 64, 20000, 0); }

/* A budget a few dozen groups fill: evictions, some inside runs. */
static void test_runs_budget(void) {
    same_run(48 << 10, 2, 512, 20000, 0);
    same_run(200 << 10, 3, 4096, 20000, 0);
}

/* A group left alone for over 2^20 accesses: handed over by age, inside a
 * run of the other buffer (before the group the run makes whole, which
 * leaves at the next add); its step coming back at the end is a split.
 * Several seeds: the age runs out inside a run of a whole group in about
 * half of them. */
static void test_runs_age(void) {
    for (uint64_t seed = 4; seed < 12; seed++) same_run(SIZE_MAX, seed, 8, 60000, 1);
}

int main(void) {
    static const mh_test_case cases[] = {T(test_runs_whole), T(test_runs_budget), T(test_runs_age)};
    return mh_test_run(cases, sizeof cases / sizeof cases[0]);
}
