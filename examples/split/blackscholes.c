/* blackscholes.c -- split example: European call/put prices of n options
 * (inputs S, X, T splittable; rate and volatility fused). Checked against a
 * double-precision CPU reference: every output for NaN (unwritten), every
 * 7th option for value. */
#include <math.h>
#include <pthread.h>
#include <string.h>

#include "ex_common.h"
#include "ex_kernels.h"

static float rv[2] = {0.02f, 0.30f};

typedef struct acc {
    ex_app *a;
    pthread_mutex_t mu;
    size_t bad, checked;
} acc;

static int kernel(const mh_split_launch *l, void *user, mh_err *err) {
    (void)user;
    int e = ex_bs_launch(l->split[0], l->split[1], l->split[2], l->split[3], l->split[4], l->fused[0],
                         l->end - l->begin, l->stream);
    return e ? mh_err_set(err, MH_ERR_CUDA, "black-scholes launch: error %d", e) : 0;
}

static void fill(size_t b, size_t e, void *u) {
    ex_app *a = u;
    float *s = a->bufs[0].host, *x = a->bufs[1].host, *t = a->bufs[2].host;
    for (size_t i = b; i < e; i++) {
        s[i] = (float)(5.0 + 25.0 * ex_unif(a->seed, 1, i));
        x[i] = (float)(1.0 + 99.0 * ex_unif(a->seed, 2, i));
        t[i] = (float)(0.25 + 9.75 * ex_unif(a->seed, 3, i));
    }
}

static double ncdf(double x) { return 0.5 * erfc(-x / sqrt(2.0)); }

static void chk(size_t b, size_t e, void *u) {
    acc *c = u;
    ex_app *a = c->a;
    const float *s = a->bufs[0].host, *x = a->bufs[1].host, *t = a->bufs[2].host;
    const float *call = a->bufs[3].host, *put = a->bufs[4].host;
    size_t bad = 0, n = 0;
    double r = rv[0], v = rv[1];
    for (size_t i = b; i < e; i++) {
        if (isnan(call[i]) || isnan(put[i])) {
            bad++;
            continue;
        }
        if (i % 7) continue;
        double S = s[i], X = x[i], T = t[i], sq = sqrt(T);
        double d1 = (log(S / X) + (r + 0.5 * v * v) * T) / (v * sq), d2 = d1 - v * sq;
        double ec = S * ncdf(d1) - X * exp(-r * T) * ncdf(d2);
        double ep = X * exp(-r * T) * ncdf(-d2) - S * ncdf(-d1);
        bad += !(fabs(call[i] - ec) <= 2e-3 + 1e-4 * fabs(ec) && fabs(put[i] - ep) <= 2e-3 + 1e-4 * fabs(ep));
        n++;
    }
    pthread_mutex_lock(&c->mu);
    c->bad += bad;
    c->checked += n;
    pthread_mutex_unlock(&c->mu);
}

static size_t check(ex_app *a, size_t *checked) {
    acc c = {a, PTHREAD_MUTEX_INITIALIZER, 0, 0};
    ex_par_for(a->n, chk, &c);
    *checked = c.checked;
    return c.bad;
}

static int setup(ex_app *a) {
    a->n_bufs = 5;
    for (int i = 0; i < 5; i++) {
        a->bufs[i].bytes_per_iter = sizeof(float);
        a->bufs[i].dir = i < 3 ? MH_SPLIT_IN : MH_SPLIT_OUT;
        a->bufs[i].host = ex_host_alloc(a->n * sizeof(float), a->pinned);
        if (!a->bufs[i].host) return 1;
    }
    a->n_fused = 1;
    a->fused[0].host = rv;
    a->fused[0].bytes = sizeof rv;
    ex_par_for(a->n, fill, a);
    return 0;
}

static void teardown(ex_app *a) {
    for (int i = 0; i < a->n_bufs; i++) ex_host_free(a->bufs[i].host, a->pinned);
}

int main(int argc, char **argv) {
    ex_app a;
    memset(&a, 0, sizeof a);
    a.name = "blackscholes";
    a.kernel = kernel;
    a.check = check;
    return ex_main(argc, argv, &a, (size_t)1 << 27, setup, teardown);
}
