/* chunk_load.c -- loads one chunk of a trace in two steps: fetch (read its
 * header and check the header's CRC, read the payload and check its CRC; in
 * file order) and inflate (decompress it, and decode it where the file's
 * chunks are coded, chunk_code.h; any thread, any order).
 *
 * The reader runs both on its own thread (mh_tf_load), or readahead.c runs
 * them on helper threads; either way every defect becomes the same error code
 * and message (file, chunk number, byte offset). docs/trace-format.md is the
 * layout. */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "trace/chunk_code.h"
#include "trace/chunks.h"
#include "trace/format.h"
#include "util/crc32c.h"
#include "util/grow.h"

size_t mh_tf_read(mh_tf_loader *ld, void *buf, size_t n) {
    size_t got = fread(buf, 1, n, ld->f);
    ld->offset += got;
    return got;
}

static int fail(mh_tf_loader *ld, int code, mh_err *err, const char *what) {
    return mh_err_set(err, code, "%s: %s (chunk %llu, byte offset %llu)", ld->path, what,
                      (unsigned long long)ld->chunks, (unsigned long long)ld->offset);
}

static int cut(mh_tf_loader *ld, uint64_t start, mh_err *err) {
    return mh_err_set(err, MH_ERR_TRUNCATED,
                      "%s: file is cut short inside chunk %llu (at byte %llu); the %llu whole chunks before it were read",
                      ld->path, (unsigned long long)ld->chunks, (unsigned long long)start,
                      (unsigned long long)ld->chunks);
}

int mh_tf_fetch(mh_tf_loader *ld, mh_tf_packed *p, mh_err *err) {
    unsigned char h[MH_TF_CHUNK_HDR_BYTES];
    uint64_t start = ld->offset;
    p->eof = 0;
    size_t got = mh_tf_read(ld, h, sizeof h);
    if (got == 0) {
        if (ferror(ld->f)) return fail(ld, MH_ERR_IO, err, strerror(errno));
        p->eof = 1;
        return MH_OK;
    }
    if (got < sizeof h) return cut(ld, start, err);
    if (mh_get32(h + 20) != mh_crc32c(0, h, 20) || mh_get32(h) != MH_TF_CHUNK_MAGIC)
        return fail(ld, MH_ERR_CORRUPT, err, "damaged chunk header (checksum mismatch)");
    uint32_t rlen = mh_get32(h + 8), clen = mh_get32(h + 12);
    if (mh_get32(h + 4) != (uint32_t)ld->chunks)
        return fail(ld, MH_ERR_CORRUPT, err, "chunks out of sequence");
    if (rlen > MH_TF_MAX_RAW || clen > ZSTD_compressBound(rlen) || clen == 0)
        return fail(ld, MH_ERR_CORRUPT, err, "chunk sizes out of range");
    if (clen > p->ccap) {
        unsigned char *q = realloc(p->comp, clen);
        if (!q) return fail(ld, MH_ERR_NOMEM, err, "out of memory");
        p->comp = q;
        p->ccap = clen;
    }
    if (mh_tf_read(ld, p->comp, clen) < clen) {
        if (ferror(ld->f)) return fail(ld, MH_ERR_IO, err, strerror(errno));
        return cut(ld, start, err);
    }
    if (mh_crc32c(0, p->comp, clen) != mh_get32(h + 16))
        return fail(ld, MH_ERR_CORRUPT, err, "damaged chunk data (checksum mismatch)");
    if (ld->coded && rlen < MH_TF_CODE_EXTRA) return fail(ld, MH_ERR_CORRUPT, err, "chunk sizes out of range");
    p->clen = clen;
    p->rlen = rlen;
    p->coded = ld->coded;
    p->index = ld->chunks;
    p->end = ld->offset;
    p->chain = ld->chain;
    ld->chain = mh_crc32c(ld->chain, h + 16, 4); /* the payload CRC as the file holds it */
    ld->chunks++;
    return MH_OK;
}

/* Marks each ACCESSES record of a decompressed chunk whose accesses all name
 * one launch: its second word (0 in the file) becomes 1 in memory, where the
 * reader finds it (mh_record's one_launch). Done here, by the thread that
 * just wrote the bytes, so that the reader (and mh_pass, which routes the
 * accesses by launch) need not touch every access of such a record. Walks
 * the records as mh_trace_next frames them and stops where it would fail;
 * every record the reader parses was walked, and its mark written here. */
