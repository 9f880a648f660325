/* montecarlo.c -- split example: Monte Carlo European call prices of n
 * options, every option over the same MC_PATHS normal samples (a fused
 * buffer, as in the classic CUDA sample). Compute-intensive for large path
 * counts. MC_PATHS (environment) sets the paths, default 2048. Checked: every
 * output for NaN, every 4096th option against a double CPU reference over
 * the same samples. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ex_common.h"
#include "ex_kernels.h"

#define RATE 0.02
#define VOL 0.30

typedef struct mc {
    float *z;
    int paths;
} mc;

typedef struct acc {
    ex_app *a;
    pthread_mutex_t mu;
    size_t bad, checked;
} acc;

static int kernel(const mh_split_launch *l, void *user, mh_err *err) {
    ex_app *a = user;
    mc *m = a->priv;
    int e = ex_mc_launch(l->split[0], l->split[1], l->split[2], l->split[3], l->split[4], l->fused[0], m->paths,
                         (float)RATE, (float)VOL, l->end - l->begin, l->stream);
    return e ? mh_err_set(err, MH_ERR_CUDA, "monte carlo launch: error %d", e) : 0;
}

static void fill(size_t b, size_t e, void *u) {
    ex_app *a = u;
    float *s = a->bufs[0].host, *x = a->bufs[1].host, *t = a->bufs[2].host;
    for (size_t i = b; i < e; i++) {
        s[i] = (float)(5.0 + 25.0 * ex_unif(a->seed, 1, i));
        x[i] = (float)(1.0 + 29.0 * ex_unif(a->seed, 2, i));
        t[i] = (float)(0.25 + 1.75 * ex_unif(a->seed, 3, i));
    }
}

static void chk(size_t b, size_t e, void *u) {
    acc *c = u;
    ex_app *a = c->a;
    mc *m = a->priv;
    const float *s = a->bufs[0].host, *x = a->bufs[1].host, *t = a->bufs[2].host;
    const float *price = a->bufs[3].host, *conf = a->bufs[4].host;
    size_t bad = 0, n = 0;
    for (size_t i = b; i < e; i++) {
        if (isnan(price[i]) || isnan(conf[i])) {
            bad++;
            continue;
        }
        if (i % 4096 && i != a->n - 1) continue;
        double S = s[i], X = x[i], T = t[i];
        double mu = (RATE - 0.5 * VOL * VOL) * T, sig = VOL * sqrt(T), sum = 0;
        for (int p = 0; p < m->paths; p++) {
            double pay = S * exp(mu + sig * m->z[p]) - X;
            sum += pay > 0 ? pay : 0;
        }
        double ref = exp(-RATE * T) * sum / m->paths;
        bad += !(fabs(price[i] - ref) <= 1e-3 * fabs(ref) + 1e-4);
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
    static mc m;
    const char *ps = getenv("MC_PATHS");
    m.paths = ps ? atoi(ps) : 2048;
    if (m.paths < 1) m.paths = 2048;
    m.z = malloc((size_t)m.paths * sizeof(float));
    if (!m.z) return 1;
    for (int p = 0; p < m.paths; p++) { /* Box-Muller */
        double u1 = ex_unif(a->seed, 9, 2 * (uint64_t)p), u2 = ex_unif(a->seed, 9, 2 * (uint64_t)p + 1);
        m.z[p] = (float)(sqrt(-2.0 * log(1.0 - u1)) * cos(6.283185307179586 * u2));
    }
    a->priv = &m;
    a->n_bufs = 5;
    for (int i = 0; i < 5; i++) {
        a->bufs[i].bytes_per_iter = sizeof(float);
        a->bufs[i].dir = i < 3 ? MH_SPLIT_IN : MH_SPLIT_OUT;
        a->bufs[i].host = ex_host_alloc(a->n * sizeof(float), a->pinned);
        if (!a->bufs[i].host) return 1;
    }
    a->n_fused = 1;
    a->fused[0].host = m.z;
    a->fused[0].bytes = (size_t)m.paths * sizeof(float);
    ex_par_for(a->n, fill, a);
    return 0;
}

static void teardown(ex_app *a) {
    mc *m = a->priv;
    for (int i = 0; i < a->n_bufs; i++) ex_host_free(a->bufs[i].host, a->pinned);
    if (m) free(m->z);
}

int main(int argc, char **argv) {
    ex_app a;
    memset(&a, 0, sizeof a);
    a.name = "montecarlo";
    a.kernel = kernel;
    a.check = check;
    return ex_main(argc, argv, &a, (size_t)1 << 26, setup, teardown);
}
