/* cmd_heatmap.c -- `memheat heatmap TRACE|PROFILE`: word-sector heat maps.
 *
 * Streams the trace through the model and the heat-map runner, or reads the
 * maps a profile stored (profile_in.c: told by the file's first bytes). Without -o the
 * maps are rendered on the terminal (folded rows); with -o DIR each (launch,
 * space) map is written as DIR/launch<ID>_<space>.csv in the paper's shape plus
 * DIR/launch<ID>_<space>_regions.csv (each through util/outfile.h). A trace
 * cut short, without its end record or with bad records skipped still yields
 * the maps of every finished launch, and the command then exits with code 4
 * (mh_pass_notice). */
#include <errno.h>
#include <getopt.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "analyses/heat.h"
#include "analyses/model.h"
#include "cli/cli.h"
#include "cli/profile_in.h"
#include "pass/pass.h"
#include "util/outfile.h"

typedef struct hm_ctx {
    const char *outdir;
    int have_launch;
    uint32_t launch;
    int have_regex;
    regex_t regex;
    size_t max_rows;
    int color;
    size_t maps;
} hm_ctx;

static void help(FILE *f) {
    fputs("usage: memheat heatmap TRACE|PROFILE [options]\n\n"
          "Word-sector heat maps: for every 32-byte sector, the number of distinct warps\n"
          "that touched each of its eight 4-byte words and the sector as a whole.\n"
          "A profile (.mhdb, what memheat run writes) gives the maps it stored.\n\n"
          "  -o, --output DIR     write launch<ID>_<space>.csv and _regions.csv into DIR\n"
          "      --launch ID      only this launch\n"
          "      --kernel REGEX   only launches whose name matches (POSIX extended)\n"
          "      --space NAME     global, shared, local or constant (default: all)\n"
          "      --rows N         terminal: print at most N rows per map (default 200, 0 = all)\n"
          "      --no-color       terminal: no colours\n"
          "  -q, --quiet          no progress line on stderr\n"
          "  -h, --help\n", f);
}

static int emit(void *vctx, const mh_heat_result *r, mh_err *err) {
    hm_ctx *c = vctx;
    if (c->have_launch && r->launch->l.id != c->launch) return MH_OK;
    if (c->have_regex && regexec(&c->regex, r->launch->l.name, 0, NULL, 0) != 0 &&
        regexec(&c->regex, r->launch->l.display_name, 0, NULL, 0) != 0)
        return MH_OK;
    c->maps++;
    if (!c->outdir) {
        int rc = mh_heat_render(stdout, r, c->color, c->max_rows, err);
        putchar('\n');
        return rc;
    }
    char path[4096];
    for (int k = 0; k < 2; k++) {
        snprintf(path, sizeof path, "%s/launch%u_%s%s.csv", c->outdir, r->launch->l.id, mh_space_name(r->space),
                 k ? "_regions" : "");
        mh_outfile of; /* temporary + rename: a failed write never leaves a cut CSV */
        int rc = mh_outfile_open(&of, path, MH_OUTFILE_FORCE, err);
        if (rc != MH_OK) return rc;
        rc = k ? mh_heat_write_regions(of.f, r, err) : mh_heat_write_csv(of.f, r, err);
        if (rc != MH_OK) mh_outfile_abort(&of);
        else rc = mh_outfile_commit(&of, err);
        if (rc != MH_OK) return rc;
    }
    return MH_OK;
}

