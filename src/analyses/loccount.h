/* loccount.h -- the locality analysis's count of accesses per canonical
 * address within one launch (internal to locality.c; loccount.c).
 *
 * The canonical key of each access is appended to a buffer; when the buffer
 * holds twice as many keys as the distinct keys counted so far (at least
 * MH_LCNT_BUF_MIN), and at the launch's end, it is radix-sorted and merged
 * into the sorted distinct keys with their counts. No random probe per access
 * (a hash map's insert was a quarter of the whole analysis of launches of
 * 10^5 addresses). A launch that passes MH_LCNT_SWITCH distinct addresses
 * moves to a hash map (key -> count) for the rest of it: there the sorts and
 * merges would cost more than the probes. The counts are exact either way,
 * and memory follows the distinct addresses. Blocks come from and go back to
 * the caller's cache (util/bigmem.h); *bytes tracks the capacity held. */
#ifndef MEMHEAT_ANALYSES_LOCCOUNT_H
#define MEMHEAT_ANALYSES_LOCCOUNT_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

#include "memheat/err.h"
#include "util/bigmem.h"
#include "util/hash.h"

typedef struct mh_lcnt_ent {
    uint64_t key; /* 0 = empty (canonical keys are never 0) */
    uint64_t n;
} mh_lcnt_ent;

/* One launch's counts; zero-initialise. */
typedef struct mh_lcnt {
    uint64_t *buf;         /* canonical keys of accesses not counted yet, unsorted */
    size_t nbuf, capbuf;
    uint64_t *ukey, *ucnt; /* distinct keys counted so far, ascending, and their counts */
    size_t nu, capu;
    mh_lcnt_ent *t;        /* past MH_LCNT_SWITCH distinct keys: key -> count (buf, ukey unused) */
    size_t cap, n;
    uint64_t pend[32];     /* hash map: keys whose slots are being fetched, counted MH_LCNT_AHEAD adds later */
    uint64_t pendh[32];    /* and their hashes (mh_lcnt_hash) */
    unsigned npend, hpend;
} mh_lcnt;

enum { MH_LCNT_SWITCH = 1 << 18, MH_LCNT_BUF_FIRST = 4096, MH_LCNT_BUF_MIN = 1 << 16, MH_LCNT_AHEAD = 32 };

/* The hash of a canonical address that places it in the counter table
 * (mh_lcnt_slot_h) and picks its part (mh_lcnt_part_h): a caller that
 * needs both computes it once per access. The four 4-byte words of a
 * 16-byte span hash alike. */
static inline uint64_t mh_lcnt_hash(uint64_t key) { return mh_mix64(key >> 4); }

/* Slot of a canonical address (hash h) in the counter table (cap: a power
 * of two, >= 4). The four words of a 16-byte span share a hashed group of
 * four neighbouring slots, so a warp's coalesced accesses touch a quarter of
 * the cache lines they would with a plain hash. The table is sorted before
 * use, so placement changes no result. */
static inline size_t mh_lcnt_slot_h(uint64_t key, uint64_t h, size_t cap) {
    return (size_t)((h << 2) + ((key >> 2) & 3)) & (cap - 1);
}
static inline size_t mh_lcnt_slot(uint64_t key, size_t cap) { return mh_lcnt_slot_h(key, mh_lcnt_hash(key), cap); }

/* A launch's counts may be split in two parts once they are in a hash map
 * (locality.c: the counting stage keeps part 0, the second-half stage counts part 1 on another
 * thread): by a bit of the key's hash, so a 16-byte span stays in one part,
 * as its slots do, and the parts are about even. */
static inline unsigned mh_lcnt_part_h(uint64_t h) { return (unsigned)(h >> 63); }
static inline unsigned mh_lcnt_part(uint64_t key) { return mh_lcnt_part_h(mh_lcnt_hash(key)); }

/* Out of line: room for one more pending key (may count the pending ones,
 * or move to the hash map); the hash map's insert. */
int mh_lcnt_room(mh_lcnt *s, mh_big_cache *cache, size_t *bytes);
int mh_lcnt_hash_add(mh_lcnt *s, mh_big_cache *cache, size_t *bytes, uint64_t key, uint64_t h);

/* The hash map's add: the key's slot is prefetched now and the key counted
 * MH_LCNT_AHEAD adds later (mh_lcnt_sorted counts the rest). A table of
 * millions of addresses misses the cache on nearly every access; this keeps
 * MH_LCNT_AHEAD of those misses in flight whatever the caller does between
 * adds. The counts, and the order they are made in, are unchanged. */
