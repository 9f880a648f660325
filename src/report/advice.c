/* advice.c -- the framework-level advice table (advice.h): parsed from the
 * text compiled in from assets/advice.tsv, searched by fix cause and kernel
 * name. */
#include "report/advice.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/demangle.h"
#include "util/grow.h"

extern const char mh_report_asset_advice_tsv[];
extern const size_t mh_report_asset_advice_tsv_len;

#define FIELDS 10

/* The causes fixes.c names (fixes.h), "*" and the table's own. */
static const char *const causes[] = {"*", "library_kernel", "uncoalesced", "misaligned", "irregular", "hot",
                                     "smem_abuse", "bank_conflict", "atomic_contention", "small_grid",
                                     "latency_bound", "launch_chain", "pageable_copy", "copy_overlap"};

static int known_cause(const char *c) {
    for (size_t i = 0; i < sizeof causes / sizeof *causes; i++)
        if (!strcmp(c, causes[i])) return 1;
    return 0;
}

static int put(char *dst, size_t cap, const char *s, size_t n) {
    if (n >= cap) return -1;
    memcpy(dst, s, n);
    dst[n] = '\0';
    return 0;
}

static int number(const char *s, size_t n, double *out) {
    char b[64];
    if (!n || put(b, sizeof b, s, n)) return -1;
    char *end;
    errno = 0;
    *out = strtod(b, &end);
    return *end || errno || !isfinite(*out) ? -1 : 0;
}

/* One line's fields into a; returns NULL or what is wrong with it. */
static const char *parse_line(const char *s, size_t len, mh_advice *a) {
    const char *f[FIELDS];
    size_t fl[FIELDS], nf = 0, start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i < len && s[i] != '\t') continue;
        if (nf == FIELDS) return "more than 10 tab-separated fields";
        f[nf] = s + start, fl[nf++] = i - start;
        start = i + 1;
    }
    if (nf != FIELDS) return "fewer than 10 tab-separated fields";
    for (size_t i = 0; i < FIELDS; i++)
        if (!fl[i]) return "an empty field";
    memset(a, 0, sizeof *a);
    if (put(a->family, sizeof a->family, f[0], fl[0])) return "family name too long";
    for (const char *p = a->family; *p; p++)
        if (!(islower((unsigned char)*p) || isdigit((unsigned char)*p) || *p == '_'))
            return "family name not [a-z0-9_]";
    if (fl[1] == 7 && !memcmp(f[1], "pytorch", 7)) a->pytorch = 1;
    else if (!(fl[1] == 3 && !memcmp(f[1], "any", 3))) return "framework not 'pytorch' or 'any'";
    if (put(a->cause, sizeof a->cause, f[2], fl[2]) || !known_cause(a->cause)) return "unknown cause";
    if (put(a->kernels, sizeof a->kernels, f[3], fl[3])) return "kernel list too long";
    if (put(a->pair, sizeof a->pair, f[4], fl[4]) || !strchr(a->pair, '/')) return "pair not 'pair/figure'";
    if (number(f[5], fl[5], &a->slow_us) || number(f[6], fl[6], &a->fixed_us)) return "a time not a number";
    if (!(a->slow_us > 0) || a->fixed_us < 0 || a->fixed_us >= a->slow_us)
        return "times not 0 <= fixed < slow (an entry quotes a gain)";
    if (put(a->device, sizeof a->device, f[7], fl[7])) return "device too long";
    if (put(a->title, sizeof a->title, f[8], fl[8])) return "title too long";
    if (put(a->text, sizeof a->text, f[9], fl[9])) return "advice text too long";
    if (!strcmp(a->kernels, "-") && strcmp(a->cause, "pageable_copy") && strcmp(a->cause, "copy_overlap"))
        return "no kernels ('-') but a kernel's cause";
    return NULL;
}

