/* err.h -- memheat's error value.
 *
 * Every fallible function returns an int status (0 = MH_OK) and, when given a
 * non-NULL `mh_err *`, fills it with a one-line message that names the problem.
 * Nothing below the CLI prints: the caller decides what the user sees. */
#ifndef MEMHEAT_ERR_H
#define MEMHEAT_ERR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" { /* installed with the split library (split.h): usable from C++ */
#endif

enum mh_status {
    MH_OK = 0,
    MH_ERR_IO = 1,        /* open/read/write failed (errno in message) */
    MH_ERR_FORMAT = 2,    /* not a memheat file, bad magic, malformed record */
    MH_ERR_VERSION = 3,   /* written by a newer format version */
    MH_ERR_CORRUPT = 4,   /* checksum mismatch / undecodable chunk */
    MH_ERR_TRUNCATED = 5, /* file ends inside a chunk: data up to the cut is valid */
    MH_ERR_NOMEM = 6,
    MH_ERR_ARG = 7,       /* bad argument or option value */
    MH_ERR_EMPTY = 8,     /* zero-length input */
    MH_ERR_DEP = 9,       /* a required component (library, tool, device) is missing */
    MH_ERR_CHILD = 10,    /* the profiled program failed */
    MH_ERR_DB = 11,       /* SQLite error or not a memheat profile */
    MH_ERR_CUDA = 12,
    MH_ERR_INTERNAL = 13
};

typedef struct mh_err {
    int code;
    char msg[512];
} mh_err;

/* Set err (if non-NULL) to code + printf-style message; returns code. */
int mh_err_set(mh_err *err, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Prefix an existing message with context ("reading foo.mht: ...") and
 * return the error code, so `return mh_err_wrap(err, ...)` is an error return.
 * It never returns MH_OK: the code is err->code, or MH_ERR_INTERNAL where
 * there is none to keep (err NULL, or never set). */
int mh_err_wrap(mh_err *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Same with the failing call's status `rc`: returns rc whether or not err is
 * NULL (MH_ERR_INTERNAL when rc is MH_OK, a wrap being an error path). */
int mh_err_wrap_rc(mh_err *err, int rc, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

void mh_err_clear(mh_err *err);
const char *mh_status_name(int code);

#ifdef __cplusplus
}
#endif

#endif
