/* ocl_sink.c -- the Oclgrind collector's logic: OpenCL execution -> memheat
 * trace (see ocl_sink.h for the mapping and the threading design).
 *
 * One mh_ocl context per process (the plugin's). Per launch it keeps the
 * selection decision, the local-memory window layout and the labels of the
 * buffers; per running work-group a slot with a private access buffer. The
 * trace writer is not thread-safe, so every write happens under o->mu. */
#include "ocl_sink.h"

#include <assert.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "collectors/site/site.h"
#include "memheat/collect.h"
#include "util/grow.h"

#define MH_OCL_SLOTS 512            /* concurrently running work-groups (>= Oclgrind's workers) */
#define MH_OCL_SLOT_ACCESSES 16384  /* accesses buffered per slot before a merge (512 KiB) */
#define MH_OCL_MAX_LOCAL_VARS 256
#define MH_OCL_SAMPLED_CAP 4096
#define MH_OCL_MAX_ARGS 128         /* pointer arguments recorded per traced launch */
#define MH_OCL_PENDING 1024         /* enqueued kernels whose site waits for their launch */

/* A pointer argument of the traced launch, written as a KARG record after
 * its LAUNCH record (the same naming path as CUDA's: "arg 0: float* (in)"). */
typedef struct mh_ocl_arg {
    uint32_t index;
    uint8_t space;
    uint64_t ptr;
    char name[96], type[96];
} mh_ocl_arg;

typedef struct mh_ocl_buf {
    uint64_t base, size;
    uint8_t space;   /* MH_SPACE_GLOBAL or MH_SPACE_CONSTANT */
    uint8_t written; /* alloc record emitted */
    char label[96];
} mh_ocl_buf;

typedef struct mh_ocl_localvar {
    uint64_t window; /* byte offset of the variable in the group's local window */
    uint64_t size;
    int known;
} mh_ocl_localvar;

struct mh_ocl_group {
    _Atomic(const void *) owner; /* WorkGroup key, NULL = free slot */
    uint32_t block;              /* linear work-group id */
    uint32_t nitems;
    uint32_t *seq;               /* per work-item next sequence number */
    uint32_t seq_cap;
    mh_access *acc;              /* buffered accesses */
    size_t nacc;
};

struct mh_ocl {
    pthread_mutex_t mu;
    mh_collect_cfg cfg;
    mh_collect_state sel;
    mh_trace_writer *w;
    mh_err err; /* first error; tracing stops after it */
    int finished; /* the trace is closed (mh_ocl_finish) */
    char command[1024];

    /* global-memory buffers, in allocation order */
    mh_ocl_buf *bufs;
    size_t nbufs, capbufs;

    /* current launch (host thread writes these before the workers start) */
    int in_launch;
    int traced;
    uint32_t launch_id, next_launch;
    mh_dim3 groups, local;
    uint32_t local_bytes;
    char kname[256];
    uint64_t launch_recorded;
    _Atomic uint64_t launch_dropped;
    mh_ocl_localvar local_vars[MH_OCL_MAX_LOCAL_VARS];
    int local_layout_done;
    uint64_t local_window_end;
    uint32_t next_shared_id; /* alloc ids of local variables: 2^31 upwards */
    mh_ocl_arg args[MH_OCL_MAX_ARGS];
    uint32_t nargs;

    /* call sites: the capture, the sites of kernels enqueued and not begun
     * yet (a ring, oldest first), the current launch's site */
    mh_site_state *sites;
    struct { char name[128]; uint32_t site; } pending[MH_OCL_PENDING];
    size_t pend_head, pend_n;
    uint32_t site;

    /* pcs already described by a pcinfo record (open addressing, 0 = empty) */
    uint64_t *pcs;
    size_t npcs, cappcs;

    uint64_t recorded;
    _Atomic uint64_t dropped;
    _Atomic int slot_hi; /* slots [0, slot_hi) may be in use */
    mh_ocl_group slots[MH_OCL_SLOTS];
};

