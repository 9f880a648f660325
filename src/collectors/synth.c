/* synth.c -- synthetic traces of known access shapes (src/collectors/synth.h).
 *
 * Each shape is a small address function of (iteration, warp, lane); the
 * generator walks threads in warp order, as a GPU issues them, and streams
 * accesses through the real trace writer in batches. */
#include "collectors/synth.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const shape_names[MH_SYNTH_SHAPE_COUNT] = {
    "coalesced", "false_sharing", "strided", "misaligned", "hot",
    "random_hot", "shared_private", "shared_warp", "shared_tile",
    "permutation_gather", "table_lookup", "csr_gather", "edge_partial_warp"};

const char *mh_synth_shape_name(unsigned shape) {
    return shape < MH_SYNTH_SHAPE_COUNT ? shape_names[shape] : "unknown";
}

int mh_synth_shape_parse(const char *name) {
    for (int i = 0; i < MH_SYNTH_SHAPE_COUNT; i++)
        if (strcmp(name, shape_names[i]) == 0) return i;
    return -1;
}

/* xorshift64*: deterministic, seedable, good enough for test addresses. */
static uint64_t rng_next(uint64_t *s) {
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1Dull;
}

typedef struct gen {
    mh_trace_writer *w;
    mh_access buf[4096];
    size_t n;
    mh_err *err;
} gen;

static int put(gen *g, const mh_access *a) {
    g->buf[g->n++] = *a;
    if (g->n == sizeof g->buf / sizeof g->buf[0]) {
        int rc = mh_trace_write_accesses(g->w, g->buf, g->n, g->err);
        g->n = 0;
        return rc;
    }
    return MH_OK;
}

static int drain(gen *g) {
    int rc = g->n ? mh_trace_write_accesses(g->w, g->buf, g->n, g->err) : MH_OK;
    g->n = 0;
    return rc;
}

/* Tables of the irregular shapes, drawn once per launch. */
enum { LUT_WORDS = 16384, LUT_HOT_MAX = 64, EDGE_IDLE = 24 };
typedef struct shape_tab {
    uint32_t *perm;              /* PERMUTATION: iters * T entries */
    uint32_t hot[LUT_HOT_MAX];   /* TABLE_LOOKUP: the hot words ... */
    uint32_t nhot;               /* ... `stride` of them (at most 64) */
} shape_tab;

#define SKIP UINT64_MAX /* the lane is idle */

/* Element index (4-byte words from the object's base) that thread (w, l) of
 * warp-count W and T threads touches at iteration k; SKIP = no access. */
static uint64_t element(unsigned shape, const mh_synth_opts *o, const shape_tab *tab, uint64_t k, uint32_t w,
                        uint32_t l, uint64_t *rng) {
    uint64_t W = o->warps, ws = o->warp_size, T = W * ws, t = (uint64_t)w * ws + l;
    switch (shape) {
    case MH_SYNTH_COALESCED: return k * T + t;
    case MH_SYNTH_FALSE_SHARING: return k * T + (uint64_t)l * W + w;
    case MH_SYNTH_STRIDED: return (k * T + t) * o->stride;
    case MH_SYNTH_MISALIGNED: return k * T + t; /* shifted by offset bytes at the caller */
    case MH_SYNTH_HOT: return (l + k) % 16;
    case MH_SYNTH_RANDOM_HOT: return rng_next(rng) % 64;
    case MH_SYNTH_SHARED_PRIVATE: return t;
    case MH_SYNTH_SHARED_WARP: return w;
    case MH_SYNTH_SHARED_TILE: return (l + k * ws) % T; /* every warp sweeps the whole tile */
    case MH_SYNTH_PERMUTATION: return tab->perm[k * T + t];
    case MH_SYNTH_TABLE_LOOKUP: return tab->hot[rng_next(rng) % tab->nhot];
    case MH_SYNTH_CSR_GATHER: return 16 + k * T + t + rng_next(rng) % 33 - 16; /* row r's columns r-16..r+16 */
    case MH_SYNTH_EDGE_WARP: return t < T - EDGE_IDLE ? k * (T - EDGE_IDLE) + t : SKIP;
    default: return 0;
    }
}

