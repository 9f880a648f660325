/* test_patterns.c -- pattern detection mechanics on hand-written traces: the
 * stride and source line reported, misalignment of 2-D warps (two 16-lane
 * rows), false sharing told apart from misalignment when several blocks read
 * the same data, findings sorted by cost, a well-coalesced 2-D control
 * without any finding, a store after divergent loops grouped into whole warp
 * requests, and the findings of several pcs of one object merged into one.
 * The broad shape x parameter grid is in labeled.tsv. */
#include <jansson.h>
#include <string.h>

#include "../mh_test.h"
#include "analyses/occur.h"
#include "render/analyze.h"
#include "tbuild.h"

static size_t kinds_of(const mh_analyze_result *r, const char *label, int *kinds, size_t cap) {
    size_t n = 0, k = 0;
    const mh_pat_finding *f = mh_pat_findings(r->pat, &n);
    for (size_t i = 0; i < n; i++)
        if (!strcmp(f[i].label, label) && k < cap) kinds[k++] = f[i].kind;
    return k;
}

static const mh_pat_finding *find_kind(const mh_analyze_result *r, const char *label, int kind) {
    size_t n = 0;
    const mh_pat_finding *f = mh_pat_findings(r->pat, &n);
    for (size_t i = 0; i < n; i++)
        if (!strcmp(f[i].label, label) && f[i].kind == kind) return &f[i];
    return NULL;
}

/* 4 warps, thread t reads X[3 t] (12-byte stride) at pc 0x200 = k.cu:42, and
 * writes Y[t] coalesced at pc 0x210. */
static void test_stride_and_source(void) {
    tb t;
    CHECK(tb_open(&t, "stride"));
    tb_alloc(&t, 0, MH_TRACE_NO_LAUNCH, 0x100000, 4096, MH_SPACE_GLOBAL, "X");
    tb_alloc(&t, 1, MH_TRACE_NO_LAUNCH, 0x200000, 4096, MH_SPACE_GLOBAL, "Y");
    tb_pcinfo(&t, 0x200, "kern", "k.cu", 42);
    tb_launch(&t, 0, "kern", 1, 128);
    for (uint16_t th = 0; th < 128; th++) {
        tb_acc(&t, 0, 0, th, 0, 0x100000 + 12u * th, 4, MH_KIND_LOAD, MH_SPACE_GLOBAL, 0x200);
        tb_acc(&t, 0, 0, th, 1, 0x200000 + 4u * th, 4, MH_KIND_STORE, MH_SPACE_GLOBAL, 0x210);
    }
    tb_end(&t, 0);
    CHECK(tb_close(&t));
    mh_analyze_result res;
    CHECK(mh_analyze_file(t.path, NULL, &res, NULL) == MH_OK);
    const mh_pat_finding *s = find_kind(&res, "X", MH_PAT_STRIDED);
    CHECK(s != NULL);
    if (s) {
        CHECK(s->stride == 12);
        CHECK_EQ_U(s->elem_size, 4);
        CHECK_EQ_U(s->pc, 0x200);
        CHECK(s->file && !strcmp(s->file, "k.cu"));
        CHECK_EQ_U(s->line, 42);
        CHECK_EQ_U(s->requests, 4);
        /* 32 lanes x 12 bytes = 384 bytes = 12 sectors; 128 bytes needed = 4 */
        CHECK_EQ_U(s->req_sectors, 48);
        CHECK_EQ_U(s->ideal_sectors, 16);
        CHECK(s->cost == 32.0);
        CHECK(strstr(s->suggestion, "thread-to-index") != NULL);
    }
    int k[8];
    size_t nk = kinds_of(&res, "Y", k, 8);
    CHECK_EQ_U(nk, 1);
    if (nk == 1) CHECK_EQ_U(k[0], MH_PAT_COALESCED);
    mh_analyze_free(&res);
    unlink(t.path);
}

/* 2-D block 16 x 16: warp = two rows of 16 floats. Rows of M have a pitch of
 * 1000 bytes (not a multiple of 32), rows of P a pitch of 1024. M is
 * misaligned (3 sectors per 64-byte row segment instead of 2), P is a
 * well-coalesced control. */
