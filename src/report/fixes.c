/* fixes.c -- "what do I fix first?" computed once (fixes.h): the causes of a
 * profile folded into fixes and ranked by their estimated saving in time.
 *
 * The saving model (docs/report.md, "Estimated saving"): a traced launch's
 * memory work goes through three pipes memheat can count from its trace --
 * the L1 data pipe (one wavefront per 128-byte line a global warp request
 * touches, plus the shared-memory wavefronts), the path of partial-line
 * stores to L2 (one request per line a store touches), and DRAM (the 64-byte
 * atoms the launch loads and the 32-byte sectors it stores, from its heat
 * map) -- each at its rate on the device, scaled from the traced blocks to
 * the grid. A fix removes what its cause adds to those pipes. When the
 * kernel runs near its busiest pipe (>= MH_FIX_NEAR of its time), its time
 * follows that pipe: share = 1 - P'/P. Below every pipe, something memheat
 * does not see limits it, and the share is the geometric mean of the pipe
 * time the fix removes, (P - P')/t, and the proportional share 1 - P'/P
 * (they bracket it). The share times the configuration's clean time (never
 * a time taken while traced) is the saving. Causes without a pattern have
 * models of their own: a small grid reaches max(time x blocks/SMs, P), a
 * latency-bound kernel its busiest pipe, a launch chain the time of its
 * longest kernel or launch interval, a pageable copy the pinned rate. */
#include "report/fixes.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/bandwidth.h"
#include "report/advice.h"
#include "analyses/verdict.h"
#include "memheat/timing.h"
#include "util/grow.h"
#include "util/kname.h"
#include "util/sort.h"

/* ---- JSON helpers ---- */

static double jnum(const json_t *o, const char *k) {
    const json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : NAN;
}
/* An integer field; a real one in the range of long long is truncated, any
 * other (a damaged profile's 1e308, NaN) is `def`. */
static long long jint(const json_t *o, const char *k, long long def) {
    const json_t *v = json_object_get(o, k);
    if (json_is_integer(v)) return (long long)json_integer_value(v);
    double r = json_is_real(v) ? json_real_value(v) : NAN;
    return r >= -9.2e18 && r <= 9.2e18 ? (long long)r : def;
}
/* An unsigned 32-bit field; anything outside 0..UINT32_MAX (damage) is 0. */
static uint32_t ju32(const json_t *o, const char *k) {
    long long v = jint(o, k, 0);
    return v >= 0 && v <= (long long)UINT32_MAX ? (uint32_t)v : 0;
}
static const char *jstr(const json_t *o, const char *k) {
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}
static void dim3_of(const json_t *o, const char *k, long long d[3]) {
    const json_t *a = json_object_get(o, k);
    for (int i = 0; i < 3; i++) d[i] = json_is_array(a) ? (long long)json_integer_value(json_array_get(a, (size_t)i)) : 0;
}

/* ---- the device ---- */

typedef struct dev {
    double sms, clock_hz, peak_Bps;
    mh_timing_device td; /* for the occupancy rules of verdict.c */
    int known;
} dev;

static void dev_of(const json_t *root, dev *d) {
    memset(d, 0, sizeof *d);
    const json_t *best = NULL, *o;
    size_t i;
    json_array_foreach(json_object_get(root, "devices"), i, o) {
        int timing = !strcmp(jstr(o, "source"), "timing");
        if (!best || (timing && strcmp(jstr(best, "source"), "timing"))) best = o;
    }
    if (!best) return;
    d->td.sm_count = ju32(best, "sm_count");
    d->sms = (double)d->td.sm_count;
    d->clock_hz = (double)ju32(best, "sm_clock_khz") * 1e3;
    d->peak_Bps = jnum(best, "peak_Bps");
    d->td.cc_major = ju32(best, "cc_major");
    d->td.cc_minor = ju32(best, "cc_minor");
    d->td.max_threads_per_sm = ju32(best, "max_threads_per_sm");
    d->td.sm_clock_khz = ju32(best, "sm_clock_khz");
    if (!d->td.max_threads_per_sm) d->td.max_threads_per_sm = ju32(best, "max_warps_per_sm") * 32u;
    d->known = d->sms > 0 && d->clock_hz > 0 && isfinite(d->peak_Bps) && d->peak_Bps > 0;
}

/* ---- launch configurations and their clean times ---- */

typedef struct cfg {
    const char *name;
    long long grid[3], block[3], dyn, regs, smem, process;
    double launches, clean, clean_ns;
    double with_flops, flops_sp, flops_dp; /* launches whose FP instructions were counted, and their sums */
} cfg;

typedef struct ctx {
    mh_db *db;
    const json_t *root;
    dev d;
    int opencl;
    cfg *c;
    size_t nc, capc;
    mh_fixes *out;
    size_t capf;
    mh_err *err; /* a read error's message (a damaged profile) */
} ctx;

static int same_cfg(const cfg *c, const char *name, const long long g[3], const long long b[3], long long dyn,
                    long long proc) {
    return !strcmp(c->name, name) && !memcmp(c->grid, g, sizeof c->grid) && !memcmp(c->block, b, sizeof c->block) &&
           c->dyn == dyn && (c->process == proc || c->process < 0 || proc < 0);
}

static int load_cfgs(ctx *x) {
    const json_t *o;
    size_t i;
    json_array_foreach(json_object_get(x->root, "kernel_configs"), i, o) {
        cfg *v = mh_grow(x->c, &x->capc, x->nc + 1, sizeof *v, 16);
        if (!v) return MH_ERR_NOMEM;
        x->c = v;
        cfg *c = &x->c[x->nc++];
        memset(c, 0, sizeof *c);
        c->name = jstr(o, "name");
        dim3_of(o, "grid", c->grid);
        dim3_of(o, "block", c->block);
        c->dyn = jint(o, "dyn_smem", 0);
        c->regs = jint(o, "regs", 0);
        c->smem = jint(o, "static_smem", 0);
        c->process = jint(o, "process", -1);
        c->launches = (double)jint(o, "launches", 0);
        c->clean = (double)jint(o, "clean", 0);
        c->clean_ns = jnum(o, "clean_ns");
        c->with_flops = (double)jint(o, "with_flops", 0);
        c->flops_sp = jnum(o, "flops_sp");
        c->flops_dp = jnum(o, "flops_dp");
    }
    return MH_OK;
}

/* Kernel families of dense math (GEMM, convolution, attention from cuBLAS,
 * cuDNN, CUTLASS): their time goes to the FMA or tensor pipes, which the
 * trace does not see; without FP counters memheat cannot tell them from a
 * latency-bound kernel, so it does not call them one. */
static int dense_math_kernel(const char *name) {
    static const char *const families[] = {"gemm", "xmma", "cutlass", "wgmma", "hmma", "fmha",
                                           "flash_fwd", "flash_bwd", "fprop", "dgrad", "wgrad"};
    for (const char *p = name; *p; p++)
        for (size_t i = 0; i < sizeof families / sizeof families[0]; i++) {
            const char *f = families[i];
            size_t k = 0;
            while (f[k] && tolower((unsigned char)p[k]) == f[k]) k++;
            if (!f[k]) return 1;
        }
    return 0;
}

/* A launch's FP pipe time from its counted FP instructions (NAN: not counted). */
static double cfg_fp_ns(const ctx *x, const cfg *c) {
    if (!(c->with_flops > 0)) return NAN;
    double sp = mh_bw_peak_flops(&x->d.td, 0), dp = mh_bw_peak_flops(&x->d.td, 1), ns = 0;
    if (isfinite(c->flops_sp) && sp > 0) ns += c->flops_sp / sp * 1e9;
    if (isfinite(c->flops_dp) && c->flops_dp > 0) ns += dp > 0 ? c->flops_dp / dp * 1e9 : INFINITY;
    return ns / c->with_flops;
}

/* Mean clean time of a configuration's launch (NAN: none clean). */
static double cfg_t(const cfg *c) { return c && c->clean > 0 && isfinite(c->clean_ns) ? c->clean_ns / c->clean : NAN; }
/* Its clean time over all its launches (the untraced ones stand for the traced). */
static double cfg_total(const cfg *c) { return c ? cfg_t(c) * c->launches : NAN; }

static const cfg *cfg_of_launch(const ctx *x, const json_t *l) {
    long long g[3], b[3];
    dim3_of(l, "grid", g);
    dim3_of(l, "block", b);
    const char *name = jstr(l, "name");
    long long dyn = jint(l, "dyn_smem", 0), proc = jint(l, "process", -1);
    for (size_t i = 0; i < x->nc; i++)
        if (same_cfg(&x->c[i], name, g, b, dyn, proc)) return &x->c[i];
    /* the trace and the timing saw the launch differently (a timing without its grid, a trace
     * without its dynamic shared memory): the name's configuration of the most launches */
    const cfg *best = NULL;
    for (size_t i = 0; i < x->nc; i++)
        if (!strcmp(x->c[i].name, name) && (!best || x->c[i].launches > best->launches)) best = &x->c[i];
    return best;
}

static const json_t *launch_by_id(const json_t *root, long long id) {
    const json_t *o;
    size_t i;
    json_array_foreach(json_object_get(root, "launches"), i, o) if (jint(o, "id", -1) == id) return o;
    return NULL;
}

/* ---- a traced launch's work: its pipes ---- */