int mh_cmd_heatmap(int argc, char **argv) {
    enum { O_LAUNCH = 256, O_KERNEL, O_SPACE, O_ROWS, O_NOCOLOR };
    int quiet = 0;
    static const struct option longopts[] = {{"output", required_argument, 0, 'o'},
                                             {"launch", required_argument, 0, O_LAUNCH},
                                             {"kernel", required_argument, 0, O_KERNEL},
                                             {"space", required_argument, 0, O_SPACE},
                                             {"rows", required_argument, 0, O_ROWS},
                                             {"no-color", no_argument, 0, O_NOCOLOR},
                                             {"quiet", no_argument, 0, 'q'},
                                             {"help", no_argument, 0, 'h'},
                                             {0, 0, 0, 0}};
    hm_ctx c = {.max_rows = 200, .color = mh_cli_color(stdout)};
    uint32_t space_mask = 0;
    uint64_t v;
    int opt, code = MH_EXIT_OK;
    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":o:qh", longopts, NULL)) != -1) {
        switch (opt) {
        case 'o': c.outdir = optarg; break;
        case O_LAUNCH:
            if ((code = mh_cli_u64("heatmap", "--launch", optarg, UINT32_MAX, &v))) goto out;
            c.have_launch = 1;
            c.launch = (uint32_t)v;
            break;
        case O_KERNEL:
            if (c.have_regex) regfree(&c.regex);
            if (regcomp(&c.regex, optarg, REG_EXTENDED | REG_NOSUB) != 0) {
                code = mh_cli_fail("heatmap", MH_EXIT_USAGE, "bad --kernel regex '%s'", optarg);
                goto out;
            }
            c.have_regex = 1;
            break;
        case O_SPACE: {
            unsigned s = 0;
            while (s < MH_SPACE_COUNT && strcmp(mh_space_name(s), optarg) != 0) s++;
            if (s == MH_SPACE_COUNT) {
                code = mh_cli_fail("heatmap", MH_EXIT_USAGE, "unknown --space '%s' (global, shared, local, constant)",
                                   optarg);
                goto out;
            }
            space_mask |= 1u << s;
            break;
        }
        case O_ROWS:
            if ((code = mh_cli_u64("heatmap", "--rows", optarg, SIZE_MAX, &v))) goto out;
            c.max_rows = (size_t)v;
            break;
        case O_NOCOLOR: c.color = 0; break;
        case 'q': quiet = 1; break;
        case 'h': help(stdout); goto out;
        default: code = mh_cli_bad_option("heatmap", argv, opt); goto out;
        }
    }
    if (optind != argc - 1) {
        code = optind >= argc ? mh_cli_usage("heatmap", "no trace or profile given")
                              : mh_cli_usage("heatmap", "one trace or profile at a time, not also '%s'", argv[optind + 1]);
        goto out;
    }
    if (c.outdir && mkdir(c.outdir, 0755) != 0 && errno != EEXIST) {
        code = mh_cli_fail("heatmap", MH_EXIT_ERROR, "cannot create %s: %s", c.outdir, strerror(errno));
        goto out;
    }
    mh_err err = {0};
    if (mh_cli_input_kind(argv[optind]) == MH_CLI_IN_PROFILE) {
        size_t nl = 0;
        uint64_t dropped = 0;
        if (mh_cli_profile_heat(argv[optind], space_mask, emit, &c, &nl, &dropped, &err) != MH_OK)
            code = mh_cli_fail_err("heatmap", &err); /* an incomplete profile: exit 4 after its maps */
        else if (c.maps == 0)
            fprintf(stderr, "memheat heatmap: no accesses matched (launches: %zu)\n", nl);
        if (code == MH_EXIT_OK && dropped)
            fprintf(stderr, "memheat heatmap: warning: the collector dropped %llu accesses; temperatures undercount\n",
                    (unsigned long long)dropped);
        goto out;
    }
    mh_model m;
    mh_pass *p;
    mh_pass_opts po = {.analyses = MH_PASS_HEAT, .heat_spaces = space_mask};
    if (!quiet && isatty(STDERR_FILENO)) po.progress = mh_cli_progress;
    int rc = mh_pass_open(&p, argv[optind], &m, &po, &err);
    if (rc != MH_OK) {
        code = mh_cli_fail_err("heatmap", &err);
        goto out;
    }
    mh_pass_consumer pc = {.ctx = &c, .heat = emit};
    rc = mh_pass_add(p, &pc, &err);
    /* whatever was read, even before a cut or damage, is still mapped */
    if (rc == MH_OK) rc = mh_pass_run(p, &err);
    char note[1024];
    int noted = mh_pass_notice(mh_pass_stats_get(p), argv[optind], note, sizeof note);
    mh_pass_close(p);
    if (rc != MH_OK) code = mh_cli_fail_err("heatmap", &err);
    else if (noted) code = mh_cli_fail("heatmap", MH_EXIT_PARTIAL, "%s", note);
    else if (c.maps == 0)
        fprintf(stderr, "memheat heatmap: no accesses matched (launches: %zu)\n", m.nlaunches);
    if (rc == MH_OK && m.dropped_total)
        fprintf(stderr, "memheat heatmap: warning: the collector dropped %llu accesses; temperatures undercount\n",
                (unsigned long long)m.dropped_total);
    mh_model_free(&m);
out:
    if (c.have_regex) regfree(&c.regex);
    return code;
}
