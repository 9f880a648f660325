/* lanes_batch.c -- a lane's input batches (lanes_batch.h): records copied
 * once into shared blocks, accesses held in place or copied. */
#include "sched/lanes_batch.h"

#include <assert.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "util/grow.h"

#define SHARED_BLOCK ((size_t)64 << 10)

void mh_lbatch_shared_release(sblock *b) {
    if (b && atomic_fetch_sub_explicit(&b->refs, 1, memory_order_acq_rel) == 1) free(b);
}

#define ROUND8(n) (((n) + 7) & ~(size_t)7)

/* Room for n bytes in the reader's shared block (a new block when it is
 * full): all of a record's copies are made in one block, the one its
 * batches hold. 0 without memory. */
static int shared_room(mh_lanes *L, size_t n) {
    if (!L->sb || L->sb->cap - L->sb->used < n) {
        size_t cap = n > SHARED_BLOCK ? n : SHARED_BLOCK;
        sblock *b = malloc(sizeof *b + cap);
        if (!b) return 0;
        atomic_init(&b->refs, 1);
        b->used = 0;
        b->cap = cap;
        mh_lbatch_shared_release(L->sb);
        L->sb = b;
    }
    return 1;
}

/* n bytes of the room shared_room made. */
static void *shared_alloc(mh_lanes *L, size_t n) {
    n = ROUND8(n);
    assert(L->sb && L->sb->cap - L->sb->used >= n);
    void *p = L->sb->data + L->sb->used;
    L->sb->used += n;
    return p;
}

static size_t str_bytes(const char *s) { return s ? ROUND8(strlen(s) + 1) : 0; }

static void shared_str(mh_lanes *L, const char **s) {
    if (!*s) return;
    size_t n = strlen(*s) + 1;
    char *d = shared_alloc(L, n);
    memcpy(d, *s, n);
    *s = d;
}

int mh_lbatch_hold_shared(mh_lanes *L, lbatch *b) {
    if (!L->sb || (b->nsbs && b->sbs[b->nsbs - 1] == L->sb)) return 1;
    if (b->nsbs == b->capsbs) {
        sblock **v = mh_grow(b->sbs, &b->capsbs, b->nsbs + 1, sizeof *v, 8);
        if (!v) return 0;
        b->sbs = v;
    }
    atomic_fetch_add_explicit(&L->sb->refs, 1, memory_order_relaxed);
    b->sbs[b->nsbs++] = L->sb;
    return 1;
}

void mh_lbatch_reset(lbatch *b) {
    mh_trace_holds_clear(&b->holds);
    b->n = b->nacc = b->total = 0;
    for (size_t i = 0; i < b->nsbs; i++) mh_lbatch_shared_release(b->sbs[i]);
    b->nsbs = 0;
}

void mh_lbatch_free(lbatch *b) {
    if (!b) return;
    mh_lbatch_reset(b);
    free(b->sbs);
    mh_trace_holds_free(&b->holds);
    free(b->it);
    free(b->acc);
    free(b);
}

item *mh_lbatch_item(lbatch *b) {
    if (b->n == b->cap) {
        item *v = mh_grow(b->it, &b->cap, b->n + 1, sizeof *v, 256);
        if (!v) return NULL;
        b->it = v;
    }
    item *it = &b->it[b->n++];
    memset(it, 0, sizeof *it);
    return it;
}

int mh_lbatch_copy_record(mh_lanes *L, mh_record *out, const mh_record *rec) {
    *out = *rec;
    mh_record *r = out;
    const mh_launch *l = &rec->u.launch;
    uint32_t ns = rec->type == MH_REC_LAUNCH && l->n_sampled != MH_TRACE_ALL_BLOCKS && l->sampled ? l->n_sampled : 0;
    size_t need = 0;
    switch (rec->type) {
    case MH_REC_LAUNCH: need = str_bytes(l->name) + str_bytes(l->display_name) + ROUND8(ns * sizeof(uint32_t)); break;
    case MH_REC_ALLOC: need = str_bytes(rec->u.alloc.label); break;
    case MH_REC_DROPPED: need = str_bytes(rec->u.dropped.reason); break;
    case MH_REC_PCINFO: need = str_bytes(rec->u.pcinfo.function) + str_bytes(rec->u.pcinfo.file); break;
    case MH_REC_LAUNCH_STATS: need = str_bytes(rec->u.launch_stats.name); break;
    case MH_REC_KARG: need = str_bytes(rec->u.karg.type) + str_bytes(rec->u.karg.name); break;
    default: return 1; /* FREE, KERNEL_END: no pointers */
    }
    if (!shared_room(L, need)) return 0;
    switch (rec->type) {
    case MH_REC_LAUNCH:
        shared_str(L, &r->u.launch.name);
        shared_str(L, &r->u.launch.display_name);
        if (ns) {
            uint32_t *s = shared_alloc(L, ns * sizeof *s);
            memcpy(s, l->sampled, ns * sizeof *s);
            r->u.launch.sampled = s;
        }
        break;
    case MH_REC_ALLOC: shared_str(L, &r->u.alloc.label); break;
    case MH_REC_DROPPED: shared_str(L, &r->u.dropped.reason); break;
    case MH_REC_PCINFO: shared_str(L, &r->u.pcinfo.function); shared_str(L, &r->u.pcinfo.file); break;
    case MH_REC_LAUNCH_STATS: shared_str(L, &r->u.launch_stats.name); break;
    default: shared_str(L, &r->u.karg.type); shared_str(L, &r->u.karg.name); break;
    }
    return 1;
}
