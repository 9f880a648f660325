/* test_process.c -- the process dimension of a profile (src/store/process.c):
 * a run's process row and tags, merging profiles (ids renumbered, nothing
 * lost, references still valid), a schema-2 profile read and merged as one
 * process, a newer schema refused, and heat maps of the same content kept
 * once and read back as they were. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../mh_test.h"
#include "import/import.h"
#include "store/store.h"
#include "collectors/synth.h"

#include <jansson.h>

static char dir[200];

static const char *at(const char *name) {
    static char buf[4][300];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

static long long q(const char *db, const char *sql) {
    sqlite3 *h;
    long long v = -1;
    if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK) {
        sqlite3_stmt *st;
        if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
            v = sqlite3_column_int64(st, 0);
        else
            fprintf(stderr, "query %s: %s\n", sql, sqlite3_errmsg(h));
        sqlite3_finalize(st);
    }
    sqlite3_close(h);
    return v;
}

static int exec(const char *db, const char *sql) {
    sqlite3 *h;
    int rc = sqlite3_open(db, &h) == SQLITE_OK ? sqlite3_exec(h, sql, NULL, NULL, NULL) : -1;
    if (rc) fprintf(stderr, "exec %s: %s\n", sql, sqlite3_errmsg(h));
    sqlite3_close(h);
    return rc;
}

/* A profile of a synthetic trace, imported as `memheat run` does. */
static void make_profile(const char *trace, const char *db, unsigned shapes) {
    mh_err err = {0};
    mh_synth_opts so;
    memset(&so, 0, sizeof so);
    so.shapes = shapes;
    so.warps = 4;
    so.iters = 1;
    CHECK(mh_synth_write(trace, &so, &err) == MH_OK);
    mh_db_import_opts io;
    memset(&io, 0, sizeof io);
    io.trace_path = trace;
    io.run.backend = "synthetic";
    io.pid = 4242;
    CHECK(mh_db_import_trace(db, 1, &io, &err) == MH_OK);
}

static void test_one_process(void) {
    const char *db = at("a.mhdb");
    make_profile(at("a.mht"), db, 0x7);
    CHECK_EQ_U(q(db, "SELECT COUNT(*) FROM process"), 1);
    CHECK_EQ_U(q(db, "SELECT pid FROM process"), 4242); /* a synthetic trace has no process record */
    CHECK(q(db, "SELECT COUNT(*) FROM launch") > 0);
    CHECK_EQ_U(q(db, "SELECT COUNT(*) FROM launch WHERE process IS NOT 1"), 0);
    CHECK_EQ_U(q(db, "SELECT COUNT(*) FROM object WHERE process IS NOT 1"), 0);
    CHECK_EQ_U(q(db, "SELECT rank IS NULL FROM process"), 1);
}

/* Every reference of the merged profile points at a row of the same process. */
static void check_refs(const char *db) {
    CHECK_EQ_U(q(db, "SELECT COUNT(*) FROM heat_map m LEFT JOIN launch l ON l.id = m.launch WHERE l.id IS NULL"), 0);
    CHECK_EQ_U(q(db, "SELECT COUNT(*) FROM heat_region r JOIN heat_map m ON m.id = r.map JOIN launch l"
                     " ON l.id = m.launch LEFT JOIN object o ON o.id = r.object"
                     " WHERE r.object IS NOT NULL AND (o.id IS NULL OR o.process IS NOT l.process)"),
               0);
    CHECK_EQ_U(q(db, "SELECT COUNT(*) FROM finding f JOIN launch l ON l.id = f.launch"
                     " WHERE f.process IS NOT l.process"),
               0);
    CHECK_EQ_U(q(db, "SELECT COUNT(*) FROM heat_row h LEFT JOIN heat_map m ON m.id = h.map WHERE m.id IS NULL"), 0);
}

