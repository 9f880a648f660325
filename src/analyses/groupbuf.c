/* groupbuf.c -- buffered access groups with an LRU byte budget (groupbuf.h).
 *
 * Groups live in a pool (array of records, free list through hnext); a chained
 * hash table maps keys to pool indexes; a doubly linked list orders groups
 * from least to most recently touched. Index 0 means "none" everywhere, so
 * pool slot i is stored as i + 1. Entry arrays of up to RETAIN_MAX entries
 * come from an arena of large chunks (huge pages: a group handed over by
 * age is read back long after it was written, and its pages must not miss
 * the TLB too), with a free list per capacity. */
#include "analyses/groupbuf.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "util/bigmem.h"
#include "util/grow.h"

#define RETAIN_MAX 512u /* entries: arrays up to 8 KiB are kept for reuse */
#define ARENA_FIRST 4u   /* arena capacities: 4, 8, ..., RETAIN_MAX entries (the doubling from 4) */
#define ARENA_CLASSES 8
#define CHUNK_MIN ((size_t)64 << 10)
#define CHUNK_MAX ((size_t)4 << 20)
_Static_assert(ARENA_FIRST << (ARENA_CLASSES - 1) == RETAIN_MAX, "one arena class per capacity");

typedef struct grp {
    mh_grp_key key;
    mh_grp_entry *v;
    uint32_t n;            /* entries; the capacity accounted is cap_of(n) */
    uint16_t last;         /* thread of the last entry */
    uint16_t pad;
    uint32_t hnext;        /* hash chain, or free list when unused */
    uint32_t lprev, lnext; /* LRU list */
    uint32_t used : 1;
    uint32_t rising : 1;   /* every entry's thread above the one before (so no thread came twice) */
    uint32_t acap : 30;    /* allocated capacity of v: a finished group's array stays with its free slot for
                            * reuse (a bit field: the struct's size is part of the budget and the figures) */
    uint64_t tick;         /* g->clock at the last access */
} grp;
_Static_assert(sizeof(grp) == 64, "a group record is one cache line");

#define ACAP_MAX ((UINT32_C(1) << 30) - 1)

/* The capacity accounted for n entries: 0, then 4, doubling. */
static uint32_t cap_of(uint32_t n) {
    if (n <= 4) return n ? 4 : 0;
    return UINT32_C(1) << (32 - __builtin_clz(n - 1));
}

/* Whether n entries fill cap_of(n): the next entry needs room. */
static int full_at(uint32_t n) { return n == 0 || (n >= 4 && !(n & (n - 1))); }

struct mh_grp {
    grp *pool;
    uint32_t npool, cappool, freelist;
    uint32_t *buckets; /* nbuckets, power of two */
    uint32_t nbuckets;
    uint32_t ngroups;
    uint32_t lru_head, lru_tail;
    uint32_t last;     /* last group touched (fast path) */
    uint32_t whole;    /* a group made whole by the last add, handed over at the next (0: none) */
    size_t entry_bytes;
    size_t peak;
    size_t budget;
    uint64_t evicted, done, split;
    uint64_t clock;    /* accesses added so far */
    uint64_t max_age;  /* groups untouched for this many accesses are handed over */
    /* Steps handed over early, per stream (launch, block, warp, pc; not
     * space: locality's seq counts all of a thread's accesses and its keys
     * have pc 0, while the patterns' step is an occurrence count per pc), as
     * sorted disjoint [lo, hi] ranges of the step: LRU hands a stream's steps
     * over in order, so this stays a range or two each. */
    struct stream *st;
    size_t nst, capst;
    size_t st_bytes;
    mh_grp_done_fn fn;
    void *ctx;
    /* the arena of entry arrays (not counted, like malloc's own lists) */
    void *afree[ARENA_CLASSES];
    char *acur;
    size_t aleft, anext;
    void **chunks;
    size_t nchunks, capchunks;
};

typedef struct stream {
    uint64_t pc;
    uint32_t launch, block;
    uint16_t warp;
    uint8_t space, used;
    uint32_t n, cap; /* ranges */
    uint32_t *r;     /* 2n: lo, hi */
} stream;

