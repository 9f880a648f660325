/* patterns_classify.c -- the classifier of the pattern analysis: which
 * pattern the evidence of an object shows (patterns_state.h, gathered by
 * patterns.c), with the figures and the fix of each finding. A pattern is
 * named only where its own evidence holds (docs/metrics.md, "Classifier
 * thresholds"): a lane stride needs a constant lane-to-lane stride, a stride
 * over time a spacing that most sparse sectors share exactly. */
#include "analyses/patterns_state.h"

#include "analyses/finding.h"

#include <stdio.h>
#include <stdlib.h>
#include "util/grow.h"
#include <string.h>

/* ---- classification ---- */

const char *mh_pat_kind_name(int kind) {
    static const char *const names[MH_PAT_KIND_COUNT] = {
        "hot_spot", "random_hot", "false_sharing", "misaligned", "strided",
        "smem_abuse_thread", "smem_abuse_warp", "bank_conflict", "coalesced", "irregular", "uncoalesced",
        "partial_view", "atomic_contention"};
    return kind >= 0 && kind < MH_PAT_KIND_COUNT ? names[kind] : "unknown";
}

int mh_pat_kind_parse(const char *name) {
    for (int k = 0; k < MH_PAT_KIND_COUNT; k++)
        if (!strcmp(name, mh_pat_kind_name(k))) return k;
    return -1;
}

static mh_pat_finding *new_finding(mh_pat_run *pr, int kind, const mh_model_launch *ml, unsigned space, int64_t obj,
                                   uint64_t pc) {
    {
        mh_pat_finding *v = mh_grow(pr->f, &pr->capf, pr->nf + 1, sizeof *v, 32);
        if (!v) return NULL;
        pr->f = v;
    }
    mh_pat_finding *f = &pr->f[pr->nf++];
    mh_finding_fill(f, pr->model, kind, ml, space, obj, pc);
    return f;
}

static void set_pc_evidence(mh_pat_finding *f, const pcstat *p) {
    if (!p) return;
    f->requests = p->requests;
    f->req_sectors = p->sectors;
    f->ideal_sectors = p->ideal;
    f->elem_size = p->elem_size;
}

static void set_heat_evidence(mh_pat_finding *f, const hsum *h, const mh_heat_row *ex, uint32_t ss) {
    if (!h) return;
    f->sectors = h->rows;
    f->max_word_temp = h->max_word;
    f->max_sector_temp = h->max_sector;
    if (ex) {
        f->has_example = 1;
        f->example = *ex;
        f->example_off = ex->tag * ss >= h->obj_start ? ex->tag * ss - h->obj_start : 0;
    }
}

static const char *obj_name(const mh_pat_finding *f) { return *f->name ? f->name : "this array"; }

/* Top pc (by requests) of an object, NULL if none. */
static const pcstat *top_pc(const pstate *s, unsigned space, int64_t obj) {
    const pcstat *best = NULL;
    for (size_t i = 0; i < s->npcs; i++) {
        const pcstat *p = &s->pcs[i];
        if (p->space == space && p->obj == obj && (!best || p->requests > best->requests)) best = p;
    }
    return best;
}

