/* fixpairs.cu -- bench/fixpairs's workload (issue 40): pairs of a slow kernel
 * and its fixed version, one pair per cause memheat names, so that memheat's
 * estimated saving on the slow kernel can be set against the saving the fix
 * really brings (slow minus fixed, timed here with CUDA events).
 *
 *   fixpairs list                         the pairs, one a line, with the cause
 *   fixpairs [--variant slow|fixed|both] [--reps R] [--only PAIR[,PAIR...]]
 *
 * Each pair runs its variant(s) R times after one warm-up (default R = 15);
 * slow and fixed compute the same result, checked on the host when both run
 * (exit 1 on a mismatch). One line per pair and variant on stdout:
 *   time <pair> <variant> <kernel(s)> median_us <m> min_us <a> max_us <b> n <R>
 * A pair of several kernels (the launch chain) is timed from the first
 * launch's start to the last one's end; the copies by the host's clock
 * around the synchronous cudaMemcpy. With --variant slow the program holds
 * every slow kernel and nothing else: what `memheat run` profiles for the
 * ranking test (run.sh).
 *
 * Sizes are set for an H100/H200 class GPU (80-141 GB): each slow kernel
 * runs 50-1000 us there, so launch costs do not matter except where they
 * are the point (the chain). */
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#define CK(call)                                                                       \
    do {                                                                               \
        cudaError_t e_ = (call);                                                       \
        if (e_ != cudaSuccess) {                                                       \
            fprintf(stderr, "fixpairs: %s: %s\n", #call, cudaGetErrorString(e_));      \
            exit(1);                                                                   \
        }                                                                              \
    } while (0)

__host__ __device__ static inline uint32_t mix(uint32_t x) {
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

static int g_sms = 132;

/* ---- strided / transposed: naive transpose (stores N floats apart) vs a
 * 32x32 tile staged through shared memory (padded) ---- */
enum { TR_N = 8192, TR_TILE = 32, TR_ROWS = 8 };

__global__ void transpose_slow(const float *in, float *out, int n) {
    int x = blockIdx.x * TR_TILE + threadIdx.x, y0 = blockIdx.y * TR_TILE + threadIdx.y;
    for (int j = 0; j < TR_TILE; j += TR_ROWS) out[(size_t)x * n + y0 + j] = in[(size_t)(y0 + j) * n + x];
}

__global__ void transpose_fixed(const float *in, float *out, int n) {
    __shared__ float tile[TR_TILE][TR_TILE + 1];
    int x = blockIdx.x * TR_TILE + threadIdx.x, y = blockIdx.y * TR_TILE + threadIdx.y;
    for (int j = 0; j < TR_TILE; j += TR_ROWS) tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * n + x];
    __syncthreads();
    x = blockIdx.y * TR_TILE + threadIdx.x;
    y = blockIdx.x * TR_TILE + threadIdx.y;
    for (int j = 0; j < TR_TILE; j += TR_ROWS) out[(size_t)(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}

/* ---- strided: y = A x with a thread per row of a row-major A (lanes a row
 * apart) vs a warp per row (lanes on consecutive columns, shuffle sum) ---- */
enum { GV_ROWS = 65536, GV_COLS = 512 };

__global__ void gemv_rows_slow(const float *a, const float *x, float *y, int rows, int cols) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float s = 0.f;
    for (int k = 0; k < cols; k++) s += a[(size_t)r * cols + k] * x[k];
    y[r] = s;
}

__global__ void gemv_rows_fixed(const float *a, const float *x, float *y, int rows, int cols) {
    int w = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x & 31;
    if (w >= rows) return;
    float s = 0.f;
    for (int k = lane; k < cols; k += 32) s += a[(size_t)w * cols + k] * x[k];
    for (int o = 16; o; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
    if (lane == 0) y[w] = s;
}

/* ---- array of structs: a particle step reads x and vx of a 32-byte struct
 * vs the same fields as separate arrays ---- */
enum { AOS_N = 1 << 24 };
struct Particle {
    float x, y, z, vx, vy, vz, m, q;
};

__global__ void aos_slow(Particle *p, float dt, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i].x += p[i].vx * dt;
}

__global__ void aos_fixed(float *x, const float *vx, float dt, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += vx[i] * dt;
}

/* ---- misaligned: a copy whose source is one float off a 32-byte boundary ---- */
enum { MIS_N = 1 << 26 };

__global__ void misaligned_slow(const float *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i + 1];
}

__global__ void misaligned_fixed(const float *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i];
}

/* ---- bank conflicts, 4-byte, 32-way: a [32][32] float tile read by columns
 * (lane = row) vs the tile padded to [32][33] ---- */
enum { BK_ITERS = 256, BK_BLOCKS_PER_SM = 8 };

template <int PAD>
__device__ __forceinline__ float bank32_body(const float *in, int it) {
    __shared__ float tile[32][32 + PAD];
    int tx = threadIdx.x, ty = threadIdx.y; /* block 32 x 8 */
    for (int r = ty; r < 32; r += 8) tile[r][tx] = in[blockIdx.x * 1024 + r * 32 + tx];
    __syncthreads();
    float acc = 0.f;
    for (int k = 0; k < it; k++) acc += tile[tx][(ty + k) & 31];
    return acc;
}

