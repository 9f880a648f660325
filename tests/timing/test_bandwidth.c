/* test_bandwidth.c -- the formulas of bandwidth.h on hand-computed cases:
 * theoretical peak (the blog's Tesla C2050: 1500 MHz x 384 bit x 2 = 144 GB/s),
 * effective bandwidth (SAXPY: N*4*3 bytes / t), roofline verdict, interval
 * union/exposure, copy/compute overlap, the OpenMPC model, a whole analysis
 * and the calibration store. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../mh_test.h"
#include "analyses/bandwidth.h"

static char dir[1024];

static void test_peaks(void) {
    mh_timing_device d = {0};
    d.mem_clock_khz = 1500000, d.bus_width_bits = 384; /* Tesla C2050, seed 003 */
    CHECK_NEAR_REL(mh_bw_theoretical_Bps(&d), 144e9, 1e-12);
    d.mem_clock_khz = 2619000, d.bus_width_bits = 5120; /* H100 SXM HBM3 attributes */
    CHECK_NEAR_REL(mh_bw_theoretical_Bps(&d), 2619e6 * 640 * 2, 1e-12);
    d.sm_count = 132, d.sm_clock_khz = 1980000, d.cc_major = 9, d.cc_minor = 0;
    CHECK_NEAR_REL(mh_bw_peak_flops(&d, 0), 132.0 * 128 * 2 * 1.98e9, 1e-12);
    CHECK_NEAR_REL(mh_bw_peak_flops(&d, 1), 132.0 * 64 * 2 * 1.98e9, 1e-12);
    CHECK(mh_bw_lanes_per_sm(8, 6, 0) == 128 && mh_bw_lanes_per_sm(8, 0, 0) == 64);
    CHECK(mh_bw_lanes_per_sm(3, 0, 0) == 0);
    mh_timing_device z = {0};
    CHECK(mh_bw_theoretical_Bps(&z) == 0);
}

static void test_effective(void) {
    /* SAXPY of the blog: N = 20 * 2^20, reads x and y, writes y: 12 N bytes */
    double N = 20.0 * 1024 * 1024;
    double t_ns = 2.5e6; /* 2.5 ms */
    CHECK_NEAR_REL(mh_bw_effective(8 * N, 4 * N, t_ns), N * 4 * 3 / 2.5e-3, 1e-12);
    CHECK_NEAR_REL(mh_bw_effective(8 * N, 4 * N, t_ns) / 1e9, 100.663296, 1e-9);
    CHECK(mh_bw_effective(100, 100, 0) == 0);
}

static void test_verdict(void) {
    /* peaks: 1 TB/s and 10 TFLOP/s -> ridge 10 flop/byte */
    CHECK(mh_bw_verdict(1e9, 1e9, 0, 1e12, 1e13, 5e12) == MH_BW_MEMORY);   /* AI 1 */
    CHECK(mh_bw_verdict(1e9, 1e11, 0, 1e12, 1e13, 5e12) == MH_BW_COMPUTE); /* AI 100 */
    CHECK(mh_bw_verdict(1e9, 9e9, 0, 1e12, 1e13, 5e12) == MH_BW_MEMORY);   /* AI 9, just below */
    /* FP64 runs at half rate: 6e9 dp flops need the time of 12e9 sp ones -> compute */
    CHECK(mh_bw_verdict(1e9, 0, 6e9, 1e12, 1e13, 5e12) == MH_BW_COMPUTE);
    CHECK(mh_bw_verdict(NAN, 1, 1, 1e12, 1e13, 5e12) == MH_BW_UNKNOWN);
    CHECK(mh_bw_verdict(1e9, 1e9, 0, 0, 1e13, 5e12) == MH_BW_UNKNOWN);
    CHECK(mh_bw_verdict(0, 0, 0, 1e12, 1e13, 5e12) == MH_BW_UNKNOWN);
    CHECK(strcmp(mh_bw_verdict_name(MH_BW_MEMORY), "memory-bound") == 0);
}

