/* writer.c -- streaming writer of trace format v5.
 *
 * Records are appended to an uncompressed chunk buffer; when it passes the
 * chunk size (or on flush/close) the buffer is coded (the access entries as
 * planes of word differences, chunk_code.h), zstd-compressed, framed with a
 * checksummed chunk header and written with write(2). Consecutive access
 * batches are merged into one ACCESSES record so that an access costs its 32
 * bytes and nothing more. The header chunk is written at once, so even a run
 * that dies at its first kernel leaves a readable file.
 *
 * With opts->background a thread of the writer's own codes, compresses and
 * writes the chunks, in the order they were ended: mh_trace_flush hands the
 * chunk over and returns (the caller's thread, a traced program's launch,
 * does not wait for zstd), at most BG_QUEUE chunks wait, and an error of
 * the thread is returned by the next call. mh_trace_sync waits for the
 * chunks handed over; close waits for them before its END record. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "trace/chunk_code.h"
#include "trace/format.h"
#include "util/crc32c.h"
#include "util/grow.h"

#define DEFAULT_CHUNK (1u << 20)
#define BG_QUEUE 8 /* chunks handed over and not yet written, at most */

/* A chunk handed to the background thread. */
typedef struct bg_job {
    unsigned char *raw;
    size_t len, cap;
    uint32_t index;
} bg_job;

struct mh_trace_writer {
    int fd;
    int level;
    size_t chunk_bytes;
    unsigned char *raw; /* uncompressed chunk under construction */
    size_t len, cap;
    size_t acc_rec;     /* offset of the open ACCESSES record, or SIZE_MAX */
    unsigned char *code; /* the chunk coded (chunk_code.h) */
    size_t code_cap;
    unsigned char *comp;
    size_t comp_cap;
    ZSTD_CCtx *cctx;
    uint32_t chunk_index;
    uint32_t chain;     /* CRC-32C over the payload CRCs of the chunks written (END states it) */
    uint64_t records;   /* records begun, the header included */
    uint64_t accesses;
    char path[1024];
    /* background mode (bg): the thread and what it shares, under mu */
    int bg;
    pid_t pid;                /* the process whose thread it is (a forked child has none) */
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t work, done;
    bg_job q[BG_QUEUE];       /* ring: head, n */
    unsigned head, n;
    int stop;
    unsigned char *spare[BG_QUEUE]; /* raw buffers back from the thread */
    size_t spare_cap[BG_QUEUE];
    unsigned nspare;
    int bg_rc;                /* first error of the thread (sticky) */
    char bg_msg[sizeof(((mh_err *)0)->msg)];
};

static int write_all(mh_trace_writer *w, const void *buf, size_t n, mh_err *err) {
    const unsigned char *p = buf;
    while (n > 0) {
        ssize_t k = write(w->fd, p, n);
        if (k < 0) {
            if (errno == EINTR) continue;
            return mh_err_set(err, MH_ERR_IO, "writing trace %s: %s", w->path, strerror(errno));
        }
        p += k;
        n -= (size_t)k;
    }
    return MH_OK;
}

static int reserve(mh_trace_writer *w, size_t extra, mh_err *err) {
    if (w->len + extra <= w->cap) return MH_OK;
    unsigned char *p = mh_grow(w->raw, &w->cap, w->len + extra, 1, DEFAULT_CHUNK);
    if (!p) return mh_err_set(err, MH_ERR_NOMEM, "out of memory for a %zu-byte trace chunk", w->len + extra);
    w->raw = p;
    return MH_OK;
}

/* Codes, compresses and writes the chunk raw[0..len) as chunk `index`;
 * updates the chain. The thread that owns code, comp, cctx and chain: the
 * caller's, or the background thread. */
