/* make_profile.c -- writes profiles of known content for the report tests and
 * the report benchmark, through the real pipeline: a trace file (synthetic
 * shapes, hostile names, or one huge map) and a timing JSON file are written
 * with the trace and timing writers, then imported with mh_db_import_trace.
 *
 *   make_profile synth   OUT.mhdb   all CUTHERMO shapes + a timing pass of them
 *   make_profile hostile OUT.mhdb   names built to break HTML/JSON/<script>
 *   make_profile big     OUT.mhdb N one launch, N distinct sectors (no folding,
 *                                   no periodic pattern: the report's worst case)
 *   make_profile periodic OUT.mhdb  strided rows that fold into repeating patterns,
 *                                   a timing pass with idle gaps and a pageable-speed copy
 *
 * The synth profile also gets a partition-camping band for "strided" (the
 * band arithmetic is camp.h's; the lines here are made up: best 1 + w/64 ms,
 * worst 4x best, measured 2 ms at 32 warps -> degree (2 - 1.5)/(6 - 1.5)).
 *
 * The hostile profile's known heat map (global object at 0x1000):
 *   tag 0x80:      warps 0..7 each read word w   -> words 1 x 8, sector 8
 *   tags 0x81-83:  warp 0 reads every word       -> words 1 x 8, sector 1 (one row x3)
 *   tag 0x84:      warps 0..31 read every word   -> words 32 x 8, sector 32
 *
 * The periodic profile (kernel "periodic", 8 warps, global objects):
 *   "a" at 0x10000: warp i % 8 reads word 0 of sector 4i, i < 128
 *       -> one row (words 1 0 .. 0, sector 1) repeating every 4 sectors, 127 more times
 *   "b" at 0x20000: sector 8i, i < 64: warp 0 reads word 0; when i is odd warp 1 reads word 1 too
 *       -> two rows repeating every 16 sectors, 31 more times
 * "a" is read at pc 0x100, attributed to periodic_src.cu:3 (a relative path: the
 * report test writes that file); "b" at pc 0x200, which has no source line.
 * Its timing: kernels of 10 us with 10 us gaps, a 4 MiB DtoH copy at 2.5 GB/s (1677.7 us).
 *
 *   make_profile kinds OUT.mhdb     loads, stores and atomics apart (kernel "kinds", 8 warps):
 *     global "data" at 0x10000, sectors (tags 0x800..):
 *       +0   every warp loads every word     -> words 8, sector 8, kinds LLLLLLLL
 *       +1   every warp stores every word    -> the same temperatures, kinds SSSSSSSS (not folded with +0)
 *       +2   every warp atomically adds to word 0 -> words 8 0 .. 0, kinds A.......
 *       +3   warp 0 loads and stores word 0, loads word 1 -> kinds ML......
 *       +4..+6 warp 0 loads every word       -> one row x3 (LLLLLLLL)
 *     shared "tile" (4 KiB): pc 0x300, warp 0 stores tile[32 * lane] (a [32][32] column:
 *     32 words in bank 0, degree 32); pc 0x310, warp 0 loads tile[lane] (conflict free)
 *
 *   make_profile ranks OUT.mhdb     three processes (ranks 0, 1, 2; the view by rank):
 *     kernel "scale": "a" read as periodic's "a" (strided) on every rank: same heat map everywhere
 *     kernel "gather": "b" as periodic's "b" on every rank; rank 1 also reads "c" like "a"
 *       -> a finding on "c" on rank 1 only, and gather's heat map differs on rank 1
 *     timing: rank 1 runs every kernel 3x slower than ranks 0 and 2
 *
 *   make_profile latency OUT.mhdb   three kernels of 4 blocks x 8 warps (one block per SM of the
 *     test GPU's 4: 8 warps resident), each traced once with 8 loads and timed 5 times at 40 us,
 *     far above their memory pipes: "lat_plain" (no FP counters), "cutlass_sgemm_nn" (dense math,
 *     no FP counters) and "lat_fp" (FP32 instructions counted: 36 us a launch at the test GPU's
 *     1.024 TFLOP/s); and "lat_plain" again in a second configuration, 8 blocks (16 warps
 *     resident), traced once and timed 5 times
 *
 *   make_profile chain OUT.mhdb     a loop of six 3-us kernels with names of 300 characters
 *     ("chain_k<i>_" and x's), launched back to back on one stream, 20 trips (no trace)
 *
 *   make_profile advice OUT.mhdb    library kernels the advice table names (no trace): an FP32 cuBLAS
 *     GEMM (4 launches of 100 us, 8 blocks), an FP32 CUTLASS SIMT SGEMM (2 of 50 us) and a TF32
 *     GEMM (3 of 20 us)
 *   make_profile advice_torch OUT.mhdb   the same in a PyTorch program: also ATen's fill kernel (one
 *     launch of 2 us) and a foreach kernel on a grid of 1 block (5 launches of 30 us) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyses/camp.h"
#include "import/import.h"
#include "store/store.h"
#include "collectors/synth.h"
#include "memheat/timing.h"
#include "memheat/trace.h"

#define HOSTILE_KERNEL "</script><script>window.__pwned=1</script>"
#define HOSTILE_DISPLAY "k<!--x\xe2\x80\xa8y\xe2\x80\xa9&amp;\"q\"'a'</SCRIPT >"
#define HOSTILE_LABEL "<img src=x onerror=\"window.__pwned=2\">"

static int fail(const mh_err *e) {
    fprintf(stderr, "make_profile: %s\n", e->msg);
    return 1;
}

/* A timing file's start: the test GPU, a device with a known peak (1 GHz x
 * 256 bit x 2 = 64 GB/s; 4 SMs of cc 9.0 at 1 GHz: 1.024 TFLOP/s FP32). */
