/* smem_broadcast.cu -- shared memory used to broadcast a value inside a warp
 * (CUTHERMO, section VI-C, the cuSZp exel_sum/base_idx case).
 *
 * Lane 0 of each warp computes a per-warp base and stores it in
 * base[warp] in shared memory; all 32 lanes read it back. Every shared word is
 * used by exactly one warp (word temperature 1) while the block's 8 warps
 * share one sector (sector temperature 8): the data never leaves its warp, so
 * __shfl_sync would do without shared memory (`fixed`).
 * Usage: smem_broadcast [n] [abuse|fixed]   (default 1048576 abuse) */
#include <string.h>

#include "common.h"

#define TPB 256

__global__ void warp_broadcast_smem(int n, const float *x, float *out) {
    __shared__ float base[TPB / 32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (lane == 0) base[warp] = i < n ? x[i] : 0.0f;
    __syncwarp();
    float b = base[warp];
    if (i < n) out[i] = (i < n ? x[i] : 0.0f) - b;
}

__global__ void warp_broadcast_shfl(int n, const float *x, float *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? x[i] : 0.0f;
    float b = __shfl_sync(0xffffffffu, v, 0);
    if (i < n) out[i] = v - b;
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 1 << 20;
    int fixed = argc > 2 && !strcmp(argv[2], "fixed");
    if (n <= 0) return 2;
    float *hx = (float *)malloc((size_t)n * sizeof(float)), *ho = (float *)malloc((size_t)n * sizeof(float));
    ex_fill(hx, n, 31);
    float *x, *o;
    CHECK(cudaMalloc(&x, (size_t)n * sizeof(float)));
    CHECK(cudaMalloc(&o, (size_t)n * sizeof(float)));
    CHECK(cudaMemcpy(x, hx, (size_t)n * sizeof(float), cudaMemcpyHostToDevice));
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    CHECK(cudaEventRecord(e0));
    if (fixed)
        warp_broadcast_shfl<<<(n + TPB - 1) / TPB, TPB>>>(n, x, o);
    else
        warp_broadcast_smem<<<(n + TPB - 1) / TPB, TPB>>>(n, x, o);
    CHECK_LAUNCH();
    CHECK(cudaEventRecord(e1));
    CHECK(cudaEventSynchronize(e1));
    float ms;
    CHECK(cudaEventElapsedTime(&ms, e0, e1));
    CHECK(cudaMemcpy(ho, o, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost));
    ex_print("smem_broadcast", ex_sum(ho, n), ms);
    CHECK(cudaFree(x));
    CHECK(cudaFree(o));
    free(hx);
    free(ho);
    return 0;
}