static inline uint64_t key_word(const mh_grp_key *k, size_t i) {
    uint64_t w;
    memcpy(&w, (const char *)k + 8 * i, sizeof w);
    return w;
}

/* Keys compared as their three words (pad is always 0: mh_grp_key_set);
 * inline always: a call per access was a tenth of the grouping's time. */
static inline __attribute__((always_inline)) int key_eq(const mh_grp_key *a, const mh_grp_key *b) {
    return ((key_word(a, 0) ^ key_word(b, 0)) | (key_word(a, 1) ^ key_word(b, 1)) |
            (key_word(a, 2) ^ key_word(b, 2))) == 0;
}

static uint32_t key_hash(const mh_grp_key *k) {
    uint64_t h = k->pc * UINT64_C(0x9E3779B97F4A7C15);
    h ^= ((uint64_t)k->launch << 32 | k->block) * UINT64_C(0xC2B2AE3D27D4EB4F);
    h ^= ((uint64_t)k->seq << 24 | (uint64_t)k->warp << 8 | k->space) * UINT64_C(0x165667B19E3779F9);
    h ^= h >> 29;
    h *= UINT64_C(0xBF58476D1CE4E5B9);
    h ^= h >> 32;
    return (uint32_t)h;
}

size_t mh_grp_bytes(const mh_grp *g) {
    return g->st_bytes + g->entry_bytes + (size_t)g->cappool * sizeof(grp) + (size_t)g->nbuckets * sizeof(uint32_t);
}

/* ---- steps handed over early ---- */

static size_t stream_slot(const mh_grp_key *k, size_t cap) {
    uint64_t h = ((uint64_t)k->launch << 32 | k->block) * UINT64_C(0x9E3779B97F4A7C15);
    h ^= (uint64_t)k->warp * UINT64_C(0xC2B2AE3D27D4EB4F);
    h ^= k->pc * UINT64_C(0x165667B19E3779F9);
    h ^= h >> 31;
    return (size_t)h & (cap - 1);
}

static stream *stream_find(const mh_grp *g, const mh_grp_key *k, int *found) {
    size_t j = stream_slot(k, g->capst);
    while (g->st[j].used) {
        const stream *s = &g->st[j];
        if (s->launch == k->launch && s->block == k->block && s->warp == k->warp && s->pc == k->pc) {
            *found = 1;
            return &g->st[j];
        }
        j = (j + 1) & (g->capst - 1);
    }
    *found = 0;
    return &g->st[j];
}

static int stream_has(const mh_grp *g, const mh_grp_key *k) {
    int found;
    const stream *s = stream_find(g, k, &found);
    if (!found) return 0;
    for (uint32_t i = 0; i < s->n; i++)
        if (k->seq >= s->r[2 * i] && k->seq <= s->r[2 * i + 1]) return 1;
    return 0;
}

static int stream_rehash(mh_grp *g, size_t cap) {
    stream *old = g->st;
    size_t oldcap = g->capst;
    g->st = calloc(cap, sizeof *g->st);
    if (!g->st) {
        g->st = old;
        return MH_ERR_NOMEM;
    }
    g->capst = cap;
    g->st_bytes += (cap - oldcap) * sizeof(stream);
    for (size_t i = 0; i < oldcap; i++) {
        if (!old[i].used) continue;
        mh_grp_key k = {old[i].pc, old[i].launch, old[i].block, 0, old[i].warp, old[i].space, 0};
        int found;
        *stream_find(g, &k, &found) = old[i];
    }
    free(old);
    return MH_OK;
}