static int test_timing(mh_timing *t) {
    mh_timing_init(t);
    snprintf(t->producer, sizeof t->producer, "make_profile");
    mh_timing_device d;
    memset(&d, 0, sizeof d);
    snprintf(d.name, sizeof d.name, "Test GPU <64 GB/s>");
    d.cc_major = 9;
    d.sm_count = 4;
    d.sm_clock_khz = 1000000;
    d.mem_clock_khz = 1000000;
    d.bus_width_bits = 256;
    d.max_threads_per_sm = 2048;
    return mh_timing_add_device(t, &d) < 0 ? MH_ERR_NOMEM : MH_OK;
}

/* A synthetic trace header (warps of 32, sectors of 32 bytes). */
static mh_trace_header test_header(const char *producer, const char *command) {
    mh_trace_header h;
    memset(&h, 0, sizeof h);
    h.producer = producer;
    h.command = command;
    h.device.name = "synthetic";
    h.device.warp_size = 32;
    h.device.sector_size = 32;
    return h;
}

/* A timing file for the given kernel names: 3 launches each on the test GPU
 * and copies around them. */
static int write_timing_x(const char *path, const char *const *names, int n, int slow, uint64_t times, mh_err *err) {
    mh_timing t;
    if (test_timing(&t) != MH_OK) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    uint64_t clock = 1000;
    mh_timing_copy *c = mh_timing_add_copy(&t);
    c->kind = MH_COPY_HTOD;
    c->start_ns = clock;
    c->end_ns = clock += 50000;
    c->bytes = 1 << 20;
    for (int r = 0; r < 3; r++) {
        for (int i = 0; i < n; i++) {
            mh_timing_kernel *k = mh_timing_add_kernel(&t, names[i]);
            if (!k) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
            uint64_t dur = (10000u * (uint64_t)(i + 1) + 1000u * (uint64_t)r) * times; /* kernel i: ~(i+1)*10 us */
            k->start_ns = clock;
            k->end_ns = clock += dur;
            k->grid[0] = k->grid[1] = k->grid[2] = 1;
            k->block[0] = 256;
            k->block[1] = k->block[2] = 1;
            k->has_counters = 1;
            mh_timing_counters_clear(&k->c);
            /* half of the peak: bytes = 32 B/ns * dur */
            k->c.dram_read_bytes = 16.0 * (double)dur;
            k->c.dram_write_bytes = 16.0 * (double)dur;
            k->c.ld_requests = 1000;
            k->c.ld_sectors = 4000 * (double)(i + 1);
            k->c.st_requests = 1000;
            k->c.st_sectors = 4000;
            k->c.flops_sp = 10.0 * (double)dur;
            k->c.flops_dp = 0;
            k->c.occupancy_pct = 50;
            k->c.warps_per_sm = 32;
            clock += slow ? 10000 : 2000;
        }
    }
    c = mh_timing_add_copy(&t);
    c->kind = MH_COPY_DTOH;
    c->start_ns = clock;
    c->end_ns = clock += slow ? 1677722 : 40000; /* slow: 4 MiB at 2.5 GB/s (pageable host memory) */
    c->bytes = slow ? 4u << 20 : 1u << 20;
    t.counters.requested = 1;
    snprintf(t.counters.status, sizeof t.counters.status, "ok");
    mh_timing_sort(&t);
    int rc = mh_timing_save(&t, NULL, path, err);
    mh_timing_free(&t);
    return rc;
}

#define LAT_KERNELS 4
static const char *const lat_names[LAT_KERNELS] = {"lat_plain", "cutlass_sgemm_nn", "lat_fp", "lat_plain"};
static const uint32_t lat_grid[LAT_KERNELS] = {4, 4, 4, 8};

