/* atomics.c -- atomic contention: per launch, pc and object, the atomic
 * operations, how many distinct addresses each warp request hits and how
 * many lanes and warps land on one address (the serialisation degree);
 * a finding where the operations pile up on few addresses. A row of the
 * pass (analysis.h: this file and its line in src/pass/table.c are the
 * whole analysis).
 *
 * Atomics on one address are performed one after another (by the L2 slice
 * that holds it for global memory, by the shared-memory unit for shared),
 * so a histogram whose every update is an atomicAdd on a few hundred bins
 * waits on those bins; its heat map looks like a hot spot (many warps on a
 * few words), but the cause is the serialisation, and the fix is fewer
 * atomics on each address: per-block privatisation in shared memory, or
 * aggregating a warp's updates of one address first. The pattern analysis
 * leaves such sectors to this one (patterns_classify.c).
 *
 * A warp request is the lanes of one warp at one execution of one atomic
 * instruction (occur.h, groupbuf.h, as the pattern analysis groups loads and
 * stores). Per request and object: lanes, distinct addresses, the most
 * lanes on one address (the request's degree: its lanes' updates of one
 * address are serialised). Per launch and address: the operations and the
 * warps that hit it (exact up to 64 sampled warps, a lower bound beyond),
 * for at most MAX_ADDRS addresses per launch (the operations on further
 * addresses are counted, their addresses not). Thresholds: docs/metrics.md.
 *
 * The serial chain of global atomics (bench/atomics, measured on an H200):
 * the L2 performs a request's atomics on one 128-byte line as one
 * transaction, in as many steps as the most lanes on one word position
 * (byte offset / 4 mod 8: the same word of the line's four sectors shares
 * one); transactions on the lines of one 512-byte group run one after
 * another, groups side by side. A finding's cost for global memory is that
 * chain: the steps of every request, summed, over the groups the atomics
 * touch (an even spread assumed); docs/report.md turns it into time. */
#include <assert.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/analysis.h"
#include "analyses/canon.h"
#include "analyses/finding.h"
#include "analyses/groupbuf.h"
#include "analyses/occur.h"
#include "util/grow.h"
#include "util/hash.h"
#include "util/sort.h"

#define MAX_ADDRS (1u << 16)      /* addresses counted per launch */
#define ATOM_MIN_OPS 32           /* a finding needs at least this many operations on the object, */
#define ATOM_OPS_PER_ADDR 4       /* at least this many per address on average, */
#define ATOM_MIN_SHARERS 2        /* and the hottest address shared by this many warps, or lanes of one request */
#define DEFAULT_BUDGET ((size_t)64 << 20)

/* One (launch, space, object, pc): kept after its launch (the JSON table). */
typedef struct mh_atom_pc {
    uint32_t launch;
    unsigned space;
    int64_t obj;
    uint64_t pc;
    uint64_t ops;        /* lane operations */
    uint64_t requests;   /* warp requests */
    uint64_t distinct;   /* distinct addresses, summed over the requests */
    uint64_t degree_sum; /* the most lanes on one address, summed over the requests */
    uint64_t serial;     /* the requests' serial operations at L2 (serial_ops), summed */
    uint32_t degree_max;
    uint32_t size;       /* bytes per operation (the first request's) */
} mh_atom_pc;

typedef struct addr_slot {
    uint64_t canon; /* 0 = empty (a canonical key is never 0 for global or shared memory) */
    uint64_t ops;
    uint64_t warps; /* bit (global warp % 64) */
} addr_slot;

typedef struct alaunch {
    uint32_t launch;
    size_t pc0;      /* its first entry of the run's table */
    addr_slot *addr; /* open addressing */
    size_t naddr, capaddr;
    uint64_t untracked; /* operations on addresses past MAX_ADDRS */
} alaunch;

