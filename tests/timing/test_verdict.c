/* test_verdict.c -- the bound verdicts of src/analyses/verdict.h on
 * synthetic timelines, one kernel per verdict (a saturating copy, a
 * compute-heavy kernel, a tiny grid, a 3 us kernel, a slow first launch, a
 * many-wave kernel far below both roofs), the thresholds on both sides, the
 * occupancy limits behind the waves, and the figures in the JSON, the
 * terminal table and the profile (kernel.bound, kernel.verdict; a profile
 * without that column still reads). Every expected figure is computed here
 * from the device and the launch, not copied from a run. */
#include <jansson.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/bandwidth.h"
#include "import/import.h"
#include "store/store.h"
#include "analyses/verdict.h"
#include "../mh_test.h"

static char dir[1024];

/* An H100 SXM as the timing file describes it. */
static mh_timing_device h100(void) {
    mh_timing_device d;
    memset(&d, 0, sizeof d);
    snprintf(d.name, sizeof d.name, "Hand H100");
    d.cc_major = 9, d.cc_minor = 0, d.sm_count = 132, d.sm_clock_khz = 1980000;
    d.mem_clock_khz = 2619000, d.bus_width_bits = 5120, d.max_threads_per_sm = 2048;
    return d;
}

static double peak_Bps(void) {
    mh_timing_device d = h100();
    return mh_bw_theoretical_Bps(&d);
}

static double peak_sp(void) {
    mh_timing_device d = h100();
    return mh_bw_peak_flops(&d, 0);
}

/* n launches of name back to back from *clock: durations dur[i] (or dur[0]
 * for all when ndur == 1), grid x 256 threads, 32 registers; with counters
 * when frac_bw >= 0 (DRAM bytes at that share of the roof, flops at frac_cmp
 * of the compute roof, achieved occupancy 50%). */
static void launches(mh_timing *t, uint64_t *clock, const char *name, int n, const uint64_t *dur, int ndur,
                     uint32_t grid, double frac_bw, double frac_cmp) {
    for (int i = 0; i < n; i++) {
        uint64_t d = dur[ndur == 1 ? 0 : i];
        mh_timing_kernel *k = mh_timing_add_kernel(t, name);
        k->start_ns = *clock;
        k->end_ns = *clock += d;
        *clock += 1000;
        k->grid[0] = grid, k->grid[1] = k->grid[2] = 1;
        k->block[0] = 256, k->block[1] = k->block[2] = 1;
        k->regs = 32;
        if (frac_bw < 0) continue;
        k->has_counters = 1;
        mh_timing_counters_clear(&k->c);
        double bytes = frac_bw * peak_Bps() * (double)d * 1e-9;
        k->c.dram_read_bytes = bytes / 2, k->c.dram_write_bytes = bytes / 2;
        k->c.flops_sp = frac_cmp * peak_sp() * (double)d * 1e-9, k->c.flops_dp = 0;
        k->c.occupancy_pct = 50, k->c.warps_per_sm = 32;
    }
}

static const mh_bw_row *row(const mh_bw_report *rep, const char *name) {
    for (size_t i = 0; i < rep->nrows; i++)
        if (!strcmp(rep->rows[i].s.name, name)) return &rep->rows[i];
    return NULL;
}

/* One timeline with a kernel for each verdict. */
static void build(mh_timing *t) {
    mh_timing_init(t);
    mh_timing_device d = h100();
    mh_timing_add_device(t, &d);
    uint64_t clock = 0;
    uint64_t ms = 1000000, us200 = 200000, us3 = 3000, us100 = 100000;
    launches(t, &clock, "saturate", 3, &ms, 1, 65536, 0.80, 0.001);
    launches(t, &clock, "gemm", 2, &ms, 1, 4096, 0.05, 0.70);
    launches(t, &clock, "tiny_grid", 3, &us200, 1, 16, 0.05, 0.001);
    launches(t, &clock, "launchy", 10, &us3, 1, 4096, 0.02, 0.001);
    launches(t, &clock, "launch_once", 1, &us3, 1, 4096, 0.02, 0.001); /* short, but launched once */
    uint64_t first[] = {500000, 50000, 50000, 50000, 50000, 50000};
    launches(t, &clock, "first", 6, first, 6, 4096, 0.05, 0.001);
    launches(t, &clock, "latency", 3, &us100, 1, 4096, 0.05, 0.001);
    launches(t, &clock, "below", 3, &us100, 1, 4096, 0.59, 0.001); /* just under the threshold */
    launches(t, &clock, "above", 3, &us100, 1, 4096, 0.61, 0.001); /* just over it */
    uint64_t mild[] = {75000, 50000, 50000};                         /* first launch only 1.5x */
    launches(t, &clock, "mild_first", 3, mild, 3, 4096, 0.05, 0.001);
    launches(t, &clock, "nocounters", 3, &us100, 1, 4096, -1, 0);
    launches(t, &clock, "nocounters_tiny", 3, &us100, 1, 8, -1, 0);
    /* issue 40: 128 blocks of one per SM (160 KiB of shared memory each) on
     * 132 SMs: 0.97 waves, but every SM but 4 busy: not a small grid; 60
     * blocks of 8 per SM leave more than half the SMs idle: a small grid */
    size_t from = t->nkernels;
    launches(t, &clock, "full_wave", 3, &us100, 1, 128, 0.05, 0.001);
    for (size_t i = from; i < t->nkernels; i++) t->kernels[i].dyn_smem = 160 * 1024;
    launches(t, &clock, "half_idle", 3, &us100, 1, 60, 0.05, 0.001);
    /* counters without flop counts (the one-pass set of an H200): roofs half known */
    from = t->nkernels;
    launches(t, &clock, "noflops", 3, &us100, 1, 4096, 0.05, 0.001);
    for (size_t i = from; i < t->nkernels; i++) t->kernels[i].c.flops_sp = t->kernels[i].c.flops_dp = NAN;
    mh_timing_sort(t);
}

