/* split_nocuda.c -- mh_split_run when memheat is built without the CUDA
 * toolkit: the planning code is there (and tested), running is not. */
#include "split_internal.h"

int mh_split_run(const mh_split_loop *loop, const mh_split_opts *opts, mh_split_report *report, mh_err *err) {
    (void)loop;
    (void)opts;
    (void)report;
    return mh_err_set(err, MH_ERR_DEP, "split: memheat was built without CUDA; mh_split_run is unavailable");
}
