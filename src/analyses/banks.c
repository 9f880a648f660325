/* banks.c -- shared-memory bank conflicts: the wavefronts of one warp-level
 * access under the hardware's phase rule (analyses/banks.h, docs/metrics.md
 * section 5) and per-(launch, pc) statistics, with the words per bank of each
 * pc's worst request (the report's bank view draws them). */
#include "analyses/banks.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "util/grow.h"
#include "util/sort.h"

unsigned mh_bank_phases(uint32_t size) { return size > 8 ? 4u : size > 4 ? 2u : 1u; }

mh_bank_cost mh_bank_cost_of(const uint64_t *addr, const uint32_t *size, const uint32_t *lane, size_t n,
                             uint32_t warp_size) {
    enum { MAXW = 1024, MAXP = 4 };
    _Static_assert(MH_BANK_COUNT == 32, "a phase's banks are the bits of a 32-bit mask");
    mh_bank_cost c;
    memset(&c, 0, sizeof c);
    if (!n) return c;
    uint32_t widest = 1;
    for (size_t i = 0; i < n; i++)
        if (size[i] > widest) widest = size[i];
    unsigned phases = mh_bank_phases(widest);
    assert(phases <= MAXP);
    uint32_t ws = warp_size ? warp_size : 32;
    uint32_t per = ws / phases ? ws / phases : 1; /* lanes per phase */
    /* lanes arrive reduced (< ws) and per is a power of two nearly always:
     * no division per lane then (two were a hot spot of shared requests) */
    int per_shift = (per & (per - 1)) ? -1 : __builtin_ctz(per);
    /* Distinct words per (phase, bank), counted as they come: a bank's first
     * word in a phase is kept in first[][], the few others (conflicts) in a
     * list checked one by one. No sort: a warp's words nearly always fall in
     * distinct banks or repeat a bank's first word (a broadcast). */
    uint32_t used[MAXP] = {0};
    uint64_t first[MAXP][MH_BANK_COUNT];
    uint16_t cnt[MAXP][MH_BANK_COUNT];
    struct more {
        uint64_t word;
        uint32_t phase, bank;
    } more[MAXW];
    size_t nmore = 0, nw = 0;
    for (size_t i = 0; i < n && nw < MAXW; i++) {
        uint32_t sz = size[i] ? size[i] : 1;
        uint32_t l = lane[i] < ws ? lane[i] : lane[i] % ws;
        uint32_t ph = per_shift >= 0 ? l >> per_shift : l / per;
        if (ph >= phases) ph = phases - 1;
        uint64_t lo = addr[i] / MH_BANK_WORD, hi = (addr[i] + sz - 1) / MH_BANK_WORD;
        for (uint64_t x = lo; x <= hi && nw < MAXW; x++, nw++) {
            uint32_t b = (uint32_t)(x % MH_BANK_COUNT);
            if (!(used[ph] >> b & 1u)) {
                used[ph] |= UINT32_C(1) << b;
                first[ph][b] = x;
                cnt[ph][b] = 1;
                continue;
            }
            if (first[ph][b] == x) continue; /* broadcast: same word once */
            size_t k = 0;
            while (k < nmore && !(more[k].word == x && more[k].phase == ph && more[k].bank == b)) k++;
            if (k < nmore) continue;
            more[nmore++] = (struct more){x, ph, b};
            cnt[ph][b]++;
        }
    }
    for (unsigned ph = 0; ph < phases; ph++) {
        if (!used[ph]) continue;
        unsigned best = 0;
        for (unsigned b = 0; b < MH_BANK_COUNT; b++)
            if ((used[ph] >> b & 1u) && cnt[ph][b] > best) best = cnt[ph][b];
        c.phases++;
        c.wavefronts += best;
        if (best > c.worst) {
            c.worst = best;
            for (unsigned b = 0; b < MH_BANK_COUNT; b++) c.bank[b] = (used[ph] >> b & 1u) ? cnt[ph][b] : 0;
        }
    }
    return c;
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

typedef struct placed {
    mh_bank_pc e;
    size_t slot; /* its index entry */
} placed;

static int cmp_placed_pc(const void *a, const void *b) {
    const placed *x = a, *y = b;
    return (x->e.pc > y->e.pc) - (x->e.pc < y->e.pc);
}

int mh_bank_sort_launch(mh_bank_table *t, uint32_t launch, size_t from, mh_err *err) {
    size_t m = 0;
    for (size_t i = from; i < t->n; i++) m += t->v[i].launch == launch;
    if (m < 2) return MH_OK;
    placed *p = malloc(m * sizeof *p);
    size_t *at = malloc(m * sizeof *at);
    if (!p || !at) {
        free(p);
        free(at);
        return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    }
    size_t k = 0;
    for (size_t i = from; i < t->n; i++) {
        if (t->v[i].launch != launch) continue;
        long f = find(t, launch, t->v[i].pc, &p[k].slot);
        assert(f == (long)i);
        (void)f;
        p[k].e = t->v[i];
        at[k++] = i;
    }
    mh_sort(p, m, sizeof *p, cmp_placed_pc); /* pcs are distinct within a launch */
    for (k = 0; k < m; k++) {
        t->v[at[k]] = p[k].e;
        t->h[p[k].slot] = (uint32_t)at[k] + 1;
    }
    free(p);
    free(at);
    return MH_OK;
}

static int rehash(mh_bank_table *t) {
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

int mh_bank_add(mh_bank_table *t, uint32_t launch, uint64_t pc, int64_t obj, unsigned kind, mh_bank_cost cost,
                uint32_t block, uint32_t warp, uint32_t occ, mh_err *err) {
    if ((t->n + 1) * 2 > t->hcap && rehash(t) != MH_OK) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    size_t slot = 0;
    long i = find(t, launch, pc, &slot);
    if (i < 0) {
        mh_bank_pc *v = mh_grow(t->v, &t->cap, t->n + 1, sizeof *v, 32);
        if (!v) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
        t->v = v;
        i = (long)t->n++;
        memset(&t->v[i], 0, sizeof t->v[i]);
        t->v[i].launch = launch;
        t->v[i].pc = pc;
        t->v[i].obj = obj;
        t->v[i].kind = (uint8_t)kind;
        t->h[slot] = (uint32_t)i + 1;
    }
    assert(cost.wavefronts >= cost.phases);
    mh_bank_pc *e = &t->v[i];
    unsigned extra = cost.wavefronts - cost.phases;
    e->requests++;
    e->sum_degree += cost.wavefronts;
    e->ideal += cost.phases;
    e->extra += extra;
    if (cost.wavefronts > e->max_degree) e->max_degree = cost.wavefronts;
    if (cost.worst > e->max_worst) e->max_worst = cost.worst;
    if (occ < 2 && cost.worst > e->worst_occ[occ]) e->worst_occ[occ] = cost.worst;
    if (e->requests == 1 || extra > e->ex_extra) {
        e->ex_extra = extra;
        e->ex_block = block;
        e->ex_warp = warp;
        e->ex_occ = occ;
        memcpy(e->ex_banks, cost.bank, sizeof e->ex_banks);
    }
    return MH_OK;
}

int mh_bank_put(mh_bank_table *t, const mh_bank_pc *e, mh_err *err) {
    if ((t->n + 1) * 2 > t->hcap && rehash(t) != MH_OK) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    size_t slot = 0;
    long i = find(t, e->launch, e->pc, &slot);
    assert(i < 0);
    (void)i;
    mh_bank_pc *v = mh_grow(t->v, &t->cap, t->n + 1, sizeof *v, 32);
    if (!v) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    t->v = v;
    t->v[t->n] = *e;
    t->h[slot] = (uint32_t)++t->n;
    return MH_OK;
}