static void test_blocks_per_sm(void) {
    mh_timing_device d = h100();
    mh_timing_kernel k;
    memset(&k, 0, sizeof k);
    k.block[0] = 256, k.block[1] = k.block[2] = 1;
    CHECK_EQ_U(mh_verdict_blocks_per_sm(&d, &k), 2048 / 256);    /* warps: 64 / 8 */
    k.regs = 64;                                                  /* 2048 registers a warp: 32 warps */
    CHECK_EQ_U(mh_verdict_blocks_per_sm(&d, &k), 32 / 8);
    k.regs = 0, k.dyn_smem = 48 * 1024;                           /* 228 KiB / (48 + 1 reserved) KiB */
    CHECK_EQ_U(mh_verdict_blocks_per_sm(&d, &k), 228 / 49);
    k.dyn_smem = 0, k.block[0] = 32;                              /* one warp: the 32 blocks limit */
    CHECK_EQ_U(mh_verdict_blocks_per_sm(&d, &k), 32);
    k.block[0] = 1024;
    CHECK_EQ_U(mh_verdict_blocks_per_sm(&d, &k), 2);
    d.max_threads_per_sm = 1536, d.cc_major = 8, d.cc_minor = 6; /* GA10x: 48 warps, 16 blocks */
    k.block[0] = 64;
    CHECK_EQ_U(mh_verdict_blocks_per_sm(&d, &k), 16);
    d.cc_major = 3; /* unknown architecture: no guess */
    CHECK_EQ_U(mh_verdict_blocks_per_sm(&d, &k), 0);
    CHECK(mh_verdict_dram_latency_ns(9) > 0 && mh_verdict_dram_latency_ns(8) > 0);
}

