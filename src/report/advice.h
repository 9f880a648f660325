/* advice.h -- what a library kernel's finding means in the framework's terms
 * (issue 43): a table kept as data (assets/advice.tsv, compiled in) that maps
 * kernel families and causes to the framework-level cause and fix, each
 * entry quoting the pair bench/advice measured on the GPU. fixes.c asks it
 * for every fix: an entry of the fix's cause (or "*") whose kernels match
 * replaces the generic fix text; an entry of cause "library_kernel" makes a
 * fix of its own from the matched kernels' time. Internal to src/report. */
#ifndef MEMHEAT_REPORT_ADVICE_H
#define MEMHEAT_REPORT_ADVICE_H

#include <stddef.h>

#include "memheat/err.h"

typedef struct mh_advice {
    char family[32];   /* the entry's name: "fp32_gemm_torch" */
    int pytorch;       /* 1: only for a PyTorch program (one of its kernels is ATen's) */
    char cause[24];    /* a fix cause (fixes.h), "*" any fix of the kernels, or "library_kernel" */
    char kernels[400]; /* '|'-separated substrings of the demangled name, "!x" none may hold x; "-" no kernel */
    char pair[48];     /* "pair/figure" of bench/advice/results.json */
    double slow_us, fixed_us; /* the figure measured before and after the change */
    char device[32];   /* where it was measured */
    char title[96];    /* the framework-level cause, for people */
    char text[520];    /* the framework-level fix */
} mh_advice;

typedef struct mh_advice_table {
    mh_advice *v;
    size_t n;
} mh_advice_table;

/* Parses a table (tab-separated, 10 fields a line; '#' lines and blank lines
 * skipped) into t (take: the caller owns it, mh_advice_free). A bad line is
 * MH_ERR_FORMAT, "advice table line N: ...". */
int mh_advice_parse(const char *text, size_t len, mh_advice_table *t, mh_err *err);
/* The table compiled into memheat. */
int mh_advice_builtin(mh_advice_table *t, mh_err *err);
void mh_advice_free(mh_advice_table *t);
/* 1 when the kernel's name (mangled or not) is one the entry names. */
int mh_advice_matches(const mh_advice *a, const char *kernel);
/* The first entry for a fix of `cause` on `kernel` (NULL or "" for copies),
 * in a PyTorch program or not: the first entry of that cause, else the first
 * of "*", else (for another cause) the first of "library_kernel"; NULL when
 * none. */
const mh_advice *mh_advice_find(const mh_advice_table *t, const char *cause, const char *kernel, int pytorch);
/* 1 when the kernel is PyTorch's own (ATen, c10). */
int mh_advice_pytorch_kernel(const char *kernel);

#endif