static void test_intervals(void) {
    mh_bw_iv u[] = {{40, 50}, {10, 20}, {15, 30}, {30, 35}, {60, 60}};
    CHECK(mh_bw_union_ns(u, 5) == 35); /* [10,35) + [40,50) */
    mh_bw_iv a[] = {{0, 12}, {25, 45}}, k[] = {{10, 20}, {15, 30}, {40, 50}};
    /* a minus kernels: [0,10) + [30,40) = 20 */
    CHECK(mh_bw_exposed_ns(a, 2, k, 3) == 20);
    mh_bw_iv b[] = {{50, 60}}, k2[] = {{10, 20}, {15, 30}, {40, 50}};
    CHECK(mh_bw_exposed_ns(b, 1, k2, 3) == 10); /* touching at 50 is not overlap */
    mh_bw_iv c[] = {{0, 100}}, k3[] = {{10, 20}, {30, 40}, {90, 200}};
    CHECK(mh_bw_exposed_ns(c, 1, k3, 3) == 10 + 10 + 50);
    mh_bw_iv d[] = {{5, 8}};
    CHECK(mh_bw_exposed_ns(d, 1, NULL, 0) == 3);
    CHECK(mh_bw_union_ns(NULL, 0) == 0);
}

static mh_timing_kernel *kern(mh_timing *t, const char *name, uint64_t s, uint64_t e) {
    mh_timing_kernel *k = mh_timing_add_kernel(t, name);
    k->start_ns = s, k->end_ns = e;
    return k;
}

static void copy(mh_timing *t, int kind, uint64_t s, uint64_t e, uint64_t bytes) {
    mh_timing_copy *c = mh_timing_add_copy(t);
    c->kind = kind, c->start_ns = s, c->end_ns = e, c->bytes = bytes;
}

static void test_overlap_and_model(void) {
    mh_timing t;
    mh_timing_init(&t);
    /* kernels [10,20) [15,30) [40,50); HtoD [0,12) [25,45); DtoH [50,60); a memset ignored */
    kern(&t, "k", 10, 20);
    kern(&t, "k", 15, 30);
    kern(&t, "k", 40, 50);
    copy(&t, MH_COPY_HTOD, 0, 12, 1000);
    copy(&t, MH_COPY_HTOD, 25, 45, 3000);
    copy(&t, MH_COPY_DTOH, 50, 60, 500);
    copy(&t, MH_COPY_MEMSET, 60, 70, 64);
    mh_bw_overlap o;
    mh_err err = {0};
    CHECK(mh_bw_overlap_of(&t, 0, &o, &err) == MH_OK);
    CHECK(o.span_ns == 70);
    CHECK(o.kernel_busy_ns == 30);
    CHECK(o.htod_ns == 32 && o.dtoh_ns == 10);
    CHECK(o.htod_exposed_ns == 20 && o.dtoh_exposed_ns == 10 && o.copy_exposed_ns == 30);
    CHECK(o.htod_bytes == 4000 && o.dtoh_bytes == 500);
    CHECK(o.busy_ns == 60); /* [0,60): kernels and copies together; the memset is not counted */
    CHECK(mh_bw_overlap_of(&t, 7, &o, &err) == MH_OK && o.kernel_busy_ns == 0 && o.span_ns == 0);

    mh_bw_pipeline p = mh_bw_openmpc(0, 4, 2, 6);
    CHECK_NEAR_REL(p.speedup, 12.0 / 6.0, 1e-15);
    p = mh_bw_openmpc(2, 3, 3, 3);
    CHECK_NEAR_REL(p.serial_ns, 11, 1e-15);
    CHECK_NEAR_REL(p.pipelined_ns, 5, 1e-15);
    CHECK_NEAR_REL(p.speedup, 2.2, 1e-15);
    p = mh_bw_openmpc(0, 5, 5, 5); /* three equal stages: the model's maximum, 3x */
    CHECK_NEAR_REL(p.speedup, 3.0, 1e-15);
    p = mh_bw_openmpc(0, 0, 0, 0);
    CHECK(p.speedup == 1.0);
    mh_timing_free(&t);
}

