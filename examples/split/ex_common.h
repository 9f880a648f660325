/* ex_common.h -- shared host harness of the split examples: host buffers
 * (pinned or pageable), parallel init/check, and the driver that times the
 * plain (whole arrays, no pipelining) version, the pipelined split run and
 * the serial split run, checks every run against a CPU reference, and prints
 * medians and the speedup model. */
#ifndef MH_EX_COMMON_H
#define MH_EX_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "memheat/split.h"

#define EX_MAX_BUFS 6

typedef struct ex_app ex_app;
struct ex_app {
    const char *name;
    size_t n;        /* iterations */
    int pinned;      /* host buffers from cudaMallocHost */
    uint64_t seed;
    int n_bufs;
    mh_split_buf bufs[EX_MAX_BUFS];
    int n_fused;
    mh_split_fused fused[2];
    mh_split_kernel_fn kernel;
    /* outputs wrong (or never written) versus the CPU reference; *checked = how many compared */
    size_t (*check)(ex_app *a, size_t *checked);
    void *priv;
};

void *ex_host_alloc(size_t bytes, int pinned);
void ex_host_free(void *p, int pinned);
/* fn over [0,n) in chunks on up to 16 threads */
void ex_par_for(size_t n, void (*fn)(size_t b, size_t e, void *u), void *u);
/* deterministic uniform in [0,1) for (seed, stream, index) */
double ex_unif(uint64_t seed, uint64_t stream, uint64_t i);
/* 0 when cudaError code e is success; else prints and returns 1 */
int ex_cuda_ok(int e, const char *what);

/* Parse args (--n, --runs, --budget-mb, --pageable, --split, --devices,
 * --no-plain, --no-serial, --no-cold, --seed, --streams, --host-threads), call setup(app, n) which
 * allocates and fills app, then run/time/check. Returns the exit status. */
int ex_main(int argc, char **argv, ex_app *app, size_t default_n, int (*setup)(ex_app *a),
            void (*teardown)(ex_app *a));

#endif
