/* framefilter.h -- which host frames belong to a framework or library, not to
 * the user's own code (issue 43: "the user's frame").
 *
 * A launch's call site is a stack of native frames (each in a loaded object,
 * with a function, file and line once symbolised) and Python frames (file,
 * function). The user's frame is the innermost one that no filter matches.
 * A filter is a substring of the object path, file path or function name:
 * the built-in list names the deep-learning frameworks, the CUDA and OpenCL
 * libraries, the C and C++ runtimes, the Python interpreter and memheat
 * itself; the user extends it with MEMHEAT_FRAME_FILTER (substrings
 * separated by ':' or ','), which `memheat run --frame-filter` sets and the
 * import reads. Only libc: built into the collectors as into memheat. */
#ifndef MH_FRAMEFILTER_H
#define MH_FRAMEFILTER_H

#include <stddef.h>

#define MH_FRAME_FILTER_ENV "MEMHEAT_FRAME_FILTER"

/* What a frame is judged by; NULL or "" fields are not looked at. */
typedef struct mh_frame_desc {
    const char *object;   /* native: the loaded object's path */
    const char *file;     /* source file (native: from debug info; Python: co_filename) */
    const char *function; /* function name (demangled) */
    int python;           /* 1: a Python frame */
} mh_frame_desc;

/* 1 when a built-in filter or one of `extra` (':'/','-separated substrings,
 * NULL = none) matches the frame. */
int mh_frame_filtered(const mh_frame_desc *f, const char *extra);
/* The built-in filters of one kind, for documentation and tests:
 * kind 0 objects, 1 Python files, 2 native functions, 3 native files. */
const char *const *mh_frame_filter_list(int kind, size_t *n);

#endif
