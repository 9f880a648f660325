/* timing_hook.h -- the contract that lets one run of the program be traced
 * and timed: the CUDA collector (libmemheat_cuda.so, the Compute Sanitizer
 * API) loads the timing collector (libmemheat_cupti.so) into the same process
 * and forwards it the launches it sees.
 *
 * Why a hook and not CUPTI's own callbacks: with the Sanitizer API active,
 * cuptiSubscribe fails (CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED,
 * measured on an H200 with CUDA 13.0), so the timing collector cannot see a
 * launch by itself. Its event timing (events.c) needs only the launch API's
 * parameters at the call's entry and exit, which the Sanitizer's driver-API
 * callbacks give the CUDA collector: the CUDA collector calls prepare at the
 * call's entry, launch_enter at LAUNCH_BEGIN (right before the kernel is
 * queued), launch_exit before its own work at the exit, and says whether the launch was traced (its time then includes the
 * tracing: see enum mh_timed in include/memheat/timing.h).
 *
 * Both libraries are built from this tree; the version guards against a
 * mismatched pair found at run time. */
#ifndef MEMHEAT_TIMING_HOOK_H
#define MEMHEAT_TIMING_HOOK_H

#include <stdint.h>

#define MH_TIMING_HOOK_VERSION 5u
#define MH_TIMING_HOOK_SYMBOL "memheat_timing_attach"

/* Which launch entry point the params belong to (cuLaunchKernel_params,
 * cuLaunchCooperativeKernel_params, cuLaunchKernelEx_params; _ptsz: the
 * per-thread default stream by NULL). */
enum mh_hook_api {
    MH_HOOK_NONE = 0,
    MH_HOOK_KERNEL,
    MH_HOOK_KERNEL_PTSZ,
    MH_HOOK_COOP,
    MH_HOOK_COOP_PTSZ,
    MH_HOOK_EX,
    MH_HOOK_EX_PTSZ
};

typedef struct mh_timing_hook {
    uint32_t version; /* MH_TIMING_HOOK_VERSION, filled by the timing collector */
    void (*launch_enter)(int api, const void *params);
    /* ctx: the launch's CUcontext; failed: the call returned an error;
     * traced: the launch ran instrumented code; symbol and function: the
     * kernel's mangled name and CUfunction as the Sanitizer's LAUNCH_BEGIN
     * gave them (version 4; NULL when no LAUNCH_BEGIN came). The launch
     * call's own parameters may hold a context-independent CUkernel handle
     * instead, whose name the driver does not give (cuBLAS and cuDNN launch
     * so): a name from there lumped such kernels under one garbage name. */
    void (*launch_exit)(int api, void *ctx, int failed, int traced, const char *symbol, void *function);
    void (*context_created)(void *ctx, int device); /* device: its ordinal */
    void (*context_ending)(void *ctx);
    /* A memcpy or memset the program issues (version 2): copy_begin when the
     * copy is about to be queued on `stream` (the Sanitizer's MEMCPY/MEMSET
     * callback: kind is enum mh_copy_kind of include/memheat/timing.h, value
     * a memset's value), copy_end at the driver call's exit, on the same
     * thread. CUPTI's activity records, which time copies in a run of their
     * own, cannot be had beside the Sanitizer. */
    void (*copy_begin)(void *ctx, void *stream, int kind, uint64_t bytes, uint32_t value);
    void (*copy_end)(int failed);
    /* At the driver-API entry of every launch and copy call (version 3),
     * before the driver takes its locks: the timing collector makes there
     * what it needs later inside the driver's path (launch_enter at
     * LAUNCH_BEGIN and copy_begin run under the driver's locks, and may only
     * record events there, never create them or wait for a lock). */
    void (*prepare)(void);
    /* At the driver-API entry of a launch that will not be traced, after
     * prepare (version 5): the timing collector may hold the launch's stream
     * there (a stream wait it releases in launch_exit), so that a kernel
     * queued on an idle stream is not timed with the host's launch gap. */
    void (*launch_hold)(int api, const void *params);
} mh_timing_hook;

/* Exported by libmemheat_cupti.so as MH_TIMING_HOOK_SYMBOL: starts the timing
 * collector without CUPTI callbacks (reads MEMHEAT_TIMING_OUT as its
 * InitializeInjection does) and fills *hook. Returns 1 when started. */
typedef int (*mh_timing_attach_fn)(mh_timing_hook *hook);

#endif
