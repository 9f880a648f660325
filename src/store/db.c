/* db.c -- opening, creating and validating profile databases, and the small
 * statement helpers the rest of src/store uses.
 *
 * A file is a memheat profile when it is SQLite, PRAGMA application_id is
 * MH_DB_APPLICATION_ID and meta.format is MH_DB_FORMAT. Everything else is
 * refused with one line naming what it is instead (empty, not SQLite, another
 * application's database, newer schema, damaged). */
#include "db_internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/grow.h"

/* SQLite's text on one line: a damaged schema's message quotes its SQL,
 * newlines included; SQLite's "*** in database main ***" heading dropped. */
static const char *one_line(char *out, size_t cap, const char *s) {
    const char *head = "*** in database main ***";
    if (!strncmp(s, head, strlen(head))) s += strlen(head);
    size_t n = 0;
    for (; *s && n + 1 < cap; s++)
        if ((unsigned char)*s >= 0x20) out[n++] = *s;
        else if (n && out[n - 1] != ' ') out[n++] = ' ';
    while (n && out[n - 1] == ' ') n--;
    out[n] = '\0';
    return out[0] == ' ' ? out + 1 : n ? out : "?";
}

int mh_db_fail(mh_db *db, mh_err *err, const char *what) {
    int rc = db && db->h ? sqlite3_extended_errcode(db->h) : SQLITE_ERROR;
    char flat[400];
    const char *msg = one_line(flat, sizeof flat, db && db->h ? sqlite3_errmsg(db->h) : "no database");
    int prim = rc & 0xff;
    int sys = db && db->h ? sqlite3_system_errno(db->h) : 0;
    const char *p = db && db->path ? db->path : "?";
    /* a schema that is not memheat's: say what is missing, not SQLite's words */
    static const char *const missing[][2] = {{"no such table: ", "table"}, {"no such column: ", "column"}};
    for (size_t i = 0; i < 2; i++)
        if (!strncmp(msg, missing[i][0], strlen(missing[i][0])))
            return mh_err_set(err, MH_ERR_DB, "%s: not a memheat profile (missing %s %s)", p, missing[i][1],
                              msg + strlen(missing[i][0]));
    switch (prim) {
    case SQLITE_CORRUPT: return mh_err_set(err, MH_ERR_CORRUPT, "%s is damaged (SQLite: %s)", p, sqlite3_errstr(prim));
    case SQLITE_NOTADB: return mh_err_set(err, MH_ERR_DB, "%s: not a memheat profile (not an SQLite database)", p);
    case SQLITE_FULL: return mh_err_set(err, MH_ERR_IO, "write error on %s: %s", p, strerror(ENOSPC));
    case SQLITE_IOERR:
        return mh_err_set(err, MH_ERR_IO, "%s error on %s: %s",
                          rc == SQLITE_IOERR_READ || rc == SQLITE_IOERR_SHORT_READ ? "read" : "write", p,
                          strerror(sys ? sys : EIO));
    case SQLITE_READONLY:
        return mh_err_set(err, MH_ERR_IO, "%s is read-only%s", p, sys == EROFS ? " (a read-only file system)" : "");
    case SQLITE_CANTOPEN: return mh_err_set(err, MH_ERR_IO, "cannot open %s: %s", p, strerror(sys ? sys : EIO));
    case SQLITE_NOMEM: return mh_err_set(err, MH_ERR_NOMEM, "out of memory while %s (%s)", what, p);
    case SQLITE_BUSY:
    case SQLITE_LOCKED: return mh_err_set(err, MH_ERR_IO, "%s is locked by another process", p);
    default: break;
    }
    if (db && db->h && !db->writable) /* a reader: a table or value that is not memheat's */
        return mh_err_set(err, MH_ERR_DB, "%s: not a memheat profile (its tables do not match schema %d; SQLite: %s)",
                          p, MH_DB_SCHEMA_VERSION, msg);
    return mh_err_set(err, MH_ERR_DB, "%s: %s failed (SQLite: %s)", p, what, msg);
}