static int classify_global(mh_pat_run *pr, pstate *s, const mh_model_launch *ml, int64_t obj, const hsum *h) {
    const unsigned sp = MH_SPACE_GLOBAL;
    size_t before = pr->nf;
    uint64_t req = 0, irr = 0, multi = 0, contig_big = 0, sectors = 0, ideal = 0;
    for (size_t i = 0; i < s->npcs; i++) {
        const pcstat *p = &s->pcs[i];
        if (p->space != sp || p->obj != obj) continue;
        req += p->requests;
        irr += p->irregular;
        multi += p->broadcast + p->contig + p->strided + p->irregular;
        contig_big += p->contig - p->contig_small;
        sectors += p->sectors;
        ideal += p->ideal;
    }
    const pcstat *tp = top_pc(s, sp, obj);
    /* False sharing: sectors fetched by several warps that each use few of
     * its words. Warps issuing contiguous requests of a sector or more can
     * only share a sector at their boundaries (misalignment), so they veto. */
    /* Irregular requests (no lane stride: a gather through an index) also
     * fetch sectors for several warps that each use few words, but no
     * thread-to-index swap fixes that: they veto false sharing too. */
    int veto = (multi && contig_big * PAT_FS_CONTIG_DEN >= multi) || (multi && irr * PAT_IRR_REQ_DEN >= multi);
    int fs = h && h->fs && (h->fs * PAT_FS_ROWS_DEN >= h->rows) && !veto;
    /* the same sectors only read (issue 40: false sharing needs writes; the
     * OpenCL simpleMultiply's read-only B): uncoalesced reads, same fix */
    int uc = !fs && h && h->uc && ((h->uc + h->fs) * PAT_FS_ROWS_DEN >= h->rows) && !veto;
    /* hot sectors: reuse by many warps explains an irregular gather (a table lookup) */
    int hot = h && h->hot && (h->hot * PAT_HOT_ROWS_DEN >= h->rows || h->hot >= PAT_HOT_MIN_ROWS);
    double util = h && h->rows ? (double)h->touched_words / (double)(h->rows * MH_HEAT_WORDS) : 0;
    const pcstat *fs_stride = NULL;
    for (size_t i = 0; i < s->npcs; i++) {
        const pcstat *p = &s->pcs[i];
        if (p->space != sp || p->obj != obj) continue;
        uint64_t pm = p->broadcast + p->contig + p->strided + p->irregular;
        if (p->strided * PAT_STRIDED_REQ_DEN >= pm && p->strided &&
            p->excess_strided * PAT_STRIDED_EXCESS_DEN >= p->sectors) {
            if ((fs || uc) && util >= PAT_FS_UTIL) { /* the skipped words are used by other warps: false sharing */
                if (!fs_stride || p->strided > fs_stride->strided) fs_stride = p;
                continue;
            }
            mh_pat_finding *f = new_finding(pr, MH_PAT_STRIDED, ml, sp, obj, p->pc);
            if (!f) return MH_ERR_NOMEM;
            set_pc_evidence(f, p);
            set_heat_evidence(f, h, NULL, sector_size(pr));
            f->flagged = p->strided;
            f->stride = p->stride_cand;
            f->cost = (double)p->excess_strided;
            long long el = p->elem_size ? (long long)(p->stride_cand / (int64_t)p->elem_size) : 0;
            snprintf(f->summary, sizeof f->summary,
                     "%llu of %llu warp requests have lanes %lld bytes (%lld elements) apart: %.2f sectors per "
                     "request where %.2f would do",
                     (unsigned long long)p->strided, (unsigned long long)p->requests, (long long)p->stride_cand, el,
                     (double)p->sectors / (double)p->requests, (double)p->ideal / (double)p->requests);
            snprintf(f->suggestion, sizeof f->suggestion,
                     "swap the thread-to-index mapping so consecutive threads (threadIdx.x) walk the contiguous "
                     "dimension of %s, or transpose it; if the strided elements are reused, stage the tile through "
                     "shared memory with coalesced loads",
                     obj_name(f));
        }
        if (!hot && p->irregular && p->irregular * PAT_IRR_REQ_DEN >= pm &&
            p->excess_irreg * PAT_IRR_EXCESS_DEN >= p->sectors) {
            mh_pat_finding *f = new_finding(pr, MH_PAT_IRREGULAR, ml, sp, obj, p->pc);
            if (!f) return MH_ERR_NOMEM;
            set_pc_evidence(f, p);
            set_heat_evidence(f, h, NULL, sector_size(pr));
            f->flagged = p->irregular;
            f->cost = (double)p->excess_irreg;
            snprintf(f->summary, sizeof f->summary,
                     "%llu of %llu warp requests have lanes at no common stride (an indexed gather or scatter): "
                     "%.2f sectors per request where %.2f would do",
                     (unsigned long long)p->irregular, (unsigned long long)p->requests,
                     (double)p->sectors / (double)p->requests, (double)p->ideal / (double)p->requests);
            snprintf(f->suggestion, sizeof f->suggestion,
                     "the lanes of a warp read scattered elements of %s: sort or renumber the indices so neighbouring "
                     "threads use neighbouring elements (e.g. reorder rows/columns, RCM for sparse matrices), or "
                     "gather the needed part once per block through shared memory",
                     obj_name(f));
        }
        if (p->misaligned && p->misaligned * PAT_MIS_REQ_DEN >= pm && p->excess_mis * PAT_MIS_EXCESS_DEN >= p->sectors) {
            mh_pat_finding *f = new_finding(pr, MH_PAT_MISALIGNED, ml, sp, obj, p->pc);
            if (!f) return MH_ERR_NOMEM;
            set_pc_evidence(f, p);
            set_heat_evidence(f, h, NULL, sector_size(pr));
            f->flagged = p->misaligned;
            f->cost = (double)p->excess_mis;
            snprintf(f->summary, sizeof f->summary,
                     "%llu of %llu contiguous warp requests straddle sector boundaries: %llu extra sectors; e.g. a "
                     "request at offset %llu (%llu bytes past a sector)",
                     (unsigned long long)p->misaligned, (unsigned long long)p->contig,
                     (unsigned long long)p->excess_mis, (unsigned long long)p->ex_off,
                     (unsigned long long)(p->ex_off % sector_size(pr)));
            snprintf(f->suggestion, sizeof f->suggestion,
                     "align each warp's first element of %s to a 32-byte sector: pad rows to a multiple of 32 bytes "
                     "(cudaMallocPitch), shift the index or allocate with alignment; aligned data also allows vector "
                     "loads (float2/float4)",
                     obj_name(f));
        }
    }
    /* Strided over time (CUTHERMO Fig. 6(d)): most sectors have one or two of
     * their words used, at a regular spacing, e.g. a column walked by a loop
     * while all lanes read the same element. Only when no pc showed a lane
     * stride already. */
    int have_strided = 0;
    for (size_t i = before; i < pr->nf; i++) have_strided |= pr->f[i].kind == MH_PAT_STRIDED;
    /* a stride is lane-ordered: lanes in no common order (a data-dependent
     * read of evenly spaced hot words, issue 40) are no stride over time */
    if (!have_strided && !fs && !uc && !(multi && irr * PAT_IRR_REQ_DEN >= multi) && h &&
        h->rows >= PAT_SPARSE_MIN_ROWS && h->sparse * PAT_SPARSE_ROWS_DEN >= h->rows &&
        h->sparse_deltas && h->delta_exact >= PAT_SPARSE_MIN_MATCH &&
        h->delta_exact * PAT_SPARSE_DELTA_DEN >= h->sparse_deltas &&
        h->delta_cand > PAT_SPARSE_MIN_STRIDE) {
        /* Misra-Gries gave the candidate; the second pass counted its exact matches */
        mh_pat_finding *f = new_finding(pr, MH_PAT_STRIDED, ml, sp, obj, tp ? tp->pc : 0);
        if (!f) return MH_ERR_NOMEM;
        set_pc_evidence(f, tp);
        set_heat_evidence(f, h, &h->ex_sparse, sector_size(pr));
        f->flagged = h->sparse;
        f->stride = h->delta_cand;
        f->cost = h->sparse_cost;
        snprintf(f->summary, sizeof f->summary,
                 "%llu of %llu sectors have at most 2 of 8 words used, %lld bytes apart: %.0f%% of the fetched bytes "
                 "are never used",
                 (unsigned long long)h->sparse, (unsigned long long)h->rows, (long long)h->delta_cand,
                 100.0 * (1.0 - (double)h->touched_words / (double)(h->rows * MH_HEAT_WORDS)));
        snprintf(f->suggestion, sizeof f->suggestion,
                 "%s is walked with a %lld-byte stride: transpose it (or swap the index order) so the elements read "
                 "together are adjacent, or stage the needed part through shared memory",
                 obj_name(f), (long long)h->delta_cand);
    }
    /* hot sectors whose words only atomics touched: their cause is the
     * atomics' serialisation, the atomic-contention analysis's finding */
    if (hot && h->hot_atomic < h->hot) {
        int random = h->hot_random * PAT_RANDOM_DEN > h->hot || (req && irr * PAT_RANDOM_DEN > req);
        mh_pat_finding *f = new_finding(pr, random ? MH_PAT_RANDOM_HOT : MH_PAT_HOT, ml, sp, obj, tp ? tp->pc : 0);
        if (!f) return MH_ERR_NOMEM;
        set_pc_evidence(f, tp);
        set_heat_evidence(f, h, &h->ex_hot, sector_size(pr));
        f->flagged = h->hot;
        f->cost = h->hot_cost;
        snprintf(f->summary, sizeof f->summary,
                 "%llu of %llu sectors are read by >= %u warps (up to %u per word, %u per sector)%s",
                 (unsigned long long)h->hot, (unsigned long long)h->rows, hot_threshold(ml), h->max_word,
                 h->max_sector, random ? "; word temperatures vary (data-dependent sharing)" : "");
        if (random)
            snprintf(f->suggestion, sizeof f->suggestion,
                     "data-dependent reads of %s are shared by varying numbers of warps: stage the hot part in "
                     "shared memory, or reorder/sort the indices so a warp's reads fall into few sectors",
                     obj_name(f));
        else
            snprintf(f->suggestion, sizeof f->suggestion,
                     "the same sectors of %s are fetched by many warps: load them once per block into shared "
                     "memory (or registers / constant memory when read-only and uniform) and reuse from there",
                     obj_name(f));
    }
    if (fs || uc) {
        const pcstat *fp = fs_stride ? fs_stride : tp;
        mh_pat_finding *f = new_finding(pr, fs ? MH_PAT_FALSE_SHARING : MH_PAT_UNCOALESCED, ml, sp, obj, fp ? fp->pc : 0);
        if (!f) return MH_ERR_NOMEM;
        set_pc_evidence(f, fp);
        set_heat_evidence(f, h, fs ? &h->ex_fs : &h->ex_uc, sector_size(pr));
        f->flagged = fs ? h->fs : h->uc;
        f->cost = fs ? h->fs_cost : h->uc_cost;
        if (fs_stride) {
            f->stride = fs_stride->stride_cand;
            if (fs_stride->excess_strided > f->cost) f->cost = (double)fs_stride->excess_strided;
        }
        snprintf(f->summary, sizeof f->summary,
                 "%llu of %llu sectors are %s by several warps that each use few of its words (sector "
                 "temperature >= 2x the hottest word)%s%s",
                 (unsigned long long)f->flagged, (unsigned long long)h->rows, fs ? "written" : "read",
                 fs ? "" : "; read only, so not false sharing",
                 fs_stride ? "; within a warp, lanes are a fixed stride apart" : "");
        snprintf(f->suggestion, sizeof f->suggestion,
                 "swap the thread-to-index mapping so that one warp covers whole sectors of %s (threadIdx.x along "
                 "the contiguous dimension); the words of a sector are then fetched by one request",
                 obj_name(f));
    }
    if (pr->nf == before && req && sectors <= ideal + ideal / 10 + 1 && !fs && !uc &&
        !(hot && h->hot_atomic == h->hot)) {
        mh_pat_finding *f = new_finding(pr, MH_PAT_COALESCED, ml, sp, obj, tp ? tp->pc : 0);
        if (!f) return MH_ERR_NOMEM;
        set_pc_evidence(f, tp);
        set_heat_evidence(f, h, NULL, sector_size(pr));
        f->requests = req;
        f->req_sectors = sectors;
        f->ideal_sectors = ideal;
        f->cost = 0;
        snprintf(f->summary, sizeof f->summary, "%.2f sectors per warp request, %.2f needed",
                 (double)sectors / (double)req, (double)ideal / (double)req);
        snprintf(f->suggestion, sizeof f->suggestion, "none: accesses to %s are well coalesced", obj_name(f));
    }
    return MH_OK;
}

