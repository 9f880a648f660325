/* bigmem.c -- large tables on transparent huge pages (bigmem.h). */
#define _DEFAULT_SOURCE /* madvise, MADV_HUGEPAGE */
#include "util/bigmem.h"
#include "util/grow.h"

#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define HUGE_PAGE ((size_t)2 << 20)
#define BIG_MIN ((size_t)4 << 20) /* smaller tables stay on the ordinary heap */

void *mh_big_malloc(size_t bytes) {
    if (bytes < BIG_MIN) /* cache-line aligned: tables place related slots in one line */
        return aligned_alloc(64, bytes ? (bytes + 63) & ~(size_t)63 : 64);
    size_t rounded = (bytes + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    void *p = aligned_alloc(HUGE_PAGE, rounded);
    if (!p) return NULL;
#ifdef MADV_HUGEPAGE
    (void)madvise(p, rounded, MADV_HUGEPAGE);
#endif
    return p;
}

void *mh_big_calloc(size_t n, size_t size) {
    if (size && n > SIZE_MAX / size) return NULL;
    size_t bytes = n * size;
    void *p = mh_big_malloc(bytes);
    if (p) memset(p, 0, bytes);
    return p;
}

void mh_big_setup(void) {
#ifdef M_MMAP_THRESHOLD
    (void)mallopt(M_MMAP_THRESHOLD, (int)BIG_MIN);
#endif
}

void *mh_big_grow(void *p, size_t *cap, size_t need, size_t elem, size_t first) {
    if (p && need <= *cap) return p;
    size_t c = mh_grow_cap(*cap, need, elem, first);
    if (!c) return NULL;
    if (c * elem < BIG_MIN) return mh_grow(p, cap, need, elem, first);
    if (p && *cap * elem >= BIG_MIN) { /* a mapping of its own (mh_big_setup): moved by mremap, not copied */
        size_t rounded = (c * elem + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
        void *q = realloc(p, rounded);
        if (!q) return NULL;
#ifdef MADV_HUGEPAGE
        uintptr_t lo = ((uintptr_t)q + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
        uintptr_t hi = ((uintptr_t)q + rounded) & ~(uintptr_t)(HUGE_PAGE - 1);
        if (hi > lo) (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#endif
        *cap = c;
        return q;
    }
    void *q = mh_big_malloc(c * elem);
    if (!q) return NULL;
    if (p) memcpy(q, p, *cap * elem);
    free(p);
    *cap = c;
    return q;
}

/* The slot of a power-of-two size, or -1. */
static int cache_slot(size_t bytes) {
    if (bytes == 0 || (bytes & (bytes - 1)) != 0) return -1;
    int k = __builtin_ctzll((unsigned long long)bytes);
    return k < MH_BIG_CACHE_SLOTS ? k : -1;
}

void *mh_big_cache_take(mh_big_cache *c, size_t n, size_t size) {
    if (size && n > SIZE_MAX / size) return NULL;
    size_t bytes = n * size;
    int k = cache_slot(bytes);
    for (int w = 0; k >= 0 && w < MH_BIG_CACHE_WAYS; w++)
        if (c->blk[k][w]) {
            void *p = c->blk[k][w];
            c->blk[k][w] = NULL;
            c->kept -= bytes;
            return p;
        }
    return mh_big_malloc(bytes);
}

void *mh_big_cache_calloc(mh_big_cache *c, size_t n, size_t size) {
    void *p = mh_big_cache_take(c, n, size);
    if (p) memset(p, 0, n * size);
    return p;
}

void mh_big_cache_put(mh_big_cache *c, void *p, size_t n, size_t size) {
    if (!p) return;
    size_t bytes = n * size;
    int k = cache_slot(bytes);
    if (k >= 0 && c->kept + bytes <= MH_BIG_CACHE_MAX)
        for (int w = 0; w < MH_BIG_CACHE_WAYS; w++)
            if (!c->blk[k][w]) {
                c->blk[k][w] = p;
                c->kept += bytes;
                return;
            }
    free(p);
}

void mh_big_cache_free(mh_big_cache *c) {
    for (int k = 0; k < MH_BIG_CACHE_SLOTS; k++)
        for (int w = 0; w < MH_BIG_CACHE_WAYS; w++) free(c->blk[k][w]);
    memset(c, 0, sizeof *c);
}