static int write_latency(const char *trace, const char *timing, mh_err *err) {
    mh_trace_header h = test_header("make_profile latency", "latency");
    mh_trace_writer *w;
    int rc = mh_trace_create(&w, trace, &h, NULL, err);
    if (rc) return rc;
    mh_alloc a = {.id = 0, .launch = MH_TRACE_NO_LAUNCH, .base = 0x10000, .size = 1 << 16,
                  .space = MH_SPACE_GLOBAL, .label = "a"};
    rc = mh_trace_write_alloc(w, &a, err);
    for (uint32_t k = 0; k < LAT_KERNELS && !rc; k++) {
        mh_launch l;
        memset(&l, 0, sizeof l);
        l.id = k;
        l.name = l.display_name = lat_names[k];
        l.grid = (mh_dim3){lat_grid[k], 1, 1};
        l.block = (mh_dim3){256, 1, 1};
        l.regs = 32;
        uint32_t b0 = 0;
        l.n_sampled = 1;
        l.sampled = &b0;
        if ((rc = mh_trace_write_launch(w, &l, err))) break;
        for (uint32_t t = 0; t < 8 && !rc; t++) {
            mh_access x = {.addr = a.base + 4 * t, .pc = 0x100, .launch = k, .block = 0, .seq = 0,
                           .thread = (uint16_t)t, .size = 4, .flags = MH_ACCESS_FLAGS(MH_KIND_LOAD, MH_SPACE_GLOBAL)};
            rc = mh_trace_write_accesses(w, &x, 1, err);
        }
        mh_kernel_end e = {.launch = k, .recorded = 8};
        if (!rc) rc = mh_trace_write_kernel_end(w, &e, err);
    }
    if (rc) {
        mh_trace_abandon(w);
        return rc;
    }
    if ((rc = mh_trace_close(w, err))) return rc;

    mh_timing t;
    if (test_timing(&t) != MH_OK) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    uint64_t clock = 1000, dur = 40000;
    for (int r = 0; r < 5; r++)
        for (int i = 0; i < LAT_KERNELS; i++) {
            mh_timing_kernel *k = mh_timing_add_kernel(&t, lat_names[i]);
            if (!k) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
            k->start_ns = clock;
            k->end_ns = clock += dur;
            clock += 30000;
            k->grid[0] = lat_grid[i];
            k->grid[1] = k->grid[2] = 1;
            k->block[0] = 256;
            k->block[1] = k->block[2] = 1;
            k->regs = 32;
            k->has_counters = 1;
            mh_timing_counters_clear(&k->c);
            k->c.dram_read_bytes = k->c.dram_write_bytes = 4096;
            k->c.occupancy_pct = 12.5;
            k->c.warps_per_sm = 8;
            if (i == 2) k->c.flops_sp = 36000.0 * 1024.0; /* 36 us of the FP32 pipes at 1,024 per ns */
        }
    t.counters.requested = 1;
    snprintf(t.counters.status, sizeof t.counters.status, "ok");
    mh_timing_sort(&t);
    rc = mh_timing_save(&t, NULL, timing, err);
    mh_timing_free(&t);
    return rc;
}

#define CHAIN_KERNELS 6
#define CHAIN_NAME 300

static int write_chain(const char *trace, const char *timing, mh_err *err) {
    mh_trace_header h = test_header("make_profile chain", "chain");
    mh_trace_writer *w;
    int rc = mh_trace_create(&w, trace, &h, NULL, err);
    if (rc || (rc = mh_trace_close(w, err))) return rc;
    char names[CHAIN_KERNELS][CHAIN_NAME + 1];
    for (int i = 0; i < CHAIN_KERNELS; i++) {
        memset(names[i], 'x', CHAIN_NAME);
        names[i][CHAIN_NAME] = '\0';
        memcpy(names[i], "chain_k", 7);
        names[i][7] = (char)('0' + i);
    }
    mh_timing t;
    if (test_timing(&t) != MH_OK) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    uint64_t clock = 1000;
    for (int r = 0; r < 20; r++)
        for (int i = 0; i < CHAIN_KERNELS; i++) {
            mh_timing_kernel *k = mh_timing_add_kernel(&t, names[i]);
            if (!k) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
            k->start_ns = clock;
            k->end_ns = clock + 3000;
            clock += 5000; /* launched every 5 us */
            k->grid[0] = 64;
            k->grid[1] = k->grid[2] = 1;
            k->block[0] = 256;
            k->block[1] = k->block[2] = 1;
            k->stream = 7;
        }
    mh_timing_sort(&t);
    rc = mh_timing_save(&t, NULL, timing, err);
    mh_timing_free(&t);
    return rc;
}

