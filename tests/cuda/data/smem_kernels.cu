// smem_kernels.cu -- test data of tests/cuda/test_cubin.c: kernels with 1, 2
// and 3 static __shared__ arrays of different types and alignments, a
// template, an extern __shared__ array and a file-scope __shared__ array used
// by two kernels. The cubins beside it were made with CUDA 13.0:
//   nvcc -cubin -arch=sm_90 -lineinfo -o smem_lineinfo.cubin smem_kernels.cu
//   nvcc -cubin -arch=sm_90 -o smem_plain.cubin smem_kernels.cu
//   nvcc -cubin -arch=sm_90 -G -Xptxas -suppress-debug-info -o smem_debug.cubin smem_kernels.cu
__shared__ float file_buf[64];

__global__ void one(float *o) {
    __shared__ float tile[128];
    tile[threadIdx.x] = o[threadIdx.x];
    __syncthreads();
    o[threadIdx.x] = tile[127 - threadIdx.x];
}

__global__ void two(double *o) {
    __shared__ char flags[3];
    __shared__ double acc[32];
    if (threadIdx.x < 3) flags[threadIdx.x] = (char)threadIdx.x;
    acc[threadIdx.x % 32] = o[threadIdx.x];
    __syncthreads();
    o[threadIdx.x] = acc[(threadIdx.x + 1) % 32] + flags[threadIdx.x % 3];
}

__global__ void three(int *o) {
    __shared__ short s[5];
    __shared__ int4 v[16];
    __shared__ unsigned char b[7];
    if (threadIdx.x < 5) s[threadIdx.x] = (short)threadIdx.x;
    if (threadIdx.x < 7) b[threadIdx.x] = (unsigned char)threadIdx.x;
    v[threadIdx.x % 16] = make_int4(o[threadIdx.x], 1, 2, 3);
    __syncthreads();
    o[threadIdx.x] = v[(threadIdx.x + 3) % 16].x + s[threadIdx.x % 5] + b[threadIdx.x % 7];
}

template <typename T, int N>
__global__ void tmpl(T *o) {
    __shared__ T buf[N];
    buf[threadIdx.x % N] = o[threadIdx.x];
    __syncthreads();
    o[threadIdx.x] = buf[(threadIdx.x + 1) % N];
}
template __global__ void tmpl<float, 256>(float *);

__global__ void dyn(float *o, int n) {
    extern __shared__ float smem[];
    __shared__ int count;
    if (threadIdx.x == 0) count = n;
    smem[threadIdx.x] = o[threadIdx.x];
    __syncthreads();
    o[threadIdx.x] = smem[(threadIdx.x + 1) % blockDim.x] + count;
}

__global__ void use_file_a(float *o) {
    file_buf[threadIdx.x % 64] = o[threadIdx.x];
    __syncthreads();
    o[threadIdx.x] = file_buf[(threadIdx.x + 5) % 64];
}

__global__ void use_file_b(float *o) {
    __shared__ float mine[8];
    if (threadIdx.x < 8) mine[threadIdx.x] = 1.0f;
    file_buf[threadIdx.x % 64] = o[threadIdx.x];
    __syncthreads();
    o[threadIdx.x] = file_buf[(threadIdx.x + 7) % 64] + mine[threadIdx.x % 8];
}

__global__ void none(float *o) { o[threadIdx.x] *= 2.0f; }
