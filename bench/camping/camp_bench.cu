/* camp_bench.cu -- partition-camping micro-benchmarks (CampProf, seed 000).
 *
 * Owns the GPU side of memheat's camping model: one access-pattern kernel that
 * reads or writes 2-, 4-, 8- or 16-byte words in a chosen address layout, the
 * occupancy control (active warps per SM through block size + dynamic shared
 * memory), the timing (CUDA events, L2 flushed between repetitions), and the
 * validation kernels (a camping-free streaming kernel, a partially camped
 * kernel, and three matrix transposes).  Everything it measures goes to CSV
 * files that src/analyses/camp.c fits; nothing here models anything.
 *
 * Layout of warp-request g (g = iteration * total_warps + global warp id, so
 * warps that run at the same time touch consecutive g):
 *     offset = (g & row_mask) * pitch + ((slot * req) & chunk_mask) + lane * word
 *     slot = g >> row_shift (or i + warp for "walk" layouts), req = 32 * word
 * spread  : rows = 1, chunk = whole buffer        -> plain coalesced stream
 * hot:H   : rows = 1, chunk = H bytes, walk       -> every warp in one H-byte
 *           window; warp w at iteration i uses slot (i + w) of the window, so
 *           the pattern is the same at every occupancy (the probe's hot_N
 *           layouts use slot g instead: kept as measured in results/)
 * pitch   : rows = R, pitch = P, chunk = C bytes   -> C bytes of every P-byte row
 *
 * Modes: probe (layout exploration), sweep (model data), validate (kernels);
 * sweep/validate first pick each op's camped window (hotscan) unless given.
 * Usage: camp_bench [--mode all|probe,sweep,validate] [--out DIR] [--reps N]
 *                   [--iters N] [--camped-read L] [--camped-write L] [--mlp N]
 */
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CK(call)                                                                   \
    do {                                                                           \
        cudaError_t e_ = (call);                                                   \
        if (e_ != cudaSuccess) {                                                   \
            fprintf(stderr, "camp_bench: %s:%d: %s: %s\n", __FILE__, __LINE__,     \
                    #call, cudaGetErrorString(e_));                                \
            exit(2);                                                               \
        }                                                                          \
    } while (0)

struct Layout {
    const char *name;
    unsigned long long pitch;   /* bytes between rows */
    unsigned row_shift;         /* rows = 1 << row_shift */
    unsigned long long chunk;   /* bytes touched per row (power of two) */
    unsigned walk;              /* 1: the slot in the chunk is (iteration + warp), so each
                                 * warp walks the window from its own start whatever the
                                 * occupancy; 0: the slot follows g (probe's hot_N layouts) */
};

struct Dev {
    int sms, max_warps, max_blocks, smem_sm, smem_optin;
    size_t l2;
    char name[256];
};

/* ---- device helpers ---------------------------------------------------- */

__device__ __forceinline__ unsigned smid() {
    unsigned r;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
    return r;
}

template <typename T> __device__ __forceinline__ unsigned fold(T v);
template <> __device__ __forceinline__ unsigned fold<short>(short v) { return (unsigned short)v; }
template <> __device__ __forceinline__ unsigned fold<int>(int v) { return (unsigned)v; }
template <> __device__ __forceinline__ unsigned fold<long long>(long long v) {
    return (unsigned)v ^ (unsigned)(v >> 32);
}
template <> __device__ __forceinline__ unsigned fold<int4>(int4 v) {
    return (unsigned)(v.x ^ v.y ^ v.z ^ v.w);
}
template <typename T> __device__ __forceinline__ T make(unsigned x);
template <> __device__ __forceinline__ short make<short>(unsigned x) { return (short)x; }
template <> __device__ __forceinline__ int make<int>(unsigned x) { return (int)x; }
template <> __device__ __forceinline__ long long make<long long>(unsigned x) {
    return (long long)x;
}
template <> __device__ __forceinline__ int4 make<int4>(unsigned x) {
    return make_int4((int)x, (int)x + 1, (int)x + 2, (int)x + 3);
}

/* The micro-benchmark: each warp issues `iters` warp-wide requests of one word
 * per lane.  Reads bypass L1 (ld.global.cg) so that the memory system, not the
 * SM's own cache, serves them, as on the paper's cache-less GT200. */
/* launch bounds: 2 blocks of 1024 threads must fit (<= 32 registers), or
 * the 50..64-warp configurations silently lose a block per SM */
/* MLP = read requests per warp in flight (1, 2, 4 or 8: --mlp; iters must be
 * a multiple of 8).  Writes do not wait, so for them it is only an unroll. */
#define MLP_MAX 8

template <typename T, bool WRITE, int MLP>
__global__ void __launch_bounds__(1024, 2) access_kernel(char *base, unsigned long long pitch, unsigned row_shift,
                              unsigned long long chunk_mask, unsigned walk, int iters,
                              unsigned *sink, unsigned sink_flag, unsigned zero,
                              unsigned *smid_out) {
    extern __shared__ char dyn_smem[];
    const unsigned lane = threadIdx.x & 31u;
    const unsigned long long warps_per_block = blockDim.x >> 5;
    const unsigned long long total_warps = warps_per_block * gridDim.x;
    const unsigned long long gw = blockIdx.x * warps_per_block + (threadIdx.x >> 5);
    const unsigned long long row_mask = (1ull << row_shift) - 1ull;
    const unsigned long long req = 32ull * sizeof(T);
    if (smid_out && threadIdx.x == 0) smid_out[blockIdx.x] = smid();
    if (sink_flag == 0xfeedbeefu) dyn_smem[threadIdx.x] = 0; /* keeps smem use */
    unsigned acc = 0;
    /* Groups of MLP requests per warp.  For reads, each group's addresses
     * depend on the previous group's data (through `zero`, 0 at run time but
     * unknown to the compiler), so exactly MLP loads are in flight per warp
     * whatever the compiler does: the latency-bound regime is reproducible. */
#pragma unroll 1
    for (int i0 = 0; i0 < iters; i0 += MLP) {
        const unsigned long long dep = WRITE ? 0ull : (unsigned long long)(acc & zero);
        unsigned part = 0;
#pragma unroll
        for (int u = 0; u < MLP; u++) {
            const int i = i0 + u;
            unsigned long long g = (unsigned long long)i * total_warps + gw;
            unsigned long long slot = walk ? (unsigned long long)i + gw : (g >> row_shift);
            unsigned long long off = (g & row_mask) * pitch + ((slot * req) & chunk_mask) +
                                     lane * sizeof(T) + dep;
            T *p = reinterpret_cast<T *>(base + off);
            if (WRITE)
                *p = make<T>((unsigned)g ^ lane);
            else
                part ^= fold<T>(__ldcg(p));
        }
        acc ^= part;
    }
    if (!WRITE && acc == sink_flag) sink[0] = acc; /* never true in practice */
}

__global__ void flush_kernel(const int4 *buf, size_t n, unsigned *sink) {
    unsigned acc = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        int4 v = __ldcg(buf + i);
        acc ^= (unsigned)(v.x ^ v.w);
    }
    if (acc == 0x7a7a7a7au) sink[1] = acc;
}

