/* cmd_run.c -- `memheat run [options] -- PROGRAM [ARGS]`: profile a program.
 *
 * Parses the sampling and pass options into an mh_run_opts, names the outputs
 * after the profile name (-o NAME, or the first free memheat_<program>_<N> as
 * ncu does with report<N>) and hands over to the run layer (src/run/,
 * src/run/run.h), which picks the back end, runs the program and
 * builds the profile. A program that fails still leaves what was collected;
 * memheat then exits with code 3. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/fixes_print.h"
#include "cli/cli.h"
#include "run/run.h"
#include "util/outname.h"

static void help(FILE *f) {
    fputs("usage: memheat run [options] -- PROGRAM [ARGS...]\n\n"
          "Runs PROGRAM (unmodified) under memheat and builds the profile. By default a\n"
          "CUDA program runs twice: timed (CUPTI activity records; hardware counters of\n"
          "the first launch of each configuration), then traced (the sampled blocks of\n"
          "the sampled launches), whose start-up overlaps the timed run while its GPU\n"
          "work waits for it. OpenCL programs run under Oclgrind (traced, not timed).\n\n"
          "output:\n"
          "  -o, --output NAME      profile name (default memheat_<program>_<N>): NAME.mhdb,\n"
          "                         NAME.mht (trace, kept with --keep-trace), NAME.timing.json;\n"
          "                         %p pid, %h host, %r rank (RANK, OMPI_COMM_WORLD_RANK,\n"
          "                         PMI_RANK, SLURM_PROCID; 0 if none), %q{VAR}, %% a percent\n"
          "      --keep-trace       keep the raw trace next to the profile\n"
          "back end:\n"
          "      --backend B        auto (default), cuda, or oclgrind (OpenCL under the simulator)\n"
          "sampling (traced run):\n"
          "      --block B          block to trace: linear id or x,y,z (default 0)\n"
          "      --blocks N         trace N consecutive blocks from --block (default 1)\n"
          "      --all-blocks       trace every block (whole-kernel metrics; slow)\n"
          "      --kernel REGEX     trace launches whose mangled or demangled name matches\n"
          "      --launch-skip N    skip the first N matching launches\n"
          "      --launch-policy P  which matching launches are traced: config (default: the\n"
          "                         first of each kernel/grid/block/shared-memory configuration,\n"
          "                         at most 4 configurations per kernel; config:N for N, config:0\n"
          "                         for no limit; every launch is still counted), shape (as config,\n"
          "                         but a new grid of a traced kernel/block/shared memory is not\n"
          "                         traced: programs whose sizes change every step), all, or every:N\n"
          "      --launch-count N   trace at most N matching launches (default all)\n"
          "      --warp-size N      warp size for OpenCL, which has no warps (default 32)\n"
          "      --frame-filter S   also treat frames whose object, file or function contains one\n"
          "                         of S (':'-separated) as library code, not yours, when naming\n"
          "                         the line that launched a kernel (MEMHEAT_FRAME_FILTER)\n"
          "      --buffer-bytes N   collector's access buffer size\n"
          "      --trace-collectives  trace NCCL kernels too (default: counted and timed, not\n"
          "                         traced: they wait for other processes)\n"
          "passes (CUDA):\n"
          "      --passes separate  default: an un-instrumented timing run (CUPTI activity\n"
          "                         records: every launch, graph kernels too, as the GPU ran it)\n"
          "                         that also counts the first launch of each configuration,\n"
          "                         then the traced run; for a rank of a job (RANK,\n"
          "                         OMPI_COMM_WORLD_RANK, PMI_RANK or SLURM_PROCID set)\n"
          "                         the default is --passes one: its second run would not find the job\n"
          "      --passes one       one run, traced and timed in the same process: faster, but\n"
          "                         kernels timed with CUDA events; launches without a clean time\n"
          "                         (traced, or on an idle stream) take their configuration's\n"
          "                         median or are left out\n"
          "      --counters         a hardware-counters run of its own after the timing run: every\n"
          "                         launch's DRAM bytes and what else one profiler pass holds (each\n"
          "                         launch runs once, as the program runs it; MEMHEAT_COUNTERS_METRICS,\n"
          "                         docs/timing.md)\n"
          "      --no-counters      no hardware counters (the default with --passes one)\n"
          "      --no-overlap       start the traced run after the timing run ends, not with it\n"
          "                         (its start-up then does not overlap the timing run; always so\n"
          "                         for a rank of a job or a job launcher such as torchrun)\n"
          "      --no-trace         timing only (its own un-instrumented run)\n"
          "      --no-timing        trace only\n"
          "  -q, --quiet\n"
          "  -h, --help\n", f);
}

static int pick_name(const char *program, char *out, size_t cap) {
    const char *base = strrchr(program, '/');
    base = base ? base + 1 : program;
    for (int i = 1; i < 100000; i++) {
        char probe[1200];
        snprintf(out, cap, "memheat_%s_%d", base, i);
        snprintf(probe, sizeof probe, "%s.mhdb", out);
        if (access(probe, F_OK) != 0 && (snprintf(probe, sizeof probe, "%s.mht", out), access(probe, F_OK) != 0))
            return 0;
    }
    return -1;
}

int mh_cmd_run(int argc, char **argv) {
    enum { O_KEEP = 256, O_BACKEND, O_BLOCK, O_BLOCKS, O_ALL, O_KERNEL, O_SKIP, O_COUNT, O_POLICY, O_WARP, O_BUF,
           O_NOTRACE, O_NOTIMING, O_NOCOUNTERS, O_COUNTERS, O_PASSES, O_COLL, O_FILTER, O_NOOVERLAP };
    static const struct option longopts[] = {
        {"output", required_argument, 0, 'o'}, {"keep-trace", no_argument, 0, O_KEEP},
        {"backend", required_argument, 0, O_BACKEND}, {"block", required_argument, 0, O_BLOCK},
        {"blocks", required_argument, 0, O_BLOCKS}, {"all-blocks", no_argument, 0, O_ALL},
        {"kernel", required_argument, 0, O_KERNEL}, {"launch-skip", required_argument, 0, O_SKIP},
        {"launch-count", required_argument, 0, O_COUNT},
        {"launch-policy", required_argument, 0, O_POLICY}, {"warp-size", required_argument, 0, O_WARP},
        {"buffer-bytes", required_argument, 0, O_BUF}, {"no-trace", no_argument, 0, O_NOTRACE},
        {"no-timing", no_argument, 0, O_NOTIMING}, {"no-counters", no_argument, 0, O_NOCOUNTERS},
        {"counters", no_argument, 0, O_COUNTERS}, {"passes", required_argument, 0, O_PASSES},
        {"no-overlap", no_argument, 0, O_NOOVERLAP},
        {"trace-collectives", no_argument, 0, O_COLL}, {"frame-filter", required_argument, 0, O_FILTER},
        {"quiet", no_argument, 0, 'q'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    mh_run_opts o;
    memset(&o, 0, sizeof o);
    mh_collect_cfg_init(&o.collect);
    o.trace = o.timing = 1;
    o.counters = -1;               /* counters: in the timing run with separate passes, --counters / --no-counters */
    o.passes = MH_PASSES_AUTO; /* separate, but one run for a rank of a job; --passes one / separate */
    const char *name = NULL;
    uint64_t v;
    int opt, code;
    mh_err err = {0};
    optind = 1;
    /* '+': stop at the first non-option, so the program's own flags are left alone. */
    opterr = 0;
    while ((opt = getopt_long(argc, argv, "+:o:qh", longopts, NULL)) != -1) {
        switch (opt) {
        case 'o': name = optarg; break;
        case O_KEEP: o.keep_trace = 1; break;
        case O_BACKEND:
            if (strcmp(optarg, "auto") != 0 && !mh_run_backend_pick(optarg, NULL, &err))
                return mh_cli_fail("run", MH_EXIT_USAGE, "%s", err.msg);
            o.backend = optarg;
            break;
        case O_PASSES:
            if (!strcmp(optarg, "one")) o.passes = MH_PASSES_ONE;
            else if (!strcmp(optarg, "separate")) o.passes = MH_PASSES_SEPARATE;
            else return mh_cli_fail("run", MH_EXIT_USAGE, "unknown --passes '%s' (one, separate)", optarg);
            break;
        case O_BLOCK:
            if (mh_collect_parse_block(optarg, &o.collect.block, &o.collect.block_3d, &err) != MH_OK)
                return mh_cli_fail_err("run", &err);
            break;
        case O_BLOCKS:
            if ((code = mh_cli_u64("run", "--blocks", optarg, MH_COLLECT_MAX_BLOCKS, &v))) return code;
            o.collect.nblocks = (uint32_t)v;
            break;
        case O_ALL: o.collect.all_blocks = 1; break;
        case O_KERNEL: snprintf(o.collect.kernel_regex, sizeof o.collect.kernel_regex, "%s", optarg); break;
        case O_SKIP:
            if ((code = mh_cli_u64("run", "--launch-skip", optarg, UINT64_MAX, &o.collect.launch_skip))) return code;
            break;
        case O_COUNT:
            if ((code = mh_cli_u64("run", "--launch-count", optarg, UINT64_MAX, &o.collect.launch_count))) return code;
            break;
        case O_POLICY:
            if (mh_collect_parse_policy(optarg, &o.collect, &err) != MH_OK) return mh_cli_fail_err("run", &err);
            break;
        case O_WARP:
            if ((code = mh_cli_u64("run", "--warp-size", optarg, 1024, &v))) return code;
            o.collect.warp_size = (uint32_t)v;
            break;
        case O_BUF:
            if ((code = mh_cli_u64("run", "--buffer-bytes", optarg, UINT64_MAX, &o.collect.buffer_bytes))) return code;
            break;
        case O_NOTRACE: o.trace = 0; break;
        case O_NOOVERLAP: o.no_overlap = 1; break;
        case O_NOTIMING: o.timing = 0; break;
        case O_NOCOUNTERS: o.counters = 0; break;
        case O_COUNTERS: o.counters = 1; break;
        case O_COLL: o.collect.trace_collectives = 1; break;
        case O_FILTER: setenv("MEMHEAT_FRAME_FILTER", optarg, 1); break; /* the collector's and the import's */
        case 'q': o.quiet = 1; break;
        case 'h': help(stdout); return MH_EXIT_OK;
        default: return mh_cli_bad_option("run", argv, opt);
        }
    }
    if (optind >= argc) return mh_cli_usage("run", "no program given (memheat run [options] -- PROGRAM)");
    if (name && !*name) return mh_cli_usage("run", "-o needs a profile name, not ''");
    if (!o.trace && !o.timing) return mh_cli_fail("run", MH_EXIT_USAGE, "--no-trace and --no-timing leave nothing to do");
    if (o.counters > 0 && !o.timing) return mh_cli_fail("run", MH_EXIT_USAGE, "--counters needs the timing (drop --no-timing)");
    if (mh_collect_cfg_finish(&o.collect, &err) != MH_OK) return mh_cli_fail_err("run", &err);
    o.argv = argv + optind;
    if (mh_cli_self_dir(o.self_dir, sizeof o.self_dir) != 0)
        return mh_cli_fail("run", MH_EXIT_ERROR, "cannot locate the memheat executable (/proc/self/exe)");
    char base[1000];
    if (name) {
        /* %p %h %r %q{VAR} %%: one command line names every rank's profile (util/outname.h) */
        if (mh_outname_expand(name, base, sizeof base, &err) != MH_OK) {
            err.code = MH_ERR_ARG;
            return mh_cli_fail("run", MH_EXIT_USAGE, "%s", err.msg);
        }
        size_t n = strlen(base);
        if (n > 5 && !strcmp(base + n - 5, ".mhdb")) base[n - 5] = '\0';
    } else if (pick_name(o.argv[0], base, sizeof base) != 0) {
        return mh_cli_fail("run", MH_EXIT_ERROR, "no free default profile name; give one with -o");
    }
    snprintf(o.collect.trace_path, sizeof o.collect.trace_path, "%s.mht", base);
    snprintf(o.timing_path, sizeof o.timing_path, "%s.timing.json", base);
    snprintf(o.profile_path, sizeof o.profile_path, "%s.mhdb", base);
    int rc = mh_run_pipeline(&o, &err);
    mh_collect_cfg_free(&o.collect);
    if (rc != MH_OK) {
        int code = mh_cli_fail_err("run", &err);
        return mh_run_interrupted() ? 128 + mh_run_interrupted() : code; /* as a shell reports a signal */
    }
    if (!o.quiet) { /* the top five fixes close the output (issue 40); -q silences them */
        fflush(stderr);
        mh_err ferr = {0};
        putchar('\n');
        if (mh_cli_fixes_of_profile(o.profile_path, stdout, 5, 1, &ferr) != MH_OK)
            fprintf(stderr, "memheat: warning: ranking the fixes: %s\n", ferr.msg);
        fflush(stdout);
    }
    return MH_EXIT_OK;
}
