/* ocl_examples.c -- OpenCL host program for memheat's examples: runs the
 * AIWC matrix-multiply family (kernels/matmul.cl) and the heat-map pattern
 * kernels (kernels/patterns.cl), checks every result against a CPU reference
 * and exits non-zero on the first mismatch.
 *
 * Inputs are small integers, so every float sum is exact and results must
 * equal the reference bit for bit, whatever the summation order.
 *
 *   ocl_examples [--n N] [--items M] [--only NAME] [--kernels DIR] [--list]
 *     --n N      matrix order for the matrix multiplies (multiple of 16; default 64)
 *     --items M  work-items of the pattern kernels (multiple of 256; default 1024)
 *     --only NAME  run only kernels whose name contains NAME (repeatable)
 *     --kernels DIR  directory holding matmul.cl and patterns.cl
 *     --break-reference  corrupt one reference value (proves the check fails)
 * Exit: 0 all results equal, 1 a mismatch, 2 usage, 3 OpenCL error. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef MH_OCL_KERNEL_DIR
#define MH_OCL_KERNEL_DIR "kernels"
#endif
#define TILE 16
#define GROUP 256
#define MAX_ONLY 16

typedef struct ex_ctx {
    cl_context ctx;
    cl_command_queue q;
    cl_device_id dev;
    cl_program matmul, patterns;
    const char *only[MAX_ONLY];
    int nonly;
    int break_ref;
} ex_ctx;

#define CL_CHECK(call)                                                                                 \
    do {                                                                                               \
        cl_int e_ = (call);                                                                            \
        if (e_ != CL_SUCCESS) {                                                                        \
            fprintf(stderr, "ocl_examples: %s failed: OpenCL error %d\n", #call, (int)e_);             \
            exit(3);                                                                                   \
        }                                                                                              \
    } while (0)

static int selected(const ex_ctx *x, const char *name) {
    if (x->nonly == 0) return 1;
    for (int i = 0; i < x->nonly; i++)
        if (strstr(name, x->only[i])) return 1;
    return 0;
}

static char *read_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
        free(s);
        s = NULL;
    }
    if (s) s[n] = '\0';
    fclose(f);
    return s;
}

static cl_program build(ex_ctx *x, const char *dir, const char *file) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    char *src = read_file(path);
    if (!src) {
        fprintf(stderr, "ocl_examples: cannot read %s\n", path);
        exit(3);
    }
    cl_int e;
    const char *s = src;
    cl_program p = clCreateProgramWithSource(x->ctx, 1, &s, NULL, &e);
    CL_CHECK(e);
    e = clBuildProgram(p, 1, &x->dev, "", NULL, NULL);
    if (e != CL_SUCCESS) {
        char log[8192] = "";
        clGetProgramBuildInfo(p, x->dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
        fprintf(stderr, "ocl_examples: building %s failed (%d):\n%s\n", path, (int)e, log);
        exit(3);
    }
    free(src);
    return p;
}

static cl_mem buffer(ex_ctx *x, cl_mem_flags fl, size_t bytes, void *init) {
    cl_int e;
    cl_mem m = clCreateBuffer(x->ctx, fl | (init ? CL_MEM_COPY_HOST_PTR : 0), bytes, init, &e);
    CL_CHECK(e);
    return m;
}

static void run_kernel(ex_ctx *x, cl_kernel k, cl_uint dims, const size_t *global, const size_t *local) {
    CL_CHECK(clEnqueueNDRangeKernel(x->q, k, dims, NULL, global, local, 0, NULL, NULL));
    CL_CHECK(clFinish(x->q));
}

/* Compares n floats exactly; prints the first difference. */
static int check(const char *name, const float *got, const float *want, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (got[i] != want[i]) {
            fprintf(stderr, "ocl_examples: %s: MISMATCH at %zu: got %g, expected %g\n", name, i, got[i], want[i]);
            return 1;
        }
    }
    printf("%-22s ok (%zu values equal the CPU reference)\n", name, n);
    return 0;
}

