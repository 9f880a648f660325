/* test_process.c -- the process dimension of a profile (src/store/process.c):
 * a run's process row and tags, merging profiles (ids renumbered, nothing
 * lost, references still valid), a schema-2 profile read and merged as one
 * process, and a newer schema refused. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../mh_test.h"
#include "import/import.h"
#include "store/store.h"
#include "memheat/synth.h"

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
    static const char *const tables[] = {"launch", "object", "heat_map", "heat_row", "heat_region", "finding",
                                         "locality", "launch_config", "dropped"};
    for (size_t i = 0; i < sizeof tables / sizeof *tables; i++) {
        char sql[96];
        snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM %s", tables[i]);
        CHECK_EQ_U(q(out, sql), 2 * q(a, sql) + q(b, sql));
    }
    CHECK_EQ_U(q(out, "SELECT COUNT(*) FROM process"), 3);
    CHECK_EQ_U(q(out, "SELECT COUNT(DISTINCT id) FROM launch"), q(out, "SELECT COUNT(*) FROM launch"));
    CHECK_EQ_U(q(out, "SELECT COUNT(*) FROM launch WHERE process = 2"), q(b, "SELECT COUNT(*) FROM launch"));
    check_refs(out);
    /* the summary carries processes and a process per launch */
    CHECK(mh_db_open(&db, out, MH_DB_CHECK, &err) == MH_OK);
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
    CHECK(mh_db_open(&db, v2, MH_DB_CHECK, &err) == MH_OK);
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
    CHECK(exec(v4, "PRAGMA user_version = 4") == 0);
    CHECK(mh_db_merge(db, v4, &mi, &err) == MH_ERR_VERSION);
    CHECK(strstr(err.msg, "v4.mhdb") != NULL);
    mh_db_close(db);
    CHECK_EQ_U(q(out, "SELECT COUNT(*) FROM process"), 2);
    CHECK_EQ_U(q(out, "SELECT source = 'profile schema 2' FROM process WHERE id = 2"), 1);
    CHECK_EQ_U(q(out, "SELECT COUNT(*) FROM launch WHERE process = 2"), q(v2, "SELECT COUNT(*) FROM launch"));
    CHECK_EQ_U(q(out, "SELECT COUNT(*) FROM launch"), 2 * q(a, "SELECT COUNT(*) FROM launch"));
    check_refs(out);
}

int main(void) {
    snprintf(dir, sizeof dir, "/tmp/memheat-test-process-XXXXXX");
    if (!mkdtemp(dir)) return 1;
    static const mh_test_case cases[] = {T(test_one_process), T(test_merge), T(test_old_and_new)};
    int rc = mh_test_run(cases, sizeof cases / sizeof cases[0]);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) rc = 1;
    return rc;
}
