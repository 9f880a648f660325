/* test_banks.c -- shared-memory bank conflicts under the phase rule: hand-computed warp
 * accesses, and per-pc statistics from a trace through the analyze pass. */
#include <jansson.h>
#include <string.h>

#include "../mh_test.h"
#include "render/analyze.h"
#include "analyses/banks.h"
#include "tbuild.h"

/* Lanes lo..hi-1 of one warp, lane l at byte base + l * stride, `size` bytes. */
static mh_bank_cost cost_lanes(uint64_t base, uint64_t stride, uint32_t size, unsigned lo, unsigned hi) {
    uint64_t a[64];
    uint32_t s[64], ln[64];
    size_t n = 0;
    for (unsigned l = lo; l < hi; l++, n++) {
        a[n] = base + l * stride;
        s[n] = size;
        ln[n] = l;
    }
    return mh_bank_cost_of(a, s, ln, n, 32);
}

static unsigned deg_lanes(uint64_t stride_bytes, uint32_t size, unsigned lanes) {
    return cost_lanes(0, stride_bytes, size, 0, lanes).wavefronts;
}

#define CHECK_COST(c, w, p, worst_)      \
    do {                                 \
        mh_bank_cost c_ = (c);           \
        CHECK_EQ_U(c_.wavefronts, (w));  \
        CHECK_EQ_U(c_.phases, (p));      \
        CHECK_EQ_U(c_.worst, (worst_));  \
    } while (0)

static void test_phases(void) {
    CHECK_EQ_U(mh_bank_phases(1), 1);
    CHECK_EQ_U(mh_bank_phases(2), 1);
    CHECK_EQ_U(mh_bank_phases(4), 1);
    CHECK_EQ_U(mh_bank_phases(8), 2);
    CHECK_EQ_U(mh_bank_phases(16), 4);
}

static void test_degree_by_hand(void) {
    CHECK_EQ_U(deg_lanes(4, 4, 32), 1);    /* consecutive words: 32 banks once */
    CHECK_EQ_U(deg_lanes(8, 4, 32), 2);    /* every other word: 16 banks twice */
    CHECK_EQ_U(deg_lanes(16, 4, 32), 4);
    CHECK_EQ_U(deg_lanes(128, 4, 32), 32); /* a column of a [32][32] float tile */
    CHECK_EQ_U(deg_lanes(132, 4, 32), 1);  /* padded [32][33]: conflict free */
    CHECK_EQ_U(deg_lanes(0, 4, 32), 1);    /* broadcast of one word */
    CHECK_EQ_U(deg_lanes(4, 4, 0), 0);
    CHECK_COST(cost_lanes(0, 4, 4, 0, 0), 0, 0, 0);
    /* the degree per bank: a column is one bank at 32, the padded tile every bank at 1 */
    mh_bank_cost col = cost_lanes(0, 128, 4, 0, 32), pad = cost_lanes(0, 132, 4, 0, 32);
    unsigned others = 0, ones = 0;
    for (unsigned b = 1; b < MH_BANK_COUNT; b++) others += col.bank[b];
    for (unsigned b = 0; b < MH_BANK_COUNT; b++) ones += pad.bank[b] == 1;
    CHECK_EQ_U(col.bank[0], 32);
    CHECK_EQ_U(others, 0);
    CHECK_EQ_U(ones, 32);
    /* two phases of 8-byte lanes: the worst phase's banks (lanes 16..31 on bank 0 twice as often) */
    uint64_t wa[32];
    uint32_t ws[32], wl[32];
    for (unsigned l = 0; l < 32; l++) {
        wa[l] = l < 16 ? 8u * l : 256u * (l - 16); /* phase 0: consecutive; phase 1: words 64k, 64k+1 */
        ws[l] = 8;
        wl[l] = l;
    }
    mh_bank_cost wide = mh_bank_cost_of(wa, ws, wl, 32, 32);
    CHECK_EQ_U(wide.worst, 16);
    CHECK_EQ_U(wide.bank[0], 16);
    CHECK_EQ_U(wide.bank[1], 16);
    CHECK_EQ_U(wide.bank[2], 0);
    /* AIWC coalescedAB tile read aTile[lr][k] with lr = lane % 16: words
     * 16*lr + k; lanes 16..31 repeat lanes 0..15 (broadcast). Rows lr and
     * lr+2 share a bank: 8 distinct words per bank. */
    uint64_t a[32];
    uint32_t s[32], ln[32];
    for (unsigned l = 0; l < 32; l++) {
        a[l] = 4u * (16u * (l % 16) + 3);
        s[l] = 4;
        ln[l] = l;
    }
    CHECK_COST(mh_bank_cost_of(a, s, ln, 32, 32), 8, 1, 8);
    /* transposed: aTile[k][lr] -> words 16*k + lr: conflict free */
    for (unsigned l = 0; l < 32; l++) a[l] = 4u * (16u * 3 + (l % 16));
    CHECK_COST(mh_bank_cost_of(a, s, ln, 32, 32), 1, 1, 1);
    /* a word straddling access (size 2 at offset 3) touches words 0 and 1 */
    uint64_t b[2] = {3, 128};
    uint32_t bs[2] = {2, 4}, bl[2] = {0, 1};
    CHECK_EQ_U(mh_bank_cost_of(b, bs, bl, 2, 32).wavefronts, 2); /* words 0,1 and 32: bank 0 twice */
}

