/* cmd_band.c -- `memheat band PROFILE`: where each profiled kernel sits in
 * its partition-camping performance band (CampProf, seed 000).
 *
 * For every kernel of the profile's timing pass that has hardware counters:
 * warp-level global load/store requests per launch, achieved active warps per
 * SM and the median kernel time form an mh_camp_kernel; the device's camping
 * model (from `memheat calibrate --camping`) gives the best and worst lines
 * over all occupancies, the kernel's own line through its measured point, and
 * the camping degree (0 = at the best line, 1 = at the worst). The bands are
 * stored back into the profile for the HTML report. */
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/camp.h"
#include "cli/cli.h"
#include "store/store.h"

static void help(FILE *f) {
    fputs("usage: memheat band PROFILE [options]\n\n"
          "Places each kernel of PROFILE (timing pass with counters) in the partition-\n"
          "camping band of its device: best and worst execution time over all active\n"
          "warps per SM, the kernel's own line, and its camping degree in [0, 1].\n\n"
          "  --model FILE       camping model (default: calibrate's model for the device)\n"
          "  --model-dir DIR    where calibrate stored models (default $MEMHEAT_MODEL_DIR,\n"
          "                     else ~/.local/share/memheat)\n"
          "  --kernel REGEX     only kernels whose name matches\n"
          "  --word BYTES       word size of the kernel's accesses: 2, 4, 8 or 16 (default 4)\n"
          "  --no-store         do not write the bands into PROFILE\n"
          "  -h, --help\n", f);
}

static double num(json_t *o, const char *k) {
    json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

int mh_cmd_band(int argc, char **argv) {
    enum { O_MODEL = 256, O_MODELDIR, O_KERNEL, O_WORD, O_NOSTORE };
    static const struct option longopts[] = {
        {"model", required_argument, 0, O_MODEL}, {"model-dir", required_argument, 0, O_MODELDIR},
        {"kernel", required_argument, 0, O_KERNEL}, {"word", required_argument, 0, O_WORD},
        {"no-store", no_argument, 0, O_NOSTORE}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    const char *model_file = NULL, *kernel_re = NULL;
    char model_dir[1024] = "";
    int word = 4, store = 1, opt, code;
    uint64_t v;
    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (opt) {
        case O_MODEL: model_file = optarg; break;
        case O_MODELDIR: snprintf(model_dir, sizeof model_dir, "%s", optarg); break;
        case O_KERNEL: kernel_re = optarg; break;
        case O_WORD:
            if ((code = mh_cli_u64("band", "--word", optarg, 16, &v))) return code;
            if (mh_camp_word_index((int)v) < 0) return mh_cli_fail("band", MH_EXIT_USAGE, "--word must be 2, 4, 8 or 16");
            word = (int)v;
            break;
        case O_NOSTORE: store = 0; break;
        case 'h': help(stdout); return MH_EXIT_OK;
        default: return mh_cli_bad_option("band", argv, opt);
        }
    }
    if (optind != argc - 1)
        return optind >= argc ? mh_cli_usage("band", "no profile given")
                              : mh_cli_usage("band", "one profile at a time, not also '%s'", argv[optind + 1]);
    regex_t re;
    if (kernel_re && regcomp(&re, kernel_re, REG_EXTENDED | REG_NOSUB) != 0)
        return mh_cli_fail("band", MH_EXIT_USAGE, "bad --kernel regex '%s'", kernel_re);
    mh_err err = {0};
    mh_db *db = NULL;
    json_t *sum = NULL;
    code = MH_EXIT_OK;
    if (mh_db_open(&db, argv[optind], store ? MH_DB_WRITABLE : 0, &err) != MH_OK ||
        mh_db_read_summary(db, &sum, &err) != MH_OK) {
        code = mh_cli_fail_err("band", &err);
        goto out;
    }
    /* The device the kernels ran on: the timing pass's (it has counters). */
    const char *device = NULL;
    json_t *dev;
    size_t i;
    json_array_foreach(json_object_get(sum, "devices"), i, dev) {
        const char *name = json_string_value(json_object_get(dev, "name"));
        if (name && (!device || !strcmp(json_string_value(json_object_get(dev, "source")), "timing"))) device = name;
    }
    mh_camp_model model;
    char path[2048];
    if (!model_file) {
        if (!device) {
            code = mh_cli_fail("band", MH_EXIT_ERROR, "%s has no device from a timing pass; run with timing", argv[optind]);
            goto out;
        }
        if (!model_dir[0] && mh_cli_model_dir(model_dir, sizeof model_dir) != 0) {
            code = mh_cli_fail("band", MH_EXIT_ERROR, "model directory path too long");
            goto out;
        }
        if (mh_camp_model_path(model_dir, device, path, sizeof path, &err) != MH_OK) {
            code = mh_cli_fail_err("band", &err);
            goto out;
        }
        model_file = path;
    }
    if (mh_camp_model_load(&model, model_file, &err) != MH_OK) {
        code = mh_cli_fail("band", MH_EXIT_ERROR, "%s (run 'memheat calibrate --camping' on this device first)",
                           err.msg);
        goto out;
    }
    int wi = mh_camp_word_index(word), placed = 0;
    json_t *k;
    printf("%-40s %6s %10s %10s %10s %8s\n", "kernel", "warps", "time ms", "best ms", "worst ms", "degree");
    json_array_foreach(json_object_get(sum, "kernels"), i, k) {
        const char *name = json_string_value(json_object_get(k, "name"));
        double launches = num(k, "with_counters");
        if (!name || !(launches > 0)) continue;
        if (kernel_re && regexec(&re, name, 0, NULL, 0) != 0) continue;
        mh_camp_kernel ck = {0};
        ck.req[MH_CAMP_READ][wi] = num(k, "ld_requests") / launches;
        ck.req[MH_CAMP_WRITE][wi] = num(k, "st_requests") / launches;
        ck.warps = (int)lround(num(k, "warps_per_sm"));
        ck.time_ms = num(k, "median_ns") / 1e6;
        if (!(ck.warps >= 1) || !(ck.time_ms > 0) || !isfinite(ck.req[0][wi] + ck.req[1][wi])) continue;
        mh_camp_band b;
        if (mh_camp_band_compute(&model, &ck, &b, &err) != MH_OK) {
            fprintf(stderr, "memheat band: warning: %s: %s\n", name, err.msg);
            continue;
        }
        int at = 0;
        for (int j = 0; j < b.n; j++)
            if (b.warps[j] == b.w0) at = j;
        printf("%-40.40s %6d %10.4f %10.4f %10.4f %8.2f%s\n", name, b.w0, b.t0, b.best[at], b.worst[at], b.degree,
               b.band_closed ? "  (band closed)"
               : b.degree_raw > 1.05 ? "  (above the worst line: not bound by memory requests)"
               : b.degree_raw < -0.05 ? "  (below the best line: fewer requests than counted reach DRAM)" : "");
        placed++;
        if (store && mh_db_put_camp(db, name, model.device, &b, &err) != MH_OK) {
            code = mh_cli_fail_err("band", &err);
            goto out;
        }
    }
    if (!placed) {
        code = mh_cli_fail("band", MH_EXIT_ERROR, "no kernel in %s has hardware counters to place in a band",
                           argv[optind]);
    }
out:
    if (kernel_re) regfree(&re);
    json_decref(sum);
    mh_db_close(db);
    return code;
}
