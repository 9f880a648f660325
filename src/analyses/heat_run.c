/* heat_run.c -- drives heat maps from a trace and writes them out.
 *
 * One map per (launch, address space), created at the launch's first access
 * and handed to the caller's emit callback when its KERNEL_END arrives, then
 * freed: memory follows the launches in flight, not the trace length. A map
 * is MH_HEAT_PARTS tables, one per part of the sectors (mh_heat_part), made
 * when the part's first sector comes: one run fills all, or
 * (mh_heat_run_split) two or four runs on as many threads share them, with
 * the same tables either way; the parts' rows are taken (on helper threads
 * when several runs fill big ones) and merged in tag order when the map is
 * emitted. Regions
 * (the data objects the sectors fall in) are resolved once per run of rows,
 * after sorting, never per access. Also the CSV, region-file and terminal
 * renderings of a finished map (src/analyses/heat.h). */
#include <assert.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/heat.h"
#include "util/grow.h"

typedef struct launch_maps {
    uint32_t id;
    const mh_model_launch *ml;
    mh_heat *map[MH_HEAT_PARTS][MH_SPACE_COUNT]; /* by part, then space */
    uint64_t accesses[MH_SPACE_COUNT]; /* counted by the run of each access's first sector's part */
} launch_maps;

struct mh_heat_run {
    mh_model *model;
    mh_heat_run_opts o;
    launch_maps *open;  /* launches with maps in flight */
    size_t nopen, capopen;
    launch_maps *last;  /* cache for runs of accesses of one launch */
    size_t peak_bytes;
    uint32_t warp_shift; /* log2(warp size) when a power of two, else 0 */
    uint32_t warp_size;  /* from the trace header */
    uint32_t sector_size; /* from the trace header (the map layout needs 32) */
    unsigned own;         /* parts whose tables this run fills: bit p = part p */
    mh_heat_run *peer[MH_HEAT_PARTS - 1]; /* the runs that fill the other parts, on the part-0 run */
    unsigned npeers;
};

#define ALL_PARTS ((1u << MH_HEAT_PARTS) - 1)

int mh_heat_run_new(mh_heat_run **out, mh_model *model, const mh_heat_run_opts *o, mh_err *err) {
    *out = NULL;
    if (model->hdr.device.sector_size != 4u * MH_HEAT_WORDS) /* eight 4-byte words per sector */
        return mh_err_set(err, MH_ERR_FORMAT, "heat maps need 32-byte sectors (trace says %u)",
                          model->hdr.device.sector_size);
    mh_heat_run *hr = calloc(1, sizeof *hr);
    if (!hr) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    hr->model = model;
    hr->o = *o;
    hr->own = ALL_PARTS;
    if (!hr->o.space_mask) hr->o.space_mask = (1u << MH_SPACE_COUNT) - 1;
    hr->sector_size = model->hdr.device.sector_size;
    hr->warp_size = model->hdr.device.warp_size ? model->hdr.device.warp_size : 32; /* 0 = unknown: NVIDIA's */
    for (uint32_t sh = 1; sh < 11; sh++)
        if (hr->warp_size == 1u << sh) hr->warp_shift = sh;
    *out = hr;
    return MH_OK;
}

int mh_heat_run_split(mh_heat_run *hr, unsigned n, mh_heat_run **peers, mh_err *err) {
    assert((n == 2 || n == 4) && MH_HEAT_PARTS % n == 0);
    assert(hr->own == ALL_PARTS && hr->nopen == 0 && hr->npeers == 0);
    unsigned k = MH_HEAT_PARTS / n, mask = (1u << k) - 1;
    for (unsigned i = 1; i < n; i++) {
        int rc = mh_heat_run_new(&peers[i - 1], hr->model, &hr->o, err);
        if (rc != MH_OK) {
            while (--i > 0) mh_heat_run_free(peers[i - 1]);
            hr->npeers = 0;
            return rc;
        }
        peers[i - 1]->own = mask << (i * k);
        hr->peer[i - 1] = peers[i - 1];
    }
    hr->own = mask;
    hr->npeers = n - 1;
    return MH_OK;
}

