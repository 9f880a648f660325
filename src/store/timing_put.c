/* timing_put.c -- the timing results into the profile: devices, every
 * kernel and copy of the timeline, per-kernel-name statistics with the
 * bandwidth and bound verdicts it is given (a report of mh_bw_analyze's,
 * made by the caller: the store runs no analysis; the verdict's figures as
 * JSON in kernel.verdict) and the overlap model.
 *
 * The JSON file itself is also kept verbatim (document "timing") so nothing
 * the timing pass wrote is lost even where the schema has no column for it.
 * One transaction for the whole timing batch. */
#include "db_internal.h"
#include "kernel_columns.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/bandwidth.h"
#include "memheat/timing.h"
#include "memheat/timing_fields.h"
#include "util/grow.h"

static void bind_counter(sqlite3_stmt *st, int i, int has, double v) {
    if (has) mh_db_bind_real(st, i, v);
    else sqlite3_bind_null(st, i);
}

/* Binds a field of each kind (memheat/timing_fields.h) at *i, advancing it. */
#define BIND_U32(st, i, v) sqlite3_bind_int64(st, (*(i))++, (v))
#define BIND_U64(st, i, v) mh_db_bind_u64(st, (*(i))++, (v))
#define BIND_STR256(st, i, v) mh_db_bind_text(st, (*(i))++, (v))
#define BIND_NAME(st, i, v) mh_db_bind_text(st, (*(i))++, (v) ? (v) : "")
#define BIND_DIM3(st, i, v) \
    for (int d_ = 0; d_ < 3; d_++) sqlite3_bind_int64(st, (*(i))++, (v)[d_])
#define BIND_FIELD(KIND, f, REQ, col, BRK) BIND_##KIND(st, &i, rec->f);
#define BIND_COUNTER(KIND, f, REQ, col, BRK) bind_counter(st, i++, h, ctr->f);

