/* locality.c -- AIWC locality metrics (footprint, 90% footprint, address
 * entropy, relative local memory usage, parallel spatial locality), streamed
 * over a trace; definitions in docs/metrics.md, API in analyses/locality.h.
 *
 * Per launch in flight: the access count of every canonical address (the
 * footprint/entropy input; memory = distinct addresses; loccount.c), here,
 * and per sampled block the running sums of per-step entropies
 * (locality_steps.c). A launch's metrics are put together here when it ends.
 *
 * The feed in stages (locality_state.h), each stage with its own state:
 * the counting stage (canon, ls, bytes) keys the accesses and counts them
 * per address, a big launch's counts in two parts; the second-half stage
 * (pb) and the first-half stage (pc), where they run apart, count one part
 * each from the key lists the counting stage hands over; the steps stage
 * (grp, seen) groups the steps, which it evaluates itself or hands to the
 * evaluation stage (st2, bytes2, peak). A big launch's end sorts both parts
 * on END_THREADS threads (mh_lcnt_sorted_two), then sums the entropies'
 * levels in groups on helper threads and the footprints on another
 * (end_launch): every other thread waits for it. */
#include "analyses/locality_state.h"

#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "util/grow.h"
#include "util/sort.h"

static lstate *find_ls(mh_loc_run *lr, uint32_t launch) {
    for (size_t i = 0; i < lr->nls; i++)
        if (lr->ls[i].launch == launch) return &lr->ls[i];
    return NULL;
}

static lstate *get_ls(mh_loc_run *lr, uint32_t launch, mh_err *err) {
    lstate *s = find_ls(lr, launch);
    if (s) return s;
    if (lr->nls == lr->capls) {
        lstate *v = mh_grow(lr->ls, &lr->capls, lr->nls + 1, sizeof *v, 4);
        if (!v) {
            mh_err_set(err, MH_ERR_NOMEM, "out of memory");
            return NULL;
        }
        lr->ls = v;
    }
    s = &lr->ls[lr->nls++];
    memset(s, 0, sizeof *s);
    s->launch = launch;
    return s;
}

/* A launch's counts are split in two parts (mh_lcnt_part) at the end of
 * the record in which they moved to a hash map (past MH_LCNT_SWITCH distinct
 * addresses), whatever the thread count, so that the memory is the same in
 * each run: part 0 stays the counting stage's, part 1 goes to an lpart and is counted
 * from the next record on by the second-half stage (on a thread of its own with
 * mh_loc_run_eval_apart, else by the counting stage); with mh_loc_run_first_apart, part 0's table
 * moves whole to the first-half stage's lpart, the same table with the same capacity.
 * The parts hold disjoint keys, merged in key order when the launch ends:
 * the results are one table's. */
static lpart *find_part(lparts *ps, uint32_t launch) {
    for (size_t i = 0; i < ps->n; i++)
        if (ps->v[i].launch == launch) return &ps->v[i];
    return NULL;
}

static lpart *get_part(lparts *ps, uint32_t launch) {
    lpart *s = find_part(ps, launch);
    if (s) return s;
    lpart *v = mh_grow(ps->v, &ps->cap, ps->n + 1, sizeof *v, 4);
    if (!v) return NULL;
    ps->v = v;
    s = &ps->v[ps->n++];
    memset(s, 0, sizeof *s);
    s->launch = launch;
    return s;
}

static void free_part(lparts *ps, uint32_t launch) {
    lpart *b = find_part(ps, launch);
    if (!b) return;
    mh_lcnt_free(&b->cnt, &ps->tables, &ps->bytes);
    ps->v[b - ps->v] = ps->v[--ps->n];
}

static void free_parts(lparts *ps) {
    for (size_t i = 0; i < ps->n; i++) mh_lcnt_free(&ps->v[i].cnt, &ps->tables, &ps->bytes);
    free(ps->v);
    mh_big_cache_free(&ps->tables);
}

/* Frees launch s's state of every stage. */
static void free_ls(mh_loc_run *lr, lstate *s) {
    lsteps *t = mh_loc_steps_find(lr, s->launch);
    if (t) mh_loc_steps_free(lr, t);
    free_part(&lr->pb, s->launch);
    free_part(&lr->pc, s->launch);
    mh_stage_seen_forget(&lr->seen, s->launch);
    mh_lcnt_free(&s->cnt, &lr->tables, &lr->bytes);
    size_t i = (size_t)(s - lr->ls);
    lr->ls[i] = lr->ls[--lr->nls];
}

