/* locality_steps.c -- the locality analysis's logical time steps: the
 * accesses of one step (block, seq) gathered by a groupbuf (the steps stage) and,
 * once the step is complete, the entropies of its addresses at every
 * dropped-bit level added to its block's sums (parallel spatial locality,
 * docs/metrics.md); with the evaluation apart (mh_loc_run_eval_apart) the steps are
 * evaluated on a thread of their own (the evaluation stage), in the same order. Shared
 * state in locality_state.h; the counts and a launch's end: locality.c. */
#include "analyses/locality_state.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "util/grow.h"
#include "util/hash.h"
#include "util/sort.h"

/* The peak at the end of a record, the counting stage's memory then being bytes1. */
static void note_bytes(mh_loc_run *lr, size_t bytes1) {
    size_t b = bytes1 + lr->bytes2 + mh_grp_bytes(lr->grp);
    if (b > lr->peak) lr->peak = b;
}

lsteps *mh_loc_steps_find(mh_loc_run *lr, uint32_t launch) {
    for (size_t i = 0; i < lr->nst2; i++)
        if (lr->st2[i].launch == launch) return &lr->st2[i];
    return NULL;
}

/* The steps' state of a launch, made at its first access, when split
 * steps numbered split (mh_grp_split) before it. */
static lsteps *get_st2(mh_loc_run *lr, uint32_t launch, uint64_t split) {
    lsteps *s = mh_loc_steps_find(lr, launch);
    if (s) return s;
    lsteps *v = mh_grow(lr->st2, &lr->capst2, lr->nst2 + 1, sizeof *v, 4);
    if (!v) return NULL;
    lr->st2 = v;
    s = &lr->st2[lr->nst2++];
    memset(s, 0, sizeof *s);
    s->launch = launch;
    s->split_at_start = split;
    return s;
}

void mh_loc_steps_free(mh_loc_run *lr, lsteps *s) {
    lr->bytes2 -= s->bcap * sizeof(blk_ent) + s->bcap * MH_LOC_COLS * sizeof(psl_acc);
    free(s->bt);
    free(s->acc);
    size_t i = (size_t)(s - lr->st2);
    lr->st2[i] = lr->st2[--lr->nst2];
}