#define ADVICE_KERNELS 5
static const char *const advice_names[ADVICE_KERNELS] = {
    "sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x8_stage3_warpsize2x2x1_ffma_aligna4_alignc4_execute_kernel"
    "__5x_cublas",
    "_ZN7cutlass7Kernel2I43cutlass_80_simt_sgemm_128x128_8x4_nn_align1EEvNT_6ParamsE",
    "sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas",
    "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEESt5arrayIPcLm1EEEEviT0_T1_",
    "at::native::(anonymous namespace)::multi_tensor_apply_kernel<TensorListMetadata<2>>"};
static const uint32_t advice_launches[ADVICE_KERNELS] = {4, 2, 3, 1, 5};
static const uint64_t advice_ns[ADVICE_KERNELS] = {100000, 50000, 20000, 2000, 30000};
static const uint32_t advice_grid[ADVICE_KERNELS] = {8, 8, 8, 8, 1};

static int write_advice(const char *trace, const char *timing, int torch, mh_err *err) {
    mh_trace_header h = test_header("make_profile advice", torch ? "advice_torch" : "advice");
    mh_trace_writer *w;
    int rc = mh_trace_create(&w, trace, &h, NULL, err);
    if (rc || (rc = mh_trace_close(w, err))) return rc;
    mh_timing t;
    if (test_timing(&t) != MH_OK) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    uint64_t clock = 1000;
    for (int i = 0; i < (torch ? ADVICE_KERNELS : 3); i++)
        for (uint32_t r = 0; r < advice_launches[i]; r++) {
            mh_timing_kernel *k = mh_timing_add_kernel(&t, advice_names[i]);
            if (!k) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
            k->start_ns = clock;
            k->end_ns = clock += advice_ns[i];
            clock += 100000; /* far apart: no launch chain */
            k->grid[0] = advice_grid[i];
            k->grid[1] = k->grid[2] = 1;
            k->block[0] = 256;
            k->block[1] = k->block[2] = 1;
        }
    mh_timing_sort(&t);
    rc = mh_timing_save(&t, NULL, timing, err);
    mh_timing_free(&t);
    return rc;
}

static int write_timing(const char *path, const char *const *names, int n, int slow, mh_err *err) {
    return write_timing_x(path, names, n, slow, 1, err);
}

static int put_acc_pc(mh_trace_writer *w, uint64_t addr, uint32_t thread, uint32_t seq, uint64_t pc, mh_err *err) {
    mh_access a;
    memset(&a, 0, sizeof a);
    a.addr = addr;
    a.pc = pc;
    a.launch = 0;
    a.block = 0;
    a.seq = seq;
    a.thread = (uint16_t)thread;
    a.size = 4;
    a.flags = MH_ACCESS_FLAGS(MH_KIND_LOAD, MH_SPACE_GLOBAL);
    return mh_trace_write_accesses(w, &a, 1, err);
}

static int put_acc(mh_trace_writer *w, uint64_t addr, uint32_t thread, uint32_t seq, mh_err *err) {
    return put_acc_pc(w, addr, thread, seq, 0x100, err);
}

static int write_hostile(const char *path, mh_err *err) {
    mh_trace_header h;
    memset(&h, 0, sizeof h);
    h.producer = "make_profile <hostile>";
    h.command = "prog '</script><!--' \xe2\x80\xa8";
    h.note = "<b>note</b>";
    h.device.name = "<i>dev</i>";
    h.device.warp_size = 32;
    h.device.sector_size = 32;
    mh_trace_writer *w;
    int rc = mh_trace_create(&w, path, &h, NULL, err);
    if (rc) return rc;
    mh_launch l;
    memset(&l, 0, sizeof l);
    l.id = 0;
    l.name = HOSTILE_KERNEL;
    l.display_name = HOSTILE_DISPLAY;
    l.grid = (mh_dim3){1, 1, 1};
    l.block = (mh_dim3){1024, 1, 1};
    l.n_sampled = MH_TRACE_ALL_BLOCKS;
    mh_alloc a = {.id = 0, .launch = MH_TRACE_NO_LAUNCH, .base = 0x1000, .size = 256,
                  .space = MH_SPACE_GLOBAL, .label = HOSTILE_LABEL};
    if ((rc = mh_trace_write_alloc(w, &a, err)) || (rc = mh_trace_write_launch(w, &l, err))) goto out;
    for (uint32_t wp = 0; wp < 8 && !rc; wp++) rc = put_acc(w, 0x1000 + 4 * wp, wp * 32, 0, err);
    for (uint32_t s = 1; s <= 3; s++)
        for (uint32_t wd = 0; wd < 8 && !rc; wd++) rc = put_acc(w, 0x1000 + 32 * s + 4 * wd, wd, s, err);
    for (uint32_t wp = 0; wp < 32; wp++)
        for (uint32_t wd = 0; wd < 8 && !rc; wd++) rc = put_acc(w, 0x1000 + 32 * 4 + 4 * wd, wp * 32 + wd, 5, err);
    if (rc) goto out;
    mh_kernel_end e = {.launch = 0, .recorded = 8 + 24 + 256, .dropped = 0, .gpu_ns = 0};
    if ((rc = mh_trace_write_kernel_end(w, &e, err))) goto out;
    return mh_trace_close(w, err);
out:
    mh_trace_abandon(w);
    return rc;
}

