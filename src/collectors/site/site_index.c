/* site_index.c -- the open-addressing index of entry numbers each table
 * of the call-site capture keeps (site_state.h). */
#include <stdlib.h>

#include "collectors/site/site_state.h"

/* Entry number of the entry whose hash is h and which eq() accepts, or -1;
 * *at receives the slot where a new one goes. */
long mh_site_ix_find(const site_index *x, uint64_t h, int (*eq)(const void *, size_t, const void *), const void *tab,
                     const void *key, size_t *at) {
    if (!x->cap) {
        *at = 0;
        return -1;
    }
    size_t j = (size_t)h & (x->cap - 1);
    while (x->slot[j]) {
        if (eq(tab, x->slot[j] - 1, key)) return (long)(x->slot[j] - 1);
        j = (j + 1) & (x->cap - 1);
    }
    *at = j;
    return -1;
}

/* Adds entry e (hash h) to the site_index, growing it to keep it at most half full. */
int mh_site_ix_add(site_index *x, uint64_t h, uint32_t e, size_t n_after,
                   const uint64_t *(*hash_of)(const void *, size_t), const void *tab) {
    if (2 * n_after > x->cap) {
        size_t cap = x->cap ? 2 * x->cap : 256;
        uint32_t *s = calloc(cap, sizeof *s);
        if (!s) return -1;
        for (size_t i = 0; i < x->cap; i++) {
            if (!x->slot[i]) continue;
            size_t j = (size_t)*hash_of(tab, x->slot[i] - 1) & (cap - 1);
            while (s[j]) j = (j + 1) & (cap - 1);
            s[j] = x->slot[i];
        }
        free(x->slot);
        x->slot = s;
        x->cap = cap;
    }
    size_t j = (size_t)h & (x->cap - 1);
    while (x->slot[j]) j = (j + 1) & (x->cap - 1);
    x->slot[j] = e + 1;
    return 0;
}
