/* patterns.h -- automatic detection of the CUTHERMO memory-access patterns.
 *
 * The CUTHERMO paper (section IV-C) describes how hot spots, random hot
 * spots, false sharing, misalignment, strided access and shared-memory abuse
 * look in the word-sector heat map and leaves recognising them to the eye.
 * mh_pat_run recognises them per data object (allocation or shared array) of
 * a launch from (a) the heat map rows of the object and (b) statistics the
 * pattern pass gathers itself over warp-level requests (lanes of one warp at
 * the same execution of one pc: the k-th time each lane ran it, which is how
 * SIMT reconverges lanes after divergence): sectors touched versus the
 * sectors the requested bytes need, the dominant lane-to-lane stride, and, for shared
 * memory, which threads and warps share each word and the bank-conflict
 * degree. Thresholds and the cost model are documented in docs/metrics.md.
 *
 * Driving order per trace record: mh_model_feed, mh_heat_run_feed (whose emit
 * callback calls mh_pat_run_heat), then mh_pat_run_feed. At the end:
 * mh_heat_run_finish, then mh_pat_run_finish. */
#ifndef MH_ANALYSES_PATTERNS_H
#define MH_ANALYSES_PATTERNS_H

#include <stddef.h>
#include <stdint.h>

#include "analyses/banks.h"
#include "analyses/heat.h"
#include "analyses/model.h"
#include "memheat/err.h"
#include "memheat/trace.h"

enum mh_pat_kind {
    MH_PAT_HOT = 0,
    MH_PAT_RANDOM_HOT,
    MH_PAT_FALSE_SHARING,
    MH_PAT_MISALIGNED,
    MH_PAT_STRIDED,
    MH_PAT_SMEM_THREAD,   /* shared-memory abuse: thread-private words */
    MH_PAT_SMEM_WARP,     /* shared-memory abuse: words shared within one warp only */
    MH_PAT_BANK_CONFLICT,
    MH_PAT_COALESCED,     /* well-coalesced: informational, cost 0 */
    MH_PAT_IRREGULAR,     /* lanes at no common stride: an indexed gather/scatter touching many sectors */
    MH_PAT_UNCOALESCED,   /* read-only sectors several warps each use a little of (false sharing needs writes) */
    MH_PAT_PARTIAL_VIEW,  /* informational (cost 0): shared memory partly moved by instructions the collector
                             does not see (TMA, cp.async, wgmma); its shared findings are left out */
    MH_PAT_ATOMIC,        /* atomic contention: atomics serialised on few addresses (src/analyses/atomics.c) */
    MH_PAT_KIND_COUNT
};

/* One pc whose evidence was merged into a finding. */
typedef struct mh_pat_pc {
    uint64_t pc;
    double cost;            /* that pc's share of the finding's cost */
    const char *file;       /* source attribution, NULL if none (model-owned) */
    uint32_t line;
} mh_pat_pc;

/* One finding per (launch, space, object, pattern): the per-pc findings of an
 * object (e.g. 16 unrolled loads, each strided) are merged into one whose
 * cost is their sum and whose evidence (pc, source, counts, summary) is that
 * of the costliest pc; pcs lists every pc merged. */
typedef struct mh_pat_finding {
    int kind;               /* enum mh_pat_kind */
    uint32_t launch;
    const char *kernel;     /* display name (model-owned) */
    unsigned space;         /* enum mh_space */
    int64_t obj;            /* model object index, -1 = outside every known object */
    const char *label;      /* object label (model-owned) or "" */
    char name[224];         /* what the text calls it: the label, and for a kernel argument its
                               allocation and bytes used (mh_model_obj_text); "" = unnamed */
    uint64_t pc;            /* representative (costliest) pc, 0 = unknown */
    const char *file;       /* source attribution of pc, NULL if none */
    uint32_t line;
    const char *function;
    /* evidence */
    uint64_t sectors;       /* heat-map sectors of the object */
    uint64_t flagged;       /* sectors (or requests / words) showing the pattern */
    uint64_t requests;      /* warp-level requests of the pc(s) involved */
    uint64_t req_sectors;   /* sectors those requests touched */
    uint64_t ideal_sectors; /* sectors their bytes need when packed and aligned */
    int64_t stride;         /* bytes between consecutive lanes (strided) */
    uint32_t elem_size;     /* bytes per access at the pc */
    uint32_t max_word_temp, max_sector_temp;
    double degree_avg;      /* bank conflicts */
    uint32_t degree_max;
    int has_example;
    mh_heat_row example;    /* a sector showing the pattern */
    uint64_t example_off;   /* its byte offset in the object */
    double cost;            /* estimated avoidable transactions (sum over pcs), sorts findings */
    mh_pat_pc *pcs;         /* every pc of the finding, ascending; owned by the run */
    size_t npcs;            /* 0 when the finding has no pc */
    char summary[384];      /* one line of evidence */
    char suggestion[448];   /* what to change */
} mh_pat_finding;

