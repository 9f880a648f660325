/* banks.h -- shared-memory bank conflicts of warp-level accesses.
 *
 * A warp-level access is the set of lanes of one warp that executed the same
 * shared-memory instruction together: same launch, block, warp, pc and
 * occurrence k (the k-th execution of the pc by each lane; lanes that diverged
 * earlier have different seq values but reconverge on k). Its conflict degree is the largest number of
 * distinct 4-byte words that fall into one of the 32 banks (bank = word % 32);
 * lanes reading the same word are a broadcast and count once. Degree 1 is
 * conflict-free; degree d costs d - 1 extra wavefronts. Statistics are kept
 * per (launch, pc). */
#ifndef MEMHEAT_BANKS_H
#define MEMHEAT_BANKS_H

#include <stddef.h>
#include <stdint.h>

#include "memheat/err.h"

#define MH_BANK_COUNT 32
#define MH_BANK_WORD 4

/* Conflict degree of one warp-level access: lane i touched the bytes
 * [addr[i], addr[i] + size[i]) of the shared window. 0 when n == 0. */
unsigned mh_bank_degree(const uint64_t *addr, const uint32_t *size, size_t n);

typedef struct mh_bank_pc {
    uint32_t launch;
    uint64_t pc;
    int64_t obj;            /* model object of the first access seen, -1 = none */
    uint64_t requests;      /* warp-level accesses */
    uint64_t sum_degree;
    uint32_t max_degree;
    uint64_t extra;         /* sum of (degree - 1): extra wavefronts */
    uint32_t ex_block, ex_warp, ex_occ; /* an access with the max degree: k-th execution of the pc */
} mh_bank_pc;

typedef struct mh_bank_table {
    mh_bank_pc *v;
    size_t n, cap;
    uint32_t *h;    /* open-addressing index (entry + 1), hcap slots */
    size_t hcap;
} mh_bank_table;

void mh_bank_init(mh_bank_table *t);
void mh_bank_free(mh_bank_table *t);
int mh_bank_add(mh_bank_table *t, uint32_t launch, uint64_t pc, int64_t obj, unsigned degree, uint32_t block,
                uint32_t warp, uint32_t occ, mh_err *err);
/* Entry for (launch, pc) or NULL. */
const mh_bank_pc *mh_bank_get(const mh_bank_table *t, uint32_t launch, uint64_t pc);

#endif
