/* sweep.cu -- bench/atomics: the time global atomics take when they pile up
 * on few addresses, the calibration of the atomic-contention model
 * (src/report/fixes.c, docs/report.md "Estimated saving").
 *
 *   sweep [--n LOG2_OPS] [--reps R]
 *
 * Each case launches n threads (blocks of 256), each doing one
 * atomicAdd(&h[idx * spread], 1u) and nothing else, so the kernel's time is
 * its atomics. idx by pattern:
 *   lane  i % bins          (a warp's lanes on min(bins, 32) addresses)
 *   warp  (i / 32) % bins   (every lane of a warp on one address)
 *   rand  hash(i) % bins    (data-dependent, as a histogram of random keys)
 * spread: words between two bins (1: bins side by side, 8: a 32-byte sector
 * each, 32: a 128-byte line each). One line per case on stdout:
 *   atom <pattern> bins <b> spread <s> ops <n> median_us <m> min_us <a> max_us <b>
 * and the device's name, SMs and clock first; model.py sets the
 * atomic-contention model against these lines. */
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CK(call)                                                                  \
    do {                                                                          \
        cudaError_t e_ = (call);                                                  \
        if (e_ != cudaSuccess) {                                                  \
            fprintf(stderr, "sweep: %s: %s\n", #call, cudaGetErrorString(e_));    \
            exit(1);                                                              \
        }                                                                         \
    } while (0)

__device__ static inline uint32_t mix(uint32_t x) {
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

enum { P_LANE, P_WARP, P_RAND };

__global__ void atom(unsigned *h, unsigned n, unsigned bins, unsigned spread, int pattern) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned b = pattern == P_LANE ? i % bins : pattern == P_WARP ? (i / 32) % bins : mix(i) % bins;
    atomicAdd(&h[(size_t)b * spread], 1u);
}

int main(int argc, char **argv) {
    int lg = 24, reps = 9;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--n") && a + 1 < argc) lg = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--reps") && a + 1 < argc) reps = atoi(argv[++a]);
        else {
            fprintf(stderr, "usage: sweep [--n LOG2_OPS] [--reps R]\n");
            return 2;
        }
    }
    if (lg < 10 || lg > 30 || reps < 1) {
        fprintf(stderr, "sweep: --n 10..30, --reps >= 1\n");
        return 2;
    }
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    int clk = 0;
    CK(cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, 0));
    printf("device %s sms %d clock_khz %d\n", p.name, p.multiProcessorCount, clk);
    const unsigned n = 1u << lg;
    const unsigned bins_v[] = {1, 2, 4, 8, 16, 32, 64, 256, 1024, 4096, 65536};
    const unsigned spread_v[] = {1, 8, 32};
    const char *pname[] = {"lane", "warp", "rand"};
    unsigned *h;
    CK(cudaMalloc(&h, (size_t)65536 * 32 * sizeof *h));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    for (int pat = 0; pat < 3; pat++)
        for (unsigned s : spread_v)
            for (unsigned b : bins_v) {
                std::vector<float> t;
                for (int r = 0; r <= reps; r++) {
                    CK(cudaMemset(h, 0, (size_t)b * s * sizeof *h));
                    CK(cudaEventRecord(e0));
                    atom<<<(n + 255) / 256, 256>>>(h, n, b, s, pat);
                    CK(cudaEventRecord(e1));
                    CK(cudaEventSynchronize(e1));
                    float ms = 0;
                    CK(cudaEventElapsedTime(&ms, e0, e1));
                    if (r) t.push_back(ms * 1e3f); /* the first is a warm-up */
                }
                unsigned long long sum = 0;
                std::vector<unsigned> back((size_t)b * s);
                CK(cudaMemcpy(back.data(), h, back.size() * sizeof *h, cudaMemcpyDeviceToHost));
                for (unsigned k = 0; k < b; k++) sum += back[(size_t)k * s];
                if (sum != n) {
                    fprintf(stderr, "sweep: %s bins %u spread %u: %llu updates counted, %u made\n", pname[pat], b, s,
                            sum, n);
                    return 1;
                }
                std::sort(t.begin(), t.end());
                printf("atom %s bins %u spread %u ops %u median_us %.2f min_us %.2f max_us %.2f\n", pname[pat], b, s,
                       n, t[t.size() / 2], t.front(), t.back());
                fflush(stdout);
            }
    cudaFree(h);
    return 0;
}
