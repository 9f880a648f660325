/* bench_analyses.c -- throughput and memory of `memheat analyze` (locality
 * metrics + heat maps + pattern detection) on a generated trace.
 *
 * The trace: 8 blocks of 256 threads (8 warps) issue, in warp-instruction
 * order as a GPU does, per step: a coalesced load of A, a false-sharing store
 * into B, a hot read of a 4 KiB table C, a shared-memory tile store and a
 * tile load (16 x 16 floats, 8-way bank conflict). A and B wrap around 4 MiB
 * each, so the distinct addresses stop growing after the first ~5 x 10^6
 * accesses: running with N and 4N shows whether memory follows distinct
 * addresses (it should stay flat) or trace length.
 *
 * Measured on one thread: the whole analysis (mh_analyze_file), locality
 * only, patterns only (heat maps included); then the whole analysis with
 * the default threads of `memheat analyze` (one worker per analysis). Prints accesses/s, the analyses' own
 * peak state bytes and the process's peak RSS.
 *
 * usage: bench_analyses [N] [trace-path] [--write-only]
 *   (default N = 10^7; trace kept if a path is given; --write-only: no passes) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "render/analyze.h"
#include "analyses/heat.h"
#include "pass/pass.h"
#include "memheat/trace.h"

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

#define WRAP (4u << 20)

static void make_batch(mh_access *v, size_t n, uint64_t *next) {
    for (size_t i = 0; i < n; i++) {
        uint64_t g = (*next)++;
        uint32_t lane = (uint32_t)(g % 32);
        uint64_t op = (g / 32) % 5, x = g / 160;
        uint32_t warp = (uint32_t)(x % 8), block = (uint32_t)((x / 8) % 8), step = (uint32_t)(x / 64);
        uint32_t t = warp * 32 + lane;
        uint64_t gt = (uint64_t)block * 256 + t, addr;
        unsigned space = MH_SPACE_GLOBAL, kind = MH_KIND_LOAD;
        if (op == 0) {
            addr = 0x100000000ull + ((uint64_t)step * 2048 + gt) * 4 % WRAP;
        } else if (op == 1) {
            addr = 0x300000000ull + (((uint64_t)lane * 8 + warp) + (uint64_t)step * 2048 + block * 256) * 4 % WRAP;
            kind = MH_KIND_STORE;
        } else if (op == 2) {
            addr = 0x500000000ull + ((t + step) % 1024) * 4;
        } else if (op == 3) {
            addr = (uint64_t)t * 4; /* tile[t / 16][t % 16], row-major: conflict free store */
            space = MH_SPACE_SHARED;
            kind = MH_KIND_STORE;
        } else {
            addr = (uint64_t)((lane % 16) * 16 + step % 16) * 4; /* tile[lane % 16][k]: 8-way */
            space = MH_SPACE_SHARED;
        }
        v[i] = (mh_access){addr, 0x100 + op * 16, 0, block, (uint32_t)(step * 5 + op), (uint16_t)t, 4,
                           MH_ACCESS_FLAGS(kind, space)};
    }
}

static int write_trace(const char *path, uint64_t n) {
    mh_err err = {0};
    mh_trace_header h = {0};
    h.producer = "bench_analyses";
    h.command = "";
    h.note = "";
    h.device.name = "synthetic";
    h.device.warp_size = 32;
    h.device.sector_size = 32;
    mh_trace_writer *w = NULL;
    if (mh_trace_create(&w, path, &h, NULL, &err)) goto fail;
    mh_alloc objs[4] = {{0, MH_TRACE_NO_LAUNCH, 0x100000000ull, WRAP, MH_SPACE_GLOBAL, "A"},
                        {1, MH_TRACE_NO_LAUNCH, 0x300000000ull, WRAP, MH_SPACE_GLOBAL, "B"},
                        {2, MH_TRACE_NO_LAUNCH, 0x500000000ull, 4096, MH_SPACE_GLOBAL, "C"},
                        {3, 0, 0, 1024, MH_SPACE_SHARED, "tile"}};
    for (int i = 0; i < 4; i++)
        if (mh_trace_write_alloc(w, &objs[i], &err)) goto fail;
    mh_launch l = {0};
    l.name = l.display_name = "bench";
    l.grid = (mh_dim3){8, 1, 1};
    l.block = (mh_dim3){256, 1, 1};
    l.n_sampled = MH_TRACE_ALL_BLOCKS;
    if (mh_trace_write_launch(w, &l, &err)) goto fail;
    enum { B = 1 << 16 };
    mh_access *v = malloc(B * sizeof *v);
    uint64_t next = 0;
    while (next < n) {
        size_t k = n - next < B ? (size_t)(n - next) : B;
        make_batch(v, k, &next);
        if (mh_trace_write_accesses(w, v, k, &err)) {
            free(v);
            goto fail;
        }
    }
    free(v);
    mh_kernel_end e = {0, n, 0, 0};
    if (mh_trace_write_kernel_end(w, &e, &err)) goto fail;
    if (mh_trace_close(w, &err)) {
        w = NULL;
        goto fail;
    }
    return 0;
fail:
    if (w) mh_trace_abandon(w);
    fprintf(stderr, "bench_analyses: writing %s: %s\n", path, err.msg);
    return 1;
}

