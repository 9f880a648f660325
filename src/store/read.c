/* read.c -- the profile as reports see it: one JSON object with everything
 * but heat rows (mh_db_read_summary) and a row stream per heat map
 * (mh_db_read_heat).
 *
 * Query results become JSON generically: one object per row, keys = column
 * names, SQL types kept; a column aliased "..._json" holds JSON text and is
 * parsed (the suffix dropped). Addresses and sector tags are 64-bit unsigned,
 * more than a JavaScript number holds exactly, so the queries turn them into
 * hex strings. A merged profile's heat map may share the rows of a map of
 * the same content (heat_map.rows_of): mh_db_read_heat reads them with the
 * tags moved to its own regions (heat_share.c). */
#include "db_internal.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "util/utf8.h"

json_t *mh_db_json_text(const char *s, size_t n) {
    json_t *v = json_stringn(s, n);
    if (v) return v;
    char *o = malloc(3 * n + 1);
    if (!o) return json_null();
    v = json_stringn(o, mh_utf8_repair(s, n, o));
    free(o);
    return v ? v : json_null();
}

static json_t *col_value(sqlite3_stmt *st, int i, int parse) {
    switch (sqlite3_column_type(st, i)) {
    case SQLITE_INTEGER: return json_integer(sqlite3_column_int64(st, i));
    case SQLITE_FLOAT: return json_real(sqlite3_column_double(st, i));
    case SQLITE_TEXT: {
        const char *s = (const char *)sqlite3_column_text(st, i);
        int n = sqlite3_column_bytes(st, i);
        if (parse) {
            json_t *v = json_loadb(s, (size_t)n, JSON_DECODE_ANY, NULL);
            if (v) return v;
        }
        return mh_db_json_text(s, (size_t)n);
    }
    case SQLITE_BLOB: return json_null();
    default: return json_null();
    }
}

/* Rows of sql (no parameters, or one integer ?1 when have_arg) as an array. */
static int query_array(mh_db *db, const char *sql, int have_arg, sqlite3_int64 arg, json_t **out, mh_err *err) {
    sqlite3_stmt *st;
    int rc = mh_db_prepare(db, &st, sql, err);
    if (rc) return rc;
    if (have_arg) sqlite3_bind_int64(st, 1, arg);
    json_t *arr = json_array();
    int ncol = sqlite3_column_count(st);
    int s;
    while ((s = sqlite3_step(st)) == SQLITE_ROW) {
        json_t *o = json_object();
        for (int i = 0; i < ncol; i++) {
            const char *name = sqlite3_column_name(st, i);
            size_t len = strlen(name);
            int parse = len > 5 && strcmp(name + len - 5, "_json") == 0;
            char key[128];
            snprintf(key, sizeof key, "%.*s", (int)(parse ? len - 5 : len), name);
            json_object_set_new(o, key, col_value(st, i, parse));
        }
        json_array_append_new(arr, o);
    }
    if (s != SQLITE_DONE) {
        rc = mh_db_fail(db, err, "reading the profile");
        json_decref(arr);
        arr = NULL;
    }
    sqlite3_finalize(st);
    *out = arr;
    return rc;
}

static int add_array(mh_db *db, json_t *root, const char *key, const char *sql, mh_err *err) {
    json_t *a;
    int rc = query_array(db, sql, 0, 0, &a, err);
    if (!rc) json_object_set_new(root, key, a);
    return rc;
}

static int add_first(mh_db *db, json_t *root, const char *key, const char *sql, mh_err *err) {
    json_t *a;
    int rc = query_array(db, sql, 0, 0, &a, err);
    if (rc) return rc;
    json_t *v = json_array_size(a) ? json_incref(json_array_get(a, 0)) : json_null();
    json_decref(a);
    json_object_set_new(root, key, v);
    return MH_OK;
}

static int read_meta(mh_db *db, json_t *root, mh_err *err) {
    sqlite3_stmt *st;
    int rc = mh_db_prepare(db, &st, "SELECT key, value FROM meta ORDER BY key", err);
    if (rc) return rc;
    json_t *m = json_object();
    int s;
    while ((s = sqlite3_step(st)) == SQLITE_ROW) {
        const char *k = (const char *)sqlite3_column_text(st, 0), *v = (const char *)sqlite3_column_text(st, 1);
        if (k) json_object_set_new(m, k, mh_db_json_text(v ? v : "", v ? strlen(v) : 0));
    }
    if (s != SQLITE_DONE) rc = mh_db_fail(db, err, "reading meta");
    sqlite3_finalize(st);
    json_object_set_new(root, "meta", m);
    return rc;
}

