/* split_nocuda.c -- mh_split_run and its context when memheat is built
 * without the CUDA toolkit: the same scheduler over the host backend
 * (split_host.c), so the kernel callback computes each split on the CPU from
 * host pointers. */
#include "split_internal.h"

int mh_split_run(const mh_split_loop *loop, const mh_split_opts *opts, mh_split_report *report, mh_err *err) {
    return mh_split_exec(mh_split_host_backend(), loop, opts, report, err);
}

int mh_split_ctx_open(mh_split_ctx **ctx, mh_err *err) {
    *ctx = mh_split_ctx_new(mh_split_host_backend());
    return *ctx ? MH_OK : mh_err_set(err, MH_ERR_NOMEM, "split: out of host memory");
}

int mh_split_run_ctx(mh_split_ctx *ctx, const mh_split_loop *loop, const mh_split_opts *opts,
                     mh_split_report *report, mh_err *err) {
    return mh_split_exec_ctx(ctx, loop, opts, report, err);
}
