/* test_store.c -- the profile database: round trip of a synthetic trace
 * (every heat-map row compared with the analyzer's own output), timing import
 * with bandwidth arithmetic, locality and findings stored, the run's command
 * line kept byte for byte, damaged/foreign/empty/newer files refused with the
 * right status, a run killed inside a transaction leaving a valid profile
 * marked incomplete, a cut-short trace imported up to its last chunk, and the
 * access kinds and per-bank degrees stored, with a profile written before
 * those columns still read and reported. */
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analyses/tbuild.h"

#include "analyses/heat.h"
#include "import/import.h"
#include "analyses/model.h"
#include "pass/pass.h"
#include "store/store.h"
#include "collectors/synth.h"
#include "memheat/timing.h"
#include "memheat/trace.h"
#include "mh_test.h"
#include "report/report.h"

/* string value or "" (a missing key fails the comparison, not the test run) */
static const char *S(json_t *v) {
    const char *s = json_string_value(v);
    return s ? s : "";
}

/* ---- reference heat rows straight from the analyzer ---- */
typedef struct ref_map {
    uint32_t launch;
    unsigned space;
    mh_heat_row *rows;
    size_t n;
} ref_map;

typedef struct ref_set {
    ref_map v[64];
    size_t n;
} ref_set;

static int ref_emit(void *ctx, const mh_heat_result *r, mh_err *err) {
    (void)err;
    ref_set *s = ctx;
    if (s->n == 64) return MH_ERR_INTERNAL;
    ref_map *m = &s->v[s->n++];
    m->launch = r->launch->l.id;
    m->space = r->space;
    m->n = r->nrows;
    m->rows = malloc(r->nrows * sizeof *m->rows);
    memcpy(m->rows, r->rows, r->nrows * sizeof *m->rows);
    return MH_OK;
}

/* ref_emit that stops the pass after two maps */
static int ref_emit_two(void *ctx, const mh_heat_result *r, mh_err *err) {
    ref_set *s = ctx;
    if (s->n >= 2) return mh_err_set(err, MH_ERR_INTERNAL, "enough maps");
    return ref_emit(ctx, r, err);
}

static void reference(const char *trace, ref_set *s) {
    mh_err err = {0};
    mh_pass *p = NULL;
    mh_pass_opts po = {.analyses = MH_PASS_HEAT};
    CHECK(mh_pass_open(&p, trace, NULL, &po, &err) == MH_OK);
    if (!p) return;
    mh_pass_consumer c = {.ctx = s, .heat = ref_emit};
    CHECK(mh_pass_add(p, &c, &err) == MH_OK);
    CHECK(mh_pass_run(p, &err) == MH_OK);
    mh_pass_close(p);
}

typedef struct row_cmp {
    const ref_map *ref;
    size_t i, mismatches;
} row_cmp;

static int cmp_row(void *ctx, const mh_db_heat_row *row) {
    row_cmp *c = ctx;
    if (c->i >= c->ref->n) {
        c->mismatches++;
        return 0;
    }
    const mh_heat_row *e = &c->ref->rows[c->i++];
    if (e->tag != row->tag || e->sector != row->sector || e->region != row->region ||
        memcmp(e->word, row->word, sizeof e->word) != 0 || mh_heat_kinds_pack(e) != row->kinds)
        c->mismatches++;
    return 0;
}

static const char *synth_trace = "store_synth.mht";
static const char *synth_db = "store_synth.mhdb";

static json_t *summary_of(const char *path) {
    mh_err err = {0};
    mh_db *db;
    if (mh_db_open(&db, path, 0, &err) != MH_OK) {
        fprintf(stderr, "open %s: %s\n", path, err.msg);
        return NULL;
    }
    json_t *s = NULL;
    if (mh_db_read_summary(db, &s, &err) != MH_OK) fprintf(stderr, "summary: %s\n", err.msg);
    mh_db_close(db);
    return s;
}