int mh_loc_run_new(mh_loc_run **out, const mh_model *m, const mh_loc_opts *o, mh_err *err) {
    mh_loc_run *lr = calloc(1, sizeof *lr);
    if (!lr) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    lr->model = m;
    if (o) lr->o = *o;
    if (!lr->o.group_budget) lr->o.group_budget = (size_t)64 << 20;
    mh_loc_clog2_init();
    mh_canon_init(&lr->canon, m);
    int rc = mh_grp_new(&lr->grp, lr->o.group_budget, mh_loc_step_done, lr, err);
    if (rc) {
        free(lr);
        return rc;
    }
    *out = lr;
    return MH_OK;
}

static int cmp_u64_desc(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x > y ? -1 : x < y;
}

/* A launch's sorted distinct keys and their counts: one table's, or the
 * two parts of a split launch (disjoint keys), read in key order as one
 * sequence without merging them into a third array. */
typedef struct kc_seq {
    const uint64_t *k[2], *c[2];
    size_t n[2];
} kc_seq;

/* Footprint and 90% footprint of addresses with counts c[0][0..n0) and
 * c[1][0..n1) (the part of each of a kc_seq in one space, or all of it;
 * entropies: fill_entropies). */
static int fill_static(mh_loc_metrics *m, const uint64_t *const c[2], const size_t n[2]) {
    size_t all = n[0] + n[1];
    m->footprint = all;
    uint64_t total = 0, maxc = 0;
    for (int p = 0; p < 2; p++)
        for (size_t i = 0; i < n[p]; i++) {
            total += c[p][i];
            if (c[p][i] > maxc) maxc = c[p][i];
        }
    m->accesses = total;
    /* fewest addresses covering 90%: take counts from the largest down. A
     * histogram of the counts when they are small, else a sort. */
    uint64_t run = 0, k = 0;
    uint64_t *hist = maxc <= (UINT64_C(1) << 22) ? calloc(maxc + 1, sizeof *hist) : NULL;
    if (hist) {
        for (int p = 0; p < 2; p++)
            for (size_t i = 0; i < n[p]; i++) hist[c[p][i]]++;
        for (uint64_t v = maxc; v > 0 && run * 10 < total * 9; v--) {
            /* how many addresses of count v are still needed */
            uint64_t need = total * 9 - run * 10, per = v * 10;
            uint64_t take = (need + per - 1) / per;
            if (take > hist[v]) take = hist[v];
            run += take * v;
            k += take;
        }
        free(hist);
    } else {
        uint64_t *scratch = malloc((all ? all : 1) * sizeof *scratch);
        if (!scratch) return MH_ERR_NOMEM;
        if (n[0]) memcpy(scratch, c[0], n[0] * sizeof *scratch);
        if (n[1]) memcpy(scratch + n[0], c[1], n[1] * sizeof *scratch);
        mh_sort(scratch, all, sizeof *scratch, cmp_u64_desc);
        while (k < all && run * 10 < total * 9) run += scratch[k++];
        free(scratch);
    }
    m->footprint90 = k;
    return MH_OK;
}

/* Footprints per space and in total: each space's keys are a run in each
 * part (the space is in the keys' top bits). */
static int fill_statics(mh_loc_result *r, const kc_seq *q) {
    size_t a[2] = {0, 0};
    int spaces = 0;
    unsigned only = 0;
    while (a[0] < q->n[0] || a[1] < q->n[1]) {
        unsigned sp = MH_SPACE_COUNT;
        for (int p = 0; p < 2; p++)
            if (a[p] < q->n[p] && MH_CANON_SPACE(q->k[p][a[p]]) < sp) sp = MH_CANON_SPACE(q->k[p][a[p]]);
        const uint64_t *c[2];
        size_t n[2];
        for (int p = 0; p < 2; p++) {
            size_t b = a[p];
            while (b < q->n[p] && MH_CANON_SPACE(q->k[p][b]) == sp) b++;
            c[p] = q->c[p] ? q->c[p] + a[p] : NULL; /* a half with no keys has no array (NULL + 0 is undefined) */
            n[p] = b - a[p];
            a[p] = b;
        }
        if (fill_static(&r->m[sp], c, n) != MH_OK) return MH_ERR_NOMEM;
        spaces++;
        only = sp;
    }
    if (spaces == 1) { /* one space: the total is it */
        r->m[MH_LOC_TOTAL] = r->m[only];
        return MH_OK;
    }
    return fill_static(&r->m[MH_LOC_TOTAL], q->c, q->n);
}