/* Strided rows that fold into repeating patterns (see the header). */
static int write_periodic(const char *path, mh_err *err) {
    mh_trace_header h;
    memset(&h, 0, sizeof h);
    h.producer = "make_profile periodic";
    h.command = "periodic";
    h.device.name = "synthetic";
    h.device.warp_size = 32;
    h.device.sector_size = 32;
    mh_trace_writer *w;
    int rc = mh_trace_create(&w, path, &h, NULL, err);
    if (rc) return rc;
    mh_launch l;
    memset(&l, 0, sizeof l);
    l.name = l.display_name = "periodic";
    l.grid = (mh_dim3){1, 1, 1};
    l.block = (mh_dim3){256, 1, 1};
    l.n_sampled = MH_TRACE_ALL_BLOCKS;
    mh_alloc a = {.id = 0, .launch = MH_TRACE_NO_LAUNCH, .base = 0x10000, .size = 128 * 4 * 32,
                  .space = MH_SPACE_GLOBAL, .label = "a"};
    mh_alloc b = {.id = 1, .launch = MH_TRACE_NO_LAUNCH, .base = 0x20000, .size = 64 * 8 * 32,
                  .space = MH_SPACE_GLOBAL, .label = "b"};
    if ((rc = mh_trace_write_alloc(w, &a, err)) || (rc = mh_trace_write_alloc(w, &b, err)) ||
        (rc = mh_trace_write_launch(w, &l, err)))
        goto out;
    mh_pcinfo pi = {.pc = 0x100, .function = "periodic", .file = "periodic_src.cu", .line = 3};
    if ((rc = mh_trace_write_pcinfo(w, &pi, err))) goto out;
    uint32_t n = 0;
    for (uint32_t i = 0; i < 128 && !rc; i++, n++) rc = put_acc(w, a.base + 32 * 4 * i, (i % 8) * 32, i, err);
    for (uint32_t i = 0; i < 64 && !rc; i++) {
        rc = put_acc_pc(w, b.base + 32 * 8 * i, 0, 200 + i, 0x200, err);
        n++;
        if (!rc && i % 2) {
            rc = put_acc_pc(w, b.base + 32 * 8 * i + 4, 32, 300 + i, 0x200, err);
            n++;
        }
    }
    if (rc) goto out;
    mh_kernel_end e = {.launch = 0, .recorded = n};
    if ((rc = mh_trace_write_kernel_end(w, &e, err))) goto out;
    return mh_trace_close(w, err);
out:
    mh_trace_abandon(w);
    return rc;
}

/* One process of the ranks profile (see the header). */
static int write_rank(const char *path, int rank, mh_err *err) {
    mh_trace_header h;
    memset(&h, 0, sizeof h);
    h.producer = "make_profile ranks";
    h.command = "ranks";
    h.device.name = "synthetic";
    h.device.warp_size = 32;
    h.device.sector_size = 32;
    mh_trace_writer *w;
    int rc = mh_trace_create(&w, path, &h, NULL, err);
    if (rc) return rc;
    mh_process pr = {.pid = 100u + (uint64_t)rank, .ppid = 1, .rank = rank, .local_rank = rank, .world_size = 3,
                     .ompi_rank = -1, .pmi_rank = -1, .slurm_procid = -1, .host = "node0", .command = "ranks"};
    mh_alloc a = {.id = 0, .launch = MH_TRACE_NO_LAUNCH, .base = 0x10000, .size = 128 * 4 * 32,
                  .space = MH_SPACE_GLOBAL, .label = "a"};
    mh_alloc b = {.id = 1, .launch = MH_TRACE_NO_LAUNCH, .base = 0x20000, .size = 64 * 8 * 32,
                  .space = MH_SPACE_GLOBAL, .label = "b"};
    mh_alloc c = {.id = 2, .launch = MH_TRACE_NO_LAUNCH, .base = 0x40000, .size = 128 * 4 * 32,
                  .space = MH_SPACE_GLOBAL, .label = "c"};
    if ((rc = mh_trace_write_process(w, &pr, err)) || (rc = mh_trace_write_alloc(w, &a, err)) ||
        (rc = mh_trace_write_alloc(w, &b, err)) || (rc = mh_trace_write_alloc(w, &c, err)))
        goto out;
    for (uint32_t id = 0; id < 2 && !rc; id++) {
        mh_launch l;
        memset(&l, 0, sizeof l);
        l.id = id;
        l.name = l.display_name = id ? "gather" : "scale";
        l.grid = (mh_dim3){1, 1, 1};
        l.block = (mh_dim3){256, 1, 1};
        l.n_sampled = MH_TRACE_ALL_BLOCKS;
        if ((rc = mh_trace_write_launch(w, &l, err))) break;
        mh_access x;
        memset(&x, 0, sizeof x);
        x.launch = id;
        x.size = 4;
        x.pc = 0x100 + id;
        x.flags = MH_ACCESS_FLAGS(MH_KIND_LOAD, MH_SPACE_GLOBAL);
        uint32_t n = 0;
        for (uint32_t i = 0; i < 128 && !rc && (id == 0 || rank == 1); i++, n++) {
            x.addr = (id ? c.base : a.base) + 32 * 4 * i;
            x.thread = (uint16_t)((i % 8) * 32);
            x.seq = i;
            rc = mh_trace_write_accesses(w, &x, 1, err);
        }
        for (uint32_t i = 0; i < 64 && !rc && id == 1; i++) {
            x.pc = 0x200;
            x.addr = b.base + 32 * 8 * i;
            x.thread = 0;
            x.seq = 200 + i;
            rc = mh_trace_write_accesses(w, &x, 1, err);
            n++;
            if (!rc && i % 2) {
                x.addr += 4;
                x.thread = 32;
                x.seq = 300 + i;
                rc = mh_trace_write_accesses(w, &x, 1, err);
                n++;
            }
        }
        mh_kernel_end e = {.launch = id, .recorded = n};
        if (!rc) rc = mh_trace_write_kernel_end(w, &e, err);
    }
    if (rc) goto out;
    return mh_trace_close(w, err);
out:
    mh_trace_abandon(w);
    return rc;
}

