/* cmd_merge.c -- `memheat merge A.mhdb B.mhdb ... -o job.mhdb`: joins the
 * per-rank profiles of a job (one `memheat run -o p_%h_%r` per rank, on any
 * number of nodes) into one profile with a process per input process
 * (src/store/process.c renumbers; nothing is dropped; heat maps of the same
 * content are kept once, src/store/heat_share.c). One input at a time, so
 * its memory does not grow with the number of inputs. */
#define _DEFAULT_SOURCE 1 /* realpath */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "store/store.h"
#include "util/outfile.h"

static void help(FILE *f) {
    fputs("usage: memheat merge A.mhdb B.mhdb ... -o OUT.mhdb\n\n"
          "Joins profiles (e.g. one per rank of a job, from several nodes) into one:\n"
          "every process, launch, heat map, finding and timing row of every input is\n"
          "kept, ids renumbered; the run row and the overlap summary are the first\n"
          "input's. A heat map equal to one already merged (another rank's map of the\n"
          "same launch, objects perhaps elsewhere) shares its rows. Profiles of schema\n"
          "1 or 2 join as one process each; a profile of a newer schema is refused.\n"
          "One input at a time: memory does not grow with their number. OUT is\n"
          "replaced once the merge is complete (a failed merge leaves it as it was).\n\n"
          "  -o, --output OUT   the merged profile (required; not one of the inputs)\n"
          "  -q, --quiet        no summary line\n"
          "  -h, --help         this text\n",
          f);
}

static int same_file(const char *a, const char *b) {
    char ra[PATH_MAX], rb[PATH_MAX];
    return realpath(a, ra) && realpath(b, rb) && !strcmp(ra, rb);
}

int mh_cmd_merge(int argc, char **argv) {
    static const struct option longopts[] = {{"output", required_argument, 0, 'o'},
                                             {"quiet", no_argument, 0, 'q'},
                                             {"help", no_argument, 0, 'h'},
                                             {0, 0, 0, 0}};
    const char *out = NULL;
    int c, quiet = 0;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:qh", longopts, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'q': quiet = 1; break;
        case 'h': help(stdout); return MH_EXIT_OK;
        default: return mh_cli_bad_option("merge", argv, c);
        }
    }
    if (!out) return mh_cli_usage("merge", "no output given (-o OUT.mhdb)");
    if (optind >= argc) return mh_cli_usage("merge", "no profiles to merge");
    mh_err err = {0};
    /* check every input before the output is touched */
    for (int i = optind; i < argc; i++) {
        if (!strcmp(argv[i], out) || same_file(argv[i], out))
            return mh_cli_fail("merge", MH_EXIT_USAGE, "the output %s is also an input", out);
        mh_db *db;
        if (mh_db_open(&db, argv[i], 0, &err) != MH_OK) return mh_cli_fail_err("merge", &err);
        mh_db_close(db);
    }
    /* the merged profile goes to a temporary file renamed over OUT when
     * complete (a failed merge leaves OUT as it was), unsynced until the end */
    mh_outfile of = {0};
    if (mh_outfile_begin(&of, out, MH_OUTFILE_FORCE, &err) != MH_OK) return mh_cli_fail_err("merge", &err);
    mh_db *db;
    if (mh_db_create_named(&db, of.tmp, out, 1, &err) != MH_OK) {
        mh_outfile_abort(&of);
        return mh_cli_fail_err("merge", &err);
    }
    int64_t procs = 0, launches = 0, shared = 0;
    int complete = 1, rc = mh_db_scratch(db, &err), tty = !quiet && isatty(STDERR_FILENO);
    for (int i = optind; i < argc && rc == MH_OK; i++) {
        mh_db_merge_info mi;
        rc = mh_db_merge(db, argv[i], &mi, &err);
        procs += mi.processes;
        launches += mi.launches;
        shared += mi.heat_shared;
        complete &= mi.complete;
        if (tty && ((i - optind) % 16 == 15 || i + 1 == argc)) {
            char line[96];
            snprintf(line, sizeof line, "merge: %d of %d profiles", i - optind + 1, argc - optind);
            mh_cli_progress(NULL, line, i + 1 == argc);
        }
    }
    char n[32];
    snprintf(n, sizeof n, "%d", argc - optind);
    if (rc == MH_OK) rc = mh_db_set_meta(db, "merged_profiles", n, &err);
    if (rc == MH_OK && !complete) rc = mh_db_set_meta(db, "merged_incomplete", "1", &err);
    if (rc == MH_OK) rc = mh_db_finish(db, &err);
    mh_db_close(db);
    if (rc == MH_OK) rc = mh_outfile_commit(&of, &err);
    else mh_outfile_abort(&of);
    if (rc != MH_OK) return mh_cli_fail_err("merge", &err);
    if (!quiet)
        fprintf(stderr,
                "memheat: merged %d profiles (%lld processes, %lld traced launches; %lld heat maps the same as"
                " another, kept once) into %s%s\n",
                argc - optind, (long long)procs, (long long)launches, (long long)shared, out,
                complete ? "" : " (an input was incomplete)");
    return MH_EXIT_OK;
}
