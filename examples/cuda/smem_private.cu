/* smem_private.cu -- shared memory abused for thread-private values
 * (CUTHERMO, section IV-C and VI-B, the PASTA Y_shr case).
 *
 * Each thread accumulates into its own slot acc[threadIdx.x] of a shared
 * array that no other thread reads. Expected heat map of the shared window:
 * every word temperature 1 and every sector temperature 1 (the 8 words of a
 * sector belong to 8 threads of one warp) -- nothing is shared, so the values
 * belong in registers. `fixed` runs the register version for comparison.
 * Usage: smem_private [n] [abuse|fixed]   (default 1048576 abuse) */
#include <string.h>

#include "common.h"

#define TPB 256
#define ROUNDS 16

__global__ void smem_private_sum(int n, const float *x, float *out) {
    __shared__ float acc_store[TPB];
    /* volatile: keep every update in shared memory, as the PASTA kernel does. */
    volatile float *acc = acc_store;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    acc[threadIdx.x] = 0.0f;
    __syncthreads();
    if (i < n)
        for (int r = 0; r < ROUNDS; r++) acc[threadIdx.x] += x[i] * (float)(r + 1);
    __syncthreads();
    if (i < n) out[i] = acc[threadIdx.x];
}

__global__ void register_sum(int n, const float *x, float *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0.0f;
    if (i < n)
        for (int r = 0; r < ROUNDS; r++) acc += x[i] * (float)(r + 1);
    if (i < n) out[i] = acc;
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 1 << 20;
    int fixed = argc > 2 && !strcmp(argv[2], "fixed");
    if (n <= 0) return 2;
    float *hx = (float *)malloc((size_t)n * sizeof(float)), *ho = (float *)malloc((size_t)n * sizeof(float));
    ex_fill(hx, n, 21);
    float *x, *o;
    CHECK(cudaMalloc(&x, (size_t)n * sizeof(float)));
    CHECK(cudaMalloc(&o, (size_t)n * sizeof(float)));
    CHECK(cudaMemcpy(x, hx, (size_t)n * sizeof(float), cudaMemcpyHostToDevice));
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    CHECK(cudaEventRecord(e0));
    if (fixed)
        register_sum<<<(n + TPB - 1) / TPB, TPB>>>(n, x, o);
    else
        smem_private_sum<<<(n + TPB - 1) / TPB, TPB>>>(n, x, o);
    CHECK_LAUNCH();
    CHECK(cudaEventRecord(e1));
    CHECK(cudaEventSynchronize(e1));
    float ms;
    CHECK(cudaEventElapsedTime(&ms, e0, e1));
    CHECK(cudaMemcpy(ho, o, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost));
    ex_print("smem_private", ex_sum(ho, n), ms);
    CHECK(cudaFree(x));
    CHECK(cudaFree(o));
    free(hx);
    free(ho);
    return 0;
}
