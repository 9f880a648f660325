/* test_heat.c -- golden heat maps for each synthetic shape (CUTHERMO Fig. 3
 * and 6), the paper's two one-sector examples, wide and sector-crossing
 * accesses, regions, and a brute-force cross-check with many warps. */
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "../mh_test.h"
#include "analyses/heat.h"
#include "collectors/synth.h"
#include "pass/pass.h"

static char dir[256];

/* All maps of a trace, copied out of the emit callback. */
typedef struct map {
    uint32_t launch;
    unsigned space;
    mh_heat_row *rows;
    size_t n;
    char label[64];
    size_t nregions;
} map;

typedef struct maps {
    map m[32];
    size_t n;
} maps;

static int collect(void *ctx, const mh_heat_result *r, mh_err *err) {
    (void)err;
    maps *ms = ctx;
    if (ms->n == 32) return MH_OK;
    map *m = &ms->m[ms->n++];
    m->launch = r->launch->l.id;
    m->space = r->space;
    m->n = r->nrows;
    m->rows = malloc(sizeof *m->rows * (r->nrows ? r->nrows : 1));
    memcpy(m->rows, r->rows, sizeof *m->rows * r->nrows);
    snprintf(m->label, sizeof m->label, "%s", r->nregions ? r->regions[0].label : "");
    m->nregions = r->nregions;
    return MH_OK;
}

static int load(const char *path, maps *ms) {
    memset(ms, 0, sizeof *ms);
    mh_err err = {0};
    mh_pass *p;
    mh_pass_opts po = {.analyses = MH_PASS_HEAT};
    if (mh_pass_open(&p, path, NULL, &po, &err) != MH_OK) return 1;
    mh_pass_consumer c = {.ctx = ms, .heat = collect};
    int rc = mh_pass_add(p, &c, &err);
    if (rc == MH_OK) rc = mh_pass_run(p, &err);
    mh_pass_close(p);
    return rc;
}

static void free_maps(maps *ms) {
    for (size_t i = 0; i < ms->n; i++) free(ms->m[i].rows);
}

static map *shape_map(const char *shape, uint32_t warps, uint32_t iters, maps *ms) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s.mht", dir, shape);
    mh_synth_opts o = {.shapes = 1u << mh_synth_shape_parse(shape), .warps = warps, .iters = iters, .offset = 4};
    mh_err err = {0};
    if (mh_synth_write(path, &o, &err) != MH_OK || load(path, ms) != MH_OK || ms->n != 1) return NULL;
    return &ms->m[0];
}

static int all_rows(const map *m, uint32_t word_lo, uint32_t word_hi, uint32_t sector) {
    for (size_t i = 0; i < m->n; i++) {
        if (m->rows[i].sector != sector) return 0;
        for (int w = 0; w < 8; w++)
            if (m->rows[i].word[w] < word_lo || m->rows[i].word[w] > word_hi) return 0;
    }
    return 1;
}

static void test_coalesced(void) {
    maps ms;
    map *m = shape_map("coalesced", 8, 2, &ms);
    CHECK(m != NULL);
    if (!m) return;
    CHECK_EQ_U(m->n, 8 * 32 * 2 / 8); /* 512 words in 64 sectors */
    CHECK(all_rows(m, 1, 1, 1));       /* Fig. 3(a): words 1, sector 1 */
    CHECK(!strcmp(m->label, "coalesced"));
    size_t loads = 0;
    for (size_t i = 0; i < m->n; i++)
        for (int w = 0; w < 8; w++) loads += m->rows[i].kinds[w] == MH_HEAT_LOAD;
    CHECK_EQ_U(loads, m->n * 8); /* read only */
    free_maps(&ms);
}

static void test_false_sharing(void) {
    maps ms;
    map *m = shape_map("false_sharing", 8, 1, &ms);
    CHECK(m != NULL);
    if (!m) return;
    CHECK_EQ_U(m->n, 32);
    CHECK(all_rows(m, 1, 1, 8)); /* Fig. 3(b): words 1, sector 8 */
    free_maps(&ms);
}

