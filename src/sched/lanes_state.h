/* lanes_state.h -- the launch lanes' state, shared by lanes.c (the
 * reader's side: queues, results in trace order), lanes_batch.c (the
 * batches: records and accesses, copied or held) and lanes_work.c (the
 * lanes' threads and the halves they run). Every field a thread and the
 * reader both touch is under mh_lanes.mu. */
#ifndef MH_SCHED_LANES_STATE_H
#define MH_SCHED_LANES_STATE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "memheat/err.h"
#include "memheat/trace.h"
#include "sched/lanes.h"

typedef struct item {
    mh_record rec;
    const mh_access *ext; /* ACCESSES: the accesses in a held chunk, or NULL: */
    size_t off;   /* ACCESSES: first access in the batch's array */
    int mark;     /* an owned kernel end: queue a mark after it */
} item;

/* Copies of model records' strings and lists, shared by the lanes' batches:
 * the reader fills the current block; the reader (while it is current) and
 * each batch pointing into it hold it; the last release frees it. */
typedef struct sblock {
    atomic_uint refs;
    size_t used, cap;
    char data[];
} sblock;

typedef struct lbatch {
    struct lbatch *next;
    unsigned left;         /* halves that have not analysed it yet */
    uint64_t seq;          /* its place among its lane's batches */
    item *it;
    size_t n, cap;
    mh_access *acc;
    size_t nacc, capacc;
    size_t total;          /* accesses in the batch, copied or held */
    mh_trace_holds holds;  /* chunks the batch points into */
    sblock **sbs;          /* shared blocks the batch's records point into */
    size_t nsbs, capsbs;
} lbatch;

enum { O_RESULT, O_MARK, O_ERR };

typedef struct onode {
    struct onode *next;
    int kind;
    void *res;          /* O_RESULT: the executor's result (mh_lanes_work.drop frees it) */
    int rc;
    mh_err err;
} onode;

/* A lane's half: an executor of the caller's (its own model and runs), the
 * batches it has not run yet, what it emitted for the reader. Any lane's
 * thread may run a half's next batch (busy: one does), so its batches go in
 * order. */
typedef struct mh_lanes_half {
    struct lane *ln;
    void *exec;                /* mh_lanes_work.open's */
    lbatch *next;              /* the next batch in the lane's queue to analyse, NULL: none yet */
    int busy;                  /* a thread analyses a batch for it */
    onode *ohead, *otail;      /* results for the reader */
    onode *mine, *minetail;    /* emitted by the batch in hand, queued at its end */
    int failed;
    double cpu;                /* under mu: CPU seconds on batches and the finish */
} half;

typedef struct lane {
    struct mh_lanes *L;
    unsigned idx;
    pthread_t tid;
    int started;
    int idle;                  /* its thread waits for work */
    int done;                  /* its thread has queued its last marks */
    pthread_cond_t cv;         /* its thread waits here */
    lbatch *cur;               /* the reader's */
    lbatch *qhead, *qtail;     /* sent and not through every half yet, oldest first */
    unsigned nq;
    uint64_t backlog;          /* accesses sent to the lane and not analysed yet */
    uint64_t sent;             /* batches sent: their order (lbatch.seq) */
    half h[2];
    unsigned nh;               /* halves: 1, or 2 (heat and patterns; locality) */
    unsigned taken;            /* reader: halves whose mark for the oldest pending kernel end it took */
} lane;

struct mh_lanes {
    unsigned n;
    lane *v;
    mh_lanes_work work;
    pthread_mutex_t mu;
    pthread_cond_t rcv;        /* the reader waits for room or results */
    int finishing, stopping;
    lbatch *freeb;
    uint64_t mark_send;        /* accesses a batch needs to go at an owned kernel end */
    uint64_t backlog;          /* accesses sent to all lanes and not analysed yet */
    sblock *sb;                /* the reader's current shared block */
    int *pending;              /* owners of the owned kernel ends not handed on yet, a ring */
    size_t phead, pn, pcap;
    uint64_t idle_ns, room_ns, results_ns; /* waits (under mu): mh_lanes_times */
    uint64_t moved;            /* batches analysed for another lane's half (under mu) */
    int draining;              /* the reader waits for the lanes: spare threads may take others' halves */
};

#endif
