/* occur.h -- per-thread, per-pc occurrence counters: which execution of an
 * instruction an access belongs to.
 *
 * Warp-level analyses (coalescing, bank conflicts) must put together the
 * lanes of one warp that executed one instruction together. The per-thread
 * sequence number cannot say which those are: after divergent control flow
 * (a loop each thread runs a different number of times) the lanes reach the
 * next instruction with different seq values. SIMT hardware reconverges them:
 * the k-th execution of an instruction by each lane of a warp is one warp
 * instruction. So the grouping key is (launch, block, warp, pc, k) with
 * k = how many times this thread executed this pc before; mh_occ_next
 * returns that k.
 *
 * Memory: counters exist only for blocks in flight. A block's table is freed
 * when its launch ends, when nobody touched it for max_age accesses
 * (initially 2^20, doubled each time that proved too early), or, least
 * recently touched first, when all tables exceed the byte budget. A block
 * whose counters were dropped and that comes back restarts from k = 0;
 * mh_occ_restarts counts those (0 = every k is exact). */
#ifndef MEMHEAT_ANALYSES_OCCUR_H
#define MEMHEAT_ANALYSES_OCCUR_H

#include <stddef.h>
#include <stdint.h>

#include "memheat/err.h"
#include "memheat/trace.h"

typedef struct mh_occ mh_occ;

int mh_occ_new(mh_occ **o, size_t budget_bytes, mh_err *err);
void mh_occ_free(mh_occ *o);
/* *k = number of earlier accesses of (launch, block, thread) at pc; counts this one. */
int mh_occ_next(mh_occ *o, uint32_t launch, uint32_t block, uint16_t thread, uint64_t pc, uint32_t *k, mh_err *err);
/* mh_occ_next of each global or shared access of v, in order, into k[i]
 * (the others' k[i] untouched). */
int mh_occ_next_accesses(mh_occ *o, const mh_access *v, size_t n, uint32_t *k, mh_err *err);
/* Frees the counters of a launch that ended. */
void mh_occ_end_launch(mh_occ *o, uint32_t launch);
uint64_t mh_occ_restarts(const mh_occ *o);
size_t mh_occ_bytes(const mh_occ *o);

#endif