static int put_kind(mh_trace_writer *w, uint64_t addr, uint32_t thread, uint32_t seq, uint64_t pc, unsigned kind,
                    unsigned space, mh_err *err) {
    mh_access a;
    memset(&a, 0, sizeof a);
    a.addr = addr;
    a.pc = pc;
    a.seq = seq;
    a.thread = (uint16_t)thread;
    a.size = 4;
    a.flags = MH_ACCESS_FLAGS(kind, space);
    return mh_trace_write_accesses(w, &a, 1, err);
}

/* Loads, stores and atomics (see the header). */
static int write_kinds(const char *path, mh_err *err) {
    mh_trace_header h;
    memset(&h, 0, sizeof h);
    h.producer = "make_profile kinds";
    h.command = "kinds";
    h.device.name = "synthetic";
    h.device.warp_size = 32;
    h.device.sector_size = 32;
    mh_trace_writer *w;
    int rc = mh_trace_create(&w, path, &h, NULL, err);
    if (rc) return rc;
    mh_launch l;
    memset(&l, 0, sizeof l);
    l.name = l.display_name = "kinds";
    l.grid = (mh_dim3){1, 1, 1};
    l.block = (mh_dim3){256, 1, 1};
    l.dyn_smem = 4096;
    l.n_sampled = MH_TRACE_ALL_BLOCKS;
    mh_alloc d = {.id = 0, .launch = MH_TRACE_NO_LAUNCH, .base = 0x10000, .size = 7 * 32,
                  .space = MH_SPACE_GLOBAL, .label = "data"};
    mh_alloc t = {.id = 1, .launch = 0, .base = 0, .size = 4096, .space = MH_SPACE_SHARED, .label = "tile"};
    if ((rc = mh_trace_write_alloc(w, &d, err)) || (rc = mh_trace_write_alloc(w, &t, err)) ||
        (rc = mh_trace_write_launch(w, &l, err)))
        goto out;
    uint32_t n = 0, seq[256] = {0};
#define K(addr, th, pc, kind, space)                                                                                  \
    do {                                                                                                              \
        if (!rc) rc = put_kind(w, (addr), (th), seq[(th)]++, (pc), (kind), (space), err);                             \
        n++;                                                                                                          \
    } while (0)
    for (uint32_t wp = 0; wp < 8; wp++)
        for (uint32_t wd = 0; wd < 8; wd++) {
            K(d.base + 4 * wd, wp * 32 + wd, 0x100, MH_KIND_LOAD, MH_SPACE_GLOBAL);
            K(d.base + 32 + 4 * wd, wp * 32 + wd, 0x110, MH_KIND_STORE, MH_SPACE_GLOBAL);
        }
    for (uint32_t wp = 0; wp < 8; wp++) K(d.base + 64, wp * 32, 0x120, MH_KIND_ATOMIC, MH_SPACE_GLOBAL);
    K(d.base + 96, 0, 0x130, MH_KIND_LOAD, MH_SPACE_GLOBAL);
    K(d.base + 96, 0, 0x140, MH_KIND_STORE, MH_SPACE_GLOBAL);
    K(d.base + 100, 1, 0x130, MH_KIND_LOAD, MH_SPACE_GLOBAL);
    for (uint32_t s = 4; s < 7; s++)
        for (uint32_t wd = 0; wd < 8; wd++) K(d.base + 32 * s + 4 * wd, wd, 0x150, MH_KIND_LOAD, MH_SPACE_GLOBAL);
    for (uint32_t ln = 0; ln < 32; ln++) K(128u * ln, ln, 0x300, MH_KIND_STORE, MH_SPACE_SHARED);
    for (uint32_t ln = 0; ln < 32; ln++) K(4u * ln, ln, 0x310, MH_KIND_LOAD, MH_SPACE_SHARED);
#undef K
    if (rc) goto out;
    mh_kernel_end e = {.launch = 0, .recorded = n};
    if ((rc = mh_trace_write_kernel_end(w, &e, err))) goto out;
    return mh_trace_close(w, err);
out:
    mh_trace_abandon(w);
    return rc;
}

