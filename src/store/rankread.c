/* rankread.c -- what a report of a profile of many ranks reads.
 *
 * A merged job of a thousand ranks holds a thousand copies of mostly the
 * same launches. The report shows the distinct content once and a summary
 * per rank, so it reads the profile twice, neither time whole:
 *
 *  - mh_db_read_ranks: the narrow rows of every rank, enough to compare
 *    ranks -- processes with their totals, launches (configuration, accesses),
 *    heat maps (which map's rows they read and their regions' sizes and
 *    labels: equal keys = the same heat map), findings (kind, object, cost)
 *    and kernels (time, bandwidth);
 *  - mh_db_read_keep: then the readers (mh_db_read_summary) see only the
 *    launches chosen (one per distinct content) with the objects they name,
 *    the processes named, only the reference process's devices, kernels,
 *    kernel and copy records and launch counts, and each kernel's first
 *    partition-camping band: TEMP views, which SQLite
 *    resolves before the tables of the same name, until mh_db_read_keep_end. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db_internal.h"

/* The sum of an integer column that a damaged cell cannot overflow (SQLite's
 * SUM fails on it; TOTAL sums in floating point), NULL where every value is. */
#define ISUM(x) "(CASE WHEN COUNT(" x ") > 0 THEN CAST(TOTAL(" x ") AS INTEGER) END)"

/* Rows of sql as an array of objects (column name: value); text columns
 * named "..._json" are parsed. */
static int rows(mh_db *db, const char *sql, json_t **out, mh_err *err) {
    sqlite3_stmt *st;
    int rc = mh_db_prepare(db, &st, sql, err);
    if (rc) return rc;
    json_t *arr = json_array();
    int ncol = sqlite3_column_count(st), s;
    while (arr && (s = sqlite3_step(st)) == SQLITE_ROW) {
        json_t *o = json_object();
        for (int i = 0; o && i < ncol; i++) {
            const char *name = sqlite3_column_name(st, i);
            size_t len = strlen(name);
            int parse = len > 5 && !strcmp(name + len - 5, "_json");
            char key[64];
            snprintf(key, sizeof key, "%.*s", (int)(parse ? len - 5 : len), name);
            json_t *v;
            switch (sqlite3_column_type(st, i)) {
            case SQLITE_INTEGER: v = json_integer(sqlite3_column_int64(st, i)); break;
            case SQLITE_FLOAT: v = json_real(sqlite3_column_double(st, i)); break;
            case SQLITE_TEXT: {
                const char *t = (const char *)sqlite3_column_text(st, i);
                size_t n = (size_t)sqlite3_column_bytes(st, i);
                v = parse ? json_loadb(t, n, JSON_DECODE_ANY, NULL) : json_stringn_nocheck(t, n);
                break;
            }
            default: v = json_null();
            }
            json_object_set_new(o, key, v ? v : json_null());
        }
        json_array_append_new(arr, o);
    }
    if (!arr) rc = mh_err_set(err, MH_ERR_NOMEM, "out of memory reading the ranks");
    else if (s != SQLITE_DONE) rc = mh_db_fail(db, err, "reading the ranks");
    sqlite3_finalize(st);
    if (rc) json_decref(arr);
    else *out = arr;
    return rc;
}

