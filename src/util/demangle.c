/* demangle.c -- turns mangled kernel names ("_Z8gemm_v00iiiPKfS0_Pf") into
 * what the user wrote ("gemm_v00(int, int, int, float const*, ...)"), for
 * the CUDA collector (a --kernel regex, the launch record's display name) and
 * the reports (src/report/names.c). The one place memheat demangles.
 *
 * The CUDA toolchain mangles with the Itanium C++ ABI, whose demangler ships
 * in libstdc++ as the C-linkage function __cxa_demangle. Declaring it here
 * keeps memheat in C (it links libstdc++ for this one function). */
#include "util/demangle.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* From libstdc++ (declared extern "C" in <cxxabi.h>). */
char *__cxa_demangle(const char *mangled, char *out, size_t *len, int *status);

char *mh_demangle(const char *name) {
    if (!name || strncmp(name, "_Z", 2) != 0) return NULL;
    int status = -1;
    char *d = __cxa_demangle(name, NULL, NULL, &status);
    if (status != 0) {
        free(d);
        return NULL;
    }
    return d;
}