/* An unrolled tree reduction (issue 40): the compiler unrolls `for (s = 1;
 * s < N; s *= 2) a[2*s*i] += a[2*s*i + s]`, so each step is a pc of its own,
 * run once per thread, and mh_bank_growing_stride (which compares a pc's
 * executions) sees no growth. Across the launch's conflicting pcs of one
 * object, in pc order, the words one bank serves double from step to step
 * (2, 4, 8, ...; a step's loads and store repeat a degree): PAT_BANK_CHAIN
 * doublings in a row name the reduction. A tile read by columns has one
 * degree at all its pcs. */
static int bank_chain(const mh_pat_run *pr, uint32_t launch, int64_t obj) {
    uint32_t cur = 0;
    unsigned len = 0, best = 0;
    for (size_t i = 0; i < pr->banks.n; i++) { /* a launch's entries are in pc order (mh_bank_sort_launch) */
        const mh_bank_pc *b = &pr->banks.v[i];
        if (b->launch != launch || b->obj != obj || !b->extra) continue;
        uint32_t d = b->max_worst;
        if (d == cur) continue;
        if (cur >= 2 && d == 2 * cur) len++;
        else len = d >= 2 ? 1 : 0;
        cur = d;
        if (len > best) best = len;
    }
    return best >= PAT_BANK_CHAIN;
}