/* 1- and 2-byte accesses: one phase of 32 lanes; sub-word accesses to one
 * word are one word. */
static void test_subword(void) {
    CHECK_COST(cost_lanes(0, 1, 1, 0, 32), 1, 1, 1);   /* 32 bytes: words 0..7 */
    CHECK_COST(cost_lanes(0, 2, 2, 0, 32), 1, 1, 1);   /* 64 bytes: words 0..15 */
    CHECK_COST(cost_lanes(0, 0, 1, 0, 32), 1, 1, 1);   /* one byte, broadcast */
    CHECK_COST(cost_lanes(0, 128, 1, 0, 32), 32, 1, 32); /* char s[32*128]; s[128t] */
    CHECK_COST(cost_lanes(0, 256, 2, 0, 32), 32, 1, 32); /* two lanes per 2 rows: 32 words of bank 0 */
    CHECK_COST(cost_lanes(0, 64, 2, 0, 32), 16, 1, 16);  /* 16 distinct words per bank 0 and 16 */
}

/* The four kernels of issue 17 (ncu on an H100, 256 threads), one warp. */
static void test_ncu_cases(void) {
    CHECK_COST(cost_lanes(16, 16, 16, 0, 32), 4, 4, 1);  /* float4 s[256]; v = s[t+1]: 4, no conflict */
    CHECK_COST(cost_lanes(8, 8, 8, 0, 32), 2, 2, 1);     /* float2 s[256]; v = s[t+1]: 2, no conflict */
    CHECK_COST(cost_lanes(32, 32, 16, 0, 32), 8, 4, 2);  /* float4 s[512]; v = s[2t+2]: 8, 4 extra */
    CHECK_COST(cost_lanes(0, 128, 4, 0, 32), 32, 1, 32); /* float s[256*32]; v = s[32t]: 32 */
}