/* Attach each map's regions to it. */
static int read_maps(mh_db *db, json_t *root, mh_err *err) {
    json_t *maps;
    int rc = query_array(db,
                         "SELECT id, launch, space, sector_size, accesses, nrows, max_temp FROM heat_map"
                         " ORDER BY launch, id",
                         0, 0, &maps, err);
    if (rc) return rc;
    size_t i;
    json_t *m;
    json_array_foreach(maps, i, m) {
        json_t *regs;
        rc = query_array(db,
                         "SELECT idx, object, label, printf('0x%x', start) AS start, printf('0x%x', end) AS end,"
                         " printf('0x%x', first_tag) AS first_tag, printf('0x%x', last_tag) AS last_tag,"
                         " first_row, nrows FROM heat_region WHERE map = ?1 ORDER BY idx",
                         1, json_integer_value(json_object_get(m, "id")), &regs, err);
        if (rc) break;
        json_object_set_new(m, "regions", regs);
    }
    if (rc) json_decref(maps);
    else json_object_set_new(root, "heat_maps", maps);
    return rc;
}

/* Locality rows with their curves folded in: curves.entropy[bits], curves.psl[bits]. */
static int read_locality(mh_db *db, json_t *root, mh_err *err) {
    json_t *loc;
    int rc = query_array(db,
                         "SELECT launch, space, accesses, footprint, footprint90, entropy, local_share"
                         " FROM locality ORDER BY launch, space",
                         0, 0, &loc, err);
    if (rc) return rc;
    sqlite3_stmt *st;
    rc = mh_db_prepare(db, &st,
                       "SELECT metric, bits, value FROM locality_curve WHERE launch = ?1 AND space = ?2"
                       " ORDER BY metric, bits",
                       err);
    size_t i;
    json_t *o;
    json_array_foreach(loc, i, o) {
        if (rc) break;
        sqlite3_bind_int64(st, 1, json_integer_value(json_object_get(o, "launch")));
        mh_db_bind_text(st, 2, json_string_value(json_object_get(o, "space")));
        json_t *curves = json_object();
        int s;
        while ((s = sqlite3_step(st)) == SQLITE_ROW) {
            const char *metric = (const char *)sqlite3_column_text(st, 0);
            json_t *c = json_object_get(curves, metric);
            if (!c) {
                c = json_array();
                json_object_set_new(curves, metric, c);
            }
            json_t *pt = json_array();
            json_array_append_new(pt, json_integer(sqlite3_column_int64(st, 1)));
            json_array_append_new(pt, sqlite3_column_type(st, 2) == SQLITE_NULL
                                          ? json_null()
                                          : json_real(sqlite3_column_double(st, 2)));
            json_array_append_new(c, pt);
        }
        if (s != SQLITE_DONE) rc = mh_db_fail(db, err, "reading locality curves");
        sqlite3_reset(st);
        json_object_set_new(o, "curves", curves);
    }
    sqlite3_finalize(st);
    if (rc) json_decref(loc);
    else json_object_set_new(root, "locality", loc);
    return rc;
}

/* Schema 3: the processes, and each row of root[key] (objects with an "id",
 * from table) tagged with its "process". An older profile has neither. */