static size_t maps_bytes(const mh_heat_run *hr) {
    size_t b = 0;
    for (size_t i = 0; i < hr->nopen; i++)
        for (int p = 0; p < MH_HEAT_PARTS; p++)
            for (int s = 0; s < MH_SPACE_COUNT; s++)
                if (hr->open[i].map[p][s]) b += mh_heat_bytes(hr->open[i].map[p][s]);
    return b;
}

static launch_maps *find_open(mh_heat_run *hr, uint32_t id, mh_err *err) {
    if (hr->last && hr->last->id == id) return hr->last;
    for (size_t i = 0; i < hr->nopen; i++)
        if (hr->open[i].id == id) return hr->last = &hr->open[i];
    const mh_model_launch *ml = mh_model_launch_get(hr->model, id);
    if (!ml) {
        mh_err_set(err, MH_ERR_FORMAT, "access refers to launch %u, which the trace never announced", id);
        return NULL;
    }
    if (hr->nopen == hr->capopen) {
        launch_maps *p = mh_grow(hr->open, &hr->capopen, hr->nopen + 1, sizeof *p, 8);
        if (!p) {
            mh_err_set(err, MH_ERR_NOMEM, "out of memory");
            return NULL;
        }
        hr->open = p;
    }
    launch_maps *lm = &hr->open[hr->nopen++];
    memset(lm, 0, sizeof *lm);
    lm->id = id;
    lm->ml = ml;
    return hr->last = lm;
}

/* Assigns every row a region: the data object its sector starts in (or ends
 * in, for a sector that straddles an object's start); rows outside every
 * object form regions of their own. A kernel argument's view (model.h) that
 * holds the row's first touched word owns the row, so a tensor starting
 * mid-sector keeps its first sector (traces without argument records are
 * assigned as before). */
static int build_regions(const mh_model *m, const mh_model_launch *ml, unsigned space, uint32_t ss, mh_heat_row *rows,
                         size_t n, mh_heat_region **out, size_t *nout, mh_err *err) {
    assert(ss > 0);
    mh_heat_region *reg = NULL;
    size_t nreg = 0, cap = 0;
    int64_t cur = -2;
    uint64_t cur_lo = 0, cur_hi = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t a = rows[i].tag * ss;
        int64_t obj;
        assert(i == 0 || rows[i - 1].tag < rows[i].tag); /* sorted, distinct */
        uint64_t fw = a; /* first touched word */
        for (unsigned w = 0; w < MH_HEAT_WORDS; w++)
            if (rows[i].word[w]) {
                fw = a + (uint64_t)(ss / MH_HEAT_WORDS) * w;
                break;
            }
        int64_t view = -1;
        if (m->nviews && !(cur >= 0 && fw >= cur_lo && fw < cur_hi)) {
            view = mh_model_find_obj(m, space, ml->l.id, fw);
            if (view >= 0 && m->objs[view].arg < 0) view = -1;
        }
        if (view >= 0)
            obj = view;
        else if (cur >= 0 && a + ss - 1 >= cur_lo && a < cur_hi)
            obj = cur;
        else {
            obj = mh_model_find_obj(m, space, ml->l.id, a);
            if (obj < 0) obj = mh_model_find_obj(m, space, ml->l.id, a + ss - 1);
        }
        if (obj != cur || nreg == 0) {
            if (nreg == cap) {
                mh_heat_region *p = mh_grow(reg, &cap, nreg + 1, sizeof *p, 16);
                if (!p) {
                    free(reg);
                    return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
                }
                reg = p;
            }
            mh_heat_region *r = &reg[nreg++];
            memset(r, 0, sizeof *r);
            r->obj = obj;
            r->first_row = i;
            if (obj >= 0) {
                const mh_alloc *al = &m->objs[obj].a;
                r->label = al->label;
                r->start = al->base;
                r->end = al->base + al->size;
                cur_lo = r->start;
                cur_hi = r->end;
            } else {
                r->label = space == MH_SPACE_SHARED ? "(shared window)" : "(no known object)";
                r->start = a;
            }
            cur = obj;
        }
        mh_heat_region *r = &reg[nreg - 1];
        r->nrows++;
        if (obj < 0) r->end = a + ss;
        rows[i].region = (int32_t)(nreg - 1);
        unsigned w0 = MH_HEAT_WORDS, w1 = 0;
        for (unsigned w = 0; w < MH_HEAT_WORDS; w++)
            if (rows[i].word[w]) {
                if (w0 == MH_HEAT_WORDS) w0 = w;
                w1 = w + 1;
            }
        if (w0 < MH_HEAT_WORDS) {
            uint64_t wb = ss / MH_HEAT_WORDS, lo = a + wb * w0, hi = a + wb * w1;
            if (r->used_hi == 0) r->used_lo = lo;
            r->used_hi = hi;
        }
    }
    for (size_t k = 0; k < nreg; k++) {
        reg[k].first_tag = reg[k].start / ss;
        reg[k].last_tag = reg[k].end ? (reg[k].end - 1) / ss : 0;
    }
    *out = reg;
    *nout = nreg;
    return MH_OK;
}

