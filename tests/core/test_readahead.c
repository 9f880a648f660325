/* test_readahead.c -- the trace reader with chunks decompressed ahead on
 * helper threads against the inline reader: for intact traces, traces cut at
 * many offsets, with flipped bytes, with a chunk whose CRCs are right but
 * whose record is not (the helpers have read past it by then), with a chunk
 * whose CRCs are right but which does not decompress (other helpers are
 * decompressing the chunks after it meanwhile), and readers closed early,
 * every read-ahead depth and number of helper threads must give the same
 * records (a digest of every field, string and access), the same chunk
 * counts, and the same error code and message at the same point as depth 0.
 * Chunks held past the reader (mh_trace_hold) keep their access arrays as
 * they were read, after the reader moved on, was closed early or at the end.
 * A version-3 file (chunks not coded) gives the records of the coded one. */
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "../mh_test.h"
#include "memheat/trace.h"
#include "trace/chunk_code.h"
#include "trace/format.h"
#include "util/crc32c.h"

static char dir[256];
/* {chunks ahead, helper threads}; {0, 0} is the inline reader */
static const int depths[][2] = {{0, 0}, {1, 1}, {2, 1}, {3, 2}, {8, 1}, {8, 4}, {5, 3}, {2, 2}};
#define N_DEPTHS (sizeof depths / sizeof depths[0])

