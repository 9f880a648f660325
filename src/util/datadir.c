/* datadir.c -- memheat's data folder (util/datadir.h). */
#include "util/datadir.h"

#include <stdio.h>
#include <stdlib.h>

int mh_data_path(const char *override, const char *name, char *out, size_t cap) {
    const char *e = override ? getenv(override) : NULL;
    int n;
    if (e && *e) {
        n = snprintf(out, cap, "%s", e);
    } else {
        const char *sep = name && *name ? "/" : "", *file = name ? name : "";
        if ((e = getenv("MEMHEAT_DATA_DIR")) && *e) n = snprintf(out, cap, "%s%s%s", e, sep, file);
        else if ((e = getenv("XDG_DATA_HOME")) && *e) n = snprintf(out, cap, "%s/memheat%s%s", e, sep, file);
        else if ((e = getenv("HOME")) && *e) n = snprintf(out, cap, "%s/.local/share/memheat%s%s", e, sep, file);
        else return -1;
    }
    return n < 0 || (size_t)n >= cap ? -1 : 0;
}
