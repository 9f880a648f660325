/* process.c -- the process dimension of a profile (schema version 3): the
 * process table, tagging rows with the process that produced them, and
 * merging whole profiles into one (`memheat merge`, and `memheat run` when
 * a run had several processes: each is imported into a profile of its own,
 * then merged).
 *
 * Merging renumbers what would collide -- launch, object, heat map, device
 * and process ids -- by offsets past the destination's largest id, and
 * copies every table column by column, so nothing is lost; heat rows go
 * through heat_share.c, which keeps the rows of maps of the same content
 * once. A profile of
 * schema 1 or 2 (no process table) joins as one process. Single-row tables
 * (run, overlap) keep the destination's row; documents of later profiles are
 * kept under "<kind>@<process id>". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db_internal.h"
#include "util/grow.h"

/* Tables with a `process` column (schema.c). */
static const char *const tagged[] = {"device", "launch", "object", "dropped", "launch_config",
                                     "kernel_run", "copy", "kernel", "finding", "site", "site_config"};

static int bind_rank(sqlite3_stmt *st, int i, int32_t v) {
    return v >= 0 ? sqlite3_bind_int(st, i, v) : sqlite3_bind_null(st, i);
}

int mh_db_put_process(mh_db *db, const mh_process *p, const char *trace_file, const char *timing_file,
                      int64_t *id, mh_err *err) {
    sqlite3_stmt *st;
    int rc = mh_db_prepare(db, &st,
                           "INSERT INTO process(pid, ppid, host, command, rank, local_rank, world_size, ompi_rank,"
                           " pmi_rank, slurm_procid, devices, trace_file, timing_file, source)"
                           " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, 'run')",
                           err);
    if (rc) return rc;
    if (p->pid) mh_db_bind_u64(st, 1, p->pid);
    if (p->ppid) mh_db_bind_u64(st, 2, p->ppid);
    mh_db_bind_text(st, 3, p->host);
    mh_db_bind_text(st, 4, p->command);
    int32_t r[6] = {p->rank, p->local_rank, p->world_size, p->ompi_rank, p->pmi_rank, p->slurm_procid};
    for (int i = 0; i < 6; i++) bind_rank(st, 5 + i, r[i]);
    size_t n = 1;
    for (uint32_t i = 0; i < p->n_devices; i++) n += strlen(p->devices[i]) + 1;
    char *devs = calloc(1, n);
    if (!devs) {
        sqlite3_finalize(st);
        return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    }
    for (uint32_t i = 0; i < p->n_devices; i++) {
        if (i) strcat(devs, ",");
        strcat(devs, p->devices[i]);
    }
    mh_db_bind_text(st, 11, devs);
    mh_db_bind_text(st, 12, trace_file);
    mh_db_bind_text(st, 13, timing_file);
    rc = mh_db_step_done(db, st, err, "writing a process");
    free(devs);
    sqlite3_finalize(st);
    if (!rc && id) *id = sqlite3_last_insert_rowid(db->h);
    return rc;
}

int mh_db_tag_process(mh_db *db, int64_t id, mh_err *err) {
    int rc = MH_OK;
    for (size_t i = 0; i < sizeof tagged / sizeof *tagged && !rc; i++) {
        char sql[160];
        snprintf(sql, sizeof sql, "UPDATE %s SET process = %lld WHERE process IS NULL", tagged[i], (long long)id);
        rc = mh_db_exec(db, sql, err);
    }
    return rc;
}

/* ---- merge ---- */

static int64_t q_int(mh_db *db, const char *sql, int64_t dflt) {
    sqlite3_stmt *st;
    int64_t v = dflt;
    if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK) return dflt;
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

/* Column names of schema.table, into a NULL-terminated malloc'd list. */
static char **columns(mh_db *db, const char *schema, const char *table) {
    char sql[128];
    snprintf(sql, sizeof sql, "PRAGMA %s.table_info(%s)", schema, table);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK) return NULL;
    size_t n = 0, cap = 0;
    char **v = NULL;
    int ok = 1;
    while (ok && sqlite3_step(st) == SQLITE_ROW) {
        char **g = mh_grow(v, &cap, n + 2, sizeof *v, 32); /* every column, and the NULL after them */
        char *c = g ? strdup((const char *)sqlite3_column_text(st, 1)) : NULL;
        if (g) v = g;
        if (!c) ok = 0;
        else v[n++] = c, v[n] = NULL;
    }
    sqlite3_finalize(st);
    if (ok && !v) v = calloc(1, sizeof *v); /* no such table: an empty list */
    if (!ok || !v) { /* out of memory: no list, the merge fails instead of dropping columns */
        for (size_t i = 0; i < n; i++) free(v[i]);
        free(v);
        return NULL;
    }
    return v;
}