/* ---- small helpers (callers hold o->mu) ---- */

static int failed(const mh_ocl *o) { return o->err.code != MH_OK; }

/* Keeps the first error and stops the writer; the trace stays readable up to
 * its last flushed chunk. */
static void fail(mh_ocl *o, const mh_err *e) {
    if (failed(o)) return;
    o->err = *e;
    if (o->w) {
        mh_trace_abandon(o->w);
        o->w = NULL;
    }
}

static mh_ocl_buf *buf_find(mh_ocl *o, uint64_t addr) {
    for (size_t i = o->nbufs; i-- > 0;) {
        mh_ocl_buf *b = &o->bufs[i];
        if (addr >= b->base && addr - b->base < (b->size ? b->size : 1)) return b;
    }
    return NULL;
}

static void write_buf_alloc(mh_ocl *o, mh_ocl_buf *b) {
    if (failed(o) || !o->w || b->written) return;
    mh_alloc a = {.id = (uint32_t)(b - o->bufs), .launch = MH_TRACE_NO_LAUNCH, .base = b->base,
                  .size = b->size, .space = b->space, .label = b->label};
    mh_err e;
    if (mh_trace_write_alloc(o->w, &a, &e) != MH_OK) fail(o, &e);
    b->written = 1;
}

/* Merges a slot's buffered accesses into the trace. */
static void merge_locked(mh_ocl *o, mh_ocl_group *g) {
    if (g->nacc == 0) return;
    if (failed(o) || !o->w) {
        atomic_fetch_add(&o->launch_dropped, g->nacc);
        atomic_fetch_add(&o->dropped, g->nacc);
    } else {
        mh_err e;
        if (mh_trace_write_accesses(o->w, g->acc, g->nacc, &e) != MH_OK) {
            fail(o, &e);
            atomic_fetch_add(&o->launch_dropped, g->nacc);
            atomic_fetch_add(&o->dropped, g->nacc);
        } else {
            o->launch_recorded += g->nacc;
            o->recorded += g->nacc;
        }
    }
    g->nacc = 0;
}

static void merge(mh_ocl *o, mh_ocl_group *g) {
    pthread_mutex_lock(&o->mu);
    merge_locked(o, g);
    pthread_mutex_unlock(&o->mu);
}

/* ---- lifetime ---- */

/* The profiled command line, from /proc/self/cmdline (NULs -> spaces). */
static void read_cmdline(char *out, size_t cap) {
    out[0] = '\0';
    FILE *f = fopen("/proc/self/cmdline", "rb");
    if (!f) return;
    size_t n = fread(out, 1, cap - 1, f);
    fclose(f);
    out[n] = '\0';
    while (n > 0 && out[n - 1] == '\0') n--;
    for (size_t i = 0; i < n; i++)
        if (out[i] == '\0') out[i] = ' ';
}

int mh_ocl_open(mh_ocl **out, const char *command, mh_err *err) {
    *out = NULL;
    mh_ocl *o = calloc(1, sizeof *o);
    if (!o) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    pthread_mutex_init(&o->mu, NULL);
    o->next_shared_id = 0x80000000u;
    if (command)
        snprintf(o->command, sizeof o->command, "%s", command);
    else
        read_cmdline(o->command, sizeof o->command);
    if (mh_collect_cfg_from_env(&o->cfg, err) != MH_OK) {
        pthread_mutex_destroy(&o->mu);
        free(o);
        return err ? err->code : MH_ERR_ARG;
    }
    char note[256];
    snprintf(note, sizeof note,
             "Oclgrind simulator: OpenCL has no warps; memheat groups consecutive linear local ids "
             "into warps of %u (--warp-size)",
             o->cfg.warp_size);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    mh_trace_header h = {
        .producer = "memheat-oclgrind 0.1.0",
        .command = o->command,
        .note = note,
        .start_unix_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec,
        .device = {.name = "Oclgrind (simulated OpenCL device)", .flags = MH_DEV_SIMULATED,
                   .warp_size = o->cfg.warp_size, .sector_size = 32},
    };
    if (mh_collect_trace_open(&o->w, o->cfg.trace_path, &h, NULL, NULL, 0, NULL, 0, err) != MH_OK) {
        mh_collect_cfg_free(&o->cfg);
        pthread_mutex_destroy(&o->mu);
        free(o);
        return err ? err->code : MH_ERR_IO;
    }
    o->site = MH_SITE_NONE;
    mh_err se;
    if (mh_site_open(&o->sites, &se) != MH_OK) o->sites = NULL; /* no call sites, the trace as before */
    *out = o;
    return MH_OK;
}

