/* demangle.h -- C++ kernel names made readable (libstdc++'s Itanium demangler). */
#ifndef MEMHEAT_DEMANGLE_H
#define MEMHEAT_DEMANGLE_H

/* Returns a malloc'd demangled name, or NULL when `name` is not a mangled
 * C++ name (plain C and OpenCL kernels keep their name) or does not demangle. */
char *mh_demangle(const char *name);

#endif
