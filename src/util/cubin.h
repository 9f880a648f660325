/* cubin.h -- the static __shared__ arrays of a CUDA module's kernels, read
 * from its cubin (the ELF64 image the Compute Sanitizer hands the CUDA
 * collector at module load), and the shared-memory objects of one launch
 * made from them. Pure C, no CUDA: unit-tested on committed cubins
 * (tests/cuda/test_cubin.c). What a cubin holds is in docs/cuda-collector.md
 * ("Shared-memory objects"):
 *
 *   - device-debug builds (nvcc -G) keep one symbol per array in the
 *     kernel's `.nv.shared.<kernel>` section: its offset in the block's
 *     shared window (reserved bytes included) and its size;
 *   - line-info builds (-lineinfo) carry the PTX text (`.nv_debug_ptx_txt`):
 *     the arrays each kernel declares or uses (names, sizes), no offsets;
 *   - release builds keep neither: the window is one object.
 *
 * Every field is bounds-checked: a damaged image gives an error, never a
 * read outside it. */
#ifndef MEMHEAT_CUBIN_H
#define MEMHEAT_CUBIN_H

#include <stddef.h>
#include <stdint.h>

#include "memheat/err.h"

#define MH_CUBIN_NO_OFFSET UINT64_MAX

/* One static __shared__ variable of a kernel. */
typedef struct mh_cubin_var {
    char *name;      /* as in the cubin: mangled ("_ZZ3onePfE4tile") or plain ("file_buf") */
    uint64_t offset; /* byte offset in the shared window (symbols), or MH_CUBIN_NO_OFFSET (PTX only) */
    uint64_t size;   /* bytes */
} mh_cubin_var;

typedef struct mh_cubin_kernel {
    char *name;         /* mangled kernel name */
    mh_cubin_var *vars; /* placed ones (symbols) by offset, then unplaced ones in PTX order */
    size_t n_vars, cap_vars;
    char *dyn;          /* the extern __shared__ array it uses, NULL when none is known */
} mh_cubin_kernel;

/* The kernels of one module that have anything known about their shared memory. */
typedef struct mh_cubin {
    mh_cubin_kernel *kernels;
    size_t n_kernels, cap_kernels;
} mh_cubin;

/* Reads image[0, size) into *out (zeroed first; free with mh_cubin_free,
 * also after an error). MH_ERR_FORMAT: not an ELF64 CUDA executable image,
 * or a field points outside it. */
int mh_cubin_read(const void *image, size_t size, mh_cubin *out, mh_err *err);
void mh_cubin_free(mh_cubin *c);
const mh_cubin_kernel *mh_cubin_kernel_find(const mh_cubin *c, const char *name);

/* A shared-memory object of one launch. */
typedef struct mh_cubin_obj {
    uint64_t base, size; /* offsets in the shared window */
    char *label;
} mh_cubin_obj;

typedef struct mh_cubin_objs {
    mh_cubin_obj *v;
    size_t n, cap;
} mh_cubin_objs;

/* The shared objects of a launch of kernel k (NULL: nothing known) whose
 * window has `reserved` system bytes, `static_size` bytes of static arrays
 * after them and `dyn_size` bytes of dynamic shared memory after those:
 * one object per known array, named as written ("tile", "ns::buf"); every
 * stretch of [reserved, reserved + static_size) no array covers is one
 * object "static __shared__ arrays", followed by the names of the kernel's
 * arrays whose offsets are not known; dynamic shared memory (dyn_size > 0)
 * is "dynamic shared memory" (+ " (extern NAME[])"), dyn_slack bytes longer
 * (its start may be rounded up). Appends to *out; MH_ERR_NOMEM. */
int mh_cubin_objects(const mh_cubin_kernel *k, uint64_t reserved, uint64_t static_size, uint64_t dyn_size,
                     uint64_t dyn_slack, mh_cubin_objs *out, mh_err *err);
void mh_cubin_objs_free(mh_cubin_objs *o);

/* The name a user wrote for a shared variable symbol: "_ZZ3onePfE4tile" ->
 * "tile", "_ZN2ns3bufE" -> "ns::buf", "file_buf" as is. malloc'd, NULL when
 * out of memory. */
char *mh_cubin_var_label(const char *symbol);

#endif
