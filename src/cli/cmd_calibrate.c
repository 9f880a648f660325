/* cmd_calibrate.c -- `memheat calibrate MODE`: measures what the card can do,
 * once, and stores it per device name for later analyses.
 *
 * Modes (one function each, listed in `modes` below, so another mode is one
 * more entry):
 *   --bandwidth   runs memheat-bwcal (a copy kernel, src/collectors/cupti/bwcal.cu)
 *                 and stores its achieved peak in the calibration file that
 *                 the timing pass reads (src/analyses/bandwidth.h).
 *   --camping     runs memheat-campbench (bench/camping/camp_bench.cu) over
 *                 every occupancy, fits the camping model (mh_camp_calibrate)
 *                 and stores it per device for `memheat band`. */
#include <errno.h>
#include <getopt.h>
#include <sys/stat.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyses/bandwidth.h"
#include "analyses/camp.h"
#include "cli/cli.h"
#include "run/run.h"

typedef struct calib_opts {
    char store[1024];   /* -o: calibration file ("" = default path) */
    char device[16];    /* --device */
    char bytes[32];     /* --bytes */
    char runs[16];      /* --runs */
    char model_dir[1024]; /* --model-dir (camping) */
    int quiet;
} calib_opts;

typedef int (*calib_fn)(const calib_opts *o);

static void help(FILE *f) {
    fputs("usage: memheat calibrate --bandwidth | --camping [options]\n\n"
          "Measures the device once and stores the result per device name, for the\n"
          "analyses of `memheat run` to compare against.\n\n"
          "modes:\n"
          "  --bandwidth        achieved device-memory bandwidth of a copy kernel\n"
          "                     (bytes read + written / median GPU time)\n"
          "  --camping          partition-camping micro-benchmarks over all occupancies,\n"
          "                     fitted into the model `memheat band` uses (a few minutes)\n"
          "                     stored in --model-dir (default $MEMHEAT_MODEL_DIR, else\n"
          "                     memheat's data folder, as for -o) as camp-<device>.json\n\n"
          "options:\n"
          "  --device N         CUDA device ordinal (default 0)\n"
          "  --bytes B          bytes per buffer (default: max(1 GiB, 16 x L2), at most free/4)\n"
          "  --runs R           timed launches per launch shape (default 30)\n"
          "  -o, --output PATH  calibration file (default $MEMHEAT_CALIBRATION, else\n"
          "                     calibration.json in memheat's data folder: $MEMHEAT_DATA_DIR,\n"
          "                     $XDG_DATA_HOME/memheat or ~/.local/share/memheat)\n"
          "  --model-dir DIR    --camping: where the model goes\n"
          "  -q, --quiet        print nothing on success\n"
          "  -h, --help\n", f);
}