/* Accumulator row (MH_LOC_COLS entries) of a block; NULL when out of memory. */
static psl_acc *blk_acc(mh_loc_run *lr, lsteps *s, uint32_t block) {
    if ((s->bn + 1) * 2 > s->bcap) {
        size_t cap = s->bcap ? s->bcap * 2 : 64;
        blk_ent *bt = calloc(cap, sizeof *bt);
        psl_acc *acc = realloc(s->acc, cap * MH_LOC_COLS * sizeof *acc);
        if (!bt || !acc) {
            free(bt);
            if (acc) s->acc = acc;
            return NULL;
        }
        for (size_t i = 0; i < s->bcap; i++) {
            if (!s->bt[i].idx) continue;
            size_t j = mh_mix64(s->bt[i].block) & (cap - 1);
            while (bt[j].idx) j = (j + 1) & (cap - 1);
            bt[j] = s->bt[i];
        }
        lr->bytes2 += (cap - s->bcap) * (sizeof *bt + MH_LOC_COLS * sizeof *acc);
        free(s->bt);
        s->bt = bt;
        s->acc = acc;
        s->bcap = cap;
    }
    size_t j = mh_mix64(block) & (s->bcap - 1);
    while (s->bt[j].idx && s->bt[j].block != block) j = (j + 1) & (s->bcap - 1);
    if (!s->bt[j].idx) {
        s->bt[j].block = block;
        s->bt[j].idx = (uint32_t)++s->bn;
        memset(&s->acc[(s->bn - 1) * MH_LOC_COLS], 0, MH_LOC_COLS * sizeof(psl_acc));
    }
    return &s->acc[(size_t)(s->bt[j].idx - 1) * MH_LOC_COLS];
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void insertion_u64(uint64_t *v, size_t n) {
    for (size_t i = 1; i < n; i++) {
        uint64_t x = v[i];
        size_t j = i;
        while (j && v[j - 1] > x) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = x;
    }
}

/* Sorts a step's keys (typically a block's 256 lanes): quicksort on the
 * values themselves (median of three, insertion sort below 24), with qsort
 * as the fallback when partitions degenerate. Sorting is a total order, so
 * the result is the same as qsort's. */
static void sort_u64(uint64_t *v, size_t n) {
    unsigned depth = 2 * 64;
    while (n > 24) {
        if (depth-- == 0) {
            mh_sort(v, n, sizeof *v, cmp_u64);
            return;
        }
        uint64_t a = v[0], b = v[n / 2], c = v[n - 1];
        uint64_t piv = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
        size_t i = 0, j = n - 1;
        for (;;) { /* Hoare partition */
            while (v[i] < piv) i++;
            while (v[j] > piv) j--;
            if (i >= j) break;
            uint64_t t = v[i];
            v[i] = v[j];
            v[j] = t;
            i++;
            j--;
        }
        /* [0, j] <= piv <= [j + 1, n): recurse into the smaller side */
        size_t left = j + 1;
        if (left >= n) { /* no progress (cannot happen with a median pivot): let qsort finish */
            mh_sort(v, n, sizeof *v, cmp_u64);
            return;
        }
        if (left < n - left) {
            sort_u64(v, left);
            v += left;
            n -= left;
        } else {
            sort_u64(v + left, n - left);
            n = left;
        }
    }
    insertion_u64(v, n);
}

/* Entropy of run counts c[0..n) summing to tot; lt = log2(tot). */
static double runs_entropy(const uint64_t *c, size_t n, double tot, double lt) {
    if (n <= 1 || tot <= 0) return 0;
    double acc = 0;
    for (size_t i = 0; i < n; i++)
        if (c[i] > 1) acc += mh_loc_c_log2_c((double)c[i]);
    double h = lt - acc / tot;
    return h < 0 ? 0 : h;
}

/* A step's entropies at every dropped-bit level, before they are added to
 * its block's sums: per level d < nlev, each space segment's (hseg, where
 * the step has several spaces) and the step's own (hall); the levels from
 * nlev on add nothing. Computed apart from the adding (step_eval_keys,
 * step_add) so that the helper stage can compute them on another thread. */
typedef struct step_res {
    double hseg[MH_LOC_NBITS][MH_SPACE_COUNT];
    double hall[MH_LOC_NBITS];
    uint8_t nseg, nlev, done; /* done: the helper stage evaluated the step */
    uint8_t sp[MH_SPACE_COUNT];
} step_res;

/* A complete logical time step of one block: its entropies. The sorted
 * keys are reduced to runs of equal keys once; each further dropped bit
 * merges neighbouring runs, so the work per level is the number of runs.
 * Keys of different spaces never merge (the space is in the top bits). A
 * step of one space adds the same entropy to its space and to the total:
 * computed once. Sorts keys in place. 0, or -1 without memory. */
static int step_eval_keys(uint64_t *keys, size_t n, step_res *r) {
    uint64_t small[256];
    uint64_t *cnt = n <= 256 ? small : malloc(n * sizeof *cnt);
    if (!cnt) return -1;
    int sorted = 1;
    for (size_t i = 1; i < n; i++) sorted &= keys[i - 1] <= keys[i];
    if (!sorted) sort_u64(keys, n); /* often sorted already: a warp's lanes in address order */
    size_t nr = 0;
    for (size_t i = 0; i < n; i++) {
        if (nr && keys[nr - 1] == keys[i]) {
            cnt[nr - 1]++;
        } else {
            keys[nr] = keys[i];
            cnt[nr++] = 1;
        }
    }
    /* per-space segments of the runs (fixed across levels: spaces never merge) */
    size_t seg_a[MH_SPACE_COUNT + 1], nseg = 0;
    double seg_tot[MH_SPACE_COUNT], seg_lt[MH_SPACE_COUNT];
    for (size_t i = 0; i < nr; i++)
        if (!i || MH_CANON_SPACE(keys[i]) != MH_CANON_SPACE(keys[i - 1])) {
            seg_a[nseg] = i;
            r->sp[nseg] = (uint8_t)MH_CANON_SPACE(keys[i]);
            seg_tot[nseg] = 0;
            nseg++;
        }
    seg_a[nseg] = nr;
    r->nseg = (uint8_t)nseg;
    for (size_t g = 0; g < nseg; g++) {
        uint64_t t = 0; /* integers: the same sum as adding them as doubles (exact below 2^53), without the latency */
        for (size_t i = seg_a[g]; i < seg_a[g + 1]; i++) t += cnt[i];
        seg_tot[g] = (double)t;
        seg_lt[g] = log2(seg_tot[g]);
    }
    double all_tot = (double)n, all_lt = nseg == 1 ? seg_lt[0] : log2(all_tot);
    /* Levels below `next` have the runs of the level last computed (no two
     * neighbouring runs of a segment agree after dropping fewer bits), so the
     * same entropies again, without merging or summing (a warp's 4-byte
     * words: levels 1 and 2). */
    unsigned next = 0;
    r->nlev = MH_LOC_NBITS;
    for (unsigned d = 0; d < MH_LOC_NBITS; d++) {
        if (d < next) {
            r->hall[d] = r->hall[d - 1];
            for (size_t g = 0; nseg > 1 && g < nseg; g++) r->hseg[d][g] = r->hseg[d - 1][g];
            continue;
        }
        if (d) { /* merge runs whose keys agree after dropping d bits, segment by segment */
            size_t w = 0;
            for (size_t g = 0; g < nseg; g++) {
                size_t a = seg_a[g], b = seg_a[g + 1];
                seg_a[g] = w;
                for (size_t i = a; i < b; i++) {
                    if (w > seg_a[g] && keys[w - 1] >> d == keys[i] >> d) {
                        cnt[w - 1] += cnt[i];
                    } else {
                        keys[w] = keys[i];
                        cnt[w++] = cnt[i];
                    }
                }
            }
            seg_a[nseg] = nr = w;
        }
        for (size_t g = 0; nseg > 1 && g < nseg; g++) /* one segment: it is the whole step */
            r->hseg[d][g] = runs_entropy(cnt + seg_a[g], seg_a[g + 1] - seg_a[g], seg_tot[g], seg_lt[g]);
        r->hall[d] = runs_entropy(cnt, nr, all_tot, all_lt);
        if (nr == nseg) { /* one run per space: every further level adds 0 */
            r->nlev = (uint8_t)(d + 1);
            break;
        }
        /* the first level at which two neighbouring runs of a segment merge:
         * keys x < y agree after dropping b bits iff b >= bit length of x ^ y */
        next = MH_LOC_NBITS;
        for (size_t g = 0; g < nseg; g++)
            for (size_t i = seg_a[g] + 1; i < seg_a[g + 1]; i++) {
                unsigned b = 64u - (unsigned)__builtin_clzll(keys[i - 1] ^ keys[i]); /* keys differ: xor != 0 */
                if (b < next) next = b;
            }
    }
    if (cnt != small) free(cnt);
    return 0;
}

/* A step's entropies added to its block's row (row[space], row[total]), in
 * the order the one-thread run adds them: per level, the segments', then
 * the step's. */
static void step_add(psl_acc *row, const step_res *r) {
    for (unsigned d = 0; d < r->nlev; d++) {
        if (r->nseg == 1) {
            row[r->sp[0]].sum[d] += r->hall[d];
        } else {
            for (unsigned g = 0; g < r->nseg; g++) row[r->sp[g]].sum[d] += r->hseg[d][g];
        }
        row[MH_LOC_TOTAL].sum[d] += r->hall[d];
    }
    for (unsigned g = 0; g < r->nseg; g++) row[r->sp[g]].steps++;
    row[MH_LOC_TOTAL].steps++;
}

/* A step added to its launch's sums: r its evaluation, or NULL: evaluated
 * here from its keys. */
static int step_keys(mh_loc_run *lr, const mh_grp_key *k, uint64_t *keys, size_t n, const step_res *r,
                     mh_err *err) {
    lsteps *s = mh_loc_steps_find(lr, k->launch);
    if (!s || n == 0) return MH_OK;
    psl_acc *row = blk_acc(lr, s, k->block);
    if (!row) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    step_res own;
    if (!r) {
        if (step_eval_keys(keys, n, &own) != 0) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
        r = &own;
    }
    step_add(row, r);
    return MH_OK;
}

/* step_keys of a step's entries (the one- and two-stage runs). */
static int step_eval(mh_loc_run *lr, const mh_grp_key *k, const mh_grp_entry *v, size_t n, mh_err *err) {
    uint64_t small[256];
    uint64_t *keys = n <= 256 ? small : malloc(n * sizeof *keys);
    if (!keys) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) keys[i] = v[i].canon;
    int rc = step_keys(lr, k, keys, n, NULL, err);
    if (keys != small) free(keys);
    return rc;
}