static int emit_shape(gen *g, unsigned shape, uint32_t id, const mh_synth_opts *o) {
    const uint64_t W = o->warps, ws = o->warp_size, T = W * ws;
    int shared = shape >= MH_SYNTH_SHARED_PRIVATE && shape <= MH_SYNTH_SHARED_TILE;
    unsigned space = shared ? MH_SPACE_SHARED : MH_SPACE_GLOBAL;
    uint64_t base = shared ? 0 : 0x7f0000000000ull + ((uint64_t)id << 32);
    uint64_t span_words = (uint64_t)o->iters * T * (shape == MH_SYNTH_STRIDED ? o->stride : 1) + T + 64;
    if (shape == MH_SYNTH_TABLE_LOOKUP) span_words = LUT_WORDS;
    uint64_t size = span_words * 4 + (shape == MH_SYNTH_MISALIGNED ? o->offset : 0);
    uint32_t sampled[64];
    uint32_t nb = o->blocks > 64 ? 64 : o->blocks;
    for (uint32_t b = 0; b < nb; b++) sampled[b] = b;
    mh_launch l = {.id = id,
                   .name = mh_synth_shape_name(shape),
                   .display_name = mh_synth_shape_name(shape),
                   .grid = {nb, 1, 1},
                   .block = {(uint32_t)T, 1, 1},
                   .dyn_smem = shared ? (uint32_t)(T * 4) : 0,
                   .n_sampled = nb,
                   .sampled = sampled};
    mh_alloc a = {.id = id, .launch = shared ? id : MH_TRACE_NO_LAUNCH, .base = base, .size = size,
                  .space = (uint8_t)space, .label = mh_synth_shape_name(shape)};
    int rc = mh_trace_write_alloc(g->w, &a, g->err);
    if (rc == MH_OK) rc = mh_trace_write_launch(g->w, &l, g->err);
    uint64_t rng = o->seed * 0x9E3779B97F4A7C15ull + id + 1;
    shape_tab tab = {0};
    if (rc == MH_OK && shape == MH_SYNTH_PERMUTATION) { /* Fisher-Yates */
        uint64_t n = (uint64_t)o->iters * T;
        tab.perm = malloc(n * sizeof *tab.perm);
        if (!tab.perm) rc = mh_err_set(g->err, MH_ERR_NOMEM, "out of memory");
        for (uint64_t i = 0; tab.perm && i < n; i++) tab.perm[i] = (uint32_t)i;
        for (uint64_t i = n; tab.perm && i > 1; i--) {
            uint64_t j = rng_next(&rng) % i;
            uint32_t x = tab.perm[i - 1];
            tab.perm[i - 1] = tab.perm[j];
            tab.perm[j] = x;
        }
    }
    tab.nhot = o->stride < LUT_HOT_MAX ? o->stride : LUT_HOT_MAX;
    for (uint32_t j = 0; j < tab.nhot; j++) tab.hot[j] = (uint32_t)(rng_next(&rng) % LUT_WORDS);
    uint64_t before = mh_trace_written_accesses(g->w);
    for (uint32_t b = 0; b < nb && rc == MH_OK; b++) {
        uint32_t seq[1024] = {0};
        for (uint64_t k = 0; k < o->iters && rc == MH_OK; k++) {
            for (uint32_t w = 0; w < W && rc == MH_OK; w++) {
                for (uint32_t ln = 0; ln < ws && rc == MH_OK; ln++) {
                    uint32_t t = (uint32_t)(w * ws + ln);
                    uint64_t e = element(shape, o, &tab, k, w, ln, &rng);
                    if (e == SKIP) continue;
                    unsigned kind = MH_KIND_LOAD;
                    if (shape == MH_SYNTH_SHARED_WARP && ln != 0 && k == 0) continue; /* lane 0 writes first */
                    if (shared && k == 0) kind = MH_KIND_STORE;
                    /* the tile is stored by its threads, one word each, before every warp sweeps it
                     * (a shared word read before any store names memory filled out of sight) */
                    if (shape == MH_SYNTH_SHARED_TILE && k == 0) e = t;
                    /* false sharing is warps writing words of one sector (read only: uncoalesced) */
                    if (shape == MH_SYNTH_FALSE_SHARING) kind = MH_KIND_STORE;
                    mh_access ac = {.addr = base + e * 4 + (shape == MH_SYNTH_MISALIGNED ? o->offset : 0),
                                    .pc = 0x100 + 0x10 * (uint64_t)(kind == MH_KIND_STORE),
                                    .launch = id, .block = b, .seq = seq[t]++, .thread = (uint16_t)t,
                                    .size = 4, .flags = MH_ACCESS_FLAGS(kind, space)};
                    rc = put(g, &ac);
                }
            }
        }
    }
    free(tab.perm);
    if (rc == MH_OK) rc = drain(g);
    mh_kernel_end end = {.launch = id, .recorded = mh_trace_written_accesses(g->w) - before};
    if (rc == MH_OK) rc = mh_trace_write_kernel_end(g->w, &end, g->err);
    return rc;
}

int mh_synth_write(const char *path, const mh_synth_opts *in, mh_err *err) {
    mh_synth_opts o = *in;
    if (!o.warps) o.warps = 8;
    if (!o.blocks) o.blocks = 1;
    if (!o.iters) o.iters = 1;
    if (!o.stride) o.stride = 8;
    if (!o.warp_size) o.warp_size = 32;
    if (!o.shapes) o.shapes = 1u << MH_SYNTH_COALESCED;
    if ((uint64_t)o.warps * o.warp_size > 1024)
        return mh_err_set(err, MH_ERR_ARG, "synthetic blocks hold at most 1024 threads (%u warps of %u asked)",
                          o.warps, o.warp_size);
    mh_trace_header h = {.producer = "memheat-synth " "0.1", .command = "synthetic", .note = "synthetic trace",
                         .start_unix_ns = (uint64_t)time(NULL) * 1000000000ull,
                         .device = {.name = "synthetic", .warp_size = o.warp_size, .sector_size = 32,
                                    .flags = MH_DEV_SIMULATED}};
    gen *g = calloc(1, sizeof *g);
    if (!g) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    g->err = err;
    int rc = mh_trace_create(&g->w, path, &h, NULL, err);
    uint32_t id = 0;
    for (unsigned s = 0; s < MH_SYNTH_SHAPE_COUNT && rc == MH_OK; s++)
        if (o.shapes & (1u << s)) rc = emit_shape(g, s, id++, &o);
    if (g->w) {
        if (rc == MH_OK) rc = mh_trace_close(g->w, err);
        else mh_trace_abandon(g->w);
    }
    free(g);
    return rc;
}
