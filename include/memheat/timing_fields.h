/* timing_fields.h -- the fields of the timing records, declared once.
 *
 * Each list is an X-macro: X(KIND, field, REQ, column, BRK) per field, in the
 * order of the struct, of the JSON object (docs/timing.md) and of the profile
 * columns (docs/profile-schema.md). From it are generated the struct members
 * (timing.h), the JSON writer and reader (src/timing/timing.c), the columns of
 * the profile's CREATE TABLE (src/store/schema.c) and the INSERT with its
 * binds (src/store/timing_import.c). Adding a field is one line here (plus the
 * docs and, for the profile, a schema version).
 *
 *  KIND    C member               JSON                       SQL column(s)
 *  U32     uint32_t f             integer                    INTEGER
 *  U64     uint64_t f             integer                    INTEGER
 *  STR256  char f[256]            string                     TEXT
 *  NAME    char *f (owned)        string (read by the caller) TEXT NOT NULL
 *  DIM3    uint32_t f[3]          [x, y, z]                  f_x, f_y, f_z INTEGER
 *  REAL    double f (NaN: none)   number, absent when NaN    REAL (NULL when none)
 *  REQ     JSON presence: REQ (a missing key is a format error) or OPT.
 *  column  the profile column's name (a DIM3 field gets _x, _y, _z).
 *  BRK     layout of the CREATE TABLE text: NL starts a new line before the
 *          column, _ keeps it on the line (the stored schema text stays as it
 *          was written by hand).
 *
 * Fields that are not plain values stay hand-written beside the list: the
 * kernel's timing mark and counters flag, a copy's kind (a name) and memset
 * value (written only for memsets). */
#ifndef MEMHEAT_TIMING_FIELDS_H
#define MEMHEAT_TIMING_FIELDS_H

/* One device (mh_timing_device; profile table device, source 'timing'). */
#define MH_TIMING_DEVICE_FIELDS(X)                                                           \
    X(U32, id, REQ, ordinal, _)                 /* CUDA device ordinal */                    \
    X(STR256, name, REQ, name, _)                                                            \
    X(U32, cc_major, OPT, cc_major, _)                                                       \
    X(U32, cc_minor, OPT, cc_minor, _)                                                       \
    X(U32, sm_count, OPT, sm_count, _)                                                       \
    X(U32, sm_clock_khz, OPT, sm_clock_khz, _)     /* CU_DEVICE_ATTRIBUTE_CLOCK_RATE (peak) */ \
    X(U32, mem_clock_khz, OPT, mem_clock_khz, _)   /* ..._MEMORY_CLOCK_RATE (peak) */          \
    X(U32, bus_width_bits, OPT, bus_width_bits, _) /* ..._GLOBAL_MEMORY_BUS_WIDTH */           \
    X(U64, l2_bytes, OPT, l2_bytes, _)                                                       \
    X(U64, global_mem_bytes, OPT, global_mem_bytes, _)                                       \
    X(U32, max_threads_per_sm, OPT, max_threads_per_sm, _)

/* One kernel launch as the GPU ran it (mh_timing_kernel; table kernel_run). */
#define MH_TIMING_KERNEL_FIELDS(X)                                                           \
    X(U64, seq, OPT, seq, _)            /* order of completion records in the pass (0-based) */ \
    X(NAME, name, REQ, name, _)         /* mangled name as CUPTI reports it (owned) */       \
    X(U32, device, OPT, device, NL)                                                          \
    X(U32, context, OPT, context, _)                                                         \
    X(U32, stream, OPT, stream, _)                                                           \
    X(U32, correlation, OPT, correlation, _)                                                 \
    X(U64, start_ns, REQ, start_ns, NL)                                                      \
    X(U64, end_ns, REQ, end_ns, _)                                                           \
    X(DIM3, grid, REQ, grid, _)                                                              \
    X(DIM3, block, REQ, block, NL)                                                           \
    X(U32, dyn_smem, OPT, dyn_smem, _)                                                       \
    X(U32, static_smem, OPT, static_smem, _)                                                 \
    X(U32, regs, OPT, regs, NL)

/* Hardware counters of one launch (mh_timing_counters; JSON object
 * "counters"; kernel_run columns after has_counters). */
