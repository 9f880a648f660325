/* model.c -- launches and data objects of a run, built from trace records
 * (src/analyses/model.h). Owns copies of every string it keeps. */
#include "analyses/model.h"

#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/grow.h"
#include "util/sig.h"

static char *dup_str(const char *s) {
    size_t n = s ? strlen(s) : 0;
    char *d = malloc(n + 1);
    if (d) {
        if (n) memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

/* Room for `need` elements in *buf (util/grow.h); 0 when out of memory. */
static int grow(void **buf, size_t *cap, size_t need, size_t elem) {
    void *p = mh_grow(*buf, cap, need, elem, 16);
    if (!p) return 0;
    *buf = p;
    return 1;
}

int mh_model_init(mh_model *m, const mh_trace_header *h, mh_err *err) {
    memset(m, 0, sizeof *m);
    m->hdr = *h;
    m->hdr.producer = dup_str(h->producer);
    m->hdr.command = dup_str(h->command);
    m->hdr.note = dup_str(h->note);
    m->hdr.device.name = dup_str(h->device.name);
    if (!m->hdr.producer || !m->hdr.command || !m->hdr.note || !m->hdr.device.name) {
        mh_model_free(m);
        return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    }
    return MH_OK;
}

void mh_model_free(mh_model *m) {
    mh_sites_free(&m->sites);
    for (size_t i = 0; i < m->nlaunches; i++) {
        free((char *)m->launches[i].l.name);
        free((char *)m->launches[i].l.display_name);
        free((uint32_t *)m->launches[i].l.sampled);
    }
    for (size_t i = 0; i < m->nobjs; i++) {
        free((char *)m->objs[i].a.label);
        free((char *)m->objs[i].arg_type);
        free((char *)m->objs[i].arg_name);
    }
    for (size_t i = 0; i < m->npcs; i++) {
        free((char *)m->pcs[i].function);
        free((char *)m->pcs[i].file);
    }
    for (size_t i = 0; i < m->nstats; i++) free((char *)m->stats[i].name);
    free(m->launches);
    free(m->objs);
    free(m->untied);
    free(m->tied_allocs);
    free(m->orphans);
    free(m->pcs);
    free(m->stats);
    free((char *)m->hdr.producer);
    free((char *)m->hdr.command);
    free((char *)m->hdr.note);
    free((char *)m->hdr.device.name);
    memset(m, 0, sizeof *m);
}

static int add_launch(mh_model *m, const mh_launch *l, mh_err *err) {
    /* a greater id than the last cannot be there yet: no search (a search per
     * launch made 8,000 launches cost 3 x 10^7 steps, in every lane) */
    if (m->nlaunches && l->id <= m->launches[m->nlaunches - 1].l.id) {
        if (mh_model_launch_get(m, l->id))
            return mh_err_set(err, MH_ERR_FORMAT, "launch id %u appears twice in the trace", l->id);
        m->ids_unordered = 1;
    }
    if (!grow((void **)&m->launches, &m->caplaunches, m->nlaunches + 1, sizeof *m->launches))
        return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    mh_model_launch *ml = &m->launches[m->nlaunches];
    memset(ml, 0, sizeof *ml);
    ml->l = *l;
    ml->l.name = dup_str(l->name);
    ml->l.display_name = dup_str(l->display_name);
    uint32_t ns = l->n_sampled == MH_TRACE_ALL_BLOCKS ? 0 : l->n_sampled;
    uint32_t *ids = malloc(sizeof(uint32_t) * (ns ? ns : 1));
    if (!ml->l.name || !ml->l.display_name || !ids) {
        free((char *)ml->l.name);
        free((char *)ml->l.display_name);
        free(ids);
        return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    }
    if (ns) memcpy(ids, l->sampled, sizeof(uint32_t) * ns);
    ml->l.sampled = ids;
    uint32_t ws = m->hdr.device.warp_size ? m->hdr.device.warp_size : 32;
    uint64_t tpb = (uint64_t)l->block.x * l->block.y * l->block.z;
    uint64_t nb = (uint64_t)l->grid.x * l->grid.y * l->grid.z;
    ml->threads_per_block = (uint32_t)tpb;
    ml->warps_per_block = (uint32_t)((tpb + ws - 1) / ws);
    ml->n_blocks = nb > UINT32_MAX ? UINT32_MAX : (uint32_t)nb;
    ml->n_sampled = l->n_sampled == MH_TRACE_ALL_BLOCKS ? ml->n_blocks : ns;
    ml->objs_at = m->nobjs;
    ml->tied_last = -1;
    m->nlaunches++;
    /* objects tied to it that came first (an OpenCL kernel's local arrays)
     * join its chain, oldest first */
    size_t keep = 0;
    for (size_t k = 0; k < m->norphans; k++) {
        size_t i = m->orphans[k];
        if (m->objs[i].a.launch != l->id) {
            m->orphans[keep++] = i;
            continue;
        }
        m->objs[i].tied_prev = ml->tied_last;
        ml->tied_last = (int64_t)i;
    }
    m->norphans = keep;
    return MH_OK;
}

/* Room for objs[m->nobjs], an object of launch (MH_TRACE_NO_LAUNCH: none)
 * that is a view or not, and for its entry in the one index list it goes
 * into (obj_add; views of announced launches, the most, go into none);
 * 0 when out of memory. */
static int obj_room(mh_model *m, uint32_t launch, int view) {
    if (!grow((void **)&m->objs, &m->capobjs, m->nobjs + 1, sizeof *m->objs)) return 0;
    if (launch == MH_TRACE_NO_LAUNCH) return grow((void **)&m->untied, &m->capuntied, m->nuntied + 1, sizeof *m->untied);
    if (!view && !grow((void **)&m->tied_allocs, &m->captied_allocs, m->ntied_allocs + 1, sizeof *m->tied_allocs))
        return 0;
    return mh_model_launch_get(m, launch) ||
           grow((void **)&m->orphans, &m->caporphans, m->norphans + 1, sizeof *m->orphans);
}

/* objs[m->nobjs], filled in (obj_room made room for a view or not, the
 * same `view` here), becomes an object: into the index lists, or its
 * launch's chain. */
static void obj_add(mh_model *m, int view) {
    size_t i = m->nobjs++;
    mh_model_obj *o = &m->objs[i];
    o->tied_prev = -1;
    if (o->a.launch == MH_TRACE_NO_LAUNCH) {
        m->untied[m->nuntied++] = i;
        return;
    }
    if (!view) m->tied_allocs[m->ntied_allocs++] = i;
    mh_model_launch *ml = (mh_model_launch *)mh_model_launch_get(m, o->a.launch);
    if (!ml) {
        m->orphans[m->norphans++] = i;
        return;
    }
    o->tied_prev = ml->tied_last;
    ml->tied_last = (int64_t)i;
}

void mh_model_arg_label(char *buf, size_t cap, uint32_t index, const char *type, const char *name) {
    int k = snprintf(buf, cap, "arg %" PRIu32 "%s%s", index, type && *type ? ": " : "", type ? type : "");
    if (name && *name && k >= 0 && (size_t)k < cap) snprintf(buf + k, cap - (size_t)k, " (%s)", name);
}

/* The allocation (never a view) holding [addr, addr+1) in space, live first. */
static int64_t find_alloc(const mh_model *m, unsigned space, uint64_t addr) {
    int64_t dead = -1;
    for (size_t k = m->nuntied; k-- > 0;) {
        size_t i = m->untied[k];
        const mh_model_obj *o = &m->objs[i];
        assert(o->arg < 0 && o->a.launch == MH_TRACE_NO_LAUNCH);
        if (o->a.space != space || addr < o->a.base || addr - o->a.base >= o->a.size) continue;
        if (o->live) return (int64_t)i;
        if (dead < 0) dead = (int64_t)i;
    }
    return dead;
}

/* A kernel argument: a view of the allocation its pointer falls in. Views of
 * one launch into one allocation end where the next one starts; a pointer
 * equal to an earlier argument's names that view too ("(also arg 2)").
 * Values outside every allocation (sizes, scalars) are not pointers to data
 * memheat knows and are ignored. */
static int add_arg(mh_model *m, const mh_karg *k, mh_err *err) {
    const mh_model_launch *ml = mh_model_launch_get(m, k->launch);
    if (!ml || ml->ended || k->space >= MH_SPACE_COUNT || k->space == MH_SPACE_SHARED || k->space == MH_SPACE_LOCAL ||
        k->index > INT32_MAX) /* positions are int32 here; the reader refuses far smaller ones */
        return MH_OK;
    int64_t parent = find_alloc(m, k->space, k->value);
    if (parent < 0) return MH_OK;
    uint64_t pend = m->objs[parent].a.base + m->objs[parent].a.size, end = pend;
    for (size_t i = ml->objs_at; i < m->nobjs; i++) { /* its views came after it */
        mh_model_obj *o = &m->objs[i];
        if (o->arg < 0 || o->a.launch != k->launch || o->parent != parent) continue;
        if (o->a.base == k->value) {
            if (o->arg == (int32_t)k->index) return MH_OK; /* the same record twice */
            size_t n = strlen(o->a.label) + 32;
            char *l = malloc(n);
            if (!l) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
            snprintf(l, n, "%s (also arg %" PRIu32 ")", o->a.label, k->index);
            free((char *)o->a.label);
            o->a.label = l;
            return MH_OK;
        }
        if (o->a.base > k->value && o->a.base < end) end = o->a.base;
        if (o->a.base < k->value && o->a.base + o->a.size > k->value) o->a.size = k->value - o->a.base;
    }
    char type[256];
    if (k->type && *k->type)
        snprintf(type, sizeof type, "%s", k->type);
    else
        mh_sig_param(ml->l.display_name, k->index, type, sizeof type);
    char label[400];
    mh_model_arg_label(label, sizeof label, k->index, type, k->name);
    if (!obj_room(m, k->launch, 1)) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    mh_model_obj *o = &m->objs[m->nobjs];
    memset(o, 0, sizeof *o);
    o->a = (mh_alloc){.id = UINT32_MAX, .launch = k->launch, .base = k->value, .size = end - k->value,
                      .space = k->space, .label = dup_str(label)};
    o->live = 1;
    o->arg = (int32_t)k->index;
    o->parent = parent;
    o->arg_type = dup_str(type);
    o->arg_name = dup_str(k->name);
    if (!o->a.label || !o->arg_type || !o->arg_name) {
        free((char *)o->a.label);
        free((char *)o->arg_type);
        free((char *)o->arg_name);
        return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    }
    obj_add(m, 1);
    m->nviews++;
    return MH_OK;
}

void mh_model_note_used(mh_model *m, int64_t obj, uint64_t lo, uint64_t hi) {
    if (obj < 0 || (size_t)obj >= m->nobjs || hi <= lo) return;
    mh_model_obj *o = &m->objs[obj];
    if (o->used_hi == 0 || lo < o->used_lo) o->used_lo = lo;
    if (hi > o->used_hi) o->used_hi = hi;
}

void mh_model_obj_text(const mh_model *m, int64_t obj, char *buf, size_t cap) {
    if (cap) buf[0] = '\0';
    if (obj < 0 || (size_t)obj >= m->nobjs) return;
    const mh_model_obj *o = &m->objs[obj];
    if (o->arg < 0 || o->parent < 0) {
        snprintf(buf, cap, "%s", o->a.label);
        return;
    }
    const mh_alloc *p = &m->objs[o->parent].a;
    uint64_t off = o->a.base - p->base;
    if (o->used_hi > o->used_lo)
        snprintf(buf, cap, "%s (bytes %" PRIu64 "..%" PRIu64 " of %s #%" PRIu32 ", from its byte %" PRIu64 ")",
                 o->a.label, o->used_lo, o->used_hi - 1, *p->label ? p->label : "allocation", p->id, off);
    else
        snprintf(buf, cap, "%s (in %s #%" PRIu32 ", from its byte %" PRIu64 ")", o->a.label,
                 *p->label ? p->label : "allocation", p->id, off);
}

int mh_model_feed(mh_model *m, const mh_record *rec, mh_err *err) {
    switch (rec->type) {
    case MH_REC_LAUNCH:
        return add_launch(m, &rec->u.launch, err);
    case MH_REC_ALLOC: {
        if (!obj_room(m, rec->u.alloc.launch, 0)) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
        mh_model_obj *o = &m->objs[m->nobjs];
        memset(o, 0, sizeof *o);
        o->a = rec->u.alloc;
        o->a.label = dup_str(rec->u.alloc.label);
        o->live = 1;
        o->arg = -1;
        o->parent = -1;
        if (!o->a.label) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
        obj_add(m, 0);
        return MH_OK;
    }
    case MH_REC_FREE: {
        /* the newest live allocation there, tied to a launch or not */
        size_t u = m->nuntied, t = m->ntied_allocs;
        while (u > 0 || t > 0) {
            size_t i = t == 0 || (u > 0 && m->untied[u - 1] > m->tied_allocs[t - 1]) ? m->untied[--u]
                                                                                   : m->tied_allocs[--t];
            mh_model_obj *o = &m->objs[i];
            if (o->live && o->a.base == rec->u.free.base && o->a.space == rec->u.free.space) {
                o->live = 0;
                break;
            }
        }
        return MH_OK;
    }
    case MH_REC_KERNEL_END: {
        mh_model_launch *ml = (mh_model_launch *)mh_model_launch_get(m, rec->u.kernel_end.launch);
        if (ml) {
            ml->ended = 1;
            ml->end = rec->u.kernel_end;
        }
        m->dropped_total += rec->u.kernel_end.dropped;
        return MH_OK;
    }
    case MH_REC_DROPPED:
        m->dropped_total += rec->u.dropped.count;
        return MH_OK;
    case MH_REC_PCINFO: {
        if (!grow((void **)&m->pcs, &m->cappcs, m->npcs + 1, sizeof *m->pcs))
            return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
        mh_pcinfo *p = &m->pcs[m->npcs];
        *p = rec->u.pcinfo;
        p->function = dup_str(rec->u.pcinfo.function);
        p->file = dup_str(rec->u.pcinfo.file);
        if (!p->function || !p->file) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
        m->npcs++;
        return MH_OK;
    }
    case MH_REC_LAUNCH_STATS: {
        if (!grow((void **)&m->stats, &m->capstats, m->nstats + 1, sizeof *m->stats))
            return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
        mh_launch_stats *ls = &m->stats[m->nstats];
        *ls = rec->u.launch_stats;
        ls->name = dup_str(rec->u.launch_stats.name);
        if (!ls->name) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
        m->nstats++;
        return MH_OK;
    }
    case MH_REC_KARG:
        return add_arg(m, &rec->u.karg, err);
    case MH_REC_SITE_OBJECT:
    case MH_REC_SITE:
    case MH_REC_LAUNCH_SITE:
    case MH_REC_SITE_STATS:
        return mh_sites_feed(&m->sites, rec, err);
    default:
        return MH_OK;
    }
}

int mh_model_check_access(const mh_model *m, uint32_t launch) {
    const mh_model_launch *ml = mh_model_launch_get(m, launch);
    if (!ml) return MH_BAD_ACCESS_UNKNOWN;
    return ml->ended ? MH_BAD_ACCESS_ENDED : MH_BAD_NONE;
}

int mh_model_check(const mh_model *m, const mh_record *rec) {
    if (rec->type == MH_REC_LAUNCH) return mh_model_launch_get(m, rec->u.launch.id) ? MH_BAD_LAUNCH_TWICE : MH_BAD_NONE;
    if (rec->type == MH_REC_KERNEL_END) {
        const mh_model_launch *ml = mh_model_launch_get(m, rec->u.kernel_end.launch);
        if (!ml) return MH_BAD_END_UNKNOWN;
        return ml->ended ? MH_BAD_END_TWICE : MH_BAD_NONE;
    }
    return MH_BAD_NONE;
}

const char *mh_model_bad_text(int why) {
    switch (why) {
    case MH_BAD_ACCESS_UNKNOWN: return "accesses naming a launch never announced";
    case MH_BAD_ACCESS_ENDED: return "accesses naming a launch that had ended";
    case MH_BAD_LAUNCH_TWICE: return "launch records repeating a launch id";
    case MH_BAD_END_UNKNOWN: return "kernel ends of a launch never announced";
    case MH_BAD_END_TWICE: return "repeated kernel ends";
    default: return "records";
    }
}

const mh_model_launch *mh_model_launch_get(const mh_model *m, uint32_t id) {
    /* Collectors number launches 0,1,2,... in order: try the direct slot first. */
    if (id < m->nlaunches && m->launches[id].l.id == id) return &m->launches[id];
    if (!m->ids_unordered) { /* ascending ids (ids of launches not traced are missing) */
        size_t lo = 0, hi = m->nlaunches;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (m->launches[mid].l.id < id) lo = mid + 1;
            else hi = mid;
        }
        return lo < m->nlaunches && m->launches[lo].l.id == id ? &m->launches[lo] : NULL;
    }
    for (size_t i = m->nlaunches; i-- > 0;)
        if (m->launches[i].l.id == id) return &m->launches[i];
    return NULL;
}

int64_t mh_model_block_index(const mh_model_launch *ml, uint32_t b) {
    if (ml->l.n_sampled == MH_TRACE_ALL_BLOCKS) return b < ml->n_blocks ? (int64_t)b : -1;
    const uint32_t *s = ml->l.sampled;
    uint32_t n = ml->l.n_sampled;
    /* Sampled lists are short and usually consecutive. */
    if (n && b >= s[0] && b - s[0] < n && s[b - s[0]] == b) return (int64_t)(b - s[0]);
    for (uint32_t i = 0; i < n; i++)
        if (s[i] == b) return i;
    return -1;
}

int64_t mh_model_warp_of(const mh_model *m, const mh_model_launch *ml, const mh_access *a) {
    int64_t bi = mh_model_block_index(ml, a->block);
    if (bi < 0) return -1;
    uint32_t ws = m->hdr.device.warp_size ? m->hdr.device.warp_size : 32;
    return bi * (int64_t)ml->warps_per_block + a->thread / ws;
}

/* mh_model_find_obj over every object, newest first. */
static int64_t find_obj_all(const mh_model *m, unsigned space, uint32_t launch, uint64_t addr) {
    int64_t dead = -1;
    for (size_t i = m->nobjs; i-- > 0;) {
        const mh_model_obj *o = &m->objs[i];
        if (o->a.space != space || addr < o->a.base || addr - o->a.base >= o->a.size) continue;
        if (o->a.launch != MH_TRACE_NO_LAUNCH && o->a.launch != launch) continue;
        if (o->live) return (int64_t)i;
        if (dead < 0) dead = (int64_t)i;
    }
    return dead;
}

/* The same candidates in the same order, newest first: the allocations not
 * tied to a launch, merged with the chain of the objects tied to this one. */
int64_t mh_model_find_obj(const mh_model *m, unsigned space, uint32_t launch, uint64_t addr) {
    if (m->norphans) return find_obj_all(m, space, launch, addr);
    const mh_model_launch *ml = launch != MH_TRACE_NO_LAUNCH ? mh_model_launch_get(m, launch) : NULL;
    int64_t t = ml ? ml->tied_last : -1, dead = -1;
    size_t u = m->nuntied;
    while (u > 0 || t >= 0) {
        int64_t i;
        if (t >= 0 && (u == 0 || (size_t)t > m->untied[u - 1])) {
            i = t;
            t = m->objs[t].tied_prev;
        } else {
            i = (int64_t)m->untied[--u];
        }
        const mh_model_obj *o = &m->objs[i];
        if (o->a.space != space || addr < o->a.base || addr - o->a.base >= o->a.size) continue;
        if (o->live) return i;
        if (dead < 0) dead = i;
    }
    return dead;
}

const mh_pcinfo *mh_model_pcinfo(const mh_model *m, uint64_t pc) {
    for (size_t i = 0; i < m->npcs; i++)
        if (m->pcs[i].pc == pc) return &m->pcs[i];
    return NULL;
}
