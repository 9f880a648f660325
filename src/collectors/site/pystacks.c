/* pystacks.c -- the Python stacks of one process's call sites
 * (site_state.h): each distinct stack once, its frames' strings read when
 * it is first seen, while the frames are alive; and the calling thread's
 * stack as an entry (mh_site_pystack_here: site.h), which the NVTX ranges
 * tie to a forward op's sequence number. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/site/site_state.h"
#include "util/grow.h"

static const uint64_t *py_hash_of(const void *tab, size_t i) { return &((const pystack_ent *)tab)[i].hash; }

static int py_eq(const void *tab, size_t i, const void *key) {
    const pystack_ent *e = &((const pystack_ent *)tab)[i];
    const mh_site_pystack *k = key;
    return e->n == k->n && !memcmp(e->key, k->key, k->n * sizeof *k->key);
}

static uint64_t py_hash(const mh_site_pystack *st) {
    uint64_t h = 0x5079u + st->n;
    for (uint32_t i = 0; i < st->n; i++) h = mh_site_mix(mh_site_mix(h, st->key[i].code), st->key[i].instr);
    return h;
}

uint32_t mh_site_pystack_intern(mh_site_state *s, const mh_site_pystack *st) {
    uint64_t h = py_hash(st);
    size_t at;
    long e = mh_site_ix_find(&s->pyix, h, py_eq, s->py, st, &at);
    if (e >= 0) return (uint32_t)e;
    pystack_ent *v = mh_grow(s->py, &s->cappy, s->npy + 1, sizeof *v, 64);
    if (!v) return MH_SITE_NONE;
    s->py = v;
    pystack_ent *p = &v[s->npy];
    memset(p, 0, sizeof *p);
    p->hash = h;
    p->n = st->n;
    p->cut = st->cut;
    memcpy(p->key, st->key, st->n * sizeof *st->key);
    p->frames = calloc(st->n ? st->n : 1, sizeof *p->frames);
    if (!p->frames) return MH_SITE_NONE;
    for (uint32_t i = 0; i < st->n; i++)
        if (!mh_site_py_resolve(st, i, &p->frames[i])) {
            p->frames[i].file = strdup("?");
            p->frames[i].function = strdup("?");
        }
    if (mh_site_ix_add(&s->pyix, h, (uint32_t)s->npy, s->npy + 1, py_hash_of, s->py) != 0) return MH_SITE_NONE;
    return (uint32_t)s->npy++;
}

uint32_t mh_site_pystack_here(mh_site_state *s) {
    if (!s || !s->enabled) return MH_SITE_NONE;
    mh_site_pystack st;
    if (!mh_site_py_read(&st) || st.n == 0) return MH_SITE_NONE;
    pthread_mutex_lock(&s->mu);
    uint32_t id = mh_site_pystack_intern(s, &st);
    pthread_mutex_unlock(&s->mu);
    return id;
}
