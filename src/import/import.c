/* import.c -- the import `memheat run` ends with (mh_db_import, declared in
 * import.h): the trace goes through one mh_pass (pass.h) with every analysis,
 * and the profile database is a consumer of its results; then the timing
 * file. This file sits above both the analyses and the store: the store only
 * writes what it is given.
 *
 * Streaming: each heat map is written (with its launch) the moment its
 * launch ends, so memory stays bounded by the launches in flight; writes go
 * into large transactions committed every 2^20 heat rows or 256 batches, so
 * a crash part-way leaves every map committed before it in a valid database
 * that says complete = '0'. Damage rules are the pass's: the
 * records before a cut or a damaged chunk are analysed and stored, then the
 * error is returned. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/import.h"
#include "pass/pass.h"
#include "store/store.h"
#include "util/outfile.h"

/* Writes go into large transactions (mh_db_batch_begin), committed every
 * COMMIT_ROWS heat rows or COMMIT_BATCHES batches: one commit per heat map
 * cost more than the map itself for traces of many small launches. */
#define COMMIT_ROWS (1u << 20)
#define COMMIT_BATCHES 256u

typedef struct import_ctx {
    mh_db *db;
    const mh_db_import_opts *o;
    uint64_t rows;   /* heat rows since the last commit */
    unsigned batches; /* batches since the last commit */
} import_ctx;

static int maybe_commit(import_ctx *c, uint64_t rows, mh_err *err) {
    c->rows += rows;
    if (++c->batches < COMMIT_BATCHES && c->rows < COMMIT_ROWS) return MH_OK;
    c->rows = 0;
    c->batches = 0;
    int rc = mh_db_batch_commit(c->db, err);
    return rc ? rc : mh_db_batch_begin(c->db, err);
}

static int on_heat(void *vctx, const mh_heat_result *r, mh_err *err) {
    import_ctx *c = vctx;
    int rc = mh_db_put_launch(c->db, r->launch, err);
    if (!rc) rc = mh_db_put_heat(c->db, r, NULL, err);
    return rc ? rc : maybe_commit(c, r->nrows, err);
}

static int on_loc(void *vctx, const mh_loc_result *r, mh_err *err) {
    import_ctx *c = vctx;
    int rc = mh_db_put_locality(c->db, r, err);
    return rc ? rc : maybe_commit(c, 0, err);
}

/* The pass's status lines go on as import progress; the last one is ours. */
static void on_progress(void *vctx, const char *line, int done) {
    const mh_db_import_opts *o = vctx;
    (void)done;
    char buf[256];
    snprintf(buf, sizeof buf, "importing trace: %s", line);
    o->progress(o->progress_ctx, buf, 0);
}

