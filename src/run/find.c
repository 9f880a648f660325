/* find.c -- finding collector files and programs for the run layer.
 *
 * Collector files (injection libraries, the Oclgrind plugin, the device patch,
 * memheat-bwcal, memheat-campbench) live together: installed in the private
 * library folder (<prefix>/lib/memheat by default; MEMHEAT_PKGLIBDIR_REL is
 * its path relative to the installed memheat's folder, set by the build from
 * the install dirs), in the build tree in build/lib/memheat beside
 * build/memheat. Both are relative to the executable, so an installed tree
 * can be moved. $MEMHEAT_LIB_DIR overrides them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run/run.h"

#ifndef MEMHEAT_PKGLIBDIR_REL
#define MEMHEAT_PKGLIBDIR_REL "../lib/memheat"
#endif

static int is_file(const char *p) {
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

int mh_run_find_file(const mh_run_opts *o, const char *file, char *out, size_t cap, mh_err *err) {
    /* beside memheat, the build tree, the install tree, older layouts */
    static const char *const rel[] = {"", "/lib/memheat", ("/" MEMHEAT_PKGLIBDIR_REL), "/../lib/memheat", "/lib",
                                      "/../lib"};
    const char *env = getenv("MEMHEAT_LIB_DIR");
    if (env && *env) {
        if ((size_t)snprintf(out, cap, "%s/%s", env, file) < cap && is_file(out)) return MH_OK;
    }
    for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
        if ((size_t)snprintf(out, cap, "%s%s/%s", o->self_dir, rel[i], file) >= cap) continue;
        if (is_file(out)) return MH_OK;
    }
    return mh_err_set(err, MH_ERR_DEP, "cannot find %s next to memheat (%s, %s/%s) or in $MEMHEAT_LIB_DIR", file,
                      o->self_dir, o->self_dir, MEMHEAT_PKGLIBDIR_REL);
}

int mh_run_which(const char *name, char *out, size_t cap) {
    if (strchr(name, '/')) {
        if (access(name, X_OK) != 0 || strlen(name) >= cap) return 0;
        memcpy(out, name, strlen(name) + 1);
        return 1;
    }
    const char *path = getenv("PATH");
    if (!path || !*path) path = "/usr/local/bin:/usr/bin:/bin";
    while (*path) {
        const char *colon = strchr(path, ':');
        size_t len = colon ? (size_t)(colon - path) : strlen(path);
        size_t nl = strlen(name);
        if (len > 0 && len + nl + 2 <= cap) {
            memcpy(out, path, len);
            out[len] = '/';
            memcpy(out + len + 1, name, nl + 1);
            if (is_file(out) && access(out, X_OK) == 0) return 1;
        }
        if (!colon) break;
        path = colon + 1;
    }
    return 0;
}