static int calib_bandwidth(const calib_opts *o) {
    mh_err err = {0};
    mh_run_opts ro;
    memset(&ro, 0, sizeof ro);
    if (mh_cli_self_dir(ro.self_dir, sizeof ro.self_dir) != 0)
        return mh_cli_fail("calibrate", MH_EXIT_ERROR, "cannot find the memheat executable's directory");
    char tool[1024];
    if (mh_run_find_file(&ro, "memheat-bwcal", tool, sizeof tool, NULL) != MH_OK)
        return mh_cli_fail("calibrate", MH_EXIT_ERROR,
                           "memheat-bwcal is not installed beside memheat: it is built only with the CUDA toolkit");
    char store[1024];
    if (o->store[0]) snprintf(store, sizeof store, "%s", o->store);
    else if (mh_bw_calib_default_path(store, sizeof store, &err) != MH_OK) return mh_cli_fail_err("calibrate", &err);

    char tmp[] = "/tmp/memheat-bwcal-XXXXXX";
    int fd = mkstemp(tmp);
    if (fd < 0) return mh_cli_fail("calibrate", MH_EXIT_ERROR, "cannot create a temporary file");
    close(fd);
    char *argv[12];
    int n = 0;
    argv[n++] = tool;
    argv[n++] = "-o";
    argv[n++] = tmp;
    if (o->device[0]) argv[n++] = "--device", argv[n++] = (char *)o->device;
    if (o->bytes[0]) argv[n++] = "--bytes", argv[n++] = (char *)o->bytes;
    if (o->runs[0]) argv[n++] = "--runs", argv[n++] = (char *)o->runs;
    argv[n] = NULL;
    int status = 0;
    if (mh_run_spawn(argv, NULL, &status, &err) != MH_OK) {
        remove(tmp);
        return mh_cli_fail_err("calibrate", &err);
    }
    if (status != 0) {
        remove(tmp);
        return mh_cli_fail("calibrate", MH_EXIT_ERROR, "memheat-bwcal failed (exit status %d)", status);
    }
    json_error_t je;
    json_t *res = json_load_file(tmp, 0, &je);
    remove(tmp);
    json_t *name = res ? json_object_get(res, "device") : NULL;
    json_t *bw = res ? json_object_get(res, "bandwidth_Bps") : NULL;
    if (!json_is_string(name) || !json_is_number(bw) || json_number_value(bw) <= 0) {
        json_decref(res);
        return mh_cli_fail("calibrate", MH_EXIT_ERROR, "memheat-bwcal wrote no usable result");
    }
    int rc = mh_bw_calib_store(store, json_string_value(name), res, &err);
    if (rc == MH_OK && !o->quiet) {
        json_t *th = json_object_get(res, "theoretical_Bps");
        double t = json_is_number(th) ? json_number_value(th) : 0;
        printf("%s: %.1f GB/s measured (copy kernel, read + write), %.1f GB/s theoretical (%.0f%%)\n",
               json_string_value(name), json_number_value(bw) / 1e9, t / 1e9,
               t > 0 ? 100.0 * json_number_value(bw) / t : 0.0);
        printf("stored in %s\n", store);
    }
    json_decref(res);
    return rc == MH_OK ? MH_EXIT_OK : mh_cli_fail_err("calibrate", &err);
}

/* mkdir -p: the model directory may not exist yet (~/.local/share/memheat). */
static int make_dirs(const char *path) {
    char buf[1100];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) return -1;
    for (char *p = buf + 1; ; p++) {
        if (*p == '/' || *p == '\0') {
            char c = *p;
            *p = '\0';
            if (mkdir(buf, 0755) != 0 && errno != EEXIST) return -1;
            *p = c;
            if (!c) return 0;
        }
    }
}

static int calib_camping(const calib_opts *o) {
    mh_err err = {0};
    mh_run_opts ro;
    memset(&ro, 0, sizeof ro);
    if (mh_cli_self_dir(ro.self_dir, sizeof ro.self_dir) != 0)
        return mh_cli_fail("calibrate", MH_EXIT_ERROR, "cannot find the memheat executable's directory");
    char bench[1024], dir[1024], work[1100];
    if (mh_run_find_file(&ro, "memheat-campbench", bench, sizeof bench, NULL) != MH_OK)
        return mh_cli_fail("calibrate", MH_EXIT_ERROR,
                           "memheat-campbench is not installed beside memheat: it is built only with the CUDA toolkit");
    if (o->model_dir[0]) snprintf(dir, sizeof dir, "%s", o->model_dir);
    else if (mh_cli_model_dir(dir, sizeof dir) != 0)
        return mh_cli_fail("calibrate", MH_EXIT_ERROR, "model directory path too long");
    snprintf(work, sizeof work, "%s/campbench-run", dir);
    if (make_dirs(work) != 0)
        return mh_cli_fail("calibrate", MH_EXIT_ERROR, "cannot create %s: %s", work, strerror(errno));
    if (o->device[0] && strcmp(o->device, "0") != 0)
        return mh_cli_fail("calibrate", MH_EXIT_USAGE, "--camping measures device 0 (use CUDA_VISIBLE_DEVICES)");
    mh_camp_model m;
    if (!o->quiet) fprintf(stderr, "memheat calibrate: camping benchmarks (%s), a few minutes...\n", bench);
    if (mh_camp_calibrate(bench, work, dir, NULL, &m, &err) != MH_OK) return mh_cli_fail_err("calibrate", &err);
    char path[2048];
    if (mh_camp_model_path(dir, m.device, path, sizeof path, &err) != MH_OK) return mh_cli_fail_err("calibrate", &err);
    if (!o->quiet) {
        static const char *const op[2] = {"read", "write"}, *const lay[2] = {"spread", "camped"};
        printf("camping model for %s -> %s\n", m.device, path);
        for (int a = 0; a < 2; a++)
            for (int b = 0; b < 2; b++)
                printf("  %-5s %-6s R2 %.3f  held-out error %.1f%%\n", op[a], lay[b], m.eq[a][b].r2,
                       100 * m.eq[a][b].cv_err);
    }
    return MH_EXIT_OK;
}

