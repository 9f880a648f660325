/* groupbuf.h -- accesses gathered into groups that belong together in time.
 *
 * Several analyses look at accesses that happened "at the same time": the
 * parallel spatial locality metric groups a block's accesses by logical time
 * step (block, seq); bank-conflict and coalescing analysis groups a warp's
 * lanes at one execution of one instruction (block, warp, pc, k), where k is
 * the lane's occurrence count of that pc (occur.h). A trace does not deliver a
 * group contiguously (the Oclgrind collector runs one work-item after another
 * until a barrier; the CUDA collector interleaves warps), so groups are
 * buffered here until they are complete and then handed to a callback.
 *
 * A group is surely complete when its launch ends (mh_grp_flush_launch).
 * Before that, a group nobody touched for max_age accesses (initially 2^20,
 * doubled whenever that proves too early) is handed over, and memory is
 * bounded by a byte budget: when the buffered groups exceed it, the least
 * recently touched groups are handed over early. Usually such a group was
 * complete anyway (its block finished long ago); if a later access arrives
 * for a key handed over early, a new group starts and the group was split.
 * mh_grp_split counts those (keys handed over early are remembered as
 * ranges of steps per (launch, block, warp, pc), so a space that shares a
 * step with a split one may be counted too: an upper bound); zero means every
 * group was seen whole, so the results are exact. */
#ifndef MEMHEAT_ANALYSES_GROUPBUF_H
#define MEMHEAT_ANALYSES_GROUPBUF_H

#include <stddef.h>
#include <stdint.h>

#include "memheat/err.h"

typedef struct mh_grp_key {
    uint64_t pc;     /* 0 when the grouping ignores pcs */
    uint32_t launch;
    uint32_t block;
    uint32_t seq;    /* the step: seq (locality) or per-pc occurrence k (patterns) */
    uint16_t warp;   /* UINT16_MAX when the grouping ignores warps */
    uint8_t space;   /* MH_SPACE_COUNT when the grouping ignores spaces */
    uint8_t pad;
} mh_grp_key;

typedef struct mh_grp_entry {
    uint64_t canon;  /* canonical address key (canon.h) */
    uint32_t raw_lo; /* low 32 bits of the raw address (alignment, banks) */
    uint16_t thread; /* thread id within the block */
    uint8_t size;    /* bytes */
    uint8_t kind;    /* enum mh_kind */
} mh_grp_entry;

/* Called once per finished group; may reorder v. */
typedef int (*mh_grp_done_fn)(void *ctx, const mh_grp_key *k, mh_grp_entry *v, size_t n, mh_err *err);

typedef struct mh_grp mh_grp;

int mh_grp_new(mh_grp **g, size_t budget_bytes, mh_grp_done_fn fn, void *ctx, mh_err *err);
void mh_grp_free(mh_grp *g);
int mh_grp_add(mh_grp *g, const mh_grp_key *k, const mh_grp_entry *e, mh_err *err);
/* Hands over every buffered group of a launch. */
int mh_grp_flush_launch(mh_grp *g, uint32_t launch, mh_err *err);
int mh_grp_flush_all(mh_grp *g, mh_err *err);
uint64_t mh_grp_evicted(const mh_grp *g);
uint64_t mh_grp_split(const mh_grp *g);
uint64_t mh_grp_done_count(const mh_grp *g);
size_t mh_grp_bytes(const mh_grp *g);
size_t mh_grp_peak_bytes(const mh_grp *g);

#endif
