/* split_nocuda.c -- mh_split_run when memheat is built without the CUDA
 * toolkit: the planning code is there (and tested), running is not. */
#include "split_internal.h"

int mh_split_run(const mh_split_loop *loop, const mh_split_opts *opts, mh_split_report *report, mh_err *err) {
    (void)loop;
    (void)opts;
    (void)report;
    return mh_err_set(err, MH_ERR_DEP, "split: memheat was built without CUDA; mh_split_run is unavailable");
}

int mh_split_ctx_open(mh_split_ctx **ctx, mh_err *err) {
    *ctx = NULL;
    return mh_err_set(err, MH_ERR_DEP, "split: memheat was built without CUDA; no split context");
}

int mh_split_run_ctx(mh_split_ctx *ctx, const mh_split_loop *loop, const mh_split_opts *opts,
                     mh_split_report *report, mh_err *err) {
    (void)ctx;
    return mh_split_run(loop, opts, report, err);
}