typedef struct mh_atom_run {
    const mh_model *model;
    size_t budget;
    mh_canon canon;
    mh_occ *occ;  /* made at the first atomic */
    mh_grp *grp;
    alaunch *al;  /* launches with atomics in flight */
    size_t nal, capal;
    mh_atom_pc *pcs; /* every launch's, by launch (then pc, space, object) once it ended */
    size_t npcs, cappcs;
    mh_pat_finding *f;
    size_t nf, capf;
    size_t bytes, peak;
    uint64_t split; /* merged runs' requests split by the budget */
} mh_atom_run;

static void note(mh_atom_run *ar) {
    size_t b = ar->bytes + (ar->grp ? mh_grp_bytes(ar->grp) : 0) + (ar->occ ? mh_occ_bytes(ar->occ) : 0);
    if (b > ar->peak) ar->peak = b;
}

static alaunch *find_launch(mh_atom_run *ar, uint32_t launch) {
    for (size_t i = 0; i < ar->nal; i++)
        if (ar->al[i].launch == launch) return &ar->al[i];
    return NULL;
}

static alaunch *get_launch(mh_atom_run *ar, uint32_t launch) {
    alaunch *l = find_launch(ar, launch);
    if (l) return l;
    size_t cap = ar->capal;
    alaunch *v = mh_grow(ar->al, &cap, ar->nal + 1, sizeof *v, 4);
    if (!v) return NULL;
    ar->bytes += (cap - ar->capal) * sizeof *v;
    ar->capal = cap;
    ar->al = v;
    l = &ar->al[ar->nal++];
    memset(l, 0, sizeof *l);
    l->launch = launch;
    l->pc0 = ar->npcs;
    return l;
}

/* The launch's entry of (space, obj, pc), made if new; NULL without memory. */
static mh_atom_pc *get_pc(mh_atom_run *ar, const alaunch *l, unsigned space, int64_t obj, uint64_t pc) {
    for (size_t i = ar->npcs; i-- > l->pc0;) {
        mh_atom_pc *p = &ar->pcs[i];
        if (p->launch == l->launch && p->pc == pc && p->obj == obj && p->space == space) return p;
    }
    size_t cap = ar->cappcs;
    mh_atom_pc *v = mh_grow(ar->pcs, &cap, ar->npcs + 1, sizeof *v, 16);
    if (!v) return NULL;
    ar->bytes += (cap - ar->cappcs) * sizeof *v;
    ar->cappcs = cap;
    ar->pcs = v;
    mh_atom_pc *p = &ar->pcs[ar->npcs++];
    memset(p, 0, sizeof *p);
    *p = (mh_atom_pc){.launch = l->launch, .space = space, .obj = obj, .pc = pc};
    return p;
}