static int stream_note(mh_grp *g, const mh_grp_key *k) {
    if ((g->nst + 1) * 2 > g->capst && stream_rehash(g, g->capst ? g->capst * 2 : 64) != MH_OK) return MH_ERR_NOMEM;
    int found;
    stream *s = stream_find(g, k, &found);
    if (!found) {
        memset(s, 0, sizeof *s);
        s->pc = k->pc;
        s->launch = k->launch;
        s->block = k->block;
        s->warp = k->warp;
        s->space = k->space;
        s->used = 1;
        g->nst++;
    }
    uint32_t q = k->seq, i = 0;
    while (i < s->n && s->r[2 * i + 1] + 1 < q) i++; /* first range that ends at or after q - 1 */
    if (i < s->n && s->r[2 * i] <= q + 1 && q <= s->r[2 * i + 1] + 1) {
        if (q < s->r[2 * i]) s->r[2 * i] = q;
        if (q > s->r[2 * i + 1]) s->r[2 * i + 1] = q;
        if (i + 1 < s->n && s->r[2 * i + 1] + 1 >= s->r[2 * (i + 1)]) { /* merge with the next range */
            s->r[2 * i + 1] = s->r[2 * (i + 1) + 1];
            memmove(&s->r[2 * (i + 1)], &s->r[2 * (i + 2)], (s->n - i - 2) * 2 * sizeof *s->r);
            s->n--;
        }
        return MH_OK;
    }
    if (s->n == s->cap) { /* s->r holds cap pairs */
        size_t cap = s->cap;
        uint32_t *r = mh_grow(s->r, &cap, (size_t)s->n + 1, 2 * sizeof *r, 2);
        if (!r || cap > UINT32_MAX) return MH_ERR_NOMEM;
        g->st_bytes += (cap - s->cap) * 2 * sizeof *r;
        s->r = r;
        s->cap = (uint32_t)cap;
    }
    memmove(&s->r[2 * (i + 1)], &s->r[2 * i], (s->n - i) * 2 * sizeof *s->r);
    s->r[2 * i] = s->r[2 * i + 1] = q;
    s->n++;
    return MH_OK;
}

static void stream_drop_launch(mh_grp *g, uint32_t launch) {
    if (!g->nst) return;
    int any = 0;
    for (size_t i = 0; i < g->capst; i++)
        if (g->st[i].used && g->st[i].launch == launch) {
            g->st_bytes -= (size_t)g->st[i].cap * 2 * sizeof(uint32_t);
            free(g->st[i].r);
            memset(&g->st[i], 0, sizeof g->st[i]);
            g->nst--;
            any = 1;
        }
    if (any) stream_rehash(g, g->capst); /* rebuild probe chains */
}

static void note_peak(mh_grp *g) {
    size_t b = mh_grp_bytes(g);
    if (b > g->peak) g->peak = b;
}

int mh_grp_new(mh_grp **out, size_t budget, mh_grp_done_fn fn, void *ctx, mh_err *err) {
    mh_grp *g = calloc(1, sizeof *g);
    if (!g) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    g->nbuckets = 1024;
    g->buckets = calloc(g->nbuckets, sizeof *g->buckets);
    if (!g->buckets) {
        free(g);
        return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    }
    g->budget = budget;
    g->max_age = UINT64_C(1) << 20;
    g->fn = fn;
    g->ctx = ctx;
    *out = g;
    return MH_OK;
}

/* ---- the arena of entry arrays ---- */

static unsigned arena_class(uint32_t cap) {
    unsigned c = 0;
    while ((ARENA_FIRST << c) < cap) c++;
    assert((ARENA_FIRST << c) == cap && c < ARENA_CLASSES);
    return c;
}

static mh_grp_entry *arena_alloc(mh_grp *g, uint32_t cap) {
    unsigned c = arena_class(cap);
    size_t bytes = (size_t)cap * sizeof(mh_grp_entry);
    if (g->afree[c]) {
        void *p = g->afree[c];
        memcpy(&g->afree[c], p, sizeof(void *));
        return p;
    }
    if (g->aleft < bytes) {
        size_t sz = g->anext ? g->anext : CHUNK_MIN;
        void **v = mh_grow(g->chunks, &g->capchunks, g->nchunks + 1, sizeof *v, 16);
        if (!v) return NULL;
        g->chunks = v;
        char *p = mh_big_malloc(sz);
        if (!p) return NULL;
        g->chunks[g->nchunks++] = p;
        g->acur = p; /* the rest of the previous chunk (under 8 KiB) is left unused */
        g->aleft = sz;
        g->anext = sz < CHUNK_MAX ? sz * 2 : CHUNK_MAX;
    }
    void *p = g->acur;
    g->acur += bytes;
    g->aleft -= bytes;
    return p;
}

