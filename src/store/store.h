/* store.h -- the profile database: one SQLite file per `memheat run`.
 *
 * A profile must outlive the terminal: users keep runs, open them later, share
 * them and compare before/after an optimization. Everything a report or a diff
 * shows is read from this file; the raw trace is optional. The schema is
 * versioned (PRAGMA user_version + meta.schema_version) and documented in
 * docs/profile-schema.md. Every write is a parameterized statement; each batch
 * (one heat map, the launch table, the timing results, ...) is one transaction,
 * or one savepoint of a large transaction (mh_db_batch_begin, used by the
 * import), and meta.complete stays '0' until mh_db_finish(), so a run cut
 * short leaves a valid database that says it is incomplete.
 *
 * Readers (report, diff) get the profile as jansson objects: mh_db_read_summary()
 * for everything except heat-map rows, which are streamed per map by
 * mh_db_read_heat() because a map may hold millions of sectors. */
#ifndef MH_STORE_STORE_H
#define MH_STORE_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "analyses/heat.h"
#include "analyses/locality.h"
#include "analyses/model.h"
#include "analyses/patterns.h"
#include "memheat/err.h"
#include "memheat/trace.h"

#define MH_DB_SCHEMA_VERSION 4 /* 2: launch_config; 3: process; 4: call sites; older profiles are read as they are */
#define MH_DB_APPLICATION_ID 0x4D485046 /* "MHPF": PRAGMA application_id */
#define MH_DB_FORMAT "memheat-profile"  /* meta.format */

typedef struct mh_db mh_db;
struct json_t;

/* Progress for long work: called now and then with a short status line
 * ("importing trace: 12 chunks, 3 launches"); done = 1 on the last call. */
typedef void (*mh_db_progress_fn)(void *ctx, const char *line, int done);

/* mh_db_open flags */
#define MH_DB_WRITABLE 2u  /* open for writing (import of more results) */
#define MH_DB_OWN 4u       /* a profile this process has just written or checked (the parts of a
                            * run's import, the inputs of `memheat merge`): no page check */

/* Creates a new profile at path (an existing file is replaced only when
 * overwrite is set; otherwise MH_ERR_ARG). Writes the schema and the meta rows
 * with complete = '0' in one transaction. */
int mh_db_create(mh_db **db, const char *path, int overwrite, mh_err *err);
/* The same at path, with errors naming `name` (a profile written to a
 * temporary file and renamed to name when complete, util/outfile.h). */
int mh_db_create_named(mh_db **db, const char *path, const char *name, int overwrite, mh_err *err);
/* Opens an existing profile and checks that it is one, the same way for
 * every reader (one line naming the file and the problem): zero-length file
 * -> MH_ERR_EMPTY; not SQLite, or SQLite of another application, or a table
 * or column of its schema version missing -> MH_ERR_DB ("not a memheat
 * profile (missing table T)"); written by a newer schema -> MH_ERR_VERSION;
 * damaged pages (PRAGMA integrity_check, unless MH_DB_OWN) -> MH_ERR_CORRUPT. */
int mh_db_open(mh_db **db, const char *path, unsigned flags, mh_err *err);
void mh_db_close(mh_db *db);
const char *mh_db_path(const mh_db *db);

/* ---- writing ---- */
typedef struct mh_db_run_info {
    char *const *argv;      /* profiled command, NULL-terminated; NULL = unknown */
    const char *backend;    /* "cuda", "oclgrind", "synthetic", ... */
    const char *memheat_version;
    uint64_t start_unix_ns, end_unix_ns;
    int exit_status;        /* the program's; -1 = unknown */
    const char *trace_path; /* kept raw trace, NULL/"" = not kept */
} mh_db_run_info;

