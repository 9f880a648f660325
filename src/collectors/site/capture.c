/* capture.c -- the call-site table of one process (site.h): unwinding,
 * deduplication, the loaded objects the frames lie in, the user's frame as
 * far as the process can judge it, and writing sites and counts to the trace.
 *
 * Three tables, each an array of entries plus an open-addressing index of
 * entry numbers (site_index.c; the state: site_state.h): Python stacks
 * (keys -> resolved frames, pystacks.c), sites (native return addresses +
 * Python stack + NVTX ranges -> id) and per-(site, configuration) launch
 * counts. A capture unwinds and reads outside the
 * lock, then looks up under it; only a new site does more (objects looked
 * up, Python strings copied), and it is rare: a training step repeats the
 * same few hundred sites. */
#define _GNU_SOURCE
#include "collectors/site/site.h"

#include <elf.h>
#include <execinfo.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "collectors/site/site_state.h"
#include "util/framefilter.h"
#include "util/grow.h"
#include "util/hash.h"

/* ---- small helpers ---- */

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static const uint64_t *site_hash_of(const void *tab, size_t i) { return &((const site_ent *)tab)[i].hash; }
static const uint64_t *stat_hash_of(const void *tab, size_t i) { return &((const stat_ent *)tab)[i].hash; }

/* ---- loaded objects ---- */

typedef struct scan_ctx {
    mh_site_state *s;
    int oom;
} scan_ctx;

static void hex_of(const unsigned char *p, size_t n, char *out) {
    static const char hx[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = hx[p[i] >> 4];
        out[2 * i + 1] = hx[p[i] & 15];
    }
    out[2 * n] = '\0';
}

/* The object's NT_GNU_BUILD_ID as hex into out (>= 129 bytes), "" without one. */
static void build_id_of(const struct dl_phdr_info *info, char *out) {
    out[0] = '\0';
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE) continue;
        const unsigned char *p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)(const void *)p;
            size_t name = (nh->n_namesz + 3u) & ~3u, desc = (nh->n_descsz + 3u) & ~3u;
            const unsigned char *np = p + sizeof *nh;
            if (np + name + desc > end) break;
            if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && !memcmp(np, "GNU", 4) && nh->n_descsz <= 64) {
                hex_of(np + name, nh->n_descsz, out);
                return;
            }
            p = np + name + desc;
        }
    }
}

static int scan_one(struct dl_phdr_info *info, size_t size, void *vctx) {
    (void)size;
    scan_ctx *c = vctx;
    mh_site_state *s = c->s;
    uint64_t lo = UINT64_MAX, hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD) continue;
        uint64_t a = info->dlpi_addr + ph->p_vaddr;
        if (a < lo) lo = a;
        if (a + ph->p_memsz > hi) hi = a + ph->p_memsz;
    }
    if (lo >= hi) return 0;
    for (size_t i = 0; i < s->nobjs; i++) /* known: same place, same bias */
        if (s->objs[i].o.start == lo && s->objs[i].o.end == hi && s->objs[i].o.bias == info->dlpi_addr) return 0;
    char path[4096];
    const char *name = info->dlpi_name;
    if (!name || !*name) { /* the executable */
        ssize_t k = readlink("/proc/self/exe", path, sizeof path - 1);
        path[k > 0 ? k : 0] = '\0';
        name = path;
    }
    char bid[129];
    build_id_of(info, bid);
    obj_ent *v = mh_grow(s->objs, &s->capobjs, s->nobjs + 1, sizeof *v, 64);
    char *pd = strdup(name), *bd = strdup(bid);
    if (!v || !pd || !bd) {
        free(pd);
        free(bd);
        c->oom = 1;
        return 1;
    }
    s->objs = v;
    v[s->nobjs] = (obj_ent){.o = {.id = (uint32_t)s->nobjs, .start = lo, .end = hi, .bias = info->dlpi_addr,
                                  .path = pd, .build_id = bd}};
    s->nobjs++;
    return 0;
}

/* The object holding pc (newest first: a later load at a reused address wins). */
static uint32_t object_of(mh_site_state *s, uint64_t pc) {
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = s->nobjs; i-- > 0;)
            if (pc >= s->objs[i].o.start && pc < s->objs[i].o.end) return (uint32_t)i;
        if (pass) break;
        /* not known: objects were loaded since the last scan */
        scan_ctx c = {.s = s};
        dl_iterate_phdr(scan_one, &c);
        if (c.oom) s->oom = 1;
    }
    return MH_SITE_NONE;
}

