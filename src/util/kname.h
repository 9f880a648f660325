/* kname.h -- kernel names for people, as Nsight Compute and Nsight Systems
 * show them: demangled (util/demangle.h), without the return type and the
 * parameter list, the template arguments kept while they fit and the rest
 * elided: `cutlass::Kernel2<cutlass_80_simt_sgemm_256x128_8x4_nn_align1>`,
 * `at::native::elementwise_kernel<128, 2, …>`. Used by the terminal table,
 * `memheat run`'s summary, analyze, diff and the report. */
#ifndef MEMHEAT_KNAME_H
#define MEMHEAT_KNAME_H

#include <stddef.h>

#define MH_KNAME_ELLIPSIS "\xe2\x80\xa6" /* U+2026, one column */

/* Levels of shortening, most to least: ncu's short form; every top-level
 * template argument (nested ones elided), no parameters; the whole demangled
 * name without its return type. */
enum { MH_KNAME_SHORT = 0, MH_KNAME_ARGS = 1, MH_KNAME_WHOLE = 2 };

/* The name (mangled or plain) at `level`, in at most `width` columns (0 = no
 * limit; a name still longer is cut with an ellipsis), into out. Returns
 * strlen(out). */
size_t mh_kname(const char *name, int level, size_t width, char *out, size_t cap);
/* The names a table shows for n different kernels: each one's short form
 * in `width` columns (0 = no limit); names that would print alike get their
 * template arguments, then the whole name, each cut in the middle to
 * `long_width` columns (0 = no limit; the ends of such names differ), then a
 * number. shown: n texts of `cap` bytes, `stride` bytes apart. Returns 0, or
 * -1 out of memory. */
int mh_kname_unique(const char *const *names, size_t n, size_t width, size_t long_width, char *shown, size_t stride,
                    size_t cap);
/* An object label for people: a kernel argument's by-value struct field,
 * `arg 1: at::native::gpu_kernel_impl_nocast<...{lambda(float)#1}>(...) (field +112)`,
 * with its type shortened as a kernel name (`arg 1: at::native::gpu_kernel_impl_nocast<…> (field +112)`);
 * any other label as it is, cut to `width` columns. Returns strlen(out). */
size_t mh_kname_label(const char *label, size_t width, char *out, size_t cap);
/* Columns the UTF-8 text s takes (code points). */
size_t mh_kname_cols(const char *s);

#endif
