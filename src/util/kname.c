/* kname.c -- kernel names shortened the way Nsight Compute/Systems show them
 * (kname.h). A demangled name is `[return type ]qualified::name[<args>](params)
 * [qualifiers]`; brackets ( ) < > [ ] { } nest, and a lambda's
 * `{lambda(int)#1}` or `(anonymous namespace)::` sit inside the name, so
 * only top-level brackets are cut at. */
#include "util/kname.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/demangle.h"

static int opener(char c) { return c == '(' || c == '<' || c == '[' || c == '{'; }
static int closer(char c) { return c == ')' || c == '>' || c == ']' || c == '}'; }

/* The top-level groups of s[0, n): *pstart = the final top-level '(' whose
 * group ends the text (the parameter list; n when none). */
static size_t params_at(const char *s, size_t n) {
    size_t end = n;
    while (end > 0 && s[end - 1] != ')') end--; /* " const", " &&" after the parameters */
    if (!end) return n;
    int depth = 0;
    for (size_t i = end; i-- > 0;) {
        if (closer(s[i])) depth++;
        else if (opener(s[i]) && --depth == 0) return s[i] == '(' ? i : n;
    }
    return n;
}

/* After the return type: the last top-level space before the name (a
 * demangled function name has one only after its return type). */
static size_t name_start(const char *s, size_t n) {
    int depth = 0;
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        if (opener(s[i])) depth++;
        else if (closer(s[i]) && depth > 0) depth--;
        else if (s[i] == ' ' && depth == 0) at = i + 1;
    }
    return at;
}

typedef struct buf {
    char *s;
    size_t n, cap;
} buf;

static void put(buf *b, const char *s, size_t n) {
    for (size_t i = 0; i < n && b->n + 1 < b->cap; i++) b->s[b->n++] = s[i];
    b->s[b->n] = 0;
}

/* s[0, n) with every bracket group nested at depth >= 1 inside the
 * template arguments written as <…> / (…). */
static void put_collapsed(buf *b, const char *s, size_t n) {
    int depth = 0;
    for (size_t i = 0; i < n; i++) {
        if (opener(s[i])) {
            if (depth++ == 0) {
                put(b, &s[i], 1);
                put(b, MH_KNAME_ELLIPSIS, strlen(MH_KNAME_ELLIPSIS));
            }
            continue;
        }
        if (closer(s[i]) && depth > 0) {
            if (--depth == 0) put(b, &s[i], 1);
            continue;
        }
        if (!depth) put(b, &s[i], 1);
    }
}

size_t mh_kname_cols(const char *s) {
    size_t c = 0;
    for (; *s; s++) c += ((unsigned char)*s & 0xC0) != 0x80;
    return c;
}

/* Cuts out (a UTF-8 text) to width columns, the last one an ellipsis. */
static void cut(char *out, size_t width) {
    if (!width || mh_kname_cols(out) <= width) return;
    size_t c = 0, i = 0;
    for (; out[i]; i++) {
        if (((unsigned char)out[i] & 0xC0) != 0x80 && ++c == width) break;
    }
    memcpy(out + i, MH_KNAME_ELLIPSIS, sizeof MH_KNAME_ELLIPSIS);
}

size_t mh_kname(const char *name, int level, size_t width, char *out, size_t cap) {
    if (!cap) return 0;
    out[0] = 0;
    if (!name) return 0;
    char *d = mh_demangle(name);
    const char *s = d ? d : name;
    size_t n = strlen(s);
    size_t p = params_at(s, n), a = name_start(s, p);
    const char *nm = s + a;
    size_t nn = p - a;
    buf b = {out, 0, cap};
    if (level >= MH_KNAME_WHOLE) {
        put(&b, nm, n - a); /* the whole name asked for */
    } else {
        /* the name's own template arguments: its last top-level <...> */
        size_t lt = nn;
        if (nn && nm[nn - 1] == '>') {
            int depth = 0;
            for (size_t i = nn; i-- > 0;) {
                if (closer(nm[i])) depth++;
                else if (opener(nm[i]) && --depth == 0) {
                    lt = nm[i] == '<' ? i : nn;
                    break;
                }
            }
        }
        put(&b, nm, lt);
        if (lt < nn) {
            /* the arguments, split at top-level commas */
            const char *args = nm + lt + 1;
            size_t na = nn - lt - 2;
            put(&b, "<", 1);
            size_t start = 0, kept = 0;
            int depth = 0, elided = 0;
            for (size_t i = 0; i <= na && !elided; i++) {
                if (i < na && opener(args[i])) depth++;
                else if (i < na && closer(args[i])) depth--;
                if (i < na && !(args[i] == ',' && depth == 0)) continue;
                const char *arg = args + start;
                size_t al = i - start;
                while (al && *arg == ' ') arg++, al--;
                /* one argument: whole when short, nested groups elided, else the rest goes */
                char tmp[512];
                buf t = {tmp, 0, sizeof tmp};
                int nested = 0;
                for (size_t k = 0; k < al && !nested; k++) nested = opener(arg[k]);
                if (!nested) put(&t, arg, al);              /* a number, a type or a plain name: whole */
                else if (level >= MH_KNAME_ARGS) put_collapsed(&t, arg, al); /* its inner groups elided */
                if (level < MH_KNAME_ARGS && width && mh_kname_cols(out) + mh_kname_cols(tmp) + 3 > width)
                    t.n = 0, tmp[0] = 0;                    /* ncu's short form: what does not fit goes */
                if (!t.n) {
                    if (kept) put(&b, ", ", 2);
                    put(&b, MH_KNAME_ELLIPSIS, strlen(MH_KNAME_ELLIPSIS));
                    elided = 1;
                    break;
                }
                if (kept++) put(&b, ", ", 2);
                put(&b, tmp, t.n);
                start = i + 1;
            }
            put(&b, ">", 1);
        }
    }
    free(d);
    cut(out, width);
    return strlen(out);
}

