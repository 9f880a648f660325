/* patterns.c -- the pattern analysis's evidence and driver: gathers, per
 * data object of a launch, what patterns_classify.c decides from
 * (analyses/patterns.h; shared types in patterns_state.h).
 *
 * Three inputs per launch, all bounded by distinct sectors / words / pcs:
 *  - heat summaries: per object, counts of hot, false-sharing and fully used
 *    sectors, taken from the heat map rows when the heat run emits them;
 *  - request statistics per (space, object, pc): the lanes of one warp at the
 *    same execution of one pc (per-lane occurrence k of the pc, occur.c; not
 *    seq, which diverges with control flow) are buffered by a groupbuf, then
 *    reduced to sectors touched, sectors needed, dominant lane stride
 *    (patterns_request.c);
 *  - shared-memory word owners per (block, word): one thread, one warp, or
 *    several warps; and bank costs (wavefronts per phase) per pc (banks.c).
 * When the launch ends the three are combined by mh_pat_classify_launch()
 * (patterns_classify.c), and the
 * findings of one (space, object, pattern) at several pcs are merged into
 * one (merge_launch()). */
#include "analyses/patterns_state.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/grow.h"
#include "util/hash.h"
#include "util/sort.h"

#define div_by mh_pat_div
#define mod_by mh_pat_mod

static void note(mh_pat_run *pr) {
    size_t b = pr->bytes + pr->bytes1 + mh_grp_bytes(pr->grp) + mh_occ_bytes(pr->occ);
    if (b > pr->peak) pr->peak = b;
}

static void free_ps(mh_pat_run *pr, pstate *s) {
    uint32_t launch = s->launch;
    pr->bytes -= s->cappcs * sizeof *s->pcs + s->pchcap * sizeof *s->pch + s->caphs * sizeof *s->hs +
                 mh_pat_pacc_bytes(&s->sh);
    free(s->pcs);
    free(s->pch);
    free(s->hs);
    mh_pat_pacc_free(&s->sh);
    size_t i = (size_t)(s - pr->ps);
    pr->ps[i] = pr->ps[--pr->nps];
    mh_stage_seen_forget(&pr->seen, launch);
}

static hsum *get_hsum(mh_pat_run *pr, pstate *s, unsigned space, int64_t obj) {
    for (size_t i = 0; i < s->nhs; i++)
        if (s->hs[i].space == space && s->hs[i].obj == obj) return &s->hs[i];
    {
        size_t was = s->caphs;
        hsum *v = mh_grow(s->hs, &s->caphs, s->nhs + 1, sizeof *v, 8);
        if (!v) return NULL;
        pr->bytes += (s->caphs - was) * sizeof *v;
        s->hs = v;
    }
    hsum *h = &s->hs[s->nhs++];
    memset(h, 0, sizeof *h);
    h->space = space;
    h->obj = obj;
    return h;
}

/* A shared map: per object, the words read only, written only and both by
 * the traced instructions (the partial view of patterns_classify.c). */
static int shared_heat(mh_pat_run *pr, const mh_heat_result *r, mh_err *err) {
    pstate *s = mh_pat_get_ps(pr, r->launch->l.id);
    if (!s) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < r->nrows; i++) {
        const mh_heat_row *row = &r->rows[i];
        int64_t obj = row->region >= 0 && (size_t)row->region < r->nregions ? r->regions[row->region].obj : -1;
        hsum *h = get_hsum(pr, s, r->space, obj);
        if (!h) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
        for (int w = 0; w < MH_HEAT_WORDS; w++) {
            unsigned k = row->kinds[w];
            if (!row->word[w] || !k) continue; /* untouched, or kinds unknown */
            int rd = (k & (MH_HEAT_LOAD | MH_HEAT_ATOMIC)) != 0, wr = (k & (MH_HEAT_STORE | MH_HEAT_ATOMIC)) != 0;
            if (rd && wr) h->w_both++;
            else if (rd) h->w_load_only++;
            else h->w_store_only++;
        }
    }
    return MH_OK;
}

