/* test_damage.c -- issue 42's trace damage, each made from a synthetic trace
 * (one chunk per launch, as collectors flush) with fuzz_mutate's structure
 * tools, checksums recomputed: what the reader and mh_pass must say.
 *
 *  - a KARG record whose argument index does not fit an int32 is refused
 *    (no crash), the launches before it kept;
 *  - record-level errors name the damaged chunk, not the one after it;
 *  - damage with valid checksums is never silent: chunks removed, repeated
 *    or swapped (renumbered), a kernel end removed, a block of accesses
 *    repeated or removed: a notice (the commands' exit 4), every intact
 *    launch's heat map byte for byte, with one thread and with lanes. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../mh_test.h"
#include "fuzz_mutate.h"
#include "import/import.h"
#include "analyses/model.h"
#include "pass/pass.h"
#include "store/store.h"
#include "collectors/synth.h"
#include "util/crc32c.h"

#define REC_LAUNCH 2
#define REC_ACCESSES 5
#define REC_KERNEL_END 6

static char dir[256];

static const char *tmp(const char *name) {
    static char buf[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

/* ---- one pass, its heat maps as CRCs ---- */

typedef struct map_sum {
    uint32_t launch, space, crc;
} map_sum;

typedef struct result {
    int rc;
    char msg[1024], notice[1024];
    map_sum maps[64];
    size_t nmaps;
    mh_pass_stats st;
} result;

static ssize_t crc_write(void *c, const char *buf, size_t n) {
    uint32_t *crc = c;
    *crc = mh_crc32c(*crc, buf, n);
    return (ssize_t)n;
}

static int on_heat(void *ctx, const mh_heat_result *r, mh_err *err) {
    result *res = ctx;
    uint32_t crc = 0;
    cookie_io_functions_t io = {.write = crc_write};
    FILE *f = fopencookie(&crc, "w", io);
    int rc = mh_heat_write_csv(f, r, err);
    fclose(f);
    if (res->nmaps < 64) res->maps[res->nmaps++] = (map_sum){r->launch->l.id, r->space, crc};
    return rc;
}

static result run_pass(const char *path, unsigned threads) {
    result res;
    memset(&res, 0, sizeof res);
    mh_err err = {0};
    mh_model m;
    mh_pass *p;
    mh_pass_opts po = {.analyses = MH_PASS_HEAT, .threads = threads, .group_budget = 1u << 20};
    res.rc = mh_pass_open(&p, path, &m, &po, &err);
    if (res.rc != MH_OK) {
        snprintf(res.msg, sizeof res.msg, "%s", err.msg);
        return res;
    }
    mh_pass_consumer c = {.ctx = &res, .heat = on_heat};
    res.rc = mh_pass_add(p, &c, &err);
    if (res.rc == MH_OK) res.rc = mh_pass_run(p, &err);
    if (res.rc != MH_OK) snprintf(res.msg, sizeof res.msg, "%s", err.msg);
    res.st = *mh_pass_stats_get(p);
    mh_pass_notice(&res.st, path, res.notice, sizeof res.notice);
    mh_pass_close(p);
    mh_model_free(&m);
    return res;
}

/* The map of (launch, space) in r, or NULL. */
static const map_sum *map_of(const result *r, uint32_t launch, uint32_t space) {
    for (size_t i = 0; i < r->nmaps; i++)
        if (r->maps[i].launch == launch && r->maps[i].space == space) return &r->maps[i];
    return NULL;
}

/* Every map of the seed whose launch is in [lo, hi) comes out the same in r. */
static int same_maps(const result *seed, const result *r, uint32_t lo, uint32_t hi) {
    int same = 1;
    for (size_t i = 0; i < seed->nmaps; i++) {
        const map_sum *a = &seed->maps[i];
        if (a->launch < lo || a->launch >= hi) continue;
        const map_sum *b = map_of(r, a->launch, a->space);
        if (!b || b->crc != a->crc) {
            fprintf(stderr, "  launch %u space %u: %s\n", a->launch, a->space, b ? "differs" : "missing");
            same = 0;
        }
    }
    return same;
}

/* ---- the seed ---- */

static fz_trace g_seed; /* chunk 0 the header, chunk 1 + k launch k, the last the end record */
static result g_ref;
static size_t g_launches;

