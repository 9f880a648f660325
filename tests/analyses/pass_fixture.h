/* pass_fixture.h -- what test_pass.c and test_pass_big.c share: the thread
 * counts that reach each of mh_pass's unit layouts, a consumer that
 * fingerprints everything a pass hands it, `memheat analyze`'s JSON of a
 * trace at a thread count, and the header and launch records of the traces
 * the tests write. Static inline, so each test's CHECK counters count. */
#ifndef MH_TEST_PASS_FIXTURE_H
#define MH_TEST_PASS_FIXTURE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/analyze.h"
#include "pass/pass.h"
#include "memheat/trace.h"
#include "../mh_test.h"

/* Threads with which pass.c runs every stage of every analysis on a thread
 * of its own (the third stages, U_PAT1B, U_LOC1B), with which half the heat
 * maps' parts get one too (U_HEAT2), with which the third stages get
 * their helpers (U_PAT3B, U_LOC3B), with which the locality's split
 * counts get a second counting stage (U_LOC1C), with which the heat maps'
 * parts go to four units (U_HEAT2-4), and with which the patterns' word
 * owners get a stage of their own (U_PAT1C); the thread counts tried after
 * t: up to 4, then T_STAGED, T_HEAT2, T_EVALB, T_C1, T_HEAT4, T_ALL. */
#define T_STAGED 9
#define T_HEAT2 10
#define T_EVALB 12
#define T_C1 13
#define T_HEAT4 15
#define T_ALL 16
static inline unsigned next_t(unsigned t) {
    return t < 4 ? t + 1
           : t < T_STAGED ? T_STAGED
           : t < T_HEAT2  ? T_HEAT2
           : t < T_EVALB  ? T_EVALB
           : t < T_C1     ? T_C1
           : t < T_HEAT4  ? T_HEAT4
           : t < T_ALL    ? T_ALL
                          : t + 1;
}

/* ---- a consumer that fingerprints everything it is given ---- */
typedef struct fp {
    uint64_t h, maps, locs, records;
    uint64_t peak; /* the analyses' memory peak (run_fp) */
    int fail_at_map; /* > 0: the n-th heat map returns MH_ERR_IO */
} fp;

static inline void mix(fp *f, const void *p, size_t n) {
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) f->h = (f->h ^ b[i]) * UINT64_C(0x100000001b3);
}

static inline int fp_heat(void *ctx, const mh_heat_result *r, mh_err *err) {
    fp *f = ctx;
    f->maps++;
    if (f->fail_at_map && (int)f->maps == f->fail_at_map) return mh_err_set(err, MH_ERR_IO, "consumer failed");
    mix(f, &r->launch->l.id, sizeof r->launch->l.id);
    mix(f, &r->space, sizeof r->space);
    mix(f, &r->accesses, sizeof r->accesses);
    mix(f, r->rows, r->nrows * sizeof *r->rows);
    return MH_OK;
}

static inline int fp_loc(void *ctx, const mh_loc_result *r, mh_err *err) {
    (void)err;
    fp *f = ctx;
    f->locs++;
    mix(f, r->m, sizeof r->m);
    mix(f, &r->unattributed, sizeof r->unattributed);
    return MH_OK;
}

static inline int fp_record(void *ctx, const mh_model *m, const mh_record *rec, mh_err *err) {
    (void)m;
    (void)err;
    fp *f = ctx;
    f->records++;
    if (rec->type == MH_REC_ACCESSES) mix(f, rec->u.accesses.v, rec->u.accesses.n * sizeof *rec->u.accesses.v);
    return MH_OK;
}

static inline int run_fp(const char *path, unsigned threads, fp *f, mh_err *err) {
    mh_pass_opts po = {0};
    po.analyses = MH_PASS_HEAT | MH_PASS_PATTERNS | MH_PASS_LOCALITY;
    po.threads = threads;
    mh_pass *p;
    int rc = mh_pass_open(&p, path, NULL, &po, err);
    if (rc) return rc;
    mh_pass_consumer c = {.ctx = f, .record = fp_record, .heat = fp_heat, .loc = fp_loc};
    rc = mh_pass_add(p, &c, err);
    if (!rc) rc = mh_pass_run(p, err);
    if (!rc) {
        size_t n;
        const mh_pat_finding *x = mh_pat_findings(mh_pass_patterns(p), &n);
        for (size_t i = 0; i < n; i++) {
            mix(f, &x[i].kind, sizeof x[i].kind);
            mix(f, &x[i].cost, sizeof x[i].cost);
            mix(f, x[i].summary, strlen(x[i].summary));
        }
    }
    const mh_pass_stats *st = mh_pass_stats_get(p);
    f->peak = st->peak_heat + st->peak_loc + st->peak_pat;
    mh_pass_close(p);
    return rc;
}

static inline char *analyze_json(const char *path, unsigned threads) {
    mh_analyze_opts o = {0};
    o.threads = threads;
    mh_analyze_result res;
    mh_err err = {0};
    int rc = mh_analyze_file(path, &o, &res, &err);
    CHECK(rc == MH_OK);
    char out[64];
    snprintf(out, sizeof out, "pass_t%u.json", threads);
    CHECK(mh_analyze_write_json(out, &res, &err) == MH_OK);
    mh_analyze_free(&res);
    FILE *f = fopen(out, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *s = calloc(1, (size_t)n + 1);
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) s[0] = 0;
    fclose(f);
    return s;
}

/* When two analyze documents differ, both are left as TAG_t1.json and
 * TAG_tT.json for a look at what differs; returns whether they are equal. */
static inline int same_json(const char *one, const char *x, const char *tag, unsigned t) {
    if (one && x && strcmp(one, x) == 0) return 1;
    char path[96];
    const char *doc[2] = {one, x};
    unsigned th[2] = {1, t};
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s_t%u.json", tag, th[i]);
        FILE *f = fopen(path, "wb");
        if (f) {
            if (doc[i]) fputs(doc[i], f);
            fclose(f);
        }
    }
    return 0;
}

/* The header of the traces written here: a synthetic device, warps of 32,
 * sectors of 32 bytes. */
static inline mh_trace_header synthetic_header(void) {
    mh_trace_header h = {0};
    h.producer = "test_pass";
    h.command = h.note = "";
    h.device.name = "synthetic";
    h.device.warp_size = 32;
    h.device.sector_size = 32;
    return h;
}

/* A launch record of grid x 1 x 1 blocks of block x 1 x 1 threads, every block traced. */
static inline void put_launch(mh_trace_writer *w, uint32_t id, const char *name, uint32_t grid, uint32_t block) {
    mh_err err = {0};
    mh_launch ln = {0};
    ln.id = id;
    ln.name = ln.display_name = name;
    ln.grid = (mh_dim3){grid, 1, 1};
    ln.block = (mh_dim3){block, 1, 1};
    ln.n_sampled = MH_TRACE_ALL_BLOCKS;
    CHECK(mh_trace_write_launch(w, &ln, &err) == MH_OK);
}

#endif