int mh_pat_run_heat(mh_pat_run *pr, const mh_heat_result *r, mh_err *err) {
    if (r->space == MH_SPACE_SHARED && r->launch) return shared_heat(pr, r, err);
    if (r->space != MH_SPACE_GLOBAL || !r->launch) return MH_OK;
    assert(r->sector_size == 4u * MH_HEAT_WORDS); /* word w of a row is bytes [4w, 4w + 4) */
    pstate *s = mh_pat_get_ps(pr, r->launch->l.id);
    if (!s) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    uint32_t T = hot_threshold(r->launch);
    for (size_t i = 0; i < r->nrows; i++) {
        const mh_heat_row *row = &r->rows[i];
        int64_t obj = -1;
        uint64_t start = 0;
        if (row->region >= 0 && (size_t)row->region < r->nregions) {
            obj = r->regions[row->region].obj;
            start = r->regions[row->region].start;
        }
        hsum *h = get_hsum(pr, s, r->space, obj);
        if (!h) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
        h->obj_start = start;
        uint32_t wmax = 0, wmin = UINT32_MAX, touched = 0;
        for (int w = 0; w < MH_HEAT_WORDS; w++) {
            uint32_t t = row->word[w];
            if (!t) continue;
            touched++;
            if (t > wmax) wmax = t;
            if (t < wmin) wmin = t;
        }
        uint32_t ts = row->sector;
        h->rows++;
        h->touched_words += touched;
        if (wmax > h->max_word) h->max_word = wmax;
        if (ts > h->max_sector) h->max_sector = ts;
        if (touched == MH_HEAT_WORDS && ts == wmax) h->full++;
        if (touched && touched <= 2) {
            unsigned w0 = 0;
            while (!row->word[w0]) w0++;
            uint64_t addr = row->tag * r->sector_size + 4u * w0;
            if (h->sparse) {
                int64_t d = (int64_t)(addr - h->last_sparse_addr);
                h->sparse_deltas++;
                mh_pat_vote(&h->delta_cand, &h->delta_cnt, d);
            }
            h->last_sparse_addr = addr;
            h->sparse++;
            h->sparse_cost += (double)ts * (double)(MH_HEAT_WORDS - touched) / MH_HEAT_WORDS;
            if (!h->has_sparse || ts > h->ex_sparse.sector) {
                h->ex_sparse = *row;
                h->has_sparse = 1;
            }
        }
        if (wmax >= T) {
            h->hot++;
            int atomic = 1;
            for (int w = 0; w < MH_HEAT_WORDS && atomic; w++) atomic = !row->word[w] || row->kinds[w] == MH_HEAT_ATOMIC;
            if (atomic && h->hot_atomic < UINT32_MAX) h->hot_atomic++;
            int uniform = wmin * 2 >= wmax && ts <= 2 * wmax;
            if (!uniform) h->hot_random++;
            h->hot_cost += 0.25 * (double)(ts - 1);
            if (!h->has_hot || ts > h->ex_hot.sector) {
                h->ex_hot = *row;
                h->has_hot = 1;
            }
        } else if (ts >= 2 && ts >= 2 * wmax && touched >= 2) {
            /* false sharing needs a write: a sector only read by several
             * warps is an uncoalesced read (kinds unknown: counted written) */
            int written = 0, known = 0;
            for (int w = 0; w < MH_HEAT_WORDS; w++) {
                known |= row->kinds[w];
                written |= (row->kinds[w] & (MH_HEAT_STORE | MH_HEAT_ATOMIC)) != 0;
            }
            if (written || !known) {
                h->fs++;
                h->fs_cost += (double)(ts - wmax);
                if (!h->has_fs || ts > h->ex_fs.sector) {
                    h->ex_fs = *row;
                    h->has_fs = 1;
                }
            } else {
                h->uc++;
                h->uc_cost += (double)(ts - wmax);
                if (!h->has_uc || ts > h->ex_uc.sector) {
                    h->ex_uc = *row;
                    h->has_uc = 1;
                }
            }
        }
    }
    /* Misra-Gries only proposes a spacing; a second pass over the rows counts
     * how many sparse deltas are exactly that spacing (the evidence of a
     * stride over time: a few scattered hot words of a table have none). */
    for (size_t i = 0; i < r->nrows; i++) {
        const mh_heat_row *row = &r->rows[i];
        int64_t obj = row->region >= 0 && (size_t)row->region < r->nregions ? r->regions[row->region].obj : -1;
        unsigned touched = 0, w0 = MH_HEAT_WORDS;
        for (unsigned w = 0; w < MH_HEAT_WORDS; w++)
            if (row->word[w]) {
                touched++;
                if (w0 == MH_HEAT_WORDS) w0 = w;
            }
        if (!touched || touched > 2) continue;
        hsum *h = get_hsum(pr, s, r->space, obj); /* exists: the first pass made it */
        if (!h) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
        uint64_t addr = row->tag * r->sector_size + 4u * w0;
        if (h->exact_sparse++ && (int64_t)(addr - h->exact_last) == h->delta_cand) h->delta_exact++;
        h->exact_last = addr;
    }
    note(pr);
    return MH_OK;
}

