/* self.c -- what belongs to memheat itself inside the profiled process: its
 * own device allocations (a per-thread mark the allocation callbacks read, so
 * that memheat's buffers and the patch's memory are not taken for the
 * program's objects), its one-line warnings on stderr, and the end of tracing
 * after the trace writer failed. Part of libmemheat_cuda.so; called by the
 * collector's other files, calls none of them. */
#include "cuda_internal.h"

/* Per host thread: nonzero while memheat allocates its own device memory. */
static _Thread_local int tl_own;

void mh_cuda_own_begin(void) { tl_own++; }
void mh_cuda_own_end(void) { tl_own--; }
int mh_cuda_own_now(void) { return tl_own != 0; }

void mh_cuda_warn(const char *fmt, const char *detail) {
    fprintf(stderr, "memheat-cuda: ");
    fprintf(stderr, fmt, detail ? detail : "");
    fputc('\n', stderr);
}

const char *mh_cuda_sanstr(SanitizerResult r) {
    const char *s = NULL;
    if (sanitizerGetResultString(r, &s) != SANITIZER_SUCCESS || !s) return "unknown Sanitizer error";
    return s;
}

/* Under mu. */
void mh_cuda_writer_failed(mh_cuda *mh, mh_err *err) {
    mh_cuda_warn("trace writing failed, tracing stops: %s", err->msg);
    if (mh->w) mh_trace_abandon(mh->w);
    mh->w = NULL;
    mh->closed = 1;
}