static int add_processes(mh_db *db, json_t *root, mh_err *err) {
    sqlite3_stmt *probe = NULL;
    int have = sqlite3_prepare_v2(db->h, "SELECT 1 FROM process LIMIT 0", -1, &probe, NULL) == SQLITE_OK;
    sqlite3_finalize(probe);
    if (!have) return MH_OK;
    int rc = add_array(db, root, "processes",
                       "SELECT p.id, pid, ppid, host, command, rank, local_rank, world_size, ompi_rank, pmi_rank,"
                       " slurm_procid, devices, trace_file, timing_file,"
                       " (SELECT COUNT(*) FROM launch l WHERE l.process = p.id) AS launches_traced,"
                       " (SELECT SUM(launches) FROM launch_config c WHERE c.process = p.id) AS launches_run"
                       " FROM process p ORDER BY p.id",
                       err);
    static const char *const keys[][2] = {{"launches", "launch"}, {"kernels", "kernel"}};
    for (size_t k = 0; k < 2 && !rc; k++) {
        json_t *arr = json_object_get(root, keys[k][0]);
        char sql[96];
        snprintf(sql, sizeof sql, "SELECT process FROM %s WHERE id = ?1", keys[k][1]);
        sqlite3_stmt *st;
        if ((rc = mh_db_prepare(db, &st, sql, err))) break;
        size_t i;
        json_t *o;
        json_array_foreach(arr, i, o) {
            sqlite3_bind_int64(st, 1, json_integer_value(json_object_get(o, "id")));
            if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
                json_object_set_new(o, "process", json_integer(sqlite3_column_int64(st, 0)));
            sqlite3_reset(st);
        }
        sqlite3_finalize(st);
    }
    return rc;
}

/* Whether a table has a column (kernel.verdict came within schema version 3). */
static int has_column(mh_db *db, const char *table, const char *col) { return mh_db_has_column(db, NULL, table, col); }

/* The kernel table for reports; VERDICT: the verdict column, or NULL in a
 * profile written before it. */
#define KERNELS_SQL(VERDICT)                                                                                        \
    "SELECT id, device, name, count, total_ns, min_ns, median_ns, max_ns, with_counters,"                          \
    " dram_bytes, bandwidth_Bps, pct_peak, pct_measured_peak, sectors_per_request,"                                \
    " intensity, bound, " VERDICT " AS verdict_json, occupancy_pct, warps_per_sm, ld_requests, st_requests,"       \
    " (SELECT count(*) FROM finding f JOIN launch l ON f.launch = l.id"                                            \
    "   WHERE l.name = kernel.name OR l.display_name = kernel.name) AS findings"                                    \
    " FROM kernel ORDER BY total_ns DESC"


/* The bank table for reports; BANKS: the per-bank column, or NULL in a
 * profile written before it. */
#define BANKS_SQL(BANKS, IDEAL, OBJ)                                                                                     \
    "SELECT b.launch, printf('0x%x', b.pc) AS pc, b.degree, b.max_degree, b.accesses, " BANKS " AS banks_json,"     \
    " " IDEAL ", " OBJ " AS object, p.file, p.line FROM bank_conflict b LEFT JOIN pcinfo p ON p.pc = b.pc"           \
    " ORDER BY b.launch, b.degree DESC"
/* its ideal and extra wavefronts and kind (within schema 3; NULL before) */
#define BANKS_IDEAL "b.ideal, b.extra, b.kind"
#define BANKS_NO_IDEAL "NULL AS ideal, NULL AS extra, NULL AS kind"

/* Per kernel configuration (name, device, grid, block, dynamic shared
 * memory, process), what the estimated savings (src/report/fixes.c) need:
 * launches, those timed clean and their time, DRAM bytes of the launches
 * with counters. Clean: untraced (NULL), borrowed from untraced launches or
 * replayed; any other mark (instrumented: timed while traced) is left out.
 * TIMED: the kernel_run.timed column or NULL (a profile before it: every
 * time taken as clean). */
#define CLEAN(TIMED) "(" TIMED " IS NULL OR " TIMED " IN ('borrowed', 'replayed'))"
#define CONFIGS_SQL(TIMED)                                                                                           \
    "SELECT name, device, json_array(grid_x, grid_y, grid_z) AS grid_json,"                                         \
    " json_array(block_x, block_y, block_z) AS block_json, dyn_smem, static_smem, regs, process,"                  \
    " count(*) AS launches,"                                                                                        \
    " sum(" CLEAN(TIMED) ") AS clean,"                                                                              \
    " sum(CASE WHEN " CLEAN(TIMED) " THEN end_ns - start_ns END) AS clean_ns,"                                     \
    " sum(" TIMED " = 'replayed') AS replayed, sum(" TIMED " = 'borrowed') AS borrowed,"                          \
    " sum(has_counters) AS with_counters,"                                                                          \
    " sum(CASE WHEN has_counters THEN dram_read_bytes + dram_write_bytes END) AS dram_bytes,"                      \
    " sum(CASE WHEN has_counters AND " CLEAN(TIMED) " THEN end_ns - start_ns END) AS counted_ns,"                 \
    " sum(has_counters AND (flops_sp IS NOT NULL OR flops_dp IS NOT NULL)) AS with_flops,"                          \
    " sum(CASE WHEN has_counters THEN flops_sp END) AS flops_sp, sum(CASE WHEN has_counters THEN flops_dp END)"      \
    " AS flops_dp,"                                                                                                 \
    " min(start_ns) AS first_ns"                                                                                    \
    " FROM kernel_run GROUP BY name, device, grid_x, grid_y, grid_z, block_x, block_y, block_z, dyn_smem, process" \
    " ORDER BY first_ns"