/* H = log2(total) - acc / total, as mh_loc_entropy ends. */
static double entropy_of(double total, double acc) {
    if (total <= 0) return 0;
    double h = log2(total) - acc / total;
    return h < 0 ? 0 : h;
}

/* The next key of q in key order (ia, ib: the parts' positions; the parts'
 * keys are disjoint). two = 0: part 1 is empty (a constant, so the one-table
 * loop has no merge). */
static inline __attribute__((always_inline)) void kc_next(const kc_seq *q, size_t *ia, size_t *ib, int two,
                                                          uint64_t *key, uint64_t *c) {
    if (!two || *ib == q->n[1] || (*ia < q->n[0] && q->k[0][*ia] < q->k[1][*ib])) {
        *key = q->k[0][*ia];
        *c = q->c[0][(*ia)++];
    } else {
        *key = q->k[1][*ib];
        *c = q->c[1][(*ib)++];
    }
}

/* The entropies of every dropped-bit level, per space and in total, in one
 * pass over the sorted keys (instead of one pass per level and per column):
 * the runs of each level are closed in key order, so every sum gets the
 * same additions in the same order as mh_loc_entropy's, and the same bits.
 * A run's count is the difference of two running totals of the counts,
 * and a level's total the space's accesses (integers: exact, as
 * mh_loc_entropy's sums of them are), so a key costs only the levels whose
 * runs it closes, not one addition per level.
 * A space's runs never merge with another's (the space is in the top bits),
 * so the total's runs are the spaces' runs one after another. */
static inline __attribute__((always_inline)) void entropies_of(mh_loc_result *r, const kc_seq *q, int two,
                                                                int dlo, int dhi) {
    enum { L = MH_LOC_NBITS };
    double acc_s[L], acc_t[L];
    uint64_t from[L]; /* running total where each level's open run began */
    for (int d = 0; d < L; d++) acc_s[d] = acc_t[d] = 0, from[d] = 0;
    size_t n = q->n[0] + q->n[1], ia = 0, ib = 0;
    if (!n) return;
    uint64_t prev, c;
    kc_next(q, &ia, &ib, two, &prev, &c);
    unsigned sp = MH_CANON_SPACE(prev);
    uint64_t sum = c, seg_from = 0; /* counts of the keys so far; of those before the space's first */
    for (size_t i = 1; i <= n; i++) {
        uint64_t key = 0;
        if (i < n) kc_next(q, &ia, &ib, two, &key, &c);
        int seg_end = i == n || MH_CANON_SPACE(key) != sp;
        /* The keys are sorted and distinct, so key i stays in the run of
         * key i - 1 at every level d >= the bit length of their XOR, and
         * starts a new run below it: the same test as comparing key i >> d
         * with the run's own, one level at a time, without the compares. */
        int d0 = L;
        if (!seg_end) {
            uint64_t x = key ^ prev;
            int len = x ? 64 - __builtin_clzll(x) : 0;
            d0 = len < L ? len : L;
        }
        for (int d = dlo; d < d0 && d < dhi; d++) {
            uint64_t rc = sum - from[d];
            if (rc > 1) {
                double v = mh_loc_c_log2_c((double)rc);
                acc_s[d] += v;
                acc_t[d] += v;
            }
            from[d] = sum;
        }
        if (seg_end) { /* every level's runs add up to the space's accesses */
            for (int d = dlo; d < dhi; d++) {
                r->m[sp].entropy[d] = entropy_of((double)(sum - seg_from), acc_s[d]);
                acc_s[d] = 0;
            }
            seg_from = sum;
            if (i < n) sp = MH_CANON_SPACE(key);
        }
        if (i < n) {
            sum += c;
            prev = key;
        }
    }
    for (int d = dlo; d < dhi; d++) r->m[MH_LOC_TOTAL].entropy[d] = entropy_of((double)sum, acc_t[d]);
}

/* The entropies of levels [dlo, dhi) (each level's sums are its own: the
 * levels may be taken on several threads, each writing its own fields). */
static void fill_entropies(mh_loc_result *r, const kc_seq *q, int dlo, int dhi) {
    if (q->n[1]) entropies_of(r, q, 1, dlo, dhi);
    else entropies_of(r, q, 0, dlo, dhi);
}