/* ---- sites ---- */

typedef struct site_key {
    const uint64_t *pc;
    uint32_t n_native;
    uint32_t pystack;
    const uint32_t *nvtx;
    uint32_t n_nvtx;
    uint32_t flags;
} site_key;

static int site_eq(const void *tab, size_t i, const void *key) {
    const site_ent *e = &((const site_ent *)tab)[i];
    const site_key *k = key;
    return e->n_native == k->n_native && e->n_nvtx == k->n_nvtx && e->pystack == k->pystack && e->flags == k->flags &&
           !memcmp(e->pc, k->pc, k->n_native * sizeof *k->pc) && !memcmp(e->nvtx, k->nvtx, k->n_nvtx * sizeof *k->nvtx);
}

static uint64_t site_hash(const site_key *k) {
    uint64_t h = mh_site_mix(mh_site_mix(0x517eu, k->pystack), k->flags);
    for (uint32_t i = 0; i < k->n_native; i++) h = mh_site_mix(h, k->pc[i]);
    for (uint32_t i = 0; i < k->n_nvtx; i++) h = mh_site_mix(h, 0x1000000ull + k->nvtx[i]);
    return h;
}

/* The user's frame as the process can judge it: the innermost Python frame
 * outside the frameworks, else the innermost native frame in an object that
 * is not a library of theirs. memheat judges again at import, with the
 * native frames symbolised (function and file filters too). */
static uint32_t judge_user(const mh_site_state *s, const site_ent *e) {
    if (e->pystack != MH_SITE_NONE) {
        const pystack_ent *p = &s->py[e->pystack];
        for (uint32_t i = 0; i < p->n; i++) {
            mh_frame_desc d = {.file = p->frames[i].file, .function = p->frames[i].function, .python = 1};
            if (!mh_frame_filtered(&d, s->extra_filter)) return e->n_native + i;
        }
    }
    for (uint32_t i = 0; i < e->n_native; i++) {
        if (e->object[i] == MH_SITE_NONE) continue;
        mh_frame_desc d = {.object = s->objs[e->object[i]].o.path};
        if (!mh_frame_filtered(&d, s->extra_filter)) return i;
    }
    return MH_SITE_NONE;
}

static uint32_t site_add(mh_site_state *s, const site_key *k, uint64_t h) {
    site_ent *v = mh_grow(s->sites, &s->capsites, s->nsites + 1, sizeof *v, 64);
    if (!v) return MH_SITE_NONE;
    s->sites = v;
    site_ent *e = &v[s->nsites];
    memset(e, 0, sizeof *e);
    e->hash = h;
    e->flags = k->flags;
    e->pystack = k->pystack;
    e->n_native = k->n_native;
    e->n_nvtx = k->n_nvtx;
    e->pc = malloc((k->n_native + 1) * sizeof *e->pc);
    e->object = malloc((k->n_native + 1) * sizeof *e->object);
    e->nvtx = malloc((k->n_nvtx + 1) * sizeof *e->nvtx);
    if (!e->pc || !e->object || !e->nvtx) {
        free(e->pc);
        free(e->object);
        free(e->nvtx);
        return MH_SITE_NONE;
    }
    memcpy(e->pc, k->pc, k->n_native * sizeof *e->pc);
    memcpy(e->nvtx, k->nvtx, k->n_nvtx * sizeof *e->nvtx);
    for (uint32_t i = 0; i < k->n_native; i++) e->object[i] = object_of(s, e->pc[i]);
    e->user = judge_user(s, e);
    if (mh_site_ix_add(&s->siteix, h, (uint32_t)s->nsites, s->nsites + 1, site_hash_of, s->sites) != 0) {
        free(e->pc);
        free(e->object);
        free(e->nvtx);
        return MH_SITE_NONE;
    }
    return (uint32_t)s->nsites++;
}

