/* readahead.c -- decompresses a trace's chunks ahead of the reader on one
 * helper thread, so that the thread calling mh_trace_next only decodes
 * records (zstd is the largest single cost of reading a trace).
 *
 * A ring of depth + 1 slots: the reader holds at most one (the chunk whose
 * records it is handing out), the helper fills the others in file order with
 * mh_tf_load and stops at the first error or the end of the file; a slot
 * carries either a chunk or that error, so the reader sees exactly what the
 * inline path would have seen, at the same point. The reader starts the
 * helper (mh_tf_ahead_start) and always joins it (mh_tf_ahead_stop), also
 * after an error or when it closes early. No state outside the struct. */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

#include "trace/chunks.h"

typedef struct slot {
    mh_tf_buf buf;
    int status; /* mh_tf_load's return */
    mh_err err; /* its message when status != MH_OK */
} slot;

struct mh_tf_ahead {
    mh_tf_loader *ld;  /* the helper's while it runs */
    slot *slots;
    unsigned n;        /* ring size: depth + 1 */
    pthread_t tid;
    pthread_mutex_t mu;
    pthread_cond_t ready, space;
    uint64_t produced; /* slots filled by the helper */
    uint64_t consumed; /* slots taken by the reader */
    uint64_t released; /* slots given back by the reader */
    int stop;          /* set by mh_tf_ahead_stop */
    int ended;         /* the reader took the last slot (error or end of file) */
};

static void *helper(void *arg) {
    mh_tf_ahead *a = arg;
    for (;;) {
        pthread_mutex_lock(&a->mu);
        while (!a->stop && a->produced - a->released >= a->n) pthread_cond_wait(&a->space, &a->mu);
        int stop = a->stop;
        pthread_mutex_unlock(&a->mu);
        if (stop) break;
        /* The slot is free: only the helper touches it until produced moves. */
        slot *s = &a->slots[a->produced % a->n];
        s->status = mh_tf_load(a->ld, &s->buf, &s->err);
        int last = s->status != MH_OK || s->buf.eof;
        pthread_mutex_lock(&a->mu);
        a->produced++;
        pthread_cond_signal(&a->ready);
        pthread_mutex_unlock(&a->mu);
        if (last) break;
    }
    return NULL;
}

mh_tf_ahead *mh_tf_ahead_start(mh_tf_loader *ld, unsigned depth) {
    assert(depth > 0);
    mh_tf_ahead *a = calloc(1, sizeof *a);
    if (!a) return NULL;
    a->ld = ld;
    a->n = depth + 1;
    a->slots = calloc(a->n, sizeof *a->slots);
    if (!a->slots) goto fail_slots;
    if (pthread_mutex_init(&a->mu, NULL)) goto fail_mu;
    if (pthread_cond_init(&a->ready, NULL)) goto fail_ready;
    if (pthread_cond_init(&a->space, NULL)) goto fail_space;
    if (pthread_create(&a->tid, NULL, helper, a)) goto fail_thread;
    return a;
fail_thread:
    pthread_cond_destroy(&a->space);
fail_space:
    pthread_cond_destroy(&a->ready);
fail_ready:
    pthread_mutex_destroy(&a->mu);
fail_mu:
    free(a->slots);
fail_slots:
    free(a);
    return NULL;
}

int mh_tf_ahead_next(mh_tf_ahead *a, const mh_tf_buf **b, mh_err *err) {
    assert(!a->ended);
    pthread_mutex_lock(&a->mu);
    if (a->released < a->consumed) { /* the chunk handed out before */
        a->released++;
        pthread_cond_signal(&a->space);
    }
    while (a->produced == a->consumed) pthread_cond_wait(&a->ready, &a->mu);
    slot *s = &a->slots[a->consumed % a->n];
    a->consumed++;
    pthread_mutex_unlock(&a->mu);
    if (s->status != MH_OK || s->buf.eof) a->ended = 1;
    if (s->status != MH_OK) {
        if (err) *err = s->err;
        return s->status;
    }
    *b = &s->buf;
    return MH_OK;
}

void mh_tf_ahead_stop(mh_tf_ahead *a) {
    if (!a) return;
    pthread_mutex_lock(&a->mu);
    a->stop = 1;
    pthread_cond_signal(&a->space);
    pthread_mutex_unlock(&a->mu);
    pthread_join(a->tid, NULL);
    for (unsigned i = 0; i < a->n; i++) free(a->slots[i].buf.raw);
    free(a->slots);
    pthread_cond_destroy(&a->space);
    pthread_cond_destroy(&a->ready);
    pthread_mutex_destroy(&a->mu);
    free(a);
}
