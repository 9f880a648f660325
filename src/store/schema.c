/* schema.c -- the profile database schema, version MH_DB_SCHEMA_VERSION.
 *
 * One string so that the schema lives in one place (the columns of the timing
 * records, of the trace's device and of the kernel table come from their
 * field lists, memheat/timing_fields.h, memheat/trace_fields.h and
 * kernel_columns.h);
 * docs/profile-schema.md describes every table and column. Raising the version: add the new tables
 * here, bump MH_DB_SCHEMA_VERSION, and teach mh_db_open to read the old one.
 * Version 3 adds the process table and a `process` column (the process row
 * that produced it) on device, launch, object, dropped, launch_config,
 * kernel_run, copy, kernel and finding; version 1 and 2 profiles are read as
 * they are: one process, no process table (src/store/process.c). The
 * kernel table's last column, `verdict` (the figures of the bound verdict,
 * JSON), was added within version 3: readers ask whether it is there
 * (src/store/read.c), merging fills NULL where a profile lacks it. The
 * object table's kernel-argument columns (arg .. used_hi) were added to
 * version 3 without a bump: older profiles lack them and read as before
 * (read.c probes for them), older memheat ignores them. Likewise within
 * version 3: heat_row.kinds (the access kinds per word, packed) and
 * bank_conflict.banks (the worst request's distinct words per bank); a
 * profile without them reads as "kinds unknown" and "no per-bank figures".
 * Also within version 3: heat_map.rows_of (a merge keeps a map's rows once
 * and the other maps of the same content share them, heat_share.c); for the
 * estimated savings of src/report/fixes.c, bank_conflict.ideal/extra/kind (a pc's wavefronts without
 * conflicts, its extra ones, load/store/atomic), the global_request table
 * (sectors of each (launch, pc, object)'s warp requests) and
 * kernel_run.timed (how a launch's time was taken: NULL clean,
 * instrumented, borrowed, replayed); a profile without them has no
 * estimate from them (fixes.c says so).
 * Version 4 adds the call sites: tables site and site_config and the
 * launch's `site` column; a version-3 profile reads with no sites. */
#include "db_internal.h"
#include "memheat/timing_fields.h"
#include "memheat/trace_fields.h"
#include "kernel_columns.h"