uint32_t mh_site_capture(mh_site_state *s, unsigned skip) {
    if (!s || !s->enabled) return MH_SITE_NONE;
    uint64_t t0 = now_ns();
    void *raw[MH_SITE_NATIVE_DEPTH + 8];
    unsigned drop = 1 + skip; /* this function, and the collector's own frames */
    if (drop > 8) drop = 8;
    int n = backtrace(raw, (int)(MH_SITE_NATIVE_DEPTH + drop));
    uint64_t pc[MH_SITE_NATIVE_DEPTH];
    uint32_t nn = 0, flags = 0;
    for (int i = (int)drop; i < n && nn < MH_SITE_NATIVE_DEPTH; i++) pc[nn++] = (uint64_t)(uintptr_t)raw[i];
    if (n == (int)(MH_SITE_NATIVE_DEPTH + drop)) flags |= MH_SITE_NATIVE_CUT;
    mh_site_pystack st;
    int have_py = mh_site_py_read(&st) && st.n > 0;
    uint32_t nvtx[MH_SITE_MAX_NVTX], fwd = MH_SITE_NONE;
    uint32_t nv = mh_site_nvtx_stack(nvtx, MH_SITE_MAX_NVTX, &fwd, pc, nn, (flags & MH_SITE_NATIVE_CUT) != 0);

    pthread_mutex_lock(&s->mu);
    s->captures++;
    uint32_t py = MH_SITE_NONE;
    if (have_py) {
        py = mh_site_pystack_intern(s, &st);
        if (st.cut) flags |= MH_SITE_PY_CUT;
    } else if (fwd != MH_SITE_NONE && fwd < s->npy) {
        py = fwd;
        flags |= MH_SITE_PY_FORWARD;
    }
    site_key k = {.pc = pc, .n_native = nn, .pystack = py, .nvtx = nvtx, .n_nvtx = nv, .flags = flags};
    uint64_t h = site_hash(&k);
    size_t at;
    long e = mh_site_ix_find(&s->siteix, h, site_eq, s->sites, &k, &at);
    uint32_t id = e >= 0 ? (uint32_t)e : site_add(s, &k, h);
    if (id == MH_SITE_NONE) s->oom = 1;
    s->capture_ns += now_ns() - t0;
    pthread_mutex_unlock(&s->mu);
    return id;
}

/* ---- counts per (site, configuration) ---- */

static int stat_eq(const void *tab, size_t i, const void *key) {
    const stat_ent *e = &((const stat_ent *)tab)[i];
    const stat_ent *k = key;
    return e->site == k->site && e->dyn_smem == k->dyn_smem && !memcmp(&e->grid, &k->grid, sizeof k->grid) &&
           !memcmp(&e->block, &k->block, sizeof k->block) && !strcmp(e->name, k->name);
}

void mh_site_count(mh_site_state *s, uint32_t site, const mh_collect_launch *l) {
    if (!s || !s->enabled || site == MH_SITE_NONE || !l || !l->name) return;
    stat_ent k = {.site = site, .name = (char *)l->name, .grid = l->grid, .block = l->block, .dyn_smem = l->dyn_smem};
    uint64_t h = mh_site_mix(mh_site_mix(mh_site_mix(mh_site_mix(0x57a7u, site), ((uint64_t)l->grid.x << 32) ^ l->grid.y),
                         ((uint64_t)l->grid.z << 32) ^ l->block.x),
                     ((uint64_t)l->block.y << 32) ^ l->block.z ^ ((uint64_t)l->dyn_smem << 16));
    for (const char *p = l->name; *p; p++) h = h * 1099511628211ull ^ (unsigned char)*p;
    k.hash = h;
    pthread_mutex_lock(&s->mu);
    size_t at;
    long e = mh_site_ix_find(&s->statix, h, stat_eq, s->stats, &k, &at);
    if (e >= 0) {
        s->stats[e].launches++;
    } else {
        stat_ent *v = mh_grow(s->stats, &s->capstats, s->nstats + 1, sizeof *v, 64);
        char *name = strdup(l->name);
        if (v) s->stats = v;
        if (!v || !name) {
            free(name);
            s->oom = 1;
        } else {
            k.name = name;
            k.launches = 1;
            v[s->nstats] = k;
            if (mh_site_ix_add(&s->statix, h, (uint32_t)s->nstats, s->nstats + 1, stat_hash_of, s->stats) == 0) s->nstats++;
            else free(name), s->oom = 1;
        }
    }
    pthread_mutex_unlock(&s->mu);
}

/* ---- writing ---- */

