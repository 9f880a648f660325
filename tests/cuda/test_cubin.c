/* test_cubin.c -- the cubin reader (src/util/cubin.c) on cubins nvcc 13.0
 * made from data/smem_kernels.cu (how: that file's header), and on damaged
 * copies of them. Expected offsets and sizes are the readelf listings of
 * those cubins (docs/cuda-collector.md "Shared-memory objects"). CPU only. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/cubin.h"
#include "../mh_test.h"

#ifndef MH_CUBIN_DATA
#error "MH_CUBIN_DATA (the folder of the test cubins) must be defined"
#endif

#define R 0x400u /* reserved bytes at the start of the window on sm_90 */

typedef struct blob {
    unsigned char *p;
    size_t n;
} blob;

static blob load(const char *name) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", MH_CUBIN_DATA, name);
    blob b = {0};
    FILE *f = fopen(path, "rb");
    if (!f) return b;
    if (fseek(f, 0, SEEK_END) == 0) {
        long n = ftell(f);
        rewind(f);
        if (n > 0 && (b.p = malloc((size_t)n)) && fread(b.p, 1, (size_t)n, f) == (size_t)n) b.n = (size_t)n;
    }
    fclose(f);
    return b;
}

static const mh_cubin_kernel *kern(const mh_cubin *c, const char *name) {
    const mh_cubin_kernel *k = mh_cubin_kernel_find(c, name);
    if (!k) fprintf(stderr, "  kernel %s not found\n", name);
    return k;
}

/* The objects of a launch of `name`, as "base+size label;..." */
static void objs(const mh_cubin *c, const char *name, uint64_t st, uint64_t dyn, char *out, size_t cap) {
    mh_cubin_objs o = {0};
    mh_err err = {0};
    out[0] = '\0';
    if (mh_cubin_objects(mh_cubin_kernel_find(c, name), R, st, dyn, 1024, &o, &err) != MH_OK) {
        snprintf(out, cap, "error: %s", err.msg);
        return;
    }
    size_t n = 0;
    for (size_t i = 0; i < o.n && n < cap; i++)
        n += (size_t)snprintf(out + n, cap - n, "%s%" PRIx64 "+%" PRIu64 " %s", i ? ";" : "", o.v[i].base,
                              o.v[i].size, o.v[i].label);
    mh_cubin_objs_free(&o);
}

#define CHECK_OBJS(c, name, st, dyn, want)                                                                         \
    do {                                                                                                           \
        char got_[1024];                                                                                           \
        objs(c, name, st, dyn, got_, sizeof got_);                                                                 \
        if (strcmp(got_, want) != 0) fprintf(stderr, "  %s: got  %s\n  %*s  want %s\n", name, got_, (int)strlen(name), "", want); \
        CHECK(strcmp(got_, want) == 0);                                                                            \
    } while (0)

/* nvcc -G: one symbol per array, at its offset in the window. */
static void test_debug_symbols(void) {
    blob b = load("smem_debug.cubin");
    CHECK(b.n > 0);
    mh_cubin c;
    mh_err err = {0};
    CHECK_EQ_U(mh_cubin_read(b.p, b.n, &c, &err), MH_OK);
    const mh_cubin_kernel *k = kern(&c, "_Z5threePi");
    CHECK(k && k->n_vars == 3);
    if (k && k->n_vars == 3) {
        CHECK(!strcmp(k->vars[0].name, "_ZZ5threePiE1v"));
        CHECK_EQ_U(k->vars[0].offset, 0x400);
        CHECK_EQ_U(k->vars[0].size, 256);
        CHECK_EQ_U(k->vars[1].offset, 0x500);
        CHECK_EQ_U(k->vars[1].size, 10);
        CHECK_EQ_U(k->vars[2].offset, 0x50a);
        CHECK_EQ_U(k->vars[2].size, 7);
    }
    /* section sizes minus the reserved 0x400 are the static sizes */
    CHECK_OBJS(&c, "_Z5threePi", 0x111, 0, "400+256 v;500+10 s;50a+7 b");
    CHECK_OBJS(&c, "_Z3twoPd", 0x103, 0, "400+256 acc;500+3 flags");
    CHECK_OBJS(&c, "_Z3onePf", 0x200, 0, "400+512 tile");
    CHECK_OBJS(&c, "_Z4tmplIfLi256EEvPT_", 0x400, 0, "400+1024 buf");
    /* padding after the last array is no object; the extern array names the dynamic part */
    CHECK_OBJS(&c, "_Z3dynPfi", 0x10, 64, "400+4 count;410+1088 dynamic shared memory (extern smem[])");
    /* the file-scope array has its symbol in .nv_debug.shared, not the kernel's: unnamed stretch */
    CHECK_OBJS(&c, "_Z10use_file_bPf", 0x120, 0, "400+256 static __shared__ arrays;500+32 mine");
    CHECK(mh_cubin_kernel_find(&c, "_Z10use_file_aPf") == NULL);
    mh_cubin_free(&c);
    free(b.p);
}

