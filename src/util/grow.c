/* grow.c -- array growth by doubling (src/util/grow.h). */
#include "util/grow.h"

#include <stdint.h>
#include <stdlib.h>

void *mh_grow(void *p, size_t *cap, size_t need, size_t elem, size_t first) {
    if (p && need <= *cap) return p;
    if (elem == 0) return NULL;
    size_t n = *cap ? *cap : (first ? first : 1);
    while (n < need) n = n > SIZE_MAX / 2 ? need : n * 2;
    if (n > SIZE_MAX / elem) {
        if (need > SIZE_MAX / elem) return NULL;
        n = need; /* the doubled size overflows; the exact one does not */
    }
    void *q = realloc(p, n * elem);
    if (!q) return NULL;
    *cap = n;
    return q;
}