/* Releases an array of capacity acap (arena or heap). */
static void entries_free(mh_grp *g, mh_grp_entry *v, uint32_t acap) {
    if (!v) return;
    if (acap > RETAIN_MAX) {
        free(v);
        return;
    }
    unsigned c = arena_class(acap);
    memcpy(v, &g->afree[c], sizeof(void *));
    g->afree[c] = v;
}

/* Array v (capacity acap, n entries used) with room for cap > acap entries. */
static mh_grp_entry *entries_grow(mh_grp *g, mh_grp_entry *v, uint32_t acap, uint32_t n, uint32_t cap) {
    if (acap > RETAIN_MAX) return realloc(v, (size_t)cap * sizeof *v);
    mh_grp_entry *w = cap <= RETAIN_MAX ? arena_alloc(g, cap) : malloc((size_t)cap * sizeof *w);
    if (!w) return NULL;
    if (n) memcpy(w, v, (size_t)n * sizeof *w);
    entries_free(g, v, acap);
    return w;
}

/* Room in group x's array for ncap entries, its accounted capacity going
 * from cap to ncap; 0, or -1 without memory (x as it was). */
static int entries_reserve(mh_grp *g, grp *x, uint32_t cap, uint32_t ncap) {
    if (ncap > x->acap) {
        mh_grp_entry *v = entries_grow(g, x->v, x->acap, x->n, ncap);
        if (!v) return -1;
        x->v = v;
        x->acap = ncap;
    }
    g->entry_bytes += (size_t)(ncap - cap) * sizeof *x->v;
    return 0;
}

void mh_grp_free(mh_grp *g) {
    if (!g) return;
    for (uint32_t i = 0; i < g->npool; i++)
        if (g->pool[i].acap > RETAIN_MAX) free(g->pool[i].v); /* the rest is the arena's */
    for (size_t i = 0; i < g->nchunks; i++) free(g->chunks[i]);
    free(g->chunks);
    free(g->pool);
    free(g->buckets);
    for (size_t i = 0; i < g->capst; i++) free(g->st[i].r);
    free(g->st);
    free(g);
}

static void lru_unlink(mh_grp *g, uint32_t id) {
    grp *x = &g->pool[id - 1];
    if (x->lprev) g->pool[x->lprev - 1].lnext = x->lnext;
    else g->lru_head = x->lnext;
    if (x->lnext) g->pool[x->lnext - 1].lprev = x->lprev;
    else g->lru_tail = x->lprev;
    x->lprev = x->lnext = 0;
}

static void lru_push_tail(mh_grp *g, uint32_t id) {
    grp *x = &g->pool[id - 1];
    x->lprev = g->lru_tail;
    x->lnext = 0;
    if (g->lru_tail) g->pool[g->lru_tail - 1].lnext = id;
    else g->lru_head = id;
    g->lru_tail = id;
}

static int rehash(mh_grp *g, uint32_t nb) {
    uint32_t *b = calloc(nb, sizeof *b);
    if (!b) return MH_ERR_NOMEM;
    for (uint32_t i = 0; i < g->npool; i++) {
        grp *x = &g->pool[i];
        if (!x->used) continue;
        uint32_t h = key_hash(&x->key) & (nb - 1);
        x->hnext = b[h];
        b[h] = i + 1;
    }
    free(g->buckets);
    g->buckets = b;
    g->nbuckets = nb;
    return MH_OK;
}

/* Hands group id to the callback and releases it. */
static int finish(mh_grp *g, uint32_t id, mh_err *err) {
    grp *x = &g->pool[id - 1];
    assert(x->used);
    uint32_t h = key_hash(&x->key) & (g->nbuckets - 1);
    uint32_t *pp = &g->buckets[h];
    while (*pp != id) {
        assert(*pp);
        pp = &g->pool[*pp - 1].hnext;
    }
    *pp = x->hnext;
    lru_unlink(g, id);
    if (g->last == id) g->last = 0;
    if (g->whole == id) g->whole = 0;
    mh_grp_key k = x->key;
    mh_grp_entry *v = x->v;
    size_t n = x->n;
    uint32_t acap = x->acap;
    g->entry_bytes -= (size_t)cap_of(x->n) * sizeof *v;
    x->v = NULL;
    x->n = x->acap = 0;
    x->used = 0;
    x->hnext = g->freelist;
    g->freelist = id;
    g->ngroups--;
    g->done++;
    int rc = g->fn ? g->fn(g->ctx, &k, v, n, err) : MH_OK;
    /* keep a small array for the next group in this slot (malloc churn of
     * one array per warp request was a hot spot); not counted in the budget,
     * like malloc's own free lists */
    grp *y = &g->pool[id - 1];
    if (!y->used && !y->v && acap <= RETAIN_MAX) {
        y->v = v;
        y->acap = acap;
    } else {
        entries_free(g, v, acap);
    }
    return rc;
}