static void test_2d_misaligned_vs_control(void) {
    tb t;
    CHECK(tb_open(&t, "twod"));
    tb_alloc(&t, 0, MH_TRACE_NO_LAUNCH, 0x100000, 16 * 1000 + 64, MH_SPACE_GLOBAL, "M");
    tb_alloc(&t, 1, MH_TRACE_NO_LAUNCH, 0x200000, 16 * 1024, MH_SPACE_GLOBAL, "P");
    tb_launch(&t, 0, "twod", 1, 256);
    for (uint16_t th = 0; th < 256; th++) {
        unsigned x = th % 16, y = th / 16;
        tb_acc(&t, 0, 0, th, 0, 0x100000 + 1000u * y + 4u * x, 4, MH_KIND_LOAD, MH_SPACE_GLOBAL, 0x10);
        tb_acc(&t, 0, 0, th, 1, 0x200000 + 1024u * y + 4u * x, 4, MH_KIND_STORE, MH_SPACE_GLOBAL, 0x20);
    }
    tb_end(&t, 0);
    CHECK(tb_close(&t));
    mh_analyze_result res;
    CHECK(mh_analyze_file(t.path, NULL, &res, NULL) == MH_OK);
    int k[8];
    size_t nk = kinds_of(&res, "M", k, 8);
    CHECK(nk >= 1);
    int mis = 0, other = 0;
    for (size_t i = 0; i < nk; i++) {
        if (k[i] == MH_PAT_MISALIGNED) mis++;
        else other++;
    }
    CHECK_EQ_U(mis, 1);
    CHECK_EQ_U(other, 0);
    nk = kinds_of(&res, "P", k, 8);
    CHECK_EQ_U(nk, 1);
    if (nk == 1) CHECK_EQ_U(k[0], MH_PAT_COALESCED);
    mh_analyze_free(&res);
    unlink(t.path);
}

/* Three blocks read the same misaligned range: each boundary sector has
 * sector temperature 2x its words (6 vs 3) like false sharing, but the
 * warps' requests are contiguous: misalignment only. */
static void test_misaligned_not_false_sharing(void) {
    tb t;
    CHECK(tb_open(&t, "misfs"));
    tb_alloc(&t, 0, MH_TRACE_NO_LAUNCH, 0x100000, 8192, MH_SPACE_GLOBAL, "in");
    tb_launch(&t, 0, "mis", 3, 256);
    for (uint32_t b = 0; b < 3; b++)
        for (uint16_t th = 0; th < 256; th++)
            tb_acc(&t, 0, b, th, 0, 0x100000 + 8 + 4u * th, 4, MH_KIND_LOAD, MH_SPACE_GLOBAL, 0x10);
    tb_end(&t, 0);
    CHECK(tb_close(&t));
    mh_analyze_result res;
    CHECK(mh_analyze_file(t.path, NULL, &res, NULL) == MH_OK);
    CHECK(find_kind(&res, "in", MH_PAT_MISALIGNED) != NULL);
    CHECK(find_kind(&res, "in", MH_PAT_FALSE_SHARING) == NULL);
    const mh_pat_finding *m = find_kind(&res, "in", MH_PAT_MISALIGNED);
    if (m) CHECK_EQ_U(m->requests, 24);
    mh_analyze_free(&res);
    unlink(t.path);
}

/* Costs order findings: a heavily strided object before a lightly
 * misaligned one, whatever the launch order. */
static void test_sorted_by_cost(void) {
    tb t;
    CHECK(tb_open(&t, "order"));
    tb_alloc(&t, 0, MH_TRACE_NO_LAUNCH, 0x100000, 4096 + 64, MH_SPACE_GLOBAL, "light");
    tb_alloc(&t, 1, MH_TRACE_NO_LAUNCH, 0x400000, 1 << 16, MH_SPACE_GLOBAL, "heavy");
    tb_launch(&t, 0, "a", 1, 64);
    for (uint16_t th = 0; th < 64; th++) tb_acc(&t, 0, 0, th, 0, 0x100000 + 4 + 4u * th, 4, 0, 0, 0x10);
    tb_end(&t, 0);
    tb_launch(&t, 1, "b", 1, 64);
    for (uint16_t th = 0; th < 64; th++) tb_acc(&t, 1, 0, th, 0, 0x400000 + 256u * th, 4, 0, 0, 0x20);
    tb_end(&t, 1);
    CHECK(tb_close(&t));
    mh_analyze_result res;
    CHECK(mh_analyze_file(t.path, NULL, &res, NULL) == MH_OK);
    size_t n = 0;
    const mh_pat_finding *f = mh_pat_findings(res.pat, &n);
    CHECK(n >= 2);
    if (n >= 2) {
        CHECK_EQ_U(f[0].kind, MH_PAT_STRIDED);
        CHECK(!strcmp(f[0].label, "heavy"));
        CHECK_EQ_U(f[1].kind, MH_PAT_MISALIGNED);
        CHECK(f[0].cost > f[1].cost);
    }
    for (size_t i = 1; i < n; i++) CHECK(f[i - 1].cost >= f[i].cost);
    mh_analyze_free(&res);
    unlink(t.path);
}