int mh_db_read_ranks(mh_db *db, json_t **out, mh_err *err) {
    *out = NULL;
    json_t *root = json_object();
    if (!root) return mh_err_set(err, MH_ERR_NOMEM, "out of memory reading the ranks");
    if (!mh_db_has_column(db, "main", "process", "id")) { /* schema 1 or 2: one process, nothing to compare */
        *out = root;
        return MH_OK;
    }
    int shared = mh_db_has_column(db, "main", "heat_map", "rows_of");
    /* a map's content: the map whose rows it reads (equal rows were shared by
     * the merge, heat_share.c) and its regions' sizes and labels; a profile
     * merged before rows_of: the map itself (no two maps equal) */
    char maps_sql[700];
    snprintf(maps_sql, sizeof maps_sql,
             "SELECT m.id, m.launch, m.space, m.nrows, %s AS rows_from,"
             " (SELECT group_concat(x, '|') FROM (SELECT (r.end - r.start) || ':' || COALESCE(r.label, '') AS x"
             "   FROM heat_region r WHERE r.map = m.id ORDER BY r.idx)) AS regions"
             " FROM heat_map m ORDER BY m.launch, m.id",
             shared ? "COALESCE(m.rows_of, m.id)" : "m.id");
    static const char *const keys[] = {"processes", "launches", "heat_maps", "findings", "kernels"};
    const char *sqls[] = {
        "SELECT p.id, pid, host, command, rank, local_rank, world_size, ompi_rank, pmi_rank, slurm_procid, devices,"
        " COALESCE(l.n, 0) AS launches_traced, COALESCE(l.acc, 0) AS accesses, c.run AS launches_run,"
        " k.ns AS kernel_ns, k.counted_ns AS counted_ns, k.bytes AS dram_bytes"
        " FROM process p"
        " LEFT JOIN (SELECT process, COUNT(*) AS n, " ISUM("recorded") " AS acc FROM launch GROUP BY process) l"
        "   ON l.process = p.id"
        " LEFT JOIN (SELECT process, " ISUM("launches") " AS run FROM launch_config GROUP BY process) c"
        "   ON c.process = p.id"
        " LEFT JOIN (SELECT process, " ISUM("total_ns") " AS ns,"
        "   " ISUM("CASE WHEN with_counters > 0 THEN total_ns END") " AS counted_ns,"
        "   SUM(CASE WHEN with_counters > 0 THEN dram_bytes END) AS bytes FROM kernel GROUP BY process) k"
        "   ON k.process = p.id"
        " ORDER BY p.id",
        "SELECT id, process, name, display_name, json_array(grid_x, grid_y, grid_z) AS grid_json,"
        " json_array(block_x, block_y, block_z) AS block_json, dyn_smem, recorded FROM launch ORDER BY id",
        maps_sql,
        "SELECT id, launch, kind, space, object_label, cost FROM finding ORDER BY cost DESC, id",
        "SELECT name, process, total_ns, bandwidth_Bps FROM kernel ORDER BY id"};
    int rc = MH_OK;
    for (size_t i = 0; i < sizeof keys / sizeof *keys && !rc; i++) {
        json_t *a;
        if (!(rc = rows(db, sqls[i], &a, err))) json_object_set_new(root, keys[i], a);
    }
    if (rc) json_decref(root);
    else *out = root;
    return rc;
}

/* Tables read through a view and which rows the view keeps. */
static const struct {
    const char *table, *where;
} kept[] = {
    {"launch", "id IN (SELECT id FROM temp.mh_keep_launch)"},
    {"heat_map", "launch IN (SELECT id FROM temp.mh_keep_launch)"},
    {"finding", "launch IN (SELECT id FROM temp.mh_keep_launch)"},
    {"locality", "launch IN (SELECT id FROM temp.mh_keep_launch)"},
    {"locality_curve", "launch IN (SELECT id FROM temp.mh_keep_launch)"},
    {"bank_conflict", "launch IN (SELECT id FROM temp.mh_keep_launch)"},
    {"dropped", "launch IN (SELECT id FROM temp.mh_keep_launch)"},
    /* the objects the kept heat maps and findings name, and the allocations those lie in */
    {"object", "id IN (SELECT id FROM temp.mh_keep_object)"},
    {"device", "process = (SELECT id FROM temp.mh_keep_ref)"},
    {"process", "id IN (SELECT id FROM temp.mh_keep_process)"},
    {"kernel", "process = (SELECT id FROM temp.mh_keep_ref)"},
    {"kernel_run", "process = (SELECT id FROM temp.mh_keep_ref)"},
    {"copy", "process = (SELECT id FROM temp.mh_keep_ref)"},
    {"launch_config", "process = (SELECT id FROM temp.mh_keep_ref)"},
    /* bands carry no process: each kernel's first (the first input's, of a merge) */
    {"camp_band", "id IN (SELECT MIN(id) FROM main.camp_band GROUP BY kernel, device)"},
};

