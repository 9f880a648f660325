/* patterns_access.c -- the pattern analysis's per-access stages: the keys
 * stage (mh_pat_run_keys: each global or shared access's canonical key, and
 * each launch's shared-memory word owners and per-array counts, unless the
 * owners stage, mh_pat_run_owners, does those) and the counting stage
 * (mh_pat_run_counts: the thread's execution count of its pc, occur.c, done
 * by the keys stage unless the evaluation runs apart).
 *
 * Their state (canon, the pacc of each launch and bytes1: the keys stage's;
 * occ: the counting stage's) is these stages' alone; what the grouping
 * stage (patterns.c) needs of an access (key, count) goes through the
 * batch's hand-over, and a launch's pacc moves into its pstate when it
 * ends, when no stage runs. */
#include "analyses/patterns_state.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "util/grow.h"
#include "util/hash.h"

static inline uint32_t ws_of(const mh_pat_run *pr) { return warp_size(pr); }

/* ---- shared-memory word owners ---- */

/* Slot of (word, block): the four words of a 16-byte span share a hashed
 * group of four slots, one cache line of the 64-byte aligned table, so a
 * warp's consecutive words touch a quarter of the lines. The table is
 * only summed over (patterns_classify.c), so placement changes nothing. */
static size_t owner_slot(uint64_t word, uint32_t block, size_t cap) {
    return (size_t)((mh_mix64((word >> 4) ^ ((uint64_t)block << 20)) << 2) + ((word >> 2) & 3u)) & (cap - 1);
}

static int owner_grow(mh_pat_run *pr, pacc *s) {
    size_t cap = s->capown ? s->capown * 2 : 1024;
    owner *t = aligned_alloc(64, cap * sizeof *t); /* cap >= 1024: a multiple of 64 bytes */
    if (!t) return MH_ERR_NOMEM;
    memset(t, 0, cap * sizeof *t);
    for (size_t i = 0; i < s->capown; i++) {
        if (!s->ow[i].word) continue;
        size_t j = owner_slot(s->ow[i].word, s->ow[i].block, cap);
        while (t[j].word) j = (j + 1) & (cap - 1);
        t[j] = s->ow[i];
    }
    pr->bytes1 += (cap - s->capown) * sizeof *t;
    free(s->ow);
    s->ow = t;
    s->capown = cap;
    return MH_OK;
}

static int owner_add(mh_pat_run *pr, pacc *s, uint64_t word, uint32_t block, uint16_t thread, uint32_t ws) {
    if ((s->nown + 1) * 4 > s->capown * 3 && owner_grow(pr, s) != MH_OK) return MH_ERR_NOMEM;
    size_t j = owner_slot(word, block, s->capown);
    while (s->ow[j].word && !(s->ow[j].word == word && s->ow[j].block == block)) j = (j + 1) & (s->capown - 1);
    owner *o = &s->ow[j];
    if (!o->word) {
        o->word = word;
        o->block = block;
        o->thread = thread;
        o->state = 1;
        s->nown++;
    } else if (o->state < 3 && o->thread != thread) {
        o->state = (mh_pat_div(o->thread, ws) == mh_pat_div(thread, ws)) ? 2 : 3;
    }
    return MH_OK;
}

/* ---- word owners by index: one shared array in one block ---- */

#define OTAB_MAX_WORDS (UINT32_C(1) << 18) /* 1 MiB arrays; shared memory per block is a quarter of that */

static void cell_add(uint32_t *c, uint16_t thread, uint32_t ws) {
    uint32_t v = *c;
    if (!v) {
        *c = UINT32_C(1) << 16 | thread;
        return;
    }
    uint16_t first = (uint16_t)v;
    if ((v >> 16) < 3 && first != thread)
        *c = (uint32_t)(mh_pat_div(first, ws) == mh_pat_div(thread, ws) ? 2 : 3) << 16 | first;
}

static size_t oth_slot(uint64_t base, uint32_t block, size_t cap) {
    return (size_t)mh_mix64(base ^ ((uint64_t)block << 1 | 1)) & (cap - 1);
}