/* ---- validation kernels: fixed problem size, many waves ------------------ */

/* Camping-free application: y = a*x + y over n floats (2 reads + 1 write of
 * 4-byte words per element, all coalesced streams), one element per thread,
 * so at low occupancy it runs millions of tiny blocks (saxpy_1pt in the CSV). */
__global__ void __launch_bounds__(1024, 2) saxpy_kernel(const float *x, float *y, float a, size_t n) {
    extern __shared__ char dyn_smem[];
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (n == 0) dyn_smem[0] = 0;
    if (i < n) y[i] = a * x[i] + y[i];
}

/* Grid-stride versions (one wave of blocks, each thread loops): the usual
 * way memory-bound CUDA code is written. */
__global__ void __launch_bounds__(1024, 2) saxpy_gs(const float *x, float *y, float a, size_t n) {
    extern __shared__ char dyn_smem[];
    if (n == 0) dyn_smem[0] = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        y[i] = a * x[i] + y[i];
}

__device__ __forceinline__ unsigned long long lay_off(unsigned long long i, unsigned long long pitch,
                                                      unsigned row_shift,
                                                      unsigned long long chunk_mask) {
    unsigned long long g = i >> 5, lane = i & 31;
    unsigned long long row_mask = (1ull << row_shift) - 1ull;
    return (g & row_mask) * pitch + (((g >> row_shift) * 128ull) & chunk_mask) + lane * 4ull;
}

/* out[i] = in[i] + tab[camped(i)]: 1 spread + 1 camped read, 1 spread write */
__global__ void __launch_bounds__(1024, 2) partial_gs(const int *in, const char *tab, int *out, size_t n,
                           unsigned long long pitch, unsigned row_shift,
                           unsigned long long chunk_mask) {
    extern __shared__ char dyn_smem[];
    if (n == 0) dyn_smem[0] = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        out[i] = in[i] + __ldcg(reinterpret_cast<const int *>(
                             tab + lay_off(i, pitch, row_shift, chunk_mask)));
}

/* out[i] = in[i]; tab[camped(i)] = in[i]: 1 spread read, 1 spread + 1 camped write */
__global__ void __launch_bounds__(1024, 2) partialw_gs(const int *in, int *out, char *tab, size_t n,
                            unsigned long long pitch, unsigned row_shift,
                            unsigned long long chunk_mask) {
    extern __shared__ char dyn_smem[];
    if (n == 0) dyn_smem[0] = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        int v = in[i];
        out[i] = v;
        *reinterpret_cast<int *>(tab + lay_off(i, pitch, row_shift, chunk_mask)) = v;
    }
}