/* One object of a launch: what its requests and its heat rows add. */
typedef struct objw {
    long long obj;
    double lines, ideal_lines, st_lines, st_ideal_lines, ld_lines; /* global requests (kind load = ld) */
    double atoms, st_sectors, ld_words, st_words;                  /* heat rows */
    double sh_wavefronts;                                          /* shared wavefronts (bank table) */
    long long last_atom;
} objw;

typedef struct work {
    long long launch;
    double s;            /* grid blocks / traced blocks */
    objw *o;
    size_t no, capo;
    double l1, st, dram; /* of the traced blocks, in pipe units */
    double P[3];         /* pipe times, ns */
    int have;            /* the profile stores requests (one before them: no estimate) */
} work;

static objw *obj_of(work *w, long long obj) {
    for (size_t i = 0; i < w->no; i++)
        if (w->o[i].obj == obj) return &w->o[i];
    objw *v = mh_grow(w->o, &w->capo, w->no + 1, sizeof *v, 8);
    if (!v) return NULL;
    w->o = v;
    objw *o = &w->o[w->no++];
    memset(o, 0, sizeof *o);
    o->obj = obj;
    o->last_atom = -1;
    return o;
}

typedef struct heatctx {
    work *w;
    const json_t *regions;
    int fail;
} heatctx;

static int on_row(void *vc, const mh_db_heat_row *r) {
    heatctx *h = vc;
    long long obj = -1;
    if (r->region >= 0) obj = jint(json_array_get(h->regions, (size_t)r->region), "object", -1);
    objw *o = obj_of(h->w, obj);
    if (!o) {
        h->fail = 1;
        return 1;
    }
    int ld = 0, st = 0;
    for (int k = 0; k < MH_HEAT_WORDS; k++) {
        unsigned kind = MH_HEAT_KINDS_OF(r->kinds, (unsigned)k);
        if (!r->word[k]) continue;
        if (!r->kinds) kind = MH_HEAT_LOAD; /* a profile without kinds: read */
        if (kind & (MH_HEAT_LOAD | MH_HEAT_ATOMIC)) ld = 1, o->ld_words++;
        if (kind & (MH_HEAT_STORE | MH_HEAT_ATOMIC)) st = 1, o->st_words++;
    }
    long long atom = (long long)(r->tag / 2); /* a 64-byte DRAM atom: two sectors */
    if (ld && atom != o->last_atom) o->atoms++, o->last_atom = atom;
    if (st) o->st_sectors++;
    return 0;
}

static double div0(double a, double b) { return b > 0 ? a / b : 0; }

static void pipes(const ctx *x, const work *w, double l1, double st, double dram, double P[3]) {
    P[0] = div0(w->s * l1, x->d.sms * x->d.clock_hz) * 1e9;
    P[1] = div0(w->s * st, MH_FIX_STORE_LINES * x->d.sms * x->d.clock_hz) * 1e9;
    P[2] = div0(w->s * dram, MH_FIX_DRAM_FRAC * x->d.peak_Bps) * 1e9;
}
static double pmax(const double P[3]) { return fmax(P[0], fmax(P[1], P[2])); }

static double obj_dram(const objw *o) { return 64.0 * o->atoms + 32.0 * o->st_sectors; }
/* The DRAM bytes of the object's words when packed into whole sectors. */
static double obj_dram_ideal(const objw *o) {
    return 32.0 * ceil(o->ld_words * 4.0 / 32.0) + 32.0 * ceil(o->st_words * 4.0 / 32.0);
}

static int work_of(ctx *x, long long lid, work *w) {
    memset(w, 0, sizeof *w);
    w->launch = lid;
    const json_t *l = launch_by_id(x->root, lid);
    double nb = l ? (double)jint(l, "n_blocks", 0) : 0, ns = l ? (double)jint(l, "n_sampled", 0) : 0;
    w->s = nb > 0 && ns > 0 ? nb / ns : 1;
    const json_t *o;
    size_t i;
    w->have = json_object_get(x->root, "object_work") != NULL;
    json_array_foreach(json_object_get(x->root, "object_work"), i, o) {
        if (jint(o, "launch", -1) != lid) continue;
        objw *ob = obj_of(w, jint(o, "object", -1));
        if (!ob) return MH_ERR_NOMEM;
        double ln = jnum(o, "lines"), il = jnum(o, "ideal_lines");
        if (!isfinite(ln)) continue;
        ob->lines += ln, ob->ideal_lines += il;
        if (strcmp(jstr(o, "kind"), "load")) ob->st_lines += ln, ob->st_ideal_lines += il;
        else ob->ld_lines += ln;
    }
    json_array_foreach(json_object_get(x->root, "bank_conflicts"), i, o) {
        if (jint(o, "launch", -1) != lid) continue;
        objw *ob = obj_of(w, jint(o, "object", -1));
        if (!ob) return MH_ERR_NOMEM;
        ob->sh_wavefronts += jnum(o, "degree") * (double)jint(o, "accesses", 0);
    }
    json_array_foreach(json_object_get(x->root, "heat_maps"), i, o) {
        if (jint(o, "launch", -1) != lid || strcmp(jstr(o, "space"), "global")) continue;
        heatctx h = {w, json_object_get(o, "regions"), 0};
        int rc = mh_db_read_heat(x->db, jint(o, "id", -1), on_row, &h, x->err);
        if (h.fail) return MH_ERR_NOMEM;
        if (rc) return rc;
    }
    for (size_t k = 0; k < w->no; k++) {
        w->l1 += w->o[k].lines + w->o[k].sh_wavefronts;
        w->st += w->o[k].st_lines;
        w->dram += obj_dram(&w->o[k]);
    }
    pipes(x, w, w->l1, w->st, w->dram, w->P);
    return MH_OK;
}

static void work_free(work *w) { free(w->o); }

/* ---- families of pattern findings ---- */

enum delta { D_SECTORS, D_REQUESTS, D_SHARED_OBJ, D_COST_L1, D_ATOMIC };

typedef struct family {
    const char *cause, *title;
    const char *kinds[4];
    enum delta delta;
} family;

/* A cause added later plugs in here: its finding kinds and which of the
 * pipes its fix empties (a kind no family names is read as D_COST_L1: its
 * cost in L1 wavefronts). */
static const family FAMILIES[] = {
    {"uncoalesced", "Uncoalesced access (thread-to-index mapping)", {"strided", "false_sharing", "uncoalesced"},
     D_SECTORS},
    {"misaligned", "Misaligned access", {"misaligned"}, D_SECTORS},
    {"irregular", "Irregular gather or scatter", {"irregular"}, D_SECTORS},
    {"hot", "Hot sectors read by every warp", {"hot_spot", "random_hot"}, D_REQUESTS},
    {"smem_abuse", "Shared memory used where registers would do", {"smem_abuse_thread", "smem_abuse_warp"},
     D_SHARED_OBJ},
    {"bank_conflict", "Shared-memory bank conflicts", {"bank_conflict"}, D_COST_L1},
    {"atomic_contention", "Atomic operations piled on few addresses", {"atomic_contention"}, D_ATOMIC},
};

static const family *family_of(const char *kind) {
    for (size_t i = 0; i < sizeof FAMILIES / sizeof *FAMILIES; i++)
        for (int k = 0; k < 4 && FAMILIES[i].kinds[k]; k++)
            if (!strcmp(FAMILIES[i].kinds[k], kind)) return &FAMILIES[i];
    return NULL;
}

/* 1 when the fix's cause has a model of its time (a family above). */
static int cause_modelled(const char *cause) {
    for (size_t i = 0; i < sizeof FAMILIES / sizeof *FAMILIES; i++)
        if (!strcmp(FAMILIES[i].cause, cause)) return 1;
    return 0;
}

/* The pipes the launch keeps when the finding's cause is fixed. */
static void fixed_pipes(const ctx *x, const work *w, const family *fam, const json_t *f, double P[3]) {
    double l1 = w->l1, st = w->st, dram = w->dram;
    long long obj = jint(f, "object", -1);
    const objw *o = NULL;
    for (size_t i = 0; i < w->no; i++)
        if (w->o[i].obj == obj) o = &w->o[i];
    double cost = jnum(f, "cost");
    switch (fam ? fam->delta : D_COST_L1) {
    case D_SECTORS: /* the object's requests packed into the lines they need; its DRAM bytes into its words */
        if (o) {
            l1 -= o->lines - o->ideal_lines;
            st -= o->st_lines - o->st_ideal_lines;
            double d = obj_dram(o) - obj_dram_ideal(o);
            if (d > 0) dram -= d;
        }
        break;
    case D_REQUESTS: /* the hot reads gone to __constant__ memory or registers */
        if (o) l1 -= o->ld_lines;
        break;
    case D_SHARED_OBJ: /* the shared array's accesses become register moves */
        if (o) l1 -= o->sh_wavefronts;
        else if (isfinite(cost)) l1 -= cost;
        break;
    case D_COST_L1: /* bank conflicts (and a cause with no family): its cost in wavefronts */
        if (isfinite(cost)) l1 -= cost;
        break;
    case D_ATOMIC: /* shared memory: the waiting operations, as wavefronts; global: atomic_pipe's chain goes */
        if (!strcmp(jstr(f, "space"), "shared") && isfinite(cost)) l1 -= cost;
        break;
    }
    pipes(x, w, fmax(l1, 0), fmax(st, 0), fmax(dram, 0), P);
}

/* The time of a global atomic finding's serial chain at L2 (its cost, in
 * steps of MH_FIX_ATOM_CYCLES, for the grid), ns; 0 for any other finding. */