static int oth_grow(pacc *s) {
    size_t cap = s->capoth ? s->capoth * 2 : 16;
    uint32_t *h = calloc(cap, sizeof *h);
    if (!h) return MH_ERR_NOMEM;
    for (size_t i = 0; i < s->nots; i++) {
        size_t j = oth_slot(s->ot[i].base, s->ot[i].block, cap);
        while (h[j]) j = (j + 1) & (cap - 1);
        h[j] = (uint32_t)i + 1;
    }
    free(s->oth);
    s->oth = h;
    s->capoth = cap;
    return MH_OK;
}

/* The otab of array base (a canonical key with offset 0) in block, made at
 * its first access; NULL when its words go to the hashed table (the array
 * is too big, or the launch's otabs would pass the grouping budget, a
 * budget of their own) or without memory (*nomem set). */
static otab *otab_make(const mh_pat_run *pr, pacc *s, uint64_t base, uint32_t block, int64_t obj, int *nomem) {
    if (s->capoth) {
        for (size_t j = oth_slot(base, block, s->capoth); s->oth[j]; j = (j + 1) & (s->capoth - 1)) {
            otab *t = &s->ot[s->oth[j] - 1];
            if (t->base == base && t->block == block) return t->cell ? t : NULL;
        }
    }
    if (s->nots + 1 > UINT32_MAX - 1 || ((s->nots + 1) * 2 > s->capoth && oth_grow(s) != MH_OK)) {
        *nomem = 1;
        return NULL;
    }
    otab *v = mh_grow(s->ot, &s->capots, s->nots + 1, sizeof *v, 4);
    if (!v) {
        *nomem = 1;
        return NULL;
    }
    s->ot = v;
    otab *t = &s->ot[s->nots];
    memset(t, 0, sizeof *t);
    t->base = base;
    t->block = block;
    size_t j = oth_slot(base, block, s->capoth);
    while (s->oth[j]) j = (j + 1) & (s->capoth - 1);
    s->oth[j] = (uint32_t)++s->nots;
    uint64_t size = obj >= 0 && (size_t)obj < pr->model->nobjs ? pr->model->objs[obj].a.size : 0;
    if (!size || size > (uint64_t)OTAB_MAX_WORDS * 4) return NULL; /* cell stays NULL: hashed */
    size_t bytes = (size_t)((size + 3) / 4) * sizeof *t->cell;
    if (s->otbytes + bytes > pr->o.group_budget) return NULL;
    t->cell = calloc(1, bytes);
    if (!t->cell) {
        *nomem = 1;
        return NULL;
    }
    t->nwords = (uint32_t)((size + 3) / 4);
    s->otbytes += bytes;
    return t;
}

/* otab_make, with the growth of s's tables added to the keys stage's bytes. */
static otab *otab_get(mh_pat_run *pr, pacc *s, uint64_t base, uint32_t block, int64_t obj, int *nomem) {
    size_t before = mh_pat_pacc_bytes(s);
    otab *t = otab_make(pr, s, base, block, obj, nomem);
    pr->bytes1 += mh_pat_pacc_bytes(s) - before;
    return t;
}

size_t mh_pat_pacc_bytes(const pacc *a) {
    return a->capown * sizeof *a->ow + a->capso * sizeof *a->so + a->capots * sizeof *a->ot +
           a->capoth * sizeof *a->oth + a->otbytes;
}

void mh_pat_pacc_free(pacc *a) {
    for (size_t i = 0; i < a->nots; i++) free(a->ot[i].cell);
    free(a->ot);
    free(a->oth);
    free(a->ow);
    free(a->so);
    memset(a, 0, sizeof *a);
}

static int count_cell(pacc *a, size_t *bytes, int64_t obj, unsigned state) {
    sobj *so = mh_pat_sobj(&a->so, &a->nso, &a->capso, bytes, obj);
    if (!so) return MH_ERR_NOMEM;
    so->cells++;
    if (state == 1) so->priv++;
    else if (state == 2) so->warp++;
    else so->cross++;
    return MH_OK;
}

