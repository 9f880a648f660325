/* occur.c -- per-thread, per-pc occurrence counters of the blocks in flight
 * (occur.h).
 *
 * One table per (launch, block): open addressing over pc -> an array of
 * counts indexed by thread. Accesses come a warp instruction at a time (the
 * same pc for 32 lanes, usually for the next warps too), so the pc touched
 * last is remembered and a lane's count is one word next to its neighbours'.
 * Blocks live in a pool (free list through hnext), are found through a chained
 * hash on (launch, block) and ordered least to most recently touched in a
 * doubly linked list, which drives the age and budget eviction. Index 0 means
 * "none", so pool slot i is stored as i + 1. Blocks dropped early are
 * remembered in a small open-addressing set until their launch ends, to count
 * restarts. */
#include "analyses/occur.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "util/hash.h"
#include "util/grow.h"

/* One pc's counters in one block: cnt[thread] = executions so far. The
 * lanes of a warp instruction read neighbouring words of one array. */
typedef struct pcent {
    uint64_t pc;
    uint32_t *cnt; /* NULL = empty slot */
    uint32_t cap;  /* threads covered (power of two) */
    uint32_t pad;
} pcent;

typedef struct oblk {
    uint32_t launch, block;
    uint64_t tick;         /* clock at the last access */
    uint32_t hnext;        /* hash chain, or free list when unused */
    uint32_t lprev, lnext; /* LRU list */
    uint32_t used;
    pcent *t;              /* open addressing on pc */
    uint32_t n, cap;       /* pcs, slots (power of two) */
    uint32_t last;         /* slot + 1 of the pc touched last */
} oblk;

#define GONE_EMPTY UINT64_MAX

struct mh_occ {
    oblk *pool;
    uint32_t npool, cappool, freelist;
    uint32_t *buckets;
    uint32_t nbuckets, nblk;
    uint32_t lru_head, lru_tail, last;
    size_t bytes, budget;
    uint64_t clock, max_age, restarts;
    uint64_t *gone; /* (launch << 32 | block) of blocks dropped early; GONE_EMPTY = free */
    size_t ngone, capgone;
    /* the counters touched last (hot_cnt NULL: none), found again with
     * four compares while a warp instruction's lanes come */
    uint32_t hot_id, hot_launch, hot_block, hot_cap;
    uint64_t hot_pc;
    uint32_t *hot_cnt;
};

static uint32_t blk_hash(uint32_t launch, uint32_t block) {
    return (uint32_t)mh_mix64((uint64_t)launch << 32 | block);
}

static size_t pc_slot(uint64_t pc, uint32_t cap) { return (size_t)mh_mix64(pc) & (cap - 1); }

/* Bytes of one pc's counters of cap threads. */
static size_t cnt_bytes(uint32_t cap) { return (size_t)cap * sizeof(uint32_t); }

int mh_occ_new(mh_occ **out, size_t budget, mh_err *err) {
    mh_occ *o = calloc(1, sizeof *o);
    if (!o) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    o->nbuckets = 256;
    o->buckets = calloc(o->nbuckets, sizeof *o->buckets);
    if (!o->buckets) {
        free(o);
        return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    }
    o->budget = budget;
    o->max_age = UINT64_C(1) << 20;
    *out = o;
    return MH_OK;
}

void mh_occ_free(mh_occ *o) {
    if (!o) return;
    for (uint32_t i = 0; i < o->npool; i++) {
        oblk *x = &o->pool[i];
        for (uint32_t j = 0; j < x->cap; j++) free(x->t[j].cnt);
        free(x->t);
    }
    free(o->pool);
    free(o->buckets);
    free(o->gone);
    free(o);
}

size_t mh_occ_bytes(const mh_occ *o) {
    return o->bytes + (size_t)o->cappool * sizeof(oblk) + (size_t)o->nbuckets * sizeof(uint32_t) +
           o->capgone * sizeof(uint64_t);
}