/* The rows of *map, or none where it is NULL; the map freed. */
static int take_map(mh_heat **map, mh_heat_row **rows, size_t *n, mh_err *err) {
    *rows = NULL;
    *n = 0;
    if (!*map) return MH_OK;
    int rc = mh_heat_take_rows(*map, rows, n, err);
    mh_heat_free(*map);
    *map = NULL;
    return rc;
}

/* take_map on a helper thread (another part's map of a big launch). */
typedef struct take_job {
    mh_heat **map;
    mh_heat_row *rows;
    size_t n;
    mh_err err;
    int rc;
} take_job;

static void *take_main(void *arg) {
    take_job *j = arg;
    j->rc = take_map(j->map, &j->rows, &j->n, &j->err);
    return NULL;
}

#define TAKE_HELP_MIN ((size_t)1 << 16) /* sectors of a part that make a helper thread worth starting */

/* The parts' rows (each sorted by tag, their tags disjoint) merged into
 * one sorted array, *out (*nout); the parts' arrays are freed. */
static int merge_parts(mh_heat_row *rows[MH_HEAT_PARTS], const size_t n[MH_HEAT_PARTS], mh_heat_row **out,
                       size_t *nout, mh_err *err) {
    size_t total = 0, at[MH_HEAT_PARTS] = {0};
    int nonempty = 0, last = 0;
    for (int q = 0; q < MH_HEAT_PARTS; q++) {
        total += n[q];
        if (n[q]) nonempty++, last = q;
    }
    *out = NULL;
    *nout = 0;
    if (nonempty <= 1) { /* one part's rows are the map's */
        for (int q = 0; q < MH_HEAT_PARTS; q++)
            if (q != last) free(rows[q]);
        *out = rows[last];
        *nout = n[last];
        return MH_OK;
    }
    mh_heat_row *v = total <= SIZE_MAX / sizeof *v ? malloc(total * sizeof *v) : NULL;
    if (!v) {
        for (int q = 0; q < MH_HEAT_PARTS; q++) free(rows[q]);
        return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    }
    /* the part of the smallest next tag gives rows up to the next one of
     * another part's (runs of a 256-byte block's sectors, or longer) */
    for (size_t k = 0; k < total;) {
        int best = -1;
        uint64_t lim = UINT64_MAX;
        for (int q = 0; q < MH_HEAT_PARTS; q++) {
            if (at[q] == n[q]) continue;
            uint64_t t = rows[q][at[q]].tag;
            if (best < 0 || t < rows[best][at[best]].tag) {
                if (best >= 0) lim = rows[best][at[best]].tag;
                best = q;
            } else if (t < lim) {
                lim = t;
            }
        }
        do v[k++] = rows[best][at[best]++];
        while (at[best] < n[best] && rows[best][at[best]].tag < lim);
    }
    for (int q = 0; q < MH_HEAT_PARTS; q++) free(rows[q]);
    *out = v;
    *nout = total;
    return MH_OK;
}

static launch_maps *find_id(mh_heat_run *hr, uint32_t id) {
    for (size_t i = 0; i < hr->nopen; i++)
        if (hr->open[i].id == id) return &hr->open[i];
    return NULL;
}

static void drop_open(mh_heat_run *hr, launch_maps *lm) {
    for (int p = 0; p < MH_HEAT_PARTS; p++)
        for (int s = 0; s < MH_SPACE_COUNT; s++) mh_heat_free(lm->map[p][s]);
    size_t i = (size_t)(lm - hr->open);
    hr->open[i] = hr->open[--hr->nopen];
    hr->last = NULL;
}

/* Emits lm's maps (with the peers' tables of the launch, which are dropped
 * from the peers' lists). */
