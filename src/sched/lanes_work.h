/* lanes_work.h -- the lanes' threads (lanes_work.c): each runs its lane's
 * halves batch by batch, and, while the reader waits, another lane's. */
#ifndef MH_SCHED_LANES_WORK_H
#define MH_SCHED_LANES_WORK_H

#include "sched/lanes_state.h"

/* A lane's thread (pthread_create's start routine, arg: the lane). */
void *mh_lanes_thread(void *lane);
/* Lane ln has a ready half: wakes its thread where it waits, else (a
 * stealable one) another thread that waits (under the lock). */
void mh_lanes_offer(mh_lanes *L, lane *ln);
/* The reader starts or stops waiting for the lanes (under the lock). */
void mh_lanes_drain_begin(mh_lanes *L);
void mh_lanes_drain_end(mh_lanes *L);

#endif