uint64_t mh_occ_restarts(const mh_occ *o) { return o->restarts; }

/* ---- blocks dropped early ---- */

static size_t gone_slot(uint64_t key, size_t cap) { return (size_t)mh_mix64(key) & (cap - 1); }

static int gone_has(const mh_occ *o, uint64_t key) {
    if (!o->ngone) return 0;
    for (size_t j = gone_slot(key, o->capgone); o->gone[j] != GONE_EMPTY; j = (j + 1) & (o->capgone - 1))
        if (o->gone[j] == key) return 1;
    return 0;
}

static int gone_rebuild(mh_occ *o, size_t cap, uint32_t drop_launch, int drop) {
    uint64_t *g = malloc(cap * sizeof *g);
    if (!g) return MH_ERR_NOMEM;
    for (size_t j = 0; j < cap; j++) g[j] = GONE_EMPTY;
    size_t n = 0;
    for (size_t i = 0; i < o->capgone; i++) {
        uint64_t key = o->gone[i];
        if (key == GONE_EMPTY || (drop && (uint32_t)(key >> 32) == drop_launch)) continue;
        size_t j = gone_slot(key, cap);
        while (g[j] != GONE_EMPTY) j = (j + 1) & (cap - 1);
        g[j] = key;
        n++;
    }
    free(o->gone);
    o->gone = g;
    o->capgone = cap;
    o->ngone = n;
    return MH_OK;
}

static int gone_add(mh_occ *o, uint64_t key) {
    if (key == GONE_EMPTY) return MH_OK; /* (UINT32_MAX, UINT32_MAX): not remembered */
    if ((o->ngone + 1) * 2 > o->capgone && gone_rebuild(o, o->capgone ? o->capgone * 2 : 64, 0, 0) != MH_OK)
        return MH_ERR_NOMEM;
    size_t j = gone_slot(key, o->capgone);
    while (o->gone[j] != GONE_EMPTY) {
        if (o->gone[j] == key) return MH_OK;
        j = (j + 1) & (o->capgone - 1);
    }
    o->gone[j] = key;
    o->ngone++;
    return MH_OK;
}

/* ---- block pool ---- */

static void lru_unlink(mh_occ *o, uint32_t id) {
    oblk *x = &o->pool[id - 1];
    if (x->lprev) o->pool[x->lprev - 1].lnext = x->lnext;
    else o->lru_head = x->lnext;
    if (x->lnext) o->pool[x->lnext - 1].lprev = x->lprev;
    else o->lru_tail = x->lprev;
    x->lprev = x->lnext = 0;
}

static void lru_push_tail(mh_occ *o, uint32_t id) {
    oblk *x = &o->pool[id - 1];
    x->lprev = o->lru_tail;
    x->lnext = 0;
    if (o->lru_tail) o->pool[o->lru_tail - 1].lnext = id;
    else o->lru_head = id;
    o->lru_tail = id;
}

static int rehash(mh_occ *o, uint32_t nb) {
    uint32_t *b = calloc(nb, sizeof *b);
    if (!b) return MH_ERR_NOMEM;
    for (uint32_t i = 0; i < o->npool; i++) {
        oblk *x = &o->pool[i];
        if (!x->used) continue;
        uint32_t h = blk_hash(x->launch, x->block) & (nb - 1);
        x->hnext = b[h];
        b[h] = i + 1;
    }
    free(o->buckets);
    o->buckets = b;
    o->nbuckets = nb;
    return MH_OK;
}