static int import_trace(mh_db *db, const mh_db_import_opts *o, mh_err *err) {
    mh_pass_opts po = {0};
    po.analyses = MH_PASS_HEAT | MH_PASS_PATTERNS | MH_PASS_LOCALITY;
    po.group_budget = o->group_budget;
    po.threads = o->threads;
    if (o->progress) {
        po.progress = on_progress;
        po.progress_ctx = (void *)o;
    }
    mh_model m;
    mh_pass *p;
    int rc = mh_pass_open(&p, o->trace_path, &m, &po, err);
    if (rc) { /* not even its header: the profile holds no trace, and says so */
        mh_err tmp;
        mh_db_set_meta(db, "trace_complete", "0", &tmp);
        return rc;
    }
    import_ctx ctx = {db, o, 0, 0};
    mh_pass_consumer c = {.ctx = &ctx, .heat = on_heat, .loc = on_loc};
    rc = mh_db_batch_begin(db, err);
    if (!rc) rc = mh_db_put_header(db, &m.hdr, err);
    if (!rc) rc = mh_pass_add(p, &c, err);
    if (!rc) rc = mh_pass_run(p, err);
    const mh_pass_stats *st = mh_pass_stats_get(p);
    int truncated = rc == MH_ERR_TRUNCATED && st->truncated;
    if (truncated) rc = MH_OK; /* keep what the whole chunks held */
    mh_err tmp = {0};
    /* after damage the pass still finished the analyses: store the findings */
    if (!rc || st->partial) {
        /* every analysis's findings, most costly first (mh_pass_results),
         * copied into one array for the store; the banks are the patterns' */
        const mh_pat_run *pr = mh_pass_patterns(p);
        mh_pass_results *res = pr ? mh_pass_take_results(p) : NULL;
        size_t nf = 0;
        const mh_pat_finding *const *fp = res ? mh_pass_results_findings(res, &nf) : NULL;
        mh_pat_finding *f = res ? malloc((nf ? nf : 1) * sizeof *f) : NULL;
        for (size_t i = 0; f && i < nf; i++) f[i] = *fp[i];
        const mh_pat_run *pres = res ? mh_pass_results_run(res, MH_PASS_ROW(MH_PASS_PATTERNS)) : NULL;
        int frc = MH_OK;
        if (pr && !f) frc = mh_err_set(rc ? &tmp : err, MH_ERR_NOMEM, "out of memory");
        else if (pr) frc = mh_db_put_findings(db, f, nf, mh_pat_banks(pres), rc ? &tmp : err);
        free(f);
        /* the global warp requests the estimated savings weigh findings against */
        size_t nq = 0;
        const mh_pat_req *q = pres ? mh_pat_requests(pres, &nq) : NULL;
        if (!frc && nq) frc = mh_db_put_requests(db, q, nq, rc ? &tmp : err);
        mh_pass_results_free(res);
        if (!rc) rc = frc;
    }
    uint64_t chunks = st->chunks, maps = st->maps, sectors = st->sectors;
    /* records skipped or no end record: kept as incomplete, said in one line */
    char note[1024];
    int noted = mh_pass_notice(st, o->trace_path, note, sizeof note);
    int complete = st->complete && !noted;
    char skipped[32];
    snprintf(skipped, sizeof skipped, "%llu", (unsigned long long)st->skipped_total);
    mh_pass_close(p);
    /* launches, objects and drops are stored even after an error above, so
     * the profile holds everything that was read */
    /* call sites symbolised (libdw) and judged here, once: the store writes them as they are */
    int rc2 = mh_sites_resolve(&m.sites, NULL, rc ? &tmp : err);
    if (!rc2) rc2 = mh_db_put_model(db, &m, rc ? &tmp : err);
    mh_model_free(&m);
    if (!rc) rc = rc2;
    if (!rc) rc = mh_db_set_meta(db, "trace_complete", complete && !truncated ? "1" : "0", err);
    if (!rc) rc = mh_db_set_meta(db, "trace_skipped_records", skipped, err);
    /* what was written is kept even after an error (each failed batch rolled back alone) */
    int rc3 = mh_db_batch_commit(db, rc ? &tmp : err);
    if (!rc) rc = rc3;
    if (o->progress) {
        char line[200];
        snprintf(line, sizeof line, "imported trace: %llu chunks, %llu heat maps, %llu sectors",
                 (unsigned long long)chunks, (unsigned long long)maps, (unsigned long long)sectors);
        o->progress(o->progress_ctx, line, 1);
    }
    if (!rc && truncated)
        return mh_err_set(err, MH_ERR_TRUNCATED, "%s is cut short: imported up to its last whole chunk",
                          o->trace_path);
    if (!rc && noted) return mh_err_set(err, MH_ERR_TRUNCATED, "%s", note);
    return rc;
}

/* The process row of this import: the trace's MH_REC_PROCESS record (right
 * after its header), else what the caller knows (o->pid). */
static int put_process(mh_db *db, const mh_db_import_opts *o, mh_err *err) {
    mh_process none = {.pid = o->pid, .rank = -1, .local_rank = -1, .world_size = -1, .ompi_rank = -1,
                       .pmi_rank = -1, .slurm_procid = -1};
    const char *timing = o->timing_path && o->timing_path[0] ? o->timing_path : o->timing_file;
    mh_trace_reader *r = NULL;
    mh_record rec = {0};
    if (o->trace_path && o->trace_path[0] && mh_trace_open(&r, o->trace_path, NULL) == MH_OK) {
        for (int i = 0; i < 4; i++) /* written first; older collectors write none */
            if (mh_trace_next(r, &rec, NULL) != MH_OK || rec.type == MH_REC_EOF || rec.type == MH_REC_PROCESS) break;
        if (rec.type == MH_REC_PROCESS && !rec.u.process.pid) rec.u.process.pid = o->pid;
    }
    int64_t id = 0;
    int rc = mh_db_put_process(db, rec.type == MH_REC_PROCESS ? &rec.u.process : &none, o->trace_path, timing, &id,
                               err);
    mh_trace_close_reader(r);
    return rc ? rc : mh_db_tag_process(db, id, err);
}