/* Shared memory: a warp-private exchange (lane 0 writes, its warp reads)
 * and a thread-private slot array; plus a tile all warps read (no finding). */
static void test_shared_variants(void) {
    tb t;
    CHECK(tb_open(&t, "smem"));
    tb_alloc(&t, 0, 0, 0, 32, MH_SPACE_SHARED, "bcast");
    tb_alloc(&t, 1, 0, 64, 1024, MH_SPACE_SHARED, "slots");
    tb_alloc(&t, 2, 0, 2048, 256, MH_SPACE_SHARED, "tile");
    tb_launch(&t, 0, "smem", 1, 256);
    for (uint16_t th = 0; th < 256; th++) {
        unsigned w = th / 32;
        if (th % 32 == 0) tb_acc(&t, 0, 0, th, 0, 4u * w, 4, MH_KIND_STORE, MH_SPACE_SHARED, 0x10);
        tb_acc(&t, 0, 0, th, 1, 4u * w, 4, MH_KIND_LOAD, MH_SPACE_SHARED, 0x20);
        tb_acc(&t, 0, 0, th, 2, 64 + 4u * th, 4, MH_KIND_STORE, MH_SPACE_SHARED, 0x30);
        tb_acc(&t, 0, 0, th, 3, 64 + 4u * th, 4, MH_KIND_LOAD, MH_SPACE_SHARED, 0x40);
        tb_acc(&t, 0, 0, th, 4, 2048 + 4u * (th % 64), 4, MH_KIND_LOAD, MH_SPACE_SHARED, 0x50);
        if (th < 64) /* the tile's words were stored by the kernel (a read of unwritten ones is a partial view) */
            tb_acc(&t, 0, 0, th, 5, 2048 + 4u * th, 4, MH_KIND_STORE, MH_SPACE_SHARED, 0x60);
    }
    tb_end(&t, 0);
    CHECK(tb_close(&t));
    mh_analyze_result res;
    CHECK(mh_analyze_file(t.path, NULL, &res, NULL) == MH_OK);
    int k[8];
    size_t nk = kinds_of(&res, "bcast", k, 8);
    CHECK_EQ_U(nk, 1);
    if (nk == 1) CHECK_EQ_U(k[0], MH_PAT_SMEM_WARP);
    nk = kinds_of(&res, "slots", k, 8);
    CHECK_EQ_U(nk, 1);
    if (nk == 1) CHECK_EQ_U(k[0], MH_PAT_SMEM_THREAD);
    CHECK_EQ_U(kinds_of(&res, "tile", k, 8), 0);
    const mh_pat_finding *s = find_kind(&res, "slots", MH_PAT_SMEM_THREAD);
    if (s) CHECK(strstr(s->suggestion, "register") != NULL);
    s = find_kind(&res, "bcast", MH_PAT_SMEM_WARP);
    if (s) CHECK(strstr(s->suggestion, "__shfl_sync") != NULL);
    mh_analyze_free(&res);
    unlink(t.path);
}

/* GRAMSCHM kernel3 shape: at step i every lane of every warp reads
 * q[i*NJ + k] (one broadcast word per row): no lane stride, but only one word
 * of each sector is ever used, 256 bytes apart, by all 8 warps: strided over
 * time, and hot. */