/* nvcc -lineinfo: names and sizes from the PTX text, an offset only where one array fits. */
static void test_lineinfo_ptx(void) {
    blob b = load("smem_lineinfo.cubin");
    CHECK(b.n > 0);
    mh_cubin c;
    mh_err err = {0};
    CHECK_EQ_U(mh_cubin_read(b.p, b.n, &c, &err), MH_OK);
    const mh_cubin_kernel *k = kern(&c, "_Z10use_file_bPf");
    CHECK(k && k->n_vars == 2 && !k->dyn);
    if (k && k->n_vars == 2) {
        CHECK(!strcmp(k->vars[0].name, "_ZZ10use_file_bPfE4mine"));
        CHECK(!strcmp(k->vars[1].name, "file_buf"));
        CHECK_EQ_U(k->vars[1].size, 256);
        CHECK(k->vars[1].offset == MH_CUBIN_NO_OFFSET);
    }
    k = kern(&c, "_Z5threePi");
    CHECK(k && k->n_vars == 3);
    if (k && k->n_vars == 3) CHECK_EQ_U(k->vars[1].size, 256); /* .align 16 .b8 v[256] (int4[16]) */
    CHECK_OBJS(&c, "_Z3onePf", 0x200, 0, "400+512 tile");
    CHECK_OBJS(&c, "_Z4tmplIfLi256EEvPT_", 0x400, 0, "400+1024 buf");
    CHECK_OBJS(&c, "_Z10use_file_aPf", 0x100, 0, "400+256 file_buf");
    CHECK_OBJS(&c, "_Z3dynPfi", 0x10, 32, "400+4 count;410+1056 dynamic shared memory (extern smem[])");
    /* several arrays, layout unknown: one object that names them */
    CHECK_OBJS(&c, "_Z3twoPd", 0x110, 0, "400+272 static __shared__ arrays (flags, acc)");
    CHECK_OBJS(&c, "_Z5threePi", 0x120, 0, "400+288 static __shared__ arrays (s, v, b)");
    CHECK_OBJS(&c, "_Z10use_file_bPf", 0x120, 0, "400+288 static __shared__ arrays (mine, file_buf)");
    /* a static size the one array does not fill: not placed */
    CHECK_OBJS(&c, "_Z3onePf", 0x300, 0, "400+768 static __shared__ arrays (tile)");
    CHECK(mh_cubin_kernel_find(&c, "_Z4nonePf") == NULL); /* nothing known: left out */
    CHECK(mh_cubin_kernel_find(&c, "_Z3dynPfi") && !strcmp(mh_cubin_kernel_find(&c, "_Z3dynPfi")->dyn, "smem"));
    mh_cubin_free(&c);

    /* the same image without its PTX text: nothing known */
    unsigned char *sec = NULL;
    for (size_t i = 0; b.n >= 17 && i <= b.n - 17 && !sec; i++)
        if (!memcmp(b.p + i, ".nv_debug_ptx_txt", 17)) sec = b.p + i;
    CHECK(sec != NULL);
    if (sec) {
        sec[10] = 'X';
        CHECK_EQ_U(mh_cubin_read(b.p, b.n, &c, &err), MH_OK);
        CHECK_EQ_U(c.n_kernels, 0);
        mh_cubin_free(&c);
    }
    free(b.p);
}

/* A release build: no names at all; the launch's objects are what they were. */
static void test_plain(void) {
    blob b = load("smem_plain.cubin");
    CHECK(b.n > 0);
    mh_cubin c;
    mh_err err = {0};
    CHECK_EQ_U(mh_cubin_read(b.p, b.n, &c, &err), MH_OK);
    CHECK_EQ_U(c.n_kernels, 0);
    CHECK_OBJS(&c, "_Z3twoPd", 0x110, 8, "400+272 static __shared__ arrays;510+1032 dynamic shared memory");
    CHECK_OBJS(&c, "_Z3twoPd", 0, 0, "");
    mh_cubin_free(&c);
    free(b.p);
}

