/* bench_heat.c -- heat-map analyzer throughput and memory.
 *
 * Generates a trace of N accesses (default 10^8) from one 1024-thread block
 * (32 warps), in warp-instruction order as a GPU issues them: per warp and step a coalesced load of A (a new sector every
 * 8 lanes), a false-sharing store into B (64 MiB, reused) and a hot read of a
 * 4 KiB table C. Then, on one core: (1) in-memory: accesses straight into
 * mh_heat_run (the analyzer alone); (2) end to end: read + decompress the
 * trace file + model + heat maps. Prints accesses/s, distinct sectors, map
 * state bytes per distinct sector, and the process's peak RSS.
 *
 * usage: bench_heat [N] [trace-path]   (the trace is kept if a path is given) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "analyses/heat.h"
#include "pass/pass.h"
#include "analyses/model.h"
#include "memheat/trace.h"

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void make_batch(mh_access *v, size_t n, uint64_t *next) {
    const uint32_t T = 1024;
    for (size_t i = 0; i < n; i++) {
        uint64_t g = (*next)++;
        /* warp-instruction order, as a GPU issues them: 32 lanes, then the next op, warp, step */
        uint32_t lane = (uint32_t)(g % 32);
        uint64_t op = (g / 32) % 3, x = g / 96;
        uint32_t t = (uint32_t)(x % 32) * 32 + lane, step = (uint32_t)(x / 32);
        uint64_t addr;
        if (op == 0) addr = 0x100000000ull + ((uint64_t)step * T + t) * 4;                          /* A */
        else if (op == 1) addr = 0x300000000ull + ((((uint64_t)(t % 32) * 32 + t / 32) + (uint64_t)step * T) * 4) % (64u << 20); /* B */
        else addr = 0x500000000ull + ((t + step) % 1024) * 4;                                         /* C */
        v[i] = (mh_access){.addr = addr, .pc = 0x100 + op * 16, .launch = 0, .block = 0, .seq = step * 3 + (uint32_t)op,
                           .thread = (uint16_t)t, .size = 4,
                           .flags = MH_ACCESS_FLAGS(op == 1 ? MH_KIND_STORE : MH_KIND_LOAD, MH_SPACE_GLOBAL)};
    }
}

static const mh_trace_header HDR = {.producer = "bench_heat", .command = "", .note = "",
                                    .device = {.name = "bench", .warp_size = 32, .sector_size = 32}};
static const uint32_t SAMPLED[1] = {0};
static const mh_launch LAUNCH = {.id = 0, .name = "bench", .display_name = "bench", .grid = {1, 1, 1},
                                 .block = {1024, 1, 1}, .n_sampled = 1, .sampled = SAMPLED};

typedef struct result {
    size_t sectors;
} result;

static int emit(void *ctx, const mh_heat_result *r, mh_err *err) {
    (void)err;
    ((result *)ctx)->sectors += r->nrows;
    return MH_OK;
}

static long peak_rss_kib(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

int main(int argc, char **argv) {
    uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 100000000ull;
    const char *path = argc > 2 ? argv[2] : "/tmp/bench_heat.mht";
    mh_err err = {0};
    enum { B = 1 << 16 };
    mh_access *v = malloc(sizeof *v * B);

    /* (1) analyzer alone, accesses from memory */
    mh_model m;
    mh_model_init(&m, &HDR, &err);
    mh_record rec = {.type = MH_REC_LAUNCH, .u.launch = LAUNCH};
    mh_model_feed(&m, &rec, &err);
    result res1 = {0};
    mh_heat_run *hr;
    mh_heat_run_opts o = {.emit = emit, .ctx = &res1};
    mh_heat_run_new(&hr, &m, &o, &err);
    uint64_t next = 0;
    double gen = 0, t0 = now();
    for (uint64_t done = 0; done < n; done += B) {
        size_t k = n - done < B ? (size_t)(n - done) : B;
        double g0 = now();
        make_batch(v, k, &next);
        gen += now() - g0;
        rec.type = MH_REC_ACCESSES;
        rec.u.accesses.v = v;
        rec.u.accesses.n = k;
        if (mh_heat_run_feed(hr, &rec, &err) != MH_OK) return fprintf(stderr, "%s\n", err.msg), 1;
    }
    mh_record end = {.type = MH_REC_KERNEL_END, .u.kernel_end = {.launch = 0}};
    mh_heat_run_feed(hr, &end, &err);
    double t_mem = now() - t0 - gen;
    size_t peak_state = mh_heat_run_peak_bytes(hr);
    mh_heat_run_free(hr);
    mh_model_free(&m);
    long rss_after_mem = peak_rss_kib();

    /* write the trace file (not timed as analysis) */
    double w0 = now();
    mh_trace_writer *w;
    if (mh_trace_create(&w, path, &HDR, NULL, &err) != MH_OK) return fprintf(stderr, "%s\n", err.msg), 1;
    mh_trace_write_launch(w, &LAUNCH, &err);
    next = 0;
    for (uint64_t done = 0; done < n; done += B) {
        size_t k = n - done < B ? (size_t)(n - done) : B;
        make_batch(v, k, &next);
        if (mh_trace_write_accesses(w, v, k, &err) != MH_OK) return fprintf(stderr, "%s\n", err.msg), 1;
    }
    mh_kernel_end ke = {.launch = 0, .recorded = n};
    mh_trace_write_kernel_end(w, &ke, &err);
    if (mh_trace_close(w, &err) != MH_OK) return fprintf(stderr, "%s\n", err.msg), 1;
    double t_write = now() - w0;
    free(v);

    /* (2) end to end from the file */
    t0 = now();
    /* one thread, as the figure in bench/README.md was measured */
    mh_pass *p;
    mh_pass_opts po = {.analyses = MH_PASS_HEAT, .threads = 1};
    if (mh_pass_open(&p, path, NULL, &po, &err) != MH_OK) return fprintf(stderr, "%s\n", err.msg), 1;
    result res2 = {0};
    mh_pass_consumer pc = {.ctx = &res2, .heat = o.emit};
    if (mh_pass_add(p, &pc, &err) != MH_OK || mh_pass_run(p, &err) != MH_OK)
        return fprintf(stderr, "%s\n", err.msg), 1;
    uint64_t seen = mh_pass_stats_get(p)->accesses;
    double t_file = now() - t0;
    mh_pass_close(p);
    FILE *f = fopen(path, "rb");
    fseek(f, 0, SEEK_END);
    long fsize = ftell(f);
    fclose(f);
    if (argc <= 2) unlink(path);

    printf("accesses              %llu (read back %llu)\n", (unsigned long long)n, (unsigned long long)seen);
    printf("distinct sectors      %zu\n", res1.sectors);
    printf("trace file            %.1f MiB (%.2f bytes/access), written in %.2f s\n", fsize / 1048576.0,
           (double)fsize / (double)n, t_write);
    printf("analyzer, in memory   %.2f s  %.3g accesses/s\n", t_mem, (double)n / t_mem);
    printf("end to end from file  %.2f s  %.3g accesses/s\n", t_file, (double)n / t_file);
    printf("map state peak        %.1f MiB = %.1f bytes per distinct sector\n", peak_state / 1048576.0,
           (double)peak_state / (double)res1.sectors);
    printf("peak RSS              %.1f MiB (after in-memory pass %.1f MiB)\n", peak_rss_kib() / 1024.0,
           rss_after_mem / 1024.0);
    return res1.sectors == res2.sectors && seen == n ? 0 : 1;
}