static void test_column_walk(void) {
    tb t;
    CHECK(tb_open(&t, "column"));
    tb_alloc(&t, 0, MH_TRACE_NO_LAUNCH, 0x100000, 64 * 64 * 4, MH_SPACE_GLOBAL, "q");
    tb_launch(&t, 0, "kernel3", 1, 256);
    for (uint32_t i = 0; i < 64; i++)
        for (uint16_t th = 0; th < 256; th++)
            tb_acc(&t, 0, 0, th, i, 0x100000 + 4u * (i * 64 + 5), 4, MH_KIND_LOAD, MH_SPACE_GLOBAL, 0x10);
    tb_end(&t, 0);
    CHECK(tb_close(&t));
    mh_analyze_result res;
    CHECK(mh_analyze_file(t.path, NULL, &res, NULL) == MH_OK);
    const mh_pat_finding *s = find_kind(&res, "q", MH_PAT_STRIDED);
    CHECK(s != NULL);
    if (s) {
        CHECK(s->stride == 256);
        CHECK_EQ_U(s->flagged, 64);
        CHECK(s->has_example && s->example.sector == 8);
        CHECK(s->example.kinds[5] == MH_HEAT_LOAD && s->example.kinds[4] == 0); /* word 5 of each sector, loaded */
    }
    /* the JSON example names the kinds per word */
    char jpath[600];
    snprintf(jpath, sizeof jpath, "%s.json", t.path);
    CHECK(mh_analyze_write_json(jpath, &res, NULL) == MH_OK);
    json_t *root = json_load_file(jpath, 0, NULL), *f;
    size_t fi, nkinds = 0;
    json_array_foreach(json_object_get(root, "findings"), fi, f) {
        const char *k = json_string_value(json_object_get(json_object_get(json_object_get(f, "evidence"), "example"), "kinds"));
        if (k) nkinds += strcmp(k, ".....L..") == 0;
    }
    CHECK(nkinds >= 1);
    json_decref(root);
    unlink(jpath);
    CHECK(find_kind(&res, "q", MH_PAT_HOT) != NULL);
    CHECK(find_kind(&res, "q", MH_PAT_RANDOM_HOT) == NULL);
    CHECK(find_kind(&res, "q", MH_PAT_FALSE_SHARING) == NULL);
    mh_analyze_free(&res);
    unlink(t.path);
}

/* The JSON document carries the findings with evidence. */
static void test_json(void) {
    tb t;
    CHECK(tb_open(&t, "json"));
    tb_alloc(&t, 0, MH_TRACE_NO_LAUNCH, 0x100000, 1 << 16, MH_SPACE_GLOBAL, "S");
    tb_launch(&t, 0, "k", 1, 32);
    for (uint16_t th = 0; th < 32; th++) tb_acc(&t, 0, 0, th, 0, 0x100000 + 64u * th, 4, 0, 0, 0x10);
    tb_end(&t, 0);
    CHECK(tb_close(&t));
    mh_analyze_result res;
    CHECK(mh_analyze_file(t.path, NULL, &res, NULL) == MH_OK);
    char out[300];
    snprintf(out, sizeof out, "%s.json", t.path);
    CHECK(mh_analyze_write_json(out, &res, NULL) == MH_OK);
    FILE *f = fopen(out, "r");
    char buf[1 << 15];
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f) fclose(f);
    buf[n] = 0;
    CHECK(strstr(buf, "\"kind\": \"strided\"") != NULL);
    CHECK(strstr(buf, "\"stride_bytes\": 64") != NULL);
    CHECK(strstr(buf, "\"locality\"") != NULL);
    mh_analyze_free(&res);
    unlink(out);
    unlink(t.path);
}

/* spmv_csr shape: lane t of each of 2 warps runs a loop t % 5 times (a
 * broadcast load of X[i] per iteration at pc 0x100), then every lane stores
 * Y[t] at pc 0x200. The store has a different seq in lanes with different
 * trip counts, yet it is one warp instruction per warp (SIMT reconverges the
 * lanes on their first execution of pc 0x200): 2 requests of 4 sectors,
 * coalesced. Grouping by seq split it into partial requests (lanes 5 apart,
 * 20-byte gaps) that looked misaligned. Threads are written one after the
 * other, as the Oclgrind collector does, and in reverse order of warps. */