static void test_strided(void) {
    maps ms;
    map *m = shape_map("strided", 4, 1, &ms);
    CHECK(m != NULL);
    if (!m) return;
    CHECK_EQ_U(m->n, 128); /* one used word per sector */
    int ok = 1;
    for (size_t i = 0; i < m->n; i++) {
        ok &= m->rows[i].word[0] == 1 && m->rows[i].sector == 1;
        for (int w = 1; w < 8; w++) ok &= m->rows[i].word[w] == 0;
    }
    CHECK(ok);
    free_maps(&ms);
}

static void test_misaligned(void) {
    maps ms;
    map *m = shape_map("misaligned", 4, 1, &ms);
    CHECK(m != NULL);
    if (!m) return;
    /* 128 words shifted by one: 17 sectors; the 3 warp-boundary sectors hold two warps (Fig. 7). */
    CHECK_EQ_U(m->n, 17);
    int two = 0;
    for (size_t i = 0; i < m->n; i++) two += m->rows[i].sector == 2;
    CHECK_EQ_U(two, 3);
    CHECK_EQ_U(m->rows[0].word[0], 0); /* the first word is the shift: unused */
    CHECK_EQ_U(m->rows[0].word[1], 1);
    free_maps(&ms);
}

static void test_hot(void) {
    maps ms;
    map *m = shape_map("hot", 32, 1, &ms);
    CHECK(m != NULL);
    if (!m) return;
    CHECK_EQ_U(m->n, 2);
    CHECK(all_rows(m, 32, 32, 32)); /* Fig. 6(e): 32 warps on every word */
    free_maps(&ms);
}

static void test_shared_shapes(void) {
    maps ms;
    map *m = shape_map("shared_private", 8, 3, &ms);
    CHECK(m != NULL);
    if (m) {
        CHECK_EQ_U(m->space, MH_SPACE_SHARED);
        CHECK(all_rows(m, 1, 1, 1)); /* Fig. 6(a): every word and the sector one warp */
        free_maps(&ms);
    }
    m = shape_map("shared_tile", 4, 4, &ms);
    CHECK(m != NULL);
    if (m) {
        /* synth's threads store the tile first, one word each (word t by thread t's
         * warp), then every warp sweeps words 32..127: those carry both kinds and
         * all 4 warps, words 0..31 one store by one warp; the kinds reach the rows
         * through the pass */
        size_t stored = 0, both = 0, hot = 0;
        for (size_t i = 0; i < m->n; i++)
            for (int w = 0; w < 8; w++) {
                stored += m->rows[i].kinds[w] == MH_HEAT_STORE && m->rows[i].tag < 4 && m->rows[i].word[w] == 1;
                both += m->rows[i].kinds[w] == (MH_HEAT_LOAD | MH_HEAT_STORE) && m->rows[i].tag >= 4;
                hot += m->rows[i].tag >= 4 && m->rows[i].word[w] == 4;
            }
        CHECK_EQ_U(stored, 32);
        CHECK_EQ_U(both, 96);
        CHECK_EQ_U(hot, 96); /* a tile every warp reads */
        free_maps(&ms);
    }
}

static void test_paper_single_sector(void) {
    /* One warp reading one sector word by word: words 1, sector 1.
     * Eight warps each reading one word of it: words 1, sector 8. */
    mh_heat *h;
    mh_err err = {0};
    CHECK(mh_heat_new(&h, 32, &err) == MH_OK);
    for (int w = 0; w < 8; w++) mh_heat_add(h, 0x1000 + 4 * w, 4, 5, MH_KIND_LOAD);
    mh_heat_row *rows;
    size_t n;
    CHECK(mh_heat_take_rows(h, &rows, &n, &err) == MH_OK);
    CHECK_EQ_U(n, 1);
    for (int w = 0; w < 8; w++) CHECK_EQ_U(rows[0].word[w], 1);
    CHECK_EQ_U(rows[0].sector, 1);
    free(rows);
    for (int w = 0; w < 8; w++) mh_heat_add(h, 0x1000 + 4 * w, 4, (uint32_t)w, w < 4 ? MH_KIND_LOAD : MH_KIND_STORE);
    CHECK(mh_heat_take_rows(h, &rows, &n, &err) == MH_OK); /* map was emptied and is reused */
    CHECK_EQ_U(n, 1);
    for (int w = 0; w < 8; w++) CHECK_EQ_U(rows[0].word[w], 1);
    CHECK_EQ_U(rows[0].sector, 8);
    for (int w = 0; w < 8; w++) CHECK_EQ_U(rows[0].kinds[w], w < 4 ? MH_HEAT_LOAD : MH_HEAT_STORE);
    char kt[9];
    CHECK(strcmp(mh_heat_kinds_text(mh_heat_kinds_pack(&rows[0]), rows[0].word, kt), "LLLLSSSS") == 0);
    free(rows);
    mh_heat_free(h);
}

