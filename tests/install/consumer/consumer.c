/* consumer.c -- a program of another project using the installed split
 * library (tests/install/install_test.sh builds it with pkg-config and with
 * CMake). It calls every function libmemheat_split exports and runs a small
 * loop: on a GPU machine the loop runs (each iteration handed to the callback
 * exactly once); without a device or without CUDA mh_split_run must say so
 * with MH_ERR_DEP, and the planning parts still work. Exit 0 = OK. */
#include <memheat/split.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAIL(...) (fprintf(stderr, "consumer: " __VA_ARGS__), fputc('\n', stderr), exit(1))

static int count_iters(const mh_split_launch *l, void *user, mh_err *err) {
    (void)err;
    __atomic_fetch_add((size_t *)user, l->end - l->begin, __ATOMIC_RELAXED);
    return MH_OK;
}

static void check_run(int rc, size_t seen, size_t n, const mh_err *e, const char *what) {
    if (rc == MH_OK && seen != n) FAIL("%s: %zu of %zu iterations reached the callback", what, seen, n);
    if (rc != MH_OK && rc != MH_ERR_DEP) FAIL("%s: %s: %s", what, mh_status_name(rc), e->msg);
    if (rc == MH_ERR_DEP && strstr(e->msg, "split") == NULL) FAIL("%s: unexpected message '%s'", what, e->msg);
    printf("%s: %s%s%s\n", what, rc == MH_OK ? "ran" : "unavailable: ", rc == MH_OK ? "" : e->msg, "");
}

int main(void) {
    mh_split_opts o;
    memset(&o, 0xff, sizeof o);
    mh_split_opts_init(&o);
    if (o.nstreams != 0 || o.split_iters != 0 || o.devices != NULL) FAIL("mh_split_opts_init left non-defaults");
    if (mh_split_ideal_speedup(0.0, 1.0, 1.0, 1.0) != 3.0) FAIL("ideal speedup of three equal stages is not 3");
    if (strcmp(mh_split_kind_name(MH_SPLIT_COPY_BOUND), mh_split_kind_name(MH_SPLIT_COMPUTE_BOUND)) == 0)
        FAIL("kind names are not distinct");

    mh_err e;
    mh_err_clear(&e);
    if (mh_err_set(&e, MH_ERR_ARG, "bad %d", 7) != MH_ERR_ARG) FAIL("mh_err_set");
    if (mh_err_wrap(&e, "outer") != MH_ERR_ARG || strcmp(e.msg, "outer: bad 7") != 0) FAIL("mh_err_wrap: '%s'", e.msg);
    if (mh_err_wrap_rc(&e, MH_ERR_IO, "top") != MH_ERR_IO) FAIL("mh_err_wrap_rc");
    if (strcmp(mh_status_name(MH_OK), mh_status_name(MH_ERR_DEP)) == 0) FAIL("mh_status_name");
    mh_err_clear(&e);

    enum { N = 4096 };
    float *in = malloc(N * sizeof *in), *out = calloc(N, sizeof *out);
    if (!in || !out) FAIL("out of memory");
    for (size_t i = 0; i < N; i++) in[i] = (float)i;
    mh_split_buf bufs[2] = {{in, sizeof(float), MH_SPLIT_IN}, {out, sizeof(float), MH_SPLIT_OUT}};
    size_t seen = 0;
    mh_split_loop loop = {N, bufs, 2, NULL, 0, count_iters, &seen};
    o.split_iters = 512;
    mh_split_report rep;
    /* run first, then read `seen`: as arguments of one call their order is unspecified */
    int rc = mh_split_run(&loop, &o, &rep, &e);
    check_run(rc, seen, N, &e, "mh_split_run");

    mh_split_ctx *ctx = NULL;
    rc = mh_split_ctx_open(&ctx, &e);
    if (rc == MH_OK) {
        seen = 0;
        rc = mh_split_run_ctx(ctx, &loop, &o, &rep, &e);
        check_run(rc, seen, N, &e, "mh_split_run_ctx");
    } else {
        check_run(rc, 0, N, &e, "mh_split_ctx_open");
    }
    mh_split_ctx_close(ctx);
    free(in);
    free(out);
    puts("consumer: ok");
    return 0;
}
