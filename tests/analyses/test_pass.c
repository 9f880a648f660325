/* test_pass.c -- mh_pass: one set of damage rules for every caller (import
 * and analyze keep the same launches of a cut or damaged trace), errors are
 * never swallowed (not even with a NULL err), and the results are identical
 * with 1 and N analysis threads, on the launch lanes and the workers' ring
 * (one big launch through every layout of the units: test_pass_big.c). */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "render/analyze.h"
#include "import/import.h"
#include "pass/pass.h"
#include "store/store.h"
#include "collectors/synth.h"
#include "../mh_test.h"
#include "pass_fixture.h"

/* A trace big enough for several batches of the threaded pass. */
static void write_synth(const char *path) {
    mh_err err = {0};
    mh_synth_opts so;
    memset(&so, 0, sizeof so);
    so.shapes = (1u << MH_SYNTH_SHAPE_COUNT) - 1;
    so.warps = 32;
    so.iters = 48;
    so.blocks = 4;
    so.seed = 7;
    CHECK(mh_synth_write(path, &so, &err) == MH_OK);
}

static void copy_file(const char *from, const char *to, off_t keep, off_t flip) {
    FILE *f = fopen(from, "rb"), *g = fopen(to, "wb");
    CHECK(f && g);
    if (!f || !g) return;
    int c;
    off_t i = 0;
    while ((c = fgetc(f)) != EOF && (keep < 0 || i < keep)) {
        if (i == flip) c ^= 0x5a;
        fputc(c, g);
        i++;
    }
    fclose(f);
    fclose(g);
}

static off_t file_size(const char *path) {
    struct stat sb;
    return stat(path, &sb) == 0 ? sb.st_size : -1;
}

/* Same heat maps, locality, findings and JSON document with 1, 2, 4,
 * T_STAGED and T_ALL threads. */
static void test_threads_identical(void) {
    write_synth("pass.mht");
    fp f1 = {0}, f2 = {0}, f4 = {0}, f8 = {0}, f10 = {0};
    mh_err err = {0};
    CHECK(run_fp("pass.mht", 1, &f1, &err) == MH_OK);
    CHECK(run_fp("pass.mht", 2, &f2, &err) == MH_OK);
    CHECK(run_fp("pass.mht", 4, &f4, &err) == MH_OK);
    CHECK(run_fp("pass.mht", T_STAGED, &f8, &err) == MH_OK);
    CHECK(run_fp("pass.mht", T_ALL, &f10, &err) == MH_OK);
    CHECK(f1.maps > 0 && f1.locs > 0);
    CHECK_EQ_U(f10.records, f1.records);
    CHECK_EQ_U(f10.h, f1.h);
    CHECK_EQ_U(f2.maps, f1.maps);
    CHECK_EQ_U(f4.locs, f1.locs);
    CHECK_EQ_U(f4.records, f1.records);
    CHECK_EQ_U(f8.records, f1.records);
    CHECK_EQ_U(f2.h, f1.h);
    CHECK_EQ_U(f4.h, f1.h);
    CHECK_EQ_U(f8.h, f1.h);
    char *a = analyze_json("pass.mht", 1), *b = analyze_json("pass.mht", 3), *c = analyze_json("pass.mht", T_STAGED);
    char *d = analyze_json("pass.mht", T_ALL);
    CHECK(a && b && c && d && strlen(a) > 100 && strcmp(a, b) == 0 && strcmp(a, c) == 0 && strcmp(a, d) == 0);
    free(d);
    free(a);
    free(b);
    free(c);
}

/* Launches (and heat maps) kept from a broken trace, by analyze and by import. */
static void same_kept(const char *trace, const char *db_path, int want_rc) {
    mh_analyze_result res;
    mh_err err = {0};
    int rc = mh_analyze_file(trace, NULL, &res, &err);
    CHECK(rc == want_rc);
    CHECK(res.partial);
    CHECK(res.truncated == (want_rc == MH_ERR_TRUNCATED));
    size_t nl = res.model.nlaunches;
    CHECK(nl >= 1);
    mh_analyze_free(&res);

    mh_db_import_opts io;
    memset(&io, 0, sizeof io);
    io.trace_path = trace;
    io.threads = 2;
    rc = mh_db_import_trace(db_path, 1, &io, &err);
    if (want_rc == MH_ERR_TRUNCATED) CHECK(rc == MH_ERR_TRUNCATED);
    else CHECK(rc != MH_OK);
    mh_db *db;
    CHECK(mh_db_open(&db, db_path, 0, &err) == MH_OK);
    json_t *s = NULL;
    CHECK(mh_db_read_summary(db, &s, &err) == MH_OK);
    mh_db_close(db);
    if (!s) return;
    CHECK_EQ_U(json_array_size(json_object_get(s, "launches")), nl);
    CHECK(json_array_size(json_object_get(s, "heat_maps")) >= 1);
    json_decref(s);
}

