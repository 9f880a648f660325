/* bigmem.h -- memory for large hash tables, on transparent huge pages.
 *
 * The analyses' tables (heat-map sectors, locality address counts) are
 * probed at random, one cache miss per access: with 4 KiB pages each probe
 * also misses the TLB, and filling a fresh table faults once per page. Tables
 * of 4 MiB or more are therefore allocated 2 MiB aligned and advised as huge
 * pages (madvise; the kernel may decline, which only costs speed). The memory
 * is ordinary heap memory: free() and realloc() it as usual. */
#ifndef MEMHEAT_UTIL_BIGMEM_H
#define MEMHEAT_UTIL_BIGMEM_H

#include <stddef.h>

void *mh_big_malloc(size_t bytes);
/* Zeroed, like calloc; NULL on overflow or failure. */
void *mh_big_calloc(size_t n, size_t size);

#endif
