/* patterns_state.h -- what the pattern analysis's files share: the
 * per-launch evidence (patterns.c gathers it from warp-level requests, heat
 * rows and shared-memory word owners), the classifier thresholds, and the
 * classifier's entry (patterns_classify.c turns evidence into findings). */
#ifndef MH_PATTERNS_INTERNAL_H
#define MH_PATTERNS_INTERNAL_H

#include "analyses/patterns.h"

#include "analyses/canon.h"
#include "analyses/finding.h"
#include "analyses/stage.h"
#include "analyses/groupbuf.h"
#include "analyses/occur.h"

/* ---- per-launch state ---- */

typedef struct pcstat {
    unsigned space;
    int64_t obj;
    uint64_t pc;
    uint64_t requests, lanes, sectors, ideal;
    uint64_t lines, ideal_lines; /* 128-byte lines touched and needed: L1 wavefronts (issue 40) */
    uint64_t broadcast, contig, strided, irregular, misaligned;
    uint64_t contig_small; /* contiguous requests covering less than a sector */
    uint64_t excess_strided, excess_mis, excess_irreg;
    int64_t stride_cand; /* Misra-Gries majority candidate over strided requests */
    uint64_t stride_cnt;
    uint32_t elem_size;
    uint8_t kind; /* enum mh_kind of the first request */
    uint32_t ex_block, ex_warp, ex_occ;
    uint64_t ex_off;
} pcstat;

typedef struct hsum {
    unsigned space;
    int64_t obj;
    uint64_t rows, touched_words;
    uint64_t hot, hot_random, fs, full;
    double hot_cost, fs_cost;
    uint32_t max_word, max_sector;
    int has_hot, has_fs, has_sparse;
    uint32_t hot_atomic; /* hot sectors whose words saw atomics alone (left to atomics.c), saturating */
    mh_heat_row ex_hot, ex_fs, ex_sparse;
    /* sectors like false sharing's (several warps, few words each) that no
     * warp writes: uncoalesced reads, not false sharing (issue 40) */
    uint64_t uc;
    double uc_cost;
    int has_uc;
    mh_heat_row ex_uc;
    /* shared objects: words read (not written), written (not read) and both
     * by the traced instructions: a read of a word no traced store wrote is
     * shared memory filled by copies the collector does not see */
    uint64_t w_load_only, w_store_only, w_both;
    /* sparse sectors (at most 2 of 8 words used) and the spacing of their
     * first used words: a Misra-Gries majority over consecutive deltas */
    uint64_t sparse, sparse_deltas, last_sparse_addr;
    int64_t delta_cand;
    uint64_t delta_cnt;
    double sparse_cost;
    uint64_t delta_exact;      /* deltas exactly equal to the candidate (second pass) */
    uint64_t exact_sparse, exact_last;
    uint64_t obj_start;
} hsum;

typedef struct owner {
    uint64_t word;  /* canonical key of the 4-byte word; 0 = empty */
    uint32_t block;
    uint16_t thread;
    uint8_t state;  /* 1 one thread, 2 several threads of one warp, 3 several warps */
    uint8_t pad;
} owner;

typedef struct sobj {
    int64_t obj;
    uint64_t accesses;
    uint64_t cells, priv, warp, cross;
} sobj;

/* The word owners of one shared array in one block, indexed by word: the
 * first thread in the low 16 bits, the state (as owner's) above; 0 = no
 * access. The words of a warp's access are neighbours here, where the
 * hashed table spreads them over the cache. */
typedef struct otab {
    uint64_t base;  /* canonical key of the array's word 0 */
    uint32_t block;
    uint32_t nwords;
    uint32_t *cell;
} otab;

/* What the per-access stage (patterns_access.c) gathers of one launch: its
 * shared-memory word owners and per-array counts, moved into the launch's
 * pstate when the launch ends. Words of an array of known size are in an
 * otab per (array, block) while those stay under a byte budget; the rest
 * (words past the array's end, accesses outside every array, blocks past
 * the budget) in the hashed table ow. */
typedef struct pacc {
    uint32_t launch;
    owner *ow;
    size_t nown, capown;
    otab *ot;
    size_t nots, capots;
    uint32_t *oth;  /* open addressing on (array, block): ot index + 1 */
    size_t capoth;
    size_t otbytes; /* the otabs' cells */
    sobj *so;
    size_t nso, capso;
} pacc;