/* The ranks profile: one trace and timing file per rank, imported as one run of three processes. */
static int make_ranks(const char *out, mh_db_import_opts *io, mh_err *err) {
    char tr[3][4200], tm[3][4200];
    mh_db_import_proc procs[3];
    memset(procs, 0, sizeof procs);
    const char *names[2] = {"scale", "gather"};
    int rc = MH_OK;
    for (int r = 0; r < 3 && !rc; r++) {
        snprintf(tr[r], sizeof tr[r], "%s.%d.mht", out, r);
        snprintf(tm[r], sizeof tm[r], "%s.%d.timing.json", out, r);
        rc = write_rank(tr[r], r, err);
        if (!rc) rc = write_timing_x(tm[r], names, 2, 0, r == 1 ? 3 : 1, err);
        procs[r].trace_path = tr[r];
        procs[r].timing_path = tm[r];
        procs[r].pid = 100u + (uint64_t)r;
    }
    if (!rc) rc = mh_db_import_procs(out, io, procs, 3, err);
    for (int r = 0; r < 3; r++) {
        unlink(tr[r]);
        unlink(tm[r]);
    }
    return rc;
}

/* One launch whose global object has n sectors, neighbours never identical and
 * no repeating pattern (1 to 3 warps per sector on hashed words). */