static void test_verdicts(void) {
    mh_timing t;
    build(&t);
    mh_bw_report rep;
    mh_err err = {0};
    CHECK(mh_bw_analyze(&t, 0, &rep, &err) == MH_OK);
    const mh_bw_row *r;

    r = row(&rep, "saturate");
    CHECK(r && r->verdict == MH_VERDICT_MEMORY);
    if (r) {
        CHECK_NEAR_REL(r->why.frac_bw_roof, 0.80, 1e-9);
        CHECK_NEAR_REL(r->why.frac_compute_roof, 0.001, 1e-9);
        CHECK_NEAR_REL(r->why.measured_ns, 1e6, 1e-12);
        CHECK_NEAR_REL(r->why.roof_ns, 0.80e6, 1e-9); /* the bytes at peak take 80% of the measured time */
        CHECK_NEAR_REL(r->why.bytes, 0.80 * peak_Bps() * 1e-3, 1e-9);
        CHECK_NEAR_REL(r->why.waves, 65536.0 / (132 * 8), 1e-12);
    }
    r = row(&rep, "gemm");
    CHECK(r && r->verdict == MH_VERDICT_COMPUTE);
    if (r) CHECK_NEAR_REL(r->why.roof_ns, 0.70e6, 1e-9);

    r = row(&rep, "tiny_grid"); /* 16 blocks against 132 SMs x 8 */
    CHECK(r && r->verdict == MH_VERDICT_SMALL_GRID);
    if (r) {
        CHECK_EQ_U(r->why.blocks, 16);
        CHECK_EQ_U(r->why.blocks_per_sm, 8);
        CHECK_NEAR_REL(r->why.waves, 16.0 / (132 * 8), 1e-12);
        CHECK_NEAR_REL(r->why.frac_bw_roof, 0.05, 1e-9);
        CHECK_NEAR_REL(r->why.occupancy_pct, 50, 1e-12);
    }
    r = row(&rep, "launchy");
    CHECK(r && r->verdict == MH_VERDICT_LAUNCH);
    if (r) CHECK_NEAR_REL(r->why.median_ns, 3000, 1e-12);
    r = row(&rep, "launch_once"); /* one launch has no launch rate to be bound by: the waves decide */
    CHECK(r && r->verdict == MH_VERDICT_LATENCY);

    r = row(&rep, "first"); /* 500 us, then 5 x 50 us: excess 450 of 750 us */
    CHECK(r && r->verdict == MH_VERDICT_FIRST_TOUCH);
    if (r) {
        CHECK_NEAR_REL(r->why.first_ns, 500000, 1e-12);
        CHECK_NEAR_REL(r->why.later_ns, 50000, 1e-12);
        CHECK_NEAR_REL(r->why.first_share, 450.0 / 750.0, 1e-12);
    }
    r = row(&rep, "latency"); /* 3.9 waves, 5% of the bandwidth roof */
    CHECK(r && r->verdict == MH_VERDICT_LATENCY);
    if (r) {
        double lat = mh_verdict_dram_latency_ns(9);
        CHECK_NEAR_REL(r->why.latency_ns, lat, 1e-12);
        CHECK_NEAR_REL(r->why.inflight_need_B, peak_Bps() * lat * 1e-9 / 132, 1e-9);
        CHECK_NEAR_REL(r->why.inflight_B, 0.05 * peak_Bps() * lat * 1e-9 / 132, 1e-9);
        CHECK(r->why.waves >= 1);
    }
    r = row(&rep, "below");
    CHECK(r && r->verdict == MH_VERDICT_LATENCY);
    r = row(&rep, "above");
    CHECK(r && r->verdict == MH_VERDICT_MEMORY);
    r = row(&rep, "mild_first"); /* 1.5x: under MH_VERDICT_FIRST_RATIO, so not first touch */
    CHECK(r && r->verdict == MH_VERDICT_LATENCY && isnan(r->why.first_ns));
    r = row(&rep, "nocounters"); /* no roofs and nothing else wrong: no verdict */
    CHECK(r && r->verdict == MH_VERDICT_UNKNOWN && isnan(r->why.frac_bw_roof));
    r = row(&rep, "nocounters_tiny"); /* the grid needs no counters */
    CHECK(r && r->verdict == MH_VERDICT_SMALL_GRID);
    r = row(&rep, "full_wave"); /* 0.97 waves of 1 block per SM: far below the roofs, latency */
    CHECK(r && r->verdict == MH_VERDICT_LATENCY);
    if (r) CHECK_NEAR_REL(r->why.waves, 128.0 / 132.0, 1e-12);
    r = row(&rep, "half_idle"); /* 60 blocks on 132 SMs */
    CHECK(r && r->verdict == MH_VERDICT_SMALL_GRID);
    r = row(&rep, "noflops"); /* far below the bandwidth roof, compute roof unknown: no verdict */
    CHECK(r && r->verdict == MH_VERDICT_UNKNOWN && isfinite(r->why.frac_bw_roof) &&
          isnan(r->why.frac_compute_roof) && isnan(r->s.flops_sp));

    /* notes name the cause with its figures */
    char note[768];
    mh_verdict_note(&row(&rep, "tiny_grid")->why, note, sizeof note);
    CHECK(strstr(note, "grid too small to fill the GPU") && strstr(note, "16 blocks") && strstr(note, "5.0%"));
    mh_verdict_note(&row(&rep, "launchy")->why, note, sizeof note);
    CHECK(strstr(note, "launch cost dominates") && strstr(note, "3 us"));
    mh_verdict_note(&row(&rep, "first")->why, note, sizeof note);
    CHECK(strstr(note, "first touch of fresh allocations") && strstr(note, "500 us") && strstr(note, "60%"));
    mh_verdict_note(&row(&rep, "saturate")->why, note, sizeof note);
    CHECK(strstr(note, "80% of the bandwidth roof") && strstr(note, "800 us per launch at the roof against 1 ms"));
    mh_verdict_note(&row(&rep, "latency")->why, note, sizeof note);
    CHECK(strstr(note, "17.8 KB in flight per SM needed") && strstr(note, "889 B kept") &&
          strstr(note, "achieved occupancy 50%")); /* 3352 GB/s x 700 ns / 132 SMs; 5% of it */

    /* JSON (the timing file's analysis) */
    json_t *j = mh_bw_report_json(&rep);
    CHECK(j != NULL);
    size_t i;
    json_t *k, *tiny = NULL;
    json_array_foreach(json_object_get(j, "kernels"), i, k) if (!strcmp(json_string_value(json_object_get(k, "name")),
                                                                        "tiny_grid")) tiny = k;
    CHECK(tiny && !strcmp(json_string_value(json_object_get(tiny, "verdict")), "small-grid"));
    json_t *fig = tiny ? json_object_get(tiny, "verdict_figures") : NULL;
    CHECK(fig && json_is_real(json_object_get(fig, "waves")) &&
          json_integer_value(json_object_get(fig, "blocks")) == 16 &&
          strstr(json_string_value(json_object_get(fig, "note")), "grid too small"));
    json_decref(j);

    /* terminal table: a reason line under the row */
    char path[1200];
    snprintf(path, sizeof path, "%s/verdict-table.txt", dir);
    FILE *f = fopen(path, "w+");
    CHECK(f != NULL);
    if (f) {
        mh_bw_report_print(f, &rep, 100);
        rewind(f);
        char buf[16384];
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        buf[n] = '\0';
        fclose(f);
        CHECK(strstr(buf, "  small-grid: ") && strstr(buf, "  launch-bound: ") && strstr(buf, "  first-touch: "));
        /* an unknown verdict with counters says what is missing; one without counters prints no line */
        CHECK(strstr(buf, "  unknown: 5.0% of the bandwidth roof, ? of the compute roof; compute roof unknown") != NULL);
        const char *u = strstr(buf, "  unknown: ");
        CHECK(u && !strstr(u + 1, "  unknown: "));
    }
    mh_bw_report_free(&rep);
    mh_timing_free(&t);
}