int mh_advice_parse(const char *text, size_t len, mh_advice_table *t, mh_err *err) {
    memset(t, 0, sizeof *t);
    size_t cap = 0, line = 0;
    for (size_t i = 0; i < len;) {
        size_t e = i;
        while (e < len && text[e] != '\n') e++;
        size_t n = e - i;
        if (n && text[i + n - 1] == '\r') n--;
        line++;
        if (n && text[i] != '#') {
            mh_advice *v = mh_grow(t->v, &cap, t->n + 1, sizeof *v, 16);
            if (!v) {
                mh_advice_free(t);
                return mh_err_set(err, MH_ERR_NOMEM, "out of memory reading the advice table");
            }
            t->v = v;
            const char *bad = parse_line(text + i, n, &t->v[t->n]);
            if (bad) {
                mh_advice_free(t);
                return mh_err_set(err, MH_ERR_FORMAT, "advice table line %zu: %s", line, bad);
            }
            t->n++;
        }
        i = e + 1;
    }
    return MH_OK;
}

int mh_advice_builtin(mh_advice_table *t, mh_err *err) {
    return mh_advice_parse(mh_report_asset_advice_tsv, mh_report_asset_advice_tsv_len, t, err);
}

void mh_advice_free(mh_advice_table *t) {
    free(t->v);
    t->v = NULL;
    t->n = 0;
}

/* n bytes of needle in hay, ignoring case */
static int has(const char *hay, const char *needle, size_t n) {
    for (const char *p = hay; *p; p++) {
        size_t k = 0;
        while (k < n && p[k] && tolower((unsigned char)p[k]) == tolower((unsigned char)needle[k])) k++;
        if (k == n) return 1;
    }
    return 0;
}

static int matches_name(const mh_advice *a, const char *name) {
    int any = 0;
    for (const char *p = a->kernels; *p;) {
        const char *e = strchr(p, '|');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n && *p == '!') {
            if (n > 1 && has(name, p + 1, n - 1)) return 0;
        } else if (n && has(name, p, n)) {
            any = 1;
        }
        p += n + (e != NULL);
    }
    return any;
}

/* The entry names the kernel: `name` its demangled name (or the raw one). */
static int matches(const mh_advice *a, const char *kernel, const char *name) {
    if (!strcmp(a->kernels, "-")) return !kernel || !*kernel || *kernel == '(';
    return kernel && *kernel && matches_name(a, name);
}

int mh_advice_matches(const mh_advice *a, const char *kernel) {
    char *d = kernel ? mh_demangle(kernel) : NULL;
    int m = matches(a, kernel, d ? d : kernel);
    free(d);
    return m;
}

const mh_advice *mh_advice_find(const mh_advice_table *t, const char *cause, const char *kernel, int pytorch) {
    /* the entries of the cause first, then those of any fix ("*"), then, for
     * another cause on a kernel a library_kernel entry names, that entry:
     * changing the setting replaces the kernel whatever its fault */
    int lib = !strcmp(cause, "library_kernel");
    char *d = kernel ? mh_demangle(kernel) : NULL; /* once, for every entry */
    const mh_advice *found = NULL;
    for (int pass = 0; pass < (lib ? 1 : 3) && !found; pass++)
        for (size_t i = 0; i < t->n && !found; i++) {
            const mh_advice *a = &t->v[i];
            const char *want = pass == 0 ? cause : pass == 1 ? "*" : "library_kernel";
            if ((!a->pytorch || pytorch) && !strcmp(a->cause, want) && matches(a, kernel, d ? d : kernel)) found = a;
        }
    free(d);
    return found;
}

int mh_advice_pytorch_kernel(const char *kernel) {
    if (!kernel) return 0;
    char *d = mh_demangle(kernel);
    const char *n = d ? d : kernel;
    while (!strncmp(n, "void ", 5)) n += 5;
    int r = !strncmp(n, "at::", 4) || !strncmp(n, "c10::", 5) || strstr(n, " at::native::") ||
            strstr(n, "at_cuda_detail::") || strstr(n, "<at::native::");
    free(d);
    return r;
}
