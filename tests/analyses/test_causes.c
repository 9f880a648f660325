/* test_causes.c -- the causes the pattern analysis names, right (issue 40),
 * each on a hand-written trace of the shape a real kernel gives:
 *  - an interleaved tree reduction whose loop the compiler unrolled (every
 *    step its own pc, run once per thread): its fix is sequential
 *    addressing, not padding a 2-D tile;
 *  - a read-only matrix whose sectors several warps each use a little of:
 *    not "false sharing" (that needs writes) but uncoalesced reads; the same
 *    shape written stays false sharing;
 *  - a data-dependent read of a few evenly spaced hot words (lanes in no
 *    order): a random hot spot, not "strided" (a stride is lane-ordered or a
 *    broadcast walked by a loop);
 *  - shared memory filled by copies the collector does not see (TMA,
 *    cp.async: loads of words no traced store wrote): no shared-memory
 *    finding, and an informational finding saying why. */
#include <string.h>

#include "../mh_test.h"
#include "render/analyze.h"
#include "tbuild.h"

static const mh_pat_finding *find_kind(const mh_analyze_result *r, const char *label, int kind) {
    size_t n = 0;
    const mh_pat_finding *f = mh_pat_findings(r->pat, &n);
    for (size_t i = 0; i < n; i++)
        if (!strcmp(f[i].label, label) && f[i].kind == kind) return &f[i];
    return NULL;
}

static size_t count_kind(const mh_analyze_result *r, int kind) {
    size_t n = 0, k = 0;
    const mh_pat_finding *f = mh_pat_findings(r->pat, &n);
    for (size_t i = 0; i < n; i++) k += f[i].kind == kind;
    return k;
}

/* s[512] floats, 512 threads: for st = 1, 2, 4, ... 256 (unrolled: pcs
 * 0x100 + 0x20 st_index and + 0x10), thread t with i = 2 st t < 512 loads
 * s[i + st] and s[i], stores s[i]. Degrees 2, 4, 8, 16, 16, 8, 4, 2, 1. */
static void test_unrolled_reduction(void) {
    tb t;
    CHECK(tb_open(&t, "reduction"));
    tb_alloc(&t, 0, 0, 0, 2048, MH_SPACE_SHARED, "s");
    tb_launch(&t, 0, "reduce_interleaved", 1, 512);
    uint32_t seq[512] = {0};
    for (uint16_t th = 0; th < 512; th++) /* the first store s[t] */
        tb_acc(&t, 0, 0, th, seq[th]++, 4u * th, 4, MH_KIND_STORE, MH_SPACE_SHARED, 0x80);
    unsigned step = 0;
    for (uint32_t st = 1; st < 512; st *= 2, step++) {
        uint64_t pc = 0x100 + 0x40u * step;
        for (uint16_t th = 0; th < 512; th++) {
            uint32_t i = 2 * st * th;
            if (i >= 512) continue;
            tb_acc(&t, 0, 0, th, seq[th]++, 4u * (i + st), 4, MH_KIND_LOAD, MH_SPACE_SHARED, pc);
            tb_acc(&t, 0, 0, th, seq[th]++, 4u * i, 4, MH_KIND_LOAD, MH_SPACE_SHARED, pc + 0x10);
            tb_acc(&t, 0, 0, th, seq[th]++, 4u * i, 4, MH_KIND_STORE, MH_SPACE_SHARED, pc + 0x20);
        }
    }
    tb_end(&t, 0);
    CHECK(tb_close(&t));
    mh_analyze_result res;
    CHECK(mh_analyze_file(t.path, NULL, &res, NULL) == MH_OK);
    const mh_pat_finding *b = find_kind(&res, "s", MH_PAT_BANK_CONFLICT);
    CHECK(b != NULL);
    if (b) {
        CHECK(strstr(b->suggestion, "sequential addressing") != NULL);
        CHECK(strstr(b->suggestion, "pad the inner dimension") == NULL);
    }
    mh_analyze_free(&res);
    unlink(t.path);
}

/* A [32][32] float tile in shared memory, stored by rows and read by columns
 * (lane = row) at two pcs of one degree: padding is right there. */
static void test_tile_stays_padding(void) {
    tb t;
    CHECK(tb_open(&t, "tile"));
    tb_alloc(&t, 0, 0, 0, 4096, MH_SPACE_SHARED, "tile");
    tb_launch(&t, 0, "transpose", 1, 256);
    for (uint16_t th = 0; th < 256; th++) {
        uint32_t x = th % 32, y = th / 32, seq = 0;
        for (uint32_t j = 0; j < 32; j += 8) tb_acc(&t, 0, 0, th, seq++, 4u * ((y + j) * 32 + x), 4, MH_KIND_STORE, MH_SPACE_SHARED, 0x100);
        for (uint32_t j = 0; j < 32; j += 8) tb_acc(&t, 0, 0, th, seq++, 4u * (x * 32 + y + j), 4, MH_KIND_LOAD, MH_SPACE_SHARED, 0x200);
        for (uint32_t j = 0; j < 32; j += 8) tb_acc(&t, 0, 0, th, seq++, 4u * (x * 32 + y + j), 4, MH_KIND_LOAD, MH_SPACE_SHARED, 0x300);
    }
    tb_end(&t, 0);
    CHECK(tb_close(&t));
    mh_analyze_result res;
    CHECK(mh_analyze_file(t.path, NULL, &res, NULL) == MH_OK);
    const mh_pat_finding *b = find_kind(&res, "tile", MH_PAT_BANK_CONFLICT);
    CHECK(b != NULL);
    if (b) CHECK(strstr(b->suggestion, "pad the inner dimension") != NULL);
    mh_analyze_free(&res);
    unlink(t.path);
}

