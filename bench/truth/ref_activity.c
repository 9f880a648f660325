/* ref_activity.c -- the independent reference of bench/truth: a CUDA
 * injection library (CUDA_INJECTION64_PATH) that records nothing but CUPTI's
 * CONCURRENT_KERNEL activity records, the same records PyTorch's profiler
 * (Kineto) and Nsight Systems read, and writes one line per kernel name at
 * exit: launches, median and total duration in ns. No memheat code is
 * linked, so what memheat reports can be judged against it.
 *   REF_OUT=path  the TSV file (appended): "ref <TAB> n <TAB> median_ns <TAB> total_ns <TAB> name" */
#include <cupti.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char *name;
    double *v;
    size_t n, cap;
} ref_kernel;

static ref_kernel *g_k;
static size_t g_n, g_cap;
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;

static void add(const char *name, double ns) {
    pthread_mutex_lock(&g_mu);
    size_t i = 0;
    while (i < g_n && strcmp(g_k[i].name, name) != 0) i++;
    if (i == g_n) {
        if (g_n == g_cap) {
            size_t cap = g_cap ? 2 * g_cap : 256;
            ref_kernel *k = realloc(g_k, cap * sizeof *k);
            if (!k) goto out;
            g_k = k, g_cap = cap;
        }
        g_k[g_n++] = (ref_kernel){strdup(name), NULL, 0, 0};
    }
    ref_kernel *k = &g_k[i];
    if (k->n == k->cap) {
        size_t cap = k->cap ? 2 * k->cap : 16;
        double *v = realloc(k->v, cap * sizeof *v);
        if (!v) goto out;
        k->v = v, k->cap = cap;
    }
    k->v[k->n++] = ns;
out:
    pthread_mutex_unlock(&g_mu);
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void CUPTIAPI requested(uint8_t **b, size_t *size, size_t *max) {
    if (posix_memalign((void **)b, 8, 8u << 20)) *b = NULL;
    *size = *b ? 8u << 20 : 0;
    *max = 0;
}

static void CUPTIAPI completed(CUcontext c, uint32_t s, uint8_t *b, size_t size, size_t valid) {
    (void)c, (void)s, (void)size;
    CUpti_Activity *r = NULL;
    while (cuptiActivityGetNextRecord(b, valid, &r) == CUPTI_SUCCESS)
        if (r->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
            const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)r;
            add(k->name, (double)(k->end - k->start));
        }
    free(b);
}

static void finish(void) {
    cuptiActivityFlushAll(1);
    const char *path = getenv("REF_OUT");
    FILE *f = path ? fopen(path, "a") : NULL;
    if (!f) f = stderr;
    for (size_t i = 0; i < g_n; i++) {
        ref_kernel *k = &g_k[i];
        qsort(k->v, k->n, sizeof *k->v, cmp);
        double sum = 0;
        for (size_t j = 0; j < k->n; j++) sum += k->v[j];
        double med = k->n % 2 ? k->v[k->n / 2] : (k->v[k->n / 2 - 1] + k->v[k->n / 2]) / 2;
        fprintf(f, "ref\t%zu\t%.0f\t%.0f\t%s\n", k->n, med, sum, k->name);
    }
    if (f != stderr) fclose(f);
}

int InitializeInjection(void);
int InitializeInjection(void) {
    if (cuptiActivityRegisterCallbacks(requested, completed) != CUPTI_SUCCESS ||
        cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) != CUPTI_SUCCESS) {
        fprintf(stderr, "ref_activity: CUPTI activity records unavailable\n");
        return 1;
    }
    atexit(finish);
    return 1;
}
