// kernels.cu -- the GPU side of the split examples: vector add, scalar
// product (seed 004's), Black-Scholes and Monte Carlo option pricing. Each
// launcher works on local indices [0, n) of whatever buffers it is given, so
// the plain version (whole arrays) and the split runtime (one split) share it.
// Launchers return a cudaError_t as int (0 = launched).
#include <cuda_runtime.h>
#include <stddef.h>

#include "ex_kernels.h"

static unsigned grid_for(size_t n, unsigned block) {
    size_t g = (n + block - 1) / block;
    return (unsigned)(g > 65535u * 16u ? 65535u * 16u : (g ? g : 1));
}

__global__ void vecadd_k(const float *__restrict__ a, const float *__restrict__ b, float *__restrict__ c,
                         size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        c[i] = a[i] + b[i];
}

extern "C" int ex_vecadd_launch(const float *a, const float *b, float *c, size_t n, void *stream) {
    vecadd_k<<<grid_for(n, 256), 256, 0, (cudaStream_t)stream>>>(a, b, c, n);
    return (int)cudaGetLastError();
}

// One block per vector: each thread sums a strided slice, then the block reduces.
__global__ void scalprod_k(const float *__restrict__ d, const float *__restrict__ e, float *__restrict__ f,
                           size_t nvec, int elems) {
    __shared__ float part[32];
    for (size_t v = blockIdx.x; v < nvec; v += gridDim.x) {
        const float *dv = d + v * (size_t)elems, *ev = e + v * (size_t)elems;
        float s = 0.f;
        for (int i = threadIdx.x; i < elems; i += blockDim.x) s += dv[i] * ev[i];
        for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
        if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = s;
        __syncthreads();
        if (threadIdx.x < 32) {
            s = threadIdx.x < (blockDim.x >> 5) ? part[threadIdx.x] : 0.f;
            for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
            if (threadIdx.x == 0) f[v] = s;
        }
        __syncthreads();
    }
}

extern "C" int ex_scalprod_launch(const float *d, const float *e, float *f, size_t nvec, int elems, void *stream) {
    size_t g = nvec ? nvec : 1;
    if (g > 1u << 20) g = 1u << 20;
    scalprod_k<<<(unsigned)g, 256, 0, (cudaStream_t)stream>>>(d, e, f, nvec, elems);
    return (int)cudaGetLastError();
}

// Cumulative normal: Abramowitz-Stegun 26.2.17 polynomial (|error| < 7.5e-8).
__device__ static float cnd(float x) {
    const float a1 = 0.31938153f, a2 = -0.356563782f, a3 = 1.781477937f, a4 = -1.821255978f, a5 = 1.330274429f;
    float k = 1.0f / (1.0f + 0.2316419f * fabsf(x));
    float c = 0.39894228040143267794f * __expf(-0.5f * x * x) *
              (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));
    return x > 0 ? 1.0f - c : c;
}

__global__ void bs_k(const float *__restrict__ s, const float *__restrict__ x, const float *__restrict__ t,
                     float *__restrict__ call, float *__restrict__ put, const float *__restrict__ rv, size_t n) {
    float r = rv[0], v = rv[1];
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        float S = s[i], X = x[i], T = t[i];
        float sq = sqrtf(T);
        float d1 = (__logf(S / X) + (r + 0.5f * v * v) * T) / (v * sq);
        float d2 = d1 - v * sq;
        float e = __expf(-r * T);
        float c1 = cnd(d1), c2 = cnd(d2);
        call[i] = S * c1 - X * e * c2;
        put[i] = X * e * (1.0f - c2) - S * (1.0f - c1);
    }
}

extern "C" int ex_bs_launch(const float *s, const float *x, const float *t, float *call, float *put,
                            const float *rv, size_t n, void *stream) {
    bs_k<<<grid_for(n, 256), 256, 0, (cudaStream_t)stream>>>(s, x, t, call, put, rv, n);
    return (int)cudaGetLastError();
}

// One thread per option, all options share the normal samples z[0..paths).
__global__ void mc_k(const float *__restrict__ s, const float *__restrict__ x, const float *__restrict__ t,
                     float *__restrict__ price, float *__restrict__ conf, const float *__restrict__ z, int paths,
                     float r, float v, size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        float S = s[i], X = x[i], T = t[i];
        float mu = (r - 0.5f * v * v) * T, sig = v * sqrtf(T);
        float sum = 0.f, sum2 = 0.f;
        for (int p = 0; p < paths; p++) {
            float pay = fmaxf(S * __expf(mu + sig * __ldg(&z[p])) - X, 0.f);
            sum += pay;
            sum2 += pay * pay;
        }
        float disc = __expf(-r * T);
        float mean = sum / paths;
        float var = fmaxf(sum2 / paths - mean * mean, 0.f);
        price[i] = disc * mean;
        conf[i] = disc * 1.96f * sqrtf(var / paths);
    }
}

extern "C" int ex_mc_launch(const float *s, const float *x, const float *t, float *price, float *conf,
                            const float *z, int paths, float r, float v, size_t n, void *stream) {
    mc_k<<<grid_for(n, 128), 128, 0, (cudaStream_t)stream>>>(s, x, t, price, conf, z, paths, r, v, n);
    return (int)cudaGetLastError();
}