static int emit_launch(mh_heat_run *hr, launch_maps *lm, mh_err *err) {
    launch_maps *pl[MH_HEAT_PARTS - 1] = {NULL};
    size_t b = maps_bytes(hr);
    for (unsigned k = 0; k < hr->npeers; k++) {
        pl[k] = find_id(hr->peer[k], lm->id);
        b += maps_bytes(hr->peer[k]);
    }
    if (b > hr->peak_bytes) hr->peak_bytes = b;
    int rc = MH_OK;
    for (unsigned s = 0; s < MH_SPACE_COUNT && rc == MH_OK; s++) {
        mh_heat **m[MH_HEAT_PARTS]; /* part q's table, where the run that owns q keeps it */
        uint64_t acc = lm->accesses[s];
        int any = 0;
        for (int q = 0; q < MH_HEAT_PARTS; q++) {
            m[q] = hr->own >> q & 1 ? &lm->map[q][s] : NULL;
            for (unsigned k = 0; !m[q] && k < hr->npeers; k++)
                if (hr->peer[k]->own >> q & 1) m[q] = pl[k] ? &pl[k]->map[q][s] : NULL;
            any |= m[q] && *m[q];
        }
        for (unsigned k = 0; k < hr->npeers; k++) acc += pl[k] ? pl[k]->accesses[s] : 0;
        if (!any) continue;
        /* the parts' rows, each sorted: with several runs (many threads),
         * the big ones beside this thread's on helper threads */
        take_job j[MH_HEAT_PARTS];
        pthread_t helper[MH_HEAT_PARTS];
        int helped[MH_HEAT_PARTS] = {0};
        mh_heat *absent[MH_HEAT_PARTS] = {NULL};
        for (int q = 0; q < MH_HEAT_PARTS; q++) {
            j[q] = (take_job){m[q] ? m[q] : &absent[q], NULL, 0, {0}, MH_OK};
            helped[q] = q > 0 && hr->npeers && m[q] && *m[q] && mh_heat_count(*m[q]) >= TAKE_HELP_MIN &&
                        pthread_create(&helper[q], NULL, take_main, &j[q]) == 0;
        }
        for (int q = 0; q < MH_HEAT_PARTS; q++)
            if (!helped[q]) take_main(&j[q]);
        mh_heat_row *rows[MH_HEAT_PARTS], *all = NULL;
        size_t n[MH_HEAT_PARTS], nall = 0;
        for (int q = 0; q < MH_HEAT_PARTS; q++) {
            if (helped[q]) pthread_join(helper[q], NULL);
            if (j[q].rc != MH_OK && rc == MH_OK) {
                rc = j[q].rc;
                if (err) *err = j[q].err;
            }
            rows[q] = j[q].rows;
            n[q] = j[q].n;
        }
        if (rc == MH_OK) {
            rc = merge_parts(rows, n, &all, &nall, err);
        } else {
            for (int q = 0; q < MH_HEAT_PARTS; q++) free(rows[q]);
        }
        mh_heat_region *reg = NULL;
        size_t nreg = 0;
        if (rc == MH_OK && nall > 0) rc = build_regions(hr->model, lm->ml, s, hr->sector_size, all, nall, &reg, &nreg, err);
        if (rc == MH_OK && nall > 0 && hr->o.emit) {
            mh_heat_result r = {hr->model, lm->ml, s, hr->sector_size, acc, all, nall, reg, nreg};
            rc = hr->o.emit(hr->o.ctx, &r, err);
        }
        free(all);
        free(reg);
    }
    for (unsigned k = 0; k < hr->npeers; k++)
        if (pl[k]) drop_open(hr->peer[k], pl[k]);
    return rc;
}

/* The parts (bit p: part p) of the sectors [addr, addr + size) touches. */
static unsigned parts_of(uint64_t addr, uint32_t size) {
    uint64_t last = addr + (size ? size : 1) - 1;
    if (last < addr) last = UINT64_MAX;
    unsigned parts = 0;
    for (uint64_t tag = addr >> 5;; tag++) {
        parts |= 1u << mh_heat_part(tag);
        if (tag == last >> 5 || parts == ALL_PARTS) break;
    }
    return parts;
}

/* mh_heat_add of an access that is not inside one word, sector by sector
 * into the table of the sector's part, where own has it. */
