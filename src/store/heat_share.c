/* heat_share.c -- heat maps kept once when profiles are merged.
 *
 * The ranks of a data-parallel job run the same launches on the same data
 * shapes, so most of their heat maps are the same map, only placed at other
 * addresses. A merge (process.c) copies a source map's rows only when the
 * destination holds no map of the same content; otherwise the new map keeps
 * its own heat_map and heat_region rows and names the map whose rows it
 * shares in heat_map.rows_of. "The same content": row for row the same row
 * number, region index, word and sector temperatures and kinds, and the same
 * sector tag relative to its region's first tag (a row without a region: the
 * same tag). A shared map's rows are the owner's rows with each tag moved by
 * its region's first tag, this map's minus the owner's (mh_db_heat_shift;
 * mh_db_read_heat applies it), so nothing is lost.
 *
 * Candidates are found by a 64-bit digest of the content kept in a TEMP
 * table of the connection (mh_heat_digest: digest, rows, map), so it spans
 * every merge made on one connection and its memory stays SQLite's page
 * cache; each candidate is compared row by row before it is shared. */
#include <stdlib.h>
#include <string.h>

#include "db_internal.h"
#include "util/grow.h"

/* First tags of a map's regions, by region index. */
typedef struct regions {
    uint64_t *first;
    size_t n;
} regions;

