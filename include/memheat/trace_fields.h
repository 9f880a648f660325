/* trace_fields.h -- the device fields of the trace header, declared once.
 *
 * MH_TRACE_DEVICE_FIELDS(X, C) lists the fields of mh_device after its name,
 * in the order of the struct, of the header record (docs/trace-format.md:
 * after version and start time, each U32 as 4 bytes and each U64 as 8, then
 * the name and the other strings) and of the profile's device table
 * (docs/profile-schema.md). X(KIND, field, BRK) is a field of the trace;
 * C(column, BRK) a column of the device table between them that only a
 * timing file fills (timing_fields.h, MH_TIMING_DEVICE_FIELDS). From it come
 * the struct members (trace.h), the header's writer and reader
 * (src/trace/writer.c, reader.c), the table's columns (src/store/schema.c)
 * and the INSERT with its binds (src/store/put.c). Adding a field is one line
 * here plus a trace format version and, for the profile, a schema version.
 *
 *  KIND  C member    record bytes   SQL column
 *  U32   uint32_t f  4              INTEGER
 *  U64   uint64_t f  8              INTEGER
 *  BRK   layout of the CREATE TABLE text, as in timing_fields.h: NL starts a
 *        new line before the column, _ keeps it on the line. */
#ifndef MEMHEAT_TRACE_FIELDS_H
#define MEMHEAT_TRACE_FIELDS_H

#include "memheat/timing_fields.h" /* MH_TF_MEMBER_*, MH_TF_SEP_*, MH_TF_SQL_* */

#define MH_TRACE_DEVICE_FIELDS(X, C)                                                         \
    X(U32, flags, _)            /* MH_DEV_* */                                               \
    X(U32, warp_size, _)        /* threads per warp used to group accesses */                \
    X(U32, sector_size, _)      /* bytes, 32 on NVIDIA GPUs */                               \
    X(U32, sm_count, _)         /* 0 = unknown */                                            \
    X(U32, cc_major, NL)                                                                     \
    X(U32, cc_minor, _)                                                                      \
    C(sm_clock_khz, _)                                                                       \
    X(U32, mem_clock_khz, _)    /* 0 = unknown */                                            \
    X(U32, bus_width_bits, NL)  /* 0 = unknown */                                            \
    X(U32, l2_bytes, _)         /* 0 = unknown */                                            \
    X(U32, max_warps_per_sm, _) /* 0 = unknown */                                            \
    C(max_threads_per_sm, NL)                                                                \
    X(U64, global_mem_bytes, _) /* 0 = unknown */

/* ---- expansions ---- */
#define MH_TDF_NONE(col, BRK)
/* struct members */
#define MH_TDF_MEMBER(KIND, f, BRK) MH_TF_MEMBER_##KIND(f);
/* bytes in the header record */
#define MH_TDF_BYTES_U32 4
#define MH_TDF_BYTES_U64 8
#define MH_TDF_BYTES(KIND, f, BRK) +MH_TDF_BYTES_##KIND
/* CREATE TABLE columns (every column) */
#define MH_TDF_SQL_COLUMN(KIND, f, BRK) MH_TF_SEP_##BRK MH_TF_SQL_##KIND(f)
#define MH_TDF_SQL_COLUMN_C(col, BRK) MH_TF_SEP_##BRK MH_TF_SQL_U32(col)
/* INSERT of the trace's fields: ", name" per column and ",?" per value */
#define MH_TDF_SQL_NAMES(KIND, f, BRK) ", " #f
#define MH_TDF_SQL_QMARKS(KIND, f, BRK) ",?"

#endif