const char mh_db_schema_sql[] =
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);\n"
    "CREATE TABLE run(id INTEGER PRIMARY KEY CHECK(id = 1), command TEXT, argv TEXT,\n"
    "  backend TEXT, producer TEXT, note TEXT, memheat_version TEXT,\n"
    "  start_unix_ns INTEGER, end_unix_ns INTEGER, exit_status INTEGER, trace_path TEXT);\n"
    "CREATE TABLE device(id INTEGER PRIMARY KEY, source TEXT NOT NULL, ordinal INTEGER,\n"
    "  name TEXT" MH_TRACE_DEVICE_FIELDS(MH_TDF_SQL_COLUMN, MH_TDF_SQL_COLUMN_C)
    ", peak_Bps REAL, measured_peak_Bps REAL, process INTEGER);\n"
    "CREATE TABLE launch(id INTEGER PRIMARY KEY, name TEXT NOT NULL, display_name TEXT,\n"
    "  grid_x INTEGER, grid_y INTEGER, grid_z INTEGER, block_x INTEGER, block_y INTEGER,\n"
    "  block_z INTEGER, dyn_smem INTEGER, static_smem INTEGER, regs INTEGER, stream INTEGER,\n"
    "  n_blocks INTEGER, n_sampled INTEGER, sampled TEXT, threads_per_block INTEGER,\n"
    "  warps_per_block INTEGER, ended INTEGER, recorded INTEGER, dropped INTEGER, gpu_ns INTEGER, process INTEGER,\n"
    "  site INTEGER);\n"
    /* version 4: call sites (analyses/sites.h) and every launch counted per site */
    "CREATE TABLE site(id INTEGER PRIMARY KEY, label TEXT, file TEXT, line INTEGER, function TEXT,\n"
    "  code TEXT, scope TEXT, nvtx TEXT, kind TEXT, forward INTEGER, launches INTEGER, frames TEXT,\n"
    "  process INTEGER);\n"
    "CREATE TABLE site_config(id INTEGER PRIMARY KEY, site INTEGER, name TEXT, grid_x INTEGER, grid_y INTEGER,\n"
    "  grid_z INTEGER, block_x INTEGER, block_y INTEGER, block_z INTEGER, dyn_smem INTEGER,\n"
    "  launches INTEGER, process INTEGER);\n"
    "CREATE TABLE object(id INTEGER PRIMARY KEY, launch INTEGER, base INTEGER, size INTEGER,\n"
    "  space TEXT, label TEXT, live_at_end INTEGER, process INTEGER,\n"
    /* kernel-argument views (no version bump: readers probe for the columns) */
    "  arg INTEGER, arg_type TEXT, arg_name TEXT, parent INTEGER, used_lo INTEGER, used_hi INTEGER);\n"
    "CREATE TABLE dropped(id INTEGER PRIMARY KEY, launch INTEGER, count INTEGER, reason TEXT, process INTEGER);\n"
    "CREATE TABLE launch_config(id INTEGER PRIMARY KEY, name TEXT NOT NULL, grid_x INTEGER,\n"
    "  grid_y INTEGER, grid_z INTEGER, block_x INTEGER, block_y INTEGER, block_z INTEGER,\n"
    "  dyn_smem INTEGER, launches INTEGER, traced INTEGER, process INTEGER);\n"
    "CREATE TABLE pcinfo(pc INTEGER PRIMARY KEY, function TEXT, file TEXT, line INTEGER);\n"
    "CREATE TABLE heat_map(id INTEGER PRIMARY KEY, launch INTEGER NOT NULL REFERENCES launch(id),\n"
    "  space TEXT NOT NULL, sector_size INTEGER, accesses INTEGER, nrows INTEGER, max_temp INTEGER,\n"
    /* merged profiles: the map whose rows it shares (no version bump: readers probe; heat_share.c) */
    "  rows_of INTEGER);\n"
    "CREATE INDEX heat_map_launch ON heat_map(launch);\n"
    "CREATE TABLE heat_region(map INTEGER NOT NULL REFERENCES heat_map(id), idx INTEGER NOT NULL,\n"
    "  object INTEGER, label TEXT, start INTEGER, end INTEGER, first_tag INTEGER, last_tag INTEGER,\n"
    "  first_row INTEGER, nrows INTEGER, PRIMARY KEY(map, idx)) WITHOUT ROWID;\n"
    "CREATE TABLE heat_row(map INTEGER NOT NULL, row INTEGER NOT NULL, tag INTEGER NOT NULL,\n"
    "  region INTEGER, w0 INTEGER, w1 INTEGER, w2 INTEGER, w3 INTEGER, w4 INTEGER, w5 INTEGER,\n"
    "  w6 INTEGER, w7 INTEGER, sector INTEGER,\n"
    /* access kinds, 3 bits per word (no version bump: readers probe for the column) */
    "  kinds INTEGER, PRIMARY KEY(map, row)) WITHOUT ROWID;\n"
    /* kernel_run and copy: columns from the timing records' field lists */
    "CREATE TABLE kernel_run(id INTEGER PRIMARY KEY" MH_TIMING_KERNEL_FIELDS(MH_TF_SQL_COLUMN)
    ", has_counters INTEGER" MH_TIMING_COUNTER_FIELDS(MH_TF_SQL_COLUMN) ", process INTEGER,\n"
    /* how the time was taken (no version bump: readers probe) */
    "  timed TEXT);\n"
    "CREATE TABLE copy(id INTEGER PRIMARY KEY, kind TEXT" MH_TIMING_COPY_FIELDS(MH_TF_SQL_COLUMN)
    ",\n  value INTEGER, process INTEGER);\n"
    "CREATE TABLE kernel(id INTEGER PRIMARY KEY" MH_DB_KERNEL_COLUMNS(MH_DB_KCOL_SQL) ", process INTEGER,\n"
    "  verdict TEXT);\n"
    "CREATE TABLE overlap(id INTEGER PRIMARY KEY CHECK(id = 1), copy_in_ns REAL,\n"
    "  copy_out_ns REAL, compute_ns REAL, fused_ns REAL, exposed_copy_ns REAL,\n"
    "  wall_ns REAL, speedup REAL);\n"
    "CREATE TABLE locality(launch INTEGER NOT NULL, space TEXT NOT NULL, accesses INTEGER,\n"
    "  footprint INTEGER, footprint90 INTEGER, entropy REAL, local_share REAL,\n"
    "  PRIMARY KEY(launch, space)) WITHOUT ROWID;\n"
    "CREATE TABLE locality_curve(launch INTEGER NOT NULL, space TEXT NOT NULL,\n"
    "  metric TEXT NOT NULL, bits INTEGER NOT NULL, value REAL,\n"
    "  PRIMARY KEY(launch, space, metric, bits)) WITHOUT ROWID;\n"
    "CREATE TABLE finding(id INTEGER PRIMARY KEY, launch INTEGER, space TEXT, object INTEGER,\n"
    "  object_label TEXT, kind TEXT NOT NULL, cost REAL, sectors INTEGER, example_tag INTEGER,\n"
    "  temps TEXT, stride INTEGER, pc INTEGER, file TEXT, line INTEGER, evidence TEXT,\n"
    "  advice TEXT, process INTEGER);\n"
    "CREATE INDEX finding_launch ON finding(launch);\n"
    "CREATE TABLE bank_conflict(launch INTEGER NOT NULL, pc INTEGER NOT NULL, degree REAL,\n"
    "  max_degree INTEGER, accesses INTEGER,\n"
    /* the worst request's words per bank, JSON (no version bump: readers probe) */
    "  banks TEXT,\n"
    /* ideal and extra wavefronts, load/store/atomic (no version bump: readers probe) */
    "  ideal INTEGER, extra INTEGER, kind TEXT, object INTEGER, PRIMARY KEY(launch, pc)) WITHOUT ROWID;\n"
    /* the warp requests of each (launch, pc, object) in global memory (no version bump) */
    "CREATE TABLE global_request(launch INTEGER NOT NULL, pc INTEGER NOT NULL, object INTEGER,\n"
    "  kind TEXT, requests INTEGER, sectors INTEGER, ideal_sectors INTEGER, lines INTEGER,\n"
    "  ideal_lines INTEGER);\n"
    "CREATE INDEX global_request_launch ON global_request(launch);\n"
    "CREATE TABLE camp_band(id INTEGER PRIMARY KEY, kernel TEXT NOT NULL, device TEXT, warps TEXT,\n"
    "  best_ms TEXT, worst_ms TEXT, kernel_ms TEXT, measured_warps REAL, measured_ms REAL,\n"
    "  degree REAL, band_closed INTEGER);\n"
    "CREATE TABLE document(kind TEXT PRIMARY KEY, json TEXT NOT NULL);\n"
    /* version 3: the processes of the run (one per trace or timing file) */
    "CREATE TABLE process(id INTEGER PRIMARY KEY, pid INTEGER, ppid INTEGER, host TEXT, command TEXT,\n"
    "  rank INTEGER, local_rank INTEGER, world_size INTEGER, ompi_rank INTEGER, pmi_rank INTEGER,\n"
    "  slurm_procid INTEGER, devices TEXT, trace_file TEXT, timing_file TEXT, source TEXT);\n"
    "CREATE INDEX launch_process ON launch(process);\n";
