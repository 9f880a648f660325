/* camp_put.c -- a kernel's partition-camping band (CampProf, seed 000) into the
 * profile: best/worst lines and the kernel's extrapolated line over active
 * warps per SM, its measured point and camping degree, as JSON arrays in
 * camp_band, so the report can draw the paper's Fig. 1/10 chart. */
#include "db_internal.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>

#include "analyses/camp.h"

static char *arr_d(const double *v, int n) {
    json_t *a = json_array();
    for (int i = 0; i < n; i++) json_array_append_new(a, isfinite(v[i]) ? json_real(v[i]) : json_null());
    char *s = json_dumps(a, JSON_COMPACT);
    json_decref(a);
    return s;
}

static int put_camp_tx(mh_db *db, const char *kernel, const char *device, const mh_camp_band *b, mh_err *err) {
    sqlite3_stmt *st;
    int rc = mh_db_prepare(db, &st, "DELETE FROM camp_band WHERE kernel = ?1", err);
    if (rc) return rc;
    mh_db_bind_text(st, 1, kernel);
    rc = mh_db_step_done(db, st, err, "replacing a camping band");
    sqlite3_finalize(st);
    if (rc) return rc;
    int n = b->n < 0 ? 0 : (b->n > MH_CAMP_MAXWARPS ? MH_CAMP_MAXWARPS : b->n);
    json_t *w = json_array();
    for (int i = 0; i < n; i++) json_array_append_new(w, json_integer(b->warps[i]));
    char *warps = json_dumps(w, JSON_COMPACT);
    json_decref(w);
    char *best = arr_d(b->best, n), *worst = arr_d(b->worst, n), *kern = arr_d(b->kernel, n);
    rc = mh_db_prepare(db, &st,
                       "INSERT INTO camp_band(kernel, device, warps, best_ms, worst_ms, kernel_ms, measured_warps,"
                       " measured_ms, degree, band_closed) VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10)",
                       err);
    if (!rc) {
        mh_db_bind_text(st, 1, kernel);
        mh_db_bind_text(st, 2, device);
        mh_db_bind_text(st, 3, warps);
        mh_db_bind_text(st, 4, best);
        mh_db_bind_text(st, 5, worst);
        mh_db_bind_text(st, 6, kern);
        sqlite3_bind_int(st, 7, b->w0);
        mh_db_bind_real(st, 8, b->t0);
        mh_db_bind_real(st, 9, b->degree);
        sqlite3_bind_int(st, 10, b->band_closed);
        rc = mh_db_step_done(db, st, err, "writing a camping band");
        sqlite3_finalize(st);
    }
    free(warps);
    free(best);
    free(worst);
    free(kern);
    return rc;
}

int mh_db_put_camp(mh_db *db, const char *kernel, const char *device, const struct mh_camp_band *b, mh_err *err) {
    int rc = mh_db_begin(db, err);
    if (rc) return rc;
    rc = put_camp_tx(db, kernel, device, b, err);
    if (!rc) rc = mh_db_commit(db, err);
    if (rc) mh_db_rollback(db);
    return rc;
}