const mh_err *mh_ocl_error(const mh_ocl *o) { return &o->err; }
uint64_t mh_ocl_recorded(const mh_ocl *o) { return o->recorded; }
uint64_t mh_ocl_dropped(const mh_ocl *o) { return atomic_load(&o->dropped); }

int mh_ocl_finish(mh_ocl *o, mh_err *err) {
    if (!o) return MH_OK;
    if (o->in_launch) mh_ocl_kernel_end(o);
    int rc = MH_OK;
    pthread_mutex_lock(&o->mu);
    if (o->finished) {
        pthread_mutex_unlock(&o->mu);
        return MH_OK;
    }
    o->finished = 1;
    if (o->w && !failed(o)) {
        uint64_t d = atomic_load(&o->dropped);
        if (d) {
            mh_dropped dr = {.launch = MH_TRACE_NO_LAUNCH, .count = d, .reason = "trace write failed"};
            mh_err e;
            if (mh_trace_write_dropped(o->w, &dr, &e) != MH_OK) fail(o, &e);
        }
    }
    if (o->w && !failed(o) && o->sites) {
        mh_err e;
        if (mh_site_write_stats(o->sites, o->w, &e) != MH_OK) fail(o, &e);
    }
    for (size_t i = 0; i < o->sel.capconfigs && o->w && !failed(o); i++) {
        const mh_collect_config *c = &o->sel.configs[i];
        if (!c->name) continue;
        mh_launch_stats ls = {.name = c->name, .grid = c->grid, .block = c->block, .dyn_smem = c->dyn_smem,
                              .launches = c->launches, .traced = c->traced};
        mh_err e;
        if (mh_trace_write_launch_stats(o->w, &ls, &e) != MH_OK) fail(o, &e);
    }
    if (o->w && !failed(o)) {
        mh_err e;
        if (mh_trace_close(o->w, &e) != MH_OK) fail(o, &e);
        o->w = NULL;
    }
    if (o->w) mh_trace_abandon(o->w);
    o->w = NULL; /* whatever comes after is counted, not written */
    if (failed(o)) {
        if (err) *err = o->err;
        rc = o->err.code;
    }
    pthread_mutex_unlock(&o->mu);
    return rc;
}

int mh_ocl_close(mh_ocl *o, mh_err *err) {
    if (!o) return MH_OK;
    int rc = mh_ocl_finish(o, err);
    for (size_t i = 0; i < MH_OCL_SLOTS; i++) {
        free(o->slots[i].seq);
        free(o->slots[i].acc);
    }
    free(o->bufs);
    free(o->pcs);
    mh_site_close(o->sites);
    mh_collect_cfg_free(&o->cfg);
    mh_collect_state_free(&o->sel);
    pthread_mutex_destroy(&o->mu);
    free(o);
    return rc;
}

/* ---- buffers ---- */