static int load_regions(mh_db *db, const char *schema, int64_t map, regions *r, mh_err *err) {
    memset(r, 0, sizeof *r);
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT idx, first_tag FROM %s.heat_region WHERE map = ?1 ORDER BY idx", schema);
    sqlite3_stmt *st;
    int rc = mh_db_prepare(db, &st, sql, err);
    if (rc) return rc;
    sqlite3_bind_int64(st, 1, map);
    size_t cap = 0;
    int s;
    while ((s = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t idx = sqlite3_column_int64(st, 0);
        if (idx < 0 || idx > (1 << 24)) continue; /* not a region a row can name: such rows keep their tags */
        if ((size_t)idx >= r->n) {
            uint64_t *v = mh_grow(r->first, &cap, (size_t)idx + 1, sizeof *v, 16);
            if (!v) {
                sqlite3_finalize(st);
                free(r->first);
                return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
            }
            r->first = v;
            memset(v + r->n, 0, ((size_t)idx + 1 - r->n) * sizeof *v);
            r->n = (size_t)idx + 1;
        }
        r->first[idx] = mh_db_col_u64(st, 1);
    }
    if (s != SQLITE_DONE) rc = mh_db_fail(db, err, "reading heat regions");
    sqlite3_finalize(st);
    if (rc) free(r->first);
    return rc;
}

/* A row's tag relative to its region's first tag (a row without a known
 * region: its tag). */
static uint64_t rel_tag(const regions *r, sqlite3_stmt *st) {
    uint64_t tag = mh_db_col_u64(st, 1);
    if (sqlite3_column_type(st, 2) != SQLITE_INTEGER) return tag;
    int64_t g = sqlite3_column_int64(st, 2);
    return g >= 0 && (size_t)g < r->n ? tag - r->first[g] : tag;
}

/* Columns read of a map's rows: row, tag, region, w0..w7, sector, kinds. */
#define ROW_COLS 13
static int rows_stmt(mh_db *db, const char *schema, int have_kinds, int64_t map, sqlite3_stmt **st, mh_err *err) {
    char sql[256];
    snprintf(sql, sizeof sql,
             "SELECT row, tag, region, w0, w1, w2, w3, w4, w5, w6, w7, sector, %s FROM %s.heat_row"
             " WHERE map = ?1 ORDER BY row",
             have_kinds ? "kinds" : "NULL", schema);
    int rc = mh_db_prepare(db, st, sql, err);
    if (!rc) sqlite3_bind_int64(*st, 1, map);
    return rc;
}

/* FNV-1a 64 over the content (rel_tag in place of the tag). */
static int digest_of(mh_db *db, int have_kinds, int64_t map, const regions *r, uint64_t *out, int64_t *nrows,
                     mh_err *err) {
    sqlite3_stmt *st;
    int rc = rows_stmt(db, "src", have_kinds, map, &st, err);
    if (rc) return rc;
    uint64_t h = 1469598103934665603ull;
    int64_t n = 0;
    int s;
    while ((s = sqlite3_step(st)) == SQLITE_ROW) {
        for (int c = 0; c < ROW_COLS; c++) {
            uint64_t v = c == 1 ? rel_tag(r, st) : (uint64_t)sqlite3_column_int64(st, c);
            v ^= (uint64_t)sqlite3_column_type(st, c) << 61; /* NULL apart from 0 */
            for (int b = 0; b < 8; b++) h = (h ^ ((v >> (8 * b)) & 0xff)) * 1099511628211ull;
        }
        n++;
    }
    if (s != SQLITE_DONE) rc = mh_db_fail(db, err, "reading heat rows");
    sqlite3_finalize(st);
    *out = h;
    *nrows = n;
    return rc;
}

/* 1 when main's map `own` (regions ro) and src's map `map` (regions rs) have
 * the same content, 0 when not, < 0 (an error code, negated) on failure. */
static int same_content(mh_db *db, int have_kinds, int64_t own, const regions *ro, int64_t map, const regions *rs,
                        mh_err *err) {
    sqlite3_stmt *a, *b;
    int rc = rows_stmt(db, "main", 1, own, &a, err);
    if (rc) return -rc;
    if ((rc = rows_stmt(db, "src", have_kinds, map, &b, err))) {
        sqlite3_finalize(a);
        return -rc;
    }
    int same = 1, sa, sb;
    while (same) {
        sa = sqlite3_step(a);
        sb = sqlite3_step(b);
        if (sa != SQLITE_ROW || sb != SQLITE_ROW) {
            same = sa == SQLITE_DONE && sb == SQLITE_DONE;
            if ((sa != SQLITE_ROW && sa != SQLITE_DONE) || (sb != SQLITE_ROW && sb != SQLITE_DONE))
                rc = mh_db_fail(db, err, "comparing heat rows");
            break;
        }
        for (int c = 0; c < ROW_COLS && same; c++) {
            if (sqlite3_column_type(a, c) != sqlite3_column_type(b, c)) same = 0;
            else if (c == 1) same = rel_tag(ro, a) == rel_tag(rs, b);
            else same = sqlite3_column_int64(a, c) == sqlite3_column_int64(b, c);
        }
    }
    sqlite3_finalize(a);
    sqlite3_finalize(b);
    return rc ? -rc : same;
}

static int copy_rows(mh_db *db, int have_kinds, int64_t map, int64_t off, mh_err *err) {
    char sql[400];
    snprintf(sql, sizeof sql,
             "INSERT INTO main.heat_row(map, row, tag, region, w0, w1, w2, w3, w4, w5, w6, w7, sector, kinds)"
             " SELECT map + %lld, row, tag, region, w0, w1, w2, w3, w4, w5, w6, w7, sector, %s FROM src.heat_row"
             " WHERE map = ?1",
             (long long)off, have_kinds ? "kinds" : "NULL");
    sqlite3_stmt *st;
    int rc = mh_db_prepare(db, &st, sql, err);
    if (rc) return rc;
    sqlite3_bind_int64(st, 1, map);
    rc = mh_db_step_done(db, st, err, "copying heat rows");
    sqlite3_finalize(st);
    return rc;
}

/* The map whose rows main's map `id` reads: its rows_of, else itself. */
static int64_t owner_of(mh_db *db, int64_t id) {
    sqlite3_stmt *st;
    int64_t o = id;
    if (sqlite3_prepare_v2(db->h, "SELECT rows_of FROM main.heat_map WHERE id = ?1", -1, &st, NULL) != SQLITE_OK)
        return id;
    sqlite3_bind_int64(st, 1, id);
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_INTEGER) o = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return o;
}

/* One source map: shared with a map of main of the same content, else its
 * rows copied and its digest noted. */
