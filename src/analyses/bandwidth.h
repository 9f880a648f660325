/* bandwidth.h -- how close each kernel runs to the card, and what overlap would save.
 *
 * Pure arithmetic over an mh_timing (include/memheat/timing.h): effective
 * bandwidth (DRAM bytes read + written over GPU time, the blog formula
 * (RB + WB) / t of seed 003) against the theoretical peak (memory clock x bus
 * width x 2) and a measured peak (`memheat calibrate --bandwidth`), sectors per
 * request, arithmetic intensity against the ridge point (memory- or
 * compute-bound: memheat never changes clocks to decide), copy/compute overlap
 * from the timeline, and the OpenMPC pipelining model of seed 004:
 *   speedup = (fused + in + out + compute) / (fused + max(in, out, compute)).
 * Formulas and units: docs/timing.md. */
#ifndef MH_ANALYSES_BANDWIDTH_H
#define MH_ANALYSES_BANDWIDTH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analyses/verdict.h"
#include "memheat/err.h"
#include "memheat/timing.h"

/* Half-open time interval [a, b) in ns. */
typedef struct mh_bw_iv {
    uint64_t a, b;
} mh_bw_iv;

enum mh_bw_verdict { MH_BW_UNKNOWN = 0, MH_BW_MEMORY = 1, MH_BW_COMPUTE = 2 };

/* One row per kernel name (and device). NaN where a counter was missing. */
typedef struct mh_bw_row {
    mh_timing_stats s;          /* count/total/min/median/max + summed counters */
    double eff_Bps;             /* dram bytes / GPU time of the launches with counters */
    double frac_theoretical;    /* eff_Bps / theoretical peak */
    double frac_measured;       /* eff_Bps / measured peak (NaN without calibration) */
    double sectors_per_ld;      /* global load sectors / requests (1..32; 4 = coalesced 4-byte) */
    double sectors_per_st;
    double flops;               /* FP32 + FP64 operations (FMA = 2) */
    double flops_per_s;
    double ai;                  /* flops per DRAM byte */
    double ridge;               /* peak FP32 flop/s / peak bytes/s */
    int verdict;                /* enum mh_verdict_kind (verdict.h): the roof, or what else limits it */
    mh_verdict why;             /* the verdict's figures */
} mh_bw_row;

/* Copy/compute overlap on one device's timeline. */
typedef struct mh_bw_overlap {
    uint64_t span_ns;           /* first start to last end of anything */
    uint64_t kernel_busy_ns;    /* union of kernel intervals */
    uint64_t htod_ns, dtoh_ns;  /* union of each direction's copy intervals */
    uint64_t htod_exposed_ns;   /* HtoD time that no kernel overlaps */
    uint64_t dtoh_exposed_ns;
    uint64_t copy_exposed_ns;   /* union(HtoD, DtoH) minus kernel union */
    uint64_t htod_bytes, dtoh_bytes;
    uint64_t busy_ns;           /* union of kernels, HtoD and DtoH: what the program takes now */
} mh_bw_overlap;

/* OpenMPC pipelining model (seed 004). */
typedef struct mh_bw_pipeline {
    double fused_ns, in_ns, out_ns, compute_ns;
    double serial_ns;           /* fused + in + out + compute */
    double pipelined_ns;        /* fused + max(in, out, compute) */
    double speedup;             /* serial / pipelined; 1 when nothing to overlap */
    double current_ns;          /* busy time of the timeline as it ran (0 = not set) */
    double remaining;           /* current / pipelined: what pipelining could still gain */
} mh_bw_pipeline;

typedef struct mh_bw_device {
    mh_timing_device dev;
    double theoretical_Bps;     /* mem clock x bus width / 8 x 2 */
    double measured_Bps;        /* calibration, 0 = none */
    double peak_flops_sp, peak_flops_dp;
    mh_bw_overlap overlap;
    mh_bw_pipeline pipeline;
} mh_bw_device;

