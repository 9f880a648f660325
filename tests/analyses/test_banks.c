/* test_banks.c -- shared-memory bank-conflict degree: hand-computed warp
 * accesses, and per-pc statistics from a trace through the analyze pass. */
#include "../mh_test.h"
#include "memheat/analyze.h"
#include "memheat/banks.h"
#include "tbuild.h"

static unsigned deg_lanes(uint64_t stride_bytes, uint32_t size, unsigned lanes) {
    uint64_t a[64];
    uint32_t s[64];
    for (unsigned l = 0; l < lanes; l++) {
        a[l] = l * stride_bytes;
        s[l] = size;
    }
    return mh_bank_degree(a, s, lanes);
}

static void test_degree_by_hand(void) {
    CHECK_EQ_U(deg_lanes(4, 4, 32), 1);    /* consecutive words: 32 banks once */
    CHECK_EQ_U(deg_lanes(8, 4, 32), 2);    /* every other word: 16 banks twice */
    CHECK_EQ_U(deg_lanes(16, 4, 32), 4);
    CHECK_EQ_U(deg_lanes(128, 4, 32), 32); /* a column of a [32][32] float tile */
    CHECK_EQ_U(deg_lanes(132, 4, 32), 1);  /* padded [32][33]: conflict free */
    CHECK_EQ_U(deg_lanes(0, 4, 32), 1);    /* broadcast of one word */
    CHECK_EQ_U(deg_lanes(8, 8, 32), 2);    /* 64-bit: 64 words over 32 banks */
    CHECK_EQ_U(deg_lanes(4, 4, 0), 0);
    /* AIWC coalescedAB tile read aTile[lr][k] with lr = lane % 16: words
     * 16*lr + k; lanes 16..31 repeat lanes 0..15 (broadcast). Rows lr and
     * lr+2 share a bank: 8 distinct words per bank. */
    uint64_t a[32];
    uint32_t s[32];
    for (unsigned l = 0; l < 32; l++) {
        a[l] = 4u * (16u * (l % 16) + 3);
        s[l] = 4;
    }
    CHECK_EQ_U(mh_bank_degree(a, s, 32), 8);
    /* transposed: aTile[k][lr] -> words 16*k + lr: conflict free */
    for (unsigned l = 0; l < 32; l++) a[l] = 4u * (16u * 3 + (l % 16));
    CHECK_EQ_U(mh_bank_degree(a, s, 32), 1);
    /* a word straddling access (size 2 at offset 3) touches words 0 and 1 */
    uint64_t b[2] = {3, 128};
    uint32_t bs[2] = {2, 4};
    CHECK_EQ_U(mh_bank_degree(b, bs, 2), 2); /* words 0,1 and 32: bank 0 twice */
}

static void test_table(void) {
    mh_bank_table t;
    mh_bank_init(&t);
    for (unsigned i = 0; i < 100; i++) CHECK(mh_bank_add(&t, 1, 0x40 + (i % 3) * 16, 0, 1 + i % 3, 0, 0, i, NULL) == 0);
    CHECK_EQ_U(t.n, 3);
    const mh_bank_pc *p = mh_bank_get(&t, 1, 0x60); /* i % 3 == 2: degree 3 */
    CHECK(p != NULL);
    if (p) {
        CHECK_EQ_U(p->requests, 33);
        CHECK_EQ_U(p->max_degree, 3);
        CHECK_EQ_U(p->extra, 66);
    }
    CHECK(mh_bank_get(&t, 2, 0x60) == NULL);
    mh_bank_free(&t);
}

/* Through a trace: 2 warps; pc 0x10 reads a [32][32] tile column (degree 32),
 * pc 0x20 reads a row (degree 1). The lanes arrive interleaved across warps
 * and thread-major, as from a simulator. */
