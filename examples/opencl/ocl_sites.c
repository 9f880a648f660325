/* ocl_sites.c -- an OpenCL host program whose kernels are launched from
 * two places of its own code, for memheat's call sites (issue 43): the
 * report and `memheat analyze --group-by site` must name this file's lines.
 * `transpose_naive` (a strided read) is enqueued once from prepare() and
 * twice from train_step(), the latter inside NVTX ranges "train" > "step"
 * when NVTX is built in (MH_HAVE_NVTX: memheat serves NVTX's injection);
 * prepare() runs inside "prepare" of this program's own domain "APP", after
 * ocl_sites_lib.c left its "LIB" range open, which no launch is under.
 * The enqueues are not followed by a flush, so the kernels run at the
 * clFinish in main(): the sites must still be the enqueues'. Each enqueue
 * line carries a SITE tag the test looks for. Exits 1 when a result is
 * wrong. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#ifdef MH_HAVE_NVTX
#include <nvtx3/nvToolsExt.h>
void sites_lib_open(void); /* ocl_sites_lib.c */
#endif

#define N 64

static const char *k_src =
    "__kernel void transpose_naive(__global const float *in, __global float *out, int n) {\n"
    "  int i = get_global_id(0), j = get_global_id(1);\n"
    "  out[i * n + j] = in[j * n + i];\n"
    "}\n";

#define CHECK(e)                                                                      \
    do {                                                                              \
        cl_int e_ = (e);                                                              \
        if (e_ != CL_SUCCESS) {                                                       \
            fprintf(stderr, "ocl_sites: OpenCL error %d at line %d\n", (int)e_, __LINE__); \
            exit(2);                                                                  \
        }                                                                             \
    } while (0)

typedef struct ctx {
    cl_command_queue q;
    cl_kernel k;
} ctx;

static void prepare(ctx *c) {
    size_t g[2] = {N, N}, l[2] = {16, 16};
    CHECK(clEnqueueNDRangeKernel(c->q, c->k, 2, NULL, g, l, 0, NULL, NULL)); /* SITE:prepare */
}

static void train_step(ctx *c) {
    size_t g[2] = {N, N}, l[2] = {16, 16};
#ifdef MH_HAVE_NVTX
    nvtxRangePushA("step");
#endif
    CHECK(clEnqueueNDRangeKernel(c->q, c->k, 2, NULL, g, l, 0, NULL, NULL)); /* SITE:step */
#ifdef MH_HAVE_NVTX
    nvtxRangePop();
#endif
}

int main(void) {
    cl_platform_id plat;
    cl_device_id dev;
    cl_int e;
    CHECK(clGetPlatformIDs(1, &plat, NULL));
    CHECK(clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL));
    cl_context cx = clCreateContext(NULL, 1, &dev, NULL, NULL, &e);
    CHECK(e);
    ctx c;
    c.q = clCreateCommandQueue(cx, dev, 0, &e);
    CHECK(e);
    cl_program p = clCreateProgramWithSource(cx, 1, &k_src, NULL, &e);
    CHECK(e);
    CHECK(clBuildProgram(p, 1, &dev, "", NULL, NULL));
    c.k = clCreateKernel(p, "transpose_naive", &e);
    CHECK(e);
    float *a = malloc(N * N * sizeof *a), *b = malloc(N * N * sizeof *b);
    for (int i = 0; i < N * N; i++) a[i] = (float)i;
    cl_mem in = clCreateBuffer(cx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, N * N * sizeof *a, a, &e);
    CHECK(e);
    cl_mem out = clCreateBuffer(cx, CL_MEM_WRITE_ONLY, N * N * sizeof *b, NULL, &e);
    CHECK(e);
    int n = N;
    CHECK(clSetKernelArg(c.k, 0, sizeof in, &in));
    CHECK(clSetKernelArg(c.k, 1, sizeof out, &out));
    CHECK(clSetKernelArg(c.k, 2, sizeof n, &n));
#ifdef MH_HAVE_NVTX
    sites_lib_open();
    nvtxDomainHandle_t app = nvtxDomainCreateA("APP");
    nvtxEventAttributes_t at = {.version = NVTX_VERSION, .size = NVTX_EVENT_ATTRIB_STRUCT_SIZE,
                                .messageType = NVTX_MESSAGE_TYPE_ASCII, .message.ascii = "prepare"};
    nvtxDomainRangePushEx(app, &at);
#endif
    prepare(&c);
#ifdef MH_HAVE_NVTX
    nvtxDomainRangePop(app);
    nvtxRangePushA("train");
#endif
    for (int s = 0; s < 2; s++) train_step(&c);
#ifdef MH_HAVE_NVTX
    nvtxRangePop();
#endif
    CHECK(clFinish(c.q));
    CHECK(clEnqueueReadBuffer(c.q, out, CL_TRUE, 0, N * N * sizeof *b, b, 0, NULL, NULL));
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            if (b[i * N + j] != a[j * N + i]) {
                fprintf(stderr, "ocl_sites: wrong result at %d,%d\n", i, j);
                return 1;
            }
    printf("ocl_sites ok\n");
    clReleaseMemObject(in);
    clReleaseMemObject(out);
    clReleaseKernel(c.k);
    clReleaseProgram(p);
    clReleaseCommandQueue(c.q);
    clReleaseContext(cx);
    free(a);
    free(b);
    return 0;
}