static double atomic_pipe(const ctx *x, const work *w, const family *fam, const json_t *f) {
    double cost = jnum(f, "cost");
    if (!fam || fam->delta != D_ATOMIC || strcmp(jstr(f, "space"), "global") || !isfinite(cost) || cost <= 0) return 0;
    return div0(w->s * cost * MH_FIX_ATOM_CYCLES, x->d.clock_hz) * 1e9;
}

/* The share of the launch's time the fix saves (see the header); A: the
 * atomic chain the fix removes, a pipe of its own beside P. */
static double share_of(const double P[3], const double Pf[3], double A, double t, int *near) {
    double M = fmax(pmax(P), A), Mf = pmax(Pf);
    *near = M >= MH_FIX_NEAR * t;
    if (!(M > 0) || !(t > 0)) return 0;
    double prop = 1.0 - Mf / M;
    if (prop < 0) prop = 0;
    if (*near) return prop;
    double abs = (M - Mf) / t;
    return abs > 0 ? sqrt(abs * prop) : 0;
}

/* ---- fix texts ---- */

typedef struct terms {
    const char *tid, *threads, *warp, *block, *shared, *sync, *nthreads, *cnst, *reg, *pitch, *vec, *shfl, *pin,
        *graph;
} terms;

static const terms CUDA = {"threadIdx.x", "threads", "warp", "block", "shared memory", "__syncthreads()", "blockDim.x",
                           "__constant__ memory", "a register (a local variable)",
                           "pad rows to a multiple of 32 bytes (cudaMallocPitch)", "float2/float4 vector loads",
                           "__shfl_sync(0xffffffff, v, srcLane)",
                           "allocate the host buffers with cudaMallocHost (or register them with cudaHostRegister)",
                           "or capture the sequence in a CUDA graph (cudaStreamBeginCapture ... cudaGraphLaunch)"};
static const terms OPENCL = {"get_local_id(0)", "work-items", "sub-group", "work-group", "__local memory",
                             "barrier(CLK_LOCAL_MEM_FENCE)", "get_local_size(0)", "__constant memory",
                             "a private variable", "pad rows to a multiple of 32 bytes", "vload2/vload4 (float2/float4)",
                             "sub_group_shuffle(v, lane) or sub_group_broadcast(v, lane) (cl_khr_subgroups)",
                             "allocate the host buffers with CL_MEM_ALLOC_HOST_PTR and map them",
                             "or enqueue them without waiting between them"};

static void fix_text(const ctx *x, const char *cause, const char *kind, const char *obj, const char *advice, char *buf,
                     size_t cap) {
    const terms *t = x->opencl ? &OPENCL : &CUDA;
    char ol[256]; /* a by-value struct field's label shortened, as everywhere it is shown */
    mh_kname_label(obj ? obj : "", 72, ol, sizeof ol);
    const char *o = *ol ? ol : "the object";
    if (!strcmp(cause, "uncoalesced"))
        snprintf(buf, cap,
                 "Swap the thread-to-index mapping so that consecutive %s (%s) walk the contiguous dimension of %s and "
                 "one %s covers whole sectors, or transpose %s; if the elements are reused, stage a tile through %s "
                 "with coalesced loads and %s.",
                 t->threads, t->tid, o, t->warp, o, t->shared, t->sync);
    else if (!strcmp(cause, "misaligned"))
        snprintf(buf, cap,
                 "Align each %s's first element of %s to a 32-byte sector: %s or shift the index; aligned data also "
                 "allows %s.",
                 t->warp, o, t->pitch, t->vec);
    else if (!strcmp(cause, "irregular"))
        snprintf(buf, cap,
                 "The lanes of a %s read scattered elements of %s: sort or renumber the indices so that neighbouring "
                 "%s use neighbouring elements (RCM for sparse matrices), or gather the needed part once per %s "
                 "through %s.",
                 t->warp, o, t->threads, t->block, t->shared);
    else if (!strcmp(cause, "hot") && !strcmp(kind, "random_hot"))
        snprintf(buf, cap,
                 "Stage the hot part of %s in %s (%s after the load), or sort the indices so that neighbouring %s "
                 "gather neighbouring elements.",
                 o, t->shared, t->sync, t->threads);
    else if (!strcmp(cause, "hot"))
        snprintf(buf, cap,
                 "Every %s reads the same words of %s: keep read-only uniform values in %s or %s, loaded once per "
                 "thread (the estimate assumes that), or stage them once per %s in %s.",
                 t->warp, o, t->cnst, t->reg, t->block, t->shared);
    else if (!strcmp(cause, "smem_abuse") && !strcmp(kind, "smem_abuse_warp"))
        snprintf(buf, cap, "Values of %s are only exchanged inside a %s: pass them with %s and drop the %s array and its %s.",
                 o, t->warp, t->shfl, t->shared, t->sync);
    else if (!strcmp(cause, "smem_abuse"))
        snprintf(buf, cap, "Each word of %s is used by one %s: keep the value in %s and drop the %s array and its %s.", o,
                 x->opencl ? "work-item" : "thread", t->reg, t->shared, t->sync);
    else if (!strcmp(cause, "bank_conflict") && advice && strstr(advice, "sequential addressing"))
        snprintf(buf, cap,
                 "The bank conflict in %s grows from step to step: a tree reduction indexed a[2*s*%s]. Use sequential "
                 "addressing: for (s = %s/2; s > 0; s >>= 1) if (%s < s) a[%s] += a[%s + s]; with %s between steps.",
                 o, t->tid, t->nthreads, t->tid, t->tid, t->tid, t->sync);
    else if (!strcmp(cause, "bank_conflict"))
        snprintf(buf, cap,
                 "Lanes of a %s hit several words of one bank in %s: a 2-D tile read by columns. Pad the inner "
                 "dimension by one word ([N][N+1]), or swap the index order so that consecutive %s use consecutive "
                 "words.",
                 t->warp, o, t->threads);
    else if (!strcmp(cause, "small_grid"))
        snprintf(buf, cap,
                 "Give the grid at least one %s per SM: more, smaller %ss, or split the work along another "
                 "dimension; or run independent kernels beside it on other streams.",
                 t->block, t->block);
    else if (!strcmp(cause, "latency_bound"))
        snprintf(buf, cap,
                 "Too few bytes in flight: more independent loads per thread (unroll the loop, %s) or more resident "
                 "%ss (fewer registers or less %s per %s, more %ss).",
                 t->vec, t->warp, t->shared, t->block, t->block);
    else if (!strcmp(cause, "launch_chain"))
        snprintf(buf, cap,
                 "These kernels run back to back, each shorter than the cost of launching it: fuse them into one "
                 "kernel (one pass over the data), %s.",
                 t->graph);
    else if (!strcmp(cause, "pageable_copy"))
        snprintf(buf, cap,
                 "Copy from pinned host memory: %s; a pageable copy is staged by the driver at a fraction of the "
                 "link's speed.",
                 t->pin);
    else if (!strcmp(cause, "copy_overlap"))
        snprintf(buf, cap,
                 "Overlap the copies with the kernels: split the data into chunks and pipeline asynchronous copies "
                 "and kernels on two or more %s.",
                 x->opencl ? "command queues" : "streams");
    else
        snprintf(buf, cap, "%s", advice ? advice : "");
}

/* ---- the list ---- */

static mh_fix *new_fix(ctx *x) {
    mh_fixes *f = x->out;
    mh_fix *v = mh_grow(f->v, &x->capf, f->n + 1, sizeof *v, 16);
    if (!v) return NULL;
    f->v = v;
    mh_fix *r = &f->v[f->n++];
    memset(r, 0, sizeof *r);
    r->launch = r->finding = -1;
    r->saving_ns = r->base_ns = r->bytes = NAN;
    r->share_min = r->share_max = NAN;
    return r;
}

static char *dupstr(const char *s) {
    size_t n = strlen(s ? s : "") + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s ? s : "", n);
    return d;
}

/* Per fix while folding: the configurations seen and their shares. */
typedef struct acc {
    const cfg *c;
    double share_sum;
    size_t n;
} acc;

typedef struct fold {
    size_t f; /* its fix: an index into x->out->v, which grows (a pointer would dangle) */
    char key[1024];
    acc *a;
    size_t na, capa;
    char cfgs[8][96];   /* the launch configurations seen (grid, block), counted without a timing too */
    size_t ncfgs;
    double best_cost;
    int have_best;
} fold;

static void add_kind(mh_fix *f, const char *kind) {
    if (strstr(f->kinds, kind)) return;
    size_t n = strlen(f->kinds);
    snprintf(f->kinds + n, sizeof f->kinds - n, "%s%s", n ? "+" : "", kind);
}

void mh_fix_fmt_ns(double ns, char *b, size_t cap) {
    if (!isfinite(ns)) snprintf(b, cap, "-");
    else if (ns >= 1e9) snprintf(b, cap, "%.2f s", ns / 1e9);
    else if (ns >= 1e6) snprintf(b, cap, "%.2f ms", ns / 1e6);
    else if (ns >= 1e3) snprintf(b, cap, "%.1f us", ns / 1e3);
    else snprintf(b, cap, "%.0f ns", ns);
}