static inline int mh_lcnt_hash_defer(mh_lcnt *s, mh_big_cache *cache, size_t *bytes, uint64_t key, uint64_t h) {
    __builtin_prefetch(&s->t[mh_lcnt_slot_h(key, h, s->cap)], 1);
    unsigned i = (s->hpend + s->npend) % MH_LCNT_AHEAD;
    if (s->npend < MH_LCNT_AHEAD) {
        s->pend[i] = key;
        s->pendh[i] = h;
        s->npend++;
        return MH_OK;
    }
    uint64_t old = s->pend[s->hpend], oldh = s->pendh[s->hpend]; /* i == hpend: the oldest leaves, key takes its place */
    s->pend[i] = key;
    s->pendh[i] = h;
    s->hpend = (s->hpend + 1) % MH_LCNT_AHEAD;
    return mh_lcnt_hash_add(s, cache, bytes, old, oldh);
}

/* Counts one access of key (never 0). Always inlined: a hot loop's only
 * work besides the key (locality.c has two such loops). */
static inline __attribute__((always_inline)) int mh_lcnt_add(mh_lcnt *s, mh_big_cache *cache, size_t *bytes,
                                                              uint64_t key) {
    assert(key != 0); /* canonical keys carry a space or an object slot */
    if (s->t) return mh_lcnt_hash_defer(s, cache, bytes, key, mh_lcnt_hash(key));
    if (s->nbuf == s->capbuf) {
        if (mh_lcnt_room(s, cache, bytes) != MH_OK) return MH_ERR_NOMEM;
        if (s->t) return mh_lcnt_hash_add(s, cache, bytes, key, mh_lcnt_hash(key)); /* moved to the hash map */
    }
    s->buf[s->nbuf++] = key;
    return MH_OK;
}

/* The distinct keys, ascending, and their counts (*n of each). *own is NULL
 * or memory to free() once they are no longer needed; they stay valid until
 * then and until the next call on s. */
int mh_lcnt_sorted(mh_lcnt *s, mh_big_cache *cache, size_t *bytes, const uint64_t **keys, const uint64_t **cnt,
                   size_t *n, uint64_t **own);
/* s in its hash map: the keys of part 1 (mh_lcnt_part) leave it, every
 * add counted (the deferred ones too), into *kc (malloc'd: *n keys, then
 * their *n counts); the table keeps its size. */
int mh_lcnt_split(mh_lcnt *s, mh_big_cache *cache, size_t *bytes, uint64_t **kc, size_t *n);
/* s (empty) becomes a hash map of the n keys and counts of kc. */
int mh_lcnt_seed(mh_lcnt *s, mh_big_cache *cache, size_t *bytes, const uint64_t *kc, size_t n);
/* mh_lcnt_sorted of two parts at once (a launch's counts split in two: hash
 * maps of disjoint keys), as one ascending sequence, on nthreads threads
 * (2 .. MH_LCNT_SORT_THREADS): the keys are bucketed by splitters from a
 * sample of both tables and each bucket radix-sorted on a thread of its
 * own. *kc (malloc'd, the caller frees it) holds the *n keys, then their *n
 * counts: the sequence a merge of the two parts' mh_lcnt_sorted gives. The
 * tables are left as they are. MH_ERR_NOMEM, or 1 where a part is not a
 * hash map (mh_lcnt_sorted then). */
#define MH_LCNT_SORT_THREADS 16
int mh_lcnt_sorted_two(mh_lcnt *a, mh_lcnt *b, mh_big_cache *ca, size_t *ba, mh_big_cache *cb, size_t *bb,
                       unsigned nthreads, uint64_t **kc, size_t *n);
/* s (a hash map, nothing pending: just split) gives its table away whole:
 * *t, *cap slots (malloc'd memory); s is cleared, the table's bytes off
 * *bytes. mh_lcnt_take: s (empty) takes such a table, its bytes on *bytes
 * (locality.c's the first-half stage: the same table, so the same memory, as when the
 * first stage keeps it). */
void mh_lcnt_give(mh_lcnt *s, size_t *bytes, mh_lcnt_ent **t, size_t *cap);
void mh_lcnt_take(mh_lcnt *s, size_t *bytes, mh_lcnt_ent *t, size_t cap);
/* Gives everything back (to the cache) and clears s. */
void mh_lcnt_free(mh_lcnt *s, mh_big_cache *cache, size_t *bytes);

#endif