static int fill(mh_db *db, const char *table, const int64_t *ids, size_t n, mh_err *err) {
    char sql[96];
    snprintf(sql, sizeof sql, "INSERT OR IGNORE INTO temp.%s(id) VALUES(?1)", table);
    sqlite3_stmt *st;
    int rc = mh_db_prepare(db, &st, sql, err);
    for (size_t i = 0; i < n && !rc; i++) {
        sqlite3_bind_int64(st, 1, ids[i]);
        rc = mh_db_step_done(db, st, err, "choosing what the report reads");
    }
    sqlite3_finalize(st);
    return rc;
}

int mh_db_read_keep(mh_db *db, const int64_t *launches, size_t nl, const int64_t *procs, size_t np, int64_t ref,
                    mh_err *err) {
    int rc = mh_db_exec(db,
                        "CREATE TEMP TABLE mh_keep_launch(id INTEGER PRIMARY KEY);"
                        "CREATE TEMP TABLE mh_keep_process(id INTEGER PRIMARY KEY);"
                        "CREATE TEMP TABLE mh_keep_ref(id INTEGER);",
                        err);
    if (!rc) rc = fill(db, "mh_keep_launch", launches, nl, err);
    if (!rc) rc = fill(db, "mh_keep_process", procs, np, err);
    if (!rc) rc = fill(db, "mh_keep_process", &ref, 1, err);
    if (!rc) rc = fill(db, "mh_keep_ref", &ref, 1, err);
    if (!rc)
        rc = mh_db_exec(db,
                        "CREATE TEMP TABLE mh_keep_object(id INTEGER PRIMARY KEY);"
                        "INSERT OR IGNORE INTO temp.mh_keep_object SELECT object FROM main.heat_region"
                        " WHERE object IS NOT NULL AND map IN (SELECT id FROM main.heat_map"
                        "   WHERE launch IN (SELECT id FROM temp.mh_keep_launch));"
                        "INSERT OR IGNORE INTO temp.mh_keep_object SELECT object FROM main.finding"
                        " WHERE object IS NOT NULL AND launch IN (SELECT id FROM temp.mh_keep_launch);"
                        "INSERT OR IGNORE INTO temp.mh_keep_object SELECT id FROM main.object"
                        " WHERE launch IN (SELECT id FROM temp.mh_keep_launch);",
                        err);
    if (!rc && mh_db_has_column(db, "main", "object", "parent"))
        rc = mh_db_exec(db,
                        "INSERT OR IGNORE INTO temp.mh_keep_object SELECT parent FROM main.object"
                        " WHERE parent IS NOT NULL AND id IN (SELECT id FROM temp.mh_keep_object);",
                        err);
    for (size_t i = 0; i < sizeof kept / sizeof *kept && !rc; i++) {
        char sql[256];
        snprintf(sql, sizeof sql, "CREATE TEMP VIEW %s AS SELECT * FROM main.%s WHERE %s", kept[i].table,
                 kept[i].table, kept[i].where);
        rc = mh_db_exec(db, sql, err);
    }
    if (rc) {
        mh_db_read_keep_end(db);
        mh_err_wrap(err, "choosing what the report reads");
    }
    return rc;
}

void mh_db_read_keep_end(mh_db *db) {
    for (size_t i = 0; i < sizeof kept / sizeof *kept; i++) {
        char sql[96];
        snprintf(sql, sizeof sql, "DROP VIEW IF EXISTS temp.%s", kept[i].table);
        sqlite3_exec(db->h, sql, NULL, NULL, NULL);
    }
    sqlite3_exec(db->h, "DROP TABLE IF EXISTS temp.mh_keep_launch; DROP TABLE IF EXISTS temp.mh_keep_process;"
                        " DROP TABLE IF EXISTS temp.mh_keep_ref; DROP TABLE IF EXISTS temp.mh_keep_object;",
                 NULL, NULL, NULL);
}
