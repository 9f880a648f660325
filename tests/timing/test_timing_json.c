/* test_timing_json.c -- timing JSON round trip, damaged files, per-name
 * aggregation (count/total/min/median/max) and the join of a counters pass
 * (by launch order, and by configuration; the profiler's own kernels dropped). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../mh_test.h"
#include "memheat/timing.h"

static char dir[1024];

static const char *path_of(const char *name) {
    static char buf[4][1200];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

static void write_file(const char *p, const char *text) {
    FILE *f = fopen(p, "wb");
    if (!f) {
        perror(p);
        exit(1);
    }
    fputs(text, f);
    fclose(f);
}

static mh_timing_kernel *kern(mh_timing *t, const char *name, uint32_t corr, uint64_t s, uint64_t e) {
    mh_timing_kernel *k = mh_timing_add_kernel(t, name);
    CHECK(k != NULL);
    k->correlation = corr;
    k->start_ns = s;
    k->end_ns = e;
    k->grid[0] = 4, k->grid[1] = 1, k->grid[2] = 1;
    k->block[0] = 256, k->block[1] = 1, k->block[2] = 1;
    return k;
}

static void test_round_trip(void) {
    mh_timing t;
    mh_timing_init(&t);
    snprintf(t.command, sizeof t.command, "./saxpy \"quoted\" arg");
    snprintf(t.kernel_timing, sizeof t.kernel_timing, "events");
    mh_timing_device d = {0};
    d.id = 0;
    snprintf(d.name, sizeof d.name, "Test GPU");
    d.cc_major = 9, d.sm_count = 132, d.mem_clock_khz = 2619000, d.bus_width_bits = 5120;
    d.sm_clock_khz = 1980000, d.l2_bytes = 52428800, d.global_mem_bytes = 85000000000ull;
    CHECK(mh_timing_add_device(&t, &d) == 0);
    CHECK(mh_timing_add_device(&t, &d) == 0); /* same id: not added twice */
    mh_timing_kernel *k = kern(&t, "_Z5saxpyifPfS_", 7, 1000, 2500);
    k->stream = 13, k->regs = 16, k->dyn_smem = 128;
    k->has_counters = 1;
    k->c.dram_read_bytes = 8e6, k->c.dram_write_bytes = 4e6, k->c.occupancy_pct = 87.5;
    kern(&t, "other", 9, 3000, 3100);
    mh_timing_copy *c = mh_timing_add_copy(&t);
    c->kind = MH_COPY_HTOD, c->start_ns = 10, c->end_ns = 900, c->bytes = 4096, c->stream = 7;
    c = mh_timing_add_copy(&t);
    c->kind = MH_COPY_MEMSET, c->start_ns = 950, c->end_ns = 960, c->bytes = 64, c->value = 255;
    t.dropped_records = 3;
    t.timing_run.ran = 1, t.timing_run.wall_ns = 123456789;
    t.counters.requested = 1;
    snprintf(t.counters.status, sizeof t.counters.status, "ok");
    t.counters.passes = 4;

    mh_err err = {0};
    CHECK(mh_timing_save(&t, NULL, path_of("rt.json"), &err) == MH_OK);
    mh_timing u;
    CHECK(mh_timing_load(&u, path_of("rt.json"), &err) == MH_OK);
    CHECK(u.ndevices == 1 && strcmp(u.devices[0].name, "Test GPU") == 0);
    CHECK(u.devices[0].mem_clock_khz == 2619000 && u.devices[0].bus_width_bits == 5120);
    CHECK(u.devices[0].global_mem_bytes == 85000000000ull);
    CHECK(strcmp(u.command, t.command) == 0);
    CHECK(strcmp(u.kernel_timing, "events") == 0);
    CHECK(u.nkernels == 2);
    CHECK(strcmp(u.kernels[0].name, "_Z5saxpyifPfS_") == 0);
    CHECK(u.kernels[0].start_ns == 1000 && u.kernels[0].end_ns == 2500 && u.kernels[0].stream == 13);
    CHECK(u.kernels[0].grid[0] == 4 && u.kernels[0].block[0] == 256 && u.kernels[0].regs == 16);
    CHECK(u.kernels[0].has_counters && u.kernels[0].c.dram_read_bytes == 8e6);
    CHECK(u.kernels[0].c.occupancy_pct == 87.5);
    CHECK(isnan(u.kernels[0].c.ld_sectors)); /* not collected stays missing */
    CHECK(!u.kernels[1].has_counters);
    CHECK(u.ncopies == 2 && u.copies[0].kind == MH_COPY_HTOD && u.copies[0].bytes == 4096);
    CHECK(u.copies[1].kind == MH_COPY_MEMSET && u.copies[1].value == 255);
    CHECK(u.dropped_records == 3 && u.timing_run.ran && u.timing_run.wall_ns == 123456789);
    CHECK(!u.counters_run.ran);
    CHECK(strcmp(u.counters.status, "ok") == 0 && u.counters.passes == 4);
    mh_timing_free(&u);
    mh_timing_free(&t);
}

