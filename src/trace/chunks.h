/* chunks.h -- the trace reader's chunk source (internal): reads, checks and
 * decompresses the chunks of one file in order, either on the caller's
 * thread (mh_tf_load) or ahead of it on helper threads (mh_tf_ahead_*).
 *
 * Both paths run the same two steps (mh_tf_fetch in file order, then
 * mh_tf_inflate), so they give the same chunks and, at a damaged or cut
 * chunk, the same error with the same chunk number and byte offset; the
 * helpers stop fetching at the first error or the end of the file, so nothing
 * past an error is read by them. */
#ifndef MH_TRACE_CHUNKS_H
#define MH_TRACE_CHUNKS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <zstd.h>

#include "memheat/err.h"
#include "memheat/trace.h"

/* What one thread decompresses with: its zstd context and, for coded
 * chunks (format v4, chunk_code.h), the buffer they are decompressed into
 * before they are decoded. */
typedef struct mh_tf_inflater {
    ZSTD_DCtx *dctx;
    unsigned char *tmp;
    size_t tcap;
} mh_tf_inflater;

/* Where the next chunk comes from: owned by one thread at a time. */
typedef struct mh_tf_loader {
    FILE *f;
    const char *path;    /* for messages; outlives the loader */
    uint64_t offset;     /* file offset of the next byte to read */
    uint64_t chunks;     /* whole chunks loaded */
    unsigned char *comp; /* compressed payload buffer */
    size_t ccap;
    int coded;           /* the file's chunks are coded (its version is 4 or more) */
    uint32_t chain;      /* CRC-32C over the payload CRCs of the chunks fetched (the END record's `chain`) */
    mh_tf_inflater inf;
} mh_tf_loader;

/* One decompressed chunk (or the clean end of the file). */
typedef struct mh_tf_buf {
    unsigned char *raw;
    size_t rlen, rcap;
    uint64_t index; /* chunk number */
    uint64_t end;   /* file offset after the chunk */
    uint32_t chain; /* mh_tf_loader.chain over the chunks before this one */
    int eof;        /* 1: no chunk, the file ended cleanly */
} mh_tf_buf;

/* One chunk as read from the file, not yet decompressed (or the clean end). */
typedef struct mh_tf_packed {
    unsigned char *comp; /* compressed payload (owned; grows) */
    size_t clen, ccap;
    uint32_t rlen;       /* its size decompressed */
    int coded;           /* decompressed, it is coded (mh_tf_decode gives its records) */
    uint64_t index;      /* chunk number */
    uint64_t end;        /* file offset after the chunk */
    uint32_t chain;      /* mh_tf_loader.chain over the chunks before this one */
    int eof;             /* 1: no chunk, the file ended cleanly */
} mh_tf_packed;

/* Reads exactly n bytes; returns n, or the short count at end of file. */
size_t mh_tf_read(mh_tf_loader *ld, void *buf, size_t n);
/* Reads the next chunk's header and payload into p and checks both CRCs
 * (p->eof at a clean end of file). Errors name ld->path, the chunk number
 * and the byte offset reached. */
int mh_tf_fetch(mh_tf_loader *ld, mh_tf_packed *p, mh_err *err);
/* Decompresses (and decodes) a fetched chunk into b with inf (one thread's own). */
int mh_tf_inflate(mh_tf_inflater *inf, const char *path, const mh_tf_packed *p, mh_tf_buf *b, mh_err *err);
/* Frees what inf holds (zeroed is empty). */
void mh_tf_inflater_free(mh_tf_inflater *inf);
/* Both, on the caller's thread: the next chunk into b (b->eof at a clean
 * end of file). */
int mh_tf_load(mh_tf_loader *ld, mh_tf_buf *b, mh_err *err);

/* ---- kept chunks (hold.c) ---- */
typedef struct mh_tf_pool mh_tf_pool;
/* A pool of spare chunk buffers, counted: the reader holds one reference. */
mh_tf_pool *mh_tf_pool_new(void);
/* A spare buffer, or *raw = NULL and *cap = 0 when there is none. */
void mh_tf_pool_take(mh_tf_pool *p, unsigned char **raw, size_t *cap);
/* Drops a reference; the last one frees the pool and its buffers. NULL is fine. */
void mh_tf_pool_unref(mh_tf_pool *p);
/* A hold on the reader's current chunk, with the reader's reference. */
mh_trace_hold *mh_tf_hold_new(mh_tf_pool *p);
/* The reader leaves the held chunk: the hold takes its buffer (raw, cap) and
 * the reader's reference is dropped. */
void mh_tf_hold_keep(mh_trace_hold *h, unsigned char *raw, size_t cap);

/* ---- read-ahead ---- */
typedef struct mh_tf_ahead mh_tf_ahead;

/* Starts `threads` helper threads (1 <= threads <= depth) that load ld's
 * chunks into up to `depth` buffers ahead of the caller: they fetch in turn,
 * in file order, and decompress side by side; ld is theirs until
 * mh_tf_ahead_stop. Returns NULL (and ld stays the caller's) if no thread or
 * buffers can be had. */
mh_tf_ahead *mh_tf_ahead_start(mh_tf_loader *ld, unsigned depth, unsigned threads);
/* The next chunk in file order, or the error mh_tf_load met there. The
 * buffer handed out before goes back to the helper. Not to be called again
 * after an error or the end of the file. */
int mh_tf_ahead_next(mh_tf_ahead *a, const mh_tf_buf **b, mh_err *err);
/* Swaps the buffer of the chunk mh_tf_ahead_next handed out last with
 * (*raw, *cap): the caller keeps that chunk's buffer, the helpers fill the
 * one given. Before the next mh_tf_ahead_next only. */
void mh_tf_ahead_swap(mh_tf_ahead *a, unsigned char **raw, size_t *cap);
/* The caller's time waiting for chunks and the helpers' CPU time on them so
 * far (seconds). */
void mh_tf_ahead_times(mh_tf_ahead *a, double *wait_s, double *helpers_cpu_s);
/* Stops the helpers (each finishes the chunk it is on), joins them, frees a. */
void mh_tf_ahead_stop(mh_tf_ahead *a);

#endif