/* Cuts out (a UTF-8 text) to width columns by its middle: its head, an
 * ellipsis, its tail (where names of one template differ most). */
static void cut_middle(char *out, size_t cap, size_t width) {
    size_t cols = mh_kname_cols(out);
    if (!width || cols <= width || width < 3) return;
    size_t head = (width - 1) / 2, tail = width - 1 - head;
    size_t h = 0, t = 0, c = 0;
    for (size_t i = 0; out[i]; i++) {
        if (((unsigned char)out[i] & 0xC0) == 0x80) continue;
        if (c == head) h = i;
        if (c == cols - tail) t = i;
        c++;
    }
    size_t tl = strlen(out + t), el = strlen(MH_KNAME_ELLIPSIS);
    if (h + el + tl + 1 > cap) return;
    memmove(out + h + el, out + t, tl + 1);
    memcpy(out + h, MH_KNAME_ELLIPSIS, el);
}

#define WHOLE_CAP 20000 /* above util/demangle.h's MH_DEMANGLE_MAX */

int mh_kname_unique(const char *const *names, size_t n, size_t width, size_t long_width, char *shown, size_t stride,
                    size_t cap) {
    assert(cap > 16 && cap <= stride);
    for (size_t i = 0; i < n; i++) mh_kname(names[i], MH_KNAME_SHORT, width, shown + i * stride, cap);
    unsigned char *bump = calloc(n ? n : 1, 1);
    char *whole = malloc(WHOLE_CAP); /* a whole name, cut in the middle before it is cut to cap */
    if (!bump || !whole) {
        free(bump);
        free(whole);
        return -1;
    }
    for (int level = MH_KNAME_ARGS; level <= MH_KNAME_WHOLE + 1; level++) {
        int clash = 0;
        for (size_t i = 0; i < n; i++) { /* the rows that clash, all found before any changes */
            bump[i] = 0;
            for (size_t j = 0; j < n && !bump[i]; j++)
                bump[i] = j != i && !strcmp(shown + i * stride, shown + j * stride) &&
                          strcmp(names[i] ? names[i] : "", names[j] ? names[j] : "");
            clash |= bump[i];
        }
        for (size_t i = 0; i < n; i++) {
            if (!bump[i]) continue;
            char *o = shown + i * stride;
            if (level <= MH_KNAME_WHOLE) {
                mh_kname(names[i], level, 0, whole, WHOLE_CAP);
                cut_middle(whole, WHOLE_CAP, long_width);
                snprintf(o, cap, "%s", whole);
            } else { /* the same text for two names: numbered by the name's first row, in the width */
                size_t first = i;
                for (size_t j = 0; j < i && first == i; j++)
                    if (!strcmp(names[i] ? names[i] : "", names[j] ? names[j] : "")) first = j;
                char num[16];
                int k = snprintf(num, sizeof num, " #%u", (unsigned)((first + 1) % 1000000000u));
                mh_kname(names[i], MH_KNAME_WHOLE, 0, whole, WHOLE_CAP);
                if (long_width > (size_t)k + 3) cut_middle(whole, WHOLE_CAP, long_width - (size_t)k);
                snprintf(o, cap, "%s", whole);
                size_t l = strlen(o), at = l + (size_t)k < cap ? l : cap - 1 - (size_t)k;
                memcpy(o + at, num, (size_t)k + 1);
            }
        }
        if (!clash) break;
    }
    free(bump);
    free(whole);
    return 0;
}

size_t mh_kname_label(const char *label, size_t width, char *out, size_t cap) {
    if (!cap) return 0;
    out[0] = 0;
    if (!label) return 0;
    /* "arg N: TYPE" with an optional " (...)" tail of the collector's: the type shortened */
    const char *colon = strncmp(label, "arg ", 4) == 0 ? strstr(label, ": ") : NULL;
    size_t n = strlen(label), tail = n;
    if (colon && n > 1 && label[n - 1] == ')') { /* the last top-level " (...)" is the field or the name */
        int depth = 0;
        for (size_t i = n; i-- > (size_t)(colon - label);) {
            if (label[i] == ')') depth++;
            else if (label[i] == '(' && --depth == 0) {
                if (i > 0 && label[i - 1] == ' ') tail = i - 1;
                break;
            }
        }
    }
    if (!colon || mh_kname_cols(label) <= width) {
        snprintf(out, cap, "%s", label);
        cut(out, width);
        return strlen(out);
    }
    size_t head = (size_t)(colon - label) + 2;
    char *type = malloc(tail - head + 1);
    if (!type) {
        snprintf(out, cap, "%s", label);
        cut(out, width);
        return strlen(out);
    }
    memcpy(type, label + head, tail - head);
    type[tail - head] = 0;
    /* a type, not a function: every bracket group inside it elided, then cut */
    char st[256];
    buf b = {st, 0, sizeof st};
    put_collapsed(&b, type, strlen(type));
    cut(st, 48);
    free(type);
    snprintf(out, cap, "%.*s%s%s", (int)head, label, st, label + tail);
    return strlen(out);
}