static void test_trace_per_pc(void) {
    tb t;
    CHECK(tb_open(&t, "banks"));
    tb_alloc(&t, 0, 0, 0, 4096, MH_SPACE_SHARED, "tile");
    tb_launch(&t, 0, "tiles", 1, 64);
    for (uint16_t th = 0; th < 64; th++) {
        tb_acc(&t, 0, 0, th, 0, 128u * (th % 32), 4, MH_KIND_LOAD, MH_SPACE_SHARED, 0x10);
        tb_acc(&t, 0, 0, th, 1, 4u * (th % 32), 4, MH_KIND_LOAD, MH_SPACE_SHARED, 0x20);
    }
    tb_end(&t, 0);
    CHECK(tb_close(&t));
    mh_analyze_result res;
    CHECK(mh_analyze_file(t.path, NULL, &res, NULL) == MH_OK);
    const mh_bank_table *bt = res.pat ? mh_pat_banks(res.pat) : NULL;
    CHECK(bt != NULL);
    if (bt) {
        const mh_bank_pc *c = mh_bank_get(bt, 0, 0x10), *r = mh_bank_get(bt, 0, 0x20);
        CHECK(c && r);
        if (c && r) {
            CHECK_EQ_U(c->requests, 2);
            CHECK_EQ_U(c->max_degree, 32);
            CHECK_EQ_U(c->sum_degree, 64);
            CHECK_EQ_U(r->max_degree, 1);
            CHECK_EQ_U(r->extra, 0);
        }
        size_t n = 0;
        const mh_pat_finding *f = mh_pat_findings(res.pat, &n);
        int conflict = 0, other_pc = 0;
        for (size_t i = 0; i < n; i++)
            if (f[i].kind == MH_PAT_BANK_CONFLICT) {
                if (f[i].pc == 0x10 && f[i].degree_max == 32) conflict++;
                else other_pc++;
            }
        CHECK_EQ_U(conflict, 1);
        CHECK_EQ_U(other_pc, 0);
    }
    mh_analyze_free(&res);
    unlink(t.path);
}

/* Lane t runs a loop t times (one global load per iteration), so every lane
 * reaches the shared store at pc 0x30 with a different seq; the store writes
 * tile[t][0] of a [32][32] tile: one warp access with all 32 lanes in bank 0,
 * degree 32. Grouping by seq made it 32 one-lane accesses of degree 1 and hid
 * the conflict. A second conflicting pc (0x40, degree 2) on the same tile is
 * merged into the same finding. */
static void test_divergent_conflict(void) {
    tb t;
    CHECK(tb_open(&t, "bankdiv"));
    tb_alloc(&t, 0, MH_TRACE_NO_LAUNCH, 0x100000, 4096, MH_SPACE_GLOBAL, "X");
    tb_alloc(&t, 1, 0, 0, 4096, MH_SPACE_SHARED, "tile");
    tb_launch(&t, 0, "diverge", 1, 32);
    for (uint16_t th = 0; th < 32; th++) {
        uint32_t seq = 0;
        for (uint32_t i = 0; i < th; i++)
            tb_acc(&t, 0, 0, th, seq++, 0x100000 + 4u * i, 4, MH_KIND_LOAD, MH_SPACE_GLOBAL, 0x10);
        tb_acc(&t, 0, 0, th, seq++, 128u * th, 4, MH_KIND_STORE, MH_SPACE_SHARED, 0x30);
        tb_acc(&t, 0, 0, th, seq++, 8u * th, 4, MH_KIND_LOAD, MH_SPACE_SHARED, 0x40);
    }
    tb_end(&t, 0);
    CHECK(tb_close(&t));
    mh_analyze_result res;
    CHECK(mh_analyze_file(t.path, NULL, &res, NULL) == MH_OK);
    const mh_bank_table *bt = res.pat ? mh_pat_banks(res.pat) : NULL;
    const mh_bank_pc *c = bt ? mh_bank_get(bt, 0, 0x30) : NULL, *d = bt ? mh_bank_get(bt, 0, 0x40) : NULL;
    CHECK(c && d);
    if (c && d) {
        CHECK_EQ_U(c->requests, 1);
        CHECK_EQ_U(c->max_degree, 32);
        CHECK_EQ_U(c->extra, 31);
        CHECK_EQ_U(d->requests, 1);
        CHECK_EQ_U(d->max_degree, 2);
    }
    size_t n = 0, conflicts = 0;
    const mh_pat_finding *f = res.pat ? mh_pat_findings(res.pat, &n) : NULL;
    for (size_t i = 0; i < n; i++) {
        if (f[i].kind != MH_PAT_BANK_CONFLICT) continue;
        conflicts++;
        CHECK_EQ_U(f[i].pc, 0x30);
        CHECK_EQ_U(f[i].degree_max, 32);
        CHECK(f[i].cost == 31.0 + 1.0);
        CHECK_EQ_U(f[i].npcs, 2);
        if (f[i].npcs == 2) CHECK(f[i].pcs[0].pc == 0x30 && f[i].pcs[1].pc == 0x40);
    }
    CHECK_EQ_U(conflicts, 1);
    mh_analyze_free(&res);
    unlink(t.path);
}

MH_TEST_MAIN(T(test_degree_by_hand), T(test_table), T(test_trace_per_pc), T(test_divergent_conflict))