static int run_matmul(ex_ctx *x, int n) {
    static const char *names[] = {"simpleMultiply", "coalescedAMultiply", "coalescedABMultiply",
                                  "coalescedABTMultiply", "alignedABTMultiply"};
    size_t nn = (size_t)n * n, bytes = nn * sizeof(float);
    float *a = malloc(bytes), *b = malloc(bytes), *c = malloc(bytes), *ref = malloc(bytes);
    if (!a || !b || !c || !ref) return 3;
    for (size_t i = 0; i < nn; i++) {
        a[i] = (float)((int)(i * 7 % 5) - 2);
        b[i] = (float)((int)(i * 3 % 7) - 3);
    }
    for (int r = 0; r < n; r++)
        for (int col = 0; col < n; col++) {
            float s = 0.0f;
            for (int k = 0; k < n; k++) s += a[(size_t)r * n + k] * b[(size_t)k * n + col];
            ref[(size_t)r * n + col] = s;
        }
    if (x->break_ref) ref[nn / 2] += 1.0f;
    int bad = 0;
    for (size_t v = 0; v < sizeof names / sizeof names[0] && !bad; v++) {
        if (!selected(x, names[v])) continue;
        cl_mem A = buffer(x, CL_MEM_READ_ONLY, bytes, a), B = buffer(x, CL_MEM_READ_ONLY, bytes, b);
        cl_mem C = buffer(x, CL_MEM_WRITE_ONLY, bytes, NULL);
        cl_int e;
        cl_kernel k = clCreateKernel(x->matmul, names[v], &e);
        CL_CHECK(e);
        CL_CHECK(clSetKernelArg(k, 0, sizeof A, &A));
        CL_CHECK(clSetKernelArg(k, 1, sizeof B, &B));
        CL_CHECK(clSetKernelArg(k, 2, sizeof C, &C));
        CL_CHECK(clSetKernelArg(k, 3, sizeof n, &n));
        size_t global[2] = {(size_t)n, (size_t)n}, local[2] = {TILE, TILE};
        run_kernel(x, k, 2, global, local);
        memset(c, 0, bytes);
        CL_CHECK(clEnqueueReadBuffer(x->q, C, CL_TRUE, 0, bytes, c, 0, NULL, NULL));
        bad = check(names[v], c, ref, nn);
        clReleaseKernel(k);
        clReleaseMemObject(A);
        clReleaseMemObject(B);
        clReleaseMemObject(C);
    }
    free(a);
    free(b);
    free(c);
    free(ref);
    return bad;
}

