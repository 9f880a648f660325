/* gramschmidt.cu -- Gram-Schmidt orthogonalisation in the PolybenchGPU style
 * (CUTHERMO, section VI-D). kernel3 reads q[i*NJ + k]: column k of q, one word
 * per row, so each sector of q it touches has one word used (temperature = the
 * block's warps, all reading the same word) and seven never used -- the
 * strided pattern. The host runs kernel1..3 for every column: many launches.
 * Usage: gramschmidt [n]   (default 256; a is n x n) */
#include "common.h"

__global__ void gs_kernel1(int ni, int nj, const float *a, float *r, int k) {
    /* One block: r[k][k] = ||a[:,k]||. */
    __shared__ float part[256];
    float s = 0.0f;
    for (int i = threadIdx.x; i < ni; i += blockDim.x) s += a[i * nj + k] * a[i * nj + k];
    part[threadIdx.x] = s;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w /= 2) {
        if (threadIdx.x < w) part[threadIdx.x] += part[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0) r[k * nj + k] = sqrtf(part[0]);
}

__global__ void gs_kernel2(int ni, int nj, const float *a, const float *r, float *q, int k) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < ni) q[i * nj + k] = a[i * nj + k] / r[k * nj + k];
}

__global__ void gs_kernel3(int ni, int nj, float *a, float *r, const float *q, int k) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j > k && j < nj) {
        r[k * nj + j] = 0.0f;
        for (int i = 0; i < ni; i++) r[k * nj + j] += q[i * nj + k] * a[i * nj + j];
        for (int i = 0; i < ni; i++) a[i * nj + j] -= q[i * nj + k] * r[k * nj + j];
    }
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 256;
    if (n <= 0 || n > 8192) return 2;
    size_t nn = (size_t)n * n;
    float *ha = (float *)malloc(nn * sizeof(float)), *hq = (float *)malloc(nn * sizeof(float));
    ex_fill(ha, nn, 11);
    for (int i = 0; i < n; i++) ha[(size_t)i * n + i] += 4.0f; /* well conditioned */
    float *a, *r, *q;
    CHECK(cudaMalloc(&a, nn * sizeof(float)));
    CHECK(cudaMalloc(&r, nn * sizeof(float)));
    CHECK(cudaMalloc(&q, nn * sizeof(float)));
    CHECK(cudaMemcpy(a, ha, nn * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(r, 0, nn * sizeof(float)));
    CHECK(cudaMemset(q, 0, nn * sizeof(float)));
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    CHECK(cudaEventRecord(e0));
    int threads = 256, blocks = (n + threads - 1) / threads;
    for (int k = 0; k < n; k++) {
        gs_kernel1<<<1, 256>>>(n, n, a, r, k);
        CHECK_LAUNCH();
        gs_kernel2<<<blocks, threads>>>(n, n, a, r, q, k);
        CHECK_LAUNCH();
        gs_kernel3<<<blocks, threads>>>(n, n, a, r, q, k);
        CHECK_LAUNCH();
    }
    CHECK(cudaEventRecord(e1));
    CHECK(cudaEventSynchronize(e1));
    float ms;
    CHECK(cudaEventElapsedTime(&ms, e0, e1));
    CHECK(cudaMemcpy(hq, q, nn * sizeof(float), cudaMemcpyDeviceToHost));
    ex_print("gramschmidt", ex_sum(hq, nn), ms);
    CHECK(cudaFree(a));
    CHECK(cudaFree(r));
    CHECK(cudaFree(q));
    free(ha);
    free(hq);
    return 0;
}