/* Adds ops operations by warp bit wbit on address canon. 0, or -1 without memory. */
static int add_addr(mh_atom_run *ar, alaunch *l, uint64_t canon, uint64_t ops, uint64_t wbit) {
    if ((l->naddr + 1) * 2 > l->capaddr && l->naddr < MAX_ADDRS) {
        size_t cap = l->capaddr ? l->capaddr * 2 : 64;
        addr_slot *t = calloc(cap, sizeof *t);
        if (!t) return -1;
        for (size_t i = 0; i < l->capaddr; i++) {
            if (!l->addr[i].canon) continue;
            size_t h = (size_t)mh_mix64(l->addr[i].canon) & (cap - 1);
            while (t[h].canon) h = (h + 1) & (cap - 1);
            t[h] = l->addr[i];
        }
        free(l->addr);
        ar->bytes += (cap - l->capaddr) * sizeof *t;
        l->addr = t;
        l->capaddr = cap;
    }
    size_t h = (size_t)mh_mix64(canon) & (l->capaddr - 1);
    while (l->addr[h].canon && l->addr[h].canon != canon) h = (h + 1) & (l->capaddr - 1);
    if (!l->addr[h].canon) {
        if (l->naddr >= MAX_ADDRS || (l->naddr + 1) * 2 > l->capaddr) {
            l->untracked += ops;
            return 0;
        }
        l->addr[h].canon = canon;
        l->naddr++;
    }
    l->addr[h].ops += ops;
    l->addr[h].warps |= wbit;
    return 0;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

#define LINE_SHIFT 7  /* a 128-byte line: one L2 transaction of a request */
#define GROUP_SHIFT 9 /* lines of a 512-byte group are served one after another */

/* The steps the L2 takes for one request's lanes key[i..j) of one object
 * (sorted canonical keys: a line's lanes are adjacent): per line, the most
 * lanes on one word position; summed over the lines. */
static uint64_t serial_ops(const uint64_t *key, size_t i, size_t j) {
    uint64_t steps = 0;
    for (size_t a = i, b; a < j; a = b) {
        uint64_t line = MH_CANON_OFF(key[a]) >> LINE_SHIFT;
        unsigned pos[8] = {0}, most = 0;
        for (b = a; b < j && MH_CANON_OFF(key[b]) >> LINE_SHIFT == line; b++) {
            unsigned w = (unsigned)(MH_CANON_OFF(key[b]) >> 2) & 7u;
            if (++pos[w] > most) most = pos[w];
        }
        steps += most;
    }
    return steps;
}

/* A finished warp request (groupbuf's callback): per object of it, its
 * lanes, distinct addresses and degree; per address, operations and warps. */
static int request_done(void *ctx, const mh_grp_key *k, mh_grp_entry *v, size_t n, mh_err *err) {
    mh_atom_run *ar = ctx;
    if (!n) return MH_OK;
    alaunch *l = get_launch(ar, k->launch);
    if (!l) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    uint64_t keys[64], *key = n <= 64 ? keys : malloc(n * sizeof *key);
    if (!key) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) key[i] = v[i].canon;
    mh_sort(key, n, sizeof *key, cmp_u64);
    const mh_model_launch *ml = mh_model_launch_get(ar->model, k->launch);
    int64_t bi = ml ? mh_model_block_index(ml, k->block) : -1;
    uint64_t gw = (uint64_t)(bi < 0 ? 0 : bi) * (ml ? ml->warps_per_block : 1) + k->warp;
    uint64_t wbit = 1ull << (gw & 63);
    int rc = MH_OK;
    for (size_t i = 0, j; i < n && rc == MH_OK; i = j) { /* one object's lanes: keys sort by slot first */
        int64_t obj = MH_CANON_OBJ(key[i]);
        j = i + 1;
        while (j < n && MH_CANON_OBJ(key[j]) == obj) j++;
        mh_atom_pc *p = get_pc(ar, l, k->space, obj, k->pc);
        if (!p) {
            rc = mh_err_set(err, MH_ERR_NOMEM, "out of memory");
            break;
        }
        uint32_t degree = 0;
        for (size_t a = i, b; a < j; a = b) {
            b = a + 1;
            while (b < j && key[b] == key[a]) b++;
            p->distinct++;
            if (b - a > degree) degree = (uint32_t)(b - a);
            if (add_addr(ar, l, key[a], b - a, wbit) != 0) {
                rc = mh_err_set(err, MH_ERR_NOMEM, "out of memory");
                break;
            }
        }
        if (!p->requests) p->size = v[0].size;
        p->requests++;
        p->ops += j - i;
        p->degree_sum += degree;
        if (degree > p->degree_max) p->degree_max = degree;
        p->serial += serial_ops(key, i, j);
    }
    if (key != keys) free(key);
    note(ar);
    return rc;
}

static int start(mh_atom_run *ar, mh_err *err) {
    int rc = mh_occ_new(&ar->occ, ar->budget / 4, err);
    if (rc == MH_OK) rc = mh_grp_new(&ar->grp, ar->budget, request_done, ar, err);
    return rc;
}