static void test_wide_and_crossing(void) {
    mh_heat *h;
    mh_err err = {0};
    CHECK(mh_heat_new(&h, 32, &err) == MH_OK);
    mh_heat_add(h, 0x1018, 16, 3, MH_KIND_STORE); /* words 6,7 of sector 0x80 and 0,1 of 0x81 */
    mh_heat_add(h, 0x1000, 32, 4, MH_KIND_LOAD);  /* the whole of sector 0x80 */
    mh_heat_add(h, 0x1021, 1, 40, MH_KIND_ATOMIC); /* byte 1 of word 0 of sector 0x81 (an overflow warp) */
    mh_heat_row *rows;
    size_t n;
    CHECK(mh_heat_take_rows(h, &rows, &n, &err) == MH_OK);
    CHECK_EQ_U(n, 2);
    CHECK_EQ_U(rows[0].tag, 0x80);
    CHECK_EQ_U(rows[0].word[0], 1);
    CHECK_EQ_U(rows[0].word[6], 2);
    CHECK_EQ_U(rows[0].word[7], 2);
    CHECK_EQ_U(rows[0].sector, 2);
    CHECK_EQ_U(rows[1].tag, 0x81);
    CHECK_EQ_U(rows[1].word[0], 2);
    CHECK_EQ_U(rows[1].word[1], 1);
    CHECK_EQ_U(rows[1].word[2], 0);
    CHECK_EQ_U(rows[1].sector, 2);
    CHECK_EQ_U(rows[0].kinds[0], MH_HEAT_LOAD);
    CHECK_EQ_U(rows[0].kinds[6], MH_HEAT_LOAD | MH_HEAT_STORE);
    CHECK_EQ_U(rows[1].kinds[0], MH_HEAT_STORE | MH_HEAT_ATOMIC);
    CHECK_EQ_U(rows[1].kinds[1], MH_HEAT_STORE);
    CHECK_EQ_U(rows[1].kinds[2], 0);
    char kt[9];
    CHECK(strcmp(mh_heat_kinds_text(mh_heat_kinds_pack(&rows[1]), rows[1].word, kt), "MS......") == 0);
    CHECK(strcmp(mh_heat_kinds_text(0, rows[1].word, kt), "??......") == 0); /* a profile without kinds */
    free(rows);
    mh_heat_free(h);
}