/* fill_entropies on a helper thread. */
typedef struct entropies_job {
    mh_loc_result *r;
    const kc_seq *q;
    int dlo, dhi;
} entropies_job;

static void *entropies_main(void *arg) {
    entropies_job *j = arg;
    fill_entropies(j->r, j->q, j->dlo, j->dhi);
    return NULL;
}

/* The levels' groups on the threads of a big launch's end: the low levels
 * close a run at nearly every key, the high ones seldom. */
static const int ent_split[] = {0, 1, 2, 3, MH_LOC_NBITS};
enum { ENT_GROUPS = sizeof ent_split / sizeof ent_split[0] - 1 };

/* Every level's entropies; with helpers (many threads), a group of levels
 * per thread: the same sums in the same order, so the same bits. */
static void all_entropies(mh_loc_result *r, const kc_seq *q, int helpers) {
    entropies_job j[ENT_GROUPS];
    pthread_t th[ENT_GROUPS];
    int started[ENT_GROUPS] = {0};
    for (int g = 1; helpers && g < ENT_GROUPS; g++) {
        j[g] = (entropies_job){r, q, ent_split[g], ent_split[g + 1]};
        started[g] = pthread_create(&th[g], NULL, entropies_main, &j[g]) == 0;
    }
    if (!helpers) {
        fill_entropies(r, q, 0, MH_LOC_NBITS);
        return;
    }
    fill_entropies(r, q, ent_split[0], ent_split[1]);
    for (int g = 1; g < ENT_GROUPS; g++) {
        if (started[g]) pthread_join(th[g], NULL);
        else fill_entropies(r, q, ent_split[g], ent_split[g + 1]);
    }
}

/* mh_lcnt_sorted of one part, on a helper thread (sorting a part of
 * millions of addresses is most of a big launch's end). */
typedef struct part_sort {
    mh_lcnt *cnt;
    mh_big_cache *cache;
    size_t *bytes;
    const uint64_t *keys, *c;
    size_t n;
    uint64_t *own;
    int rc;
} part_sort;

static void *part_sort_main(void *arg) {
    part_sort *j = arg;
    j->rc = mh_lcnt_sorted(j->cnt, j->cache, j->bytes, &j->keys, &j->c, &j->n, &j->own);
    return NULL;
}

/* fill_statics into a result of its own (r), on a helper thread while
 * the entropies are summed. */
typedef struct statics_job {
    mh_loc_result r;
    const kc_seq *q;
    int rc;
} statics_job;

static void *statics_main(void *arg) {
    statics_job *j = arg;
    j->rc = fill_statics(&j->r, j->q);
    return NULL;
}

#define END_THREADS 8 /* threads that sort a split launch's counts at its end */

