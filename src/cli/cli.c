/* cli.c -- helpers shared by the memheat commands (src/cli/cli.h). */
#include "cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/datadir.h"

int mh_cli_fail(const char *cmd, int code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "memheat %s: error: ", cmd);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return code;
}

int mh_cli_usage(const char *cmd, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "memheat%s%s: error: ", *cmd ? " " : "", cmd);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, " (see memheat%s%s --help)\n", *cmd ? " " : "", cmd);
    va_end(ap);
    return MH_EXIT_USAGE;
}

int mh_cli_bad_option(const char *cmd, char *const *argv, int c) {
    /* optind is past the word that failed; optopt names a short option */
    const char *word = optind > 0 ? argv[optind - 1] : "";
    char shortopt[3] = {'-', (char)optopt, '\0'};
    const char *name = optopt && strncmp(word, "--", 2) != 0 ? shortopt : word;
    if (c == ':') return mh_cli_usage(cmd, "option %s needs a value", name);
    return mh_cli_usage(cmd, "unknown option %s", name);
}

int mh_cli_exit_code(int status) {
    switch (status) {
    case MH_OK: return MH_EXIT_OK;
    case MH_ERR_ARG: return MH_EXIT_USAGE;
    case MH_ERR_CHILD: return MH_EXIT_CHILD;
    case MH_ERR_TRUNCATED: return MH_EXIT_PARTIAL;
    default: return MH_EXIT_ERROR;
    }
}

int mh_cli_fail_err(const char *cmd, const mh_err *err) {
    return mh_cli_fail(cmd, mh_cli_exit_code(err->code), "%s", err->msg[0] ? err->msg : mh_status_name(err->code));
}

int mh_cli_u64(const char *cmd, const char *opt, const char *val, uint64_t max, uint64_t *out) {
    char *end;
    errno = 0;
    if (!val || !*val || *val == '-') goto bad;
    unsigned long long v = strtoull(val, &end, 0);
    if (errno || *end || v > max) goto bad;
    *out = v;
    return MH_EXIT_OK;
bad:
    return mh_cli_fail(cmd, MH_EXIT_USAGE, "option %s needs a number from 0 to %llu, not '%s'", opt,
                       (unsigned long long)max, val ? val : "");
}

int mh_cli_self_dir(char *out, size_t cap) {
    char buf[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0) return -1;
    buf[n] = '\0';
    char *slash = strrchr(buf, '/');
    if (!slash) return -1;
    *slash = '\0';
    if (strlen(buf) >= cap) return -1;
    memcpy(out, buf, strlen(buf) + 1);
    return 0;
}

int mh_cli_color(FILE *f) {
    const char *nc = getenv("NO_COLOR");
    return isatty(fileno(f)) && !(nc && *nc);
}

int mh_cli_model_dir(char *out, size_t cap) { return mh_data_path("MEMHEAT_MODEL_DIR", "", out, cap); }


void mh_cli_progress(void *ctx, const char *line, int done) {
    (void)ctx;
    fprintf(stderr, "\r\033[Kmemheat: %s%s", line, done ? "\n" : "");
    fflush(stderr);
}
