/* coalesced.cu -- the control: a perfectly coalesced saxpy, run from two host
 * threads on two streams, many launches each, with cudaMalloc, cudaMallocAsync
 * and cudaMallocManaged buffers. Expected heat map: every sector of x and y
 * touched by one warp with all 8 words at temperature 1 (1/1).
 * Usage: coalesced [n] [launches]   (default 1048576 50) */
#include <pthread.h>

#include "common.h"

__global__ void saxpy(int n, float a, const float *x, float *y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

typedef struct worker {
    int id, n, launches;
    double checksum;
    float ms;
} worker;

static void *run_worker(void *arg) {
    worker *w = (worker *)arg;
    size_t bytes = (size_t)w->n * sizeof(float);
    float *hx = (float *)malloc(bytes), *hy = (float *)malloc(bytes);
    ex_fill(hx, w->n, 40 + w->id);
    ex_fill(hy, w->n, 50 + w->id);
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    float *x, *y;
    if (w->id == 0) {
        CHECK(cudaMalloc(&x, bytes));
        CHECK(cudaMallocAsync(&y, bytes, s));
    } else {
        CHECK(cudaMallocManaged(&x, bytes, cudaMemAttachGlobal));
        CHECK(cudaMalloc(&y, bytes));
    }
    CHECK(cudaMemcpyAsync(x, hx, bytes, cudaMemcpyHostToDevice, s));
    CHECK(cudaMemcpyAsync(y, hy, bytes, cudaMemcpyHostToDevice, s));
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    CHECK(cudaEventRecord(e0, s));
    for (int l = 0; l < w->launches; l++) {
        saxpy<<<(w->n + 255) / 256, 256, 0, s>>>(w->n, 0.5f, x, y);
        CHECK_LAUNCH();
    }
    CHECK(cudaEventRecord(e1, s));
    CHECK(cudaEventSynchronize(e1));
    CHECK(cudaEventElapsedTime(&w->ms, e0, e1));
    CHECK(cudaMemcpyAsync(hy, y, bytes, cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    w->checksum = ex_sum(hy, w->n);
    CHECK(cudaFree(x));
    if (w->id == 0)
        CHECK(cudaFreeAsync(y, s));
    else
        CHECK(cudaFree(y));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaStreamDestroy(s));
    free(hx);
    free(hy);
    return NULL;
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 1 << 20;
    int launches = argc > 2 ? atoi(argv[2]) : 50;
    if (n <= 0 || launches <= 0) return 2;
    CHECK(cudaFree(0));
    worker w[2] = {{0, n, launches, 0, 0}, {1, n, launches, 0, 0}};
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        if (pthread_create(&t[i], NULL, run_worker, &w[i])) return 1;
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    printf("checksum coalesced_thread0 %.12e\n", w[0].checksum);
    printf("checksum coalesced_thread1 %.12e\n", w[1].checksum);
    ex_print("coalesced", w[0].checksum + w[1].checksum, w[0].ms + w[1].ms);
    return 0;
}
