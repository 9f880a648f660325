/* test_err.c -- the mh_err helpers: an error is never turned into MH_OK, with
 * or without an mh_err to fill (issue 19 item 4), and wrapping keeps the
 * message and its code. */
#include <string.h>

#include "memheat/err.h"
#include "../mh_test.h"

/* A callee failing with `code` after filling err, and its caller wrapping it
 * the way the code base does: `if (rc) return mh_err_wrap(err, ...)`. */
static int callee(int code, mh_err *err) { return mh_err_set(err, code, "disk full"); }
static int caller(int code, mh_err *err) {
    int rc = callee(code, err);
    if (rc) return mh_err_wrap(err, "writing %s", "x.mht");
    return MH_OK;
}
static int caller_rc(int code, mh_err *err) {
    int rc = callee(code, err);
    if (rc) return mh_err_wrap_rc(err, rc, "writing %s", "x.mht");
    return MH_OK;
}

static void test_set(void) {
    mh_err e;
    CHECK_EQ_U(mh_err_set(&e, MH_ERR_IO, "a %d", 7), MH_ERR_IO);
    CHECK_EQ_U(e.code, MH_ERR_IO);
    CHECK(strcmp(e.msg, "a 7") == 0);
    CHECK_EQ_U(mh_err_set(NULL, MH_ERR_CORRUPT, "b"), MH_ERR_CORRUPT);
    mh_err_clear(&e);
    CHECK_EQ_U(e.code, MH_OK);
    CHECK(e.msg[0] == '\0');
    mh_err_clear(NULL);
}

static void test_wrap_with_err(void) {
    mh_err e;
    mh_err_clear(&e);
    CHECK_EQ_U(caller(MH_ERR_IO, &e), MH_ERR_IO);
    CHECK_EQ_U(e.code, MH_ERR_IO);
    CHECK(strcmp(e.msg, "writing x.mht: disk full") == 0);
    mh_err_clear(&e);
    CHECK_EQ_U(caller_rc(MH_ERR_FORMAT, &e), MH_ERR_FORMAT);
    CHECK_EQ_U(e.code, MH_ERR_FORMAT);
    CHECK(strcmp(e.msg, "writing x.mht: disk full") == 0);
    CHECK_EQ_U(caller(MH_OK, &e), MH_OK);
}

/* The old mh_err_wrap returned MH_OK for a NULL err: a failed import reported success. */
static void test_wrap_null_err(void) {
    CHECK(caller(MH_ERR_IO, NULL) != MH_OK);
    CHECK_EQ_U(mh_err_wrap(NULL, "ctx"), MH_ERR_INTERNAL);
    CHECK_EQ_U(caller_rc(MH_ERR_TRUNCATED, NULL), MH_ERR_TRUNCATED);
    CHECK_EQ_U(mh_err_wrap_rc(NULL, MH_ERR_DB, "ctx %d", 1), MH_ERR_DB);
}

/* A callee that failed without filling err: the wrap still reports an error. */
static void test_wrap_unset_err(void) {
    mh_err e;
    mh_err_clear(&e);
    CHECK(mh_err_wrap(&e, "ctx") != MH_OK);
    CHECK(e.code != MH_OK);
    CHECK(strncmp(e.msg, "ctx: ", 5) == 0);
    mh_err_clear(&e);
    CHECK_EQ_U(mh_err_wrap_rc(&e, MH_ERR_NOMEM, "ctx"), MH_ERR_NOMEM);
    CHECK_EQ_U(e.code, MH_ERR_NOMEM);
    mh_err_clear(&e);
    CHECK(mh_err_wrap_rc(&e, MH_OK, "ctx") != MH_OK);
    CHECK(e.code != MH_OK);
}

/* A long context and message are cut, never overflow, and stay terminated. */
static void test_wrap_long(void) {
    mh_err e;
    char big[1024];
    memset(big, 'm', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    mh_err_set(&e, MH_ERR_ARG, "%s", big);
    CHECK_EQ_U(strlen(e.msg), sizeof e.msg - 1);
    CHECK_EQ_U(mh_err_wrap(&e, "%s", big), MH_ERR_ARG);
    CHECK_EQ_U(strlen(e.msg), sizeof e.msg - 1);
    CHECK(e.msg[sizeof e.msg - 3] == ':' && e.msg[sizeof e.msg - 2] == ' ');
    mh_err_set(&e, MH_ERR_ARG, "%s", big);
    CHECK_EQ_U(mh_err_wrap(&e, "short"), MH_ERR_ARG);
    CHECK(strncmp(e.msg, "short: mmm", 10) == 0);
    CHECK_EQ_U(strlen(e.msg), sizeof e.msg - 1);
}

static void test_status_names(void) {
    CHECK(strcmp(mh_status_name(MH_OK), "ok") == 0);
    CHECK(strcmp(mh_status_name(MH_ERR_INTERNAL), "internal") == 0);
    CHECK(strcmp(mh_status_name(-1), "unknown") == 0);
    CHECK(strcmp(mh_status_name(MH_ERR_INTERNAL + 1), "unknown") == 0);
}

MH_TEST_MAIN(T(test_set), T(test_wrap_with_err), T(test_wrap_null_err), T(test_wrap_unset_err), T(test_wrap_long),
             T(test_status_names))