static uint32_t lookup(mh_grp *g, const mh_grp_key *k, uint32_t h) {
    for (uint32_t id = g->buckets[h]; id; id = g->pool[id - 1].hnext)
        if (key_eq(&g->pool[id - 1].key, k)) return id;
    return 0;
}

int mh_grp_add(mh_grp *g, const mh_grp_key *k, const mh_grp_entry *e, uint32_t lo, uint32_t full, mh_err *err) {
    uint32_t id = 0;
    if (g->whole) {
        /* The group made whole by the last add leaves unless this access
         * has its key: a thread's second record of one step (an Oclgrind
         * wide copy comes as records one after another), which breaks its
         * rising order, so it is not whole after all. */
        uint32_t w = g->whole;
        g->whole = 0;
        if (!key_eq(&g->pool[w - 1].key, k)) {
            int rc = finish(g, w, err);
            if (rc) return rc;
        }
    }
    if (g->last && key_eq(&g->pool[g->last - 1].key, k)) {
        id = g->last;
    } else {
        uint32_t h = key_hash(k) & (g->nbuckets - 1);
        id = lookup(g, k, h);
        if (!id) {
            if (!g->freelist) {
                if (g->npool == g->cappool) {
                    size_t cap = g->cappool;
                    grp *p = mh_grow(g->pool, &cap, (size_t)g->npool + 1, sizeof *p, 256);
                    if (!p || cap > UINT32_MAX)
                        return mh_err_set(err, MH_ERR_NOMEM, "out of memory buffering access groups");
                    g->pool = p;
                    g->cappool = (uint32_t)cap;
                }
                memset(&g->pool[g->npool], 0, sizeof(grp));
                id = ++g->npool;
            } else {
                id = g->freelist;
                g->freelist = g->pool[id - 1].hnext;
            }
            if (g->nst && stream_has(g, k)) {
                g->split++;
                /* a group came back after being handed over by age: wait longer */
                if (g->max_age < (UINT64_C(1) << 62)) g->max_age *= 2;
            }
            grp *x = &g->pool[id - 1];
            x->key = *k;
            x->used = 1;
            x->rising = 1;
            x->hnext = g->buckets[h];
            g->buckets[h] = id;
            lru_push_tail(g, id);
            g->ngroups++;
            if (g->ngroups > g->nbuckets && rehash(g, g->nbuckets * 2) != MH_OK)
                return mh_err_set(err, MH_ERR_NOMEM, "out of memory buffering access groups");
        }
        if (g->lru_tail != id) {
            lru_unlink(g, id);
            lru_push_tail(g, id);
        }
        g->last = id;
    }
    grp *x = &g->pool[id - 1];
    if (full_at(x->n)) {
        uint32_t cap = x->n, ncap = cap ? cap * 2 : 4;
        if (ncap > ACAP_MAX || entries_reserve(g, x, cap, ncap) != 0)
            return mh_err_set(err, MH_ERR_NOMEM, "out of memory buffering access groups");
    }
    if (x->n && e->thread <= x->last) x->rising = 0;
    x->last = e->thread;
    x->v[x->n++] = *e;
    x->tick = ++g->clock;
    /* Whole: each of the threads lo .. lo + full - 1 once (rising order,
     * first lo, last lo + full - 1), so no later access can belong to it,
     * unless the very next one repeats its last thread: handed over at the
     * next add. */
    if (full && x->n == full && x->rising && x->v[0].thread == lo && x->last == lo + full - 1) g->whole = id;
    /* Hand over groups nobody touched for max_age accesses: almost always
     * complete (their block moved on); at most two per call keeps it O(1). */
    for (int k = 0; k < 2 && g->lru_head && g->lru_head != id; k++) {
        grp *h = &g->pool[g->lru_head - 1];
        if (g->clock - h->tick <= g->max_age) break;
        if (stream_note(g, &h->key) != MH_OK)
            return mh_err_set(err, MH_ERR_NOMEM, "out of memory buffering access groups");
        int rc = finish(g, g->lru_head, err);
        if (rc) return rc;
    }
    if (mh_grp_bytes(g) > g->budget) {
        /* Evict least recently touched groups, never the one just added to. */
        while (mh_grp_bytes(g) > g->budget && g->lru_head && g->lru_head != id) {
            g->evicted++;
            if (stream_note(g, &g->pool[g->lru_head - 1].key) != MH_OK)
                return mh_err_set(err, MH_ERR_NOMEM, "out of memory buffering access groups");
            int rc = finish(g, g->lru_head, err);
            if (rc) return rc;
        }
    }
    note_peak(g);
    return MH_OK;
}