static void expect_load_error(const char *name, const char *text, int code) {
    const char *p = path_of(name);
    write_file(p, text);
    mh_timing t;
    mh_err err = {0};
    int rc = mh_timing_load(&t, p, &err);
    if (rc != code) fprintf(stderr, "%s: got %d (%s), want %d\n", name, rc, err.msg, code);
    CHECK(rc == code);
    CHECK(err.msg[0] != '\0' && strchr(err.msg, '\n') == NULL);
}

static void test_damaged(void) {
    expect_load_error("empty.json", "", MH_ERR_EMPTY);
    expect_load_error("garbage.json", "{\"format\": \"memheat-timing\", ", MH_ERR_FORMAT);
    expect_load_error("other.json", "{\"format\": \"something\", \"version\": 1}", MH_ERR_FORMAT);
    expect_load_error("future.json",
                      "{\"format\": \"memheat-timing\", \"version\": 99, \"devices\": [], \"kernels\": [], "
                      "\"copies\": []}",
                      MH_ERR_VERSION);
    expect_load_error("nokernels.json", "{\"format\": \"memheat-timing\", \"version\": 1, \"devices\": []}",
                      MH_ERR_FORMAT);
    expect_load_error("backwards.json",
                      "{\"format\": \"memheat-timing\", \"version\": 1, \"devices\": [], \"copies\": [], "
                      "\"kernels\": [{\"name\": \"k\", \"start_ns\": 10, \"end_ns\": 5, \"grid\": [1,1,1], "
                      "\"block\": [1,1,1]}]}",
                      MH_ERR_FORMAT);
    expect_load_error("badkind.json",
                      "{\"format\": \"memheat-timing\", \"version\": 1, \"devices\": [], \"kernels\": [], "
                      "\"copies\": [{\"kind\": \"sideways\", \"start_ns\": 1, \"end_ns\": 2, \"bytes\": 1}]}",
                      MH_ERR_FORMAT);
    expect_load_error("negative.json",
                      "{\"format\": \"memheat-timing\", \"version\": 1, \"devices\": [], \"copies\": [], "
                      "\"kernels\": [{\"name\": \"k\", \"start_ns\": -1, \"end_ns\": 5, \"grid\": [1,1,1], "
                      "\"block\": [1,1,1]}]}",
                      MH_ERR_FORMAT);
    mh_timing t;
    mh_err err = {0};
    CHECK(mh_timing_load(&t, path_of("does-not-exist.json"), &err) == MH_ERR_IO);
}