static void test_cut_same_everywhere(void) {
    write_synth("pass_src.mht");
    off_t n = file_size("pass_src.mht");
    copy_file("pass_src.mht", "pass_cut.mht", n * 2 / 3, -1);
    same_kept("pass_cut.mht", "pass_cut.mhdb", MH_ERR_TRUNCATED);
}

static void test_damage_same_everywhere(void) {
    write_synth("pass_src.mht");
    off_t n = file_size("pass_src.mht");
    copy_file("pass_src.mht", "pass_bad.mht", -1, n * 2 / 3);
    mh_analyze_result res;
    mh_err err = {0};
    int rc = mh_analyze_file("pass_bad.mht", NULL, &res, &err);
    CHECK(rc != MH_OK && rc != MH_ERR_TRUNCATED);
    mh_analyze_free(&res);
    same_kept("pass_bad.mht", "pass_bad.mhdb", rc);
}

/* Every error comes back as a code, with or without an mh_err. */
static void test_errors_not_swallowed(void) {
    write_synth("pass.mht");
    for (unsigned t = 1; t <= 2; t++) {
        fp f = {0};
        f.fail_at_map = 2;
        CHECK(run_fp("pass.mht", t, &f, NULL) == MH_ERR_IO);
        fp g = {0};
        g.fail_at_map = 1;
        mh_err err = {0};
        CHECK(run_fp("pass.mht", t, &g, &err) == MH_ERR_IO);
        CHECK(err.code == MH_ERR_IO);
    }
    /* a damaged trace through the import, err NULL */
    write_synth("pass_src.mht");
    copy_file("pass_src.mht", "pass_bad2.mht", -1, file_size("pass_src.mht") / 2);
    mh_db_import_opts io;
    memset(&io, 0, sizeof io);
    io.trace_path = "pass_bad2.mht";
    CHECK(mh_db_import_trace("pass_bad2.mhdb", 1, &io, NULL) != MH_OK);
    mh_analyze_result res;
    CHECK(mh_analyze_file("pass_bad2.mht", NULL, &res, NULL) != MH_OK);
    mh_analyze_free(&res);
    /* a file that is not there */
    mh_pass *p = NULL;
    CHECK(mh_pass_open(&p, "pass_missing.mht", NULL, NULL, NULL) != MH_OK);
    CHECK(p == NULL);
}

/* ---- launch lanes: many launches, overlapping ones, bad records ---- */

/* A trace at path with default chunks and one 1 MiB global allocation "A"
 * at 0x100000. */
static mh_trace_writer *create_with_alloc(const char *path) {
    mh_err err = {0};
    mh_trace_header h = synthetic_header();
    mh_trace_writer *w = NULL;
    CHECK(mh_trace_create(&w, path, &h, NULL, &err) == MH_OK);
    mh_alloc a = {0, MH_TRACE_NO_LAUNCH, 0x100000, 1u << 20, MH_SPACE_GLOBAL, "A"};
    if (w) CHECK(mh_trace_write_alloc(w, &a, &err) == MH_OK);
    return w;
}

/* A trace of NL launches in the shapes the lanes must keep apart: global
 * loads coalesced or strided, shared-memory accesses with bank conflicts,
 * kernel arguments, pairs of launches in flight together, records that
 * contradict the model (skipped), and a last launch that never ends. */
