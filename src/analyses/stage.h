/* stage.h -- a batch's hand-over between the stages of one analysis
 * (the patterns and the locality metrics: their rows, patterns_row.c and
 * locality_row.c, and the scheduler's batches, src/sched/pool.h).
 *
 * An analysis fed in stages computes per access, in its first stage (keys,
 * counts), what the later ones need (the canonical key; for the patterns,
 * the thread's execution count of the pc), and records its own memory
 * after each record, so that the later stages, on other threads and a
 * batch behind, reproduce the one-stage run's results and memory peak. One
 * hand-over per batch slot: each stage writes it before the next reads it,
 * never at once (the scheduler orders them).
 *
 * With the evaluation apart (a thread for each stage), the grouping stage
 * only gathers accesses into their groups (warp requests, time steps) and
 * puts every group it finishes, in order, into the hand-over
 * (mh_stage_group_put); the evaluation stage takes them record by record
 * (mh_stage_record_groups) and evaluates them in the order the one-stage
 * run does, so the results are that run's; rbytes says what the stages
 * before held at each record's end, for the peak. A counting stage between
 * the first and the grouping one (the patterns' execution counts; half of
 * a big launch's address counts, handed over as seeds when they split)
 * adds its memory to the first stage's per record, and so does a stage
 * after it (the other half of those counts, the first stage then listing
 * each half's keys for them; or the patterns' word owners). A helper stage
 * between the grouping and the evaluation evaluates every other group
 * (MH_STAGE_HELPED) into the hand-over, in the analysis's own layout, and
 * the evaluation stage adds those evaluations up with its own in group
 * order: the evaluation is pure, the adding is where order counts. */
#ifndef MH_ANALYSES_STAGE_H
#define MH_ANALYSES_STAGE_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

#include "memheat/err.h"

struct mh_grp_key;
struct mh_grp_entry;

/* Counts that leave the first stage at the end of record rec (the
 * locality's address counts of a launch split in two parts), for the stage
 * that counts that part from then on: part 1, for the second-half stage: kc
 * holds n keys, then their n counts; part 0, for the first-half stage: kc is the part's hash table
 * itself, n slots of a key and a count each, moved whole. kc is malloc'd
 * memory, NULL once taken. */
typedef struct mh_stage_seed {
    size_t rec;
    uint32_t launch;
    unsigned part;
    uint64_t *kc;
    size_t n;
} mh_stage_seed;

typedef struct mh_stage {
    uint64_t *key;  /* per access: canonical key */
    const uint64_t *keys; /* the keys later stages read: key, or another analysis's (mh_loc_run_count's given) */
    uint32_t *occ;  /* per access: the thread's execution count of its pc (patterns) */
    size_t cap;
    size_t *bytes;  /* per record: the first stage's memory after it */
    size_t capr;
    /* second stage to third: the groups finished during the batch, in order;
     * group i is gent[gend[i - 1] .. gend[i]) (from 0 for i = 0); a group of
     * no entries is a mark the analysis defines (a launch's first access) */
    struct mh_grp_key *gkey;
    size_t *gend;
    size_t ng, capg;
    struct mh_grp_entry *gent;
    uint64_t *gcanon; /* instead of gent, the entries' canonical keys alone (mh_stage_group_put_keys) */
    size_t nent, capent, capcanon;
    size_t *rgroups; /* per record: groups finished by its end */
    size_t *rbytes;  /* per record: the first two stages' memory at its end */
    size_t caprg;
    mh_stage_seed *seed; /* first stage to the half stages, in record order */
    size_t nseed, capseed;
    /* first stage to the half stages, where it makes them (plists): per part, the
     * keys of the split launches' accesses in order, and their launches;
     * part p's entries by record rec's end: pend[p][rec] */
    uint64_t *pkey[2];
    uint32_t *plaunch[2];
    size_t pn[2], pcap;
    size_t *pend[2];
    size_t cappe;
    int plists;
    void *geval;     /* helper to evaluation stage: per group, its evaluation (mh_stage_eval) */
    size_t capeval;  /* bytes */
} mh_stage;

/* The groups the helper stage evaluates: the odd ones of the batch. */
#define MH_STAGE_HELPED(g) (((g) & 1u) != 0)

/* The groups record rec's end counted (after the previous record's):
 * [*g0, *g1); group g is n = gend[g] - (g ? gend[g - 1] : 0) entries. */
static inline void mh_stage_record_groups(const mh_stage *st, size_t rec, size_t *g0, size_t *g1) {
    assert(rec < st->caprg);
    *g0 = rec ? st->rgroups[rec - 1] : 0;
    *g1 = st->rgroups[rec];
}
static inline size_t mh_stage_group_start(const mh_stage *st, size_t g) { return g ? st->gend[g - 1] : 0; }

/* Room for the evaluations of groups groups of size bytes each (kept on
 * growth); the base, or NULL without memory. */
void *mh_stage_eval_room(mh_stage *st, size_t groups, size_t size);
/* Group g's evaluation (size bytes: the analysis's layout). */
static inline void *mh_stage_eval(const mh_stage *st, size_t g, size_t size) { return (char *)st->geval + g * size; }

/* The launches a second stage has sent its mark for (a group of no
 * entries, before the launch's first group), forgotten when it ends. */
typedef struct mh_stage_seen {
    uint32_t *v;
    size_t n, cap;
} mh_stage_seen;

/* Puts launch's mark (key: launch, pc = word, the rest empty) into st unless
 * seen has it; 0, or -1 without memory. */
int mh_stage_seen_mark(mh_stage_seen *seen, mh_stage *st, uint32_t launch, uint64_t word);
void mh_stage_seen_forget(mh_stage_seen *seen, uint32_t launch);
void mh_stage_seen_free(mh_stage_seen *seen);

/* Room for accesses accesses (occ too when with_occ) and records records;
 * 0, or -1 without memory (the hand-over stays as it was). */
int mh_stage_room(mh_stage *st, size_t accesses, size_t records, int with_occ);
/* The groups of the batch forgotten (the second stage's first record). */
void mh_stage_groups_clear(mh_stage *st);
/* Group k of n entries v appended; 0, or -1 without memory. */
int mh_stage_group_put(mh_stage *st, const struct mh_grp_key *k, const struct mh_grp_entry *v, size_t n);
/* The same keeping only the entries' canonical keys (an analysis whose
 * third stage needs nothing else: the locality's steps); a batch's groups
 * are all put one way. */
int mh_stage_group_put_keys(mh_stage *st, const struct mh_grp_key *k, const struct mh_grp_entry *v, size_t n);
/* Record rec (0, 1, ... in order) ends: the groups put so far and the
 * memory bytes; 0, or -1 without memory. */
int mh_stage_record_done(mh_stage *st, size_t rec, size_t bytes);
/* A seed appended (kc is the hand-over's from now on, also when it fails:
 * then freed); 0, or -1 without memory. */
int mh_stage_seed_put(mh_stage *st, size_t rec, uint32_t launch, unsigned part, uint64_t *kc, size_t n);
/* The seeds forgotten, any not taken freed (the first stage's first record). */
void mh_stage_seeds_clear(mh_stage *st);
/* Room for entries more keys in each part list and for records records'
 * ends; 0, or -1 without memory. */
int mh_stage_parts_room(mh_stage *st, size_t entries, size_t records);
/* Frees and zeroes (zero-initialised is empty). */
void mh_stage_free(mh_stage *st);

#endif