static void test_aggregate(void) {
    mh_timing t;
    mh_timing_init(&t);
    /* "a": durations 10, 30, 20 -> median 20; "b": 10, 20, 30, 40 -> median 25 */
    kern(&t, "a", 1, 0, 10);
    kern(&t, "b", 2, 100, 110);
    kern(&t, "a", 3, 200, 230);
    kern(&t, "b", 4, 300, 320);
    kern(&t, "a", 5, 400, 420);
    kern(&t, "b", 6, 500, 530);
    mh_timing_kernel *k = kern(&t, "b", 7, 600, 640);
    k->has_counters = 1;
    k->c.dram_read_bytes = 100, k->c.dram_write_bytes = 60, k->c.occupancy_pct = 50;
    k = kern(&t, "b", 8, 700, 700); /* zero-length launch */
    mh_timing_stats *s;
    size_t n;
    mh_err err = {0};
    CHECK(mh_timing_aggregate(&t, &s, &n, &err) == MH_OK);
    CHECK(n == 2);
    /* sorted by total: b = 100, a = 60 */
    CHECK(strcmp(s[0].name, "b") == 0 && s[0].count == 5 && s[0].total_ns == 100);
    CHECK(s[0].min_ns == 0 && s[0].max_ns == 40 && s[0].median_ns == 20.0);
    CHECK(s[0].with_counters == 1 && s[0].dram_bytes == 160 && s[0].counted_ns == 40);
    CHECK(s[0].occupancy_pct == 50);
    CHECK(strcmp(s[1].name, "a") == 0 && s[1].count == 3 && s[1].total_ns == 60);
    CHECK(s[1].min_ns == 10 && s[1].max_ns == 30 && s[1].median_ns == 20.0);
    CHECK(s[1].with_counters == 0 && isnan(s[1].occupancy_pct));
    free(s);
    uint64_t v[] = {40, 10, 30, 20};
    CHECK(mh_timing_median_u64(v, 4) == 25.0);
    CHECK(mh_timing_median_u64(v, 0) == 0.0);
    mh_timing_free(&t);
}

static void test_merge(void) {
    mh_timing t, c;
    mh_timing_init(&t);
    mh_timing_init(&c);
    /* timing pass: completion order differs from launch order (streams) */
    kern(&t, "B", 20, 50, 60);
    kern(&t, "A", 10, 0, 100);
    kern(&t, "A", 30, 200, 300);
    /* counters pass: launch order A, B, A with distinct values */
    const char *names[] = {"A", "B", "A"};
    for (int i = 0; i < 3; i++) {
        mh_timing_kernel *k = kern(&c, names[i], (uint32_t)(100 + i), 0, 0);
        k->has_counters = 1;
        k->c.dram_read_bytes = 1000.0 * (i + 1);
    }
    snprintf(c.counters.status, sizeof c.counters.status, "ok");
    c.counters.ranges = 3;
    mh_err err = {0};
    CHECK(mh_timing_merge_counters(&t, &c, &err) == MH_OK);
    CHECK(t.counters.matched == 3 && strcmp(t.counters.status, "ok") == 0);
    CHECK(t.kernels[1].c.dram_read_bytes == 1000.0); /* first A */
    CHECK(t.kernels[0].c.dram_read_bytes == 2000.0); /* B */
    CHECK(t.kernels[2].c.dram_read_bytes == 3000.0); /* second A */

    /* a diverging program: the second launch differs -> partial, nothing past it */
    mh_timing u;
    mh_timing_init(&u);
    kern(&u, "A", 1, 0, 10);
    kern(&u, "C", 2, 20, 30);
    kern(&u, "A", 3, 40, 50);
    CHECK(mh_timing_merge_counters(&u, &c, &err) == MH_OK);
    CHECK(strcmp(u.counters.status, "partial") == 0 && u.counters.matched == 1);
    CHECK(u.kernels[0].has_counters && !u.kernels[1].has_counters && !u.kernels[2].has_counters);
    CHECK(strstr(u.counters.message, "differs") != NULL);

    /* kernel nodes of CUDA graphs, timed but not profiled (G): stepped over,
     * every profiled launch still gets its own record; a graph node whose
     * kernel also ran outside the graph (B) gets that kernel's first record */
    mh_timing g;
    mh_timing_init(&g);
    kern(&g, "A", 1, 0, 10);
    kern(&g, "G", 2, 15, 18); /* a graph launch's correlation id */
    kern(&g, "B", 3, 20, 30);
    kern(&g, "G", 4, 35, 38);
    kern(&g, "B", 4, 39, 40);
    kern(&g, "A", 5, 40, 50);
    CHECK(mh_timing_merge_counters(&g, &c, &err) == MH_OK);
    CHECK(strcmp(g.counters.status, "ok") == 0 && g.counters.matched == 4);
    CHECK(g.kernels[0].c.dram_read_bytes == 1000.0 && g.kernels[2].c.dram_read_bytes == 2000.0);
    CHECK(g.kernels[5].c.dram_read_bytes == 3000.0);
    CHECK(!g.kernels[1].has_counters && !g.kernels[3].has_counters);
    CHECK(g.kernels[4].has_counters && g.kernels[4].c.dram_read_bytes == 2000.0);
    mh_timing_free(&g);

    /* a counters pass that failed keeps its status and message */
    mh_timing f, v;
    mh_timing_init(&f);
    mh_timing_init(&v);
    snprintf(f.counters.status, sizeof f.counters.status, "unavailable");
    snprintf(f.counters.message, sizeof f.counters.message, "insufficient privileges");
    kern(&v, "A", 1, 0, 10);
    CHECK(mh_timing_merge_counters(&v, &f, &err) == MH_OK);
    CHECK(strcmp(v.counters.status, "unavailable") == 0 && v.counters.matched == 0);
    mh_timing_free(&t), mh_timing_free(&c), mh_timing_free(&u), mh_timing_free(&f), mh_timing_free(&v);
}