static void write_lanes_trace(const char *path) {
    mh_err err = {0};
    mh_trace_header h = synthetic_header();
    mh_trace_writer *w;
    mh_trace_writer_opts wo = {.chunk_bytes = 16 << 10}; /* small chunks: cuts and damage fall mid-trace */
    CHECK(mh_trace_create(&w, path, &h, &wo, &err) == MH_OK);
    mh_alloc a = {0, MH_TRACE_NO_LAUNCH, 0x100000, 1u << 16, MH_SPACE_GLOBAL, "A"};
    CHECK(mh_trace_write_alloc(w, &a, &err) == MH_OK);
    mh_pcinfo pi = {0x10, "kern", "k.cu", 42};
    CHECK(mh_trace_write_pcinfo(w, &pi, &err) == MH_OK);
    enum { NL = 48, PER = 768, BIG_RECS = 1000 };
    static mh_access v[PER];
    for (uint32_t l = 0; l < NL; l++) {
        int pair = l % 7 == 3 && l + 1 < NL; /* l and l + 1 in flight together */
        for (uint32_t k = l; k <= l + (uint32_t)pair; k++) {
            put_launch(w, k, k % 3 ? "kern(float*)" : "other(float*)", 2, 128);
            mh_karg ka = {k, 0, 0, 8, 0x100000 + 256 * (k % 5), MH_SPACE_GLOBAL, "float*", "x"};
            if (k % 2) CHECK(mh_trace_write_karg(w, &ka, &err) == MH_OK);
        }
        for (uint32_t k = l; k <= l + (uint32_t)pair; k++) {
            uint32_t stride = k % 4 == 1 ? 32 : 4;
            for (uint32_t i = 0; i < PER; i++) {
                uint32_t t = i % 256, b = (i / 256) % 2;
                if (k % 5 == 2) /* shared memory, a column access: bank conflicts */
                    v[i] = (mh_access){(uint64_t)(t % 32) * 128 + 4 * (i / 256), 0x20, k, b, i / 256, (uint16_t)t,
                                       4, MH_ACCESS_FLAGS(MH_KIND_LOAD, MH_SPACE_SHARED)};
                else
                    v[i] = (mh_access){0x100000 + ((uint64_t)t * stride + 1024 * (i / 256) + 64 * k) % (1u << 16),
                                       0x10, k, b, i / 256, (uint16_t)t, 4,
                                       MH_ACCESS_FLAGS(i % 3 ? MH_KIND_LOAD : MH_KIND_STORE, MH_SPACE_GLOBAL)};
            }
            CHECK(mh_trace_write_accesses(w, v, PER, &err) == MH_OK);
            /* one launch of BIG_RECS records more, each word once: many
             * full lane batches, slower to analyse than to read, whose
             * halves other lanes' threads may take (lanes.c, pick) */
            for (uint32_t r = 1; l == 30 && r <= BIG_RECS; r++) {
                for (uint32_t i = 0; i < PER; i++) {
                    v[i].seq = i / 256 + 3 * r;
                    v[i].addr = 0x4000000 + ((uint64_t)r * PER + i) * 4;
                }
                CHECK(mh_trace_write_accesses(w, v, PER, &err) == MH_OK);
            }
        }
        if (l == 10) { /* bad: accesses of a launch never announced, of an ended one; a repeated launch */
            for (uint32_t i = 0; i < 64; i++) v[i].launch = i % 2 ? 9999 : 2;
            CHECK(mh_trace_write_accesses(w, v, 64, &err) == MH_OK);
            mh_launch again = {0};
            again.id = 4;
            again.name = again.display_name = "again";
            again.grid = again.block = (mh_dim3){1, 1, 1};
            again.n_sampled = MH_TRACE_ALL_BLOCKS;
            CHECK(mh_trace_write_launch(w, &again, &err) == MH_OK);
        }
        if (l + 1 + (uint32_t)pair == NL) break; /* the last launch never ends */
        for (uint32_t k = l; k <= l + (uint32_t)pair; k++) {
            mh_kernel_end e = {k, PER, 0, 0};
            CHECK(mh_trace_write_kernel_end(w, &e, &err) == MH_OK);
            if (k == 20) CHECK(mh_trace_write_kernel_end(w, &e, &err) == MH_OK); /* bad: twice */
        }
        l += (uint32_t)pair;
    }
    CHECK(mh_trace_close(w, &err) == MH_OK);
}

/* Like run_fp, without a consumer of every record (so the lanes run), and
 * fingerprinting the order of the findings, bank statistics and requests. */
