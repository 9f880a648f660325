/* names.c -- kernel names for people (names.h): demangled (util/demangle.c,
 * libstdc++'s Itanium C++ ABI demangler), and a
 * shortening that keeps the kernel's own name readable when its template
 * arguments run to hundreds of characters. */
#include "report/names.h"
#include "util/demangle.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* s with the insides of bracket pairs (open/close) at depth >= 1 collapsed
 * to "...", into out (cap >= strlen(s) + 4). */
static void collapse(const char *s, char open, char close, char *out, size_t cap) {
    size_t n = 0;
    int depth = 0;
    for (; *s && n + 4 < cap; s++) {
        if (*s == open) {
            if (depth++ == 0) {
                out[n++] = open;
                memcpy(out + n, "...", 3);
                n += 3;
            }
            continue;
        }
        if (*s == close && depth > 0) {
            if (--depth == 0) out[n++] = close;
            continue;
        }
        if (depth == 0) out[n++] = *s;
    }
    out[n] = 0;
}

size_t mh_names_short(const char *full, char *out, size_t cap) {
    if (!cap) return 0;
    size_t len = strlen(full);
    if (len <= MH_NAMES_SHORT) {
        snprintf(out, cap, "%s", full);
        return strlen(out);
    }
    char *a = malloc(len + 8), *b = malloc(len + 8);
    if (!a || !b) {
        free(a);
        free(b);
        snprintf(out, cap, "%.*s...", (int)(cap > 4 ? cap - 4 : 0), full);
        return strlen(out);
    }
    collapse(full, '<', '>', a, len + 8);
    if (strlen(a) > MH_NAMES_SHORT) {
        collapse(a, '(', ')', b, len + 8);
        snprintf(a, len + 8, "%s", b);
    }
    if (strlen(a) > MH_NAMES_SHORT) snprintf(out, cap, "%.*s...", MH_NAMES_SHORT - 3, a);
    else snprintf(out, cap, "%s", a);
    free(a);
    free(b);
    return strlen(out);
}

size_t mh_names_display(const char *name, char *out, size_t cap) {
    char *d = mh_demangle(name);
    size_t n = mh_names_short(d ? d : name ? name : "", out, cap);
    free(d);
    return n;
}

static void annotate_array(json_t *arr) {
    size_t i;
    json_t *o;
    json_array_foreach(arr, i, o) {
        const char *name = json_string_value(json_object_get(o, "name"));
        if (!name) continue;
        char *d = mh_demangle(name);
        const char *full = d ? d : name;
        size_t n = strlen(full) + 8;
        char *s = malloc(n);
        if (s) {
            mh_names_short(full, s, n);
            json_object_set_new(o, "short_name", json_string(s));
        }
        json_object_set_new(o, "full_name", json_string(full));
        free(s);
        free(d);
    }
}

void mh_names_annotate(json_t *summary) {
    annotate_array(json_object_get(summary, "launches"));
    annotate_array(json_object_get(summary, "kernels"));
    annotate_array(json_object_get(summary, "launch_counts"));
}
