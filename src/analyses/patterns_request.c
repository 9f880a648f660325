/* patterns_request.c -- the pattern analysis's warp requests: each one
 * evaluated (sectors touched and needed, bytes, the dominant lane stride;
 * a shared-memory one's bank cost) and added to its pc's statistics in
 * request order; on the threaded pass, the evaluation stage (the adding, in order) and
 * the helper stage (every other request evaluated ahead of it). Split out of
 * patterns.c, which passed 800 lines; shared types in patterns_state.h. */
#include "analyses/patterns_state.h"
#include "util/sort.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#define div_by mh_pat_div
#define mod_by mh_pat_mod

static int cmp_slot_thread(const void *a, const void *b) {
    const mh_grp_entry *x = a, *y = b;
    uint64_t sx = MH_CANON_SLOT(x->canon), sy = MH_CANON_SLOT(y->canon);
    if (sx != sy) return sx < sy ? -1 : 1;
    return (x->thread > y->thread) - (x->thread < y->thread);
}

/* Insertion sort for the small arrays of one warp request (<= a few hundred
 * elements, usually 32): cheaper than qsort's indirect calls. */
#define MH_ISORT(T, v, n, LESS)                       \
    do {                                              \
        for (size_t i_ = 1; i_ < (n); i_++) {         \
            T x_ = (v)[i_];                           \
            size_t j_ = i_;                           \
            while (j_ && LESS(x_, (v)[j_ - 1])) {     \
                (v)[j_] = (v)[j_ - 1];                \
                j_--;                                 \
            }                                         \
            (v)[j_] = x_;                             \
        }                                             \
    } while (0)
#define LT_NUM(a, b) ((a) < (b))
#define LT_IVL(a, b) ((a).lo < (b).lo)
#define LT_ENT(a, b) (cmp_slot_thread(&(a), &(b)) < 0)

typedef struct ivl {
    uint64_t lo, hi;
} ivl;


/* One warp-level request to one object in global memory, evaluated: what
 * request_part_add adds to the object's pc statistics. */
typedef struct req_part {
    int64_t obj;
    uint64_t sectors, ideal, excess, bytes, ex_off;
    uint32_t lines, ideal_lines; /* 128-byte lines touched, and needed when packed (the L1 wavefronts) */
    int64_t mode;  /* dominant lane-to-lane stride, INT64_MIN: none */
    size_t modec, nd, n;
    uint32_t esz;
    uint8_t kind;
} req_part;

/* A warp request evaluated (request_pre): a shared-memory one's bank cost,
 * or a global one's parts (one per object, in slot order); done: set. */
#define REQ_PARTS 2
typedef struct req_res {
    uint8_t done, nparts;
    uint8_t kind;
    int64_t obj;
    mh_bank_cost cost;
    req_part part[REQ_PARTS];
} req_res;

/* The part of a global request (entries sorted by thread) to one object. */
static void request_part_eval(const mh_pat_run *pr, const mh_grp_entry *v, size_t n, req_part *q) {
    enum { MAXL = 64 };
    if (n > MAXL) n = MAXL; /* warps wider than 64 lanes: first 64 */
    uint32_t ws = warp_size(pr), ss = sector_size(pr);
    /* sectors touched (by raw address) and bytes needed (by object offset) */
    uint64_t sec[MAXL * 4];
    size_t nsec = 0;
    ivl iv[MAXL];
    for (size_t i = 0; i < n; i++) {
        uint32_t sz = v[i].size ? v[i].size : 1;
        uint64_t lo = v[i].raw_lo, hi = lo + sz - 1;
        for (uint64_t t = div_by(lo, ss), te = div_by(hi, ss); t <= te && nsec < MAXL * 4; t++) sec[nsec++] = t;
        iv[i].lo = MH_CANON_OFF(v[i].canon);
        iv[i].hi = iv[i].lo + sz;
    }
    MH_ISORT(uint64_t, sec, nsec, LT_NUM);
    uint64_t sectors = 0, lines = 0;
    for (size_t i = 0; i < nsec; i++) {
        if (!i || sec[i] != sec[i - 1]) sectors++;
        if (!i || sec[i] / MH_PAT_LINE_SECTORS != sec[i - 1] / MH_PAT_LINE_SECTORS) lines++;
    }
    MH_ISORT(ivl, iv, n, LT_IVL);
    uint64_t bytes = 0, cur_lo = iv[0].lo, cur_hi = iv[0].hi;
    for (size_t i = 1; i < n; i++) {
        if (iv[i].lo <= cur_hi) {
            if (iv[i].hi > cur_hi) cur_hi = iv[i].hi;
        } else {
            bytes += cur_hi - cur_lo;
            cur_lo = iv[i].lo;
            cur_hi = iv[i].hi;
        }
    }
    bytes += cur_hi - cur_lo;
    uint64_t ideal = (bytes + ss - 1) / ss, ideal_lines = (bytes + ss * MH_PAT_LINE_SECTORS - 1) / (ss * MH_PAT_LINE_SECTORS);
    if (ideal > sectors) ideal = sectors;
    if (ideal_lines > lines) ideal_lines = lines;
    /* dominant lane-to-lane stride */
    int64_t d[MAXL];
    size_t nd = 0;
    for (size_t i = 1; i < n; i++) {
        int64_t dl = (int64_t)mod_by(v[i].thread, ws) - (int64_t)mod_by(v[i - 1].thread, ws);
        int64_t doff = (int64_t)MH_CANON_OFF(v[i].canon) - (int64_t)MH_CANON_OFF(v[i - 1].canon);
        if (dl <= 0) continue;
        d[nd++] = dl == 1 ? doff : (doff % dl == 0) ? doff / dl : INT64_MIN; /* neighbour lanes: no division */
    }
    int64_t mode = INT64_MIN;
    size_t modec = 0;
    if (nd) {
        MH_ISORT(int64_t, d, nd, LT_NUM);
        for (size_t i = 0; i < nd;) {
            size_t j = i;
            while (j < nd && d[j] == d[i]) j++;
            if (j - i > modec && d[i] != INT64_MIN) {
                modec = j - i;
                mode = d[i];
            }
            i = j;
        }
    }
    q->obj = MH_CANON_OBJ(v[0].canon);
    q->sectors = sectors;
    q->ideal = ideal;
    q->lines = (uint32_t)lines;
    q->ideal_lines = (uint32_t)ideal_lines;
    q->excess = sectors - ideal;
    q->bytes = bytes;
    q->ex_off = MH_CANON_OFF(v[0].canon);
    q->mode = mode;
    q->modec = modec;
    q->nd = nd;
    q->n = n;
    q->esz = v[0].size ? v[0].size : 1;
    q->kind = v[0].kind;
}