static int run_fp_lanes(const char *path, unsigned threads, fp *f, mh_pass_stats *st) {
    mh_pass_opts po = {0};
    po.analyses = MH_PASS_HEAT | MH_PASS_PATTERNS | MH_PASS_LOCALITY;
    po.threads = threads;
    mh_pass *p;
    mh_err err = {0};
    int rc = mh_pass_open(&p, path, NULL, &po, &err);
    if (rc) return rc;
    mh_pass_consumer c = {.ctx = f, .heat = fp_heat, .loc = fp_loc};
    rc = mh_pass_add(p, &c, &err);
    if (!rc) rc = mh_pass_run(p, &err);
    *st = *mh_pass_stats_get(p);
    if (!rc || st->partial) {
        size_t n;
        const mh_pat_finding *x = mh_pat_findings(mh_pass_patterns(p), &n);
        for (size_t i = 0; i < n; i++) {
            mix(f, &x[i].kind, sizeof x[i].kind);
            mix(f, &x[i].launch, sizeof x[i].launch);
            mix(f, &x[i].cost, sizeof x[i].cost);
            mix(f, x[i].summary, strlen(x[i].summary));
            mix(f, x[i].name, strlen(x[i].name));
            mix(f, x[i].kernel, strlen(x[i].kernel));
            if (x[i].file) mix(f, x[i].file, strlen(x[i].file));
        }
            const mh_bank_table *bt = mh_pat_banks(mh_pass_patterns(p));
        for (size_t i = 0; i < bt->n; i++) { /* the order and the sums */
            const mh_bank_pc *b = &bt->v[i];
            uint64_t w[7] = {b->launch, b->pc, (uint64_t)b->obj, b->requests, b->sum_degree, b->extra, b->ex_block};
            mix(f, w, sizeof w);
        }
        const mh_pat_req *rq = mh_pat_requests(mh_pass_patterns(p), &n);
            for (size_t i = 0; i < n; i++) { /* field by field: the struct has padding */
            uint64_t w[6] = {rq[i].launch, rq[i].pc, (uint64_t)rq[i].obj, rq[i].kind, rq[i].requests, rq[i].sectors};
            mix(f, w, sizeof w);
            mix(f, &rq[i].ideal_sectors, sizeof rq[i].ideal_sectors);
        }
        f->records = n;
    }
    mh_pass_close(p);
    return rc;
}

/* Returns the batches the lanes' threads analysed for other lanes' halves. */
static double same_with_lanes(const char *path, int want_rc) {
    fp f1 = {0};
    mh_pass_stats s1;
    int rc1 = run_fp_lanes(path, 1, &f1, &s1);
    CHECK(rc1 == want_rc);
    CHECK(f1.maps > 10 && f1.locs > 10);
    double moved = 0;
    for (unsigned t = 2; t <= T_ALL; t = next_t(t)) {
        fp ft = {0};
        mh_pass_stats st;
        CHECK(run_fp_lanes(path, t, &ft, &st) == rc1);
        CHECK_EQ_U(st.threads, t);
        CHECK_EQ_U(ft.maps, f1.maps);
        CHECK_EQ_U(ft.locs, f1.locs);
        CHECK_EQ_U(ft.records, f1.records);
        CHECK_EQ_U(ft.h, f1.h);
        CHECK_EQ_U(st.skipped_total, s1.skipped_total);
        CHECK(memcmp(st.skipped, s1.skipped, sizeof st.skipped) == 0);
        CHECK_EQ_U(st.maps, s1.maps);
        CHECK_EQ_U(st.sectors, s1.sectors);
        CHECK_EQ_U(st.peak_heat + st.peak_loc + st.peak_pat, s1.peak_heat + s1.peak_loc + s1.peak_pat);
        CHECK_EQ_U(st.split_pat, s1.split_pat);
        moved += st.times.lanes_moved;
    }
    return moved;
}

/* Launches analysed in parallel lanes give the serial results, in the
 * serial order, also for a cut or damaged trace. */
