/* locality.c -- AIWC locality metrics (footprint, 90% footprint, address
 * entropy, relative local memory usage, parallel spatial locality), streamed
 * over a trace; definitions in docs/metrics.md, API in memheat/locality.h.
 *
 * Per launch in flight: the access count of every canonical address (the
 * footprint/entropy input; memory = distinct addresses; loccount.c), and per sampled
 * block the running sums of per-step entropies. The accesses of one logical
 * time step (block, seq) are collected by a groupbuf and turned into entropies
 * when the step is complete.
 *
 * Two stages (mh_loc_run_stage1/2, memheat/locality.h), which mh_pass runs
 * on two workers for one big launch: the counts (stage 1: canon, ls, bytes)
 * and the steps (stage 2: grp, st2, bytes2), each with its own per-launch
 * state, put together when the launch ends. */
#include "memheat/locality.h"

#include <assert.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/canon.h"
#include "analyses/groupbuf.h"
#include "analyses/loccount.h"
#include "util/bigmem.h"
#include "util/hash.h"
#include "util/grow.h"

typedef struct psl_acc {
    double sum[MH_LOC_NBITS];
    uint64_t steps;
} psl_acc;

typedef struct blk_ent {
    uint32_t block;
    uint32_t idx; /* 0 = empty, else accumulator row + 1 */
} blk_ent;

typedef struct lstate { /* stage 1's */
    uint32_t launch;
    mh_lcnt cnt;      /* access count per canonical address (loccount.h) */
    uint64_t unattributed;
} lstate;

typedef struct lsteps { /* stage 2's */
    uint32_t launch;
    blk_ent *bt;      /* block -> accumulator row */
    size_t bcap, bn;
    psl_acc *acc;     /* bn rows of MH_LOC_COLS */
    uint64_t split_at_start;
} lsteps;

#define CLOG_N 1024

struct mh_loc_run {
    const mh_model *model;
    mh_loc_opts o;
    mh_canon canon;
    mh_grp *grp;
    lstate *ls;
    size_t nls, capls;
    lsteps *st2;
    size_t nst2, capst2;
    size_t bytes, bytes2, peak; /* stage 1's, stage 2's */
    mh_big_cache tables; /* key and count arrays of ended launches, for the next ones */
    mh_stage own;        /* the hand-over of mh_loc_run_feed */
};

/* The peak at the end of a record, stage 1's memory then being bytes1. */
static void note_bytes(mh_loc_run *lr, size_t bytes1) {
    size_t b = bytes1 + lr->bytes2 + mh_grp_bytes(lr->grp);
    if (b > lr->peak) lr->peak = b;
}

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

static lsteps *find_st2(mh_loc_run *lr, uint32_t launch) {
    for (size_t i = 0; i < lr->nst2; i++)
        if (lr->st2[i].launch == launch) return &lr->st2[i];
    return NULL;
}

static lsteps *get_st2(mh_loc_run *lr, uint32_t launch) {
    lsteps *s = find_st2(lr, launch);
    if (s) return s;
    lsteps *v = mh_grow(lr->st2, &lr->capst2, lr->nst2 + 1, sizeof *v, 4);
    if (!v) return NULL;
    lr->st2 = v;
    s = &lr->st2[lr->nst2++];
    memset(s, 0, sizeof *s);
    s->launch = launch;
    s->split_at_start = mh_grp_split(lr->grp);
    return s;
}

static void free_st2(mh_loc_run *lr, lsteps *s) {
    lr->bytes2 -= s->bcap * sizeof(blk_ent) + s->bcap * MH_LOC_COLS * sizeof(psl_acc);
    free(s->bt);
    free(s->acc);
    size_t i = (size_t)(s - lr->st2);
    lr->st2[i] = lr->st2[--lr->nst2];
}

