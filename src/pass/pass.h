/* pass.h -- one streaming pass over a trace: the only loop reader -> model ->
 * analyses in memheat.
 *
 * mh_pass owns opening and reading the trace, the model (model.h), the rules
 * for a damaged or cut-short trace, the built-in analyses (heat maps, pattern
 * detection with bank conflicts, locality metrics) and a list of registered
 * consumers (output writers: the profile database, a heat-map printer, the
 * `memheat info` counters). Heat maps go straight to the pattern analysis
 * inside the pass; consumers are only given results.
 *
 * Damage and truncation (one rule for every caller): every record before a
 * damaged chunk or a cut is read, analysed and handed to the consumers, the
 * analyses are finished (launches that never ended are emitted), and only
 * then is the reader's error returned (MH_ERR_TRUNCATED for a cut). An error
 * of an analysis or a consumer stops the pass and is returned as is. A NULL
 * err never hides an error: the code is always returned.
 *
 * Bad records (valid checksums, contradicting the model: an access naming a
 * launch never announced or already ended, a launch id seen twice, a kernel
 * end of an unknown or ended launch) are skipped and counted in the stats,
 * never handed to the model, the analyses or the consumers: every finished
 * launch is kept. What the trace states about itself is checked too: each
 * kernel end's count of accesses against those read for its launch, and the
 * end record's counts (the reader's, mh_trace_inconsistency); what does not
 * add up is counted, the records still used. mh_pass_notice says so in one
 * line.
 *
 * The analyses are the rows of the pass's table (src/pass/table.c), fed,
 * finished and handed on in table order; bit i of mh_pass_opts.analyses
 * asks for row i (an analysis runs too when one that needs it does, or,
 * like the atomic-contention analysis, when the analysis it runs with
 * does).
 *
 * Threads, two ways (threads > 1; the scheduler, src/sched/). Launches that
 * overlap in time (one announced while another has not ended) form an
 * episode; one executor (the analyses on one model: src/pass/exec.h)
 * analyses a whole episode, so every analysis sees the launches in flight
 * together as the serial pass does.
 *  - The pass itself (the first episode, and any after an episode of 2^22
 *    accesses or more: one big launch): ACCESSES records go into batches
 *    (read in place in the held trace chunks) that the analyses' stages
 *    take on worker threads, each at its own pace, while the reading thread
 *    reads and decompresses the next batch (sched/pool.h; how many stages
 *    get a thread of their own: sched/plan.h). Every other record waits
 *    until every stage has taken every batch, goes into the model and then
 *    through the analyses on the calling thread, so the model never changes
 *    while a worker reads it. With several errors, the one returned is the
 *    first in trace order, then in table order, whatever the timing. At a
 *    kernel end after many accesses, an analysis whose end is long (the
 *    locality metrics) ends its launch on its worker while the others end
 *    on the calling thread (the worker only reads the model); its results
 *    are held and handed to the consumers after theirs, in the same order.
 *  - Launch lanes (every other episode; sched/lanes.h): one per thread, each
 *    in one or two halves, each half an executor with a copy of the model,
 *    fed every record the model takes and the accesses of the lane's
 *    launches; while the calling thread waits for the lanes, a lane's
 *    thread with nothing to do takes another lane's waiting half. Their
 *    results are copied, queued and handed to the consumers on the calling
 *    thread at their kernel end's turn in the trace (launches that never
 *    ended last, as in the serial pass), pointing at the pass's model,
 *    which then holds the records read so far (maybe beyond that kernel
 *    end); at the end the lanes' runs are merged into the pass's. Not used
 *    when a consumer has a record callback (its calls would have to wait
 *    for the lanes).
 * Every emission and every consumer call happens on the calling thread, in
 * trace order; stats.peak_* are the largest executor's.
 * Results are identical for any number of threads. */
#ifndef MH_PASS_PASS_H
#define MH_PASS_PASS_H

#include <stddef.h>
#include <stdint.h>