/* A shared object only partly seen (issue 40, docs/metrics.md section 10):
 * at least 1/PAT_PARTIAL_DEN of the words the traced instructions read were
 * never written by a traced store (a tile filled by TMA or cp.async), or
 * only stores were seen (read back by wgmma or a TMA store). Its shared
 * findings would be drawn from a fragment. */
static int partial_view(const hsum *h) {
    uint64_t rd = h->w_load_only + h->w_both;
    if (h->w_load_only >= PAT_PARTIAL_MIN_WORDS && h->w_load_only * PAT_PARTIAL_DEN >= rd) return 1;
    return rd == 0 && h->w_store_only >= PAT_PARTIAL_MIN_WORDS;
}

static const hsum *shared_hsum(const pstate *s, int64_t obj) {
    for (size_t i = 0; i < s->nhs; i++)
        if (s->hs[i].space == MH_SPACE_SHARED && s->hs[i].obj == obj) return &s->hs[i];
    return NULL;
}

static int partial_obj(const pstate *s, int64_t obj) {
    const hsum *h = shared_hsum(s, obj);
    return h && partial_view(h);
}

int mh_pat_classify_launch(mh_pat_run *pr, pstate *s) {
    const mh_model_launch *ml = mh_model_launch_get(pr->model, s->launch);
    /* global objects: union of heat summaries and pc statistics */
    for (size_t i = 0; i < s->nhs; i++)
        if (s->hs[i].space == MH_SPACE_GLOBAL && classify_global(pr, s, ml, s->hs[i].obj, &s->hs[i]) != MH_OK)
            return MH_ERR_NOMEM;
    for (size_t i = 0; i < s->npcs; i++) {
        const pcstat *p = &s->pcs[i];
        if (p->space != MH_SPACE_GLOBAL) continue;
        int seen = 0;
        for (size_t j = 0; j < s->nhs && !seen; j++) seen = s->hs[j].space == MH_SPACE_GLOBAL && s->hs[j].obj == p->obj;
        for (size_t j = 0; j < i && !seen; j++) seen = s->pcs[j].space == MH_SPACE_GLOBAL && s->pcs[j].obj == p->obj;
        if (!seen && classify_global(pr, s, ml, p->obj, NULL) != MH_OK) return MH_ERR_NOMEM;
    }
    /* shared objects seen in part: one informational finding each, and no other shared finding */
    for (size_t i = 0; i < s->nhs; i++) {
        const hsum *h = &s->hs[i];
        if (h->space != MH_SPACE_SHARED || !partial_view(h)) continue;
        mh_pat_finding *f = new_finding(pr, MH_PAT_PARTIAL_VIEW, ml, MH_SPACE_SHARED, h->obj, 0);
        if (!f) return MH_ERR_NOMEM;
        f->flagged = h->w_load_only ? h->w_load_only : h->w_store_only;
        f->sectors = h->w_load_only + h->w_store_only + h->w_both;
        f->cost = 0;
        if (h->w_load_only)
            snprintf(f->summary, sizeof f->summary,
                     "%llu of the %llu words of %s this launch reads were never written by an instruction memheat "
                     "sees: shared memory filled by copies the collector does not trace (TMA bulk copies, cp.async; "
                     "docs/metrics.md section 10)",
                     (unsigned long long)h->w_load_only, (unsigned long long)(h->w_load_only + h->w_both),
                     obj_name(f));
        else
            snprintf(f->summary, sizeof f->summary,
                     "the %llu words of %s this launch writes are never read by an instruction memheat sees: read "
                     "back by instructions the collector does not trace (wgmma, TMA stores; docs/metrics.md "
                     "section 10)",
                     (unsigned long long)h->w_store_only, obj_name(f));
        snprintf(f->suggestion, sizeof f->suggestion,
                 "none from a partial view: no bank-conflict or shared-memory-abuse finding is drawn for %s; "
                 "Nsight Compute's shared-memory counters (l1tex__data_bank_conflicts_pipe_lsu_mem_shared) see "
                 "all of its traffic",
                 obj_name(f));
    }
    /* shared objects: word owners */
    if (mh_pat_pacc_count(&s->sh, &pr->bytes) != MH_OK) return MH_ERR_NOMEM;
    for (size_t i = 0; i < s->sh.nso; i++) {
        const sobj *so = &s->sh.so[i];
        if (so->cells < PAT_SMEM_MIN_CELLS || so->cross * PAT_SMEM_CROSS_DEN > so->cells) continue;
        if (partial_obj(s, so->obj)) continue;
        int warp = so->warp * PAT_SMEM_WARP_DEN >= so->priv + so->warp;
        mh_pat_finding *f = new_finding(pr, warp ? MH_PAT_SMEM_WARP : MH_PAT_SMEM_THREAD, ml, MH_SPACE_SHARED, so->obj,
                                        0);
        if (!f) return MH_ERR_NOMEM;
        const pcstat *tp = NULL;
        (void)tp;
        f->flagged = warp ? so->warp : so->priv;
        f->sectors = so->cells;
        f->requests = so->accesses;
        f->cost = (double)so->accesses / PAT_SMEM_COST_DIV;
        f->max_word_temp = 1;
        snprintf(f->summary, sizeof f->summary,
                 "%llu (block, word) cells of %s: %llu used by one thread, %llu by several threads of one warp, %llu "
                 "by several warps",
                 (unsigned long long)so->cells, f->label && *f->label ? f->label : "the shared array",
                 (unsigned long long)so->priv, (unsigned long long)so->warp, (unsigned long long)so->cross);
        if (warp)
            snprintf(f->suggestion, sizeof f->suggestion,
                     "values of %s are only exchanged inside a warp: keep them in registers and pass them with "
                     "__shfl_sync(0xffffffff, v, srcLane); drop the shared array and its __syncthreads",
                     obj_name(f));
        else
            snprintf(f->suggestion, sizeof f->suggestion,
                     "each word of %s is used by a single thread: keep the value in a register (a local variable) "
                     "instead of shared memory and drop the related __syncthreads",
                     obj_name(f));
    }
    /* bank conflicts of this launch */
    for (size_t i = 0; i < pr->banks.n; i++) {
        const mh_bank_pc *b = &pr->banks.v[i];
        if (b->launch != s->launch || !b->requests) continue;
        if (!b->extra || b->extra * PAT_BANK_EXTRA_DEN < b->ideal) continue;
        if (partial_obj(s, b->obj)) continue;
        double avg = (double)b->sum_degree / (double)b->requests;
        mh_pat_finding *f = new_finding(pr, MH_PAT_BANK_CONFLICT, ml, MH_SPACE_SHARED, b->obj, b->pc);
        if (!f) return MH_ERR_NOMEM;
        f->requests = b->requests;
        f->degree_avg = avg;
        f->degree_max = b->max_degree;
        f->flagged = b->extra;
        f->cost = (double)b->extra;
        snprintf(f->summary, sizeof f->summary,
                 "%llu warp accesses, %.2f wavefronts each on average (%.2f without conflicts), %u at most; up to %u "
                 "words of one bank in one phase (block %u, warp %u, execution %u of the pc: %u extra): %llu extra "
                 "wavefronts",
                 (unsigned long long)b->requests, avg, (double)b->ideal / (double)b->requests, b->max_degree,
                 b->max_worst, b->ex_block, b->ex_warp, b->ex_occ + 1, b->ex_extra, (unsigned long long)b->extra);
        if (mh_bank_growing_stride(b) || bank_chain(pr, s->launch, b->obj))
            snprintf(f->suggestion, sizeof f->suggestion,
                     "the words one bank serves in a phase change from %u to %u between executions of this "
                     "instruction in %s: a loop whose stride grows, like a tree reduction indexed a[2*s*i]; use "
                     "sequential addressing (for s = n/2 down to 1, element i < s adds a[i + s], a barrier between "
                     "steps), so that the active lanes read consecutive words",
                     b->worst_occ[0], b->max_worst, obj_name(f));
        else
            snprintf(f->suggestion, sizeof f->suggestion,
                     "lanes of one phase hit up to %u different words of one bank in %s: pad the inner dimension by "
                     "one word (e.g. [N][N+1]) or swap the index order/transpose the tile so consecutive lanes use "
                     "consecutive words",
                     b->max_worst, obj_name(f));
    }
    return MH_OK;
}

