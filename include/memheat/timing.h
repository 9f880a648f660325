/* timing.h -- the timing file format (src/timing/, docs/timing.md), a module
 * of its own beside the trace format: the GPU timeline and counters.
 *
 * The timing pass runs the program with libmemheat_cupti.so and nothing
 * instrumented: memcpy and memset records from CUPTI's Activity API, kernel
 * times from CUDA events around each launch (or CUPTI activity records), so
 * every kernel, memcpy and memset gets GPU start/end times while the program
 * runs at full speed. An optional
 * second pass collects per-kernel hardware counters through CUPTI range
 * profiling (kernel replay, serialized), and mh_timing_merge_counters() joins
 * them to the timeline by launch order. The result is one JSON file whose shape
 * is documented in docs/timing.md; this header is its in-memory form plus the
 * per-kernel-name aggregation (count, total, min, median, max).
 *
 * All times are nanoseconds on CUPTI's timestamp clock; all sizes are bytes. */
#ifndef MEMHEAT_TIMING_H
#define MEMHEAT_TIMING_H

#include <stddef.h>
#include <stdint.h>

#include "memheat/err.h"
#include "memheat/timing_fields.h"

#define MH_TIMING_FORMAT "memheat-timing"
#define MH_TIMING_VERSION 1

/* Kinds of copy-engine work in the timeline. */
enum mh_copy_kind {
    MH_COPY_OTHER = 0,
    MH_COPY_HTOD = 1,   /* host to device */
    MH_COPY_DTOH = 2,   /* device to host */
    MH_COPY_DTOD = 3,   /* device to device */
    MH_COPY_HTOH = 4,
    MH_COPY_PTOP = 5,   /* peer to peer */
    MH_COPY_MEMSET = 6  /* a memset (value in mh_timing_copy.value) */
};

/* Hardware counters of one kernel launch (range profiling). A value that was
 * not collected is NaN (JSON: the key is absent). */
typedef struct mh_timing_counters {
    MH_TIMING_COUNTER_FIELDS(MH_TF_MEMBER) /* timing_fields.h: the metric of each */
} mh_timing_counters;

typedef struct mh_timing_device {
    MH_TIMING_DEVICE_FIELDS(MH_TF_MEMBER) /* timing_fields.h */
} mh_timing_device;

/* One kernel launch as the GPU ran it. */
typedef struct mh_timing_kernel {
    MH_TIMING_KERNEL_FIELDS(MH_TF_MEMBER) /* timing_fields.h: seq, name, device, ..., grid, block, regs */
    int timed;                 /* enum mh_timed: how start/end were taken */
    int has_counters;
    mh_timing_counters c;
} mh_timing_kernel;

/* How a kernel's time was taken. In one run of the program (trace and timing
 * in one process) a traced launch runs instrumented code and its events also
 * bracket the trace's set-up and read-back; and a launch queued on a stream
 * whose earlier work had already finished has its start event fire before the
 * kernel is queued, so its span holds the host's launch gap too. Both are
 * marked, then given the median of the clean launches of their configuration
 * where there are some (mh_timing_borrow_times) or a replay time
 * (mh_timing_replay_times); what keeps a mark has no clean time: it is counted
 * but left out of every time figure (mh_timing_measured). JSON key "timed",
 * absent when clean. */
enum mh_timed {
    MH_TIMED_CLEAN = 0,        /* the launch ran as the program ran it, and its span is the kernel's */
    MH_TIMED_INSTRUMENTED = 1, /* measured while traced: longer than the program's own */
    MH_TIMED_BORROWED = 2,     /* duration: median of clean launches of the same configuration */
    MH_TIMED_REPLAYED = 3,     /* duration: its configuration's kernel-replay time from the counters run */
    MH_TIMED_GAP = 4           /* events around a launch on an idle stream: the span holds the launch gap */
};

/* 1 when the launch's duration counts in time figures (clean, borrowed or
 * replayed), 0 when it has no clean time (instrumented or gap). */
int mh_timing_measured(const mh_timing_kernel *k);

/* One memcpy or memset. */
typedef struct mh_timing_copy {
    int kind;                  /* enum mh_copy_kind */
    MH_TIMING_COPY_FIELDS(MH_TF_MEMBER) /* timing_fields.h: device, ..., start_ns, end_ns, bytes */
    uint32_t value;            /* memset value */
} mh_timing_copy;

/* What the counters pass did. */
typedef struct mh_timing_counter_info {
    int requested;             /* a counters pass was asked for */
    char status[32];           /* "ok", "partial", "unavailable", "failed", "" (not run) */
    char message[512];         /* why not ok */
    uint64_t ranges;           /* ranges decoded */
    uint64_t ranges_dropped;   /* CUPTI reported dropped */
    uint64_t matched;          /* launches joined to the timeline */
    uint32_t passes;           /* replay passes per kernel CUPTI needed */
    char metrics[1024];        /* the metrics profiled, comma-separated (those one pass holds) */
} mh_timing_counter_info;

/* One run of the program under the timing or counters pass. */
typedef struct mh_timing_run {
    int ran;
    int exit_status;
    uint64_t wall_ns;          /* end-to-end wall time as memheat saw it */
} mh_timing_run;

typedef struct mh_timing {
    char producer[64];
    char command[1024];
    char kernel_timing[16];    /* how kernel times were taken: "events", "activity" (or "none") */
    mh_timing_device *devices;
    size_t ndevices;
    mh_timing_kernel *kernels;
    size_t nkernels, cap_kernels;
    mh_timing_copy *copies;
    size_t ncopies, cap_copies;
    uint64_t dropped_records;  /* activity records CUPTI dropped */
    mh_timing_counter_info counters;
    mh_timing_run timing_run, counters_run;
    double measured_peak_Bps;  /* from `memheat calibrate --bandwidth`, 0 = none */
} mh_timing;

