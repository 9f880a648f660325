/* kernel_columns.h -- the columns of the profile's per-kernel-name table
 * `kernel`, declared once: X(column, SQL type, BRK, KIND, value) per column,
 * in table order (docs/profile-schema.md). schema.c takes the column and its
 * type for the CREATE TABLE (BRK as in memheat/timing_fields.h: NL starts a
 * new line, _ keeps it on the line); timing_import.c the INSERT and its
 * binds, where `value` is evaluated with s = the row's mh_timing_stats,
 * r = its mh_bw_row, h = it has counters, req/sec = requests/sectors summed;
 * total_ns, min_ns and max_ns are NULL for a kernel none of whose launches
 * has a clean time (MH_DB_KTIME).
 * KIND: I64 (sqlite3_bind_int64), U64, TEXT (NULL = NULL), REAL (NaN =
 * NULL), CTR (REAL, NULL without counters). The verdict's figures (JSON),
 * a column added within schema version 3, come after `process`, outside
 * this list (schema.c, timing_import.c). */
#ifndef MEMHEAT_STORE_KERNEL_COLUMNS_H
#define MEMHEAT_STORE_KERNEL_COLUMNS_H

#define MH_DB_KERNEL_COLUMNS(X)                                                                        \
    X(device, "INTEGER", _, I64, s->device)                                                            \
    X(name, "TEXT NOT NULL", _, TEXT, s->name ? s->name : "")                                          \
    X(count, "INTEGER", NL, U64, s->count)                                                             \
    X(total_ns, "INTEGER", _, REAL, MH_DB_KTIME(s, s->total_ns))                                       \
    X(min_ns, "INTEGER", _, REAL, MH_DB_KTIME(s, s->min_ns))                                           \
    X(median_ns, "REAL", _, REAL, s->median_ns)                                                        \
    X(max_ns, "INTEGER", _, REAL, MH_DB_KTIME(s, s->max_ns))                                           \
    X(with_counters, "INTEGER", NL, U64, s->with_counters)                                             \
    X(dram_bytes, "REAL", _, CTR, s->dram_bytes)                                                       \
    X(counted_ns, "REAL", _, CTR, s->counted_ns)                                                       \
    X(ld_requests, "REAL", _, CTR, s->ld_requests)                                                     \
    X(ld_sectors, "REAL", NL, CTR, s->ld_sectors)                                                      \
    X(st_requests, "REAL", _, CTR, s->st_requests)                                                     \
    X(st_sectors, "REAL", _, CTR, s->st_sectors)                                                       \
    X(flops_sp, "REAL", _, CTR, s->flops_sp)                                                           \
    X(flops_dp, "REAL", _, CTR, s->flops_dp)                                                           \
    X(occupancy_pct, "REAL", NL, CTR, s->occupancy_pct)                                                \
    X(warps_per_sm, "REAL", _, CTR, s->warps_per_sm)                                                   \
    X(bandwidth_Bps, "REAL", _, CTR, r->eff_Bps)                                                       \
    X(pct_peak, "REAL", _, CTR, r->frac_theoretical * 100.0)                                           \
    X(pct_measured_peak, "REAL", NL, CTR, r->frac_measured * 100.0)                                    \
    X(sectors_per_request, "REAL", _, REAL, h && req > 0 ? sec / req : NAN)                            \
    X(intensity, "REAL", _, CTR, r->ai)                                                                \
    X(bound, "TEXT", _, TEXT, mh_verdict_short(r->verdict))

/* A time figure of row s: NULL (NaN) when no launch of the kernel has a
 * clean time (mh_timing_measured), else the integer nanoseconds. */
#define MH_DB_KTIME(s, v) ((s)->unmeasured < (s)->count ? (double)(v) : NAN)

/* CREATE TABLE text of one column, with its separator (MH_TF_SEP_* of timing_fields.h) */
#define MH_DB_KCOL_SQL(col, type, BRK, KIND, v) MH_TF_SEP_##BRK #col " " type
/* INSERT: ", col" and ",?" */
#define MH_DB_KCOL_NAME(col, type, BRK, KIND, v) ", " #col
#define MH_DB_KCOL_QMARK(col, type, BRK, KIND, v) ",?"

#endif