/* One pattern kernel: in has in_len floats, out m; args are (in, [lut,] out). */
static int run_pattern(ex_ctx *x, const char *name, int m) {
    if (!selected(x, name)) return 0;
    size_t in_len = (size_t)m * 8 + 8;
    float *in = malloc(in_len * sizeof *in), *out = malloc((size_t)m * sizeof *out),
          *ref = malloc((size_t)m * sizeof *ref), lut[8];
    if (!in || !out || !ref) return 3;
    for (size_t i = 0; i < in_len; i++) in[i] = (float)((int)(i % 11) - 5);
    for (int i = 0; i < 8; i++) lut[i] = (float)(i + 1);
    for (int i = 0; i < m; i++) {
        if (!strcmp(name, "patCoalesced")) ref[i] = in[i] * 2.0f + 1.0f;
        else if (!strcmp(name, "patFalseSharing")) ref[i] = in[i] * 2.0f + 1.0f; /* same mapping, permuted */
        else if (!strcmp(name, "patStrided")) ref[i] = in[(size_t)i * 8] + 1.0f;
        else if (!strcmp(name, "patMisaligned")) ref[i] = in[i + 4] - 1.0f;
        else if (!strcmp(name, "patHot")) ref[i] = in[i] * lut[i % 8];
        else ref[i] = in[i] * 3.0f - 2.0f; /* patSharedAbuse */
    }
    if (x->break_ref) ref[m / 2] += 1.0f;
    cl_mem IN = buffer(x, CL_MEM_READ_ONLY, in_len * sizeof *in, in);
    cl_mem LUT = buffer(x, CL_MEM_READ_ONLY, sizeof lut, lut);
    cl_mem OUT = buffer(x, CL_MEM_WRITE_ONLY, (size_t)m * sizeof *out, NULL);
    cl_int e;
    cl_kernel k = clCreateKernel(x->patterns, name, &e);
    CL_CHECK(e);
    cl_uint arg = 0;
    CL_CHECK(clSetKernelArg(k, arg++, sizeof IN, &IN));
    if (!strcmp(name, "patHot")) CL_CHECK(clSetKernelArg(k, arg++, sizeof LUT, &LUT));
    CL_CHECK(clSetKernelArg(k, arg++, sizeof OUT, &OUT));
    size_t global = (size_t)m, local = GROUP;
    run_kernel(x, k, 1, &global, &local);
    CL_CHECK(clEnqueueReadBuffer(x->q, OUT, CL_TRUE, 0, (size_t)m * sizeof *out, out, 0, NULL, NULL));
    int bad = check(name, out, ref, (size_t)m);
    clReleaseKernel(k);
    clReleaseMemObject(IN);
    clReleaseMemObject(LUT);
    clReleaseMemObject(OUT);
    free(in);
    free(out);
    free(ref);
    return bad;
}

/* The exact-count probe (see countAccesses in patterns.cl). */
static int run_count(ex_ctx *x, int m) {
    if (!selected(x, "countAccesses")) return 0;
    float *in = malloc((size_t)m * sizeof *in), *out = malloc((size_t)m * sizeof *out);
    float *tmp = malloc((size_t)m * sizeof *tmp), coef[4] = {1.0f, 2.0f, -1.0f, 3.0f};
    if (!in || !out || !tmp) return 3;
    for (int i = 0; i < m; i++) in[i] = (float)(i % 9 - 4);
    for (int i = 0; i < m; i++) {
        float s = 0.0f;
        for (int k = 0; k < 1 + i % 5; k++) s += in[(i + k) % m];
        tmp[i] = s * coef[(i % GROUP) % 4];
    }
    int zero = 0;
    cl_mem IN = buffer(x, CL_MEM_READ_ONLY, (size_t)m * sizeof *in, in);
    cl_mem COEF = buffer(x, CL_MEM_READ_ONLY, sizeof coef, coef);
    cl_mem OUT = buffer(x, CL_MEM_WRITE_ONLY, (size_t)m * sizeof *out, NULL);
    cl_mem CNT = buffer(x, CL_MEM_READ_WRITE, sizeof zero, &zero);
    cl_int e;
    cl_kernel k = clCreateKernel(x->patterns, "countAccesses", &e);
    CL_CHECK(e);
    CL_CHECK(clSetKernelArg(k, 0, sizeof IN, &IN));
    CL_CHECK(clSetKernelArg(k, 1, sizeof COEF, &COEF));
    CL_CHECK(clSetKernelArg(k, 2, sizeof OUT, &OUT));
    CL_CHECK(clSetKernelArg(k, 3, sizeof CNT, &CNT));
    size_t global = (size_t)m, local = GROUP;
    run_kernel(x, k, 1, &global, &local);
    CL_CHECK(clEnqueueReadBuffer(x->q, OUT, CL_TRUE, 0, (size_t)m * sizeof *out, out, 0, NULL, NULL));
    int count = -1;
    CL_CHECK(clEnqueueReadBuffer(x->q, CNT, CL_TRUE, 0, sizeof count, &count, 0, NULL, NULL));
    int bad = 0;
    for (int i = 0; i < m && !bad; i++) {
        int g = i / GROUP, l = i % GROUP;
        float want = tmp[g * GROUP + (GROUP - 1 - l)] + (x->break_ref && i == m / 2 ? 1.0f : 0.0f);
        if (out[i] != want) {
            fprintf(stderr, "ocl_examples: countAccesses: MISMATCH at %d: got %g, expected %g\n", i, out[i], want);
            bad = 1;
        }
    }
    if (!bad && count != m) {
        fprintf(stderr, "ocl_examples: countAccesses: MISMATCH counter %d, expected %d\n", count, m);
        bad = 1;
    }
    if (!bad) printf("%-22s ok (%d values and the atomic counter equal the CPU reference)\n", "countAccesses", m);
    clReleaseKernel(k);
    clReleaseMemObject(IN);
    clReleaseMemObject(COEF);
    clReleaseMemObject(OUT);
    clReleaseMemObject(CNT);
    free(in);
    free(out);
    free(tmp);
    return bad;
}

