/* heat.c -- the word-sector heat map table (src/analyses/heat.h).
 *
 * Open addressing with linear probing, keyed by sector tag. An entry is 48
 * bytes: the tag, eight 32-bit warp masks (one per word) for warps 0..31 of
 * the sample (their union is the sector's set: no ninth mask), the kinds seen
 * per word (3 bits each), and an index into an overflow pool that holds the
 * warps from 32 up (several sampled blocks, --all-blocks). The table grows by
 * 1.5x at 85% load, so it holds 56..85 bytes per distinct sector. A small
 * direct-mapped cache of entry pointers catches the sectors a warp
 * instruction and its neighbours touch again, skipping hash and probe.
 * The overflow set of a word is a sorted array of warp ids that turns into a
 * bitmap once it holds more than OVF_SMALL ids. The sorted arrays (millions
 * of small ones in a map of many blocks) come from a per-map arena with a
 * free list per size, freed at once with the map: no malloc per set, and
 * the arena's large chunks sit on huge pages. A table starts at FIRST_CAP
 * slots: a run keeps a map as MH_HEAT_PARTS (mh_heat_part), which hold what
 * two of twice that held while small. The bytes counted for a set
 * stay its capacity, as before. Rows (56 bytes: the kinds unpacked) are
 * built in the table's own memory: at most 85% of the 48-byte slots are
 * used, so they fit (mh_heat_take_rows). */
#include "analyses/heat.h"

#include <assert.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "util/bigmem.h"
#include "util/grow.h"

#define EMPTY UINT64_MAX
#define NSETS (MH_HEAT_WORDS + 1) /* eight words, then the sector */
#define OVF_SMALL 64u
#define FIRST_CAP 256u /* slots of a new table */
#define RECENT 256u /* a warp instruction touches up to 32 sectors; a few in flight fit */
#define ARENA_FIRST 4u    /* capacities of sorted sets: 4, 8, ..., OVF_SMALL ids (mh_grow's doubling) */
#define ARENA_CLASSES 5
#define CHUNK_MIN ((size_t)64 << 10)
#define CHUNK_MAX ((size_t)4 << 20)
_Static_assert(ARENA_FIRST << (ARENA_CLASSES - 1) == OVF_SMALL, "one arena class per sorted-set capacity");

typedef struct entry {
    uint64_t tag;
    uint32_t mask[MH_HEAT_WORDS]; /* warps 0..31 per word; the sector's = their union */
    uint32_t kinds;               /* MH_HEAT_KIND_BIT per word, word w at bits 3w..3w+2 */
    uint32_t ovf; /* 0 = none, else index + 1 into pool */
} entry;

_Static_assert(sizeof(entry) == 48, "48-byte slots");
/* rows are built in the table's memory, which is at most 85% full (lookup) */
_Static_assert(sizeof(mh_heat_row) * 17 <= sizeof(entry) * 20, "rows fit the used slots");

typedef struct wset {  /* warps >= 32 of one word or sector */
    uint32_t *v;       /* sorted ids (n <= OVF_SMALL) or bitmap words (bitmap) */
    uint32_t n, cap;   /* ids held, capacity in uint32 */
    int bitmap;
} wset;

typedef struct ovf {
    wset s[NSETS];
} ovf;

struct mh_heat {
    entry *t;
    size_t cap, count;
    ovf *pool;
    size_t npool, cappool;
    size_t ovf_bytes;
    entry *recent[RECENT]; /* direct-mapped cache of recently touched entries */
    /* Bookkeeping of the arena, last: mh_heat_bytes counts the fields above
     * (the map's header as before) and the sets' capacities, not the
     * arena's own lists, like malloc's. */
    struct {
        void *free[ARENA_CLASSES]; /* free arrays of each class, linked through their first bytes */
        char *cur;                 /* unused rest of the newest chunk */
        size_t left, next;         /* its bytes; size of the next chunk */
        void **chunks;
        size_t nchunks, capchunks;
        /* the last (overflow record, warp) added to and the words it holds:
         * repeats by one warp (the lanes of a coalesced request share a
         * sector) need no search */
        uint32_t last_ovf, last_warp, last_words;
    } a;
};

/* Home slot of a tag. The eight sectors of one 256-byte block hash together
 * and take consecutive slots, so a warp's contiguous accesses (and the
 * runs of new sectors a streaming kernel creates) touch neighbouring cache
 * lines instead of eight random ones. */