int mh_db_put_run(mh_db *db, const mh_db_run_info *ri, mh_err *err);
/* Trace header: producer, command, note, device. */
int mh_db_put_header(mh_db *db, const mh_trace_header *h, mh_err *err);
/* Launches, data objects, dropped counts and pc attribution of a model (one transaction). */
int mh_db_put_model(mh_db *db, const mh_model *m, mh_err *err);
/* One launch (INSERT OR REPLACE): used before its heat map is stored. */
int mh_db_put_launch(mh_db *db, const mh_model_launch *ml, mh_err *err);
/* One heat map: map row, its regions and all rows, in one transaction.
 * *map_id (may be NULL) receives the new map's id. */
int mh_db_put_heat(mh_db *db, const mh_heat_result *r, int64_t *map_id, mh_err *err);
/* Locality metrics of one launch (with the launch row), one transaction. */
int mh_db_put_locality(mh_db *db, const mh_loc_result *r, mh_err *err);
/* Findings (in the given order) and the bank-conflict table (may be NULL),
 * one transaction. */
int mh_db_put_findings(mh_db *db, const mh_pat_finding *f, size_t n, const mh_bank_table *bt, mh_err *err);
/* The warp requests in global memory of every (launch, pc, object)
 * (mh_pat_requests), one transaction: what the estimated savings
 * (src/report/fixes.c) weigh a finding's excess sectors against. */
int mh_db_put_requests(mh_db *db, const mh_pat_req *r, size_t n, mh_err *err);
/* A timing (docs/timing.md) and its analysis (rep = mh_bw_analyze(t): the
 * caller's, the store runs none), one transaction: devices, kernel runs,
 * copies, per-name statistics with bandwidth and bound verdicts, overlap;
 * json = the file's text, kept in the document table under "timing" (NULL:
 * none kept). Loading and analysing a file: import.h's mh_db_import_timing. */
struct mh_timing;
struct mh_bw_report;
int mh_db_put_timing(mh_db *db, const struct mh_timing *t, const struct mh_bw_report *rep, const char *json,
                     mh_err *err);
/* A JSON document kept verbatim (kind: "timing", "findings", "locality",
 * "camp", ...). Replaces an earlier one of the same kind. */
int mh_db_put_document(mh_db *db, const char *kind, const char *json, mh_err *err);
/* A partition-camping band (src/analyses/camp.h) of one kernel, for the
 * report's CampProf chart. Replaces an earlier band of the same kernel. */
struct mh_camp_band;
int mh_db_put_camp(mh_db *db, const char *kernel, const char *device, const struct mh_camp_band *b, mh_err *err);
/* Large transactions: between these two calls every write above joins one
 * transaction (each batch a savepoint, so a failed one rolls back alone),
 * saving a commit per heat map. A crash loses the open transaction only; the
 * file stays valid. Commit before another writer (timing import) or close. */
int mh_db_batch_begin(mh_db *db, mh_err *err);
int mh_db_batch_commit(mh_db *db, mh_err *err);
/* meta key/value (INSERT OR REPLACE). */
int mh_db_set_meta(mh_db *db, const char *key, const char *value, mh_err *err);
/* meta value of key ("" when absent). */
int mh_db_get_meta(mh_db *db, const char *key, char *out, size_t cap, mh_err *err);
/* One line when the profile does not hold a whole run (meta.complete '0':
 * interrupted; meta.trace_complete '0': built from an incomplete trace);
 * returns 1 then (commands exit 4), else 0 with out = "". */
int mh_db_notice(mh_db *db, char *out, size_t cap);
/* For a profile written to a temporary file that is renamed into place only
 * when complete (util/outfile.h), such as `memheat merge`'s: the rollback
 * journal kept in memory and no syncs until mh_db_finish, which syncs. A
 * crash before then leaves the temporary file unusable, never the profile. */
int mh_db_scratch(mh_db *db, mh_err *err);
/* Marks the profile complete (meta.complete = '1'). */
int mh_db_finish(mh_db *db, mh_err *err);

/* ---- processes (schema 3; src/store/process.c) ---- */
/* A process row (pid, parent, host, command, ranks, device UUIDs) and the
 * files it wrote (NULL: none); *id (may be NULL) receives its id. */