/* One-pass mode's counters run profiles the first launch of each
 * (name, grid, block, dyn_smem): the join gives a record to every launch of
 * its configuration, from synthetic timing JSON files. */
#define K(name, corr, grid, smem, extra)                                                                   \
    "{\"name\":\"" name "\",\"device\":0,\"correlation\":" #corr ",\"start_ns\":" #corr "000,\"end_ns\":" #corr \
    "500,\"grid\":[" #grid ",1,1],\"block\":[128,1,1],\"dyn_smem\":" #smem extra "}"
#define HEAD "{\"format\":\"memheat-timing\",\"version\":1,\"devices\":[{\"id\":0,\"name\":\"G\"}],\"copies\":[],"

static void test_merge_by_config(void) {
    const char *timeline = HEAD "\"kernels\":[" K("A", 1, 4, 0, "") "," K("A", 2, 8, 0, "") "," K("B", 3, 4, 0, "") ","
        K("A", 4, 4, 0, "") "," K("A", 5, 8, 0, "") "," K("A", 6, 4, 64, "") "," K("B", 7, 4, 0, "") "]}";
    const char *sampled = HEAD "\"counters\":{\"requested\":true,\"status\":\"ok\",\"ranges\":4},\"kernels\":["
        K("A", 11, 4, 0, ",\"counters\":{\"dram_read_bytes\":100}") ","
        K("A", 12, 8, 0, ",\"counters\":{\"dram_read_bytes\":200}") ","
        K("B", 13, 4, 0, ",\"counters\":{\"dram_read_bytes\":300}") "]}";
    write_file(path_of("cfg_timeline.json"), timeline);
    write_file(path_of("cfg_counters.json"), sampled);
    mh_timing t, c;
    mh_err err = {0};
    CHECK(mh_timing_load(&t, path_of("cfg_timeline.json"), &err) == MH_OK);
    CHECK(mh_timing_load(&c, path_of("cfg_counters.json"), &err) == MH_OK);
    CHECK(c.nkernels == 3 && c.kernels[0].has_counters);
    CHECK(mh_timing_merge_counters(&t, &c, &err) == MH_OK);
    /* launches in correlation order: A4 A8 B4 A4 A8 A4(smem 64) B4 */
    const double want[7] = {100, 200, 300, 100, 200, NAN, 300};
    for (size_t i = 0; i < 7; i++) {
        const mh_timing_kernel *k = NULL;
        for (size_t j = 0; j < t.nkernels; j++)
            if (t.kernels[j].correlation == i + 1) k = &t.kernels[j];
        CHECK(k != NULL);
        if (!k) continue;
        if (isnan(want[i])) CHECK(!k->has_counters); /* dyn_smem differs: another configuration */
        else CHECK(k->has_counters && k->c.dram_read_bytes == want[i]);
    }
    CHECK(t.counters.matched == 6 && strcmp(t.counters.status, "partial") == 0);
    CHECK(strstr(t.counters.message, "1 of 7 launches") != NULL);
    mh_timing_free(&t);
    mh_timing_free(&c);

    /* records without a configuration (grid 0) join by name */
    const char *named = HEAD "\"counters\":{\"status\":\"ok\"},\"kernels\":["
        "{\"name\":\"A\",\"correlation\":1,\"start_ns\":0,\"end_ns\":0,\"grid\":[0,0,0],\"block\":[0,0,0],\"counters\":{\"dram_read_bytes\":7}},"
        "{\"name\":\"B\",\"correlation\":2,\"start_ns\":0,\"end_ns\":0,\"grid\":[0,0,0],\"block\":[0,0,0],\"counters\":{\"dram_read_bytes\":9}}]}";
    write_file(path_of("cfg_named.json"), named);
    CHECK(mh_timing_load(&t, path_of("cfg_timeline.json"), &err) == MH_OK);
    CHECK(mh_timing_load(&c, path_of("cfg_named.json"), &err) == MH_OK);
    CHECK(mh_timing_merge_counters(&t, &c, &err) == MH_OK);
    CHECK(t.counters.matched == 7 && strcmp(t.counters.status, "ok") == 0);
    for (size_t j = 0; j < t.nkernels; j++)
        CHECK(t.kernels[j].c.dram_read_bytes == (strcmp(t.kernels[j].name, "A") == 0 ? 7.0 : 9.0));
    mh_timing_free(&t);
    mh_timing_free(&c);
}