/* The profile: bound and the verdict's figures per kernel; a profile without
 * the verdict column (written before it) still reads. */
static void test_profile(void) {
    mh_timing t;
    build(&t);
    char path[1200];
    snprintf(path, sizeof path, "%s/verdict.mhdb", dir);
    mh_db *db;
    mh_err err = {0};
    CHECK(mh_db_create(&db, path, 1, &err) == MH_OK);
    mh_db_timing_in in = {&t, NULL, NULL};
    CHECK(mh_db_import_timing_loaded(db, &in, &err) == MH_OK);
    json_t *s = NULL;
    CHECK(mh_db_read_summary(db, &s, &err) == MH_OK);
    mh_db_close(db);
    size_t i;
    json_t *k;
    int seen = 0;
    json_array_foreach(json_object_get(s, "kernels"), i, k) {
        const char *name = json_string_value(json_object_get(k, "name"));
        const char *bound = json_string_value(json_object_get(k, "bound"));
        json_t *v = json_object_get(k, "verdict");
        if (!strcmp(name, "tiny_grid")) {
            seen++;
            CHECK(bound && !strcmp(bound, "small-grid"));
            CHECK(json_is_object(v) && json_integer_value(json_object_get(v, "blocks")) == 16);
            CHECK_NEAR_REL(json_real_value(json_object_get(v, "waves")), 16.0 / (132 * 8), 1e-5);
        } else if (!strcmp(name, "first")) {
            seen++;
            CHECK(bound && !strcmp(bound, "first-touch"));
        } else if (!strcmp(name, "nocounters")) {
            seen++;
            CHECK(bound == NULL && json_is_object(v));
        }
    }
    CHECK(seen == 3);
    json_decref(s);

    /* the same profile as written before the column: drop it, read again */
    sqlite3 *h;
    CHECK(sqlite3_open(path, &h) == SQLITE_OK);
    CHECK(sqlite3_exec(h, "ALTER TABLE kernel DROP COLUMN verdict", NULL, NULL, NULL) == SQLITE_OK);
    sqlite3_close(h);
    CHECK(mh_db_open(&db, path, 0, &err) == MH_OK);
    s = NULL;
    CHECK(mh_db_read_summary(db, &s, &err) == MH_OK);
    mh_db_close(db);
    json_t *k0 = json_array_get(json_object_get(s, "kernels"), 0);
    CHECK(k0 && json_is_null(json_object_get(k0, "verdict")) && json_is_string(json_object_get(k0, "bound")));
    json_decref(s);
    mh_timing_free(&t);
}

int main(int argc, char **argv) {
    snprintf(dir, sizeof dir, "%s", argc > 1 ? argv[1] : ".");
    static const mh_test_case cases[] = {T(test_blocks_per_sm), T(test_verdicts), T(test_profile)};
    return mh_test_run(cases, sizeof cases / sizeof cases[0]);
}