/* A global request's part added to its pc's statistics, in request order. */
static int request_part_add(mh_pat_run *pr, pstate *s, const mh_grp_key *k, const req_part *q) {
    pcstat *p = mh_pat_get_pc(pr, s, k->space, q->obj, k->pc);
    if (!p) return MH_ERR_NOMEM;
    uint32_t ss = sector_size(pr), esz = q->esz;
    uint64_t excess = q->excess;
    int64_t mode = q->mode;
    p->requests++;
    p->lanes += q->n;
    p->sectors += q->sectors;
    p->ideal += q->ideal;
    p->lines += q->lines;
    p->ideal_lines += q->ideal_lines;
    if (!p->elem_size) p->elem_size = esz;
    if (p->requests == 1) p->kind = q->kind;
    if (q->n >= 2) {
        int regular = mode != INT64_MIN && q->modec * 2 >= q->nd;
        if (regular && mode == 0) {
            p->broadcast++;
        } else if (regular && (uint64_t)llabs(mode) == esz) {
            p->contig++;
            if (q->bytes < ss) p->contig_small++;
            if (excess) {
                p->misaligned++;
                p->excess_mis += excess;
            }
        } else if (regular && (uint64_t)llabs(mode) > esz) {
            p->strided++;
            p->excess_strided += excess;
            mh_pat_vote(&p->stride_cand, &p->stride_cnt, mode);
        } else {
            p->irregular++;
            p->excess_irreg += excess;
        }
    }
    if (p->requests == 1 || excess) {
        p->ex_block = k->block;
        p->ex_warp = k->warp;
        p->ex_occ = k->seq;
        p->ex_off = q->ex_off;
    }
    return MH_OK;
}

/* A shared-memory request's bank cost (its first 64 lanes). */
static mh_bank_cost shared_cost(const mh_pat_run *pr, const mh_grp_entry *v, size_t n) {
    enum { MAXL = 64 };
    uint64_t a[MAXL];
    uint32_t sz[MAXL], lane[MAXL];
    size_t m = n < MAXL ? n : MAXL;
    uint32_t ws = warp_size(pr);
    for (size_t i = 0; i < m; i++) {
        a[i] = v[i].raw_lo;
        sz[i] = v[i].size;
        lane[i] = mod_by(v[i].thread, ws);
    }
    return mh_bank_cost_of(a, sz, lane, m, ws);
}

/* A global request's entries in slot, then thread order. */
static void sort_global(mh_grp_entry *v, size_t n) {
    if (n <= 64) MH_ISORT(mh_grp_entry, v, n, LT_ENT);
    else mh_sort(v, n, sizeof *v, cmp_slot_thread);
}