/* The timing run that also profiles: the profiler's WaitNs, queued inside a
 * profiled launch's call (same correlation, another name), goes; a kernel of
 * another correlation or context named alike stays, as does the launch. */
static void test_drop_profiler_kernels(void) {
    mh_timing t, prof;
    mh_timing_init(&t);
    mh_timing_init(&prof);
    kern(&t, "A", 5, 100, 200);
    kern(&t, "WaitNs", 5, 10, 90);
    kern(&t, "B", 6, 300, 400);
    kern(&t, "WaitNs", 7, 500, 600)->context = 0;
    mh_timing_kernel *other = kern(&t, "WaitNs", 5, 700, 800);
    other->context = 2;
    kern(&prof, "A", 5, 0, 0);
    kern(&prof, "B", 6, 0, 0);
    CHECK(mh_timing_drop_profiler_kernels(&t, &prof) == 1);
    CHECK(t.nkernels == 4);
    const char *want[4] = {"A", "B", "WaitNs", "WaitNs"};
    for (size_t i = 0; i < t.nkernels && i < 4; i++)
        CHECK(strcmp(t.kernels[i].name, want[i]) == 0 && t.kernels[i].seq == i);
    CHECK(t.kernels[3].context == 2);
    mh_timing_free(&prof); /* nothing profiled: nothing goes */
    CHECK(mh_timing_drop_profiler_kernels(&t, &prof) == 0 && t.nkernels == 4);
    mh_timing_free(&t);
}

