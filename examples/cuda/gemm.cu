/* gemm.cu -- the paper's naive GEMM pair (CUTHERMO, section VI-A).
 *
 * gemm_v00 maps threadIdx.x to the row of C and threadIdx.y to the column, so
 * with 16x16 blocks a warp covers 16 rows and 2 columns: the sectors of B (row
 * k, 8 columns) and C (one row, 8 columns) are each touched by 4 warps that use
 * 2 words apiece -- false sharing (word temperature 1, sector 4), while every
 * word of A the block reads is shared by all 8 warps -- hot.
 * gemm_v01 swaps the two indices: a warp covers 2 rows and 16 columns, C
 * becomes perfectly coalesced (1/1) and B hot (8/8).
 * Usage: gemm [v00|v01|both] [n]   (default both 512) */
#include <string.h>

#include "common.h"

__global__ void gemm_v00(int m, int n, int k, float alpha, const float *A, int lda, const float *B, int ldb,
                         float beta, float *C, int ldc) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    int col = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < m && col < n) {
        float sum = 0.0f;
        for (int i = 0; i < k; i++) sum += A[row * lda + i] * B[i * ldb + col];
        C[row * ldc + col] = alpha * sum + beta * C[row * ldc + col];
    }
}

__global__ void gemm_v01(int m, int n, int k, float alpha, const float *A, int lda, const float *B, int ldb,
                         float beta, float *C, int ldc) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < m && col < n) {
        float sum = 0.0f;
        for (int i = 0; i < k; i++) sum += A[row * lda + i] * B[i * ldb + col];
        C[row * ldc + col] = alpha * sum + beta * C[row * ldc + col];
    }
}

int main(int argc, char **argv) {
    const char *which = argc > 1 ? argv[1] : "both";
    int n = argc > 2 ? atoi(argv[2]) : 512;
    if (n <= 0 || n % 16) {
        fprintf(stderr, "gemm: n must be a positive multiple of 16\n");
        return 2;
    }
    size_t nn = (size_t)n * n;
    float *hA = (float *)malloc(nn * sizeof(float)), *hB = (float *)malloc(nn * sizeof(float));
    float *hC = (float *)malloc(nn * sizeof(float));
    ex_fill(hA, nn, 1);
    ex_fill(hB, nn, 2);
    float *A, *B, *C;
    CHECK(cudaMalloc(&A, nn * sizeof(float)));
    CHECK(cudaMalloc(&B, nn * sizeof(float)));
    CHECK(cudaMalloc(&C, nn * sizeof(float)));
    CHECK(cudaMemcpy(A, hA, nn * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(B, hB, nn * sizeof(float), cudaMemcpyHostToDevice));
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    dim3 block(16, 16), grid(n / 16, n / 16);
    double total = 0;
    float ms_total = 0;
    for (int v = 0; v < 2; v++) {
        if ((v == 0 && !strcmp(which, "v01")) || (v == 1 && !strcmp(which, "v00"))) continue;
        ex_fill(hC, nn, 3);
        CHECK(cudaMemcpy(C, hC, nn * sizeof(float), cudaMemcpyHostToDevice));
        CHECK(cudaEventRecord(e0));
        if (v == 0)
            gemm_v00<<<grid, block>>>(n, n, n, 1.5f, A, n, B, n, 0.5f, C, n);
        else
            gemm_v01<<<grid, block>>>(n, n, n, 1.5f, A, n, B, n, 0.5f, C, n);
        CHECK_LAUNCH();
        CHECK(cudaEventRecord(e1));
        CHECK(cudaEventSynchronize(e1));
        float ms;
        CHECK(cudaEventElapsedTime(&ms, e0, e1));
        ms_total += ms;
        CHECK(cudaMemcpy(hC, C, nn * sizeof(float), cudaMemcpyDeviceToHost));
        double s = ex_sum(hC, nn);
        printf("checksum gemm_v0%d %.12e\n", v, s);
        total += s;
    }
    ex_print("gemm", total, ms_total);
    CHECK(cudaFree(A));
    CHECK(cudaFree(B));
    CHECK(cudaFree(C));
    free(hA);
    free(hB);
    free(hC);
    return 0;
}