static int write_big(const char *path, uint64_t n, mh_err *err) {
    mh_trace_header h;
    memset(&h, 0, sizeof h);
    h.producer = "make_profile big";
    h.command = "bigmap";
    h.device.name = "synthetic";
    h.device.warp_size = 32;
    h.device.sector_size = 32;
    mh_trace_writer *w;
    int rc = mh_trace_create(&w, path, &h, NULL, err);
    if (rc) return rc;
    mh_launch l;
    memset(&l, 0, sizeof l);
    l.name = l.display_name = "bigmap";
    l.grid = (mh_dim3){1, 1, 1};
    l.block = (mh_dim3){1024, 1, 1};
    l.n_sampled = MH_TRACE_ALL_BLOCKS;
    mh_alloc a = {.id = 0, .launch = MH_TRACE_NO_LAUNCH, .base = 1ull << 36, .size = n * 32,
                  .space = MH_SPACE_GLOBAL, .label = "big"};
    if ((rc = mh_trace_write_alloc(w, &a, err)) || (rc = mh_trace_write_launch(w, &l, err))) goto out;
    static mh_access buf[8192];
    size_t k = 0;
    uint64_t nacc = 0;
    for (uint64_t s = 0; s < n && !rc; s++) {
        /* sector s: warps hash..hash+j read hashed words; neighbours differ in their first word */
        uint64_t hs = (s + 1) * 0x9e3779b97f4a7c15ull;
        hs ^= hs >> 29;
        int nw = 1 + (int)((hs >> 40) % 3);
        for (int j = 0; j < nw; j++) {
            mh_access *x = &buf[k++];
            nacc++;
            memset(x, 0, sizeof *x);
            uint64_t word = j == 0 ? s % 8 : (hs >> (8 * j)) % 8;
            x->addr = a.base + s * 32 + 4 * word;
            x->thread = (uint16_t)(((hs >> (16 + 4 * j)) % 32 + (uint64_t)j) % 32 * 32);
            x->seq = (uint32_t)s;
            x->size = 4;
            x->flags = MH_ACCESS_FLAGS(MH_KIND_LOAD, MH_SPACE_GLOBAL);
        }
        if (k + 3 > sizeof buf / sizeof buf[0]) {
            rc = mh_trace_write_accesses(w, buf, k, err);
            k = 0;
        }
    }
    if (!rc && k) rc = mh_trace_write_accesses(w, buf, k, err);
    mh_kernel_end e = {.launch = 0, .recorded = nacc};
    if (!rc) rc = mh_trace_write_kernel_end(w, &e, err);
    if (rc) goto out;
    return mh_trace_close(w, err);
out:
    mh_trace_abandon(w);
    return rc;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: make_profile synth|hostile|periodic|kinds|ranks|latency|chain|advice|advice_torch|big OUT.mhdb [N]\n");
        return 2;
    }
    const char *mode = argv[1], *out = argv[2];
    char trace[4200], timing[4200];
    snprintf(trace, sizeof trace, "%s.mht", out);
    snprintf(timing, sizeof timing, "%s.timing.json", out);
    mh_err err = {0};
    int rc;
    char *prog_argv[] = {(char *)"./prog", (char *)mode, NULL};
    mh_db_import_opts io;
    memset(&io, 0, sizeof io);
    io.trace_path = trace;
    io.run.argv = prog_argv;
    io.run.backend = "synthetic";
    io.run.memheat_version = "test";
    io.run.exit_status = 0;
    if (strcmp(mode, "synth") == 0) {
        mh_synth_opts so;
        memset(&so, 0, sizeof so);
        so.shapes = (1u << (MH_SYNTH_SHARED_TILE + 1)) - 1; /* the CUTHERMO shapes (the report tests name them) */
        so.warps = 8;
        so.iters = 2;
        if ((rc = mh_synth_write(trace, &so, &err))) return fail(&err);
        const char *names[MH_SYNTH_SHARED_TILE + 1];
        for (int i = 0; i <= MH_SYNTH_SHARED_TILE; i++) names[i] = mh_synth_shape_name((unsigned)i);
        if ((rc = write_timing(timing, names, MH_SYNTH_SHARED_TILE + 1, 0, &err))) return fail(&err);
        io.timing_path = timing;
    } else if (strcmp(mode, "hostile") == 0) {
        if ((rc = write_hostile(trace, &err))) return fail(&err);
        const char *names[1] = {HOSTILE_KERNEL};
        if ((rc = write_timing(timing, names, 1, 0, &err))) return fail(&err);
        io.timing_path = timing;
        prog_argv[1] = (char *)"</script><!-- \xe2\x80\xa8";
    } else if (strcmp(mode, "periodic") == 0) {
        if ((rc = write_periodic(trace, &err))) return fail(&err);
        const char *names[1] = {"periodic"};
        if ((rc = write_timing(timing, names, 1, 1, &err))) return fail(&err);
        io.timing_path = timing;
    } else if (strcmp(mode, "chain") == 0) {
        if ((rc = write_chain(trace, timing, &err))) return fail(&err);
        io.timing_path = timing;
    } else if (strcmp(mode, "latency") == 0) {
        if ((rc = write_latency(trace, timing, &err))) return fail(&err);
        io.timing_path = timing;
    } else if (strcmp(mode, "advice") == 0 || strcmp(mode, "advice_torch") == 0) {
        if ((rc = write_advice(trace, timing, strcmp(mode, "advice") != 0, &err))) return fail(&err);
        io.timing_path = timing;
    } else if (strcmp(mode, "kinds") == 0) {
        if ((rc = write_kinds(trace, &err))) return fail(&err);
    } else if (strcmp(mode, "ranks") == 0) {
        io.trace_path = NULL;
        if ((rc = make_ranks(out, &io, &err))) return fail(&err);
        return 0;
    } else if (strcmp(mode, "big") == 0 && argc > 3) {
        if ((rc = write_big(trace, strtoull(argv[3], NULL, 10), &err))) return fail(&err);
    } else {
        fprintf(stderr, "make_profile: unknown mode %s\n", mode);
        return 2;
    }
    rc = mh_db_import_trace(out, 1, &io, &err);
    unlink(trace);
    if (io.timing_path) unlink(timing);
    if (rc) return fail(&err);
    if (strcmp(mode, "synth") == 0) {
        mh_camp_band b;
        memset(&b, 0, sizeof b);
        b.n = 64;
        for (int i = 0; i < b.n; i++) {
            b.warps[i] = i + 1;
            b.best[i] = 1.0 + (i + 1) / 64.0;
            b.worst[i] = 4.0 * b.best[i];
            b.kernel[i] = b.best[i] + (2.0 - 1.5) / (6.0 - 1.5) * (b.worst[i] - b.best[i]);
        }
        b.w0 = 32;
        b.t0 = 2.0;
        b.degree = (2.0 - 1.5) / (6.0 - 1.5);
        mh_db *db;
        if ((rc = mh_db_open(&db, out, MH_DB_WRITABLE, &err))) return fail(&err);
        rc = mh_db_put_camp(db, "strided", "Test GPU <64 GB/s>", &b, &err);
        mh_db_close(db);
        if (rc) return fail(&err);
    }
    return 0;
}