static int end_launch(mh_loc_run *lr, lstate *s, mh_err *err) {
    int rc = mh_grp_flush_launch(lr->grp, s->launch, err);
    if (rc) return rc;
    mh_loc_result r;
    memset(&r, 0, sizeof r);
    r.model = lr->model;
    r.launch = mh_model_launch_get(lr->model, s->launch);
    r.unattributed = s->unattributed;
    const lsteps *t = mh_loc_steps_find(lr, s->launch); /* made with s, by the same first access */
    r.psl_split = t ? mh_grp_split(lr->grp) - t->split_at_start : 0;
    /* Sorted distinct keys and their counts of both parts (each part has
     * its own tables and bytes; part 0 is the first-half stage's once split, with c1):
     * with many threads both at once on END_THREADS (mh_lcnt_sorted_two),
     * else part 1's on a helper thread meanwhile, or one after the other. */
    lpart *pb = find_part(&lr->pb, s->launch), *pc = find_part(&lr->pc, s->launch);
    mh_lcnt *c0 = pc ? &pc->cnt : &s->cnt;
    mh_big_cache *t0 = pc ? &lr->pc.tables : &lr->tables;
    size_t *b0 = pc ? &lr->pc.bytes : &lr->bytes;
    kc_seq q;
    memset(&q, 0, sizeof q);
    uint64_t *own = NULL;
    int ok = 1, sorted = 0;
    part_sort j1 = {pb ? &pb->cnt : NULL, &lr->pb.tables, &lr->pb.bytes, NULL, NULL, 0, NULL, MH_OK};
    pthread_t helper;
    if (pb && lr->eval_apart) {
        size_t n = 0;
        int r2 = mh_lcnt_sorted_two(c0, &pb->cnt, t0, b0, &lr->pb.tables, &lr->pb.bytes, END_THREADS, &own, &n);
        if (r2 == MH_ERR_NOMEM) ok = 0;
        else if (r2 == MH_OK) q.k[0] = own, q.c[0] = own + n, q.n[0] = n, sorted = 1;
        /* else a part is not a hash map: one after the other below */
    }
    if (ok && !sorted) {
        int helped = pb && lr->eval_apart && pthread_create(&helper, NULL, part_sort_main, &j1) == 0;
        ok = mh_lcnt_sorted(c0, t0, b0, &q.k[0], &q.c[0], &q.n[0], &own) == MH_OK;
        if (helped) pthread_join(helper, NULL);
        else if (pb) part_sort_main(&j1);
        ok = ok && (!pb || j1.rc == MH_OK);
        if (pb) q.k[1] = j1.keys, q.c[1] = j1.c, q.n[1] = j1.n;
    }
    /* the footprints and the entropies of the sorted keys; with many
     * threads side by side (they write different fields) */
    statics_job sj;
    memset(&sj, 0, sizeof sj);
    sj.q = &q;
    int two = ok && pb && lr->eval_apart && pthread_create(&helper, NULL, statics_main, &sj) == 0;
    if (ok) all_entropies(&r, &q, lr->eval_apart && q.n[0] + q.n[1] >= MH_LCNT_SWITCH);
    if (two) pthread_join(helper, NULL);
    else if (ok) statics_main(&sj);
    ok = ok && sj.rc == MH_OK;
    for (int c = 0; ok && c < MH_LOC_COLS; c++) {
        r.m[c].accesses = sj.r.m[c].accesses;
        r.m[c].footprint = sj.r.m[c].footprint;
        r.m[c].footprint90 = sj.r.m[c].footprint90;
    }
    free(own);
    free(j1.own);
    if (!ok) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    /* Parallel spatial locality: mean over steps per block, then over blocks. */
    for (int c = 0; c < MH_LOC_COLS; c++) {
        double sum[MH_LOC_NBITS] = {0};
        uint32_t blocks = 0;
        uint64_t steps = 0;
        for (size_t bi = 0; t && bi < t->bn; bi++) {
            const psl_acc *p = &t->acc[bi * MH_LOC_COLS + c];
            if (!p->steps) continue;
            blocks++;
            steps += p->steps;
            for (int d = 0; d < MH_LOC_NBITS; d++) sum[d] += p->sum[d] / (double)p->steps;
        }
        r.m[c].psl_blocks = blocks;
        r.m[c].psl_steps = steps;
        for (int d = 0; d < MH_LOC_NBITS; d++) r.m[c].psl[d] = blocks ? sum[d] / blocks : 0;
    }
    uint64_t all = r.m[MH_LOC_TOTAL].accesses;
    r.rel_local = all ? (double)r.m[MH_SPACE_SHARED].accesses / (double)all : 0;
    rc = MH_OK;
    if (lr->o.emit && all) rc = lr->o.emit(lr->o.ctx, &r, err);
    free_ls(lr, s);
    return rc;
}

int mh_loc_run_feed(mh_loc_run *lr, const mh_record *rec, mh_err *err) {
    switch (rec->type) {
    case MH_REC_ALLOC:
    case MH_REC_FREE:
    case MH_REC_LAUNCH:
    case MH_REC_KARG:
        mh_canon_reset(&lr->canon);
        return MH_OK;
    case MH_REC_KERNEL_END: {
        lstate *s = find_ls(lr, rec->u.kernel_end.launch);
        return s ? end_launch(lr, s, err) : MH_OK;
    }
    case MH_REC_ACCESSES:
        break;
    default:
        return MH_OK;
    }
    const mh_access *v = rec->u.accesses.v;
    size_t n = rec->u.accesses.n;
    int rc = mh_loc_run_count(lr, v, n, &lr->own, 0, 0, NULL, err);
    return rc ? rc : mh_loc_run_steps(lr, v, n, &lr->own, 0, 0, err);
}

/* A split launch's part (a seed of the counting stage's, analyses/stage.h) into its
 * lpart in ps: part 1 from its keys and counts, part 0 its table itself
 * (kc, n: freed or taken). */
