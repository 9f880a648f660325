/* put.c -- writing the traced side of a profile: run, trace header and device,
 * launches, data objects, dropped counts, pc attribution, heat maps and
 * verbatim JSON documents. Every value goes through a bound parameter; every
 * call is one transaction (a batch), so an interruption loses at most the
 * batch in flight. */
#include "db_internal.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* Runs fn inside BEGIN/COMMIT; rolls back on failure. */
#define MH_DB_TX(db, err, body)                    \
    do {                                           \
        int tx_rc_ = mh_db_begin((db), (err));     \
        if (tx_rc_) return tx_rc_;                 \
        tx_rc_ = (body);                           \
        if (tx_rc_ == MH_OK) tx_rc_ = mh_db_commit((db), (err)); \
        if (tx_rc_) mh_db_rollback(db);            \
        return tx_rc_;                             \
    } while (0)

static int put_run_tx(mh_db *db, const mh_db_run_info *ri, mh_err *err) {
    /* command line: argv joined by spaces for display, and exactly as a JSON array */
    json_t *arr = json_array();
    size_t len = 1;
    for (size_t i = 0; ri->argv && ri->argv[i]; i++) {
        json_array_append_new(arr, mh_db_json_text(ri->argv[i], strlen(ri->argv[i]))); /* any bytes */
        len += strlen(ri->argv[i]) + 1;
    }
    char *cmd = calloc(1, len);
    char *argv_json = json_dumps(arr, JSON_COMPACT);
    json_decref(arr);
    if (!cmd || !argv_json) {
        free(cmd);
        free(argv_json);
        return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    }
    for (size_t i = 0; ri->argv && ri->argv[i]; i++) {
        if (i) strcat(cmd, " ");
        strcat(cmd, ri->argv[i]);
    }
    sqlite3_stmt *st;
    int rc = mh_db_prepare(db, &st,
                           "INSERT INTO run(id, command, argv, backend, memheat_version, start_unix_ns,"
                           " end_unix_ns, exit_status, trace_path) VALUES(1, ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"
                           " ON CONFLICT(id) DO UPDATE SET command = coalesce(excluded.command, command),"
                           " argv = excluded.argv, backend = excluded.backend,"
                           " memheat_version = excluded.memheat_version, start_unix_ns = excluded.start_unix_ns,"
                           " end_unix_ns = excluded.end_unix_ns, exit_status = excluded.exit_status,"
                           " trace_path = excluded.trace_path",
                           err);
    if (rc == MH_OK) {
        mh_db_bind_text(st, 1, ri->argv ? cmd : NULL);
        mh_db_bind_text(st, 2, argv_json);
        mh_db_bind_text(st, 3, ri->backend);
        mh_db_bind_text(st, 4, ri->memheat_version);
        mh_db_bind_u64(st, 5, ri->start_unix_ns);
        mh_db_bind_u64(st, 6, ri->end_unix_ns);
        sqlite3_bind_int(st, 7, ri->exit_status);
        mh_db_bind_text(st, 8, ri->trace_path && ri->trace_path[0] ? ri->trace_path : NULL);
        rc = mh_db_step_done(db, st, err, "writing the run");
        sqlite3_finalize(st);
    }
    free(cmd);
    free(argv_json);
    return rc;
}

int mh_db_put_run(mh_db *db, const mh_db_run_info *ri, mh_err *err) { MH_DB_TX(db, err, put_run_tx(db, ri, err)); }