/* ---- one finding per (launch, space, object, pattern) ---- */

static int cmp_pcref(const void *a, const void *b) {
    const mh_pat_pc *x = a, *y = b;
    return (x->pc > y->pc) - (x->pc < y->pc);
}

static int add_pcref(mh_pat_finding *f, uint64_t pc, double cost, const char *file, uint32_t line) {
    if (!pc) return MH_OK;
    for (size_t i = 0; i < f->npcs; i++)
        if (f->pcs[i].pc == pc) { /* same pc twice (cannot happen per kind today): add up */
            f->pcs[i].cost += cost;
            return MH_OK;
        }
    mh_pat_pc *v = realloc(f->pcs, (f->npcs + 1) * sizeof *v);
    if (!v) return MH_ERR_NOMEM;
    f->pcs = v;
    f->pcs[f->npcs++] = (mh_pat_pc){pc, cost, file, line};
    return MH_OK;
}

/* Merges the findings pr->f[before..] of one launch: per (space, object,
 * kind) one finding remains, with the evidence of its costliest pc, the sum
 * of the costs and the list of every pc. Order of first appearance is kept
 * (the final sort is by cost). */
static int merge_launch(mh_pat_run *pr, size_t before) {
    size_t out = before;
    for (size_t i = before; i < pr->nf; i++) {
        mh_pat_finding g = pr->f[i];
        size_t m = before;
        while (m < out && !(pr->f[m].kind == g.kind && pr->f[m].space == g.space && pr->f[m].obj == g.obj)) m++;
        if (m == out) {
            g.pcs = NULL;
            g.npcs = 0;
            if (add_pcref(&g, g.pc, g.cost, g.file, g.line) != MH_OK) return MH_ERR_NOMEM;
            pr->f[out++] = g;
            continue;
        }
        mh_pat_finding *f = &pr->f[m];
        double rep = -1; /* cost of the current representative */
        for (size_t j = 0; j < f->npcs; j++)
            if (f->pcs[j].pc == f->pc) rep = f->pcs[j].cost;
        if (rep < 0) rep = f->cost;
        if (add_pcref(f, g.pc, g.cost, g.file, g.line) != MH_OK) return MH_ERR_NOMEM;
        double total = f->cost + g.cost;
        if (g.cost > rep) { /* the costlier pc becomes the evidence */
            mh_pat_pc *pcs = f->pcs;
            size_t npcs = f->npcs;
            *f = g;
            f->pcs = pcs;
            f->npcs = npcs;
        }
        f->cost = total;
    }
    pr->nf = out;
    for (size_t i = before; i < out; i++)
        if (pr->f[i].npcs > 1) mh_sort(pr->f[i].pcs, pr->f[i].npcs, sizeof *pr->f[i].pcs, cmp_pcref);
    return MH_OK;
}

size_t mh_pat_pcs_text(const mh_pat_finding *f, char *buf, size_t cap) {
    enum { LIST = 12 };
    if (!cap) return 0;
    buf[0] = 0;
    if (f->npcs < 2) return 0;
    size_t n = 0;
#define MH_PUT(...)                                                       \
    do {                                                                  \
        if (n < cap) {                                                    \
            int w_ = snprintf(buf + n, cap - n, __VA_ARGS__);             \
            n = w_ < 0 ? n : (n + (size_t)w_ < cap ? n + (size_t)w_ : cap - 1); \
        }                                                                 \
    } while (0)
    MH_PUT("at %zu pcs:", f->npcs);
    for (size_t i = 0; i < f->npcs && i < LIST; i++) {
        MH_PUT("%s 0x%llx", i ? "," : "", (unsigned long long)f->pcs[i].pc);
        if (f->pcs[i].file) MH_PUT(" (%s:%u)", f->pcs[i].file, f->pcs[i].line);
    }
    if (f->npcs > LIST) MH_PUT(", ... (%zu more)", f->npcs - LIST);
#undef MH_PUT
    return n;
}

/* Keeps the launch's global request counts per (object, pc) past its end. */
static int keep_requests(mh_pat_run *pr, const pstate *s) {
    for (size_t i = 0; i < s->npcs; i++) {
        const pcstat *p = &s->pcs[i];
        if (p->space != MH_SPACE_GLOBAL || !p->requests) continue;
        mh_pat_req *v = mh_grow(pr->req, &pr->capreq, pr->nreq + 1, sizeof *v, 64);
        if (!v) return MH_ERR_NOMEM;
        pr->req = v;
        v[pr->nreq++] = (mh_pat_req){s->launch, p->pc, p->obj, p->kind, p->requests, p->sectors, p->ideal,
                                     p->lines, p->ideal_lines};
    }
    return MH_OK;
}

