/* cmd_report.c -- `memheat report PROFILE [-o report.html]`: the profile
 * database as one self-contained HTML file (src/report/html.c). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "store/store.h"
#include "report/report.h"
#include "util/outfile.h"

static void help(FILE *f) {
    fputs("usage: memheat report PROFILE [-o report.html] [-f] [-S DIR]...\n\n"
          "Writes one self-contained HTML file (works offline, loads nothing) with the\n"
          "kernel table, per-launch heat maps, findings, locality curves, the timeline\n"
          "and the partition-camping band of a profile written by `memheat run`.\n\n"
          "  -o, --output PATH  where to write (default: PROFILE with .html instead of .mhdb;\n"
          "                     '-' = standard output)\n"
          "  -f, --force        replace an existing output file\n"
          "  -q, --quiet        no progress lines\n"
          "  -S, --source DIR   look for findings' source files here when the path in the\n"
          "                     profile cannot be read (by base name; Oclgrind's input.cl:\n"
          "                     the .cl file defining the kernel); repeatable\n"
          "  -h, --help         this text\n",
          f);
}

static void progress(void *ctx, const char *line, int done) {
    (void)ctx;
    fprintf(stderr, "\r\033[Kmemheat: %s%s", line, done ? "\n" : "");
}

int mh_cmd_report(int argc, char **argv) {
    static const struct option longopts[] = {{"output", required_argument, 0, 'o'},
                                             {"force", no_argument, 0, 'f'},
                                             {"quiet", no_argument, 0, 'q'},
                                             {"source", required_argument, 0, 'S'},
                                             {"help", no_argument, 0, 'h'},
                                             {0, 0, 0, 0}};
    const char *outp = NULL;
    int force = 0, quiet = 0, c;
    enum { MAX_SOURCE_DIRS = 16 };
    const char *srcdirs[MAX_SOURCE_DIRS];
    size_t nsrc = 0;
    struct stat st;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:fqS:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'o': outp = optarg; break;
        case 'f': force = 1; break;
        case 'q': quiet = 1; break;
        case 'S':
            if (stat(optarg, &st) != 0 || !S_ISDIR(st.st_mode))
                return mh_cli_fail("report", MH_EXIT_USAGE, "--source %s: not a directory", optarg);
            if (nsrc == MAX_SOURCE_DIRS) return mh_cli_fail("report", MH_EXIT_USAGE, "at most %d --source directories", MAX_SOURCE_DIRS);
            srcdirs[nsrc++] = optarg;
            break;
        case 'h': help(stdout); return MH_EXIT_OK;
        default: return mh_cli_bad_option("report", argv, c);
        }
    }
    if (optind != argc - 1)
        return optind >= argc ? mh_cli_usage("report", "no profile given")
                              : mh_cli_usage("report", "one profile at a time, not also '%s'", argv[optind + 1]);
    const char *prof = argv[optind];
    char def[4096];
    if (!outp) {
        size_t n = strlen(prof);
        const char *ext = n > 5 && strcmp(prof + n - 5, ".mhdb") == 0 ? prof + n - 5 : prof + n;
        if ((size_t)(ext - prof) + 6 > sizeof def) return mh_cli_fail("report", MH_EXIT_USAGE, "profile path too long");
        snprintf(def, sizeof def, "%.*s.html", (int)(ext - prof), prof);
        outp = def;
    }
    int to_stdout = strcmp(outp, "-") == 0;
    mh_err err = {0};
    if (!to_stdout && mh_outfile_not_input(outp, prof, &err) != MH_OK) return mh_cli_fail_err("report", &err);
    mh_db *db;
    if (mh_db_open(&db, prof, 0, &err) != MH_OK) return mh_cli_fail_err("report", &err);
    /* write beside the target, rename when complete: no half-written report */
    mh_outfile of = {0};
    FILE *f = stdout;
    if (!to_stdout) {
        if (mh_outfile_open(&of, outp, force ? MH_OUTFILE_FORCE : 0, &err) != MH_OK) {
            mh_db_close(db);
            return mh_cli_fail_err("report", &err);
        }
        f = of.f;
    }
    mh_report_opts ro = {0};
    if (!quiet && isatty(STDERR_FILENO)) ro.progress = progress;
    ro.source_dirs = srcdirs;
    ro.nsource_dirs = nsrc;
    errno = 0;
    int rc = mh_report_html(db, f, &ro, &err);
    if (rc == MH_ERR_IO && !strcmp(err.msg, "write error")) /* the renderer does not know the file's name */
        mh_err_set(&err, MH_ERR_IO, "write error on %s: %s", outp, strerror(errno ? errno : EIO));
    char note[600] = "";
    mh_db_notice(db, note, sizeof note);
    mh_db_close(db);
    if (!to_stdout) {
        if (rc == MH_OK) rc = mh_outfile_commit(&of, &err);
        else mh_outfile_abort(&of);
    } else if (fflush(stdout) != 0 && rc == MH_OK) {
        rc = mh_err_set(&err, MH_ERR_IO, "write error on standard output: %s", strerror(errno));
    }
    if (rc != MH_OK) return mh_cli_fail_err("report", &err);
    if (!quiet && !to_stdout) fprintf(stderr, "memheat: report written to %s\n", outp);
    if (note[0]) return mh_cli_fail("report", MH_EXIT_PARTIAL, "%s", note);
    return MH_EXIT_OK;
}
