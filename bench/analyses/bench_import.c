/* bench_import.c -- `memheat run`'s import (mh_db_import_trace: trace ->
 * mh_pass -> profile database) on a trace of many small launches, the shape
 * of a real program (a training step launches thousands of kernels).
 *
 * The trace: L launches (default 2000) of one 256-thread block, A coalesced
 * 4-byte loads each (default 2048), over one 1 MiB object. Prints the
 * import's wall time, accesses/s and the profile's size. With --write-only
 * after the paths, only the trace is written.
 *
 * usage: bench_import [L] [trace-path] [profile-path] [A] [--write-only] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "import/import.h"
#include "store/store.h"
#include "memheat/trace.h"

#define BATCH 2048

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int write_trace(const char *path, uint32_t nl, uint32_t per_launch, mh_err *err) {
    mh_trace_header h = {0};
    h.producer = "bench_import";
    h.command = h.note = "";
    h.device.name = "synthetic";
    h.device.warp_size = 32;
    h.device.sector_size = 32;
    mh_trace_writer *w;
    if (mh_trace_create(&w, path, &h, NULL, err)) return 1;
    mh_alloc a = {0, MH_TRACE_NO_LAUNCH, 0x100000, 1u << 20, MH_SPACE_GLOBAL, "A"};
    if (mh_trace_write_alloc(w, &a, err)) goto fail;
    static mh_access v[BATCH];
    for (uint32_t l = 0; l < nl; l++) {
        mh_launch ln = {0};
        ln.id = l;
        ln.name = ln.display_name = "kernel";
        ln.grid = (mh_dim3){1, 1, 1};
        ln.block = (mh_dim3){256, 1, 1};
        ln.n_sampled = MH_TRACE_ALL_BLOCKS;
        if (mh_trace_write_launch(w, &ln, err)) goto fail;
        for (uint32_t i0 = 0; i0 < per_launch; i0 += BATCH) {
            uint32_t k = per_launch - i0 < BATCH ? per_launch - i0 : BATCH;
            for (uint32_t j = 0; j < k; j++) {
                uint32_t i = i0 + j;
                v[j] = (mh_access){0x100000 + (i * 4 + l * 64) % (1u << 20), 0x10, l, 0, i / 256, (uint16_t)(i % 256),
                                   4, MH_ACCESS_FLAGS(MH_KIND_LOAD, MH_SPACE_GLOBAL)};
            }
            if (mh_trace_write_accesses(w, v, k, err)) goto fail;
        }
        mh_kernel_end e = {l, per_launch, 0, 0};
        if (mh_trace_write_kernel_end(w, &e, err)) goto fail;
    }
    return mh_trace_close(w, err) != MH_OK;
fail:
    mh_trace_abandon(w);
    return 1;
}

int main(int argc, char **argv) {
    uint32_t nl = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 0) : 2000;
    const char *trace = argc > 2 ? argv[2] : "bench_import.mht";
    const char *db = argc > 3 ? argv[3] : "bench_import.mhdb";
    uint32_t per_launch = argc > 4 ? (uint32_t)strtoul(argv[4], NULL, 0) : 2048;
    if (per_launch == 0) per_launch = 2048;
    mh_err err = {0};
    if (write_trace(trace, nl, per_launch, &err)) return fprintf(stderr, "bench_import: %s\n", err.msg), 1;
    if (argc > 5 && !strcmp(argv[5], "--write-only")) return 0;
    mh_db_import_opts io = {0};
    io.trace_path = trace;
    double t0 = now();
    int rc = mh_db_import_trace(db, 1, &io, &err);
    double dt = now() - t0;
    if (rc) return fprintf(stderr, "bench_import: %s\n", err.msg), 1;
    struct stat sb;
    stat(db, &sb);
    double n = (double)nl * per_launch;
    printf("import  %u launches, %.0f accesses  %.2f s  %.2fe6 accesses/s  profile %.1f MiB\n", nl, n, dt,
           n / dt / 1e6, sb.st_size / 1048576.0);
    if (argc <= 2) unlink(trace);
    if (argc <= 3) unlink(db);
    return 0;
}
