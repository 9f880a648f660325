/* split_internal.h -- the pure planning/tuning logic of mh_split_ and the
 * device-operations table the scheduler runs over.
 *
 * Everything here except the CUDA backend is plain C with no CUDA dependency,
 * so the CPU unit tests (tests/runtime) drive the real scheduler over a fake
 * backend whose "device" is host memory. */
#ifndef MEMHEAT_SPLIT_INTERNAL_H
#define MEMHEAT_SPLIT_INTERNAL_H

#include <pthread.h>
#include <stddef.h>

#include "memheat/split.h"

/* ---- planning (split_plan.c) ------------------------------------------ */

#define MH_SPLIT_DEFAULT_STREAMS 3
#define MH_SPLIT_DEFAULT_STAGING ((size_t)96 << 20)
#define MH_SPLIT_MIN_SPLITS_PER_DEV 32 /* tuned sizes leave >= this many splits */
#define MH_SPLIT_PAR_COPY_MIN ((size_t)4 << 20)
#define MH_SPLIT_MAX_SLOTS 64           /* nstreams limit */
#define MH_SPLIT_ALIGN ((size_t)256)    /* buffers carved from an arena start here */

/* Check the loop description; MH_ERR_ARG with a message naming the field. */
int mh_split_validate(const mh_split_loop *loop, const mh_split_opts *opts, mh_err *err);

/* Device bytes one iteration needs (all splittable buffers). */
size_t mh_split_iter_bytes(const mh_split_loop *loop);
size_t mh_split_fused_bytes(const mh_split_loop *loop);

/* Largest split (iterations) such that fused + reserve + nslots*split*iter_bytes
 * <= budget. MH_ERR_NOMEM when not even one iteration per slot fits.
 * iter_bytes == 0 gives SIZE_MAX. */
int mh_split_budget_iters(size_t budget, size_t reserve, size_t fused, size_t iter_bytes,
                          int nslots, size_t *out, mh_err *err);

/* Device bytes a run with this split size allocates per device. */
size_t mh_split_device_bytes(size_t fused, size_t iter_bytes, int nslots, size_t split);

/* Largest split whose pinned staging (nslots * split * staged_bytes) fits in
 * staging; SIZE_MAX when nothing is staged; at least 1. */
size_t mh_split_staging_iters(size_t staging, size_t staged_bytes, int nslots);

/* Number of splits of size `split` over n iterations (last one may be short). */
size_t mh_split_count(size_t n, size_t split);
/* Bounds [*b, *e) of split k (k < mh_split_count). */
void mh_split_bounds(size_t n, size_t split, size_t k, size_t *b, size_t *e);

/* Upper bound of tuned split sizes: min(budget, staging, ceil(n/(ndev*MIN_SPLITS))), >= 1. */
size_t mh_split_tune_hi(size_t n, int ndev, size_t budget_iters, size_t staging_iters);

/* Split size near the end of the loop: once fewer than nslots*ndev splits
 * of `want` are left, deal left/(nslots*ndev)+1 (at least lo, at most want),
 * so the splits shrink geometrically and the final drain is short. */
size_t mh_split_taper(size_t left, size_t want, size_t lo, int nslots, int ndev);

/* ---- tuning (split_tune.c) --------------------------------------------- */

/* Classify from one split's stage times: COPY_BOUND when compute < 0.8 x the
 * larger copy stage, COMPUTE_BOUND when compute > 1.25 x it, else BALANCED. */
int mh_split_classify(double t_in, double t_out, double t_compute);

/* Candidate split sizes for a kind, ascending, distinct, inside [lo, hi].
 * COPY_BOUND: hi, hi/2, hi/4. COMPUTE_BOUND: wave/4 .. 2*wave (x2 steps).
 * BALANCED: x2 steps from min(wave/4, hi) up to hi, thinned to max entries.
 * Returns the count (>= 1). */
int mh_split_candidates(int kind, size_t lo, size_t hi, size_t wave, size_t *out, int max);

/* Drop the largest candidates until trials (splits_per_trial splits of each)
 * use at most 3/4 of the iterations one device gets (n / ndev); trial splits
 * are real work, pipelined, so only the drain after them is lost. Returns the
 * count kept (may be 0: then no trial, use the probe size). */
int mh_split_fit_trials(size_t *cand, int n_cand, size_t n, int ndev, int splits_per_trial);

/* Index of the highest rate (first on ties); -1 when none is > 0. */
int mh_split_pick_best(const double *rate, int n);

