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
 * A group is surely complete when its launch ends (mh_grp_flush_launch), or
 * when every thread that can take part has added to it once (the caller
 * says which: a warp's lanes, a block's threads). A trace written step by step
 * (the CUDA collector: all threads' k-th access, then the (k+1)-th) makes
 * most groups whole within a few dozen accesses, handed over while still in
 * the cache. Before that, a group nobody touched for max_age accesses (initially 2^20,
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
#include <string.h>

#include "memheat/err.h"

typedef struct mh_grp_key {
    uint64_t pc;     /* 0 when the grouping ignores pcs */
    uint32_t launch;
    uint32_t block;
    uint32_t seq;    /* the step: seq (locality) or per-pc occurrence k (patterns) */
    uint16_t warp;   /* UINT16_MAX when the grouping ignores warps */
    uint8_t space;   /* MH_SPACE_COUNT when the grouping ignores spaces */
    uint8_t pad;     /* always 0: keys compare as three words */
} mh_grp_key;

/* Key k of the given fields, written as three 64-bit words: mh_grp_add
 * compares keys a word at a time, and a word load from a key just written
 * field by field (4 + 2 + 1 + 1 bytes) cannot be forwarded from those
 * stores, which stalled every call until they reached the cache. */
static inline void mh_grp_key_set(mh_grp_key *k, uint64_t pc, uint32_t launch, uint32_t block, uint32_t seq,
                                  uint16_t warp, uint8_t space) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    _Static_assert(sizeof(mh_grp_key) == 24 && offsetof(mh_grp_key, launch) == 8 && offsetof(mh_grp_key, block) == 12 &&
                       offsetof(mh_grp_key, seq) == 16 && offsetof(mh_grp_key, warp) == 20 &&
                       offsetof(mh_grp_key, space) == 22 && offsetof(mh_grp_key, pad) == 23,
                   "mh_grp_key layout");
    uint64_t w[3] = {pc, launch | (uint64_t)block << 32, seq | (uint64_t)warp << 32 | (uint64_t)space << 48};
    memcpy(k, w, sizeof w);
#else
    *k = (mh_grp_key){pc, launch, block, seq, warp, space, 0};
#endif
}

typedef struct mh_grp_entry {
    uint64_t canon;  /* canonical address key (canon.h) */
    uint32_t raw_lo; /* low 32 bits of the raw address (alignment, banks) */
    uint16_t thread; /* thread id within the block */
    uint8_t size;    /* bytes */
    uint8_t kind;    /* enum mh_kind */
} mh_grp_entry;

/* Entry e of the given fields, written as two 64-bit words (mh_grp_add
 * copies it whole: see mh_grp_key_set). */
static inline void mh_grp_entry_set(mh_grp_entry *e, uint64_t canon, uint32_t raw_lo, uint16_t thread, uint8_t size,
                                    uint8_t kind) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    _Static_assert(sizeof(mh_grp_entry) == 16 && offsetof(mh_grp_entry, raw_lo) == 8 &&
                       offsetof(mh_grp_entry, thread) == 12 && offsetof(mh_grp_entry, size) == 14 &&
                       offsetof(mh_grp_entry, kind) == 15,
                   "mh_grp_entry layout");
    uint64_t w[2] = {canon, raw_lo | (uint64_t)thread << 32 | (uint64_t)size << 48 | (uint64_t)kind << 56};
    memcpy(e, w, sizeof w);
#else
    *e = (mh_grp_entry){canon, raw_lo, thread, size, kind};
#endif
}

/* Called once per finished group; may reorder v. */
typedef int (*mh_grp_done_fn)(void *ctx, const mh_grp_key *k, mh_grp_entry *v, size_t n, mh_err *err);

typedef struct mh_grp mh_grp;

int mh_grp_new(mh_grp **g, size_t budget_bytes, mh_grp_done_fn fn, void *ctx, mh_err *err);
void mh_grp_free(mh_grp *g);
/* Adds e to the group of key k. Threads lo .. lo + full - 1 make the group
 * whole (a warp's lanes, a block's threads; full 0: unknown). A group that
 * got exactly those, each once in rising order, is handed over at the next
 * add (unless that one repeats the group's key: a thread's second record of
 * one step) or at the launch's end: no later access can belong to it. */
int mh_grp_add(mh_grp *g, const mh_grp_key *k, const mh_grp_entry *e, uint32_t lo, uint32_t full, mh_err *err);
/* The same as n calls of mh_grp_add with key k, one per entry of e, in
 * order (results, hand-overs and memory alike); cheaper where a trace
 * brings a group's accesses one after another (a warp's lanes). */
int mh_grp_add_run(mh_grp *g, const mh_grp_key *k, const mh_grp_entry *e, uint32_t n, uint32_t lo, uint32_t full,
                   mh_err *err);
/* Hands over every buffered group of a launch. */
int mh_grp_flush_launch(mh_grp *g, uint32_t launch, mh_err *err);
int mh_grp_flush_all(mh_grp *g, mh_err *err);
uint64_t mh_grp_evicted(const mh_grp *g);
uint64_t mh_grp_split(const mh_grp *g);
uint64_t mh_grp_done_count(const mh_grp *g);
size_t mh_grp_bytes(const mh_grp *g);
size_t mh_grp_peak_bytes(const mh_grp *g);

#endif
