/* canon.c -- maps raw access addresses to canonical (space, object, offset)
 * keys; see canon.h for the layout and why. */
#include "analyses/canon.h"

#include <string.h>

void mh_canon_init(mh_canon *c, const mh_model *m) {
    memset(c, 0, sizeof *c);
    c->model = m;
}

void mh_canon_reset(mh_canon *c) {
    for (int s = 0; s < MH_SPACE_COUNT; s++) c->c[s].valid = 0;
}

uint64_t mh_canon_key_slow(mh_canon *c, const mh_model_launch *ml, const mh_access *a) {
    unsigned space = MH_ACCESS_SPACE(a);
    if (space >= MH_SPACE_COUNT) space = MH_SPACE_GLOBAL;
    if (space == MH_SPACE_LOCAL) {
        uint64_t tpb = ml ? ml->threads_per_block : 1024;
        uint64_t gtid = (uint64_t)a->block * tpb + a->thread;
        return mh_canon_pack(space, gtid % MH_CANON_NOOBJ, a->addr);
    }
    mh_canon_cache *cc = &c->c[space];
    int64_t o = mh_model_find_obj(c->model, space, a->launch, a->addr);
    if (o < 0 || (uint64_t)o + 1 >= MH_CANON_NOOBJ) return mh_canon_pack(space, MH_CANON_NOOBJ, a->addr);
    const mh_alloc *al = &c->model->objs[o].a;
    cc->valid = 1;
    cc->launch = a->launch;
    cc->base = al->base;
    cc->end = al->base + al->size;
    cc->slot = (uint64_t)o + 1;
    return mh_canon_pack(space, cc->slot, a->addr - al->base);
}
