/* split.h -- out-of-card pipelining of data-parallel loops (mh_split_).
 *
 * A loop of n independent iterations whose data may be larger than device
 * memory is cut into splits (computation splitting, COSP). Each split's
 * "splittable" data is copied in, computed on, and copied out on one of
 * several CUDA streams per device, so copy-in, compute and copy-out of
 * different splits overlap. "Fused" data (needed whole by every split) is
 * copied once per device. The split size is fixed by the caller or tuned at
 * run time: one split classifies the loop as copy- or compute-intensive, a
 * candidate set of sizes is tried on real splits, the fastest is kept.
 *
 * The caller describes the loop with mh_split_loop and calls mh_split_run.
 * Host buffers may be pageable (the runtime stages them through pinned
 * memory) or pinned (cudaMallocHost / cudaHostRegister; copied directly).
 *
 * A loop that runs many times (a time step, a solver iteration) can keep the
 * runtime's streams, events, device buffers and pinned staging between runs
 * in an mh_split_ctx (mh_split_run_ctx); mh_split_run makes and releases
 * them on every call. */
#ifndef MEMHEAT_SPLIT_H
#define MEMHEAT_SPLIT_H

#include <stddef.h>

#include "memheat/err.h"

#ifdef __cplusplus
extern "C" {
#endif

enum mh_split_dir {
    MH_SPLIT_IN = 1,   /* host -> device before the split's kernel */
    MH_SPLIT_OUT = 2,  /* device -> host after the split's kernel */
    MH_SPLIT_INOUT = 3 /* both */
};

/* A buffer cut along the iteration space: iteration i owns the bytes
 * [i*bytes_per_iter, (i+1)*bytes_per_iter) of host. */
typedef struct mh_split_buf {
    void *host;
    size_t bytes_per_iter;
    int dir; /* enum mh_split_dir */
} mh_split_buf;

/* Read-only data every split needs whole; copied to each device once. */
typedef struct mh_split_fused {
    const void *host;
    size_t bytes;
} mh_split_fused;

/* What the kernel callback gets for one split. Device pointers of the
 * splittable buffers point at the split's first iteration (local index 0 is
 * global iteration `begin`). `stream` is a cudaStream_t (built without
 * CUDA: host pointers and an opaque handle, and the callback computes). */
typedef struct mh_split_launch {
    int device;      /* CUDA device ordinal, already current */
    void *stream;    /* cudaStream_t: launch the kernel on it, do not sync */
    size_t begin;    /* first global iteration */
    size_t end;      /* one past the last */
    void *const *split; /* device pointers, same order as mh_split_loop.split */
    void *const *fused; /* device pointers, same order as mh_split_loop.fused */
} mh_split_launch;

/* Launch the kernel for l->begin..l->end on l->stream. Return 0, or a non-zero
 * mh_status with err filled; the run then stops and reports it. */
typedef int (*mh_split_kernel_fn)(const mh_split_launch *l, void *user, mh_err *err);

typedef struct mh_split_loop {
    size_t n_iters;
    const mh_split_buf *split;
    int n_split;
    const mh_split_fused *fused;
    int n_fused;
    mh_split_kernel_fn kernel;
    void *user;
} mh_split_loop;

enum mh_split_mode {
    MH_SPLIT_PIPELINED = 0, /* overlap copy-in, compute, copy-out (default) */
    MH_SPLIT_SERIAL = 1     /* same splits, one at a time, stages synchronised:
                               the non-pipelined reference; every stage timed */
};

typedef struct mh_split_opts {
    int mode;               /* enum mh_split_mode */
    size_t split_iters;     /* > 0: fixed split size; 0: tune at run time */
    size_t budget_bytes;    /* device memory the run may allocate per device;
                               0: what cudaMemGetInfo reports free, less 5% */
    size_t reserve_bytes;   /* kept free for the kernel's own needs (default 0) */
    size_t staging_bytes;   /* pinned host staging per device for pageable
                               buffers; 0: 96 MiB (pinning is slow:
                               ~0.3 s per GiB was measured) */
    int nstreams;           /* streams (= split slots) per device; 0: 3; min 2 */
    const int *devices;     /* CUDA ordinals to use; NULL: every visible GPU */
    int n_devices;
    size_t wave_iters;      /* iterations one full GPU wave holds (the seed's
                               MaxThreads); 0: SMs * max threads per SM */
    int host_threads;       /* threads for pageable staging copies (the
                               caller's included, kept in the context); 0: 8 */
} mh_split_opts;

enum mh_split_kind {
    MH_SPLIT_UNTUNED = 0,       /* fixed split size: not classified */
    MH_SPLIT_COPY_BOUND = 1,    /* seed's type 1: larger splits */
    MH_SPLIT_COMPUTE_BOUND = 2, /* seed's type 2: splits <= MaxThreads */
    MH_SPLIT_BALANCED = 3       /* seed's type 3: wide candidate set */
};

#define MH_SPLIT_MAX_CANDIDATES 8

typedef struct mh_split_report {
    size_t n_iters;
    size_t split_iters;   /* split size used after tuning */
    size_t n_splits;      /* splits executed (tuning trials included) */
    int n_devices;
    int nstreams;
    int kind;             /* enum mh_split_kind */
    size_t budget_bytes;  /* per-device budget applied (smallest device) */
    size_t device_bytes;  /* most device memory the run allocated on one device */
    size_t staging_bytes; /* pinned host staging allocated per device */
    /* Times in seconds. t_in/t_out include host staging copies. */
    double t_total;       /* wall time of mh_split_run */
    double t_setup;       /* allocations, streams (before the first copy);
                             ~0 when a context already holds them */
    double t_fused;       /* fused copy-in (slowest device) */
    double t_in, t_compute, t_out; /* stage totals per device (mean over devices):
                               SERIAL: measured on every split; PIPELINED: rates
                               of the serial probe split x iterations */
    double t_stage_host;  /* part of t_in + t_out spent in host staging memcpy */
    double t_tune;        /* wall time of probe + candidate trials */
    double tune_overhead; /* t_tune minus the time the best size would have
                             taken for the same iterations (>= 0) */
    double t_in_span;     /* device time from the first split's copy-in being
                             queued to the last copy-in done (slowest device):
                             the copy-in engine's window */
    double t_drain;       /* last copy-in done to last copy-out done */
    int n_candidates;
    size_t candidates[MH_SPLIT_MAX_CANDIDATES];
    double cand_rate[MH_SPLIT_MAX_CANDIDATES]; /* iterations / s measured */
    double ideal_speedup;    /* (fused+in+out+compute)/(fused+max(in,out,compute)) */
    double achieved_speedup; /* (fused+in+out+compute)/(t_total - t_setup) */
} mh_split_report;

/* Fill opts with the defaults (all zero / NULL). */
void mh_split_opts_init(mh_split_opts *opts);

/* Run the loop. opts may be NULL (defaults); report may be NULL.
 * Returns MH_OK or an mh_status (MH_ERR_ARG, MH_ERR_NOMEM, MH_ERR_CUDA,
 * MH_ERR_DEP when no device, or the callback's code) with err set. Built
 * without CUDA, the run uses the CPU as the device: the callback gets host
 * pointers and computes the split itself (l->stream is an opaque handle). 
 * On error every device and host allocation made by the run is released;
 * host output buffers may hold the results of splits that completed. */
int mh_split_run(const mh_split_loop *loop, const mh_split_opts *opts,
                 mh_split_report *report, mh_err *err);

/* A context: per device, the streams, events, one device arena and one
 * pinned staging arena, grown on demand and kept between runs (the default
 * budget counts the arena as free). One run at a time per context. */
typedef struct mh_split_ctx mh_split_ctx;

/* Open an empty context (allocates nothing on any device). */
int mh_split_ctx_open(mh_split_ctx **ctx, mh_err *err);

/* Release everything the context holds; NULL is allowed. */
void mh_split_ctx_close(mh_split_ctx *ctx);

/* mh_split_run reusing ctx's resources (and growing them when the loop needs
 * more). On error the context stays valid; close it if CUDA reported a
 * sticky error. MH_ERR_ARG when ctx is in use by another thread's run. */
int mh_split_run_ctx(mh_split_ctx *ctx, const mh_split_loop *loop, const mh_split_opts *opts,
                     mh_split_report *report, mh_err *err);

/* The seed's achievable-speedup model. */
double mh_split_ideal_speedup(double t_fused, double t_in, double t_out, double t_compute);

const char *mh_split_kind_name(int kind);

#ifdef __cplusplus
}
#endif

#endif