static int write_chunk(mh_trace_writer *w, const unsigned char *raw, size_t len, uint32_t index, mh_err *err) {
    size_t clen0 = len + MH_TF_CODE_EXTRA;
    if (clen0 > w->code_cap) {
        unsigned char *p = realloc(w->code, clen0);
        if (!p) return mh_err_set(err, MH_ERR_NOMEM, "out of memory coding a trace chunk");
        w->code = p;
        w->code_cap = clen0;
    }
    mh_tf_code(raw, len, w->code);
    size_t bound = ZSTD_compressBound(clen0);
    if (bound > w->comp_cap) {
        unsigned char *p = realloc(w->comp, bound);
        if (!p) return mh_err_set(err, MH_ERR_NOMEM, "out of memory compressing a trace chunk");
        w->comp = p;
        w->comp_cap = bound;
    }
    size_t clen = ZSTD_compressCCtx(w->cctx, w->comp, w->comp_cap, w->code, clen0, w->level);
    if (ZSTD_isError(clen))
        return mh_err_set(err, MH_ERR_INTERNAL, "zstd: %s", ZSTD_getErrorName(clen));
    unsigned char hdr[MH_TF_CHUNK_HDR_BYTES];
    mh_put32(hdr, MH_TF_CHUNK_MAGIC);
    mh_put32(hdr + 4, index);
    mh_put32(hdr + 8, (uint32_t)clen0);
    mh_put32(hdr + 12, (uint32_t)clen);
    mh_put32(hdr + 16, mh_crc32c(0, w->comp, clen));
    mh_put32(hdr + 20, mh_crc32c(0, hdr, 20));
    int rc = write_all(w, hdr, sizeof hdr, err);
    if (rc == MH_OK) rc = write_all(w, w->comp, clen, err);
    if (rc != MH_OK) return rc;
    w->chain = mh_crc32c(w->chain, hdr + 16, 4);
    return MH_OK;
}

