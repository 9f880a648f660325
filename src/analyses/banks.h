/* banks.h -- shared-memory bank conflicts of warp-level accesses.
 *
 * A warp-level access is the set of lanes of one warp that executed the same
 * shared-memory instruction together: same launch, block, warp, pc and
 * occurrence k (the k-th execution of the pc by each lane; lanes that diverged
 * earlier have different seq values but reconverge on k).
 *
 * The hardware serves it in phases (docs/metrics.md, section 5): one phase of
 * 32 lanes for 1-, 2- and 4-byte accesses, two half-warp phases for 8-byte
 * accesses, four quarter-warp phases for 16-byte accesses. Within a phase,
 * each of the 32 banks (bank = 4-byte word % 32) delivers one word per
 * wavefront; lanes reading the same word are a broadcast and count once. A
 * phase costs as many wavefronts as the most distinct words any one bank
 * holds in it; a phase without an active lane costs nothing. The access's
 * wavefronts are the sum over its phases (Nsight Compute's
 * l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}); the ideal is one per
 * phase with an active lane, and the difference is the bank conflicts
 * (l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{ld,st}). Statistics are
 * kept per (launch, pc). */
#ifndef MH_ANALYSES_BANKS_H
#define MH_ANALYSES_BANKS_H

#include <stddef.h>
#include <stdint.h>

#include "memheat/err.h"

#define MH_BANK_COUNT 32
#define MH_BANK_WORD 4

/* Cost of one warp-level access. */
typedef struct mh_bank_cost {
    unsigned wavefronts; /* sum over phases of the most distinct words in one bank */
    unsigned phases;     /* the ideal: phases with at least one active lane */
    unsigned worst;      /* most distinct words in one bank within one phase (1 = conflict free) */
    uint16_t bank[MH_BANK_COUNT]; /* distinct words per bank in the worst phase (the first of equals):
                                   * the degree per bank; a 32-way conflict is one bank at 32 */
} mh_bank_cost;

/* Phases a warp access of `size` bytes per lane is served in: 1 up to 4
 * bytes, 2 up to 8, 4 above. */
unsigned mh_bank_phases(uint32_t size);

/* Cost of one warp-level access: entry i is lane lane[i] (thread index
 * within the warp, < warp_size) touching the bytes [addr[i], addr[i] +
 * size[i]) of the shared window. The widest entry sets the phases; lane l is
 * in phase l / (warp_size / phases). All zero when n == 0. Accesses spanning
 * more than 1024 words in all are clamped to the first 1024. */
mh_bank_cost mh_bank_cost_of(const uint64_t *addr, const uint32_t *size, const uint32_t *lane, size_t n,
                             uint32_t warp_size);

typedef struct mh_bank_pc {
    uint32_t launch;
    uint64_t pc;
    int64_t obj;            /* model object of the first access seen, -1 = none */
    uint8_t kind;           /* enum mh_kind of the first access seen (a pc is a load, a store or an atomic) */
    uint64_t requests;      /* warp-level accesses */
    uint64_t sum_degree;    /* wavefronts: degree = sum_degree / requests, wavefronts per access */
    uint64_t ideal;         /* sum of phases with an active lane: the wavefronts without conflicts */
    uint32_t max_degree;    /* most wavefronts of one access */
    uint32_t max_worst;     /* most distinct words in one bank within one phase */
    uint32_t worst_occ[2];  /* most such words at a thread's 1st and 2nd execution of the pc: a
                               conflict that grows between them is a loop's growing stride */
    uint64_t extra;         /* sum_degree - ideal: extra wavefronts (bank conflicts) */
    uint32_t ex_block, ex_warp, ex_occ; /* an access with the most extra wavefronts (else the first):
                                         * k-th execution of the pc */
    uint32_t ex_extra;      /* that access's extra wavefronts */
    uint16_t ex_banks[MH_BANK_COUNT]; /* that access's distinct words per bank (mh_bank_cost.bank) */
} mh_bank_pc;

typedef struct mh_bank_table {
    mh_bank_pc *v;
    size_t n, cap;
    uint32_t *h;    /* open-addressing index (entry + 1), hcap slots */
    size_t hcap;
} mh_bank_table;

/* A conflict that grows from the 1st to the 2nd execution of the pc and
 * reaches at least twice its first degree (a loop's growing stride, as a
 * tree reduction indexed a[2*s*i]): the fix is sequential addressing, not
 * padding. A tile read by columns has the same degree at every execution. */
static inline int mh_bank_growing_stride(const mh_bank_pc *b) {
    return b->worst_occ[0] >= 1 && b->worst_occ[1] > b->worst_occ[0] && b->max_worst >= 4 &&
           b->max_worst >= 2 * b->worst_occ[0];
}

void mh_bank_init(mh_bank_table *t);
void mh_bank_free(mh_bank_table *t);
/* Counts one warp-level access of `kind` (enum mh_kind) at (launch, pc). */
int mh_bank_add(mh_bank_table *t, uint32_t launch, uint64_t pc, int64_t obj, unsigned kind, mh_bank_cost cost,
                uint32_t block, uint32_t warp, uint32_t occ, mh_err *err);
/* Appends a copy of entry e, whose (launch, pc) the table does not hold yet
 * (merging the tables of runs over different launches). */
int mh_bank_put(mh_bank_table *t, const mh_bank_pc *e, mh_err *err);
/* Entry for (launch, pc) or NULL. */
const mh_bank_pc *mh_bank_get(const mh_bank_table *t, uint32_t launch, uint64_t pc);
/* Puts launch's entries at index from or later in pc order, in the places
 * they hold (a launch's table in a defined order, whatever order its warp
 * requests were completed in). */
int mh_bank_sort_launch(mh_bank_table *t, uint32_t launch, size_t from, mh_err *err);

#endif