static void test_roundtrip(void) {
    mh_err err = {0};
    mh_synth_opts so;
    memset(&so, 0, sizeof so);
    so.shapes = (1u << MH_SYNTH_SHAPE_COUNT) - 1;
    so.warps = 8;
    so.iters = 2;
    CHECK(mh_synth_write(synth_trace, &so, &err) == MH_OK);
    char *argv[] = {"./app", "--name=</script>", "a b\"c", "\xe2\x80\xa8", NULL};
    mh_db_import_opts io;
    memset(&io, 0, sizeof io);
    io.trace_path = synth_trace;
    io.run.argv = argv;
    io.run.backend = "synthetic";
    io.run.exit_status = 3;
    unlink(synth_db);
    CHECK(mh_db_import_trace(synth_db, 0, &io, &err) == MH_OK);
    /* an existing profile is not replaced without overwrite */
    CHECK(mh_db_import_trace(synth_db, 0, &io, &err) == MH_ERR_ARG);

    ref_set ref = {0};
    reference(synth_trace, &ref);
    CHECK(ref.n >= MH_SYNTH_SHAPE_COUNT);

    json_t *s = summary_of(synth_db);
    CHECK(s != NULL);
    if (!s) return;
    json_t *meta = json_object_get(s, "meta");
    CHECK(strcmp(S(json_object_get(meta, "complete")), "1") == 0);
    CHECK(strcmp(S(json_object_get(meta, "trace_complete")), "1") == 0);
    CHECK(strcmp(S(json_object_get(meta, "format")), MH_DB_FORMAT) == 0);
    json_t *run = json_object_get(s, "run");
    json_t *av = json_object_get(run, "argv");
    CHECK_EQ_U(json_array_size(av), 4);
    for (size_t i = 0; i < 4 && i < json_array_size(av); i++)
        CHECK(strcmp(S(json_array_get(av, i)), argv[i]) == 0);
    CHECK_EQ_U(json_integer_value(json_object_get(run, "exit_status")), 3);
    CHECK_EQ_U(json_array_size(json_object_get(s, "launches")), MH_SYNTH_SHAPE_COUNT);
    json_t *maps = json_object_get(s, "heat_maps");
    CHECK_EQ_U(json_array_size(maps), ref.n);

    /* every stored row equals the analyzer's row, in order */
    mh_db *db;
    CHECK(mh_db_open(&db, synth_db, 0, &err) == MH_OK);
    size_t i;
    json_t *m;
    json_array_foreach(maps, i, m) {
        uint32_t launch = (uint32_t)json_integer_value(json_object_get(m, "launch"));
        const char *space = S(json_object_get(m, "space"));
        const ref_map *rm = NULL;
        for (size_t k = 0; k < ref.n; k++)
            if (ref.v[k].launch == launch && strcmp(mh_space_name(ref.v[k].space), space) == 0) rm = &ref.v[k];
        CHECK(rm != NULL);
        if (!rm) continue;
        CHECK_EQ_U(json_integer_value(json_object_get(m, "nrows")), rm->n);
        row_cmp c = {rm, 0, 0};
        CHECK(mh_db_read_heat(db, json_integer_value(json_object_get(m, "id")), cmp_row, &c, &err) == MH_OK);
        CHECK_EQ_U(c.i, rm->n);
        CHECK_EQ_U(c.mismatches, 0);
        /* regions name the shape's object */
        json_t *regs = json_object_get(m, "regions");
        CHECK(json_array_size(regs) >= 1);
    }
    mh_db_close(db);

    /* false sharing: the paper's Fig. 3(b) row -- words 1, sector 8 -- is stored */
    sqlite3 *h;
    CHECK(sqlite3_open_v2(synth_db, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
    sqlite3_stmt *st;
    CHECK(sqlite3_prepare_v2(h,
                             "SELECT count(*) FROM heat_row r JOIN heat_map m ON r.map = m.id JOIN launch l"
                             " ON m.launch = l.id WHERE l.name = 'false_sharing' AND r.sector = 8 AND r.w0 = 1"
                             " AND r.w7 = 1",
                             -1, &st, NULL) == SQLITE_OK);
    CHECK(sqlite3_step(st) == SQLITE_ROW);
    CHECK(sqlite3_column_int(st, 0) > 0);
    sqlite3_finalize(st);
    /* locality rows and curves: 11 points (0..10 bits) per metric */
    CHECK(sqlite3_prepare_v2(h, "SELECT count(*) FROM locality_curve WHERE space = 'all' AND metric = 'entropy'", -1,
                             &st, NULL) == SQLITE_OK);
    CHECK(sqlite3_step(st) == SQLITE_ROW);
    CHECK_EQ_U(sqlite3_column_int(st, 0), 11 * MH_SYNTH_SHAPE_COUNT);
    sqlite3_finalize(st);
    /* the pattern pass found false sharing on the false_sharing object */
    CHECK(sqlite3_prepare_v2(h, "SELECT count(*) FROM finding WHERE kind = 'false_sharing'"
                                " AND object_label = 'false_sharing'", -1, &st, NULL) == SQLITE_OK);
    CHECK(sqlite3_step(st) == SQLITE_ROW);
    CHECK(sqlite3_column_int(st, 0) >= 1);
    sqlite3_finalize(st);
    sqlite3_close(h);
    json_decref(s);
    for (size_t k = 0; k < ref.n; k++) free(ref.v[k].rows);
}

static void test_timing(void) {
    mh_err err = {0};
    mh_timing t;
    mh_timing_init(&t);
    mh_timing_device d;
    memset(&d, 0, sizeof d);
    snprintf(d.name, sizeof d.name, "Test GPU");
    d.cc_major = 9;
    d.sm_count = 2;
    d.sm_clock_khz = 1000000;
    d.mem_clock_khz = 1000000; /* 1 GHz x 32 B x 2 = 64 GB/s */
    d.bus_width_bits = 256;
    CHECK(mh_timing_add_device(&t, &d) >= 0);
    uint64_t durs[3] = {1000, 3000, 2000};
    for (int i = 0; i < 3; i++) {
        mh_timing_kernel *k = mh_timing_add_kernel(&t, "saxpy");
        k->start_ns = 10000u * (uint64_t)i;
        k->end_ns = k->start_ns + durs[i];
        k->has_counters = 1;
        mh_timing_counters_clear(&k->c);
        k->c.dram_read_bytes = 32.0 * (double)durs[i]; /* 32 B/ns read + 0 write = 32 GB/s: 50% */
        k->c.dram_write_bytes = 0;
    }
    mh_timing_copy *c = mh_timing_add_copy(&t);
    c->kind = MH_COPY_HTOD;
    c->start_ns = 40000;
    c->end_ns = 45000;
    c->bytes = 4096;
    CHECK(mh_timing_save(&t, NULL, "store_timing.json", &err) == MH_OK);
    mh_timing_free(&t);
    mh_db_import_opts io;
    memset(&io, 0, sizeof io);
    io.timing_path = "store_timing.json";
    CHECK(mh_db_import_trace("store_timing.mhdb", 1, &io, &err) == MH_OK);
    json_t *s = summary_of("store_timing.mhdb");
    CHECK(s != NULL);
    if (!s) return;
    json_t *ks = json_object_get(s, "kernels");
    CHECK_EQ_U(json_array_size(ks), 1);
    json_t *k = json_array_get(ks, 0);
    CHECK(strcmp(S(json_object_get(k, "name")), "saxpy") == 0);
    CHECK_EQ_U(json_integer_value(json_object_get(k, "count")), 3);
    CHECK_EQ_U(json_integer_value(json_object_get(k, "total_ns")), 6000);
    CHECK(fabs(json_number_value(json_object_get(k, "median_ns")) - 2000.0) < 1e-9);
    CHECK(fabs(json_number_value(json_object_get(k, "bandwidth_Bps")) - 32e9) < 1e3);
    CHECK(fabs(json_number_value(json_object_get(k, "pct_peak")) - 50.0) < 1e-6);
    CHECK_EQ_U(json_array_size(json_object_get(s, "kernel_runs")), 3);
    CHECK_EQ_U(json_array_size(json_object_get(s, "copies")), 1);
    CHECK(json_is_object(json_object_get(s, "overlap")));
    json_decref(s);
    /* a broken timing file is an error naming it, and the profile stays unfinished */
    FILE *f = fopen("store_bad_timing.json", "w");
    fputs("{\"format\": \"something-else\"}", f);
    fclose(f);
    io.timing_path = "store_bad_timing.json";
    CHECK(mh_db_import_trace("store_bad_timing.mhdb", 1, &io, &err) != MH_OK);
    CHECK(strstr(err.msg, "store_bad_timing.json") != NULL);
    s = summary_of("store_bad_timing.mhdb");
    CHECK(s && strcmp(S(json_object_get(json_object_get(s, "meta"), "complete")), "0") == 0);
    json_decref(s);
}

static void write_bytes(const char *path, const void *b, size_t n) {
    FILE *f = fopen(path, "wb");
    if (n) fwrite(b, 1, n, f);
    fclose(f);
}

static int open_status(const char *path, char *msg, size_t cap) {
    mh_err err = {0};
    mh_db *db;
    int rc = mh_db_open(&db, path, 0, &err);
    if (rc == MH_OK) {
        /* damage may only show when the data is read */
        json_t *s = NULL;
        rc = mh_db_read_summary(db, &s, &err);
        json_decref(s);
        mh_db_close(db);
    }
    snprintf(msg, cap, "%s", err.msg);
    return rc;
}

static void copy_file(const char *from, const char *to) {
    FILE *f = fopen(from, "rb");
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n);
    CHECK(fread(b, 1, (size_t)n, f) == (size_t)n);
    fclose(f);
    write_bytes(to, b, (size_t)n);
    free(b);
}

static void test_bad_files(void) {
    char msg[512];
    CHECK(open_status("no_such_profile.mhdb", msg, sizeof msg) == MH_ERR_IO);
    CHECK(strstr(msg, "no_such_profile.mhdb") != NULL);
    write_bytes("bad_empty.mhdb", "", 0);
    CHECK(open_status("bad_empty.mhdb", msg, sizeof msg) == MH_ERR_EMPTY);
    CHECK(strstr(msg, "empty") != NULL);
    const char *text = "this is a text file, certainly not a database\n";
    char big[8192];
    for (size_t i = 0; i < sizeof big; i++) big[i] = text[i % strlen(text)];
    write_bytes("bad_text.mhdb", big, sizeof big);
    CHECK(open_status("bad_text.mhdb", msg, sizeof msg) == MH_ERR_DB);
    CHECK(strstr(msg, "not an SQLite database") != NULL);
    /* an SQLite database of another application */
    unlink("bad_foreign.db");
    sqlite3 *h;
    sqlite3_open("bad_foreign.db", &h);
    sqlite3_exec(h, "CREATE TABLE meta(key TEXT, value TEXT); INSERT INTO meta VALUES('format','other');", 0, 0, 0);
    sqlite3_close(h);
    CHECK(open_status("bad_foreign.db", msg, sizeof msg) == MH_ERR_DB);
    CHECK(strstr(msg, "another application") != NULL);
    /* right application id, newer schema */
    copy_file(synth_db, "bad_newer.mhdb");
    sqlite3_open("bad_newer.mhdb", &h);
    sqlite3_exec(h, "PRAGMA user_version = 99", 0, 0, 0);
    sqlite3_close(h);
    CHECK(open_status("bad_newer.mhdb", msg, sizeof msg) == MH_ERR_VERSION);
    CHECK(strstr(msg, "99") != NULL);
    /* right header, meta says something else */
    copy_file(synth_db, "bad_meta.mhdb");
    sqlite3_open("bad_meta.mhdb", &h);
    sqlite3_exec(h, "UPDATE meta SET value = 'x' WHERE key = 'format'", 0, 0, 0);
    sqlite3_close(h);
    CHECK(open_status("bad_meta.mhdb", msg, sizeof msg) == MH_ERR_DB);
    /* an index whose rows no longer match its table (quick_check passes it,
     * and only the readers whose queries use the index failed) */
    copy_file(synth_db, "bad_index.mhdb");
    sqlite3_open("bad_index.mhdb", &h);
    CHECK(sqlite3_exec(h,
                       "PRAGMA writable_schema = ON; UPDATE sqlite_schema SET sql = 'CREATE INDEX launch_process ON"
                       " launch(name)' WHERE name = 'launch_process'",
                       0, 0, 0) == SQLITE_OK);
    sqlite3_close(h);
    CHECK(open_status("bad_index.mhdb", msg, sizeof msg) == MH_ERR_CORRUPT);
    CHECK(strstr(msg, "damaged") != NULL);
    /* damaged pages: overwrite 4 KiB in the middle of the file */
    copy_file(synth_db, "bad_pages.mhdb");
    struct stat sb;
    stat("bad_pages.mhdb", &sb);
    int fd = open("bad_pages.mhdb", O_WRONLY);
    char junk[4096];
    for (size_t i = 0; i < sizeof junk; i++) junk[i] = (char)(i * 37 + 11);
    CHECK(pwrite(fd, junk, sizeof junk, (sb.st_size / 2) & ~4095L) == (ssize_t)sizeof junk);
    close(fd);
    int rc = open_status("bad_pages.mhdb", msg, sizeof msg);
    CHECK(rc == MH_ERR_CORRUPT);
    CHECK(strstr(msg, "damaged") != NULL);
    /* cut in half */
    copy_file(synth_db, "bad_cut.mhdb");
    CHECK(truncate("bad_cut.mhdb", sb.st_size / 2) == 0);
    rc = open_status("bad_cut.mhdb", msg, sizeof msg);
    CHECK(rc == MH_ERR_CORRUPT || rc == MH_ERR_DB);
    CHECK(msg[0] != '\0');
}

/* A writer killed inside a heat-map transaction: the earlier batches stay,
 * the half-written one is rolled back, and the profile says incomplete. */
static void test_interrupted(void) {
    unlink("interrupted.mhdb");
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        mh_err err = {0};
        mh_model m;
        mh_pass *p;
        mh_pass_opts po = {.analyses = MH_PASS_HEAT};
        if (mh_pass_open(&p, synth_trace, &m, &po, &err)) _exit(2);
        mh_db *db;
        if (mh_db_create(&db, "interrupted.mhdb", 1, &err)) _exit(3);
        mh_db_put_header(db, &m.hdr, &err);
        ref_set ref = {0};
        /* the pass stops with the consumer's error once two maps are in */
        mh_pass_consumer c = {.ctx = &ref, .heat = ref_emit_two};
        mh_pass_add(p, &c, &err);
        if (mh_pass_run(p, &err) != MH_ERR_INTERNAL || ref.n < 2) _exit(5);
        /* first map committed as its own batch */
        mh_heat_result res = {.model = &m, .launch = &m.launches[0], .space = ref.v[0].space, .sector_size = 32,
                              .accesses = 1, .rows = ref.v[0].rows, .nrows = ref.v[0].n};
        if (mh_db_put_launch(db, &m.launches[0], &err) || mh_db_put_heat(db, &res, NULL, &err)) _exit(4);
        /* second batch: killed half way (BEGIN, some rows, no COMMIT) */
        sqlite3 *h;
        sqlite3_open("interrupted.mhdb", &h);
        sqlite3_exec(h,
                     "BEGIN IMMEDIATE; INSERT INTO heat_map(id, launch, space) VALUES(99, 0, 'global');"
                     " INSERT INTO heat_row(map, row, tag) VALUES(99, 0, 1);",
                     0, 0, 0);
        _exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    json_t *s = summary_of("interrupted.mhdb");
    CHECK(s != NULL);
    if (!s) return;
    CHECK(strcmp(S(json_object_get(json_object_get(s, "meta"), "complete")), "0") == 0);
    json_t *maps = json_object_get(s, "heat_maps");
    CHECK_EQ_U(json_array_size(maps), 1);
    CHECK(json_integer_value(json_object_get(json_array_get(maps, 0), "id")) != 99);
    json_decref(s);
}

/* A trace cut inside a chunk: imported up to the cut, flagged. */
static void test_cut_trace(void) {
    mh_err err = {0};
    mh_synth_opts so;
    memset(&so, 0, sizeof so);
    so.shapes = (1u << MH_SYNTH_SHAPE_COUNT) - 1;
    so.warps = 32;
    so.iters = 64;
    so.blocks = 4;
    CHECK(mh_synth_write("store_cut.mht", &so, &err) == MH_OK);
    struct stat sb;
    stat("store_cut.mht", &sb);
    CHECK(truncate("store_cut.mht", sb.st_size * 2 / 3) == 0);
    mh_db_import_opts io;
    memset(&io, 0, sizeof io);
    io.trace_path = "store_cut.mht";
    int rc = mh_db_import_trace("store_cut.mhdb", 1, &io, &err);
    CHECK(rc == MH_ERR_TRUNCATED);
    json_t *s = summary_of("store_cut.mhdb");
    CHECK(s != NULL);
    if (!s) return;
    json_t *meta = json_object_get(s, "meta");
    CHECK(strcmp(S(json_object_get(meta, "complete")), "1") == 0);
    CHECK(strcmp(S(json_object_get(meta, "trace_complete")), "0") == 0);
    size_t nl = json_array_size(json_object_get(s, "launches"));
    CHECK(nl >= 1 && nl <= MH_SYNTH_SHAPE_COUNT);
    CHECK(json_array_size(json_object_get(s, "heat_maps")) >= 1);
    json_decref(s);
}

static int64_t q1(sqlite3 *h, const char *sql) {
    sqlite3_stmt *st;
    int64_t v = -1;
    if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) != SQLITE_OK) return -2;
    if (sqlite3_step(st) == SQLITE_ROW) v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

