/* patterns.cl -- one kernel per heat-map pattern of the CUTHERMO paper
 * (section IV-C), each on a 1-D NDRange with work-groups of 256 work-items
 * (8 memheat warps of 32). `in` and `out` are float arrays; the expected
 * heat-map signature of the pattern's object is given per kernel (word
 * temperatures / sector temperature, counted over the traced work-groups).
 * The host (ocl_examples.c) checks every result against a CPU reference. */

/* Control: warp w reads/writes 32 consecutive floats = 4 whole sectors.
 * in, out: words 1 / sector 1. */
__kernel void patCoalesced(__global const float *in, __global float *out) {
    int i = get_global_id(0);
    out[i] = in[i] * 2.0f + 1.0f;
}

/* False sharing: lane l of warp w handles element l*8 + w of its group's
 * 256, so each sector's 8 words belong to 8 different warps.
 * in, out: words 1 / sector 8. */
__kernel void patFalseSharing(__global const float *in, __global float *out) {
    int lid = get_local_id(0);
    int i = get_group_id(0) * 256 + (lid % 32) * 8 + lid / 32;
    out[i] = in[i] * 2.0f + 1.0f;
}

/* Strided: work-item i reads in[8*i], one word per sector, the other seven
 * never used. in: word 0 = 1, words 1-7 = 0 / sector 1. */
__kernel void patStrided(__global const float *in, __global float *out) {
    int i = get_global_id(0);
    out[i] = in[i * 8] + 1.0f;
}

/* Misaligned: reads start 16 bytes into the buffer, so each warp's 128
 * bytes straddle 5 sectors; the boundary sector is shared by two warps
 * (words 0-3 one warp, words 4-7 the next). in: words 1 / sector 2 on every
 * fourth sector, 1 elsewhere. */
__kernel void patMisaligned(__global const float *in, __global float *out) {
    int i = get_global_id(0);
    out[i] = in[i + 4] - 1.0f;
}

/* Hot spot: every work-item reads a word of an 8-float table, so every warp
 * reads all of it. lut: words W / sector W (W = traced warps). */
__kernel void patHot(__global const float *in, __global const float *lut, __global float *out) {
    int i = get_global_id(0);
    out[i] = in[i] * lut[i % 8];
}

/* Shared-memory abuse (thread-private): each work-item parks its own value
 * in __local memory and reads it back after a barrier; nothing is shared, so
 * the local memory and the barrier buy nothing. scratch: words 1 / sector 1
 * in the local (shared) space. */
__kernel void patSharedAbuse(__global const float *in, __global float *out) {
    __local float scratch[256];
    int lid = get_local_id(0);
    int i = get_global_id(0);
    scratch[lid] = in[i] * 3.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[i] = scratch[lid] - 2.0f;
}

/* Exact-count probe: work-item i makes 1 + (i % 5) global loads, 1 constant
 * load, 1 local store, 1 local load, 1 global store and 1 atomic, in that
 * order; the tests know every count and every sequence number. */
__kernel void countAccesses(__global const float *in, __constant float *coef, __global float *out,
                            __global int *counter) {
    __local float tmp[256];
    int lid = get_local_id(0);
    int i = get_global_id(0);
    float s = 0.0f;
    int n = 1 + i % 5;
    for (int k = 0; k < n; k++)
        s += in[(i + k) % get_global_size(0)];
    tmp[lid] = s * coef[lid % 4];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[i] = tmp[255 - lid];
    atomic_inc(counter);
}