static int seed_part(lparts *ps, unsigned part, uint32_t launch, uint64_t *kc, size_t n) {
    lpart *b = get_part(ps, launch);
    if (b && part == 0) {
        mh_lcnt_take(&b->cnt, &ps->bytes, (mh_lcnt_ent *)(void *)kc, n);
        return MH_OK;
    }
    int rc = b ? mh_lcnt_seed(&b->cnt, &ps->tables, &ps->bytes, kc, n) : MH_ERR_NOMEM;
    free(kc);
    return rc;
}

int mh_loc_run_count(mh_loc_run *lr, const mh_access *v, size_t n, mh_stage *st, size_t off, size_t rec,
                      const uint64_t *given, mh_err *err) {
    if (mh_stage_room(st, off + n, rec + 1, 0) != 0) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    if (rec == 0) {
        mh_stage_seeds_clear(st);
        st->pn[0] = st->pn[1] = 0;
    }
    st->plists = lr->first_apart;
    if (lr->first_apart && mh_stage_parts_room(st, n, rec + 1) != 0) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    uint64_t *keys = st->key + off;
    st->keys = given ? given : st->key;
    /* (the counter table's misses are overlapped inside mh_lcnt_add) */
    lstate *s = NULL;
    mh_lcnt *b = NULL; /* part 1 of s's counts, where the counting stage counts it (no the second-half stage) */
    const mh_model_launch *ml = NULL;
    for (size_t i = 0; i < n; i++) {
        const mh_access *a = &v[i];
        if (!s || s->launch != a->launch) {
            s = get_ls(lr, a->launch, err);
            if (!s) return MH_ERR_NOMEM;
            ml = mh_model_launch_get(lr->model, a->launch);
            lpart *pb = s->split && !lr->eval_apart ? find_part(&lr->pb, s->launch) : NULL;
            b = pb ? &pb->cnt : NULL;
        }
        uint64_t key = given ? given[off + i] : (keys[i] = mh_canon_key(&lr->canon, ml, a));
        if (MH_CANON_SLOT(key) == MH_CANON_NOOBJ && MH_CANON_SPACE(key) != MH_SPACE_LOCAL) s->unattributed++;
        if (s->split && lr->first_apart) { /* both parts counted by the two half stages, from their lists */
            unsigned p = mh_lcnt_part(key);
            st->pkey[p][st->pn[p]] = key;
            st->plaunch[p][st->pn[p]++] = a->launch;
            continue;
        }
        if (!s->cnt.t) { /* a buffer of keys (few addresses so far): no hash needed */
            if (mh_lcnt_add(&s->cnt, &lr->tables, &lr->bytes, key) != MH_OK)
                return mh_err_set(err, MH_ERR_NOMEM, "out of memory counting addresses");
            continue;
        }
        uint64_t h = mh_lcnt_hash(key); /* once for the part and the slot */
        mh_lcnt *c = &s->cnt;
        mh_big_cache *cache = &lr->tables;
        size_t *bytes = &lr->bytes;
        if (s->split && mh_lcnt_part_h(h)) {
            if (!b) continue; /* the second-half stage's */
            c = b, cache = &lr->pb.tables, bytes = &lr->pb.bytes;
        }
        if (mh_lcnt_hash_defer(c, cache, bytes, key, h) != MH_OK)
            return mh_err_set(err, MH_ERR_NOMEM, "out of memory counting addresses");
    }
    for (size_t i = 0; i < lr->nls; i++) {
        lstate *x = &lr->ls[i];
        if (x->split || !x->cnt.t) continue;
        uint64_t *kc;
        size_t m;
        if (mh_lcnt_split(&x->cnt, &lr->tables, &lr->bytes, &kc, &m) != MH_OK)
            return mh_err_set(err, MH_ERR_NOMEM, "out of memory counting addresses");
        x->split = 1;
        int rc = lr->eval_apart ? (mh_stage_seed_put(st, rec, x->launch, 1, kc, m) ? MH_ERR_NOMEM : MH_OK)
                           : seed_part(&lr->pb, 1, x->launch, kc, m);
        if (rc == MH_OK && lr->first_apart) { /* part 0's table, whole, to the first-half stage */
            mh_lcnt_ent *t;
            mh_lcnt_give(&x->cnt, &lr->bytes, &t, &m);
            rc = mh_stage_seed_put(st, rec, x->launch, 0, (uint64_t *)(void *)t, m) ? MH_ERR_NOMEM : MH_OK;
        }
        if (rc != MH_OK) return mh_err_set(err, MH_ERR_NOMEM, "out of memory counting addresses");
    }
    if (lr->first_apart) {
        st->pend[0][rec] = st->pn[0];
        st->pend[1][rec] = st->pn[1];
    }
    st->bytes[rec] = lr->bytes + (lr->eval_apart ? 0 : lr->pb.bytes);
    return MH_OK;
}

