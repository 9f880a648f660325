/* site_nvtx.c -- the NVTX ranges open at each launch: memheat serves NVTX's
 * injection interface (site.h).
 *
 * NVTX (header-only since v3: PyTorch, cuDNN, a C++ program's own ranges)
 * loads the library named by NVTX_INJECTION64_PATH at its first call and
 * calls its InitializeInjectionNvtx2 with a function that hands out NVTX's
 * export tables; the library writes its own functions into the callback
 * slots of the modules it serves. memheat's run layer points the variable
 * at the collector library, which exports the function below, and fills the
 * range calls of the core modules: push/pop (per thread, one stack over
 * every domain), start/end (per process), domains and registered strings.
 * Every other NVTX call stays the no-op NVTX makes it without an injection.
 * A named domain's push remembers the code segment it came from, and counts
 * at a launch only while that object is on the launch's stack (site.h:
 * NCCL leaves a range open for the rest of its thread's life).
 *
 * Names are interned once (a range's id is its name's); PyTorch's emit_nvtx
 * decorations are cut from the name (", seq = N", ", op_id = ...",
 * ", sizes = [...]", ", input_op_ids = ..."), so that a training step's ops
 * dedup into the same sites every step, and the sequence number is kept
 * beside the range: a forward op's range on a thread with Python frames
 * ties N to those frames, and a launch on a thread without any (the
 * autograd engine's) under a range of sequence N gets them as its Python
 * frames (MH_SITE_PY_FORWARD).
 *
 * The one global: NVTX calls its injection with no context of the caller's,
 * so the names, the start/end ranges, the sequence map and the attached
 * site state live in g_nv; each thread's stack is thread-local. */
#define _GNU_SOURCE
#include "collectors/site/site.h"

#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "util/grow.h"

/* ---- the NVTX ABI memheat serves (nvtx3/nvtxDetail/nvtxTypes.h) ---- */
#define NV_ETID_CALLBACKS 1
#define NV_MODULE_CORE 1
#define NV_MODULE_CORE2 5
enum {
    NV_CORE_RangeStartEx = 4, NV_CORE_RangeStartA = 5, NV_CORE_RangeStartW = 6, NV_CORE_RangeEnd = 7,
    NV_CORE_RangePushEx = 8, NV_CORE_RangePushA = 9, NV_CORE_RangePushW = 10, NV_CORE_RangePop = 11
};
enum {
    NV_CORE2_RangeStartEx = 2, NV_CORE2_RangeEnd = 3, NV_CORE2_RangePushEx = 4, NV_CORE2_RangePop = 5,
    NV_CORE2_RegisterStringA = 10, NV_CORE2_RegisterStringW = 11, NV_CORE2_CreateA = 12, NV_CORE2_CreateW = 13
};
enum { NV_MSG_ASCII = 1, NV_MSG_UNICODE = 2, NV_MSG_REGISTERED = 3 };

typedef void (*nv_fn)(void);
typedef nv_fn **nv_table;
typedef struct nv_callbacks {
    size_t struct_size;
    int (*get_module)(int module, nv_table *table, unsigned *size);
} nv_callbacks;
typedef const void *(*nv_get_export_table)(uint32_t id);

/* nvtxEventAttributes_t (v2/v3): the message type at 32, the message at 40. */
typedef struct nv_attr {
    uint16_t version, size;
    uint32_t category;
    int32_t color_type;
    uint32_t color;
    int32_t payload_type;
    int32_t reserved0;
    uint64_t payload;
    int32_t message_type;
    const void *message;
} nv_attr;

/* A domain (nvtxDomainHandle_t) and a registered string (nvtxStringHandle_t). */
typedef struct nv_domain {
    char *name;
    uintptr_t lo, hi; /* the code segment of the object that last pushed a range of it (under g_nv.mu) */
} nv_domain;
typedef struct nv_string {
    char *text;
} nv_string;

/* ---- process-wide state ---- */

#define NV_SEQ_SLOTS 65536u /* forward sequence numbers remembered (a step's ops) */
#define NV_DEPTH 256        /* push/pop depth kept per thread (deeper ranges are counted, not named) */

typedef struct nv_open {
    uint64_t range;  /* the id start returned */
    uint32_t name;
} nv_open;

