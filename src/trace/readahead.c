/* readahead.c -- decompresses a trace's chunks ahead of the reader on helper
 * threads, so that the thread calling mh_trace_next only decodes records
 * (zstd is the largest single cost of reading a trace, and on a many-core
 * machine one thread of it bounds the whole analysis).
 *
 * A ring of depth + 1 slots: the reader holds at most one (the chunk whose
 * records it is handing out), the helpers fill the others. A helper claims
 * the next slot and fetches its chunk (header, payload, CRCs: mh_tf_fetch)
 * under fetch_mu, so chunks are read in file order, one helper at a time;
 * it then decompresses the chunk (mh_tf_inflate, its own zstd context)
 * while the next helper fetches. The reader takes the slots in claim order,
 * each once it is ready. A slot carries a chunk or the error met there, so
 * the reader sees exactly what the inline path would have seen, at the same
 * point; after an error or the end of the file no more chunks are claimed
 * (a helper busy decompressing may have fetched a few chunks past a chunk
 * that does not decompress; they are never handed out). The reader starts the
 * helpers (mh_tf_ahead_start) and always joins them (mh_tf_ahead_stop), also
 * after an error or when it closes early. No state outside the struct. */
#ifdef __linux__
#define _GNU_SOURCE /* pthread_setname_np: the helpers show as memheat-inflate in top and perf */
#endif
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

#include "trace/chunks.h"
#include "util/clock.h"

typedef struct slot {
    mh_tf_packed pk;
    mh_tf_buf buf;
    int status; /* mh_tf_fetch's or mh_tf_inflate's return */
    mh_err err; /* its message when status != MH_OK */
    int ready;  /* under mu: filled since it was claimed */
} slot;

typedef struct helper_arg {
    struct mh_tf_ahead *a;
    mh_tf_inflater inf;
} helper_arg;

struct mh_tf_ahead {
    mh_tf_loader *ld;   /* the helpers' (under fetch_mu) while they run */
    slot *slots;
    unsigned n;         /* ring size: depth + 1 */
    unsigned nthreads;  /* helpers started */
    pthread_t *tids;
    helper_arg *args;
    pthread_mutex_t mu; /* counters, flags, slot.ready */
    pthread_mutex_t fetch_mu; /* claiming a slot and reading its chunk: file order */
    pthread_cond_t ready, space;
    uint64_t claimed;   /* slots claimed by helpers, in file order */
    uint64_t consumed;  /* slots taken by the reader */
    uint64_t released;  /* slots given back by the reader */
    int stop;           /* set by mh_tf_ahead_stop */
    int no_more;        /* an error or the end of the file was met: no more claims */
    int ended;          /* the reader took the last slot (error or end of file) */
    double helpers_cpu; /* under mu: CPU seconds the helpers spent on chunks */
    uint64_t wait_ns;   /* the reader's: waiting for a chunk to be ready */
};

static void *helper(void *arg) {
    helper_arg *h = arg;
    mh_tf_ahead *a = h->a;
#ifdef __linux__
    pthread_setname_np(pthread_self(), "memheat-inflate");
#endif
    for (;;) {
        pthread_mutex_lock(&a->fetch_mu);
        pthread_mutex_lock(&a->mu);
        while (!a->stop && !a->no_more && a->claimed - a->released >= a->n) pthread_cond_wait(&a->space, &a->mu);
        if (a->stop || a->no_more) {
            pthread_mutex_unlock(&a->mu);
            pthread_mutex_unlock(&a->fetch_mu);
            break;
        }
        /* The slot is free: only this helper touches it until it is ready. */
        slot *s = &a->slots[a->claimed % a->n];
        s->ready = 0;
        a->claimed++;
        pthread_mutex_unlock(&a->mu);
        double cpu0 = mh_clock_thread_cpu_s();
        s->status = mh_tf_fetch(a->ld, &s->pk, &s->err);
        int last = s->status != MH_OK || s->pk.eof;
        if (last) {
            pthread_mutex_lock(&a->mu);
            a->no_more = 1;
            pthread_cond_broadcast(&a->space);
            pthread_mutex_unlock(&a->mu);
        }
        pthread_mutex_unlock(&a->fetch_mu);
        if (s->status == MH_OK && s->pk.eof) s->buf.eof = 1;
        if (!last) {
            s->status = mh_tf_inflate(&h->inf, a->ld->path, &s->pk, &s->buf, &s->err);
            last = s->status != MH_OK;
        }
        double cpu = mh_clock_thread_cpu_s() - cpu0;
        pthread_mutex_lock(&a->mu);
        a->helpers_cpu += cpu;
        s->ready = 1;
        if (last) a->no_more = 1;
        pthread_cond_broadcast(&a->ready);
        if (last) pthread_cond_broadcast(&a->space);
        pthread_mutex_unlock(&a->mu);
        if (last) break;
    }
    return NULL;
}

