/* put_sites.c -- a trace's call sites into the profile (schema 4): one row
 * per site (its user frame, labels and every frame as JSON), one per (site,
 * configuration) with its launch count, and each traced launch's site.
 * The sites come resolved (mh_sites_resolve, run by the import): the store
 * never symbolises or judges anything itself. */
#include <stdlib.h>

#include "analyses/sites.h"
#include "db_internal.h"

static int put_site(mh_db *db, sqlite3_stmt *st, const mh_sites_site *e, mh_err *err) {
    const mh_sites_frame *u = e->user >= 0 ? &e->frames[e->user] : NULL;
    sqlite3_bind_int64(st, 1, e->id);
    mh_db_bind_text(st, 2, e->label ? e->label : "");
    if (u) {
        mh_db_bind_text(st, 3, u->file);
        sqlite3_bind_int64(st, 4, u->line);
        mh_db_bind_text(st, 5, u->function);
        mh_db_bind_text(st, 9, u->python ? "python" : "native");
    } else {
        for (int c = 3; c <= 5; c++) sqlite3_bind_null(st, c);
        sqlite3_bind_null(st, 9);
    }
    mh_db_bind_text(st, 6, e->code ? e->code : "");
    mh_db_bind_text(st, 7, e->scope ? e->scope : "");
    mh_db_bind_text(st, 8, e->nvtx_path ? e->nvtx_path : "");
    sqlite3_bind_int(st, 10, (e->flags & MH_SITE_PY_FORWARD) != 0);
    mh_db_bind_u64(st, 11, e->launches);
    /* the frames as the JSON of memheat analyze's "sites" (one site's array) */
    mh_sites one = {.v = (mh_sites_site *)e, .n = 1};
    json_t *a = mh_sites_json(&one);
    char *frames = a ? json_dumps(json_object_get(json_array_get(a, 0), "frames"), JSON_COMPACT) : NULL;
    json_decref(a);
    if (!frames) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    mh_db_bind_text(st, 12, frames);
    int rc = mh_db_step_done(db, st, err, "writing a call site");
    free(frames);
    return rc;
}

int mh_db_put_sites_in_tx(mh_db *db, const mh_sites *s, mh_err *err) {
    if (!s->n && !s->nconfigs && !s->nlaunch) return MH_OK;
    sqlite3_stmt *st;
    int rc = mh_db_prepare(db, &st,
                           "INSERT OR REPLACE INTO site(id, label, file, line, function, code, scope, nvtx, kind,"
                           " forward, launches, frames) VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12)",
                           err);
    if (rc) return rc;
    for (size_t i = 0; i < s->n && !rc; i++) rc = put_site(db, st, &s->v[i], err);
    sqlite3_finalize(st);
    if (rc) return rc;
    rc = mh_db_prepare(db, &st,
                       "INSERT INTO site_config(site, name, grid_x, grid_y, grid_z, block_x, block_y, block_z,"
                       " dyn_smem, launches) VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10)",
                       err);
    if (rc) return rc;
    for (size_t i = 0; i < s->nconfigs && !rc; i++) {
        const mh_sites_config *c = &s->configs[i];
        uint32_t f[7] = {c->grid.x, c->grid.y, c->grid.z, c->block.x, c->block.y, c->block.z, c->dyn_smem};
        sqlite3_bind_int64(st, 1, c->site);
        mh_db_bind_text(st, 2, c->name);
        for (int k = 0; k < 7; k++) sqlite3_bind_int64(st, 3 + k, f[k]);
        mh_db_bind_u64(st, 10, c->launches);
        rc = mh_db_step_done(db, st, err, "writing site counts");
    }
    sqlite3_finalize(st);
    if (rc) return rc;
    rc = mh_db_prepare(db, &st, "UPDATE launch SET site = ?1 WHERE id = ?2", err);
    if (rc) return rc;
    for (size_t i = 0; i < s->nlaunch && !rc; i++) {
        sqlite3_bind_int64(st, 1, s->launch_sites[i]);
        sqlite3_bind_int64(st, 2, s->launch_ids[i]);
        rc = mh_db_step_done(db, st, err, "writing a launch's site");
    }
    sqlite3_finalize(st);
    return rc;
}