static int feed_accesses(mh_atom_run *ar, const mh_access *v, size_t n, mh_err *err) {
    uint32_t ws = ar->model->hdr.device.warp_size ? ar->model->hdr.device.warp_size : 32;
    const mh_model_launch *ml = NULL;
    for (size_t i = 0; i < n; i++) {
        const mh_access *a = &v[i];
        if (MH_ACCESS_KIND(a) != MH_KIND_ATOMIC) continue;
        unsigned space = MH_ACCESS_SPACE(a);
        if (space != MH_SPACE_GLOBAL && space != MH_SPACE_SHARED) continue;
        if (!ar->grp) {
            int rc = start(ar, err);
            if (rc) return rc;
        }
        if (!ml || ml->l.id != a->launch) ml = mh_model_launch_get(ar->model, a->launch);
        if (!ml) continue;
        uint32_t k;
        int rc = mh_occ_next(ar->occ, a->launch, a->block, a->thread, a->pc, &k, err);
        if (rc) return rc;
        uint32_t warp = a->thread / ws, tpb = ml->threads_per_block, full = 0;
        if (warp < UINT16_MAX - 1 && (uint64_t)warp * ws < tpb) full = tpb - warp * ws < ws ? tpb - warp * ws : ws;
        mh_grp_key gk;
        mh_grp_key_set(&gk, a->pc, a->launch, a->block, k, (uint16_t)(warp > UINT16_MAX - 1 ? UINT16_MAX - 1 : warp),
                       (uint8_t)space);
        mh_grp_entry ge;
        mh_grp_entry_set(&ge, mh_canon_key(&ar->canon, ml, a), (uint32_t)a->addr, a->thread, a->size, MH_KIND_ATOMIC);
        rc = mh_grp_add(ar->grp, &gk, &ge, warp * ws, full, err);
        if (rc) return rc;
    }
    note(ar);
    return MH_OK;
}

/* ---- findings ---- */

static int cmp_pc(const void *a, const void *b) {
    const mh_atom_pc *x = a, *y = b;
    if (x->launch != y->launch) return x->launch < y->launch ? -1 : 1;
    if (x->pc != y->pc) return x->pc < y->pc ? -1 : 1;
    if (x->space != y->space) return x->space < y->space ? -1 : 1;
    return (x->obj > y->obj) - (x->obj < y->obj);
}

static int cmp_pcref(const void *a, const void *b) {
    const mh_pat_pc *x = a, *y = b;
    return (x->pc > y->pc) - (x->pc < y->pc);
}