/* The group buffer's hand-over: evaluated, or (the steps stage, the evaluation apart) put into
 * the batch's hand-over for the evaluation stage. */
int mh_loc_step_done(void *ctx, const mh_grp_key *k, mh_grp_entry *v, size_t n, mh_err *err) {
    mh_loc_run *lr = ctx;
    if (!lr->defer) return step_eval(lr, k, v, n, err);
    /* a step needs its keys alone: half an entry's bytes to hand over and read back */
    if (mh_stage_group_put_keys(lr->defer, k, v, n) != 0) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    return MH_OK;
}

int mh_loc_run_steps(mh_loc_run *lr, const mh_access *v, size_t n, mh_stage *st, size_t off, size_t rec,
                      mh_err *err) {
    if (lr->eval_apart) {
        if (rec == 0) mh_stage_groups_clear(st);
        lr->defer = st;
    }
    uint32_t launch = 0;
    int have = 0;
    uint32_t tpb = 0; /* threads per block of the launch: a step is whole when each has added to it */
    int rc = MH_OK;
    enum { RUN = 64 };
    mh_grp_entry ge[RUN];
    for (size_t i = 0, j; i < n && rc == MH_OK; i = j) {
        const mh_access *a = &v[i];
        if (!have || launch != a->launch) {
            launch = a->launch;
            have = 1;
            /* the evaluation apart: a mark ahead of the launch's steps, for the evaluation stage to make its state as get_st2 does here */
            if (lr->eval_apart ? mh_stage_seen_mark(&lr->seen, st, launch, mh_grp_split(lr->grp)) != 0
                          : !get_st2(lr, launch, mh_grp_split(lr->grp))) {
                rc = mh_err_set(err, MH_ERR_NOMEM, "out of memory");
                break;
            }
            const mh_model_launch *ml = mh_model_launch_get(lr->model, launch);
            tpb = ml ? ml->threads_per_block : 0;
        }
        /* the accesses of one step that follow each other (a warp's lanes) go in at once */
        for (j = i; j < n && j - i < RUN && v[j].launch == a->launch && v[j].block == a->block && v[j].seq == a->seq; j++)
            mh_grp_entry_set(&ge[j - i], st->keys[off + j], (uint32_t)v[j].addr, v[j].thread, v[j].size,
                             (uint8_t)MH_ACCESS_KIND(&v[j]));
        mh_grp_key gk;
        mh_grp_key_set(&gk, 0, a->launch, a->block, a->seq, UINT16_MAX, MH_SPACE_COUNT);
        rc = mh_grp_add_run(lr->grp, &gk, ge, (uint32_t)(j - i), 0, tpb, err);
    }
    if (!lr->eval_apart) {
        if (rc == MH_OK) note_bytes(lr, st->bytes[rec]);
        return rc;
    }
    lr->defer = NULL;
    if (rc == MH_OK && mh_stage_record_done(st, rec, st->bytes[rec] + mh_grp_bytes(lr->grp)) != 0)
        rc = mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    return rc;
}