static void test_divergent_store_coalesced(void) {
    tb t;
    CHECK(tb_open(&t, "diverge"));
    tb_alloc(&t, 0, MH_TRACE_NO_LAUNCH, 0x100000, 4096, MH_SPACE_GLOBAL, "X");
    tb_alloc(&t, 1, MH_TRACE_NO_LAUNCH, 0x200000, 4096, MH_SPACE_GLOBAL, "Y");
    tb_launch(&t, 0, "spmv", 1, 64);
    for (int th = 63; th >= 0; th--) {
        uint32_t seq = 0;
        for (uint32_t i = 0; i < (uint32_t)th % 5; i++)
            tb_acc(&t, 0, 0, (uint16_t)th, seq++, 0x100000 + 4u * i, 4, MH_KIND_LOAD, MH_SPACE_GLOBAL, 0x100);
        tb_acc(&t, 0, 0, (uint16_t)th, seq, 0x200000 + 4u * (uint32_t)th, 4, MH_KIND_STORE, MH_SPACE_GLOBAL, 0x200);
    }
    tb_end(&t, 0);
    CHECK(tb_close(&t));
    mh_analyze_result res;
    CHECK(mh_analyze_file(t.path, NULL, &res, NULL) == MH_OK);
    int k[8];
    size_t nk = kinds_of(&res, "Y", k, 8);
    CHECK_EQ_U(nk, 1);
    if (nk == 1) CHECK_EQ_U(k[0], MH_PAT_COALESCED);
    CHECK(find_kind(&res, "Y", MH_PAT_MISALIGNED) == NULL);
    const mh_pat_finding *c = find_kind(&res, "Y", MH_PAT_COALESCED);
    if (c) {
        CHECK_EQ_U(c->requests, 2);
        CHECK_EQ_U(c->req_sectors, 8);
        CHECK_EQ_U(c->ideal_sectors, 8);
    }
    CHECK_EQ_U(res.split_pat, 0);
    mh_analyze_free(&res);
    unlink(t.path);
}

/* gemm_v00 shape: one object read by 16 unrolled loads (pcs 0x2b0, 0x2c0,
 * ...), every one strided. pc 0x2c0 has lanes 64 bytes apart (28 extra
 * sectors per request), the others 12 bytes (8 extra). One strided finding
 * for the object, not 16: cost = the sum, evidence of pc 0x2c0 (the
 * costliest), every pc listed with its source line, in the text and JSON. */
static void test_merged_pcs(void) {
    tb t;
    CHECK(tb_open(&t, "merge"));
    tb_alloc(&t, 0, MH_TRACE_NO_LAUNCH, 0x100000, 1 << 16, MH_SPACE_GLOBAL, "A");
    for (uint32_t u = 0; u < 16; u++) tb_pcinfo(&t, 0x2b0 + 16u * u, "gemm", "gemm.cu", 30 + u);
    tb_launch(&t, 0, "gemm_v00", 1, 32);
    for (uint16_t th = 0; th < 32; th++)
        for (uint32_t u = 0; u < 16; u++) {
            uint64_t pc = 0x2b0 + 16u * u;
            uint32_t stride = pc == 0x2c0 ? 64 : 12;
            tb_acc(&t, 0, 0, th, u, 0x100000 + 2048u * u + stride * th, 4, MH_KIND_LOAD, MH_SPACE_GLOBAL, pc);
        }
    tb_end(&t, 0);
    CHECK(tb_close(&t));
    mh_analyze_result res;
    CHECK(mh_analyze_file(t.path, NULL, &res, NULL) == MH_OK);
    size_t n = 0, strided = 0;
    const mh_pat_finding *f = mh_pat_findings(res.pat, &n);
    for (size_t i = 0; i < n; i++) strided += f[i].kind == MH_PAT_STRIDED && !strcmp(f[i].label, "A");
    CHECK_EQ_U(strided, 1);
    const mh_pat_finding *s = find_kind(&res, "A", MH_PAT_STRIDED);
    CHECK(s != NULL);
    if (s) {
        CHECK_EQ_U(s->pc, 0x2c0);
        CHECK(s->stride == 64);
        CHECK_EQ_U(s->line, 31);
        CHECK(s->cost == 28.0 + 15 * 8.0);
        CHECK_EQ_U(s->requests, 1); /* evidence of the costliest pc */
        CHECK_EQ_U(s->npcs, 16);
        for (size_t i = 0; i < s->npcs && i < 16; i++) {
            CHECK_EQ_U(s->pcs[i].pc, 0x2b0 + 16u * i);
            CHECK_EQ_U(s->pcs[i].line, 30 + i);
            CHECK(s->pcs[i].cost == (s->pcs[i].pc == 0x2c0 ? 28.0 : 8.0));
        }
        char txt[1024];
        CHECK(mh_pat_pcs_text(s, txt, sizeof txt) > 0);
        const char *head = "at 16 pcs: 0x2b0 (gemm.cu:30), 0x2c0 (gemm.cu:31),";
        CHECK(strncmp(txt, head, strlen(head)) == 0);
        CHECK(strstr(txt, "(4 more)") != NULL); /* 12 listed */
        char tiny[20];
        CHECK(mh_pat_pcs_text(s, tiny, sizeof tiny) == strlen(tiny));
    }
    char out[300];
    snprintf(out, sizeof out, "%s.txt", t.path);
    FILE *tf = fopen(out, "w+");
    CHECK(tf != NULL);
    if (tf) {
        CHECK(mh_analyze_print(tf, &res, 0, 0) == MH_OK);
        rewind(tf);
        char buf[1 << 14];
        size_t m = fread(buf, 1, sizeof buf - 1, tf);
        buf[m] = 0;
        fclose(tf);
        CHECK(strstr(buf, "at 16 pcs: 0x2b0") != NULL);
        unlink(out);
    }
    snprintf(out, sizeof out, "%s.json", t.path);
    CHECK(mh_analyze_write_json(out, &res, NULL) == MH_OK);
    json_error_t je;
    json_t *doc = json_load_file(out, 0, &je);
    CHECK(doc != NULL);
    json_t *fa = json_object_get(doc, "findings");
    size_t nj = 0;
    for (size_t i = 0; i < json_array_size(fa); i++) {
        json_t *x = json_array_get(fa, i);
        if (strcmp(json_string_value(json_object_get(x, "kind")), "strided")) continue;
        nj++;
        CHECK_EQ_U(json_integer_value(json_object_get(x, "pc")), 0x2c0);
        json_t *pcs = json_object_get(x, "pcs");
        CHECK_EQ_U(json_array_size(pcs), 16);
        json_t *p1 = json_array_get(pcs, 1);
        CHECK_EQ_U(json_integer_value(json_object_get(p1, "pc")), 0x2c0);
        CHECK_EQ_U(json_integer_value(json_object_get(p1, "line")), 31);
        CHECK(!strcmp(json_string_value(json_object_get(p1, "file")), "gemm.cu"));
    }
    CHECK_EQ_U(nj, 1);
    json_decref(doc);
    mh_analyze_free(&res);
    unlink(out);
    unlink(t.path);
}

