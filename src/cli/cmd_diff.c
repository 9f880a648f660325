/* cmd_diff.c -- `memheat diff A B [--html out.html] [--pair OLD=NEW]...
 * [--match order]`: per kernel, before and after time, bandwidth, bound and
 * findings (src/report/diff.c); renamed kernels paired by the user or by
 * launch order. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "store/store.h"
#include "report/report.h"
#include "util/outfile.h"

static void help(FILE *f) {
    fputs("usage: memheat diff A.mhdb B.mhdb [--html out.html [-f]] [--pair OLD=NEW]... [--match order]\n\n"
          "Compares two profiles kernel by kernel: total GPU time before (A) and after (B)\n"
          "and its change, effective bandwidth and share of peak, the bound verdict, and\n"
          "the findings that appeared in B or disappeared from A.\n\n"
          "  --html PATH       also write the comparison as a self-contained HTML page\n"
          "  --pair OLD=NEW    kernel OLD of A is kernel NEW of B (a fix renamed it); repeatable\n"
          "  --match order     pair the kernels left unpaired by name in the order of their\n"
          "                    first launch (by default they are listed as only in A / only in B)\n"
          "  -f, --force       replace an existing --html file\n"
          "  -h, --help        this text\n"
          "The output says which pairing each row used.\n",
          f);
}

int mh_cmd_diff(int argc, char **argv) {
    enum { O_PAIR = 256, O_MATCH };
    static const struct option longopts[] = {{"html", required_argument, 0, 'H'},
                                             {"pair", required_argument, 0, O_PAIR},
                                             {"match", required_argument, 0, O_MATCH},
                                             {"force", no_argument, 0, 'f'},
                                             {"help", no_argument, 0, 'h'},
                                             {0, 0, 0, 0}};
    enum { MAXPAIRS = 256 };
    static char pairbuf[MAXPAIRS][512];
    const char *pold[MAXPAIRS], *pnew[MAXPAIRS];
    mh_report_diff_opts dopt = {.pair_old = pold, .pair_new = pnew};
    const char *html = NULL;
    int c, force = 0;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":fh", longopts, NULL)) != -1) {
        switch (c) {
        case 'H': html = optarg; break;
        case 'f': force = 1; break;
        case O_PAIR: {
            char *eq = strchr(optarg, '=');
            if (!eq || eq == optarg || !eq[1] || strlen(optarg) >= sizeof pairbuf[0])
                return mh_cli_fail("diff", MH_EXIT_USAGE, "--pair wants OLD=NEW (two kernel names), not '%s'", optarg);
            if (dopt.npairs == MAXPAIRS) return mh_cli_fail("diff", MH_EXIT_USAGE, "at most %d --pair options", MAXPAIRS);
            char *b = pairbuf[dopt.npairs];
            snprintf(b, sizeof pairbuf[0], "%s", optarg);
            b[eq - optarg] = 0;
            pold[dopt.npairs] = b;
            pnew[dopt.npairs++] = b + (eq - optarg) + 1;
            break;
        }
        case O_MATCH:
            if (strcmp(optarg, "order") && strcmp(optarg, "name"))
                return mh_cli_fail("diff", MH_EXIT_USAGE, "--match takes 'order' or 'name', not '%s'", optarg);
            dopt.match_order = !strcmp(optarg, "order");
            break;
        case 'h': help(stdout); return MH_EXIT_OK;
        default: return mh_cli_bad_option("diff", argv, c);
        }
    }
    if (optind != argc - 2) return mh_cli_usage("diff", "two profiles to compare, not %d", argc - optind);
    mh_err err = {0};
    mh_db *a = NULL, *b = NULL;
    if (mh_db_open(&a, argv[optind], 0, &err) != MH_OK) return mh_cli_fail_err("diff", &err);
    if (mh_db_open(&b, argv[optind + 1], 0, &err) != MH_OK) {
        mh_db_close(a);
        return mh_cli_fail_err("diff", &err);
    }
    /* the page goes to a temporary beside PATH, renamed when complete; never over an input */
    mh_outfile of = {0};
    if (html && ((mh_outfile_not_input(html, argv[optind], &err) != MH_OK ||
                  mh_outfile_not_input(html, argv[optind + 1], &err) != MH_OK) ||
                 mh_outfile_open(&of, html, force ? MH_OUTFILE_FORCE : 0, &err) != MH_OK)) {
        mh_db_close(a);
        mh_db_close(b);
        return mh_cli_fail_err("diff", &err);
    }
    int rc = mh_report_diff_ex(a, b, stdout, mh_cli_color(stdout), of.f, &dopt, &err);
    char note[600] = "";
    if (!mh_db_notice(a, note, sizeof note)) mh_db_notice(b, note, sizeof note);
    mh_db_close(a);
    mh_db_close(b);
    if (html && rc == MH_OK) rc = mh_outfile_commit(&of, &err);
    else if (html) mh_outfile_abort(&of);
    if (rc != MH_OK) return mh_cli_fail_err("diff", &err);
    if (note[0]) return mh_cli_fail("diff", MH_EXIT_PARTIAL, "%s", note);
    return MH_EXIT_OK;
}