void mh_loc_run_eval_apart(mh_loc_run *lr) { lr->eval_apart = 1; }

void mh_loc_run_helpers(mh_loc_run *lr) { lr->helpers = 1; }

/* The evaluation stage: record rec's groups in order: a step added (evaluated here, or
 * by the helper stage), or a launch's mark (split count in pc). */
int mh_loc_run_eval(mh_loc_run *lr, mh_stage *st, size_t rec, mh_err *err) {
    assert(lr->eval_apart);
    size_t g0, g1;
    mh_stage_record_groups(st, rec, &g0, &g1);
    for (size_t g = g0; g < g1; g++) {
        const mh_grp_key *k = &st->gkey[g];
        size_t a = mh_stage_group_start(st, g), n = st->gend[g] - a;
        int rc;
        if (n == 0) {
            rc = get_st2(lr, k->launch, k->pc) ? MH_OK : mh_err_set(err, MH_ERR_NOMEM, "out of memory");
        } else {
            const step_res *r = lr->helpers && MH_STAGE_HELPED(g) ? mh_stage_eval(st, g, sizeof *r) : NULL;
            rc = step_keys(lr, k, st->gcanon + a, n, r && r->done ? r : NULL, err);
        }
        if (rc) return rc;
    }
    size_t b = st->rbytes[rec] + lr->bytes2;
    if (b > lr->peak) lr->peak = b;
    return MH_OK;
}

/* The helper stage: the steps of record rec that the evaluation stage leaves to it evaluated
 * into the hand-over (reads nothing of lr's: the evaluation stage runs beside it). A
 * step it could not evaluate (no memory) the evaluation stage evaluates. */
int mh_loc_run_help(const mh_loc_run *lr, mh_stage *st, size_t rec, mh_err *err) {
    (void)lr;
    size_t g0, g1;
    mh_stage_record_groups(st, rec, &g0, &g1);
    if (g1 > g0 && !mh_stage_eval_room(st, g1, sizeof(step_res)))
        return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    for (size_t g = g0; g < g1; g++) {
        if (!MH_STAGE_HELPED(g)) continue;
        step_res *r = mh_stage_eval(st, g, sizeof *r);
        size_t a = mh_stage_group_start(st, g), n = st->gend[g] - a;
        r->done = n > 0 && step_eval_keys(st->gcanon + a, n, r) == 0;
    }
    return MH_OK;
}