#define MH_TIMING_COUNTER_FIELDS(X)                                                          \
    X(REAL, dram_read_bytes, OPT, dram_read_bytes, _)   /* dram__bytes_read.sum */           \
    X(REAL, dram_write_bytes, OPT, dram_write_bytes, _) /* dram__bytes_write.sum */          \
    X(REAL, ld_requests, OPT, ld_requests, NL) /* l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum */ \
    X(REAL, ld_sectors, OPT, ld_sectors, _)    /* l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum */  \
    X(REAL, st_requests, OPT, st_requests, _)  /* l1tex__t_requests_pipe_lsu_mem_global_op_st.sum */ \
    X(REAL, st_sectors, OPT, st_sectors, _)    /* l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum */  \
    X(REAL, occupancy_pct, OPT, occupancy_pct, NL) /* sm__warps_active.avg.pct_of_peak_sustained_active */ \
    X(REAL, warps_per_sm, OPT, warps_per_sm, _)    /* sm__warps_active.avg.per_cycle_active */ \
    X(REAL, flops_sp, OPT, flops_sp, _) /* fadd + fmul + 2*ffma thread instructions (FP32) */ \
    X(REAL, flops_dp, OPT, flops_dp, _) /* dadd + dmul + 2*dfma thread instructions (FP64) */ \
    X(REAL, replay_ns, OPT, replay_ns, _) /* gpu__time_duration.sum under replay (serialized) */

/* One memcpy or memset (mh_timing_copy; table copy), between its kind and
 * its memset value. */
#define MH_TIMING_COPY_FIELDS(X)                                                             \
    X(U32, device, OPT, device, _)                                                           \
    X(U32, context, OPT, context, _)                                                         \
    X(U32, stream, OPT, stream, NL)                                                          \
    X(U32, correlation, OPT, correlation, _)                                                 \
    X(U64, start_ns, REQ, start_ns, _)                                                       \
    X(U64, end_ns, REQ, end_ns, _)                                                           \
    X(U64, bytes, REQ, bytes, _)

/* ---- expansions shared by the users of the lists ---- */

/* struct members */
#define MH_TF_MEMBER_U32(f) uint32_t f
#define MH_TF_MEMBER_U64(f) uint64_t f
#define MH_TF_MEMBER_STR256(f) char f[256]
#define MH_TF_MEMBER_NAME(f) char *f
#define MH_TF_MEMBER_DIM3(f) uint32_t f[3]
#define MH_TF_MEMBER_REAL(f) double f
#define MH_TF_MEMBER(KIND, f, REQ, col, BRK) MH_TF_MEMBER_##KIND(f);

/* JSON presence: 1 when the key may be absent */
#define MH_TF_OPT_REQ 0
#define MH_TF_OPT_OPT 1

/* CREATE TABLE column text, with its separator from the previous column */
#define MH_TF_SEP__ ", "
#define MH_TF_SEP_NL ",\n  "
#define MH_TF_SQL_U32(c) #c " INTEGER"
#define MH_TF_SQL_U64(c) #c " INTEGER"
#define MH_TF_SQL_STR256(c) #c " TEXT"
#define MH_TF_SQL_NAME(c) #c " TEXT NOT NULL"
#define MH_TF_SQL_DIM3(c) #c "_x INTEGER, " #c "_y INTEGER, " #c "_z INTEGER"
#define MH_TF_SQL_REAL(c) #c " REAL"
#define MH_TF_SQL_COLUMN(KIND, f, REQ, col, BRK) MH_TF_SEP_##BRK MH_TF_SQL_##KIND(col)

/* INSERT: ", name" per column and ",?" per value */
#define MH_TF_NAMES_DIM3(c) ", " #c "_x, " #c "_y, " #c "_z"
#define MH_TF_NAMES_1(c) ", " #c
#define MH_TF_NAMES_U32 MH_TF_NAMES_1
#define MH_TF_NAMES_U64 MH_TF_NAMES_1
#define MH_TF_NAMES_STR256 MH_TF_NAMES_1
#define MH_TF_NAMES_NAME MH_TF_NAMES_1
#define MH_TF_NAMES_REAL MH_TF_NAMES_1
#define MH_TF_SQL_NAMES(KIND, f, REQ, col, BRK) MH_TF_NAMES_##KIND(col)
#define MH_TF_QMARKS_DIM3 ",?,?,?"
#define MH_TF_QMARKS_U32 ",?"
#define MH_TF_QMARKS_U64 ",?"
#define MH_TF_QMARKS_STR256 ",?"
#define MH_TF_QMARKS_NAME ",?"
#define MH_TF_QMARKS_REAL ",?"
#define MH_TF_SQL_QMARKS(KIND, f, REQ, col, BRK) MH_TF_QMARKS_##KIND

#endif