typedef struct mh_bw_report {
    mh_bw_device *devices;
    size_t ndevices;
    mh_bw_row *rows;
    size_t nrows;
    mh_timing_counter_info counters;
    uint64_t dropped_records;   /* launches/records the timing pass could not time */
    char kernel_timing[16];     /* "events" or "activity" */
} mh_bw_report;

/* Device peaks. 0 when an attribute is unknown. */
double mh_bw_theoretical_Bps(const mh_timing_device *d);
double mh_bw_peak_flops(const mh_timing_device *d, int fp64);
/* FP32 / FP64 lanes per SM for a compute capability (0 = unknown). */
unsigned mh_bw_lanes_per_sm(unsigned cc_major, unsigned cc_minor, int fp64);

/* Effective bandwidth in bytes/s (the blog's (RB + WB) / t); 0 if t == 0. */
double mh_bw_effective(double read_bytes, double write_bytes, double ns);

/* Roofline verdict from work and peaks: memory-bound when bytes/peak_Bps
 * exceeds the time the arithmetic needs at peak (equivalently AI < ridge for
 * one precision). Unknown when bytes or peaks are missing. A row's verdict
 * (mh_bw_analyze) is this only near a roof; far below both, verdict.h says
 * what else limits the kernel. mh_bw_verdict_name names every kind. */
int mh_bw_verdict(double bytes, double flops_sp, double flops_dp, double peak_Bps, double peak_sp, double peak_dp);
const char *mh_bw_verdict_name(int v);

/* Interval algebra (inputs need not be sorted; iv is reordered). */
uint64_t mh_bw_union_ns(mh_bw_iv *iv, size_t n);
/* Length of union(a) minus union(cover); both arrays are reordered. */
uint64_t mh_bw_exposed_ns(mh_bw_iv *a, size_t na, mh_bw_iv *cover, size_t nc);

/* Overlap of one device's copies and kernels. */
int mh_bw_overlap_of(const mh_timing *t, uint32_t device, mh_bw_overlap *out, mh_err *err);
/* OpenMPC model; every input >= 0. */
mh_bw_pipeline mh_bw_openmpc(double fused_ns, double in_ns, double out_ns, double compute_ns);

/* Whole analysis. fused_ns: the MemFused copy time the model assumes (the time
 * to move data every pipeline stage needs; 0 when unknown). */
int mh_bw_analyze(const mh_timing *t, double fused_ns, mh_bw_report *rep, mh_err *err);
void mh_bw_report_free(mh_bw_report *rep);

/* The report as a jansson object (new reference, NULL on out of memory). */
struct json_t;
struct json_t *mh_bw_report_json(const mh_bw_report *rep);
/* Terminal table: per-kernel times, bandwidth, verdict; overlap; model. */
void mh_bw_report_print(FILE *f, const mh_bw_report *rep, size_t max_rows);
/* Loads a timing JSON file, analyzes it and prints the table (for the CLI). */
int mh_bw_print_file(FILE *f, const char *timing_path, double fused_ns, size_t max_rows, mh_err *err);

/* Calibration store: one JSON file, {"format":"memheat-calibration","version":1,
 * "devices":{NAME:{"bandwidth_Bps":..., ...}}}. default path:
 * $MEMHEAT_CALIBRATION, else calibration.json in memheat's data folder
 * ($MEMHEAT_DATA_DIR, $XDG_DATA_HOME/memheat or ~/.local/share/memheat, beside
 * the camping models: src/util/datadir.h). */
int mh_bw_calib_default_path(char *out, size_t cap, mh_err *err);
/* *Bps = 0 when the file or the device is absent (not an error). */
int mh_bw_calib_lookup(const char *path, const char *device_name, double *Bps, mh_err *err);
/* Stores (replaces) the entry of device_name; entry is a jansson object
 * (borrowed) that must hold "bandwidth_Bps". Creates parent directories. */
int mh_bw_calib_store(const char *path, const char *device_name, struct json_t *entry, mh_err *err);

#endif