/* The execution counters themselves: per (launch, block, thread, pc); a
 * block dropped for the budget restarts at 0 and is counted; a launch's end
 * frees its tables. */
/* 8 warps, written step by step (as the CUDA collector writes them): 50
 * times a shared load with a 2-way bank conflict, a shared store, and a
 * global load at a 12-byte stride. down: each warp's lanes in falling
 * order, so that no request is ever seen whole before the launch ends. */
static int warps_trace(tb *t, const char *name, int down) {
    if (!tb_open(t, name)) return 0;
    tb_alloc(t, 0, 0, 0, 4096, MH_SPACE_SHARED, "tile");
    tb_alloc(t, 1, MH_TRACE_NO_LAUNCH, 0x10000, 65536, MH_SPACE_GLOBAL, "X");
    tb_launch(t, 0, "warps", 1, 256);
    for (uint32_t s = 0; s < 50; s++)
        for (uint16_t i = 0; i < 256; i++) {
            uint16_t th = down ? (uint16_t)((i & ~31u) | (31u - (i & 31u))) : i;
            tb_acc(t, 0, 0, th, 3 * s, 4u * ((2u * th + s) % 1024), 4, MH_KIND_LOAD, MH_SPACE_SHARED, 0x20);
            tb_acc(t, 0, 0, th, 3 * s + 1, 4u * th, 4, MH_KIND_STORE, MH_SPACE_SHARED, 0x28);
            tb_acc(t, 0, 0, th, 3 * s + 2, 0x10000 + 12u * th + 4u * s, 4, MH_KIND_LOAD, MH_SPACE_GLOBAL, 0x30);
        }
    tb_end(t, 0);
    return tb_close(t);
}

/* A warp request every lane of its warp has added to is whole and handed
 * over at once: the same findings, bank table and requests as when every
 * request waits for the launch's end (lanes in falling order: whole only
 * then), with far less memory held. */