static inline size_t slot_of(const mh_heat *h, uint64_t tag) {
    uint64_t x = (tag >> 3) * 0x9E3779B97F4A7C15ull;
    x ^= x >> 29;
    size_t s = (size_t)(((unsigned __int128)x * h->cap) >> 64) + (size_t)(tag & 7);
    return s < h->cap ? s : s - h->cap;
}

static int resize(mh_heat *h, size_t cap) {
    entry *t = cap <= SIZE_MAX / sizeof *t ? mh_big_malloc(cap * sizeof *t) : NULL;
    if (!t) return MH_ERR_NOMEM;
    for (size_t i = 0; i < cap; i++) t[i].tag = EMPTY;
    entry *old = h->t;
    size_t oldcap = h->cap;
    h->t = t;
    h->cap = cap;
    for (size_t i = 0; i < oldcap; i++) {
        if (old[i].tag == EMPTY) continue;
        size_t j = slot_of(h, old[i].tag);
        while (t[j].tag != EMPTY) j = j + 1 == cap ? 0 : j + 1;
        t[j] = old[i];
    }
    free(old);
    memset(h->recent, 0, sizeof h->recent);
    return MH_OK;
}

int mh_heat_new(mh_heat **out, uint32_t sector_size, mh_err *err) {
    *out = NULL;
    if (sector_size != 32)
        return mh_err_set(err, MH_ERR_FORMAT, "heat maps need 32-byte sectors (trace says %u)", sector_size);
    mh_heat *h = calloc(1, sizeof *h);
    if (!h || resize(h, FIRST_CAP) != MH_OK) {
        free(h);
        return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    }
    *out = h;
    return MH_OK;
}

static void free_pool(mh_heat *h) {
    for (size_t i = 0; i < h->npool; i++)
        for (int k = 0; k < NSETS; k++)
            if (h->pool[i].s[k].bitmap) free(h->pool[i].s[k].v); /* sorted arrays are the arena's */
    free(h->pool);
    h->pool = NULL;
    h->npool = h->cappool = 0;
    h->ovf_bytes = 0;
    for (size_t i = 0; i < h->a.nchunks; i++) free(h->a.chunks[i]);
    free(h->a.chunks);
    h->a.chunks = NULL;
    h->a.nchunks = h->a.capchunks = 0;
    memset(h->a.free, 0, sizeof h->a.free);
    h->a.cur = NULL;
    h->a.left = h->a.next = 0;
    h->a.last_ovf = 0;
}

/* ---- the arena of sorted sets ---- */

static unsigned arena_class(uint32_t cap) {
    unsigned c = 0;
    while ((ARENA_FIRST << c) < cap) c++;
    assert((ARENA_FIRST << c) == cap && c < ARENA_CLASSES);
    return c;
}

static uint32_t *arena_alloc(mh_heat *h, unsigned c) {
    size_t bytes = (size_t)(ARENA_FIRST << c) * sizeof(uint32_t);
    if (h->a.free[c]) {
        void *p = h->a.free[c];
        memcpy(&h->a.free[c], p, sizeof(void *));
        return p;
    }
    if (h->a.left < bytes) {
        size_t sz = h->a.next ? h->a.next : CHUNK_MIN;
        void **v = mh_grow(h->a.chunks, &h->a.capchunks, h->a.nchunks + 1, sizeof *v, 16);
        if (!v) return NULL;
        h->a.chunks = v;
        char *p = mh_big_malloc(sz);
        if (!p) return NULL;
        h->a.chunks[h->a.nchunks++] = p;
        h->a.cur = p; /* the rest of the previous chunk (under 256 bytes) is left unused */
        h->a.left = sz;
        h->a.next = sz < CHUNK_MAX ? sz * 2 : CHUNK_MAX;
    }
    uint32_t *p = (uint32_t *)(void *)h->a.cur;
    h->a.cur += bytes;
    h->a.left -= bytes;
    return p;
}

static void arena_free(mh_heat *h, uint32_t *p, unsigned c) {
    memcpy(p, &h->a.free[c], sizeof(void *));
    h->a.free[c] = p;
}

void mh_heat_free(mh_heat *h) {
    if (!h) return;
    free_pool(h);
    free(h->t);
    free(h);
}

size_t mh_heat_count(const mh_heat *h) { return h->count; }

void mh_heat_prefetch(const mh_heat *h, uint64_t addr) {
    __builtin_prefetch(&h->t[slot_of(h, addr >> 5)], 1, 3);
}