static void *bg_main(void *arg) {
    mh_trace_writer *w = arg;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (!w->n && !w->stop) pthread_cond_wait(&w->work, &w->mu);
        if (!w->n) break; /* stopped, nothing left */
        bg_job j = w->q[w->head];
        int failed = w->bg_rc != MH_OK;
        pthread_mutex_unlock(&w->mu);
        mh_err e;
        mh_err_clear(&e);
        int rc = failed ? MH_OK : write_chunk(w, j.raw, j.len, j.index, &e);
        pthread_mutex_lock(&w->mu);
        w->head = (w->head + 1) % BG_QUEUE;
        __atomic_sub_fetch(&w->n, 1, __ATOMIC_RELEASE);
        if (rc != MH_OK && w->bg_rc == MH_OK) {
            w->bg_rc = rc;
            snprintf(w->bg_msg, sizeof w->bg_msg, "%s", e.msg);
        }
        if (w->nspare < BG_QUEUE) {
            w->spare[w->nspare] = j.raw;
            w->spare_cap[w->nspare++] = j.cap;
        } else {
            free(j.raw);
        }
        pthread_cond_broadcast(&w->done);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

/* Under mu: the thread's first error, as the caller's (every call after it). */
static int bg_error(mh_trace_writer *w, mh_err *err) {
    return w->bg_rc == MH_OK ? MH_OK : mh_err_set(err, w->bg_rc, "%s", w->bg_msg);
}

/* 1 in a child forked after the thread started: the thread is not there. */
static int bg_forked(const mh_trace_writer *w) {
    return getpid() != w->pid;
}

int mh_trace_sync(mh_trace_writer *w, mh_err *err) {
    if (!w->bg) return MH_OK;
    if (bg_forked(w)) return mh_err_set(err, MH_ERR_IO, "trace %s: written by another process (forked)", w->path);
    pthread_mutex_lock(&w->mu);
    while (w->n) pthread_cond_wait(&w->done, &w->mu);
    int rc = bg_error(w, err);
    pthread_mutex_unlock(&w->mu);
    return rc;
}

int mh_trace_pending(mh_trace_writer *w) {
    if (!w->bg) return 0;
    return (int)__atomic_load_n(&w->n, __ATOMIC_ACQUIRE);
}

int mh_trace_flush(mh_trace_writer *w, mh_err *err) {
    w->acc_rec = SIZE_MAX;
    if (w->len == 0) return MH_OK;
    if (!w->bg) {
        int rc = write_chunk(w, w->raw, w->len, w->chunk_index, err);
        if (rc != MH_OK) return rc;
        w->chunk_index++;
        w->len = 0;
        return MH_OK;
    }
    if (bg_forked(w)) return mh_err_set(err, MH_ERR_IO, "trace %s: written by another process (forked)", w->path);
    pthread_mutex_lock(&w->mu);
    while (w->n == BG_QUEUE) pthread_cond_wait(&w->done, &w->mu);
    int rc = bg_error(w, err);
    if (rc == MH_OK) {
        w->q[(w->head + w->n) % BG_QUEUE] = (bg_job){w->raw, w->len, w->cap, w->chunk_index++};
        __atomic_add_fetch(&w->n, 1, __ATOMIC_RELEASE);
        if (w->nspare) {
            w->raw = w->spare[--w->nspare];
            w->cap = w->spare_cap[w->nspare];
        } else {
            w->raw = NULL;
            w->cap = 0;
        }
        w->len = 0;
        pthread_cond_signal(&w->work);
    }
    pthread_mutex_unlock(&w->mu);
    return rc;
}

/* Opens a record of `type` with `plen` payload bytes; returns its payload. */
static unsigned char *rec_begin(mh_trace_writer *w, int type, size_t plen, mh_err *err) {
    size_t total = MH_TF_REC_HDR_BYTES + ((plen + 7u) & ~(size_t)7u);
    if (w->len > 0 && w->len + total > w->chunk_bytes && mh_trace_flush(w, err) != MH_OK) return NULL;
    w->acc_rec = SIZE_MAX;
    if (reserve(w, total, err) != MH_OK) return NULL;
    unsigned char *p = w->raw + w->len;
    memset(p, 0, total);
    p[0] = (unsigned char)type;
    mh_put32(p + 4, (uint32_t)plen);
    w->len += total;
    w->records++;
    return p + MH_TF_REC_HDR_BYTES;
}

#define MAX_STR 65535u /* longer names are cut: a record must fit a chunk */

static size_t str_len(const char *s) {
    size_t n = s ? strlen(s) : 0;
    return n > MAX_STR ? MAX_STR : n;
}

static size_t str_bytes(const char *s) { return 4 + str_len(s); }

static unsigned char *put_str(unsigned char *p, const char *s) {
    size_t n = str_len(s);
    mh_put32(p, (uint32_t)n);
    if (n) memcpy(p + 4, s, n);
    return p + 4 + n;
}

static int after_record(mh_trace_writer *w, mh_err *err) {
    return w->len >= w->chunk_bytes ? mh_trace_flush(w, err) : MH_OK;
}

int mh_trace_create(mh_trace_writer **out, const char *path, const mh_trace_header *h,
                    const mh_trace_writer_opts *opts, mh_err *err) {
    *out = NULL;
    mh_trace_writer *w = calloc(1, sizeof *w);
    if (!w) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    snprintf(w->path, sizeof w->path, "%s", path);
    w->level = opts && opts->zstd_level ? opts->zstd_level : 1;
    w->chunk_bytes = opts && opts->chunk_bytes ? opts->chunk_bytes : DEFAULT_CHUNK;
    if (w->chunk_bytes > MH_TF_MAX_RAW / 2) w->chunk_bytes = MH_TF_MAX_RAW / 2;
    w->acc_rec = SIZE_MAX;
    w->cctx = ZSTD_createCCtx();
    w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (w->fd < 0) {
        int e = errno;
        if (w->cctx) ZSTD_freeCCtx(w->cctx);
        free(w);
        return mh_err_set(err, MH_ERR_IO, "cannot create trace %s: %s", path, strerror(e));
    }
    if (!w->cctx) {
        mh_trace_abandon(w);
        return mh_err_set(err, MH_ERR_NOMEM, "out of memory (zstd context)");
    }
    unsigned char prefix[MH_TF_PREFIX_BYTES] = {0};
    memcpy(prefix, MH_TF_MAGIC, 8);
    mh_put32(prefix + 8, MH_TRACE_VERSION);
    int rc = write_all(w, prefix, sizeof prefix, err);

    const mh_device *d = &h->device;
    size_t plen = 4 + 8 MH_TRACE_DEVICE_FIELDS(MH_TDF_BYTES, MH_TDF_NONE) + str_bytes(d->name) +
                  str_bytes(h->producer) + str_bytes(h->command) + str_bytes(h->note);
    unsigned char *p = rc == MH_OK ? rec_begin(w, MH_REC_HEADER, plen, err) : NULL;
    if (!p) {
        mh_trace_abandon(w);
        return err ? err->code : MH_ERR_IO;
    }
    mh_put32(p, MH_TRACE_VERSION);
    mh_put64(p + 4, h->start_unix_ns);
    p += 12; /* the device fields in list order (trace_fields.h) */
#define PUT_U32(v) (mh_put32(p, v), p += 4)
#define PUT_U64(v) (mh_put64(p, v), p += 8)
#define PUT(KIND, f, BRK) PUT_##KIND(d->f);
    MH_TRACE_DEVICE_FIELDS(PUT, MH_TDF_NONE)
#undef PUT
#undef PUT_U32
#undef PUT_U64
    p = put_str(p, d->name);
    p = put_str(p, h->producer);
    p = put_str(p, h->command);
    put_str(p, h->note);
    if ((rc = mh_trace_flush(w, err)) != MH_OK) {
        mh_trace_abandon(w);
        return rc;
    }
    if (opts && opts->background) {
        if (pthread_mutex_init(&w->mu, NULL) != 0) goto no_thread;
        if (pthread_cond_init(&w->work, NULL) != 0) {
            pthread_mutex_destroy(&w->mu);
            goto no_thread;
        }
        if (pthread_cond_init(&w->done, NULL) != 0) {
            pthread_cond_destroy(&w->work);
            pthread_mutex_destroy(&w->mu);
            goto no_thread;
        }
        w->pid = getpid();
        if (pthread_create(&w->th, NULL, bg_main, w) != 0) {
            pthread_cond_destroy(&w->done);
            pthread_cond_destroy(&w->work);
            pthread_mutex_destroy(&w->mu);
            goto no_thread;
        }
        w->bg = 1;
    }
no_thread: /* without its thread the writer writes on the caller's */
    *out = w;
    return MH_OK;
}

int mh_trace_write_launch(mh_trace_writer *w, const mh_launch *l, mh_err *err) {
    uint32_t ns = l->n_sampled == MH_TRACE_ALL_BLOCKS ? 0 : l->n_sampled;
    size_t plen = 4 + 24 + 12 + 8 + 4 + 4 * (size_t)ns + str_bytes(l->name) + str_bytes(l->display_name);
    unsigned char *p = rec_begin(w, MH_REC_LAUNCH, plen, err);
    if (!p) return err ? err->code : MH_ERR_IO;
    uint32_t f[10] = {l->id, l->grid.x, l->grid.y, l->grid.z, l->block.x, l->block.y, l->block.z,
                      l->dyn_smem, l->static_smem, l->regs};
    for (int i = 0; i < 10; i++) mh_put32(p + 4 * i, f[i]);
    mh_put64(p + 40, l->stream);
    mh_put32(p + 48, l->n_sampled);
    p += 52;
    for (uint32_t i = 0; i < ns; i++, p += 4) mh_put32(p, l->sampled[i]);
    p = put_str(p, l->name);
    put_str(p, l->display_name ? l->display_name : l->name);
    return after_record(w, err);
}

int mh_trace_write_alloc(mh_trace_writer *w, const mh_alloc *a, mh_err *err) {
    unsigned char *p = rec_begin(w, MH_REC_ALLOC, 4 + 4 + 8 + 8 + 4 + str_bytes(a->label), err);
    if (!p) return err ? err->code : MH_ERR_IO;
    mh_put32(p, a->id);
    mh_put32(p + 4, a->launch);
    mh_put64(p + 8, a->base);
    mh_put64(p + 16, a->size);
    p[24] = a->space;
    put_str(p + 28, a->label);
    return after_record(w, err);
}

int mh_trace_write_free(mh_trace_writer *w, const mh_free *f, mh_err *err) {
    unsigned char *p = rec_begin(w, MH_REC_FREE, 12, err);
    if (!p) return err ? err->code : MH_ERR_IO;
    mh_put64(p, f->base);
    p[8] = f->space;
    return after_record(w, err);
}

int mh_trace_write_accesses(mh_trace_writer *w, const mh_access *v, size_t n, mh_err *err) {
    while (n > 0) {
        if (w->acc_rec == SIZE_MAX || w->len >= w->chunk_bytes) {
            if (w->len >= w->chunk_bytes && mh_trace_flush(w, err) != MH_OK) return err ? err->code : MH_ERR_IO;
            unsigned char *p = rec_begin(w, MH_REC_ACCESSES, 8, err);
            if (!p) return err ? err->code : MH_ERR_IO;
            w->acc_rec = (size_t)(p - MH_TF_REC_HDR_BYTES - w->raw);
        }
        size_t room = w->chunk_bytes > w->len ? (w->chunk_bytes - w->len) / MH_TF_ACCESS_BYTES : 0;
        if (room == 0) room = 1;
        size_t k = n < room ? n : room;
        unsigned char *rec = w->raw + w->acc_rec;
        uint32_t have = mh_get32(rec + MH_TF_REC_HDR_BYTES);
        if ((uint64_t)have + k > UINT32_MAX / MH_TF_ACCESS_BYTES) k = UINT32_MAX / MH_TF_ACCESS_BYTES - have;
        if (reserve(w, k * MH_TF_ACCESS_BYTES, err) != MH_OK) return err ? err->code : MH_ERR_NOMEM;
        rec = w->raw + w->acc_rec;
        unsigned char *dst = w->raw + w->len;
#if MH_TF_ACCESS_IS_WIRE
        memcpy(dst, v, k * MH_TF_ACCESS_BYTES);
#else
        for (size_t i = 0; i < k; i++) mh_tf_access_put(dst + i * MH_TF_ACCESS_BYTES, &v[i]);
#endif
        w->len += k * MH_TF_ACCESS_BYTES;
        mh_put32(rec + MH_TF_REC_HDR_BYTES, have + (uint32_t)k);
        mh_put32(rec + 4, mh_get32(rec + 4) + (uint32_t)(k * MH_TF_ACCESS_BYTES));
        w->accesses += k;
        v += k;
        n -= k;
    }
    return MH_OK;
}

int mh_trace_write_kernel_end(mh_trace_writer *w, const mh_kernel_end *e, mh_err *err) {
    unsigned char *p = rec_begin(w, MH_REC_KERNEL_END, 32, err);
    if (!p) return err ? err->code : MH_ERR_IO;
    mh_put32(p, e->launch);
    mh_put64(p + 8, e->recorded);
    mh_put64(p + 16, e->dropped);
    mh_put64(p + 24, e->gpu_ns);
    return after_record(w, err);
}

int mh_trace_write_dropped(mh_trace_writer *w, const mh_dropped *d, mh_err *err) {
    unsigned char *p = rec_begin(w, MH_REC_DROPPED, 16 + str_bytes(d->reason), err);
    if (!p) return err ? err->code : MH_ERR_IO;
    mh_put32(p, d->launch);
    mh_put64(p + 8, d->count);
    put_str(p + 16, d->reason);
    return after_record(w, err);
}

int mh_trace_write_pcinfo(mh_trace_writer *w, const mh_pcinfo *pi, mh_err *err) {
    unsigned char *p = rec_begin(w, MH_REC_PCINFO, 12 + str_bytes(pi->function) + str_bytes(pi->file), err);
    if (!p) return err ? err->code : MH_ERR_IO;
    mh_put64(p, pi->pc);
    mh_put32(p + 8, pi->line);
    p = put_str(p + 12, pi->function);
    put_str(p, pi->file);
    return after_record(w, err);
}

int mh_trace_write_launch_stats(mh_trace_writer *w, const mh_launch_stats *ls, mh_err *err) {
    unsigned char *p = rec_begin(w, MH_REC_LAUNCH_STATS, 48 + str_bytes(ls->name), err);
    if (!p) return err ? err->code : MH_ERR_IO;
    uint32_t f[7] = {ls->grid.x, ls->grid.y, ls->grid.z, ls->block.x, ls->block.y, ls->block.z, ls->dyn_smem};
    for (int i = 0; i < 7; i++) mh_put32(p + 4 * i, f[i]);
    mh_put32(p + 28, 0);
    mh_put64(p + 32, ls->launches);
    mh_put64(p + 40, ls->traced);
    put_str(p + 48, ls->name);
    return after_record(w, err);
}

int mh_trace_write_process(mh_trace_writer *w, const mh_process *pr, mh_err *err) {
    size_t plen = 48 + str_bytes(pr->host) + str_bytes(pr->command);
    for (uint32_t i = 0; i < pr->n_devices; i++) plen += str_bytes(pr->devices[i]);
    unsigned char *p = rec_begin(w, MH_REC_PROCESS, plen, err);
    if (!p) return err ? err->code : MH_ERR_IO;
    mh_put64(p, pr->pid);
    mh_put64(p + 8, pr->ppid);
    int32_t r[6] = {pr->rank, pr->local_rank, pr->world_size, pr->ompi_rank, pr->pmi_rank, pr->slurm_procid};
    for (int i = 0; i < 6; i++) mh_put32(p + 16 + 4 * i, (uint32_t)r[i]);
    mh_put32(p + 40, pr->n_devices);
    mh_put32(p + 44, 0);
    p = put_str(p + 48, pr->host);
    p = put_str(p, pr->command);
    for (uint32_t i = 0; i < pr->n_devices; i++) p = put_str(p, pr->devices[i]);
    return after_record(w, err);
}

int mh_trace_write_karg(mh_trace_writer *w, const mh_karg *k, mh_err *err) {
    unsigned char *p = rec_begin(w, MH_REC_KARG, 28 + str_bytes(k->type) + str_bytes(k->name), err);
    if (!p) return err ? err->code : MH_ERR_IO;
    mh_put32(p, k->launch);
    mh_put32(p + 4, k->index);
    mh_put32(p + 8, k->offset);
    mh_put32(p + 12, k->size);
    mh_put64(p + 16, k->value);
    p[24] = k->space;
    p = put_str(p + 28, k->type);
    put_str(p, k->name);
    return after_record(w, err);
}

/* ---- call sites (version 5) ---- */

#define MAX_SITE_STR 4096u /* a site's file, function and range names are cut here */

static size_t site_str_len(const char *s) {
    size_t n = s ? strlen(s) : 0;
    return n > MAX_SITE_STR ? MAX_SITE_STR : n;
}

static unsigned char *put_site_str(unsigned char *p, const char *s) {
    size_t n = site_str_len(s);
    mh_put32(p, (uint32_t)n);
    if (n) memcpy(p + 4, s, n);
    return p + 4 + n;
}

int mh_trace_write_site_object(mh_trace_writer *w, const mh_site_object *o, mh_err *err) {
    unsigned char *p = rec_begin(w, MH_REC_SITE_OBJECT, 32 + str_bytes(o->path) + str_bytes(o->build_id), err);
    if (!p) return err ? err->code : MH_ERR_IO;
    mh_put32(p, o->id);
    mh_put64(p + 8, o->start);
    mh_put64(p + 16, o->end);
    mh_put64(p + 24, o->bias);
    p = put_str(p + 32, o->path);
    put_str(p, o->build_id);
    return after_record(w, err);
}

int mh_trace_write_site(mh_trace_writer *w, const mh_site *s, mh_err *err) {
    uint32_t flags = s->flags, nn = s->n_native, np = s->n_python, nv = s->n_nvtx;
    if (nn > MH_SITE_MAX_FRAMES) nn = MH_SITE_MAX_FRAMES, flags |= MH_SITE_NATIVE_CUT;
    if (np > MH_SITE_MAX_FRAMES) np = MH_SITE_MAX_FRAMES, flags |= MH_SITE_PY_CUT;
    if (nv > MH_SITE_MAX_NVTX) nv = MH_SITE_MAX_NVTX;
    uint32_t user = s->user;
    if (user != MH_SITE_NONE) {
        if (user < s->n_native) user = user < nn ? user : MH_SITE_NONE;
        else user = user - s->n_native < np ? nn + (user - s->n_native) : MH_SITE_NONE;
    }
    size_t plen = 24 + 12 * (size_t)nn;
    for (uint32_t i = 0; i < np; i++) plen += 12 + site_str_len(s->py[i].file) + site_str_len(s->py[i].function);
    for (uint32_t i = 0; i < nv; i++) plen += 4 + site_str_len(s->nvtx[i]);
    unsigned char *p = rec_begin(w, MH_REC_SITE, plen, err);
    if (!p) return err ? err->code : MH_ERR_IO;
    uint32_t f[6] = {s->id, flags, user, nn, np, nv};
    for (int i = 0; i < 6; i++) mh_put32(p + 4 * i, f[i]);
    p += 24;
    for (uint32_t i = 0; i < nn; i++, p += 8) mh_put64(p, s->pc[i]);
    for (uint32_t i = 0; i < nn; i++, p += 4) mh_put32(p, s->object ? s->object[i] : MH_SITE_NONE);
    for (uint32_t i = 0; i < np; i++) {
        mh_put32(p, s->py[i].line);
        p = put_site_str(p + 4, s->py[i].file);
        p = put_site_str(p, s->py[i].function);
    }
    for (uint32_t i = 0; i < nv; i++) p = put_site_str(p, s->nvtx[i]);
    return after_record(w, err);
}

int mh_trace_write_launch_site(mh_trace_writer *w, const mh_launch_site *ls, mh_err *err) {
    unsigned char *p = rec_begin(w, MH_REC_LAUNCH_SITE, 8, err);
    if (!p) return err ? err->code : MH_ERR_IO;
    mh_put32(p, ls->launch);
    mh_put32(p + 4, ls->site);
    return after_record(w, err);
}

int mh_trace_write_site_stats(mh_trace_writer *w, const mh_site_stats *st, mh_err *err) {
    unsigned char *p = rec_begin(w, MH_REC_SITE_STATS, 40 + str_bytes(st->name), err);
    if (!p) return err ? err->code : MH_ERR_IO;
    uint32_t f[8] = {st->site, st->grid.x, st->grid.y, st->grid.z, st->block.x, st->block.y, st->block.z, st->dyn_smem};
    for (int i = 0; i < 8; i++) mh_put32(p + 4 * i, f[i]);
    mh_put64(p + 32, st->launches);
    put_str(p + 40, st->name);
    return after_record(w, err);
}

uint64_t mh_trace_written_accesses(const mh_trace_writer *w) { return w->accesses; }

/* Stops the background thread after the chunks handed over. */
static void bg_stop(mh_trace_writer *w) {
    if (!w->bg) return;
    if (bg_forked(w)) { /* no thread to stop; its lock and queue are the parent's */
        w->bg = 0;
        return;
    }
    pthread_mutex_lock(&w->mu);
    w->stop = 1;
    pthread_cond_signal(&w->work);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->th, NULL);
    for (unsigned i = 0; i < w->nspare; i++) free(w->spare[i]);
    w->nspare = 0;
    pthread_cond_destroy(&w->done);
    pthread_cond_destroy(&w->work);
    pthread_mutex_destroy(&w->mu);
    w->bg = 0;
}

