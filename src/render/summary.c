/* summary.c -- readers of a profile's summary JSON (summary.h). */
#include "render/summary.h"

#include <stdlib.h>
#include <string.h>

uint64_t mh_sum_hex(const json_t *o, const char *key) {
    const char *s = json_string_value(json_object_get(o, key));
    return s ? strtoull(s, NULL, 16) : 0;
}

int64_t mh_sum_int(const json_t *o, const char *key) { return json_integer_value(json_object_get(o, key)); }

double mh_sum_num(const json_t *o, const char *key) { return json_number_value(json_object_get(o, key)); }

const char *mh_sum_str(const json_t *o, const char *key, const char *dflt) {
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : dflt;
}

const json_t *mh_sum_launch(const json_t *root, int64_t id) {
    size_t i;
    json_t *l;
    json_array_foreach(json_object_get(root, "launches"), i, l) if (mh_sum_int(l, "id") == id) return l;
    return NULL;
}

const char *mh_sum_kernel(const json_t *root, int64_t launch) {
    const json_t *l = mh_sum_launch(root, launch);
    return l ? mh_sum_str(l, "display_name", mh_sum_str(l, "name", "?")) : "?";
}

json_t *mh_sum_object_arg(const json_t *root, int64_t obj) {
    size_t i;
    json_t *o, *p;
    json_array_foreach(json_object_get(root, "objects"), i, o) {
        if (mh_sum_int(o, "id") != obj) continue;
        const json_t *a = json_object_get(o, "arg");
        if (!json_is_object(a)) return NULL;
        json_t *r = json_object();
        json_object_set_new(r, "index", json_integer(mh_sum_int(a, "index")));
        json_object_set_new(r, "type", json_string(mh_sum_str(a, "type", "")));
        if (*mh_sum_str(a, "name", "")) json_object_set_new(r, "name", json_string(mh_sum_str(a, "name", "")));
        const json_t *par = json_object_get(a, "allocation");
        if (json_is_integer(par)) {
            json_object_set_new(r, "allocation", json_integer(json_integer_value(par)));
            size_t j;
            json_array_foreach(json_object_get(root, "objects"), j, p) if (mh_sum_int(p, "id") == json_integer_value(par)) {
                json_object_set_new(r, "allocation_label", json_string(mh_sum_str(p, "label", "")));
                json_object_set_new(r, "offset",
                                    json_integer((json_int_t)(mh_sum_hex(o, "base") - mh_sum_hex(p, "base"))));
            }
        }
        const json_t *rg = json_object_get(a, "range");
        if (json_array_size(rg) == 2) json_object_set_new(r, "range", json_deep_copy(rg));
        return r;
    }
    return NULL;
}

uint64_t mh_sum_object_base(const json_t *root, int64_t obj) {
    size_t i;
    json_t *o;
    json_array_foreach(json_object_get(root, "objects"), i, o) if (mh_sum_int(o, "id") == obj) return mh_sum_hex(o, "base");
    return 0;
}
