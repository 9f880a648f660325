/* split_plan.c -- how a loop is cut into splits and how much memory a split
 * size costs (mh_split_). Pure arithmetic, no CUDA: unit-tested on the CPU. */
#include <stdint.h>

#include "split_internal.h"

int mh_split_validate(const mh_split_loop *loop, const mh_split_opts *opts, mh_err *err) {
    if (!loop) return mh_err_set(err, MH_ERR_ARG, "split: loop description is NULL");
    if (!loop->kernel) return mh_err_set(err, MH_ERR_ARG, "split: kernel callback is NULL");
    if (loop->n_split < 0 || loop->n_fused < 0)
        return mh_err_set(err, MH_ERR_ARG, "split: negative buffer count");
    if (loop->n_split > 0 && !loop->split)
        return mh_err_set(err, MH_ERR_ARG, "split: n_split=%d but split array is NULL", loop->n_split);
    if (loop->n_fused > 0 && !loop->fused)
        return mh_err_set(err, MH_ERR_ARG, "split: n_fused=%d but fused array is NULL", loop->n_fused);
    for (int i = 0; i < loop->n_split; i++) {
        const mh_split_buf *b = &loop->split[i];
        if (!b->host) return mh_err_set(err, MH_ERR_ARG, "split: buffer %d has no host pointer", i);
        if (b->bytes_per_iter == 0)
            return mh_err_set(err, MH_ERR_ARG, "split: buffer %d has 0 bytes per iteration", i);
        if (b->dir < MH_SPLIT_IN || b->dir > MH_SPLIT_INOUT)
            return mh_err_set(err, MH_ERR_ARG, "split: buffer %d has direction %d (want 1..3)", i, b->dir);
        if (loop->n_iters > SIZE_MAX / b->bytes_per_iter)
            return mh_err_set(err, MH_ERR_ARG, "split: buffer %d size overflows (%zu iterations x %zu bytes)",
                              i, loop->n_iters, b->bytes_per_iter);
    }
    for (int i = 0; i < loop->n_fused; i++)
        if (!loop->fused[i].host || loop->fused[i].bytes == 0)
            return mh_err_set(err, MH_ERR_ARG, "split: fused buffer %d is empty or has no host pointer", i);
    if (opts) {
        if (opts->mode != MH_SPLIT_PIPELINED && opts->mode != MH_SPLIT_SERIAL)
            return mh_err_set(err, MH_ERR_ARG, "split: unknown mode %d", opts->mode);
        if (opts->nstreams == 1 || opts->nstreams < 0 || opts->nstreams > MH_SPLIT_MAX_SLOTS)
            return mh_err_set(err, MH_ERR_ARG, "split: nstreams=%d (need 2..%d, or 0 for the default)",
                              opts->nstreams, MH_SPLIT_MAX_SLOTS);
        if (opts->n_devices < 0 || (opts->n_devices > 0 && !opts->devices))
            return mh_err_set(err, MH_ERR_ARG, "split: n_devices=%d with devices=%p", opts->n_devices,
                              (const void *)opts->devices);
        if (opts->host_threads < 0 || opts->host_threads > 256)
            return mh_err_set(err, MH_ERR_ARG, "split: host_threads=%d (want 0..256)", opts->host_threads);
    }
    return MH_OK;
}

size_t mh_split_iter_bytes(const mh_split_loop *loop) {
    size_t s = 0;
    for (int i = 0; i < loop->n_split; i++) s += loop->split[i].bytes_per_iter;
    return s;
}

size_t mh_split_fused_bytes(const mh_split_loop *loop) {
    size_t s = 0;
    for (int i = 0; i < loop->n_fused; i++) s += loop->fused[i].bytes;
    return s;
}

int mh_split_budget_iters(size_t budget, size_t reserve, size_t fused, size_t iter_bytes,
                          int nslots, size_t *out, mh_err *err) {
    if (nslots < 1) return mh_err_set(err, MH_ERR_ARG, "split: %d slots", nslots);
    if (reserve > budget || fused > budget - reserve)
        return mh_err_set(err, MH_ERR_NOMEM,
                          "split: fused data (%zu bytes) + reserve (%zu) exceed the device budget (%zu bytes)",
                          fused, reserve, budget);
    size_t room = budget - reserve - fused;
    if (iter_bytes == 0) {
        *out = SIZE_MAX;
        return MH_OK;
    }
    size_t per = room / (size_t)nslots / iter_bytes;
    if (per == 0)
        return mh_err_set(err, MH_ERR_NOMEM,
                          "split: budget %zu bytes leaves %zu after fused data; %d slots of one iteration "
                          "need %zu", budget, room, nslots, (size_t)nslots * iter_bytes);
    *out = per;
    return MH_OK;
}

size_t mh_split_device_bytes(size_t fused, size_t iter_bytes, int nslots, size_t split) {
    return fused + (size_t)nslots * split * iter_bytes;
}

size_t mh_split_staging_iters(size_t staging, size_t staged_bytes, int nslots) {
    if (staged_bytes == 0) return SIZE_MAX;
    size_t per = staging / (size_t)nslots / staged_bytes;
    return per ? per : 1;
}

size_t mh_split_count(size_t n, size_t split) {
    if (split == 0) return 0;
    return n / split + (n % split != 0);
}

void mh_split_bounds(size_t n, size_t split, size_t k, size_t *b, size_t *e) {
    size_t lo = k * split;
    *b = lo < n ? lo : n;
    *e = (n - *b) > split ? *b + split : n;
}

size_t mh_split_tune_hi(size_t n, int ndev, size_t budget_iters, size_t staging_iters) {
    size_t parts = (size_t)(ndev > 0 ? ndev : 1) * MH_SPLIT_MIN_SPLITS_PER_DEV;
    size_t hi = n / parts + (n % parts != 0);
    if (budget_iters < hi) hi = budget_iters;
    if (staging_iters < hi) hi = staging_iters;
    return hi ? hi : 1;
}

size_t mh_split_taper(size_t left, size_t want, size_t lo, int nslots, int ndev) {
    size_t window = (size_t)nslots * (size_t)(ndev > 0 ? ndev : 1);
    if (left >= window * want) return want;
    size_t t = left / window + 1;
    if (t < lo) t = lo;
    return t < want ? t : want;
}