static struct {
    pthread_mutex_t mu;
    char **names;           /* interned names by id */
    size_t nnames, capnames;
    uint32_t *ix;           /* open-addressing index of names: id + 1 */
    size_t capix;
    nv_open *open;          /* start/end ranges open, in start order */
    size_t nopen, capopen;
    uint64_t next_range;
    struct { int64_t seq; uint32_t py; } seqmap[NV_SEQ_SLOTS];
    _Atomic(mh_site_state *) state;
} g_nv = {.mu = PTHREAD_MUTEX_INITIALIZER, .next_range = 1};

typedef struct nv_frame {
    uint32_t name;
    const nv_domain *domain;
    int64_t seq;     /* -1: none */
    uintptr_t lo, hi; /* a named domain's range: the code segment that pushed it; 0, 0: always open */
} nv_frame;

static _Thread_local struct {
    nv_frame f[NV_DEPTH];
    uint32_t depth; /* may pass NV_DEPTH: the ranges past it are not kept */
} tl_nv;

void mh_site_nvtx_attach(mh_site_state *s) { atomic_store(&g_nv.state, s); }

static uint64_t str_hash(const char *s) {
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* The id of name (interned on first sight); under mu. UINT32_MAX without memory. */
static uint32_t intern_locked(const char *name) {
    uint64_t h = str_hash(name);
    if (g_nv.capix) {
        size_t j = (size_t)h & (g_nv.capix - 1);
        while (g_nv.ix[j]) {
            if (!strcmp(g_nv.names[g_nv.ix[j] - 1], name)) return g_nv.ix[j] - 1;
            j = (j + 1) & (g_nv.capix - 1);
        }
    }
    if (2 * (g_nv.nnames + 1) > g_nv.capix) {
        size_t cap = g_nv.capix ? 2 * g_nv.capix : 1024;
        uint32_t *ix = calloc(cap, sizeof *ix);
        if (!ix) return UINT32_MAX;
        for (size_t i = 0; i < g_nv.nnames; i++) {
            size_t j = (size_t)str_hash(g_nv.names[i]) & (cap - 1);
            while (ix[j]) j = (j + 1) & (cap - 1);
            ix[j] = (uint32_t)i + 1;
        }
        free(g_nv.ix);
        g_nv.ix = ix;
        g_nv.capix = cap;
    }
    char **v = mh_grow(g_nv.names, &g_nv.capnames, g_nv.nnames + 1, sizeof *v, 256);
    char *copy = strdup(name);
    if (!v || !copy) {
        free(copy);
        return UINT32_MAX;
    }
    g_nv.names = v;
    g_nv.names[g_nv.nnames] = copy;
    size_t j = (size_t)h & (g_nv.capix - 1);
    while (g_nv.ix[j]) j = (j + 1) & (g_nv.capix - 1);
    g_nv.ix[j] = (uint32_t)g_nv.nnames + 1;
    return (uint32_t)g_nv.nnames++;
}

const char *mh_site_nvtx_name(uint32_t id) {
    pthread_mutex_lock(&g_nv.mu);
    const char *s = id < g_nv.nnames ? g_nv.names[id] : "?";
    pthread_mutex_unlock(&g_nv.mu);
    return s;
}

/* PyTorch's emit_nvtx decorations: where the plain op name ends, and its
 * sequence number (-1 = none). */
static size_t plain_length(const char *s, int64_t *seq) {
    static const char *const cuts[] = {", seq = ", ", op_id = ", ", sizes = ", ", input_op_ids = ", ", stashed seq"};
    size_t n = strlen(s);
    *seq = -1;
    for (size_t i = 0; i < sizeof cuts / sizeof *cuts; i++) {
        const char *p = strstr(s, cuts[i]);
        if (p && (size_t)(p - s) < n) n = (size_t)(p - s);
    }
    const char *q = strstr(s, "seq = ");
    if (!q) q = strstr(s, "seq=");
    if (q) {
        q = strchr(q, '=') + 1;
        while (*q == ' ') q++;
        if (*q >= '0' && *q <= '9') *seq = strtoll(q, NULL, 10);
    }
    return n;
}

/* The interned id of a range's name as shown: "name", or "{domain} name". */
static uint32_t name_id(const nv_domain *d, const char *msg, int64_t *seq) {
    char buf[1024];
    size_t n = plain_length(msg ? msg : "", seq);
    size_t k = 0;
    if (d && d->name && *d->name) {
        int w = snprintf(buf, sizeof buf, "{%s} ", d->name);
        k = w > 0 && (size_t)w < sizeof buf ? (size_t)w : 0;
    }
    if (n > sizeof buf - 1 - k) n = sizeof buf - 1 - k;
    memcpy(buf + k, msg ? msg : "", n);
    buf[k + n] = '\0';
    pthread_mutex_lock(&g_nv.mu);
    uint32_t id = intern_locked(buf);
    pthread_mutex_unlock(&g_nv.mu);
    return id;
}

/* UTF-8 text of a wide string into buf. */
static const char *narrow(const wchar_t *w, char *buf, size_t cap) {
    size_t k = 0;
    for (; w && *w && k + 5 < cap; w++) {
        uint32_t c = (uint32_t)*w;
        if (c < 0x80) buf[k++] = (char)c;
        else if (c < 0x800) buf[k++] = (char)(0xC0 | c >> 6), buf[k++] = (char)(0x80 | (c & 63));
        else if (c < 0x10000) buf[k++] = (char)(0xE0 | c >> 12), buf[k++] = (char)(0x80 | ((c >> 6) & 63)),
                              buf[k++] = (char)(0x80 | (c & 63));
        else buf[k++] = (char)(0xF0 | c >> 18), buf[k++] = (char)(0x80 | ((c >> 12) & 63)),
             buf[k++] = (char)(0x80 | ((c >> 6) & 63)), buf[k++] = (char)(0x80 | (c & 63));
    }
    buf[k] = '\0';
    return buf;
}

static const char *attr_message(const nv_attr *a, char *buf, size_t cap) {
    if (!a || !a->message) return "";
    switch (a->message_type) {
    case NV_MSG_ASCII: return a->message;
    case NV_MSG_UNICODE: return narrow(a->message, buf, cap);
    case NV_MSG_REGISTERED: return ((const nv_string *)a->message)->text;
    default: return "";
    }
}

/* ---- push/pop ---- */

static void seq_note(int64_t seq) {
    mh_site_state *s = atomic_load(&g_nv.state);
    if (seq < 0 || !s) return;
    uint32_t slot = (uint32_t)seq & (NV_SEQ_SLOTS - 1);
    pthread_mutex_lock(&g_nv.mu);
    int known = g_nv.seqmap[slot].seq == seq + 1; /* stored + 1: 0 = empty */
    pthread_mutex_unlock(&g_nv.mu);
    if (known) return; /* the outermost op of that number keeps it */
    uint32_t py = mh_site_pystack_here(s);
    if (py == MH_SITE_NONE) return; /* a thread without Python frames: nothing to tie */
    pthread_mutex_lock(&g_nv.mu);
    g_nv.seqmap[slot].seq = seq + 1;
    g_nv.seqmap[slot].py = py;
    pthread_mutex_unlock(&g_nv.mu);
}

/* The executable segment of the loaded object holding address a. */
typedef struct seg_find {
    uintptr_t a, lo, hi;
} seg_find;

static int seg_of(struct dl_phdr_info *info, size_t size, void *arg) {
    (void)size;
    seg_find *f = arg;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X)) continue;
        uintptr_t lo = (uintptr_t)info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
        if (f->a >= lo && f->a < hi) {
            f->lo = lo, f->hi = hi;
            return 1;
        }
    }
    return 0;
}