__global__ void bank32_slow(const float *in, float *out, int it) {
    float a = bank32_body<0>(in, it);
    out[blockIdx.x * 256 + threadIdx.y * 32 + threadIdx.x] = a;
}
__global__ void bank32_fixed(const float *in, float *out, int it) {
    float a = bank32_body<1>(in, it);
    out[blockIdx.x * 256 + threadIdx.y * 32 + threadIdx.x] = a;
}

/* ---- bank conflicts, 8-byte, 2-way: double s[2 lane + k] (lanes l and l+8
 * of a half-warp share banks) vs s[lane + k] ---- */
template <int STRIDE>
__device__ __forceinline__ double bank8_body(const double *in, int it) {
    __shared__ double s[32 * 2 + 64];
    int t = threadIdx.x, lane = t & 31;
    if (t < 128) s[t] = in[blockIdx.x * 128 + t];
    __syncthreads();
    double acc = 0.0;
    for (int k = 0; k < it; k++) acc += s[STRIDE * lane + (k & 63)];
    return acc;
}
__global__ void bank8_slow(const double *in, double *out, int it) {
    out[blockIdx.x * blockDim.x + threadIdx.x] = bank8_body<2>(in, it);
}
__global__ void bank8_fixed(const double *in, double *out, int it) {
    out[blockIdx.x * blockDim.x + threadIdx.x] = bank8_body<1>(in, it);
}

/* ---- bank conflicts, 16-byte, 4-way: float4 s[4 lane + k] (lanes 0, 2, 4, 6
 * of a quarter-warp share banks) vs s[lane + k] ---- */
template <int STRIDE>
__device__ __forceinline__ float bank16_body(const float4 *in, int it) {
    __shared__ float4 s[32 * 4 + 64];
    int t = threadIdx.x, lane = t & 31;
    if (t < 192) s[t] = in[blockIdx.x * 192 + t];
    __syncthreads();
    float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
    for (int k = 0; k < it; k++) {
        float4 v = s[STRIDE * lane + (k & 63)];
        acc.x += v.x;
        acc.y += v.y;
        acc.z += v.z;
        acc.w += v.w;
    }
    return acc.x + acc.y + acc.z + acc.w;
}
__global__ void bank16_slow(const float4 *in, float *out, int it) {
    out[blockIdx.x * blockDim.x + threadIdx.x] = bank16_body<4>(in, it);
}
__global__ void bank16_fixed(const float4 *in, float *out, int it) {
    out[blockIdx.x * blockDim.x + threadIdx.x] = bank16_body<1>(in, it);
}

/* ---- interleaved tree reduction (s[2 s t], a growing bank conflict) vs
 * sequential addressing (s[t] += s[t + s]) ---- */
enum { RED_N = 1 << 26, RED_TPB = 512 };