#define TILE 32
#define BROWS 8
/* Naive transpose: coalesced reads, 32-way scattered writes. */
__global__ void __launch_bounds__(TILE * BROWS, 8) transpose_naive(const float *in, float *out, int n) {
    extern __shared__ char dyn_smem[];
    if (n == 0) dyn_smem[0] = 0;
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += BROWS)
        out[(size_t)x * n + (y + j)] = in[(size_t)(y + j) * n + x];
}

/* Tiled transpose through shared memory: reads and writes coalesced, block
 * (bx, by) writes tile (by, bx): the SDK's "coalesced" kernel. */
__device__ __forceinline__ void transpose_tile(const float *in, float *out, int n, int bx,
                                               int by) {
    __shared__ float tile[TILE][TILE + 1];
    int x = bx * TILE + threadIdx.x;
    int y = by * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += BROWS)
        tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * n + x];
    __syncthreads();
    x = by * TILE + threadIdx.x;
    y = bx * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += BROWS)
        out[(size_t)(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}

__global__ void __launch_bounds__(TILE * BROWS, 8) transpose_coalesced(const float *in, float *out, int n) {
    extern __shared__ char dyn_smem[];
    if (n == 0) dyn_smem[0] = 0;
    transpose_tile(in, out, n, blockIdx.x, blockIdx.y);
}

/* Diagonal reordering (square grids): consecutive block ids walk a diagonal
 * of tiles, so concurrently running blocks touch different column bands. */
__global__ void __launch_bounds__(TILE * BROWS, 8) transpose_diagonal(const float *in, float *out, int n) {
    extern __shared__ char dyn_smem[];
    if (n == 0) dyn_smem[0] = 0;
    int by = blockIdx.x;
    int bx = (blockIdx.x + blockIdx.y) % gridDim.x;
    transpose_tile(in, out, n, bx, by);
}

/* ---- host side ----------------------------------------------------------- */

static Dev g_dev; /* filled once in main; read-only afterwards */
static char g_camped_names[2][64] = {"", ""}; /* [op] chosen camped patterns */
static int g_mlp = 2; /* read requests per warp in flight (--mlp; 2 = a grid-stride loop reading two arrays) */

struct Occ {
    int warps, bps, tpb, smem, achieved;
};

/* Block size and dynamic shared memory that give exactly `warps` active warps
 * per SM with `bps` equal blocks; smem is sized so that bps+1 blocks don't fit. */
static bool occ_for(int warps, int fixed_tpb, Occ *o) {
    int bps, tpb;
    if (fixed_tpb) {
        tpb = fixed_tpb;
        if (warps % (tpb / 32)) return false;
        bps = warps / (tpb / 32);
    } else {
        bps = 1;
        while (bps <= g_dev.max_blocks && (warps % bps || warps / bps > 32)) bps++;
        if (bps > g_dev.max_blocks) return false;
        tpb = warps / bps * 32;
    }
    if (bps > g_dev.max_blocks || bps * tpb / 32 > g_dev.max_warps) return false;
    long smem = (long)g_dev.smem_sm / bps - 1024 - 2048;
    if (smem > g_dev.smem_optin) smem = g_dev.smem_optin;
    if (smem < 0) smem = 0;
    o->warps = warps;
    o->bps = bps;
    o->tpb = tpb;
    o->smem = (int)smem;
    o->achieved = 0;
    return true;
}

template <typename K> static void prepare(K kern, Occ *o) {
    cudaFuncAttributes fa;
    CK(cudaFuncGetAttributes(&fa, kern));
    int dyn_max = g_dev.smem_optin - (int)fa.sharedSizeBytes;
    o->smem -= (int)fa.sharedSizeBytes; /* occ_for sized the block's whole share */
    if (o->smem < 0) o->smem = 0;
    if (o->smem > dyn_max) o->smem = dyn_max;
    CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, dyn_max));
    CK(cudaFuncSetAttribute(kern, cudaFuncAttributePreferredSharedMemoryCarveout, 100));
    int nb = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, kern, o->tpb, o->smem));
    o->achieved = nb;
}

struct Ctx {
    char *buf;
    size_t buf_bytes;
    int4 *flush;
    size_t flush_n;
    unsigned *sink;
    unsigned *smids;
    cudaEvent_t e0, e1;
    int reps;
};

static void flush_l2(Ctx *c) {
    flush_kernel<<<g_dev.sms * 4, 512>>>(c->flush, c->flush_n, c->sink);
    CK(cudaGetLastError());
}

static float median(std::vector<float> v) {
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5f * (v[n / 2 - 1] + v[n / 2]);
}

