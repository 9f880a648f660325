/* lanes_batch.h -- a lane's input batches (lanes_batch.c): the records the
 * model takes, each copied once for all lanes into a shared block that
 * every batch pointing into it holds (counted), and the lane's accesses,
 * read in place in a held trace chunk or copied. */
#ifndef MH_SCHED_LANES_BATCH_H
#define MH_SCHED_LANES_BATCH_H

#include "sched/lanes_state.h"

/* Empties b, releasing its chunks and shared blocks. */
void mh_lbatch_reset(lbatch *b);
/* mh_lbatch_reset, then frees b (NULL is fine). */
void mh_lbatch_free(lbatch *b);
/* A new zeroed item at b's end; NULL without memory. */
item *mh_lbatch_item(lbatch *b);
/* b holds the reader's current shared block (once); 0 without memory. */
int mh_lbatch_hold_shared(mh_lanes *L, lbatch *b);
/* A deep copy of rec (a record the model takes) into *out, its strings and
 * lists in the reader's shared block. 0 without memory. */
int mh_lbatch_copy_record(mh_lanes *L, mh_record *out, const mh_record *rec);
/* Drops a reference to a shared block (NULL is fine). */
void mh_lbatch_shared_release(sblock *b);

#endif
