/* model.h -- the run as analyses see it: launches and data objects.
 *
 * Every analysis needs to know, for an access, which launch it belongs to (grid,
 * block shape, sampled blocks, name) and which data object (allocation or
 * shared-memory array) its address falls in. mh_model is fed every trace record
 * in order and keeps exactly that, with its own copies of all strings, so the
 * analyses stay streaming and never re-read the trace. */
#ifndef MH_ANALYSES_MODEL_H
#define MH_ANALYSES_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "analyses/sites.h"
#include "memheat/err.h"
#include "memheat/trace.h"

typedef struct mh_model_launch {
    mh_launch l;            /* strings and sampled[] owned by the model */
    uint32_t threads_per_block;
    uint32_t warps_per_block;
    uint32_t n_blocks;      /* grid size */
    uint32_t n_sampled;     /* resolved: blocks traced (grid size when all) */
    int ended;              /* KERNEL_END seen */
    mh_kernel_end end;
    size_t objs_at;         /* objects when it was announced: its views come after */
    int64_t tied_last;      /* the newest object tied to it (view, shared array), -1 = none */
} mh_model_launch;

/* An object is an allocation (or shared array) of the trace, or a view of
 * one: what a kernel argument of one launch points to (trace version 3,
 * MH_REC_KARG). A view is tied to its launch (a.launch) and spans from the
 * argument's pointer to the next argument's pointer into the same
 * allocation, or the allocation's end: an access is named by the argument
 * whose pointer is the greatest one at or below its address (PyTorch's
 * caching allocator hands many tensors out of one allocation). Its label is
 * "arg 2: float*" (docs/metrics.md, "Object names"). */
typedef struct mh_model_obj {
    mh_alloc a;       /* label owned by the model */
    int live;         /* not freed yet */
    int32_t arg;      /* a view: the argument's position; -1 = an allocation */
    int64_t parent;   /* a view: objs index of the allocation it lies in; else -1 */
    const char *arg_type;  /* a view: parameter type, "" unknown (owned) */
    const char *arg_name;  /* a view: parameter name, "" unknown (owned) */
    uint64_t used_lo, used_hi; /* a view: bytes touched, [lo, hi) from a.base; hi == 0: none seen */
    int64_t tied_prev;     /* tied to a launch: the object tied to it before, -1 = none */
} mh_model_obj;

typedef struct mh_model {
    mh_trace_header hdr;    /* strings owned by the model */
    mh_model_launch *launches;
    size_t nlaunches, caplaunches;
    int ids_unordered;      /* 0 while launch ids came strictly increasing (then found by bisection) */
    mh_model_obj *objs;     /* every allocation ever seen, in order, and argument views */
    size_t nobjs, capobjs;
    size_t nviews;          /* of which argument views (0 in traces without KARG records) */
    /* indexes into objs, in order, so that a search does not walk every
     * launch's views (a training step's trace of every launch: 10^5): */
    size_t *untied;         /* allocations not tied to a launch */
    size_t nuntied, capuntied;
    size_t *tied_allocs;    /* shared arrays (allocations tied to a launch) */
    size_t ntied_allocs, captied_allocs;
    size_t *orphans;        /* objects tied to a launch not announced yet (searches walk objs) */
    size_t norphans, caporphans;
    uint64_t dropped_total; /* sum of DROPPED records and kernel-end drops */
    mh_pcinfo *pcs;         /* source attribution records */
    size_t npcs, cappcs;
    mh_launch_stats *stats; /* launches per configuration (names owned); none in older traces */
    size_t nstats, capstats;
    mh_sites sites;         /* call sites (version 5; empty before): resolve with mh_sites_resolve */
} mh_model;

int mh_model_init(mh_model *m, const mh_trace_header *h, mh_err *err);
void mh_model_free(mh_model *m);
/* Feed every record in trace order (ACCESSES records are ignored here). */
int mh_model_feed(mh_model *m, const mh_record *rec, mh_err *err);
/* Records with valid checksums that contradict the model (a collector bug,
 * two writers on one file, a duplicated chunk). mh_pass skips and counts
 * them, so one bad record never discards or overwrites a finished launch. */
enum mh_model_bad {
    MH_BAD_NONE = 0,
    MH_BAD_ACCESS_UNKNOWN, /* an access naming a launch never announced */
    MH_BAD_ACCESS_ENDED,   /* an access naming a launch that already ended */
    MH_BAD_LAUNCH_TWICE,   /* a launch id announced twice */
    MH_BAD_END_UNKNOWN,    /* a kernel end of a launch never announced */
    MH_BAD_END_TWICE,      /* a second kernel end of one launch */
    MH_BAD_COUNT
};
/* Why an access naming launch id cannot be taken (MH_BAD_NONE = it can). */
int mh_model_check_access(const mh_model *m, uint32_t launch);
/* Why a LAUNCH or KERNEL_END record cannot be taken (MH_BAD_NONE = it can;
 * other record types always can). */
int mh_model_check(const mh_model *m, const mh_record *rec);
/* "access naming a launch never announced", ... */
const char *mh_model_bad_text(int why);
/* Launch by id, NULL if unknown. */
const mh_model_launch *mh_model_launch_get(const mh_model *m, uint32_t id);
/* Index in launch->sampled order of linear block b (b itself when all blocks
 * are traced), or -1 if b is not a sampled block. */
int64_t mh_model_block_index(const mh_model_launch *ml, uint32_t b);
/* Global warp index of an access within the launch's sample:
 * block_index * warps_per_block + thread / warp_size. -1 if not sampled. */
int64_t mh_model_warp_of(const mh_model *m, const mh_model_launch *ml, const mh_access *a);
/* Data object containing [addr, addr+1) in space for launch; -1 if none.
 * Objects alive when the launch ran win over freed ones; shared arrays
 * must belong to the launch. */
int64_t mh_model_find_obj(const mh_model *m, unsigned space, uint32_t launch, uint64_t addr);
/* Widens view obj's touched range by [lo, hi) (bytes from its base); the
 * pass calls it from the launch's global heat map, before the findings. */
void mh_model_note_used(mh_model *m, int64_t obj, uint64_t lo, uint64_t hi);
/* "arg 2: float*", "arg 0: float* (in)", "arg 3" (no type known) into buf. */
void mh_model_arg_label(char *buf, size_t cap, uint32_t index, const char *type, const char *name);
/* What text shows for object obj: its label, and for a view the allocation
 * and bytes used: "arg 1: float* (bytes 0..4095 of cudaMalloc #3)". */
void mh_model_obj_text(const mh_model *m, int64_t obj, char *buf, size_t cap);
/* Source attribution for a pc, NULL if none. */
const mh_pcinfo *mh_model_pcinfo(const mh_model *m, uint64_t pc);

#endif