/* Key (hash h) of launch into its part's counts in ps (*b: the launch's,
 * NULL before it is split; *at: the launch *b is of). */
static inline int count_key(lparts *ps, mh_lcnt **b, uint32_t *at, uint32_t launch, uint64_t key, uint64_t h) {
    if (!*b || *at != launch) {
        *at = launch;
        lpart *x = find_part(ps, launch);
        *b = x ? &x->cnt : NULL;
        if (!*b) return MH_OK;
    }
    return mh_lcnt_hash_defer(*b, &ps->tables, &ps->bytes, key, h);
}

/* The second-half stage (part 1, ps = pb) or the first-half stage (part 0, ps = pc) on record rec: the
 * part's keys of the launches split before it (from the part's list where
 * the counting stage made them, else every key tried), then the launches split at its
 * end (the counting stage's seeds of the part). */
static int count_part(lparts *ps, unsigned part, const mh_access *v, size_t n, mh_stage *st, size_t off, size_t rec,
                      mh_err *err) {
    mh_lcnt *b = NULL;
    uint32_t launch = 0;
    int rc = MH_OK;
    if (st->plists) {
        const uint64_t *k = st->pkey[part];
        const uint32_t *l = st->plaunch[part];
        for (size_t j = rec ? st->pend[part][rec - 1] : 0; j < st->pend[part][rec] && rc == MH_OK; j++)
            rc = count_key(ps, &b, &launch, l[j], k[j], mh_lcnt_hash(k[j]));
    } else {
        const uint64_t *keys = st->keys + off;
        for (size_t i = 0; i < n && rc == MH_OK; i++) {
            uint64_t h = mh_lcnt_hash(keys[i]);
            if (mh_lcnt_part_h(h) == part) rc = count_key(ps, &b, &launch, v[i].launch, keys[i], h);
        }
    }
    if (rc != MH_OK) return mh_err_set(err, MH_ERR_NOMEM, "out of memory counting addresses");
    for (size_t i = 0; i < st->nseed; i++) { /* launches split at this record's end */
        mh_stage_seed *sd = &st->seed[i];
        if (sd->rec != rec || sd->part != part || !sd->kc) continue;
        uint64_t *kc = sd->kc;
        sd->kc = NULL;
        if (seed_part(ps, part, sd->launch, kc, sd->n) != MH_OK)
            return mh_err_set(err, MH_ERR_NOMEM, "out of memory counting addresses");
    }
    st->bytes[rec] += ps->bytes;
    return MH_OK;
}

int mh_loc_run_count_second(mh_loc_run *lr, const mh_access *v, size_t n, mh_stage *st, size_t off, size_t rec,
                       mh_err *err) {
    assert(lr->eval_apart);
    return count_part(&lr->pb, 1, v, n, st, off, rec, err);
}

void mh_loc_run_first_apart(mh_loc_run *lr) {
    assert(lr->eval_apart);
    lr->first_apart = 1;
}

int mh_loc_run_count_first(mh_loc_run *lr, const mh_access *v, size_t n, mh_stage *st, size_t off, size_t rec,
                       mh_err *err) {
    assert(lr->first_apart);
    return count_part(&lr->pc, 0, v, n, st, off, rec, err);
}

int mh_loc_run_finish(mh_loc_run *lr, mh_err *err) {
    while (lr->nls) {
        int rc = end_launch(lr, &lr->ls[0], err);
        if (rc) return rc;
    }
    return MH_OK;
}

void mh_loc_run_free(mh_loc_run *lr) {
    if (!lr) return;
    while (lr->nls) free_ls(lr, &lr->ls[0]);
    free_parts(&lr->pb);
    free_parts(&lr->pc);
    while (lr->nst2) mh_loc_steps_free(lr, &lr->st2[0]);
    free(lr->ls);
    free(lr->st2);
    mh_stage_seen_free(&lr->seen);
    mh_stage_free(&lr->own);
    mh_grp_free(lr->grp);
    mh_big_cache_free(&lr->tables);
    free(lr);
}

size_t mh_loc_run_peak_bytes(const mh_loc_run *lr) { return lr->peak; }
