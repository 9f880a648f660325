/* bigmem.h -- memory for large hash tables, on transparent huge pages.
 *
 * The analyses' tables (heat-map sectors, locality address counts) are
 * probed at random, one cache miss per access: with 4 KiB pages each probe
 * also misses the TLB, and filling a fresh table faults once per page. Tables
 * of 4 MiB or more are therefore allocated 2 MiB aligned and advised as huge
 * pages (madvise; the kernel may decline, which only costs speed). The memory
 * is ordinary heap memory: free() and realloc() it as usual. Smaller ones
 * are 64-byte (cache line) aligned. */
#ifndef MEMHEAT_UTIL_BIGMEM_H
#define MEMHEAT_UTIL_BIGMEM_H

#include <stddef.h>

void *mh_big_malloc(size_t bytes);
/* Makes every block of 4 MiB or more a mapping of its own (glibc:
 * M_MMAP_THRESHOLD fixed there): freed, it goes back to the system at once,
 * instead of staying in the arena of the thread that made it (glibc's own
 * threshold rises to the size of the first such block freed, and then the
 * tables a pass grows and frees launch after launch on its analysis threads
 * stay in their arenas: about 1.5 times the analyses' peak); and mh_big_grow moves it by
 * mremap instead of copying it beside the old one. For a process (the
 * memheat command) before its first allocation; harmless where absent. */
void mh_big_setup(void);
/* Zeroed, like calloc; NULL on overflow or failure. */
void *mh_big_calloc(size_t n, size_t size);
/* mh_grow (util/grow.h) with the same capacities, for arrays that grow
 * large: once the new size reaches 4 MiB the array moves to huge pages
 * (a fresh 4 KiB page costs a fault each; on a paravirtualised machine a
 * fault is tens of microseconds); from there on it grows by realloc. */
void *mh_big_grow(void *p, size_t *cap, size_t need, size_t elem, size_t first);

/* Freed tables kept for the next of the same size, up to MH_BIG_CACHE_WAYS
 * per power-of-two size, by one owner (one thread): a table that grows by doubling in every
 * launch gets its blocks back instead of fresh pages (on a many-core machine
 * the page faults and the kernel's zeroing of fresh pages, in every thread at
 * once, cost more than the tables' own work). Zero-initialise the struct;
 * MH_BIG_CACHE_MAX bytes at most are kept. */
#define MH_BIG_CACHE_SLOTS 48
#define MH_BIG_CACHE_WAYS 4
#define MH_BIG_CACHE_MAX ((size_t)16 << 20)
typedef struct mh_big_cache {
    void *blk[MH_BIG_CACHE_SLOTS][MH_BIG_CACHE_WAYS];
    size_t kept; /* bytes held */
} mh_big_cache;

/* n x size bytes, not initialised: a kept block of that size, else mh_big_malloc. */
void *mh_big_cache_take(mh_big_cache *c, size_t n, size_t size);
/* n x size bytes, zeroed: a kept block of that size, else mh_big_calloc. */
void *mh_big_cache_calloc(mh_big_cache *c, size_t n, size_t size);
/* Gives p (n x size bytes, from mh_big_cache_calloc or mh_big_calloc) back:
 * kept when its size is a power of two and there is room, else freed. */
void mh_big_cache_put(mh_big_cache *c, void *p, size_t n, size_t size);
/* Frees every kept block. */
void mh_big_cache_free(mh_big_cache *c);

#endif