size_t mh_heat_bytes(const mh_heat *h) {
    return offsetof(mh_heat, a) + h->cap * sizeof(entry) + h->cappool * sizeof(ovf) + h->ovf_bytes;
}

static inline entry *lookup(mh_heat *h, uint64_t tag) {
    entry **rc = &h->recent[tag & (RECENT - 1)];
    if (*rc && (*rc)->tag == tag) return *rc;
    if ((h->count + 1) * 20 > h->cap * 17) { /* load > 85% */
        if (resize(h, h->cap + h->cap / 2) != MH_OK) return NULL;
    }
    size_t j = slot_of(h, tag);
    for (;;) {
        entry *e = &h->t[j];
        if (e->tag == tag) return *rc = e;
        if (e->tag == EMPTY) {
            memset(e, 0, sizeof *e);
            e->tag = tag;
            h->count++;
            return *rc = e;
        }
        j = j + 1 == h->cap ? 0 : j + 1;
    }
}

/* Adds warp w (>= 32) to set s; returns 0 on allocation failure. */
static int wset_add(mh_heat *h, wset *s, uint32_t w) {
    if (s->bitmap) {
        uint32_t need = w / 32 + 1;
        if (need > s->cap) {
            uint32_t cap = s->cap * 2 > need ? s->cap * 2 : need;
            uint32_t *v = realloc(s->v, cap * sizeof *v);
            if (!v) return 0;
            memset(v + s->cap, 0, (cap - s->cap) * sizeof *v);
            h->ovf_bytes += (cap - s->cap) * sizeof *v;
            s->v = v;
            s->cap = cap;
        }
        uint32_t bit = 1u << (w & 31);
        if (!(s->v[w / 32] & bit)) {
            s->v[w / 32] |= bit;
            s->n++;
        }
        return 1;
    }
    uint32_t lo = 0, hi = s->n;
    if (hi && s->v[hi - 1] < w) lo = hi; /* warps mostly come in order: append */
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (s->v[mid] < w) lo = mid + 1;
        else hi = mid;
    }
    if (lo < s->n && s->v[lo] == w) return 1;
    uint32_t maxw = s->n && s->v[s->n - 1] > w ? s->v[s->n - 1] : w;
    /* a bitmap once the ids would take as many words as it does (warps of a
     * few blocks: dense sets), or past OVF_SMALL ids */
    if (s->n == OVF_SMALL || (s->n >= ARENA_FIRST && s->n >= maxw / 32 + 1)) { /* switch to a bitmap */
        uint32_t cap = maxw / 32 + 1;
        uint32_t *v = calloc(cap, sizeof *v);
        if (!v) return 0;
        for (uint32_t i = 0; i < s->n; i++) v[s->v[i] / 32] |= 1u << (s->v[i] & 31);
        v[w / 32] |= 1u << (w & 31);
        h->ovf_bytes += (size_t)cap * sizeof *v;
        h->ovf_bytes -= (size_t)s->cap * sizeof *v;
        arena_free(h, s->v, arena_class(s->cap));
        s->v = v;
        s->cap = cap;
        s->n++;
        s->bitmap = 1;
        return 1;
    }
    if (s->n == s->cap) { /* capacities as mh_grow's: 4, then doubling */
        uint32_t cap = s->cap ? s->cap * 2 : ARENA_FIRST;
        uint32_t *v = arena_alloc(h, arena_class(cap));
        if (!v) return 0;
        if (s->cap) {
            memcpy(v, s->v, (size_t)s->n * sizeof *v);
            arena_free(h, s->v, arena_class(s->cap));
        }
        h->ovf_bytes += (cap - s->cap) * sizeof *v;
        s->v = v;
        s->cap = cap;
    }
    memmove(s->v + lo + 1, s->v + lo, (s->n - lo) * sizeof *s->v);
    s->v[lo] = w;
    s->n++;
    return 1;
}

/* Warp (>= 32) into the overflow sets of e's sector and of its words in
 * the mask words (bit w: word w). */
