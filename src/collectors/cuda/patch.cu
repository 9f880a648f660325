/* patch.cu -- device code the Compute Sanitizer inserts before every global,
 * shared and local memory instruction of the profiled program's kernels.
 *
 * Built with `nvcc --compile-as-tools-patch` into memheat_cuda_patch.fatbin,
 * which the injection library (inject.c) loads with
 * sanitizerAddPatchesFromFile. Every patched instruction calls one of the three
 * entry points below in every active thread. The fast path matters most: a
 * launch that is not traced passes a NULL descriptor and returns at once; a
 * block that is not sampled returns after one subtraction and compare. A traced
 * thread bumps its own sequence counter and writes one 32-byte mh_access
 * record at rec[seq * slots + slot] -- no atomics; a record past the thread's
 * share of the buffer is not written but still counted, so the host knows the
 * exact number dropped (cuda_dev.h). */
#include <sanitizer_patching.h>
#include <stdint.h>

#include "cuda_dev.h"

static __device__ __forceinline__ SanitizerPatchResult mh_patch_record(void *ud, uint64_t pc, uint64_t addr,
                                                                       uint32_t size, uint32_t flags,
                                                                       unsigned space) {
    const mh_cuda_desc *d = (const mh_cuda_desc *)ud;
    if (d == NULL) return SANITIZER_PATCH_SUCCESS;
    uint32_t b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    uint32_t rel = b - d->first; /* wraps for b < first */
    if (rel >= d->nblocks) return SANITIZER_PATCH_SUCCESS;

    uint32_t t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    uint32_t slot = rel * d->nthreads + t;
    uint32_t *seqp = d->seq + slot;
    uint32_t seq = *seqp;
    *seqp = seq + 1;
    if (seq >= d->per_thread) return SANITIZER_PATCH_SUCCESS; /* counted: the host sees seq > per_thread */

    unsigned kind;
    if (flags & SANITIZER_MEMORY_DEVICE_FLAG_ATOMSYS)
        kind = MH_KIND_ATOMIC;
    else if ((flags & SANITIZER_MEMORY_DEVICE_FLAG_WRITE) && (flags & SANITIZER_MEMORY_DEVICE_FLAG_READ))
        kind = MH_KIND_ATOMIC;
    else if (flags & SANITIZER_MEMORY_DEVICE_FLAG_WRITE)
        kind = MH_KIND_STORE;
    else
        kind = MH_KIND_LOAD;

    mh_access *r = d->rec + (size_t)seq * d->slots + slot;
    r->addr = addr;
    r->pc = pc;
    r->launch = d->launch;
    r->block = b;
    r->seq = seq;
    r->thread = (uint16_t)t;
    r->size = (uint8_t)size;
    r->flags = MH_ACCESS_FLAGS(kind, space);
    return SANITIZER_PATCH_SUCCESS;
}

static __device__ __forceinline__ unsigned long long mh_patch_now(void) {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

static __device__ __forceinline__ int mh_patch_lane0(void) {
    uint32_t t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    return (t & 31u) == 0;
}

/* Kernel duration of a traced launch: earliest warp start, latest warp end,
 * over every block (one atomic per warp), from the GPU's global timer. */
extern "C" __device__ __noinline__ SanitizerPatchResult mh_patch_block_enter(void *ud, uint64_t pc) {
    (void)pc;
    mh_cuda_desc *d = (mh_cuda_desc *)ud;
    if (d != NULL && mh_patch_lane0()) atomicMin(&d->t_start, mh_patch_now());
    return SANITIZER_PATCH_SUCCESS;
}

extern "C" __device__ __noinline__ SanitizerPatchResult mh_patch_block_exit(void *ud, uint64_t pc) {
    (void)pc;
    mh_cuda_desc *d = (mh_cuda_desc *)ud;
    if (d != NULL && mh_patch_lane0()) atomicMax(&d->t_end, mh_patch_now());
    return SANITIZER_PATCH_SUCCESS;
}

extern "C" __device__ __noinline__ SanitizerPatchResult mh_patch_global(void *ud, uint64_t pc, void *ptr,
                                                                        uint32_t size, uint32_t flags,
                                                                        const void *data) {
    (void)data;
    return mh_patch_record(ud, pc, (uint64_t)(uintptr_t)ptr, size, flags, MH_SPACE_GLOBAL);
}

/* For shared and local accesses the Sanitizer passes the offset in the
 * block's shared window or the thread's local window, which is what the trace
 * records for those spaces. */
extern "C" __device__ __noinline__ SanitizerPatchResult mh_patch_shared(void *ud, uint64_t pc, void *ptr,
                                                                        uint32_t size, uint32_t flags,
                                                                        const void *data) {
    (void)data;
    return mh_patch_record(ud, pc, (uint64_t)(uintptr_t)ptr, size, flags, MH_SPACE_SHARED);
}

extern "C" __device__ __noinline__ SanitizerPatchResult mh_patch_local(void *ud, uint64_t pc, void *ptr,
                                                                       uint32_t size, uint32_t flags,
                                                                       const void *data) {
    (void)data;
    return mh_patch_record(ud, pc, (uint64_t)(uintptr_t)ptr, size, flags, MH_SPACE_LOCAL);
}