static int run(const char *what, const char *path, uint64_t n, int noloc, int nopat, unsigned threads) {
    mh_analyze_opts o = {0};
    o.threads = threads;
    o.no_locality = noloc;
    o.no_patterns = nopat;
    mh_analyze_result res;
    mh_err err = {0};
    double t0 = now();
    int rc = mh_analyze_file(path, &o, &res, &err);
    double dt = now() - t0;
    if (rc) {
        fprintf(stderr, "bench_analyses: %s\n", err.msg);
        mh_analyze_free(&res);
        return 1;
    }
    size_t nf = 0;
    if (res.pat) mh_pat_findings(res.pat, &nf);
    uint64_t distinct = res.nloc ? res.loc[0].r.m[MH_LOC_TOTAL].footprint : 0;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("%-16s N=%llu  %.2f s  %.2fe6 accesses/s  state peak: heat %.1f MiB, locality %.1f MiB, patterns %.1f MiB"
           "  distinct addresses %llu  findings %zu  splits %llu/%llu  process peak RSS %.1f MiB\n",
           what, (unsigned long long)n, dt, (double)n / dt / 1e6, res.peak_heat / 1048576.0,
           res.peak_loc / 1048576.0, res.peak_pat / 1048576.0, (unsigned long long)distinct, nf,
           (unsigned long long)res.split_loc, (unsigned long long)res.split_pat, ru.ru_maxrss / 1024.0);
    mh_analyze_free(&res);
    return 0;
}

/* The heat-map pass alone on the same trace (read + model + heat maps), for
 * comparison with bench/heat's figure; one thread. */
static int run_heat(const char *path, uint64_t n) {
    mh_err err = {0};
    mh_pass *p = NULL;
    double t0 = now();
    mh_pass_opts po = {.analyses = MH_PASS_HEAT, .threads = 1};
    if (mh_pass_open(&p, path, NULL, &po, &err) || mh_pass_run(p, &err)) {
        fprintf(stderr, "bench_analyses: heat pass: %s\n", err.msg);
        mh_pass_close(p);
        return 1;
    }
    double dt = now() - t0;
    printf("%-16s N=%llu  %.2f s  %.2fe6 accesses/s  state peak: heat %.1f MiB\n", "heat maps only",
           (unsigned long long)n, dt, (double)n / dt / 1e6, mh_pass_stats_get(p)->peak_heat / 1048576.0);
    mh_pass_close(p);
    return 0;
}

int main(int argc, char **argv) {
    uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : 10000000ull;
    char tmp[256];
    const char *path = argc > 2 ? argv[2] : NULL;
    if (!path) {
        snprintf(tmp, sizeof tmp, "%s/bench_analyses_%d.mht", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
                 (int)getpid());
        path = tmp;
    }
    double t0 = now();
    if (write_trace(path, n)) return 1;
    printf("trace: %llu accesses written in %.2f s (%s)\n", (unsigned long long)n, now() - t0, path);
    if (argc > 3 && !strcmp(argv[3], "--write-only")) return 0;
    int rc = run_heat(path, n);
    if (!rc) rc = run("locality only", path, n, 0, 1, 1);
    if (!rc) rc = run("patterns only", path, n, 1, 0, 1);
    if (!rc) rc = run("analyze (all)", path, n, 0, 0, 1);
    /* the default of `memheat analyze`: one worker per analysis on a multi-core machine */
    if (!rc && mh_pass_default_threads() > 1) rc = run("analyze (default)", path, n, 0, 0, 0);
    if (argc <= 2) unlink(path);
    return rc;
}
