/* demangle.h -- C++ kernel names made readable (libstdc++'s Itanium demangler). */
#ifndef MEMHEAT_CUDA_DEMANGLE_H
#define MEMHEAT_CUDA_DEMANGLE_H

/* Returns a malloc'd demangled name, or NULL when `name` is not a mangled
 * C++ name (plain C kernels keep their name). */
char *mh_cuda_demangle(const char *name);

#endif