/* Per (traced launch, object, kind) in global memory: warp requests, sectors
 * and 128-byte lines touched against those their bytes need (fixes.c). */
#define OBJECT_WORK_SQL                                                                                              \
    "SELECT launch, object, kind, sum(requests) AS requests, sum(sectors) AS sectors,"                               \
    " sum(ideal_sectors) AS ideal_sectors, sum(lines) AS lines, sum(ideal_lines) AS ideal_lines"                   \
    " FROM global_request GROUP BY launch, object, kind ORDER BY launch, object, kind"

/* Per traced launch, the work the estimated savings weigh a finding against:
 * warp requests and sectors in global memory (with their ideal sectors),
 * warp requests and wavefronts in shared memory (with their ideal ones). */
#define WORK_SQL                                                                                                     \
    "SELECT l.id AS launch,"                                                                                        \
    " (SELECT sum(requests) FROM global_request g WHERE g.launch = l.id) AS g_requests,"                            \
    " (SELECT sum(sectors) FROM global_request g WHERE g.launch = l.id) AS g_sectors,"                              \
    " (SELECT sum(ideal_sectors) FROM global_request g WHERE g.launch = l.id) AS g_ideal,"                          \
    " (SELECT sum(sectors) FROM global_request g WHERE g.launch = l.id AND g.kind = 'store') AS g_store_sectors,"   \
    " (SELECT sum(accesses) FROM bank_conflict b WHERE b.launch = l.id) AS s_requests,"                             \
    " (SELECT sum(degree * accesses) FROM bank_conflict b WHERE b.launch = l.id) AS s_wavefronts,"                  \
    " (SELECT sum(ideal) FROM bank_conflict b WHERE b.launch = l.id) AS s_ideal"                                    \
    " FROM launch l ORDER BY l.id"

/* 1 when the object table has the kernel-argument columns (schema.c). */
static int have_arg_columns(mh_db *db) {
    return has_column(db, "object", "arg");
}