/* The work of launch lid, found in or added to ws (its heat rows read once). */
static int work_get(ctx *x, work **ws, size_t *nws, size_t *capws, long long lid, work **out) {
    for (size_t k = 0; k < *nws; k++)
        if ((*ws)[k].launch == lid) {
            *out = &(*ws)[k];
            return MH_OK;
        }
    work *v = mh_grow(*ws, capws, *nws + 1, sizeof *v, 16);
    if (!v) return MH_ERR_NOMEM;
    *ws = v;
    int rc = work_of(x, lid, &v[*nws]);
    if (rc) {
        work_free(&v[*nws]);
        return rc;
    }
    *out = &v[(*nws)++];
    return MH_OK;
}

/* One finding folded into its fix: the fix of (kernel, cause, space, object). */
static int fold_finding(ctx *x, const json_t *f, fold **fo, size_t *nfo, size_t *capfo, work **ws, size_t *nws,
                        size_t *capws) {
    const char *kind = jstr(f, "kind");
    const family *fam = family_of(kind);
    long long lid = jint(f, "launch", -1);
    const json_t *l = launch_by_id(x->root, lid);
    const char *kname = l ? jstr(l, "name") : "";
    char key[1024];
    snprintf(key, sizeof key, "%s|%s|%s|%s", kname, fam ? fam->cause : kind, jstr(f, "space"), jstr(f, "object_label"));
    fold *g = NULL;
    for (size_t k = 0; k < *nfo && !g; k++)
        if (!strcmp((*fo)[k].key, key)) g = &(*fo)[k];
    if (!g) {
        fold *v = mh_grow(*fo, capfo, *nfo + 1, sizeof *v, 16);
        if (!v) return MH_ERR_NOMEM;
        *fo = v;
        mh_fix *nfix = new_fix(x);
        if (!nfix) return MH_ERR_NOMEM;
        g = &v[(*nfo)++];
        memset(g, 0, sizeof *g);
        g->f = (size_t)(nfix - x->out->v);
        snprintf(g->key, sizeof g->key, "%s", key);
        nfix->cause = fam ? fam->cause : kind;
        nfix->title = fam ? fam->title : kind;
        nfix->kernel = dupstr(kname);
        nfix->object = dupstr(jstr(f, "object_label"));
        snprintf(nfix->space, sizeof nfix->space, "%s", jstr(f, "space"));
        nfix->cost_min = INFINITY;
        if (!nfix->kernel || !nfix->object) return MH_ERR_NOMEM;
    }
    mh_fix *r = &x->out->v[g->f];
    long long *ids = realloc(r->findings, (r->nfindings + 1) * sizeof *ids);
    if (!ids) return MH_ERR_NOMEM;
    r->findings = ids;
    r->findings[r->nfindings++] = jint(f, "id", -1);
    add_kind(r, kind);
    double cost = jnum(f, "cost");
    if (isfinite(cost)) {
        r->cost += cost;
        if (cost < r->cost_min) r->cost_min = cost;
        if (cost > r->cost_max) r->cost_max = cost;
    }
    r->launches++;
    if (l) {
        long long gr[3], bl[3];
        dim3_of(l, "grid", gr);
        dim3_of(l, "block", bl);
        char ck[96];
        snprintf(ck, sizeof ck, "%lld,%lld,%lld/%lld,%lld,%lld/%lld", gr[0], gr[1], gr[2], bl[0], bl[1], bl[2],
                 jint(l, "dyn_smem", 0));
        int seen = 0;
        for (size_t k = 0; k < g->ncfgs && !seen; k++) seen = !strcmp(g->cfgs[k], ck);
        if (!seen && g->ncfgs < sizeof g->cfgs / sizeof *g->cfgs) snprintf(g->cfgs[g->ncfgs++], sizeof *g->cfgs, "%s", ck);
        else if (!seen) g->ncfgs++; /* past the list: counted, not kept */
    }
    int best = !g->have_best || cost > g->best_cost; /* the costliest finding speaks for the fix */
    if (best) {
        g->have_best = 1;
        g->best_cost = cost;
        r->launch = lid;
        r->finding = jint(f, "id", -1);
        snprintf(r->pc, sizeof r->pc, "%s", jstr(f, "pc"));
        const char *file = jstr(f, "file");
        long long line = jint(f, "line", 0);
        if (*file) snprintf(r->where, sizeof r->where, "%s%s%lld", file, line ? ":" : "", line);
        else r->where[0] = 0;
        fix_text(x, r->cause, kind, r->object, jstr(f, "advice"), r->fix, sizeof r->fix);
    }
    /* the share of its launch's time the fix saves */
    const cfg *c = l ? cfg_of_launch(x, l) : NULL;
    double t = cfg_t(c);
    work *w = NULL;
    int rc = work_get(x, ws, nws, capws, lid, &w);
    if (rc) return rc;
    if (!x->d.known || !w->have || !c) return MH_OK;
    double Pf[3];
    fixed_pipes(x, w, fam, f, Pf);
    int near = 0;
    double A = atomic_pipe(x, w, fam, f);
    double sh = isfinite(t) ? share_of(w->P, Pf, A, t, &near) : NAN;
    acc *a = NULL;
    for (size_t k = 0; k < g->na && !a; k++)
        if (g->a[k].c == c) a = &g->a[k];
    if (!a) {
        acc *v = mh_grow(g->a, &g->capa, g->na + 1, sizeof *v, 4);
        if (!v) return MH_ERR_NOMEM;
        g->a = v;
        a = &g->a[g->na++];
        memset(a, 0, sizeof *a);
        a->c = c;
    }
    if (isfinite(sh)) {
        a->share_sum += sh;
        a->n++;
    }
    if (best) { /* the model in words, from the launch that speaks for the fix */
        char a1[24], a2[24], a3[24], a4[24], at[64] = "", b1[24], tt[24];
        mh_fix_fmt_ns(w->P[0], a1, sizeof a1), mh_fix_fmt_ns(w->P[1], a2, sizeof a2), mh_fix_fmt_ns(w->P[2], a3, sizeof a3);
        mh_fix_fmt_ns(pmax(Pf), b1, sizeof b1), mh_fix_fmt_ns(t, tt, sizeof tt);
        if (A > 0) {
            mh_fix_fmt_ns(A, a4, sizeof a4);
            snprintf(at, sizeof at, ", atomics in series at L2 %s", a4);
        }
        snprintf(r->model, sizeof r->model,
                 "pipes of the launch (%llu x its traced blocks): L1 %s, stores to L2 %s, DRAM %s%s; fixed, the "
                 "busiest takes %s; %s of the %s it runs untraced: %s",
                 (unsigned long long)(fmin(fmax(w->s, 0), 1e15) + 0.5), a1, a2, a3, at, b1, near ? "near its busiest pipe" : "below every pipe", tt,
                 near ? "saving = time x (1 - fixed / busiest)"
                      : "saving = time x geometric mean of (busiest - fixed) / time and 1 - fixed / busiest");
    }
    return MH_OK;
}

static int pattern_fixes(ctx *x) {
    const json_t *findings = json_object_get(x->root, "findings"), *f;
    fold *fo = NULL;
    size_t nfo = 0, capfo = 0, i;
    work *ws = NULL;
    size_t nws = 0, capws = 0;
    int rc = MH_OK;
    json_array_foreach(findings, i, f) {
        const char *kind = jstr(f, "kind");
        if (!strcmp(kind, "coalesced")) continue;
        if (!strcmp(kind, "partial_view")) { /* informational: says why a launch has no shared finding */
            x->out->partial++;
            continue;
        }
        if ((rc = fold_finding(x, f, &fo, &nfo, &capfo, &ws, &nws, &capws))) break;
    }
    /* per fix: the configurations' shares times their clean times */
    for (size_t k = 0; k < nfo; k++) {
        fold *g = &fo[k];
        mh_fix *r = &x->out->v[g->f];
        if (!isfinite(r->cost_min)) r->cost_min = r->cost_max = r->cost;
        double save = 0, base = 0;
        int any = 0;
        r->configs = g->ncfgs;
        if (!cause_modelled(r->cause)) {
            snprintf(r->note, sizeof r->note, "no estimate: memheat has no model of the time a %s costs", r->cause);
            free(g->a);
            continue;
        }
        for (size_t j = 0; j < g->na; j++) {
            const acc *a = &g->a[j];
            double tot = cfg_total(a->c);
            if (!a->n || !isfinite(tot)) continue;
            double sh = a->share_sum / (double)a->n;
            save += sh * tot;
            base += tot;
            any = 1;
            if (!(r->share_min <= sh)) r->share_min = sh;
            if (!(r->share_max >= sh)) r->share_max = sh;
        }
        if (any) {
            r->saving_ns = save > base ? base : save;
            r->base_ns = base;
        } else if (!json_array_size(json_object_get(x->root, "kernel_configs"))) {
            snprintf(r->note, sizeof r->note, "no estimate: the run was not timed (a simulator has no GPU clock)");
        } else if (!x->d.known) {
            snprintf(r->note, sizeof r->note, "no estimate: the device's SMs, clock or bandwidth are unknown");
        } else {
            snprintf(r->note, sizeof r->note,
                     "no estimate: no launch of this kernel was timed untraced (--passes separate times every launch)");
        }
        free(g->a);
    }
    free(fo);
    for (size_t k = 0; k < nws; k++) work_free(&ws[k]);
    free(ws);
    return rc;
}

/* ---- a kernel configuration's grid and latency ---- */

/* The fix just added (the last) folded into an earlier one of the same
 * kernel and cause, from another configuration: one fix per (kernel,
 * cause), its saving and launches summed, the spread of the shares and
 * costs kept, the cost, hover and example launch of the configuration that
 * saves most. */
