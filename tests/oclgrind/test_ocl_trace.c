/* test_ocl_trace.c -- checks traces that the real Oclgrind plugin wrote for
 * examples/opencl (run by tests/oclgrind/e2e.sh):
 *
 *   test_ocl_trace count TRACE M   countAccesses over M work-items, all blocks:
 *       every work-item's exact number of accesses per space and kind, each
 *       sequence number exactly once, nothing dropped, labels of its buffers.
 *   test_ocl_trace heat TRACE      pattern kernels, block 0 sampled: the heat
 *       map (src/analyses/heat.h) of each pattern's object has the known
 *       word and sector temperatures of its pattern.
 *   test_ocl_trace detect HOST     mh_run_is_opencl_host: HOST yes, /bin/sh no.
 * Exit 0 when every check passes. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../mh_test.h"
#include "analyses/heat.h"
#include "analyses/model.h"
#include "pass/pass.h"
#include "run/run.h"
#include "memheat/trace.h"

#define GROUP 256
#define WARP 32

static const char *g_trace;
static uint32_t g_items;
static const char *g_host;

/* ---- count ---- */

typedef struct item_tally {
    uint32_t gload, gstore, cload, sload, sstore, atomic, other;
    uint64_t seqmask; /* bit s = sequence number s seen (n <= 10 here) */
    uint32_t dup;
} item_tally;

static void test_count(void) {
    item_tally *t = calloc(g_items, sizeof *t);
    CHECK(t != NULL);
    if (!t) return;
    mh_trace_reader *r;
    mh_err err;
    CHECK(mh_trace_open(&r, g_trace, &err) == MH_OK);
    if (!r) {
        fprintf(stderr, "%s\n", err.msg);
        free(t);
        return;
    }
    CHECK_EQ_U(mh_trace_header_get(r)->device.warp_size, 32);
    CHECK(mh_trace_header_get(r)->device.flags & MH_DEV_SIMULATED);
    mh_record rec;
    uint64_t total = 0, recorded = 0, dropped = 0, launches = 0, out_of_range = 0;
    int labels = 0, tmp_label = 0;
    while (mh_trace_next(r, &rec, &err) == MH_OK && rec.type != MH_REC_EOF) {
        if (rec.type == MH_REC_LAUNCH) {
            launches++;
            CHECK(strcmp(rec.u.launch.name, "countAccesses") == 0);
            CHECK_EQ_U(rec.u.launch.grid.x, g_items / GROUP);
            CHECK_EQ_U(rec.u.launch.block.x, GROUP);
            CHECK_EQ_U(rec.u.launch.n_sampled, MH_TRACE_ALL_BLOCKS);
        } else if (rec.type == MH_REC_ALLOC) {
            const char *l = rec.u.alloc.label;
            if (!strcmp(l, "in") || !strcmp(l, "out") || !strcmp(l, "counter")) labels++;
            if (!strcmp(l, "coef")) labels += rec.u.alloc.space == MH_SPACE_CONSTANT;
            if (!strcmp(l, "tmp")) tmp_label += rec.u.alloc.space == MH_SPACE_SHARED && rec.u.alloc.size == 1024;
        } else if (rec.type == MH_REC_KERNEL_END) {
            recorded += rec.u.kernel_end.recorded;
            dropped += rec.u.kernel_end.dropped;
        } else if (rec.type == MH_REC_ACCESSES) {
            for (size_t i = 0; i < rec.u.accesses.n; i++) {
                const mh_access *a = &rec.u.accesses.v[i];
                uint64_t gid = (uint64_t)a->block * GROUP + a->thread;
                total++;
                if (gid >= g_items || a->thread >= GROUP || a->seq >= 64) {
                    out_of_range++;
                    continue;
                }
                item_tally *it = &t[gid];
                if (it->seqmask & (1ull << a->seq)) it->dup++;
                it->seqmask |= 1ull << a->seq;
                unsigned sp = MH_ACCESS_SPACE(a), k = MH_ACCESS_KIND(a);
                if (k == MH_KIND_ATOMIC) it->atomic++;
                else if (sp == MH_SPACE_GLOBAL && k == MH_KIND_LOAD) it->gload++;
                else if (sp == MH_SPACE_GLOBAL && k == MH_KIND_STORE) it->gstore++;
                else if (sp == MH_SPACE_CONSTANT && k == MH_KIND_LOAD) it->cload++;
                else if (sp == MH_SPACE_SHARED && k == MH_KIND_LOAD) it->sload++;
                else if (sp == MH_SPACE_SHARED && k == MH_KIND_STORE) it->sstore++;
                else it->other++;
            }
        }
    }
    CHECK(mh_trace_complete(r));
    mh_trace_close_reader(r);
    uint64_t want = 0, bad_items = 0;
    for (uint32_t i = 0; i < g_items; i++) {
        uint32_t n = 1 + i % 5;
        want += n + 5;
        const item_tally *it = &t[i];
        uint64_t mask = (1ull << (n + 5)) - 1;
        int ok = it->gload == n && it->gstore == 1 && it->cload == 1 && it->sload == 1 && it->sstore == 1 &&
                 it->atomic == 1 && it->other == 0 && it->dup == 0 && it->seqmask == mask;
        if (!ok && bad_items++ < 5)
            fprintf(stderr,
                    "work-item %u: gload %u (want %u) gstore %u cload %u sload %u sstore %u atomic %u other %u "
                    "dup %u seqmask %#" PRIx64 "\n",
                    i, it->gload, n, it->gstore, it->cload, it->sload, it->sstore, it->atomic, it->other, it->dup,
                    it->seqmask);
    }
    printf("countAccesses: %" PRIu64 " accesses traced, %" PRIu64 " expected, %" PRIu64 " dropped\n", total, want,
           dropped);
    CHECK_EQ_U(launches, 1);
    CHECK_EQ_U(total, want);
    CHECK_EQ_U(recorded, want);
    CHECK_EQ_U(dropped, 0);
    CHECK_EQ_U(out_of_range, 0);
    CHECK_EQ_U(bad_items, 0);
    CHECK_EQ_U(labels, 4);
    CHECK_EQ_U(tmp_label, 1);
    free(t);
}