static int add_wide(mh_heat *const map[MH_HEAT_PARTS], unsigned own, uint64_t addr, uint32_t size, uint32_t warp,
                    unsigned kind) {
    uint64_t last = addr + (size ? size : 1) - 1;
    if (last < addr) last = UINT64_MAX;
    for (uint64_t tag = addr >> 5;; tag++) {
        unsigned pt = mh_heat_part(tag);
        if (own >> pt & 1) {
            uint64_t lo = tag << 5 > addr ? tag << 5 : addr;
            uint64_t hi = (tag << 5) + 31 < last ? (tag << 5) + 31 : last;
            assert(map[pt]);
            int rc = mh_heat_add(map[pt], lo, (uint32_t)(hi - lo + 1), warp, kind);
            if (rc) return rc;
        }
        if (tag == last >> 5) break;
    }
    return MH_OK;
}

int mh_heat_run_feed(mh_heat_run *hr, const mh_record *rec, mh_err *err) {
    if (rec->type == MH_REC_KERNEL_END) {
        if (!(hr->own & 1)) return MH_OK; /* the part-0 run emits, with this run's tables */
        launch_maps *lm = find_id(hr, rec->u.kernel_end.launch);
        if (!lm) return MH_OK;
        int rc = emit_launch(hr, lm, err);
        drop_open(hr, lm);
        return rc;
    }
    if (rec->type == MH_REC_LAUNCH) {
        /* the model may have moved its launch array to add this one: open
         * maps keep pointers into it */
        for (size_t i = 0; i < hr->nopen; i++) hr->open[i].ml = mh_model_launch_get(hr->model, hr->open[i].id);
        return MH_OK;
    }
    if (rec->type != MH_REC_ACCESSES) return MH_OK;
    const mh_access *v = rec->u.accesses.v;
    size_t n = rec->u.accesses.n;
    /* Groups of PF accesses: resolve each one's table and start loading the
     * slot of each new sector, then update. The loads of a group overlap
     * instead of waiting one after another (scattered sectors miss every
     * cache). The accesses of one warp to the words of one sector that
     * follow each other (a warp's lanes: eight 4-byte words per sector) go
     * into the table as one update (mh_heat_add_words). An access that is
     * not inside one word goes in sector by sector (add_wide: wide[i]). */
    enum { PF = 64 };
    mh_heat *maps[PF], *mapw[PF][MH_HEAT_PARTS];
    uint32_t warps[PF];
    unsigned char wide[PF];
    const unsigned own = hr->own, lead = own & 1;
    mh_heat *pm = NULL; /* the pending update: table, sector, warp, words and their kinds */
    uint64_t ptag = 0;
    uint32_t pwarp = 0, pwords = 0, pkinds = 0;
    for (size_t base = 0; base < n; base += PF) {
        size_t k = n - base < PF ? n - base : PF;
        uint64_t last_tag = UINT64_MAX;
        const mh_heat *last_map = NULL;
        for (size_t i = 0; i < k; i++) {
            const mh_access *a = &v[base + i];
            maps[i] = NULL;
            unsigned s = MH_ACCESS_SPACE(a);
            if (s >= MH_SPACE_COUNT || !(hr->o.space_mask & (1u << s))) continue;
            uint64_t tag = a->addr >> 5;
            unsigned pt = mh_heat_part(tag);
            wide[i] = !(a->size - 1 < 4 && (a->addr & 3) + a->size <= 4);
            unsigned mine = own >> pt & 1;
            /* a one-word access of another run's part: skipped before any
             * lookup, except that the part-0 run opens every launch (its
             * checks and its emission order are one run's) */
            if (!lead && !wide[i] && !mine) continue;
            launch_maps *lm = find_open(hr, a->launch, err);
            if (!lm) return err ? err->code : MH_ERR_FORMAT;
            if (!wide[i] && !mine) continue;
            const mh_model_launch *ml = lm->ml;
            int64_t bi;
            if (ml->l.n_sampled == 1 && a->block == ml->l.sampled[0]) bi = 0;
            else bi = mh_model_block_index(ml, a->block);
            if (bi < 0) continue; /* a block that was not sampled: nothing to attribute */
            uint64_t warp = (uint64_t)bi * ml->warps_per_block +
                            (hr->warp_shift ? (uint32_t)a->thread >> hr->warp_shift : a->thread / hr->warp_size);
            if (warp > UINT32_MAX) continue;
            if (mine) lm->accesses[s]++; /* counted by the run of its first sector's part */
            unsigned parts = wide[i] ? parts_of(a->addr, a->size) & own : 1u << pt;
            if (!parts) continue; /* other runs' parts */
            for (unsigned q = 0; q < MH_HEAT_PARTS; q++)
                if ((parts >> q & 1) && !lm->map[q][s] && mh_heat_new(&lm->map[q][s], hr->sector_size, err) != MH_OK)
                    return err ? err->code : MH_ERR_NOMEM;
            if (wide[i]) {
                for (unsigned q = 0; q < MH_HEAT_PARTS; q++) mapw[i][q] = lm->map[q][s];
                if (!mine) pt = (unsigned)__builtin_ctz(parts); /* the first sector is another run's: a later one's */
            }
            maps[i] = lm->map[pt][s];
            warps[i] = (uint32_t)warp;
            if (tag != last_tag || maps[i] != last_map) {
                last_tag = tag;
                last_map = maps[i];
                mh_heat_prefetch(maps[i], a->addr);
            }
        }
        for (size_t i = 0; i < k; i++) {
            if (!maps[i]) continue;
            const mh_access *a = &v[base + i];
            uint64_t tag = a->addr >> 5;
            if (!wide[i] && maps[i] == pm && tag == ptag && warps[i] == pwarp) {
                unsigned w = (unsigned)(a->addr >> 2) & 7;
                pwords |= 1u << w;
                pkinds |= MH_HEAT_KIND_BIT(MH_ACCESS_KIND(a)) << (3 * w);
                continue;
            }
            if (pm && mh_heat_add_words(pm, ptag, pwords, pkinds, pwarp) != MH_OK)
                return mh_err_set(err, MH_ERR_NOMEM, "out of memory for the heat map of launch %u", a->launch);
            pm = NULL;
            if (!wide[i]) {
                unsigned w = (unsigned)(a->addr >> 2) & 7;
                pm = maps[i];
                ptag = tag;
                pwarp = warps[i];
                pwords = 1u << w;
                pkinds = MH_HEAT_KIND_BIT(MH_ACCESS_KIND(a)) << (3 * w);
            } else if (add_wide(mapw[i], own, a->addr, a->size, warps[i], MH_ACCESS_KIND(a)) != MH_OK) {
                return mh_err_set(err, MH_ERR_NOMEM, "out of memory for the heat map of launch %u", a->launch);
            }
        }
    }
    if (pm && mh_heat_add_words(pm, ptag, pwords, pkinds, pwarp) != MH_OK)
        return mh_err_set(err, MH_ERR_NOMEM, "out of memory for a heat map");
    return MH_OK;
}