static int end_launch(mh_pat_run *pr, pstate *s, mh_err *err) {
    int rc = mh_grp_flush_launch(pr->grp, s->launch, err);
    if (!rc) rc = mh_bank_sort_launch(&pr->banks, s->launch, s->bank0, err);
    if (rc) return rc;
    mh_occ_end_launch(pr->occ, s->launch);
    mh_pat_access_take(pr, s);
    size_t before = pr->nf;
    rc = mh_pat_classify_launch(pr, s);
    if (!rc) rc = merge_launch(pr, before);
    if (!rc) rc = keep_requests(pr, s);
    free_ps(pr, s);
    return rc ? mh_err_set(err, rc, "out of memory classifying patterns") : MH_OK;
}

/* ---- driver ---- */

int mh_pat_run_new(mh_pat_run **out, const mh_model *m, const mh_pat_opts *o, mh_err *err) {
    mh_pat_run *pr = calloc(1, sizeof *pr);
    if (!pr) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    pr->model = m;
    if (o) pr->o = *o;
    if (!pr->o.group_budget) pr->o.group_budget = (size_t)64 << 20;
    mh_canon_init(&pr->canon, m);
    mh_bank_init(&pr->banks);
    int rc = mh_grp_new(&pr->grp, pr->o.group_budget, mh_pat_request_done, pr, err);
    if (!rc) rc = mh_occ_new(&pr->occ, pr->o.group_budget, err);
    if (rc) {
        mh_grp_free(pr->grp);
        free(pr);
        return rc;
    }
    *out = pr;
    return MH_OK;
}

int mh_pat_run_feed(mh_pat_run *pr, const mh_record *rec, mh_err *err) {
    switch (rec->type) {
    case MH_REC_ALLOC:
    case MH_REC_FREE:
    case MH_REC_LAUNCH:
    case MH_REC_KARG:
        mh_canon_reset(&pr->canon);
        return MH_OK;
    case MH_REC_KERNEL_END: {
        pstate *s = mh_pat_find_ps(pr, rec->u.kernel_end.launch);
        return s ? end_launch(pr, s, err) : MH_OK;
    }
    case MH_REC_ACCESSES:
        break;
    default:
        return MH_OK;
    }
    const mh_access *v = rec->u.accesses.v;
    size_t n = rec->u.accesses.n;
    int rc = mh_pat_run_keys(pr, v, n, &pr->own, 0, 0, err);
    return rc ? rc : mh_pat_run_group(pr, v, n, &pr->own, 0, 0, err);
}

/* The grouping stage (the keys stage: patterns_access.c): each global or shared access into
 * its warp request's group, keyed by the execution count the keys stage took. */
