/* chunk_load.c -- loads one chunk of a trace: reads its header and checks the
 * header's CRC, reads the payload, checks its CRC and decompresses it.
 *
 * The reader calls it on its own thread, or readahead.c calls it on a helper
 * thread; either way every defect becomes the same error code and message
 * (file, chunk number, byte offset). docs/trace-format.md is the layout. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "trace/chunks.h"
#include "trace/format.h"
#include "util/crc32c.h"

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

int mh_tf_load(mh_tf_loader *ld, mh_tf_buf *b, mh_err *err) {
    unsigned char h[MH_TF_CHUNK_HDR_BYTES];
    uint64_t start = ld->offset;
    b->eof = 0;
    size_t got = mh_tf_read(ld, h, sizeof h);
    if (got == 0) {
        if (ferror(ld->f)) return fail(ld, MH_ERR_IO, err, strerror(errno));
        b->eof = 1;
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
    if (clen > ld->ccap) {
        unsigned char *p = realloc(ld->comp, clen);
        if (!p) return fail(ld, MH_ERR_NOMEM, err, "out of memory");
        ld->comp = p;
        ld->ccap = clen;
    }
    if (mh_tf_read(ld, ld->comp, clen) < clen) {
        if (ferror(ld->f)) return fail(ld, MH_ERR_IO, err, strerror(errno));
        return cut(ld, start, err);
    }
    if (mh_crc32c(0, ld->comp, clen) != mh_get32(h + 16))
        return fail(ld, MH_ERR_CORRUPT, err, "damaged chunk data (checksum mismatch)");
    if (rlen > b->rcap) {
        unsigned char *p = realloc(b->raw, rlen);
        if (!p) return fail(ld, MH_ERR_NOMEM, err, "out of memory");
        b->raw = p;
        b->rcap = rlen;
    }
    size_t n = ZSTD_decompressDCtx(ld->dctx, b->raw, rlen, ld->comp, clen);
    if (ZSTD_isError(n) || n != rlen) return fail(ld, MH_ERR_CORRUPT, err, "chunk does not decompress");
    b->rlen = rlen;
    b->index = ld->chunks;
    b->end = ld->offset;
    ld->chunks++;
    return MH_OK;
}