static void test_sort(void) {
    mh_timing t;
    mh_timing_init(&t);
    kern(&t, "late", 1, 500, 600);
    kern(&t, "early", 2, 100, 200);
    mh_timing_sort(&t);
    CHECK(strcmp(t.kernels[0].name, "early") == 0 && t.kernels[0].seq == 0 && t.kernels[1].seq == 1);
    CHECK(mh_timing_copy_kind_parse("DtoH") == MH_COPY_DTOH && mh_timing_copy_kind_parse("x") == -1);
    mh_timing_free(&t);
}

/* One run of the program: traced launches' times borrowed from untraced
 * launches of their configuration, kept (and counted) where there are none,
 * and the mark survives the JSON round trip. */
static void test_borrow_times(void) {
    mh_timing t;
    mh_timing_init(&t);
    kern(&t, "k", 1, 0, 900)->timed = MH_TIMED_INSTRUMENTED; /* traced: 900 ns */
    kern(&t, "k", 2, 1000, 1100);                             /* untraced: 100, 300, 200 */
    kern(&t, "k", 3, 2000, 2300);
    kern(&t, "k", 4, 3000, 3200);
    mh_timing_kernel *o = kern(&t, "k", 5, 4000, 4700); /* same name, other grid: nothing to borrow */
    o->grid[0] = 8;
    o->timed = MH_TIMED_INSTRUMENTED;
    kern(&t, "once", 6, 5000, 5800)->timed = MH_TIMED_INSTRUMENTED;
    CHECK_EQ_U(mh_timing_borrow_times(&t), 2);
    CHECK(t.kernels[0].timed == MH_TIMED_BORROWED && t.kernels[0].start_ns == 0 && t.kernels[0].end_ns == 200);
    CHECK(t.kernels[1].timed == MH_TIMED_CLEAN && t.kernels[1].end_ns == 1100);
    CHECK(t.kernels[4].timed == MH_TIMED_INSTRUMENTED && t.kernels[4].end_ns == 4700);
    CHECK(t.kernels[5].timed == MH_TIMED_INSTRUMENTED);
    CHECK_EQ_U(mh_timing_borrow_times(&t), 2); /* idempotent */
    mh_err err = {0};
    CHECK(mh_timing_save(&t, NULL, path_of("borrow.json"), &err) == MH_OK);
    mh_timing u;
    CHECK(mh_timing_load(&u, path_of("borrow.json"), &err) == MH_OK);
    CHECK(u.nkernels == 6 && u.kernels[0].timed == MH_TIMED_BORROWED && u.kernels[4].timed == MH_TIMED_INSTRUMENTED);
    CHECK(u.kernels[1].timed == MH_TIMED_CLEAN);
    mh_timing_stats *st = NULL;
    size_t n = 0;
    CHECK(mh_timing_aggregate(&u, &st, &n, &err) == MH_OK);
    uint64_t inst = 0;
    for (size_t i = 0; i < n; i++) inst += st[i].instrumented;
    CHECK_EQ_U(inst, 2);
    free(st);
    mh_timing_free(&u);
    mh_timing_free(&t);
    write_file(path_of("badtimed.json"), "{\"format\":\"memheat-timing\",\"version\":1,\"kernels\":[{\"name\":\"k\","
               "\"start_ns\":1,\"end_ns\":2,\"grid\":[1,1,1],\"block\":[1,1,1],\"timed\":\"guessed\"}]}");
    CHECK(mh_timing_load(&u, path_of("badtimed.json"), &err) == MH_ERR_FORMAT);
    CHECK(strstr(err.msg, "timed") != NULL);
}

/* Launches whose events held the launch gap (MH_TIMED_GAP: queued on an idle
 * stream) borrow their configuration's clean median like traced ones; what
 * has no clean sibling is counted but left out of every time figure, and a
 * kernel none of whose launches has a clean time has no time at all. */
