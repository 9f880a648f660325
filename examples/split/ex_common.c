/* ex_common.c -- see ex_common.h. */
#include "ex_common.h"

#include <cuda_runtime_api.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int ex_cuda_ok(int e, const char *what) {
    if (e == 0) return 0;
    fprintf(stderr, "error: %s: %s\n", what, cudaGetErrorString((cudaError_t)e));
    return 1;
}

void *ex_host_alloc(size_t bytes, int pinned) {
    void *p = NULL;
    if (pinned) {
        if (cudaMallocHost(&p, bytes) != cudaSuccess) return NULL;
        return p;
    }
    return malloc(bytes);
}

void ex_host_free(void *p, int pinned) {
    if (!p) return;
    if (pinned) cudaFreeHost(p);
    else free(p);
}

typedef struct par_job {
    size_t b, e;
    void (*fn)(size_t, size_t, void *);
    void *u;
} par_job;

static void *par_main(void *arg) {
    par_job *j = arg;
    j->fn(j->b, j->e, j->u);
    return NULL;
}

void ex_par_for(size_t n, void (*fn)(size_t b, size_t e, void *u), void *u) {
    enum { T = 16 };
    par_job jobs[T];
    pthread_t tid[T];
    int ok[T];
    size_t chunk = (n + T - 1) / T;
    for (int i = 0; i < T; i++) {
        jobs[i].b = (size_t)i * chunk < n ? (size_t)i * chunk : n;
        jobs[i].e = jobs[i].b + chunk < n ? jobs[i].b + chunk : n;
        jobs[i].fn = fn;
        jobs[i].u = u;
        ok[i] = i > 0 && pthread_create(&tid[i], NULL, par_main, &jobs[i]) == 0;
    }
    par_main(&jobs[0]);
    for (int i = 1; i < T; i++) {
        if (ok[i]) pthread_join(tid[i], NULL);
        else par_main(&jobs[i]);
    }
}

