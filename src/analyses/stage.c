/* stage.c -- the hand-over between two stages of an analysis (memheat/stage.h). */
#include "memheat/stage.h"

#include <stdlib.h>
#include <string.h>

#include "util/grow.h"

int mh_stage_room(mh_stage *st, size_t accesses, size_t records, int with_occ) {
    if (accesses && (accesses > st->cap || (with_occ && !st->occ))) {
        size_t cap = accesses > st->cap ? mh_grow_cap(st->cap, accesses, sizeof(uint64_t), 1u << 12) : st->cap;
        if (!cap) return -1;
        uint64_t *k = realloc(st->key, cap * sizeof *k);
        if (!k) return -1;
        st->key = k;
        uint32_t *o = with_occ ? realloc(st->occ, cap * sizeof *o) : NULL;
        if (with_occ && !o) return -1;
        if (!with_occ) free(st->occ); /* one analysis per hand-over: never both */
        st->occ = o;
        st->cap = cap;
    }
    if (records > st->capr) {
        size_t *b = mh_grow(st->bytes, &st->capr, records, sizeof *b, 64);
        if (!b) return -1;
        st->bytes = b;
    }
    return 0;
}

void mh_stage_free(mh_stage *st) {
    free(st->key);
    free(st->occ);
    free(st->bytes);
    memset(st, 0, sizeof *st);
}
