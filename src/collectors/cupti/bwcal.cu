/* bwcal.cu -- memheat-bwcal: the measured bandwidth peak behind
 * `memheat calibrate --bandwidth`.
 *
 * A device-to-device copy kernel (16-byte loads and stores, grid-stride) over
 * two buffers far larger than L2, in several launch shapes; each shape is timed
 * with CUDA events over --runs launches after a warm-up, its median taken, and
 * the best median gives the peak: bytes read + bytes written over time, the
 * (RB + WB) / t of seed 003. The copy is checked element by element on the
 * device. Clocks are left as they are. Output: one JSON object (-o PATH or
 * stdout); cmd_calibrate.c stores it per device name. */
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CK(call)                                                                                 \
    do {                                                                                         \
        cudaError_t e_ = (call);                                                                 \
        if (e_ != cudaSuccess) {                                                                 \
            fprintf(stderr, "memheat-bwcal: %s: %s\n", #call, cudaGetErrorString(e_));           \
            return 1;                                                                            \
        }                                                                                        \
    } while (0)

__global__ void fill(uint4 *p, size_t n, unsigned seed) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        unsigned x = (unsigned)i * 2654435761u + seed;
        p[i] = make_uint4(x, x ^ 0x9e3779b9u, x + 7u, ~x);
    }
}

__global__ void copy16(const uint4 *__restrict__ src, uint4 *__restrict__ dst, size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        dst[i] = src[i];
}

__global__ void check(const uint4 *a, const uint4 *b, size_t n, unsigned long long *bad) {
    unsigned long long mine = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        uint4 x = a[i], y = b[i];
        mine += (x.x != y.x) | (x.y != y.y) | (x.z != y.z) | (x.w != y.w);
    }
    if (mine) atomicAdd(bad, mine);
}

struct shape {
    int blocks_per_sm, threads;
    double median_ms;
};

static void usage(FILE *f) {
    fputs("usage: memheat-bwcal [--device N] [--bytes B] [--runs R] [-o OUT.json]\n"
          "Measures device-memory bandwidth with a copy kernel; prints JSON.\n", f);
}

static void json_str(FILE *f, const char *s) {
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c < 0x20) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}

int main(int argc, char **argv) {
    int dev = 0, runs = 30;
    size_t bytes = 0;
    const char *out = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--device") && i + 1 < argc) dev = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--bytes") && i + 1 < argc) bytes = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--runs") && i + 1 < argc) runs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-o") && i + 1 < argc) out = argv[++i];
        else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            return 0;
        } else {
            usage(stderr);
            return 2;
        }
    }
    if (runs < 3) runs = 3;
    CK(cudaSetDevice(dev));
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, dev));
    int sms = prop.multiProcessorCount, mem_khz = 0, bus = 0;
    CK(cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, dev));
    CK(cudaDeviceGetAttribute(&bus, cudaDevAttrGlobalMemoryBusWidth, dev));
    size_t free_b = 0, total_b = 0;
    CK(cudaMemGetInfo(&free_b, &total_b));
    if (bytes == 0) {
        /* large against L2 (at least 16x) but at most a quarter of free memory per buffer */
        bytes = std::max<size_t>((size_t)prop.l2CacheSize * 16, (size_t)1 << 30);
        bytes = std::min(bytes, free_b / 4);
    }
    bytes &= ~(size_t)15;
    size_t n = bytes / 16;
    if (n == 0) {
        fprintf(stderr, "memheat-bwcal: buffer too small\n");
        return 2;
    }
    uint4 *a = NULL, *b = NULL;
    unsigned long long *bad = NULL;
    CK(cudaMalloc(&a, bytes));
    CK(cudaMalloc(&b, bytes));
    CK(cudaMalloc(&bad, sizeof *bad));
    fill<<<sms * 8, 256>>>(a, n, 12345u);
    fill<<<sms * 8, 256>>>(b, n, 777u);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());

    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    std::vector<shape> shapes;
    const int bps[] = {2, 4, 8, 16}, thr[] = {256, 512, 1024};
    for (int bp : bps)
        for (int t : thr)
            if (bp * t <= prop.maxThreadsPerMultiProcessor) shapes.push_back({bp, t, 0});
    std::vector<float> ms(runs);
    size_t best = 0;
    for (size_t s = 0; s < shapes.size(); s++) {
        int grid = shapes[s].blocks_per_sm * sms, threads = shapes[s].threads;
        for (int w = 0; w < 3; w++) copy16<<<grid, threads>>>(a, b, n);
        CK(cudaGetLastError());
        for (int r = 0; r < runs; r++) {
            CK(cudaEventRecord(e0));
            copy16<<<grid, threads>>>(a, b, n);
            CK(cudaEventRecord(e1));
            CK(cudaEventSynchronize(e1));
            CK(cudaEventElapsedTime(&ms[r], e0, e1));
        }
        std::vector<float> v(ms);
        std::sort(v.begin(), v.end());
        shapes[s].median_ms = runs % 2 ? v[runs / 2] : (v[runs / 2 - 1] + v[runs / 2]) / 2.0;
        if (shapes[s].median_ms < shapes[best].median_ms || s == 0) best = s;
    }
    CK(cudaMemset(bad, 0, sizeof *bad));
    check<<<sms * 8, 256>>>(a, b, n, bad);
    CK(cudaGetLastError());
    unsigned long long nbad = 0;
    CK(cudaMemcpy(&nbad, bad, sizeof nbad, cudaMemcpyDeviceToHost));
    if (nbad) {
        fprintf(stderr, "memheat-bwcal: the copy kernel produced %llu wrong elements\n", nbad);
        return 1;
    }
    double moved = 2.0 * (double)bytes;
    FILE *f = out ? fopen(out, "w") : stdout;
    if (!f) {
        fprintf(stderr, "memheat-bwcal: cannot write %s\n", out);
        return 1;
    }
    fprintf(f, "{\"device\": ");
    json_str(f, prop.name);
    fprintf(f, ", \"device_index\": %d, \"bandwidth_Bps\": %.17g, \"theoretical_Bps\": %.17g", dev,
            moved / (shapes[best].median_ms * 1e-3), (double)mem_khz * 1e3 * (bus / 8.0) * 2.0);
    fprintf(f, ", \"method\": \"copy kernel, 16-byte accesses, bytes read + written / median event time\"");
    fprintf(f, ", \"buffer_bytes\": %zu, \"bytes_moved\": %.0f, \"runs\": %d, \"median_ns\": %.0f", bytes, moved, runs,
            shapes[best].median_ms * 1e6);
    fprintf(f, ", \"best\": {\"blocks_per_sm\": %d, \"threads\": %d}, \"shapes\": [", shapes[best].blocks_per_sm,
            shapes[best].threads);
    for (size_t s = 0; s < shapes.size(); s++)
        fprintf(f, "%s{\"blocks_per_sm\": %d, \"threads\": %d, \"median_ns\": %.0f}", s ? ", " : "",
                shapes[s].blocks_per_sm, shapes[s].threads, shapes[s].median_ms * 1e6);
    fprintf(f, "]}\n");
    if (out) fclose(f);
    cudaFree(a);
    cudaFree(b);
    cudaFree(bad);
    return 0;
}