/* Where a named domain's push came from (ra: the return address into the
 * pushing code): the object's code segment, cached in the domain, since a
 * domain's ranges come from one library. */
static void pusher_of(nv_domain *d, uintptr_t ra, uintptr_t *lo, uintptr_t *hi) {
    pthread_mutex_lock(&g_nv.mu);
    int known = ra >= d->lo && ra < d->hi;
    *lo = d->lo, *hi = d->hi;
    pthread_mutex_unlock(&g_nv.mu);
    if (known) return;
    seg_find f = {.a = ra};
    if (!dl_iterate_phdr(seg_of, &f)) { /* not in a loaded object: the range always counts */
        *lo = *hi = 0;
        return;
    }
    pthread_mutex_lock(&g_nv.mu);
    d->lo = f.lo, d->hi = f.hi;
    pthread_mutex_unlock(&g_nv.mu);
    *lo = f.lo, *hi = f.hi;
}

static int push(nv_domain *d, const char *msg, uintptr_t ra) {
    int64_t seq;
    uint32_t id = name_id(d, msg, &seq);
    uintptr_t lo = 0, hi = 0;
    if (d && ra) pusher_of(d, ra, &lo, &hi);
    if (tl_nv.depth < NV_DEPTH) tl_nv.f[tl_nv.depth] = (nv_frame){.name = id, .domain = d, .seq = seq, .lo = lo, .hi = hi};
    tl_nv.depth++;
    seq_note(seq);
    return (int)tl_nv.depth - 1;
}

