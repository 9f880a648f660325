/* spmv.cu -- CSR sparse matrix-vector product whose row offsets are misaligned
 * (CUTHERMO, section IV-C, Fig. 7; the spmv_csr kernel of Table I).
 *
 * The matrix is kept in one device buffer that starts with a 4-int header
 * (rows, cols, nnz, flags) followed by the row offsets, so rowOffsets sits 16
 * bytes past a sector boundary. One thread per row reads rowOffsets[row] and
 * rowOffsets[row + 1]: each warp's 33 words span 5 sectors instead of 4.
 * Expected heat map of rowOffsets: in every 4th sector two warps meet
 * (sector temperature 2), the others are touched by one warp (1/1).
 * The vector x shows the "random hot" pattern.
 * Usage: spmv [rows]   (default 65536) */
#include "common.h"

__global__ void spmv_csr(int rows, const int *rowOffsets, const int *cols, const float *vals, const float *x,
                         float *y) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < rows) {
        float sum = 0.0f;
        for (int j = rowOffsets[row]; j < rowOffsets[row + 1]; j++) sum += vals[j] * x[cols[j]];
        y[row] = sum;
    }
}

int main(int argc, char **argv) {
    int rows = argc > 1 ? atoi(argv[1]) : 65536;
    if (rows <= 0) return 2;
    int cols_n = rows;
    /* 1 to 16 nonzeros per row, reproducible. */
    int *hoff = (int *)malloc(((size_t)rows + 1 + 4) * sizeof(int));
    int *hdr = hoff, *off = hoff + 4;
    uint32_t s = 12345;
    off[0] = 0;
    for (int r = 0; r < rows; r++) {
        s = s * 1664525u + 1013904223u;
        off[r + 1] = off[r] + 1 + (int)((s >> 16) % 16);
    }
    int nnz = off[rows];
    hdr[0] = rows;
    hdr[1] = cols_n;
    hdr[2] = nnz;
    hdr[3] = 0;
    int *hcols = (int *)malloc((size_t)nnz * sizeof(int));
    float *hvals = (float *)malloc((size_t)nnz * sizeof(float));
    float *hx = (float *)malloc((size_t)cols_n * sizeof(float));
    float *hy = (float *)malloc((size_t)rows * sizeof(float));
    for (int i = 0; i < nnz; i++) {
        s = s * 1664525u + 1013904223u;
        hcols[i] = (int)((s >> 8) % (uint32_t)cols_n);
    }
    ex_fill(hvals, nnz, 7);
    ex_fill(hx, cols_n, 8);

    int *dmat, *dcols;
    float *dvals, *dx, *dy;
    CHECK(cudaMalloc(&dmat, ((size_t)rows + 1 + 4) * sizeof(int)));
    CHECK(cudaMalloc(&dcols, (size_t)nnz * sizeof(int)));
    CHECK(cudaMalloc(&dvals, (size_t)nnz * sizeof(float)));
    CHECK(cudaMalloc(&dx, (size_t)cols_n * sizeof(float)));
    CHECK(cudaMalloc(&dy, (size_t)rows * sizeof(float)));
    CHECK(cudaMemcpy(dmat, hoff, ((size_t)rows + 1 + 4) * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dcols, hcols, (size_t)nnz * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dvals, hvals, (size_t)nnz * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dx, hx, (size_t)cols_n * sizeof(float), cudaMemcpyHostToDevice));

    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    CHECK(cudaEventRecord(e0));
    spmv_csr<<<(rows + 255) / 256, 256>>>(rows, dmat + 4, dcols, dvals, dx, dy);
    CHECK_LAUNCH();
    CHECK(cudaEventRecord(e1));
    CHECK(cudaEventSynchronize(e1));
    float ms;
    CHECK(cudaEventElapsedTime(&ms, e0, e1));
    CHECK(cudaMemcpy(hy, dy, (size_t)rows * sizeof(float), cudaMemcpyDeviceToHost));
    ex_print("spmv", ex_sum(hy, rows), ms);
    CHECK(cudaFree(dmat));
    CHECK(cudaFree(dcols));
    CHECK(cudaFree(dvals));
    CHECK(cudaFree(dx));
    CHECK(cudaFree(dy));
    free(hoff);
    free(hcols);
    free(hvals);
    free(hx);
    free(hy);
    return 0;
}