/* 8- and 16-byte accesses: conflicts count within a phase only. */
static void test_wide(void) {
    /* double s[]; v = s[t]: each half-warp 32 consecutive words */
    CHECK_COST(cost_lanes(0, 8, 8, 0, 32), 2, 2, 1);
    /* double s[]; v = s[2t]: each half-warp's lanes l and l+8 share banks */
    CHECK_COST(cost_lanes(0, 16, 8, 0, 32), 4, 2, 2);
    /* double s[]; v = s[16t]: 16 lanes x 2 words in banks 0 and 1 */
    CHECK_COST(cost_lanes(0, 128, 8, 0, 32), 32, 2, 16);
    /* the two half-warps read the same 32 words: no conflict across phases */
    uint64_t a[32];
    uint32_t s[32], ln[32];
    for (unsigned l = 0; l < 32; l++) {
        a[l] = 8u * (l % 16);
        s[l] = 8;
        ln[l] = l;
    }
    CHECK_COST(mh_bank_cost_of(a, s, ln, 32, 32), 2, 2, 1);
    /* float4 stride 16 words: lanes 0, 2, 4, 6 of a quarter in banks 0..3 */
    CHECK_COST(cost_lanes(0, 64, 16, 0, 32), 16, 4, 4);
    /* float4 s[][9]-like padding (stride 9 float4 = 36 words): conflict free */
    CHECK_COST(cost_lanes(0, 144, 16, 0, 32), 4, 4, 1);
}

/* Partial warps: phases without an active lane cost nothing. */
static void test_partial(void) {
    CHECK_COST(cost_lanes(0, 16, 16, 0, 8), 1, 1, 1);    /* float4, first quarter only */
    CHECK_COST(cost_lanes(0, 16, 16, 0, 9), 2, 2, 1);    /* one lane of the second quarter */
    CHECK_COST(cost_lanes(0, 8, 8, 16, 32), 1, 1, 1);    /* double, second half only */
    CHECK_COST(cost_lanes(0, 128, 4, 0, 5), 5, 1, 5);    /* 5 lanes in bank 0 */
    CHECK_COST(cost_lanes(0, 64, 16, 24, 32), 4, 1, 4);  /* last quarter, even lanes collide */
    /* lanes 0..3 and 28..31 of a float4 access: phases 0 and 3 */
    uint64_t a[8];
    uint32_t s[8], ln[8];
    for (unsigned i = 0; i < 8; i++) {
        ln[i] = i < 4 ? i : 24 + i;
        a[i] = 16u * ln[i];
        s[i] = 16;
    }
    CHECK_COST(mh_bank_cost_of(a, s, ln, 8, 32), 2, 2, 1);
}

/* Broadcast: the same word read by many lanes is delivered once. */
static void test_broadcast(void) {
    CHECK_COST(cost_lanes(64, 0, 4, 0, 32), 1, 1, 1);
    CHECK_COST(cost_lanes(64, 0, 8, 0, 32), 2, 2, 1);
    CHECK_COST(cost_lanes(64, 0, 16, 0, 32), 4, 4, 1);
    /* even lanes word 0, odd lanes word 32: two words of bank 0 */
    uint64_t a[32];
    uint32_t s[32], ln[32];
    for (unsigned l = 0; l < 32; l++) {
        a[l] = (l & 1) ? 128 : 0;
        s[l] = 4;
        ln[l] = l;
    }
    CHECK_COST(mh_bank_cost_of(a, s, ln, 32, 32), 2, 1, 2);
}

static mh_bank_cost cost3(unsigned w, unsigned p, unsigned worst) {
    mh_bank_cost c = {.wavefronts = w, .phases = p, .worst = worst};
    return c;
}

