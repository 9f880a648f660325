/* split_pool.c -- the host threads that copy between the user's pageable
 * arrays and pinned staging (mh_split_pool_).
 *
 * Staging copies are the pipeline's host stage: for pageable buffers every
 * byte crosses host memory once more before or after its DMA. One memcpy
 * thread cannot saturate host memory, and starting threads for every copy
 * cost ~0.2 ms per call (measured on the GPU hosts), so the threads are
 * started once per device and kept in the context with the other resources.
 * The calling thread takes parts too; a pool that could not be made (NULL)
 * means plain memcpy. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "split_internal.h"

struct mh_split_pool {
    pthread_mutex_t mu;
    pthread_cond_t work; /* a copy was posted, or quit */
    pthread_cond_t idle; /* every part of the posted copy is done */
    int nthreads;
    pthread_t *tid;
    char *dst;
    const char *src;
    size_t len, chunk, nparts;
    size_t next; /* next part to take */
    size_t done; /* parts finished */
    int quit;
};

/* Copy the parts of the posted copy until none is left; mu is held on entry
 * and on return. */
static void take_parts(mh_split_pool *p) {
    while (p->next < p->nparts) {
        size_t k = p->next++;
        size_t off = k * p->chunk;
        size_t n = p->len - off < p->chunk ? p->len - off : p->chunk;
        pthread_mutex_unlock(&p->mu);
        memcpy(p->dst + off, p->src + off, n);
        pthread_mutex_lock(&p->mu);
        if (++p->done == p->nparts) pthread_cond_signal(&p->idle);
    }
}

static void *pool_main(void *arg) {
    mh_split_pool *p = arg;
    pthread_mutex_lock(&p->mu);
    while (!p->quit) {
        if (p->next >= p->nparts) {
            pthread_cond_wait(&p->work, &p->mu);
            continue;
        }
        take_parts(p);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

mh_split_pool *mh_split_pool_new(int nthreads) {
    if (nthreads < 1) return NULL;
    mh_split_pool *p = calloc(1, sizeof *p);
    if (!p || !(p->tid = calloc((size_t)nthreads, sizeof *p->tid))) {
        free(p);
        return NULL;
    }
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->work, NULL);
    pthread_cond_init(&p->idle, NULL);
    for (int i = 0; i < nthreads; i++) {
        if (pthread_create(&p->tid[i], NULL, pool_main, p) != 0) break;
        p->nthreads++;
    }
    if (p->nthreads == 0) {
        mh_split_pool_free(p);
        return NULL;
    }
    return p;
}

void mh_split_pool_free(mh_split_pool *p) {
    if (!p) return;
    pthread_mutex_lock(&p->mu);
    p->quit = 1;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < p->nthreads; i++) pthread_join(p->tid[i], NULL);
    pthread_cond_destroy(&p->work);
    pthread_cond_destroy(&p->idle);
    pthread_mutex_destroy(&p->mu);
    free(p->tid);
    free(p);
}

int mh_split_pool_threads(const mh_split_pool *p) { return p ? p->nthreads : 0; }

void mh_split_pool_copy(mh_split_pool *p, void *dst, const void *src, size_t n) {
    if (!p || n < MH_SPLIT_PAR_COPY_MIN) {
        memcpy(dst, src, n);
        return;
    }
    size_t parts = (size_t)p->nthreads + 1, chunk = (n + parts - 1) / parts;
    chunk = (chunk + 4095) & ~(size_t)4095;
    pthread_mutex_lock(&p->mu);
    p->dst = dst;
    p->src = src;
    p->len = n;
    p->chunk = chunk;
    p->nparts = (n + chunk - 1) / chunk;
    p->done = 0;
    p->next = 0;
    pthread_cond_broadcast(&p->work);
    take_parts(p);
    while (p->done < p->nparts) pthread_cond_wait(&p->idle, &p->mu);
    p->nparts = 0; /* nothing posted: the threads sleep */
    p->next = 0;
    pthread_mutex_unlock(&p->mu);
}