static const char *tmp(const char *name) {
    static char buf[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

/* A trace of ~160 chunks of 4 KiB with every record type spread over them. */
static int write_trace(const char *path) {
    mh_err err = {0};
    mh_trace_header h = {.producer = "test", .command = "./app", .note = "",
                         .device = {.name = "Dev", .warp_size = 32, .sector_size = 32}};
    mh_trace_writer_opts o = {.chunk_bytes = 4096};
    mh_trace_writer *w;
    if (mh_trace_create(&w, path, &h, &o, &err) != MH_OK) return 1;
    const char *devs[] = {"GPU-1", "GPU-2"};
    mh_process pr = {.pid = 7, .ppid = 1, .rank = 3, .host = "h", .command = "app", .n_devices = 2, .devices = devs};
    int bad = mh_trace_write_process(w, &pr, &err);
    uint32_t sampled[2] = {1, 5};
    mh_access batch[100];
    for (uint32_t l = 0; l < 40 && !bad; l++) {
        mh_launch la = {.id = l, .name = "_Z1kv", .display_name = "k()", .grid = {8, 1, 1}, .block = {64, 1, 1},
                        .n_sampled = l % 2 ? 2 : MH_TRACE_ALL_BLOCKS, .sampled = sampled};
        mh_karg ka = {.launch = l, .index = 0, .size = 8, .value = 0x1000u * l, .type = "float*", .name = "x"};
        mh_alloc al = {.id = l, .launch = MH_TRACE_NO_LAUNCH, .base = 0x100000u * l, .size = 4096, .label = "buf"};
        bad |= mh_trace_write_launch(w, &la, &err) | mh_trace_write_karg(w, &ka, &err) |
               mh_trace_write_alloc(w, &al, &err);
        for (uint32_t b = 0; b < 5 && !bad; b++) {
            for (uint32_t i = 0; i < 100; i++)
                batch[i] = (mh_access){.addr = 0x100000u * l + 4u * (b * 100 + i), .pc = 16u * (i % 9), .launch = l,
                                       .block = b, .seq = i / 32, .thread = (uint16_t)i, .size = 4,
                                       .flags = MH_ACCESS_FLAGS(i % 3, 0)};
            bad |= mh_trace_write_accesses(w, batch, 100, &err);
        }
        mh_pcinfo pc = {.pc = 16u * l, .function = "k", .file = "k.cu", .line = l};
        mh_kernel_end e = {.launch = l, .recorded = 500, .dropped = l, .gpu_ns = 1000u + l};
        mh_dropped d = {.launch = l, .count = l, .reason = "full"};
        mh_free f = {.base = 0x100000u * l};
        bad |= mh_trace_write_pcinfo(w, &pc, &err) | mh_trace_write_kernel_end(w, &e, &err) |
               mh_trace_write_dropped(w, &d, &err) | mh_trace_write_free(w, &f, &err);
    }
    mh_launch_stats st = {.name = "_Z1kv", .grid = {8, 1, 1}, .block = {64, 1, 1}, .launches = 50, .traced = 40};
    bad |= mh_trace_write_launch_stats(w, &st, &err);
    if (bad) {
        mh_trace_abandon(w);
        return 2;
    }
    return mh_trace_close(w, &err) != MH_OK;
}

/* What one read saw. */
typedef struct seen {
    uint64_t digest, records, accesses, chunks;
    int open_rc, rc, complete;
    char msg[512];
} seen;

static void mix(uint64_t *h, const void *p, size_t n) {
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) *h = (*h ^ b[i]) * 1099511628211ull;
}
static void mixs(uint64_t *h, const char *s) { mix(h, s, strlen(s) + 1); }
static void mixu(uint64_t *h, uint64_t v) { mix(h, &v, sizeof v); }

static void mix_record(uint64_t *h, const mh_record *rec) {
    mixu(h, (uint64_t)rec->type);
    switch (rec->type) {
    case MH_REC_LAUNCH: {
        const mh_launch *l = &rec->u.launch;
        mixu(h, l->id), mixs(h, l->name), mixs(h, l->display_name), mix(h, &l->grid, sizeof l->grid);
        mix(h, &l->block, sizeof l->block), mixu(h, l->n_sampled);
        if (l->n_sampled != MH_TRACE_ALL_BLOCKS) mix(h, l->sampled, l->n_sampled * sizeof *l->sampled);
        break;
    }
    case MH_REC_ALLOC: mixu(h, rec->u.alloc.id), mixu(h, rec->u.alloc.base), mixs(h, rec->u.alloc.label); break;
    case MH_REC_FREE: mixu(h, rec->u.free.base); break;
    case MH_REC_ACCESSES: mix(h, rec->u.accesses.v, rec->u.accesses.n * sizeof *rec->u.accesses.v); break;
    case MH_REC_KERNEL_END: mix(h, &rec->u.kernel_end, sizeof rec->u.kernel_end); break;
    case MH_REC_DROPPED: mixu(h, rec->u.dropped.count), mixs(h, rec->u.dropped.reason); break;
    case MH_REC_PCINFO: mixu(h, rec->u.pcinfo.pc), mixs(h, rec->u.pcinfo.function), mixs(h, rec->u.pcinfo.file); break;
    case MH_REC_LAUNCH_STATS: mixu(h, rec->u.launch_stats.traced), mixs(h, rec->u.launch_stats.name); break;
    case MH_REC_PROCESS:
        mixs(h, rec->u.process.host);
        for (uint32_t i = 0; i < rec->u.process.n_devices; i++) mixs(h, rec->u.process.devices[i]);
        break;
    case MH_REC_KARG: mixu(h, rec->u.karg.value), mixs(h, rec->u.karg.type), mixs(h, rec->u.karg.name); break;
    }
}

/* Reads path with `depth` chunks ahead on `threads` helpers, stopping after
 * `stop_after` records (0 = read to the end or the error). */
static seen read_with(const char *path, int depth, int threads, uint64_t stop_after) {
    seen s = {.digest = 14695981039346656037ull};
    mh_err err = {0};
    mh_trace_reader *r;
    mh_trace_reader_opts o = {.readahead = depth, .readahead_threads = threads};
    s.open_rc = mh_trace_open_opts(&r, path, &o, &err);
    if (s.open_rc != MH_OK) {
        snprintf(s.msg, sizeof s.msg, "%s", err.msg);
        return s;
    }
    mh_record rec;
    while ((s.rc = mh_trace_next(r, &rec, &err)) == MH_OK && rec.type != MH_REC_EOF) {
        mix_record(&s.digest, &rec);
        mixu(&s.digest, mh_trace_chunks_read(r)); /* the count moves with the records, not with the helper */
        s.records++;
        if (rec.type == MH_REC_ACCESSES) s.accesses += rec.u.accesses.n;
        if (stop_after && s.records == stop_after) break;
    }
    if (s.rc != MH_OK) {
        snprintf(s.msg, sizeof s.msg, "%s", err.msg);
        /* reading on after an error changes nothing but says so */
        CHECK(mh_trace_next(r, &rec, &err) == MH_ERR_INTERNAL);
    }
    s.chunks = mh_trace_chunks_read(r);
    s.complete = mh_trace_complete(r);
    mh_trace_close_reader(r); /* joins the helper, also mid-file */
    return s;
}

static int same(const seen *a, const seen *b) {
    return a->digest == b->digest && a->records == b->records && a->accesses == b->accesses &&
           a->chunks == b->chunks && a->open_rc == b->open_rc && a->rc == b->rc && a->complete == b->complete &&
           strcmp(a->msg, b->msg) == 0;
}

static int n_compared, n_errors;

/* Every depth against depth 0; returns depth 0's result. */
static seen compare_depths(const char *path, uint64_t stop_after) {
    seen ref = read_with(path, 0, 0, stop_after);
    for (size_t i = 1; i < N_DEPTHS; i++) {
        seen s = read_with(path, depths[i][0], depths[i][1], stop_after);
        if (!same(&ref, &s))
            fprintf(stderr, "%s (stop %llu): depth %d x %d gives rc %d/%d, %llu records, \"%s\"; inline gives rc %d/%d, "
                            "%llu records, \"%s\"\n", path, (unsigned long long)stop_after, depths[i][0], depths[i][1],
                    s.open_rc, s.rc,
                    (unsigned long long)s.records, s.msg, ref.open_rc, ref.rc, (unsigned long long)ref.records, ref.msg);
        CHECK(same(&ref, &s));
    }
    n_compared++;
    if (ref.open_rc != MH_OK || ref.rc != MH_OK) n_errors++;
    return ref;
}

static long load_file(const char *path, unsigned char **buf) {
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    *buf = malloc((size_t)n + 1);
    if (fread(*buf, 1, (size_t)n, f) != (size_t)n) n = -1;
    fclose(f);
    return n;
}

static void save_file(const char *path, const unsigned char *buf, long n) {
    FILE *f = fopen(path, "wb");
    CHECK(f && fwrite(buf, 1, (size_t)n, f) == (size_t)n);
    if (f) fclose(f);
}

/* File offsets of the chunk headers. */
static int chunk_offsets(const unsigned char *b, long n, long *off, int cap) {
    int k = 0;
    for (long p = MH_TF_PREFIX_BYTES; p + (long)MH_TF_CHUNK_HDR_BYTES <= n && k < cap; k++) {
        off[k] = p;
        p += MH_TF_CHUNK_HDR_BYTES + (long)mh_get32(b + p + 12);
    }
    return k;
}

/* Writes the test trace at path and loads it: *b its bytes (free them), *n
 * their count, off[] the chunk offsets; returns how many chunks. */
static int written_chunks(const char *path, unsigned char **b, long *n, long *off, int cap) {
    CHECK(write_trace(path) == 0);
    *n = load_file(path, b);
    CHECK(*n > 0);
    return chunk_offsets(*b, *n, off, cap);
}

static void test_intact_and_early_close(void) {
    const char *p = tmp("ok.mht");
    CHECK(write_trace(p) == 0);
    seen s = compare_depths(p, 0);
    CHECK_EQ_U(s.rc, MH_OK);
    CHECK(s.complete);
    CHECK_EQ_U(s.accesses, 40u * 500u);
    CHECK(s.chunks > 100); /* many chunks, so the helper runs ahead */
    /* Closed after a few records: the helper is joined while it waits for a free slot. */
    for (uint64_t k = 1; k < 400; k += 37) compare_depths(p, k);
}

static void test_cut(void) {
    const char *p = tmp("ok.mht"), *c = tmp("cut.mht");
    unsigned char *b;
    long n, off[1024];
    int nc = written_chunks(p, &b, &n, off, 1024);
    int truncated = 0;
    for (long k = 0; k < n; k += n / 97 + 1) { /* anywhere */
        save_file(c, b, k);
        truncated += compare_depths(c, 0).rc == MH_ERR_TRUNCATED;
    }
    for (int i = 1; i < nc; i += 7) /* at, just before and just after chunk boundaries */
        for (long d = -1; d <= 1; d++) {
            save_file(c, b, off[i] + d);
            seen s = compare_depths(c, 0);
            CHECK_EQ_U(s.open_rc ? s.open_rc : s.rc, d == 0 ? MH_OK : MH_ERR_TRUNCATED); /* chunk 0: at open */
        }
    CHECK(truncated > 50);
    free(b);
}

static void test_flipped(void) {
    const char *p = tmp("ok.mht"), *f = tmp("flip.mht");
    unsigned char *b;
    long n, off[1024];
    int nc = written_chunks(p, &b, &n, off, 1024);
    int corrupt = 0;
    for (long k = 0; k < n; k += n / 61 + 1) {
        b[k] ^= 0x20;
        save_file(f, b, n);
        b[k] ^= 0x20;
        corrupt += compare_depths(f, 0).rc == MH_ERR_CORRUPT;
    }
    for (int i = 1; i < nc; i += 11) /* each field of some chunk headers */
        for (long d = 0; d < (long)MH_TF_CHUNK_HDR_BYTES; d += 4) {
            b[off[i] + d] ^= 0x01;
            save_file(f, b, n);
            b[off[i] + d] ^= 0x01;
            seen s = compare_depths(f, 0);
            CHECK_EQ_U(s.rc, MH_ERR_CORRUPT);
        }
    CHECK(corrupt > 40);
    free(b);
}

/* The file b (n bytes, chunks at off) with chunk i's payload replaced by
 * raw (rlen bytes before compression) compressed, its sizes and CRCs made
 * right again, saved at f. */
static void save_with_chunk(const char *f, const unsigned char *b, long n, const long *off, int i,
                            const unsigned char *raw, size_t rlen) {
    size_t clen = mh_get32(b + off[i] + 12), cap = ZSTD_compressBound(rlen);
    unsigned char *comp = malloc(cap);
    size_t nclen = ZSTD_compress(comp, cap, raw, rlen, 1);
    CHECK(!ZSTD_isError(nclen));
    long tail = off[i] + (long)MH_TF_CHUNK_HDR_BYTES + (long)clen;
    long m = off[i] + (long)MH_TF_CHUNK_HDR_BYTES + (long)nclen + (n - tail);
    unsigned char *o = malloc((size_t)m);
    memcpy(o, b, (size_t)off[i] + MH_TF_CHUNK_HDR_BYTES);
    unsigned char *nh = o + off[i];
    mh_put32(nh + 8, (uint32_t)rlen);
    mh_put32(nh + 12, (uint32_t)nclen);
    mh_put32(nh + 16, mh_crc32c(0, comp, nclen));
    mh_put32(nh + 20, mh_crc32c(0, nh, 20));
    memcpy(nh + MH_TF_CHUNK_HDR_BYTES, comp, nclen);
    memcpy(nh + MH_TF_CHUNK_HDR_BYTES + nclen, b + tail, (size_t)(n - tail));
    save_file(f, o, m);
    free(comp);
    free(o);
}

/* Chunk i's first record gets an unknown type, its CRCs made right again:
 * the reader fails while decoding records, after the helper read on. */
static void test_bad_record(void) {
    const char *p = tmp("ok.mht"), *f = tmp("badrec.mht");
    unsigned char *b;
    long n, off[1024];
    int nc = written_chunks(p, &b, &n, off, 1024);
    for (int i = 1; i < nc; i += nc / 5) {
        const unsigned char *h = b + off[i];
        size_t rlen = mh_get32(h + 8), clen = mh_get32(h + 12);
        unsigned char *raw = malloc(rlen), *rec = malloc(rlen);
        CHECK(ZSTD_decompress(raw, rlen, h + MH_TF_CHUNK_HDR_BYTES, clen) == rlen);
        CHECK(mh_tf_decode(raw, rlen, rec, 0) == 0); /* the records of the coded chunk */
        rec[0] = 200;
        mh_tf_code(rec, rlen - MH_TF_CODE_EXTRA, raw);
        save_with_chunk(f, b, n, off, i, raw, rlen);
        seen s = compare_depths(f, 0);
        CHECK_EQ_U(s.rc, MH_ERR_FORMAT);
        CHECK(strstr(s.msg, "unknown record type") != NULL);
        CHECK_EQ_U(s.chunks, (uint64_t)i + 1);
        free(raw), free(rec);
    }
    free(b);
}

/* Chunk i's coded bytes name one entry more than its planes hold, its CRCs
 * made right again: "does not decode" (MH_ERR_CORRUPT) at that chunk, the
 * records of the chunks before it delivered, at every depth. */
static void test_bad_coding(void) {
    const char *p = tmp("ok.mht"), *f = tmp("badcode.mht");
    unsigned char *b;
    long n, off[1024];
    int nc = written_chunks(p, &b, &n, off, 1024);
    for (int i = 1; i < nc; i += nc / 4) {
        const unsigned char *h = b + off[i];
        size_t rlen = mh_get32(h + 8), clen = mh_get32(h + 12);
        unsigned char *raw = malloc(rlen);
        CHECK(ZSTD_decompress(raw, rlen, h + MH_TF_CHUNK_HDR_BYTES, clen) == rlen);
        mh_put32(raw, mh_get32(raw) + 1);
        save_with_chunk(f, b, n, off, i, raw, rlen);
        seen s = compare_depths(f, 0);
        CHECK_EQ_U(s.rc, MH_ERR_CORRUPT);
        CHECK(strstr(s.msg, "does not decode") != NULL);
        CHECK_EQ_U(s.chunks, (uint64_t)i);
        CHECK(i < 2 || s.records > 0); /* chunk 0 holds the header alone */
        free(raw);
    }
    free(b);
}

/* The test trace as format version 3 writes it: every chunk uncoded, the
 * prefix and the header record saying 3, the END record empty (what it
 * states came with version 4's writers). Read at every depth, it gives the
 * records of the coded file; and the coded file is the smaller. */
static void test_version3(void) {
    const char *p = tmp("ok.mht"), *f = tmp("v3.mht");
    unsigned char *b;
    long n, off[1024];
    int nc = written_chunks(p, &b, &n, off, 1024);
    CHECK_EQ_U(mh_get32(b + 8), MH_TRACE_VERSION); /* coded since MH_TF_CODED_VERSION */
    unsigned char *o = malloc((size_t)n * 8 + 4096);
    long m = MH_TF_PREFIX_BYTES;
    memcpy(o, b, MH_TF_PREFIX_BYTES);
    mh_put32(o + 8, 3);
    for (int i = 0; i < nc; i++) {
        const unsigned char *h = b + off[i];
        size_t clen = mh_get32(h + 12), coded = mh_get32(h + 8), rlen = coded - MH_TF_CODE_EXTRA;
        unsigned char *c = malloc(coded), *raw = malloc(rlen + 1);
        CHECK(ZSTD_decompress(c, coded, h + MH_TF_CHUNK_HDR_BYTES, clen) == coded);
        CHECK(mh_tf_decode(c, coded, raw, 0) == 0);
        if (i == 0) {
            CHECK(raw[0] == MH_REC_HEADER && mh_get32(raw + 8) == MH_TRACE_VERSION);
            mh_put32(raw + 8, 3);
        }
        for (size_t r = 0; r + MH_TF_REC_HDR_BYTES <= rlen;) {
            size_t next = r + MH_TF_REC_HDR_BYTES + ((mh_get32(raw + r + 4) + 7u) & ~7u);
            if (raw[r] == MH_REC_END && next == rlen) { /* the last record */
                mh_put32(raw + r + 4, 0);
                rlen = r + MH_TF_REC_HDR_BYTES;
            }
            r = next;
        }
        unsigned char *nh = o + m;
        size_t nclen = ZSTD_compress(nh + MH_TF_CHUNK_HDR_BYTES, ZSTD_compressBound(rlen), raw, rlen, 1);
        CHECK(!ZSTD_isError(nclen));
        mh_put32(nh, MH_TF_CHUNK_MAGIC);
        mh_put32(nh + 4, (uint32_t)i);
        mh_put32(nh + 8, (uint32_t)rlen);
        mh_put32(nh + 12, (uint32_t)nclen);
        mh_put32(nh + 16, mh_crc32c(0, nh + MH_TF_CHUNK_HDR_BYTES, nclen));
        mh_put32(nh + 20, mh_crc32c(0, nh, 20));
        m += MH_TF_CHUNK_HDR_BYTES + (long)nclen;
        free(c), free(raw);
    }
    save_file(f, o, m);
    seen s4 = compare_depths(p, 0), s3 = compare_depths(f, 0);
    CHECK_EQ_U(s3.rc, MH_OK);
    CHECK(s3.complete);
    CHECK(same(&s3, &s4));
    CHECK(m > n); /* 5 x 100 accesses of rising addresses per launch */
    free(o);
    free(b);
}

/* Chunk i's payload replaced by bytes that are not zstd, its CRCs made right
 * again: "chunk does not decompress" at chunk i, found by one helper while
 * others decompress the chunks after it. */
static void test_not_zstd(void) {
    const char *p = tmp("ok.mht"), *f = tmp("notzstd.mht");
    unsigned char *b;
    long n, off[1024];
    int nc = written_chunks(p, &b, &n, off, 1024);
    int k = 0;
    for (int i = 1; i < nc; i += nc / 9, k++) {
        unsigned char *h = b + off[i];
        size_t clen = mh_get32(h + 12);
        unsigned char *save = malloc(clen);
        memcpy(save, h + MH_TF_CHUNK_HDR_BYTES, clen);
        uint32_t crc = mh_get32(h + 16);
        for (size_t j = 0; j < clen; j++) h[MH_TF_CHUNK_HDR_BYTES + j] = (unsigned char)(j * 37 + (size_t)i);
        mh_put32(h + 16, mh_crc32c(0, h + MH_TF_CHUNK_HDR_BYTES, clen));
        mh_put32(h + 20, mh_crc32c(0, h, 20));
        save_file(f, b, n);
        seen s = compare_depths(f, 0);
        CHECK_EQ_U(s.rc, MH_ERR_CORRUPT);
        CHECK(strstr(s.msg, "chunk does not decompress") != NULL);
        CHECK_EQ_U(s.chunks, (uint64_t)i);
        memcpy(h + MH_TF_CHUNK_HDR_BYTES, save, clen);
        mh_put32(h + 16, crc);
        mh_put32(h + 20, mh_crc32c(0, h, 20));
        free(save);
    }
    CHECK(k >= 5);
    free(b);
}

static void test_env(void) {
    /* MEMHEAT_READAHEAD picks the depth of readers opened without one; any depth reads the same. */
    const char *p = tmp("ok.mht");
    CHECK(write_trace(p) == 0);
    seen ref = read_with(p, 0, 0, 0);
    const char *vals[] = {"0", "1", "4", "99", "x"};
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        setenv("MEMHEAT_READAHEAD", vals[i], 1);
        for (size_t j = 0; j < sizeof vals / sizeof vals[0]; j++) {
            setenv("MEMHEAT_READAHEAD_THREADS", vals[j], 1);
            seen s = read_with(p, -1, 0, 0);
            CHECK(same(&ref, &s));
        }
    }
    unsetenv("MEMHEAT_READAHEAD");
    unsetenv("MEMHEAT_READAHEAD_THREADS");
}

