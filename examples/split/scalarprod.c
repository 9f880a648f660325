/* scalarprod.c -- split example, the seed's scalar product: F[v] = D[v,:] . E[v,:]
 * for n vectors of ELEMS floats; one iteration = one vector. */
#include <math.h>
#include <pthread.h>
#include <string.h>

#include "ex_common.h"
#include "ex_kernels.h"

#define ELEMS 1024

typedef struct acc {
    ex_app *a;
    pthread_mutex_t mu;
    size_t bad;
} acc;

static int kernel(const mh_split_launch *l, void *user, mh_err *err) {
    (void)user;
    int e = ex_scalprod_launch(l->split[0], l->split[1], l->split[2], l->end - l->begin, ELEMS, l->stream);
    return e ? mh_err_set(err, MH_ERR_CUDA, "scalar product launch: error %d", e) : 0;
}

static void fill(size_t b, size_t e, void *u) {
    ex_app *a = u;
    float *d = a->bufs[0].host, *x = a->bufs[1].host;
    for (size_t i = b * ELEMS; i < e * ELEMS; i++) {
        d[i] = (float)ex_unif(a->seed, 1, i) - 0.5f;
        x[i] = (float)ex_unif(a->seed, 2, i) - 0.5f;
    }
}

static void chk(size_t b, size_t e, void *u) {
    acc *c = u;
    const float *d = c->a->bufs[0].host, *x = c->a->bufs[1].host, *f = c->a->bufs[2].host;
    size_t bad = 0;
    for (size_t v = b; v < e; v++) {
        double s = 0, m = 0;
        for (size_t i = v * ELEMS; i < (v + 1) * ELEMS; i++) {
            s += (double)d[i] * x[i];
            m += fabs((double)d[i] * x[i]);
        }
        bad += !(fabs(f[v] - s) <= 1e-5 * m + 1e-6);
    }
    pthread_mutex_lock(&c->mu);
    c->bad += bad;
    pthread_mutex_unlock(&c->mu);
}

static size_t check(ex_app *a, size_t *checked) {
    acc c = {a, PTHREAD_MUTEX_INITIALIZER, 0};
    ex_par_for(a->n, chk, &c);
    *checked = a->n;
    return c.bad;
}

static int setup(ex_app *a) {
    a->n_bufs = 3;
    size_t bpi[3] = {ELEMS * sizeof(float), ELEMS * sizeof(float), sizeof(float)};
    for (int i = 0; i < 3; i++) {
        a->bufs[i].bytes_per_iter = bpi[i];
        a->bufs[i].dir = i < 2 ? MH_SPLIT_IN : MH_SPLIT_OUT;
        a->bufs[i].host = ex_host_alloc(a->n * bpi[i], a->pinned);
        if (!a->bufs[i].host) return 1;
    }
    ex_par_for(a->n, fill, a);
    return 0;
}

static void teardown(ex_app *a) {
    for (int i = 0; i < a->n_bufs; i++) ex_host_free(a->bufs[i].host, a->pinned);
}

int main(int argc, char **argv) {
    ex_app a;
    memset(&a, 0, sizeof a);
    a.name = "scalarprod";
    a.kernel = kernel;
    a.check = check;
    return ex_main(argc, argv, &a, (size_t)1 << 18, setup, teardown);
}
