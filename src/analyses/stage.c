/* stage.c -- the hand-over between the stages of an analysis (analyses/stage.h). */
#include "analyses/stage.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/groupbuf.h"
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

int mh_stage_parts_room(mh_stage *st, size_t entries, size_t records) {
    size_t want = (st->pn[0] > st->pn[1] ? st->pn[0] : st->pn[1]) + entries;
    if (want > st->pcap) {
        size_t cap = mh_grow_cap(st->pcap, want, sizeof(uint64_t), 1u << 12);
        if (!cap) return -1;
        for (int p = 0; p < 2; p++) {
            uint64_t *k = realloc(st->pkey[p], cap * sizeof *k);
            if (!k) return -1;
            st->pkey[p] = k;
            uint32_t *l = realloc(st->plaunch[p], cap * sizeof *l);
            if (!l) return -1;
            st->plaunch[p] = l;
        }
        st->pcap = cap;
    }
    if (records > st->cappe) {
        size_t cap = st->cappe;
        size_t *e0 = mh_grow(st->pend[0], &cap, records, sizeof *e0, 64);
        if (!e0) return -1;
        st->pend[0] = e0;
        cap = st->cappe;
        size_t *e1 = mh_grow(st->pend[1], &cap, records, sizeof *e1, 64);
        if (!e1) return -1;
        st->pend[1] = e1;
        st->cappe = cap;
    }
    return 0;
}

void mh_stage_groups_clear(mh_stage *st) { st->ng = st->nent = 0; }

/* Room for one more group's key and end; 0, or -1 without memory. */
static int group_room(mh_stage *st) {
    if (st->ng < st->capg) return 0;
    size_t cap = st->capg;
    mh_grp_key *gk = mh_grow(st->gkey, &cap, st->ng + 1, sizeof *gk, 256);
    if (!gk) return -1;
    st->gkey = gk;
    cap = st->capg;
    size_t *ge = mh_grow(st->gend, &cap, st->ng + 1, sizeof *ge, 256);
    if (!ge) return -1;
    st->gend = ge;
    st->capg = cap;
    return 0;
}

/* Group k of the n entries just stored (after group_room) recorded. */
static void group_end(mh_stage *st, const mh_grp_key *k, size_t n) {
    st->nent += n;
    st->gkey[st->ng] = *k;
    st->gend[st->ng++] = st->nent;
}

int mh_stage_group_put(mh_stage *st, const mh_grp_key *k, const mh_grp_entry *v, size_t n) {
    if (group_room(st) != 0) return -1;
    if (st->nent + n > st->capent) {
        mh_grp_entry *e = mh_grow(st->gent, &st->capent, st->nent + n, sizeof *e, 4096);
        if (!e) return -1;
        st->gent = e;
    }
    if (n) memcpy(st->gent + st->nent, v, n * sizeof *v);
    group_end(st, k, n);
    return 0;
}

int mh_stage_group_put_keys(mh_stage *st, const mh_grp_key *k, const mh_grp_entry *v, size_t n) {
    if (group_room(st) != 0) return -1;
    if (st->nent + n > st->capcanon) {
        uint64_t *c = mh_grow(st->gcanon, &st->capcanon, st->nent + n, sizeof *c, 4096);
        if (!c) return -1;
        st->gcanon = c;
    }
    for (size_t i = 0; i < n; i++) st->gcanon[st->nent + i] = v[i].canon;
    group_end(st, k, n);
    return 0;
}

int mh_stage_record_done(mh_stage *st, size_t rec, size_t bytes) {
    if (rec >= st->caprg) {
        size_t cap = st->caprg;
        size_t *g = mh_grow(st->rgroups, &cap, rec + 1, sizeof *g, 64);
        if (!g) return -1;
        st->rgroups = g;
        cap = st->caprg;
        size_t *b = mh_grow(st->rbytes, &cap, rec + 1, sizeof *b, 64);
        if (!b) return -1;
        st->rbytes = b;
        st->caprg = cap;
    }
    st->rgroups[rec] = st->ng;
    st->rbytes[rec] = bytes;
    return 0;
}

void *mh_stage_eval_room(mh_stage *st, size_t groups, size_t size) {
    if (groups > SIZE_MAX / size) return NULL;
    if (groups * size > st->capeval) {
        size_t cap = st->capeval;
        void *v = mh_grow(st->geval, &cap, groups * size, 1, 1u << 14);
        if (!v) return NULL;
        st->geval = v;
        st->capeval = cap;
    }
    return st->geval;
}

int mh_stage_seed_put(mh_stage *st, size_t rec, uint32_t launch, unsigned part, uint64_t *kc, size_t n) {
    if (st->nseed == st->capseed) {
        mh_stage_seed *v = mh_grow(st->seed, &st->capseed, st->nseed + 1, sizeof *v, 4);
        if (!v) {
            free(kc);
            return -1;
        }
        st->seed = v;
    }
    st->seed[st->nseed++] = (mh_stage_seed){rec, launch, part, kc, n};
    return 0;
}

void mh_stage_seeds_clear(mh_stage *st) {
    for (size_t i = 0; i < st->nseed; i++) free(st->seed[i].kc);
    st->nseed = 0;
}

int mh_stage_seen_mark(mh_stage_seen *seen, mh_stage *st, uint32_t launch, uint64_t word) {
    for (size_t i = 0; i < seen->n; i++)
        if (seen->v[i] == launch) return 0;
    uint32_t *v = mh_grow(seen->v, &seen->cap, seen->n + 1, sizeof *v, 4);
    if (!v) return -1;
    seen->v = v;
    seen->v[seen->n++] = launch;
    mh_grp_key k;
    mh_grp_key_set(&k, word, launch, 0, 0, UINT16_MAX, 0);
    return mh_stage_group_put(st, &k, NULL, 0);
}

void mh_stage_seen_forget(mh_stage_seen *seen, uint32_t launch) {
    for (size_t i = 0; i < seen->n; i++)
        if (seen->v[i] == launch) {
            seen->v[i] = seen->v[--seen->n];
            return;
        }
}

void mh_stage_seen_free(mh_stage_seen *seen) {
    free(seen->v);
    memset(seen, 0, sizeof *seen);
}

void mh_stage_free(mh_stage *st) {
    mh_stage_seeds_clear(st);
    free(st->seed);
    free(st->gkey);
    free(st->gend);
    free(st->gent);
    free(st->gcanon);
    free(st->rgroups);
    free(st->rbytes);
    free(st->key);
    free(st->occ);
    free(st->bytes);
    free(st->geval);
    for (int p = 0; p < 2; p++) {
        free(st->pkey[p]);
        free(st->plaunch[p]);
        free(st->pend[p]);
    }
    memset(st, 0, sizeof *st);
}