typedef struct kinds_seen {
    size_t rows, zero;
} kinds_seen;

static int count_kinds(void *ctx, const mh_db_heat_row *row) {
    kinds_seen *k = ctx;
    k->rows++;
    k->zero += row->kinds == 0;
    return 0;
}

/* Kinds and per-bank degrees in the roundtrip's profile; then the same
 * profile without those columns (as written before them): it opens, rows read
 * "kinds unknown", the report says so per map. */
static void test_kinds_old_profile(void) {
    sqlite3 *h;
    CHECK(sqlite3_open(synth_db, &h) == SQLITE_OK);
    /* coalesced: every word loaded (L in all eight 3-bit groups); shared_warp:
     * lane 0 stores then its warp loads: stores and loads in the shared map */
    CHECK_EQ_U(q1(h, "SELECT count(*) FROM heat_row r JOIN heat_map m ON r.map = m.id JOIN launch l ON m.launch = l.id"
                     " WHERE l.name = 'coalesced' AND r.kinds != 2396745"), 0); /* 0x249249 */
    CHECK(q1(h, "SELECT count(*) FROM heat_row r JOIN heat_map m ON r.map = m.id JOIN launch l ON m.launch = l.id"
                " WHERE l.name = 'shared_warp' AND r.kinds & 2 AND r.kinds & 1") > 0);
    CHECK_EQ_U(q1(h, "SELECT count(*) FROM heat_row WHERE kinds IS NULL"), 0);
    CHECK(q1(h, "SELECT count(*) FROM bank_conflict WHERE json_array_length(banks) = 32") > 0);
    sqlite3_close(h);
    json_t *s = summary_of(synth_db);
    json_t *b0 = json_array_get(json_object_get(s, "bank_conflicts"), 0);
    CHECK(json_array_size(json_object_get(b0, "banks")) == 32);
    json_decref(s);

    /* the same profile as written before kinds and banks, and before the
     * columns of the estimated savings (ideal and extra wavefronts, the
     * global requests, timed runs, shared heat maps): it opens and reports */
    const char *old = "store_old.mhdb";
    FILE *in = fopen(synth_db, "rb"), *out = fopen(old, "wb");
    CHECK(in && out);
    char buf[65536];
    size_t n;
    while (in && out && (n = fread(buf, 1, sizeof buf, in)) > 0) fwrite(buf, 1, n, out);
    if (in) fclose(in);
    if (out) fclose(out);
    CHECK(sqlite3_open(old, &h) == SQLITE_OK);
    CHECK(sqlite3_exec(h,
                       "ALTER TABLE heat_row DROP COLUMN kinds; ALTER TABLE bank_conflict DROP COLUMN banks;"
                       " ALTER TABLE bank_conflict DROP COLUMN ideal; ALTER TABLE bank_conflict DROP COLUMN extra;"
                       " ALTER TABLE bank_conflict DROP COLUMN kind; ALTER TABLE bank_conflict DROP COLUMN object;"
                       " DROP TABLE global_request; ALTER TABLE heat_map DROP COLUMN rows_of;"
                       " ALTER TABLE kernel_run DROP COLUMN timed;",
                       0, 0, 0) == SQLITE_OK);
    sqlite3_close(h);
    mh_err err = {0};
    mh_db *db;
    CHECK(mh_db_open(&db, old, 0, &err) == MH_OK);
    if (!db) return;
    s = NULL;
    CHECK(mh_db_read_summary(db, &s, &err) == MH_OK);
    json_t *m = json_array_get(json_object_get(s, "heat_maps"), 0);
    kinds_seen k = {0, 0};
    CHECK(mh_db_read_heat(db, json_integer_value(json_object_get(m, "id")), count_kinds, &k, &err) == MH_OK);
    CHECK(k.rows > 0 && k.zero == k.rows);
    b0 = json_array_get(json_object_get(s, "bank_conflicts"), 0);
    CHECK(b0 != NULL && json_is_null(json_object_get(b0, "banks")));
    json_decref(s);
    char *html = NULL;
    size_t hlen = 0;
    FILE *f = open_memstream(&html, &hlen);
    CHECK(f && mh_report_html(db, f, NULL, &err) == MH_OK);
    if (f) fclose(f);
    CHECK(html && strstr(html, "\"kinds\":false") && !strstr(html, "\"kinds\":true"));
    free(html);
    mh_db_close(db);
    unlink(old);
    /* the current profile's report says the kinds are known */
    CHECK(mh_db_open(&db, synth_db, 0, &err) == MH_OK);
    html = NULL;
    f = db ? open_memstream(&html, &hlen) : NULL;
    CHECK(f && mh_report_html(db, f, NULL, &err) == MH_OK);
    if (f) fclose(f);
    CHECK(html && strstr(html, "\"kinds\":true") && !strstr(html, "\"kinds\":false"));
    free(html);
    if (db) mh_db_close(db);
}