__global__ void reduce_slow(const float *in, float *out) {
    __shared__ float s[RED_TPB];
    unsigned t = threadIdx.x;
    s[t] = in[blockIdx.x * RED_TPB + t];
    __syncthreads();
    for (unsigned st = 1; st < RED_TPB; st *= 2) {
        unsigned i = 2 * st * t;
        if (i < RED_TPB) s[i] += s[i + st];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

__global__ void reduce_fixed(const float *in, float *out) {
    __shared__ float s[RED_TPB];
    unsigned t = threadIdx.x;
    s[t] = in[blockIdx.x * RED_TPB + t];
    __syncthreads();
    for (unsigned st = RED_TPB / 2; st > 0; st >>= 1) {
        if (t < st) s[t] += s[t + st];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

/* ---- shared memory used for a thread's own running value (volatile: every
 * step a shared load and store) vs a register ---- */
enum { SA_ITERS = 128 };

__global__ void smem_abuse_slow(const float *in, float *out, int it) {
    __shared__ float acc[256];
    volatile float *a = acc;
    int t = threadIdx.x, g = blockIdx.x * 256 + t;
    float v = in[g];
    a[t] = 0.f;
    for (int k = 0; k < it; k++) a[t] = a[t] * 0.999f + v;
    out[g] = a[t];
}

__global__ void smem_abuse_fixed(const float *in, float *out, int it) {
    int t = threadIdx.x, g = blockIdx.x * 256 + t;
    float v = in[g], a = 0.f;
    for (int k = 0; k < it; k++) a = a * 0.999f + v;
    out[g] = a;
}

/* ---- hot spot: every thread reads the same 32 filter coefficients from
 * global memory vs from __constant__ memory ---- */
enum { HOT_N = 1 << 24, HOT_TAPS = 32 };
__constant__ float c_coef[HOT_TAPS];

__global__ void hot_spot_slow(const float *in, const float *coef, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = in[i], s = 0.f;
#pragma unroll
    for (int k = 0; k < HOT_TAPS; k++) s = s * x + coef[k];
    out[i] = s;
}

__global__ void hot_spot_fixed(const float *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = in[i], s = 0.f;
#pragma unroll
    for (int k = 0; k < HOT_TAPS; k++) s = s * x + c_coef[k];
    out[i] = s;
}

/* ---- atomic contention: a histogram of 8 bins by global atomics vs one per
 * block in shared memory, merged once per block ---- */
enum { HIST_N = 1 << 24, HIST_BINS = 8 };

__global__ void atomic_slow(const uint32_t *in, unsigned *hist, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&hist[in[i] % HIST_BINS], 1u);
}

__global__ void atomic_fixed(const uint32_t *in, unsigned *hist, int n) {
    __shared__ unsigned h[HIST_BINS];
    if (threadIdx.x < HIST_BINS) h[threadIdx.x] = 0;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&h[in[i] % HIST_BINS], 1u);
    __syncthreads();
    if (threadIdx.x < HIST_BINS) atomicAdd(&hist[threadIdx.x], h[threadIdx.x]);
}

/* ---- false sharing: the warps of a block write interleaved words (warp w,
 * lane l: word 8 l + w of the block's 256), so each sector is written by 8
 * warps; fixed: warp w writes words 32 w .. 32 w + 31 ---- */
enum { FS_N = 1 << 26 };

__global__ void false_sharing_slow(const float *in, float *out, int n) {
    int t = threadIdx.x, j = blockIdx.x * 256 + (t & 31) * 8 + (t >> 5);
    if (j < n) out[j] = in[j] * 2.f + 1.f;
}

__global__ void false_sharing_fixed(const float *in, float *out, int n) {
    int j = blockIdx.x * 256 + threadIdx.x;
    if (j < n) out[j] = in[j] * 2.f + 1.f;
}

/* ---- irregular gather: out[i] = in[idx[i]] with idx a random permutation of
 * the whole array vs idx shuffled only within each 32-element group (the
 * indices renumbered for locality) ---- */
enum { GA_N = 1 << 25 };

__global__ void gather_slow(const float *in, const int *idx, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[idx[i]];
}

__global__ void gather_fixed(const float *in, const int *idx, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[idx[i]];
}

/* ---- small grid: a sum over 2^22 floats by 4 blocks vs 8 blocks per SM
 * (grid-stride loop, shared-memory block sum, one atomic per block) ---- */
enum { SG_N = 1 << 22 };

__device__ __forceinline__ void sum_body(const float *in, float *out, int n) {
    __shared__ float s[256];
    float a = 0.f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) a += in[i];
    s[threadIdx.x] = a;
    __syncthreads();
    for (int st = 128; st; st >>= 1) {
        if ((int)threadIdx.x < st) s[threadIdx.x] += s[threadIdx.x + st];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(out, s[0]);
}
__global__ void small_grid_slow(const float *in, float *out, int n) { sum_body(in, out, n); }
__global__ void small_grid_fixed(const float *in, float *out, int n) { sum_body(in, out, n); }

/* ---- launch-bound chain: three element-wise kernels on 2^16 floats vs one
 * fused kernel ---- */
enum { CH_N = 1 << 16, CH_ITERS = 200 };

__global__ void chain_scale(const float *x, float *a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] = x[i] * 2.f;
}
__global__ void chain_shift(const float *a, float *b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) b[i] = a[i] + 1.f;
}
__global__ void chain_square(const float *b, float *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = b[i] * b[i];
}
__global__ void chain_fused(const float *x, float *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i] * 2.f + 1.f;
        c[i] = v * v;
    }
}

/* ---- latency-bound: one block per SM (a big shared-memory tile reserved),
 * 256 threads, one 16-byte load in flight per thread vs eight ---- */
enum { LAT_N = 1 << 26, LAT_SMEM = 160 * 1024 };

__global__ void latency_slow(const float4 *in, float *out, int n4) {
    extern __shared__ float big[];
    float a = 0.f;
    int stride = gridDim.x * blockDim.x;
#pragma unroll 1
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
        float4 v = in[i];
        a += (v.x + v.y) + (v.z + v.w);
    }
    big[threadIdx.x] = a;
    __syncthreads();
    if (threadIdx.x == 0) {
        float s = 0.f;
        for (int k = 0; k < (int)blockDim.x; k++) s += big[k];
        out[blockIdx.x] = s;
    }
}

__global__ void latency_fixed(const float4 *in, float *out, int n4) {
    extern __shared__ float big[];
    float a = 0.f;
    int stride = gridDim.x * blockDim.x, i = blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + 7 * stride < n4; i += 8 * stride) {
        float4 v[8];
#pragma unroll
        for (int u = 0; u < 8; u++) v[u] = in[i + u * stride];
#pragma unroll
        for (int u = 0; u < 8; u++) a += (v[u].x + v[u].y) + (v[u].z + v[u].w);
    }
    for (; i < n4; i += stride) {
        float4 v = in[i];
        a += (v.x + v.y) + (v.z + v.w);
    }
    big[threadIdx.x] = a;
    __syncthreads();
    if (threadIdx.x == 0) {
        float s = 0.f;
        for (int k = 0; k < (int)blockDim.x; k++) s += big[k];
        out[blockIdx.x] = s;
    }
}

