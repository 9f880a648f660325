/* vecadd.c -- split example: c = a + b over n floats (copy-intensive). */
#include <math.h>
#include <pthread.h>
#include <string.h>

#include "ex_common.h"
#include "ex_kernels.h"

typedef struct acc {
    ex_app *a;
    pthread_mutex_t mu;
    size_t bad;
} acc;

static int kernel(const mh_split_launch *l, void *user, mh_err *err) {
    (void)user;
    int e = ex_vecadd_launch(l->split[0], l->split[1], l->split[2], l->end - l->begin, l->stream);
    return e ? mh_err_set(err, MH_ERR_CUDA, "vecadd launch: error %d", e) : 0;
}

static void fill(size_t b, size_t e, void *u) {
    ex_app *a = u;
    float *x = a->bufs[0].host, *y = a->bufs[1].host;
    for (size_t i = b; i < e; i++) {
        x[i] = (float)ex_unif(a->seed, 1, i);
        y[i] = (float)ex_unif(a->seed, 2, i) * 1000.0f;
    }
}

static void chk(size_t b, size_t e, void *u) {
    acc *c = u;
    const float *x = c->a->bufs[0].host, *y = c->a->bufs[1].host, *z = c->a->bufs[2].host;
    size_t bad = 0;
    for (size_t i = b; i < e; i++) bad += !(z[i] == x[i] + y[i]); /* NaN poison fails too */
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
    for (int i = 0; i < 3; i++) {
        a->bufs[i].bytes_per_iter = sizeof(float);
        a->bufs[i].dir = i < 2 ? MH_SPLIT_IN : MH_SPLIT_OUT;
        a->bufs[i].host = ex_host_alloc(a->n * sizeof(float), a->pinned);
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
    a.name = "vecadd";
    a.kernel = kernel;
    a.check = check;
    return ex_main(argc, argv, &a, (size_t)1 << 28, setup, teardown);
}