static void test_labels(void) {
    const char *cases[][2] = {
        {"_ZZ3onePfE4tile", "tile"},
        {"_ZZ4tmplIfLi256EEvPT_E3buf", "buf"},
        {"_ZZN2ns4gemmEPfE4tile", "tile"},
        {"_ZN2ns3bufE", "ns::buf"},
        {"file_buf", "file_buf"},
        {"_Zbroken", "_Zbroken"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *l = mh_cubin_var_label(cases[i][0]);
        CHECK(l && !strcmp(l, cases[i][1]));
        if (l && strcmp(l, cases[i][1])) fprintf(stderr, "  %s -> %s\n", cases[i][0], l);
        free(l);
    }
}

static void put(unsigned char *p, size_t off, uint64_t v, int bytes) {
    for (int i = 0; i < bytes; i++) p[off + (size_t)i] = (unsigned char)(v >> (8 * i));
}

static int read_rc(const unsigned char *p, size_t n) {
    mh_cubin c;
    mh_err err = {0};
    int rc = mh_cubin_read(p, n, &c, &err);
    if (rc != MH_OK) {
        CHECK(err.msg[0] != '\0' && !strchr(err.msg, '\n')); /* one line naming the cause */
        CHECK(c.n_kernels == 0 || c.kernels != NULL);
    }
    mh_cubin_free(&c);
    return rc;
}

/* Damaged images: an error naming the cause, never a read outside the image
 * (the ASan build checks that). */
static void test_corrupt(void) {
    blob b = load("smem_debug.cubin");
    CHECK(b.n > 4096);
    if (b.n <= 4096) return;
    unsigned char *w = malloc(b.n);
    CHECK(w != NULL);
    if (!w) return;
    CHECK_EQ_U(read_rc(NULL, 0), MH_ERR_FORMAT);
    CHECK_EQ_U(read_rc(b.p, 63), MH_ERR_FORMAT);
    uint64_t shoff = 0;
    for (int i = 7; i >= 0; i--) shoff = shoff << 8 | b.p[0x28 + i];
    uint64_t shnum = (uint64_t)b.p[0x3C] | (uint64_t)b.p[0x3D] << 8;
    /* truncated: every cut before the end of the section headers loses them
     * (only the program headers come after them) */
    CHECK(shoff + shnum * 64 <= b.n);
    for (size_t n = 0; n < b.n; n += 97) {
        memcpy(w, b.p, n);
        int rc = read_rc(w, n);
        if (n < shoff + shnum * 64) CHECK_EQ_U(rc, MH_ERR_FORMAT);
    }
    struct {
        size_t off;
        uint64_t v;
        int bytes;
    } bad[] = {
        {0, 0x7e, 1},                 /* magic */
        {4, 1, 1},                    /* ELF32 */
        {0x12, 62, 2},                /* x86-64, not EM_CUDA */
        {0x10, 1, 2},                 /* relocatable */
        {0x28, b.n, 8},               /* section headers past the end */
        {0x28, UINT64_MAX - 8, 8},    /* ... with an offset that overflows */
        {0x3A, 8, 2},                 /* header entries too small */
        {0x3C, 0xffff, 2},            /* too many sections */
        {0x3E, 0xfff0, 2},            /* section-name table out of range */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        memcpy(w, b.p, b.n);
        put(w, bad[i].off, bad[i].v, bad[i].bytes);
        CHECK_EQ_U(read_rc(w, b.n), MH_ERR_FORMAT);
    }
    /* every section header's name, offset, size and link pointed far away, in turn */
    int failed = 0, total = 0;
    for (uint64_t s = 0; s < shnum; s++) {
        size_t h = (size_t)(shoff + s * 64);
        size_t fields[][2] = {{0, 4}, {24, 8}, {32, 8}, {40, 4}, {56, 8}};
        for (size_t f = 0; f < 5; f++) {
            memcpy(w, b.p, b.n);
            put(w, h + fields[f][0], 0xfffffff0u, (int)fields[f][1]);
            total++;
            failed += read_rc(w, b.n) != MH_OK;
        }
    }
    CHECK(failed > 0 && failed <= total);
    free(w);
    free(b.p);
}

/* Random bytes changed (half the time in the section headers and tables at
 * the end): whatever comes out, no crash, no read outside the image. */
static void fuzz(const char *name, int iterations) {
    blob b = load(name);
    unsigned char *w = b.n ? malloc(b.n) : NULL;
    CHECK(w != NULL);
    if (!w) {
        free(b.p);
        return;
    }
    uint64_t x = 0x9e3779b97f4a7c15ull, ok = 0;
    for (int it = 0; it < iterations; it++) {
        memcpy(w, b.p, b.n);
        for (int k = 0; k < 8; k++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            size_t at = (size_t)(x % b.n);
            if (it % 2) at = b.n - 1 - (size_t)((x >> 32) % (b.n / 4));
            w[at] = (unsigned char)(x >> 24);
        }
        ok += read_rc(w, b.n) == MH_OK;
    }
    CHECK(ok < (uint64_t)iterations); /* some damage is seen */
    free(w);
    free(b.p);
}

static void test_fuzz(void) {
    fuzz("smem_debug.cubin", 2000);
    fuzz("smem_lineinfo.cubin", 2000);
}

MH_TEST_MAIN(T(test_debug_symbols), T(test_lineinfo_ptx), T(test_plain), T(test_labels), T(test_corrupt), T(test_fuzz))
