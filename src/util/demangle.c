/* demangle.c -- turns mangled kernel names ("_Z8gemm_v00iiiPKfS0_Pf") into
 * what the user wrote ("gemm_v00(int, int, int, float const*, ...)"), for
 * the CUDA collector (a --kernel regex, the launch record's display name) and
 * the reports (src/report/names.c, util/kname.c). The one place memheat
 * demangles.
 *
 * The CUDA toolchain mangles with the Itanium C++ ABI. Its demangler is
 * libiberty's (GCC's): libstdc++ ships it as __cxa_demangle, which keeps the
 * library's guard against deep recursion and so refuses every name over 1024
 * characters (it sizes its tables at twice the name's length and gives up
 * past 2048 entries: cuDNN and CUTLASS 3 kernels run to 1,600 and more, and
 * stayed mangled, issue 39). Where Debian's libiberty-dev is installed,
 * cplus_demangle_v3 is called with DMGL_NO_RECURSE_LIMIT for names up to
 * MH_DEMANGLE_MAX bytes instead, on a thread of its own with a stack of
 * MH_DEMANGLE_STACK: the recursion grows with the name's nesting, which the
 * length bounds (a name of 4,000 nested templates overflows a 1 MiB stack
 * and needs less than 8 MiB; 64 MiB of address space covers any name up to
 * the bound). Shorter names and builds without libiberty take __cxa_demangle.
 * Declaring it here keeps memheat in C. */
#include "util/demangle.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#ifdef MEMHEAT_HAVE_LIBIBERTY
#include <libiberty/demangle.h>
#include <pthread.h>

#define MH_DEMANGLE_STACK ((size_t)64 << 20)

typedef struct long_job {
    const char *name;
    char *out;
} long_job;

static void *long_main(void *arg) {
    long_job *j = arg;
    j->out = cplus_demangle_v3(j->name, DMGL_PARAMS | DMGL_ANSI | DMGL_TYPES | DMGL_NO_RECURSE_LIMIT);
    return NULL;
}

/* A name over 1024 characters, demangled on a thread with a stack its
 * nesting cannot exhaust; NULL when it does not demangle or no thread starts. */
static char *demangle_long(const char *name) {
    long_job j = {name, NULL};
    pthread_attr_t at;
    pthread_t t;
    if (pthread_attr_init(&at) != 0) return NULL;
    int ok = pthread_attr_setstacksize(&at, MH_DEMANGLE_STACK) == 0 && pthread_create(&t, &at, long_main, &j) == 0;
    pthread_attr_destroy(&at);
    if (!ok) return NULL;
    pthread_join(t, NULL);
    return j.out;
}
#endif

/* From libstdc++ (declared extern "C" in <cxxabi.h>). */
char *__cxa_demangle(const char *mangled, char *out, size_t *len, int *status);

char *mh_demangle(const char *name) {
    if (!name || strncmp(name, "_Z", 2) != 0) return NULL;
    size_t len = strlen(name);
#ifdef MEMHEAT_HAVE_LIBIBERTY
    if (len > 1024) return len <= MH_DEMANGLE_MAX ? demangle_long(name) : NULL;
#endif
    (void)len;
    int status = -1;
    char *d = __cxa_demangle(name, NULL, NULL, &status);
    if (status != 0) {
        free(d);
        return NULL;
    }
    return d;
}