/* Per-kernel-name aggregate. */
typedef struct mh_timing_stats {
    const char *name;          /* borrowed from the mh_timing */
    uint32_t device;
    uint64_t count;
    uint64_t total_ns, min_ns, max_ns;
    double median_ns;          /* mean of the two middle values when count is even */
    uint64_t with_counters;    /* launches that have counters */
    uint64_t instrumented;     /* launches whose time was measured while traced (MH_TIMED_INSTRUMENTED) */
    uint64_t unmeasured;       /* launches without a clean time (!mh_timing_measured): counted in count,
                                * left out of total/min/max/median, which are over the others; when every
                                * launch is unmeasured, total_ns is 0 and median_ns NaN */
    double dram_bytes;         /* sum of read+write over launches with counters */
    double counted_ns;         /* sum of those launches' GPU time shares (mh_timing_shares): their
                                * durations, less the time they ran beside other kernels */
    uint64_t counted;          /* how many launches counted_ns sums */
    double ld_requests, ld_sectors, st_requests, st_sectors;
    double flops_sp, flops_dp;
    double occupancy_pct;      /* duration-weighted mean */
    double warps_per_sm;       /* duration-weighted mean */
} mh_timing_stats;

void mh_timing_init(mh_timing *t);
void mh_timing_free(mh_timing *t);
void mh_timing_counters_clear(mh_timing_counters *c); /* all NaN */

/* Appends (copying name); returns the new record or NULL when out of memory. */
mh_timing_kernel *mh_timing_add_kernel(mh_timing *t, const char *name);
mh_timing_copy *mh_timing_add_copy(mh_timing *t);
/* Adds a device if its id is new; returns its index or -1 (out of memory). */
int mh_timing_add_device(mh_timing *t, const mh_timing_device *d);
const mh_timing_device *mh_timing_find_device(const mh_timing *t, uint32_t id);

/* Sorts kernels and copies by start time (stable on ties) and renumbers seq. */
void mh_timing_sort(mh_timing *t);

/* Reads a timing JSON file. Errors: MH_ERR_IO, MH_ERR_FORMAT (not JSON, not a
 * memheat-timing file, missing fields), MH_ERR_VERSION. */
int mh_timing_load(mh_timing *t, const char *path, mh_err *err);
/* Writes t as JSON (atomically: path.tmp then rename). analysis is an optional
 * jansson object (struct json_t *, borrowed) stored under "analysis". */
struct json_t;
int mh_timing_save(const mh_timing *t, struct json_t *analysis, const char *path, mh_err *err);
/* The same; *text (when text is non-NULL) receives the file's contents,
 * malloc'd, so that a caller need not read the file back. */
int mh_timing_save_text(const mh_timing *t, struct json_t *analysis, const char *path, char **text, mh_err *err);

/* Joins the counters of `ctr` (a counters pass) to the kernels of `t` (the
 * timeline), per device (src/timing/merge.c). When ctr has a record for every
 * launch, by launch order: the i-th kernel of t gets the i-th of ctr when the
 * names agree; launches whose names disagree stop the join (the programs
 * diverged): status becomes "partial". When ctr has fewer records (it profiled
 * the first launch of each configuration), by configuration: a record goes to
 * every launch of t with the same (name, grid, block, dyn_smem) (the name
 * alone when the records carry no grid); launches left without a record make
 * the status "partial". Updates t->counters. */
int mh_timing_merge_counters(mh_timing *t, const mh_timing *ctr, mh_err *err);

/* Removes from t the kernels a profiler ran inside a profiled launch's call:
 * those with the (context, correlation) of a record of `profiled` but
 * another name (CUPTI's range profiler queues a one-thread `WaitNs` kernel
 * there, which activity records list as the program's). Returns how many
 * went, or -1 when out of memory (t unchanged). */
long mh_timing_drop_profiler_kernels(mh_timing *t, const mh_timing *profiled);

/* Per kernel of t (same index): its share of its device's time, the
 * integral over its span of 1 / (kernels running then); malloc'd, NULL when
 * out of memory. */
double *mh_timing_shares(const mh_timing *t);

/* Aggregates kernels by (device, name), sorted by total time, largest first.
 * *out is malloc'd (free it); *n its length. */
int mh_timing_aggregate(const mh_timing *t, mh_timing_stats **out, size_t *n, mh_err *err);

/* For each kernel timed MH_TIMED_INSTRUMENTED or MH_TIMED_GAP: where launches
 * of the same (device, name, grid, block, dynamic shared memory) were timed
 * clean, its duration becomes their median (start kept) and it is marked
 * MH_TIMED_BORROWED. Returns how many kept their mark. */
size_t mh_timing_borrow_times(mh_timing *t);

/* For each kernel still without a clean time (no clean launch of its
 * configuration to borrow from) that has counters with a replay duration
 * (gpu__time_duration under kernel replay: the launch run alone, untraced):
 * its duration becomes that (start kept) and it is marked
 * MH_TIMED_REPLAYED. Returns how many launches took a replayed time. */
size_t mh_timing_replay_times(mh_timing *t);

/* "instrumented", "borrowed", "replayed", "gap" ("clean" for MH_TIMED_CLEAN): the
 * JSON's "timed"; parse gives the enum value, -1 for an unknown name. */
const char *mh_timing_timed_name(int timed);
int mh_timing_timed_parse(const char *s);

/* Median of v[0..n) (v is reordered); 0 for n == 0. */
double mh_timing_median_u64(uint64_t *v, size_t n);

const char *mh_timing_copy_kind_name(int kind);
int mh_timing_copy_kind_parse(const char *s); /* -1 if unknown */

#endif
