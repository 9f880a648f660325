/* cmd_analyze.c -- `memheat analyze TRACE|PROFILE`: pattern findings with
 * evidence and fixes (most costly first), shared-memory bank conflicts and
 * AIWC locality metrics, as text and/or JSON. The work is in analyze.c (a
 * trace) and profile_in.c (a profile, told by its first bytes); this file
 * only parses options and maps errors to exit codes. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/profile_in.h"
#include "render/analyze.h"
#include "util/outfile.h"
#include "util/clock.h"

static void help(FILE *f) {
    fputs("usage: memheat analyze TRACE|PROFILE [options]\n\n"
          "Detects memory-access patterns per data object (hot spots, random hot spots,\n"
          "false sharing, misalignment, strided access, shared-memory abuse, bank\n"
          "conflicts, well-coalesced), prints them most costly first with evidence and a\n"
          "suggested fix, and prints the AIWC locality metrics per launch.\n\n"
          "  -o, --output PATH    also write the result as JSON to PATH\n"
          "      --json           print JSON on stdout instead of text\n"
          "      --max N          print at most N findings (default 50, 0 = all)\n"
          "      --all            also list well-coalesced objects as findings\n"
          "      --group-mem MIB  memory budget per grouping buffer (default 64)\n"
          "      --no-locality    skip the locality metrics\n"
          "      --no-patterns    skip pattern detection\n"
          "      --threads N      analysis threads (default: $MEMHEAT_THREADS, else all cores)\n"
          "      --group-by G     roll findings, launches and GPU time up by G: site (the line\n"
          "                       of your code that launched the kernel), nvtx (the NVTX\n"
          "                       ranges open) or kernel\n"
          "  -q, --quiet          no progress line on stderr\n"
          "  -h, --help\n\n"
          "A profile (.mhdb, what memheat run writes) gives the findings and metrics it\n"
          "stored; --group-mem and --threads then do not apply.\n\n"
          "A trace cut short or damaged is analysed up to the problem, the results are\n"
          "printed, then the error. Exit codes: 0 ok, 1 error (damaged input: results\n"
          "before the damage were printed), 2 usage, 4 trace incomplete (cut short, no\n"
          "end record, or bad records skipped: every finished launch is still analysed).\n",
          f);
}

/* The figures v of the stages of each analysis, as "heat a + b, patterns c + d ...". */
static void print_stages(const double *v) {
    const char *cur = NULL, *an = NULL;
    for (unsigned i = 0; i < MH_PASS_MAX_STAGES && mh_pass_stage_name(i, &an); i++) {
        if (an != cur) fprintf(stderr, "%s%s %.3f", cur ? ", " : "", an, v[i]);
        else fprintf(stderr, " + %.3f", v[i]);
        cur = an;
    }
}

/* MEMHEAT_PASS_TIMES=1 (bench/analyses/cores.sh): where a many-core pass
 * spent its time, one line; at[0..3]: clock at the start, after the pass,
 * after the output, after freeing. Per stage: the analyses' stages in
 * table order (mh_pass_stage_name). */
static void print_times(const mh_pass_times *t, const double *at) {
    fprintf(stderr,
            "memheat analyze: total %.3f s: analysis %.3f s, output %.3f s, free %.3f s; pass wall %.3f s; reader cpu %.3f s, waited for chunks %.3f s, for room %.3f s, for results "
            "%.3f s; inflate cpu %.3f s; workers cpu %.3f s (",
            at[3] - at[0], at[1] - at[0], at[2] - at[1], at[3] - at[2], t->wall, t->reader_cpu, t->chunk_wait, t->wait_room, t->wait_results, t->inflate_cpu, t->workers_cpu);
    print_stages(t->unit_cpu);
    fprintf(stderr, "); ring: waited for slots %.3f s, launch ends %.3f s, units waited ", t->ring_room, t->ends);
    print_stages(t->unit_wait);
    fprintf(stderr, " s; lanes cpu %.3f s (busiest %.3f s), idle %.3f s, batches moved %.0f\n", t->lanes_cpu, t->lanes_cpu_max, t->lanes_idle, t->lanes_moved);
}

