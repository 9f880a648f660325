/* sig.c -- splits the parameter list of a demangled C++ name (sig.h).
 *
 * The list is the last top-level "(...)" of the name: scanning back from the
 * closing parenthesis at the end skips templates, function-pointer types and
 * "(anonymous namespace)" qualifiers inside it by counting parentheses. The
 * list is then cut at commas outside (), <> and [], so "void (*)(int, int)"
 * and "Pair<int, float>" stay one parameter each. */
#include "util/sig.h"

#include <string.h>

/* The list's contents [*lo, *hi) of display; 0 when there is none. */
static int param_list(const char *display, size_t *lo, size_t *hi) {
    if (!display) return 0;
    size_t n = strlen(display);
    while (n > 0 && display[n - 1] == ' ') n--;
    /* a const member function or a clone suffix does not occur for kernels */
    if (n == 0 || display[n - 1] != ')') return 0;
    size_t close = n - 1;
    int depth = 0;
    for (size_t i = close + 1; i-- > 0;) {
        if (display[i] == ')') depth++;
        else if (display[i] == '(') {
            if (--depth == 0) {
                if (i == 0) return 0; /* "(...)" alone is no function */
                *lo = i + 1;
                *hi = close;
                return 1;
            }
        }
    }
    return 0;
}

/* Counts the parameters in [lo, hi); parameter `want` (trimmed) goes to [*wa, *wb). */
static int split(const char *s, size_t lo, size_t hi, unsigned want, size_t *wa, size_t *wb) {
    int count = 0;
    int paren = 0, angle = 0, square = 0;
    size_t start = lo;
    for (size_t i = lo; i <= hi; i++) {
        char c = i < hi ? s[i] : ',';
        if (c == '(') paren++;
        else if (c == ')') paren--;
        else if (c == '<') angle++;
        else if (c == '>' && angle > 0) angle--;
        else if (c == '[') square++;
        else if (c == ']') square--;
        else if (c == ',' && paren == 0 && angle == 0 && square == 0) {
            size_t a = start, b = i;
            while (a < b && s[a] == ' ') a++;
            while (b > a && s[b - 1] == ' ') b--;
            if (i == hi && a == b && count == 0) return 0; /* "()" */
            if (i == hi && count == 0 && b - a == 4 && !strncmp(s + a, "void", 4)) return 0; /* "(void)" */
            if ((unsigned)count == want) {
                *wa = a;
                *wb = b;
            }
            count++;
            start = i + 1;
        }
    }
    return count;
}

int mh_sig_count(const char *display) {
    size_t lo, hi, a, b;
    if (!param_list(display, &lo, &hi)) return -1;
    return split(display, lo, hi, (unsigned)-1, &a, &b);
}

int mh_sig_param(const char *display, unsigned index, char *buf, size_t cap) {
    if (cap) buf[0] = '\0';
    size_t lo, hi, a = 0, b = 0;
    if (!param_list(display, &lo, &hi)) return 0;
    int n = split(display, lo, hi, index, &a, &b);
    if (n < 0 || index >= (unsigned)n) return 0;
    if (cap) {
        size_t k = b - a < cap - 1 ? b - a : cap - 1;
        memcpy(buf, display + a, k);
        buf[k] = '\0';
    }
    return 1;
}
