/* ocl_sink.h -- the C side of the Oclgrind collector (prefix mh_ocl_).
 *
 * shim.cpp receives Oclgrind's plugin callbacks and turns each into one plain
 * call below; everything memheat decides (which launches and work-groups are
 * traced, how OpenCL concepts map onto the trace model, buffering, thread
 * safety, labels) lives in ocl_sink.c. Mapping:
 *   work-group -> block, work-item -> thread (linear local id),
 *   warps = consecutive linear local ids in groups of cfg.warp_size (synthetic:
 *   OpenCL has no warps; the trace header says so),
 *   global/local/constant/private -> MH_SPACE_GLOBAL/SHARED/CONSTANT/LOCAL.
 *
 * Threads: Oclgrind runs work-groups on several worker threads; each group is
 * begun, executed and completed on one worker. Every running group owns a slot
 * (its own access buffer and per-work-item sequence counters, touched by that
 * worker only); a full buffer and the group's end are merged into the trace
 * under one mutex. Host-side callbacks (allocations, kernel begin/end) take the
 * same mutex. No access is dropped unless the trace cannot be written. */
#ifndef MEMHEAT_OCL_SINK_H
#define MEMHEAT_OCL_SINK_H

#include <stddef.h>
#include <stdint.h>

#include "memheat/err.h"
#include "memheat/trace.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mh_ocl mh_ocl;             /* the one process-wide collector context */
typedef struct mh_ocl_group mh_ocl_group; /* one running work-group's slot */

/* Reads the MEMHEAT_* configuration, creates the trace. command may be "". */
int mh_ocl_open(mh_ocl **out, const char *command, mh_err *err);
/* Ends an unfinished launch and writes the trace's end (launch counts, the
 * END record), once: later calls do nothing, and what the plugin is told
 * after it is counted, not written. The shim calls it when the context is
 * released or, for a program that never releases it, at exit. */
int mh_ocl_finish(mh_ocl *o, mh_err *err);
/* mh_ocl_finish, then frees o. */
int mh_ocl_close(mh_ocl *o, mh_err *err);
/* First error that stopped tracing (code MH_OK if none). */
const mh_err *mh_ocl_error(const mh_ocl *o);

/* Buffers in Oclgrind's global memory (host allocations, program constants). */
void mh_ocl_buffer_alloc(mh_ocl *o, uint64_t base, uint64_t size);
void mh_ocl_buffer_free(mh_ocl *o, uint64_t base);

typedef struct mh_ocl_kernel {
    const char *name;
    mh_dim3 groups;       /* number of work-groups per dimension */
    mh_dim3 local;        /* work-group size */
    uint32_t local_bytes; /* all local memory: __local variables and arguments (-> static_smem) */
} mh_ocl_kernel;

/* Returns 1 when this launch is traced (the shim then reports arguments, pcs
 * and local variables), 0 when it is skipped. */
int mh_ocl_kernel_begin(mh_ocl *o, const mh_ocl_kernel *k);
/* A pointer argument or program-scope variable of the traced launch: labels
 * the buffer holding ptr (first label wins); space is MH_SPACE_GLOBAL or
 * MH_SPACE_CONSTANT. */
void mh_ocl_kernel_arg(mh_ocl *o, const char *name, uint64_t ptr, unsigned space);
/* A pointer parameter (position index, its name and type as the program
 * declares them): labels its buffer as mh_ocl_kernel_arg does, and is
 * written as a KARG record after the launch record (trace version 3), so
 * that analyses name what the kernel touches by it ("arg 0: float* (in)"). */
void mh_ocl_kernel_param(mh_ocl *o, uint32_t index, const char *name, const char *type, uint64_t ptr,
                         unsigned space);
/* Source position of an instruction that may access memory. */
void mh_ocl_pcinfo(mh_ocl *o, uint64_t pc, const char *function, const char *file, uint32_t line);
/* Called once after the arguments: writes allocation and launch records. */
void mh_ocl_kernel_ready(mh_ocl *o);
void mh_ocl_kernel_end(mh_ocl *o);

/* Local (shared) memory layout of the traced launch, identical in every
 * work-group: the first group to begin reports its variables. */
int mh_ocl_local_needed(mh_ocl *o);
void mh_ocl_local_var(mh_ocl *o, uint64_t bufidx, uint64_t size, uint64_t align, const char *label);
void mh_ocl_local_done(mh_ocl *o);

/* key identifies the work-group (Oclgrind's WorkGroup pointer). Returns NULL
 * when the launch or the group is not traced. */
mh_ocl_group *mh_ocl_group_begin(mh_ocl *o, const void *key, mh_dim3 group_id, uint32_t nitems);
mh_ocl_group *mh_ocl_group_find(mh_ocl *o, const void *key);
void mh_ocl_group_end(mh_ocl *o, const void *key);

/* One access of work-item `item` (linear local id). For MH_SPACE_SHARED and
 * MH_SPACE_LOCAL, addr is (bufidx, offset) split by the shim: pass the buffer
 * index in bufidx; for the other spaces bufidx is ignored and addr is used. */
void mh_ocl_access(mh_ocl *o, mh_ocl_group *g, uint32_t item, unsigned space, unsigned kind,
                   uint64_t bufidx, uint64_t addr, uint32_t size, uint64_t pc);

/* Call sites (ocl_enqueue.c, collectors/site/site.h). mh_ocl_enqueued is
 * called on the host thread inside the program's clEnqueueNDRangeKernel: it
 * captures the site and queues it under the kernel's name; the launch that
 * Oclgrind later begins for that kernel takes the oldest queued site of its
 * name (a LAUNCH_SITE record after its LAUNCH record; every launch counted
 * per site at close). */
void mh_ocl_enqueued(mh_ocl *o, const char *kernel_name);
/* The current launch's site (MH_SITE_NONE: none was queued for it; 0 when
 * call sites are off). */
uint32_t mh_ocl_kernel_site(mh_ocl *o);
/* Routes the program's clEnqueueNDRangeKernel through the hook (GOT
 * slots); 1 when Oclgrind's function was found. */
int mh_ocl_hook_install(mh_ocl *o);
void mh_ocl_hook_rescan(void);
void mh_ocl_hook_detach(void);

/* Accesses the collector saw / lost since open (for tests and the summary). */
uint64_t mh_ocl_recorded(const mh_ocl *o);
uint64_t mh_ocl_dropped(const mh_ocl *o);

#ifdef __cplusplus
}
#endif

#endif