/* Launches f() once to warm up and reps times timed, flushing L2 before each. */
template <typename F> static std::vector<float> time_reps(Ctx *c, F f) {
    std::vector<float> t;
    flush_l2(c);
    f();
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    for (int r = 0; r < c->reps; r++) {
        flush_l2(c);
        CK(cudaEventRecord(c->e0));
        f();
        CK(cudaEventRecord(c->e1));
        CK(cudaGetLastError());
        CK(cudaEventSynchronize(c->e1));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, c->e0, c->e1));
        t.push_back(ms);
    }
    return t;
}

static int log2u(unsigned long long v) {
    int k = 0;
    while ((1ull << k) < v) k++;
    return k;
}

/* Returns the number of SMs that did not get exactly bps blocks (0 = one full
 * wave, spread evenly as intended). */
static int placement_errors(Ctx *c, int blocks, int bps) {
    std::vector<unsigned> s(blocks);
    CK(cudaMemcpy(s.data(), c->smids, blocks * sizeof(unsigned), cudaMemcpyDeviceToHost));
    std::vector<int> cnt(1024, 0);
    for (unsigned v : s) cnt[v < 1024 ? v : 1023]++;
    int bad = 0;
    for (int i = 0; i < 1024; i++)
        if (cnt[i] != 0 && cnt[i] != bps) bad++;
    return bad;
}

template <typename T, bool W>
static std::vector<float> run_access_mlp(Ctx *c, const Layout &L, const Occ &o0, int iters,
                                         int *placement_bad, int *achieved);

/* The read kernel is instantiated per loads-in-flight value; writes use 4. */
template <typename T, bool W>
static std::vector<float> run_access(Ctx *c, const Layout &L, const Occ &o, int iters,
                                     int *placement_bad, int *achieved) {
    switch (W ? 4 : g_mlp) {
    case 1: return run_access_mlp<T, W, 1>(c, L, o, iters, placement_bad, achieved);
    case 2: return run_access_mlp<T, W, 2>(c, L, o, iters, placement_bad, achieved);
    case 8: return run_access_mlp<T, W, 8>(c, L, o, iters, placement_bad, achieved);
    default: return run_access_mlp<T, W, 4>(c, L, o, iters, placement_bad, achieved);
    }
}

template <typename T, bool W, int M>
static std::vector<float> run_access_mlp(Ctx *c, const Layout &L, const Occ &o0, int iters,
                                         int *placement_bad, int *achieved) {
    Occ o = o0;
    prepare(access_kernel<T, W, M>, &o);
    *achieved = o.achieved;
    int blocks = g_dev.sms * o.bps;
    unsigned long long chunk_mask = L.chunk - 1;
    CK(cudaMemset(c->smids, 0xff, blocks * sizeof(unsigned)));
    access_kernel<T, W, M><<<blocks, o.tpb, o.smem>>>(c->buf, L.pitch, L.row_shift, chunk_mask,
                                                   L.walk, MLP_MAX, c->sink, 0xdeadbeefu, 0u,
                                                   c->smids);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    *placement_bad = placement_errors(c, blocks, o.bps);
    return time_reps(c, [&] {
        access_kernel<T, W, M><<<blocks, o.tpb, o.smem>>>(c->buf, L.pitch, L.row_shift, chunk_mask,
                                                       L.walk, iters, c->sink, 0xdeadbeefu, 0u,
                                                       nullptr);
    });
}

static std::vector<float> run_any(Ctx *c, bool write, int word, const Layout &L, const Occ &o,
                                  int iters, int *bad, int *ach) {
    switch (word * 2 + write) {
    case 4: return run_access<short, false>(c, L, o, iters, bad, ach);
    case 5: return run_access<short, true>(c, L, o, iters, bad, ach);
    case 8: return run_access<int, false>(c, L, o, iters, bad, ach);
    case 9: return run_access<int, true>(c, L, o, iters, bad, ach);
    case 16: return run_access<long long, false>(c, L, o, iters, bad, ach);
    case 17: return run_access<long long, true>(c, L, o, iters, bad, ach);
    case 32: return run_access<int4, false>(c, L, o, iters, bad, ach);
    default: return run_access<int4, true>(c, L, o, iters, bad, ach);
    }
}

/* Footprint checks: the highest byte a layout touches must stay in the buffer. */
static bool layout_fits(const Ctx *c, const Layout &L) {
    unsigned long long rows = 1ull << L.row_shift;
    return (rows - 1) * L.pitch + L.chunk <= c->buf_bytes;
}

static void write_header(FILE *f) {
    fprintf(f, "# device=%s;sms=%d;max_warps=%d;l2_bytes=%zu;smem_per_sm=%d", g_dev.name,
            g_dev.sms, g_dev.max_warps, g_dev.l2, g_dev.smem_sm);
    fprintf(f, ";mlp=%d", g_mlp);
    if (g_camped_names[0][0])
        fprintf(f, ";camped_read=%s;camped_write=%s", g_camped_names[0], g_camped_names[1]);
    fprintf(f, "\n");
}

static Layout spread_layout(const Ctx *c) {
    Layout L = {"spread", 0, 0, 1ull << (log2u(c->buf_bytes + 1) - 1), 0};
    return L;
}

