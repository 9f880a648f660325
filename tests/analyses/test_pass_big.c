/* test_pass_big.c -- one big launch through mh_pass's units on the workers
 * (pass_units.c): whatever units the thread count gives (stages 1b and 1c,
 * the third stages and their helpers, the heat maps' two parts), the
 * results, the JSON document and the memory peak are one thread's: a launch
 * open while the model grows, counts split in two parts, warp requests
 * over several objects, local accesses keyed by the patterns' first stage. */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/analyze.h"
#include "pass/pass.h"
#include "memheat/trace.h"
#include "pass_fixture.h"

/* A launch still open while many later launches are announced (concurrent
 * kernels): the model grows its launch array under the open heat map. The
 * maps must still see their launch (ASan catches a stale pointer). */
static void test_open_launch_across_growth(void) {
    mh_err err = {0};
    mh_trace_header h = synthetic_header();
    mh_trace_writer *w;
    CHECK(mh_trace_create(&w, "pass_open.mht", &h, NULL, &err) == MH_OK);
    mh_alloc a = {0, MH_TRACE_NO_LAUNCH, 0x1000, 4096, MH_SPACE_GLOBAL, "A"};
    CHECK(mh_trace_write_alloc(w, &a, &err) == MH_OK);
    enum { NL = 40 };
    mh_access v[64];
    for (uint32_t l = 0; l < NL; l++) {
        put_launch(w, l, l ? "later" : "first", 1, 64);
        /* launch 0 keeps issuing accesses while the others start */
        for (uint32_t i = 0; i < 64; i++)
            v[i] = (mh_access){0x1000 + 4 * i, 0x10, 0, 0, l, (uint16_t)i, 4, MH_ACCESS_FLAGS(MH_KIND_LOAD, 0)};
        CHECK(mh_trace_write_accesses(w, v, 64, &err) == MH_OK);
        if (l) {
            for (uint32_t i = 0; i < 64; i++) v[i].launch = l;
            CHECK(mh_trace_write_accesses(w, v, 64, &err) == MH_OK);
            mh_kernel_end e = {l, 64, 0, 0};
            CHECK(mh_trace_write_kernel_end(w, &e, &err) == MH_OK);
        }
    }
    mh_kernel_end e0 = {0, 64 * NL, 0, 0};
    CHECK(mh_trace_write_kernel_end(w, &e0, &err) == MH_OK);
    CHECK(mh_trace_close(w, &err) == MH_OK);
    for (unsigned t = 1; t <= 3; t += 2) {
        fp f = {0};
        CHECK(run_fp("pass_open.mht", t, &f, &err) == MH_OK);
        CHECK_EQ_U(f.maps, NL);
        CHECK_EQ_U(f.locs, NL);
    }
    mh_analyze_result res;
    CHECK(mh_analyze_file("pass_open.mht", NULL, &res, &err) == MH_OK);
    CHECK_EQ_U(res.model.nlaunches, NL);
    CHECK_EQ_U(res.accesses, 64u * (2 * NL - 1));
    mh_analyze_free(&res);
}

/* One launch of ND distinct addresses (past the 2^18 at which the
 * locality's counts move to a hash map and split in two parts, counted on
 * two threads with T_STAGED, on three with T_C1), each touched 1 + i % 3 times in a scattered
 * order, beside a small launch in flight at the same time: the footprint is
 * exact, and every result and the memory peak are those of one thread. */
static void test_split_counts(void) {
    enum { ND = 700000, PER = 4096 };
    mh_err err = {0};
    mh_trace_header h = synthetic_header();
    mh_trace_writer *w = NULL;
    CHECK(mh_trace_create(&w, "pass_split.mht", &h, NULL, &err) == MH_OK);
    if (!w) return;
    mh_alloc a = {0, MH_TRACE_NO_LAUNCH, 0x10000000, 4u * ND, MH_SPACE_GLOBAL, "X"};
    CHECK(mh_trace_write_alloc(w, &a, &err) == MH_OK);
    put_launch(w, 0, "big(float*)", 2, 256);
    put_launch(w, 1, "small(float*)", 1, 64);
    static mh_access v[PER];
    size_t nv = 0;
    uint32_t k = 0;
    for (uint32_t round = 0; round < 3; round++)
        for (uint32_t i = 0; i < ND; i++) {
            uint32_t j = (uint32_t)(((uint64_t)i * 7919u) % ND);
            if (j % 3 < round) continue;
            uint32_t t = k % 512;
            v[nv++] = (mh_access){0x10000000 + 4ull * j, 0x10, 0, t / 256, k / 512, (uint16_t)(t % 256), 4,
                                  MH_ACCESS_FLAGS(MH_KIND_LOAD, MH_SPACE_GLOBAL)};
            k++;
            if (nv == PER) {
                CHECK(mh_trace_write_accesses(w, v, nv, &err) == MH_OK);
                nv = 0;
                for (uint32_t x = 0; x < 64 && k % (16 * PER) == 0; x++) /* the small launch, now and then */
                    v[nv++] = (mh_access){0x10000000 + 4ull * x, 0x10, 1, 0, k / (16 * PER), (uint16_t)x, 4,
                                          MH_ACCESS_FLAGS(MH_KIND_STORE, MH_SPACE_GLOBAL)};
            }
        }
    if (nv) CHECK(mh_trace_write_accesses(w, v, nv, &err) == MH_OK);
    for (uint32_t l = 0; l < 2; l++) {
        mh_kernel_end e = {l, 0, 0, 0};
        CHECK(mh_trace_write_kernel_end(w, &e, &err) == MH_OK);
    }
    CHECK(mh_trace_close(w, &err) == MH_OK);
    char *one = analyze_json("pass_split.mht", 1);
    CHECK(one && strstr(one, "\"footprint\": 700000,") != NULL);
    fp f1 = {0};
    CHECK(run_fp("pass_split.mht", 1, &f1, &err) == MH_OK);
    CHECK_EQ_U(f1.locs, 2);
    for (unsigned t = 2; t <= T_ALL; t = next_t(t)) {
        fp ft = {0};
        CHECK(run_fp("pass_split.mht", t, &ft, &err) == MH_OK);
        CHECK_EQ_U(ft.h, f1.h);
        char *x = analyze_json("pass_split.mht", t);
        CHECK(same_json(one, x, "pass_split_differs", t));
        free(x);
    }
    free(one);
}