typedef struct pstate {
    uint32_t launch;
    pcstat *pcs;
    size_t npcs, cappcs;
    uint32_t *pch; /* open addressing: pcs index + 1 */
    size_t pchcap;
    hsum *hs;
    size_t nhs, caphs;
    pacc sh; /* the keys stage's shared-memory evidence, moved in when the launch ends */
    size_t bank0; /* bank-table entries before the launch's first */
} pstate;

/* Stages per batch of accesses (analyses/patterns.h, mh_pat_run_keys):
 * the keys stage owns canon, pa and bytes1 (pa and bytes1 the owners stage's where it
 * runs); the counting stage owns occ; the grouping stage owns grp, ps (request
 * statistics), banks, bytes and peak; the rest is touched only between
 * batches. With the evaluation apart (mh_pat_run_eval_apart), the grouping stage keeps grp, defer and
 * seen, and the evaluation stage takes ps, banks, bytes and peak. */
struct mh_pat_run {
    const mh_model *model;
    mh_pat_opts o;
    mh_canon canon;
    mh_grp *grp;
    mh_occ *occ; /* per-thread per-pc execution counts: the step of a warp request */
    pstate *ps;
    size_t nps, capps;
    pacc *pa;    /* the keys stage's per-launch evidence, until the launch ends */
    size_t npa, cappa;
    size_t bytes1; /* the keys stage's tables (pa) */
    mh_stage own; /* the hand-over of mh_pat_run_feed */
    mh_pat_finding *f;
    size_t nf, capf;
    mh_bank_table banks;
    mh_pat_req *req; /* global requests per (launch, object, pc), kept when the launch ends */
    size_t nreq, capreq;
    size_t bytes, peak;
    uint64_t merged_split; /* mh_pat_run_split of runs merged in (patterns_merge.c) */
    /* the evaluation apart: the grouping stage's target for finished requests while it runs,
     * and the launches it has seen (their mark sent) */
    int eval_apart;
    int helpers; /* the helper stage evaluates every other request (mh_pat_run_helpers) */
    int keys_all; /* the keys stage keys every access, local ones too (mh_pat_run_keys_all) */
    int owners_apart; /* the shared-memory word owners are the owners stage's (mh_pat_run_owners_apart) */
    mh_stage *defer;
    mh_stage_seen seen;
};

#define MH_PAT_LINE_SECTORS 4 /* sectors per 128-byte cache line: a global request costs one L1 wavefront per line */

/* ---- classifier thresholds (docs/metrics.md, "Classifier thresholds") ----
 * Shares are written as integer ratios: "x * DEN >= n" reads "x is at least
 * 1/DEN of n", so the tests stay exact. */
#define PAT_HOT_MIN_WARPS 2u       /* hot word: at least this many distinct warps ... */
#define PAT_HOT_MAX_WARPS 32u      /* ... half the sampled warps, at most this many */
#define PAT_HOT_ROWS_DEN 10        /* hot spot: >= 1/10 of the object's sectors hot ... */
#define PAT_HOT_MIN_ROWS 4         /* ... or at least this many hot sectors */
#define PAT_RANDOM_DEN 2           /* random hot spot: > 1/2 of hot sectors random, or of requests irregular */
#define PAT_FS_ROWS_DEN 10         /* false sharing: >= 1/10 of the sectors shared by warps using few words */
#define PAT_FS_CONTIG_DEN 2        /* vetoed when >= 1/2 of multi-warp requests are contiguous, a sector or more */
#define PAT_FS_UTIL 0.75           /* strided pc inside a false-shared object: words used >= 75% -> false sharing */
#define PAT_STRIDED_REQ_DEN 2      /* strided pc: >= 1/2 of its requests strided ... */
#define PAT_STRIDED_EXCESS_DEN 10  /* ... and excess sectors >= 1/10 of its sectors */
#define PAT_MIS_REQ_DEN 4          /* misaligned pc: >= 1/4 of its requests straddle sectors ... */
#define PAT_MIS_EXCESS_DEN 20      /* ... and excess sectors >= 1/20 of its sectors */
#define PAT_SPARSE_MIN_ROWS 4      /* strided over time: at least this many sectors, */
#define PAT_SPARSE_ROWS_DEN 2      /* >= 1/2 of them sparse (<= 2 of 8 words used), */
#define PAT_SPARSE_DELTA_DEN 2     /* the stride exactly >= 1/2 of the sparse deltas, */
#define PAT_SPARSE_MIN_MATCH 3     /* at least this many of them, */
#define PAT_SPARSE_MIN_STRIDE 32   /* and a stride of more than this many bytes */
#define PAT_IRR_REQ_DEN 2          /* irregular pc: >= 1/2 of its multi-lane requests without a lane stride ... */
#define PAT_IRR_EXCESS_DEN 10      /* ... and excess sectors >= 1/10 of its sectors; false sharing vetoed then */
#define PAT_SMEM_MIN_CELLS 2       /* shared-memory abuse: at least this many (block, word) cells, */
#define PAT_SMEM_CROSS_DEN 20      /* at most 1/20 of them used by several warps, */
#define PAT_SMEM_WARP_DEN 2        /* "one warp" when >= 1/2 of the private-or-warp cells are warp-wide */
#define PAT_SMEM_COST_DIV 32.0     /* cost: accesses / this (one warp request's worth) */
#define PAT_BANK_EXTRA_DEN 2       /* bank conflict: extra wavefronts >= 1/2 of the conflict-free ones */
#define PAT_BANK_CHAIN 3           /* a launch's conflicting pcs whose degrees double this many times in a row
                                      (2, 4, 8 words of one bank): an unrolled tree reduction */