int mh_db_exec(mh_db *db, const char *sql, mh_err *err) {
    if (sqlite3_exec(db->h, sql, NULL, NULL, NULL) != SQLITE_OK) return mh_db_fail(db, err, "executing SQL");
    return MH_OK;
}

int mh_db_prepare(mh_db *db, sqlite3_stmt **st, const char *sql, mh_err *err) {
    if (sqlite3_prepare_v2(db->h, sql, -1, st, NULL) != SQLITE_OK) {
        *st = NULL;
        return mh_db_fail(db, err, "preparing a statement");
    }
    return MH_OK;
}

int mh_db_step_done(mh_db *db, sqlite3_stmt *st, mh_err *err, const char *what) {
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (rc != SQLITE_DONE) return mh_db_fail(db, err, what);
    return MH_OK;
}

/* One batch of writes. Inside a large transaction (mh_db_batch_begin) a
 * batch is a savepoint: its failure rolls back only itself. */
int mh_db_begin(mh_db *db, mh_err *err) {
    return mh_db_exec(db, db->batch ? "SAVEPOINT mh_put" : "BEGIN IMMEDIATE", err);
}
int mh_db_commit(mh_db *db, mh_err *err) { return mh_db_exec(db, db->batch ? "RELEASE mh_put" : "COMMIT", err); }
void mh_db_rollback(mh_db *db) {
    if (db->batch) sqlite3_exec(db->h, "ROLLBACK TO mh_put; RELEASE mh_put", NULL, NULL, NULL);
    else if (!sqlite3_get_autocommit(db->h)) sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
}

int mh_db_batch_begin(mh_db *db, mh_err *err) {
    if (db->batch) return mh_err_set(err, MH_ERR_INTERNAL, "large transaction already open");
    int rc = mh_db_exec(db, "BEGIN IMMEDIATE", err);
    if (rc == MH_OK) db->batch = 1;
    return rc;
}

int mh_db_batch_commit(mh_db *db, mh_err *err) {
    if (!db->batch) return MH_OK;
    db->batch = 0;
    int rc = mh_db_exec(db, "COMMIT", err);
    if (rc) mh_db_rollback(db);
    return rc;
}

void mh_db_bind_u64(sqlite3_stmt *st, int i, uint64_t v) {
    int64_t s;
    memcpy(&s, &v, sizeof s);
    sqlite3_bind_int64(st, i, s);
}

void mh_db_bind_text(sqlite3_stmt *st, int i, const char *s) {
    if (s) sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
    else sqlite3_bind_null(st, i);
}

void mh_db_bind_real(sqlite3_stmt *st, int i, double v) {
    if (isnan(v) || isinf(v)) sqlite3_bind_null(st, i);
    else sqlite3_bind_double(st, i, v);
}

uint64_t mh_db_col_u64(sqlite3_stmt *st, int i) {
    int64_t s = sqlite3_column_int64(st, i);
    uint64_t v;
    memcpy(&v, &s, sizeof v);
    return v;
}

const char *mh_db_space_name(unsigned space) {
    static const char *const n[] = {"global", "shared", "local", "constant"};
    return space < 4 ? n[space] : "unknown";
}

/* Why sqlite3_open_v2 failed, in the system's words where it has them. */
static const char *open_cause(sqlite3 *h) {
    if (!h) return strerror(ENOMEM);
    int sys = sqlite3_system_errno(h);
    return sys ? strerror(sys) : sqlite3_errstr(sqlite3_errcode(h));
}

static int db_alloc(mh_db **out, const char *path, mh_err *err) {
    mh_db *db = calloc(1, sizeof *db);
    if (!db) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    db->path = strdup(path);
    if (!db->path) {
        free(db);
        return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    }
    *out = db;
    return MH_OK;
}

void mh_db_close(mh_db *db) {
    if (!db) return;
    if (db->h) {
        db->batch = 0; /* an open large transaction is rolled back as a whole */
        mh_db_rollback(db);
        sqlite3_close_v2(db->h);
    }
    free(db->path);
    free(db);
}

