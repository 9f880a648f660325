/* matmul.cl -- the matrix-multiply family of the AIWC paper (section 2 and
 * appendices A-C): C = A * B for square N x N row-major float matrices, N a
 * multiple of TILE_DIM. Launched as a 2-D NDRange N x N with work-groups of
 * TILE_DIM x TILE_DIM; like the paper, dimension 0 walks rows of C, so
 * consecutive work-items (a memheat warp) share a column and differ in row.
 *
 *   simpleMultiply       every operand straight from global memory
 *   coalescedAMultiply   A staged through a __local tile
 *   coalescedABMultiply  A and B staged through __local tiles
 *   coalescedABTMultiply A's tile stored transposed (the paper changes the two
 *                        tile stores; the read of that tile changes to match,
 *                        otherwise the product would be wrong)
 *   alignedABTMultiply   coalescedABT with 4096-byte aligned tiles */
#ifndef TILE_DIM
#define TILE_DIM 16
#endif

__kernel void simpleMultiply(__global const float *A, __global const float *B, __global float *C, int N) {
    int row = get_global_id(0);
    int col = get_global_id(1);
    float sum = 0.0f;
    for (int k = 0; k < N; k++)
        sum += A[row * N + k] * B[k * N + col];
    C[row * N + col] = sum;
}

__kernel void coalescedAMultiply(__global const float *A, __global const float *B, __global float *C, int N) {
    __local float aTile[TILE_DIM][TILE_DIM];
    int lr = get_local_id(0), lc = get_local_id(1);
    int row = get_global_id(0), col = get_global_id(1);
    float sum = 0.0f;
    for (int t = 0; t < N / TILE_DIM; t++) {
        aTile[lr][lc] = A[row * N + t * TILE_DIM + lc];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TILE_DIM; k++)
            sum += aTile[lr][k] * B[(t * TILE_DIM + k) * N + col];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    C[row * N + col] = sum;
}

__kernel void coalescedABMultiply(__global const float *A, __global const float *B, __global float *C, int N) {
    __local float aTile[TILE_DIM][TILE_DIM];
    __local float bTile[TILE_DIM][TILE_DIM];
    int lr = get_local_id(0), lc = get_local_id(1);
    int row = get_global_id(0), col = get_global_id(1);
    float sum = 0.0f;
    for (int t = 0; t < N / TILE_DIM; t++) {
        aTile[lr][lc] = A[row * N + t * TILE_DIM + lc];
        bTile[lr][lc] = B[(t * TILE_DIM + lr) * N + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TILE_DIM; k++)
            sum += aTile[lr][k] * bTile[k][lc];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    C[row * N + col] = sum;
}

__kernel void coalescedABTMultiply(__global const float *A, __global const float *B, __global float *C, int N) {
    __local float aTile[TILE_DIM][TILE_DIM];
    __local float bTile[TILE_DIM][TILE_DIM];
    int lr = get_local_id(0), lc = get_local_id(1);
    int row = get_global_id(0), col = get_global_id(1);
    float sum = 0.0f;
    for (int t = 0; t < N / TILE_DIM; t++) {
        aTile[lc][lr] = A[row * N + t * TILE_DIM + lc];
        bTile[lr][lc] = B[(t * TILE_DIM + lr) * N + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TILE_DIM; k++)
            sum += aTile[k][lr] * bTile[k][lc];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    C[row * N + col] = sum;
}

__kernel void alignedABTMultiply(__global const float *A, __global const float *B, __global float *C, int N) {
    __local float aTile[TILE_DIM][TILE_DIM] __attribute__((aligned(4096)));
    __local float bTile[TILE_DIM][TILE_DIM] __attribute__((aligned(4096)));
    int lr = get_local_id(0), lc = get_local_id(1);
    int row = get_global_id(0), col = get_global_id(1);
    float sum = 0.0f;
    for (int t = 0; t < N / TILE_DIM; t++) {
        aTile[lc][lr] = A[row * N + t * TILE_DIM + lc];
        bTile[lr][lc] = B[(t * TILE_DIM + lr) * N + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TILE_DIM; k++)
            sum += aTile[k][lr] * bTile[k][lc];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    C[row * N + col] = sum;
}