static void test_whole_warps(void) {
    tb a, b;
    CHECK(warps_trace(&a, "wwhole", 0));
    CHECK(warps_trace(&b, "wopen", 1));
    mh_analyze_result ra, rb;
    CHECK(tb_analyze_both(&a, &b, &ra, &rb));
    if (ra.pat && rb.pat) {
        size_t na = 0, nb = 0;
        const mh_pat_finding *fa = mh_pat_findings(ra.pat, &na), *fb = mh_pat_findings(rb.pat, &nb);
        CHECK(na >= 2);
        CHECK_EQ_U(na, nb);
        for (size_t i = 0; i < na && i < nb; i++)
            CHECK(fa[i].kind == fb[i].kind && fa[i].obj == fb[i].obj && fa[i].cost == fb[i].cost);
        const mh_bank_table *ba = mh_pat_banks(ra.pat), *bb = mh_pat_banks(rb.pat);
        CHECK_EQ_U(ba->n, 2);
        CHECK_EQ_U(ba->n, bb->n);
        for (size_t i = 0; i < ba->n && i < bb->n; i++) {
            const mh_bank_pc *x = &ba->v[i], *y = &bb->v[i];
            CHECK(x->pc == y->pc && x->requests == y->requests && x->sum_degree == y->sum_degree &&
                  x->extra == y->extra && x->ex_warp == y->ex_warp && x->ex_occ == y->ex_occ);
            CHECK_EQ_U(x->requests, 8 * 50);
        }
        if (ba->n == 2) CHECK(ba->v[0].pc == 0x20 && ba->v[0].extra == 8 * 50); /* 2-way: one extra wavefront each */
        size_t qa = 0, qb = 0;
        const mh_pat_req *pa = mh_pat_requests(ra.pat, &qa), *pb = mh_pat_requests(rb.pat, &qb);
        CHECK_EQ_U(qa, qb);
        for (size_t i = 0; i < qa && i < qb; i++)
            CHECK(pa[i].pc == pb[i].pc && pa[i].requests == pb[i].requests && pa[i].sectors == pb[i].sectors);
        CHECK_EQ_U(mh_pat_run_split(ra.pat), 0);
        /* whole requests leave at once; open ones hold 1,200 requests of 32 entries */
        CHECK(ra.peak_pat + 1200 * 32 * 16 / 2 < rb.peak_pat);
    } else {
        CHECK(0);
    }
    tb_free_both(&a, &b, &ra, &rb);
}

/* Shared-word owners of two blocks: an array's words are counted by index
 * per block, the words past the array's end in the hashed table, and every
 * word there too under a budget too small for the indexed tables; the
 * counts are the same. Each thread stores and loads its own word of a
 * 64-word array; thread 0 then loads 16 bytes from word 62: words 62 and 63
 * become shared by two warps, words 64 and 65 (past the end) are thread
 * 0's. Per block: 66 cells, 64 of one thread, 2 of two warps. */
static void test_smem_owner_blocks(void) {
    tb t;
    CHECK(tb_open(&t, "owners"));
    tb_alloc(&t, 0, 0, 0, 256, MH_SPACE_SHARED, "slots");
    tb_launch(&t, 0, "owners", 2, 64);
    for (uint32_t b = 0; b < 2; b++) {
        for (uint16_t th = 0; th < 64; th++) tb_acc(&t, 0, b, th, 0, 4u * th, 4, MH_KIND_STORE, MH_SPACE_SHARED, 0x10);
        for (uint16_t th = 0; th < 64; th++) tb_acc(&t, 0, b, th, 1, 4u * th, 4, MH_KIND_LOAD, MH_SPACE_SHARED, 0x20);
        tb_acc(&t, 0, b, 0, 2, 248, 16, MH_KIND_LOAD, MH_SPACE_SHARED, 0x30);
    }
    tb_end(&t, 0);
    CHECK(tb_close(&t));
    for (int small = 0; small < 2; small++) {
        mh_analyze_opts o = {0};
        o.group_budget = small ? 200 : 0; /* 200 bytes: no 256-byte table fits */
        mh_analyze_result res;
        CHECK(mh_analyze_file(t.path, &o, &res, NULL) == MH_OK);
        const mh_pat_finding *f = find_kind(&res, "slots", MH_PAT_SMEM_THREAD);
        CHECK(f != NULL);
        if (f) {
            CHECK_EQ_U(f->sectors, 132);      /* cells */
            CHECK_EQ_U(f->flagged, 128);      /* of one thread */
            CHECK_EQ_U(f->requests, 2 * 129); /* accesses */
        }
        mh_analyze_free(&res);
    }
    unlink(t.path);
}