void mh_ocl_buffer_alloc(mh_ocl *o, uint64_t base, uint64_t size) {
    pthread_mutex_lock(&o->mu);
    if (o->nbufs == o->capbufs) {
        mh_ocl_buf *nb = mh_grow(o->bufs, &o->capbufs, o->nbufs + 1, sizeof *nb, 64);
        if (!nb) {
            mh_err e;
            mh_err_set(&e, MH_ERR_NOMEM, "out of memory tracking OpenCL buffers");
            fail(o, &e);
            pthread_mutex_unlock(&o->mu);
            return;
        }
        o->bufs = nb;
    }
    o->bufs[o->nbufs++] = (mh_ocl_buf){.base = base, .size = size, .space = MH_SPACE_GLOBAL};
    pthread_mutex_unlock(&o->mu);
}

void mh_ocl_buffer_free(mh_ocl *o, uint64_t base) {
    pthread_mutex_lock(&o->mu);
    for (size_t i = o->nbufs; i-- > 0;) {
        if (o->bufs[i].base != base) continue;
        if (o->bufs[i].written && o->w && !failed(o)) {
            mh_free f = {.base = base, .space = o->bufs[i].space};
            mh_err e;
            if (mh_trace_write_free(o->w, &f, &e) != MH_OK) fail(o, &e);
        }
        /* ids are indexes: keep the entry, mark it gone */
        o->bufs[i].size = 0;
        o->bufs[i].base = UINT64_MAX;
        break;
    }
    pthread_mutex_unlock(&o->mu);
}

/* ---- launches ---- */

void mh_ocl_enqueued(mh_ocl *o, const char *kernel_name) {
    /* frames to leave out: mh_site_capture's caller (this) and the hook */
    uint32_t site = mh_site_capture(o->sites, 2);
    pthread_mutex_lock(&o->mu);
    if (o->pend_n == MH_OCL_PENDING) { /* never begun: the oldest is forgotten */
        o->pend_head = (o->pend_head + 1) % MH_OCL_PENDING;
        o->pend_n--;
    }
    size_t at = (o->pend_head + o->pend_n++) % MH_OCL_PENDING;
    snprintf(o->pending[at].name, sizeof o->pending[at].name, "%s", kernel_name ? kernel_name : "");
    o->pending[at].site = site;
    pthread_mutex_unlock(&o->mu);
}

/* The oldest enqueued site of kernel `name`, taken off the ring (under mu);
 * MH_SITE_NONE when none was queued (a program that enqueues from an
 * object loaded after the hook went in: the shim has it patched then). */
static uint32_t take_pending(mh_ocl *o, const char *name) {
    for (size_t k = 0; k < o->pend_n; k++) {
        size_t i = (o->pend_head + k) % MH_OCL_PENDING;
        if (strncmp(o->pending[i].name, name, sizeof o->pending[i].name - 1) != 0) continue;
        uint32_t site = o->pending[i].site;
        for (size_t j = k; j > 0; j--) /* close the gap: the older ones move up one */
            o->pending[(o->pend_head + j) % MH_OCL_PENDING] = o->pending[(o->pend_head + j - 1) % MH_OCL_PENDING];
        o->pend_head = (o->pend_head + 1) % MH_OCL_PENDING;
        o->pend_n--;
        return site;
    }
    return MH_SITE_NONE;
}

uint32_t mh_ocl_kernel_site(mh_ocl *o) {
    pthread_mutex_lock(&o->mu);
    uint32_t s = o->sites ? o->site : 0;
    pthread_mutex_unlock(&o->mu);
    return s;
}

int mh_ocl_kernel_begin(mh_ocl *o, const mh_ocl_kernel *k) {
    pthread_mutex_lock(&o->mu);
    assert(!o->in_launch);
    o->in_launch = 1;
    o->launch_recorded = 0;
    atomic_store(&o->launch_dropped, 0);
    o->groups = k->groups;
    o->local = k->local;
    o->local_bytes = k->local_bytes;
    snprintf(o->kname, sizeof o->kname, "%s", k->name);
    memset(o->local_vars, 0, sizeof o->local_vars);
    o->local_layout_done = 0;
    o->local_window_end = 0;
    o->nargs = 0;
    mh_collect_launch key = {.name = k->name, .grid = k->groups, .block = k->local, .dyn_smem = k->local_bytes};
    o->site = take_pending(o, k->name);
    mh_site_count(o->sites, o->site, &key);
    o->traced = !failed(o) && mh_collect_want_launch(&o->cfg, &o->sel, &key);
    if (o->traced) o->launch_id = o->next_launch++;
    int t = o->traced;
    pthread_mutex_unlock(&o->mu);
    return t;
}