/* OpenCL simpleMultiply's B in memheat's warp model: 4 warps of 16 rows x 2
 * columns; at step k a warp reads B[k][c0], B[k][c0 + 1] (c0 = 2 warp): each
 * sector of a row of B is read by 4 warps, 2 words each. Read-only: no false
 * sharing. With `write` the warps store those words instead: false sharing. */
static void shared_sectors(int write, mh_analyze_result *res, tb *t) {
    CHECK(tb_open(t, write ? "fs_write" : "fs_read"));
    tb_alloc(t, 0, MH_TRACE_NO_LAUNCH, 0x100000, 64 * 64 * 4, MH_SPACE_GLOBAL, "B");
    tb_launch(t, 0, "simpleMultiply", 1, 128);
    for (uint32_t k = 0; k < 64; k++)
        for (uint16_t th = 0; th < 128; th++) {
            uint32_t warp = th / 32, lane = th % 32, col = 2 * warp + lane / 16;
            tb_acc(t, 0, 0, th, k, 0x100000 + 4u * (k * 64 + col), 4, write ? MH_KIND_STORE : MH_KIND_LOAD,
                   MH_SPACE_GLOBAL, 0x200);
        }
    tb_end(t, 0);
    CHECK(tb_close(t));
    CHECK(mh_analyze_file(t->path, NULL, res, NULL) == MH_OK);
}

static void test_read_only_not_false_sharing(void) {
    tb t;
    mh_analyze_result res;
    shared_sectors(0, &res, &t);
    CHECK(find_kind(&res, "B", MH_PAT_FALSE_SHARING) == NULL);
    const mh_pat_finding *u = find_kind(&res, "B", MH_PAT_UNCOALESCED);
    CHECK(u != NULL);
    if (u) {
        CHECK(u->cost > 0);
        CHECK(strstr(u->suggestion, "thread-to-index") != NULL);
    }
    mh_analyze_free(&res);
    unlink(t.path);
    shared_sectors(1, &res, &t);
    CHECK(find_kind(&res, "B", MH_PAT_FALSE_SHARING) != NULL);
    CHECK(find_kind(&res, "B", MH_PAT_UNCOALESCED) == NULL);
    mh_analyze_free(&res);
    unlink(t.path);
}

/* 8 warps; each lane reads, 16 times, one of 4 hot words 512 bytes apart
 * picked by its data (a hash of lane and step: lanes in no order). */
static void test_even_hot_words_not_strided(void) {
    tb t;
    CHECK(tb_open(&t, "hotwords"));
    tb_alloc(&t, 0, MH_TRACE_NO_LAUNCH, 0x100000, 65536, MH_SPACE_GLOBAL, "table");
    tb_launch(&t, 0, "lookup", 1, 256);
    for (uint32_t k = 0; k < 16; k++)
        for (uint16_t th = 0; th < 256; th++) {
            uint32_t h = (th * 2654435761u + k * 40503u) >> 7;
            tb_acc(&t, 0, 0, th, k, 0x100000 + 512u * (h % 4), 4, MH_KIND_LOAD, MH_SPACE_GLOBAL, 0x200);
        }
    tb_end(&t, 0);
    CHECK(tb_close(&t));
    mh_analyze_result res;
    CHECK(mh_analyze_file(t.path, NULL, &res, NULL) == MH_OK);
    CHECK(find_kind(&res, "table", MH_PAT_STRIDED) == NULL);
    CHECK(find_kind(&res, "table", MH_PAT_RANDOM_HOT) != NULL || find_kind(&res, "table", MH_PAT_HOT) != NULL);
    mh_analyze_free(&res);
    unlink(t.path);
}

/* A GEMM-like kernel whose tiles arrive in shared memory by copies memheat
 * does not see (only the LDS reads are traced): thread-private reads of
 * never-stored words and 16-way conflicts; no shared-memory finding, one
 * partial_view finding naming why. A kernel that stores what it reads
 * keeps its findings (the tile test above). */
static void test_partial_view(void) {
    tb t;
    CHECK(tb_open(&t, "partial"));
    tb_alloc(&t, 0, 0, 0, 65536, MH_SPACE_SHARED, "shared window");
    tb_launch(&t, 0, "sm90_xmma_gemm", 1, 128);
    for (uint32_t k = 0; k < 8; k++)
        for (uint16_t th = 0; th < 128; th++)
            tb_acc(&t, 0, 0, th, k, 4u * (16u * 32u * (th % 16) + 4096u * k / 8 + th / 16), 4, MH_KIND_LOAD,
                   MH_SPACE_SHARED, 0x400);
    tb_end(&t, 0);
    CHECK(tb_close(&t));
    mh_analyze_result res;
    CHECK(mh_analyze_file(t.path, NULL, &res, NULL) == MH_OK);
    CHECK_EQ_U(count_kind(&res, MH_PAT_BANK_CONFLICT), 0);
    CHECK_EQ_U(count_kind(&res, MH_PAT_SMEM_THREAD), 0);
    CHECK_EQ_U(count_kind(&res, MH_PAT_SMEM_WARP), 0);
    const mh_pat_finding *p = find_kind(&res, "shared window", MH_PAT_PARTIAL_VIEW);
    CHECK(p != NULL);
    if (p) {
        CHECK(p->cost == 0);
        CHECK(strstr(p->summary, "never") != NULL);
    }
    mh_analyze_free(&res);
    unlink(t.path);
}

MH_TEST_MAIN(T(test_unrolled_reduction), T(test_tile_stays_padding), T(test_read_only_not_false_sharing),
             T(test_even_hot_words_not_strided), T(test_partial_view))