#include "analyses/heat.h"
#include "analyses/locality.h"
#include "analyses/model.h"
#include "analyses/patterns.h"
#include "memheat/err.h"
#include "memheat/trace.h"

/* mh_pass_opts.analyses: bit i asks for row i of the table */
#define MH_PASS_HEAT 1u      /* heat maps of heat_spaces, handed to consumers */
#define MH_PASS_PATTERNS 2u  /* pattern findings + bank conflicts (implies global heat maps) */
#define MH_PASS_LOCALITY 4u  /* AIWC locality metrics, handed to consumers */
#define MH_PASS_ROW(bit) ((unsigned)__builtin_ctz(bit)) /* the row of an MH_PASS_* bit */
#define MH_PASS_MAX_ANALYSES 8
#define MH_PASS_MAX_STAGES 32 /* stages of all the analyses together */

typedef void (*mh_pass_progress_fn)(void *ctx, const char *line, int done);

typedef struct mh_pass_opts {
    unsigned analyses;        /* MH_PASS_* bits; 0 = none (model only) */
    uint32_t heat_spaces;     /* bit (1 << space) per space to map; 0 = all */
    size_t group_budget;      /* bytes per grouping buffer (locality, patterns); 0 = 64 MiB */
    unsigned threads;         /* launch lanes, and workers per analysis (one per analysis at most);
                               * 1 = all on the caller's thread; 0 = $MEMHEAT_THREADS when set, else
                               * one per core, and at least one per analysis when the machine has
                               * several cores (mh_pass_default_threads) */
    mh_pass_progress_fn progress; /* a status line now and then (phase, counts, rate); NULL = none */
    void *progress_ctx;
} mh_pass_opts;

/* A consumer: every callback is optional and runs on the thread that called
 * mh_pass_run, in trace order. A non-zero return stops the pass with it. */
typedef struct mh_pass_consumer {
    void *ctx;
    /* every record, after the model has seen it (unknown record types too) */
    int (*record)(void *ctx, const mh_model *m, const mh_record *rec, mh_err *err);
    /* a heat map of one (launch, space), after the pattern analysis took it */
    int (*heat)(void *ctx, const mh_heat_result *r, mh_err *err);
    /* the locality metrics of one launch */
    int (*loc)(void *ctx, const mh_loc_result *r, mh_err *err);
} mh_pass_consumer;

/* Where the time of a pass went, seconds (MEMHEAT_PASS_TIMES=1 of `memheat
 * analyze` prints them; bench/analyses/cores.sh). CPU times are each thread's
 * own clock; fields of parts a pass did not use stay 0. */
typedef struct mh_pass_times {
    double wall;                  /* the pass, reading to the last result */
    double reader_cpu;            /* the reading thread (decoding, routing, handing results on) */
    double chunk_wait;            /* reading thread waiting for decompressed chunks (read-ahead) */
    double inflate_cpu;           /* read-ahead helpers fetching and decompressing, summed */
    double workers_cpu;           /* analysis workers (a launch split by analysis), summed */
    double unit_cpu[MH_PASS_MAX_STAGES]; /* the same per stage, the analyses' stages in table order
                                   * (mh_pass_stage_name); 0: not run, or done by the stage before */
    double ring_room;             /* reading thread waiting for a free slot of the workers' ring */
    double ends;                  /* reading thread at the ends of launches analysed on the workers: their
                                   * last batches through every unit, then the analyses' launch ends */
    double unit_wait[MH_PASS_MAX_STAGES]; /* per stage: its worker waiting for a batch or for the stage
                                   * before (stages sharing a worker show the worker's waits) */
    double lanes_cpu, lanes_cpu_max; /* launch lanes: summed, and the busiest lane half's */
    double lanes_idle;            /* launch lanes waiting for work, summed */
    double lanes_moved;           /* batches a lane's thread analysed for another lane's half */
    double wait_room, wait_results; /* reading thread waiting for a lane's queue to have room, for results */
} mh_pass_times;