int mh_pat_pacc_count(pacc *a, size_t *bytes) {
    for (size_t i = 0; i < a->capown; i++)
        if (a->ow[i].word && count_cell(a, bytes, MH_CANON_OBJ(a->ow[i].word), a->ow[i].state) != MH_OK)
            return MH_ERR_NOMEM;
    for (size_t i = 0; i < a->nots; i++) {
        const otab *t = &a->ot[i];
        int64_t obj = MH_CANON_OBJ(t->base);
        for (uint32_t w = 0; w < t->nwords; w++)
            if (t->cell[w] && count_cell(a, bytes, obj, t->cell[w] >> 16) != MH_OK) return MH_ERR_NOMEM;
    }
    return MH_OK;
}

/* ---- per-launch evidence ---- */

static pacc *get_pa(mh_pat_run *pr, uint32_t launch) {
    for (size_t i = 0; i < pr->npa; i++)
        if (pr->pa[i].launch == launch) return &pr->pa[i];
    pacc *v = mh_grow(pr->pa, &pr->cappa, pr->npa + 1, sizeof *v, 4);
    if (!v) return NULL;
    pr->pa = v;
    pacc *s = &pr->pa[pr->npa++];
    memset(s, 0, sizeof *s);
    s->launch = launch;
    return s;
}

void mh_pat_access_take(mh_pat_run *pr, pstate *s) {
    for (size_t i = 0; i < pr->npa; i++) {
        pacc *a = &pr->pa[i];
        if (a->launch != s->launch) continue;
        size_t b = mh_pat_pacc_bytes(a);
        assert(pr->bytes1 >= b); /* every table of a was counted as it grew */
        pr->bytes1 -= b;
        pr->bytes += b; /* free_ps gives them back */
        s->sh = *a;
        pr->pa[i] = pr->pa[--pr->npa];
        return;
    }
}

void mh_pat_access_free(mh_pat_run *pr) {
    for (size_t i = 0; i < pr->npa; i++) mh_pat_pacc_free(&pr->pa[i]);
    free(pr->pa);
    pr->pa = NULL;
    pr->npa = pr->cappa = 0;
    pr->bytes1 = 0;
}

/* ---- the stages ---- */


/* The shared-memory accesses of v[base, base + m) (keys[i]: v[i]'s
 * canonical key) into their launches' word owners: first a prefetch of the
 * hashed owner each may update, then the updates: those owners miss the
 * cache, and the misses of a group overlap instead of waiting one after
 * another. (Owners by index are neighbours from lane to lane: no
 * prefetch.) */
static int owners_group(mh_pat_run *pr, const mh_access *v, const uint64_t *keys, size_t base, size_t m,
                        mh_err *err) {
    uint32_t ws = ws_of(pr);
    pacc *s = NULL;
    for (size_t i = base; i < base + m; i++) {
        const mh_access *a = &v[i];
        if (MH_ACCESS_SPACE(a) != MH_SPACE_SHARED) continue;
        if (!s || s->launch != a->launch) {
            s = get_pa(pr, a->launch);
            if (!s) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
        }
        if (s->capown) __builtin_prefetch(&s->ow[owner_slot(keys[i] & ~(uint64_t)3, a->block, s->capown)], 1);
    }
    s = NULL;
    otab *t = NULL; /* s's table of the last shared array */
    for (size_t i = base; i < base + m; i++) {
        const mh_access *a = &v[i];
        if (MH_ACCESS_SPACE(a) != MH_SPACE_SHARED) continue;
        uint64_t key = keys[i];
        if (!s || s->launch != a->launch) {
            s = get_pa(pr, a->launch);
            if (!s) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
            t = NULL;
        }
        int64_t obj = MH_CANON_OBJ(key);
        sobj *so = mh_pat_sobj(&s->so, &s->nso, &s->capso, &pr->bytes1, obj);
        if (!so) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
        so->accesses++;
        uint32_t sz = a->size ? a->size : 1;
        uint64_t w0 = MH_CANON_OFF(key) / 4, w1 = (MH_CANON_OFF(key) + sz - 1) / 4;
        uint64_t arr = key & ~MH_CANON_OFF_MASK;
        if (obj >= 0 && (!t || t->base != arr || t->block != a->block)) {
            int nomem = 0;
            t = otab_get(pr, s, arr, a->block, obj, &nomem);
            if (nomem) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
        }
        uint64_t w = w0;
        if (obj >= 0 && t)
            for (; w <= w1 && w < t->nwords; w++) cell_add(&t->cell[w], a->thread, ws);
        for (; w <= w1; w++) /* past the table's end, or no table */
            if (owner_add(pr, s, arr | (w * 4), a->block, a->thread, ws) != MH_OK)
                return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    }
    return MH_OK;
}