/* Index of the candidate with the least predicted time for the remaining
 * iterations: remaining / rate + split * drain_per_iter (the pipeline's fill
 * and drain, which grow with the split size; drain_per_iter = sum of the
 * probe's per-iteration stage times minus the largest). -1 when no rate > 0. */
int mh_split_pick(const size_t *cand, const double *rate, int n, size_t remaining, double drain_per_iter);

/* Extra time the tuning phase cost: t_tune - iters_tuned / best_rate, >= 0. */
double mh_split_tune_overhead(double t_tune, size_t iters_tuned, double best_rate);

/* ---- device operations (split_exec.c runs over these) ------------------ */

typedef struct mh_split_backend {
    void *ctx;
    int (*device_count)(void *ctx, int *n, mh_err *err);
    /* free bytes on dev and iterations of one full wave (SMs * threads/SM) */
    int (*device_info)(void *ctx, int dev, size_t *free_bytes, size_t *wave, mh_err *err);
    int (*set_device)(void *ctx, int dev, mh_err *err);
    int (*dev_alloc)(void *ctx, void **p, size_t bytes, mh_err *err);
    void (*dev_free)(void *ctx, void *p);
    int (*host_alloc)(void *ctx, void **p, size_t bytes, mh_err *err); /* pinned */
    void (*host_free)(void *ctx, void *p);
    int (*is_pinned)(void *ctx, const void *p);
    int (*stream_create)(void *ctx, void **s, mh_err *err);
    void (*stream_destroy)(void *ctx, void *s);
    int (*stream_sync)(void *ctx, void *s, mh_err *err);
    int (*event_create)(void *ctx, void **e, mh_err *err);
    void (*event_destroy)(void *ctx, void *e);
    int (*event_record)(void *ctx, void *e, void *s, mh_err *err);
    int (*event_sync)(void *ctx, void *e, mh_err *err);
    int (*event_elapsed)(void *ctx, void *from, void *to, double *sec, mh_err *err);
    int (*copy_h2d)(void *ctx, void *dst, const void *src, size_t n, void *s, mh_err *err);
    int (*copy_d2h)(void *ctx, void *dst, const void *src, size_t n, void *s, mh_err *err);
    int (*after_launch)(void *ctx, mh_err *err); /* launch error check */
} mh_split_backend;

/* ---- staging copy threads (split_pool.c) -------------------------------- */

typedef struct mh_split_pool mh_split_pool;

/* Start nthreads copy threads; NULL when none could be started (then copy
 * with memcpy). */
mh_split_pool *mh_split_pool_new(int nthreads);
void mh_split_pool_free(mh_split_pool *p);
int mh_split_pool_threads(const mh_split_pool *p);
/* memcpy split over the pool's threads and the caller; p may be NULL, and
 * copies under MH_SPLIT_PAR_COPY_MIN are done by the caller alone. */
void mh_split_pool_copy(mh_split_pool *p, void *dst, const void *src, size_t n);

/* What a context keeps for one device between runs. */
typedef struct mh_split_devres {
    int nslots;                          /* streams/events created so far */
    void *stream[MH_SPLIT_MAX_SLOTS];
    void *ev[MH_SPLIT_MAX_SLOTS][4];
    void *ev_ref;
    void *darena;                        /* device arena, dbytes long */
    size_t dbytes;
    void *harena;                        /* pinned staging arena, hbytes long */
    size_t hbytes;
    mh_split_pool *pool;                 /* staging copy threads (pageable buffers) */
} mh_split_devres;

struct mh_split_ctx {
    const mh_split_backend *be;
    int ndev;                 /* entries in res (indexed by device ordinal) */
    mh_split_devres *res;
    int busy;                 /* a run is using it */
    pthread_mutex_t mu;
};

/* The host backend (split_host.c): the CPU as the device; what mh_split_run
 * uses when memheat is built without CUDA. */
const mh_split_backend *mh_split_host_backend(void);

/* A context over a backend (be must outlive it). NULL when out of memory. */
mh_split_ctx *mh_split_ctx_new(const mh_split_backend *be);

/* The scheduler over ctx's backend and resources. */
int mh_split_exec_ctx(mh_split_ctx *ctx, const mh_split_loop *loop, const mh_split_opts *opts,
                      mh_split_report *report, mh_err *err);

/* The same with a context made and released inside the call. */
int mh_split_exec(const mh_split_backend *be, const mh_split_loop *loop,
                  const mh_split_opts *opts, mh_split_report *report, mh_err *err);

#endif