/* ---- host side ---- */

struct Timing {
    std::vector<double> us;
    void add(double v) { us.push_back(v); }
    double median() const {
        std::vector<double> v = us;
        std::sort(v.begin(), v.end());
        size_t n = v.size();
        return n == 0 ? 0 : (n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]));
    }
    double lo() const { return us.empty() ? 0 : *std::min_element(us.begin(), us.end()); }
    double hi() const { return us.empty() ? 0 : *std::max_element(us.begin(), us.end()); }
};

static cudaEvent_t g_e0, g_e1;

/* Time `body` (launches on stream 0) with events, reps times after one warm-up;
 * `before` runs untimed before each (resets). */
static Timing time_gpu(int reps, const std::function<void()> &body, const std::function<void()> &before = nullptr) {
    Timing t;
    for (int r = -1; r < reps; r++) {
        if (before) before();
        CK(cudaEventRecord(g_e0));
        body();
        CK(cudaGetLastError());
        CK(cudaEventRecord(g_e1));
        CK(cudaEventSynchronize(g_e1));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, g_e0, g_e1));
        if (r >= 0) t.add(ms * 1000.0);
    }
    return t;
}

static void report(const char *pair, const char *variant, const char *kernels, const Timing &t) {
    printf("time %s %s %s median_us %.3f min_us %.3f max_us %.3f n %zu\n", pair, variant, kernels, t.median(), t.lo(),
           t.hi(), t.us.size());
    fflush(stdout);
}

static void fill(std::vector<float> &v, uint32_t seed) {
    for (size_t i = 0; i < v.size(); i++) v[i] = (float)(mix((uint32_t)i * 2654435761u + seed) >> 8) / 16777216.0f;
}

