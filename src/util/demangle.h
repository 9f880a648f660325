/* demangle.h -- C++ kernel names made readable (libiberty's Itanium demangler). */
#ifndef MEMHEAT_DEMANGLE_H
#define MEMHEAT_DEMANGLE_H

/* Longest mangled name demangled (longer: kept as it is); __cxa_demangle
 * alone stops at 1024. */
#define MH_DEMANGLE_MAX 16384

/* Returns a malloc'd demangled name, or NULL when `name` is not a mangled
 * C++ name (plain C and OpenCL kernels keep their name) or does not demangle. */
char *mh_demangle(const char *name);

#endif