/* probe: which layouts camp?  Fixed occupancy points, 16- and 4-byte words. */
static void mode_probe(Ctx *c, FILE *f) {
    std::vector<Layout> Ls;
    Ls.push_back(spread_layout(c));
    static char names[256][48];
    int nn = 0;
    const unsigned long long hot[] = {256, 4096, 65536, 1 << 20, 16 << 20};
    for (unsigned long long h : hot) {
        snprintf(names[nn], 48, "hot_%llu", h);
        Ls.push_back(Layout{names[nn++], 0, 0, h, 0});
    }
    for (int k = 10; k <= 24; k++) {
        for (int chunk_k : {9, 12}) {
            if (chunk_k >= k) continue;
            for (int odd = 0; odd < 2; odd++) {
                unsigned long long P = (1ull << k) + (odd ? 512 : 0);
                /* rows: as many as fit a 48 GiB window, at most 2^20 */
                int rs = std::min(20, log2u((c->buf_bytes) / P + 1) - 1);
                snprintf(names[nn], 48, "pitch_%llu_c%llu", P, 1ull << chunk_k);
                Ls.push_back(Layout{names[nn++], P, (unsigned)rs, 1ull << chunk_k, 0});
            }
        }
    }
    fprintf(f, "op,layout,word,warps,bps,tpb,achieved_bps,placement_bad,iters,touched_bytes,"
               "rep,time_ms\n");
    for (int write = 0; write < 2; write++)
        for (int word : {4, 16})
            for (int warps : {8, 64})
                for (const Layout &L : Ls) {
                    if (!layout_fits(c, L)) continue;
                    Occ o;
                    if (!occ_for(warps, 0, &o)) continue;
                    int iters = word == 16 ? 128 : 512;
                    int bad = 0, ach = 0;
                    std::vector<float> t = run_any(c, write, word, L, o, iters, &bad, &ach);
                    unsigned long long touched =
                        (1ull << L.row_shift) * L.chunk; /* upper bound of distinct bytes */
                    for (size_t r = 0; r < t.size(); r++)
                        fprintf(f, "%s,%s,%d,%d,%d,%d,%d,%d,%d,%llu,%zu,%.5f\n",
                                write ? "write" : "read", L.name, word, warps, o.bps, o.tpb, ach,
                                bad, iters, touched, r, t[r]);
                    printf("probe %-5s %-26s w%2d warps%2d  median %.4f ms\n",
                           write ? "write" : "read", L.name, word, warps, median(t));
                }
}

static std::vector<int> warp_list() {
    std::vector<int> w;
    for (int i = 1; i <= g_dev.max_warps; i++)
        if (i <= 32 || i % 2 == 0) w.push_back(i);
    return w;
}

/* sweep: model data.  Role "spread" = coalesced stream; role "camped" = the
 * op's camped pattern (cam[0] for reads, cam[1] for writes). */
static void mode_sweep(Ctx *c, FILE *f, const Layout cam[2], int iters) {
    fprintf(f, "op,layout,pattern,word,warps,bps,tpb,achieved_bps,placement_bad,iters,rep,"
               "time_ms\n");
    Layout spread = spread_layout(c);
    for (int role = 0; role < 2; role++)
        for (int write = 0; write < 2; write++) {
            const Layout &L = role ? cam[write] : spread;
            for (int word : {2, 4, 8, 16}) {
                for (int warps : warp_list()) {
                    Occ o;
                    if (!occ_for(warps, 0, &o)) continue;
                    int bad = 0, ach = 0;
                    std::vector<float> t = run_any(c, write, word, L, o, iters, &bad, &ach);
                    for (size_t r = 0; r < t.size(); r++)
                        fprintf(f, "%s,%s,%s,%d,%d,%d,%d,%d,%d,%d,%zu,%.5f\n",
                                write ? "write" : "read", role ? "camped" : "spread", L.name, word,
                                warps, o.bps, o.tpb, ach, bad, iters, r, t[r]);
                }
                printf("sweep %-5s %-7s %-20s word %2d done\n", write ? "write" : "read",
                       role ? "camped" : "spread", L.name, word);
                fflush(stdout);
            }
        }
}

/* hotscan: for each op, the hot-window size (512 B .. 64 KiB) that is slowest
 * relative to the spread stream at full occupancy, 4- and 16-byte words. */