int mh_site_write_new(mh_site_state *s, mh_trace_writer *w, mh_err *err) {
    if (!s || !w) return MH_OK;
    int rc = MH_OK;
    pthread_mutex_lock(&s->mu);
    for (size_t i = 0; i < s->nobjs && rc == MH_OK; i++) {
        if (s->objs[i].written) continue;
        rc = mh_trace_write_site_object(w, &s->objs[i].o, err);
        if (rc == MH_OK) s->objs[i].written = 1;
    }
    for (size_t i = 0; i < s->nsites && rc == MH_OK; i++) {
        site_ent *e = &s->sites[i];
        if (e->written) continue;
        const char *names[MH_SITE_MAX_NVTX];
        for (uint32_t j = 0; j < e->n_nvtx; j++) names[j] = mh_site_nvtx_name(e->nvtx[j]);
        const pystack_ent *p = e->pystack != MH_SITE_NONE ? &s->py[e->pystack] : NULL;
        mh_site st = {.id = (uint32_t)i, .flags = e->flags, .user = e->user, .n_native = e->n_native,
                      .n_python = p ? p->n : 0, .n_nvtx = e->n_nvtx, .pc = e->pc, .object = e->object,
                      .py = p ? p->frames : NULL, .nvtx = names};
        rc = mh_trace_write_site(w, &st, err);
        if (rc == MH_OK) e->written = 1;
    }
    pthread_mutex_unlock(&s->mu);
    return rc;
}

int mh_site_write_stats(mh_site_state *s, mh_trace_writer *w, mh_err *err) {
    if (!s || !w) return MH_OK;
    int rc = mh_site_write_new(s, w, err);
    pthread_mutex_lock(&s->mu);
    for (size_t i = 0; i < s->nstats && rc == MH_OK; i++) {
        const stat_ent *e = &s->stats[i];
        mh_site_stats st = {.site = e->site, .name = e->name, .grid = e->grid, .block = e->block,
                            .dyn_smem = e->dyn_smem, .launches = e->launches};
        rc = mh_trace_write_site_stats(w, &st, err);
    }
    pthread_mutex_unlock(&s->mu);
    return rc;
}

/* ---- lifetime ---- */

int mh_site_open(mh_site_state **out, mh_err *err) {
    *out = NULL;
    mh_site_state *s = calloc(1, sizeof *s);
    if (!s) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    pthread_mutex_init(&s->mu, NULL);
    const char *e = getenv("MEMHEAT_SITES");
    s->enabled = !(e && *e == '0');
    const char *f = getenv(MH_FRAME_FILTER_ENV);
    if (f && *f) s->extra_filter = strdup(f);
    if (s->enabled) {
        void *warm[4];
        backtrace(warm, 4); /* glibc loads its unwinder at the first call: not inside a launch */
        mh_site_py_init();
        scan_ctx c = {.s = s};
        dl_iterate_phdr(scan_one, &c);
    }
    mh_site_nvtx_attach(s);
    *out = s;
    return MH_OK;
}

void mh_site_counts_get(mh_site_state *s, mh_site_counts *c) {
    memset(c, 0, sizeof *c);
    if (!s) return;
    pthread_mutex_lock(&s->mu);
    c->captures = s->captures;
    c->sites = s->nsites;
    c->objects = s->nobjs;
    c->py_unreadable = s->py_unreadable;
    c->capture_ns = s->capture_ns;
    pthread_mutex_unlock(&s->mu);
}

void mh_site_close(mh_site_state *s) {
    if (!s) return;
    mh_site_nvtx_attach(NULL);
    for (size_t i = 0; i < s->npy; i++) {
        for (uint32_t j = 0; j < s->py[i].n && s->py[i].frames; j++) {
            free((char *)s->py[i].frames[j].file);
            free((char *)s->py[i].frames[j].function);
        }
        free(s->py[i].frames);
    }
    for (size_t i = 0; i < s->nsites; i++) {
        free(s->sites[i].pc);
        free(s->sites[i].object);
        free(s->sites[i].nvtx);
    }
    for (size_t i = 0; i < s->nstats; i++) free(s->stats[i].name);
    for (size_t i = 0; i < s->nobjs; i++) {
        free((char *)s->objs[i].o.path);
        free((char *)s->objs[i].o.build_id);
    }
    free(s->py);
    free(s->pyix.slot);
    free(s->sites);
    free(s->siteix.slot);
    free(s->stats);
    free(s->statix.slot);
    free(s->objs);
    free(s->extra_filter);
    pthread_mutex_destroy(&s->mu);
    free(s);
}