/* The finding of (space, obj) of launch l, if its atomics contend. */
static int classify(mh_atom_run *ar, alaunch *l, unsigned space, int64_t obj) {
    uint64_t ops = 0, req = 0, degree_sum = 0, addrs = 0, hot_ops = 0, hot_warps = 0, npcs = 0, serial = 0;
    uint32_t degree_max = 0;
    const mh_atom_pc *top = NULL;
    for (size_t i = l->pc0; i < ar->npcs; i++) {
        const mh_atom_pc *p = &ar->pcs[i];
        if (p->launch != l->launch || p->space != space || p->obj != obj) continue;
        ops += p->ops;
        req += p->requests;
        degree_sum += p->degree_sum;
        serial += p->serial;
        if (p->degree_max > degree_max) degree_max = p->degree_max;
        if (!top || p->ops > top->ops) top = p;
        npcs++;
    }
    uint64_t *group = l->naddr ? malloc(l->naddr * sizeof *group) : NULL; /* the 512-byte groups touched */
    if (l->naddr && !group) return MH_ERR_NOMEM;
    for (size_t i = 0; i < l->capaddr; i++) {
        const addr_slot *s = &l->addr[i];
        if (!s->canon || MH_CANON_SPACE(s->canon) != space || MH_CANON_OBJ(s->canon) != obj) continue;
        group[addrs++] = MH_CANON_OFF(s->canon) >> GROUP_SHIFT;
        if (s->ops > hot_ops) {
            hot_ops = s->ops;
            hot_warps = (uint64_t)__builtin_popcountll(s->warps);
        }
    }
    uint64_t groups = 0;
    if (addrs) mh_sort(group, addrs, sizeof *group, cmp_u64);
    for (uint64_t i = 0; i < addrs; i++) groups += !i || group[i] != group[i - 1];
    free(group);
    if (!top || !addrs || ops < ATOM_MIN_OPS || ops < ATOM_OPS_PER_ADDR * addrs) return MH_OK;
    if (hot_warps < ATOM_MIN_SHARERS && degree_max < ATOM_MIN_SHARERS) return MH_OK;
    mh_pat_finding *v = mh_grow(ar->f, &ar->capf, ar->nf + 1, sizeof *v, 8);
    if (!v) return MH_ERR_NOMEM;
    ar->f = v;
    mh_pat_finding *f = &ar->f[ar->nf];
    mh_finding_fill(f, ar->model, MH_PAT_ATOMIC, mh_model_launch_get(ar->model, l->launch), space, obj, top->pc);
    f->pcs = malloc(npcs * sizeof *f->pcs);
    if (!f->pcs) return MH_ERR_NOMEM;
    ar->nf++;
    int global = space == MH_SPACE_GLOBAL;
    /* global: the serial chain at L2 (the header), in operations; shared: the
     * operations that wait behind another on their address */
    double cost = global ? (double)serial / (double)(groups ? groups : 1) : (double)(ops - addrs);
    for (size_t i = l->pc0; i < ar->npcs; i++) {
        const mh_atom_pc *p = &ar->pcs[i];
        if (p->launch != l->launch || p->space != space || p->obj != obj) continue;
        const mh_pcinfo *pi = mh_model_pcinfo(ar->model, p->pc);
        double part = global ? (serial ? (double)p->serial / (double)serial : 0) : (ops ? (double)p->ops / (double)ops : 0);
        f->pcs[f->npcs++] = (mh_pat_pc){p->pc, cost * part, pi ? pi->file : NULL, pi ? pi->line : 0};
    }
    if (f->npcs > 1) mh_sort(f->pcs, f->npcs, sizeof *f->pcs, cmp_pcref);
    else f->npcs = 0; /* one pc: named by the finding itself */
    f->requests = req;
    f->flagged = ops;
    f->elem_size = top->size;
    f->degree_avg = req ? (double)degree_sum / (double)req : 0;
    f->degree_max = degree_max;
    f->max_word_temp = (uint32_t)hot_warps;
    f->cost = cost;
    const char *name = *f->name ? f->name : space == MH_SPACE_SHARED ? "the shared array" : "this array";
    snprintf(f->summary, sizeof f->summary,
             "%" PRIu64 " atomic operations (%" PRIu64 " warp requests) on %" PRIu64 "%s addresses, %.1f per address; "
             "the hottest address took %" PRIu64 " from %" PRIu64 " warps; %.2f lanes of a request on one address on "
             "average, %u at most",
             ops, req, addrs, l->untracked ? "+" : "", (double)ops / (double)addrs, hot_ops, hot_warps, f->degree_avg,
             degree_max);
    if (global) {
        size_t n = strlen(f->summary);
        snprintf(f->summary + n, sizeof f->summary - n,
                 "; %.0f operations one after another at L2 (%" PRIu64 " 512-byte group%s)", cost, groups,
                 groups == 1 ? "" : "s");
    }
    if (space == MH_SPACE_SHARED)
        snprintf(f->suggestion, sizeof f->suggestion,
                 "the atomics on %.180s serialise on few words: give each warp its own copy (per-warp sub-histograms, "
                 "added up at the end), or aggregate a warp's updates first (__match_any_sync on the address, one "
                 "lane adds the group's sum)",
                 name);
    else
        snprintf(f->suggestion, sizeof f->suggestion,
                 "the atomics on %.180s serialise on few addresses: privatise them per block (atomics on a __shared__ "
                 "copy, then one global atomicAdd per address per block), or aggregate a warp's updates first "
                 "(__match_any_sync on the address, one lane adds the group's sum)",
                 name);
    return MH_OK;
}

/* A launch ends: its requests handed over, its objects classified, its
 * address table dropped (its pc entries stay). */