const char *mh_db_path(const mh_db *db) { return db->path; }

int mh_db_set_meta(mh_db *db, const char *key, const char *value, mh_err *err) {
    sqlite3_stmt *st;
    int rc = mh_db_prepare(db, &st, "INSERT OR REPLACE INTO meta(key, value) VALUES(?1, ?2)", err);
    if (rc) return rc;
    mh_db_bind_text(st, 1, key);
    mh_db_bind_text(st, 2, value);
    rc = mh_db_step_done(db, st, err, "writing meta");
    sqlite3_finalize(st);
    return rc;
}

int mh_db_create(mh_db **out, const char *path, int overwrite, mh_err *err) {
    return mh_db_create_named(out, path, path, overwrite, err);
}

int mh_db_create_named(mh_db **out, const char *path, const char *name, int overwrite, mh_err *err) {
    *out = NULL;
    struct stat sb;
    if (stat(path, &sb) == 0) {
        if (!overwrite)
            return mh_err_set(err, MH_ERR_ARG, "%s already exists (use -f/--force to replace it)", name);
        if (unlink(path) != 0)
            return mh_err_set(err, MH_ERR_IO, "cannot replace %s: %s", name, strerror(errno));
    }
    char side[4200];
    snprintf(side, sizeof side, "%s-journal", path);
    unlink(side); /* a stale journal of an earlier file must not be replayed into the new one */
    mh_db *db;
    int rc = db_alloc(&db, name, err);
    if (rc) return rc;
    /* NOMUTEX: a connection is only ever used by one thread at a time (the
     * pass calls its consumers on one thread), so SQLite's per-call
     * connection mutex is pure cost (8% of bench_import) */
    if (sqlite3_open_v2(path, &db->h, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL) !=
        SQLITE_OK) {
        rc = mh_err_set(err, MH_ERR_IO, "cannot create %s: %s", name, open_cause(db->h));
        mh_db_close(db);
        return rc;
    }
    db->writable = 1;
    sqlite3_busy_timeout(db->h, 2000);
    char pragmas[128];
    snprintf(pragmas, sizeof pragmas, "PRAGMA application_id = %d; PRAGMA user_version = %d;",
             MH_DB_APPLICATION_ID, MH_DB_SCHEMA_VERSION);
    char ver[16], now[32];
    snprintf(ver, sizeof ver, "%d", MH_DB_SCHEMA_VERSION);
    snprintf(now, sizeof now, "%lld", (long long)time(NULL));
    if ((rc = mh_db_exec(db, "PRAGMA journal_mode = DELETE; PRAGMA foreign_keys = ON;", err)) ||
        (rc = mh_db_begin(db, err)) || (rc = mh_db_exec(db, pragmas, err)) ||
        (rc = mh_db_exec(db, mh_db_schema_sql, err)) ||
        (rc = mh_db_set_meta(db, "format", MH_DB_FORMAT, err)) ||
        (rc = mh_db_set_meta(db, "schema_version", ver, err)) ||
        (rc = mh_db_set_meta(db, "complete", "0", err)) ||
        (rc = mh_db_set_meta(db, "created_unix_s", now, err)) || (rc = mh_db_commit(db, err))) {
        mh_err_wrap(err, "creating profile %s", name);
        mh_db_close(db);
        return rc;
    }
    *out = db;
    return MH_OK;
}

static int pragma_int(mh_db *db, const char *sql, int64_t *v, mh_err *err) {
    sqlite3_stmt *st;
    int rc = mh_db_prepare(db, &st, sql, err);
    if (rc) return rc;
    int s = sqlite3_step(st);
    if (s == SQLITE_ROW) *v = sqlite3_column_int64(st, 0);
    else if (s != SQLITE_DONE) {
        rc = mh_db_fail(db, err, "reading the file header");
    }
    sqlite3_finalize(st);
    return rc;
}

/* PRAGMA integrity_check, not quick_check: an index that lost rows or a NULL
 * in a NOT NULL column passes quick_check, and then only the readers whose
 * queries touch it fail (report did, analyze and heatmap did not). About 6 ms
 * per MB of profile. */