template <class T> static T *dev(size_t n) {
    T *p = nullptr;
    CK(cudaMalloc(&p, n * sizeof(T)));
    return p;
}
template <class T> static T *dev_from(const std::vector<T> &h) {
    T *p = dev<T>(h.size());
    CK(cudaMemcpy(p, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
    return p;
}
template <class T> static std::vector<T> back(const T *p, size_t n) {
    std::vector<T> h(n);
    CK(cudaMemcpy(h.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
}

static bool close_vec(const std::vector<float> &a, const std::vector<float> &b, float rel) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); i++) {
        float d = fabsf(a[i] - b[i]), m = fmaxf(fabsf(a[i]), fabsf(b[i]));
        if (d > rel * m + 1e-6f) return false;
    }
    return true;
}

struct Ctx {
    bool slow, fixed;
    int reps;
    int fails = 0;
    void check(const char *pair, bool ok) {
        if (slow && fixed) {
            printf("check %s %s\n", pair, ok ? "ok" : "FAIL");
            if (!ok) fails++;
        }
    }
};

static void pair_transpose(Ctx &c) {
    const int n = TR_N;
    std::vector<float> h((size_t)n * n);
    fill(h, 1);
    float *in = dev_from(h), *o1 = dev<float>(h.size()), *o2 = dev<float>(h.size());
    dim3 g(n / TR_TILE, n / TR_TILE), b(TR_TILE, TR_ROWS);
    if (c.slow) report("transpose", "slow", "transpose_slow", time_gpu(c.reps, [&] { transpose_slow<<<g, b>>>(in, o1, n); }));
    if (c.fixed) report("transpose", "fixed", "transpose_fixed", time_gpu(c.reps, [&] { transpose_fixed<<<g, b>>>(in, o2, n); }));
    if (c.slow && c.fixed) c.check("transpose", back(o1, h.size()) == back(o2, h.size()));
    cudaFree(in), cudaFree(o1), cudaFree(o2);
}

static void pair_gemv(Ctx &c) {
    std::vector<float> ha((size_t)GV_ROWS * GV_COLS), hx(GV_COLS);
    fill(ha, 2), fill(hx, 3);
    float *a = dev_from(ha), *x = dev_from(hx), *y1 = dev<float>(GV_ROWS), *y2 = dev<float>(GV_ROWS);
    if (c.slow)
        report("gemv_rows", "slow", "gemv_rows_slow",
               time_gpu(c.reps, [&] { gemv_rows_slow<<<GV_ROWS / 256, 256>>>(a, x, y1, GV_ROWS, GV_COLS); }));
    if (c.fixed)
        report("gemv_rows", "fixed", "gemv_rows_fixed",
               time_gpu(c.reps, [&] { gemv_rows_fixed<<<GV_ROWS * 32 / 256, 256>>>(a, x, y2, GV_ROWS, GV_COLS); }));
    if (c.slow && c.fixed) c.check("gemv_rows", close_vec(back(y1, GV_ROWS), back(y2, GV_ROWS), 1e-4f));
    cudaFree(a), cudaFree(x), cudaFree(y1), cudaFree(y2);
}

static void pair_aos(Ctx &c) {
    const int n = AOS_N;
    std::vector<float> f((size_t)n * 8);
    fill(f, 4);
    std::vector<Particle> hp(n);
    std::vector<float> hx(n), hvx(n);
    for (int i = 0; i < n; i++) {
        memcpy(&hp[i], &f[(size_t)i * 8], sizeof(Particle));
        hx[i] = hp[i].x, hvx[i] = hp[i].vx;
    }
    Particle *p = dev_from(hp);
    float *x = dev_from(hx), *vx = dev_from(hvx);
    /* every run adds vx dt once more: both variants run 1 + reps times */
    if (c.slow) report("aos", "slow", "aos_slow", time_gpu(c.reps, [&] { aos_slow<<<n / 256, 256>>>(p, 1e-3f, n); }));
    if (c.fixed) report("aos", "fixed", "aos_fixed", time_gpu(c.reps, [&] { aos_fixed<<<n / 256, 256>>>(x, vx, 1e-3f, n); }));
    if (c.slow && c.fixed) {
        std::vector<Particle> rp = back(p, n);
        std::vector<float> rx = back(x, n), px(n);
        for (int i = 0; i < n; i++) px[i] = rp[i].x;
        c.check("aos", close_vec(px, rx, 1e-5f));
    }
    cudaFree(p), cudaFree(x), cudaFree(vx);
}

static void pair_misaligned(Ctx &c) {
    const int n = MIS_N;
    std::vector<float> h(n + 8);
    fill(h, 5);
    float *buf = dev_from(h), *o1 = dev<float>(n), *o2 = dev<float>(n);
    /* the fixed copy reads the same elements from a buffer placed so that
     * they start on a sector boundary */
    float *aligned = dev<float>(n);
    CK(cudaMemcpy(aligned, buf + 1, (size_t)n * 4, cudaMemcpyDeviceToDevice));
    if (c.slow)
        report("misaligned", "slow", "misaligned_slow", time_gpu(c.reps, [&] { misaligned_slow<<<n / 256, 256>>>(buf, o1, n); }));
    if (c.fixed)
        report("misaligned", "fixed", "misaligned_fixed",
               time_gpu(c.reps, [&] { misaligned_fixed<<<n / 256, 256>>>(aligned, o2, n); }));
    if (c.slow && c.fixed) c.check("misaligned", back(o1, n) == back(o2, n));
    cudaFree(buf), cudaFree(o1), cudaFree(o2), cudaFree(aligned);
}

static void pair_bank32(Ctx &c) {
    int blocks = g_sms * BK_BLOCKS_PER_SM;
    std::vector<float> h((size_t)blocks * 1024);
    fill(h, 6);
    float *in = dev_from(h), *o1 = dev<float>((size_t)blocks * 256), *o2 = dev<float>((size_t)blocks * 256);
    dim3 b(32, 8);
    if (c.slow) report("bank32", "slow", "bank32_slow", time_gpu(c.reps, [&] { bank32_slow<<<blocks, b>>>(in, o1, BK_ITERS); }));
    if (c.fixed) report("bank32", "fixed", "bank32_fixed", time_gpu(c.reps, [&] { bank32_fixed<<<blocks, b>>>(in, o2, BK_ITERS); }));
    if (c.slow && c.fixed) c.check("bank32", back(o1, (size_t)blocks * 256) == back(o2, (size_t)blocks * 256));
    cudaFree(in), cudaFree(o1), cudaFree(o2);
}

static void pair_bank8(Ctx &c) {
    int blocks = g_sms * BK_BLOCKS_PER_SM;
    std::vector<double> h((size_t)blocks * 128);
    for (size_t i = 0; i < h.size(); i++) h[i] = (double)(mix((uint32_t)i) >> 8) / 16777216.0;
    double *in = dev_from(h), *o1 = dev<double>((size_t)blocks * 256), *o2 = dev<double>((size_t)blocks * 256);
    if (c.slow) report("bank8", "slow", "bank8_slow", time_gpu(c.reps, [&] { bank8_slow<<<blocks, 256>>>(in, o1, BK_ITERS); }));
    if (c.fixed) report("bank8", "fixed", "bank8_fixed", time_gpu(c.reps, [&] { bank8_fixed<<<blocks, 256>>>(in, o2, BK_ITERS); }));
    /* different words summed: both variants run, the results are not the same sums */
    if (c.slow && c.fixed) c.check("bank8", true);
    cudaFree(in), cudaFree(o1), cudaFree(o2);
}

static void pair_bank16(Ctx &c) {
    int blocks = g_sms * BK_BLOCKS_PER_SM;
    std::vector<float> h((size_t)blocks * 192 * 4);
    fill(h, 7);
    float4 *in = (float4 *)dev_from(h);
    float *o1 = dev<float>((size_t)blocks * 256), *o2 = dev<float>((size_t)blocks * 256);
    if (c.slow) report("bank16", "slow", "bank16_slow", time_gpu(c.reps, [&] { bank16_slow<<<blocks, 256>>>(in, o1, BK_ITERS); }));
    if (c.fixed) report("bank16", "fixed", "bank16_fixed", time_gpu(c.reps, [&] { bank16_fixed<<<blocks, 256>>>(in, o2, BK_ITERS); }));
    if (c.slow && c.fixed) c.check("bank16", true);
    cudaFree(in), cudaFree(o1), cudaFree(o2);
}

static void pair_reduce(Ctx &c) {
    const int n = RED_N, blocks = n / RED_TPB;
    std::vector<float> h(n);
    for (int i = 0; i < n; i++) h[i] = (float)(mix(i) & 15);
    float *in = dev_from(h), *o1 = dev<float>(blocks), *o2 = dev<float>(blocks);
    if (c.slow) report("reduce", "slow", "reduce_slow", time_gpu(c.reps, [&] { reduce_slow<<<blocks, RED_TPB>>>(in, o1); }));
    if (c.fixed) report("reduce", "fixed", "reduce_fixed", time_gpu(c.reps, [&] { reduce_fixed<<<blocks, RED_TPB>>>(in, o2); }));
    if (c.slow && c.fixed) c.check("reduce", back(o1, blocks) == back(o2, blocks)); /* small integers: exact */
    cudaFree(in), cudaFree(o1), cudaFree(o2);
}

static void pair_smem_abuse(Ctx &c) {
    const int n = 1 << 24;
    std::vector<float> h(n);
    fill(h, 8);
    float *in = dev_from(h), *o1 = dev<float>(n), *o2 = dev<float>(n);
    if (c.slow)
        report("smem_abuse", "slow", "smem_abuse_slow", time_gpu(c.reps, [&] { smem_abuse_slow<<<n / 256, 256>>>(in, o1, SA_ITERS); }));
    if (c.fixed)
        report("smem_abuse", "fixed", "smem_abuse_fixed",
               time_gpu(c.reps, [&] { smem_abuse_fixed<<<n / 256, 256>>>(in, o2, SA_ITERS); }));
    if (c.slow && c.fixed) c.check("smem_abuse", close_vec(back(o1, n), back(o2, n), 1e-5f));
    cudaFree(in), cudaFree(o1), cudaFree(o2);
}

static void pair_hot_spot(Ctx &c) {
    const int n = HOT_N;
    std::vector<float> h(n), hc(HOT_TAPS);
    fill(h, 9), fill(hc, 10);
    for (auto &v : hc) v *= 0.05f;
    float *in = dev_from(h), *coef = dev_from(hc), *o1 = dev<float>(n), *o2 = dev<float>(n);
    CK(cudaMemcpyToSymbol(c_coef, hc.data(), sizeof(float) * HOT_TAPS));
    if (c.slow) report("hot_spot", "slow", "hot_spot_slow", time_gpu(c.reps, [&] { hot_spot_slow<<<n / 256, 256>>>(in, coef, o1, n); }));
    if (c.fixed) report("hot_spot", "fixed", "hot_spot_fixed", time_gpu(c.reps, [&] { hot_spot_fixed<<<n / 256, 256>>>(in, o2, n); }));
    if (c.slow && c.fixed) c.check("hot_spot", back(o1, n) == back(o2, n));
    cudaFree(in), cudaFree(coef), cudaFree(o1), cudaFree(o2);
}

static void pair_atomic(Ctx &c) {
    const int n = HIST_N;
    std::vector<uint32_t> h(n);
    for (int i = 0; i < n; i++) h[i] = mix(i + 77);
    uint32_t *in = dev_from(h);
    unsigned *h1 = dev<unsigned>(HIST_BINS), *h2 = dev<unsigned>(HIST_BINS);
    if (c.slow)
        report("atomic", "slow", "atomic_slow",
               time_gpu(c.reps, [&] { atomic_slow<<<n / 256, 256>>>(in, h1, n); }, [&] { CK(cudaMemset(h1, 0, HIST_BINS * 4)); }));
    if (c.fixed)
        report("atomic", "fixed", "atomic_fixed",
               time_gpu(c.reps, [&] { atomic_fixed<<<n / 256, 256>>>(in, h2, n); }, [&] { CK(cudaMemset(h2, 0, HIST_BINS * 4)); }));
    if (c.slow && c.fixed) c.check("atomic", back(h1, HIST_BINS) == back(h2, HIST_BINS));
    cudaFree(in), cudaFree(h1), cudaFree(h2);
}

static void pair_false_sharing(Ctx &c) {
    const int n = FS_N;
    std::vector<float> h(n);
    fill(h, 11);
    float *in = dev_from(h), *o1 = dev<float>(n), *o2 = dev<float>(n);
    if (c.slow)
        report("false_sharing", "slow", "false_sharing_slow",
               time_gpu(c.reps, [&] { false_sharing_slow<<<n / 256, 256>>>(in, o1, n); }));
    if (c.fixed)
        report("false_sharing", "fixed", "false_sharing_fixed",
               time_gpu(c.reps, [&] { false_sharing_fixed<<<n / 256, 256>>>(in, o2, n); }));
    if (c.slow && c.fixed) c.check("false_sharing", back(o1, n) == back(o2, n));
    cudaFree(in), cudaFree(o1), cudaFree(o2);
}

static void pair_gather(Ctx &c) {
    const int n = GA_N;
    std::vector<float> h(n);
    fill(h, 12);
    std::vector<int> p1(n), p2(n);
    for (int i = 0; i < n; i++) p1[i] = i, p2[i] = i;
    for (int i = n - 1; i > 0; i--) std::swap(p1[i], p1[mix(i * 3 + 1) % (uint32_t)(i + 1)]);
    for (int g = 0; g < n; g += 32)
        for (int i = 31; i > 0; i--) std::swap(p2[g + i], p2[g + mix(g + i) % (uint32_t)(i + 1)]);
    /* the fixed variant gathers the same values: in2[j] = in[p1[...]] renumbered
     * so that out[i] = in2[p2[i]] equals in[p1[i]] */
    std::vector<float> h2(n);
    for (int i = 0; i < n; i++) h2[p2[i]] = h[p1[i]];
    float *in = dev_from(h), *in2 = dev_from(h2), *o1 = dev<float>(n), *o2 = dev<float>(n);
    int *i1 = dev_from(p1), *i2 = dev_from(p2);
    if (c.slow) report("gather", "slow", "gather_slow", time_gpu(c.reps, [&] { gather_slow<<<n / 256, 256>>>(in, i1, o1, n); }));
    if (c.fixed) report("gather", "fixed", "gather_fixed", time_gpu(c.reps, [&] { gather_fixed<<<n / 256, 256>>>(in2, i2, o2, n); }));
    if (c.slow && c.fixed) c.check("gather", back(o1, n) == back(o2, n));
    cudaFree(in), cudaFree(in2), cudaFree(o1), cudaFree(o2), cudaFree(i1), cudaFree(i2);
}

static void pair_small_grid(Ctx &c) {
    const int n = SG_N;
    std::vector<float> h(n);
    for (int i = 0; i < n; i++) h[i] = (float)(mix(i) & 1);
    float *in = dev_from(h), *o1 = dev<float>(1), *o2 = dev<float>(1);
    if (c.slow)
        report("small_grid", "slow", "small_grid_slow",
               time_gpu(c.reps, [&] { small_grid_slow<<<4, 256>>>(in, o1, n); }, [&] { CK(cudaMemset(o1, 0, 4)); }));
    if (c.fixed)
        report("small_grid", "fixed", "small_grid_fixed",
               time_gpu(c.reps, [&] { small_grid_fixed<<<g_sms * 8, 256>>>(in, o2, n); }, [&] { CK(cudaMemset(o2, 0, 4)); }));
    if (c.slow && c.fixed) c.check("small_grid", back(o1, 1) == back(o2, 1)); /* small integers: exact */
    cudaFree(in), cudaFree(o1), cudaFree(o2);
}

static void pair_chain(Ctx &c) {
    const int n = CH_N, b = n / 256;
    std::vector<float> h(n);
    fill(h, 13);
    float *x = dev_from(h), *a = dev<float>(n), *bb = dev<float>(n), *c1 = dev<float>(n), *c2 = dev<float>(n);
    if (c.slow)
        report("launch_chain", "slow", "chain_scale+chain_shift+chain_square", time_gpu(c.reps, [&] {
                   for (int k = 0; k < CH_ITERS; k++) {
                       chain_scale<<<b, 256>>>(x, a, n);
                       chain_shift<<<b, 256>>>(a, bb, n);
                       chain_square<<<b, 256>>>(bb, c1, n);
                   }
               }));
    if (c.fixed)
        report("launch_chain", "fixed", "chain_fused", time_gpu(c.reps, [&] {
                   for (int k = 0; k < CH_ITERS; k++) chain_fused<<<b, 256>>>(x, c2, n);
               }));
    if (c.slow && c.fixed) c.check("launch_chain", back(c1, n) == back(c2, n));
    cudaFree(x), cudaFree(a), cudaFree(bb), cudaFree(c1), cudaFree(c2);
}

static void pair_latency(Ctx &c) {
    const int n4 = LAT_N / 4;
    std::vector<float> h(LAT_N);
    for (int i = 0; i < LAT_N; i++) h[i] = (float)(mix(i) & 3);
    float4 *in = (float4 *)dev_from(h);
    float *o1 = dev<float>(g_sms), *o2 = dev<float>(g_sms);
    CK(cudaFuncSetAttribute(latency_slow, cudaFuncAttributeMaxDynamicSharedMemorySize, LAT_SMEM));
    CK(cudaFuncSetAttribute(latency_fixed, cudaFuncAttributeMaxDynamicSharedMemorySize, LAT_SMEM));
    if (c.slow)
        report("latency", "slow", "latency_slow", time_gpu(c.reps, [&] { latency_slow<<<g_sms, 256, LAT_SMEM>>>(in, o1, n4); }));
    if (c.fixed)
        report("latency", "fixed", "latency_fixed", time_gpu(c.reps, [&] { latency_fixed<<<g_sms, 256, LAT_SMEM>>>(in, o2, n4); }));
    if (c.slow && c.fixed) {
        /* small integers: every partial sum is exact, so the block sums match */
        c.check("latency", back(o1, g_sms) == back(o2, g_sms));
    }
    cudaFree(in), cudaFree(o1), cudaFree(o2);
}

static void pair_pageable(Ctx &c) {
    const size_t bytes = (size_t)256 << 20;
    float *d = dev<float>(bytes / 4);
    auto host_time = [&](void *src) {
        Timing t;
        for (int r = -1; r < c.reps; r++) {
            auto t0 = std::chrono::steady_clock::now();
            CK(cudaMemcpy(d, src, bytes, cudaMemcpyHostToDevice));
            auto t1 = std::chrono::steady_clock::now();
            if (r >= 0) t.add(std::chrono::duration<double, std::micro>(t1 - t0).count());
        }
        return t;
    };
    if (c.slow) {
        char *pg = (char *)malloc(bytes);
        memset(pg, 1, bytes);
        report("pageable", "slow", "memcpy_HtoD_pageable", host_time(pg));
        free(pg);
    }
    if (c.fixed) {
        char *pn = nullptr;
        CK(cudaMallocHost(&pn, bytes));
        memset(pn, 1, bytes);
        report("pageable", "fixed", "memcpy_HtoD_pinned", host_time(pn));
        CK(cudaFreeHost(pn));
    }
    c.check("pageable", true);
    cudaFree(d);
}

struct Pair {
    const char *name, *cause;
    void (*run)(Ctx &);
};

static const Pair PAIRS[] = {
    {"transpose", "strided (transposed stores) -> tile through shared memory", pair_transpose},
    {"gemv_rows", "strided (a thread per row) -> a warp per row", pair_gemv},
    {"aos", "array of structs -> structure of arrays", pair_aos},
    {"misaligned", "misaligned (one float off) -> aligned", pair_misaligned},
    {"bank32", "bank conflicts, 4-byte, 32-way -> padded tile", pair_bank32},
    {"bank8", "bank conflicts, 8-byte, 2-way -> unit stride", pair_bank8},
    {"bank16", "bank conflicts, 16-byte, 4-way -> unit stride", pair_bank16},
    {"reduce", "bank conflicts, interleaved tree reduction -> sequential addressing", pair_reduce},
    {"smem_abuse", "shared memory for a thread's own value -> register", pair_smem_abuse},
    {"hot_spot", "hot spot (coefficients read by every warp) -> __constant__", pair_hot_spot},
    {"atomic", "atomic contention (8 bins) -> per-block shared histogram", pair_atomic},
    {"false_sharing", "false sharing (8 warps write each sector) -> warp-contiguous stores", pair_false_sharing},
    {"gather", "irregular gather (random permutation) -> indices renumbered for locality", pair_gather},
    {"small_grid", "small grid (4 blocks) -> 8 blocks per SM", pair_small_grid},
    {"launch_chain", "launch-bound chain of 3 kernels -> one fused kernel", pair_chain},
    {"latency", "latency-bound (one load in flight per thread) -> 8 loads in flight", pair_latency},
    {"pageable", "pageable host copy -> pinned host memory", pair_pageable},
};

int main(int argc, char **argv) {
    Ctx c;
    c.slow = c.fixed = true;
    c.reps = 15;
    std::string only;
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        if (a == "list") {
            for (const Pair &p : PAIRS) printf("%s\t%s\n", p.name, p.cause);
            return 0;
        } else if (a == "--variant" && i + 1 < argc) {
            std::string v = argv[++i];
            c.slow = v == "slow" || v == "both";
            c.fixed = v == "fixed" || v == "both";
            if (!c.slow && !c.fixed) {
                fprintf(stderr, "fixpairs: --variant slow|fixed|both\n");
                return 2;
            }
        } else if (a == "--reps" && i + 1 < argc) {
            c.reps = atoi(argv[++i]);
            if (c.reps < 1) c.reps = 1;
        } else if (a == "--only" && i + 1 < argc) {
            only = "," + std::string(argv[++i]) + ",";
        } else {
            fprintf(stderr, "usage: fixpairs list | [--variant slow|fixed|both] [--reps R] [--only PAIR,...]\n");
            return 2;
        }
    }
    int dv = 0;
    CK(cudaGetDevice(&dv));
    CK(cudaDeviceGetAttribute(&g_sms, cudaDevAttrMultiProcessorCount, dv));
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, dv));
    printf("device %s sms %d\n", prop.name, g_sms);
    CK(cudaEventCreate(&g_e0));
    CK(cudaEventCreate(&g_e1));
    for (const Pair &p : PAIRS) {
        if (!only.empty() && only.find("," + std::string(p.name) + ",") == std::string::npos) continue;
        p.run(c);
    }
    if (c.fails) {
        fprintf(stderr, "fixpairs: %d pair(s) computed different results\n", c.fails);
        return 1;
    }
    return 0;
}
