/* sig.h -- the parameter list of a demangled function name, so that a kernel
 * argument can be named by its type ("h_histogram(float const*, float*, int)"
 * -> parameter 1 is "float*"). */
#ifndef MEMHEAT_SIG_H
#define MEMHEAT_SIG_H

#include <stddef.h>

/* Number of parameters in the name's parameter list (its last top-level
 * "(...)"), or -1 when the name has none (a C or OpenCL kernel name, an
 * unbalanced name). "f()" and "f(void)" have 0. */
int mh_sig_count(const char *display);
/* Copies parameter `index` (0 = first), spaces trimmed, into buf (cut to
 * cap - 1 bytes). Returns 1 when it exists, else 0 with buf = "". */
int mh_sig_param(const char *display, unsigned index, char *buf, size_t cap);

#endif