static void free_list(char **v) {
    for (size_t i = 0; v && v[i]; i++) free(v[i]);
    free(v);
}

static int has(char **v, const char *c) {
    for (size_t i = 0; v && v[i]; i++)
        if (!strcmp(v[i], c)) return 1;
    return 0;
}

typedef struct offsets {
    int64_t L, O, H, D, P, S;
} offsets;

/* Which offset a column takes; 0 = none. */
static char offset_kind(const char *table, const char *col) {
    static const struct { const char *t, *c; char k; } m[] = {
        {"launch", "id", 'L'},      {"object", "id", 'O'},         {"object", "launch", 'L'},
        {"dropped", "launch", 'L'}, {"heat_map", "id", 'H'},       {"heat_map", "launch", 'L'},
        {"heat_region", "map", 'H'}, {"heat_region", "object", 'O'}, {"heat_row", "map", 'H'},
        {"locality", "launch", 'L'}, {"locality_curve", "launch", 'L'}, {"finding", "launch", 'L'},
        {"finding", "object", 'O'}, {"bank_conflict", "launch", 'L'}, {"device", "id", 'D'},
        {"global_request", "launch", 'L'}, {"global_request", "object", 'O'}, {"bank_conflict", "object", 'O'},
        {"object", "parent", 'O'}, {"heat_map", "rows_of", 'H'}, {"site", "id", 'S'}, {"launch", "site", 'S'},
        {"site_config", "site", 'S'},
        {"process", "id", 'P'}};
    for (size_t i = 0; i < sizeof m / sizeof *m; i++)
        if (!strcmp(m[i].t, table) && !strcmp(m[i].c, col)) return m[i].k;
    return 0;
}

/* Tables whose id is a plain row number: renumbered by SQLite on insert. */
static int rowid_table(const char *t) {
    static const char *const r[] = {"dropped", "launch_config", "kernel_run", "copy", "kernel", "finding",
                                    "camp_band", "site_config"};
    for (size_t i = 0; i < sizeof r / sizeof *r; i++)
        if (!strcmp(r[i], t)) return 1;
    return 0;
}

static int copy_table(mh_db *db, const char *table, const offsets *off, const char *verb, mh_err *err) {
    char **dst = columns(db, "main", table), **src = columns(db, "src", table);
    int rc = MH_OK;
    if (!dst || !src) {
        rc = mh_err_set(err, MH_ERR_NOMEM, "out of memory");
        goto out;
    }
    if (!src[0]) goto out; /* an older profile without this table */
    size_t cap = 8192;
    char *cols = calloc(1, cap), *sel = calloc(1, cap);
    if (!cols || !sel) {
        free(cols);
        free(sel);
        rc = mh_err_set(err, MH_ERR_NOMEM, "out of memory");
        goto out;
    }
    for (size_t i = 0; dst[i]; i++) {
        const char *c = dst[i];
        if (!strcmp(c, "id") && rowid_table(table)) continue;
        char e[256];
        char k = offset_kind(table, c);
        int64_t by = k == 'L' ? off->L : k == 'O' ? off->O : k == 'H' ? off->H : k == 'D' ? off->D
                   : k == 'P' ? off->P : k == 'S' ? off->S : 0;
        if (!strcmp(c, "process") && strcmp(table, "process") != 0) {
            if (has(src, c))
                snprintf(e, sizeof e, "COALESCE(process, 1) + %lld", (long long)off->P);
            else
                snprintf(e, sizeof e, "%lld", (long long)off->P + 1);
        } else if (!has(src, c)) {
            snprintf(e, sizeof e, "NULL");
        } else if (k) {
            snprintf(e, sizeof e, "\"%s\" + %lld", c, (long long)by);
        } else if (!strcmp(table, "document") && !strcmp(c, "kind")) {
            snprintf(e, sizeof e, "CASE WHEN kind IN (SELECT kind FROM main.document) THEN kind || '@' || %lld"
                     " ELSE kind END", (long long)off->P + 1);
        } else {
            snprintf(e, sizeof e, "\"%s\"", c);
        }
        size_t a = strlen(cols), b = strlen(sel);
        snprintf(cols + a, cap - a, "%s\"%s\"", a ? ", " : "", c);
        snprintf(sel + b, cap - b, "%s%s", b ? ", " : "", e);
    }
    size_t qn = strlen(cols) + strlen(sel) + 256;
    char *q = malloc(qn);
    if (!q) rc = mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    else {
        snprintf(q, qn, "%s INTO main.%s(%s) SELECT %s FROM src.%s", verb, table, cols, sel, table);
        rc = mh_db_exec(db, q, err);
        if (rc) mh_err_wrap(err, "merging table %s", table);
    }
    free(q);
    free(cols);
    free(sel);
out:
    free_list(dst);
    free_list(src);
    return rc;
}

