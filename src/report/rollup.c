/* rollup.c -- a profile's findings, launches and GPU time rolled up by the
 * user's code (call site, NVTX path) or by kernel, from the profile summary
 * (store's JSON): what `memheat analyze --group-by` prints and the report's
 * "By your code" section shows. The grouping itself is analyses/group.c. */
#include <stdlib.h>
#include <string.h>

#include "render/summary.h"
#include "report/rollup.h"
#include "util/demangle.h"

static const json_t *site_json(const json_t *root, int64_t id) {
    size_t i;
    json_t *s;
    json_array_foreach(json_object_get(root, "sites"), i, s) if (mh_sum_int(s, "id") == id) return s;
    return NULL;
}

/* The group of a site (NULL: none recorded), as memheat analyze TRACE names it. */
static void site_group(const json_t *s, int by, const char **key, const char **label) {
    if (by == MH_GROUP_SITE) {
        *key = s ? mh_sum_str(s, "label", "") : "";
        *label = s ? *key : "(no call site recorded)";
    } else {
        *key = s ? mh_sum_str(s, "nvtx", "") : "";
        *label = **key ? *key : "(outside NVTX ranges)";
    }
}

mh_groups *mh_rollup_profile(const json_t *root, int by) {
    mh_groups *g = mh_groups_new(by);
    if (!g) return NULL;
    size_t i, j;
    json_t *x, *y;
    const char *key, *label;
    json_array_foreach(json_object_get(root, "findings"), i, x) {
        if (!strcmp(mh_sum_str(x, "kind", ""), "coalesced")) continue;
        const json_t *l = mh_sum_launch(root, mh_sum_int(x, "launch"));
        const char *kernel = mh_sum_kernel(root, mh_sum_int(x, "launch"));
        if (by == MH_GROUP_KERNEL) key = label = kernel;
        else site_group(l && json_is_integer(json_object_get(l, "site")) ? site_json(root, mh_sum_int(l, "site")) : NULL, by,
                        &key, &label);
        mh_groups_add_finding(g, key, label, mh_sum_str(x, "kind", "?"), mh_sum_num(x, "cost"), kernel, mh_sum_str(x, "object_label", ""),
                              mh_sum_str(x, "evidence", ""), mh_sum_str(x, "advice", ""));
    }
    json_array_foreach(json_object_get(root, "launches"), i, x) {
        if (by == MH_GROUP_KERNEL) key = label = mh_sum_str(x, "display_name", mh_sum_str(x, "name", "?"));
        else site_group(json_is_integer(json_object_get(x, "site")) ? site_json(root, mh_sum_int(x, "site")) : NULL, by, &key,
                        &label);
        mh_groups_add_traced(g, key, label);
    }
    /* every launch at its site (traced or not) */
    if (by != MH_GROUP_KERNEL)
        json_array_foreach(json_object_get(root, "site_configs"), j, y) {
            site_group(site_json(root, mh_sum_int(y, "site")), by, &key, &label);
            mh_groups_add_time(g, key, label, (double)mh_sum_int(y, "launches"), 0, 0);
        }
    json_array_foreach(json_object_get(root, "kernels"), i, x) {
        const char *name = mh_sum_str(x, "name", "");
        double t = mh_sum_num(x, "total_ns"), bw = mh_sum_num(x, "bandwidth_Bps"), n = (double)mh_sum_int(x, "count");
        double bytes = bw > 0 ? bw * t / 1e9 : 0;
        if (by == MH_GROUP_KERNEL) {
            char *dm = mh_demangle(name);
            mh_groups_add_time(g, dm ? dm : name, dm ? dm : name, n, t, bytes);
            free(dm);
            continue;
        }
        double at_sites = 0;
        json_array_foreach(json_object_get(root, "site_configs"), j, y) if (!strcmp(mh_sum_str(y, "name", ""), name))
            at_sites += (double)mh_sum_int(y, "launches");
        if (at_sites <= 0) { /* launched from no recorded site */
            site_group(NULL, by, &key, &label);
            mh_groups_add_time(g, key, label, n, t, bytes);
            continue;
        }
        json_array_foreach(json_object_get(root, "site_configs"), j, y) {
            if (strcmp(mh_sum_str(y, "name", ""), name) != 0) continue;
            double share = (double)mh_sum_int(y, "launches") / at_sites;
            site_group(site_json(root, mh_sum_int(y, "site")), by, &key, &label);
            mh_groups_add_time(g, key, label, 0, share * t, share * bytes);
        }
    }
    mh_groups_finish(g);
    return g;
}
