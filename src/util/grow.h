/* grow.h -- the one array-growth helper: capacity doubling with overflow
 * checks, used the way realloc is. */
#ifndef MH_GROW_H
#define MH_GROW_H

#include <stddef.h>

/* Returns array p (of *cap elements of elem bytes) with room for at least
 * `need` elements: unchanged when need <= *cap, else reallocated to *cap
 * doubled (`first` elements when *cap is 0) until need fits, and *cap set.
 * On overflow of the byte size or out of memory it returns NULL and leaves p
 * (still owned by the caller) and *cap untouched. elem must be >= 1.
 *   T *a = mh_grow(s->a, &s->cap, s->n + 1, sizeof *a, 16);
 *   if (!a) return MH_ERR_NOMEM;
 *   s->a = a; */
void *mh_grow(void *p, size_t *cap, size_t need, size_t elem, size_t first);
/* The capacity mh_grow would choose (>= need), or 0 on overflow. */
size_t mh_grow_cap(size_t cap, size_t need, size_t elem, size_t first);

#endif