static void make_seed(void) {
    mh_synth_opts so = {.shapes = (1u << MH_SYNTH_SHAPE_COUNT) - 1, .warps = 2, .blocks = 2, .iters = 2};
    mh_err err = {0};
    fz_buf raw = {0};
    if (mh_synth_write(tmp("synth.mht"), &so, &err) != MH_OK || fz_slurp(tmp("synth.mht"), &raw) ||
        fz_trace_parse(&raw, &g_seed)) {
        fprintf(stderr, "seed: %s\n", err.msg);
        exit(1);
    }
    free(raw.p);
    fz_rechunk(&g_seed);
    g_launches = MH_SYNTH_SHAPE_COUNT;
    fz_buf enc = fz_trace_encode(&g_seed, NULL);
    fz_spit(tmp("seed.mht"), enc.p, enc.n);
    free(enc.p);
    g_ref = run_pass(tmp("seed.mht"), 1);
    CHECK(g_seed.n == g_launches + 2);
    CHECK(g_ref.rc == MH_OK && !g_ref.notice[0] && g_ref.nmaps >= g_launches);
}

/* Writes t and runs it with one thread and with four (lanes): both must
 * agree; returns the one-thread result. */
static result run_trace(const fz_trace *t, const char *name) {
    fz_buf enc = fz_trace_encode(t, NULL);
    const char *path = tmp(name);
    fz_spit(path, enc.p, enc.n);
    free(enc.p);
    result a = run_pass(path, 1), b = run_pass(path, 4);
    CHECK_EQ_U(a.rc, b.rc);
    CHECK(!strcmp(a.notice, b.notice));
    CHECK(!strcmp(a.msg, b.msg));
    CHECK_EQ_U(a.nmaps, b.nmaps);
    return a;
}

/* A damaged input that must not pass as clean: read to the end (rc OK),
 * one line saying what does not add up, the launches outside [lo, hi)
 * (those the damage touched) kept byte for byte. */
static void expect_notice(const char *what, const result *r, uint32_t lo, uint32_t hi, const char *words) {
    fprintf(stderr, "%s: rc %d, notice: %s%s\n", what, r->rc, r->notice, r->msg);
    CHECK(r->rc == MH_OK);
    CHECK(r->notice[0] != '\0');
    CHECK(!strchr(r->notice, '\n'));
    if (words) CHECK(strstr(r->notice, words) != NULL);
    CHECK(same_maps(&g_ref, r, 0, lo));
    CHECK(same_maps(&g_ref, r, hi, UINT32_MAX));
}

/* ---- 1. a KARG index >= 2^31 ---- */

static void test_karg_index(void) {
    mh_err err = {0};
    mh_trace_header h = {.producer = "test", .command = "", .note = "",
                         .device = {.name = "d", .warp_size = 32, .sector_size = 32}};
    mh_trace_writer *w;
    CHECK(mh_trace_create(&w, tmp("karg.mht"), &h, NULL, &err) == MH_OK);
    mh_alloc a = {.id = 0, .launch = MH_TRACE_NO_LAUNCH, .base = 0x10000, .size = 4096, .space = MH_SPACE_GLOBAL,
                  .label = "buf"};
    CHECK(mh_trace_write_alloc(w, &a, &err) == MH_OK);
    for (uint32_t id = 0; id < 2; id++) {
        mh_launch l = {.id = id, .name = "k", .display_name = "k(float*)", .grid = {1, 1, 1}, .block = {32, 1, 1},
                       .n_sampled = MH_TRACE_ALL_BLOCKS};
        CHECK(mh_trace_write_launch(w, &l, &err) == MH_OK);
        mh_karg k = {.launch = id, .index = id ? 0x80000000u : 0, .size = 8, .value = 0x10000,
                     .space = MH_SPACE_GLOBAL, .type = "", .name = ""};
        CHECK(mh_trace_write_karg(w, &k, &err) == MH_OK);
        mh_access v[32];
        for (uint32_t t = 0; t < 32; t++)
            v[t] = (mh_access){.addr = 0x10000 + 4 * t, .launch = id, .thread = (uint16_t)t, .size = 4,
                               .flags = MH_ACCESS_FLAGS(MH_KIND_LOAD, MH_SPACE_GLOBAL)};
        CHECK(mh_trace_write_accesses(w, v, 32, &err) == MH_OK);
        mh_kernel_end e = {.launch = id, .recorded = 32};
        CHECK(mh_trace_write_kernel_end(w, &e, &err) == MH_OK);
        CHECK(mh_trace_flush(w, &err) == MH_OK);
    }
    CHECK(mh_trace_close(w, &err) == MH_OK);
    result r = run_pass(tmp("karg.mht"), 1);
    fprintf(stderr, "karg: rc %d: %s\n", r.rc, r.msg);
    CHECK(r.rc == MH_ERR_FORMAT);
    CHECK(strstr(r.msg, "argument index") != NULL);
    CHECK(map_of(&r, 0, MH_SPACE_GLOBAL) != NULL); /* the launch before it kept */
    /* the model itself, fed such a record directly, keeps no view of it */
    mh_model m;
    CHECK(mh_model_init(&m, &h, &err) == MH_OK);
    mh_record rec = {.type = MH_REC_ALLOC, .u.alloc = a};
    CHECK(mh_model_feed(&m, &rec, &err) == MH_OK);
    mh_launch l = {.id = 0, .name = "k", .display_name = "k(float*)", .grid = {1, 1, 1}, .block = {32, 1, 1},
                   .n_sampled = MH_TRACE_ALL_BLOCKS};
    rec = (mh_record){.type = MH_REC_LAUNCH, .u.launch = l};
    CHECK(mh_model_feed(&m, &rec, &err) == MH_OK);
    rec = (mh_record){.type = MH_REC_KARG, .u.karg = {.launch = 0, .index = 0x80000000u, .size = 8, .value = 0x10000,
                                                      .space = MH_SPACE_GLOBAL, .type = "", .name = ""}};
    CHECK(mh_model_feed(&m, &rec, &err) == MH_OK);
    CHECK_EQ_U(m.nviews, 0);
    mh_model_free(&m);
}