static uint64_t mix(uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

double ex_unif(uint64_t seed, uint64_t stream, uint64_t i) {
    return (double)(mix(seed ^ mix(stream * 0x100000001B3ull + i)) >> 11) * (1.0 / 9007199254740992.0);
}

/* ---- plain version: whole arrays on one device, no pipelining ---------- */

static int run_plain(ex_app *a, double *sec, double stage[3]) {
    void *d[EX_MAX_BUFS] = {0}, *df[2] = {0};
    cudaStream_t st = NULL;
    int bad = 0;
    *sec = 0; /* defined on every path, failed ones included */
    stage[0] = stage[1] = stage[2] = 0;
    bad |= ex_cuda_ok(cudaStreamCreate(&st), "cudaStreamCreate");
    for (int i = 0; !bad && i < a->n_bufs; i++)
        bad |= ex_cuda_ok(cudaMalloc(&d[i], a->n * a->bufs[i].bytes_per_iter), "cudaMalloc (plain)");
    for (int i = 0; !bad && i < a->n_fused; i++)
        bad |= ex_cuda_ok(cudaMalloc(&df[i], a->fused[i].bytes), "cudaMalloc (plain)");
    if (!bad) {
        cudaDeviceSynchronize();
        double t0 = now_s();
        for (int i = 0; !bad && i < a->n_fused; i++)
            bad |= ex_cuda_ok(cudaMemcpy(df[i], a->fused[i].host, a->fused[i].bytes, cudaMemcpyHostToDevice),
                              "cudaMemcpy");
        for (int i = 0; !bad && i < a->n_bufs; i++)
            if (a->bufs[i].dir & MH_SPLIT_IN)
                bad |= ex_cuda_ok(cudaMemcpy(d[i], a->bufs[i].host, a->n * a->bufs[i].bytes_per_iter,
                                             cudaMemcpyHostToDevice), "cudaMemcpy");
        double t1 = now_s();
        mh_split_launch l = {0, st, 0, a->n, d, df};
        mh_err err;
        if (!bad && a->kernel(&l, a, &err)) {
            fprintf(stderr, "error: plain kernel: %s\n", err.msg);
            bad = 1;
        }
        if (!bad) bad |= ex_cuda_ok(cudaStreamSynchronize(st), "kernel");
        double t2 = now_s();
        for (int i = 0; !bad && i < a->n_bufs; i++)
            if (a->bufs[i].dir & MH_SPLIT_OUT)
                bad |= ex_cuda_ok(cudaMemcpy(a->bufs[i].host, d[i], a->n * a->bufs[i].bytes_per_iter,
                                             cudaMemcpyDeviceToHost), "cudaMemcpy");
        *sec = now_s() - t0;
        stage[0] = t1 - t0;
        stage[1] = t2 - t1;
        stage[2] = t0 + *sec - t2;
    }
    for (int i = 0; i < a->n_bufs; i++) cudaFree(d[i]);
    for (int i = 0; i < a->n_fused; i++) cudaFree(df[i]);
    if (st) cudaStreamDestroy(st);
    return bad;
}

static int cmp_d(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

static double median(double *v, int n) {
    if (n <= 0) return NAN;
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* index of the run whose value is nearest m (the median run) */
static int nearest(const double *v, int n, double m) {
    int best = 0;
    for (int k = 1; k < n; k++)
        if (fabs(v[k] - m) < fabs(v[best] - m)) best = k;
    return best;
}

/* PCIe ceiling as this host sees it: host->device alone, device->host
 * alone, and both at once on two streams (pinned, 256 MiB each way, median
 * of 3). The model assumes the two directions do not slow each other. */
typedef struct copy_rates {
    double h2d, d2h, both; /* bytes/s: alone, alone, each way when both run */
} copy_rates;

static void copy_probe(copy_rates *cr) {
    const size_t B = (size_t)256 << 20;
    void *h[2] = {0}, *d[2] = {0};
    cudaStream_t s[2] = {0};
    cudaEvent_t e[6];
    int ok = 1;
    for (int i = 0; i < 2; i++) {
        ok &= cudaMallocHost(&h[i], B) == cudaSuccess && cudaMalloc(&d[i], B) == cudaSuccess &&
              cudaStreamCreateWithFlags(&s[i], cudaStreamNonBlocking) == cudaSuccess;
        if (ok) memset(h[i], i + 1, B);
    }
    for (int i = 0; i < 6; i++) ok &= cudaEventCreate(&e[i]) == cudaSuccess;
    double t[3][3];
    for (int r = 0; ok && r < 3; r++) {
        for (int m = 0; m < 3; m++) { /* 0: h2d, 1: d2h, 2: both */
            cudaDeviceSynchronize();
            cudaEventRecord(e[0], s[0]);
            cudaStreamWaitEvent(s[1], e[0], 0);
            if (m != 1) cudaMemcpyAsync(d[0], h[0], B, cudaMemcpyHostToDevice, s[0]);
            if (m != 0) cudaMemcpyAsync(h[1], d[1], B, cudaMemcpyDeviceToHost, s[1]);
            cudaEventRecord(e[1], s[0]);
            cudaEventRecord(e[2], s[1]);
            cudaDeviceSynchronize();
            float a = 0, b = 0;
            cudaEventElapsedTime(&a, e[0], e[1]);
            cudaEventElapsedTime(&b, e[0], e[2]);
            t[m][r] = m == 0 ? a : m == 1 ? b : (a > b ? a : b);
        }
    }
    if (ok && cudaGetLastError() == cudaSuccess) {
        double med[3];
        for (int m = 0; m < 3; m++) med[m] = median(t[m], 3);
        cr->h2d = B / med[0] * 1e3;
        cr->d2h = B / med[1] * 1e3;
        cr->both = B / med[2] * 1e3;
        printf("# copy engines (pinned, 256 MiB, median of 3): h2d %.1f GB/s, d2h %.1f GB/s, "
               "both at once %.1f GB/s each way (%.2f ms vs %.2f ms for the larger alone)\n",
               B / med[0] / 1e6, B / med[1] / 1e6, B / med[2] / 1e6, med[2], med[0] > med[1] ? med[0] : med[1]);
    } else {
        printf("# copy engines: probe failed\n");
    }
    for (int i = 0; i < 6; i++) cudaEventDestroy(e[i]);
    for (int i = 0; i < 2; i++) {
        if (s[i]) cudaStreamDestroy(s[i]);
        cudaFree(d[i]);
        cudaFreeHost(h[i]);
    }
    cudaGetLastError();
}

typedef struct poison_job {
    ex_app *a;
} poison_job;

static void poison_range(size_t b, size_t e, void *u) {
    ex_app *a = u;
    for (int i = 0; i < a->n_bufs; i++)
        if (a->bufs[i].dir == MH_SPLIT_OUT)
            memset((char *)a->bufs[i].host + b * a->bufs[i].bytes_per_iter, 0xFF,
                   (e - b) * a->bufs[i].bytes_per_iter);
}

static int verify(ex_app *a, const char *what) {
    size_t checked = 0, bad = a->check(a, &checked);
    if (bad) {
        fprintf(stderr, "CHECK FAILED (%s %s): %zu of %zu outputs wrong\n", a->name, what, bad, checked);
        return 1;
    }
    return 0;
}


/* ctx NULL: mh_split_run (resources made and released in the call) */
static int run_split(ex_app *a, mh_split_ctx *ctx, const mh_split_opts *o, mh_split_report *r) {
    mh_split_loop L = {a->n, a->bufs, a->n_bufs, a->fused, a->n_fused, a->kernel, a};
    mh_err err;
    mh_err_clear(&err);
    int rc = ctx ? mh_split_run_ctx(ctx, &L, o, r, &err) : mh_split_run(&L, o, r, &err);
    if (rc) fprintf(stderr, "error: mh_split_run (%s): %s\n", mh_status_name(rc), err.msg);
    return rc;
}

#define MAX_RUNS 64

int ex_main(int argc, char **argv, ex_app *a, size_t default_n, int (*setup)(ex_app *), void (*teardown)(ex_app *)) {
    size_t n = default_n, budget_mb = 0, split = 0;
    int runs = 5, pinned = 1, ndev = 0, do_plain = 1, do_serial = 1, do_cold = 1, streams = 0, hthreads = 0;
    uint64_t seed = (uint64_t)time(NULL);
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(s, "--pageable")) pinned = 0;
        else if (!strcmp(s, "--no-plain")) do_plain = 0;
        else if (!strcmp(s, "--no-serial")) do_serial = 0;
        else if (!strcmp(s, "--no-cold")) do_cold = 0;
        else if (v && !strcmp(s, "--n")) n = (size_t)strtod(v, NULL), i++;
        else if (v && !strcmp(s, "--runs")) runs = atoi(v), i++;
        else if (v && !strcmp(s, "--budget-mb")) budget_mb = (size_t)atoll(v), i++;
        else if (v && !strcmp(s, "--split")) split = (size_t)strtod(v, NULL), i++;
        else if (v && !strcmp(s, "--devices")) ndev = atoi(v), i++;
        else if (v && !strcmp(s, "--streams")) streams = atoi(v), i++;
        else if (v && !strcmp(s, "--host-threads")) hthreads = atoi(v), i++;
        else if (v && !strcmp(s, "--seed")) seed = (uint64_t)strtoull(v, NULL, 0), i++;
        else {
            fprintf(stderr, "%s: unknown or incomplete option '%s'\n", argv[0], s);
            return 2;
        }
    }
    if (runs < 1 || runs > MAX_RUNS || n == 0) {
        fprintf(stderr, "%s: bad --runs or --n\n", argv[0]);
        return 2;
    }
    int visible = 0;
    if (cudaGetDeviceCount(&visible) != cudaSuccess || visible == 0) {
        fprintf(stderr, "%s: no CUDA device\n", argv[0]);
        return 77;
    }
    if (ndev <= 0 || ndev > visible) ndev = visible;
    int devs[16];
    for (int i = 0; i < ndev && i < 16; i++) {
        devs[i] = i;
        cudaSetDevice(i);
        cudaFree(0); /* context creation stays out of the timings */
    }
    cudaSetDevice(0);
    a->n = n;
    a->pinned = pinned;
    a->seed = seed;
    double t0 = now_s();
    if (setup(a)) {
        fprintf(stderr, "%s: setup failed (host memory for n=%zu?)\n", a->name, n);
        teardown(a);
        return 1;
    }
    double t_setup = now_s() - t0;
    size_t bytes = 0, fbytes = 0, in_bytes = 0;
    for (int i = 0; i < a->n_bufs; i++) bytes += n * a->bufs[i].bytes_per_iter;
    for (int i = 0; i < a->n_bufs; i++)
        if (a->bufs[i].dir & MH_SPLIT_IN) in_bytes += n * a->bufs[i].bytes_per_iter;
    for (int i = 0; i < a->n_fused; i++) fbytes += a->fused[i].bytes;
    size_t dfree = 0, dtotal = 0;
    cudaMemGetInfo(&dfree, &dtotal);
    if (bytes + fbytes > dfree) do_plain = 0; /* does not fit: no plain version */

    mh_split_opts o;
    mh_split_opts_init(&o);
    o.budget_bytes = budget_mb << 20;
    o.split_iters = split;
    o.devices = devs;
    o.n_devices = ndev;
    o.nstreams = streams;
    o.host_threads = hthreads;
    printf("# %s: n=%zu data=%.3f GB fused=%zu B host=%s devices=%d budget=%s runs=%d seed=%llu init=%.1fs\n",
           a->name, n, bytes / 1e9, fbytes, pinned ? "pinned" : "pageable", ndev,
           budget_mb ? "set" : "free", runs, (unsigned long long)seed, t_setup);
    if (budget_mb) printf("# data / budget = %.2f\n", (double)(bytes + fbytes) / (double)(budget_mb << 20));

    copy_rates cr = {0, 0, 0};
    if (pinned) copy_probe(&cr);
    int fail = 0;
    mh_split_report r, rs[MAX_RUNS], rp[MAX_RUNS], rcold;
    mh_split_ctx *ctx = NULL;
    mh_err cerr;
    if (mh_split_ctx_open(&ctx, &cerr)) {
        fprintf(stderr, "error: %s\n", cerr.msg);
        teardown(a);
        return 1;
    }
    /* warm-up (module load, the context's allocations), checked */
    ex_par_for(n, poison_range, a);
    if (run_split(a, ctx, &o, &r)) fail = 1;
    else fail |= verify(a, "warm-up");
    double tp[MAX_RUNS], tpc[MAX_RUNS], tpl[MAX_RUNS], tse[MAX_RUNS], stpl[MAX_RUNS][3];
    int npl = 0, nse = 0, npi = 0, npc = 0;
    for (int k = 0; !fail && k < runs; k++) {
        if (do_plain) {
            ex_par_for(n, poison_range, a);
            double s = 0;
            if (run_plain(a, &s, stpl[npl])) { fail = 1; break; }
            fail |= verify(a, "plain");
            tpl[npl++] = s;
        }
        ex_par_for(n, poison_range, a);
        o.mode = MH_SPLIT_PIPELINED;
        if (run_split(a, ctx, &o, &rp[npi])) { fail = 1; break; }
        fail |= verify(a, "pipelined");
        tp[npi] = rp[npi].t_total;
        npi++;
        /* the same without a context: allocations inside the timed call */
        if (do_cold) {
            ex_par_for(n, poison_range, a);
            if (run_split(a, NULL, &o, &rcold)) { fail = 1; break; }
            fail |= verify(a, "pipelined, no context");
            tpc[npc++] = rcold.t_total;
        }
        if (do_serial) {
            ex_par_for(n, poison_range, a);
            o.mode = MH_SPLIT_SERIAL;
            o.split_iters = split ? split : rp[npi - 1].split_iters; /* same splits, no overlap */
            if (run_split(a, ctx, &o, &rs[nse])) { fail = 1; break; }
            o.split_iters = split;
            fail |= verify(a, "serial");
            tse[nse] = rs[nse].t_total;
            nse++;
        }
    }
    if (!fail) {
        for (int k = 0; k < npi; k++) {
            mh_split_report *q = &rp[k];
            printf("# pipelined run %d: %.2f ms split=%zu (%s) splits=%zu tune=%.2f ms overhead=%.2f ms "
                   "setup=%.2f ms model-ideal=%.3f model-achieved=%.3f dev=%.1f MB staging=%.1f MB "
                   "copy-in window=%.2f ms (%.1f GB/s) drain=%.2f ms\n",
                   k, q->t_total * 1e3, q->split_iters, mh_split_kind_name(q->kind), q->n_splits, q->t_tune * 1e3,
                   q->tune_overhead * 1e3, q->t_setup * 1e3, q->ideal_speedup, q->achieved_speedup,
                   q->device_bytes / 1e6, q->staging_bytes / 1e6, q->t_in_span * 1e3,
                   q->t_in_span > 0 ? in_bytes / q->t_in_span / 1e9 : 0.0, q->t_drain * 1e3);
            if (k == 0)
                for (int j = 0; j < q->n_candidates; j++)
                    printf("#   candidate %zu: %.3g iter/s\n", q->candidates[j], q->cand_rate[j]);
        }
        double cpl[MAX_RUNS];
        memcpy(cpl, tpl, sizeof(double) * (size_t)(npl ? npl : 1));
        double tpk[MAX_RUNS];
        memcpy(tpk, tp, sizeof(double) * (size_t)npi);
        double mpl = median(cpl, npl), mp = median(tpk, npi), mpc = median(tpc, npc), ms = NAN,
               ideal_plain = NAN;
        if (npl) {
            /* the seed's model on the plain version's own stages (median run) */
            int best = nearest(tpl, npl, mpl);
            ideal_plain = mh_split_ideal_speedup(0, stpl[best][0], stpl[best][2], stpl[best][1]);
            printf("# plain stages (run %d): in=%.2f compute=%.2f out=%.2f ms\n", best, stpl[best][0] * 1e3,
                   stpl[best][1] * 1e3, stpl[best][2] * 1e3);
        }
        double fi = 0, ci = 0, co = 0, cc = 0;
        if (nse) {
            /* stage times of the serial run with the median total */
            double copy[MAX_RUNS];
            memcpy(copy, tse, sizeof(double) * (size_t)nse);
            ms = median(copy, nse);
            int best = nearest(tse, nse, ms);
            fi = rs[best].t_fused, ci = rs[best].t_in, co = rs[best].t_out, cc = rs[best].t_compute;
            printf("# serial stages (run %d): fused=%.2f in=%.2f compute=%.2f out=%.2f ms (host staging %.2f)\n",
                   best, fi * 1e3, ci * 1e3, cc * 1e3, co * 1e3, rs[best].t_stage_host * 1e3);
        }
        double ideal = nse ? mh_split_ideal_speedup(fi, ci, co, cc) : NAN;
        double ach_plain = npl ? mpl / mp : NAN, ach_serial = nse ? ms / mp : NAN;
        double ach_cold = npl ? mpl / mpc : NAN;
        /* The least time the two copy directions need when they slow each
         * other down (measured above): the smaller direction runs entirely
         * while the other does, at the "both" rate, the rest alone. The
         * seed's model assumes independent directions (no slow-down). */
        double floor_ms = NAN, frac_duplex = NAN;
        if (cr.both > 0 && npl) {
            size_t out_bytes = 0;
            for (int i = 0; i < a->n_bufs; i++)
                if (a->bufs[i].dir & MH_SPLIT_OUT) out_bytes += n * a->bufs[i].bytes_per_iter;
            double I = (double)in_bytes, O = (double)out_bytes;
            double tc = O <= I ? O / cr.both + (I - O) / cr.h2d : I / cr.both + (O - I) / cr.d2h;
            double tcomp = stpl[nearest(tpl, npl, mpl)][1];
            floor_ms = 1e3 * (tc > tcomp ? tc : tcomp);
            frac_duplex = (mpl / mp) / (mpl * 1e3 / floor_ms);
            printf("# copy floor with both directions sharing the link: %.2f ms (ideal %.3f instead of %.3f)\n",
                   floor_ms, mpl * 1e3 / floor_ms, ideal_plain);
        }
        printf("RESULT example=%s n=%zu data_gb=%.3f host=%s devices=%d plain_ms=%.2f serial_ms=%.2f "
               "pipelined_ms=%.2f pipelined_nocontext_ms=%.2f ideal_plain=%.3f achieved_vs_plain=%.3f "
               "frac_plain=%.3f frac_plain_nocontext=%.3f duplex_floor_ms=%.2f frac_duplex=%.3f "
               "ideal_serial=%.3f achieved_vs_serial=%.3f frac_serial=%.3f split=%zu kind=%s tune_ms=%.2f "
               "tune_overhead_ms=%.2f runs=%d check=ok\n",
               a->name, n, bytes / 1e9, pinned ? "pinned" : "pageable", ndev, mpl * 1e3, ms * 1e3, mp * 1e3,
               mpc * 1e3, ideal_plain, ach_plain, ach_plain / ideal_plain, ach_cold / ideal_plain, floor_ms,
               frac_duplex, ideal,
               ach_serial, ach_serial / ideal,
               rp[0].split_iters,
               mh_split_kind_name(rp[0].kind), rp[0].t_tune * 1e3, rp[0].tune_overhead * 1e3, npi);
    } else {
        printf("RESULT example=%s n=%zu check=FAILED\n", a->name, n);
    }
    mh_split_ctx_close(ctx);
    teardown(a);
    return fail;
}