/* Frees block id's table and returns the slot to the free list. */
static void release(mh_occ *o, uint32_t id) {
    oblk *x = &o->pool[id - 1];
    assert(x->used);
    uint32_t *pp = &o->buckets[blk_hash(x->launch, x->block) & (o->nbuckets - 1)];
    while (*pp != id) {
        assert(*pp);
        pp = &o->pool[*pp - 1].hnext;
    }
    *pp = x->hnext;
    lru_unlink(o, id);
    if (o->last == id) o->last = 0;
    if (o->hot_id == id) o->hot_cnt = NULL;
    o->bytes -= (size_t)x->cap * sizeof(pcent);
    for (uint32_t j = 0; j < x->cap; j++)
        if (x->t[j].cnt) {
            o->bytes -= cnt_bytes(x->t[j].cap);
            free(x->t[j].cnt);
        }
    free(x->t);
    x->t = NULL;
    x->n = x->cap = x->last = 0;
    x->used = 0;
    x->hnext = o->freelist;
    o->freelist = id;
    o->nblk--;
}

/* Drops a block that may still be running: its counters restart if it returns. */
static int drop_early(mh_occ *o, uint32_t id) {
    const oblk *x = &o->pool[id - 1];
    if (gone_add(o, (uint64_t)x->launch << 32 | x->block) != MH_OK) return MH_ERR_NOMEM;
    release(o, id);
    return MH_OK;
}

static uint32_t get_block(mh_occ *o, uint32_t launch, uint32_t block) {
    if (o->last) {
        const oblk *x = &o->pool[o->last - 1];
        if (x->launch == launch && x->block == block) return o->last;
    }
    uint32_t h = blk_hash(launch, block) & (o->nbuckets - 1);
    for (uint32_t id = o->buckets[h]; id; id = o->pool[id - 1].hnext)
        if (o->pool[id - 1].launch == launch && o->pool[id - 1].block == block) return id;
    uint32_t id;
    if (o->freelist) {
        id = o->freelist;
        o->freelist = o->pool[id - 1].hnext;
    } else {
        if (o->npool == o->cappool) {
            size_t cap = o->cappool;
            oblk *p = mh_grow(o->pool, &cap, (size_t)o->npool + 1, sizeof *p, 64);
            if (!p || cap > UINT32_MAX) return 0;
            o->pool = p;
            o->cappool = (uint32_t)cap;
        }
        id = ++o->npool;
    }
    oblk *x = &o->pool[id - 1];
    memset(x, 0, sizeof *x);
    x->launch = launch;
    x->block = block;
    x->used = 1;
    x->hnext = o->buckets[h];
    o->buckets[h] = id;
    lru_push_tail(o, id);
    o->nblk++;
    if (gone_has(o, (uint64_t)launch << 32 | block)) {
        o->restarts++;
        if (o->max_age < (UINT64_C(1) << 62)) o->max_age *= 2; /* dropped too early: wait longer */
    }
    if (o->nblk > o->nbuckets && rehash(o, o->nbuckets * 2) != MH_OK) return 0;
    return id;
}

static int table_grow(mh_occ *o, oblk *x) {
    uint32_t cap = x->cap ? x->cap * 2 : 16;
    pcent *t = calloc(cap, sizeof *t);
    if (!t) return MH_ERR_NOMEM;
    for (uint32_t i = 0; i < x->cap; i++) {
        if (!x->t[i].cnt) continue;
        size_t j = pc_slot(x->t[i].pc, cap);
        while (t[j].cnt) j = (j + 1) & (cap - 1);
        t[j] = x->t[i];
    }
    o->bytes += (size_t)(cap - x->cap) * sizeof *t;
    free(x->t);
    x->t = t;
    x->cap = cap;
    x->last = 0;
    return MH_OK;
}