/* ---- 5. record-level errors name the damaged chunk ---- */

static void test_chunk_named(void) {
    fz_trace t = fz_trace_copy(&g_seed);
    t.c[2].raw[0] = 0xEE; /* launch 1's first record: an unknown type */
    fz_chunk_touch(&t.c[2]);
    result r = run_trace(&t, "type.mht");
    fprintf(stderr, "unknown type: %s\n", r.msg);
    CHECK(r.rc == MH_ERR_FORMAT);
    CHECK(strstr(r.msg, "(chunk 2,") != NULL);
    CHECK(same_maps(&g_ref, &r, 0, 1));
    fz_trace_free(&t);
    t = fz_trace_copy(&g_seed);
    memset(t.c[0].raw + 8 + 16, 0, 4); /* the header's warp size: 0 */
    fz_chunk_touch(&t.c[0]);
    r = run_trace(&t, "hdr.mht");
    fprintf(stderr, "header: %s\n", r.msg);
    CHECK(r.rc == MH_ERR_FORMAT);
    CHECK(strstr(r.msg, "(chunk 0,") != NULL);
    fz_trace_free(&t);
}

/* ---- 6. damage with valid checksums ---- */

static void test_chunks_removed_repeated_swapped(void) {
    fz_trace t = fz_trace_copy(&g_seed);
    fz_chunk_remove(&t, 3); /* launch 2, renumbered away */
    result r = run_trace(&t, "removed.mht");
    expect_notice("chunk removed", &r, 2, 3, "end record");
    CHECK(!r.st.complete);
    fz_trace_free(&t);

    t = fz_trace_copy(&g_seed);
    fz_chunk_dup(&t, t.n - 1, t.n); /* the end record's chunk twice */
    r = run_trace(&t, "end2.mht");
    expect_notice("end chunk repeated", &r, 0, 0, NULL);
    fz_trace_free(&t);

    t = fz_trace_copy(&g_seed);
    fz_chunk_swap(&t, 2, 3); /* launches 1 and 2: each whole, in the other order */
    r = run_trace(&t, "swapped.mht");
    expect_notice("chunks swapped", &r, 0, 0, "end record");
    fz_trace_free(&t);

    t = fz_trace_copy(&g_seed);
    fz_chunk_swap(&t, 4, t.n - 1); /* the end record before launch 3 */
    r = run_trace(&t, "endfirst.mht");
    expect_notice("end record moved", &r, 0, 0, NULL);
    fz_trace_free(&t);
}

static void test_kernel_end_removed(void) {
    fz_trace t = fz_trace_copy(&g_seed);
    long off = fz_rec_find(&t.c[5], REC_KERNEL_END, 0); /* launch 4's */
    CHECK(off >= 0);
    fz_rec_remove(&t.c[5], (size_t)off);
    result r = run_trace(&t, "noend4.mht");
    expect_notice("kernel end removed", &r, 4, 5, "end record");
    CHECK(!r.st.complete);
    fz_trace_free(&t);
}

/* A block of accesses repeated or removed: the launch's kernel end counts
 * what was written; with and without the end record (a cut run). */