static void test_merge(void) {
    const char *a = at("a.mhdb"), *b = at("b.mhdb"), *out = at("ab.mhdb");
    make_profile(at("b.mht"), b, 0x18);
    mh_err err = {0};
    mh_db *db;
    CHECK(mh_db_create(&db, out, 1, &err) == MH_OK);
    mh_db_merge_info mi;
    CHECK(mh_db_merge(db, a, &mi, &err) == MH_OK);
    CHECK(mi.first_process == 1 && mi.processes == 1 && mi.complete);
    CHECK(mh_db_merge(db, b, &mi, &err) == MH_OK);
    CHECK(mi.first_process == 2 && mi.processes == 1);
    CHECK(mh_db_merge(db, a, &mi, &err) == MH_OK); /* the same profile twice: still two processes */
    CHECK(mi.first_process == 3);
    CHECK(mh_db_finish(db, &err) == MH_OK);
    mh_db_close(db);
    static const char *const tables[] = {"launch", "object", "heat_map", "heat_region", "finding",
                                         "locality", "launch_config", "dropped"};
    for (size_t i = 0; i < sizeof tables / sizeof *tables; i++) {
        char sql[96];
        snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM %s", tables[i]);
        CHECK_EQ_U(q(out, sql), 2 * q(a, sql) + q(b, sql));
    }
    /* heat rows: every map's rows read back, the second copy of a's kept once */
    CHECK_EQ_U(q(out, "SELECT SUM(nrows) FROM heat_map"), 2 * q(a, "SELECT SUM(nrows) FROM heat_map") +
                                                            q(b, "SELECT SUM(nrows) FROM heat_map"));
    CHECK(q(out, "SELECT COUNT(*) FROM heat_row") <= q(a, "SELECT COUNT(*) FROM heat_row") +
                                                      q(b, "SELECT COUNT(*) FROM heat_row"));
    CHECK_EQ_U(q(out, "SELECT COUNT(*) FROM heat_map m JOIN launch l ON l.id = m.launch"
                      " WHERE l.process = 3 AND m.rows_of IS NULL"), 0);
    CHECK_EQ_U(q(out, "SELECT COUNT(*) FROM process"), 3);
    CHECK_EQ_U(q(out, "SELECT COUNT(DISTINCT id) FROM launch"), q(out, "SELECT COUNT(*) FROM launch"));
    CHECK_EQ_U(q(out, "SELECT COUNT(*) FROM launch WHERE process = 2"), q(b, "SELECT COUNT(*) FROM launch"));
    check_refs(out);
    /* the summary carries processes and a process per launch */
    CHECK(mh_db_open(&db, out, 0, &err) == MH_OK);
    json_t *s = NULL;
    CHECK(mh_db_read_summary(db, &s, &err) == MH_OK);
    mh_db_close(db);
    CHECK_EQ_U(json_array_size(json_object_get(s, "processes")), 3);
    json_t *l0 = json_array_get(json_object_get(s, "launches"), 0);
    CHECK(json_is_integer(json_object_get(l0, "process")));
    json_decref(s);
}

static void test_old_and_new(void) {
    const char *a = at("a.mhdb"), *v2 = at("v2.mhdb"), *v4 = at("v4.mhdb"), *out = at("old.mhdb");
    char cmd[800];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s' && cp '%s' '%s'", a, v2, a, v4);
    CHECK(system(cmd) == 0);
    /* schema 2: no process table, no process columns */
    CHECK(exec(v2, "DROP TABLE process; DROP INDEX launch_process; ALTER TABLE launch DROP COLUMN process;"
                   " ALTER TABLE object DROP COLUMN process; ALTER TABLE finding DROP COLUMN process;"
                   " PRAGMA user_version = 2; UPDATE meta SET value = '2' WHERE key = 'schema_version';") == 0);
    mh_err err = {0};
    mh_db *db;
    CHECK(mh_db_open(&db, v2, 0, &err) == MH_OK);
    json_t *s = NULL;
    CHECK(db && mh_db_read_summary(db, &s, &err) == MH_OK);
    CHECK(s && !json_object_get(s, "processes"));
    json_decref(s);
    mh_db_close(db);
    CHECK(mh_db_create(&db, out, 1, &err) == MH_OK);
    mh_db_merge_info mi;
    CHECK(mh_db_merge(db, a, &mi, &err) == MH_OK);
    CHECK(mh_db_merge(db, v2, &mi, &err) == MH_OK);
    CHECK(mi.processes == 1 && mi.first_process == 2);
    /* newer than this memheat: refused, naming the file; nothing merged */
    char newer[64];
    snprintf(newer, sizeof newer, "PRAGMA user_version = %d", MH_DB_SCHEMA_VERSION + 1);
    CHECK(exec(v4, newer) == 0);
    CHECK(mh_db_merge(db, v4, &mi, &err) == MH_ERR_VERSION);
    CHECK(strstr(err.msg, "v4.mhdb") != NULL);
    mh_db_close(db);
    CHECK_EQ_U(q(out, "SELECT COUNT(*) FROM process"), 2);
    CHECK_EQ_U(q(out, "SELECT source = 'profile schema 2' FROM process WHERE id = 2"), 1);
    CHECK_EQ_U(q(out, "SELECT COUNT(*) FROM launch WHERE process = 2"), q(v2, "SELECT COUNT(*) FROM launch"));
    CHECK_EQ_U(q(out, "SELECT COUNT(*) FROM launch"), 2 * q(a, "SELECT COUNT(*) FROM launch"));
    check_refs(out);
}

/* FNV-1a of the rows mh_db_read_heat gives for each map of process proc (0:
 * the only one), in map order: what every reader sees. */
static int fold_row(void *ctx, const mh_db_heat_row *r) {
    uint64_t *h = ctx;
    const unsigned char *b = (const unsigned char *)r;
    for (size_t i = 0; i < sizeof *r; i++) *h = (*h ^ b[i]) * 1099511628211ull;
    return 0;
}
static size_t map_digests(const char *path, int proc, uint64_t *out, size_t cap) {
    sqlite3 *h;
    size_t n = 0;
    if (sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) return 0;
    sqlite3_stmt *st;
    long long ids[256];
    size_t nid = 0;
    char sql[200];
    snprintf(sql, sizeof sql,
             "SELECT m.id FROM heat_map m JOIN launch l ON l.id = m.launch WHERE %d = 0 OR l.process = %d ORDER BY m.id",
             proc, proc);
    if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK) {
        while (nid < 256 && sqlite3_step(st) == SQLITE_ROW) ids[nid++] = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
    }
    sqlite3_close(h);
    mh_err err = {0};
    mh_db *db;
    CHECK(mh_db_open(&db, path, 0, &err) == MH_OK);
    for (size_t i = 0; db && i < nid && n < cap; i++) {
        uint64_t d = 1469598103934665603ull;
        CHECK(mh_db_read_heat(db, ids[i], fold_row, &d, &err) == MH_OK);
        out[n++] = d;
    }
    mh_db_close(db);
    return n;
}