static void test_lanes_identical(void) {
    write_lanes_trace("pass_lanes.mht");
    /* the big launch's batches: a lane's other half taken by a thread that
     * waits, in some of the four runs at least (each has idle lanes) */
    CHECK(same_with_lanes("pass_lanes.mht", MH_OK) > 0);
    fp f = {0};
    mh_pass_stats st;
    CHECK(run_fp_lanes("pass_lanes.mht", 3, &f, &st) == MH_OK);
    CHECK(st.skipped[MH_BAD_ACCESS_UNKNOWN] == 32 && st.skipped[MH_BAD_ACCESS_ENDED] == 32);
    CHECK(st.skipped[MH_BAD_LAUNCH_TWICE] == 1 && st.skipped[MH_BAD_END_TWICE] == 1);
    char *a = analyze_json("pass_lanes.mht", 1);
    for (unsigned t = 2; t <= 4; t += 2) {
        char *b = analyze_json("pass_lanes.mht", t);
        CHECK(a && b && strlen(a) > 1000 && strcmp(a, b) == 0);
        free(b);
    }
    free(a);
    off_t n = file_size("pass_lanes.mht");
    copy_file("pass_lanes.mht", "pass_lanes_cut.mht", n / 2, -1);
    same_with_lanes("pass_lanes_cut.mht", MH_ERR_TRUNCATED);
    copy_file("pass_lanes.mht", "pass_lanes_bad.mht", -1, n / 2);
    fp g = {0};
    int rc = run_fp_lanes("pass_lanes_bad.mht", 1, &g, &st);
    CHECK(rc != MH_OK && rc != MH_ERR_TRUNCATED);
    same_with_lanes("pass_lanes_bad.mht", rc);
    /* a consumer's error stops the lanes too (5: lanes of two halves) */
    for (unsigned t = 1; t <= 5; t += 2) {
        fp e = {0};
        e.fail_at_map = 7;
        CHECK(run_fp_lanes("pass_lanes.mht", t, &e, &st) == MH_ERR_IO);
        CHECK_EQ_U(e.maps, 7);
    }
}

/* ---- the worker ring: many batches, barriers between them ---- */

/* Two launches in flight together of BIG accesses each (about forty batches of
 * 2^15 on the pass's workers), with allocations and source lines (barriers)
 * between access records, then a few small launches (lanes when there is no
 * record consumer). */
static void write_ring_trace(const char *path) {
    mh_err err = {0};
    mh_trace_writer *w = create_with_alloc(path);
    enum { BIG = 640 << 10, REC = 4096, SMALL = 12 };
    static mh_access v[REC];
    for (uint32_t k = 0; k < 2; k++) put_launch(w, k, k ? "other(float*)" : "kern(float*)", 64, 256);
    uint32_t nalloc = 1;
    for (uint32_t r = 0; r < 2 * BIG / REC; r++) {
        uint32_t k = r % 2, stride = (r / 16) % 3 == 1 ? 32 : 4;
        for (uint32_t i = 0; i < REC; i++) {
            uint32_t g = r / 2 * REC + i, t = g % 256, b = (g / 256) % 64, it = g / (256 * 64);
            if (k && (r / 8) % 4 == 3) /* shared memory, a column access: bank conflicts */
                v[i] = (mh_access){(uint64_t)(t % 32) * 128 + 4 * (it % 32), 0x20, k, b, it, (uint16_t)t, 4,
                                   MH_ACCESS_FLAGS(MH_KIND_LOAD, MH_SPACE_SHARED)};
            else
                v[i] = (mh_access){0x100000 + ((uint64_t)t * stride + 1024 * b + 4096 * (it % 8)) % (1u << 20),
                                   0x10 + 8 * (r % 3), k, b, it, (uint16_t)t, 4,
                                   MH_ACCESS_FLAGS(i % 5 ? MH_KIND_LOAD : MH_KIND_STORE, MH_SPACE_GLOBAL)};
        }
        CHECK(mh_trace_write_accesses(w, v, REC, &err) == MH_OK);
        if (r % 37 == 36) { /* a barrier inside a batch, at a different place each time */
            mh_alloc x = {nalloc, MH_TRACE_NO_LAUNCH, 0x4000000 + (uint64_t)nalloc * 4096, 4096, MH_SPACE_GLOBAL, "tmp"};
            nalloc++;
            CHECK(mh_trace_write_alloc(w, &x, &err) == MH_OK);
        }
        if (r % 101 == 100) {
            mh_pcinfo pi = {0x10 + 8 * (r % 3), "kern", "k.cu", r};
            CHECK(mh_trace_write_pcinfo(w, &pi, &err) == MH_OK);
        }
    }
    for (uint32_t k = 0; k < 2; k++) {
        mh_kernel_end e = {k, BIG, 0, 0};
        CHECK(mh_trace_write_kernel_end(w, &e, &err) == MH_OK);
    }
    for (uint32_t k = 2; k < 2 + SMALL; k++) {
        mh_launch ln = {0};
        ln.id = k;
        ln.name = ln.display_name = "kern(float*)";
        ln.grid = (mh_dim3){2, 1, 1};
        ln.block = (mh_dim3){256, 1, 1};
        ln.n_sampled = MH_TRACE_ALL_BLOCKS;
        CHECK(mh_trace_write_launch(w, &ln, &err) == MH_OK);
        for (uint32_t i = 0; i < 512; i++)
            v[i] = (mh_access){0x100000 + (uint64_t)i * 4 * (k % 3 + 1), 0x10, k, i / 256, 0, (uint16_t)(i % 256), 4,
                               MH_ACCESS_FLAGS(MH_KIND_LOAD, MH_SPACE_GLOBAL)};
        CHECK(mh_trace_write_accesses(w, v, 512, &err) == MH_OK);
        mh_kernel_end e = {k, 512, 0, 0};
        CHECK(mh_trace_write_kernel_end(w, &e, &err) == MH_OK);
    }
    CHECK(mh_trace_close(w, &err) == MH_OK);
}

