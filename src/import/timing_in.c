/* timing_in.c -- a timing into the profile (import.h): loaded from its
 * file, analysed (mh_bw_analyze: bandwidth vs peak, verdicts, overlap),
 * then stored as it is (mh_db_put_timing). The analysis is run here, above
 * the store, which only writes what it is given. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/bandwidth.h"
#include "import/import.h"
#include "memheat/timing.h"
#include "util/grow.h"

int mh_db_import_timing_loaded(mh_db *db, const mh_db_timing_in *in, mh_err *err) {
    mh_bw_report own;
    memset(&own, 0, sizeof own);
    const mh_bw_report *rep = in->report;
    int rc = MH_OK;
    if (!rep) {
        rc = mh_bw_analyze(in->timing, 0.0, &own, err);
        rep = &own;
    }
    if (!rc) rc = mh_db_put_timing(db, in->timing, rep, in->json, err);
    if (!in->report) mh_bw_report_free(&own);
    if (rc) mh_err_wrap(err, "importing timing");
    return rc;
}

static char *slurp(const char *path, mh_err *err) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        mh_err_set(err, MH_ERR_IO, "cannot open %s", path);
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap);
    while (b) {
        size_t got = fread(b + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0) break;
        if (n + 1 == cap) {
            char *nb = mh_grow(b, &cap, cap + 1, 1, 0);
            if (!nb) {
                free(b);
                b = NULL;
                break;
            }
            b = nb;
        }
    }
    fclose(f);
    if (!b) {
        mh_err_set(err, MH_ERR_NOMEM, "out of memory reading %s", path);
        return NULL;
    }
    b[n] = '\0';
    return b;
}

int mh_db_import_timing(mh_db *db, const char *path, mh_err *err) {
    mh_timing t;
    mh_timing_init(&t);
    int rc = mh_timing_load(&t, path, err);
    if (rc) {
        mh_timing_free(&t);
        return rc;
    }
    mh_bw_report rep;
    memset(&rep, 0, sizeof rep);
    rc = mh_bw_analyze(&t, 0.0, &rep, err);
    char *text = rc ? NULL : slurp(path, err);
    if (!rc && !text) rc = err ? err->code : MH_ERR_IO;
    if (!rc) rc = mh_db_put_timing(db, &t, &rep, text, err);
    free(text);
    mh_bw_report_free(&rep);
    mh_timing_free(&t);
    if (rc) mh_err_wrap(err, "importing timing %s", path);
    return rc;
}
