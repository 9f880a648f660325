/* import.c -- the pipeline `memheat run` ends with: trace -> model -> heat
 * maps (-> locality and findings) -> profile database, plus the timing file.
 *
 * Streaming: records go through mh_model_feed and mh_heat_run_feed once; each
 * heat map is written (with its launch) in its own transaction the moment its
 * launch ends, so memory stays bounded by the launches in flight and a crash
 * part-way leaves every finished map in a valid database that says
 * complete = '0'. */
#include "db_internal.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memheat/locality.h"
#include "memheat/patterns.h"

typedef struct import_ctx {
    mh_db *db;
    const mh_db_import_opts *o;
    mh_pat_run *pat;
    uint64_t maps, sectors;
} import_ctx;

static int emit_heat(void *vctx, const mh_heat_result *r, mh_err *err) {
    import_ctx *c = vctx;
    int rc = mh_db_put_launch(c->db, r->launch, err);
    if (!rc) rc = mh_db_put_heat(c->db, r, NULL, err);
    if (!rc && c->pat) rc = mh_pat_run_heat(c->pat, r, err);
    if (!rc) {
        c->maps++;
        c->sectors += r->nrows;
    }
    return rc;
}

/* Locality of one launch: a row per address space with accesses, and the
 * total, each with its entropy and parallel-spatial-locality curves. */