/* Batches consumed by each analysis at its own pace give the serial results
 * and memory peak with 1 to T_ALL threads, with a record consumer (all on
 * the ring) and without (the ring, then lanes), also for a cut trace; a
 * consumer's error stops the pass at the same map whatever the thread
 * count. */
static void test_ring_identical(void) {
    write_ring_trace("pass_ring.mht");
    fp f1 = {0};
    mh_err err = {0};
    CHECK(run_fp("pass_ring.mht", 1, &f1, &err) == MH_OK);
    CHECK(f1.maps > 10 && f1.locs == 14 && f1.records > 50);
    for (unsigned t = 2; t <= T_ALL; t = next_t(t)) {
        fp ft = {0};
        CHECK(run_fp("pass_ring.mht", t, &ft, &err) == MH_OK);
        CHECK_EQ_U(ft.maps, f1.maps);
        CHECK_EQ_U(ft.locs, f1.locs);
        CHECK_EQ_U(ft.records, f1.records);
        CHECK_EQ_U(ft.h, f1.h);
        CHECK_EQ_U(ft.peak, f1.peak);
    }
    same_with_lanes("pass_ring.mht", MH_OK);
    char *a = analyze_json("pass_ring.mht", 1), *b = analyze_json("pass_ring.mht", 3);
    char *c = analyze_json("pass_ring.mht", T_STAGED);
    CHECK(a && b && c && strlen(a) > 1000 && strcmp(a, b) == 0 && strcmp(a, c) == 0);
    CHECK(a && strstr(a, "bank") != NULL);
    free(a);
    free(b);
    free(c);
    copy_file("pass_ring.mht", "pass_ring_cut.mht", file_size("pass_ring.mht") * 3 / 5, -1);
    fp c1 = {0};
    CHECK(run_fp("pass_ring_cut.mht", 1, &c1, &err) == MH_ERR_TRUNCATED);
    for (unsigned t = 2; t <= T_ALL; t = next_t(t)) {
        fp ct = {0};
        CHECK(run_fp("pass_ring_cut.mht", t, &ct, &err) == MH_ERR_TRUNCATED);
        CHECK_EQ_U(ct.maps, c1.maps);
        CHECK_EQ_U(ct.locs, c1.locs);
        CHECK_EQ_U(ct.h, c1.h);
    }
    for (unsigned t = 1; t <= T_ALL; t = next_t(t)) {
        fp e = {0};
        e.fail_at_map = 2;
        CHECK(run_fp("pass_ring.mht", t, &e, &err) == MH_ERR_IO);
        CHECK_EQ_U(e.maps, 2);
    }
}

/* ---- the JSON document of a many-launch trace ---- */

/* 1,100 launches of one warp's loads: every array of the document has more
 * elements than one thread prints (analyze_json.c prints them in slices on
 * several threads and puts the texts together); the document must parse
 * and be exactly what jansson prints for the parsed tree with the same
 * flags (a slice joined with a wrong comma, bracket or indent fails here),
 * and the same with one analysis thread. */