static void mark_one_launch(unsigned char *raw, size_t len) {
    size_t pos = 0;
    while (len - pos >= MH_TF_REC_HDR_BYTES) {
        const unsigned char *h = raw + pos;
        size_t plen = mh_get32(h + 4), padded = (plen + 7u) & ~(size_t)7u;
        if (padded > len - pos - MH_TF_REC_HDR_BYTES) return;
        unsigned char *q = raw + pos + MH_TF_REC_HDR_BYTES;
        pos += MH_TF_REC_HDR_BYTES + padded;
        if (h[0] != MH_REC_ACCESSES || plen < 8) continue;
        uint32_t n = mh_get32(q), one = 0;
        if (n && (plen - 8) / MH_TF_ACCESS_BYTES >= n) {
            const unsigned char *a = q + 8 + MH_TF_ACCESS_LAUNCH_OFF; /* access 0's launch */
            uint32_t l = mh_get32(a);
            uint32_t i = 1;
            while (i < n && mh_get32(a + (size_t)i * MH_TF_ACCESS_BYTES) == l) i++;
            one = i == n;
        }
        mh_put32(q + 4, one);
    }
}

/* Room for n bytes in *buf (of *cap); 0, or -1 without memory. */
static int room(unsigned char **buf, size_t *cap, size_t n) {
    if (n <= *cap) return 0;
    unsigned char *q = mh_grow(*buf, cap, n, 1, n);
    if (!q) return -1;
    *buf = q;
    return 0;
}

void mh_tf_inflater_free(mh_tf_inflater *inf) {
    if (inf->dctx) ZSTD_freeDCtx(inf->dctx);
    free(inf->tmp);
    memset(inf, 0, sizeof *inf);
}

int mh_tf_inflate(mh_tf_inflater *inf, const char *path, const mh_tf_packed *p, mh_tf_buf *b, mh_err *err) {
    assert(!p->eof && (!p->coded || p->rlen >= MH_TF_CODE_EXTRA));
    size_t rlen = p->coded ? p->rlen - MH_TF_CODE_EXTRA : p->rlen;
    if (room(&b->raw, &b->rcap, rlen) != 0 || (p->coded && room(&inf->tmp, &inf->tcap, p->rlen) != 0))
        return mh_err_set(err, MH_ERR_NOMEM, "%s: out of memory (chunk %llu, byte offset %llu)", path,
                          (unsigned long long)p->index, (unsigned long long)p->end);
    unsigned char *to = p->coded ? inf->tmp : b->raw;
    size_t n = ZSTD_decompressDCtx(inf->dctx, to, p->rlen, p->comp, p->clen);
    if (ZSTD_isError(n) || n != p->rlen)
        return mh_err_set(err, MH_ERR_CORRUPT, "%s: chunk does not decompress (chunk %llu, byte offset %llu)", path,
                          (unsigned long long)p->index, (unsigned long long)p->end);
    if (p->coded && mh_tf_decode(to, n, b->raw, 1) != 0)
        return mh_err_set(err, MH_ERR_CORRUPT, "%s: chunk does not decode (chunk %llu, byte offset %llu)", path,
                          (unsigned long long)p->index, (unsigned long long)p->end);
    if (!p->coded) mark_one_launch(b->raw, rlen); /* mh_tf_decode marks coded ones */
    b->eof = 0;
    b->rlen = rlen;
    b->index = p->index;
    b->end = p->end;
    b->chain = p->chain;
    return MH_OK;
}

int mh_tf_load(mh_tf_loader *ld, mh_tf_buf *b, mh_err *err) {
    mh_tf_packed p = {.comp = ld->comp, .ccap = ld->ccap};
    int rc = mh_tf_fetch(ld, &p, err);
    ld->comp = p.comp; /* the loader keeps its payload buffer */
    ld->ccap = p.ccap;
    if (rc != MH_OK) return rc;
    if (p.eof) {
        b->eof = 1;
        return MH_OK;
    }
    return mh_tf_inflate(&ld->inf, ld->path, &p, b, err);
}
