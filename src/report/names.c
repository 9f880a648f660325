/* names.c -- kernel names for people (names.h): demangled (util/demangle.c)
 * and shortened as Nsight Compute shows them (util/kname.c): the kernel's
 * own name with the template arguments that fit, no return type or
 * parameters; the summary's full_name keeps everything. */
#include "report/names.h"
#include "util/demangle.h"
#include "util/kname.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t mh_names_short(const char *full, char *out, size_t cap) {
    return mh_kname(full, MH_KNAME_SHORT, MH_NAMES_SHORT, out, cap);
}

size_t mh_names_display(const char *name, char *out, size_t cap) {
    return mh_kname(name ? name : "", MH_KNAME_SHORT, MH_NAMES_SHORT, out, cap);
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