/* issue 40: a 16-byte access needs 4 wavefronts without any conflict (the
 * bank view once called CUTLASS's 128-bit loads "4-way" with "extra
 * wavefronts"): the profile keeps each pc's ideal and extra wavefronts, and
 * its global requests' lines, for the report and the estimated savings. */
static void test_ideal_wavefronts(void) {
    tb t;
    CHECK(tb_open(&t, "store_ideal"));
    tb_alloc(&t, 0, 0, 0, 65536, MH_SPACE_SHARED, "s");
    tb_alloc(&t, 1, MH_TRACE_NO_LAUNCH, 0x100000, 65536, MH_SPACE_GLOBAL, "g");
    tb_launch(&t, 0, "vec", 1, 256);
    for (uint16_t th = 0; th < 256; th++) {
        tb_acc(&t, 0, 0, th, 0, 16u * th, 16, MH_KIND_STORE, MH_SPACE_SHARED, 0x8);                 /* float4 s[t] */
        tb_acc(&t, 0, 0, th, 1, 16u * ((th + 1u) % 256u), 16, MH_KIND_LOAD, MH_SPACE_SHARED, 0x10); /* float4 s[t+1] */
        tb_acc(&t, 0, 0, th, 2, 4u * 32u * (th % 32u), 4, MH_KIND_LOAD, MH_SPACE_SHARED, 0x20);     /* s[32 lane] */
        tb_acc(&t, 0, 0, th, 3, 0x100000 + 128u * th, 4, MH_KIND_LOAD, MH_SPACE_GLOBAL, 0x30);       /* a line a lane */
    }
    tb_end(&t, 0);
    CHECK(tb_close(&t));
    mh_db_import_opts io;
    memset(&io, 0, sizeof io);
    io.trace_path = t.path;
    io.run.backend = "synthetic";
    const char *db = "store_ideal.mhdb";
    unlink(db);
    mh_err err = {0};
    CHECK(mh_db_import_trace(db, 0, &io, &err) == MH_OK);
    sqlite3 *h;
    CHECK(sqlite3_open(db, &h) == SQLITE_OK);
    CHECK_EQ_U(q1(h, "SELECT ideal FROM bank_conflict WHERE pc = 16"), 8 * 4); /* 8 warps x 4 quarter-warp phases */
    CHECK_EQ_U(q1(h, "SELECT extra FROM bank_conflict WHERE pc = 16"), 0);
    CHECK_EQ_U(q1(h, "SELECT extra FROM bank_conflict WHERE pc = 32"), 8 * 31);
    CHECK_EQ_U(q1(h, "SELECT count(*) FROM bank_conflict WHERE pc = 32 AND kind = 'load' AND object IS NOT NULL"), 1);
    CHECK_EQ_U(q1(h, "SELECT lines FROM global_request WHERE pc = 48"), 8 * 32); /* 32 lines a request */
    CHECK_EQ_U(q1(h, "SELECT ideal_lines FROM global_request WHERE pc = 48"), 8 * 1);
    /* damaged cells the savings read (a real 1e308 for a block count, an SM
     * count past 32 bits) are not converted out of range: the report is
     * still written */
    CHECK(sqlite3_exec(h, "UPDATE launch SET n_blocks = 1e308; UPDATE device SET sm_count = 4294967296.5", 0, 0, 0) ==
          SQLITE_OK);
    sqlite3_close(h);
    mh_db *d = NULL;
    CHECK(mh_db_open(&d, db, 0, &err) == MH_OK);
    char *html = NULL;
    size_t hlen = 0;
    FILE *f = d ? open_memstream(&html, &hlen) : NULL;
    CHECK(f && mh_report_html(d, f, NULL, &err) == MH_OK);
    if (f) fclose(f);
    CHECK(html && hlen > 0);
    free(html);
    if (d) mh_db_close(d);
    unlink(t.path);
}

int main(void) {
    static const mh_test_case cases[] = {{"roundtrip", test_roundtrip},
                                         {"timing", test_timing},
                                         {"bad_files", test_bad_files},
                                         {"interrupted", test_interrupted},
                                         {"cut_trace", test_cut_trace},
                                         {"kinds_old_profile", test_kinds_old_profile},
                                         {"ideal_wavefronts", test_ideal_wavefronts}};
    return mh_test_run(cases, sizeof cases / sizeof cases[0]);
}