/* The warp-level global-memory requests of one (launch, object, pc), kept
 * after the launch ends: what Nsight Compute counts per instruction as
 * l1tex__t_requests / l1tex__t_sectors_pipe_lsu_mem_global_op_{ld,st}
 * (bench/oracle). A warp instruction touching two objects is one request of
 * each. */
typedef struct mh_pat_req {
    uint32_t launch;
    uint64_t pc;
    int64_t obj;            /* model object, -1 = outside every known object */
    unsigned kind;          /* enum mh_kind of the pc's first request */
    uint64_t requests;      /* warp-level requests */
    uint64_t sectors;       /* sectors they touched (by raw address) */
    uint64_t ideal_sectors; /* sectors their bytes need when packed and aligned */
    uint64_t lines;         /* 128-byte lines they touched: L1 wavefronts, and L2 requests of a store */
    uint64_t ideal_lines;   /* lines their bytes need when packed and aligned */
} mh_pat_req;

typedef struct mh_pat_opts {
    size_t group_budget;    /* bytes for open warp-level requests; 0 = 64 MiB */
} mh_pat_opts;

typedef struct mh_pat_run mh_pat_run;

int mh_pat_run_new(mh_pat_run **pr, const mh_model *m, const mh_pat_opts *o, mh_err *err);
int mh_pat_run_heat(mh_pat_run *pr, const mh_heat_result *r, mh_err *err);
int mh_pat_run_feed(mh_pat_run *pr, const mh_record *rec, mh_err *err);
/* The feed of ACCESSES records in stages on the pass's workers (the
 * pattern analysis's row, src/analyses/patterns_row.c): patterns_state.h. */
/* Classifies launches that never ended, then sorts findings, most costly first. */
int mh_pat_run_finish(mh_pat_run *pr, mh_err *err);
void mh_pat_run_free(mh_pat_run *pr);

const mh_pat_finding *mh_pat_findings(const mh_pat_run *pr, size_t *n);
const mh_bank_table *mh_pat_banks(const mh_pat_run *pr);
/* Global requests of every ended launch, by (launch, pc, object) ascending
 * after mh_pat_run_finish. */
const mh_pat_req *mh_pat_requests(const mh_pat_run *pr, size_t *n);
size_t mh_pat_run_peak_bytes(const mh_pat_run *pr);
/* Moves the results of finished runs src[0..nsrc) into finished run dst, as
 * if dst had been fed their launches too (mh_pass's launch lanes): each run
 * was fed every non-access record of one trace, in order, on its own copy of
 * the model (equal to dst's by index), and the accesses of launches no other
 * run had. Findings and requests end up in dst's sorted orders, pointing into
 * dst's model; bank statistics in the order of rank(ctx, launch), which must
 * not decrease along any run's table (the serial pass's order when rank is
 * the launch's place among launches that did not overlap in time). Peak
 * bytes become the largest run's, split counts add up. The src runs keep
 * nothing but memory to free. */
int mh_pat_run_merge(mh_pat_run *dst, mh_pat_run *const *src, size_t nsrc,
                     uint64_t (*rank)(void *ctx, uint32_t launch), void *ctx, mh_err *err);
/* Warp-level requests split by the memory budget (upper bound): 0 = exact. */
uint64_t mh_pat_run_split(const mh_pat_run *pr);

/* "at 16 pcs: 0x2b0 (k.cu:42), 0x2c0 (k.cu:43), ..." (at most 12 listed) into
 * buf; "" when the finding has fewer than 2 pcs. Returns strlen(buf). */
size_t mh_pat_pcs_text(const mh_pat_finding *f, char *buf, size_t cap);

const char *mh_pat_kind_name(int kind);  /* "strided", "false_sharing", ... */
int mh_pat_kind_parse(const char *name); /* -1 if unknown */

#endif
