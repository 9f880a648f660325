/* timing_tool.c -- mh-timing-tool: drives memheat's timing pass without the
 * full CLI, for bench/timing/run.sh and for debugging the collector.
 *
 *   mh-timing-tool run [--no-counters] -o OUT.json -- PROGRAM ARGS
 *       mh_run_timing(): the timing run, then a counters run of every launch
 *       (as `memheat run --no-trace --counters`); prints the table.
 *   mh-timing-tool print OUT.json        the table of a saved result
 *   mh-timing-tool store-cal BWCAL.json  stores memheat-bwcal's result in the
 *                                        calibration file (as `memheat calibrate`) */
#include <jansson.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyses/bandwidth.h"
#include "run/run.h"

static int usage(void) {
    fputs("usage: mh-timing-tool run [--no-counters] -o OUT.json -- PROGRAM ARGS\n"
          "       mh-timing-tool print OUT.json\n"
          "       mh-timing-tool store-cal BWCAL.json\n", stderr);
    return 2;
}

static int cmd_run(int argc, char **argv) {
    mh_run_opts o;
    memset(&o, 0, sizeof o);
    o.timing = 1;
    o.counters = 1;
    int i = 2;
    for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
        if (strcmp(argv[i], "--no-counters") == 0) o.counters = 0;
        else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) snprintf(o.timing_path, sizeof o.timing_path, "%s", argv[++i]);
        else return usage();
    }
    if (i >= argc - 1 || !o.timing_path[0]) return usage();
    o.argv = &argv[i + 1];
    char self[1024];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = '\0';
        snprintf(o.self_dir, sizeof o.self_dir, "%s", dirname(self));
    }
    mh_run_result res;
    mh_err err = {0};
    int rc = mh_run_timing(&o, &res, &err);
    if (res.timed) {
        mh_err e2 = {0};
        if (mh_bw_print_file(stdout, o.timing_path, 0, 20, &e2) != MH_OK) fprintf(stderr, "mh-timing-tool: %s\n", e2.msg);
    }
    if (rc != MH_OK) {
        fprintf(stderr, "mh-timing-tool: %s\n", err.msg);
        return rc == MH_ERR_CHILD ? 3 : 1;
    }
    return 0;
}

static int cmd_print(const char *path) {
    mh_err err = {0};
    if (mh_bw_print_file(stdout, path, 0, 50, &err) != MH_OK) {
        fprintf(stderr, "mh-timing-tool: %s\n", err.msg);
        return 1;
    }
    return 0;
}

static int cmd_store_cal(const char *path) {
    json_error_t je;
    json_t *r = json_load_file(path, 0, &je);
    json_t *name = r ? json_object_get(r, "device") : NULL;
    if (!json_is_string(name)) {
        fprintf(stderr, "mh-timing-tool: %s: not a memheat-bwcal result\n", path);
        json_decref(r);
        return 1;
    }
    char store[1024];
    mh_err err = {0};
    int rc = mh_bw_calib_default_path(store, sizeof store, &err);
    if (rc == MH_OK) rc = mh_bw_calib_store(store, json_string_value(name), r, &err);
    json_decref(r);
    if (rc != MH_OK) {
        fprintf(stderr, "mh-timing-tool: %s\n", err.msg);
        return 1;
    }
    printf("stored in %s\n", store);
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 3) return usage();
    if (strcmp(argv[1], "run") == 0) return cmd_run(argc, argv);
    if (strcmp(argv[1], "print") == 0) return cmd_print(argv[2]);
    if (strcmp(argv[1], "store-cal") == 0) return cmd_store_cal(argv[2]);
    return usage();
}