static void test_occur_counts(void) {
    mh_occ *o = NULL;
    CHECK(mh_occ_new(&o, 8192, NULL) == MH_OK);
    if (!o) return;
    uint32_t k = 99;
    for (uint32_t i = 0; i < 3; i++) {
        CHECK(mh_occ_next(o, 1, 0, 5, 0x10, &k, NULL) == MH_OK);
        CHECK_EQ_U(k, i);
    }
    CHECK(mh_occ_next(o, 1, 0, 5, 0x20, &k, NULL) == MH_OK); /* another pc */
    CHECK_EQ_U(k, 0);
    CHECK(mh_occ_next(o, 1, 0, 6, 0x10, &k, NULL) == MH_OK); /* another thread */
    CHECK_EQ_U(k, 0);
    CHECK(mh_occ_next(o, 2, 0, 5, 0x10, &k, NULL) == MH_OK); /* another launch */
    CHECK_EQ_U(k, 0);
    CHECK(mh_occ_next(o, 1, 0, 5, 0x10, &k, NULL) == MH_OK);
    CHECK_EQ_U(k, 3);
    size_t base = mh_occ_bytes(o);
    CHECK_EQ_U(mh_occ_restarts(o), 0);
    /* 16 more blocks of 40 (thread, pc) pairs each: over the 8 KiB budget */
    for (uint32_t b = 1; b <= 16; b++)
        for (uint16_t th = 0; th < 40; th++) CHECK(mh_occ_next(o, 1, b, th, 0x10, &k, NULL) == MH_OK);
    CHECK(mh_occ_bytes(o) <= 8192 + 40 * 16 * 2);
    CHECK(mh_occ_next(o, 1, 0, 5, 0x10, &k, NULL) == MH_OK); /* block 0 was dropped: restarts */
    CHECK_EQ_U(k, 0);
    CHECK_EQ_U(mh_occ_restarts(o), 1);
    mh_occ_end_launch(o, 1);
    mh_occ_end_launch(o, 2);
    CHECK(mh_occ_bytes(o) <= base + 1024); /* only the pool and the index remain */
    CHECK(mh_occ_next(o, 1, 0, 5, 0x10, &k, NULL) == MH_OK);
    CHECK_EQ_U(k, 0);
    CHECK_EQ_U(mh_occ_restarts(o), 1); /* a new launch with the same id is no restart */
    mh_occ_free(o);
}

/* Counters of threads 0, 4, 8, ... up to 796 (each pc's array of counts
 * grows past its first 32 threads) and of a few threads of another lane at
 * the same pcs: every (thread, pc) keeps its own count, also across the
 * arrays' growth. */
static void test_occur_one_lane(void) {
    mh_occ *o = NULL;
    CHECK(mh_occ_new(&o, (size_t)64 << 20, NULL) == MH_OK);
    if (!o) return;
    uint32_t k = 99;
    enum { TH = 200, PCS = 3, ROUNDS = 3 };
    int ok = 1;
    for (uint32_t r = 0; r < ROUNDS; r++)
        for (uint16_t t = 0; t < TH; t++)
            for (uint64_t pc = 0; pc < PCS; pc++) {
                if (mh_occ_next(o, 1, 7, (uint16_t)(t * 4), 0x1000 + pc * 8, &k, NULL) != MH_OK || k != r) ok = 0;
                /* a thread of another lane at the same pcs, counted apart */
                if (!(t % 50) && (mh_occ_next(o, 1, 7, (uint16_t)(t * 4 + 1), 0x1000 + pc * 8, &k, NULL) != MH_OK ||
                                  k != r))
                    ok = 0;
            }
    CHECK(ok);
    CHECK_EQ_U(mh_occ_restarts(o), 0);
    /* 3 pcs, counts of 1024 threads each (threads up to 797) */
    CHECK(mh_occ_bytes(o) >= 3 * 1024 * 4);
    mh_occ_free(o);
}

MH_TEST_MAIN(T(test_stride_and_source), T(test_2d_misaligned_vs_control), T(test_misaligned_not_false_sharing),
             T(test_sorted_by_cost), T(test_shared_variants), T(test_column_walk), T(test_json),
             T(test_divergent_store_coalesced), T(test_merged_pcs), T(test_occur_counts), T(test_occur_one_lane),
             T(test_whole_warps), T(test_smem_owner_blocks))
