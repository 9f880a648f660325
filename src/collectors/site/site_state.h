/* site_state.h -- what the files of the call-site capture share: the
 * state of one process's tables (capture.c: sites, configurations, loaded
 * objects; pystacks.c: Python stacks), the open-addressing index each
 * table keeps (site_index.c), and the hash step they use. Not a public
 * header. */
#ifndef MH_COLLECTORS_SITE_STATE_H
#define MH_COLLECTORS_SITE_STATE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "collectors/site/site.h"
#include "util/hash.h"

typedef struct pystack_ent {
    uint64_t hash;
    mh_site_pykey key[MH_SITE_PY_DEPTH];
    uint32_t n;
    int cut;
    mh_site_pyframe *frames; /* n resolved frames (strings owned) */
} pystack_ent;

typedef struct site_ent {
    uint64_t hash;
    uint32_t flags;
    uint32_t pystack;  /* pystack_ent site_index, MH_SITE_NONE = none */
    uint32_t n_native, n_nvtx;
    uint64_t *pc;      /* n_native */
    uint32_t *object;  /* n_native object ids */
    uint32_t *nvtx;    /* n_nvtx interned range ids */
    uint32_t user;
    int written;
} site_ent;

typedef struct stat_ent {
    uint64_t hash;
    uint32_t site;
    char *name;
    mh_dim3 grid, block;
    uint32_t dyn_smem;
    uint64_t launches;
} stat_ent;

typedef struct obj_ent {
    mh_site_object o; /* path and build_id owned */
    int written;
} obj_ent;

/* An open-addressing index of entry numbers + 1 (0 = empty), keyed by hash. */
typedef struct site_index {
    uint32_t *slot;
    size_t cap; /* power of two */
} site_index;

struct mh_site_state {
    pthread_mutex_t mu;
    int enabled;
    char *extra_filter; /* MEMHEAT_FRAME_FILTER, or NULL */
    pystack_ent *py;
    size_t npy, cappy;
    site_index pyix;
    site_ent *sites;
    size_t nsites, capsites;
    site_index siteix;
    stat_ent *stats;
    size_t nstats, capstats;
    site_index statix;
    obj_ent *objs;
    size_t nobjs, capobjs;
    unsigned long long adds_seen; /* dl_iterate_phdr's count of objects loaded, at the last scan */
    uint64_t captures, py_unreadable, capture_ns;
    int oom;
};

static inline uint64_t mh_site_mix(uint64_t h, uint64_t v) {
    return mh_mix64(h ^ (v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2)));
}

/* site_index.c: the entry number of the entry whose hash is h and which eq()
 * accepts, or -1 (*at: the slot where a new one goes); adding entry e (hash
 * h), the index grown to stay at most half full (-1 without memory). */
long mh_site_ix_find(const site_index *x, uint64_t h, int (*eq)(const void *, size_t, const void *), const void *tab,
                     const void *key, size_t *at);
int mh_site_ix_add(site_index *x, uint64_t h, uint32_t e, size_t n_after,
                   const uint64_t *(*hash_of)(const void *, size_t), const void *tab);

/* pystacks.c: the stack's entry in s->py, added (its strings read now,
 * while its frames are alive) when new; under s->mu. MH_SITE_NONE without
 * memory. */
uint32_t mh_site_pystack_intern(mh_site_state *s, const mh_site_pystack *st);

#endif