static void test_analyze(void) {
    mh_timing t;
    mh_timing_init(&t);
    mh_timing_device d = {0};
    snprintf(d.name, sizeof d.name, "Hand GPU");
    d.mem_clock_khz = 1000000, d.bus_width_bits = 512; /* 128 GB/s */
    d.sm_count = 10, d.sm_clock_khz = 1000000, d.cc_major = 9; /* 10*128*2*1e9 = 2.56 TFLOP/s */
    CHECK(mh_timing_add_device(&t, &d) == 0);
    t.measured_peak_Bps = 100e9;
    /* two launches of "copy": 1 ms each, 64 MB moved each -> 64 GB/s */
    for (int i = 0; i < 2; i++) {
        mh_timing_kernel *k = kern(&t, "copy", (uint64_t)i * 2000000, (uint64_t)i * 2000000 + 1000000);
        k->grid[0] = 4096, k->grid[1] = k->grid[2] = 1, k->block[0] = 256, k->block[1] = k->block[2] = 1;
        k->has_counters = 1;
        k->c.dram_read_bytes = 32e6, k->c.dram_write_bytes = 32e6;
        k->c.ld_requests = 1000, k->c.ld_sectors = 4000, k->c.st_requests = 1000, k->c.st_sectors = 16000;
        k->c.flops_sp = 0, k->c.flops_dp = 0;
        k->c.occupancy_pct = 80, k->c.warps_per_sm = 51.2;
    }
    /* "gemm": 1 ms, 1 MB, 2e9 flops -> AI 2000 > ridge 20 */
    mh_timing_kernel *g = kern(&t, "gemm", 5000000, 6000000);
    g->has_counters = 1;
    g->c.dram_read_bytes = 1e6, g->c.dram_write_bytes = 0, g->c.flops_sp = 2e9, g->c.flops_dp = 0;
    kern(&t, "nocounters", 7000000, 7000050); /* twice 50 ns, back to back: launch-bound needs two launches */
    kern(&t, "nocounters", 7000050, 7000100);
    copy(&t, MH_COPY_HTOD, 0, 500000, 1 << 20);
    mh_bw_report rep;
    mh_err err = {0};
    CHECK(mh_bw_analyze(&t, 0, &rep, &err) == MH_OK);
    CHECK(rep.ndevices == 1 && rep.nrows == 3);
    CHECK_NEAR_REL(rep.devices[0].theoretical_Bps, 128e9, 1e-12);
    CHECK_NEAR_REL(rep.devices[0].peak_flops_sp, 2.56e12, 1e-12);
    const mh_bw_row *r = &rep.rows[0];
    CHECK(strcmp(r->s.name, "copy") == 0 && r->s.count == 2);
    CHECK_NEAR_REL(r->eff_Bps, 64e9, 1e-12);
    CHECK_NEAR_REL(r->frac_theoretical, 0.5, 1e-12);
    CHECK_NEAR_REL(r->frac_measured, 0.64, 1e-12);
    CHECK_NEAR_REL(r->sectors_per_ld, 4.0, 1e-12);
    CHECK_NEAR_REL(r->sectors_per_st, 16.0, 1e-12);
    CHECK_NEAR_REL(r->s.occupancy_pct, 80, 1e-12);
    /* the roof it would hit is memory, but at 50% of it (under MH_VERDICT_ROOF_FRAC)
     * with 51 waves (4096 blocks / (10 SMs x 8)) the verdict is latency */
    CHECK(mh_bw_verdict(r->s.dram_bytes, r->s.flops_sp, r->s.flops_dp, 128e9, 2.56e12, 0) == MH_BW_MEMORY);
    CHECK(r->verdict == MH_VERDICT_LATENCY);
    CHECK_NEAR_REL(r->why.waves, 4096.0 / 80, 1e-12);
    CHECK_NEAR_REL(r->ridge, 20.0, 1e-12);
    r = &rep.rows[1];
    CHECK(strcmp(r->s.name, "gemm") == 0 && r->verdict == MH_BW_COMPUTE);
    CHECK_NEAR_REL(r->ai, 2000, 1e-12);
    CHECK_NEAR_REL(r->flops_per_s, 2e12, 1e-12);
    r = &rep.rows[2];
    /* no counters, no roofs; but 50 ns is far under the launch overhead (needs no counters) */
    CHECK(strcmp(r->s.name, "nocounters") == 0 && isnan(r->eff_Bps) && r->verdict == MH_VERDICT_LAUNCH);
    /* overlap: HtoD [0,0.5ms) overlaps the first copy kernel [0,1ms) completely */
    CHECK(rep.devices[0].overlap.copy_exposed_ns == 0 && rep.devices[0].overlap.htod_ns == 500000);
    CHECK_NEAR_REL(rep.devices[0].pipeline.compute_ns, 3000100, 1e-12);
    /* busy: [0,1ms) + [2,3) + [5,6) + [7ms, 7ms+100ns); pipelined = max(0.5 ms, 0, 3.0001 ms) */
    CHECK(rep.devices[0].overlap.busy_ns == 3000100);
    CHECK_NEAR_REL(rep.devices[0].pipeline.remaining, 1.0, 1e-12);

    json_t *j = mh_bw_report_json(&rep);
    CHECK(j != NULL);
    json_t *k0 = json_array_get(json_object_get(j, "kernels"), 0);
    CHECK(json_is_real(json_object_get(k0, "effective_Bps")));
    CHECK_NEAR_REL(json_real_value(json_object_get(k0, "effective_Bps")), 64e9, 1e-12);
    json_t *k2 = json_array_get(json_object_get(j, "kernels"), 2);
    CHECK(json_is_null(json_object_get(k2, "effective_Bps")));
    CHECK(strcmp(json_string_value(json_object_get(k0, "verdict")), "latency-bound") == 0);

    /* saved with the analysis and read back: the loader ignores "analysis" */
    char p[1200];
    snprintf(p, sizeof p, "%s/with-analysis.json", dir);
    CHECK(mh_timing_save(&t, j, p, &err) == MH_OK);
    mh_timing u;
    CHECK(mh_timing_load(&u, p, &err) == MH_OK && u.nkernels == 5 && u.measured_peak_Bps == 100e9);
    mh_timing_free(&u);
    FILE *devnull = fopen("/dev/null", "w");
    if (devnull) {
        mh_bw_report_print(devnull, &rep, 2);
        fclose(devnull);
    }
    json_decref(j);
    mh_bw_report_free(&rep);
    mh_timing_free(&t);
}