/* Pops the innermost range of domain d (NVTX keeps one stack per domain). */
static int pop(const nv_domain *d) {
    if (tl_nv.depth == 0) return -1;
    if (tl_nv.depth > NV_DEPTH) {
        tl_nv.depth--;
        return (int)tl_nv.depth;
    }
    for (uint32_t i = tl_nv.depth; i-- > 0;)
        if (tl_nv.f[i].domain == d) {
            memmove(&tl_nv.f[i], &tl_nv.f[i + 1], (tl_nv.depth - 1 - i) * sizeof *tl_nv.f);
            tl_nv.depth--;
            return (int)tl_nv.depth;
        }
    return -1;
}

static int nv_push_a(const char *m) { return push(NULL, m, 0); }
static int nv_push_w(const wchar_t *m) {
    char buf[1024];
    return push(NULL, narrow(m, buf, sizeof buf), 0);
}
static int nv_push_ex(const nv_attr *a) {
    char buf[1024];
    return push(NULL, attr_message(a, buf, sizeof buf), 0);
}
static int nv_pop(void) { return pop(NULL); }
static int nv_dom_push(nv_domain *d, const nv_attr *a) {
    char buf[1024];
    /* called from NVTX's inline functions, compiled into the pushing library */
    return push(d, attr_message(a, buf, sizeof buf), (uintptr_t)__builtin_return_address(0));
}
static int nv_dom_pop(const nv_domain *d) { return pop(d); }

/* ---- start/end ---- */

static uint64_t start(const nv_domain *d, const char *msg) {
    int64_t seq;
    uint32_t id = name_id(d, msg, &seq);
    pthread_mutex_lock(&g_nv.mu);
    uint64_t r = g_nv.next_range++;
    nv_open *v = mh_grow(g_nv.open, &g_nv.capopen, g_nv.nopen + 1, sizeof *v, 16);
    if (v && g_nv.nopen < MH_SITE_MAX_NVTX * 4) {
        g_nv.open = v;
        g_nv.open[g_nv.nopen++] = (nv_open){.range = r, .name = id};
    }
    pthread_mutex_unlock(&g_nv.mu);
    return r;
}

static void end(uint64_t r) {
    pthread_mutex_lock(&g_nv.mu);
    for (size_t i = 0; i < g_nv.nopen; i++)
        if (g_nv.open[i].range == r) {
            memmove(&g_nv.open[i], &g_nv.open[i + 1], (g_nv.nopen - 1 - i) * sizeof *g_nv.open);
            g_nv.nopen--;
            break;
        }
    pthread_mutex_unlock(&g_nv.mu);
}

static uint64_t nv_start_a(const char *m) { return start(NULL, m); }
static uint64_t nv_start_w(const wchar_t *m) {
    char buf[1024];
    return start(NULL, narrow(m, buf, sizeof buf));
}
static uint64_t nv_start_ex(const nv_attr *a) {
    char buf[1024];
    return start(NULL, attr_message(a, buf, sizeof buf));
}
static void nv_end(uint64_t r) { end(r); }
static uint64_t nv_dom_start(const nv_domain *d, const nv_attr *a) {
    char buf[1024];
    return start(d, attr_message(a, buf, sizeof buf));
}
static void nv_dom_end(const nv_domain *d, uint64_t r) {
    (void)d;
    end(r);
}

/* ---- domains and registered strings (kept for the process's life) ---- */

static nv_domain *nv_create_a(const char *name) {
    nv_domain *d = calloc(1, sizeof *d);
    if (d) d->name = strdup(name ? name : "");
    return d;
}
static nv_domain *nv_create_w(const wchar_t *name) {
    char buf[1024];
    return nv_create_a(narrow(name, buf, sizeof buf));
}
static nv_string *nv_register_a(const nv_domain *d, const char *s) {
    (void)d;
    nv_string *r = calloc(1, sizeof *r);
    if (r) r->text = strdup(s ? s : "");
    return r;
}
static nv_string *nv_register_w(const nv_domain *d, const wchar_t *s) {
    char buf[1024];
    return nv_register_a(d, narrow(s, buf, sizeof buf));
}