int mh_cmd_analyze(int argc, char **argv) {
    enum { O_JSON = 256, O_MAX, O_ALL, O_GROUPMEM, O_NOLOC, O_NOPAT, O_THREADS, O_GROUPBY };
    int quiet = 0;
    static const struct option longopts[] = {{"output", required_argument, 0, 'o'},
                                             {"json", no_argument, 0, O_JSON},
                                             {"max", required_argument, 0, O_MAX},
                                             {"all", no_argument, 0, O_ALL},
                                             {"group-mem", required_argument, 0, O_GROUPMEM},
                                             {"no-locality", no_argument, 0, O_NOLOC},
                                             {"no-patterns", no_argument, 0, O_NOPAT},
                                             {"threads", required_argument, 0, O_THREADS},
                                             {"group-by", required_argument, 0, O_GROUPBY},
                                             {"quiet", no_argument, 0, 'q'},
                                             {"help", no_argument, 0, 'h'},
                                             {0, 0, 0, 0}};
    const char *out = NULL;
    int json = 0, all = 0, opt;
    uint64_t max = 50, v;
    mh_analyze_opts ao = {0};
    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":o:qh", longopts, NULL)) != -1) {
        switch (opt) {
        case 'o': out = optarg; break;
        case O_JSON: json = 1; break;
        case O_MAX:
            if (mh_cli_u64("analyze", "--max", optarg, SIZE_MAX, &max)) return MH_EXIT_USAGE;
            break;
        case O_ALL: all = 1; break;
        case O_GROUPMEM:
            if (mh_cli_u64("analyze", "--group-mem", optarg, 1u << 20, &v)) return MH_EXIT_USAGE;
            if (v == 0) return mh_cli_fail("analyze", MH_EXIT_USAGE, "--group-mem must be at least 1 (MiB)");
            ao.group_budget = (size_t)v << 20;
            break;
        case O_NOLOC: ao.no_locality = 1; break;
        case O_NOPAT: ao.no_patterns = 1; break;
        case O_THREADS:
            if (mh_cli_u64("analyze", "--threads", optarg, 1024, &v)) return MH_EXIT_USAGE;
            if (v == 0) return mh_cli_fail("analyze", MH_EXIT_USAGE, "--threads must be at least 1");
            ao.threads = (unsigned)v;
            break;
        case O_GROUPBY:
            ao.group_by = mh_group_parse(optarg);
            if (ao.group_by < 0)
                return mh_cli_fail("analyze", MH_EXIT_USAGE, "--group-by '%s': expected site, nvtx or kernel", optarg);
            break;
        case 'q': quiet = 1; break;
        case 'h': help(stdout); return MH_EXIT_OK;
        default: return mh_cli_bad_option("analyze", argv, opt);
        }
    }
    if (optind != argc - 1)
        return optind >= argc ? mh_cli_usage("analyze", "no trace or profile given")
                              : mh_cli_usage("analyze", "one trace or profile at a time, not also '%s'", argv[optind + 1]);
    mh_err err = {0};
    if (out && strcmp(out, "-") != 0 && mh_outfile_not_input(out, argv[optind], &err) != MH_OK)
        return mh_cli_fail_err("analyze", &err);
    if (mh_cli_input_kind(argv[optind]) == MH_CLI_IN_PROFILE) {
        mh_cli_profile_analyze_opts po = {.json = json, .out = out, .max_findings = (size_t)max,
                                          .show_coalesced = all, .no_locality = ao.no_locality,
                                          .no_patterns = ao.no_patterns, .group_by = ao.group_by};
        return mh_cli_profile_analyze(argv[optind], &po, &err) == MH_OK ? MH_EXIT_OK : mh_cli_fail_err("analyze", &err);
    }
    if (!quiet && isatty(STDERR_FILENO)) ao.progress = mh_cli_progress;
    mh_analyze_result res;
    double at[4];
    at[0] = mh_clock_s();
    int rc = mh_analyze_file(argv[optind], &ao, &res, &err);
    at[1] = mh_clock_s();
    int code = MH_EXIT_OK;
    int usable = rc == MH_OK || res.partial;
    if (usable) {
        mh_err werr = {0};
        if (json && mh_analyze_write_json("-", &res, &werr) != MH_OK) code = mh_cli_fail_err("analyze", &werr);
        else if (!json && mh_analyze_print(stdout, &res, (size_t)max, all) != MH_OK)
            code = mh_cli_fail("analyze", MH_EXIT_ERROR, "writing to stdout failed");
        if (code == MH_EXIT_OK && out && mh_analyze_write_json(out, &res, &werr) != MH_OK)
            code = mh_cli_fail_err("analyze", &werr);
        if (res.model_ok && res.model.dropped_total)
            fprintf(stderr, "memheat analyze: warning: the collector dropped %llu accesses; results undercount\n",
                    (unsigned long long)res.model.dropped_total);
    }
    at[2] = mh_clock_s();
    if (rc != MH_OK && code == MH_EXIT_OK) code = mh_cli_fail_err("analyze", &err);
    else if (rc == MH_OK && code == MH_EXIT_OK && res.notice[0])
        code = mh_cli_fail("analyze", MH_EXIT_PARTIAL, "%s", res.notice);
    mh_pass_times times = res.times;
    mh_analyze_free(&res);
    at[3] = mh_clock_s();
    const char *pt = getenv("MEMHEAT_PASS_TIMES");
    if (pt && *pt == '1') print_times(&times, at);
    return code;
}