int mh_db_read_summary(mh_db *db, json_t **out, mh_err *err) {
    json_t *root = json_object();
    int rc;
    /* a kernel argument's view: its position, type, allocation and bytes used ("arg" null otherwise) */
    const char *objects_sql =
        have_arg_columns(db)
            ? "SELECT id, launch, printf('0x%x', base) AS base, size, space, label, live_at_end,"
              " CASE WHEN arg IS NULL THEN NULL ELSE json_object('index', arg, 'type', arg_type, 'name', arg_name,"
              " 'allocation', parent, 'range', CASE WHEN used_hi IS NULL THEN NULL"
              " ELSE json_array(used_lo, used_hi - 1) END) END AS arg_json"
              " FROM object ORDER BY id"
            : "SELECT id, launch, printf('0x%x', base) AS base, size, space, label, live_at_end"
              " FROM object ORDER BY id";
    /* schema 4: each traced launch's call site (null before) */
    char launches_sql[1024];
    snprintf(launches_sql, sizeof launches_sql,
             "SELECT id, name, display_name, json_array(grid_x, grid_y, grid_z) AS grid_json,"
             " json_array(block_x, block_y, block_z) AS block_json, dyn_smem, static_smem, regs,"
             " printf('0x%%x', stream) AS stream, n_blocks, n_sampled, sampled AS sampled_json,"
             " threads_per_block, warps_per_block, ended, recorded, dropped, gpu_ns, %s AS site"
             " FROM launch ORDER BY id",
             has_column(db, "launch", "site") ? "site" : "NULL");
    json_object_set_new(root, "schema_version", json_integer(MH_DB_SCHEMA_VERSION));
    int timed = has_column(db, "kernel_run", "timed");
    int bank_banks = has_column(db, "bank_conflict", "banks"), bank_ideal = has_column(db, "bank_conflict", "ideal");
    int bank_obj = bank_banks && bank_ideal && has_column(db, "bank_conflict", "object"); /* the three came in turn */
    if ((rc = read_meta(db, root, err)) ||
        (rc = add_first(db, root, "run",
                        "SELECT command, argv AS argv_json, backend, producer, note, memheat_version,"
                        " start_unix_ns, end_unix_ns, exit_status, trace_path FROM run WHERE id = 1",
                        err)) ||
        (rc = add_array(db, root, "devices", "SELECT * FROM device ORDER BY id", err)) ||
        (rc = add_array(db, root, "launches", launches_sql, err)) ||
        (rc = add_array(db, root, "objects", objects_sql, err)) ||
        (rc = read_maps(db, root, err)) ||
        (rc = add_array(db, root, "kernels",
                        has_column(db, "kernel", "verdict") ? KERNELS_SQL("verdict") : KERNELS_SQL("NULL"), err)) ||
        (rc = add_array(db, root, "kernel_runs",
                        timed ? "SELECT name, device, stream, start_ns - (SELECT min(s) FROM (SELECT min(start_ns) AS s"
                                " FROM kernel_run UNION ALL SELECT min(start_ns) FROM copy)) AS start_ns,"
                                " end_ns - start_ns AS dur_ns, timed FROM kernel_run ORDER BY start_ns"
                              : "SELECT name, device, stream, start_ns - (SELECT min(s) FROM (SELECT min(start_ns) AS s"
                                " FROM kernel_run UNION ALL SELECT min(start_ns) FROM copy)) AS start_ns,"
                                " end_ns - start_ns AS dur_ns, NULL AS timed FROM kernel_run ORDER BY start_ns",
                        err)) ||
        (rc = add_array(db, root, "kernel_configs", timed ? CONFIGS_SQL("timed") : CONFIGS_SQL("NULL"), err)) ||
        (rc = add_array(db, root, "copies",
                        "SELECT kind, device, stream, start_ns - (SELECT min(s) FROM (SELECT min(start_ns) AS s"
                        " FROM kernel_run UNION ALL SELECT min(start_ns) FROM copy)) AS start_ns,"
                        " end_ns - start_ns AS dur_ns, bytes FROM copy ORDER BY start_ns",
                        err)) ||
        (rc = add_first(db, root, "overlap", "SELECT * FROM overlap WHERE id = 1", err)) ||
        (rc = add_array(db, root, "findings",
                        "SELECT id, launch, space, object, object_label, kind, cost, sectors,"
                        " printf('0x%x', example_tag) AS example_tag, temps AS temps_json, stride,"
                        " printf('0x%x', pc) AS pc, file, line, evidence, advice FROM finding"
                        " ORDER BY cost DESC, id",
                        err)) ||
        (rc = read_locality(db, root, err)) ||
        (rc = add_array(db, root, "bank_conflicts",
                        bank_obj ? BANKS_SQL("b.banks", BANKS_IDEAL, "b.object")
                        : bank_banks ? (bank_ideal ? BANKS_SQL("b.banks", BANKS_IDEAL, "NULL")
                                                   : BANKS_SQL("b.banks", BANKS_NO_IDEAL, "NULL"))
                        : bank_ideal ? BANKS_SQL("NULL", BANKS_IDEAL, "NULL")
                                     : BANKS_SQL("NULL", BANKS_NO_IDEAL, "NULL"),
                        err)) ||
        (rc = has_column(db, "global_request", "sectors") && bank_ideal
                  ? add_array(db, root, "launch_work", WORK_SQL, err)
                  : MH_OK) ||
        (rc = has_column(db, "global_request", "lines") ? add_array(db, root, "object_work", OBJECT_WORK_SQL, err)
                                                        : MH_OK) ||
        (rc = add_array(db, root, "camp",
                        "SELECT kernel, device, warps AS warps_json, best_ms AS best_ms_json,"
                        " worst_ms AS worst_ms_json, kernel_ms AS kernel_ms_json, measured_warps,"
                        " measured_ms, degree, band_closed FROM camp_band ORDER BY id",
                        err)) ||
        (rc = add_array(db, root, "dropped", "SELECT launch, count, reason FROM dropped ORDER BY id", err))) {
        json_decref(root);
        *out = NULL;
        return rc;
    }
    /* Launches per kernel name, traced and run (schema 2; a version-1 profile has none). */
    sqlite3_stmt *probe = NULL;
    int have = sqlite3_prepare_v2(db->h, "SELECT 1 FROM launch_config LIMIT 0", -1, &probe, NULL) == SQLITE_OK;
    sqlite3_finalize(probe);
    if (have && (rc = add_array(db, root, "launch_counts",
                                "SELECT name, SUM(launches) AS launches, SUM(traced) AS traced,"
                                " COUNT(*) AS configs FROM launch_config GROUP BY name ORDER BY name",
                                err))) {
        json_decref(root);
        *out = NULL;
        return rc;
    }
    /* Call sites and every launch per (site, configuration) (schema 4). */
    if (has_column(db, "site", "label") &&
        ((rc = add_array(db, root, "sites",
                         "SELECT id, label, file, line, function, code, scope, nvtx, kind, forward, launches,"
                         " frames AS frames_json, process FROM site ORDER BY id",
                         err)) ||
         (rc = add_array(db, root, "site_configs",
                         "SELECT site, name, json_array(grid_x, grid_y, grid_z) AS grid_json,"
                         " json_array(block_x, block_y, block_z) AS block_json, dyn_smem, launches, process"
                         " FROM site_config ORDER BY id",
                         err)))) {
        json_decref(root);
        *out = NULL;
        return rc;
    }
    if ((rc = add_processes(db, root, err))) {
        json_decref(root);
        *out = NULL;
        return rc;
    }
    *out = root;
    return MH_OK;
}