int mh_pat_run_group(mh_pat_run *pr, const mh_access *v, size_t n, mh_stage *st, size_t off, size_t rec,
                      mh_err *err) {
    uint32_t ws = warp_size(pr);
    assert(ws > 0);
    if (pr->eval_apart) {
        if (rec == 0) mh_stage_groups_clear(st);
        pr->defer = st;
    }
    uint32_t launch = 0;
    int have = 0;
    uint32_t tpb = 0; /* threads per block of the launch (0: unknown) */
    int rc = MH_OK;
    enum { RUN = 64 };
    mh_grp_entry ge[RUN];
    for (size_t i = 0, j; i < n && rc == MH_OK; i = j) {
        const mh_access *a = &v[i];
        unsigned space = MH_ACCESS_SPACE(a);
        j = i + 1;
        if (space != MH_SPACE_GLOBAL && space != MH_SPACE_SHARED) continue;
        if (!have || launch != a->launch) {
            launch = a->launch;
            have = 1;
            /* the evaluation apart: a mark ahead of the launch's requests, for the evaluation stage to make its state as get_ps does here */
            if (pr->eval_apart ? mh_stage_seen_mark(&pr->seen, st, launch, 0) != 0 : !mh_pat_get_ps(pr, launch)) {
                rc = mh_err_set(err, MH_ERR_NOMEM, "out of memory");
                break;
            }
            const mh_model_launch *ml = mh_model_launch_get(pr->model, launch);
            tpb = ml ? ml->threads_per_block : 0;
        }
        uint32_t warp = (uint32_t)div_by(a->thread, ws);
        /* the lanes' k-th execution of this pc form one warp instruction, whole
         * once every lane of the warp is in (a thread's k-th execution of a pc
         * is one access) */
        uint32_t full = 0;
        if (warp < UINT16_MAX - 1 && (uint64_t)warp * ws < tpb) full = tpb - warp * ws < ws ? tpb - warp * ws : ws;
        /* the accesses of one request that follow each other (its lanes) go in at once */
        uint32_t occ = st->occ[off + i];
        mh_grp_entry_set(&ge[0], st->key[off + i], (uint32_t)a->addr, a->thread, a->size, (uint8_t)MH_ACCESS_KIND(a));
        for (; j < n && j - i < RUN; j++) {
            const mh_access *b = &v[j];
            if (b->pc != a->pc || b->launch != a->launch || b->block != a->block || st->occ[off + j] != occ ||
                MH_ACCESS_SPACE(b) != space || div_by(b->thread, ws) != warp)
                break;
            mh_grp_entry_set(&ge[j - i], st->key[off + j], (uint32_t)b->addr, b->thread, b->size,
                             (uint8_t)MH_ACCESS_KIND(b));
        }
        mh_grp_key gk;
        mh_grp_key_set(&gk, a->pc, a->launch, a->block, occ, (uint16_t)(warp > UINT16_MAX - 1 ? UINT16_MAX - 1 : warp),
                       (uint8_t)space);
        rc = mh_grp_add_run(pr->grp, &gk, ge, (uint32_t)(j - i), warp * ws, full, err);
    }
    if (!pr->eval_apart) {
        /* the peak of both stages' memory at the end of the record, as one feed's */
        size_t b = pr->bytes + st->bytes[rec] + mh_grp_bytes(pr->grp);
        if (rc == MH_OK && b > pr->peak) pr->peak = b;
        return rc;
    }
    pr->defer = NULL;
    if (rc == MH_OK && mh_stage_record_done(st, rec, st->bytes[rec] + mh_grp_bytes(pr->grp)) != 0)
        rc = mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    return rc;
}

void mh_pat_run_eval_apart(mh_pat_run *pr) { pr->eval_apart = 1; }
void mh_pat_run_keys_all(mh_pat_run *pr) { pr->keys_all = 1; }
void mh_pat_run_owners_apart(mh_pat_run *pr) { pr->owners_apart = 1; }

int mh_pat_cmp_req(const void *a, const void *b) {
    const mh_pat_req *x = a, *y = b;
    if (x->launch != y->launch) return x->launch < y->launch ? -1 : 1;
    if (x->pc != y->pc) return x->pc < y->pc ? -1 : 1;
    return (x->obj > y->obj) - (x->obj < y->obj);
}

int mh_pat_run_finish(mh_pat_run *pr, mh_err *err) {
    while (pr->nps) {
        int rc = end_launch(pr, &pr->ps[0], err);
        if (rc) return rc;
    }
    if (pr->nf) mh_sort(pr->f, pr->nf, sizeof *pr->f, mh_pat_cmp_finding);
    if (pr->nreq) mh_sort(pr->req, pr->nreq, sizeof *pr->req, mh_pat_cmp_req);
    return MH_OK;
}

void mh_pat_run_free(mh_pat_run *pr) {
    if (!pr) return;
    while (pr->nps) free_ps(pr, &pr->ps[0]);
    free(pr->ps);
    mh_stage_seen_free(&pr->seen);
    mh_pat_access_free(pr);
    mh_stage_free(&pr->own);
    for (size_t i = 0; i < pr->nf; i++) free(pr->f[i].pcs);
    free(pr->f);
    mh_occ_free(pr->occ);
    mh_bank_free(&pr->banks);
    free(pr->req);
    mh_grp_free(pr->grp);
    free(pr);
}

const mh_pat_finding *mh_pat_findings(const mh_pat_run *pr, size_t *n) {
    *n = pr->nf;
    return pr->f;
}

const mh_bank_table *mh_pat_banks(const mh_pat_run *pr) { return &pr->banks; }

const mh_pat_req *mh_pat_requests(const mh_pat_run *pr, size_t *n) {
    *n = pr->nreq;
    return pr->req;
}

size_t mh_pat_run_peak_bytes(const mh_pat_run *pr) {
    return pr->peak + pr->banks.cap * sizeof(mh_bank_pc) + pr->capreq * sizeof(mh_pat_req);
}
/* requests split by the group buffer, plus blocks whose execution counts
 * restarted (their later requests may be grouped with the wrong lanes) */
uint64_t mh_pat_run_split(const mh_pat_run *pr) {
    return mh_grp_split(pr->grp) + mh_occ_restarts(pr->occ) + pr->merged_split;
}
