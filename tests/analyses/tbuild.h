/* tbuild.h -- builds small hand-written traces for the analyses tests: a
 * header, then objects, launches and accesses appended by the test, written
 * as a real trace file through the trace writer; and two such traces
 * analyzed side by side (tests that compare two shapes of one workload). */
#ifndef MH_TESTS_ANALYSES_TBUILD_H
#define MH_TESTS_ANALYSES_TBUILD_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "render/analyze.h"
#include "memheat/trace.h"

typedef struct tb {
    mh_trace_writer *w;
    char path[256];
    mh_err err;
    int ok;
    uint32_t launch[64]; /* accesses written per launch id, for its kernel end (the first 64 ids seen) */
    uint64_t count[64];
    unsigned nlaunch;
} tb;

/* Where the count of launch id's accesses is kept. */
static inline uint64_t *tb_count(tb *t, uint32_t id) {
    for (unsigned i = 0; i < t->nlaunch; i++)
        if (t->launch[i] == id) return &t->count[i];
    if (t->nlaunch == 64) return NULL;
    t->launch[t->nlaunch] = id;
    t->count[t->nlaunch] = 0;
    return &t->count[t->nlaunch++];
}

static inline int tb_open(tb *t, const char *name) {
    memset(t, 0, sizeof *t);
    snprintf(t->path, sizeof t->path, "%s/mh_an_%s_%d.mht", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", name,
             (int)getpid());
    mh_trace_header h = {0};
    h.producer = "tests/analyses";
    h.command = "";
    h.note = "";
    h.device.name = "test device";
    h.device.warp_size = 32;
    h.device.sector_size = 32;
    t->ok = mh_trace_create(&t->w, t->path, &h, NULL, &t->err) == MH_OK;
    return t->ok;
}

static inline void tb_alloc(tb *t, uint32_t id, uint32_t launch, uint64_t base, uint64_t size, unsigned space,
                            const char *label) {
    mh_alloc a = {id, launch, base, size, (uint8_t)space, label};
    if (t->ok) t->ok = mh_trace_write_alloc(t->w, &a, &t->err) == MH_OK;
}

static inline void tb_launch(tb *t, uint32_t id, const char *name, uint32_t grid, uint32_t block) {
    mh_launch l = {0};
    l.id = id;
    l.name = name;
    l.display_name = name;
    l.grid = (mh_dim3){grid, 1, 1};
    l.block = (mh_dim3){block, 1, 1};
    l.n_sampled = MH_TRACE_ALL_BLOCKS;
    if (t->ok) t->ok = mh_trace_write_launch(t->w, &l, &t->err) == MH_OK;
}

static inline void tb_acc(tb *t, uint32_t launch, uint32_t block, uint16_t thread, uint32_t seq, uint64_t addr,
                          uint8_t size, unsigned kind, unsigned space, uint64_t pc) {
    mh_access a = {addr, pc, launch, block, seq, thread, size, MH_ACCESS_FLAGS(kind, space)};
    if (t->ok) t->ok = mh_trace_write_accesses(t->w, &a, 1, &t->err) == MH_OK;
    uint64_t *n = tb_count(t, launch);
    if (n) (*n)++;
}

/* Stores words [0, words) of a block's shared memory, conflict free (thread
 * t the words t, t + nthreads, ...) at pc 0x8, as a kernel fills a tile
 * before reading it: a shared word read that no traced store wrote is
 * memory the collector did not see filled (the partial view). Returns the
 * seq numbers each thread used (the thread's next access takes it). */
static inline uint32_t tb_fill_shared(tb *t, uint32_t launch, uint32_t block, uint32_t nthreads, uint32_t words) {
    uint32_t per = (words + nthreads - 1) / nthreads;
    for (uint32_t th = 0; th < nthreads; th++)
        for (uint32_t j = 0; j < per; j++)
            if (th + j * nthreads < words)
                tb_acc(t, launch, block, (uint16_t)th, j, 4ull * (th + j * nthreads), 4, MH_KIND_STORE,
                       MH_SPACE_SHARED, 0x8);
    return per;
}

static inline void tb_pcinfo(tb *t, uint64_t pc, const char *fn, const char *file, uint32_t line) {
    mh_pcinfo p = {pc, fn, file, line};
    if (t->ok) t->ok = mh_trace_write_pcinfo(t->w, &p, &t->err) == MH_OK;
}

/* Its kernel end counts the accesses written for it, as collectors do. */
static inline void tb_end(tb *t, uint32_t launch) {
    uint64_t *n = tb_count(t, launch);
    mh_kernel_end e = {launch, n ? *n : 0, 0, 0};
    if (t->ok) t->ok = mh_trace_write_kernel_end(t->w, &e, &t->err) == MH_OK;
}

static inline int tb_close(tb *t) {
    if (!t->w) return 0;
    int rc = mh_trace_close(t->w, &t->err);
    t->w = NULL;
    if (rc != MH_OK) t->ok = 0;
    if (!t->ok) fprintf(stderr, "trace builder: %s\n", t->err.msg);
    return t->ok;
}

/* Analyzes the traces of a and b (default options) into ra and rb: 1 when
 * both succeeded. Either way tb_free_both releases both. */
static inline int tb_analyze_both(const tb *a, const tb *b, mh_analyze_result *ra, mh_analyze_result *rb) {
    int oa = mh_analyze_file(a->path, NULL, ra, NULL) == MH_OK;
    int ob = mh_analyze_file(b->path, NULL, rb, NULL) == MH_OK;
    return oa && ob;
}

/* Frees both results and removes both trace files. */
static inline void tb_free_both(const tb *a, const tb *b, mh_analyze_result *ra, mh_analyze_result *rb) {
    mh_analyze_free(ra);
    mh_analyze_free(rb);
    unlink(a->path);
    unlink(b->path);
}

#endif