static void hotscan(Ctx *c, FILE *f, Layout cam[2]) {
    static char names[2][64];
    fprintf(f, "op,layout,word,warps,iters,rep,time_ms\n");
    Occ o;
    occ_for(g_dev.max_warps, 0, &o);
    Layout spread = spread_layout(c);
    for (int write = 0; write < 2; write++) {
        double base[2] = {0, 0}, best = -1;
        unsigned long long best_h = 512;
        for (unsigned long long h = 256; h <= 65536; h *= 2) {
            double score = 0;
            int wi = 0;
            for (int word : {4, 16}) {
                Layout L = h == 256 ? spread : Layout{"hot", 0, 0, h, 1};
                int bad = 0, ach = 0, iters = word == 16 ? 128 : 512;
                std::vector<float> t = run_any(c, write, word, L, o, iters, &bad, &ach);
                for (size_t r = 0; r < t.size(); r++)
                    fprintf(f, "%s,%s%llu,%d,%d,%d,%zu,%.5f\n", write ? "write" : "read",
                            h == 256 ? "spread" : "hot:", h == 256 ? 0ull : h, word,
                            o.warps, iters, r, t[r]);
                double m = median(t);
                if (h == 256) base[wi] = m;
                else score += m / base[wi];
                wi++;
            }
            if (h > 256) {
                printf("hotscan %-5s hot:%-6llu slowdown (w4+w16)/2 = %.2f\n",
                       write ? "write" : "read", h, score / 2);
                if (score > best) {
                    best = score;
                    best_h = h;
                }
            }
        }
        snprintf(names[write], sizeof names[write], "hot:%llu", best_h);
        cam[write] = Layout{names[write], 0, 0, best_h, 1};
        snprintf(g_camped_names[write], 64, "%s", names[write]);
    }
    fflush(f);
}

/* validate: saxpy (camping-free), partial (1/3 of requests camped), and the
 * transposes, each over every occupancy it allows.  Columns give the kernel's
 * request counts per (op, word) so the model needs no profiler here:
 * r2..r16 / w2..w16 = warp-level read/write requests of that word size. */