/* ---- heat ---- */

typedef struct obj_heat {
    const char *kernel, *label;
    unsigned space;
    int found;
    size_t rows;
    uint32_t max_word, min_word_touched, max_sector, min_sector;
    size_t sectors_at[40];  /* rows whose sector temperature is k (k < 40) */
    size_t word_hist[9][40];/* word w temperature k; w = 8 unused */
} obj_heat;

static obj_heat g_objs[] = {
    {"patCoalesced", "in", MH_SPACE_GLOBAL, 0, 0, 0, 0, 0, 0, {0}, {{0}}},
    {"patCoalesced", "out", MH_SPACE_GLOBAL, 0, 0, 0, 0, 0, 0, {0}, {{0}}},
    {"patFalseSharing", "in", MH_SPACE_GLOBAL, 0, 0, 0, 0, 0, 0, {0}, {{0}}},
    {"patFalseSharing", "out", MH_SPACE_GLOBAL, 0, 0, 0, 0, 0, 0, {0}, {{0}}},
    {"patStrided", "in", MH_SPACE_GLOBAL, 0, 0, 0, 0, 0, 0, {0}, {{0}}},
    {"patMisaligned", "in", MH_SPACE_GLOBAL, 0, 0, 0, 0, 0, 0, {0}, {{0}}},
    {"patHot", "lut", MH_SPACE_GLOBAL, 0, 0, 0, 0, 0, 0, {0}, {{0}}},
    {"patSharedAbuse", "scratch", MH_SPACE_SHARED, 0, 0, 0, 0, 0, 0, {0}, {{0}}},
};
#define NOBJ (sizeof g_objs / sizeof g_objs[0])

/* A region of the object the program calls `name`: the buffer labeled so,
 * or a kernel argument's view of that name ("arg 0: float* (in)"). */
static int region_named(const mh_heat_result *res, const mh_heat_region *g, const char *name) {
    if (!strcmp(g->label, name)) return 1;
    if (g->obj < 0 || (size_t)g->obj >= res->model->nobjs) return 0;
    const mh_model_obj *o = &res->model->objs[g->obj];
    return o->arg >= 0 && o->arg_name && !strcmp(o->arg_name, name);
}

static int on_map(void *ctx, const mh_heat_result *res, mh_err *err) {
    (void)ctx;
    (void)err;
    const char *kname = res->launch->l.display_name ? res->launch->l.display_name : res->launch->l.name;
    for (size_t o = 0; o < NOBJ; o++) {
        obj_heat *h = &g_objs[o];
        if (strcmp(h->kernel, kname) != 0 || h->space != res->space) continue;
        for (size_t i = 0; i < res->nrows; i++) {
            const mh_heat_row *row = &res->rows[i];
            if (row->region < 0 || (size_t)row->region >= res->nregions) continue;
            if (!region_named(res, &res->regions[row->region], h->label)) continue;
            if (!h->found) {
                h->min_word_touched = UINT32_MAX;
                h->min_sector = UINT32_MAX;
            }
            h->found = 1;
            h->rows++;
            if (row->sector > h->max_sector) h->max_sector = row->sector;
            if (row->sector < h->min_sector) h->min_sector = row->sector;
            if (row->sector < 40) h->sectors_at[row->sector]++;
            for (int w = 0; w < MH_HEAT_WORDS; w++) {
                uint32_t v = row->word[w];
                if (v > h->max_word) h->max_word = v;
                if (v && v < h->min_word_touched) h->min_word_touched = v;
                if (v < 40) h->word_hist[w][v]++;
            }
        }
    }
    return MH_OK;
}

static obj_heat *obj(const char *kernel, const char *label) {
    for (size_t o = 0; o < NOBJ; o++)
        if (!strcmp(g_objs[o].kernel, kernel) && !strcmp(g_objs[o].label, label)) return &g_objs[o];
    return NULL;
}