void mh_trace_abandon(mh_trace_writer *w) {
    if (!w) return;
    bg_stop(w);
    if (w->fd >= 0) close(w->fd);
    if (w->cctx) ZSTD_freeCCtx(w->cctx);
    free(w->raw);
    free(w->comp);
    free(w->code);
    free(w);
}

int mh_trace_close(mh_trace_writer *w, mh_err *err) {
    /* what the file holds before it, for readers to check (after rec_begin:
     * the chunk it may have flushed is counted) */
    unsigned char *p = rec_begin(w, MH_REC_END, MH_TF_END_BYTES, err);
    int rc = p ? MH_OK : (err ? err->code : MH_ERR_IO);
    if (rc == MH_OK) rc = mh_trace_sync(w, err); /* the chain of every chunk before */
    if (rc == MH_OK) {
        mh_put32(p, w->chunk_index);
        mh_put32(p + 4, w->chain);
        mh_put64(p + 8, w->records - 1);
        mh_put64(p + 16, w->accesses);
    }
    if (rc == MH_OK) rc = mh_trace_flush(w, err);
    if (rc == MH_OK) rc = mh_trace_sync(w, err);
    bg_stop(w);
    if (rc == MH_OK && close(w->fd) != 0)
        rc = mh_err_set(err, MH_ERR_IO, "closing trace %s: %s", w->path, strerror(errno));
    else if (rc != MH_OK)
        close(w->fd);
    w->fd = -1;
    mh_trace_abandon(w);
    return rc;
}