int mh_db_put_process(mh_db *db, const mh_process *p, const char *trace_file, const char *timing_file,
                      int64_t *id, mh_err *err);
/* Sets process = id on every row written since the last tag (process IS NULL). */
int mh_db_tag_process(mh_db *db, int64_t id, mh_err *err);
typedef struct mh_db_merge_info {
    int64_t first_process; /* id of its first process in db */
    int64_t processes;     /* processes it added */
    int64_t launches;      /* launches it added */
    int complete;          /* the source said meta.complete = '1' */
    int64_t heat_shared;   /* its heat maps that share the rows of a map of the same content */
} mh_db_merge_info;
/* Appends the profile at src_path to db (one transaction): launch, object,
 * heat-map, device and process ids are renumbered past db's, every row of
 * every table is kept (a schema 1 or 2 profile joins as one process), the
 * rows of a heat map whose content db holds already (another rank's map of
 * the same launch) kept once: the new map shares them (heat_map.rows_of). A
 * profile of another schema (newer) is refused with MH_ERR_VERSION. */
int mh_db_merge(mh_db *db, const char *src_path, mh_db_merge_info *info, mh_err *err);

/* The whole import that `memheat run` calls after its passes (mh_db_import)
 * is import/import.h: it runs the analyses, so it lives above the store. */

/* ---- reading ---- */
/* Everything but heat rows, as one JSON object (shape in docs/profile-schema.md,
 * "Reader view"): meta, run, device, launches, objects, heat_maps (with
 * regions), kernels (per-name statistics), kernel_runs, copies, overlap,
 * findings, locality, camp, dropped. *out is a new reference. */
int mh_db_read_summary(mh_db *db, struct json_t **out, mh_err *err);

typedef struct mh_db_heat_row {
    uint64_t tag;
    uint32_t word[MH_HEAT_WORDS];
    uint32_t sector;
    int32_t region; /* index in the map's regions, -1 = none */
    uint32_t kinds; /* kinds per word packed (analyses/heat.h MH_HEAT_KINDS_OF); 0 = a profile without kinds */
} mh_db_heat_row;

/* Streams the rows of heat map map_id in tag order to fn (return non-zero to
 * stop; that value is returned). */
typedef int (*mh_db_heat_fn)(void *ctx, const mh_db_heat_row *row);
int mh_db_read_heat(mh_db *db, int64_t map_id, mh_db_heat_fn fn, void *ctx, mh_err *err);

/* ---- reading a profile of many ranks (src/store/rankread.c) ---- */
/* The narrow rows of every process, to compare ranks: "processes" (the
 * process rows with launches_traced, accesses, launches_run, kernel_ns,
 * counted_ns and dram_bytes: kernel time, that of the kernels with counters
 * and their DRAM bytes), "launches" (id, process, name, display_name, grid,
 * block, dyn_smem, recorded), "heat_maps" (id, launch, space, nrows,
 * rows_from: the map whose rows it reads, regions: "size:label|..."; maps of
 * equal rows_from and regions are the same heat map), "findings" (id,
 * launch, kind, space, object_label, cost) and "kernels" (name, process,
 * total_ns, bandwidth_Bps). A profile of schema 1 or 2: {}. *out: new reference. */
int mh_db_read_ranks(mh_db *db, struct json_t **out, mh_err *err);
/* Until mh_db_read_keep_end, the readers of db see only launches[0..nl)
 * (with their heat maps, findings, locality, bank conflicts, dropped counts
 * and the objects these name), the processes procs[0..np) and ref, only
 * process ref's devices, kernels, kernel and copy records and launch counts,
 * and each kernel's first partition-camping band. */
int mh_db_read_keep(mh_db *db, const int64_t *launches, size_t nl, const int64_t *procs, size_t np, int64_t ref,
                    mh_err *err);
void mh_db_read_keep_end(mh_db *db);

#endif
