/* cmd_merge.c -- `memheat merge A.mhdb B.mhdb ... -o job.mhdb`: joins the
 * per-rank profiles of a job (one `memheat run -o p_%h_%r` per rank, on any
 * number of nodes) into one profile with a process per input process
 * (src/store/process.c renumbers; nothing is dropped). */
#define _DEFAULT_SOURCE 1 /* realpath */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "store/store.h"

static void help(FILE *f) {
    fputs("usage: memheat merge A.mhdb B.mhdb ... -o OUT.mhdb\n\n"
          "Joins profiles (e.g. one per rank of a job, from several nodes) into one:\n"
          "every process, launch, heat map, finding and timing row of every input is\n"
          "kept, ids renumbered; the run row and the overlap summary are the first\n"
          "input's. Profiles of schema 1 or 2 join as one process each; a profile of\n"
          "a newer schema is refused. OUT is replaced.\n\n"
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
    while ((c = getopt_long(argc, argv, "o:qh", longopts, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'q': quiet = 1; break;
        case 'h': help(stdout); return MH_EXIT_OK;
        default: help(stderr); return MH_EXIT_USAGE;
        }
    }
    if (!out) return mh_cli_fail("merge", MH_EXIT_USAGE, "no output given (-o OUT.mhdb)");
    if (optind >= argc) return mh_cli_fail("merge", MH_EXIT_USAGE, "no profiles to merge");
    mh_err err = {0};
    /* check every input before the output is touched */
    for (int i = optind; i < argc; i++) {
        if (!strcmp(argv[i], out) || same_file(argv[i], out))
            return mh_cli_fail("merge", MH_EXIT_USAGE, "the output %s is also an input", out);
        mh_db *db;
        if (mh_db_open(&db, argv[i], MH_DB_CHECK, &err) != MH_OK) return mh_cli_fail_err("merge", &err);
        mh_db_close(db);
    }
    mh_db *db;
    if (mh_db_create(&db, out, 1, &err) != MH_OK) return mh_cli_fail_err("merge", &err);
    int64_t procs = 0, launches = 0;
    int complete = 1, rc = MH_OK;
    for (int i = optind; i < argc && rc == MH_OK; i++) {
        mh_db_merge_info mi;
        rc = mh_db_merge(db, argv[i], &mi, &err);
        procs += mi.processes;
        launches += mi.launches;
        complete &= mi.complete;
    }
    char n[32];
    snprintf(n, sizeof n, "%d", argc - optind);
    if (rc == MH_OK) rc = mh_db_set_meta(db, "merged_profiles", n, &err);
    if (rc == MH_OK && !complete) rc = mh_db_set_meta(db, "merged_incomplete", "1", &err);
    if (rc == MH_OK) rc = mh_db_finish(db, &err);
    mh_db_close(db);
    if (rc != MH_OK) {
        remove(out);
        return mh_cli_fail_err("merge", &err);
    }
    if (!quiet)
        fprintf(stderr, "memheat: merged %d profiles (%lld processes, %lld traced launches) into %s%s\n",
                argc - optind, (long long)procs, (long long)launches, out,
                complete ? "" : " (an input was incomplete)");
    return MH_EXIT_OK;
}
