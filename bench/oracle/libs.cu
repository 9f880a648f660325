/* libs.cu -- bench/oracle's library kernels (issue 17): one cuBLAS SGEMM and
 * one cuSPARSE CSR SpMV, run under Nsight Compute and memheat by run.sh, so
 * the kernels NVIDIA tuned (vector shared loads, asynchronous copies) are
 * checked too. Results are checked against the host (exit 1 when wrong).
 *   oracle_libs sgemm | spmv | all
 * Prints "KERNEL <what> check=ok" per call. */
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusparse.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CK(call)                                                                          \
    do {                                                                                  \
        cudaError_t e_ = (call);                                                          \
        if (e_ != cudaSuccess) {                                                          \
            fprintf(stderr, "oracle_libs: %s: %s\n", #call, cudaGetErrorString(e_));      \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)
#define CKB(call)                                                                         \
    do {                                                                                  \
        cublasStatus_t s_ = (call);                                                       \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                                \
            fprintf(stderr, "oracle_libs: %s: cuBLAS status %d\n", #call, (int)s_);       \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)
#define CKS(call)                                                                         \
    do {                                                                                  \
        cusparseStatus_t s_ = (call);                                                     \
        if (s_ != CUSPARSE_STATUS_SUCCESS) {                                              \
            fprintf(stderr, "oracle_libs: %s: %s\n", #call, cusparseGetErrorString(s_));  \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

static void fill(std::vector<float> &v, uint32_t seed) {
    uint32_t s = seed * 2654435761u + 1u;
    for (auto &x : v) {
        s = s * 1664525u + 1013904223u;
        x = (float)(s >> 8) / 8388608.0f - 1.0f;
    }
}

static bool close_to(double got, double want, double mag) { return fabs(got - want) <= 1e-4 * (mag + 1.0); }

/* C = A B, 512 x 512 x 512, column-major; 64 entries checked on the host */
static bool sgemm() {
    const int n = 512;
    std::vector<float> a((size_t)n * n), b((size_t)n * n), c((size_t)n * n);
    fill(a, 1);
    fill(b, 2);
    float *da, *db, *dc;
    CK(cudaMalloc(&da, a.size() * sizeof(float)));
    CK(cudaMalloc(&db, b.size() * sizeof(float)));
    CK(cudaMalloc(&dc, c.size() * sizeof(float)));
    CK(cudaMemcpy(da, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(db, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice));
    cublasHandle_t h;
    CKB(cublasCreate(&h));
    CKB(cublasSetMathMode(h, CUBLAS_PEDANTIC_MATH)); /* plain FP32: no TF32 tensor cores */
    const float one = 1.0f, zero = 0.0f;
    CKB(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, da, n, db, n, &zero, dc, n));
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(c.data(), dc, c.size() * sizeof(float), cudaMemcpyDeviceToHost));
    bool ok = true;
    for (int k = 0; k < 64 && ok; k++) {
        int i = (k * 397) % n, j = (k * 661 + 13) % n;
        double want = 0, mag = 0;
        for (int l = 0; l < n; l++) {
            want += (double)a[(size_t)l * n + i] * b[(size_t)j * n + l];
            mag += fabs((double)a[(size_t)l * n + i] * b[(size_t)j * n + l]);
        }
        ok = close_to(c[(size_t)j * n + i], want, mag);
    }
    CKB(cublasDestroy(h));
    CK(cudaFree(da));
    CK(cudaFree(db));
    CK(cudaFree(dc));
    return ok;
}

/* y = A x, a banded CSR matrix of 262,144 rows of 1-8 entries */
static bool spmv() {
    const int rows = 1 << 18;
    std::vector<int> rp(rows + 1), col;
    std::vector<float> val, x(rows), y(rows);
    fill(x, 3);
    uint32_t s = 7;
    for (int r = 0; r < rows; r++) {
        s = s * 1664525u + 1013904223u;
        int len = 1 + (int)((s >> 16) % 8u);
        for (int k = 0; k < len; k++) {
            s = s * 1664525u + 1013904223u;
            int c = r - 16 + (int)((s >> 16) % 33u);
            c = c < 0 ? 0 : c >= rows ? rows - 1 : c;
            if (!col.empty() && (int)col.size() > rp[r] && col.back() >= c) continue; /* ascending, no duplicates */
            col.push_back(c);
            val.push_back(0.25f + 0.125f * (float)k);
        }
        rp[r + 1] = (int)col.size();
    }
    int *drp, *dcol;
    float *dval, *dx, *dy;
    CK(cudaMalloc(&drp, rp.size() * sizeof(int)));
    CK(cudaMalloc(&dcol, col.size() * sizeof(int)));
    CK(cudaMalloc(&dval, val.size() * sizeof(float)));
    CK(cudaMalloc(&dx, x.size() * sizeof(float)));
    CK(cudaMalloc(&dy, y.size() * sizeof(float)));
    CK(cudaMemcpy(drp, rp.data(), rp.size() * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dcol, col.data(), col.size() * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dval, val.data(), val.size() * sizeof(float), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dx, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice));
    cusparseHandle_t h;
    CKS(cusparseCreate(&h));
    cusparseSpMatDescr_t A;
    cusparseDnVecDescr_t vx, vy;
    CKS(cusparseCreateCsr(&A, rows, rows, (int64_t)col.size(), drp, dcol, dval, CUSPARSE_INDEX_32I,
                          CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
    CKS(cusparseCreateDnVec(&vx, rows, dx, CUDA_R_32F));
    CKS(cusparseCreateDnVec(&vy, rows, dy, CUDA_R_32F));
    const float one = 1.0f, zero = 0.0f;
    size_t bytes = 0;
    CKS(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vx, &zero, vy, CUDA_R_32F,
                                CUSPARSE_SPMV_CSR_ALG1, &bytes));
    void *buf = nullptr;
    if (bytes) CK(cudaMalloc(&buf, bytes));
    CKS(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vx, &zero, vy, CUDA_R_32F, CUSPARSE_SPMV_CSR_ALG1,
                     buf));
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(y.data(), dy, y.size() * sizeof(float), cudaMemcpyDeviceToHost));
    bool ok = true;
    for (int r = 0; r < rows && ok; r++) {
        double want = 0, mag = 0;
        for (int j = rp[r]; j < rp[r + 1]; j++) {
            want += (double)val[j] * x[col[j]];
            mag += fabs((double)val[j] * x[col[j]]);
        }
        ok = close_to(y[r], want, mag);
    }
    CKS(cusparseDestroySpMat(A));
    CKS(cusparseDestroyDnVec(vx));
    CKS(cusparseDestroyDnVec(vy));
    CKS(cusparseDestroy(h));
    if (buf) CK(cudaFree(buf));
    CK(cudaFree(drp));
    CK(cudaFree(dcol));
    CK(cudaFree(dval));
    CK(cudaFree(dx));
    CK(cudaFree(dy));
    return ok;
}

int main(int argc, char **argv) {
    if (argc != 2 || (strcmp(argv[1], "sgemm") && strcmp(argv[1], "spmv") && strcmp(argv[1], "all"))) {
        fprintf(stderr, "usage: oracle_libs sgemm | spmv | all\n");
        return 2;
    }
    int fails = 0;
    const bool all = !strcmp(argv[1], "all");
    if (all || !strcmp(argv[1], "sgemm")) {
        bool ok = sgemm();
        printf("KERNEL cublas_sgemm check=%s\n", ok ? "ok" : "FAILED");
        fails += !ok;
    }
    if (all || !strcmp(argv[1], "spmv")) {
        bool ok = spmv();
        printf("KERNEL cusparse_spmv check=%s\n", ok ? "ok" : "FAILED");
        fails += !ok;
    }
    return fails ? 1 : 0;
}
