/* err.c -- formatting of mh_err values (see include/memheat/err.h). */
#include "memheat/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int mh_err_set(mh_err *err, int code, const char *fmt, ...) {
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        err->code = code;
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return code;
}

/* Prefixes err->msg with the formatted context; sets err->code to code. */
static void err_prefix(mh_err *err, int code, const char *fmt, va_list ap) {
    char buf[sizeof err->msg];
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    size_t k = n < 0 ? 0 : (size_t)n;
    if (k > sizeof buf - 3) k = sizeof buf - 3;
    buf[k++] = ':';
    buf[k++] = ' ';
    size_t rest = strnlen(err->msg, sizeof err->msg);
    if (rest > sizeof buf - 1 - k) rest = sizeof buf - 1 - k;
    memcpy(buf + k, err->msg, rest);
    buf[k + rest] = '\0';
    memcpy(err->msg, buf, sizeof buf);
    err->code = code;
}

/* Both wrap functions: prefix the message (when there is an err) and return
 * the code, which is never MH_OK. */
static int wrap_v(mh_err *err, int code, const char *fmt, va_list ap) {
    if (err) err_prefix(err, code, fmt, ap);
    return code;
}

int mh_err_wrap(mh_err *err, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int code = wrap_v(err, err && err->code != MH_OK ? err->code : MH_ERR_INTERNAL, fmt, ap);
    va_end(ap);
    return code;
}

int mh_err_wrap_rc(mh_err *err, int rc, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int code = wrap_v(err, rc != MH_OK ? rc : MH_ERR_INTERNAL, fmt, ap);
    va_end(ap);
    return code;
}

void mh_err_clear(mh_err *err) {
    if (err) {
        err->code = MH_OK;
        err->msg[0] = '\0';
    }
}

const char *mh_status_name(int code) {
    static const char *const names[] = {
        "ok", "io", "format", "version", "corrupt", "truncated", "nomem",
        "arg", "empty", "dependency", "child", "database", "cuda", "internal"};
    if (code < 0 || (size_t)code >= sizeof names / sizeof names[0]) return "unknown";
    return names[code];
}