enum { PF = 16 }; /* accesses whose owners' cache misses overlap */

int mh_pat_run_keys(mh_pat_run *pr, const mh_access *v, size_t n, mh_stage *st, size_t off, size_t rec,
                      mh_err *err) {
    if (mh_stage_room(st, off + n, rec + 1, 1) != 0) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    uint64_t *keys = st->key + off;
    const mh_model_launch *ml = NULL;
    uint32_t ml_id = 0;
    /* groups of PF accesses: their canonical keys, then their owners
     * (unless the owners stage's), then their execution counts (unless the counting stage's) */
    for (size_t base = 0; base < n; base += PF) {
        size_t m = n - base < PF ? n - base : PF;
        for (size_t i = base; i < base + m; i++) {
            const mh_access *a = &v[i];
            unsigned space = MH_ACCESS_SPACE(a);
            if (space != MH_SPACE_GLOBAL && space != MH_SPACE_SHARED && !pr->keys_all) continue;
            if (!ml || ml_id != a->launch) {
                ml = mh_model_launch_get(pr->model, a->launch);
                ml_id = a->launch;
            }
            keys[i] = mh_canon_key(&pr->canon, ml, a); /* local ones keyed for the locality alone */
        }
        if (!pr->owners_apart) {
            int rc = owners_group(pr, v, keys, base, m, err);
            if (rc) return rc;
        }
        if (pr->eval_apart) continue; /* the counting stage's */
        for (size_t i = base; i < base + m; i++) {
            const mh_access *a = &v[i];
            unsigned space = MH_ACCESS_SPACE(a);
            if (space != MH_SPACE_GLOBAL && space != MH_SPACE_SHARED) continue;
            int rc = mh_occ_next(pr->occ, a->launch, a->block, a->thread, a->pc, &st->occ[off + i], err);
            if (rc) return rc;
        }
    }
    st->bytes[rec] = (pr->owners_apart ? 0 : pr->bytes1) + (pr->eval_apart ? 0 : mh_occ_bytes(pr->occ));
    return MH_OK;
}

/* The owners stage (mh_pat_run_owners_apart): the owners of record rec's shared
 * accesses, from the keys the keys stage put in the hand-over. */
int mh_pat_run_owners(mh_pat_run *pr, const mh_access *v, size_t n, mh_stage *st, size_t off, size_t rec,
                       mh_err *err) {
    assert(pr->owners_apart);
    for (size_t base = 0; base < n; base += PF) {
        int rc = owners_group(pr, v, st->key + off, base, n - base < PF ? n - base : PF, err);
        if (rc) return rc;
    }
    st->bytes[rec] += pr->bytes1;
    return MH_OK;
}

/* The counting stage (the evaluation apart): the execution counts (occ is this stage's alone). */
int mh_pat_run_counts(mh_pat_run *pr, const mh_access *v, size_t n, mh_stage *st, size_t off, size_t rec,
                       mh_err *err) {
    assert(pr->eval_apart);
    int rc = mh_occ_next_accesses(pr->occ, v, n, st->occ + off, err);
    if (rc) return rc;
    st->bytes[rec] += mh_occ_bytes(pr->occ);
    return MH_OK;
}