int mh_heat_run_finish(mh_heat_run *hr, mh_err *err) {
    if (!(hr->own & 1)) return MH_OK; /* the part-0 run emits this run's tables */
    int rc = MH_OK;
    while (hr->nopen > 0 && rc == MH_OK) {
        rc = emit_launch(hr, &hr->open[0], err);
        drop_open(hr, &hr->open[0]);
    }
    return rc;
}

void mh_heat_run_free(mh_heat_run *hr) {
    if (!hr) return;
    while (hr->nopen > 0) drop_open(hr, &hr->open[0]);
    free(hr->open);
    free(hr);
}

size_t mh_heat_run_peak_bytes(const mh_heat_run *hr) { return hr->peak_bytes; }

/* ---- output ---- */

static int io_check(FILE *f, mh_err *err) {
    return ferror(f) ? mh_err_set(err, MH_ERR_IO, "write failed") : MH_OK;
}

int mh_heat_write_csv(FILE *f, const mh_heat_result *r, mh_err *err) {
    fputs("region,sector_tag,w0,w1,w2,w3,w4,w5,w6,w7,sector,kinds\n", f);
    for (size_t i = 0; i < r->nrows; i++) {
        const mh_heat_row *row = &r->rows[i];
        char kt[MH_HEAT_WORDS + 1];
        fprintf(f, "%d,0x%" PRIx64, row->region, row->tag);
        for (int w = 0; w < MH_HEAT_WORDS; w++) fprintf(f, ",%u", row->word[w]);
        fprintf(f, ",%u,%s\n", row->sector, mh_heat_kinds_text(mh_heat_kinds_pack(row), row->word, kt));
    }
    return io_check(f, err);
}