/* Random accesses by up to 300 warps: the map must equal naive per-word sets. */
static void test_bruteforce_many_warps(void) {
    enum { WORDS = 256, WARPS = 300, N = 40000 };
    static unsigned char seen[WORDS][WARPS];
    static unsigned char seen_sector[WORDS / 8][WARPS];
    static unsigned char kinds[WORDS];
    memset(kinds, 0, sizeof kinds);
    memset(seen, 0, sizeof seen);
    memset(seen_sector, 0, sizeof seen_sector);
    mh_heat *h;
    mh_err err = {0};
    CHECK(mh_heat_new(&h, 32, &err) == MH_OK);
    uint64_t s = 88172645463325252ull;
    for (int i = 0; i < N; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        uint32_t warp = (uint32_t)(s % WARPS);
        /* hot low words for a few warps, so some sets pass the 64-id threshold */
        uint32_t word = (uint32_t)((s >> 20) % (i % 3 ? WORDS : 8));
        uint32_t size = (uint32_t)(1u << ((s >> 40) % 4)); /* 1, 2, 4, 8 bytes */
        if (word * 4 + size > WORDS * 4) size = 4;
        unsigned kind = (unsigned)((s >> 50) % 16 == 0 ? MH_KIND_ATOMIC : (s >> 50) % 4 == 1 ? MH_KIND_STORE : MH_KIND_LOAD);
        mh_heat_add(h, 0x10000 + word * 4, size, warp, kind);
        for (uint32_t b = word * 4; b < word * 4 + size; b++) {
            kinds[b / 4] |= (unsigned char)(1u << kind);
            seen[b / 4][warp] = 1;
            seen_sector[b / 32][warp] = 1;
        }
    }
    mh_heat_row *rows;
    size_t n;
    CHECK(mh_heat_take_rows(h, &rows, &n, &err) == MH_OK);
    size_t bad = 0, nonempty = 0;
    for (int sct = 0; sct < WORDS / 8; sct++) {
        uint32_t want_sector = 0;
        for (int w = 0; w < WARPS; w++) want_sector += seen_sector[sct][w];
        if (!want_sector) continue;
        nonempty++;
        const mh_heat_row *r = NULL;
        for (size_t i = 0; i < n; i++)
            if (rows[i].tag == (0x10000u >> 5) + (uint64_t)sct) r = &rows[i];
        if (!r) {
            bad++;
            continue;
        }
        bad += r->sector != want_sector;
        for (int k = 0; k < 8; k++) {
            uint32_t want = 0;
            for (int w = 0; w < WARPS; w++) want += seen[sct * 8 + k][w];
            bad += r->word[k] != want;
            bad += r->kinds[k] != kinds[sct * 8 + k];
        }
    }
    CHECK_EQ_U(n, nonempty);
    CHECK_EQ_U(bad, 0);
    for (size_t i = 1; i < n; i++) CHECK(rows[i - 1].tag < rows[i].tag);
    free(rows);
    mh_heat_free(h);
}

/* mh_heat_add_words is mh_heat_add per word: two maps fed one stream, one
 * access at a time and as heat_run.c groups it (a warp's one-word accesses
 * to one sector in a row: one update), hold the same rows and bytes (the
 * table grows at the same points: the accesses of a run after the first
 * find their sector in the recent cache, so the lookups that may grow it
 * are the same). The stream mixes lane runs, strided lanes, wide and byte
 * accesses, overflow warps and kinds. */
static void test_words_equal(void) {
    enum { N = 200000 };
    mh_heat *a, *b;
    mh_err err = {0};
    CHECK(mh_heat_new(&a, 32, &err) == MH_OK);
    CHECK(mh_heat_new(&b, 32, &err) == MH_OK);
    uint64_t s = 0x2545F4914F6CDD1Dull, ptag = 0;
    uint32_t pwarp = 0, pwords = 0, pkinds = 0;
    int pend = 0;
    size_t grouped = 0;
    for (int i = 0; i < N; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        uint32_t warp = (uint32_t)(s % 5 == 0 ? 32 + (s >> 8) % 40 : (s >> 8) % 32);
        uint32_t lanes = 1 + (uint32_t)((s >> 16) % 32), stride = (s >> 24) % 3 ? 4 : 4 * (1 + (uint32_t)((s >> 28) % 9));
        uint64_t base = 0x100000 + 4 * ((s >> 32) % 60000);
        uint32_t size = (s >> 50) % 7 ? 4 : (uint32_t)(1u << ((s >> 53) % 4));
        unsigned kind = (unsigned)((s >> 56) % 8 == 0 ? MH_KIND_ATOMIC : (s >> 56) % 3 == 1 ? MH_KIND_STORE : MH_KIND_LOAD);
        for (uint32_t l = 0; l < lanes; l++) {
            uint64_t addr = base + (uint64_t)l * stride + ((s >> 60) == 0 ? 2 : 0); /* now and then misaligned */
            CHECK(mh_heat_add(a, addr, size, warp, kind) == MH_OK);
            int one_word = size - 1 < 4 && (addr & 3) + size <= 4;
            unsigned w = (unsigned)(addr >> 2) & 7;
            if (one_word && pend && addr >> 5 == ptag && warp == pwarp) {
                pwords |= 1u << w;
                pkinds |= MH_HEAT_KIND_BIT(kind) << (3 * w);
                grouped++;
                continue;
            }
            if (pend) CHECK(mh_heat_add_words(b, ptag, pwords, pkinds, pwarp) == MH_OK);
            pend = one_word;
            if (one_word) {
                ptag = addr >> 5, pwarp = warp, pwords = 1u << w, pkinds = MH_HEAT_KIND_BIT(kind) << (3 * w);
            } else {
                CHECK(mh_heat_add(b, addr, size, warp, kind) == MH_OK);
            }
        }
    }
    if (pend) CHECK(mh_heat_add_words(b, ptag, pwords, pkinds, pwarp) == MH_OK);
    CHECK(grouped > N); /* the grouping did take many accesses together */
    CHECK_EQ_U(mh_heat_count(a), mh_heat_count(b));
    CHECK_EQ_U(mh_heat_bytes(a), mh_heat_bytes(b));
    mh_heat_row *ra, *rb;
    size_t na, nb;
    CHECK(mh_heat_take_rows(a, &ra, &na, &err) == MH_OK);
    CHECK(mh_heat_take_rows(b, &rb, &nb, &err) == MH_OK);
    CHECK_EQ_U(na, nb);
    CHECK(na == nb && memcmp(ra, rb, na * sizeof *ra) == 0);
    free(ra);
    free(rb);
    mh_heat_free(a);
    mh_heat_free(b);
}

