/* test_datadir.c -- memheat's one data folder (src/util/datadir.h): the
 * override variable, MEMHEAT_DATA_DIR, XDG_DATA_HOME, HOME, and paths that
 * do not fit. */
#include <stdlib.h>
#include <string.h>

#include "../mh_test.h"
#include "util/datadir.h"

static void test_order(void) {
    char p[256];
    unsetenv("MEMHEAT_CALIBRATION");
    unsetenv("MEMHEAT_DATA_DIR");
    unsetenv("XDG_DATA_HOME");
    setenv("HOME", "/h", 1);
    CHECK(mh_data_path("MEMHEAT_CALIBRATION", "calibration.json", p, sizeof p) == 0);
    CHECK(!strcmp(p, "/h/.local/share/memheat/calibration.json"));
    CHECK(mh_data_path("MEMHEAT_MODEL_DIR", "", p, sizeof p) == 0);
    CHECK(!strcmp(p, "/h/.local/share/memheat"));
    setenv("XDG_DATA_HOME", "/x", 1);
    CHECK(mh_data_path("MEMHEAT_CALIBRATION", "calibration.json", p, sizeof p) == 0);
    CHECK(!strcmp(p, "/x/memheat/calibration.json"));
    setenv("MEMHEAT_DATA_DIR", "/d", 1);
    CHECK(mh_data_path("MEMHEAT_CALIBRATION", "calibration.json", p, sizeof p) == 0);
    CHECK(!strcmp(p, "/d/calibration.json"));
    CHECK(mh_data_path(NULL, NULL, p, sizeof p) == 0 && !strcmp(p, "/d"));
    setenv("MEMHEAT_CALIBRATION", "/c.json", 1);
    CHECK(mh_data_path("MEMHEAT_CALIBRATION", "calibration.json", p, sizeof p) == 0);
    CHECK(!strcmp(p, "/c.json"));
    setenv("MEMHEAT_CALIBRATION", "", 1); /* empty: not an override */
    CHECK(mh_data_path("MEMHEAT_CALIBRATION", "calibration.json", p, sizeof p) == 0);
    CHECK(!strcmp(p, "/d/calibration.json"));
}

static void test_failures(void) {
    char p[8];
    unsetenv("MEMHEAT_CALIBRATION");
    setenv("MEMHEAT_DATA_DIR", "/a/long/folder", 1);
    CHECK(mh_data_path("MEMHEAT_CALIBRATION", "calibration.json", p, sizeof p) == -1);
    unsetenv("MEMHEAT_DATA_DIR");
    unsetenv("XDG_DATA_HOME");
    unsetenv("HOME");
    char q[64];
    CHECK(mh_data_path("MEMHEAT_CALIBRATION", "calibration.json", q, sizeof q) == -1);
}

MH_TEST_MAIN(T(test_order), T(test_failures))