static void test_gap_times(void) {
    mh_timing t;
    mh_timing_init(&t);
    kern(&t, "k", 1, 0, 9000)->timed = MH_TIMED_GAP;  /* 9 us with the gap */
    kern(&t, "k", 2, 10000, 10400);                    /* clean: 400 ns */
    kern(&t, "k", 3, 11000, 11600);                    /* clean: 600 ns */
    mh_timing_kernel *o = kern(&t, "k", 4, 20000, 27000); /* other grid, gap only: unmeasured */
    o->grid[0] = 16;
    o->timed = MH_TIMED_GAP;
    kern(&t, "idle", 5, 30000, 38000)->timed = MH_TIMED_GAP; /* every launch on an idle stream */
    kern(&t, "idle", 6, 40000, 41000)->timed = MH_TIMED_INSTRUMENTED;
    CHECK_EQ_U(mh_timing_borrow_times(&t), 3);
    CHECK(t.kernels[0].timed == MH_TIMED_BORROWED && t.kernels[0].end_ns - t.kernels[0].start_ns == 500);
    CHECK(t.kernels[3].timed == MH_TIMED_GAP && !mh_timing_measured(&t.kernels[3]));
    mh_err err = {0};
    CHECK(mh_timing_save(&t, NULL, path_of("gap.json"), &err) == MH_OK);
    mh_timing u;
    CHECK(mh_timing_load(&u, path_of("gap.json"), &err) == MH_OK);
    CHECK(u.nkernels == 6 && u.kernels[3].timed == MH_TIMED_GAP && u.kernels[0].timed == MH_TIMED_BORROWED);
    mh_timing_stats *st = NULL;
    size_t n = 0;
    CHECK(mh_timing_aggregate(&u, &st, &n, &err) == MH_OK);
    CHECK(n == 2);
    for (size_t i = 0; i < n; i++) {
        if (!strcmp(st[i].name, "k")) { /* 500 (borrowed) + 400 + 600; the 7 us gap launch counted, not timed */
            CHECK_EQ_U(st[i].count, 4);
            CHECK_EQ_U(st[i].unmeasured, 1);
            CHECK_EQ_U(st[i].total_ns, 1500);
            CHECK(st[i].min_ns == 400 && st[i].max_ns == 600 && st[i].median_ns == 500.0);
        } else {
            CHECK(!strcmp(st[i].name, "idle"));
            CHECK_EQ_U(st[i].count, 2);
            CHECK_EQ_U(st[i].unmeasured, 2);
            CHECK_EQ_U(st[i].total_ns, 0);
            CHECK(isnan(st[i].median_ns));
        }
    }
    free(st);
    mh_timing_free(&u);
    mh_timing_free(&t);
}

/* A traced launch with no untraced launch of its configuration takes the
 * counters run's replay time; a launch without counters, or with a clean
 * time, keeps its own; the mark survives the JSON round trip. */
static void test_replay_times(void) {
    mh_timing t;
    mh_timing_init(&t);
    mh_timing_kernel *a = kern(&t, "once", 1, 1000, 51000); /* traced: 50 us */
    a->timed = MH_TIMED_INSTRUMENTED;
    a->has_counters = 1;
    a->c.replay_ns = 300;
    a->c.dram_read_bytes = 600, a->c.dram_write_bytes = 0;
    mh_timing_kernel *b = kern(&t, "nocounters", 2, 60000, 70000);
    b->timed = MH_TIMED_INSTRUMENTED;
    mh_timing_kernel *c = kern(&t, "clean", 3, 80000, 80500);
    c->has_counters = 1;
    c->c.replay_ns = 400;
    mh_timing_kernel *d = kern(&t, "noreplay", 4, 90000, 99000);
    d->timed = MH_TIMED_INSTRUMENTED;
    d->has_counters = 1;
    d->c.replay_ns = NAN;
    CHECK_EQ_U(mh_timing_replay_times(&t), 1);
    CHECK(a->timed == MH_TIMED_REPLAYED && a->start_ns == 1000 && a->end_ns == 1300);
    CHECK(b->timed == MH_TIMED_INSTRUMENTED && b->end_ns == 70000);
    CHECK(c->timed == MH_TIMED_CLEAN && c->end_ns == 80500);
    CHECK(d->timed == MH_TIMED_INSTRUMENTED && d->end_ns == 99000);
    CHECK_EQ_U(mh_timing_replay_times(&t), 0); /* idempotent */
    mh_err err = {0};
    CHECK(mh_timing_save(&t, NULL, path_of("replay.json"), &err) == MH_OK);
    mh_timing u;
    CHECK(mh_timing_load(&u, path_of("replay.json"), &err) == MH_OK);
    CHECK(u.nkernels == 4 && u.kernels[0].timed == MH_TIMED_REPLAYED && u.kernels[0].end_ns == 1300);
    mh_timing_stats *st = NULL;
    size_t n = 0;
    CHECK(mh_timing_aggregate(&u, &st, &n, &err) == MH_OK);
    for (size_t i = 0; i < n; i++)
        if (!strcmp(st[i].name, "once")) CHECK(st[i].counted_ns == 300 && st[i].instrumented == 0);
    free(st);
    mh_timing_free(&u);
    mh_timing_free(&t);
}