static int put_header_tx(mh_db *db, const mh_trace_header *h, mh_err *err) {
    sqlite3_stmt *st;
    int rc = mh_db_prepare(db, &st,
                           "INSERT INTO run(id, command, producer, note, start_unix_ns) VALUES(1, ?1, ?2, ?3, ?4)"
                           " ON CONFLICT(id) DO UPDATE SET producer = excluded.producer, note = excluded.note,"
                           " command = coalesce(command, excluded.command),"
                           " start_unix_ns = coalesce(start_unix_ns, excluded.start_unix_ns)",
                           err);
    if (rc) return rc;
    mh_db_bind_text(st, 1, h->command && h->command[0] ? h->command : NULL);
    mh_db_bind_text(st, 2, h->producer);
    mh_db_bind_text(st, 3, h->note);
    mh_db_bind_u64(st, 4, h->start_unix_ns);
    rc = mh_db_step_done(db, st, err, "writing the trace header");
    sqlite3_finalize(st);
    if (rc) return rc;
    const mh_device *d = &h->device;
    rc = mh_db_prepare(db, &st,
                       "INSERT OR REPLACE INTO device(id, source, ordinal, name" MH_TRACE_DEVICE_FIELDS(
                           MH_TDF_SQL_NAMES, MH_TDF_NONE) ", peak_Bps) VALUES(0, 'trace', NULL, ?"
                           MH_TRACE_DEVICE_FIELDS(MH_TDF_SQL_QMARKS, MH_TDF_NONE) ",?)",
                       err);
    if (rc) return rc;
    int i = 1;
    mh_db_bind_text(st, i++, d->name);
#define BIND_U32(v) sqlite3_bind_int64(st, i++, v)
#define BIND_U64(v) mh_db_bind_u64(st, i++, v)
#define BIND(KIND, f, BRK) BIND_##KIND(d->f);
    MH_TRACE_DEVICE_FIELDS(BIND, MH_TDF_NONE) /* list order (trace_fields.h) */
#undef BIND
#undef BIND_U32
#undef BIND_U64
    /* theoretical peak = memory clock x bus width x 2 (double data rate) */
    if (d->mem_clock_khz && d->bus_width_bits)
        sqlite3_bind_double(st, i, (double)d->mem_clock_khz * 1e3 * (d->bus_width_bits / 8.0) * 2.0);
    rc = mh_db_step_done(db, st, err, "writing the device");
    sqlite3_finalize(st);
    return rc;
}

int mh_db_put_header(mh_db *db, const mh_trace_header *h, mh_err *err) {
    MH_DB_TX(db, err, put_header_tx(db, h, err));
}

static int put_launch_stmt(mh_db *db, sqlite3_stmt *st, const mh_model_launch *ml, mh_err *err) {
    const mh_launch *l = &ml->l;
    sqlite3_bind_int64(st, 1, l->id);
    mh_db_bind_text(st, 2, l->name ? l->name : "");
    mh_db_bind_text(st, 3, l->display_name);
    sqlite3_bind_int64(st, 4, l->grid.x);
    sqlite3_bind_int64(st, 5, l->grid.y);
    sqlite3_bind_int64(st, 6, l->grid.z);
    sqlite3_bind_int64(st, 7, l->block.x);
    sqlite3_bind_int64(st, 8, l->block.y);
    sqlite3_bind_int64(st, 9, l->block.z);
    sqlite3_bind_int64(st, 10, l->dyn_smem);
    sqlite3_bind_int64(st, 11, l->static_smem);
    sqlite3_bind_int64(st, 12, l->regs);
    mh_db_bind_u64(st, 13, l->stream);
    sqlite3_bind_int64(st, 14, ml->n_blocks);
    sqlite3_bind_int64(st, 15, ml->n_sampled);
    char *sampled = NULL;
    if (l->n_sampled != MH_TRACE_ALL_BLOCKS && l->sampled) {
        json_t *a = json_array();
        for (uint32_t i = 0; i < l->n_sampled; i++) json_array_append_new(a, json_integer(l->sampled[i]));
        sampled = json_dumps(a, JSON_COMPACT);
        json_decref(a);
    }
    mh_db_bind_text(st, 16, sampled);
    free(sampled);
    sqlite3_bind_int64(st, 17, ml->threads_per_block);
    sqlite3_bind_int64(st, 18, ml->warps_per_block);
    sqlite3_bind_int(st, 19, ml->ended);
    if (ml->ended) {
        mh_db_bind_u64(st, 20, ml->end.recorded);
        mh_db_bind_u64(st, 21, ml->end.dropped);
        if (ml->end.gpu_ns) mh_db_bind_u64(st, 22, ml->end.gpu_ns);
    }
    return mh_db_step_done(db, st, err, "writing a launch");
}

static const char launch_sql[] =
    "INSERT OR REPLACE INTO launch(id, name, display_name, grid_x, grid_y, grid_z, block_x, block_y,"
    " block_z, dyn_smem, static_smem, regs, stream, n_blocks, n_sampled, sampled, threads_per_block,"
    " warps_per_block, ended, recorded, dropped, gpu_ns)"
    " VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18,?19,?20,?21,?22)";

int mh_db_put_launch_in_tx(mh_db *db, const mh_model_launch *ml, mh_err *err) {
    sqlite3_stmt *st;
    int rc = mh_db_prepare(db, &st, launch_sql, err);
    if (rc) return rc;
    rc = put_launch_stmt(db, st, ml, err);
    sqlite3_finalize(st);
    return rc;
}

int mh_db_put_launch(mh_db *db, const mh_model_launch *ml, mh_err *err) {
    MH_DB_TX(db, err, mh_db_put_launch_in_tx(db, ml, err));
}