int mh_db_import(mh_db *db, const mh_db_import_opts *o, mh_err *err) {
    int rc = mh_db_put_run(db, &o->run, err);
    if (rc) return rc;
    int trunc = 0;
    mh_err terr = {0};
    if (o->trace_path && o->trace_path[0]) {
        rc = import_trace(db, o, &terr);
        if (rc == MH_ERR_TRUNCATED) {
            trunc = 1;
            rc = MH_OK;
        } else if (rc && err) {
            *err = terr;
        }
        if (rc) {
            mh_err_wrap(err, "importing trace %s", o->trace_path);
            return rc; /* the code, even when err is NULL */
        }
    }
    if (o->timing) {
        rc = mh_db_import_timing_loaded(db, o->timing, err);
        if (rc) return rc;
    } else if (o->timing_path && o->timing_path[0]) {
        rc = mh_db_import_timing(db, o->timing_path, err);
        if (rc) return rc;
    }
    rc = put_process(db, o, err);
    if (rc) return rc;
    rc = mh_db_finish(db, err);
    if (!rc && trunc) {
        if (err) *err = terr; /* what is missing: a cut, skipped records, no end record */
        return MH_ERR_TRUNCATED;
    }
    return rc;
}

/* Input problems (a cut, damage, a foreign trace) still leave a profile that
 * says what it holds; write problems (disk full, I/O, out of memory) do not. */
static int profile_usable(int rc) {
    return rc == MH_OK || rc == MH_ERR_TRUNCATED || rc == MH_ERR_CORRUPT || rc == MH_ERR_FORMAT ||
           rc == MH_ERR_VERSION || rc == MH_ERR_EMPTY;
}

/* Several processes: each into a profile of its own beside db_path, then
 * merged (process.c renumbers launches, objects, maps and processes). */
int mh_db_import_procs(const char *db_path, const mh_db_import_opts *o, const mh_db_import_proc *procs, size_t n,
                       mh_err *err) {
    if (n <= 1) {
        mh_db_import_opts one = *o;
        if (n == 1) {
            one.trace_path = procs[0].trace_path;
            one.timing_path = procs[0].timing_path;
            one.timing = procs[0].timing;
            one.pid = procs[0].pid;
        }
        return mh_db_import_trace(db_path, 1, &one, err);
    }
    /* written beside db_path and renamed over it when complete, as one process is */
    mh_outfile of;
    int rc = mh_outfile_begin(&of, db_path, MH_OUTFILE_FORCE, err);
    if (rc) return rc;
    mh_db *db;
    rc = mh_db_create_named(&db, of.tmp, db_path, 1, err);
    if (rc) {
        mh_outfile_abort(&of);
        return rc;
    }
    rc = mh_db_put_run(db, &o->run, err);
    int trunc = 0, complete = 1;
    size_t plen = strlen(db_path) + 32;
    char *tmp = malloc(plen);
    if (!tmp && !rc) rc = mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    for (size_t k = 0; k < n && !rc; k++) {
        snprintf(tmp, plen, "%s.p%zu.tmp", db_path, k);
        mh_db_import_opts one = *o;
        one.trace_path = procs[k].trace_path;
        one.timing_path = procs[k].timing_path;
        one.timing = procs[k].timing;
        one.pid = procs[k].pid;
        if (o->progress) {
            char line[200];
            snprintf(line, sizeof line, "process %zu of %zu", k + 1, n);
            o->progress(o->progress_ctx, line, 0);
        }
        int prc = mh_db_import_trace(tmp, 1, &one, err);
        if (prc == MH_ERR_TRUNCATED) {
            trunc = 1;
            prc = MH_OK;
        }
        mh_db_merge_info mi;
        if (!prc) prc = mh_db_merge(db, tmp, &mi, err);
        if (!prc && !mi.complete) complete = 0;
        remove(tmp);
        rc = prc;
    }
    free(tmp);
    if (!rc) rc = mh_db_set_meta(db, "trace_complete", complete && !trunc ? "1" : "0", err);
    if (!rc) rc = mh_db_finish(db, err);
    mh_db_close(db);
    if (rc) {
        mh_outfile_abort(&of);
        return rc;
    }
    if ((rc = mh_outfile_commit(&of, err)) != MH_OK) return rc;
    if (trunc)
        return mh_err_set(err, MH_ERR_TRUNCATED, "a process's trace is cut short: the profile holds its whole chunks");
    return rc;
}

int mh_db_import_trace(const char *db_path, int overwrite, const mh_db_import_opts *o, mh_err *err) {
    mh_outfile of;
    int rc = mh_outfile_begin(&of, db_path, overwrite ? MH_OUTFILE_FORCE : 0, err);
    if (rc) return rc;
    mh_db *db;
    rc = mh_db_create_named(&db, of.tmp, db_path, 1, err);
    if (rc) {
        mh_outfile_abort(&of);
        return rc;
    }
    rc = mh_db_import(db, o, err);
    mh_db_close(db);
    if (!profile_usable(rc)) {
        mh_outfile_abort(&of);
        return rc;
    }
    mh_err cerr = {0};
    int crc = mh_outfile_commit(&of, &cerr);
    if (crc) {
        if (err) *err = cerr;
        return crc;
    }
    return rc;
}