static void test_accesses_miscounted(void) {
    for (int cut = 0; cut < 2; cut++)
        for (int dup = 0; dup < 2; dup++) {
            fz_trace t = fz_trace_copy(&g_seed);
            fz_chunk *c = &t.c[6]; /* launch 5 */
            long off = fz_rec_find(c, REC_ACCESSES, 0);
            CHECK(off >= 0);
            if (dup) {
                size_t n = fz_rec_next(c, (size_t)off) - (size_t)off;
                uint8_t *copy = malloc(n);
                memcpy(copy, c->raw + off, n);
                fz_rec_insert(c, (size_t)off, copy, n);
                free(copy);
            } else {
                fz_rec_remove(c, (size_t)off);
            }
            if (cut) fz_chunk_remove(&t, t.n - 1);
            result r = run_trace(&t, "acc.mht");
            expect_notice(dup ? "accesses repeated" : "accesses removed", &r, 5, 6, "kernel end");
            CHECK(strstr(r.notice, "launch 5") != NULL);
            fz_trace_free(&t);
        }
}

/* A record header's reserved bytes (u8 0, u16 0) not zero: a bad field,
 * even in the end record's own chunk (which no end record covers). */
static void test_reserved_bytes(void) {
    fz_trace t = fz_trace_copy(&g_seed);
    fz_chunk *c = &t.c[t.n - 1];
    c->raw[1] = 0x40; /* the END record's */
    fz_chunk_touch(c);
    result r = run_trace(&t, "reserved.mht");
    fprintf(stderr, "reserved: %s\n", r.msg);
    CHECK(r.rc == MH_ERR_FORMAT);
    CHECK(strstr(r.msg, "reserved") != NULL);
    CHECK(same_maps(&g_ref, &r, 0, UINT32_MAX));
    fz_trace_free(&t);
}

/* A launch miscounted in a trace that is sealed again (its end record
 * states what it holds): the pass says so, and the profile imported from it
 * says it was built from an incomplete trace. */
static void test_import_miscounted(void) {
    fz_trace t = fz_trace_copy(&g_seed);
    fz_chunk *c = &t.c[6];
    long off = fz_rec_find(c, REC_ACCESSES, 0);
    size_t n = fz_rec_next(c, (size_t)off) - (size_t)off;
    uint8_t *copy = malloc(n);
    memcpy(copy, c->raw + off, n);
    fz_rec_insert(c, (size_t)off, copy, n);
    free(copy);
    CHECK(fz_seal(&t) == 0);
    result r = run_trace(&t, "sealed.mht");
    expect_notice("accesses repeated, sealed", &r, 5, 6, "kernel end counts");
    CHECK(r.st.complete && !r.st.inconsistency[0]);
    mh_db_import_opts io = {.trace_path = tmp("sealed.mht"), .threads = 1};
    mh_err err = {0};
    CHECK(mh_db_import_trace(tmp("sealed.mhdb"), 1, &io, &err) == MH_ERR_TRUNCATED);
    mh_db *db = NULL;
    CHECK(mh_db_open(&db, tmp("sealed.mhdb"), 0, &err) == MH_OK);
    char note[600] = "";
    if (db) CHECK(mh_db_notice(db, note, sizeof note) == 1);
    fprintf(stderr, "profile: %s\n", note);
    mh_db_close(db);
    fz_trace_free(&t);
}

static void test_seed_clean(void) {
    result r = run_trace(&g_seed, "same.mht");
    CHECK(r.rc == MH_OK && !r.notice[0] && r.st.complete);
    CHECK(same_maps(&g_ref, &r, 0, UINT32_MAX));
}

int main(int argc, char **argv) {
    snprintf(dir, sizeof dir, "/tmp/mh_test_damage_%d", (int)getpid());
    char cmd[512];
    snprintf(cmd, sizeof cmd, "mkdir -p %s", dir);
    if (system(cmd) != 0) return 1;
    make_seed();
    static const mh_test_case tests[] = {
        {"seed_clean", test_seed_clean},
        {"karg_index", test_karg_index},
        {"chunk_named", test_chunk_named},
        {"chunks_removed_repeated_swapped", test_chunks_removed_repeated_swapped},
        {"kernel_end_removed", test_kernel_end_removed},
        {"accesses_miscounted", test_accesses_miscounted},
        {"reserved_bytes", test_reserved_bytes},
        {"import_miscounted", test_import_miscounted},
    };
    size_t n = sizeof tests / sizeof tests[0];
    mh_test_case pick[sizeof tests / sizeof tests[0]]; /* test_damage NAME...: those alone */
    size_t np = 0;
    for (size_t i = 0; i < n; i++)
        for (int a = 1; a < argc; a++)
            if (!strcmp(argv[a], tests[i].name)) pick[np++] = tests[i];
    int rc = argc > 1 ? mh_test_run(pick, np) : mh_test_run(tests, n);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) return 1;
    fz_trace_free(&g_seed);
    return rc;
}
