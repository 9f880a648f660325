/* grow.c -- array growth by doubling (src/util/grow.h). */
#include "util/grow.h"

#include <stdint.h>
#include <stdlib.h>

size_t mh_grow_cap(size_t cap, size_t need, size_t elem, size_t first) {
    if (elem == 0) return 0;
    size_t n = cap ? cap : (first ? first : 1);
    while (n < need) n = n > SIZE_MAX / 2 ? need : n * 2;
    if (n > SIZE_MAX / elem) {
        if (need > SIZE_MAX / elem) return 0;
        n = need; /* the doubled size overflows; the exact one does not */
    }
    return n;
}

void *mh_grow(void *p, size_t *cap, size_t need, size_t elem, size_t first) {
    if (p && need <= *cap) return p;
    size_t n = mh_grow_cap(*cap, need, elem, first);
    if (!n) return NULL;
    void *q = realloc(p, n * elem);
    if (!q) return NULL;
    *cap = n;
    return q;
}
