/* test_trace.c -- trace format v1: round trip of every record type across many
 * chunks, and the damaged-file cases (cut short, flipped byte, wrong magic,
 * future version, empty file, garbage), each a clean error, never a crash. */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../mh_test.h"
#include "memheat/trace.h"

static char dir[256];

static const char *tmp(const char *name) {
    static char buf[4][512]; /* several live at once */
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

static mh_access make_access(uint64_t i) {
    mh_access a = {.addr = 0x1000 + i * 4, .pc = 0x40 + (i % 7) * 16, .launch = (uint32_t)(i % 3),
                   .block = (uint32_t)(i % 5), .seq = (uint32_t)(i / 97), .thread = (uint16_t)(i % 1024),
                   .size = (uint8_t)(1u << (i % 5)), .flags = MH_ACCESS_FLAGS(i % 3, i % 4)};
    return a;
}

#define N_ACC 200000u

/* Writes a multi-chunk trace with every record type (chunks coded and
 * written on the writer's own thread with `background`); returns 0 on success. */
static int write_sample_bg(const char *path, size_t chunk, int background) {
    mh_err err = {0};
    mh_trace_header h = {.producer = "test", .command = "./app --flag \"x\"", .note = "n",
                         .start_unix_ns = 123456789,
                         .device = {.name = "Dev", .warp_size = 32, .sector_size = 32, .sm_count = 132,
                                    .cc_major = 9, .cc_minor = 0, .mem_clock_khz = 2619000,
                                    .bus_width_bits = 5120, .l2_bytes = 50u << 20, .max_warps_per_sm = 64,
                                    .global_mem_bytes = 80ull << 30}};
    mh_trace_writer_opts o = {.chunk_bytes = chunk, .background = background};
    mh_trace_writer *w;
    if (mh_trace_create(&w, path, &h, &o, &err) != MH_OK) return 1;
    uint32_t sampled[3] = {0, 7, 9};
    for (uint32_t id = 0; id < 3; id++) {
        mh_launch l = {.id = id, .name = "_Z4gemmPfS_", .display_name = "gemm(float*, float*)",
                       .grid = {16, 2, 1}, .block = {256, 1, 1}, .dyn_smem = 1024 * id, .regs = 40,
                       .stream = 0xabc, .n_sampled = id == 2 ? MH_TRACE_ALL_BLOCKS : id + 1, .sampled = sampled};
        mh_alloc a = {.id = id, .launch = MH_TRACE_NO_LAUNCH, .base = 0x1000 + id * 0x100000, .size = 4096,
                      .space = MH_SPACE_GLOBAL, .label = id == 1 ? "" : "B,\"matrix\""};
        if (mh_trace_write_launch(w, &l, &err) || mh_trace_write_alloc(w, &a, &err)) return 2;
    }
    mh_access batch[1000];
    for (uint32_t i = 0; i < N_ACC; i += 1000) {
        for (uint32_t k = 0; k < 1000; k++) batch[k] = make_access(i + k);
        if (mh_trace_write_accesses(w, batch, 1000, &err)) return 3;
        if (i % 7000 == 0 && mh_trace_flush(w, &err)) return 3; /* as collectors do at kernel ends */
        if (i == 50000) {
            mh_pcinfo p = {.pc = 0x40, .function = "gemm", .file = "gemm.cu", .line = 17};
            if (mh_trace_write_pcinfo(w, &p, &err)) return 4;
        }
    }
    mh_free f = {.base = 0x1000, .space = MH_SPACE_GLOBAL};
    mh_dropped d = {.launch = 1, .count = 42, .reason = "buffer full"};
    mh_kernel_end e = {.launch = 1, .recorded = 7, .dropped = 42, .gpu_ns = 999};
    if (mh_trace_write_free(w, &f, &err) || mh_trace_write_dropped(w, &d, &err) ||
        mh_trace_write_kernel_end(w, &e, &err))
        return 5;
    return mh_trace_close(w, &err) != MH_OK;
}

static int write_sample(const char *path, size_t chunk) { return write_sample_bg(path, chunk, 0); }

typedef struct counts {
    uint64_t acc, launches, allocs, frees, ends, dropped, pcs, bad_acc;
    int status, complete;
    char msg[512];
} counts;

static counts read_all(const char *path) {
    counts c = {0};
    mh_err err = {0};
    mh_trace_reader *r;
    c.status = mh_trace_open(&r, path, &err);
    if (c.status != MH_OK) {
        snprintf(c.msg, sizeof c.msg, "%s", err.msg);
        return c;
    }
    mh_record rec;
    while ((c.status = mh_trace_next(r, &rec, &err)) == MH_OK && rec.type != MH_REC_EOF) {
        switch (rec.type) {
        case MH_REC_ACCESSES:
            for (size_t i = 0; i < rec.u.accesses.n; i++) {
                mh_access want = make_access(c.acc + i);
                if (memcmp(&want, &rec.u.accesses.v[i], sizeof want) != 0) c.bad_acc++;
            }
            c.acc += rec.u.accesses.n;
            break;
        case MH_REC_LAUNCH: c.launches++; break;
        case MH_REC_ALLOC: c.allocs++; break;
        case MH_REC_FREE: c.frees++; break;
        case MH_REC_KERNEL_END: c.ends++; break;
        case MH_REC_DROPPED: c.dropped += rec.u.dropped.count; break;
        case MH_REC_PCINFO: c.pcs++; break;
        }
    }
    if (c.status != MH_OK) snprintf(c.msg, sizeof c.msg, "%s", err.msg);
    c.complete = mh_trace_complete(r);
    mh_trace_close_reader(r);
    return c;
}

static long file_size(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fclose(f);
    return n;
}

static void copy_prefix(const char *src, const char *dst, long n) {
    FILE *a = fopen(src, "rb"), *b = fopen(dst, "wb");
    char buf[65536];
    while (n > 0) {
        size_t k = fread(buf, 1, n < (long)sizeof buf ? (size_t)n : sizeof buf, a);
        if (k == 0) break;
        fwrite(buf, 1, k, b);
        n -= (long)k;
    }
    fclose(a);
    fclose(b);
}

static void poke(const char *path, long off, unsigned char xor_mask) {
    FILE *f = fopen(path, "r+b");
    fseek(f, off, SEEK_SET);
    int ch = fgetc(f);
    fseek(f, off, SEEK_SET);
    fputc(ch ^ xor_mask, f);
    fclose(f);
}

static long file_bytes(const char *path, unsigned char **out) {
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    *out = malloc(n > 0 ? (size_t)n : 1);
    if (fread(*out, 1, (size_t)n, f) != (size_t)n) n = -1;
    fclose(f);
    return n;
}

/* Chunks written on the writer's thread: the same file byte for byte (the
 * same chunks in the same order, the same END); small chunks, so that the
 * queue fills and the caller waits for room; an error of the thread (a full
 * disk) comes back to the caller, at a later call or at close. */
static void test_background(void) {
    const char *a = tmp("fg.mht"), *b = tmp("bg.mht");
    CHECK(write_sample_bg(a, 4096, 0) == 0);
    CHECK(write_sample_bg(b, 4096, 1) == 0);
    unsigned char *x = NULL, *y = NULL;
    long nx = file_bytes(a, &x), ny = file_bytes(b, &y);
    CHECK(nx > 100000);
    CHECK(nx == ny && x && y && memcmp(x, y, (size_t)nx) == 0);
    free(x);
    free(y);
    counts c = read_all(b);
    CHECK_EQ_U(c.status, MH_OK);
    CHECK_EQ_U(c.acc, N_ACC);
    CHECK(c.complete);

    /* a pipe whose reader goes away: the header fits the pipe, later chunks
     * fail on the thread (EPIPE) and the caller hears of it */
    const char *fifo = tmp("bg.fifo");
    unlink(fifo);
    CHECK(mkfifo(fifo, 0600) == 0);
    int rd = open(fifo, O_RDONLY | O_NONBLOCK);
    CHECK(rd >= 0);
    void (*old)(int) = signal(SIGPIPE, SIG_IGN);
    mh_trace_header h = {.producer = "test", .device = {.warp_size = 32, .sector_size = 32}};
    mh_trace_writer_opts o = {.chunk_bytes = 4096, .background = 1};
    mh_trace_writer *w;
    mh_err err = {0};
    CHECK(mh_trace_create(&w, fifo, &h, &o, &err) == MH_OK);
    CHECK(mh_trace_sync(w, &err) == MH_OK);
    close(rd);
    mh_access v[512];
    for (int i = 0; i < 512; i++) v[i] = make_access((uint64_t)i);
    int rc = MH_OK;
    for (int i = 0; i < 64 && rc == MH_OK; i++) rc = mh_trace_write_accesses(w, v, 512, &err);
    if (rc == MH_OK) rc = mh_trace_close(w, &err);
    else mh_trace_abandon(w);
    CHECK_EQ_U(rc, MH_ERR_IO);
    CHECK(strstr(err.msg, "writing trace") != NULL);
    signal(SIGPIPE, old);
    unlink(fifo);

    /* a child forked while the thread has chunks to write: the child's calls
     * fail at once (no thread there to wait for), the parent's file is whole */
    const char *f = tmp("bgfork.mht");
    CHECK(mh_trace_create(&w, f, &h, &o, &err) == MH_OK);
    for (int i = 0; i < 16; i++) CHECK(mh_trace_write_accesses(w, v, 512, &err) == MH_OK);
    pid_t pid = fork();
    if (pid == 0) {
        mh_err e2;
        int bad = mh_trace_write_accesses(w, v, 512, &e2) == MH_OK && mh_trace_flush(w, &e2) == MH_OK;
        bad |= mh_trace_sync(w, &e2) == MH_OK;
        _exit(bad ? 1 : 0);
    }
    int status = -1;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK(mh_trace_close(w, &err) == MH_OK);
    counts k = read_all(f);
    CHECK_EQ_U(k.status, MH_OK);
    CHECK_EQ_U(k.acc, 16 * 512);
    CHECK(k.complete);
}

static void test_roundtrip(void) {
    const char *p = tmp("rt.mht");
    CHECK(write_sample(p, 64 * 1024) == 0);
    counts c = read_all(p);
    CHECK_EQ_U(c.status, MH_OK);
    CHECK_EQ_U(c.acc, N_ACC);
    CHECK_EQ_U(c.bad_acc, 0);
    CHECK_EQ_U(c.launches, 3);
    CHECK_EQ_U(c.allocs, 3);
    CHECK_EQ_U(c.frees, 1);
    CHECK_EQ_U(c.ends, 1);
    CHECK_EQ_U(c.dropped, 42);
    CHECK_EQ_U(c.pcs, 1);
    CHECK(c.complete);
}

static void test_fields(void) {
    const char *p = tmp("fields.mht");
    CHECK(write_sample(p, 0) == 0);
    mh_err err = {0};
    mh_trace_reader *r;
    CHECK(mh_trace_open(&r, p, &err) == MH_OK);
    const mh_trace_header *h = mh_trace_header_get(r);
    CHECK_EQ_U(h->version, MH_TRACE_VERSION);
    CHECK(!strcmp(h->producer, "test") && !strcmp(h->command, "./app --flag \"x\"") && !strcmp(h->note, "n"));
    CHECK(!strcmp(h->device.name, "Dev"));
    CHECK_EQ_U(h->device.sm_count, 132);
    CHECK_EQ_U(h->device.bus_width_bits, 5120);
    CHECK_EQ_U(h->device.global_mem_bytes, 80ull << 30);
    CHECK_EQ_U(h->start_unix_ns, 123456789);
    mh_record rec;
    int launches = 0;
    while (mh_trace_next(r, &rec, &err) == MH_OK && rec.type != MH_REC_EOF) {
        if (rec.type == MH_REC_LAUNCH) {
            const mh_launch *l = &rec.u.launch;
            CHECK_EQ_U(l->id, (uint32_t)launches);
            CHECK(!strcmp(l->name, "_Z4gemmPfS_") && !strcmp(l->display_name, "gemm(float*, float*)"));
            CHECK(l->grid.x == 16 && l->grid.y == 2 && l->block.x == 256 && l->regs == 40 && l->stream == 0xabc);
            CHECK_EQ_U(l->dyn_smem, 1024u * l->id);
            if (l->id < 2) {
                CHECK_EQ_U(l->n_sampled, l->id + 1);
                CHECK_EQ_U(l->sampled[0], 0);
                if (l->id == 1) CHECK_EQ_U(l->sampled[1], 7);
            } else {
                CHECK_EQ_U(l->n_sampled, MH_TRACE_ALL_BLOCKS);
            }
            launches++;
        } else if (rec.type == MH_REC_ALLOC && rec.u.alloc.id == 0) {
            CHECK(!strcmp(rec.u.alloc.label, "B,\"matrix\""));
            CHECK_EQ_U(rec.u.alloc.size, 4096);
        } else if (rec.type == MH_REC_PCINFO) {
            CHECK(!strcmp(rec.u.pcinfo.file, "gemm.cu") && rec.u.pcinfo.line == 17);
        } else if (rec.type == MH_REC_KERNEL_END) {
            CHECK(rec.u.kernel_end.gpu_ns == 999 && rec.u.kernel_end.dropped == 42);
        }
    }
    CHECK_EQ_U(launches, 3);
    mh_trace_close_reader(r);
}

static void test_truncated(void) {
    const char *full = tmp("full.mht");
    CHECK(write_sample(full, 64 * 1024) == 0);
    long n = file_size(full);
    const char *cut = tmp("cut.mht");
    copy_prefix(full, cut, n - 100); /* inside the last chunk */
    counts c = read_all(cut);
    CHECK_EQ_U(c.status, MH_ERR_TRUNCATED);
    CHECK(strstr(c.msg, "cut short") != NULL);
    CHECK(c.acc > 0 && c.acc < N_ACC);
    CHECK_EQ_U(c.bad_acc, 0);     /* what came before the cut is intact */
    CHECK_EQ_U(c.launches, 3);
    CHECK(!c.complete);
    /* Cut at every offset of the first few KiB: always an error or a clean EOF, never a crash. */
    for (long k = 0; k < 4096 && k < n; k += 37) {
        copy_prefix(full, cut, k);
        counts d = read_all(cut);
        CHECK(d.status != MH_OK || !d.complete);
        CHECK_EQ_U(d.bad_acc, 0);
    }
}

static void test_flipped(void) {
    const char *p = tmp("flip.mht");
    CHECK(write_sample(p, 64 * 1024) == 0);
    long n = file_size(p);
    poke(p, n / 2, 0x10);
    counts c = read_all(p);
    CHECK_EQ_U(c.status, MH_ERR_CORRUPT);
    CHECK(strstr(c.msg, "checksum") != NULL);
    CHECK_EQ_U(c.bad_acc, 0);
    /* Every byte position of the header chunk, flipped one at a time. */
    for (long off = 0; off < 200; off++) {
        CHECK(write_sample(p, 64 * 1024) == 0);
        poke(p, off, 0x01);
        counts d = read_all(p);
        if (d.status == MH_OK) fprintf(stderr, "flip at %ld not detected\n", off);
        CHECK(d.status != MH_OK);
        CHECK_EQ_U(d.bad_acc, 0);
    }
}

static void test_bad_magic_version_empty(void) {
    const char *p = tmp("bad.mht");
    CHECK(write_sample(p, 0) == 0);
    poke(p, 0, 0x20); /* 'M' -> 'm' */
    counts c = read_all(p);
    CHECK_EQ_U(c.status, MH_ERR_FORMAT);
    CHECK(strstr(c.msg, "magic") != NULL);

    CHECK(write_sample(p, 0) == 0);
    poke(p, 8, (unsigned char)(MH_TRACE_VERSION ^ (MH_TRACE_VERSION + 1u))); /* a version from the future */
    c = read_all(p);
    CHECK_EQ_U(c.status, MH_ERR_VERSION);
    char future[32];
    snprintf(future, sizeof future, "version %u", MH_TRACE_VERSION + 1u);
    CHECK(strstr(c.msg, future) != NULL);

    FILE *f = fopen(p, "wb");
    fclose(f);
    c = read_all(p);
    CHECK_EQ_U(c.status, MH_ERR_EMPTY);

    f = fopen(p, "wb");
    fputs("this is a text file, not a trace\n", f);
    fclose(f);
    c = read_all(p);
    CHECK_EQ_U(c.status, MH_ERR_FORMAT);

    c = read_all(tmp("does-not-exist.mht"));
    CHECK_EQ_U(c.status, MH_ERR_IO);
}

/* A writer of 4 KiB chunks with a minimal header, or NULL. */
static mh_trace_writer *small_chunks(const char *path) {
    mh_err err = {0};
    mh_trace_header h = {.producer = "t", .command = "", .note = "",
                         .device = {.name = "d", .warp_size = 32, .sector_size = 32}};
    mh_trace_writer_opts o = {.chunk_bytes = 4096};
    mh_trace_writer *w;
    return mh_trace_create(&w, path, &h, &o, &err) == MH_OK ? w : NULL;
}

static void test_big_batch_spans_chunks(void) {
    /* One write call far larger than a chunk is split over chunks losslessly. */
    const char *p = tmp("big.mht");
    mh_err err = {0};
    mh_trace_writer *w = small_chunks(p);
    CHECK(w != NULL);
    if (!w) return;
    mh_access *v = malloc(sizeof(mh_access) * 10000);
    for (uint32_t i = 0; i < 10000; i++) v[i] = make_access(i);
    CHECK(mh_trace_write_accesses(w, v, 10000, &err) == MH_OK);
    CHECK_EQ_U(mh_trace_written_accesses(w), 10000);
    CHECK(mh_trace_close(w, &err) == MH_OK);
    free(v);
    counts c = read_all(p);
    CHECK_EQ_U(c.status, MH_OK);
    CHECK_EQ_U(c.acc, 10000);
    CHECK_EQ_U(c.bad_acc, 0);
}

static void test_unclosed_writer(void) {
    /* A collector that dies after a flush leaves a readable, incomplete trace. */
    const char *p = tmp("crash.mht");
    mh_err err = {0};
    mh_trace_header h = {.producer = "t", .command = "", .note = "",
                         .device = {.name = "d", .warp_size = 32, .sector_size = 32}};
    mh_trace_writer *w;
    CHECK(mh_trace_create(&w, p, &h, NULL, &err) == MH_OK);
    mh_access v[100];
    for (uint32_t i = 0; i < 100; i++) v[i] = make_access(i);
    CHECK(mh_trace_write_accesses(w, v, 100, &err) == MH_OK);
    CHECK(mh_trace_flush(w, &err) == MH_OK);
    CHECK(mh_trace_write_accesses(w, v, 100, &err) == MH_OK); /* never flushed: lost */
    mh_trace_abandon(w);
    counts c = read_all(p);
    CHECK_EQ_U(c.status, MH_OK);
    CHECK_EQ_U(c.acc, 100);
    CHECK(!c.complete);
}

static void test_launch_stats(void) {
    /* Per-configuration launch counts survive the round trip; counts that
     * trace more launches than ran are refused as malformed. */
    const char *p = tmp("stats.mht");
    mh_err err = {0};
    mh_trace_header h = {.producer = "t", .command = "", .note = "",
                         .device = {.name = "d", .warp_size = 32, .sector_size = 32}};
    mh_trace_writer *w;
    CHECK(mh_trace_create(&w, p, &h, NULL, &err) == MH_OK);
    mh_launch_stats a = {.name = "_Z4gemmv", .grid = {4, 2, 1}, .block = {128, 1, 1}, .dyn_smem = 96,
                         .launches = 2767, .traced = 1};
    mh_launch_stats b = {.name = "bad", .grid = {1, 1, 1}, .block = {1, 1, 1}, .launches = 1, .traced = 2};
    CHECK(mh_trace_write_launch_stats(w, &a, &err) == MH_OK);
    CHECK(mh_trace_write_launch_stats(w, &b, &err) == MH_OK);
    CHECK(mh_trace_close(w, &err) == MH_OK);
    mh_trace_reader *r;
    CHECK(mh_trace_open(&r, p, &err) == MH_OK);
    mh_record rec;
    CHECK(mh_trace_next(r, &rec, &err) == MH_OK);
    CHECK(rec.type == MH_REC_LAUNCH_STATS);
    const mh_launch_stats *g = &rec.u.launch_stats;
    CHECK(!strcmp(g->name, "_Z4gemmv") && g->grid.x == 4 && g->grid.y == 2 && g->block.x == 128);
    CHECK(g->dyn_smem == 96 && g->launches == 2767 && g->traced == 1);
    CHECK(mh_trace_next(r, &rec, &err) == MH_ERR_FORMAT);
    CHECK(strstr(err.msg, "more launches than ran") != NULL);
    mh_trace_close_reader(r);
}

static void test_karg(void) {
    /* A kernel argument survives the round trip with its strings; an
     * argument in an unknown address space is refused as malformed. */
    const char *p = tmp("karg.mht");
    mh_err err = {0};
    mh_trace_header h = {.producer = "t", .command = "", .note = "",
                         .device = {.name = "d", .warp_size = 32, .sector_size = 32}};
    mh_trace_writer *w;
    CHECK(mh_trace_create(&w, p, &h, NULL, &err) == MH_OK);
    mh_karg a = {.launch = 7, .index = 2, .offset = 16, .size = 8, .value = 0x7f0000001000ull,
                 .space = MH_SPACE_GLOBAL, .type = "float*", .name = "C"};
    mh_karg b = {.launch = 7, .index = 3, .offset = 24, .size = 8, .value = 1, .space = 9};
    CHECK(mh_trace_write_karg(w, &a, &err) == MH_OK);
    CHECK(mh_trace_write_karg(w, &b, &err) == MH_OK);
    CHECK(mh_trace_close(w, &err) == MH_OK);
    mh_trace_reader *r;
    CHECK(mh_trace_open(&r, p, &err) == MH_OK);
    CHECK_EQ_U(mh_trace_header_get(r)->version, MH_TRACE_VERSION);
    mh_record rec;
    CHECK(mh_trace_next(r, &rec, &err) == MH_OK);
    CHECK(rec.type == MH_REC_KARG);
    const mh_karg *g = &rec.u.karg;
    CHECK(g->launch == 7 && g->index == 2 && g->offset == 16 && g->size == 8 && g->value == 0x7f0000001000ull);
    CHECK(g->space == MH_SPACE_GLOBAL && !strcmp(g->type, "float*") && !strcmp(g->name, "C"));
    CHECK(mh_trace_next(r, &rec, &err) == MH_ERR_FORMAT);
    CHECK(strstr(err.msg, "unknown address space") != NULL);
    mh_trace_close_reader(r);
}

/* ACCESSES records whose accesses all name one launch are marked as such
 * (one_launch), with and without read-ahead helpers; a record mixing
 * launches anywhere is not, nor is the file changed by the marks. */
static void test_one_launch(void) {
    const char *p = tmp("one.mht");
    mh_err err = {0};
    mh_trace_writer *w = small_chunks(p);
    CHECK(w != NULL);
    if (!w) return;
    enum { K = 50 };
    static const int want[] = {1, 0, 0, 1, 0, 1}; /* per record, as written below */
    mh_access v[K];
    for (int r = 0; r < 6; r++) {
        for (uint32_t i = 0; i < K; i++) {
            v[i] = make_access(i);
            v[i].launch = 4;
        }
        if (r == 1) v[K - 1].launch = 5;      /* the last differs */
        if (r == 2) v[0].launch = 5;          /* the first differs */
        if (r == 4) v[K / 2].launch = 3;      /* one in the middle */
        size_t n = r == 3 ? 1 : K;            /* a single access */
        CHECK(mh_trace_write_accesses(w, v, n, &err) == MH_OK);
        CHECK(mh_trace_flush(w, &err) == MH_OK); /* one record each */
    }
    CHECK(mh_trace_close(w, &err) == MH_OK);
    long size = file_size(p);
    for (int ra = -1; ra <= 4; ra += 5) { /* inline, then 4 chunks ahead on 2 helpers */
        mh_trace_reader_opts ro = {.readahead = ra < 0 ? 0 : ra, .readahead_threads = ra < 0 ? 0 : 2};
        mh_trace_reader *r;
        CHECK(mh_trace_open_opts(&r, p, &ro, &err) == MH_OK);
        mh_record rec;
        int k = 0;
        while (mh_trace_next(r, &rec, &err) == MH_OK && rec.type != MH_REC_EOF) {
            if (rec.type != MH_REC_ACCESSES) continue;
            CHECK(k < 6 && rec.u.accesses.one_launch == want[k]);
            int same = 1;
            for (size_t i = 1; i < rec.u.accesses.n; i++) same &= rec.u.accesses.v[i].launch == rec.u.accesses.v[0].launch;
            CHECK(same == rec.u.accesses.one_launch);
            k++;
        }
        CHECK_EQ_U(k, 6);
        mh_trace_close_reader(r);
    }
    CHECK(file_size(p) == size);
    counts c = read_all(p); /* the file still reads as written */
    CHECK_EQ_U(c.status, MH_OK);
    CHECK_EQ_U(c.acc, 5 * K + 1);
}

int main(void) {
    snprintf(dir, sizeof dir, "/tmp/mh-test-trace-%d", (int)getpid());
    char cmd[300];
    snprintf(cmd, sizeof cmd, "mkdir -p %s", dir);
    if (system(cmd) != 0) return 1;
    static const mh_test_case cases[] = {T(test_roundtrip), T(test_fields), T(test_truncated), T(test_flipped),
                                         T(test_bad_magic_version_empty), T(test_big_batch_spans_chunks),
                                         T(test_unclosed_writer), T(test_launch_stats), T(test_karg),
                                         T(test_one_launch), T(test_background)};
    int rc = mh_test_run(cases, sizeof cases / sizeof cases[0]);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) return 1;
    return rc;
}