#define PAT_PARTIAL_DEN 4          /* partial view: >= 1/4 of the shared words read were never written by a
                                      traced store ... */
#define PAT_PARTIAL_MIN_WORDS 8    /* ... and at least this many (or only stores traced, this many words) */

static inline uint32_t warp_size(const mh_pat_run *pr) {
    uint32_t ws = pr->model->hdr.device.warp_size;
    return ws ? ws : 32;
}

static inline uint32_t sector_size(const mh_pat_run *pr) {
    uint32_t s = pr->model->hdr.device.sector_size;
    return s ? s : 32;
}

/* ---- heat summaries ---- */

/* Hot threshold: a word is hot when at least this many distinct warps of the
 * sample touched it: half the sampled warps, at least 2, at most 32. */
static inline uint32_t hot_threshold(const mh_model_launch *ml) {
    uint64_t nw = ml ? (uint64_t)ml->n_sampled * ml->warps_per_block : 0;
    uint64_t t = nw / 2;
    if (t < PAT_HOT_MIN_WARPS) t = PAT_HOT_MIN_WARPS;
    if (t > PAT_HOT_MAX_WARPS) t = PAT_HOT_MAX_WARPS;
    return (uint32_t)t;
}

/* Shared-array evidence of object obj in the array *v (n used, cap
 * allocated; growth added to *bytes); NULL without memory (patterns_state.c). */
sobj *mh_pat_sobj(sobj **v, size_t *n, size_t *cap, size_t *bytes, int64_t obj);
/* The keys stage's evidence of launch s's launch (if any) moved into s (patterns_access.c). */
void mh_pat_access_take(mh_pat_run *pr, pstate *s);
/* Bytes a's tables hold; their release, leaving a zeroed (patterns_access.c). */
size_t mh_pat_pacc_bytes(const pacc *a);
void mh_pat_pacc_free(pacc *a);
/* Adds every owned (block, word) cell of a to its array's sobj counts
 * (cells, priv, warp, cross; growth of a->so added to *bytes); MH_OK or
 * MH_ERR_NOMEM (patterns_access.c). */
int mh_pat_pacc_count(pacc *a, size_t *bytes);
/* Frees the keys stage's evidence of every launch (patterns_access.c). */
void mh_pat_access_free(mh_pat_run *pr);
/* x / d and x % d for a warp or sector size d (never 0), nearly always a
 * power of two: a shift or a mask instead of a division, several of which
 * every lane of every request needed. */
/* One vote of a running majority candidate (Misra-Gries, one counter): the strides of
 * a pc's strided requests, the deltas between a map's sparse sectors. */
static inline void mh_pat_vote(int64_t *cand, uint64_t *cnt, int64_t x) {
    if (*cnt == 0) {
        *cand = x;
        *cnt = 1;
    } else if (*cand == x) {
        (*cnt)++;
    } else {
        (*cnt)--;
    }
}
static inline uint64_t mh_pat_div(uint64_t x, uint32_t d) { return (d & (d - 1)) ? x / d : x >> __builtin_ctz(d); }
static inline uint32_t mh_pat_mod(uint32_t x, uint32_t d) { return (d & (d - 1)) ? x % d : x & (d - 1); }
/* Appends the findings of one ended launch to pr->f (patterns_classify.c);
 * MH_ERR_NOMEM on failure. */