static int put_model_tx(mh_db *db, const mh_model *m, mh_err *err) {
    sqlite3_stmt *st;
    int rc = mh_db_prepare(db, &st, launch_sql, err);
    if (rc) return rc;
    for (size_t i = 0; i < m->nlaunches && !rc; i++) rc = put_launch_stmt(db, st, &m->launches[i], err);
    sqlite3_finalize(st);
    if (rc) return rc;
    rc = mh_db_prepare(db, &st,
                       "INSERT OR REPLACE INTO object(id, launch, base, size, space, label, live_at_end,"
                       " arg, arg_type, arg_name, parent, used_lo, used_hi)"
                       " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
                       err);
    if (rc) return rc;
    for (size_t i = 0; i < m->nobjs && !rc; i++) {
        const mh_model_obj *o = &m->objs[i];
        /* the object's index in the model is its id: heat regions refer to it */
        sqlite3_bind_int64(st, 1, (sqlite3_int64)i);
        if (o->a.launch != MH_TRACE_NO_LAUNCH) sqlite3_bind_int64(st, 2, o->a.launch);
        mh_db_bind_u64(st, 3, o->a.base);
        mh_db_bind_u64(st, 4, o->a.size);
        mh_db_bind_text(st, 5, mh_db_space_name(o->a.space));
        mh_db_bind_text(st, 6, o->a.label ? o->a.label : "");
        sqlite3_bind_int(st, 7, o->live);
        if (o->arg >= 0) { /* a kernel argument's view (model.h); NULL otherwise */
            sqlite3_bind_int(st, 8, o->arg);
            mh_db_bind_text(st, 9, o->arg_type ? o->arg_type : "");
            mh_db_bind_text(st, 10, o->arg_name ? o->arg_name : "");
            sqlite3_bind_int64(st, 11, o->parent);
            if (o->used_hi > o->used_lo) {
                mh_db_bind_u64(st, 12, o->used_lo);
                mh_db_bind_u64(st, 13, o->used_hi);
            } else {
                sqlite3_bind_null(st, 12);
                sqlite3_bind_null(st, 13);
            }
        } else {
            for (int c = 8; c <= 13; c++) sqlite3_bind_null(st, c);
        }
        rc = mh_db_step_done(db, st, err, "writing a data object");
    }
    sqlite3_finalize(st);
    if (rc) return rc;
    rc = mh_db_prepare(db, &st, "INSERT OR REPLACE INTO pcinfo(pc, function, file, line) VALUES(?1,?2,?3,?4)", err);
    if (rc) return rc;
    for (size_t i = 0; i < m->npcs && !rc; i++) {
        mh_db_bind_u64(st, 1, m->pcs[i].pc);
        mh_db_bind_text(st, 2, m->pcs[i].function);
        mh_db_bind_text(st, 3, m->pcs[i].file);
        sqlite3_bind_int64(st, 4, m->pcs[i].line);
        rc = mh_db_step_done(db, st, err, "writing pc attribution");
    }
    sqlite3_finalize(st);
    if (rc) return rc;
    rc = mh_db_prepare(db, &st,
                       "INSERT INTO launch_config(name, grid_x, grid_y, grid_z, block_x, block_y, block_z,"
                       " dyn_smem, launches, traced) VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10)",
                       err);
    if (rc) return rc;
    for (size_t i = 0; i < m->nstats && !rc; i++) {
        const mh_launch_stats *ls = &m->stats[i];
        uint32_t f[7] = {ls->grid.x, ls->grid.y, ls->grid.z, ls->block.x, ls->block.y, ls->block.z, ls->dyn_smem};
        mh_db_bind_text(st, 1, ls->name);
        for (int k = 0; k < 7; k++) sqlite3_bind_int64(st, 2 + k, f[k]);
        mh_db_bind_u64(st, 9, ls->launches);
        mh_db_bind_u64(st, 10, ls->traced);
        rc = mh_db_step_done(db, st, err, "writing launch statistics");
    }
    sqlite3_finalize(st);
    if (!rc) rc = mh_db_put_sites_in_tx(db, &m->sites, err);
    if (rc) return rc;
    char total[32];
    snprintf(total, sizeof total, "%llu", (unsigned long long)m->dropped_total);
    return mh_db_set_meta(db, "dropped_total", total, err);
}

int mh_db_put_model(mh_db *db, const mh_model *m, mh_err *err) { MH_DB_TX(db, err, put_model_tx(db, m, err)); }