static void fold_config_fix(ctx *x) {
    mh_fixes *f = x->out;
    mh_fix *r = &f->v[f->n - 1], *e = NULL;
    for (size_t i = 0; i + 1 < f->n && !e; i++)
        if (!strcmp(f->v[i].cause, r->cause) && !strcmp(f->v[i].kernel, r->kernel)) e = &f->v[i];
    if (!e) {
        r->part_max_ns = r->saving_ns;
        return;
    }
    e->saving_ns += r->saving_ns;
    e->base_ns += r->base_ns;
    e->launches += r->launches;
    e->configs += r->configs;
    e->share_min = fmin(e->share_min, r->share_min);
    e->share_max = fmax(e->share_max, r->share_max);
    e->cost_min = fmin(e->cost_min, r->cost_min);
    e->cost_max = fmax(e->cost_max, r->cost_max);
    if (r->saving_ns > e->part_max_ns) {
        e->part_max_ns = r->saving_ns;
        e->cost = r->cost;
        e->launch = r->launch;
        memcpy(e->model, r->model, sizeof e->model);
        memcpy(e->note, r->note, sizeof e->note);
    }
    free(r->kernel);
    free(r->object);
    f->n--;
}

static int config_fixes(ctx *x) {
    if (!x->d.known) return MH_OK;
    for (size_t i = 0; i < x->nc; i++) {
        const cfg *c = &x->c[i];
        double t = cfg_t(c), tot = cfg_total(c);
        if (!isfinite(t) || !(t > 0)) continue;
        double blocks = (double)(c->grid[0] * c->grid[1] * c->grid[2]);
        /* the traced launch of this configuration, for its pipes */
        const json_t *l = NULL, *o;
        size_t k;
        json_array_foreach(json_object_get(x->root, "launches"), k, o) {
            if (cfg_of_launch(x, o) == c) {
                l = o;
                break;
            }
        }
        double P = NAN;
        if (l) {
            work w;
            int rc = work_of(x, jint(l, "id", -1), &w);
            if (!rc && w.have) P = pmax(w.P);
            work_free(&w);
            if (rc) return rc;
        }
        int small = blocks > 0 && blocks < MH_VERDICT_SMALL_GRID_FRAC * x->d.sms;
        char tt[24], pp[24];
        mh_fix_fmt_ns(t, tt, sizeof tt), mh_fix_fmt_ns(P, pp, sizeof pp);
        if (small) {
            double tf = t * blocks / x->d.sms;
            if (isfinite(P) && P > tf) tf = P;
            mh_fix *r = new_fix(x);
            if (!r) return MH_ERR_NOMEM;
            r->cause = "small_grid";
            r->title = "Grid too small to fill the GPU";
            snprintf(r->kinds, sizeof r->kinds, "small-grid");
            r->kernel = dupstr(c->name);
            r->object = dupstr("");
            if (!r->kernel || !r->object) return MH_ERR_NOMEM;
            r->launch = l ? jint(l, "id", -1) : -1;
            r->launches = (size_t)c->launches, r->configs = 1;
            r->share_min = r->share_max = 1.0 - tf / t;
            r->saving_ns = tot * (1.0 - tf / t);
            r->base_ns = tot;
            r->cost = r->cost_min = r->cost_max = blocks;
            snprintf(r->model, sizeof r->model,
                     "%.0f blocks for %.0f SMs: the work spread over every SM takes max(time x blocks / SMs, the "
                     "busiest pipe %s) of the %s each launch runs untraced",
                     blocks, x->d.sms, pp, tt);
            snprintf(r->note, sizeof r->note, "%.0f of %.0f SMs idle", x->d.sms - blocks, x->d.sms);
            fix_text(x, r->cause, "", "", NULL, r->fix, sizeof r->fix);
            fold_config_fix(x);
            continue;
        }
        /* latency: far below every pipe memheat counts (the FP pipes too, where counted), and few
         * warps resident; a kernel shorter than twice the launch cost is bound by its launches (the
         * chains below); dense math whose FP work was not counted is not judged */
        double fp = cfg_fp_ns(x, c);
        if (isfinite(P) && isfinite(fp) && fp > P) P = fp;
        if (!isfinite(fp) && dense_math_kernel(c->name)) continue;
        if (!isfinite(P) || P >= MH_FIX_NEAR * t || t < MH_VERDICT_LAUNCH_MULT * MH_VERDICT_LAUNCH_NS) continue;
        mh_timing_kernel tk;
        memset(&tk, 0, sizeof tk);
        for (int j = 0; j < 3; j++) tk.block[j] = (uint32_t)c->block[j], tk.grid[j] = (uint32_t)c->grid[j];
        tk.dyn_smem = (uint32_t)c->dyn, tk.static_smem = (uint32_t)c->smem, tk.regs = (uint32_t)c->regs;
        uint32_t bps = mh_verdict_blocks_per_sm(&x->d.td, &tk);
        double warps_blk = ceil((double)(c->block[0] * c->block[1] * c->block[2]) / 32.0);
        double resident = bps ? fmin((double)bps, ceil(blocks / x->d.sms)) * warps_blk : NAN;
        if (!(resident <= MH_FIX_LOW_WARPS)) continue;
        mh_fix *r = new_fix(x);
        if (!r) return MH_ERR_NOMEM;
        r->cause = "latency_bound";
        r->title = "Latency-bound: too few bytes in flight";
        snprintf(r->kinds, sizeof r->kinds, "latency-bound");
        r->kernel = dupstr(c->name);
        r->object = dupstr("");
        if (!r->kernel || !r->object) return MH_ERR_NOMEM;
        r->launch = l ? jint(l, "id", -1) : -1;
        r->launches = (size_t)c->launches, r->configs = 1;
        r->share_min = r->share_max = 1.0 - P / t;
        r->saving_ns = tot * (1.0 - P / t);
        r->base_ns = tot;
        r->cost = r->cost_min = r->cost_max = resident;
        snprintf(r->model, sizeof r->model,
                 "%.0f warps resident per SM; the busiest pipe memheat counts needs %s of the %s each launch runs "
                 "untraced: with enough bytes in flight the kernel takes that pipe's time",
                 resident, pp, tt);
        snprintf(r->note, sizeof r->note, "%.0f warps per SM, below %d%% of the busiest pipe", resident,
                 (int)(MH_FIX_NEAR * 100));
        fix_text(x, r->cause, "", "", NULL, r->fix, sizeof r->fix);
        fold_config_fix(x);
    }
    /* the hover of a fix folded from several configurations says so */
    for (size_t i = 0; i < x->out->n; i++) {
        mh_fix *r = &x->out->v[i];
        if (r->configs < 2 || (strcmp(r->cause, "small_grid") && strcmp(r->cause, "latency_bound"))) continue;
        char pre[80];
        int k = snprintf(pre, sizeof pre, "%zu configurations, their savings summed; the largest: ", r->configs);
        size_t n = strlen(r->model), room = sizeof r->model - 1 - (size_t)k; /* the model cut to what fits */
        if (n > room) n = room;
        memmove(r->model + k, r->model, n);
        memcpy(r->model, pre, (size_t)k);
        r->model[(size_t)k + n] = '\0';
    }
    return MH_OK;
}

/* ---- launch-bound chains on the timeline ---- */

typedef struct run1 {
    const char *name;
    long long device, stream;
    double start, dur;
} run1;

static int cmp_run(const void *a, const void *b) {
    const run1 *x = a, *y = b;
    if (x->device != y->device) return x->device < y->device ? -1 : 1;
    if (x->stream != y->stream) return x->stream < y->stream ? -1 : 1;
    return (x->start > y->start) - (x->start < y->start);
}