static void mode_validate(Ctx *c, FILE *f, const Layout camped[2]) {
    fprintf(f, "kernel,warps,bps,tpb,achieved_bps,r2,r4,r8,r16,w2,w4,w8,w16,rep,time_ms\n");
    const size_t n = 1ull << 26; /* 64 Mi elements: 256 MiB per float array */
    float *x = (float *)c->buf, *y = x + n;
    int *in = (int *)(y + n), *out = in + n;
    char *tab = (char *)(out + n);
    /* fill inputs with non-zero data */
    {
        std::vector<float> h(n);
        for (size_t i = 0; i < n; i++) h[i] = (float)((i * 2654435761u) % 1000) * 0.001f + 1.0f;
        CK(cudaMemcpy(x, h.data(), n * 4, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(y, h.data(), n * 4, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(in, h.data(), n * 4, cudaMemcpyHostToDevice));
    }
    const double req = (double)n / 32.0;
    const Layout &cr = camped[0], &cw = camped[1];
    for (int warps : warp_list()) {
        Occ o;
        if (!occ_for(warps, 0, &o)) continue;
        size_t blocks = (n + o.tpb - 1) / o.tpb;
        int wave = g_dev.sms * o.bps;
        Occ o1 = o;
        prepare(saxpy_kernel, &o1);
        std::vector<float> t = time_reps(c, [&] {
            saxpy_kernel<<<blocks, o1.tpb, o1.smem>>>(x, y, 1.0001f, n);
        });
        for (size_t r = 0; r < t.size(); r++)
            fprintf(f, "saxpy_1pt,%d,%d,%d,%d,0,%.0f,0,0,0,%.0f,0,0,%zu,%.5f\n", warps, o1.bps,
                    o1.tpb, o1.achieved, 2 * req, req, r, t[r]);
        Occ o2 = o;
        prepare(saxpy_gs, &o2);
        t = time_reps(c, [&] { saxpy_gs<<<wave, o2.tpb, o2.smem>>>(x, y, 1.0001f, n); });
        for (size_t r = 0; r < t.size(); r++)
            fprintf(f, "saxpy_gs,%d,%d,%d,%d,0,%.0f,0,0,0,%.0f,0,0,%zu,%.5f\n", warps, o2.bps,
                    o2.tpb, o2.achieved, 2 * req, req, r, t[r]);
        Occ o3 = o;
        prepare(partial_gs, &o3);
        t = time_reps(c, [&] {
            partial_gs<<<wave, o3.tpb, o3.smem>>>(in, tab, out, n, cr.pitch, cr.row_shift,
                                                  cr.chunk - 1);
        });
        for (size_t r = 0; r < t.size(); r++)
            fprintf(f, "partial_read_gs,%d,%d,%d,%d,0,%.0f,0,0,0,%.0f,0,0,%zu,%.5f\n", warps,
                    o3.bps, o3.tpb, o3.achieved, 2 * req, req, r, t[r]);
        Occ o4 = o;
        prepare(partialw_gs, &o4);
        t = time_reps(c, [&] {
            partialw_gs<<<wave, o4.tpb, o4.smem>>>(in, out, tab, n, cw.pitch, cw.row_shift,
                                                   cw.chunk - 1);
        });
        for (size_t r = 0; r < t.size(); r++)
            fprintf(f, "partial_write_gs,%d,%d,%d,%d,0,%.0f,0,0,0,%.0f,0,0,%zu,%.5f\n", warps,
                    o4.bps, o4.tpb, o4.achieved, req, 2 * req, r, t[r]);
        printf("validate warps %d done\n", warps);
        fflush(stdout);
    }
    /* transposes: N x N floats, 8 warps per block, 1..8 blocks per SM */
    const int N = 8192;
    float *a = (float *)c->buf, *b = a + (size_t)N * N;
    {
        std::vector<float> h((size_t)N * N);
        for (size_t i = 0; i < h.size(); i++) h[i] = (float)(i % 1048573);
        CK(cudaMemcpy(a, h.data(), h.size() * 4, cudaMemcpyHostToDevice));
    }
    dim3 grid(N / TILE, N / TILE), blk(TILE, BROWS);
    const double treq = (double)N * N / 32.0;
    struct {
        const char *name;
        void (*k)(const float *, float *, int);
    } ks[] = {{"transpose_naive", transpose_naive},
              {"transpose_coalesced", transpose_coalesced},
              {"transpose_diagonal", transpose_diagonal}};
    for (auto &K : ks) {
        for (int warps = 8; warps <= g_dev.max_warps; warps += 8) {
            Occ o;
            if (!occ_for(warps, TILE * BROWS, &o)) continue;
            prepare(K.k, &o);
            /* correctness: poison, run, compare */
            CK(cudaMemset(b, 0xff, (size_t)N * N * 4));
            K.k<<<grid, blk, o.smem>>>(a, b, N);
            CK(cudaGetLastError());
            CK(cudaDeviceSynchronize());
            if (warps == 8 || warps == g_dev.max_warps) {
                std::vector<float> h((size_t)N * N);
                CK(cudaMemcpy(h.data(), b, h.size() * 4, cudaMemcpyDeviceToHost));
                size_t wrong = 0;
                for (size_t i = 0; i < (size_t)N; i++)
                    for (size_t j = 0; j < (size_t)N; j++)
                        if (h[i * N + j] != (float)((j * N + i) % 1048573)) wrong++;
                printf("%s warps %d: %zu wrong elements\n", K.name, warps, wrong);
                if (wrong) exit(3);
            }
            std::vector<float> t =
                time_reps(c, [&] { K.k<<<grid, blk, o.smem>>>(a, b, N); });
            /* naive writes: 32 sectors per warp request; counted as two
             * 16-byte-word requests (also 16 sectors each) -- an approximation */
            for (size_t r = 0; r < t.size(); r++) {
                if (K.k == transpose_naive)
                    fprintf(f, "%s,%d,%d,%d,%d,0,%.0f,0,0,0,0,0,%.0f,%zu,%.5f\n", K.name, warps,
                            o.bps, o.tpb, o.achieved, treq, 2 * treq, r, t[r]);
                else
                    fprintf(f, "%s,%d,%d,%d,%d,0,%.0f,0,0,0,%.0f,0,0,%zu,%.5f\n", K.name, warps,
                            o.bps, o.tpb, o.achieved, treq, treq, r, t[r]);
            }
            printf("%-20s warps %2d (bps %d achieved %d)  median %.4f ms\n", K.name, warps, o.bps,
                   o.achieved, median(t));
        }
    }
}

static bool parse_layout(const char *s, Layout *L) {
    /* hot:BYTES or pitch:PITCH:CHUNK:ROWSLOG2 */
    unsigned long long a = 0, b = 0;
    unsigned r = 0;
    if (sscanf(s, "hot:%llu", &a) == 1) {
        *L = Layout{strdup(s), 0, 0, a, 1};
        return (a & (a - 1)) == 0 && a >= 512;
    }
    if (sscanf(s, "pitch:%llu:%llu:%u", &a, &b, &r) == 3) {
        *L = Layout{strdup(s), a, r, b, 0};
        return (b & (b - 1)) == 0 && b >= 512;
    }
    return false;
}

static bool has_mode(const char *modes, const char *m) {
    if (!strcmp(modes, "all")) return true;
    size_t n = strlen(m);
    for (const char *p = strstr(modes, m); p != NULL; p = strstr(p + n, m))
        if ((p == modes || p[-1] == ',') && (p[n] == 0 || p[n] == ',')) return true;
    return false;
}

static FILE *open_csv(const char *out, const char *name) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", out, name);
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(2);
    }
    return f;
}