static int put_heat_tx(mh_db *db, const mh_heat_result *r, int64_t *map_id, mh_err *err) {
    uint32_t maxt = 0;
    for (size_t i = 0; i < r->nrows; i++) {
        if (r->rows[i].sector > maxt) maxt = r->rows[i].sector;
        for (int w = 0; w < MH_HEAT_WORDS; w++)
            if (r->rows[i].word[w] > maxt) maxt = r->rows[i].word[w];
    }
    sqlite3_stmt *st;
    int rc = mh_db_prepare(db, &st,
                           "INSERT INTO heat_map(launch, space, sector_size, accesses, nrows, max_temp)"
                           " VALUES(?1, ?2, ?3, ?4, ?5, ?6)",
                           err);
    if (rc) return rc;
    sqlite3_bind_int64(st, 1, r->launch->l.id);
    mh_db_bind_text(st, 2, mh_db_space_name(r->space));
    sqlite3_bind_int64(st, 3, r->sector_size);
    mh_db_bind_u64(st, 4, r->accesses);
    sqlite3_bind_int64(st, 5, (sqlite3_int64)r->nrows);
    sqlite3_bind_int64(st, 6, maxt);
    rc = mh_db_step_done(db, st, err, "writing a heat map");
    sqlite3_finalize(st);
    if (rc) return rc;
    int64_t id = sqlite3_last_insert_rowid(db->h);
    if (map_id) *map_id = id;
    rc = mh_db_prepare(db, &st,
                       "INSERT INTO heat_region(map, idx, object, label, start, end, first_tag, last_tag,"
                       " first_row, nrows) VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10)",
                       err);
    if (rc) return rc;
    for (size_t i = 0; i < r->nregions && !rc; i++) {
        const mh_heat_region *g = &r->regions[i];
        sqlite3_bind_int64(st, 1, id);
        sqlite3_bind_int64(st, 2, (sqlite3_int64)i);
        if (g->obj >= 0) sqlite3_bind_int64(st, 3, g->obj);
        mh_db_bind_text(st, 4, g->label ? g->label : "");
        mh_db_bind_u64(st, 5, g->start);
        mh_db_bind_u64(st, 6, g->end);
        mh_db_bind_u64(st, 7, g->first_tag);
        mh_db_bind_u64(st, 8, g->last_tag);
        sqlite3_bind_int64(st, 9, (sqlite3_int64)g->first_row);
        sqlite3_bind_int64(st, 10, (sqlite3_int64)g->nrows);
        rc = mh_db_step_done(db, st, err, "writing a heat region");
    }
    sqlite3_finalize(st);
    if (rc) return rc;
    rc = mh_db_prepare(db, &st,
                       "INSERT INTO heat_row(map, row, tag, region, w0, w1, w2, w3, w4, w5, w6, w7, sector, kinds)"
                       " VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14)",
                       err);
    if (rc) return rc;
    for (size_t i = 0; i < r->nrows && !rc; i++) {
        const mh_heat_row *w = &r->rows[i];
        sqlite3_bind_int64(st, 1, id);
        sqlite3_bind_int64(st, 2, (sqlite3_int64)i);
        mh_db_bind_u64(st, 3, w->tag);
        if (w->region >= 0) sqlite3_bind_int64(st, 4, w->region);
        for (int k = 0; k < MH_HEAT_WORDS; k++) sqlite3_bind_int64(st, 5 + k, w->word[k]);
        sqlite3_bind_int64(st, 13, w->sector);
        sqlite3_bind_int64(st, 14, mh_heat_kinds_pack(w));
        rc = mh_db_step_done(db, st, err, "writing heat rows");
    }
    sqlite3_finalize(st);
    return rc;
}

int mh_db_put_heat(mh_db *db, const mh_heat_result *r, int64_t *map_id, mh_err *err) {
    MH_DB_TX(db, err, put_heat_tx(db, r, map_id, err));
}

static int put_doc_tx(mh_db *db, const char *kind, const char *json, mh_err *err) {
    sqlite3_stmt *st;
    int rc = mh_db_prepare(db, &st, "INSERT OR REPLACE INTO document(kind, json) VALUES(?1, ?2)", err);
    if (rc) return rc;
    mh_db_bind_text(st, 1, kind);
    mh_db_bind_text(st, 2, json);
    rc = mh_db_step_done(db, st, err, "writing a document");
    sqlite3_finalize(st);
    return rc;
}

int mh_db_put_document(mh_db *db, const char *kind, const char *json, mh_err *err) {
    MH_DB_TX(db, err, put_doc_tx(db, kind, json, err));
}
