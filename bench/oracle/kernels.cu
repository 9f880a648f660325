/* kernels.cu -- bench/oracle's workload (issue 17): small kernels whose
 * shared-memory wavefronts and global sectors per request are known, run by
 * name under Nsight Compute and under memheat (run.sh, compare.py).
 *
 * Every kernel runs 1,024 blocks of 256 threads, once, and its output is
 * checked against the host (a wrong kernel exits 1). Inputs are copied, never
 * produced by kernels, so the program launches exactly the kernels named.
 *   oracle_kernels list          names, one a line, with what each shows
 *   oracle_kernels all           every kernel, in list order
 *   oracle_kernels NAME...       those kernels
 * Each run prints "KERNEL <name> grid=<blocks> block=<threads> check=ok".
 *
 * Shared memory (a warp access is served in 1 phase for 1-4 bytes per lane, 2
 * half-warp phases for 8, 4 quarter-warp phases for 16; docs/metrics.md
 * section 5), expected wavefronts per warp instruction, store / load:
 *   s_u8 1/1, s_u16 1/1, s_f32 1/1, s_f64 2/2, s_f2 2/2, s_f4 4/4,
 *   s_f64_2t 2/4 (2 extra), s_f4_2t 4/8 (4 extra), s_f32_32t 32/32 (31 extra),
 *   transpose_naive 1/32, transpose_padded 1/1.
 * Global memory (the labeled set of docs/metrics.md section 6), sectors per
 * request load / store: g_coalesced 4/4, g_f64 8/8, g_f4 16/16, g_stride2 8/4,
 * g_stride8 32/4, g_stride32 32/4, g_misaligned 5/4, g_gather (4 + ~32)/2 /4,
 * g_table (8 hot words of a 64 KiB table) <= 8 / 4, g_csr (banded CSR
 * SpMV, a row per thread, rows of 1-8 entries), g_edge (rows of 232: the last
 * warp of a block has 8 lanes) 3.625/3.625. */
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CK(call)                                                                           \
    do {                                                                                   \
        cudaError_t e_ = (call);                                                           \
        if (e_ != cudaSuccess) {                                                           \
            fprintf(stderr, "oracle_kernels: %s: %s\n", #call, cudaGetErrorString(e_));    \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

enum { TPB = 256, BLOCKS = 1024, N = TPB * BLOCKS, TILE = 32, ROWS = 8, SIDE = 1024, EDGE = 232 };
enum { LUT_WORDS = 16384, LUT_HOT = 8, CSR_BAND = 16 };

__host__ __device__ static inline uint32_t mix(uint32_t x) {
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

/* ---- shared memory ---- */

__global__ void s_u8(const unsigned char *in, unsigned char *out) {
    __shared__ unsigned char s[TPB];
    int t = threadIdx.x, g = blockIdx.x * TPB + t;
    s[t] = in[g];
    __syncthreads();
    out[g] = s[(t + 1) % TPB];
}

__global__ void s_u16(const unsigned short *in, unsigned short *out) {
    __shared__ unsigned short s[TPB];
    int t = threadIdx.x, g = blockIdx.x * TPB + t;
    s[t] = in[g];
    __syncthreads();
    out[g] = s[(t + 1) % TPB];
}

__global__ void s_f32(const float *in, float *out) {
    __shared__ float s[TPB];
    int t = threadIdx.x, g = blockIdx.x * TPB + t;
    s[t] = in[g];
    __syncthreads();
    out[g] = s[(t + 1) % TPB];
}

__global__ void s_f64(const double *in, double *out) {
    __shared__ double s[TPB];
    int t = threadIdx.x, g = blockIdx.x * TPB + t;
    s[t] = in[g];
    __syncthreads();
    out[g] = s[(t + 1) % TPB];
}

__global__ void s_f2(const float2 *in, float2 *out) {
    __shared__ float2 s[TPB];
    int t = threadIdx.x, g = blockIdx.x * TPB + t;
    s[t] = in[g];
    __syncthreads();
    out[g] = s[(t + 1) % TPB];
}

__global__ void s_f4(const float4 *in, float4 *out) {
    __shared__ float4 s[TPB];
    int t = threadIdx.x, g = blockIdx.x * TPB + t;
    s[t] = in[g];
    __syncthreads();
    out[g] = s[(t + 1) % TPB];
}

/* double s[2t]: a half-warp's 16 lanes cover 2 words of every 4, so each bank
 * holds 2 distinct words of the phase: 4 wavefronts, 2 extra */
__global__ void s_f64_2t(const double *in, double *out) {
    __shared__ double s[2 * TPB];
    int t = threadIdx.x, g = blockIdx.x * TPB + t;
    s[t] = in[g];
    s[t + TPB] = -in[g];
    __syncthreads();
    out[g] = s[(2 * t) % (2 * TPB)];
}

/* float4 s[2t+2]: lanes l and l+4 of a quarter-warp share 4 banks: 8
 * wavefronts, 4 extra (issue 17's third kernel) */
__global__ void s_f4_2t(const float4 *in, float4 *out) {
    __shared__ float4 s[2 * TPB];
    int t = threadIdx.x, g = blockIdx.x * TPB + t;
    s[t] = in[g];
    s[t + TPB] = in[g];
    __syncthreads();
    out[g] = s[(2 * t + 2) % (2 * TPB)];
}

/* float s[32t]: every lane in bank 0, 32 distinct words: 32 wavefronts */
__global__ void s_f32_32t(const float *in, float *out) {
    __shared__ float s[TPB * 32];
    int t = threadIdx.x, g = blockIdx.x * TPB + t;
    s[32 * t] = in[g];
    __syncthreads();
    out[g] = s[32 * ((t + 1) % TPB)];
}

/* out = in^T for a SIDE x SIDE matrix through a [32][32 + PAD] tile: without
 * padding the column read tile[tx][j] is a 32-way conflict */
template <int PAD>
__device__ void transpose_tile(const float *in, float *out) {
    __shared__ float tile[TILE][TILE + PAD];
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS) tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * SIDE + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS) out[(size_t)(y + j) * SIDE + x] = tile[threadIdx.x][threadIdx.y + j];
}

__global__ void transpose_naive(const float *in, float *out) { transpose_tile<0>(in, out); }
__global__ void transpose_padded(const float *in, float *out) { transpose_tile<1>(in, out); }

/* ---- global memory ---- */

__global__ void g_coalesced(const float *in, float *out) {
    int i = blockIdx.x * TPB + threadIdx.x;
    out[i] = 2.0f * in[i];
}

__global__ void g_f64(const double *in, double *out) {
    int i = blockIdx.x * TPB + threadIdx.x;
    out[i] = 2.0 * in[i];
}

__global__ void g_f4(const float4 *in, float4 *out) {
    int i = blockIdx.x * TPB + threadIdx.x;
    float4 v = in[i];
    out[i] = make_float4(v.w, v.z, v.y, v.x);
}

template <int S>
__device__ void strided(const float *in, float *out) {
    int i = blockIdx.x * TPB + threadIdx.x;
    out[i] = in[(size_t)i * S];
}

__global__ void g_stride2(const float *in, float *out) { strided<2>(in, out); }
__global__ void g_stride8(const float *in, float *out) { strided<8>(in, out); }
__global__ void g_stride32(const float *in, float *out) { strided<32>(in, out); }

/* in + 1: every warp's 128 bytes straddle 5 sectors */
__global__ void g_misaligned(const float *in, float *out) {
    int i = blockIdx.x * TPB + threadIdx.x;
    out[i] = in[i + 1];
}

__global__ void g_gather(const float *in, const int *perm, float *out) {
    int i = blockIdx.x * TPB + threadIdx.x;
    out[i] = in[perm[i]];
}

/* LUT_HOT hot words scattered over a 64 KiB table, picked by a hash of i */
__host__ __device__ static inline int lut_index(uint32_t i) {
    return (int)(((mix(i) % LUT_HOT) * 2053u + 17u) % LUT_WORDS);
}

__global__ void g_table(const float *lut, float *out) {
    int i = blockIdx.x * TPB + threadIdx.x;
    out[i] = lut[lut_index((uint32_t)i)];
}

/* y = A x for a banded CSR matrix, one row per thread (rows of 1-8 entries:
 * the lanes' loops diverge) */
__global__ void g_csr(const int *rowptr, const int *col, const float *val, const float *x, float *y) {
    int r = blockIdx.x * TPB + threadIdx.x;
    float acc = 0.0f;
    for (int j = rowptr[r]; j < rowptr[r + 1]; j++) acc += val[j] * x[col[j]];
    y[r] = acc;
}

/* a block per row of EDGE elements (sector aligned: 232 * 4 = 29 * 32 bytes);
 * warps 0-6 have 32 lanes, warp 7 has 8 */
__global__ void g_edge(const float *in, float *out) {
    int t = threadIdx.x;
    size_t i = (size_t)blockIdx.x * EDGE + t;
    if (t < EDGE) out[i] = in[i] + 1.0f;
}

/* ---- host ---- */

struct Bufs {
    std::vector<float> hin;  /* N * 32 + 64 floats of input */
    float *din = nullptr;    /* the same on the device */
    float *dout = nullptr;   /* 4 N floats */
    std::vector<float> hout; /* 4 N floats */
};

static int fails = 0;

static void check(const char *name, bool ok, dim3 grid, int threads) {
    printf("KERNEL %s grid=%u block=%d check=%s\n", name, grid.x * grid.y * grid.z, threads, ok ? "ok" : "FAILED");
    fflush(stdout);
    if (!ok) fails++;
}

static void fetch(Bufs &b, size_t bytes) {
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(b.hout.data(), b.dout, bytes, cudaMemcpyDeviceToHost));
}

/* the output equals in[f(i)] for every i, bit for bit (T elements) */
template <typename T, typename F>
static bool same(const Bufs &b, size_t n, F f) {
    const T *in = (const T *)b.hin.data(), *out = (const T *)b.hout.data();
    for (size_t i = 0; i < n; i++)
        if (memcmp(&out[i], &in[f(i)], sizeof(T)) != 0) return false;
    return true;
}

template <typename T, typename K>
static void run_rot(Bufs &b, const char *name, K k) {
    k<<<BLOCKS, TPB>>>((const T *)b.din, (T *)b.dout);
    fetch(b, (size_t)N * sizeof(T));
    check(name, same<T>(b, N, [](size_t i) { return (i / TPB) * TPB + (i % TPB + 1) % TPB; }), dim3(BLOCKS), TPB);
}

static void run_case(Bufs &b, const char *name) {
    const dim3 g(BLOCKS);
    const std::string n(name);
    if (n == "s_u8") return run_rot<unsigned char>(b, name, s_u8);
    if (n == "s_u16") return run_rot<unsigned short>(b, name, s_u16);
    if (n == "s_f32") return run_rot<float>(b, name, s_f32);
    if (n == "s_f64") return run_rot<double>(b, name, s_f64);
    if (n == "s_f2") return run_rot<float2>(b, name, s_f2);
    if (n == "s_f4") return run_rot<float4>(b, name, s_f4);
    if (n == "s_f32_32t") return run_rot<float>(b, name, s_f32_32t);
    if (n == "s_f64_2t") {
        s_f64_2t<<<g, TPB>>>((const double *)b.din, (double *)b.dout);
        fetch(b, (size_t)N * sizeof(double));
        const double *in = (const double *)b.hin.data(), *out = (const double *)b.hout.data();
        bool ok = true;
        for (size_t i = 0; i < N && ok; i++) {
            size_t blk = i / TPB, k = (2 * (i % TPB)) % (2 * TPB);
            double want = k < TPB ? in[blk * TPB + k] : -in[blk * TPB + k - TPB];
            ok = memcmp(&out[i], &want, sizeof want) == 0;
        }
        return check(name, ok, g, TPB);
    }
    if (n == "s_f4_2t") {
        s_f4_2t<<<g, TPB>>>((const float4 *)b.din, (float4 *)b.dout);
        fetch(b, (size_t)N * sizeof(float4));
        auto src = [](size_t i) { return (i / TPB) * TPB + ((2 * (i % TPB) + 2) % (2 * TPB)) % TPB; };
        return check(name, same<float4>(b, N, src), g, TPB);
    }
    if (n == "transpose_naive" || n == "transpose_padded") {
        dim3 tg(SIDE / TILE, SIDE / TILE), tb(TILE, ROWS);
        if (n == "transpose_naive") transpose_naive<<<tg, tb>>>(b.din, b.dout);
        else transpose_padded<<<tg, tb>>>(b.din, b.dout);
        fetch(b, (size_t)SIDE * SIDE * sizeof(float));
        auto src = [](size_t i) { return (i % SIDE) * SIDE + i / SIDE; };
        return check(name, same<float>(b, (size_t)SIDE * SIDE, src), tg, TILE * ROWS);
    }
    if (n == "g_coalesced" || n == "g_f64") {
        bool f = n == "g_coalesced";
        if (f) g_coalesced<<<g, TPB>>>(b.din, b.dout);
        else g_f64<<<g, TPB>>>((const double *)b.din, (double *)b.dout);
        fetch(b, (size_t)N * (f ? 4 : 8));
        bool ok = true;
        for (size_t i = 0; i < N && ok; i++)
            ok = f ? b.hout[i] == 2.0f * b.hin[i] : ((double *)b.hout.data())[i] == 2.0 * ((double *)b.hin.data())[i];
        return check(name, ok, g, TPB);
    }
    if (n == "g_f4") {
        g_f4<<<g, TPB>>>((const float4 *)b.din, (float4 *)b.dout);
        fetch(b, (size_t)N * sizeof(float4));
        return check(name, same<float>(b, 4 * (size_t)N, [](size_t i) { return (i / 4) * 4 + 3 - i % 4; }), g, TPB);
    }
    if (n == "g_stride2" || n == "g_stride8" || n == "g_stride32") {
        size_t s = n == "g_stride2" ? 2 : n == "g_stride8" ? 8 : 32;
        if (s == 2) g_stride2<<<g, TPB>>>(b.din, b.dout);
        else if (s == 8) g_stride8<<<g, TPB>>>(b.din, b.dout);
        else g_stride32<<<g, TPB>>>(b.din, b.dout);
        fetch(b, (size_t)N * sizeof(float));
        return check(name, same<float>(b, N, [s](size_t i) { return i * s; }), g, TPB);
    }
    if (n == "g_misaligned") {
        g_misaligned<<<g, TPB>>>(b.din, b.dout);
        fetch(b, (size_t)N * sizeof(float));
        return check(name, same<float>(b, N, [](size_t i) { return i + 1; }), g, TPB);
    }
    if (n == "g_gather") {
        std::vector<int> perm(N);
        for (int i = 0; i < N; i++) perm[i] = i;
        for (int i = N - 1; i > 0; i--) std::swap(perm[i], perm[mix((uint32_t)i) % (uint32_t)(i + 1)]);
        int *dp;
        CK(cudaMalloc(&dp, (size_t)N * sizeof(int)));
        CK(cudaMemcpy(dp, perm.data(), (size_t)N * sizeof(int), cudaMemcpyHostToDevice));
        g_gather<<<g, TPB>>>(b.din, dp, b.dout);
        fetch(b, (size_t)N * sizeof(float));
        CK(cudaFree(dp));
        return check(name, same<float>(b, N, [&perm](size_t i) { return (size_t)perm[i]; }), g, TPB);
    }
    if (n == "g_table") {
        g_table<<<g, TPB>>>(b.din, b.dout);
        fetch(b, (size_t)N * sizeof(float));
        return check(name, same<float>(b, N, [](size_t i) { return (size_t)lut_index((uint32_t)i); }), g, TPB);
    }
    if (n == "g_csr") {
        std::vector<int> rp(N + 1), col;
        std::vector<float> val;
        rp[0] = 0;
        for (int r = 0; r < N; r++) {
            int len = 1 + (int)(mix((uint32_t)r * 3u + 1u) % 8u);
            for (int k = 0; k < len; k++) {
                int c = r - CSR_BAND + (int)(mix((uint32_t)(r * 8 + k)) % (2 * CSR_BAND + 1));
                col.push_back(c < 0 ? 0 : c >= N ? N - 1 : c);
                val.push_back(0.5f + 0.125f * (float)k);
            }
            rp[r + 1] = (int)col.size();
        }
        int *drp, *dcol;
        float *dval;
        CK(cudaMalloc(&drp, rp.size() * sizeof(int)));
        CK(cudaMalloc(&dcol, col.size() * sizeof(int)));
        CK(cudaMalloc(&dval, val.size() * sizeof(float)));
        CK(cudaMemcpy(drp, rp.data(), rp.size() * sizeof(int), cudaMemcpyHostToDevice));
        CK(cudaMemcpy(dcol, col.data(), col.size() * sizeof(int), cudaMemcpyHostToDevice));
        CK(cudaMemcpy(dval, val.data(), val.size() * sizeof(float), cudaMemcpyHostToDevice));
        g_csr<<<g, TPB>>>(drp, dcol, dval, b.din, b.dout);
        fetch(b, (size_t)N * sizeof(float));
        CK(cudaFree(drp));
        CK(cudaFree(dcol));
        CK(cudaFree(dval));
        bool ok = true;
        for (int r = 0; r < N && ok; r++) {
            double acc = 0, mag = 0;
            for (int j = rp[r]; j < rp[r + 1]; j++) {
                acc += (double)val[j] * b.hin[col[j]];
                mag += fabs((double)val[j] * b.hin[col[j]]);
            }
            ok = fabs(b.hout[r] - acc) <= 1e-5 * (mag + 1e-30) + 1e-30;
        }
        return check(name, ok, g, TPB);
    }
    if (n == "g_edge") {
        g_edge<<<g, TPB>>>(b.din, b.dout);
        fetch(b, (size_t)BLOCKS * EDGE * sizeof(float));
        bool ok = true;
        for (size_t i = 0; i < (size_t)BLOCKS * EDGE && ok; i++) ok = b.hout[i] == b.hin[i] + 1.0f;
        return check(name, ok, g, TPB);
    }
    fprintf(stderr, "oracle_kernels: unknown kernel '%s' (oracle_kernels list)\n", name);
    exit(2);
}

static const char *const all_cases[] = {
    "s_u8", "s_u16", "s_f32", "s_f64", "s_f2", "s_f4", "s_f64_2t", "s_f4_2t", "s_f32_32t", "transpose_naive",
    "transpose_padded", "g_coalesced", "g_f64", "g_f4", "g_stride2", "g_stride8", "g_stride32", "g_misaligned",
    "g_gather", "g_table", "g_csr", "g_edge"};

int main(int argc, char **argv) {
    if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        fprintf(stderr, "usage: oracle_kernels list | all | NAME...\n");
        return argc < 2 ? 2 : 0;
    }
    size_t ncases = sizeof all_cases / sizeof all_cases[0];
    if (!strcmp(argv[1], "list")) {
        for (size_t i = 0; i < ncases; i++) printf("%s\n", all_cases[i]);
        return 0;
    }
    Bufs b;
    size_t nin = (size_t)N * 32 + 64;
    b.hin.resize(nin);
    uint32_t s = 12345u;
    for (size_t i = 0; i < nin; i++) {
        s = s * 1664525u + 1013904223u;
        b.hin[i] = (float)(s >> 8) / 8388608.0f - 1.0f; /* finite floats in [-1, 1): bitwise compares are safe */
    }
    b.hout.resize(4 * (size_t)N);
    CK(cudaMalloc(&b.din, nin * sizeof(float)));
    CK(cudaMalloc(&b.dout, 4 * (size_t)N * sizeof(float)));
    CK(cudaMemcpy(b.din, b.hin.data(), nin * sizeof(float), cudaMemcpyHostToDevice));
    if (!strcmp(argv[1], "all")) {
        for (size_t i = 0; i < ncases; i++) run_case(b, all_cases[i]);
    } else {
        for (int i = 1; i < argc; i++) run_case(b, argv[i]);
    }
    CK(cudaFree(b.din));
    CK(cudaFree(b.dout));
    if (fails) fprintf(stderr, "oracle_kernels: %d kernel(s) gave wrong results\n", fails);
    return fails ? 1 : 0;
}