static void test_heat(void) {
    mh_err err = {0};
    mh_pass *p = NULL;
    mh_pass_opts po = {.analyses = MH_PASS_HEAT, .heat_spaces = 0};
    CHECK(mh_pass_open(&p, g_trace, NULL, &po, &err) == MH_OK);
    if (!p) {
        fprintf(stderr, "%s\n", err.msg);
        return;
    }
    mh_pass_consumer c = {.heat = on_map};
    CHECK(mh_pass_add(p, &c, &err) == MH_OK);
    int rc = mh_pass_run(p, &err); /* reading, model, heat maps and their finish */
    CHECK(rc == MH_OK);
    mh_pass_close(p);

    for (size_t o = 0; o < NOBJ; o++) {
        obj_heat *h = &g_objs[o];
        printf("%-16s %-8s rows %4zu  word temp %u..%u  sector temp %u..%u\n", h->kernel, h->label, h->rows,
               h->found ? h->min_word_touched : 0, h->max_word, h->found ? h->min_sector : 0, h->max_sector);
        CHECK(h->found);
    }
    /* block 0 sampled: 256 work-items = 8 warps, 1 KiB per float array */
    obj_heat *h;
    /* coalesced control: every word and sector touched by exactly one warp */
    h = obj("patCoalesced", "in");
    CHECK_EQ_U(h->rows, 32);
    CHECK_EQ_U(h->max_word, 1);
    CHECK_EQ_U(h->min_word_touched, 1);
    CHECK_EQ_U(h->sectors_at[1], 32);
    h = obj("patCoalesced", "out");
    CHECK_EQ_U(h->rows, 32);
    CHECK_EQ_U(h->sectors_at[1], 32);
    /* false sharing: words 1, sectors 8 */
    h = obj("patFalseSharing", "in");
    CHECK_EQ_U(h->rows, 32);
    CHECK_EQ_U(h->max_word, 1);
    CHECK_EQ_U(h->sectors_at[8], 32);
    h = obj("patFalseSharing", "out");
    CHECK_EQ_U(h->sectors_at[8], 32);
    /* strided: one sector per work-item, only word 0 used */
    h = obj("patStrided", "in");
    CHECK_EQ_U(h->rows, 256);
    CHECK_EQ_U(h->word_hist[0][1], 256);
    for (int w = 1; w < 8; w++) CHECK_EQ_U(h->word_hist[w][0], 256);
    CHECK_EQ_U(h->sectors_at[1], 256);
    /* misaligned: 8 warps x 128 B from byte 16 -> 33 sectors, the 7 inner
     * boundaries shared by two warps */
    h = obj("patMisaligned", "in");
    CHECK_EQ_U(h->rows, 33);
    CHECK_EQ_U(h->max_word, 1);
    CHECK_EQ_U(h->sectors_at[2], 7);
    CHECK_EQ_U(h->sectors_at[1], 26);
    /* hot spot: the one-sector table read by all 8 warps, every word */
    h = obj("patHot", "lut");
    CHECK_EQ_U(h->rows, 1);
    CHECK_EQ_U(h->min_word_touched, 8);
    CHECK_EQ_U(h->max_word, 8);
    CHECK_EQ_U(h->sectors_at[8], 1);
    /* shared-memory abuse: each work-item's own word, one warp per sector */
    h = obj("patSharedAbuse", "scratch");
    CHECK_EQ_U(h->rows, 32);
    CHECK_EQ_U(h->max_word, 1);
    CHECK_EQ_U(h->min_word_touched, 1);
    CHECK_EQ_U(h->sectors_at[1], 32);
}

/* ---- detect ---- */

static void test_detect(void) {
    CHECK(mh_run_is_opencl_host(g_host) == 1);
    CHECK(mh_run_is_opencl_host("/bin/sh") == 0);
    CHECK(mh_run_is_opencl_host("/nonexistent/program") == 0);
    CHECK(mh_run_is_opencl_host("sh") == 0); /* found on PATH, not OpenCL */
}

int main(int argc, char **argv) {
    if (argc >= 4 && !strcmp(argv[1], "count")) {
        g_trace = argv[2];
        g_items = (uint32_t)strtoul(argv[3], NULL, 10);
        if (g_items == 0 || g_items % GROUP) return 2;
        static const mh_test_case c[] = {{"countAccesses exact counts", test_count}};
        return mh_test_run(c, 1);
    }
    if (argc >= 3 && !strcmp(argv[1], "heat")) {
        g_trace = argv[2];
        static const mh_test_case c[] = {{"pattern heat maps", test_heat}};
        return mh_test_run(c, 1);
    }
    if (argc >= 3 && !strcmp(argv[1], "detect")) {
        g_host = argv[2];
        static const mh_test_case c[] = {{"OpenCL host detection", test_detect}};
        return mh_test_run(c, 1);
    }
    fprintf(stderr, "usage: test_ocl_trace count TRACE M | heat TRACE | detect HOST\n");
    return 2;
}