/* patterns_state.c: a launch's state (NULL: none; mh_pat_get_ps makes it)
 * and a pc's statistics in it (NULL without memory). */
pstate *mh_pat_find_ps(mh_pat_run *pr, uint32_t launch);
pstate *mh_pat_get_ps(mh_pat_run *pr, uint32_t launch);
pcstat *mh_pat_get_pc(mh_pat_run *pr, pstate *s, unsigned space, int64_t obj, uint64_t pc);
/* patterns_request.c: the group buffer's hand-over of a finished warp
 * request (mh_grp_done_fn): evaluated and added, or (the grouping stage, the evaluation apart) put
 * into the batch's hand-over for the evaluation stage. */
int mh_pat_request_done(void *ctx, const mh_grp_key *k, mh_grp_entry *v, size_t n, mh_err *err);
int mh_pat_classify_launch(mh_pat_run *pr, pstate *s);
/* qsort orders of mh_pat_run_finish: findings as analyses/finding.h's
 * mh_pat_cmp_finding; requests by (launch, pc, object), total on a run's
 * output, so the order never depends on the input's. */
int mh_pat_cmp_req(const void *a, const void *b);

/* ---- the feed of ACCESSES records in stages (the row's, patterns_row.c) ----
 * mh_pat_run_feed of an ACCESSES record in stages, which may run on threads
 * of their own, each a batch behind the one before (the scheduler): the
 * keys stage takes each access's canonical key and execution count and the
 * shared-memory word owners; the grouping stage, after the keys stage is
 * done with the same record, groups warp requests and gathers their
 * statistics. Record rec of a batch (accesses from off on in the batch's
 * hand-over st, analyses/stage.h) goes through the stages in order, records
 * in trace order in each; nothing else may be fed to pr while a stage runs.
 * The results and the peak equal mh_pat_run_feed's whichever stages are
 * apart (each call below is made before the first record):
 *  - mh_pat_run_eval_apart: the execution counts are the counting stage's
 *    (after the keys stage), and the grouping stage only groups, putting
 *    each request it finishes into the hand-over for the evaluation stage,
 *    which gathers their statistics after it;
 *  - mh_pat_run_keys_all: the keys stage keys every access, local ones too:
 *    the locality's counting stage reads them in place (its given);
 *  - mh_pat_run_owners_apart (with the evaluation apart): the shared-memory
 *    word owners are the owners stage's, from the keys stage's keys, after
 *    the counting stage and before the grouping stage;
 *  - mh_pat_run_helpers (with the evaluation apart): the helper stage,
 *    after the grouping stage and before the evaluation stage, evaluates
 *    every other request of record rec (MH_STAGE_HELPED: sectors, bytes,
 *    lane stride, bank cost) into the hand-over, and the evaluation stage
 *    adds those up with its own in order; it touches nothing of pr's but
 *    its constants, so it runs beside the evaluation stage. */
int mh_pat_run_keys(mh_pat_run *pr, const mh_access *v, size_t n, mh_stage *st, size_t off, size_t rec,
                    mh_err *err);
int mh_pat_run_counts(mh_pat_run *pr, const mh_access *v, size_t n, mh_stage *st, size_t off, size_t rec,
                      mh_err *err);
int mh_pat_run_owners(mh_pat_run *pr, const mh_access *v, size_t n, mh_stage *st, size_t off, size_t rec,
                      mh_err *err);
int mh_pat_run_group(mh_pat_run *pr, const mh_access *v, size_t n, mh_stage *st, size_t off, size_t rec,
                     mh_err *err);
int mh_pat_run_help(const mh_pat_run *pr, mh_stage *st, size_t rec, mh_err *err);
int mh_pat_run_eval(mh_pat_run *pr, mh_stage *st, size_t rec, mh_err *err);
void mh_pat_run_eval_apart(mh_pat_run *pr);
void mh_pat_run_keys_all(mh_pat_run *pr);
void mh_pat_run_owners_apart(mh_pat_run *pr);
void mh_pat_run_helpers(mh_pat_run *pr);

#endif
