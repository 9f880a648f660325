/* patterns_state.c -- the pattern analysis's per-launch evidence found
 * or made: a launch's state, a pc's statistics in it, a shared array's
 * evidence (patterns_state.h). */
#include "analyses/patterns_state.h"

#include <stdlib.h>
#include <string.h>

#include "util/grow.h"
#include "util/hash.h"

pstate *mh_pat_find_ps(mh_pat_run *pr, uint32_t launch) {
    for (size_t i = 0; i < pr->nps; i++)
        if (pr->ps[i].launch == launch) return &pr->ps[i];
    return NULL;
}

pstate *mh_pat_get_ps(mh_pat_run *pr, uint32_t launch) {
    pstate *s = mh_pat_find_ps(pr, launch);
    if (s) return s;
    {
        pstate *v = mh_grow(pr->ps, &pr->capps, pr->nps + 1, sizeof *v, 4);
        if (!v) return NULL;
        pr->ps = v;
    }
    s = &pr->ps[pr->nps++];
    memset(s, 0, sizeof *s);
    s->launch = launch;
    s->bank0 = pr->banks.n;
    return s;
}

static size_t pc_slot(unsigned space, int64_t obj, uint64_t pc, size_t cap) {
    return (size_t)mh_mix64(pc ^ ((uint64_t)obj << 8) ^ space) & (cap - 1);
}

pcstat *mh_pat_get_pc(mh_pat_run *pr, pstate *s, unsigned space, int64_t obj, uint64_t pc) {
    if ((s->npcs + 1) * 2 > s->pchcap) {
        size_t cap = s->pchcap ? s->pchcap * 2 : 64;
        uint32_t *h = calloc(cap, sizeof *h);
        if (!h) return NULL;
        for (size_t i = 0; i < s->npcs; i++) {
            size_t j = pc_slot(s->pcs[i].space, s->pcs[i].obj, s->pcs[i].pc, cap);
            while (h[j]) j = (j + 1) & (cap - 1);
            h[j] = (uint32_t)i + 1;
        }
        pr->bytes += (cap - s->pchcap) * sizeof *h;
        free(s->pch);
        s->pch = h;
        s->pchcap = cap;
    }
    size_t j = pc_slot(space, obj, pc, s->pchcap);
    while (s->pch[j]) {
        pcstat *p = &s->pcs[s->pch[j] - 1];
        if (p->space == space && p->obj == obj && p->pc == pc) return p;
        j = (j + 1) & (s->pchcap - 1);
    }
    {
        size_t was = s->cappcs;
        pcstat *v = mh_grow(s->pcs, &s->cappcs, s->npcs + 1, sizeof *v, 16);
        if (!v) return NULL;
        pr->bytes += (s->cappcs - was) * sizeof *v;
        s->pcs = v;
    }
    pcstat *p = &s->pcs[s->npcs++];
    memset(p, 0, sizeof *p);
    p->space = space;
    p->obj = obj;
    p->pc = pc;
    s->pch[j] = (uint32_t)s->npcs;
    return p;
}

sobj *mh_pat_sobj(sobj **v, size_t *n, size_t *cap, size_t *bytes, int64_t obj) {
    for (size_t i = 0; i < *n; i++)
        if ((*v)[i].obj == obj) return &(*v)[i];
    {
        size_t was = *cap;
        sobj *g = mh_grow(*v, cap, *n + 1, sizeof *g, 8);
        if (!g) return NULL;
        *bytes += (*cap - was) * sizeof *g;
        *v = g;
    }
    sobj *o = &(*v)[(*n)++];
    memset(o, 0, sizeof *o);
    o->obj = obj;
    return o;
}