/* Every table in the order that keeps references valid, and how rows join. */
static const struct {
    const char *table, *verb;
} merge_tables[] = {
    {"run", "INSERT OR IGNORE"},        {"device", "INSERT"},          {"site", "INSERT"},
    {"site_config", "INSERT"},          {"launch", "INSERT"},
    {"object", "INSERT"},               {"dropped", "INSERT"},         {"launch_config", "INSERT"},
    {"pcinfo", "INSERT OR IGNORE"},     {"heat_map", "INSERT"},        {"heat_region", "INSERT"},
    {"heat_row", "INSERT"},             {"kernel_run", "INSERT"},      {"copy", "INSERT"},
    {"kernel", "INSERT"},               {"overlap", "INSERT OR IGNORE"}, {"locality", "INSERT"},
    {"locality_curve", "INSERT"},       {"finding", "INSERT"},         {"bank_conflict", "INSERT"},
    {"global_request", "INSERT"},
    {"camp_band", "INSERT"},            {"document", "INSERT OR IGNORE"}, {"process", "INSERT"},
};

static int merge_attached(mh_db *db, int64_t src_version, const char *src_path, mh_db_merge_info *info, mh_err *err) {
    offsets off;
    off.L = q_int(db, "SELECT MAX(id) + 1 FROM main.launch", 0);
    off.O = q_int(db, "SELECT MAX(id) + 1 FROM main.object", 0);
    off.H = q_int(db, "SELECT MAX(id) + 1 FROM main.heat_map", 0);
    int64_t dmax = q_int(db, "SELECT MAX(id) FROM main.device", -1);
    off.D = dmax < 0 ? 0 : (dmax / 10000 + 1) * 10000; /* device ids: 0 traced, 1000 + ordinal timed */
    off.P = q_int(db, "SELECT MAX(id) FROM main.process", 0);
    off.S = q_int(db, "SELECT MAX(id) + 1 FROM main.site", 0);
    int rc = MH_OK;
    int64_t shared = 0;
    for (size_t i = 0; i < sizeof merge_tables / sizeof *merge_tables && !rc; i++)
        rc = !strcmp(merge_tables[i].table, "heat_row") ? mh_db_merge_heat_rows(db, off.H, &shared, err)
                                                        : copy_table(db, merge_tables[i].table, &off, merge_tables[i].verb, err);
    /* a profile of schema 1 or 2, or one with no process row: one process */
    if (!rc && q_int(db, "SELECT COALESCE(MAX(id), 0) FROM main.process", 0) == off.P) {
        char *q = sqlite3_mprintf("INSERT INTO main.process(id, command, source, trace_file) VALUES(%lld,"
                                  " (SELECT command FROM src.run WHERE id = 1), 'profile schema %lld', %Q)",
                                  (long long)off.P + 1, (long long)src_version, src_path);
        rc = q ? mh_db_exec(db, q, err) : mh_err_set(err, MH_ERR_NOMEM, "out of memory");
        sqlite3_free(q);
    }
    if (!rc && info) {
        info->processes = q_int(db, "SELECT COUNT(*) FROM main.process", 0) - off.P;
        info->launches = q_int(db, "SELECT COUNT(*) FROM src.launch", 0);
        info->first_process = off.P + 1;
        info->heat_shared = shared;
    }
    return rc;
}

int mh_db_merge(mh_db *db, const char *src_path, mh_db_merge_info *info, mh_err *err) {
    if (info) memset(info, 0, sizeof *info);
    mh_db *src;
    int rc = mh_db_open(&src, src_path, MH_DB_OWN, err); /* checked by its writer or `merge` */
    if (rc) return rc;
    int64_t v = q_int(src, "PRAGMA user_version", 0);
    int complete = q_int(src, "SELECT value = '1' FROM meta WHERE key = 'complete'", 0) != 0;
    mh_db_close(src);
    if (v > MH_DB_SCHEMA_VERSION)
        return mh_err_set(err, MH_ERR_VERSION, "%s: profile schema version %lld cannot be merged into version %d",
                          src_path, (long long)v, MH_DB_SCHEMA_VERSION);
    char *q = sqlite3_mprintf("ATTACH DATABASE %Q AS src", src_path);
    if (!q) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    rc = mh_db_exec(db, q, err);
    sqlite3_free(q);
    if (rc) return rc;
    rc = mh_db_begin(db, err);
    if (!rc) {
        rc = merge_attached(db, v, src_path, info, err);
        if (!rc) rc = mh_db_commit(db, err);
        else mh_db_rollback(db);
    }
    mh_err tmp;
    mh_db_exec(db, "DETACH DATABASE src", rc ? &tmp : err);
    if (!rc && info) info->complete = complete;
    if (rc) mh_err_wrap(err, "merging %s", src_path);
    return rc;
}
