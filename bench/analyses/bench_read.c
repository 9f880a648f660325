/* bench_read.c -- the trace reader alone: reads every record of a trace with
 * a given read-ahead depth (mh_trace_reader_opts.readahead) and prints wall
 * and CPU seconds, so the reading thread's share of zstd can be seen apart
 * from the analyses (bench/analyses/README.md, "Read-ahead").
 *
 * usage: bench_read TRACE DEPTH [ROUNDS]
 * Prints one line per round: "depth D wall W cpu C records R accesses A". */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "memheat/trace.h"

static double now(clockid_t c) {
    struct timespec t;
    clock_gettime(c, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: bench_read TRACE DEPTH [ROUNDS]\n");
        return 2;
    }
    mh_trace_reader_opts o = {.readahead = atoi(argv[2])};
    int rounds = argc > 3 ? atoi(argv[3]) : 1;
    for (int k = 0; k < rounds; k++) {
        double w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
        mh_err err = {0};
        mh_trace_reader *r;
        if (mh_trace_open_opts(&r, argv[1], &o, &err) != MH_OK) {
            fprintf(stderr, "bench_read: %s\n", err.msg);
            return 1;
        }
        mh_record rec;
        unsigned long long n = 0, acc = 0, sum = 0;
        int rc;
        while ((rc = mh_trace_next(r, &rec, &err)) == MH_OK && rec.type != MH_REC_EOF) {
            n++;
            if (rec.type == MH_REC_ACCESSES) {
                acc += rec.u.accesses.n;
                for (size_t i = 0; i < rec.u.accesses.n; i++) sum += rec.u.accesses.v[i].addr; /* touch them */
            }
        }
        mh_trace_close_reader(r);
        if (rc != MH_OK) {
            fprintf(stderr, "bench_read: %s\n", err.msg);
            return 1;
        }
        printf("depth %d wall %.3f cpu %.3f records %llu accesses %llu (sum %llx)\n", o.readahead,
               now(CLOCK_MONOTONIC) - w0, now(CLOCK_PROCESS_CPUTIME_ID) - c0, n, acc, sum & 0xff);
    }
    return 0;
}