int mh_db_read_heat(mh_db *db, int64_t map_id, mh_db_heat_fn fn, void *ctx, mh_err *err) {
    sqlite3_stmt *st;
    /* kinds came within schema 3: a profile without the column reads 0 (unknown) */
    int rc = mh_db_prepare(db, &st,
                           has_column(db, "heat_row", "kinds")
                               ? "SELECT tag, region, w0, w1, w2, w3, w4, w5, w6, w7, sector, kinds FROM heat_row"
                                 " WHERE map = ?1 ORDER BY row"
                               : "SELECT tag, region, w0, w1, w2, w3, w4, w5, w6, w7, sector, 0 FROM heat_row"
                                 " WHERE map = ?1 ORDER BY row",
                           err);
    if (rc) return rc;
    int64_t owner, *shift; /* a merged profile's map may share the rows of another (heat_share.c) */
    size_t nshift;
    if ((rc = mh_db_heat_rows_source(db, map_id, &owner, &shift, &nshift, err))) {
        sqlite3_finalize(st);
        return rc;
    }
    sqlite3_bind_int64(st, 1, owner);
    int s;
    while ((s = sqlite3_step(st)) == SQLITE_ROW) {
        mh_db_heat_row r;
        memset(&r, 0, sizeof r); /* padding too: callers may checksum rows */
        r.tag = mh_db_col_u64(st, 0);
        r.region = sqlite3_column_type(st, 1) == SQLITE_NULL ? -1 : sqlite3_column_int(st, 1);
        for (int k = 0; k < MH_HEAT_WORDS; k++) r.word[k] = (uint32_t)sqlite3_column_int64(st, 2 + k);
        r.sector = (uint32_t)sqlite3_column_int64(st, 10);
        r.kinds = (uint32_t)sqlite3_column_int64(st, 11) & 0xffffffu;
        if (r.region >= 0 && (size_t)r.region < nshift) r.tag += (uint64_t)shift[r.region];
        int u = fn(ctx, &r);
        if (u) {
            sqlite3_finalize(st);
            free(shift);
            return u;
        }
    }
    if (s != SQLITE_DONE) rc = mh_db_fail(db, err, "reading heat rows");
    sqlite3_finalize(st);
    free(shift);
    return rc;
}