static int usage(void) {
    fprintf(stderr, "usage: ocl_examples [--n N] [--items M] [--only NAME]... [--kernels DIR] [--break-reference]"
                    " [--repeat R] [--no-release]\n");
    return 2;
}

int main(int argc, char **argv) {
    ex_ctx x;
    memset(&x, 0, sizeof x);
    int n = 64, m = 1024, repeat = 1, release = 1;
    const char *dir = MH_OCL_KERNEL_DIR;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--n") && v) n = atoi(argv[++i]);
        else if (!strcmp(a, "--items") && v) m = atoi(argv[++i]);
        else if (!strcmp(a, "--kernels") && v) dir = argv[++i];
        else if (!strcmp(a, "--only") && v && x.nonly < MAX_ONLY) x.only[x.nonly++] = argv[++i];
        else if (!strcmp(a, "--break-reference")) x.break_ref = 1;
        else if (!strcmp(a, "--repeat") && v) repeat = atoi(argv[++i]); /* every launch R times (launch policy tests) */
        else if (!strcmp(a, "--no-release")) release = 0; /* ends without releasing queue and context, as much real code does */
        else return usage();
    }
    if (repeat < 1 || repeat > 1000) {
        fprintf(stderr, "ocl_examples: --repeat must be 1..1000\n");
        return 2;
    }
    if (n <= 0 || n % TILE || n > 4096 || m <= 0 || m % GROUP || m > (1 << 24)) {
        fprintf(stderr, "ocl_examples: --n must be a positive multiple of %d (<= 4096), --items of %d\n", TILE,
                GROUP);
        return 2;
    }
    cl_platform_id plat;
    cl_uint np = 0;
    CL_CHECK(clGetPlatformIDs(1, &plat, &np));
    CL_CHECK(clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &x.dev, NULL));
    cl_int e;
    x.ctx = clCreateContext(NULL, 1, &x.dev, NULL, NULL, &e);
    CL_CHECK(e);
    x.q = clCreateCommandQueue(x.ctx, x.dev, 0, &e);
    CL_CHECK(e);
    x.matmul = build(&x, dir, "matmul.cl");
    x.patterns = build(&x, dir, "patterns.cl");
    int bad = 0;
    static const char *pats[] = {"patCoalesced", "patFalseSharing", "patStrided",
                                 "patMisaligned", "patHot", "patSharedAbuse"};
    for (int r = 0; r < repeat && !bad; r++) {
        bad = run_matmul(&x, n);
        for (size_t i = 0; i < sizeof pats / sizeof pats[0] && !bad; i++) bad = run_pattern(&x, pats[i], m);
        if (!bad) bad = run_count(&x, m);
    }
    if (!release) return bad;
    clReleaseProgram(x.matmul);
    clReleaseProgram(x.patterns);
    clReleaseCommandQueue(x.q);
    clReleaseContext(x.ctx);
    return bad;
}