static void test_summary(void) {
    fprintf(stderr, "%d traces compared at %zu depths x threads, %d of them with an error\n", n_compared, N_DEPTHS,
            n_errors);
    CHECK(n_compared > 200 && n_errors > 150);
}

/* One access array kept through a hold. */
typedef struct kept {
    mh_trace_hold *h;
    const mh_access *v;
    size_t n;
    uint64_t digest; /* of the accesses when read */
} kept;

static uint64_t acc_digest(const mh_access *v, size_t n) {
    uint64_t d = 14695981039346656037ull;
    mix(&d, v, n * sizeof *v);
    return d;
}

/* Reads the trace holding every third access array (two references on
 * every sixth), releasing every other hold at once, stops after stop_after
 * records (0 = the end), closes the reader, then checks every kept array
 * and releases it: each still reads as it was read. */
static void hold_with(const char *path, int depth, int threads, uint64_t stop_after) {
    mh_err err = {0};
    mh_trace_reader *r;
    mh_trace_reader_opts o = {.readahead = depth, .readahead_threads = threads};
    CHECK(mh_trace_open_opts(&r, path, &o, &err) == MH_OK);
    if (!r) return;
    enum { CAP = 4096 };
    static kept k[CAP];
    size_t nk = 0, in_chunk = 0, n_acc = 0, n_rec = 0;
    uint64_t records = 0;
    mh_record rec;
    while (mh_trace_next(r, &rec, &err) == MH_OK && rec.type != MH_REC_EOF) {
        records++;
        n_rec += rec.type == MH_REC_ACCESSES;
        if (rec.type == MH_REC_ACCESSES && mh_trace_accesses_in_chunk(r)) {
            in_chunk++;
            if (n_acc++ % 3 == 0 && nk < CAP) {
                mh_trace_hold *h = mh_trace_hold_chunk(r);
                CHECK(h != NULL);
                if (!h) break;
                CHECK(mh_trace_hold_chunk(r) == h); /* one hold per chunk */
                mh_trace_hold_ref(h);
                if (n_acc % 2 == 0) { /* released while the reader is still on the chunk */
                    mh_trace_hold_release(h);
                } else {
                    k[nk++] = (kept){h, rec.u.accesses.v, rec.u.accesses.n,
                                     acc_digest(rec.u.accesses.v, rec.u.accesses.n)};
                    if (n_acc % 6 == 1 && nk < CAP) { /* a second reference to the same chunk */
                        mh_trace_hold_ref(h);
                        k[nk] = k[nk - 1];
                        nk++;
                    }
                }
            }
        }
        if (stop_after && records == stop_after) break;
    }
    CHECK(in_chunk == n_rec && n_rec > 0); /* the writer aligns every access array */
    CHECK(nk > 10);
    mh_trace_close_reader(r);
    for (size_t i = 0; i < nk; i++) {
        CHECK_EQ_U(acc_digest(k[i].v, k[i].n), k[i].digest);
        mh_trace_hold_release(k[i].h);
    }
}

static void test_holds(void) {
    const char *p = tmp("hold.mht");
    CHECK(write_trace(p) == 0);
    for (size_t i = 0; i < N_DEPTHS; i++) {
        hold_with(p, depths[i][0], depths[i][1], 0);
        hold_with(p, depths[i][0], depths[i][1], 150);
    }
}

int main(void) {
    snprintf(dir, sizeof dir, "/tmp/mh-test-readahead-%d", (int)getpid());
    char cmd[300];
    snprintf(cmd, sizeof cmd, "mkdir -p %s", dir);
    if (system(cmd) != 0) return 1;
    static const mh_test_case cases[] = {T(test_intact_and_early_close), T(test_cut), T(test_flipped),
                                         T(test_bad_record), T(test_bad_coding), T(test_version3), T(test_not_zstd), T(test_env),
                                         T(test_summary), T(test_holds)};
    int rc = mh_test_run(cases, sizeof cases / sizeof cases[0]);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) return 1;
    return rc;
}