/* Frees launch s's state of both stages. */
static void free_ls(mh_loc_run *lr, lstate *s) {
    lsteps *t = find_st2(lr, s->launch);
    if (t) free_st2(lr, t);
    mh_lcnt_free(&s->cnt, &lr->tables, &lr->bytes);
    size_t i = (size_t)(s - lr->ls);
    lr->ls[i] = lr->ls[--lr->nls];
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

/* c * log2(c) for small counts, the entropy sums' hot spot: the same
 * expression as the fallback, so the same bits. Filled once, thread-safely. */
static double clog2[CLOG_N];
static pthread_once_t clog2_once = PTHREAD_ONCE_INIT;

static void clog2_init(void) {
    for (unsigned c = 2; c < CLOG_N; c++) clog2[c] = (double)c * log2((double)c);
}

static inline double c_log2_c(double c) { return c < CLOG_N ? clog2[(unsigned)c] : c * log2(c); }

double mh_loc_entropy(const uint64_t *keys, const uint64_t *counts, size_t n, unsigned drop) {
    pthread_once(&clog2_once, clog2_init);
    /* H = log2(N) - (1/N) * sum c log2 c over runs of equal (key >> drop). */
    double total = 0, acc = 0;
    size_t i = 0;
    while (i < n) {
        uint64_t k = keys[i] >> drop;
        double c = 0;
        while (i < n && keys[i] >> drop == k) {
            c += counts ? (double)counts[i] : 1.0;
            i++;
        }
        if (c > 1) acc += c_log2_c(c);
        total += c;
    }
    if (total <= 0) return 0;
    double h = log2(total) - acc / total;
    return h < 0 ? 0 : h;
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
            qsort(v, n, sizeof *v, cmp_u64);
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
            qsort(v, n, sizeof *v, cmp_u64);
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
        if (c[i] > 1) acc += c_log2_c((double)c[i]);
    double h = lt - acc / tot;
    return h < 0 ? 0 : h;
}

/* A complete logical time step of one block: add its entropies. The sorted
 * keys are reduced to runs of equal keys once; each further dropped bit
 * merges neighbouring runs, so the work per level is the number of runs.
 * Keys of different spaces never merge (the space is in the top bits). A
 * step of one space adds the same entropy to its space and to the total:
 * computed once. */
static int step_done(void *ctx, const mh_grp_key *k, mh_grp_entry *v, size_t n, mh_err *err) {
    mh_loc_run *lr = ctx;
    lsteps *s = find_st2(lr, k->launch);
    if (!s || n == 0) return MH_OK;
    psl_acc *row = blk_acc(lr, s, k->block);
    if (!row) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    uint64_t small[512];
    uint64_t *keys = n <= 256 ? small : malloc(2 * n * sizeof *keys);
    if (!keys) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    uint64_t *cnt = keys + (n <= 256 ? 256 : n);
    int sorted = 1;
    keys[0] = v[0].canon;
    for (size_t i = 1; i < n; i++) {
        keys[i] = v[i].canon;
        sorted &= keys[i - 1] <= keys[i];
    }
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
    unsigned seg_sp[MH_SPACE_COUNT];
    double seg_tot[MH_SPACE_COUNT], seg_lt[MH_SPACE_COUNT];
    for (size_t i = 0; i < nr; i++)
        if (!i || MH_CANON_SPACE(keys[i]) != MH_CANON_SPACE(keys[i - 1])) {
            seg_a[nseg] = i;
            seg_sp[nseg] = MH_CANON_SPACE(keys[i]);
            seg_tot[nseg] = 0;
            nseg++;
        }
    seg_a[nseg] = nr;
    for (size_t g = 0; g < nseg; g++) {
        for (size_t i = seg_a[g]; i < seg_a[g + 1]; i++) seg_tot[g] += (double)cnt[i];
        seg_lt[g] = log2(seg_tot[g]);
    }
    double all_tot = (double)n, all_lt = nseg == 1 ? seg_lt[0] : log2(all_tot);
    /* Levels below `next` have the runs of the level last computed (no two
     * neighbouring runs of a segment agree after dropping fewer bits), so the
     * same entropies, added again without merging or summing (a warp's
     * 4-byte words: levels 1 and 2). */
    double h_seg[MH_SPACE_COUNT], h_all = 0;
    unsigned next = 0;
    for (unsigned d = 0; d < MH_LOC_NBITS; d++) {
        if (d < next) {
            if (nseg == 1) {
                row[seg_sp[0]].sum[d] += h_all;
                row[MH_LOC_TOTAL].sum[d] += h_all;
            } else {
                for (size_t g = 0; g < nseg; g++) row[seg_sp[g]].sum[d] += h_seg[g];
                row[MH_LOC_TOTAL].sum[d] += h_all;
            }
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
        if (nseg == 1) { /* the segment is the whole step: seg_tot[0] == n */
            h_all = runs_entropy(cnt, nr, all_tot, all_lt);
            row[seg_sp[0]].sum[d] += h_all;
            row[MH_LOC_TOTAL].sum[d] += h_all;
        } else {
            for (size_t g = 0; g < nseg; g++) {
                h_seg[g] = runs_entropy(cnt + seg_a[g], seg_a[g + 1] - seg_a[g], seg_tot[g], seg_lt[g]);
                row[seg_sp[g]].sum[d] += h_seg[g];
            }
            h_all = runs_entropy(cnt, nr, all_tot, all_lt);
            row[MH_LOC_TOTAL].sum[d] += h_all;
        }
        if (nr == nseg) break; /* one run per space: every further level adds 0 */
        /* the first level at which two neighbouring runs of a segment merge:
         * keys x < y agree after dropping b bits iff b >= bit length of x ^ y */
        next = MH_LOC_NBITS;
        for (size_t g = 0; g < nseg; g++)
            for (size_t i = seg_a[g] + 1; i < seg_a[g + 1]; i++) {
                unsigned b = 64u - (unsigned)__builtin_clzll(keys[i - 1] ^ keys[i]); /* keys differ: xor != 0 */
                if (b < next) next = b;
            }
    }
    for (size_t g = 0; g < nseg; g++) row[seg_sp[g]].steps++;
    row[MH_LOC_TOTAL].steps++;
    if (keys != small) free(keys);
    return MH_OK;
}

int mh_loc_run_new(mh_loc_run **out, const mh_model *m, const mh_loc_opts *o, mh_err *err) {
    mh_loc_run *lr = calloc(1, sizeof *lr);
    if (!lr) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    lr->model = m;
    if (o) lr->o = *o;
    if (!lr->o.group_budget) lr->o.group_budget = (size_t)64 << 20;
    pthread_once(&clog2_once, clog2_init);
    mh_canon_init(&lr->canon, m);
    int rc = mh_grp_new(&lr->grp, lr->o.group_budget, step_done, lr, err);
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

/* Footprint and 90% footprint of n addresses with counts cnt (entropies: fill_entropies). */
static int fill_static(mh_loc_metrics *m, const uint64_t *cnt, size_t n) {
    m->footprint = n;
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++) total += cnt[i];
    m->accesses = total;
    /* fewest addresses covering 90%: take counts from the largest down. A
     * histogram of the counts when they are small, else a sort. */
    uint64_t maxc = 0;
    for (size_t i = 0; i < n; i++)
        if (cnt[i] > maxc) maxc = cnt[i];
    uint64_t run = 0, k = 0;
    uint64_t *hist = maxc <= (UINT64_C(1) << 22) ? calloc(maxc + 1, sizeof *hist) : NULL;
    if (hist) {
        for (size_t i = 0; i < n; i++) hist[cnt[i]]++;
        for (uint64_t c = maxc; c > 0 && run * 10 < total * 9; c--) {
            /* how many addresses of count c are still needed */
            uint64_t need = total * 9 - run * 10, per = c * 10;
            uint64_t take = (need + per - 1) / per;
            if (take > hist[c]) take = hist[c];
            run += take * c;
            k += take;
        }
        free(hist);
    } else {
        uint64_t *scratch = malloc((n ? n : 1) * sizeof *scratch);
        if (!scratch) return MH_ERR_NOMEM;
        memcpy(scratch, cnt, n * sizeof *cnt);
        qsort(scratch, n, sizeof *scratch, cmp_u64_desc);
        while (k < n && run * 10 < total * 9) run += scratch[k++];
        free(scratch);
    }
    m->footprint90 = k;
    return MH_OK;
}

/* H = log2(total) - acc / total, as mh_loc_entropy ends. */
static double entropy_of(double total, double acc) {
    if (total <= 0) return 0;
    double h = log2(total) - acc / total;
    return h < 0 ? 0 : h;
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
static void fill_entropies(mh_loc_result *r, const uint64_t *keys, const uint64_t *cnt, size_t n) {
    enum { L = MH_LOC_NBITS };
    double acc_s[L], acc_t[L];
    uint64_t from[L]; /* running total where each level's open run began */
    for (int d = 0; d < L; d++) acc_s[d] = acc_t[d] = 0, from[d] = 0;
    if (!n) return;
    unsigned sp = MH_CANON_SPACE(keys[0]);
    uint64_t sum = cnt[0], seg_from = 0; /* counts of keys [0, i); of those before the space's first */
    for (size_t i = 1; i <= n; i++) {
        int seg_end = i == n || MH_CANON_SPACE(keys[i]) != sp;
        /* The keys are sorted and distinct, so key i stays in the run of
         * key i - 1 at every level d >= the bit length of their XOR, and
         * starts a new run below it: the same test as comparing key i >> d
         * with the run's own, one level at a time, without the compares. */
        int d0 = L;
        if (!seg_end) {
            uint64_t x = keys[i] ^ keys[i - 1];
            int len = x ? 64 - __builtin_clzll(x) : 0;
            d0 = len < L ? len : L;
        }
        for (int d = 0; d < d0; d++) {
            uint64_t c = sum - from[d];
            if (c > 1) {
                double v = c_log2_c((double)c);
                acc_s[d] += v;
                acc_t[d] += v;
            }
            from[d] = sum;
        }
        if (seg_end) { /* every level's runs add up to the space's accesses */
            for (int d = 0; d < L; d++) {
                r->m[sp].entropy[d] = entropy_of((double)(sum - seg_from), acc_s[d]);
                acc_s[d] = 0;
            }
            seg_from = sum;
            if (i < n) sp = MH_CANON_SPACE(keys[i]);
        }
        if (i < n) sum += cnt[i];
    }
    for (int d = 0; d < L; d++) r->m[MH_LOC_TOTAL].entropy[d] = entropy_of((double)sum, acc_t[d]);
}

static int end_launch(mh_loc_run *lr, lstate *s, mh_err *err) {
    int rc = mh_grp_flush_launch(lr->grp, s->launch, err);
    if (rc) return rc;
    mh_loc_result r;
    memset(&r, 0, sizeof r);
    r.model = lr->model;
    r.launch = mh_model_launch_get(lr->model, s->launch);
    r.unattributed = s->unattributed;
    const lsteps *t = find_st2(lr, s->launch); /* made with s, by the same first access */
    r.psl_split = t ? mh_grp_split(lr->grp) - t->split_at_start : 0;
    /* Sorted distinct keys and their counts. */
    uint64_t *own = NULL;
    const uint64_t *keys, *cnt;
    size_t n;
    if (mh_lcnt_sorted(&s->cnt, &lr->tables, &lr->bytes, &keys, &cnt, &n, &own) != MH_OK)
        return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    int ok = 1;
    size_t a = 0;
    while (a < n && ok) {
        unsigned sp = MH_CANON_SPACE(keys[a]);
        size_t b = a;
        while (b < n && MH_CANON_SPACE(keys[b]) == sp) b++;
        ok = fill_static(&r.m[sp], cnt + a, b - a) == MH_OK;
        if (ok && a == 0 && b == n) r.m[MH_LOC_TOTAL] = r.m[sp]; /* one space: the total is it */
        a = b;
    }
    if (ok && r.m[MH_LOC_TOTAL].footprint != n) ok = fill_static(&r.m[MH_LOC_TOTAL], cnt, n) == MH_OK;
    if (ok) fill_entropies(&r, keys, cnt, n);
    free(own);
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
    int rc = mh_loc_run_stage1(lr, v, n, &lr->own, 0, 0, err);
    return rc ? rc : mh_loc_run_stage2(lr, v, n, &lr->own, 0, 0, err);
}

int mh_loc_run_stage1(mh_loc_run *lr, const mh_access *v, size_t n, mh_stage *st, size_t off, size_t rec,
                      mh_err *err) {
    if (mh_stage_room(st, off + n, rec + 1, 0) != 0) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    uint64_t *keys = st->key + off;
    /* (the counter table's misses are overlapped inside mh_lcnt_add) */
    lstate *s = NULL;
    const mh_model_launch *ml = NULL;
    for (size_t i = 0; i < n; i++) {
        const mh_access *a = &v[i];
        if (!s || s->launch != a->launch) {
            s = get_ls(lr, a->launch, err);
            if (!s) return MH_ERR_NOMEM;
            ml = mh_model_launch_get(lr->model, a->launch);
        }
        uint64_t key = keys[i] = mh_canon_key(&lr->canon, ml, a);
        if (MH_CANON_SLOT(key) == MH_CANON_NOOBJ && MH_CANON_SPACE(key) != MH_SPACE_LOCAL) s->unattributed++;
        if (mh_lcnt_add(&s->cnt, &lr->tables, &lr->bytes, key) != MH_OK)
            return mh_err_set(err, MH_ERR_NOMEM, "out of memory counting addresses");
    }
    st->bytes[rec] = lr->bytes;
    return MH_OK;
}

int mh_loc_run_stage2(mh_loc_run *lr, const mh_access *v, size_t n, const mh_stage *st, size_t off, size_t rec,
                      mh_err *err) {
    lsteps *s = NULL;
    uint32_t tpb = 0; /* threads per block of s's launch: a step is whole when each has added to it */
    for (size_t i = 0; i < n; i++) {
        const mh_access *a = &v[i];
        if (!s || s->launch != a->launch) {
            s = get_st2(lr, a->launch);
            if (!s) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
            const mh_model_launch *ml = mh_model_launch_get(lr->model, a->launch);
            tpb = ml ? ml->threads_per_block : 0;
        }
        mh_grp_key gk;
        mh_grp_key_set(&gk, 0, a->launch, a->block, a->seq, UINT16_MAX, MH_SPACE_COUNT);
        mh_grp_entry ge;
        mh_grp_entry_set(&ge, st->key[off + i], (uint32_t)a->addr, a->thread, a->size, (uint8_t)MH_ACCESS_KIND(a));
        int rc = mh_grp_add(lr->grp, &gk, &ge, 0, tpb, err);
        if (rc) return rc;
    }
    note_bytes(lr, st->bytes[rec]);
    return MH_OK;
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
    while (lr->nst2) free_st2(lr, &lr->st2[0]);
    free(lr->ls);
    free(lr->st2);
    mh_stage_free(&lr->own);
    mh_grp_free(lr->grp);
    mh_big_cache_free(&lr->tables);
    free(lr);
}

size_t mh_loc_run_peak_bytes(const mh_loc_run *lr) { return lr->peak; }