/* CSV field with quotes doubled; names come from the profiled program. */
static void csv_str(FILE *f, const char *s) {
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

int mh_heat_write_regions(FILE *f, const mh_heat_result *r, mh_err *err) {
    fputs("region,label,start,end,first_tag,last_tag,sectors\n", f);
    for (size_t i = 0; i < r->nregions; i++) {
        const mh_heat_region *g = &r->regions[i];
        fprintf(f, "%zu,", i);
        csv_str(f, g->label);
        fprintf(f, ",0x%" PRIx64 ",0x%" PRIx64 ",0x%" PRIx64 ",0x%" PRIx64 ",%zu\n", g->start, g->end,
                g->first_tag, g->last_tag, g->nrows);
    }
    return io_check(f, err);
}

static int same_temps(const mh_heat_row *a, const mh_heat_row *b) {
    return a->region == b->region && a->sector == b->sector && memcmp(a->word, b->word, sizeof a->word) == 0 &&
           memcmp(a->kinds, b->kinds, sizeof a->kinds) == 0;
}

/* ANSI 256-colour background for a temperature, cold blue to hot red. */
static int temp_color(uint32_t t, uint32_t max) {
    static const int ramp[] = {17, 19, 27, 33, 39, 45, 226, 220, 214, 208, 202, 196};
    if (t == 0) return 236;
    if (max <= 1) return ramp[0];
    size_t k = (size_t)((double)(t - 1) / (double)(max - 1) * (double)(sizeof ramp / sizeof ramp[0] - 1) + 0.5);
    return ramp[k];
}

static void print_label(FILE *f, const char *s) {
    for (; *s; s++) fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, f);
}

int mh_heat_render(FILE *f, const mh_heat_result *r, int color, size_t max_rows, mh_err *err) {
    uint32_t tmax = 0;
    for (size_t i = 0; i < r->nrows; i++)
        if (r->rows[i].sector > tmax) tmax = r->rows[i].sector;
    fprintf(f, "launch %u ", r->launch->l.id);
    print_label(f, r->launch->l.display_name);
    fprintf(f, "  [%s]  %zu sectors, %" PRIu64 " accesses, hottest sector %u warps\n", mh_space_name(r->space),
            r->nrows, r->accesses, tmax);
    fprintf(f, "  %-18s %-34s %s\n", "sector tag", "word temperatures w0..w7", "sector kinds     (xN = repeated rows)");
    size_t printed = 0;
    int32_t region = -2;
    for (size_t i = 0; i < r->nrows;) {
        size_t j = i + 1;
        while (j < r->nrows && same_temps(&r->rows[i], &r->rows[j]) && r->rows[j].tag == r->rows[j - 1].tag + 1) j++;
        const mh_heat_row *row = &r->rows[i];
        if (row->region != region) {
            region = row->region;
            const mh_heat_region *g = row->region >= 0 ? &r->regions[row->region] : NULL;
            fputs("  --- ", f);
            print_label(f, g && g->label[0] ? g->label : "(unnamed object)");
            if (g) fprintf(f, " [0x%" PRIx64 ", 0x%" PRIx64 ")", g->start, g->end);
            fputs(" ---\n", f);
        }
        if (max_rows && printed == max_rows) {
            fprintf(f, "  ... %zu more sectors (use -o to write them all as CSV)\n", r->nrows - i);
            break;
        }
        fprintf(f, "  0x%016" PRIx64 " ", row->tag);
        for (int w = 0; w < MH_HEAT_WORDS; w++) {
            if (color) fprintf(f, "\033[48;5;%dm%4u\033[0m", temp_color(row->word[w], tmax), row->word[w]);
            else fprintf(f, "%4u", row->word[w]);
        }
        if (color) fprintf(f, "  \033[48;5;%dm%4u\033[0m", temp_color(row->sector, tmax), row->sector);
        else fprintf(f, "  %4u", row->sector);
        char kt[MH_HEAT_WORDS + 1];
        fprintf(f, "   %s", mh_heat_kinds_text(mh_heat_kinds_pack(row), row->word, kt));
        if (j - i > 1) fprintf(f, "  x%zu", j - i);
        fputc('\n', f);
        printed++;
        i = j;
    }
    return io_check(f, err);
}