static int add_overflow(mh_heat *h, entry *e, uint32_t words, uint32_t warp) {
    if (!e->ovf) {
        if (h->npool == h->cappool) {
            ovf *p = mh_big_grow(h->pool, &h->cappool, h->npool + 1, sizeof *p, 64);
            if (!p) return MH_ERR_NOMEM;
            h->pool = p;
        }
        memset(&h->pool[h->npool], 0, sizeof(ovf));
        e->ovf = (uint32_t)++h->npool;
    }
    ovf *o = &h->pool[e->ovf - 1];
    if (e->ovf != h->a.last_ovf || warp != h->a.last_warp) {
        h->a.last_ovf = 0; /* valid again once the sector's set holds the warp */
        if (!wset_add(h, &o->s[MH_HEAT_WORDS], warp)) return MH_ERR_NOMEM;
        h->a.last_ovf = e->ovf;
        h->a.last_warp = warp;
        h->a.last_words = 0;
    }
    for (uint32_t todo = words & ~h->a.last_words; todo; todo &= todo - 1) {
        unsigned k = (unsigned)__builtin_ctz(todo);
        if (!wset_add(h, &o->s[k], warp)) return MH_ERR_NOMEM;
        h->a.last_words |= 1u << k;
    }
    return MH_OK;
}

/* The mask of words w0 .. w1. */
static inline uint32_t words_of(unsigned w0, unsigned w1) { return ((2u << w1) - 1) & ~((1u << w0) - 1); }

int mh_heat_add_words(mh_heat *h, uint64_t tag, uint32_t words, uint32_t kinds, uint32_t warp) {
    assert(words && words < (1u << MH_HEAT_WORDS));
    entry *e = lookup(h, tag);
    if (!e) return MH_ERR_NOMEM;
    e->kinds |= kinds;
    if (warp >= 32) return add_overflow(h, e, words, warp);
    uint32_t bit = 1u << warp;
    for (uint32_t todo = words; todo; todo &= todo - 1) e->mask[__builtin_ctz(todo)] |= bit;
    return MH_OK;
}

int mh_heat_add(mh_heat *h, uint64_t addr, uint32_t size, uint32_t warp, unsigned kind) {
    /* Fast path: an access inside one 4-byte word by one of the first 32 warps. */
    if (__builtin_expect(warp < 32 && size - 1 < 4 && (addr & 3) + size <= 4, 1)) {
        entry *e = lookup(h, addr >> 5);
        if (!e) return MH_ERR_NOMEM;
        unsigned w = (unsigned)(addr >> 2) & 7;
        e->mask[w] |= 1u << warp;
        e->kinds |= MH_HEAT_KIND_BIT(kind) << (3 * w);
        return MH_OK;
    }
    if (size == 0) size = 1;
    uint64_t last = addr + size - 1;
    if (last < addr) last = UINT64_MAX; /* wrapped: clamp */
    for (uint64_t tag = addr >> 5; tag <= last >> 5; tag++) {
        entry *e = lookup(h, tag);
        if (!e) return MH_ERR_NOMEM;
        uint64_t lo = tag << 5 > addr ? tag << 5 : addr;
        uint64_t hi = (tag << 5) + 31 < last ? (tag << 5) + 31 : last;
        unsigned w0 = (unsigned)(lo & 31) >> 2, w1 = (unsigned)(hi & 31) >> 2;
        for (unsigned k = w0; k <= w1; k++) e->kinds |= MH_HEAT_KIND_BIT(kind) << (3 * k);
        if (warp < 32) {
            uint32_t bit = 1u << warp;
            for (unsigned k = w0; k <= w1; k++) e->mask[k] |= bit;
        } else {
            int rc = add_overflow(h, e, words_of(w0, w1), warp);
            if (rc) return rc;
        }
        if (tag == UINT64_MAX >> 5) break;
    }
    return MH_OK;
}

/* In-place sort of rows by tag: introsort specialised for 56-byte rows.
 * glibc's qsort is a merge sort that allocates a second copy of the array
 * and calls a comparator per step; this needs neither. */
static inline void row_swap(mh_heat_row *a, mh_heat_row *b) {
    mh_heat_row t = *a;
    *a = *b;
    *b = t;
}

static void row_sift(mh_heat_row *v, size_t n, size_t i) {
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n) return;
        if (c + 1 < n && v[c + 1].tag > v[c].tag) c++;
        if (v[i].tag >= v[c].tag) return;
        row_swap(&v[i], &v[c]);
        i = c;
    }
}