static void test_calibration(void) {
    char p[1200];
    snprintf(p, sizeof p, "%s/cal/sub/calibration.json", dir);
    remove(p);
    mh_err err = {0};
    double bps = -1;
    CHECK(mh_bw_calib_lookup(p, "GPU A", &bps, &err) == MH_OK && bps == 0);
    json_t *e = json_pack("{s:f, s:i}", "bandwidth_Bps", 3.0e12, "runs", 30);
    CHECK(mh_bw_calib_store(p, "GPU A", e, &err) == MH_OK);
    json_decref(e);
    e = json_pack("{s:f}", "bandwidth_Bps", 1.5e12);
    CHECK(mh_bw_calib_store(p, "GPU B", e, &err) == MH_OK);
    json_decref(e);
    CHECK(mh_bw_calib_lookup(p, "GPU A", &bps, &err) == MH_OK && bps == 3.0e12);
    CHECK(mh_bw_calib_lookup(p, "GPU B", &bps, &err) == MH_OK && bps == 1.5e12);
    CHECK(mh_bw_calib_lookup(p, "GPU C", &bps, &err) == MH_OK && bps == 0);
    e = json_pack("{s:s}", "nothing", "here");
    CHECK(mh_bw_calib_store(p, "GPU A", e, &err) == MH_ERR_ARG);
    json_decref(e);
    FILE *f = fopen(p, "w");
    if (f) {
        fputs("[1, 2", f);
        fclose(f);
    }
    CHECK(mh_bw_calib_lookup(p, "GPU A", &bps, &err) == MH_ERR_FORMAT);
    char q[1200];
    setenv("MEMHEAT_CALIBRATION", "/x/y.json", 1);
    CHECK(mh_bw_calib_default_path(q, sizeof q, &err) == MH_OK && strcmp(q, "/x/y.json") == 0);
    unsetenv("MEMHEAT_CALIBRATION");
    /* beside the camping models, in memheat's one data folder (util/datadir.h) */
    unsetenv("MEMHEAT_DATA_DIR");
    setenv("XDG_DATA_HOME", "/data", 1);
    CHECK(mh_bw_calib_default_path(q, sizeof q, &err) == MH_OK && strcmp(q, "/data/memheat/calibration.json") == 0);
    unsetenv("XDG_DATA_HOME");
}