static void free_all(mh_tf_ahead *a) {
    for (unsigned i = 0; a->args && i < a->nthreads; i++) mh_tf_inflater_free(&a->args[i].inf);
    for (unsigned i = 0; a->slots && i < a->n; i++) {
        free(a->slots[i].buf.raw);
        free(a->slots[i].pk.comp);
    }
    free(a->slots);
    free(a->tids);
    free(a->args);
    free(a);
}

mh_tf_ahead *mh_tf_ahead_start(mh_tf_loader *ld, unsigned depth, unsigned threads) {
    assert(depth > 0 && threads > 0);
    if (threads > depth) threads = depth;
    mh_tf_ahead *a = calloc(1, sizeof *a);
    if (!a) return NULL;
    a->ld = ld;
    a->n = depth + 1;
    a->slots = calloc(a->n, sizeof *a->slots);
    a->tids = calloc(threads, sizeof *a->tids);
    a->args = calloc(threads, sizeof *a->args);
    if (!a->slots || !a->tids || !a->args) {
        free_all(a);
        return NULL;
    }
    if (pthread_mutex_init(&a->mu, NULL)) goto fail_mu;
    if (pthread_mutex_init(&a->fetch_mu, NULL)) goto fail_fetch_mu;
    if (pthread_cond_init(&a->ready, NULL)) goto fail_ready;
    if (pthread_cond_init(&a->space, NULL)) goto fail_space;
    /* as many helpers as can be had, at least one */
    for (unsigned i = 0; i < threads; i++) {
        a->args[i] = (helper_arg){.a = a, .inf = {.dctx = ZSTD_createDCtx()}};
        if (!a->args[i].inf.dctx) break;
        if (pthread_create(&a->tids[i], NULL, helper, &a->args[i])) {
            mh_tf_inflater_free(&a->args[i].inf);
            break;
        }
        a->nthreads++;
    }
    if (a->nthreads > 0) return a;
    pthread_cond_destroy(&a->space);
fail_space:
    pthread_cond_destroy(&a->ready);
fail_ready:
    pthread_mutex_destroy(&a->fetch_mu);
fail_fetch_mu:
    pthread_mutex_destroy(&a->mu);
fail_mu:
    free_all(a);
    return NULL;
}

int mh_tf_ahead_next(mh_tf_ahead *a, const mh_tf_buf **b, mh_err *err) {
    assert(!a->ended);
    pthread_mutex_lock(&a->mu);
    if (a->released < a->consumed) { /* the chunk handed out before */
        a->released++;
        pthread_cond_signal(&a->space);
    }
    slot *s = &a->slots[a->consumed % a->n];
    if (a->consumed == a->claimed || !s->ready) {
        uint64_t t0 = mh_clock_ns();
        while (a->consumed == a->claimed || !s->ready) pthread_cond_wait(&a->ready, &a->mu);
        a->wait_ns += mh_clock_ns() - t0;
    }
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

void mh_tf_ahead_swap(mh_tf_ahead *a, unsigned char **raw, size_t *cap) {
    /* the slot handed out last is the reader's until the next call: no lock */
    assert(a->consumed > a->released);
    mh_tf_buf *b = &a->slots[(a->consumed - 1) % a->n].buf;
    unsigned char *r = b->raw;
    size_t c = b->rcap;
    b->raw = *raw;
    b->rcap = *cap;
    *raw = r;
    *cap = c;
}

void mh_tf_ahead_times(mh_tf_ahead *a, double *wait_s, double *helpers_cpu_s) {
    pthread_mutex_lock(&a->mu);
    *wait_s = (double)a->wait_ns * 1e-9;
    *helpers_cpu_s = a->helpers_cpu;
    pthread_mutex_unlock(&a->mu);
}

void mh_tf_ahead_stop(mh_tf_ahead *a) {
    if (!a) return;
    pthread_mutex_lock(&a->mu);
    a->stop = 1;
    pthread_cond_broadcast(&a->space);
    pthread_mutex_unlock(&a->mu);
    for (unsigned i = 0; i < a->nthreads; i++) pthread_join(a->tids[i], NULL);
    pthread_cond_destroy(&a->space);
    pthread_cond_destroy(&a->ready);
    pthread_mutex_destroy(&a->fetch_mu);
    pthread_mutex_destroy(&a->mu);
    free_all(a);
}
