/* test_outname.c -- output-name substitutions (src/util/outname.h): pid,
 * host, rank order and default, %q{VAR}, %%, and the errors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../mh_test.h"
#include "util/outname.h"

static void clear_ranks(void) {
    for (int i = 0; i < 4; i++) unsetenv(mh_outname_rank_vars[i]);
}

static void test_basic(void) {
    char out[256], want[256];
    mh_err e;
    clear_ranks();
    CHECK(mh_outname_expand("job_%p", out, sizeof out, &e) == MH_OK);
    snprintf(want, sizeof want, "job_%ld", (long)getpid());
    CHECK(!strcmp(out, want));
    CHECK(mh_outname_expand("plain", out, sizeof out, &e) == MH_OK && !strcmp(out, "plain"));
    CHECK(mh_outname_expand("a%%b", out, sizeof out, &e) == MH_OK && !strcmp(out, "a%b"));
    CHECK(mh_outname_expand("r%r", out, sizeof out, &e) == MH_OK && !strcmp(out, "r0"));
    char host[256];
    CHECK(gethostname(host, sizeof host) == 0);
    char *dot = strchr(host, '.');
    if (dot && dot != host) *dot = '\0';
    CHECK(mh_outname_expand("%h", out, sizeof out, &e) == MH_OK && !strcmp(out, host));
}

static void test_rank_order(void) {
    char out[64];
    mh_err e;
    clear_ranks();
    setenv("SLURM_PROCID", "7", 1);
    CHECK(mh_outname_expand("p_%r", out, sizeof out, &e) == MH_OK && !strcmp(out, "p_7"));
    setenv("PMI_RANK", "5", 1);
    CHECK(mh_outname_expand("p_%r", out, sizeof out, &e) == MH_OK && !strcmp(out, "p_5"));
    setenv("OMPI_COMM_WORLD_RANK", "3", 1);
    CHECK(mh_outname_expand("p_%r", out, sizeof out, &e) == MH_OK && !strcmp(out, "p_3"));
    setenv("RANK", "1", 1);
    CHECK(mh_outname_expand("p_%r", out, sizeof out, &e) == MH_OK && !strcmp(out, "p_1"));
    setenv("RANK", "", 1); /* empty: not set */
    CHECK(mh_outname_expand("p_%r", out, sizeof out, &e) == MH_OK && !strcmp(out, "p_3"));
    clear_ranks();
}

static void test_env(void) {
    char out[64];
    mh_err e;
    setenv("MH_OUTNAME_T", "xy", 1);
    CHECK(mh_outname_expand("a_%q{MH_OUTNAME_T}_b", out, sizeof out, &e) == MH_OK && !strcmp(out, "a_xy_b"));
    unsetenv("MH_OUTNAME_T");
    CHECK(mh_outname_expand("a_%q{MH_OUTNAME_T}", out, sizeof out, &e) == MH_ERR_ARG);
    CHECK(strstr(e.msg, "MH_OUTNAME_T") != NULL);
}

static void test_errors(void) {
    char out[8];
    mh_err e;
    CHECK(mh_outname_expand("a%x", out, sizeof out, &e) == MH_ERR_ARG && strstr(e.msg, "%x"));
    CHECK(mh_outname_expand("a%", out, sizeof out, &e) == MH_ERR_ARG);
    CHECK(mh_outname_expand("%q{}", out, sizeof out, &e) == MH_ERR_ARG);
    CHECK(mh_outname_expand("%qX", out, sizeof out, &e) == MH_ERR_ARG);
    CHECK(mh_outname_expand("%q{A", out, sizeof out, &e) == MH_ERR_ARG);
    CHECK(mh_outname_expand("12345678", out, sizeof out, &e) == MH_ERR_ARG); /* does not fit 8 */
    CHECK(mh_outname_expand("1234567", out, sizeof out, &e) == MH_OK && !strcmp(out, "1234567"));
}

MH_TEST_MAIN(T(test_basic), T(test_rank_order), T(test_env), T(test_errors))