int mh_grp_add_run(mh_grp *g, const mh_grp_key *k, const mh_grp_entry *e, uint32_t n, uint32_t lo, uint32_t full,
                   mh_err *err) {
    if (n == 0) return MH_OK;
    int rc = mh_grp_add(g, k, e, lo, full, err);
    if (rc || n == 1) return rc;
    uint32_t id = g->last; /* the group of k: mh_grp_add made it the last touched */
    grp *x = &g->pool[id - 1];
    assert(id && key_eq(&x->key, k));
    uint32_t m = n - 1, n1 = x->n + m, c0 = cap_of(x->n), c1 = cap_of(n1);
    /* The other adds at once where one at a time would hand no group over:
     * the least recently touched group (another's: this one is the most
     * recent) stays younger than max_age up to the last add, and the bytes,
     * which only grow here, stay within the budget. Else one at a time. */
    const grp *h = g->lru_head && g->lru_head != id ? &g->pool[g->lru_head - 1] : NULL;
    if (n1 < x->n || c1 > ACAP_MAX || (h && g->clock + m - h->tick > g->max_age) ||
        mh_grp_bytes(g) + (size_t)(c1 - c0) * sizeof *x->v > g->budget) {
        for (uint32_t i = 1; i < n && rc == MH_OK; i++) rc = mh_grp_add(g, k, &e[i], lo, full, err);
        return rc;
    }
    g->whole = 0; /* the next add of one at a time has its key: the group stays */
    if (entries_reserve(g, x, c0, c1) != 0) return mh_err_set(err, MH_ERR_NOMEM, "out of memory buffering access groups");
    uint16_t last = x->last;
    int rising = x->rising;
    for (uint32_t i = 1; i < n; i++) {
        if (e[i].thread <= last) rising = 0; /* the group has entries: the first add made one */
        last = e[i].thread;
    }
    memcpy(x->v + x->n, e + 1, (size_t)m * sizeof *e);
    x->n = n1;
    x->last = last;
    x->rising = (uint32_t)rising;
    g->clock += m;
    x->tick = g->clock;
    if (full && x->n == full && x->rising && x->v[0].thread == lo && x->last == lo + full - 1) g->whole = id;
    note_peak(g);
    return MH_OK;
}

int mh_grp_flush_launch(mh_grp *g, uint32_t launch, mh_err *err) {
    uint32_t id = g->lru_head;
    while (id) {
        uint32_t next = g->pool[id - 1].lnext;
        if (g->pool[id - 1].key.launch == launch) {
            int rc = finish(g, id, err);
            if (rc) return rc;
        }
        id = next;
    }
    stream_drop_launch(g, launch);
    return MH_OK;
}

int mh_grp_flush_all(mh_grp *g, mh_err *err) {
    while (g->lru_head) {
        int rc = finish(g, g->lru_head, err);
        if (rc) return rc;
    }
    return MH_OK;
}

uint64_t mh_grp_evicted(const mh_grp *g) { return g->evicted; }
uint64_t mh_grp_split(const mh_grp *g) { return g->split; }
uint64_t mh_grp_done_count(const mh_grp *g) { return g->done; }
size_t mh_grp_peak_bytes(const mh_grp *g) { return g->peak; }
