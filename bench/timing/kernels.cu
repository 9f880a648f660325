/* kernels.cu -- bench/timing's workload: a copy, SAXPY (seed 003's kernel) and
 * a tiled transpose, each launched --reps times on large arrays, with the
 * host-device copies a real program does around them.
 *
 * It checks its own results (a wrong kernel exits 1) and prints a checksum
 * line, so run.sh can show the output is identical with and without memheat.
 * It also times SAXPY itself with CUDA events, the blog's way, and prints the
 * blog's effective bandwidth N*4*3/t for comparison with memheat's figure.
 * --crash aborts after the first kernel (for the error-path check).
 * --pipeline instead runs SAXPY out of pinned host memory in chunks on two
 * streams (copy in, compute, copy out overlapping), the shape seed 004's model
 * is about, to check memheat's overlap figures on a real timeline. */
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CK(call)                                                                       \
    do {                                                                               \
        cudaError_t e_ = (call);                                                       \
        if (e_ != cudaSuccess) {                                                       \
            fprintf(stderr, "kernels: %s: %s\n", #call, cudaGetErrorString(e_));       \
            exit(1);                                                                   \
        }                                                                              \
    } while (0)

#define TILE 32
#define ROWS 8

__global__ void copy_kernel(const float *__restrict__ in, float *__restrict__ out, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i];
}

__global__ void saxpy_kernel(size_t n, float a, const float *__restrict__ x, float *__restrict__ y) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

/* out[c][r] = in[r][c] for a rows x cols matrix, through a padded shared tile */
__global__ void transpose_kernel(const float *__restrict__ in, float *__restrict__ out, int rows, int cols) {
    __shared__ float tile[TILE][TILE + 1];
    int c = blockIdx.x * TILE + threadIdx.x;
    int r0 = blockIdx.y * TILE;
    for (int j = threadIdx.y; j < TILE; j += ROWS)
        if (r0 + j < rows && c < cols) tile[j][threadIdx.x] = in[(size_t)(r0 + j) * cols + c];
    __syncthreads();
    int oc = blockIdx.y * TILE + threadIdx.x; /* column of out = row of in */
    int or0 = blockIdx.x * TILE;
    for (int j = threadIdx.y; j < TILE; j += ROWS)
        if (or0 + j < cols && oc < rows) out[(size_t)(or0 + j) * rows + oc] = tile[threadIdx.x][j];
}

__global__ void tiny_kernel(int *p) {
    if (threadIdx.x == 0) atomicAdd(p, 1);
}

/* n back-to-back launches of a one-warp kernel: the worst case for per-launch costs. */
static int tiny(int n) {
    int *p, h = 0;
    CK(cudaMalloc(&p, sizeof *p));
    CK(cudaMemset(p, 0, sizeof *p));
    for (int i = 0; i < n; i++) tiny_kernel<<<1, 32>>>(p);
    CK(cudaGetLastError());
    CK(cudaMemcpy(&h, p, sizeof h, cudaMemcpyDeviceToHost));
    printf("tiny launches %d counted %d %s\n", n, h, h == n ? "ok" : "WRONG");
    return h == n ? 0 : 1;
}

static unsigned lcg(unsigned *s) { return *s = *s * 1664525u + 1013904223u; }

/* SAXPY over n elements in `chunks` pieces alternating between two streams. */
static int pipeline(size_t n, int chunks) {
    float *hx, *hy, *x, *y;
    CK(cudaMallocHost(&hx, n * sizeof(float)));
    CK(cudaMallocHost(&hy, n * sizeof(float)));
    CK(cudaMalloc(&x, n * sizeof(float)));
    CK(cudaMalloc(&y, n * sizeof(float)));
    unsigned s = 7;
    for (size_t i = 0; i < n; i++) hx[i] = (float)(lcg(&s) >> 8) / 16777216.0f;
    for (size_t i = 0; i < n; i++) hy[i] = (float)(lcg(&s) >> 8) / 16777216.0f;
    std::vector<float> y0(hy, hy + n);
    cudaStream_t st[2];
    CK(cudaStreamCreate(&st[0]));
    CK(cudaStreamCreate(&st[1]));
    size_t per = (n + chunks - 1) / chunks;
    for (int c = 0; c < chunks; c++) {
        size_t off = c * per, len = std::min(per, n - off);
        cudaStream_t q = st[c % 2];
        CK(cudaMemcpyAsync(x + off, hx + off, len * sizeof(float), cudaMemcpyHostToDevice, q));
        CK(cudaMemcpyAsync(y + off, hy + off, len * sizeof(float), cudaMemcpyHostToDevice, q));
        saxpy_kernel<<<(unsigned)((len + 511) / 512), 512, 0, q>>>(len, 2.0f, x + off, y + off);
        CK(cudaGetLastError());
        CK(cudaMemcpyAsync(hy + off, y + off, len * sizeof(float), cudaMemcpyDeviceToHost, q));
    }
    CK(cudaDeviceSynchronize());
    int bad = 0;
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        bad += fabsf(hy[i] - fmaf(2.0f, hx[i], y0[i])) > 1e-6f;
        sum += hy[i];
    }
    printf("pipeline checksum %.6e n=%zu chunks=%d %s\n", sum, n, chunks, bad ? "WRONG" : "ok");
    return bad ? 1 : 0;
}

