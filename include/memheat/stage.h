/* stage.h -- a batch's hand-over between two stages of one analysis.
 *
 * An analysis fed in two stages (the patterns and the locality metrics on
 * mh_pass's workers, memheat/patterns.h and memheat/locality.h) computes
 * per access, in its first stage, what its second needs (the canonical key;
 * for the patterns, the thread's execution count of the pc), and records
 * its own memory after each record, so that the second stage, on another
 * thread and a batch behind, reproduces the one-stage run's results and
 * memory peak. One hand-over per batch slot: the first stage writes it, the
 * second reads it, never at once (mh_pass's ring orders them). */
#ifndef MEMHEAT_STAGE_H
#define MEMHEAT_STAGE_H

#include <stddef.h>
#include <stdint.h>

typedef struct mh_stage {
    uint64_t *key;  /* per access: canonical key */
    uint32_t *occ;  /* per access: the thread's execution count of its pc (patterns) */
    size_t cap;
    size_t *bytes;  /* per record: the first stage's memory after it */
    size_t capr;
} mh_stage;

/* Room for accesses accesses (occ too when with_occ) and records records;
 * 0, or -1 without memory (the hand-over stays as it was). */
int mh_stage_room(mh_stage *st, size_t accesses, size_t records, int with_occ);
/* Frees and zeroes (zero-initialised is empty). */
void mh_stage_free(mh_stage *st);

#endif
