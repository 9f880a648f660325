/* ocl_path.h -- finding programs for the Oclgrind back end (detect_opencl.c). */
#ifndef MEMHEAT_OCL_PATH_H
#define MEMHEAT_OCL_PATH_H

#include <stddef.h>

/* Path of the executable `name`: name itself when it holds a '/', else the
 * first match on $PATH. Returns 1 and fills out (cap bytes) when found. */
int mh_ocl_which(const char *name, char *out, size_t cap);

#endif