/* Warp requests that span up to four objects (stage 3b evaluates those of
 * two at most, stage 3 the others), steps of global and shared accesses
 * (a time step of several spaces), local accesses (keyed by the patterns'
 * first stage for the locality's stages), in one launch big enough for many
 * batches: the same JSON document with every thread count, stages 3b
 * included. */
static void test_requests_across_objects(void) {
    mh_err err = {0};
    mh_trace_header h = synthetic_header();
    mh_trace_writer *w = NULL;
    CHECK(mh_trace_create(&w, "pass_objs.mht", &h, NULL, &err) == MH_OK);
    if (!w) return;
    for (uint32_t i = 0; i < 4; i++) { /* four adjacent 32-byte objects: 8 lanes' floats each */
        static const char *const names[] = {"P", "Q", "R", "S"};
        mh_alloc a = {i, MH_TRACE_NO_LAUNCH, 0x200000 + 32 * (uint64_t)i, 32, MH_SPACE_GLOBAL, names[i]};
        CHECK(mh_trace_write_alloc(w, &a, &err) == MH_OK);
    }
    mh_alloc big = {4, MH_TRACE_NO_LAUNCH, 0x300000, 1u << 20, MH_SPACE_GLOBAL, "B"};
    CHECK(mh_trace_write_alloc(w, &big, &err) == MH_OK);
    put_launch(w, 0, "objs(float*)", 4, 64);
    enum { REC = 4096, RECS = 160 };
    static mh_access v[REC];
    for (uint32_t r = 0; r < RECS; r++) {
        for (uint32_t i = 0; i < REC; i++) {
            uint32_t g = r * REC + i, t = g % 64, b = (g / 64) % 4, it = g / 256, op = it % 5, lane = t % 32;
            uint64_t addr;
            unsigned space = MH_SPACE_GLOBAL, kind = MH_KIND_LOAD;
            if (op == 0) /* a warp over the four small objects: 4 bytes apart, then 8 (two objects) */
                addr = 0x200000 + (it % 8 < 4 ? 4 * (uint64_t)lane : 8 * (uint64_t)(lane % 16));
            else if (op == 1) /* one object, a stride that grows with the iteration */
                addr = 0x300000 + (uint64_t)lane * 4 * (1 + it % 5) + 4096 * (uint64_t)b;
            else if (op == 2) /* shared memory: a column, conflicts */
                addr = (uint64_t)lane * 128 + 4 * (it % 32), space = MH_SPACE_SHARED;
            else if (op == 3) /* stores straddling two objects, misaligned */
                addr = 0x200000 + 12 + 2 * (uint64_t)lane, kind = MH_KIND_STORE;
            else /* a thread's local memory (spills): keyed by the patterns' first stage for the locality too */
                addr = 16 + 4 * (uint64_t)(it % 8), space = MH_SPACE_LOCAL, kind = it % 2 ? MH_KIND_LOAD : MH_KIND_STORE;
            v[i] = (mh_access){addr, 0x10 + 8 * op, 0, b, it, (uint16_t)t, op == 3 ? 2 : 4, MH_ACCESS_FLAGS(kind, space)};
        }
        CHECK(mh_trace_write_accesses(w, v, REC, &err) == MH_OK);
    }
    mh_kernel_end e = {0, (uint64_t)REC * RECS, 0, 0};
    CHECK(mh_trace_write_kernel_end(w, &e, &err) == MH_OK);
    CHECK(mh_trace_close(w, &err) == MH_OK);
    char *a = analyze_json("pass_objs.mht", 1);
    CHECK(a && strstr(a, "\"label\": \"S\"") && strstr(a, "bank_conflict") && strstr(a, "strided"));
    for (unsigned t = 2; t <= T_ALL; t = next_t(t)) {
        char *b = analyze_json("pass_objs.mht", t);
        CHECK(a && b && strcmp(a, b) == 0);
        if (a && b && strcmp(a, b) != 0) fprintf(stderr, "  (%u threads differ)\n", t);
        free(b);
    }
    free(a);
}

int main(void) {
    static const mh_test_case cases[] = {{"open_launch_across_growth", test_open_launch_across_growth},
                                         {"split_counts", test_split_counts},
                                         {"requests_across_objects", test_requests_across_objects}};
    return mh_test_run(cases, sizeof cases / sizeof cases[0]);
}