static int end_launch(mh_atom_run *ar, uint32_t launch, mh_err *err) {
    if (ar->grp) {
        int rc = mh_grp_flush_launch(ar->grp, launch, err);
        if (rc) return rc;
        mh_occ_end_launch(ar->occ, launch);
    }
    alaunch *l = find_launch(ar, launch);
    if (!l) return MH_OK;
    int rc = MH_OK;
    for (size_t i = l->pc0; i < ar->npcs && rc == MH_OK; i++) {
        const mh_atom_pc *p = &ar->pcs[i];
        int seen = 0;
        for (size_t j = l->pc0; j < i && !seen; j++)
            seen = ar->pcs[j].launch == launch && ar->pcs[j].space == p->space && ar->pcs[j].obj == p->obj;
        if (!seen && p->launch == launch && classify(ar, l, p->space, p->obj) != MH_OK)
            rc = mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    }
    ar->bytes -= l->capaddr * sizeof *l->addr;
    free(l->addr);
    *l = ar->al[--ar->nal];
    return rc;
}

/* ---- the run ---- */

static int run_open(void **run, const mh_analysis_env *env, mh_err *err) {
    mh_atom_run *ar = calloc(1, sizeof *ar);
    if (!ar) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    ar->model = env->model;
    ar->budget = env->group_budget ? env->group_budget : DEFAULT_BUDGET;
    mh_canon_init(&ar->canon, env->model);
    *run = ar;
    return MH_OK;
}

static int run_feed(void *run, const mh_record *rec, mh_err *err) {
    mh_atom_run *ar = run;
    switch (rec->type) {
    case MH_REC_ACCESSES: return feed_accesses(ar, rec->u.accesses.v, rec->u.accesses.n, err);
    case MH_REC_ALLOC: case MH_REC_FREE: mh_canon_reset(&ar->canon); return MH_OK;
    case MH_REC_KERNEL_END: return end_launch(ar, rec->u.kernel_end.launch, err);
    default: return MH_OK;
    }
}

static int run_stage(void *run, const mh_stage_in *in, mh_err *err) { return feed_accesses(run, in->v, in->n, err); }

static int run_finish(void *run, mh_err *err) {
    mh_atom_run *ar = run;
    while (ar->nal) {
        int rc = end_launch(ar, ar->al[0].launch, err);
        if (rc) return rc;
    }
    if (ar->nf) mh_sort(ar->f, ar->nf, sizeof *ar->f, mh_pat_cmp_finding);
    if (ar->npcs) mh_sort(ar->pcs, ar->npcs, sizeof *ar->pcs, cmp_pc);
    return MH_OK;
}

static void run_close(void *run) {
    mh_atom_run *ar = run;
    if (!ar) return;
    for (size_t i = 0; i < ar->nal; i++) free(ar->al[i].addr);
    for (size_t i = 0; i < ar->nf; i++) free(ar->f[i].pcs);
    mh_grp_free(ar->grp);
    mh_occ_free(ar->occ);
    free(ar->al);
    free(ar->pcs);
    free(ar->f);
    free(ar);
}

/* The lanes' runs (each fed other launches of one trace, on a model equal
 * to dst's by index) moved into dst: findings and pc entries sorted as the
 * serial run has them (both orders are total), pointing into dst's model. */
static int run_merge(void *dst_, void *const *src_, size_t nsrc, uint64_t (*rank)(void *ctx, uint32_t launch),
                     void *ctx, mh_err *err) {
    (void)rank;
    (void)ctx;
    mh_atom_run *dst = dst_;
    for (size_t s = 0; s < nsrc; s++) {
        mh_atom_run *src = src_[s];
        mh_pat_finding *f = mh_grow(dst->f, &dst->capf, dst->nf + src->nf, sizeof *f, 8);
        if (!f) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
        dst->f = f;
        mh_atom_pc *p = mh_grow(dst->pcs, &dst->cappcs, dst->npcs + src->npcs, sizeof *p, 16);
        if (!p) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
        dst->pcs = p;
        for (size_t i = 0; i < src->nf; i++) {
            dst->f[dst->nf] = src->f[i];
            mh_finding_rebind(&dst->f[dst->nf++], src->model, dst->model);
        }
        src->nf = 0; /* their pc lists are dst's now */
        if (src->npcs) memcpy(dst->pcs + dst->npcs, src->pcs, src->npcs * sizeof *src->pcs); /* NULL when none */
        dst->npcs += src->npcs;
        if (src->peak > dst->peak) dst->peak = src->peak;
        dst->split += src->split + (src->grp ? mh_grp_split(src->grp) : 0);
    }
    if (dst->nf) mh_sort(dst->f, dst->nf, sizeof *dst->f, mh_pat_cmp_finding);
    if (dst->npcs) mh_sort(dst->pcs, dst->npcs, sizeof *dst->pcs, cmp_pc);
    return MH_OK;
}