/* GPU time shares: a kernel alone keeps its span; two that overlap share the
 * overlap; another device's kernels do not count; the bandwidth's
 * denominator (counted_ns) is the share. */
static void test_shares(void) {
    mh_timing t;
    mh_timing_init(&t);
    kern(&t, "alone", 1, 0, 100);
    kern(&t, "x", 2, 1000, 2000); /* x and y overlap on [1500, 2000) */
    kern(&t, "y", 3, 1500, 2500);
    kern(&t, "z", 4, 1600, 1700); /* inside both: three running on [1600, 1700) */
    mh_timing_kernel *o = kern(&t, "other", 5, 1000, 2000);
    o->device = 1;
    kern(&t, "touch", 6, 2500, 2600); /* starts when y ends: alone */
    double *sh = mh_timing_shares(&t);
    CHECK(sh != NULL);
    /* x: 500 alone + 100/2 + 100/3 + 300/2 */
    double x = 500 + 50 + 100.0 / 3 + 150, z = 100.0 / 3, y = 50 + 100.0 / 3 + 150 + 500;
    CHECK(fabs(sh[0] - 100) < 1e-9 && fabs(sh[1] - x) < 1e-9 && fabs(sh[2] - y) < 1e-9);
    CHECK(fabs(sh[3] - z) < 1e-9 && fabs(sh[4] - 1000) < 1e-9 && fabs(sh[5] - 100) < 1e-9);
    CHECK(fabs(sh[1] + sh[2] + sh[3] - 1500) < 1e-9); /* the shares add up to the busy time */
    free(sh);
    for (size_t i = 0; i < t.nkernels; i++) {
        t.kernels[i].has_counters = 1;
        t.kernels[i].c.dram_read_bytes = 1000;
        t.kernels[i].c.dram_write_bytes = 0;
    }
    mh_timing_stats *st = NULL;
    size_t n = 0;
    mh_err err = {0};
    CHECK(mh_timing_aggregate(&t, &st, &n, &err) == MH_OK);
    for (size_t i = 0; i < n; i++) {
        if (!strcmp(st[i].name, "x")) CHECK(fabs(st[i].counted_ns - x) < 1e-6 && st[i].median_ns == 1000);
        if (!strcmp(st[i].name, "other")) CHECK(fabs(st[i].counted_ns - 1000) < 1e-6);
    }
    free(st);
    mh_timing_free(&t);
}

int main(int argc, char **argv) {
    snprintf(dir, sizeof dir, "%s", argc > 1 ? argv[1] : ".");
    static const mh_test_case cases[] = {T(test_round_trip), T(test_damaged), T(test_aggregate), T(test_merge),
                                         T(test_merge_by_config), T(test_drop_profiler_kernels), T(test_sort), T(test_borrow_times), T(test_gap_times),
                                         T(test_replay_times), T(test_shares)};
    return mh_test_run(cases, sizeof cases / sizeof cases[0]);
}
