/* cmd_synth.c -- `memheat synth -o TRACE`: synthetic traces of known shapes,
 * for tests, benchmarks and trying memheat without a GPU program. */
#include <getopt.h>
#include <string.h>

#include "cli/cli.h"
#include "collectors/synth.h"

static void help(FILE *f) {
    fputs("usage: memheat synth -o TRACE [options]\n\n"
          "Writes a trace with one launch per access shape (CUTHERMO Fig. 3 and 6).\n\n"
          "  -o, --output PATH    trace to write (required)\n"
          "      --shape LIST     comma-separated shapes or 'all' (default coalesced):\n"
          "                       coalesced false_sharing strided misaligned hot random_hot\n"
          "                       shared_private shared_warp shared_tile\n"
          "                       permutation_gather table_lookup csr_gather edge_partial_warp\n"
          "      --warps N        warps per block (default 8)\n"
          "      --blocks N       sampled blocks per launch (default 1)\n"
          "      --iters N        accesses per thread (default 1)\n"
          "      --stride N       words between strided accesses (default 8)\n"
          "      --offset N       bytes of misalignment (default 4)\n"
          "      --seed N         seed of the random shapes (default 0)\n"
          "  -h, --help\n", f);
}

#define SYNTH_MAX_ACCESSES (1ull << 28) /* 8 GiB of raw accesses; about 1 GiB on disk */

int mh_cmd_synth(int argc, char **argv) {
    enum { O_SHAPE = 256, O_WARPS, O_BLOCKS, O_ITERS, O_STRIDE, O_OFFSET, O_SEED };
    static const struct option longopts[] = {
        {"output", required_argument, 0, 'o'}, {"shape", required_argument, 0, O_SHAPE},
        {"warps", required_argument, 0, O_WARPS}, {"blocks", required_argument, 0, O_BLOCKS},
        {"iters", required_argument, 0, O_ITERS}, {"stride", required_argument, 0, O_STRIDE},
        {"offset", required_argument, 0, O_OFFSET}, {"seed", required_argument, 0, O_SEED},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    mh_synth_opts o = {0};
    const char *out = NULL;
    uint64_t v;
    int opt, code;
    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
        switch (opt) {
        case 'o': out = optarg; break;
        case O_SHAPE: {
            char buf[512];
            snprintf(buf, sizeof buf, "%s", optarg);
            if (strspn(optarg, ",") == strlen(optarg))
                return mh_cli_fail("synth", MH_EXIT_USAGE, "--shape needs at least one shape (or 'all')");
            for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                if (!strcmp(t, "all")) {
                    o.shapes = (1u << MH_SYNTH_SHAPE_COUNT) - 1;
                    continue;
                }
                int s = mh_synth_shape_parse(t);
                if (s < 0) return mh_cli_fail("synth", MH_EXIT_USAGE, "unknown shape '%s'", t);
                o.shapes |= 1u << s;
            }
            break;
        }
        case O_WARPS: if ((code = mh_cli_u64("synth", "--warps", optarg, 32, &v))) return code; if (!v) return mh_cli_fail("synth", MH_EXIT_USAGE, "--warps must be at least 1"); o.warps = (uint32_t)v; break;
        case O_BLOCKS: if ((code = mh_cli_u64("synth", "--blocks", optarg, 64, &v))) return code; if (!v) return mh_cli_fail("synth", MH_EXIT_USAGE, "--blocks must be at least 1"); o.blocks = (uint32_t)v; break;
        case O_ITERS: if ((code = mh_cli_u64("synth", "--iters", optarg, UINT32_MAX, &v))) return code; if (!v) return mh_cli_fail("synth", MH_EXIT_USAGE, "--iters must be at least 1"); o.iters = (uint32_t)v; break;
        case O_STRIDE: if ((code = mh_cli_u64("synth", "--stride", optarg, 1u << 20, &v))) return code; o.stride = (uint32_t)v; break;
        case O_OFFSET: if ((code = mh_cli_u64("synth", "--offset", optarg, 1u << 20, &v))) return code; o.offset = (uint32_t)v; break;
        case O_SEED: if ((code = mh_cli_u64("synth", "--seed", optarg, UINT64_MAX, &v))) return code; o.seed = v; break;
        case 'h': help(stdout); return MH_EXIT_OK;
        default: return mh_cli_bad_option("synth", argv, opt);
        }
    }
    if (optind != argc) return mh_cli_usage("synth", "unexpected argument '%s'", argv[optind]);
    if (!out) return mh_cli_usage("synth", "no trace to write (-o TRACE)");
    /* 0 is "the default" inside mh_synth_opts: an explicit 0 is refused above;
     * the size is bounded so a typo cannot fill the disk */
    if (o.offset == 0) o.offset = 4;
    uint64_t shapes = 0;
    for (uint32_t m = o.shapes ? o.shapes : 1u; m; m &= m - 1) shapes++;
    uint64_t accesses = shapes * (o.blocks ? o.blocks : 1) * (o.warps ? o.warps : 8) * 32u * (o.iters ? o.iters : 1);
    if (accesses > SYNTH_MAX_ACCESSES)
        return mh_cli_fail("synth", MH_EXIT_USAGE,
                           "%llu accesses asked (shapes x blocks x warps x 32 x iters); at most %llu",
                           (unsigned long long)accesses, (unsigned long long)SYNTH_MAX_ACCESSES);
    mh_err err = {0};
    if (mh_synth_write(out, &o, &err) != MH_OK) return mh_cli_fail_err("synth", &err);
    return MH_EXIT_OK;
}
