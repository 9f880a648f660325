/* put_results.c -- writing analysis results the pass hands over: the
 * locality metrics of a launch, and the findings with their bank-conflict
 * table. The store only writes what it is given; the pass that computes it
 * is driven from above (src/import/import.c). */
#include "db_internal.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/locality.h"
#include "analyses/patterns.h"

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

int mh_db_put_locality(mh_db *db, const mh_loc_result *r, mh_err *err) {
    int rc = mh_db_begin(db, err);
    if (rc) return rc;
    rc = mh_db_put_launch_in_tx(db, r->launch, err);
    if (!rc) rc = put_loc_tx(db, r, err);
    if (!rc) rc = mh_db_commit(db, err);
    if (rc) mh_db_rollback(db);
    return rc;
}

/* Findings (most costly first) and bank-conflict statistics, one transaction. */
static int put_findings_tx(mh_db *db, const mh_pat_finding *f, size_t n, const mh_bank_table *bt, mh_err *err) {
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
    if (!bt) return MH_OK;
    rc = mh_db_prepare(db, &st,
                       "INSERT OR REPLACE INTO bank_conflict(launch, pc, degree, max_degree, accesses, banks,"
                       " ideal, extra, kind, object) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                       err);
    if (rc) return rc;
    for (size_t i = 0; i < bt->n && !rc; i++) {
        const mh_bank_pc *b = &bt->v[i];
        sqlite3_bind_int64(st, 1, b->launch);
        mh_db_bind_u64(st, 2, b->pc);
        mh_db_bind_real(st, 3, b->requests ? (double)b->sum_degree / (double)b->requests : 0.0);
        sqlite3_bind_int64(st, 4, b->max_degree);
        mh_db_bind_u64(st, 5, b->requests);
        char banks[MH_BANK_COUNT * 6 + 3]; /* the worst request's words per bank, a JSON array */
        size_t nb = 0;
        for (unsigned k = 0; k < MH_BANK_COUNT; k++)
            nb += (size_t)snprintf(banks + nb, sizeof banks - nb, "%c%u", k ? ',' : '[', (unsigned)b->ex_banks[k]);
        snprintf(banks + nb, sizeof banks - nb, "]");
        mh_db_bind_text(st, 6, banks);
        mh_db_bind_u64(st, 7, b->ideal);
        mh_db_bind_u64(st, 8, b->extra);
        mh_db_bind_text(st, 9, mh_kind_name(b->kind));
        if (b->obj >= 0) sqlite3_bind_int64(st, 10, b->obj);
        else sqlite3_bind_null(st, 10);
        rc = mh_db_step_done(db, st, err, "writing bank conflicts");
    }
    sqlite3_finalize(st);
    return rc;
}

/* The global requests of each (launch, pc, object), one transaction. */
int mh_db_put_requests(mh_db *db, const mh_pat_req *r, size_t n, mh_err *err) {
    int rc = mh_db_begin(db, err);
    if (rc) return rc;
    sqlite3_stmt *st;
    rc = mh_db_prepare(db, &st,
                       "INSERT INTO global_request(launch, pc, object, kind, requests, sectors, ideal_sectors,"
                       " lines, ideal_lines) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                       err);
    for (size_t i = 0; i < n && !rc; i++) {
        sqlite3_bind_int64(st, 1, r[i].launch);
        mh_db_bind_u64(st, 2, r[i].pc);
        if (r[i].obj >= 0) sqlite3_bind_int64(st, 3, r[i].obj);
        else sqlite3_bind_null(st, 3);
        mh_db_bind_text(st, 4, mh_kind_name(r[i].kind));
        mh_db_bind_u64(st, 5, r[i].requests);
        mh_db_bind_u64(st, 6, r[i].sectors);
        mh_db_bind_u64(st, 7, r[i].ideal_sectors);
        mh_db_bind_u64(st, 8, r[i].lines);
        mh_db_bind_u64(st, 9, r[i].ideal_lines);
        rc = mh_db_step_done(db, st, err, "writing global requests");
    }
    sqlite3_finalize(st); /* NULL when the prepare failed: a no-op */
    if (!rc) rc = mh_db_commit(db, err);
    if (rc) mh_db_rollback(db);
    return rc;
}

int mh_db_put_findings(mh_db *db, const mh_pat_finding *f, size_t n, const mh_bank_table *bt, mh_err *err) {
    int rc = mh_db_begin(db, err);
    if (rc) return rc;
    rc = put_findings_tx(db, f, n, bt, err);
    if (!rc) rc = mh_db_commit(db, err);
    if (rc) mh_db_rollback(db);
    return rc;
}