static void label_buf_locked(mh_ocl *o, const char *name, uint64_t ptr, unsigned space) {
    mh_ocl_buf *b = buf_find(o, ptr);
    if (b && !b->written) {
        if (!b->label[0] && name) snprintf(b->label, sizeof b->label, "%s", name);
        if (space == MH_SPACE_CONSTANT) b->space = MH_SPACE_CONSTANT;
    }
}

void mh_ocl_kernel_arg(mh_ocl *o, const char *name, uint64_t ptr, unsigned space) {
    pthread_mutex_lock(&o->mu);
    label_buf_locked(o, name, ptr, space);
    pthread_mutex_unlock(&o->mu);
}

void mh_ocl_kernel_param(mh_ocl *o, uint32_t index, const char *name, const char *type, uint64_t ptr,
                         unsigned space) {
    pthread_mutex_lock(&o->mu);
    label_buf_locked(o, name, ptr, space);
    if (o->traced && o->nargs < MH_OCL_MAX_ARGS) {
        mh_ocl_arg *a = &o->args[o->nargs++];
        a->index = index;
        a->space = (uint8_t)space;
        a->ptr = ptr;
        snprintf(a->name, sizeof a->name, "%s", name ? name : "");
        snprintf(a->type, sizeof a->type, "%s", type ? type : "");
    }
    pthread_mutex_unlock(&o->mu);
}

static int pc_seen_insert(mh_ocl *o, uint64_t pc) {
    if (pc == 0) return 1;
    if (2 * (o->npcs + 1) > o->cappcs) {
        size_t cap = o->cappcs ? 2 * o->cappcs : 1024;
        uint64_t *t = calloc(cap, sizeof *t);
        if (!t) return 1; /* treat as seen: only the source line is lost */
        for (size_t i = 0; i < o->cappcs; i++) {
            uint64_t v = o->pcs[i];
            if (!v) continue;
            size_t j = (size_t)(v * 0x9e3779b97f4a7c15ull) & (cap - 1);
            while (t[j]) j = (j + 1) & (cap - 1);
            t[j] = v;
        }
        free(o->pcs);
        o->pcs = t;
        o->cappcs = cap;
    }
    size_t j = (size_t)(pc * 0x9e3779b97f4a7c15ull) & (o->cappcs - 1);
    while (o->pcs[j]) {
        if (o->pcs[j] == pc) return 1;
        j = (j + 1) & (o->cappcs - 1);
    }
    o->pcs[j] = pc;
    o->npcs++;
    return 0;
}

void mh_ocl_pcinfo(mh_ocl *o, uint64_t pc, const char *function, const char *file, uint32_t line) {
    pthread_mutex_lock(&o->mu);
    if (o->w && !failed(o) && !pc_seen_insert(o, pc)) {
        mh_pcinfo p = {.pc = pc, .function = function ? function : "", .file = file ? file : "",
                       .line = line};
        mh_err e;
        if (mh_trace_write_pcinfo(o->w, &p, &e) != MH_OK) fail(o, &e);
    }
    pthread_mutex_unlock(&o->mu);
}

