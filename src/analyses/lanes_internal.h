/* lanes_internal.h -- what lanes.c (the reader's side: batches, queues,
 * results in trace order) and lanes_thread.c (the lanes' threads and the
 * halves they analyse) share. Every field a thread and the reader both
 * touch is under mh_lanes.mu. */
#ifndef MH_ANALYSES_LANES_INTERNAL_H
#define MH_ANALYSES_LANES_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "analyses/lanes.h"

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

enum { O_HEAT, O_LOC, O_MARK, O_ERR };

typedef struct onode {
    struct onode *next;
    int kind;
    uint32_t launch;
    mh_heat_result h;   /* rows and regions owned */
    mh_loc_result l;
    int rc;
    mh_err err;
} onode;

/* A lane's half: analyses on a model of their own, the batches they have
 * not analysed yet, what they emitted for the reader. Any lane's thread may
 * run a half's next batch (busy: one does), so its batches go in order. */
typedef struct half {
    struct lane *ln;
    mh_model m;
    int model_ok;
    mh_heat_run *hr;
    mh_pat_run *pat;
    mh_loc_run *lr;
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
    const mh_model *main;
    mh_lanes_sink sink;
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

/* lanes.c */
void mh_lanes_batch_reset(lbatch *b);

/* lanes_thread.c */
void *mh_lanes_thread(void *lane);                                    /* a lane's thread (pthread_create) */
int mh_lanes_heat_out(void *half, const mh_heat_result *r, mh_err *err); /* a half's heat maps (emit callback) */
int mh_lanes_loc_out(void *half, const mh_loc_result *r, mh_err *err);   /* a half's locality results */
/* Lane ln has a ready half: wakes its thread where it waits, else (a
 * stealable one) another thread that waits (under the lock). */
void mh_lanes_offer(mh_lanes *L, lane *ln);
/* The reader starts or stops waiting for the lanes (under the lock). */
void mh_lanes_drain_begin(mh_lanes *L);
void mh_lanes_drain_end(mh_lanes *L);

#endif