static void row_sort(mh_heat_row *v, size_t n, int depth) {
    while (n > 16) {
        if (depth-- == 0) { /* pathological input: heapsort the rest */
            for (size_t i = n / 2; i-- > 0;) row_sift(v, n, i);
            for (size_t i = n; i-- > 1;) {
                row_swap(&v[0], &v[i]);
                row_sift(v, i, 0);
            }
            return;
        }
        size_t m = n / 2;
        if (v[m].tag < v[0].tag) row_swap(&v[m], &v[0]);
        if (v[n - 1].tag < v[0].tag) row_swap(&v[n - 1], &v[0]);
        if (v[n - 1].tag < v[m].tag) row_swap(&v[n - 1], &v[m]);
        uint64_t pivot = v[m].tag;
        size_t i = 0, j = n - 1;
        for (;;) {
            while (v[i].tag < pivot) i++;
            while (v[j].tag > pivot) j--;
            if (i >= j) break;
            row_swap(&v[i++], &v[j--]);
        }
        /* recurse on the smaller side, loop on the larger */
        if (j + 1 < n - j - 1) {
            row_sort(v, j + 1, depth);
            v += j + 1;
            n -= j + 1;
        } else {
            row_sort(v + j + 1, n - j - 1, depth);
            n = j + 1;
        }
    }
    for (size_t i = 1; i < n; i++)
        for (size_t k = i; k > 0 && v[k].tag < v[k - 1].tag; k--) row_swap(&v[k], &v[k - 1]);
}

uint32_t mh_heat_kinds_pack(const mh_heat_row *row) {
    uint32_t p = 0;
    for (unsigned w = 0; w < MH_HEAT_WORDS; w++) p |= (uint32_t)(row->kinds[w] & 7u) << (3 * w);
    return p;
}

const char *mh_heat_kinds_text(uint32_t packed, const uint32_t *temps, char out[MH_HEAT_WORDS + 1]) {
    for (unsigned w = 0; w < MH_HEAT_WORDS; w++) {
        unsigned k = MH_HEAT_KINDS_OF(packed, w);
        out[w] = k == MH_HEAT_LOAD ? 'L' : k == MH_HEAT_STORE ? 'S' : k == MH_HEAT_ATOMIC ? 'A' : k ? 'M'
               : temps && temps[w] ? '?' : '.';
    }
    out[MH_HEAT_WORDS] = '\0';
    return out;
}

/* Bits set in x. __builtin_popcount is a call into libgcc (a table loop)
 * where the target has no popcnt instruction by default (x86-64 without
 * -mpopcnt), and it was 1.4% of a pass over many small launches. */
static inline uint32_t pop32(uint32_t x) {
    x = x - ((x >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    x = (x + (x >> 4)) & 0x0f0f0f0fu;
    return (x * 0x01010101u) >> 24;
}

int mh_heat_take_rows(mh_heat *h, mh_heat_row **rows, size_t *n, mh_err *err) {
    /* used entries to the front (k <= i: never overwrites an unread entry) */
    size_t k = 0;
    for (size_t i = 0; i < h->cap; i++)
        if (h->t[i].tag != EMPTY) h->t[k++] = h->t[i];
    assert(k == h->count);
    assert(k * sizeof(mh_heat_row) <= h->cap * sizeof(entry)); /* load <= 85% (lookup) */
    /* then widened into rows from the last: row j ends at or after entry j,
     * and the entries before j lie below row j's start */
    for (size_t j = k; j-- > 0;) {
        entry e = h->t[j];
        mh_heat_row *r = (mh_heat_row *)(void *)((char *)h->t + j * sizeof(mh_heat_row));
        r->tag = e.tag;
        r->region = -1;
        const ovf *o = e.ovf ? &h->pool[e.ovf - 1] : NULL;
        uint32_t any = 0;
        for (int w = 0; w < MH_HEAT_WORDS; w++) {
            r->word[w] = pop32(e.mask[w]) + (o ? o->s[w].n : 0);
            r->kinds[w] = (uint8_t)MH_HEAT_KINDS_OF(e.kinds, (unsigned)w);
            any |= e.mask[w];
        }
        r->sector = pop32(any) + (o ? o->s[MH_HEAT_WORDS].n : 0);
    }
    mh_heat_row *out = (mh_heat_row *)(void *)h->t;
    row_sort(out, k, 2 * (int)(8 * sizeof(size_t) - (size_t)__builtin_clzl(k | 1)));
    if (k > 0) {
        mh_heat_row *shrunk = realloc(out, k * sizeof *out);
        if (shrunk) out = shrunk;
    }
    h->t = NULL;
    h->cap = h->count = 0;
    free_pool(h);
    if (resize(h, FIRST_CAP) != MH_OK) {
        *rows = out;
        *n = k;
        return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    }
    *rows = k ? out : (free(out), NULL);
    *n = k;
    return MH_OK;
}