typedef struct mh_pass_stats {
    uint64_t records, accesses, chunks;
    uint64_t maps, sectors;  /* heat maps emitted and their rows */
    int complete;            /* END record seen */
    int partial;             /* reading stopped early (cut or damage): results cover what came before */
    int truncated;           /* the trace ends inside a chunk */
    unsigned threads;        /* launch lanes, else worker threads used (1 = serial) */
    size_t peak[MH_PASS_MAX_ANALYSES]; /* per analysis (row): the bytes its largest executor held */
    size_t peak_heat, peak_loc, peak_pat; /* the same of rows 0, 2 and 1 */
    uint64_t split_pat;      /* pattern requests split by the budget (mh_pat_run_split) */
    /* records that contradict the model (model.h, enum mh_model_bad), skipped:
     * accesses for the MH_BAD_ACCESS_* reasons, whole records for the others */
    uint64_t skipped[MH_BAD_COUNT];
    uint32_t skipped_launch[MH_BAD_COUNT]; /* launch id named by the first of each */
    uint64_t skipped_total;
    /* what the trace states about itself and does not hold: launches whose
     * kernel end counts other accesses than were read (the first of them,
     * its count and what was read), and the reader's finding
     * (mh_trace_inconsistency: the end record's counts, records after it) */
    uint64_t miscounted;
    uint32_t miscounted_launch;
    uint64_t miscounted_stated, miscounted_read;
    char inconsistency[256];
    mh_pass_times times;
} mh_pass_stats;

typedef struct mh_pass mh_pass;

/* Opens the trace and initialises the model. model = storage for the model
 * that outlives the pass (the caller mh_model_free()s it once mh_pass_open
 * succeeded), or NULL for one the pass owns. */
int mh_pass_open(mh_pass **p, const char *path, mh_model *model, const mh_pass_opts *o, mh_err *err);
const mh_model *mh_pass_model(const mh_pass *p);
/* Registers a consumer (copied); call before mh_pass_run. */
int mh_pass_add(mh_pass *p, const mh_pass_consumer *c, mh_err *err);
/* Reads the whole trace (damage rules above). Call once. */
int mh_pass_run(mh_pass *p, mh_err *err);
const mh_pass_stats *mh_pass_stats_get(const mh_pass *p);
/* The pattern analysis (findings, banks) after mh_pass_run; NULL if not run. */
const mh_pat_run *mh_pass_patterns(const mh_pass *p);
void mh_pass_close(mh_pass *p);

/* What the analyses keep after mh_pass_run: their findings, most costly
 * first over every analysis, and each analysis's run (its tables). take:
 * the caller owns it (mh_pass_results_free); valid while the model is. */
typedef struct mh_pass_results mh_pass_results;
mh_pass_results *mh_pass_take_results(mh_pass *p);
/* The findings (pointers into the runs), n of them. */
const mh_pat_finding *const *mh_pass_results_findings(const mh_pass_results *r, size_t *n);
/* Row i's run (NULL if it did not run): the analysis's own type. */
const void *mh_pass_results_run(const mh_pass_results *r, unsigned row);
void mh_pass_results_free(mh_pass_results *r);
/* The name of stage i of the table's stages (mh_pass_times.unit_cpu) and of
 * its analysis; NULL past the last. */
const char *mh_pass_stage_name(unsigned i, const char **analysis);

/* One line (no newline) saying why results do not cover the whole trace at
 * path: records skipped, launches miscounted, an end record that does not
 * match what was read, or no end record (the run stopped early). Returns 1
 * when there is something to say (commands then exit 4), 0 with buf = "". */
int mh_pass_notice(const mh_pass_stats *st, const char *path, char *buf, size_t cap);

/* Worker threads for threads = 0: $MEMHEAT_THREADS when set (>= 1), else
 * sysconf(_SC_NPROCESSORS_ONLN). */
unsigned mh_pass_default_threads(void);

#endif