static int integrity_check(mh_db *db, mh_err *err) {
    sqlite3_stmt *st;
    int rc = mh_db_prepare(db, &st, "PRAGMA integrity_check(1)", err);
    if (rc) return rc;
    int s = sqlite3_step(st);
    if (s == SQLITE_ROW) {
        const char *r = (const char *)sqlite3_column_text(st, 0);
        if (!r || strcmp(r, "ok") != 0) /* its report ("Page 40: ...") is SQLite's; the cause in short */
            rc = mh_err_set(err, MH_ERR_CORRUPT, "%s is damaged (SQLite: %s)", db->path, sqlite3_errstr(SQLITE_CORRUPT));
    } else {
        rc = mh_db_fail(db, err, "checking integrity");
    }
    sqlite3_finalize(st);
    return rc;
}

/* Columns (and the global_request table: column NULL) that came within a
 * schema version without a bump (schema.c): a profile written before them
 * lacks them, and every reader probes for them (read.c, heat_share.c,
 * rankread.c), so it reads as before. */
static int optional_column(const char *table, const char *col) {
    static const char *const opt[][2] = {
        {"object", "arg"},         {"object", "arg_type"},     {"object", "arg_name"},    {"object", "parent"},
        {"object", "used_lo"},     {"object", "used_hi"},      {"heat_row", "kinds"},     {"bank_conflict", "banks"},
        {"kernel", "verdict"},     {"bank_conflict", "ideal"}, {"bank_conflict", "extra"}, {"bank_conflict", "kind"},
        {"bank_conflict", "object"}, {"heat_map", "rows_of"},  {"kernel_run", "timed"},   {"global_request", NULL}};
    for (size_t i = 0; i < sizeof opt / sizeof *opt; i++)
        if (!strcmp(opt[i][0], table) && (!opt[i][1] || !strcmp(opt[i][1], col))) return 1;
    return 0;
}

/* Every (table, column) of h's tables, "table\tcolumn" sorted, in *out
 * (n names, one malloc'd block); SQLITE_OK or SQLite's code. */
static int table_columns(sqlite3 *h, char ***out, size_t *n) {
    sqlite3_stmt *st;
    *out = NULL;
    *n = 0;
    int rc = sqlite3_prepare_v2(h,
                                "SELECT m.name || char(9) || p.name FROM sqlite_master m, pragma_table_info(m.name) p"
                                " WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%' ORDER BY 1",
                                -1, &st, NULL);
    if (rc != SQLITE_OK) return rc;
    size_t cap = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *t = (const char *)sqlite3_column_text(st, 0);
        if (*n == cap) {
            char **v = mh_grow(*out, &cap, *n + 1, sizeof *v, 256);
            if (!v) break;
            *out = v;
        }
        (*out)[(*n)++] = strdup(t ? t : "");
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? SQLITE_OK : rc == SQLITE_ROW ? SQLITE_NOMEM : rc;
}

static void free_names(char **v, size_t n) {
    for (size_t i = 0; i < n; i++) free(v[i]);
    free(v);
}

/* The tables and columns of schema `version` (schema.c: the current one;
 * version 3 has no call sites (site, site_config, launch.site), version 2
 * no process table nor process columns either, version 1 no launch_config)
 * are all there; extra ones are allowed. */