/* A run split in two or four (mh_heat_run_split: the parts of the sectors
 * fed to as many runs, as U_HEAT and U_HEAT2.. do on their threads) emits
 * the maps of one run: the same rows in the same order, regions, access
 * counts and peak, for two launches in flight, wide accesses crossing
 * sectors of several parts, warps past 32 and a launch left open at the
 * finish. Fails with a peer's tables left out of a map or of the peak, and
 * with the parts' rows merged out of tag order (checked). */
typedef struct emitted {
    uint64_t digest;
    size_t maps, rows;
    size_t unsorted; /* rows not after the row before them in tag order */
} emitted;

static int digest_emit(void *ctx, const mh_heat_result *r, mh_err *err) {
    (void)err;
    emitted *e = ctx;
    uint64_t h = e->digest ^ (r->launch->l.id * 31u + r->space);
    for (size_t i = 0; i < r->nrows; i++) {
        const mh_heat_row *w = &r->rows[i];
        if (i > 0 && w->tag <= w[-1].tag) e->unsorted++;
        uint64_t v = w->tag * 1000003u + w->sector * 7u + (uint64_t)(uint32_t)w->region;
        for (int k = 0; k < MH_HEAT_WORDS; k++) v = v * 131u + w->word[k] * 17u + w->kinds[k];
        h = (h ^ v) * 1099511628211ull;
    }
    e->digest = (h ^ r->accesses ^ r->nregions) * 1099511628211ull;
    e->maps++;
    e->rows += r->nrows;
    return MH_OK;
}