void mh_ocl_kernel_ready(mh_ocl *o) {
    pthread_mutex_lock(&o->mu);
    if (o->traced && o->w && !failed(o)) {
        for (size_t i = 0; i < o->nbufs; i++)
            if (o->bufs[i].base != UINT64_MAX) write_buf_alloc(o, &o->bufs[i]);
        uint32_t ids[MH_OCL_SAMPLED_CAP];
        uint32_t n = mh_collect_sampled_list(&o->cfg, o->groups, ids, MH_OCL_SAMPLED_CAP);
        mh_launch l = {.id = o->launch_id, .name = o->kname, .display_name = o->kname,
                       .grid = o->groups, .block = o->local, .static_smem = o->local_bytes, .n_sampled = n,
                       .sampled = n == MH_TRACE_ALL_BLOCKS ? NULL : ids};
        mh_err e;
        if (mh_trace_write_launch(o->w, &l, &e) != MH_OK) fail(o, &e);
        if (o->site != MH_SITE_NONE && o->w && !failed(o)) {
            mh_launch_site ls = {.launch = o->launch_id, .site = o->site};
            if (mh_site_write_new(o->sites, o->w, &e) != MH_OK || mh_trace_write_launch_site(o->w, &ls, &e) != MH_OK)
                fail(o, &e);
        }
        for (uint32_t i = 0; i < o->nargs && o->w && !failed(o); i++) {
            const mh_ocl_arg *a = &o->args[i];
            mh_karg k = {.launch = o->launch_id, .index = a->index, .size = 8, .value = a->ptr,
                         .space = a->space, .type = a->type, .name = a->name};
            if (mh_trace_write_karg(o->w, &k, &e) != MH_OK) fail(o, &e);
        }
    }
    pthread_mutex_unlock(&o->mu);
}

void mh_ocl_kernel_end(mh_ocl *o) {
    pthread_mutex_lock(&o->mu);
    if (!o->in_launch) {
        pthread_mutex_unlock(&o->mu);
        return;
    }
    /* groups that never completed (a fatal error inside Oclgrind) */
    int hi = atomic_load(&o->slot_hi);
    for (int i = 0; i < hi; i++) {
        mh_ocl_group *g = &o->slots[i];
        if (atomic_load(&g->owner)) {
            merge_locked(o, g);
            atomic_store(&g->owner, NULL);
        }
    }
    if (o->traced && o->w && !failed(o)) {
        mh_kernel_end ke = {.launch = o->launch_id, .recorded = o->launch_recorded,
                            .dropped = atomic_load(&o->launch_dropped)};
        mh_err e;
        if (mh_trace_write_kernel_end(o->w, &ke, &e) != MH_OK || mh_trace_flush(o->w, &e) != MH_OK)
            fail(o, &e);
    }
    o->in_launch = 0;
    o->traced = 0;
    pthread_mutex_unlock(&o->mu);
}

/* ---- local memory layout ---- */

int mh_ocl_local_needed(mh_ocl *o) {
    pthread_mutex_lock(&o->mu);
    int need = o->traced && !o->local_layout_done;
    if (!need) pthread_mutex_unlock(&o->mu);
    /* on 1 the lock stays held until mh_ocl_local_done: one group reports */
    return need;
}

void mh_ocl_local_var(mh_ocl *o, uint64_t bufidx, uint64_t size, uint64_t align, const char *label) {
    /* caller holds o->mu (between mh_ocl_local_needed() == 1 and mh_ocl_local_done) */
    if (bufidx >= MH_OCL_MAX_LOCAL_VARS) return;
    if (align < 4) align = 4;
    if (align & (align - 1)) align = 16;
    uint64_t at = (o->local_window_end + align - 1) & ~(align - 1);
    o->local_vars[bufidx] = (mh_ocl_localvar){.window = at, .size = size, .known = 1};
    o->local_window_end = at + size;
    if (o->w && !failed(o)) {
        mh_alloc a = {.id = o->next_shared_id++, .launch = o->launch_id,
                      .base = at, .size = size, .space = MH_SPACE_SHARED, .label = label ? label : ""};
        mh_err e;
        if (mh_trace_write_alloc(o->w, &a, &e) != MH_OK) fail(o, &e);
    }
}

void mh_ocl_local_done(mh_ocl *o) {
    o->local_layout_done = 1;
    pthread_mutex_unlock(&o->mu);
}

/* ---- work-groups ---- */

