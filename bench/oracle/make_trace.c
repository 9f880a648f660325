/* make_trace.c -- a synthetic trace of six of bench/oracle's kernels as the
 * CUDA collector would record them (two traced blocks of 1,024, 256 threads,
 * mangled names), for the CPU test of compare.py (test_compare.py): the
 * addresses are those of kernels.cu, so `memheat analyze --json` on this
 * trace gives the figures the GPU run would.
 *   s_f4        float4 s[t] stored, s[(t+1) % 256] loaded    4 / 4 wavefronts
 *   s_f4_2t     float4 s[t], s[t+256] stored, s[2t+2] loaded 4 / 8 (4 extra)
 *   s_f32_32t   float s[32t] stored and loaded               32 / 32 (31 extra)
 *   g_stride2   in[2i] loaded, out[i] stored                 8 / 4 sectors
 *   g_misaligned in[i+1] loaded, out[i] stored               5 / 4 sectors
 *   g_edge      rows of 232 of 256 threads                   3.625 / 3.625
 * usage: oracle_make_trace OUT.mht */
#include <stdio.h>
#include <string.h>

#include "memheat/trace.h"

enum { TPB = 256, GRID = 1024, TRACED = 2, EDGE = 232 };
static const uint64_t IN = 0x7f0000000000ull, OUT = 0x7f0010000000ull;

typedef struct acc_buf {
    mh_trace_writer *w;
    mh_access v[4096];
    size_t n;
    mh_err *err;
    int rc;
} acc_buf;

static void put(acc_buf *b, uint32_t launch, uint32_t block, uint16_t thread, uint32_t seq, uint64_t addr,
                uint8_t size, unsigned kind, unsigned space, uint64_t pc) {
    if (b->rc != MH_OK) return;
    b->v[b->n++] = (mh_access){addr, pc, launch, block, seq, thread, size, MH_ACCESS_FLAGS(kind, space)};
    if (b->n == sizeof b->v / sizeof b->v[0]) {
        b->rc = mh_trace_write_accesses(b->w, b->v, b->n, b->err);
        b->n = 0;
    }
}

static void flush(acc_buf *b) {
    if (b->rc == MH_OK && b->n) b->rc = mh_trace_write_accesses(b->w, b->v, b->n, b->err);
    b->n = 0;
}