static int cmp_dbl(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef struct chainsig {
    char *names;           /* the period's names, " + " between them (owned) */
    const char *first;
    size_t period, instances;
    size_t parts;          /* runs of a part of the chain folded in (a run cut by a longer launch) */
    double saving, base;
    struct chainsig *into; /* a part of this longer chain: folded into it */
} chainsig;

/* The period of the run v[i, j): the fewest names that repeat through it (one
 * loop trip), j - i when none does (cut at 16). */
static size_t period_of(const run1 *v, size_t i, size_t j) {
    size_t len = j - i;
    for (size_t q = 2; q < len; q++) {
        int ok = 1;
        for (size_t k = i + q; k < j && ok; k++) ok = !strcmp(v[k].name, v[k - q].name);
        if (ok) return q;
    }
    return len > 16 ? 16 : len;
}

/* A loop trip may be entered anywhere (a run starts after a traced launch):
 * the cyclic rotation of the period v[i, i + p) whose names come first in
 * order, so that every run of the same loop names the same chain. */
static size_t rotation_of(const run1 *v, size_t i, size_t p) {
    size_t rot = 0;
    for (size_t r = 1; r < p; r++)
        for (size_t k = 0; k < p; k++) {
            int c = strcmp(v[i + (r + k) % p].name, v[i + (rot + k) % p].name);
            if (c) {
                if (c < 0) rot = r;
                break;
            }
        }
    return rot;
}

/* 1 when the chain `part` (names joined by " + ", in its canonical rotation)
 * is a run of consecutive kernels of the loop `whole`: some rotation of it
 * found in `whole` read cyclically, on name boundaries. */
static int chain_part_of(const char *part, const char *whole) {
    const char *tok[16];
    size_t len[16], q = 0;
    for (const char *p = part; *p && q < 16;) {
        const char *e = strstr(p, " + ");
        size_t l = e ? (size_t)(e - p) : strlen(p);
        tok[q] = p, len[q++] = l;
        p = e ? e + 3 : p + l;
    }
    size_t lw = strlen(whole), lp = strlen(part);
    char *twice = malloc(2 * lw + 4), *rot = malloc(lp + 1);
    int found = 0;
    if (twice && rot) {
        snprintf(twice, 2 * lw + 4, "%s + %s", whole, whole);
        for (size_t r = 0; r < q && !found; r++) {
            size_t n = 0;
            for (size_t k = 0; k < q; k++) {
                const size_t t = (r + k) % q;
                if (k) memcpy(rot + n, " + ", 3), n += 3;
                memcpy(rot + n, tok[t], len[t]), n += len[t];
            }
            rot[n] = 0;
            for (const char *h = twice; !found && (h = strstr(h, rot)) != NULL; h++)
                found = (h == twice || !strncmp(h - 3, " + ", 3)) && (h[n] == 0 || !strncmp(h + n, " + ", 3));
        }
    }
    free(twice);
    free(rot);
    return found;
}

static int chain_fixes(ctx *x) {
    const json_t *runs = json_object_get(x->root, "kernel_runs");
    size_t n = json_array_size(runs), m = 0;
    if (n < 2) return MH_OK;
    run1 *v = malloc(n * sizeof *v);
    double *gaps = malloc(n * sizeof *gaps);
    if (!v || !gaps) {
        free(v);
        free(gaps);
        return MH_ERR_NOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        const json_t *o = json_array_get(runs, i);
        const char *timed = jstr(o, "timed");
        if (*timed && strcmp(timed, "borrowed") && strcmp(timed, "replayed")) continue; /* traced: not the program's */
        v[m++] = (run1){jstr(o, "name"), jint(o, "device", 0), jint(o, "stream", 0), jnum(o, "start_ns"),
                        jnum(o, "dur_ns")};
    }
    mh_sort(v, m, sizeof *v, cmp_run);
    chainsig *sig = NULL;
    size_t nsig = 0, capsig = 0;
    int rc = MH_OK;
    const double short_ns = MH_VERDICT_LAUNCH_MULT * MH_VERDICT_LAUNCH_NS;
    for (size_t i = 0; i < m && !rc;) {
        /* a maximal run of short launches, each close behind the one before, on one stream */
        size_t j = i + 1;
        if (v[i].dur < short_ns)
            while (j < m && v[j].device == v[i].device && v[j].stream == v[i].stream && v[j].dur < short_ns &&
                   v[j].start - (v[j - 1].start + v[j - 1].dur) < MH_FIX_CHAIN_GAP_NS)
                j++;
        if (v[i].dur >= short_ns || j - i < 2) {
            i = j;
            continue;
        }
        size_t p = period_of(v, i, j), rot = rotation_of(v, i, p), a0 = i + rot;
        int distinct = 0;
        for (size_t k = i + 1; k < i + p && !distinct; k++) distinct = strcmp(v[k].name, v[i].name) != 0;
        if (!distinct) { /* one kernel again and again: no chain to fuse */
            i = j;
            continue;
        }
        size_t len = 1;
        for (size_t k = 0; k < p; k++) len += strlen(v[i + (rot + k) % p].name) + 3;
        char *names = malloc(len);
        if (!names) {
            rc = MH_ERR_NOMEM;
            break;
        }
        names[0] = '\0';
        for (size_t k = 0, nl = 0; k < p; k++)
            nl += (size_t)snprintf(names + nl, len - nl, "%s%s", k ? " + " : "", v[i + (rot + k) % p].name);
        chainsig *s = NULL;
        for (size_t k = 0; k < nsig && !s; k++)
            if (!strcmp(sig[k].names, names)) s = &sig[k];
        if (!s) {
            chainsig *nv = mh_grow(sig, &capsig, nsig + 1, sizeof *nv, 8);
            if (!nv) {
                free(names);
                rc = MH_ERR_NOMEM;
                break;
            }
            sig = nv;
            s = &sig[nsig++];
            memset(s, 0, sizeof *s);
            s->names = names; /* take */
            names = NULL;
            s->first = v[i + rot].name;
            s->period = p;
        }
        free(names); /* a chain seen before: its signature has the names */
        /* the launch interval of the run: the median start-to-start */
        size_t ng = 0;
        for (size_t k = i + 1; k < j; k++) gaps[ng++] = v[k].start - v[k - 1].start;
        mh_sort(gaps, ng, sizeof *gaps, cmp_dbl);
        double interval = ng ? gaps[ng / 2] : 0;
        for (size_t a = a0; a + p <= j; a += p) { /* whole loop trips only */
            /* a trip lasts from its first launch to its last, then its last kernel or one launch
             * interval, whichever is longer: the next launch cannot start sooner */
            const run1 *last = &v[a + p - 1];
            double span = last->start - v[a].start + fmax(last->dur, interval), longest = 0;
            for (size_t k = a; k < a + p; k++) longest = fmax(longest, v[k].dur);
            double keep = fmax(longest, interval);
            s->saving += span > keep ? span - keep : 0;
            s->base += span;
            s->instances++;
        }
        i = j;
    }
    /* a run cut short (a longer launch, a gap) shows a part of its loop as a chain of its own:
     * folded into the longest chain it is a part of */
    for (size_t k = 0; k < nsig; k++) {
        chainsig *into = NULL;
        for (size_t m = 0; m < nsig; m++)
            if (m != k && sig[m].period > sig[k].period && (!into || sig[m].period > into->period) &&
                chain_part_of(sig[k].names, sig[m].names))
                into = &sig[m];
        sig[k].into = into;
    }
    for (size_t k = 0; k < nsig; k++) {
        chainsig *to = sig[k].into;
        if (!to) continue;
        while (to->into) to = to->into;
        to->saving += sig[k].saving, to->base += sig[k].base;
        to->parts += sig[k].instances;
    }
    for (size_t k = 0; k < nsig && !rc; k++) {
        if (!sig[k].instances || sig[k].into) continue; /* runs shorter than a loop trip; a part folded */
        mh_fix *r = new_fix(x);
        if (!r) {
            rc = MH_ERR_NOMEM;
            break;
        }
        r->cause = "launch_chain";
        r->title = "Launch-bound chain of short kernels";
        snprintf(r->kinds, sizeof r->kinds, "launch-bound");
        r->kernel = dupstr(sig[k].first);
        r->kernels = dupstr(sig[k].names);
        r->object = dupstr("");
        if (!r->kernel || !r->kernels || !r->object) {
            rc = MH_ERR_NOMEM;
            break;
        }
        r->launches = sig[k].instances, r->configs = sig[k].period;
        r->saving_ns = sig[k].saving;
        r->base_ns = sig[k].base;
        r->share_min = r->share_max = div0(sig[k].saving, sig[k].base);
        r->cost = r->cost_min = r->cost_max = (double)sig[k].period;
        char parts[64] = "";
        if (sig[k].parts) snprintf(parts, sizeof parts, " (and %zu runs of a part of it)", sig[k].parts);
        snprintf(r->model, sizeof r->model,
                 "%zu runs of %zu short kernels%s (< %.0f us each, on one stream): a run takes its launch intervals "
                 "(the last: its kernel or one interval, whichever is longer), one fused kernel its longest kernel or "
                 "one interval; saving = the difference",
                 sig[k].instances, sig[k].period, parts, short_ns / 1e3);
        fix_text(x, r->cause, "", "", NULL, r->fix, sizeof r->fix);
    }
    for (size_t k = 0; k < nsig; k++) free(sig[k].names);
    free(sig);
    free(v);
    free(gaps);
    return rc;
}

/* ---- copies ---- */

static int copy_fixes(ctx *x) {
    const json_t *copies = json_object_get(x->root, "copies"), *o;
    size_t i;
    double best[2] = {0, 0};
    json_array_foreach(copies, i, o) {
        const char *k = jstr(o, "kind");
        int dir = !strcmp(k, "HtoD") ? 0 : !strcmp(k, "DtoH") ? 1 : -1;
        double b = jnum(o, "bytes"), d = jnum(o, "dur_ns");
        if (dir < 0 || !(d > 0)) continue;
        x->out->copy_ns += d;
        if (b >= MH_FIX_COPY_MIN && b / d * 1e9 > best[dir]) best[dir] = b / d * 1e9;
    }
    static const char *const dirs[2] = {"HtoD", "DtoH"};
    int pageable = 0;
    for (int dir = 0; dir < 2; dir++) {
        double ref = fmax(best[dir], MH_FIX_PINNED_BPS), save = 0, base = 0, bytes = 0;
        size_t nslow = 0;
        json_array_foreach(copies, i, o) {
            double b = jnum(o, "bytes"), d = jnum(o, "dur_ns");
            if (strcmp(jstr(o, "kind"), dirs[dir]) || !(d > 0) || b < MH_FIX_COPY_MIN) continue;
            if (b / d * 1e9 >= 0.5 * ref) continue;
            nslow++;
            save += d - b / ref * 1e9;
            base += d;
            bytes += b;
        }
        if (!nslow) continue;
        pageable = 1;
        mh_fix *r = new_fix(x);
        if (!r) return MH_ERR_NOMEM;
        r->cause = "pageable_copy";
        r->title = "Host copies at pageable-memory speed";
        snprintf(r->kinds, sizeof r->kinds, "%s", dirs[dir]);
        r->kernel = dupstr(dir ? "(copies device to host)" : "(copies host to device)");
        r->object = dupstr("");
        if (!r->kernel || !r->object) return MH_ERR_NOMEM;
        r->launches = nslow, r->configs = 1;
        r->saving_ns = save, r->base_ns = base, r->bytes = bytes;
        r->share_min = r->share_max = div0(save, base);
        r->cost = r->cost_min = r->cost_max = bytes;
        snprintf(r->model, sizeof r->model,
                 "%zu copies of >= 1 MiB at %.1f GB/s on average, below half of %.1f GB/s (the best copy of the "
                 "run, at least %.0f GB/s for pinned memory): saving = their time - their bytes at that rate",
                 nslow, div0(bytes, base), ref / 1e9, MH_FIX_PINNED_BPS / 1e9);
        fix_text(x, r->cause, "", "", NULL, r->fix, sizeof r->fix);
    }
    /* serialised copies: pinned ones no kernel overlaps (pageable ones cannot overlap: pinning comes first) */
    const json_t *ov = json_object_get(x->root, "overlap");
    double in = jnum(ov, "copy_in_ns"), outc = jnum(ov, "copy_out_ns"), comp = jnum(ov, "compute_ns"),
           exposed = jnum(ov, "exposed_copy_ns"), wall = jnum(ov, "wall_ns");
    if (!pageable && isfinite(exposed) && isfinite(wall) && wall > 0 && exposed >= 0.1 * wall && isfinite(in) &&
        isfinite(outc) && isfinite(comp)) {
        double save = fmin(exposed, in + outc + comp - fmax(in, fmax(outc, comp)));
        if (save > 0) {
            mh_fix *r = new_fix(x);
            if (!r) return MH_ERR_NOMEM;
            r->cause = "copy_overlap";
            r->title = "Copies no kernel overlaps";
            snprintf(r->kinds, sizeof r->kinds, "serialised copies");
            r->kernel = dupstr("(host<->device copies)");
            r->object = dupstr("");
            if (!r->kernel || !r->object) return MH_ERR_NOMEM;
            r->launches = r->configs = 1;
            r->saving_ns = save, r->base_ns = exposed;
            r->share_min = r->share_max = div0(save, exposed);
            snprintf(r->model, sizeof r->model,
                     "copy time no kernel overlaps, at most what pipelining copy-in, compute and copy-out in "
                     "chunks leaves (OpenMPC: serial - max of the three)");
            fix_text(x, r->cause, "", "", NULL, r->fix, sizeof r->fix);
        }
    }
    return MH_OK;
}

/* ---- the framework's terms (advice.h) ---- */

static int pytorch_run(const ctx *x) {
    for (size_t i = 0; i < x->nc; i++)
        if ((!i || strcmp(x->c[i].name, x->c[i - 1].name)) && mh_advice_pytorch_kernel(x->c[i].name)) return 1;
    return 0;
}

static void advice_measured(const mh_advice *a, char *b, size_t cap) {
    char s[24], f[24];
    mh_fix_fmt_ns(a->slow_us * 1e3, s, sizeof s), mh_fix_fmt_ns(a->fixed_us * 1e3, f, sizeof f);
    snprintf(b, cap, "measured by bench/advice (%s, %s): %s -> %s", a->pair, a->device, s, f);
}

/* Kernels the table names as a choice of the framework or library (an FP32
 * GEMM where TF32 would do, layout conversions): one fix per entry, every
 * kernel it matched folded in (one setting changes them all), saving the
 * share of their untraced time the entry's pair saved. */
static int library_fixes(ctx *x, const mh_advice_table *t, int torch) {
    for (size_t e = 0; e < t->n; e++) {
        if (strcmp(t->v[e].cause, "library_kernel") || (t->v[e].pytorch && !torch)) continue;
        mh_fix *r = NULL;
        double base = 0, best = -1, launches = 0;
        size_t timed = 0, nk = 0;
        for (size_t i = 0; i < x->nc; i++) {
            const cfg *c = &x->c[i];
            int seen = 0;
            for (size_t j = 0; j < i && !seen; j++) seen = !strcmp(x->c[j].name, c->name);
            if (seen || mh_advice_find(t, "library_kernel", c->name, torch) != &t->v[e]) continue;
            double kb = 0;
            for (size_t j = i; j < x->nc; j++) {
                if (strcmp(x->c[j].name, c->name)) continue;
                if (!r) {
                    if (!(r = new_fix(x))) return MH_ERR_NOMEM;
                    r->cause = "library_kernel";
                    r->title = t->v[e].title;
                }
                r->configs++, launches += x->c[j].launches;
                if (isfinite(cfg_total(&x->c[j]))) kb += cfg_total(&x->c[j]), timed++;
            }
            base += kb, nk++;
            size_t old = r->kernels ? strlen(r->kernels) : 0, add = strlen(c->name);
            char *ks = realloc(r->kernels, old + add + 4);
            if (!ks) return MH_ERR_NOMEM;
            snprintf(ks + old, add + 4, "%s%s", old ? " + " : "", c->name);
            r->kernels = ks;
            if (kb > best) {
                best = kb;
                free(r->kernel);
                if (!(r->kernel = dupstr(c->name))) return MH_ERR_NOMEM;
            }
        }
        if (!r) continue;
        const mh_advice *a = &t->v[e];
        snprintf(r->kinds, sizeof r->kinds, "%s", a->family);
        snprintf(r->advice, sizeof r->advice, "%s", a->family);
        if (!(r->object = dupstr(""))) return MH_ERR_NOMEM;
        if (nk < 2) free(r->kernels), r->kernels = NULL;
        r->launches = (size_t)launches;
        double share = 1.0 - a->fixed_us / a->slow_us;
        r->share_min = r->share_max = share;
        r->base_ns = timed ? base : NAN;
        r->saving_ns = timed ? base * share : NAN;
        r->cost = r->cost_min = r->cost_max = launches;
        char m[200], tb[24];
        advice_measured(a, m, sizeof m);
        mh_fix_fmt_ns(r->base_ns, tb, sizeof tb);
        snprintf(r->model, sizeof r->model,
                 "%zu kernel%s, %.0f launches, %s untraced; the change below, %s: saving = their time x (1 - %.4g / "
                 "%.4g)",
                 nk, nk == 1 ? "" : "s", launches, tb, m, a->fixed_us, a->slow_us);
        snprintf(r->fix, sizeof r->fix, "%s", a->text);
        if (!timed) snprintf(r->note, sizeof r->note, "no untraced time of the kernels");
        else if (nk > 1) snprintf(r->note, sizeof r->note, "%zu kernels", nk);
    }
    return MH_OK;
}

static int fix_has_kernel(const mh_fix *r, const char *name);

/* The library fix of entry a that folds in kernel `name`; NULL if none. */
static mh_fix *library_fix_of(ctx *x, const mh_advice *a, const char *name) {
    for (size_t j = 0; j < x->out->n; j++) {
        mh_fix *f = &x->out->v[j];
        if (!strcmp(f->cause, "library_kernel") && !strcmp(f->advice, a->family) && fix_has_kernel(f, name)) return f;
    }
    return NULL;
}

/* r's findings and cause joined to the library fix lib. */
static int fold_into(mh_fix *lib, const mh_fix *r) {
    if (r->nfindings) {
        long long *v = realloc(lib->findings, (lib->nfindings + r->nfindings) * sizeof *v);
        if (!v) return MH_ERR_NOMEM;
        memcpy(v + lib->nfindings, r->findings, r->nfindings * sizeof *v);
        lib->findings = v;
        lib->nfindings += r->nfindings;
    }
    size_t n = strlen(lib->kinds);
    if (!strstr(lib->kinds, r->cause) && n + strlen(r->cause) + 2 < sizeof lib->kinds)
        snprintf(lib->kinds + n, sizeof lib->kinds - n, "+%s", r->cause);
    return MH_OK;
}

/* Every other fix on a kernel the table knows: its fix said in the
 * framework's terms, the measurement quoted. Where the table's answer is a
 * library fix that already folds in the fix's kernel (the optimizer's
 * foreach kernel on a small grid: AdamW(fused=True) either way), the fix is
 * that one, whose saving already takes the kernel's time: it joins it (its
 * findings and cause) and is not listed again. */
static int advise(ctx *x, const mh_advice_table *t, int torch) {
    mh_fixes *out = x->out;
    size_t kept = 0;
    for (size_t i = 0; i < out->n; i++) {
        mh_fix *r = &out->v[i];
        const mh_advice *a = strcmp(r->cause, "library_kernel") ? mh_advice_find(t, r->cause, r->kernel, torch) : NULL;
        mh_fix *lib = a && r->kernel && !strcmp(a->cause, "library_kernel") ? library_fix_of(x, a, r->kernel) : NULL;
        if (lib) {
            if (fold_into(lib, r)) return MH_ERR_NOMEM;
            free(r->kernel), free(r->kernels), free(r->object), free(r->findings);
            r->kernel = r->kernels = r->object = NULL, r->findings = NULL, r->nfindings = 0;
            r->cause = ""; /* folded: dropped below */
            continue;
        }
        if (!a) continue;
        char m[200];
        advice_measured(a, m, sizeof m);
        snprintf(r->advice, sizeof r->advice, "%s", a->family);
        if (snprintf(r->fix, sizeof r->fix, "%s (%s; %s)", a->text, a->title, m) >= (int)sizeof r->fix)
            memcpy(r->fix + sizeof r->fix - 5, "...)", 5); /* cut: its end still says so */
    }
    for (size_t i = 0; i < out->n; i++)
        if (*out->v[i].cause) out->v[kept++] = out->v[i];
    out->n = kept;
    return MH_OK;
}

/* ---- the user's call site of each fix (issue 43) ---- */

static const json_t *site_by_id(const ctx *x, long long id) {
    const json_t *o;
    size_t i;
    json_array_foreach(json_object_get(x->root, "sites"), i, o) if (jint(o, "id", -1) == id) return o;
    return NULL;
}

/* A site with a frame of the user's (a file), its label; NULL otherwise. */
static const char *user_label(const json_t *site) {
    const char *l = jstr(site, "label");
    return site && *jstr(site, "file") && *l ? l : NULL;
}

/* 1 when the kernel `name` is one of the fix's (its kernel, or one of a
 * library fix's kernels). */
static int fix_has_kernel(const mh_fix *r, const char *name) {
    if (r->kernel && !strcmp(r->kernel, name)) return 1;
    if (!r->kernels || strcmp(r->cause, "library_kernel")) return 0;
    size_t n = strlen(name);
    for (const char *p = r->kernels; (p = strstr(p, name)); p += n)
        if ((p == r->kernels || !strncmp(p - 3, " + ", 3)) && (!p[n] || !strncmp(p + n, " + ", 3))) return 1;
    return 0;
}

/* Each fix's call site in the user's code: the traced launch's that shows it
 * where it has one, else the site that launched its kernels most often;
 * with the number of such sites. Copies have none. */
static void fix_sites(ctx *x) {
    const json_t *cfgs = json_object_get(x->root, "site_configs");
    if (!json_array_size(cfgs)) return;
    for (size_t i = 0; i < x->out->n; i++) {
        mh_fix *r = &x->out->v[i];
        if (!r->kernel || r->kernel[0] == '(') continue;
        const char *best = NULL;
        if (r->launch >= 0) {
            const json_t *l = launch_by_id(x->root, r->launch);
            best = l ? user_label(site_by_id(x, jint(l, "site", -1))) : NULL;
        }
        /* launches per labelled site, by label (several sites of one line are one) */
        const char *labels[64];
        double counts[64];
        size_t nl = 0;
        const json_t *o;
        size_t k;
        json_array_foreach(cfgs, k, o) {
            if (!fix_has_kernel(r, jstr(o, "name"))) continue;
            const char *lab = user_label(site_by_id(x, jint(o, "site", -1)));
            if (!lab) continue;
            size_t j = 0;
            while (j < nl && strcmp(labels[j], lab)) j++;
            if (j == nl) {
                if (nl == sizeof labels / sizeof *labels) continue;
                labels[nl] = lab, counts[nl++] = 0;
            }
            counts[j] += (double)jint(o, "launches", 0);
        }
        if (!best && nl) {
            size_t m = 0;
            for (size_t j = 1; j < nl; j++)
                if (counts[j] > counts[m]) m = j;
            best = labels[m];
        }
        if (!best) continue;
        snprintf(r->site, sizeof r->site, "%s", best);
        r->nsites = nl ? nl : 1;
    }
}

/* ---- ranking ---- */

static int cmp_fix(const void *a, const void *b) {
    const mh_fix *x = a, *y = b;
    int hx = isfinite(x->saving_ns), hy = isfinite(y->saving_ns);
    if (hx != hy) return hy - hx;
    if (hx && x->saving_ns != y->saving_ns) return x->saving_ns < y->saving_ns ? 1 : -1;
    if (x->cost != y->cost) return x->cost < y->cost ? 1 : -1;
    return strcmp(x->kernel ? x->kernel : "", y->kernel ? y->kernel : "");
}

int mh_fixes_compute(mh_db *db, const json_t *root, mh_fixes *out, mh_err *err) {
    memset(out, 0, sizeof *out);
    mh_err local = {0};
    ctx x = {.db = db, .root = root, .out = out, .err = err ? err : &local};
    dev_of(root, &x.d);
    const json_t *run = json_object_get(root, "run");
    x.opencl = out->opencl = !strcmp(jstr(run, "backend"), "oclgrind");
    int rc = load_cfgs(&x);
    for (size_t i = 0; !rc && i < x.nc; i++)
        if (isfinite(cfg_total(&x.c[i]))) out->kernel_ns += cfg_total(&x.c[i]);
    if (!rc) rc = pattern_fixes(&x);
    if (!rc) rc = config_fixes(&x);
    if (!rc) rc = chain_fixes(&x);
    if (!rc) rc = copy_fixes(&x);
    if (!rc && !(rc = mh_advice_builtin(&out->advice, x.err))) { /* the fixes' titles point into it */
        int torch = pytorch_run(&x);
        if (!(rc = library_fixes(&x, &out->advice, torch))) rc = advise(&x, &out->advice, torch);
    }
    if (!rc) fix_sites(&x);
    free(x.c);
    if (rc) {
        mh_fixes_free(out);
        return rc == MH_ERR_NOMEM ? mh_err_set(err, rc, "out of memory ranking the fixes") : rc;
    }
    if (out->n > 1) mh_sort(out->v, out->n, sizeof *out->v, cmp_fix);
    return MH_OK;
}

void mh_fixes_free(mh_fixes *f) {
    for (size_t i = 0; f->v && i < f->n; i++) {
        free(f->v[i].kernel);
        free(f->v[i].kernels);
        free(f->v[i].object);
        free(f->v[i].findings);
    }
    free(f->v);
    mh_advice_free(&f->advice);
    memset(f, 0, sizeof *f);
}

int mh_fixes_short_names(const mh_fixes *f, size_t n, size_t width, char *shown, size_t stride, size_t cap) {
    if (n > f->n) n = f->n;
    if (!n) return MH_OK;
    const char **names = malloc(n * sizeof *names);
    if (!names) return MH_ERR_NOMEM;
    for (size_t i = 0; i < n; i++) names[i] = f->v[i].kernel ? f->v[i].kernel : "";
    int rc = mh_kname_unique(names, n, width, width, shown, stride, cap) ? MH_ERR_NOMEM : MH_OK;
    for (size_t i = 0; !rc && i < n; i++)
        if (names[i][0] == '(') snprintf(shown + i * stride, cap, "%s", names[i]); /* copies */
    free(names);
    return rc;
}

static json_t *num_or_null(double v) { return isfinite(v) ? json_real(v) : json_null(); }

json_t *mh_fixes_json(const mh_fixes *f) {
    char *shown = f->n ? malloc(f->n * 256) : NULL;
    if (f->n && (!shown || mh_fixes_short_names(f, f->n, 72, shown, 256, 256))) {
        free(shown);
        return NULL;
    }
    json_t *a = json_array();
    for (size_t i = 0; a && i < f->n; i++) {
        const mh_fix *r = &f->v[i];
        json_t *o = json_object(), *ids = json_array();
        for (size_t k = 0; k < r->nfindings; k++) json_array_append_new(ids, json_integer(r->findings[k]));
        json_object_set_new(o, "rank", json_integer((json_int_t)(i + 1)));
        json_object_set_new(o, "cause", json_string(r->cause));
        json_object_set_new(o, "title", json_string(r->title));
        json_object_set_new(o, "kinds", json_string(r->kinds));
        json_object_set_new(o, "kernel", json_string(r->kernel ? r->kernel : ""));
        char so[256];
        mh_kname_label(r->object ? r->object : "", 72, so, sizeof so);
        json_object_set_new(o, "kernel_short", json_string(shown + i * 256));
        json_object_set_new(o, "object_short", json_string(so));
        if (r->kernels) json_object_set_new(o, "kernels", json_string(r->kernels));
        json_object_set_new(o, "object", json_string(r->object ? r->object : ""));
        json_object_set_new(o, "space", json_string(r->space));
        json_object_set_new(o, "where", *r->where ? json_string(r->where) : json_null());
        json_object_set_new(o, "pc", *r->pc ? json_string(r->pc) : json_null());
        json_object_set_new(o, "launch", r->launch >= 0 ? json_integer(r->launch) : json_null());
        json_object_set_new(o, "finding", r->finding >= 0 ? json_integer(r->finding) : json_null());
        json_object_set_new(o, "findings", ids);
        json_object_set_new(o, "launches", json_integer((json_int_t)r->launches));
        json_object_set_new(o, "configs", json_integer((json_int_t)r->configs));
        json_object_set_new(o, "cost", num_or_null(r->cost));
        json_object_set_new(o, "cost_min", num_or_null(r->cost_min));
        json_object_set_new(o, "cost_max", num_or_null(r->cost_max));
        json_object_set_new(o, "saving_ns", num_or_null(r->saving_ns));
        json_object_set_new(o, "base_ns", num_or_null(r->base_ns));
        json_object_set_new(o, "share_min", num_or_null(r->share_min));
        json_object_set_new(o, "share_max", num_or_null(r->share_max));
        if (isfinite(r->bytes)) json_object_set_new(o, "bytes", json_real(r->bytes));
        json_object_set_new(o, "model", json_string(r->model));
        json_object_set_new(o, "fix", json_string(r->fix));
        json_object_set_new(o, "advice", *r->advice ? json_string(r->advice) : json_null());
        json_object_set_new(o, "site", *r->site ? json_string(r->site) : json_null());
        json_object_set_new(o, "sites", json_integer((json_int_t)r->nsites));
        json_object_set_new(o, "note", *r->note ? json_string(r->note) : json_null());
        json_array_append_new(a, o);
    }
    free(shown);
    return a;
}