/* ---- what a capture reads ---- */

/* Whether thread frame f is open at a launch whose return addresses are pc[n]. */
static int frame_open(const nv_frame *f, const uint64_t *pc, uint32_t n, int cut) {
    if (!f->hi || cut) return 1;
    for (uint32_t i = 0; i < n; i++)
        if (pc[i] >= f->lo && pc[i] < f->hi) return 1;
    return 0;
}

uint32_t mh_site_nvtx_stack(uint32_t *ids, uint32_t cap, uint32_t *fwd, const uint64_t *pc, uint32_t npc, int cut) {
    uint32_t n = 0;
    *fwd = MH_SITE_NONE;
    int64_t seq = -1;
    uint32_t depth = tl_nv.depth < NV_DEPTH ? tl_nv.depth : NV_DEPTH;
    for (uint32_t i = depth; i-- > 0;)
        if (tl_nv.f[i].seq >= 0) {
            seq = tl_nv.f[i].seq;
            break;
        }
    pthread_mutex_lock(&g_nv.mu);
    for (size_t i = 0; i < g_nv.nopen && n < cap; i++) ids[n++] = g_nv.open[i].name;
    if (seq >= 0) {
        uint32_t slot = (uint32_t)seq & (NV_SEQ_SLOTS - 1);
        if (g_nv.seqmap[slot].seq == seq + 1) *fwd = g_nv.seqmap[slot].py;
    }
    pthread_mutex_unlock(&g_nv.mu);
    for (uint32_t i = 0; i < depth && n < cap; i++)
        if (frame_open(&tl_nv.f[i], pc, npc, cut)) ids[n++] = tl_nv.f[i].name;
    return n;
}

/* ---- the injection entry point ---- */

static void set_slot(nv_table t, unsigned size, unsigned id, nv_fn fn) {
    if (t && id < size && t[id]) *t[id] = fn;
}

__attribute__((visibility("default"))) int InitializeInjectionNvtx2(nv_get_export_table get);

int InitializeInjectionNvtx2(nv_get_export_table get) {
    const nv_callbacks *cb = get ? get(NV_ETID_CALLBACKS) : NULL;
    if (!cb || cb->struct_size < sizeof *cb || !cb->get_module) return 0;
    nv_table t = NULL;
    unsigned size = 0;
    if (cb->get_module(NV_MODULE_CORE, &t, &size) && t) {
        set_slot(t, size, NV_CORE_RangePushA, (nv_fn)nv_push_a);
        set_slot(t, size, NV_CORE_RangePushW, (nv_fn)nv_push_w);
        set_slot(t, size, NV_CORE_RangePushEx, (nv_fn)nv_push_ex);
        set_slot(t, size, NV_CORE_RangePop, (nv_fn)nv_pop);
        set_slot(t, size, NV_CORE_RangeStartA, (nv_fn)nv_start_a);
        set_slot(t, size, NV_CORE_RangeStartW, (nv_fn)nv_start_w);
        set_slot(t, size, NV_CORE_RangeStartEx, (nv_fn)nv_start_ex);
        set_slot(t, size, NV_CORE_RangeEnd, (nv_fn)nv_end);
    }
    t = NULL;
    size = 0;
    if (cb->get_module(NV_MODULE_CORE2, &t, &size) && t) {
        set_slot(t, size, NV_CORE2_RangePushEx, (nv_fn)nv_dom_push);
        set_slot(t, size, NV_CORE2_RangePop, (nv_fn)nv_dom_pop);
        set_slot(t, size, NV_CORE2_RangeStartEx, (nv_fn)nv_dom_start);
        set_slot(t, size, NV_CORE2_RangeEnd, (nv_fn)nv_dom_end);
        set_slot(t, size, NV_CORE2_CreateA, (nv_fn)nv_create_a);
        set_slot(t, size, NV_CORE2_CreateW, (nv_fn)nv_create_w);
        set_slot(t, size, NV_CORE2_RegisterStringA, (nv_fn)nv_register_a);
        set_slot(t, size, NV_CORE2_RegisterStringW, (nv_fn)nv_register_w);
    }
    return 1;
}