static void split_run(unsigned nruns) {
    mh_err err = {0};
    mh_trace_header hdr = {.device = {.warp_size = 32, .sector_size = 32}};
    mh_model m;
    CHECK(mh_model_init(&m, &hdr, &err) == MH_OK);
    uint32_t sampled[3] = {0, 1, 2};
    for (uint32_t l = 0; l < 2; l++) {
        mh_record rec = {.type = MH_REC_LAUNCH};
        rec.u.launch = (mh_launch){.id = l, .name = "k", .display_name = "k", .grid = {8, 1, 1},
                                   .block = {1024, 1, 1}, .n_sampled = 3, .sampled = sampled};
        CHECK(mh_model_feed(&m, &rec, &err) == MH_OK);
    }
    mh_access *v = malloc(sizeof *v * 5000);
    uint64_t s = 12345;
    emitted one = {0}, split = {0};
    mh_heat_run *whole, *a, *peer[MH_HEAT_PARTS - 1] = {NULL};
    mh_heat_run_opts o1 = {.emit = digest_emit, .ctx = &one}, o2 = {.emit = digest_emit, .ctx = &split};
    CHECK(mh_heat_run_new(&whole, &m, &o1, &err) == MH_OK);
    CHECK(mh_heat_run_new(&a, &m, &o2, &err) == MH_OK);
    CHECK(mh_heat_run_split(a, nruns, peer, &err) == MH_OK);
    for (int r = 0; r < 40; r++) {
        for (int i = 0; i < 5000; i++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            uint32_t thread = (uint32_t)(s >> 33) % 1024;
            uint8_t size = (s >> 20) % 5 == 0 ? (uint8_t)(8 << ((s >> 8) % 3)) : 4;
            v[i] = (mh_access){.addr = 0x10000 + ((s >> 40) % 20000) * (size == 4 ? 4 : 6), .launch = (uint32_t)(r % 2),
                               .block = (uint32_t)((s >> 12) % 3), .thread = (uint16_t)thread, .size = size,
                               .flags = MH_ACCESS_FLAGS((s >> 5) % 3, (s >> 50) % 2)};
        }
        mh_record rec = {.type = MH_REC_ACCESSES, .u.accesses = {.v = v, .n = 5000}};
        CHECK(mh_heat_run_feed(whole, &rec, &err) == MH_OK);
        CHECK(mh_heat_run_feed(a, &rec, &err) == MH_OK);
        for (unsigned k = 0; k + 1 < nruns; k++) CHECK(mh_heat_run_feed(peer[k], &rec, &err) == MH_OK);
        if (r == 25) { /* launch 0 ends; launch 1 stays open until the finish */
            mh_record end = {.type = MH_REC_KERNEL_END, .u.kernel_end = {.launch = 0}};
            CHECK(mh_heat_run_feed(whole, &end, &err) == MH_OK);
            for (unsigned k = 0; k + 1 < nruns; k++)
                CHECK(mh_heat_run_feed(peer[k], &end, &err) == MH_OK); /* does nothing: a emits */
            CHECK(mh_heat_run_feed(a, &end, &err) == MH_OK);
            CHECK_EQ_U(split.maps, one.maps);
        }
    }
    CHECK(mh_heat_run_finish(whole, &err) == MH_OK);
    CHECK(mh_heat_run_finish(a, &err) == MH_OK);
    for (unsigned k = 0; k + 1 < nruns; k++) CHECK(mh_heat_run_finish(peer[k], &err) == MH_OK);
    CHECK(one.maps == 6 && one.rows > 10000); /* launch 0's accesses after its end make new maps */
    CHECK_EQ_U(split.maps, one.maps);
    CHECK_EQ_U(split.rows, one.rows);
    CHECK(split.digest == one.digest);
    CHECK_EQ_U(one.unsorted, 0);
    CHECK_EQ_U(mh_heat_run_peak_bytes(a), mh_heat_run_peak_bytes(whole));
    mh_heat_run_free(whole);
    mh_heat_run_free(a);
    for (unsigned k = 0; k + 1 < nruns; k++) mh_heat_run_free(peer[k]);
    mh_model_free(&m);
    free(v);
}

static void test_split_run(void) {
    split_run(2);
    split_run(4);
}

static void test_multiblock_warps_distinct(void) {
    /* Warp 0 of block 0 and warp 0 of block 1 are different warps. */
    maps ms;
    char path[512];
    snprintf(path, sizeof path, "%s/mb.mht", dir);
    mh_synth_opts o = {.shapes = 1u << MH_SYNTH_HOT, .warps = 32, .blocks = 3};
    mh_err err = {0};
    CHECK(mh_synth_write(path, &o, &err) == MH_OK);
    CHECK(load(path, &ms) == MH_OK);
    CHECK_EQ_U(ms.n, 1);
    if (ms.n == 1) CHECK(all_rows(&ms.m[0], 96, 96, 96));
    free_maps(&ms);
}

int main(void) {
    snprintf(dir, sizeof dir, "/tmp/mh-test-heat-%d", (int)getpid());
    char cmd[300];
    snprintf(cmd, sizeof cmd, "mkdir -p %s", dir);
    if (system(cmd) != 0) return 1;
    static const mh_test_case cases[] = {
        T(test_coalesced), T(test_false_sharing), T(test_strided), T(test_misaligned), T(test_hot),
        T(test_shared_shapes), T(test_paper_single_sector), T(test_wide_and_crossing),
        T(test_bruteforce_many_warps), T(test_words_equal), T(test_multiblock_warps_distinct), T(test_split_run)};
    int rc = mh_test_run(cases, sizeof cases / sizeof cases[0]);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) return 1;
    return rc;
}