static void test_table(void) {
    mh_bank_table t;
    mh_bank_init(&t);
    for (unsigned i = 0; i < 100; i++)
        CHECK(mh_bank_add(&t, 1, 0x40 + (i % 3) * 16, 0, MH_KIND_LOAD, cost3(1 + i % 3, 1, 1 + i % 3), 0, 0, i,
                          NULL) == 0);
    CHECK_EQ_U(t.n, 3);
    const mh_bank_pc *p = mh_bank_get(&t, 1, 0x60); /* i % 3 == 2: degree 3 */
    CHECK(p != NULL);
    if (p) {
        CHECK_EQ_U(p->requests, 33);
        CHECK_EQ_U(p->max_degree, 3);
        CHECK_EQ_U(p->extra, 66);
        CHECK_EQ_U(p->ideal, 33);
        CHECK_EQ_U(p->ex_occ, 2); /* the first access with the most extra wavefronts */
    }
    /* wide accesses: the phases are not conflicts */
    CHECK(mh_bank_add(&t, 2, 0x10, 0, MH_KIND_STORE, cost3(4, 4, 1), 0, 0, 0, NULL) == 0);
    CHECK(mh_bank_add(&t, 2, 0x10, 0, MH_KIND_STORE, cost3(8, 4, 2), 0, 3, 1, NULL) == 0);
    const mh_bank_pc *q = mh_bank_get(&t, 2, 0x10);
    CHECK(q != NULL);
    if (p) CHECK_EQ_U(p->kind, MH_KIND_LOAD);
    if (q) CHECK_EQ_U(q->kind, MH_KIND_STORE); /* the kind the pc was first seen with */
    if (q) {
        CHECK_EQ_U(q->sum_degree, 12);
        CHECK_EQ_U(q->ideal, 8);
        CHECK_EQ_U(q->extra, 4);
        CHECK_EQ_U(q->max_degree, 8);
        CHECK_EQ_U(q->max_worst, 2);
        CHECK_EQ_U(q->ex_warp, 3);
        CHECK_EQ_U(q->ex_extra, 4);
    }
    CHECK(mh_bank_get(&t, 2, 0x60) == NULL);
    mh_bank_free(&t);
}

/* A launch's entries put in pc order in their places; another launch's,
 * interleaved with them, and those before `from` stay; every entry is still
 * found by (launch, pc). */
static void test_sort_launch(void) {
    mh_bank_table t;
    mh_bank_init(&t);
    static const uint64_t pcs[] = {0x90, 0x50, 0x30, 0x70, 0x10, 0x60, 0x20, 0x80, 0x40};
    enum { N = sizeof pcs / sizeof pcs[0] };
    CHECK(mh_bank_add(&t, 1, 0x99, 0, MH_KIND_LOAD, cost3(1, 1, 1), 0, 0, 0, NULL) == 0); /* before from */
    for (unsigned i = 0; i < N; i++) {
        CHECK(mh_bank_add(&t, 1, pcs[i], 0, MH_KIND_LOAD, cost3(1 + i, 1, 1), 0, 0, 0, NULL) == 0);
        if (i % 3 == 0) CHECK(mh_bank_add(&t, 2, pcs[i], 0, MH_KIND_STORE, cost3(1, 1, 1), 0, 0, 0, NULL) == 0);
    }
    size_t n = t.n;
    CHECK(mh_bank_sort_launch(&t, 1, 1, NULL) == MH_OK);
    CHECK_EQ_U(t.n, n);
    CHECK(t.v[0].launch == 1 && t.v[0].pc == 0x99);
    uint64_t last = 0;
    unsigned ones = 0;
    for (size_t i = 1; i < t.n; i++) {
        if (t.v[i].launch == 2) {
            CHECK_EQ_U(t.v[i].kind, MH_KIND_STORE);
            continue;
        }
        CHECK(t.v[i].pc > last); /* rising pcs */
        last = t.v[i].pc;
        ones++;
    }
    CHECK_EQ_U(ones, N);
    CHECK(t.v[1].launch == 1 && t.v[2].launch == 2); /* the places kept: launch 2's first after launch 1's first */
    for (unsigned i = 0; i < N; i++) {
        const mh_bank_pc *p = mh_bank_get(&t, 1, pcs[i]);
        CHECK(p != NULL && p->pc == pcs[i] && p->sum_degree == 1 + i);
        if (i % 3 == 0) CHECK(mh_bank_get(&t, 2, pcs[i]) != NULL && mh_bank_get(&t, 2, pcs[i])->launch == 2);
    }
    mh_bank_free(&t);
}

/* Which fix: a tree reduction indexed a[2*s*i] (its degree grows from one
 * execution of the pc to the next) against a tile read by columns (the same
 * degree at every execution; a partial warp at an edge has less). */
