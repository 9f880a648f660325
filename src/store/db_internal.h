/* db_internal.h -- what the files of src/store share: the mh_db handle and
 * small helpers around sqlite3 statements. Not a public header. */
#ifndef MEMHEAT_DB_INTERNAL_H
#define MEMHEAT_DB_INTERNAL_H

#include <sqlite3.h>
#include <stdint.h>

#include "store/store.h"

struct mh_db {
    sqlite3 *h;
    char *path;
    int writable;
    int batch;     /* inside mh_db_batch_begin: each put is a savepoint of one large transaction */
    int scratch;   /* mh_db_scratch: journal in memory, no syncs until mh_db_finish */
};

/* The schema of MH_DB_SCHEMA_VERSION, one statement list (schema.c). */
extern const char mh_db_schema_sql[];

/* Maps a SQLite failure to MH_ERR_DB / MH_ERR_CORRUPT with context. */
int mh_db_fail(mh_db *db, mh_err *err, const char *what);
/* Runs SQL without parameters (schema, BEGIN/COMMIT). */
int mh_db_exec(mh_db *db, const char *sql, mh_err *err);
int mh_db_prepare(mh_db *db, sqlite3_stmt **st, const char *sql, mh_err *err);
/* sqlite3_step expecting SQLITE_DONE, then reset + clear bindings. */
int mh_db_step_done(mh_db *db, sqlite3_stmt *st, mh_err *err, const char *what);
int mh_db_begin(mh_db *db, mh_err *err);
int mh_db_commit(mh_db *db, mh_err *err);
void mh_db_rollback(mh_db *db);

/* Binding helpers: unsigned 64-bit values are stored bit-cast to signed. */
void mh_db_bind_u64(sqlite3_stmt *st, int i, uint64_t v);
void mh_db_bind_text(sqlite3_stmt *st, int i, const char *s); /* NULL -> NULL */
void mh_db_bind_real(sqlite3_stmt *st, int i, double v);       /* NaN -> NULL */
uint64_t mh_db_col_u64(sqlite3_stmt *st, int i);

const char *mh_db_space_name(unsigned space);
/* Text as a JSON string (json_t *, jansson): bytes that are not UTF-8 (a
 * command line in another encoding, a damaged cell) become U+FFFD, so that
 * the string can always be written out (read.c). */
struct json_t *mh_db_json_text(const char *s, size_t n);
/* 1 when table (of schema: "main", an attached "src"; NULL: as a query
 * names it, TEMP views first) has column col. Columns that came within a
 * schema version are probed so. */
int mh_db_has_column(mh_db *db, const char *schema, const char *table, const char *col);
/* mh_db_put_launch without its own transaction (caller holds one). */
int mh_db_put_launch_in_tx(mh_db *db, const mh_model_launch *ml, mh_err *err);
/* The model's call sites (resolved), in the caller's transaction (put_sites.c). */
int mh_db_put_sites_in_tx(mh_db *db, const mh_sites *s, mh_err *err);

/* Merging heat maps (heat_share.c): copies the heat rows of the attached
 * profile `src` into main (map ids moved by off), a map whose content main
 * holds already sharing that map's rows (heat_map.rows_of) instead; adds the
 * maps shared to *shared. */
int mh_db_merge_heat_rows(mh_db *db, int64_t off, int64_t *shared, mh_err *err);
/* The map whose heat rows map reads (*owner: itself, or its rows_of) and for
 * a shared map the move of each region's tags (*shift, n entries by region
 * index, malloc'd: take: the caller frees it; NULL for a map of its own). */
int mh_db_heat_rows_source(mh_db *db, int64_t map, int64_t *owner, int64_t **shift, size_t *n, mh_err *err);

#endif