static int put_timing(mh_db *db, const mh_timing *t, const mh_bw_report *rep, mh_err *err) {
    sqlite3_stmt *st;
    int rc = mh_db_prepare(db, &st,
                           "INSERT OR REPLACE INTO device(id, source" MH_TIMING_DEVICE_FIELDS(MH_TF_SQL_NAMES)
                           ", peak_Bps, measured_peak_Bps) VALUES(?, 'timing'" MH_TIMING_DEVICE_FIELDS(MH_TF_SQL_QMARKS)
                           ", ?, ?)",
                           err);
    if (rc) return rc;
    for (size_t n = 0; n < rep->ndevices && !rc; n++) {
        const mh_bw_device *d = &rep->devices[n];
        const mh_timing_device *rec = &d->dev;
        int i = 1;
        sqlite3_bind_int64(st, i++, 1000 + (sqlite3_int64)d->dev.id); /* id 0 is the traced device */
        MH_TIMING_DEVICE_FIELDS(BIND_FIELD)
        mh_db_bind_real(st, i++, d->theoretical_Bps > 0 ? d->theoretical_Bps : NAN);
        mh_db_bind_real(st, i++, d->measured_Bps > 0 ? d->measured_Bps : NAN);
        rc = mh_db_step_done(db, st, err, "writing a timing device");
    }
    sqlite3_finalize(st);
    if (rc) return rc;

    /* id NULL: the next rowid, as when the column is left out */
    rc = mh_db_prepare(db, &st,
                       "INSERT INTO kernel_run(id" MH_TIMING_KERNEL_FIELDS(MH_TF_SQL_NAMES) ", has_counters"
                       MH_TIMING_COUNTER_FIELDS(MH_TF_SQL_NAMES) ", timed) VALUES(NULL"
                       MH_TIMING_KERNEL_FIELDS(MH_TF_SQL_QMARKS) ",?" MH_TIMING_COUNTER_FIELDS(MH_TF_SQL_QMARKS) ",?)",
                       err);
    if (rc) return rc;
    for (size_t n = 0; n < t->nkernels && !rc; n++) {
        const mh_timing_kernel *rec = &t->kernels[n];
        int i = 1, h = rec->has_counters;
        MH_TIMING_KERNEL_FIELDS(BIND_FIELD)
        sqlite3_bind_int(st, i++, h);
        const mh_timing_counters *ctr = &rec->c;
        MH_TIMING_COUNTER_FIELDS(BIND_COUNTER)
        /* NULL = clean: the launch ran as the program ran it */
        mh_db_bind_text(st, i++, rec->timed == MH_TIMED_CLEAN ? NULL : mh_timing_timed_name(rec->timed));
        rc = mh_db_step_done(db, st, err, "writing a kernel run");
    }
    sqlite3_finalize(st);
    if (rc) return rc;

    rc = mh_db_prepare(db, &st,
                       "INSERT INTO copy(kind" MH_TIMING_COPY_FIELDS(MH_TF_SQL_NAMES) ", value) VALUES(?"
                       MH_TIMING_COPY_FIELDS(MH_TF_SQL_QMARKS) ", ?)",
                       err);
    if (rc) return rc;
    for (size_t n = 0; n < t->ncopies && !rc; n++) {
        const mh_timing_copy *rec = &t->copies[n];
        int i = 1;
        mh_db_bind_text(st, i++, mh_timing_copy_kind_name(rec->kind));
        MH_TIMING_COPY_FIELDS(BIND_FIELD)
        sqlite3_bind_int64(st, i++, rec->value);
        rc = mh_db_step_done(db, st, err, "writing a copy");
    }
    sqlite3_finalize(st);
    if (rc) return rc;

    rc = mh_db_prepare(db, &st,
                       "INSERT INTO kernel(id" MH_DB_KERNEL_COLUMNS(MH_DB_KCOL_NAME) ", verdict) VALUES(NULL"
                       MH_DB_KERNEL_COLUMNS(MH_DB_KCOL_QMARK) ",?)",
                       err);
    if (rc) return rc;
    for (size_t n = 0; n < rep->nrows && !rc; n++) {
        const mh_bw_row *r = &rep->rows[n];
        const mh_timing_stats *s = &r->s;
        int h = s->with_counters > 0, i = 1;
        double req = s->ld_requests + s->st_requests, sec = s->ld_sectors + s->st_sectors;
#define KBIND_I64(v) sqlite3_bind_int64(st, i++, v)
#define KBIND_U64(v) mh_db_bind_u64(st, i++, v)
#define KBIND_TEXT(v) mh_db_bind_text(st, i++, v)
#define KBIND_REAL(v) mh_db_bind_real(st, i++, v)
#define KBIND_CTR(v) bind_counter(st, i++, h, v)
#define KBIND(col, type, BRK, KIND, v) KBIND_##KIND(v);
        MH_DB_KERNEL_COLUMNS(KBIND) /* kernel_columns.h */
#undef KBIND
#undef KBIND_I64
#undef KBIND_U64
#undef KBIND_TEXT
#undef KBIND_REAL
#undef KBIND_CTR
        /* the verdict's figures (JSON), the table's last column (schema.c) */
        json_t *why = mh_verdict_json(&r->why);
        char *why_text = why ? json_dumps(why, JSON_COMPACT | JSON_REAL_PRECISION(6)) : NULL;
        json_decref(why);
        if (!why_text) rc = mh_err_set(err, MH_ERR_NOMEM, "out of memory writing a verdict");
        mh_db_bind_text(st, i, why_text);
        if (!rc) rc = mh_db_step_done(db, st, err, "writing kernel statistics");
        free(why_text);
    }
    sqlite3_finalize(st);
    if (rc || rep->ndevices == 0) return rc;

    /* overlap: the first device with copies or kernels (single-GPU runs) */
    const mh_bw_device *d = &rep->devices[0];
    rc = mh_db_prepare(db, &st,
                       "INSERT OR REPLACE INTO overlap(id, copy_in_ns, copy_out_ns, compute_ns, fused_ns,"
                       " exposed_copy_ns, wall_ns, speedup) VALUES(1, ?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                       err);
    if (rc) return rc;
    mh_db_bind_real(st, 1, d->pipeline.in_ns);
    mh_db_bind_real(st, 2, d->pipeline.out_ns);
    mh_db_bind_real(st, 3, d->pipeline.compute_ns);
    mh_db_bind_real(st, 4, d->pipeline.fused_ns);
    mh_db_bind_real(st, 5, (double)d->overlap.copy_exposed_ns);
    mh_db_bind_real(st, 6, (double)d->overlap.span_ns);
    mh_db_bind_real(st, 7, d->pipeline.speedup);
    rc = mh_db_step_done(db, st, err, "writing the overlap model");
    sqlite3_finalize(st);
    return rc;
}

/* One transaction: the timeline, the statistics and the document. */
static int put_all(mh_db *db, const mh_timing *t, const mh_bw_report *rep, const char *text, mh_err *err) {
    int rc = mh_db_begin(db, err);
    if (rc) return rc;
    rc = put_timing(db, t, rep, err);
    if (!rc && text) {
        sqlite3_stmt *st;
        rc = mh_db_prepare(db, &st, "INSERT OR REPLACE INTO document(kind, json) VALUES('timing', ?1)", err);
        if (!rc) {
            mh_db_bind_text(st, 1, text);
            rc = mh_db_step_done(db, st, err, "keeping the timing document");
            sqlite3_finalize(st);
        }
    }
    if (!rc) rc = mh_db_commit(db, err);
    if (rc) mh_db_rollback(db);
    return rc;
}

int mh_db_put_timing(mh_db *db, const mh_timing *t, const mh_bw_report *rep, const char *json, mh_err *err) {
    return put_all(db, t, rep, json, err);
}