static void test_growing_stride(void) {
    mh_bank_table t;
    mh_bank_init(&t);
    for (uint32_t occ = 0; occ < 4; occ++) /* s = 1, 2, 4, 8: 2, 4, 8, 16 words of one bank */
        CHECK(mh_bank_add(&t, 0, 0x10, 0, MH_KIND_LOAD, cost3(2u << occ, 1, 2u << occ), 0, 0, occ, NULL) == 0);
    for (uint32_t occ = 0; occ < 4; occ++) { /* a [32][32] tile column per loop trip; warp 1 a partial warp */
        CHECK(mh_bank_add(&t, 0, 0x20, 0, MH_KIND_LOAD, cost3(32, 1, 32), 0, 0, occ, NULL) == 0);
        CHECK(mh_bank_add(&t, 0, 0x20, 0, MH_KIND_LOAD, cost3(8, 1, 8), 0, 1, occ, NULL) == 0);
    }
    CHECK(mh_bank_add(&t, 0, 0x30, 0, MH_KIND_LOAD, cost3(8, 1, 8), 0, 1, 0, NULL) == 0); /* once: no history */
    const mh_bank_pc *red = mh_bank_get(&t, 0, 0x10), *tile = mh_bank_get(&t, 0, 0x20), *once = mh_bank_get(&t, 0, 0x30);
    CHECK(red && tile && once);
    if (red) {
        CHECK_EQ_U(red->worst_occ[0], 2);
        CHECK_EQ_U(red->worst_occ[1], 4);
        CHECK(mh_bank_growing_stride(red));
    }
    if (tile) CHECK(!mh_bank_growing_stride(tile));
    if (once) CHECK(!mh_bank_growing_stride(once));
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
    uint32_t s0 = tb_fill_shared(&t, 0, 0, 64, 1024); /* the tile stored first (tbuild.h) */
    for (uint16_t th = 0; th < 64; th++) {
        tb_acc(&t, 0, 0, th, s0, 128u * (th % 32), 4, MH_KIND_LOAD, MH_SPACE_SHARED, 0x10);
        tb_acc(&t, 0, 0, th, s0 + 1, 4u * (th % 32), 4, MH_KIND_LOAD, MH_SPACE_SHARED, 0x20);
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
            CHECK_EQ_U(c->ex_banks[0], 32); /* the worst request: one tall bank */
            CHECK_EQ_U(c->ex_banks[1], 0);
            CHECK_EQ_U(r->ex_banks[5], 1);
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
    uint32_t s0 = tb_fill_shared(&t, 0, 0, 32, 1024); /* the tile stored first (tbuild.h) */
    for (uint16_t th = 0; th < 32; th++) {
        uint32_t seq = s0;
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

/* The four kernels of issue 17 through a trace: one block of 256 threads
 * (8 warps). Per warp access: float4 s[t+1] 4 wavefronts, 0 extra; float2
 * s[t+1] 2, 0 extra; float4 s[2t+2] 8, 4 extra; float s[32t] 32, 31 extra.
 * Only the last two are bank_conflict findings. */
static void test_trace_vector(void) {
    tb t;
    CHECK(tb_open(&t, "bankvec"));
    tb_alloc(&t, 0, 0, 0, 65536, MH_SPACE_SHARED, "s");
    tb_launch(&t, 0, "vec", 1, 256);
    uint32_t s0 = tb_fill_shared(&t, 0, 0, 256, 8192); /* the array stored first (tbuild.h) */
    for (uint16_t th = 0; th < 256; th++) {
        tb_acc(&t, 0, 0, th, s0, 16u * (th + 1u), 16, MH_KIND_LOAD, MH_SPACE_SHARED, 0x10);
        tb_acc(&t, 0, 0, th, s0 + 1, 8u * (th + 1u), 8, MH_KIND_LOAD, MH_SPACE_SHARED, 0x20);
        tb_acc(&t, 0, 0, th, s0 + 2, 16u * (2u * th + 2u), 16, MH_KIND_LOAD, MH_SPACE_SHARED, 0x30);
        tb_acc(&t, 0, 0, th, s0 + 3, 4u * 32u * th, 4, MH_KIND_LOAD, MH_SPACE_SHARED, 0x40);
    }
    tb_end(&t, 0);
    CHECK(tb_close(&t));
    mh_analyze_result res;
    CHECK(mh_analyze_file(t.path, NULL, &res, NULL) == MH_OK);
    const mh_bank_table *bt = res.pat ? mh_pat_banks(res.pat) : NULL;
    CHECK(bt != NULL);
    static const struct {
        uint64_t pc;
        unsigned per_access, extra_per_access;
    } want[] = {{0x10, 4, 0}, {0x20, 2, 0}, {0x30, 8, 4}, {0x40, 32, 31}};
    for (size_t i = 0; bt && i < sizeof want / sizeof want[0]; i++) {
        const mh_bank_pc *b = mh_bank_get(bt, 0, want[i].pc);
        CHECK(b != NULL);
        if (!b) continue;
        CHECK_EQ_U(b->requests, 8);
        CHECK_EQ_U(b->sum_degree, 8u * want[i].per_access);
        CHECK_EQ_U(b->max_degree, want[i].per_access);
        CHECK_EQ_U(b->extra, 8u * want[i].extra_per_access);
    }
    size_t n = 0;
    const mh_pat_finding *f = res.pat ? mh_pat_findings(res.pat, &n) : NULL;
    int seen30 = 0, seen40 = 0, clean = 0;
    for (size_t i = 0; i < n; i++) {
        if (f[i].kind != MH_PAT_BANK_CONFLICT) continue;
        for (size_t j = 0; j < f[i].npcs; j++) {
            uint64_t pc = f[i].pcs[j].pc;
            if (pc == 0x30) {
                seen30++;
                CHECK(f[i].pcs[j].cost == 32.0);
            } else if (pc == 0x40) {
                seen40++;
                CHECK(f[i].pcs[j].cost == 8.0 * 31.0);
            } else {
                clean++;
            }
        }
    }
    CHECK_EQ_U(seen30, 1);
    CHECK_EQ_U(seen40, 1);
    CHECK_EQ_U(clean, 0);
    mh_analyze_free(&res);
    unlink(t.path);
}

static json_int_t jint_of(const json_t *o, const char *k) { return json_integer_value(json_object_get(o, k)); }

static const json_t *by_pc(const json_t *a, json_int_t pc) {
    size_t i;
    const json_t *x;
    json_array_foreach(a, i, x) if (jint_of(x, "pc") == pc) return x;
    return NULL;
}

/* What bench/oracle reads from `memheat analyze --json` (issue 17): the
 * launch's grid and traced blocks, per shared pc its kind, wavefronts and
 * their ideal, per global pc its kind, requests and sectors. Block 2 of a
 * grid of 4 is traced, 64 threads (2 warps): pc 0x10 stores float4 s[t] (4
 * wavefronts per warp, all ideal), 0x20 loads float s[32t] (32 wavefronts,
 * 31 extra), 0x30 loads in[2t] (8 sectors per request where 4 would do), 0x40
 * stores out[t] (4 sectors). */
static void test_json_oracle_fields(void) {
    tb t;
    CHECK(tb_open(&t, "bankjson"));
    tb_alloc(&t, 0, MH_TRACE_NO_LAUNCH, 0x100000, 4096, MH_SPACE_GLOBAL, "in");
    tb_alloc(&t, 1, MH_TRACE_NO_LAUNCH, 0x200000, 4096, MH_SPACE_GLOBAL, "out");
    tb_alloc(&t, 2, 0, 0, 65536, MH_SPACE_SHARED, "s");
    static const uint32_t sampled[] = {2};
    mh_launch l = {0};
    l.id = 0;
    l.name = "_Z6oraclev";
    l.display_name = "oracle()";
    l.grid = (mh_dim3){4, 1, 1};
    l.block = (mh_dim3){64, 1, 1};
    l.n_sampled = 1;
    l.sampled = sampled;
    if (t.ok) t.ok = mh_trace_write_launch(t.w, &l, &t.err) == MH_OK;
    for (uint16_t th = 0; th < 64; th++) {
        tb_acc(&t, 0, 2, th, 0, 16u * th, 16, MH_KIND_STORE, MH_SPACE_SHARED, 0x10);
        tb_acc(&t, 0, 2, th, 1, 128u * th, 4, MH_KIND_LOAD, MH_SPACE_SHARED, 0x20);
        tb_acc(&t, 0, 2, th, 2, 0x100000 + 8u * th, 4, MH_KIND_LOAD, MH_SPACE_GLOBAL, 0x30);
        tb_acc(&t, 0, 2, th, 3, 0x200000 + 4u * th, 4, MH_KIND_STORE, MH_SPACE_GLOBAL, 0x40);
    }
    tb_end(&t, 0);
    CHECK(tb_close(&t));
    mh_analyze_result res;
    CHECK(mh_analyze_file(t.path, NULL, &res, NULL) == MH_OK);
    char out[300];
    snprintf(out, sizeof out, "%s.json", t.path);
    CHECK(mh_analyze_write_json(out, &res, NULL) == MH_OK);
    mh_analyze_free(&res);
    json_t *j = json_load_file(out, 0, NULL);
    CHECK(j != NULL);
    if (j) {
        const json_t *k = json_array_get(json_object_get(j, "kernels"), 0);
        CHECK(k != NULL);
        CHECK_EQ_U(jint_of(k, "grid_blocks"), 4);
        CHECK_EQ_U(jint_of(k, "traced_blocks"), 1);
        CHECK_EQ_U(jint_of(k, "block_threads"), 64);
        CHECK(!strcmp(json_string_value(json_object_get(k, "kernel")), "oracle()"));
        const json_t *ba = json_object_get(j, "bank_conflicts"), *st = by_pc(ba, 0x10), *ld = by_pc(ba, 0x20);
        CHECK(st && ld);
        if (st && ld) {
            CHECK(!strcmp(json_string_value(json_object_get(st, "kind")), "store"));
            CHECK(!strcmp(json_string_value(json_object_get(ld, "kind")), "load"));
            CHECK_EQ_U(jint_of(st, "requests"), 2);
            CHECK_EQ_U(jint_of(st, "wavefronts"), 8);
            CHECK_EQ_U(jint_of(st, "ideal_wavefronts"), 8);
            CHECK_EQ_U(jint_of(st, "extra_wavefronts"), 0);
            CHECK_EQ_U(jint_of(ld, "wavefronts"), 64);
            CHECK_EQ_U(jint_of(ld, "ideal_wavefronts"), 2);
            CHECK_EQ_U(jint_of(ld, "extra_wavefronts"), 62);
        }
        const json_t *ra = json_object_get(j, "global_requests"), *gl = by_pc(ra, 0x30), *gs = by_pc(ra, 0x40);
        CHECK(gl && gs);
        CHECK_EQ_U(json_array_size(ra), 2);
        if (gl && gs) {
            CHECK(!strcmp(json_string_value(json_object_get(gl, "kind")), "load"));
            CHECK(!strcmp(json_string_value(json_object_get(gs, "kind")), "store"));
            CHECK_EQ_U(jint_of(gl, "requests"), 2);
            CHECK_EQ_U(jint_of(gl, "sectors"), 16);
            CHECK_EQ_U(jint_of(gl, "ideal_sectors"), 8);
            CHECK_EQ_U(jint_of(gs, "requests"), 2);
            CHECK_EQ_U(jint_of(gs, "sectors"), 8);
            CHECK_EQ_U(jint_of(gl, "object"), 0);
            CHECK_EQ_U(jint_of(gs, "object"), 1);
        }
        json_decref(j);
    }
    unlink(out);
    unlink(t.path);
}

/* Lane numbers are taken modulo the warp size, and the lanes of a phase
 * are ws / phases also when that is no power of two: a 24-lane warp of
 * float4 loads is 4 phases of 6 lanes, 24 consecutive words each. */
static void test_lane_numbers_and_odd_warp(void) {
    uint64_t a[32];
    uint32_t s[32], ln[32], hi[32];
    for (unsigned l = 0; l < 32; l++) {
        a[l] = 16u * l;
        s[l] = 16;
        ln[l] = l;
        hi[l] = l + 64; /* the same lanes, numbered from the third warp */
    }
    mh_bank_cost c = mh_bank_cost_of(a, s, ln, 32, 32), d = mh_bank_cost_of(a, s, hi, 32, 32);
    CHECK_COST(c, 4, 4, 1);
    CHECK_COST(d, 4, 4, 1);
    CHECK_COST(mh_bank_cost_of(a, s, ln, 24, 24), 4, 4, 1);
    for (unsigned l = 0; l < 24; l++) hi[l] = l + 24;
    CHECK_COST(mh_bank_cost_of(a, s, hi, 24, 24), 4, 4, 1);
}

/* Random warp accesses of 4, 8 and 16 bytes (lanes in any order, some
 * missing, words repeated) against a reference written from the rule
 * directly: per phase, the distinct words, counted per bank; the worst
 * phase the first of equals. Wide accesses take the per-phase sort path. */
static void test_random_against_rule(void) {
    uint64_t seed = 12345;
    for (int round = 0; round < 3000; round++) {
        uint64_t a[32];
        uint32_t s[32], ln[32];
        uint32_t size = 4u << (round % 3);
        size_t n = 0;
        for (unsigned l = 0; l < 32; l++) {
            seed = seed * 6364136223846793005u + 1442695040888963407u;
            if ((seed >> 60) == 0) continue; /* an inactive lane now and then */
            unsigned word = (unsigned)(seed >> 33) % (round % 2 ? 64u : 4096u); /* small range: repeats */
            a[n] = (uint64_t)word * size;
            s[n] = size;
            ln[n++] = (l * 7u) % 32u; /* lanes out of order */
        }
        mh_bank_cost c = mh_bank_cost_of(a, s, ln, n, 32);
        unsigned phases = mh_bank_phases(size), per = 32 / phases;
        unsigned want_wf = 0, want_ph = 0, want_worst = 0;
        uint16_t want_bank[MH_BANK_COUNT] = {0};
        for (unsigned ph = 0; ph < phases; ph++) {
            uint64_t words[128];
            size_t nw = 0;
            for (size_t i = 0; i < n; i++) {
                if (ln[i] / per != ph) continue;
                for (uint64_t w = a[i] / 4; w <= (a[i] + s[i] - 1) / 4; w++) {
                    size_t k = 0;
                    while (k < nw && words[k] != w) k++;
                    if (k == nw) words[nw++] = w;
                }
            }
            if (!nw) continue;
            unsigned per_bank[MH_BANK_COUNT] = {0}, best = 0;
            for (size_t k = 0; k < nw; k++)
                if (++per_bank[words[k] % MH_BANK_COUNT] > best) best = per_bank[words[k] % MH_BANK_COUNT];
            want_ph++;
            want_wf += best;
            if (best > want_worst) {
                want_worst = best;
                for (unsigned b = 0; b < MH_BANK_COUNT; b++) want_bank[b] = (uint16_t)per_bank[b];
            }
        }
        CHECK_EQ_U(c.wavefronts, want_wf);
        CHECK_EQ_U(c.phases, want_ph);
        CHECK_EQ_U(c.worst, want_worst);
        CHECK(!memcmp(c.bank, want_bank, sizeof want_bank));
    }
}

MH_TEST_MAIN(T(test_phases), T(test_degree_by_hand), T(test_subword), T(test_ncu_cases), T(test_wide), T(test_partial),
             T(test_broadcast), T(test_table), T(test_growing_stride), T(test_trace_per_pc), T(test_divergent_conflict), T(test_trace_vector),
             T(test_json_oracle_fields), T(test_lane_numbers_and_odd_warp),
             T(test_random_against_rule), T(test_sort_launch))
