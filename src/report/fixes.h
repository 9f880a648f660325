/* fixes.h -- "what do I fix first?", computed once (fixes.c): every cause
 * memheat names -- a pattern finding, a small grid, a latency-bound kernel,
 * a launch-bound chain, pageable or serialised copies -- folded across
 * launches and configurations into one fix per (kernel, cause, object), each
 * with its estimated saving in time taken from untraced times only, never
 * above the kernel's (or the copies') own time, ranked by that saving. The
 * model is docs/report.md's "Estimated saving". Shown by the report (html.c
 * puts them in the page data), `memheat analyze` on a profile, `memheat
 * run`'s summary and `memheat diff` (resolved / new). Internal to memheat
 * (src/report and src/cli). */
#ifndef MEMHEAT_REPORT_FIXES_H
#define MEMHEAT_REPORT_FIXES_H

#include <jansson.h>
#include <stddef.h>

#include "memheat/err.h"
#include "report/advice.h"
#include "store/store.h"

/* Calibration of the saving model (docs/report.md; measured on an H200 by
 * bench/fixpairs, 2026-11-28). */
#define MH_FIX_NEAR 0.60          /* a kernel runs near its busiest pipe from this share of its time on */
#define MH_FIX_STORE_LINES 0.28   /* partial-line stores an SM hands to L2 per clock (transpose_slow) */
#define MH_FIX_DRAM_FRAC 0.55     /* share of the theoretical DRAM bandwidth a kernel reaches */
#define MH_FIX_ATOM_CYCLES 1.45   /* SM clocks per step of a line's atomics at L2 (bench/atomics: one address) */
#define MH_FIX_LOW_WARPS 16       /* latency-bound without counters: at most this many warps resident per SM */
#define MH_FIX_CHAIN_GAP_NS 20000 /* launches of a chain follow each other within this gap */
#define MH_FIX_PINNED_BPS 20e9    /* the least a pinned host copy reaches (PCIe gen4 x16 and later) */
#define MH_FIX_COPY_MIN 1048576   /* copies judged for pageable speed from this size on */

typedef struct mh_fix {
    const char *cause;      /* "uncoalesced", "misaligned", "irregular", "hot", "smem_abuse", "bank_conflict",
                               "small_grid", "latency_bound", "launch_chain", "pageable_copy", "copy_overlap",
                               "library_kernel" (advice.h: a kernel a framework setting replaces), or
                               a finding kind no family names (a cause added later: its kind) */
    const char *title;      /* for people: "Uncoalesced access (thread-to-index mapping)" */
    char kinds[96];         /* finding kinds folded ("strided+false_sharing"), the verdict, ... */
    char *kernel;           /* the kernel's name as the profile keys it (mangled); the chain's first kernel */
    char *kernels;          /* launch_chain: the chain's names, " + " between them; else NULL */
    char *object;           /* object label, "" when none */
    char space[12];         /* "global", "shared", "" */
    char where[300];        /* "file:line" of the costliest finding, "" */
    char pc[24];            /* its pc, "" */
    long long launch;       /* a traced launch that shows it (the costliest), -1 */
    long long finding;      /* the costliest finding's id, -1 */
    long long *findings;    /* ids of every finding folded in */
    size_t nfindings;
    size_t launches;        /* traced launches (chains: instances; copies: copies) it was seen in */
    size_t configs;         /* launch configurations */
    double cost, cost_min, cost_max; /* sum, and the spread over the launches (pattern findings) */
    double saving_ns;       /* estimated time saved; NAN when no clean time is known */
    double base_ns;         /* the kernel's (or copies') clean time the saving is a part of */
    double part_max_ns;     /* small grid, latency: the saving of the configuration that saves most */
    double share_min, share_max; /* the per-configuration share, spread */
    double bytes;           /* copies: their bytes */
    char model[400];        /* how the saving was computed (the report's hover) */
    char fix[520];          /* what to change, in the program's language (or the framework's: advice.h) */
    char advice[32];        /* the advice table's entry that said it, "" none */
    char site[320];         /* the user's call site (the profile's site label: "train.py:34 `code` -> scope"), "" */
    size_t nsites;          /* call sites in the user's code its kernels were launched from (0: none recorded) */
    char note[200];         /* e.g. why there is no saving */
} mh_fix;

typedef struct mh_fixes {
    mh_fix *v;              /* ranked: saving first (NAN last), then cost */
    size_t n;
    double kernel_ns;       /* clean kernel time of the run (all kernels) */
    double copy_ns;         /* host<->device copy time */
    int opencl;             /* the fixes speak OpenCL */
    size_t partial;         /* launches whose shared memory was only partly seen (no shared finding) */
    mh_advice_table advice; /* the advice table: the titles of the library_kernel fixes point into it */
} mh_fixes;

/* The fixes of a profile: root = its summary (mh_db_read_summary), db the
 * profile (heat rows are read from it). Returns MH_OK, MH_ERR_NOMEM, or a
 * read error. */
int mh_fixes_compute(mh_db *db, const json_t *root, mh_fixes *out, mh_err *err);
void mh_fixes_free(mh_fixes *f);
/* A time for people: "1.05 ms", "88.2 us", "-" for NAN. */
void mh_fix_fmt_ns(double ns, char *b, size_t cap);
/* The kernel names of the first n fixes as a table shows them: each one's
 * short form in `width` columns, names that would print alike lengthened
 * (util/kname.h's mh_kname_unique), copies as they are; n texts of `cap`
 * bytes, `stride` apart. MH_OK or MH_ERR_NOMEM. */
int mh_fixes_short_names(const mh_fixes *f, size_t n, size_t width, char *shown, size_t stride, size_t cap);
/* Every fix as a JSON array (new reference, NULL out of memory), the shape
 * of docs/report.md; kernel_short as mh_fixes_short_names gives it. */
json_t *mh_fixes_json(const mh_fixes *f);

#endif
