/* hold.c -- decompressed chunks kept past the reader (mh_trace_hold,
 * memheat/trace.h), and the pool their buffers go back to.
 *
 * The reader hands out access arrays that point into the current chunk's
 * buffer. A consumer on another thread (the analysis lanes, which get each
 * launch's accesses) can keep that buffer instead of copying the accesses: it
 * takes a reference on the chunk's hold. When the reader moves on, the held
 * chunk's buffer is handed to the hold (the reader's slot gets a buffer from
 * the pool), and the last release puts it back in the pool, so a kept chunk
 * costs neither a copy nor fresh pages. The pool outlives the reader while
 * any hold is alive (both are counted). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "trace/chunks.h"
#include "util/grow.h"

#define POOL_MAX 64 /* spare buffers kept (each one chunk, about 1 MiB); more are freed */

struct mh_tf_pool {
    pthread_mutex_t mu;
    unsigned refs; /* the reader and every live hold */
    size_t n;
    unsigned char *raw[POOL_MAX];
    size_t cap[POOL_MAX];
};

struct mh_trace_hold {
    atomic_uint refs;   /* consumers, plus one while the reader is on the chunk */
    unsigned char *raw; /* the chunk's buffer once the reader moved on */
    size_t cap;
    mh_tf_pool *pool;
};

mh_tf_pool *mh_tf_pool_new(void) {
    mh_tf_pool *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    if (pthread_mutex_init(&p->mu, NULL) != 0) {
        free(p);
        return NULL;
    }
    p->refs = 1;
    return p;
}

void mh_tf_pool_take(mh_tf_pool *p, unsigned char **raw, size_t *cap) {
    *raw = NULL;
    *cap = 0;
    pthread_mutex_lock(&p->mu);
    if (p->n) {
        p->n--;
        *raw = p->raw[p->n];
        *cap = p->cap[p->n];
    }
    pthread_mutex_unlock(&p->mu);
}

static void pool_put(mh_tf_pool *p, unsigned char *raw, size_t cap) {
    pthread_mutex_lock(&p->mu);
    if (p->n < POOL_MAX) {
        p->raw[p->n] = raw;
        p->cap[p->n++] = cap;
        raw = NULL;
    }
    pthread_mutex_unlock(&p->mu);
    free(raw);
}

void mh_tf_pool_unref(mh_tf_pool *p) {
    if (!p) return;
    pthread_mutex_lock(&p->mu);
    unsigned left = --p->refs;
    pthread_mutex_unlock(&p->mu);
    if (left) return;
    for (size_t i = 0; i < p->n; i++) free(p->raw[i]);
    pthread_mutex_destroy(&p->mu);
    free(p);
}

mh_trace_hold *mh_tf_hold_new(mh_tf_pool *p) {
    mh_trace_hold *h = calloc(1, sizeof *h);
    if (!h) return NULL;
    atomic_init(&h->refs, 1);
    h->pool = p;
    pthread_mutex_lock(&p->mu);
    p->refs++;
    pthread_mutex_unlock(&p->mu);
    return h;
}

void mh_tf_hold_keep(mh_trace_hold *h, unsigned char *raw, size_t cap) {
    h->raw = raw;
    h->cap = cap;
    mh_trace_hold_release(h); /* the reader's reference */
}

void mh_trace_hold_ref(mh_trace_hold *h) { atomic_fetch_add(&h->refs, 1); }

void mh_trace_hold_release(mh_trace_hold *h) {
    if (!h || atomic_fetch_sub(&h->refs, 1) != 1) return;
    if (h->raw) pool_put(h->pool, h->raw, h->cap);
    mh_tf_pool_unref(h->pool);
    free(h);
}

int mh_trace_holds_add(mh_trace_holds *l, mh_trace_hold *h) {
    if (l->n && l->v[l->n - 1] == h) return MH_OK;
    if (l->n == l->cap) {
        mh_trace_hold **v = mh_grow(l->v, &l->cap, l->n + 1, sizeof *v, 8);
        if (!v) return MH_ERR_NOMEM;
        l->v = v;
    }
    mh_trace_hold_ref(h);
    l->v[l->n++] = h;
    return MH_OK;
}

void mh_trace_holds_clear(mh_trace_holds *l) {
    for (size_t i = 0; i < l->n; i++) mh_trace_hold_release(l->v[i]);
    l->n = 0;
}

void mh_trace_holds_free(mh_trace_holds *l) {
    mh_trace_holds_clear(l);
    free(l->v);
    l->v = NULL;
    l->cap = 0;
}
