/* banks.c -- shared-memory bank-conflict degree of warp-level accesses and
 * per-(launch, pc) statistics (memheat/banks.h). */
#include "memheat/banks.h"

#include <stdlib.h>
#include <string.h>

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

unsigned mh_bank_degree(const uint64_t *addr, const uint32_t *size, size_t n) {
    /* A warp touches at most 32 lanes x 16 bytes = 128 words in practice;
     * wider accesses are clamped to the first 1024 words (documented limit). */
    enum { MAXW = 1024 };
    uint64_t w[MAXW];
    size_t nw = 0;
    for (size_t i = 0; i < n && nw < MAXW; i++) {
        uint32_t sz = size[i] ? size[i] : 1;
        uint64_t first = addr[i] / MH_BANK_WORD, last = (addr[i] + sz - 1) / MH_BANK_WORD;
        for (uint64_t x = first; x <= last && nw < MAXW; x++) w[nw++] = x;
    }
    if (!nw) return 0;
    qsort(w, nw, sizeof *w, cmp_u64);
    unsigned per[MH_BANK_COUNT] = {0}, best = 0;
    for (size_t i = 0; i < nw; i++) {
        if (i && w[i] == w[i - 1]) continue; /* broadcast: same word once */
        unsigned b = (unsigned)(w[i] % MH_BANK_COUNT);
        if (++per[b] > best) best = per[b];
    }
    return best;
}

void mh_bank_init(mh_bank_table *t) { memset(t, 0, sizeof *t); }

void mh_bank_free(mh_bank_table *t) {
    free(t->v);
    free(t->h);
    memset(t, 0, sizeof *t);
}

static size_t slot_of(uint32_t launch, uint64_t pc, size_t cap) {
    uint64_t x = pc * UINT64_C(0x9E3779B97F4A7C15) ^ ((uint64_t)launch * UINT64_C(0xC2B2AE3D27D4EB4F));
    x ^= x >> 31;
    return (size_t)x & (cap - 1);
}

static long find(const mh_bank_table *t, uint32_t launch, uint64_t pc, size_t *slot) {
    if (!t->hcap) return -1;
    size_t j = slot_of(launch, pc, t->hcap);
    while (t->h[j]) {
        const mh_bank_pc *e = &t->v[t->h[j] - 1];
        if (e->launch == launch && e->pc == pc) {
            if (slot) *slot = j;
            return (long)(t->h[j] - 1);
        }
        j = (j + 1) & (t->hcap - 1);
    }
    if (slot) *slot = j;
    return -1;
}

const mh_bank_pc *mh_bank_get(const mh_bank_table *t, uint32_t launch, uint64_t pc) {
    long i = find(t, launch, pc, NULL);
    return i < 0 ? NULL : &t->v[i];
}

static int grow(mh_bank_table *t) {
    size_t hcap = t->hcap ? t->hcap * 2 : 64;
    uint32_t *h = calloc(hcap, sizeof *h);
    if (!h) return MH_ERR_NOMEM;
    for (size_t i = 0; i < t->n; i++) {
        size_t j = slot_of(t->v[i].launch, t->v[i].pc, hcap);
        while (h[j]) j = (j + 1) & (hcap - 1);
        h[j] = (uint32_t)i + 1;
    }
    free(t->h);
    t->h = h;
    t->hcap = hcap;
    return MH_OK;
}

int mh_bank_add(mh_bank_table *t, uint32_t launch, uint64_t pc, int64_t obj, unsigned degree, uint32_t block,
                uint32_t warp, uint32_t occ, mh_err *err) {
    if ((t->n + 1) * 2 > t->hcap && grow(t) != MH_OK) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    size_t slot = 0;
    long i = find(t, launch, pc, &slot);
    if (i < 0) {
        if (t->n == t->cap) {
            size_t cap = t->cap ? t->cap * 2 : 32;
            mh_bank_pc *v = realloc(t->v, cap * sizeof *v);
            if (!v) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
            t->v = v;
            t->cap = cap;
        }
        i = (long)t->n++;
        memset(&t->v[i], 0, sizeof t->v[i]);
        t->v[i].launch = launch;
        t->v[i].pc = pc;
        t->v[i].obj = obj;
        t->h[slot] = (uint32_t)i + 1;
    }
    mh_bank_pc *e = &t->v[i];
    e->requests++;
    e->sum_degree += degree;
    if (degree > 1) e->extra += degree - 1;
    if (degree > e->max_degree) {
        e->max_degree = degree;
        e->ex_block = block;
        e->ex_warp = warp;
        e->ex_occ = occ;
    }
    return MH_OK;
}