static int schema_check(mh_db *db, int64_t version, mh_err *err) {
    sqlite3 *mem = NULL;
    char **want = NULL, **have = NULL;
    size_t nw = 0, nh = 0;
    int rc = MH_OK;
    if (sqlite3_open_v2(":memory:", &mem, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK ||
        sqlite3_exec(mem, mh_db_schema_sql, NULL, NULL, NULL) != SQLITE_OK || table_columns(mem, &want, &nw) != SQLITE_OK)
        rc = mh_err_set(err, MH_ERR_NOMEM, "out of memory checking %s", db->path);
    else if (table_columns(db->h, &have, &nh) != SQLITE_OK)
        rc = mh_db_fail(db, err, "reading its schema");
    for (size_t i = 0, j = 0; i < nw && rc == MH_OK; i++) {
        char *tab = want[i], *col = strchr(tab, '\t');
        *col++ = '\0';
        if ((version < 4 && (!strcmp(tab, "site") || !strcmp(tab, "site_config") ||
                             (!strcmp(tab, "launch") && !strcmp(col, "site")))) ||
            (version < 3 && (!strcmp(tab, "process") || !strcmp(col, "process"))) ||
            (version < 2 && !strcmp(tab, "launch_config")) || optional_column(tab, col))
            continue;
        col[-1] = '\t';
        while (j < nh && strcmp(have[j], tab) < 0) j++;
        if (j < nh && !strcmp(have[j], tab)) continue;
        col[-1] = '\0';
        size_t tl = strlen(tab);
        int table_there = 0; /* some column of it: then the column is what is missing */
        for (size_t k = 0; k < nh && !table_there; k++) table_there = !strncmp(have[k], tab, tl) && have[k][tl] == '\t';
        if (table_there) rc = mh_err_set(err, MH_ERR_DB, "%s: not a memheat profile (missing column %s.%s)", db->path, tab, col);
        else rc = mh_err_set(err, MH_ERR_DB, "%s: not a memheat profile (missing table %s)", db->path, tab);
    }
    free_names(want, nw);
    free_names(have, nh);
    if (mem) sqlite3_close(mem);
    return rc;
}

int mh_db_open(mh_db **out, const char *path, unsigned flags, mh_err *err) {
    *out = NULL;
    struct stat sb;
    if (stat(path, &sb) != 0) return mh_err_set(err, MH_ERR_IO, "cannot open %s: %s", path, strerror(errno));
    if (!S_ISREG(sb.st_mode)) return mh_err_set(err, MH_ERR_IO, "%s is not a regular file", path);
    if (sb.st_size == 0) return mh_err_set(err, MH_ERR_EMPTY, "%s is empty (zero bytes): not a memheat profile", path);
    mh_db *db;
    int rc = db_alloc(&db, path, err);
    if (rc) return rc;
    int oflags = (flags & MH_DB_WRITABLE) ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY;
    /* A writer killed inside a transaction leaves a hot journal; only a
     * read-write connection may roll it back, so a reader that finds one
     * (and may write the file) opens read-write. SQLite rolls back on the
     * first read; nothing else is written. */
    char journal[4200];
    snprintf(journal, sizeof journal, "%s-journal", path);
    if (access(journal, F_OK) == 0 && access(path, W_OK) == 0) oflags = SQLITE_OPEN_READWRITE;
    if (sqlite3_open_v2(path, &db->h, oflags | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) { /* as in mh_db_create */
        rc = mh_err_set(err, MH_ERR_IO, "cannot open %s: %s", path, open_cause(db->h));
        mh_db_close(db);
        return rc;
    }
    db->writable = (flags & MH_DB_WRITABLE) != 0;
    sqlite3_busy_timeout(db->h, 2000);
    int64_t app = 0, uv = 0;
    if ((rc = pragma_int(db, "PRAGMA application_id", &app, err)) ||
        (rc = pragma_int(db, "PRAGMA user_version", &uv, err))) {
        mh_db_close(db);
        return rc;
    }
    if (app != MH_DB_APPLICATION_ID) {
        rc = mh_err_set(err, MH_ERR_DB, "%s: not a memheat profile (an SQLite database of another application)", path);
        mh_db_close(db);
        return rc;
    }
    if (uv > MH_DB_SCHEMA_VERSION) {
        rc = mh_err_set(err, MH_ERR_VERSION,
                        "%s: profile schema version %lld is newer than this memheat reads (%d); upgrade memheat",
                        path, (long long)uv, MH_DB_SCHEMA_VERSION);
        mh_db_close(db);
        return rc;
    }
    if (uv < 1) {
        rc = mh_err_set(err, MH_ERR_DB, "%s: not a memheat profile (schema version %lld)", path, (long long)uv);
        mh_db_close(db);
        return rc;
    }
    if (!(flags & MH_DB_OWN) && (rc = integrity_check(db, err))) {
        mh_db_close(db);
        return rc;
    }
    /* The meta table must be there and say what the pragma said. */
    sqlite3_stmt *st;
    if ((rc = mh_db_prepare(db, &st, "SELECT value FROM meta WHERE key = 'format'", err))) {
        mh_err_set(err, rc == MH_ERR_CORRUPT ? rc : MH_ERR_DB,
                   "%s: not a memheat profile (no meta table)", path);
        rc = err ? err->code : MH_ERR_DB;
        mh_db_close(db);
        return rc;
    }
    int s = sqlite3_step(st);
    if (s == SQLITE_ROW) {
        const char *f = (const char *)sqlite3_column_text(st, 0);
        if (!f || strcmp(f, MH_DB_FORMAT) != 0)
            rc = mh_err_set(err, MH_ERR_DB, "%s: not a memheat profile (meta.format is '%s')", path, f ? f : "");
    } else if (s == SQLITE_DONE) {
        rc = mh_err_set(err, MH_ERR_DB, "%s: not a memheat profile (meta.format missing)", path);
    } else {
        rc = mh_db_fail(db, err, "reading meta");
    }
    sqlite3_finalize(st);
    if (!rc) rc = schema_check(db, uv, err);
    if (rc) {
        mh_db_close(db);
        return rc;
    }
    *out = db;
    return MH_OK;
}

int mh_db_get_meta(mh_db *db, const char *key, char *out, size_t cap, mh_err *err) {
    sqlite3_stmt *st;
    out[0] = '\0';
    int rc = mh_db_prepare(db, &st, "SELECT value FROM meta WHERE key = ?1", err);
    if (rc) return rc;
    mh_db_bind_text(st, 1, key);
    int s = sqlite3_step(st);
    if (s == SQLITE_ROW) {
        const char *v = (const char *)sqlite3_column_text(st, 0);
        snprintf(out, cap, "%s", v ? v : "");
    } else if (s != SQLITE_DONE) {
        rc = mh_db_fail(db, err, "reading meta");
    }
    sqlite3_finalize(st);
    return rc;
}

int mh_db_notice(mh_db *db, char *out, size_t cap) {
    char c[16], t[16];
    out[0] = '\0';
    if (mh_db_get_meta(db, "complete", c, sizeof c, NULL) || mh_db_get_meta(db, "trace_complete", t, sizeof t, NULL))
        return 0;
    if (strcmp(c, "1") != 0)
        snprintf(out, cap, "%s is incomplete: its run or import was interrupted (it holds what was stored before)",
                 db->path);
    else if (!strcmp(t, "0"))
        snprintf(out, cap, "%s was built from an incomplete trace (cut short, no end record or bad records skipped)",
                 db->path);
    return out[0] != '\0';
}

int mh_db_has_column(mh_db *db, const char *schema, const char *table, const char *col) {
    sqlite3_stmt *st;
    int found = 0;
    if (sqlite3_prepare_v2(db->h,
                           schema ? "SELECT 1 FROM pragma_table_info(?1, ?3) WHERE name = ?2"
                                  : "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2",
                           -1, &st, NULL) != SQLITE_OK)
        return 0;
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, col, -1, SQLITE_STATIC);
    if (schema) sqlite3_bind_text(st, 3, schema, -1, SQLITE_STATIC);
    found = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return found;
}

int mh_db_scratch(mh_db *db, mh_err *err) {
    int rc = mh_db_exec(db, "PRAGMA journal_mode = MEMORY; PRAGMA synchronous = OFF;", err);
    if (!rc) db->scratch = 1;
    return rc;
}

int mh_db_finish(mh_db *db, mh_err *err) {
    if (db->scratch) { /* durable from here: the last write syncs the file */
        int rc = mh_db_exec(db, "PRAGMA journal_mode = DELETE; PRAGMA synchronous = FULL;", err);
        if (rc) return rc;
        db->scratch = 0;
    }
    return mh_db_set_meta(db, "complete", "1", err);
}
