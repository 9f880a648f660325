/* common.h -- shared by the memheat CUDA examples: error checks, reproducible
 * inputs, the checksum line every example prints, and kernel timing.
 *
 * Every example prints "checksum <name> <value>" on stdout (compared with and
 * without memheat by scripts/gpu-check.sh) and "gpu_ms <value>" on stderr: the
 * GPU time of its measured kernels from CUDA events (used by bench/overhead). */
#ifndef MEMHEAT_EXAMPLES_COMMON_H
#define MEMHEAT_EXAMPLES_COMMON_H

#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                              \
    do {                                                                                         \
        cudaError_t e_ = (call);                                                                 \
        if (e_ != cudaSuccess) {                                                                 \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            exit(1);                                                                             \
        }                                                                                        \
    } while (0)

#define CHECK_LAUNCH() CHECK(cudaGetLastError())

/* Reproducible pseudo-random floats in [-1, 1). */
static inline void ex_fill(float *v, size_t n, uint32_t seed) {
    uint32_t s = seed * 2654435761u + 1u;
    for (size_t i = 0; i < n; i++) {
        s = s * 1664525u + 1013904223u;
        v[i] = (float)(s >> 8) / 8388608.0f - 1.0f;
    }
}

static inline double ex_sum(const float *v, size_t n) {
    double s = 0;
    for (size_t i = 0; i < n; i++) s += (double)v[i] * (double)((i % 7) + 1);
    return s;
}

static inline void ex_print(const char *name, double checksum, float gpu_ms) {
    printf("checksum %s %.12e\n", name, checksum);
    fprintf(stderr, "gpu_ms %.4f\n", gpu_ms);
}

#endif