static size_t run_peak(const void *run) { return ((const mh_atom_run *)run)->peak; }

static uint64_t run_split(const void *run) {
    const mh_atom_run *ar = run;
    return ar->split + (ar->grp ? mh_grp_split(ar->grp) : 0);
}

static const mh_pat_finding *run_findings(const void *run, size_t *n) {
    const mh_atom_run *ar = run;
    *n = ar->nf;
    return ar->f;
}

/* ---- its table as text and JSON ---- */

static void run_text(FILE *f, const void *run, const mh_model *m) {
    (void)m;
    const mh_atom_run *ar = run;
    if (!ar->npcs) return;
    fprintf(f, "\nAtomic operations per pc (degree = lanes of one warp request on one address):\n");
    fprintf(f, "  %-6s %-18s %-7s %7s %10s %10s %9s %8s %5s\n", "launch", "pc", "space", "object", "operations",
            "requests", "addr/req", "degree", "max");
    for (size_t i = 0; i < ar->npcs; i++) {
        const mh_atom_pc *p = &ar->pcs[i];
        fprintf(f, "  %-6u 0x%-16" PRIx64 " %-7s %7" PRId64 " %10" PRIu64 " %10" PRIu64 " %9.2f %8.2f %5u\n", p->launch,
                p->pc, mh_space_name(p->space), p->obj, p->ops, p->requests,
                p->requests ? (double)p->distinct / (double)p->requests : 0.0,
                p->requests ? (double)p->degree_sum / (double)p->requests : 0.0, p->degree_max);
    }
}

static size_t pc_count(const void *run) { return ((const mh_atom_run *)run)->npcs; }

static json_t *pc_json(const void *run, const mh_model *m, size_t i) {
    (void)m;
    const mh_atom_pc *p = &((const mh_atom_run *)run)->pcs[i];
    json_t *o = json_object();
    json_object_set_new(o, "launch", json_integer(p->launch));
    json_object_set_new(o, "pc", json_integer((json_int_t)p->pc));
    json_object_set_new(o, "space", json_string(mh_space_name(p->space)));
    json_object_set_new(o, "object", json_integer(p->obj));
    json_object_set_new(o, "operations", json_integer((json_int_t)p->ops));
    json_object_set_new(o, "requests", json_integer((json_int_t)p->requests));
    json_object_set_new(o, "addresses_per_request",
                        json_real(p->requests ? (double)p->distinct / (double)p->requests : 0.0));
    json_object_set_new(o, "degree_avg", json_real(p->requests ? (double)p->degree_sum / (double)p->requests : 0.0));
    json_object_set_new(o, "degree_max", json_integer(p->degree_max));
    json_object_set_new(o, "size", json_integer(p->size));
    return o;
}

static const mh_analysis_array arrays[] = {{"atomics", pc_count, pc_json, 1}};

static const mh_analysis_stage stages[] = {
    {"atomic requests", {MH_RUNG_BASE, MH_STAGE_RECORDS | MH_STAGE_LIGHT}, run_stage, NULL},
};

const mh_analysis mh_analysis_atomics = {
    .name = "atomics",
    .with = "patterns",
    .half = 0,
    .stages = stages,
    .nstages = 1,
    .open = run_open,
    .feed = run_feed,
    .finish = run_finish,
    .merge = run_merge,
    .close = run_close,
    .peak = run_peak,
    .split = run_split,
    .findings = run_findings,
    .text = run_text,
    .arrays = arrays,
    .narrays = 1,
};