int main(int argc, char **argv) {
    size_t n = (size_t)1 << 26;
    int reps = 20, side = 8192, crash = 0, pipe = 0, ntiny = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--n") && i + 1 < argc) n = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--side") && i + 1 < argc) side = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--crash")) crash = 1;
        else if (!strcmp(argv[i], "--pipeline")) pipe = 1;
        else if (!strcmp(argv[i], "--tiny") && i + 1 < argc) ntiny = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: kernels [--n N] [--reps R] [--side S] [--crash] [--pipeline]\n");
            return 2;
        }
    }
    if (pipe) return pipeline(n, 16);
    if (ntiny > 0) return tiny(ntiny);
    size_t nt = (size_t)side * side, bytes = n * sizeof(float), tbytes = nt * sizeof(float);
    std::vector<float> hx(n), hy(n), hm(nt), hout(std::max(n, nt));
    unsigned s = 42;
    for (size_t i = 0; i < n; i++) hx[i] = (float)(lcg(&s) >> 8) / 16777216.0f;
    for (size_t i = 0; i < n; i++) hy[i] = (float)(lcg(&s) >> 8) / 16777216.0f;
    for (size_t i = 0; i < nt; i++) hm[i] = (float)(lcg(&s) >> 8) / 16777216.0f;
    float *x, *y, *z, *m, *mt;
    CK(cudaMalloc(&x, bytes));
    CK(cudaMalloc(&y, bytes));
    CK(cudaMalloc(&z, bytes));
    CK(cudaMalloc(&m, tbytes));
    CK(cudaMalloc(&mt, tbytes));
    CK(cudaMemcpy(x, hx.data(), bytes, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(y, hy.data(), bytes, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(m, hm.data(), tbytes, cudaMemcpyHostToDevice));
    CK(cudaMemset(z, 0xff, bytes)); /* poison the copy's output */

    unsigned blocks = (unsigned)((n + 511) / 512);
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    /* every launch bracketed by CUDA events, the blog's timing method */
    std::vector<float> ms[3];
    cudaEvent_t ev[6];
    for (int i = 0; i < 6; i++) CK(cudaEventCreate(&ev[i]));
    const float a = 2.0f;
    dim3 tgrid((side + TILE - 1) / TILE, (side + TILE - 1) / TILE), tblock(TILE, ROWS);
    for (int r = 0; r < reps; r++) {
        CK(cudaEventRecord(ev[0]));
        copy_kernel<<<blocks, 512>>>(x, z, n);
        CK(cudaEventRecord(ev[1]));
        CK(cudaGetLastError());
        if (crash) abort();
        CK(cudaEventRecord(ev[2]));
        saxpy_kernel<<<blocks, 512>>>(n, a, x, y);
        CK(cudaEventRecord(ev[3]));
        CK(cudaGetLastError());
        CK(cudaEventRecord(ev[4]));
        transpose_kernel<<<tgrid, tblock>>>(m, mt, side, side);
        CK(cudaEventRecord(ev[5]));
        CK(cudaGetLastError());
        CK(cudaEventSynchronize(ev[5]));
        for (int k = 0; k < 3; k++) {
            float t = 0;
            CK(cudaEventElapsedTime(&t, ev[2 * k], ev[2 * k + 1]));
            ms[k].push_back(t);
        }
    }
    CK(cudaDeviceSynchronize());

    /* check: copy exact; saxpy y = y0 + reps*a*x (computed in the same order); transpose exact */
    int bad = 0;
    CK(cudaMemcpy(hout.data(), z, bytes, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; i++) bad += hout[i] != hx[i];
    CK(cudaMemcpy(hout.data(), y, bytes, cudaMemcpyDeviceToHost));
    double sum_y = 0;
    for (size_t i = 0; i < n; i += 97) {
        float ref = hy[i];
        for (int r = 0; r < reps; r++) ref = fmaf(a, hx[i], ref);
        bad += fabsf(hout[i] - ref) > 1e-5f * fabsf(ref) + 1e-6f;
    }
    for (size_t i = 0; i < n; i++) sum_y += hout[i];
    CK(cudaMemcpy(hout.data(), mt, tbytes, cudaMemcpyDeviceToHost));
    for (int r = 0; r < side; r += 61)
        for (int c = 0; c < side; c += 7) bad += hout[(size_t)c * side + r] != hm[(size_t)r * side + c];
    if (bad) {
        fprintf(stderr, "kernels: %d wrong results\n", bad);
        return 1;
    }
    double med[3];
    for (int k = 0; k < 3; k++) {
        std::sort(ms[k].begin(), ms[k].end());
        med[k] = reps % 2 ? ms[k][reps / 2] : (ms[k][reps / 2 - 1] + ms[k][reps / 2]) / 2;
    }
    printf("checksum %.6e n=%zu side=%d reps=%d ok\n", sum_y, n, side, reps);
    /* stderr, so that stdout is the same under any tool */
    fprintf(stderr, "event-timed medians (us): copy %.2f saxpy %.2f transpose %.2f\n", med[0] * 1e3, med[1] * 1e3,
            med[2] * 1e3);
    fprintf(stderr, "saxpy blog effective bandwidth N*4*3/t = %.1f GB/s\n", (double)n * 4 * 3 / (med[1] * 1e-3) / 1e9);
    cudaFree(x), cudaFree(y), cudaFree(z), cudaFree(m), cudaFree(mt);
    return 0;
}