mh_ocl_group *mh_ocl_group_find(mh_ocl *o, const void *key) {
    int hi = atomic_load_explicit(&o->slot_hi, memory_order_acquire);
    for (int i = 0; i < hi; i++)
        if (atomic_load_explicit(&o->slots[i].owner, memory_order_acquire) == key) return &o->slots[i];
    return NULL;
}

mh_ocl_group *mh_ocl_group_begin(mh_ocl *o, const void *key, mh_dim3 gid, uint32_t nitems) {
    if (!o->traced) return NULL;
    uint32_t b = gid.x + o->groups.x * (gid.y + o->groups.y * gid.z);
    if (!mh_collect_block_sampled(&o->cfg, o->groups, b)) return NULL;
    pthread_mutex_lock(&o->mu);
    mh_ocl_group *g = NULL;
    for (int i = 0; i < MH_OCL_SLOTS; i++) {
        if (atomic_load(&o->slots[i].owner) == NULL) {
            g = &o->slots[i];
            if (i >= atomic_load(&o->slot_hi)) atomic_store(&o->slot_hi, i + 1);
            break;
        }
    }
    mh_err e;
    if (g && !g->acc) {
        g->acc = malloc(MH_OCL_SLOT_ACCESSES * sizeof *g->acc);
        if (!g->acc) g = NULL;
    }
    if (g && g->seq_cap < nitems) {
        uint32_t *s = realloc(g->seq, (size_t)nitems * sizeof *s);
        if (s) {
            g->seq = s;
            g->seq_cap = nitems;
        } else {
            g = NULL;
        }
    }
    if (!g) {
        mh_err_set(&e, MH_ERR_NOMEM, "no memory for work-group %u of kernel %s", b, o->kname);
        fail(o, &e);
        pthread_mutex_unlock(&o->mu);
        return NULL;
    }
    g->block = b;
    g->nitems = nitems;
    g->nacc = 0;
    memset(g->seq, 0, (size_t)nitems * sizeof *g->seq);
    atomic_store_explicit(&g->owner, key, memory_order_release);
    pthread_mutex_unlock(&o->mu);
    return g;
}

void mh_ocl_group_end(mh_ocl *o, const void *key) {
    mh_ocl_group *g = mh_ocl_group_find(o, key);
    if (!g) return;
    pthread_mutex_lock(&o->mu);
    merge_locked(o, g);
    atomic_store_explicit(&g->owner, NULL, memory_order_release);
    pthread_mutex_unlock(&o->mu);
}

void mh_ocl_access(mh_ocl *o, mh_ocl_group *g, uint32_t item, unsigned space, unsigned kind,
                   uint64_t bufidx, uint64_t addr, uint32_t size, uint64_t pc) {
    assert(g && item < g->nitems);
    if (space == MH_SPACE_SHARED) {
        /* offset of the variable in the group's window (layout fixed before any group runs) */
        if (bufidx < MH_OCL_MAX_LOCAL_VARS && o->local_vars[bufidx].known)
            addr += o->local_vars[bufidx].window;
        else
            addr += bufidx << 32;
    } else if (space == MH_SPACE_LOCAL) {
        /* private memory: one frame per work-item, variables 4 GiB apart */
        addr += bufidx << 32;
    }
    /* one sequence number per access; a copy wider than a record can say
     * (struct copies, async copies) becomes several records of that step */
    uint32_t seq = g->seq[item]++;
    do {
        uint32_t n = size > 128 ? 128 : size;
        mh_access *a = &g->acc[g->nacc++];
        a->addr = addr;
        a->pc = pc;
        a->launch = o->launch_id;
        a->block = g->block;
        a->seq = seq;
        a->thread = (uint16_t)item;
        a->size = (uint8_t)n;
        a->flags = MH_ACCESS_FLAGS(kind, space);
        if (g->nacc == MH_OCL_SLOT_ACCESSES) merge(o, g);
        addr += n;
        size -= n;
    } while (size > 0);
}
