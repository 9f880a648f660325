/* cmd_import.c -- `memheat import TRACE -o NAME.mhdb [--timing F.json]`:
 * builds a profile from a kept trace (and timing file) after the fact: what
 * `memheat run` does after its passes (mh_db_import_trace), for a run whose
 * memheat was killed, a --keep-trace run, or a trace copied from elsewhere. */
#include <getopt.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "import/import.h"
#include "store/store.h"
#include "util/outfile.h"

static void help(FILE *f) {
    fputs("usage: memheat import TRACE -o NAME.mhdb [--timing FILE.json] [-f]\n\n"
          "Builds a profile from a trace kept by `memheat run` (--keep-trace, or left\n"
          "behind when memheat was killed) and optionally its timing file, running the\n"
          "same analyses as `memheat run`. The profile is written to a temporary file and\n"
          "renamed into place when complete.\n\n"
          "  -o, --output PATH  the profile to write (required)\n"
          "      --timing FILE  the timing file of the run (NAME.timing.json)\n"
          "  -f, --force        replace an existing profile\n"
          "  -q, --quiet        no progress lines\n"
          "  -h, --help\n\n"
          "Exit codes: 0 ok, 1 error, 2 usage, 4 trace incomplete (cut short, no end\n"
          "record or bad records skipped): the profile holds what it had.\n",
          f);
}

int mh_cmd_import(int argc, char **argv) {
    enum { O_TIMING = 256 };
    static const struct option longopts[] = {{"output", required_argument, 0, 'o'},
                                             {"timing", required_argument, 0, O_TIMING},
                                             {"force", no_argument, 0, 'f'},
                                             {"quiet", no_argument, 0, 'q'},
                                             {"help", no_argument, 0, 'h'},
                                             {0, 0, 0, 0}};
    const char *out = NULL, *timing = NULL;
    int force = 0, quiet = 0, c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:fqh", longopts, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case O_TIMING: timing = optarg; break;
        case 'f': force = 1; break;
        case 'q': quiet = 1; break;
        case 'h': help(stdout); return MH_EXIT_OK;
        default: return mh_cli_bad_option("import", argv, c);
        }
    }
    if (optind < argc - 1) return mh_cli_usage("import", "one trace per profile (launch ids are per trace)");
    if (optind >= argc) return mh_cli_usage("import", "no trace given");
    if (!out) return mh_cli_usage("import", "no profile to write (-o NAME.mhdb)");
    const char *trace = argv[optind];
    mh_err err = {0};
    if (access(trace, R_OK) != 0) return mh_cli_fail("import", MH_EXIT_ERROR, "cannot read %s", trace);
    if (mh_outfile_not_input(out, trace, &err) != MH_OK ||
        (timing && mh_outfile_not_input(out, timing, &err) != MH_OK))
        return mh_cli_fail_err("import", &err);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
    mh_db_import_opts io = {.trace_path = trace,
                            .timing_path = timing,
                            .run = {.backend = "import", .memheat_version = MEMHEAT_VERSION, .start_unix_ns = now,
                                    .end_unix_ns = now, .exit_status = -1, .trace_path = trace}};
    if (!quiet && isatty(STDERR_FILENO)) io.progress = mh_cli_progress;
    int rc = mh_db_import_trace(out, force, &io, &err);
    if (rc != MH_OK && rc != MH_ERR_TRUNCATED) return mh_cli_fail_err("import", &err);
    if (!quiet) fprintf(stderr, "memheat: profile written to %s\n", out);
    if (rc == MH_ERR_TRUNCATED) return mh_cli_fail_err("import", &err);
    return MH_EXIT_OK;
}