/* The modes: one flag, one function. */
static const struct calib_mode {
    const char *flag;
    calib_fn fn;
} modes[] = {
    {"bandwidth", calib_bandwidth},
    {"camping", calib_camping},
};
#define NMODES (sizeof modes / sizeof modes[0])

int mh_cmd_calibrate(int argc, char **argv) {
    static const struct option longopts[] = {
        {"bandwidth", no_argument, 0, 'B'}, {"camping", no_argument, 0, 'C'},
        {"model-dir", required_argument, 0, 'M'}, {"device", required_argument, 0, 'd'},
        {"bytes", required_argument, 0, 'b'}, {"runs", required_argument, 0, 'r'},
        {"output", required_argument, 0, 'o'}, {"quiet", no_argument, 0, 'q'},
        {"help", no_argument, 0, 'h'},        {0, 0, 0, 0}};
    calib_opts o;
    memset(&o, 0, sizeof o);
    int want[NMODES] = {0}, any = 0, c;
    uint64_t v;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:qh", longopts, NULL)) != -1) {
        switch (c) {
        case 'B': want[0] = any = 1; break;
        case 'C': want[1] = any = 1; break;
        case 'M':
            if (snprintf(o.model_dir, sizeof o.model_dir, "%s", optarg) >= (int)sizeof o.model_dir)
                return mh_cli_fail("calibrate", MH_EXIT_USAGE, "--model-dir path too long");
            break;
        case 'd':
            if (mh_cli_u64("calibrate", "--device", optarg, 1024, &v)) return MH_EXIT_USAGE;
            snprintf(o.device, sizeof o.device, "%llu", (unsigned long long)v);
            break;
        case 'b':
            if (mh_cli_u64("calibrate", "--bytes", optarg, UINT64_MAX, &v)) return MH_EXIT_USAGE;
            snprintf(o.bytes, sizeof o.bytes, "%llu", (unsigned long long)v);
            break;
        case 'r':
            if (mh_cli_u64("calibrate", "--runs", optarg, 100000, &v)) return MH_EXIT_USAGE;
            snprintf(o.runs, sizeof o.runs, "%llu", (unsigned long long)v);
            break;
        case 'o':
            if (snprintf(o.store, sizeof o.store, "%s", optarg) >= (int)sizeof o.store)
                return mh_cli_fail("calibrate", MH_EXIT_USAGE, "--output path too long");
            break;
        case 'q': o.quiet = 1; break;
        case 'h': help(stdout); return MH_EXIT_OK;
        default: return mh_cli_bad_option("calibrate", argv, c);
        }
    }
    if (optind != argc) return mh_cli_usage("calibrate", "unexpected argument '%s'", argv[optind]);
    if (!any) return mh_cli_usage("calibrate", "nothing to measure (--bandwidth, --camping)");
    for (size_t i = 0; i < NMODES; i++) {
        if (!want[i]) continue;
        int rc = modes[i].fn(&o);
        if (rc != MH_EXIT_OK) return rc;
    }
    return MH_EXIT_OK;
}
