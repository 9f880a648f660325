/* cmd.c -- one command to spawn: the argv (a wrapper such as oclgrind, then
 * the program) and the extra environment that loads the collectors. Back ends
 * add to it in their prepare step; spawn.c runs it. Strings are owned. */
#include <stdlib.h>
#include <string.h>

#include "run/run.h"
#include "util/grow.h"

void mh_run_cmd_init(mh_run_cmd *c) { memset(c, 0, sizeof *c); }

void mh_run_cmd_free(mh_run_cmd *c) {
    for (size_t i = 0; i < c->argc; i++) free(c->argv[i]);
    for (size_t i = 0; i < c->nenv; i++) free(c->env[i]);
    free(c->argv);
    free(c->env);
    mh_run_cmd_init(c);
}

/* Room for one more entry plus the NULL terminator. */
static int grow(char ***v, size_t n, size_t *cap) {
    char **q = mh_grow(*v, cap, n + 2, sizeof *q, 8);
    if (!q) return -1;
    *v = q;
    return 0;
}

int mh_run_cmd_arg(mh_run_cmd *c, const char *arg, mh_err *err) {
    char *s = strdup(arg);
    if (!s || grow(&c->argv, c->argc, &c->argv_cap)) {
        free(s);
        return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    }
    c->argv[c->argc++] = s;
    c->argv[c->argc] = NULL;
    return MH_OK;
}

int mh_run_cmd_args(mh_run_cmd *c, char *const *argv, mh_err *err) {
    for (size_t i = 0; argv && argv[i]; i++) {
        int rc = mh_run_cmd_arg(c, argv[i], err);
        if (rc) return rc;
    }
    return MH_OK;
}

static long find_key(const mh_run_cmd *c, const char *key) {
    size_t kl = strlen(key);
    for (size_t i = 0; i < c->nenv; i++)
        if (strncmp(c->env[i], key, kl) == 0 && c->env[i][kl] == '=') return (long)i;
    return -1;
}

int mh_run_cmd_env(mh_run_cmd *c, const char *key, const char *value, mh_err *err) {
    size_t kl = strlen(key), vl = strlen(value);
    char *s = malloc(kl + vl + 2);
    if (!s) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    memcpy(s, key, kl);
    s[kl] = '=';
    memcpy(s + kl + 1, value, vl + 1);
    long at = find_key(c, key);
    if (at >= 0) {
        free(c->env[at]);
        c->env[at] = s;
        return MH_OK;
    }
    if (grow(&c->env, c->nenv, &c->env_cap)) {
        free(s);
        return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    }
    c->env[c->nenv++] = s;
    c->env[c->nenv] = NULL;
    return MH_OK;
}

const char *mh_run_cmd_getenv(const mh_run_cmd *c, const char *key) {
    long at = find_key(c, key);
    return at < 0 ? NULL : c->env[at] + strlen(key) + 1;
}