static void check_same_maps(const char *merged, int proc, const char *src) {
    uint64_t a[256], b[256];
    size_t na = map_digests(merged, proc, a, 256), nb = map_digests(src, 0, b, 256);
    CHECK(na > 0 && na == nb);
    for (size_t i = 0; i < na && na == nb; i++) CHECK(a[i] == b[i]);
}

/* Ranks whose heat maps are the same (objects elsewhere or not) keep their
 * rows once (heat_share.c); every map still reads back as it was, and a map
 * that differs by one temperature keeps rows of its own. */
static void test_heat_shared(void) {
    char a[300], moved[300], hotter[300], out[300], again[300];
    snprintf(a, sizeof a, "%s", at("a.mhdb"));
    snprintf(moved, sizeof moved, "%s", at("moved.mhdb"));
    snprintf(hotter, sizeof hotter, "%s", at("hotter.mhdb"));
    snprintf(out, sizeof out, "%s", at("shared.mhdb"));
    snprintf(again, sizeof again, "%s", at("again.mhdb"));
    char cmd[1400];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s' && cp '%s' '%s'", a, moved, a, hotter);
    CHECK(system(cmd) == 0);
    /* another process: its global objects 2 MiB higher */
    CHECK(exec(moved, "UPDATE object SET base = base + 2097152 WHERE space = 'global';"
                      " UPDATE heat_region SET start = start + 2097152, end = end + 2097152,"
                      " first_tag = first_tag + 65536, last_tag = last_tag + 65536"
                      " WHERE map IN (SELECT id FROM heat_map WHERE space = 'global' AND sector_size = 32);"
                      " UPDATE heat_row SET tag = tag + 65536"
                      " WHERE map IN (SELECT id FROM heat_map WHERE space = 'global' AND sector_size = 32);") == 0);
    CHECK(q(moved, "SELECT COUNT(*) FROM heat_map WHERE space = 'global' AND sector_size = 32") > 0);
    /* other data: one sector of the first map one warp hotter */
    CHECK(exec(hotter, "UPDATE heat_row SET sector = sector + 1"
                       " WHERE map = (SELECT MIN(id) FROM heat_map) AND row = 0") == 0);
    mh_err err = {0};
    mh_db *db;
    CHECK(mh_db_create(&db, out, 1, &err) == MH_OK);
    mh_db_merge_info mi;
    CHECK(mh_db_merge(db, a, &mi, &err) == MH_OK);
    CHECK(mh_db_merge(db, moved, &mi, &err) == MH_OK);
    CHECK_EQ_U(mi.heat_shared, q(a, "SELECT COUNT(*) FROM heat_map"));
    CHECK(mh_db_merge(db, hotter, &mi, &err) == MH_OK);
    CHECK_EQ_U(mi.heat_shared, q(a, "SELECT COUNT(*) FROM heat_map") - 1);
    CHECK(mh_db_finish(db, &err) == MH_OK);
    mh_db_close(db);
    long long rows = q(a, "SELECT COUNT(*) FROM heat_row"), first = q(a, "SELECT nrows FROM heat_map ORDER BY id LIMIT 1");
    CHECK_EQ_U(q(out, "SELECT COUNT(*) FROM heat_row"), rows + first);
    check_same_maps(out, 1, a);
    check_same_maps(out, 2, moved);
    check_same_maps(out, 3, hotter);
    check_refs(out);
    /* a merged profile merged again: the shared maps follow their owners */
    CHECK(mh_db_create(&db, again, 1, &err) == MH_OK);
    CHECK(mh_db_merge(db, a, &mi, &err) == MH_OK);
    CHECK(mh_db_merge(db, out, &mi, &err) == MH_OK);
    CHECK(mh_db_finish(db, &err) == MH_OK);
    mh_db_close(db);
    CHECK_EQ_U(q(again, "SELECT COUNT(*) FROM heat_row"), rows + first);
    check_same_maps(again, 2, a);
    check_same_maps(again, 3, moved);
    check_same_maps(again, 4, hotter);
    check_refs(again);
}

int main(void) {
    snprintf(dir, sizeof dir, "/tmp/memheat-test-process-XXXXXX");
    if (!mkdtemp(dir)) return 1;
    static const mh_test_case cases[] = {T(test_one_process), T(test_merge), T(test_old_and_new),
                                         T(test_heat_shared)};
    int rc = mh_test_run(cases, sizeof cases / sizeof cases[0]);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) rc = 1;
    return rc;
}
