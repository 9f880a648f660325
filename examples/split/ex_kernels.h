/* ex_kernels.h -- C declarations of the split examples' kernel launchers
 * (kernels.cu). Each returns a cudaError_t as int; `stream` is a cudaStream_t. */
#ifndef MH_EX_KERNELS_H
#define MH_EX_KERNELS_H
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif
int ex_vecadd_launch(const float *a, const float *b, float *c, size_t n, void *stream);
int ex_scalprod_launch(const float *d, const float *e, float *f, size_t nvec, int elems, void *stream);
int ex_bs_launch(const float *s, const float *x, const float *t, float *call, float *put, const float *rv,
                 size_t n, void *stream);
int ex_mc_launch(const float *s, const float *x, const float *t, float *price, float *conf, const float *z,
                 int paths, float r, float v, size_t n, void *stream);
#ifdef __cplusplus
}
#endif
#endif
