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
/* Zeroed, like calloc; NULL on overflow or failure. */
void *mh_big_calloc(size_t n, size_t size);
/* mh_grow (util/grow.h) with the same capacities, for arrays that grow
 * large: once the new size reaches 4 MiB the array moves to huge pages
 * (a fresh 4 KiB page costs a fault each; on a paravirtualised machine a
 * fault is tens of microseconds). */
void *mh_big_grow(void *p, size_t *cap, size_t need, size_t elem, size_t first);

#endif