/* The counters of pc in block x, covering thread; NULL without memory. */
static pcent *pc_get(mh_occ *o, oblk *x, uint64_t pc, uint16_t thread) {
    pcent *e = x->last ? &x->t[x->last - 1] : NULL;
    if (!e || e->pc != pc) {
        if ((x->n + 1) * 2 > x->cap && table_grow(o, x) != MH_OK) return NULL;
        size_t j = pc_slot(pc, x->cap);
        while (x->t[j].cnt && x->t[j].pc != pc) j = (j + 1) & (x->cap - 1);
        e = &x->t[j];
        x->last = (uint32_t)j + 1;
        if (!e->cnt) {
            uint32_t cap = 32;
            while (cap <= thread) cap *= 2;
            e->cnt = calloc(cap, sizeof *e->cnt);
            if (!e->cnt) return NULL;
            e->pc = pc;
            e->cap = cap;
            x->n++;
            o->bytes += cnt_bytes(cap);
        }
    }
    if (thread >= e->cap) {
        uint32_t cap = e->cap;
        while (cap <= thread) cap *= 2;
        uint32_t *c = realloc(e->cnt, cnt_bytes(cap));
        if (!c) return NULL;
        memset(c + e->cap, 0, cnt_bytes(cap - e->cap));
        o->bytes += cnt_bytes(cap - e->cap);
        e->cnt = c;
        e->cap = cap;
    }
    return e;
}

/* Always inlined: the per-access work of both callers below. */
static inline __attribute__((always_inline)) int occ_next(mh_occ *o, uint32_t launch, uint32_t block,
                                                           uint16_t thread, uint64_t pc, uint32_t *k, mh_err *err) {
    uint32_t id, *c;
    oblk *x;
    if (o->hot_cnt && o->hot_pc == pc && o->hot_launch == launch && o->hot_block == block && thread < o->hot_cap) {
        id = o->hot_id;
        x = &o->pool[id - 1];
        c = &o->hot_cnt[thread];
    } else {
        id = get_block(o, launch, block);
        if (!id) return mh_err_set(err, MH_ERR_NOMEM, "out of memory counting instruction executions");
        x = &o->pool[id - 1];
        pcent *e = pc_get(o, x, pc, thread);
        if (!e) return mh_err_set(err, MH_ERR_NOMEM, "out of memory counting instruction executions");
        o->hot_id = id;
        o->hot_launch = launch;
        o->hot_block = block;
        o->hot_pc = pc;
        o->hot_cnt = e->cnt;
        o->hot_cap = e->cap;
        c = &e->cnt[thread];
    }
    *k = *c;
    if (*c < UINT32_MAX) ++*c;
    x->tick = ++o->clock;
    if (o->lru_tail != id) {
        lru_unlink(o, id);
        lru_push_tail(o, id);
    }
    o->last = id;
    /* blocks nobody touched for max_age accesses have almost surely finished;
     * at most two per call keeps this O(1) */
    for (int i = 0; i < 2 && o->lru_head && o->lru_head != id; i++) {
        if (o->clock - o->pool[o->lru_head - 1].tick <= o->max_age) break;
        if (drop_early(o, o->lru_head) != MH_OK) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    }
    while (mh_occ_bytes(o) > o->budget && o->lru_head && o->lru_head != id)
        if (drop_early(o, o->lru_head) != MH_OK) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    return MH_OK;
}

int mh_occ_next(mh_occ *o, uint32_t launch, uint32_t block, uint16_t thread, uint64_t pc, uint32_t *k,
                mh_err *err) {
    return occ_next(o, launch, block, thread, pc, k, err);
}

int mh_occ_next_accesses(mh_occ *o, const mh_access *v, size_t n, uint32_t *k, mh_err *err) {
    for (size_t i = 0; i < n; i++) {
        const mh_access *a = &v[i];
        unsigned space = MH_ACCESS_SPACE(a);
        if (space != MH_SPACE_GLOBAL && space != MH_SPACE_SHARED) continue;
        int rc = occ_next(o, a->launch, a->block, a->thread, a->pc, &k[i], err);
        if (rc) return rc;
    }
    return MH_OK;
}

void mh_occ_end_launch(mh_occ *o, uint32_t launch) {
    uint32_t id = o->lru_head;
    while (id) {
        uint32_t next = o->pool[id - 1].lnext;
        if (o->pool[id - 1].launch == launch) release(o, id);
        id = next;
    }
    /* rebuilding in place cannot fail for lack of memory unless malloc does;
     * then the stale keys stay, which only over-counts restarts */
    if (o->ngone) (void)gone_rebuild(o, o->capgone, launch, 1);
}