static void test_json_many_launches(void) {
    const char *path = "pass_json.mht";
    mh_err err = {0};
    mh_trace_writer *w = create_with_alloc(path);
    mh_access v[32];
    for (uint32_t l = 0; l < 1100; l++) {
        put_launch(w, l, l % 2 ? "even(float*)" : "odd(float*)", 1, 32);
        uint32_t stride = l % 3 ? 4 : 128; /* strided launches: findings too */
        for (uint32_t t = 0; t < 32; t++)
            v[t] = (mh_access){0x100000 + (uint64_t)(t * stride + 4096 * (l % 200)), 0x10, l, 0, 0, (uint16_t)t, 4,
                               MH_ACCESS_FLAGS(MH_KIND_LOAD, MH_SPACE_GLOBAL)};
        CHECK(mh_trace_write_accesses(w, v, 32, &err) == MH_OK);
        mh_kernel_end e = {l, 32, 0, 1000};
        CHECK(mh_trace_write_kernel_end(w, &e, &err) == MH_OK);
    }
    CHECK(mh_trace_close(w, &err) == MH_OK);
    char *doc = analyze_json(path, 2), *one = analyze_json(path, 1);
    CHECK(doc && one && strcmp(doc, one) == 0);
    json_error_t je;
    json_t *root = doc ? json_loads(doc, 0, &je) : NULL;
    CHECK(root != NULL);
    CHECK(json_array_size(json_object_get(root, "kernels")) == 1100);
    CHECK(json_array_size(json_object_get(root, "locality")) == 1100);
    CHECK(json_array_size(json_object_get(root, "findings")) > 300);
    char *again = root ? json_dumps(root, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) : NULL;
    CHECK(again && doc && strlen(doc) == strlen(again) + 1 && strncmp(doc, again, strlen(again)) == 0);
    free(again);
    json_decref(root);
    free(doc);
    free(one);
}

/* The model finds launches by id: in order with gaps (launches sampled out
 * have no record), then out of order (ids found by a scan from then on), and
 * says a repeated id is there twice in either state. */
static void test_model_launch_ids(void) {
    mh_trace_header h = {0};
    h.producer = h.command = h.note = "";
    h.device.name = "d";
    mh_model m;
    mh_err e = {0};
    CHECK(mh_model_init(&m, &h, &e) == MH_OK);
    static const uint32_t ids[] = {0, 1, 2, 5, 9, 10, 40, 41, 1000, 7, 3, 2000};
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        mh_record r = {.type = MH_REC_LAUNCH};
        r.u.launch.id = ids[i];
        r.u.launch.name = r.u.launch.display_name = "k";
        r.u.launch.grid = (mh_dim3){1, 1, 1};
        r.u.launch.block = (mh_dim3){32, 1, 1};
        r.u.launch.n_sampled = MH_TRACE_ALL_BLOCKS;
        CHECK(mh_model_feed(&m, &r, &e) == MH_OK);
        for (size_t j = 0; j <= i; j++) { /* every id so far, at its slot */
            const mh_model_launch *ml = mh_model_launch_get(&m, ids[j]);
            CHECK(ml && ml == &m.launches[j]);
        }
        for (uint32_t x = 0; x <= 2001; x++) { /* and nothing else */
            int known = 0;
            for (size_t j = 0; j <= i; j++) known |= ids[j] == x;
            if (!known) CHECK(mh_model_launch_get(&m, x) == NULL);
        }
        if (i == 8 || i + 1 == sizeof ids / sizeof ids[0]) { /* a repeat, sorted so far or not */
            mh_record d = r;
            d.u.launch.id = ids[i - 1];
            CHECK(mh_model_feed(&m, &d, &e) == MH_ERR_FORMAT);
            d.u.launch.id = ids[0];
            CHECK(mh_model_feed(&m, &d, &e) == MH_ERR_FORMAT);
        }
    }
    CHECK_EQ_U(m.nlaunches, sizeof ids / sizeof ids[0]);
    mh_model_free(&m);
}

int main(void) {
    static const mh_test_case cases[] = {{"json_many_launches", test_json_many_launches},
                                         {"threads_identical", test_threads_identical},
                                         {"cut_same_everywhere", test_cut_same_everywhere},
                                         {"damage_same_everywhere", test_damage_same_everywhere},
                                         {"errors_not_swallowed", test_errors_not_swallowed},
                                         {"lanes_identical", test_lanes_identical},
                                         {"ring_identical", test_ring_identical},
                                         {"model_launch_ids", test_model_launch_ids}};
    return mh_test_run(cases, sizeof cases / sizeof cases[0]);
}
