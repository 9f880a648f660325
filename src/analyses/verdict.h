/* verdict.h -- what limits a kernel, with the figures that show it.
 *
 * The roofline verdict (bandwidth.h, mh_bw_verdict) says which roof a kernel
 * would hit first; it only holds when the kernel runs near that roof. Far
 * below both roofs (under MH_VERDICT_ROOF_FRAC of each) something else limits
 * it, and the timeline says which: the launch cost, the first launch of a
 * configuration (fresh allocations touched for the first time), a grid of
 * blocks for fewer than half of the SMs, or, with enough blocks, memory
 * latency (too few bytes in flight, Little's law). Rules, thresholds and their
 * sources: docs/timing.md, "Verdicts". Pure arithmetic over mh_timing. */
#ifndef MH_ANALYSES_VERDICT_H
#define MH_ANALYSES_VERDICT_H

#include <stddef.h>
#include <stdint.h>

#include "memheat/err.h"
#include "memheat/timing.h"

/* The values of the roofline verdict (MH_BW_UNKNOWN/MEMORY/COMPUTE) are kept. */
enum mh_verdict_kind {
    MH_VERDICT_UNKNOWN = 0,
    MH_VERDICT_MEMORY = 1,      /* near the bandwidth roof */
    MH_VERDICT_COMPUTE = 2,     /* near the compute roof */
    MH_VERDICT_LAUNCH = 3,      /* kernel time within a small multiple of the launch overhead */
    MH_VERDICT_FIRST_TOUCH = 4, /* first launches of a configuration much slower than the later ones */
    MH_VERDICT_SMALL_GRID = 5,  /* blocks for fewer than half of the SMs */
    MH_VERDICT_LATENCY = 6      /* enough blocks, too few bytes in flight */
};

/* Thresholds (docs/timing.md, "Verdicts", says where each comes from). */
#define MH_VERDICT_ROOF_FRAC 0.60   /* below this share of both roofs: another limiter (ncu's rule) */
#define MH_VERDICT_LAUNCH_NS 4000.0 /* launch overhead estimate, ns */
#define MH_VERDICT_LAUNCH_MULT 2.0  /* launch-bound: median time < MULT x overhead */
#define MH_VERDICT_LAUNCH_MIN 2     /* launch-bound: and launched at least this often (once is no rate) */
#define MH_VERDICT_FIRST_RATIO 2.0  /* first launch >= RATIO x the median of the later ones */
#define MH_VERDICT_FIRST_SHARE 0.25 /* and the excess >= this share of the kernel's total time */
/* Small grid: fewer blocks than this share of the SMs, i.e. more than half
 * of the SMs get no block at all. Waves (blocks / (SMs x resident blocks per
 * SM)) do not decide it: 128 blocks of one per SM on 132 SMs are 0.97 waves
 * with every SM but 4 busy, and what limits such a grid is what each SM does
 * (the latency rule). Nsight Compute warns from blocks < SMs on with an
 * estimated speedup of the idle share (1 - blocks / SMs); memheat names the
 * verdict where that idle share is the larger part of the GPU (issue 40). */
#define MH_VERDICT_SMALL_GRID_FRAC 0.5

/* A verdict and its figures. NaN (or 0 for the counts) where not known. */
typedef struct mh_verdict {
    int kind;                   /* enum mh_verdict_kind */
    double frac_bw_roof;        /* (bytes / peak B/s) / measured time = effective / theoretical bandwidth */
    double frac_compute_roof;   /* (flops at peak rate) / measured time */
    double roof_ns;             /* per launch: max(bytes / peak B/s, flops at peak) */
    double measured_ns;         /* per launch: mean time of the launches with counters */
    double bytes;               /* DRAM bytes per launch (read + write) */
    double waves;               /* blocks / (SMs x blocks per SM), main configuration */
    uint32_t sms;               /* SMs of the device (0 = unknown) */
    uint64_t blocks;            /* blocks per launch of the main configuration */
    uint32_t blocks_per_sm;     /* resident blocks per SM its resources allow (0 = unknown) */
    double occupancy_pct;       /* achieved occupancy (counters) */
    double median_ns;           /* median launch time */
    double launch_ns;           /* launch overhead estimate used */
    double first_ns, later_ns;  /* first launch vs median of the later ones (configuration with the largest excess) */
    double first_share;         /* sum over configurations of (first - later) / total time */
    double latency_ns;          /* DRAM latency estimate of the architecture */
    double inflight_need_B;     /* per SM: peak B/s x latency / SMs (Little's law) */
    double inflight_B;          /* per SM: effective B/s x latency / SMs */
} mh_verdict;

/* What mh_verdict_judge needs of one kernel name (the bandwidth analysis has it). */
typedef struct mh_verdict_in {
    const mh_timing_stats *s;   /* aggregate of the name on its device */
    const mh_timing_device *dev; /* NULL: unknown device */
    double peak_Bps, peak_sp, peak_dp; /* roofs; 0 = unknown */
} mh_verdict_in;

/* The launches of a timing file sorted by (device, name, configuration,
 * start), so that each kernel name's launches are found at once. Borrows t. */
typedef struct mh_verdict_index {
    const mh_timing_kernel **k;
    size_t n;
    uint64_t *scratch;          /* n durations, the judge's work space */
} mh_verdict_index;

int mh_verdict_index_build(const mh_timing *t, mh_verdict_index *ix, mh_err *err);
void mh_verdict_index_free(mh_verdict_index *ix);

/* The verdict of one kernel name (rules in docs/timing.md). */
void mh_verdict_judge(const mh_verdict_index *ix, const mh_verdict_in *in, mh_verdict *out);

/* "memory-bound", "compute-bound", "launch-bound", "first-touch", "small-grid",
 * "latency-bound", "unknown": the JSON and terminal name. */
const char *mh_verdict_name(int kind);
/* The profile's `bound` column: "memory", "compute", "launch", "first-touch",
 * "small-grid", "latency"; NULL when unknown. */
const char *mh_verdict_short(int kind);
/* One line: the verdict's reason with its figures (and a fix where one is
 * known). Writes "" for an unknown verdict without a reason. */
void mh_verdict_note(const mh_verdict *v, char *buf, size_t cap);

/* The figures and the note as a jansson object (new reference; NULL when
 * out of memory): {"verdict", "note", "frac_bandwidth_roof", ...}, null
 * where not known (docs/timing.md, "Verdicts"). */
struct json_t;
struct json_t *mh_verdict_json(const mh_verdict *v);

/* Resident blocks per SM for a launch on a device (the occupancy calculator's
 * limits: warps, blocks, registers, shared memory); 0 when the device's
 * compute capability is unknown or a block cannot fit. */
uint32_t mh_verdict_blocks_per_sm(const mh_timing_device *d, const mh_timing_kernel *k);
/* Estimated DRAM load latency under load for a compute capability, ns. */
double mh_verdict_dram_latency_ns(unsigned cc_major);

#endif
