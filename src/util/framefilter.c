/* framefilter.c -- the frames that are not the user's own (framefilter.h).
 * The lists are substrings, matched anywhere in the path or name: short
 * enough to read, specific enough not to catch a user's file by accident
 * (a folder of the user's named "torch" would be; MEMHEAT_FRAME_FILTER can
 * add, and docs/trace-format.md "Call sites" lists these). */
#include "util/framefilter.h"

#include <string.h>

/* Loaded objects: frameworks, vendor libraries, runtimes, interpreters. */
static const char *const k_objects[] = {
    "libcuda.so", "libcudart", "libcublas", "libcudnn", "libcufft", "libcurand", "libcusparse", "libcusolver",
    "libnccl", "libnvrtc", "libnvJitLink", "libnvToolsExt", "libcupti", "libsanitizer", "libtorch", "libc10",
    "/torch/lib/", "/torch/_C", "_C.cpython", "libpython", "/bin/python", "libjax", "jaxlib", "/triton/",
    "libxla", "/cupy/", "libOpenCL", "liboclgrind", "libmemheat", "/libc.so", "/libc-", "libstdc++",
    "libgcc_s", "/ld-linux", "libpthread", "/libm.so", "/libdl.so", "libffi", "_ctypes.cpython",
    "libLLVM", "libpocl", "libnvidia-", "/jax_plugins/", "xla_cuda", "/site-packages/nvidia/", "libtensorflow",
    "/tensorflow/",
};
/* Python source files: frameworks and the standard library. */
static const char *const k_pyfiles[] = {
    "/torch/", "/functorch/", "/triton/", "/jax/", "/jaxlib/", "/cupy/", "/numpy/", "/apex/",
    "/transformers/", "/accelerate/", "/deepspeed/", "/lightning/", "/pytorch_lightning/", "/pyopencl/",
    "/lib/python3", "<frozen ",
};
/* Native functions: the CUDA runtime linked statically into a program, the
 * host stubs nvcc generates for a kernel launch, the C start-up. */
static const char *const k_functions[] = {
    "cudart::", "cudaLaunch", "__cudart", "__device_stub__", "cudaGraphLaunch", "__libc_start", "_start",
    "mh_site_", "mh_ocl_",
};
/* Native source files of those stubs and of the CUDA headers. */
static const char *const k_files[] = {
    "cudafe1.stub.c", "cuda_runtime.h", "cuda_runtime_api.h", "host_runtime.h", "/usr/include/",
    "/usr/local/cuda", "/cuda/include/",
};

const char *const *mh_frame_filter_list(int kind, size_t *n) {
    switch (kind) {
    case 0: *n = sizeof k_objects / sizeof *k_objects; return k_objects;
    case 1: *n = sizeof k_pyfiles / sizeof *k_pyfiles; return k_pyfiles;
    case 2: *n = sizeof k_functions / sizeof *k_functions; return k_functions;
    default: *n = sizeof k_files / sizeof *k_files; return k_files;
    }
}

static int any_of(const char *s, const char *const *v, size_t n) {
    if (!s || !*s) return 0;
    for (size_t i = 0; i < n; i++)
        if (strstr(s, v[i])) return 1;
    return 0;
}

/* One of the ':'/','-separated substrings of extra occurs in s. */
static int extra_match(const char *s, const char *extra) {
    if (!s || !*s || !extra) return 0;
    const char *p = extra;
    while (*p) {
        size_t n = strcspn(p, ":,");
        if (n > 0 && n < 512) {
            char pat[512];
            memcpy(pat, p, n);
            pat[n] = '\0';
            if (strstr(s, pat)) return 1;
        }
        p += n;
        if (*p) p++;
    }
    return 0;
}

int mh_frame_filtered(const mh_frame_desc *f, const char *extra) {
    if (extra_match(f->object, extra) || extra_match(f->file, extra) || extra_match(f->function, extra)) return 1;
    if (f->python) return any_of(f->file, k_pyfiles, sizeof k_pyfiles / sizeof *k_pyfiles);
    return any_of(f->object, k_objects, sizeof k_objects / sizeof *k_objects) ||
           any_of(f->function, k_functions, sizeof k_functions / sizeof *k_functions) ||
           any_of(f->file, k_files, sizeof k_files / sizeof *k_files);
}