static int request_eval(mh_pat_run *pr, const mh_grp_key *k, mh_grp_entry *v, size_t n, mh_err *err) {
    pstate *s = mh_pat_find_ps(pr, k->launch);
    if (!s || !n) return MH_OK;
    if (k->space == MH_SPACE_SHARED)
        return mh_bank_add(&pr->banks, k->launch, k->pc, MH_CANON_OBJ(v[0].canon), v[0].kind, shared_cost(pr, v, n),
                           k->block, k->warp, k->seq, err);
    if (k->space != MH_SPACE_GLOBAL) return MH_OK;
    sort_global(v, n);
    size_t a = 0;
    while (a < n) {
        size_t b = a;
        while (b < n && MH_CANON_SLOT(v[b].canon) == MH_CANON_SLOT(v[a].canon)) b++;
        req_part q;
        request_part_eval(pr, v + a, b - a, &q);
        if (request_part_add(pr, s, k, &q) != MH_OK) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
        a = b;
    }
    return MH_OK;
}

/* request_eval's evaluation alone, into r (the helper stage): r->done stays 0 for
 * a request of more objects than r holds (the evaluation stage evaluates it). Sorts v
 * as request_eval does (sorting it again there changes nothing). */
static void request_pre(const mh_pat_run *pr, const mh_grp_key *k, mh_grp_entry *v, size_t n, req_res *r) {
    r->done = 0;
    r->nparts = 0;
    if (!n) return;
    if (k->space == MH_SPACE_SHARED) {
        r->obj = MH_CANON_OBJ(v[0].canon);
        r->kind = v[0].kind;
        r->cost = shared_cost(pr, v, n);
        r->done = 1;
        return;
    }
    if (k->space == MH_SPACE_GLOBAL) {
        sort_global(v, n);
        for (size_t a = 0, b; a < n; a = b) {
            for (b = a; b < n && MH_CANON_SLOT(v[b].canon) == MH_CANON_SLOT(v[a].canon); b++) {}
            if (r->nparts == REQ_PARTS) return;
            request_part_eval(pr, v + a, b - a, &r->part[r->nparts++]);
        }
    }
    r->done = 1;
}

/* A request evaluated by request_pre added, as request_eval adds it. */
static int request_apply(mh_pat_run *pr, const mh_grp_key *k, const req_res *r, mh_err *err) {
    pstate *s = mh_pat_find_ps(pr, k->launch);
    if (!s) return MH_OK;
    if (k->space == MH_SPACE_SHARED)
        return mh_bank_add(&pr->banks, k->launch, k->pc, r->obj, r->kind, r->cost, k->block, k->warp, k->seq, err);
    for (unsigned i = 0; i < r->nparts; i++)
        if (request_part_add(pr, s, k, &r->part[i]) != MH_OK) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    return MH_OK;
}

/* The group buffer's hand-over: evaluated, or (the grouping stage, the evaluation apart) put into
 * the batch's hand-over for the evaluation stage. */
int mh_pat_request_done(void *ctx, const mh_grp_key *k, mh_grp_entry *v, size_t n, mh_err *err) {
    mh_pat_run *pr = ctx;
    if (!pr->defer) return request_eval(pr, k, v, n, err);
    if (mh_stage_group_put(pr->defer, k, v, n) != 0) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    return MH_OK;
}

void mh_pat_run_helpers(mh_pat_run *pr) { pr->helpers = 1; }

/* The evaluation stage: record rec's groups in order: a warp request evaluated (here,
 * or by the helper stage) and added, or a launch's mark. */
int mh_pat_run_eval(mh_pat_run *pr, mh_stage *st, size_t rec, mh_err *err) {
    assert(pr->eval_apart);
    size_t g0, g1;
    mh_stage_record_groups(st, rec, &g0, &g1);
    for (size_t g = g0; g < g1; g++) {
        const mh_grp_key *k = &st->gkey[g];
        size_t a = mh_stage_group_start(st, g), n = st->gend[g] - a;
        const req_res *r = pr->helpers && MH_STAGE_HELPED(g) && n ? mh_stage_eval(st, g, sizeof *r) : NULL;
        int rc;
        if (n == 0) rc = mh_pat_get_ps(pr, k->launch) ? MH_OK : mh_err_set(err, MH_ERR_NOMEM, "out of memory");
        else if (r && r->done) rc = request_apply(pr, k, r, err);
        else rc = request_eval(pr, k, st->gent + a, n, err);
        if (rc) return rc;
    }
    size_t b = pr->bytes + st->rbytes[rec];
    if (b > pr->peak) pr->peak = b;
    return MH_OK;
}

/* The helper stage: the requests of record rec that the evaluation stage leaves to it
 * evaluated into the hand-over (reads only pr's constants: the evaluation stage runs
 * beside it). */
int mh_pat_run_help(const mh_pat_run *pr, mh_stage *st, size_t rec, mh_err *err) {
    size_t g0, g1;
    mh_stage_record_groups(st, rec, &g0, &g1);
    if (g1 > g0 && !mh_stage_eval_room(st, g1, sizeof(req_res))) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    for (size_t g = g0; g < g1; g++) {
        if (!MH_STAGE_HELPED(g)) continue;
        size_t a = mh_stage_group_start(st, g);
        request_pre(pr, &st->gkey[g], st->gent + a, st->gend[g] - a, mh_stage_eval(st, g, sizeof(req_res)));
    }
    return MH_OK;
}
