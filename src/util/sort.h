/* sort.h -- qsort for arrays that may be empty: qsort's base must not be
 * NULL even when n is 0 (C11 7.22.5), and an empty array's pointer often is. */
#ifndef MH_SORT_H
#define MH_SORT_H

#include <stddef.h>
#include <stdlib.h>

static inline void mh_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *)) {
    if (n > 1) qsort(base, n, size, cmp);
}

#endif