/* A kernel none of whose launches has a clean time (traced, or queued on an
 * idle stream) has no time figure: null in the JSON, '-' in the table, and
 * the table says why; a kernel with some clean launches is timed over those. */
static void test_unmeasured(void) {
    mh_timing t;
    mh_timing_init(&t);
    mh_timing_device d;
    memset(&d, 0, sizeof d);
    snprintf(d.name, sizeof d.name, "Hand GPU");
    d.mem_clock_khz = 1000000, d.bus_width_bits = 512;
    CHECK(mh_timing_add_device(&t, &d) == 0);
    kern(&t, "gapped", 0, 9000)->timed = MH_TIMED_GAP;
    kern(&t, "gapped", 10000, 19000)->timed = MH_TIMED_GAP;
    kern(&t, "half", 20000, 21000);
    kern(&t, "half", 30000, 38000)->timed = MH_TIMED_GAP;
    mh_bw_report rep;
    mh_err err = {0};
    CHECK(mh_bw_analyze(&t, 0, &rep, &err) == MH_OK);
    json_t *j = mh_bw_report_json(&rep);
    CHECK(j != NULL);
    json_t *ks = json_object_get(j, "kernels");
    for (size_t i = 0; i < json_array_size(ks); i++) {
        json_t *k = json_array_get(ks, i);
        const char *nm = json_string_value(json_object_get(k, "name"));
        if (!strcmp(nm, "gapped")) {
            CHECK(json_is_null(json_object_get(k, "total_ns")) && json_is_null(json_object_get(k, "median_ns")));
            CHECK(json_integer_value(json_object_get(k, "unmeasured")) == 2);
            CHECK(json_integer_value(json_object_get(k, "count")) == 2);
        } else {
            CHECK(!strcmp(nm, "half") && json_integer_value(json_object_get(k, "total_ns")) == 1000);
            CHECK(json_integer_value(json_object_get(k, "unmeasured")) == 1);
        }
    }
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    CHECK(f != NULL);
    if (f) {
        mh_bw_report_print(f, &rep, 10);
        fclose(f);
        const char *row = strstr(text, "\ngapped ");
        CHECK(row != NULL);
        if (row) { /* count 2, then total, median and min all "-" */
            char name[32], tot[16], med[16], mn[16];
            unsigned cnt = 0;
            CHECK(sscanf(row + 1, "%31s %u %15s %15s %15s", name, &cnt, tot, med, mn) == 5);
            CHECK(cnt == 2 && !strcmp(tot, "-") && !strcmp(med, "-") && !strcmp(mn, "-"));
        }
        CHECK(strstr(text, "no clean time") != NULL);
        free(text);
    }
    json_decref(j);
    mh_bw_report_free(&rep);
    mh_timing_free(&t);
}

int main(int argc, char **argv) {
    snprintf(dir, sizeof dir, "%s", argc > 1 ? argv[1] : ".");
    static const mh_test_case cases[] = {T(test_peaks), T(test_effective), T(test_verdict), T(test_intervals),
                                         T(test_overlap_and_model), T(test_analyze), T(test_calibration),
                                         T(test_unmeasured)};
    return mh_test_run(cases, sizeof cases / sizeof cases[0]);
}