static int merge_map(mh_db *db, int have_kinds, int64_t map, int64_t off, int64_t *shared, mh_err *err) {
    regions rs;
    int rc = load_regions(db, "src", map, &rs, err);
    if (rc) return rc;
    uint64_t dg;
    int64_t n;
    if ((rc = digest_of(db, have_kinds, map, &rs, &dg, &n, err))) goto out;
    sqlite3_stmt *cand;
    if ((rc = mh_db_prepare(db, &cand, "SELECT map FROM temp.mh_heat_digest WHERE digest = ?1 AND nrows = ?2", err)))
        goto out;
    sqlite3_bind_int64(cand, 1, (sqlite3_int64)dg);
    sqlite3_bind_int64(cand, 2, n);
    int64_t owner = -1;
    int s;
    while (owner < 0 && !rc && (s = sqlite3_step(cand)) == SQLITE_ROW) {
        int64_t c = sqlite3_column_int64(cand, 0);
        regions ro;
        if ((rc = load_regions(db, "main", c, &ro, err))) break;
        int same = same_content(db, have_kinds, c, &ro, map, &rs, err);
        free(ro.first);
        if (same < 0) rc = -same;
        else if (same) owner = c;
    }
    sqlite3_finalize(cand);
    if (rc) goto out;
    char sql[160];
    if (owner >= 0) {
        snprintf(sql, sizeof sql, "UPDATE main.heat_map SET rows_of = %lld WHERE id = %lld", (long long)owner,
                 (long long)(map + off));
        rc = mh_db_exec(db, sql, err);
        (*shared)++;
    } else if (!(rc = copy_rows(db, have_kinds, map, off, err))) {
        snprintf(sql, sizeof sql, "INSERT INTO temp.mh_heat_digest(digest, nrows, map) VALUES(%lld, %lld, %lld)",
                 (long long)dg, (long long)n, (long long)(map + off));
        rc = mh_db_exec(db, sql, err);
    }
out:
    free(rs.first);
    return rc;
}

int mh_db_merge_heat_rows(mh_db *db, int64_t off, int64_t *shared, mh_err *err) {
    int rc = mh_db_exec(db,
                        "CREATE TEMP TABLE IF NOT EXISTS mh_heat_digest(digest INTEGER, nrows INTEGER, map INTEGER);"
                        "CREATE INDEX IF NOT EXISTS temp.mh_heat_digest_d ON mh_heat_digest(digest);",
                        err);
    if (rc) return rc;
    if (!mh_db_has_column(db, "src", "heat_map", "id")) return MH_OK; /* no heat maps in the source */
    int have_kinds = mh_db_has_column(db, "src", "heat_row", "kinds");
    int have_rows_of = mh_db_has_column(db, "src", "heat_map", "rows_of");
    sqlite3_stmt *st;
    rc = mh_db_prepare(db, &st,
                       /* maps with rows of their own first: an owner comes before the maps sharing it */
                       have_rows_of ? "SELECT id, rows_of FROM src.heat_map ORDER BY rows_of IS NOT NULL, id"
                                    : "SELECT id, NULL FROM src.heat_map ORDER BY id",
                       err);
    if (rc) return rc;
    int s;
    while (!rc && (s = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t map = sqlite3_column_int64(st, 0);
        if (sqlite3_column_type(st, 1) == SQLITE_INTEGER) {
            /* shared in the source already: its owner is merged (and maybe shared in turn) */
            char sql[160];
            snprintf(sql, sizeof sql, "UPDATE main.heat_map SET rows_of = %lld WHERE id = %lld",
                     (long long)owner_of(db, sqlite3_column_int64(st, 1) + off), (long long)(map + off));
            rc = mh_db_exec(db, sql, err);
            (*shared)++;
        } else {
            rc = merge_map(db, have_kinds, map, off, shared, err);
        }
    }
    if (!rc && s != SQLITE_DONE && s != SQLITE_ROW) rc = mh_db_fail(db, err, "reading heat maps");
    sqlite3_finalize(st);
    return rc;
}

int mh_db_heat_rows_source(mh_db *db, int64_t map, int64_t *owner, int64_t **shift, size_t *n, mh_err *err) {
    *owner = map;
    *shift = NULL;
    *n = 0;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db->h, "SELECT rows_of FROM main.heat_map WHERE id = ?1", -1, &st, NULL) != SQLITE_OK)
        return MH_OK; /* a profile written before rows_of: every map has its rows */
    sqlite3_bind_int64(st, 1, map);
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_INTEGER)
        *owner = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    if (*owner == map) return MH_OK;
    regions ro, rm;
    int rc = load_regions(db, "main", *owner, &ro, err);
    if (rc) return rc;
    if ((rc = load_regions(db, "main", map, &rm, err))) {
        free(ro.first);
        return rc;
    }
    size_t k = ro.n > rm.n ? ro.n : rm.n;
    int64_t *v = calloc(k ? k : 1, sizeof *v);
    if (!v) rc = mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    for (size_t i = 0; v && i < k; i++)
        v[i] = (int64_t)((i < rm.n ? rm.first[i] : 0) - (i < ro.n ? ro.first[i] : 0));
    free(ro.first);
    free(rm.first);
    *shift = v;
    *n = v ? k : 0;
    return rc;
}