static int put_loc_tx(mh_db *db, const mh_loc_result *r, mh_err *err) {
    sqlite3_stmt *st, *cu;
    int rc = mh_db_prepare(db, &st,
                           "INSERT OR REPLACE INTO locality(launch, space, accesses, footprint, footprint90, entropy,"
                           " local_share) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                           err);
    if (rc) return rc;
    rc = mh_db_prepare(db, &cu,
                       "INSERT OR REPLACE INTO locality_curve(launch, space, metric, bits, value)"
                       " VALUES(?1, ?2, ?3, ?4, ?5)",
                       err);
    if (rc) {
        sqlite3_finalize(st);
        return rc;
    }
    for (int s = 0; s < MH_LOC_COLS && !rc; s++) {
        const mh_loc_metrics *m = &r->m[s];
        if (m->accesses == 0) continue;
        const char *space = s == MH_LOC_TOTAL ? "all" : mh_db_space_name((unsigned)s);
        sqlite3_bind_int64(st, 1, r->launch->l.id);
        mh_db_bind_text(st, 2, space);
        mh_db_bind_u64(st, 3, m->accesses);
        mh_db_bind_u64(st, 4, m->footprint);
        mh_db_bind_u64(st, 5, m->footprint90);
        mh_db_bind_real(st, 6, m->entropy[0]);
        mh_db_bind_real(st, 7, r->rel_local);
        rc = mh_db_step_done(db, st, err, "writing locality");
        for (int b = 0; b < MH_LOC_NBITS && !rc; b++) {
            for (int k = 0; k < 2 && !rc; k++) {
                sqlite3_bind_int64(cu, 1, r->launch->l.id);
                mh_db_bind_text(cu, 2, space);
                mh_db_bind_text(cu, 3, k ? "psl" : "entropy");
                sqlite3_bind_int(cu, 4, b);
                mh_db_bind_real(cu, 5, k ? m->psl[b] : m->entropy[b]);
                rc = mh_db_step_done(db, cu, err, "writing locality curves");
            }
        }
    }
    sqlite3_finalize(st);
    sqlite3_finalize(cu);
    return rc;
}

static int emit_loc(void *vctx, const mh_loc_result *r, mh_err *err) {
    import_ctx *c = vctx;
    int rc = mh_db_begin(c->db, err);
    if (rc) return rc;
    rc = mh_db_put_launch_in_tx(c->db, r->launch, err);
    if (!rc) rc = put_loc_tx(c->db, r, err);
    if (!rc) rc = mh_db_commit(c->db, err);
    if (rc) mh_db_rollback(c->db);
    return rc;
}

/* Findings (most costly first) and bank-conflict statistics, one transaction. */
static int put_findings_tx(mh_db *db, const mh_pat_run *pr, mh_err *err) {
    size_t n;
    const mh_pat_finding *f = mh_pat_findings(pr, &n);
    sqlite3_stmt *st;
    int rc = mh_db_prepare(db, &st,
                           "INSERT INTO finding(launch, space, object, object_label, kind, cost, sectors, example_tag,"
                           " temps, stride, pc, file, line, evidence, advice)"
                           " VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15)",
                           err);
    if (rc) return rc;
    for (size_t i = 0; i < n && !rc; i++) {
        sqlite3_bind_int64(st, 1, f[i].launch);
        mh_db_bind_text(st, 2, mh_db_space_name(f[i].space));
        if (f[i].obj >= 0) sqlite3_bind_int64(st, 3, f[i].obj);
        mh_db_bind_text(st, 4, f[i].label ? f[i].label : "");
        mh_db_bind_text(st, 5, mh_pat_kind_name(f[i].kind));
        mh_db_bind_real(st, 6, f[i].cost);
        mh_db_bind_u64(st, 7, f[i].kind == MH_PAT_BANK_CONFLICT ? f[i].flagged : f[i].sectors);
        char *temps = NULL;
        if (f[i].has_example) {
            mh_db_bind_u64(st, 8, f[i].example.tag);
            json_t *a = json_array();
            for (int w = 0; w < MH_HEAT_WORDS; w++) json_array_append_new(a, json_integer(f[i].example.word[w]));
            json_array_append_new(a, json_integer(f[i].example.sector));
            temps = json_dumps(a, JSON_COMPACT);
            json_decref(a);
        }
        mh_db_bind_text(st, 9, temps);
        free(temps);
        if (f[i].kind == MH_PAT_STRIDED) sqlite3_bind_int64(st, 10, f[i].stride);
        if (f[i].pc) mh_db_bind_u64(st, 11, f[i].pc);
        mh_db_bind_text(st, 12, f[i].file);
        if (f[i].file) sqlite3_bind_int64(st, 13, f[i].line);
        char ev[sizeof f[i].summary + 1024]; /* one line: the summary, then every pc merged into the finding */
        size_t nev = (size_t)snprintf(ev, sizeof ev, "%s", f[i].summary);
        if (f[i].npcs > 1 && nev + 2 < sizeof ev) {
            memcpy(ev + nev, "; ", 3);
            mh_pat_pcs_text(&f[i], ev + nev + 2, sizeof ev - nev - 2);
        }
        mh_db_bind_text(st, 14, ev);
        mh_db_bind_text(st, 15, f[i].suggestion);
        rc = mh_db_step_done(db, st, err, "writing a finding");
    }
    sqlite3_finalize(st);
    if (rc) return rc;
    const mh_bank_table *bt = mh_pat_banks(pr);
    if (!bt) return MH_OK;
    rc = mh_db_prepare(db, &st,
                       "INSERT OR REPLACE INTO bank_conflict(launch, pc, degree, max_degree, accesses)"
                       " VALUES(?1, ?2, ?3, ?4, ?5)",
                       err);
    if (rc) return rc;
    for (size_t i = 0; i < bt->n && !rc; i++) {
        const mh_bank_pc *b = &bt->v[i];
        sqlite3_bind_int64(st, 1, b->launch);
        mh_db_bind_u64(st, 2, b->pc);
        mh_db_bind_real(st, 3, b->requests ? (double)b->sum_degree / (double)b->requests : 0.0);
        sqlite3_bind_int64(st, 4, b->max_degree);
        mh_db_bind_u64(st, 5, b->requests);
        rc = mh_db_step_done(db, st, err, "writing bank conflicts");
    }
    sqlite3_finalize(st);
    return rc;
}

static int put_findings(mh_db *db, const mh_pat_run *pr, mh_err *err) {
    int rc = mh_db_begin(db, err);
    if (rc) return rc;
    rc = put_findings_tx(db, pr, err);
    if (!rc) rc = mh_db_commit(db, err);
    if (rc) mh_db_rollback(db);
    return rc;
}

static void progress(const mh_db_import_opts *o, int done, const char *fmt, unsigned long long a,
                     unsigned long long b, unsigned long long d) {
    if (!o->progress) return;
    char line[160];
    snprintf(line, sizeof line, fmt, a, b, d);
    o->progress(o->progress_ctx, line, done);
}

static int import_trace(mh_db *db, const mh_db_import_opts *o, mh_err *err) {
    mh_trace_reader *r;
    int rc = mh_trace_open(&r, o->trace_path, err);
    if (rc) return rc;
    mh_model m;
    rc = mh_model_init(&m, mh_trace_header_get(r), err);
    if (rc) {
        mh_trace_close_reader(r);
        return rc;
    }
    rc = mh_db_put_header(db, mh_trace_header_get(r), err);
    import_ctx ctx = {db, o, NULL, 0, 0};
    mh_heat_run *hr = NULL;
    mh_loc_run *lr = NULL;
    mh_heat_run_opts ho;
    memset(&ho, 0, sizeof ho);
    ho.emit = emit_heat;
    ho.ctx = &ctx;
    mh_pat_opts po = {0};
    mh_loc_opts lo = {0, emit_loc, &ctx};
    if (!rc) rc = mh_pat_run_new(&ctx.pat, &m, &po, err);
    if (!rc) rc = mh_loc_run_new(&lr, &m, &lo, err);
    if (!rc) rc = mh_heat_run_new(&hr, &m, &ho, err);
    int truncated = 0;
    uint64_t last_chunks = 0;
    while (!rc) {
        mh_record rec;
        rc = mh_trace_next(r, &rec, err);
        if (rc == MH_ERR_TRUNCATED) { /* keep what the whole chunks held */
            truncated = 1;
            rc = MH_OK;
            break;
        }
        if (rc || rec.type == MH_REC_EOF) break;
        rc = mh_model_feed(&m, &rec, err);
        if (!rc) rc = mh_heat_run_feed(hr, &rec, err);
        if (!rc) rc = mh_pat_run_feed(ctx.pat, &rec, err);
        if (!rc) rc = mh_loc_run_feed(lr, &rec, err);
        uint64_t ch = mh_trace_chunks_read(r);
        if (ch - last_chunks >= 64) {
            last_chunks = ch;
            progress(o, 0, "importing trace: %llu chunks, %llu heat maps, %llu sectors",
                     (unsigned long long)ch, (unsigned long long)ctx.maps, (unsigned long long)ctx.sectors);
        }
    }
    mh_err tmp;
    /* launches that never ended (cut-short trace) are emitted by the finish
     * calls; after an error they run best-effort so the maps of launches
     * that did run are kept */
    if (hr) {
        int frc = mh_heat_run_finish(hr, rc ? &tmp : err);
        if (!rc) rc = frc;
    }
    if (lr) {
        int frc = mh_loc_run_finish(lr, rc ? &tmp : err);
        if (!rc) rc = frc;
    }
    if (ctx.pat) {
        int frc = mh_pat_run_finish(ctx.pat, rc ? &tmp : err);
        if (!frc) frc = put_findings(db, ctx.pat, rc ? &tmp : err);
        if (!rc) rc = frc;
    }
    mh_heat_run_free(hr);
    mh_loc_run_free(lr);
    mh_pat_run_free(ctx.pat);
    last_chunks = mh_trace_chunks_read(r);
    int complete = mh_trace_complete(r);
    mh_trace_close_reader(r);
    /* launches, objects and drops are stored even after an error above, so
     * the profile holds everything that was read */
    int rc2 = mh_db_put_model(db, &m, rc ? &tmp : err);
    mh_model_free(&m);
    if (!rc) rc = rc2;
    if (!rc) rc = mh_db_set_meta(db, "trace_complete", complete && !truncated ? "1" : "0", err);
    progress(o, 1, "imported trace: %llu chunks, %llu heat maps, %llu sectors", (unsigned long long)last_chunks,
             (unsigned long long)ctx.maps, (unsigned long long)ctx.sectors);
    if (!rc && truncated)
        return mh_err_set(err, MH_ERR_TRUNCATED, "%s is cut short: imported up to its last whole chunk",
                          o->trace_path);
    return rc;
}

int mh_db_import(mh_db *db, const mh_db_import_opts *o, mh_err *err) {
    int rc = mh_db_put_run(db, &o->run, err);
    if (rc) return rc;
    int trunc = 0;
    if (o->trace_path && o->trace_path[0]) {
        rc = import_trace(db, o, err);
        if (rc == MH_ERR_TRUNCATED) {
            trunc = 1;
            rc = MH_OK;
        }
        if (rc) return mh_err_wrap(err, "importing trace %s", o->trace_path);
    }
    if (o->timing) {
        rc = mh_db_import_timing_loaded(db, o->timing, err);
        if (rc) return rc;
    } else if (o->timing_path && o->timing_path[0]) {
        rc = mh_db_import_timing(db, o->timing_path, err);
        if (rc) return rc;
    }
    rc = mh_db_finish(db, err);
    if (!rc && trunc)
        return mh_err_set(err, MH_ERR_TRUNCATED, "%s is cut short: the profile holds its whole chunks",
                          o->trace_path);
    return rc;
}

int mh_db_import_trace(const char *db_path, int overwrite, const mh_db_import_opts *o, mh_err *err) {
    mh_db *db;
    int rc = mh_db_create(&db, db_path, overwrite, err);
    if (rc) return rc;
    rc = mh_db_import(db, o, err);
    mh_db_close(db);
    return rc;
}
