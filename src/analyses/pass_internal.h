/* pass_internal.h -- what pass.c (the reading loop, emissions, lanes) and
 * pass_units.c (the built-in analyses as units on the ring's workers)
 * share: the pass itself, its batches and its units. Internal to mh_pass. */
#ifndef MH_PASS_INTERNAL_H
#define MH_PASS_INTERNAL_H

#include "memheat/pass.h"
#include "analyses/lanes.h"
#include "analyses/ring.h"

/* The built-in analyses as units. On the workers the patterns and the
 * locality metrics are two each: the patterns' per-access stage (U_PAT1) and
 * per-request one (U_PAT); the locality's address counts (U_LOC1) and time
 * steps (U_LOC); the second takes a batch after the first (ring.h's follow)
 * and reads what it handed over (memheat/stage.h). With enough threads the
 * second stages only group, and a third each (U_PAT3, U_LOC3) evaluates the
 * groups handed over, after the second; the patterns' execution counts
 * (U_PAT1B) and the locality's second half of the address counts (U_LOC1B),
 * else done by the first stage, then come between the first and the second,
 * and U_LOC1 follows U_PAT1 to take the canonical keys it made. Elsewhere
 * U_PAT and U_LOC feed every stage. With a thread more, half the heat
 * maps' parts (mh_heat_part) are filled by a unit of its own (U_HEAT2),
 * the other half by U_HEAT, which emits them all. With two more, U_PAT3B and
 * U_LOC3B evaluate every other group between the second and the third
 * stage (memheat/stage.h), the third adding them up in order. With one
 * more, U_LOC1C counts the first half of the addresses of the launches
 * split in two (after U_LOC1B, before U_LOC), U_LOC1 then only keying.
 * With two more, the heat maps' parts go to four units (U_HEAT-U_HEAT4);
 * with one more, the patterns' shared-memory word owners to U_PAT1C
 * (after U_PAT1B, before U_PAT). */
enum {
    U_HEAT, U_HEAT2, U_HEAT3, U_HEAT4, U_PAT1, U_PAT1B, U_PAT1C, U_PAT, U_PAT3B, U_PAT3, U_LOC1, U_LOC1B, U_LOC1C, U_LOC, U_LOC3B, U_LOC3,
    U_COUNT
};

#define BATCH_ACCESSES (1u << 17) /* accesses per batch: 4 MiB, a few ms of work */
#define END_SPLIT_MIN (1u << 15)  /* accesses since the last kernel end that make a split end worth a hand-off */
#define PROGRESS_EVERY 0.5        /* seconds between progress lines */
#define BIG_EPISODE (1u << 22)    /* accesses of an episode after which the next one is split by analysis */
#define RING_SLOTS 8              /* batches: one being filled, the others in the workers */
#define MAIN (-1)                 /* the executor of launches analysed here (by analysis), not in a lane */

/* ACCESSES records waiting for, or in, the workers: each read in place in
 * its trace chunk (held, mh_trace_hold) or, where it is not in one (a
 * filtered copy, a decoded record), copied into v. */
typedef struct batch {
    mh_access *v;
    size_t ncopy, cap;     /* accesses copied into v */
    size_t n;              /* accesses in the batch, in place or copied */
    size_t *rec_n;         /* accesses per original record, in order */
    const mh_access **rec_v; /* per record: where it lies, or NULL: the next ones copied into v */
    size_t nrec, caprec;
    mh_trace_holds holds;  /* the chunks the records lie in */
    const mh_record *rec; /* set: the job is this one record instead (a split kernel end) */
    mh_stage pst, lst;    /* hand-overs: U_PAT1 to U_PAT (to U_PAT3), U_LOC1 to U_LOC (to U_LOC3) */
} batch;

struct mh_pass {
    mh_pass_opts o;
    mh_trace_reader *r;
    mh_model own_model;
    mh_model *m;
    int model_ok;
    mh_heat_run *hr;
    mh_heat_run *hrp[MH_HEAT_PARTS - 1]; /* the heat maps' other parts' runs on U_HEAT2.., or NULL: hr fills all */
    mh_pat_run *pat;
    mh_loc_run *lr;
    mh_pass_consumer *c;
    size_t nc;
    mh_pass_stats st;
    int ran;
    /* workers (ring.h): ring unit i is unit_at[i]; batch b[s] is ring slot s */
    mh_ring *ring;
    unsigned nworkers, nunits;
    int pool_ok;
    int three; /* third stages (U_PAT3, U_LOC3) */
    int unit_at[U_COUNT];
    unsigned loc_pos;
    batch b[RING_SLOTS];
    /* bad-record check of accesses: the verdict for the last launch id asked,
     * valid until the model changes (a non-access record) */
    int chk_valid, chk_why;
    uint32_t chk_id;
    size_t chk_idx;    /* model index of launch chk_id when it may take accesses */
    uint64_t *read_of; /* per model launch index: accesses taken for it, checked at its kernel end */
    size_t capread;
    mh_access *keep; /* the good accesses of a record that had bad ones */
    size_t capkeep;
    /* a kernel end split over threads (end_split): locality results held
     * back until heat maps and patterns are done on this thread */
    int loc_hold;
    mh_loc_result *held;
    size_t nheld, capheld;
    uint64_t acc_at_end; /* st.accesses at the last kernel end */
    /* launch lanes (lanes.h): launches that overlap in time form an
     * episode, analysed by one executor: a lane, or MAIN */
    mh_lanes *lanes;
    unsigned nlanes, rr;
    int32_t *own;      /* per model launch index: its executor */
    uint64_t *ep_of;   /* per model launch index: its episode */
    size_t capl;
    unsigned inflight; /* launches announced and not ended */
    int ep_exec, any_ep;
    uint64_t ep_no, ep_acc;
    uint32_t own_id;   /* owner_of's cache */
    int own_last, own_valid;
    /* progress */
    double t0, last_progress;
};

/* ---- pass_units.c: the units and the workers' ring ---- */
/* Record rec through unit u, on the calling thread. */
int mh_pass_unit_feed(mh_pass *p, int u, const mh_record *rec, mh_err *err);
/* Starts the ring of nworkers workers for the units there are (three:
 * third stages and stages 1b; nheat: the heat maps' runs, 1, 2 or 4, on
 * U_HEAT..; evalb: stages 3b; c1: the locality's stage 1c; pc1: the
 * patterns'). */
int mh_pass_pool_start(mh_pass *p, unsigned nworkers, int three, unsigned nheat, int evalb, int c1, int pc1,
                       mh_err *err);
/* Stops the workers (drained), keeping their times in p->st. */
void mh_pass_pool_stop(mh_pass *p);
/* The batch being filled (the ring's current slot). */
batch *mh_pass_cur_batch(mh_pass *p);
void mh_pass_batch_clear(batch *b);
int mh_pass_pool_submit(mh_pass *p, unsigned mask);
int mh_pass_pool_flush(mh_pass *p, mh_err *err);
int mh_pass_pool_barrier(mh_pass *p, mh_err *err);
int mh_pass_batch_add(batch *b, const mh_access *v, size_t n, mh_trace_hold *hold, mh_err *err);

#endif