/* One launch: accesses of thread t of a traced block, in program order. */
static void kernel(acc_buf *b, uint32_t id, const char *mangled, const char *shown) {
    static const uint32_t sampled[TRACED] = {0, 1};
    mh_launch l = {0};
    l.id = id;
    l.name = mangled;
    l.display_name = shown;
    l.grid = (mh_dim3){GRID, 1, 1};
    l.block = (mh_dim3){TPB, 1, 1};
    l.n_sampled = TRACED;
    l.sampled = sampled;
    mh_alloc sh = {100 + id, id, 0, 65536, MH_SPACE_SHARED, "shared window"};
    if (b->rc == MH_OK) b->rc = mh_trace_write_alloc(b->w, &sh, b->err);
    if (b->rc == MH_OK) b->rc = mh_trace_write_launch(b->w, &l, b->err);
    uint64_t before = b->rc == MH_OK ? mh_trace_written_accesses(b->w) : 0;
    const unsigned G = MH_SPACE_GLOBAL, S = MH_SPACE_SHARED, LD = MH_KIND_LOAD, ST = MH_KIND_STORE;
    for (uint32_t blk = 0; blk < TRACED; blk++) {
        for (uint16_t t = 0; t < TPB; t++) {
            uint64_t g = (uint64_t)blk * TPB + t;
            uint32_t q = 0;
            switch (id) {
            case 0: /* s_f4 */
                put(b, id, blk, t, q++, IN + 16 * g, 16, LD, G, 0x10);
                put(b, id, blk, t, q++, 16u * t, 16, ST, S, 0x20);
                put(b, id, blk, t, q++, 16u * ((t + 1u) % TPB), 16, LD, S, 0x30);
                put(b, id, blk, t, q++, OUT + 16 * g, 16, ST, G, 0x40);
                break;
            case 1: /* s_f4_2t */
                put(b, id, blk, t, q++, IN + 16 * g, 16, LD, G, 0x10);
                put(b, id, blk, t, q++, 16u * t, 16, ST, S, 0x20);
                put(b, id, blk, t, q++, 16u * (t + TPB), 16, ST, S, 0x30);
                put(b, id, blk, t, q++, 16u * ((2u * t + 2u) % (2u * TPB)), 16, LD, S, 0x40);
                put(b, id, blk, t, q++, OUT + 16 * g, 16, ST, G, 0x50);
                break;
            case 2: /* s_f32_32t */
                put(b, id, blk, t, q++, IN + 4 * g, 4, LD, G, 0x10);
                put(b, id, blk, t, q++, 128u * t, 4, ST, S, 0x20);
                put(b, id, blk, t, q++, 128u * ((t + 1u) % TPB), 4, LD, S, 0x30);
                put(b, id, blk, t, q++, OUT + 4 * g, 4, ST, G, 0x40);
                break;
            case 3: /* g_stride2 */
                put(b, id, blk, t, q++, IN + 8 * g, 4, LD, G, 0x10);
                put(b, id, blk, t, q++, OUT + 4 * g, 4, ST, G, 0x20);
                break;
            case 4: /* g_misaligned */
                put(b, id, blk, t, q++, IN + 4 * (g + 1), 4, LD, G, 0x10);
                put(b, id, blk, t, q++, OUT + 4 * g, 4, ST, G, 0x20);
                break;
            default: /* g_edge */
                if (t >= EDGE) break;
                put(b, id, blk, t, q++, IN + 4 * ((uint64_t)blk * EDGE + t), 4, LD, G, 0x10);
                put(b, id, blk, t, q++, OUT + 4 * ((uint64_t)blk * EDGE + t), 4, ST, G, 0x20);
                break;
            }
        }
    }
    flush(b);
    mh_kernel_end e = {id, b->rc == MH_OK ? mh_trace_written_accesses(b->w) - before : 0, 0, 0};
    if (b->rc == MH_OK) b->rc = mh_trace_write_kernel_end(b->w, &e, b->err);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: oracle_make_trace OUT.mht\n");
        return 2;
    }
    mh_trace_header h = {0};
    h.producer = "bench/oracle/make_trace";
    h.command = "oracle_kernels all";
    h.note = "";
    h.device.name = "synthetic H100";
    h.device.warp_size = 32;
    h.device.sector_size = 32;
    mh_err err = {0};
    static acc_buf b;
    b.err = &err;
    b.rc = mh_trace_create(&b.w, argv[1], &h, NULL, &err);
    mh_alloc in = {1, MH_TRACE_NO_LAUNCH, IN, 64u << 20, MH_SPACE_GLOBAL, "in"};
    mh_alloc out = {2, MH_TRACE_NO_LAUNCH, OUT, 16u << 20, MH_SPACE_GLOBAL, "out"};
    if (b.rc == MH_OK) b.rc = mh_trace_write_alloc(b.w, &in, &err);
    if (b.rc == MH_OK) b.rc = mh_trace_write_alloc(b.w, &out, &err);
    static const char *const names[][2] = {
        {"_Z4s_f4PK6float4PS_", "s_f4(float4 const*, float4*)"},
        {"_Z7s_f4_2tPK6float4PS_", "s_f4_2t(float4 const*, float4*)"},
        {"_Z9s_f32_32tPKfPf", "s_f32_32t(float const*, float*)"},
        {"_Z9g_stride2PKfPf", "g_stride2(float const*, float*)"},
        {"_Z12g_misalignedPKfPf", "g_misaligned(float const*, float*)"},
        {"_Z6g_edgePKfPf", "g_edge(float const*, float*)"}};
    for (uint32_t i = 0; i < sizeof names / sizeof names[0]; i++) kernel(&b, i, names[i][0], names[i][1]);
    mh_err cerr = {0};
    int rc = b.w ? mh_trace_close(b.w, &cerr) : MH_OK;
    if (b.rc != MH_OK || rc != MH_OK) {
        fprintf(stderr, "oracle_make_trace: %s: %s\n", argv[1], err.msg[0] ? err.msg : cerr.msg);
        return 1;
    }
    return 0;
}