int main(int argc, char **argv) {
    const char *mode = "all", *out = ".";
    const char *cam_arg[2] = {"auto", "auto"};
    int reps = 5, iters = 512;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--mode") && i + 1 < argc) mode = argv[++i];
        else if (!strcmp(argv[i], "--out") && i + 1 < argc) out = argv[++i];
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--iters") && i + 1 < argc) iters = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--camped-read") && i + 1 < argc) cam_arg[0] = argv[++i];
        else if (!strcmp(argv[i], "--camped-write") && i + 1 < argc) cam_arg[1] = argv[++i];
        else if (!strcmp(argv[i], "--mlp") && i + 1 < argc) g_mlp = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: camp_bench [--mode all|probe,sweep,validate] [--out DIR] "
                            "[--reps N] [--iters N] [--camped-read L] [--camped-write L] [--mlp 1|2|4|8]\n"
                            "  L = auto | hot:BYTES | pitch:PITCH:CHUNK:LOG2ROWS\n");
            return 1;
        }
    }
    if (reps < 1 || iters < MLP_MAX || iters % MLP_MAX || (g_mlp & (g_mlp - 1)) || g_mlp < 1 ||
        g_mlp > MLP_MAX) {
        fprintf(stderr, "camp_bench: --reps must be positive, --iters a multiple of %d, --mlp 1, 2, 4 or 8\n",
                MLP_MAX);
        return 1;
    }
    Layout camped[2];
    bool need_scan = false;
    for (int op = 0; op < 2; op++) {
        if (!strcmp(cam_arg[op], "auto")) {
            need_scan = true;
            continue;
        }
        if (!parse_layout(cam_arg[op], &camped[op])) {
            fprintf(stderr, "camp_bench: bad camped layout '%s'\n", cam_arg[op]);
            return 1;
        }
        snprintf(g_camped_names[op], 64, "%s", cam_arg[op]);
    }

    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    g_dev.sms = p.multiProcessorCount;
    g_dev.max_warps = p.maxThreadsPerMultiProcessor / 32;
    g_dev.max_blocks = p.maxBlocksPerMultiProcessor;
    g_dev.smem_sm = (int)p.sharedMemPerMultiprocessor;
    g_dev.smem_optin = (int)p.sharedMemPerBlockOptin;
    g_dev.l2 = p.l2CacheSize;
    snprintf(g_dev.name, sizeof g_dev.name, "%s", p.name);
    printf("device %s: %d SMs, %d warps/SM, %d blocks/SM, smem/SM %d, optin %d, L2 %zu\n",
           g_dev.name, g_dev.sms, g_dev.max_warps, g_dev.max_blocks, g_dev.smem_sm,
           g_dev.smem_optin, g_dev.l2);

    Ctx c;
    size_t free_b = 0, total_b = 0;
    CK(cudaMemGetInfo(&free_b, &total_b));
    c.buf_bytes = 48ull << 30;
    if (c.buf_bytes > free_b - (2ull << 30)) c.buf_bytes = 1ull << (log2u(free_b / 2 + 1) - 1);
    CK(cudaMalloc(&c.buf, c.buf_bytes));
    CK(cudaMemset(c.buf, 0x5a, c.buf_bytes));
    c.flush_n = 4 * g_dev.l2 / sizeof(int4);
    CK(cudaMalloc(&c.flush, c.flush_n * sizeof(int4)));
    CK(cudaMemset(c.flush, 1, c.flush_n * sizeof(int4)));
    CK(cudaMalloc(&c.sink, 64));
    CK(cudaMalloc(&c.smids, 1 << 20));
    CK(cudaEventCreate(&c.e0));
    CK(cudaEventCreate(&c.e1));
    c.reps = reps;
    printf("buffer %zu bytes, L2 flush %zu bytes, reps %d\n", c.buf_bytes,
           c.flush_n * sizeof(int4), reps);

    if (has_mode(mode, "probe")) {
        FILE *f = open_csv(out, "probe.csv");
        write_header(f);
        mode_probe(&c, f);
        fclose(f);
    }
    bool model_modes = has_mode(mode, "sweep") || has_mode(mode, "validate");
    if (model_modes && need_scan) {
        Layout scanned[2];
        FILE *f = open_csv(out, "hotscan.csv");
        write_header(f);
        char keep[2][64];
        memcpy(keep, g_camped_names, sizeof keep);
        hotscan(&c, f, scanned);
        fclose(f);
        for (int op = 0; op < 2; op++) {
            if (!strcmp(cam_arg[op], "auto")) camped[op] = scanned[op];
            else snprintf(g_camped_names[op], 64, "%s", keep[op]);
        }
        printf("camped layouts: read %s, write %s\n", g_camped_names[0], g_camped_names[1]);
    }
    for (int op = 0; op < 2 && model_modes; op++)
        if (!layout_fits(&c, camped[op])) {
            fprintf(stderr, "camp_bench: layout %s does not fit the buffer\n", camped[op].name);
            return 1;
        }
    if (has_mode(mode, "sweep")) {
        FILE *f = open_csv(out, "sweep.csv");
        write_header(f);
        mode_sweep(&c, f, camped, iters);
        fclose(f);
    }
    if (has_mode(mode, "validate")) {
        FILE *f = open_csv(out, "validate.csv");
        write_header(f);
        mode_validate(&c, f, camped);
        fclose(f);
    }
    printf("camp_bench: done\n");
    return 0;
}
