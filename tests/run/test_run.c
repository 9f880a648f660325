/* test_run.c -- the run layer on the CPU: the back-end table, the environment
 * of each pass (the one-pass CUDA contract: CUDA_INJECTION64_PATH, MEMHEAT_*
 * sampling, MEMHEAT_TIMING_OUT/MODE/LIB, MEMHEAT_COMMAND) seen by a real
 * child (/usr/bin/env), and whole pipelines with this executable standing in
 * for a CUDA program and its collectors ("fake" below): it writes a synthetic
 * trace where MEMHEAT_TRACE says and a timing / counters file where
 * MEMHEAT_TIMING_OUT says, and logs each run, so the number of runs of the
 * program per mode is checked. The collector libraries are empty files in a
 * fake lib dir ($MEMHEAT_LIB_DIR). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "memheat/collect.h"
#include "run/run.h"
#include "collectors/synth.h"
#include "memheat/timing.h"
#include "mh_test.h"

static char g_dir[512], g_self[1024], g_log[600];

static const char *path_in(const char *name) {
    static char buf[4][700];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", g_dir, name);
    return buf[k];
}

static void touch(const char *p) {
    FILE *f = fopen(p, "wb");
    if (f) fclose(f);
}

static char *slurp(const char *p) {
    FILE *f = fopen(p, "rb");
    if (!f) return NULL;
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

static int runs_logged(void) {
    char *s = slurp(g_log);
    int n = 0;
    for (; s && *s; s++) n += *s == '\n';
    return n;
}

static const char *g_log_env(void) { return getenv("MH_TEST_RUNLOG"); }

static void append_log(const char *line) {
    FILE *f = fopen(g_log_env(), "a");
    if (f) {
        fputs(line, f);
        fclose(f);
    }
}

static void nap_ms(long ms) {
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

/* ---- the fake program ---------------------------------------------------- */

static mh_timing_kernel *fake_kernel(mh_timing *t, const char *name, uint32_t corr, uint32_t grid) {
    mh_timing_kernel *k = mh_timing_add_kernel(t, name);
    k->correlation = corr;
    k->start_ns = 1000 * corr;
    k->end_ns = 1000 * corr + 500;
    k->grid[0] = grid, k->grid[1] = k->grid[2] = 1;
    k->block[0] = 128, k->block[1] = k->block[2] = 1;
    return k;
}

/* Launches: A(grid 4), B(grid 8), A(grid 4), B(grid 8). */
static int fake_program(void) {
    FILE *lf = fopen(getenv("MH_TEST_RUNLOG"), "a");
    const char *inj = getenv("CUDA_INJECTION64_PATH"), *mode = getenv("MEMHEAT_TIMING_MODE");
    const char *tout = getenv("MEMHEAT_TIMING_OUT"), *sample = getenv("MEMHEAT_COUNTERS_SAMPLE");
    const char *also = getenv("MEMHEAT_TIMING_COUNTERS"); /* the timing run counts each configuration's first */
    int timing_counters = mode && strcmp(mode, "timing") == 0 && also && strcmp(also, "config") == 0;
    int traced = inj && strstr(inj, "libmemheat_cuda.so") != NULL;
    int timer = tout && (getenv("MEMHEAT_TIMING_LIB") || (inj && strstr(inj, "libmemheat_cupti.so")));
    const char *overlap = getenv("MH_TEST_OVERLAP"); /* ms the timing run waits for the traced run's start */
    if (traced) {
        /* the start-up, then CUDA's initialization, where the collector waits at the gate */
        if (overlap) append_log("traced start\n");
        mh_collect_start_wait();
    }
    if (overlap && timer && !traced) {
        for (long ms = 0; ms < atol(overlap); ms += 10) {
            const char *log = slurp(g_log_env());
            if (log && strstr(log, "traced start")) break;
            nap_ms(10);
        }
        nap_ms(100); /* a traced run not held at the gate would log its end meanwhile */
    }
    if (lf) {
        fprintf(lf, "%s %s%s\n", traced ? "traced" : "untraced", timer ? mode : "-",
                timer && timing_counters ? "+counters" : "");
        fclose(lf);
    }
    if (traced) {
        mh_synth_opts so = {.shapes = 1u << MH_SYNTH_COALESCED, .warps = 2, .blocks = 1, .iters = 1,
                            .stride = 8, .offset = 4, .warp_size = 32};
        if (mh_synth_write(getenv("MEMHEAT_TRACE"), &so, NULL) != MH_OK) return 9;
    }
    if (timer && !getenv("MH_TEST_NO_TIMING_FILE")) {
        mh_timing t;
        mh_timing_init(&t);
        mh_timing_device d = {.id = 0, .cc_major = 9, .sm_count = 132, .mem_clock_khz = 2619000, .bus_width_bits = 5120};
        snprintf(d.name, sizeof d.name, "Fake GPU");
        mh_timing_add_device(&t, &d);
        snprintf(t.command, sizeof t.command, "%s", getenv("MEMHEAT_COMMAND") ? getenv("MEMHEAT_COMMAND") : "");
        int counters = mode && strcmp(mode, "counters") == 0;
        int per_config = counters && sample && strcmp(sample, "config") == 0;
        for (uint32_t i = 0; i < 4; i++) {
            if (per_config && i >= 2) break; /* first launch of each configuration only */
            mh_timing_kernel *k = fake_kernel(&t, i % 2 ? "B" : "A", i + 1, i % 2 ? 8 : 4);
            if (counters) {
                k->has_counters = 1;
                k->c.dram_read_bytes = 1000.0 * (i + 1);
            }
        }
        if (counters) snprintf(t.counters.status, sizeof t.counters.status, "ok");
        if (timing_counters) { /* as the collector does at exit: its first launches' counters joined */
            mh_timing ctr;
            mh_timing_init(&ctr);
            for (uint32_t i = 0; i < 2; i++) {
                mh_timing_kernel *k = fake_kernel(&ctr, i % 2 ? "B" : "A", i + 1, i % 2 ? 8 : 4);
                k->has_counters = 1;
                k->c.dram_read_bytes = 3000.0 * (i + 1);
            }
            const char *fail = getenv("MH_TEST_COUNTERS_FAIL");
            snprintf(ctr.counters.status, sizeof ctr.counters.status, "%s", fail ? "failed" : "ok");
            if (fail) snprintf(ctr.counters.message, sizeof ctr.counters.message, "%s", fail);
            int mrc = mh_timing_merge_counters(&t, &ctr, NULL);
            mh_timing_free(&ctr);
            if (mrc != MH_OK) return 7;
        }
        int rc = mh_timing_save(&t, NULL, tout, NULL);
        mh_timing_free(&t);
        if (rc != MH_OK) return 8;
    }
    const char *fail = getenv("MH_TEST_TIMING_STATUS");
    return timer && !traced && fail ? atoi(fail) : 0;
}

/* ---- tests --------------------------------------------------------------- */

static char *g_fake_argv[] = {g_self, "fake", NULL};
static char *g_env_argv[] = {"/usr/bin/env", NULL};

static void opts_for(mh_run_opts *o, char **argv) {
    memset(o, 0, sizeof *o);
    mh_collect_cfg_init(&o->collect);
    o->trace = o->timing = 1;
    o->counters = -1;
    o->quiet = 1;
    o->argv = argv;
    snprintf(o->collect.trace_path, sizeof o->collect.trace_path, "%s", path_in("p.mht"));
    snprintf(o->timing_path, sizeof o->timing_path, "%s", path_in("p.timing.json"));
    snprintf(o->profile_path, sizeof o->profile_path, "%s", path_in("p.mhdb"));
    snprintf(o->self_dir, sizeof o->self_dir, "%s", "/nonexistent");
}

static void test_table(void) {
    mh_err err = {0};
    const mh_run_backend *cuda = mh_run_backend_find("cuda"), *ocl = mh_run_backend_find("oclgrind");
    const mh_run_backend *cupti = mh_run_backend_find("cupti");
    CHECK(cuda && ocl && cupti && mh_run_backend_find("nope") == NULL);
    CHECK(cuda->role == MH_RUN_TRACER && ocl->role == MH_RUN_TRACER && cupti->role == MH_RUN_TIMER);
    CHECK(mh_run_backend_pick(NULL, "/bin/sh", &err) == cuda); /* not OpenCL: CUDA, the last resort */
    CHECK(mh_run_backend_pick("auto", "sh", &err) == cuda);
    CHECK(mh_run_backend_pick("oclgrind", "/bin/sh", &err) == ocl);
    CHECK(mh_run_backend_pick("cupti", "/bin/sh", &err) == NULL); /* a timer is not a tracer */
    CHECK(mh_run_backend_pick("bogus", "/bin/sh", &err) == NULL && strstr(err.msg, "cuda") && strstr(err.msg, "oclgrind"));
    CHECK(mh_run_backend_timer(cuda) == cupti);
    CHECK(mh_run_backend_timer(ocl) == NULL);
}

/* Runs cmd with stdout into a file; returns the output. */
static char *spawn_capture(const mh_run_cmd *cmd) {
    const char *out = path_in("env.out");
    fflush(stdout);
    int saved = dup(STDOUT_FILENO), fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CHECK(saved >= 0 && fd >= 0);
    dup2(fd, STDOUT_FILENO);
    close(fd);
    int status = -1;
    mh_err err = {0};
    int rc = mh_run_spawn(cmd->argv, cmd->env, &status, &err);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    CHECK(rc == MH_OK && status == 0);
    return slurp(out);
}

static int has_line(const char *text, const char *line) {
    size_t n = strlen(line);
    for (const char *p = text; p && (p = strstr(p, line)) != NULL; p++)
        if ((p == text || p[-1] == '\n') && (p[n] == '\n' || p[n] == '\0')) return 1;
    return 0;
}

static void test_one_pass_env(void) {
    mh_run_opts o;
    opts_for(&o, g_env_argv);
    mh_run_cmd cmd;
    mh_run_cmd_init(&cmd);
    mh_err err = {0};
    const mh_run_backend *cuda = mh_run_backend_find("cuda"), *cupti = mh_run_backend_find("cupti");
    CHECK(mh_run_build(&o, cuda, MH_RUN_TRACE, o.collect.trace_path, cupti, o.timing_path, &cmd, &err) == MH_OK);
    CHECK(cmd.argc == 1 && strcmp(cmd.argv[0], "/usr/bin/env") == 0);
    CHECK(mh_run_cmd_getenv(&cmd, "MEMHEAT_COUNTERS_SAMPLE") == NULL);
    char *text = spawn_capture(&cmd);
    char want[1200];
    snprintf(want, sizeof want, "CUDA_INJECTION64_PATH=%s", path_in("libmemheat_cuda.so"));
    CHECK(has_line(text, want));
    snprintf(want, sizeof want, "MEMHEAT_TIMING_LIB=%s", path_in("libmemheat_cupti.so"));
    CHECK(has_line(text, want));
    snprintf(want, sizeof want, "MEMHEAT_TIMING_OUT=%s", o.timing_path);
    CHECK(has_line(text, want));
    CHECK(has_line(text, "MEMHEAT_TIMING_MODE=timing"));
    CHECK(has_line(text, "MEMHEAT_COMMAND=/usr/bin/env"));
    snprintf(want, sizeof want, "MEMHEAT_TRACE=%s", o.collect.trace_path);
    CHECK(has_line(text, want));
    CHECK(has_line(text, "MEMHEAT_BLOCK=0") && has_line(text, "MEMHEAT_BLOCKS=1"));
    mh_run_cmd_free(&cmd);
    mh_collect_cfg_free(&o.collect);
}

static void test_no_timing_env(void) {
    mh_run_opts o;
    opts_for(&o, g_env_argv);
    mh_run_cmd cmd;
    mh_run_cmd_init(&cmd);
    mh_err err = {0};
    CHECK(mh_run_build(&o, mh_run_backend_find("cuda"), MH_RUN_TRACE, o.collect.trace_path, NULL, NULL, &cmd,
                       &err) == MH_OK);
    unsetenv("MEMHEAT_TIMING_OUT");
    char *text = spawn_capture(&cmd);
    CHECK(strstr(text, "MEMHEAT_TIMING_") == NULL);
    CHECK(strstr(text, "CUDA_INJECTION64_PATH=") != NULL);
    mh_run_cmd_free(&cmd);
    mh_collect_cfg_free(&o.collect);
}

static void test_own_pass_env(void) {
    mh_run_opts o;
    opts_for(&o, g_env_argv);
    mh_err err = {0};
    const mh_run_backend *cupti = mh_run_backend_find("cupti");
    /* the counters run profiles every launch, with or without --counters,
     * on either passes: no sampling asked of the collector */
    for (int i = 0; i < 4; i++) {
        o.passes = i % 2 ? MH_PASSES_SEPARATE : MH_PASSES_ONE;
        o.counters = i < 2 ? -1 : 1;
        mh_run_cmd cmd;
        mh_run_cmd_init(&cmd);
        CHECK(mh_run_build(&o, cupti, MH_RUN_COUNTERS, path_in("c.part"), NULL, NULL, &cmd, &err) == MH_OK);
        const char *inj = mh_run_cmd_getenv(&cmd, "CUDA_INJECTION64_PATH");
        CHECK(inj && strcmp(inj, path_in("libmemheat_cupti.so")) == 0);
        CHECK(strcmp(mh_run_cmd_getenv(&cmd, "MEMHEAT_TIMING_MODE"), "counters") == 0);
        CHECK(mh_run_cmd_getenv(&cmd, "MEMHEAT_TIMING_LIB") == NULL);
        CHECK(mh_run_cmd_getenv(&cmd, "MEMHEAT_COUNTERS_SAMPLE") == NULL);
        mh_run_cmd_free(&cmd);
    }
    mh_collect_cfg_free(&o.collect);
}

static void test_missing_lib(void) {
    mh_run_opts o;
    opts_for(&o, g_env_argv);
    mh_err err = {0};
    setenv("MEMHEAT_LIB_DIR", "/nonexistent", 1);
    mh_run_cmd cmd;
    mh_run_cmd_init(&cmd);
    CHECK(mh_run_build(&o, mh_run_backend_find("cuda"), MH_RUN_TRACE, o.collect.trace_path, NULL, NULL, &cmd,
                       &err) == MH_ERR_DEP);
    CHECK(strstr(err.msg, "libmemheat_cuda.so is not installed") || strstr(err.msg, "(libmemheat_cuda.so) is not"));
    mh_run_cmd_free(&cmd);
    setenv("MEMHEAT_LIB_DIR", g_dir, 1);
    mh_collect_cfg_free(&o.collect);
}

/* Whole pipeline with the fake program; returns mh_run_pipeline's status. */
static int pipeline(int passes, int counters, int timing, int trace) {
    mh_run_opts o;
    opts_for(&o, g_fake_argv);
    o.passes = passes;
    o.counters = counters;
    o.timing = timing;
    o.trace = trace;
    unlink(g_log);
    mh_err err = {0};
    int rc = mh_run_pipeline(&o, &err);
    if (rc != MH_OK) fprintf(stderr, "pipeline: %s\n", err.msg);
    mh_collect_cfg_free(&o.collect);
    return rc;
}

static void load_timing(mh_timing *t) {
    mh_err err = {0};
    CHECK(mh_timing_load(t, path_in("p.timing.json"), &err) == MH_OK);
}

static void test_pipeline_one(void) {
    CHECK(pipeline(MH_PASSES_ONE, -1, 1, 1) == MH_OK);
    CHECK(runs_logged() == 1);
    CHECK(has_line(slurp(g_log), "traced timing"));
    struct stat st;
    CHECK(stat(path_in("p.mhdb"), &st) == 0 && st.st_size > 0);
    CHECK(access(path_in("p.mht"), F_OK) != 0); /* trace removed after import */
    mh_timing t;
    load_timing(&t);
    CHECK(t.nkernels == 4 && !t.counters.requested && t.timing_run.ran);
    mh_timing_free(&t);
    CHECK(strstr(slurp(path_in("p.timing.json")), "\"analysis\"") != NULL); /* post-processed */
}

static void test_pipeline_one_counters(void) {
    CHECK(pipeline(MH_PASSES_ONE, 1, 1, 1) == MH_OK);
    CHECK(runs_logged() == 2);
    CHECK(has_line(slurp(g_log), "traced timing") && has_line(slurp(g_log), "untraced counters"));
    mh_timing t;
    load_timing(&t);
    CHECK(t.nkernels == 4 && strcmp(t.counters.status, "ok") == 0 && t.counters.matched == 4);
    for (size_t i = 0; i < t.nkernels; i++) {
        /* --counters profiles every launch: each has its own */
        CHECK(t.kernels[i].has_counters);
        CHECK(t.kernels[i].c.dram_read_bytes == 1000.0 * (double)(i + 1));
    }
    mh_timing_free(&t);
}

static void test_pipeline_separate(void) {
    /* the default: two runs, the timing run counting each configuration's first launch */
    CHECK(pipeline(MH_PASSES_SEPARATE, -1, 1, 1) == MH_OK);
    CHECK(runs_logged() == 2);
    CHECK(strcmp(slurp(g_log), "untraced timing+counters\ntraced -\n") == 0);
    mh_timing t;
    load_timing(&t);
    CHECK(t.nkernels == 4 && t.counters.matched == 4 && strcmp(t.counters.status, "ok") == 0);
    for (size_t i = 0; i < t.nkernels; i++)
        CHECK(t.kernels[i].has_counters &&
              t.kernels[i].c.dram_read_bytes == (strcmp(t.kernels[i].name, "A") == 0 ? 3000.0 : 6000.0));
    mh_timing_free(&t);
    /* counters that failed in the timing run: a counters run of its own instead */
    setenv("MH_TEST_COUNTERS_FAIL", "profiler refused", 1);
    CHECK(pipeline(MH_PASSES_SEPARATE, -1, 1, 1) == MH_OK);
    unsetenv("MH_TEST_COUNTERS_FAIL");
    CHECK(strcmp(slurp(g_log), "untraced timing+counters\nuntraced counters\ntraced -\n") == 0);
    load_timing(&t);
    CHECK(t.counters.matched == 4 && strcmp(t.counters.status, "ok") == 0);
    for (size_t i = 0; i < t.nkernels; i++)
        CHECK(t.kernels[i].has_counters && t.kernels[i].c.dram_read_bytes == 1000.0 * (double)(i + 1));
    mh_timing_free(&t);
    /* --counters: every launch, in a counters run of its own */
    CHECK(pipeline(MH_PASSES_SEPARATE, 1, 1, 1) == MH_OK);
    CHECK(runs_logged() == 3);
    char *log = slurp(g_log);
    CHECK(strncmp(log, "untraced timing\nuntraced counters\ntraced -\n", 44) == 0);
    load_timing(&t);
    /* every launch profiled: joined by launch order, each with its own counters */
    CHECK(t.counters.matched == 4 && strcmp(t.counters.status, "ok") == 0);
    for (size_t i = 0; i < t.nkernels; i++)
        CHECK(t.kernels[i].has_counters && t.kernels[i].c.dram_read_bytes == 1000.0 * (double)(i + 1));
    mh_timing_free(&t);
    /* sampled (MEMHEAT_COUNTERS_SAMPLE=config, inherited): joined by configuration,
     * every launch of one has its first launch's counters */
    setenv("MEMHEAT_COUNTERS_SAMPLE", "config", 1);
    CHECK(pipeline(MH_PASSES_SEPARATE, 1, 1, 1) == MH_OK);
    unsetenv("MEMHEAT_COUNTERS_SAMPLE");
    load_timing(&t);
    CHECK(t.counters.matched == 4 && strcmp(t.counters.status, "ok") == 0);
    for (size_t i = 0; i < t.nkernels; i++)
        CHECK(t.kernels[i].has_counters &&
              t.kernels[i].c.dram_read_bytes == (strcmp(t.kernels[i].name, "A") == 0 ? 1000.0 : 2000.0));
    mh_timing_free(&t);
}

/* The traced run starts with the timing run (its start-up overlapping it)
 * and its GPU work waits at the start gate until the timing run has ended. */
static void test_pipeline_overlap(void) {
    setenv("MH_TEST_OVERLAP", "5000", 1);
    CHECK(pipeline(MH_PASSES_SEPARATE, -1, 1, 1) == MH_OK);
    /* started before the timing run ended, held until it had */
    CHECK(strcmp(slurp(g_log), "traced start\nuntraced timing+counters\ntraced -\n") == 0);
    CHECK(access(path_in("p.mht.gate"), F_OK) != 0);
    mh_timing t;
    load_timing(&t);
    CHECK(t.nkernels == 4 && t.counters.matched == 4);
    mh_timing_free(&t);
    /* the program fails in the timing run: the traced run waiting at the gate ends, unheard */
    setenv("MH_TEST_TIMING_STATUS", "3", 1);
    CHECK(pipeline(MH_PASSES_SEPARATE, -1, 1, 1) == MH_ERR_CHILD);
    unsetenv("MH_TEST_TIMING_STATUS");
    nap_ms(100);
    CHECK(strcmp(slurp(g_log), "traced start\nuntraced timing+counters\n") == 0);
    CHECK(access(path_in("p.mht.gate"), F_OK) != 0);
    /* serial: --no-overlap, and a rank of a job */
    setenv("MH_TEST_OVERLAP", "300", 1);
    for (int i = 0; i < 2; i++) {
        mh_run_opts o;
        opts_for(&o, g_fake_argv);
        o.passes = MH_PASSES_SEPARATE;
        o.no_overlap = i == 0;
        if (i == 1) setenv("RANK", "0", 1);
        unlink(g_log);
        mh_err err = {0};
        CHECK(mh_run_pipeline(&o, &err) == MH_OK);
        unsetenv("RANK");
        mh_collect_cfg_free(&o.collect);
        CHECK(strcmp(slurp(g_log), "untraced timing+counters\ntraced start\ntraced -\n") == 0);
    }
    unsetenv("MH_TEST_OVERLAP");
}

/* The default for a rank of a job (a launcher's RANK set): one run, since a
 * second run of a rank does not find its job again; else the two runs. */
static void test_pipeline_rank(void) {
    setenv("RANK", "1", 1);
    CHECK(pipeline(MH_PASSES_AUTO, -1, 1, 1) == MH_OK);
    unsetenv("RANK");
    CHECK(strcmp(slurp(g_log), "traced timing\n") == 0);
    CHECK(pipeline(MH_PASSES_AUTO, -1, 1, 1) == MH_OK);
    CHECK(strcmp(slurp(g_log), "untraced timing+counters\ntraced -\n") == 0);
    setenv("SLURM_PROCID", "0", 1); /* --passes separate asked for: two runs, one after the other */
    CHECK(pipeline(MH_PASSES_SEPARATE, -1, 1, 1) == MH_OK);
    unsetenv("SLURM_PROCID");
    CHECK(strcmp(slurp(g_log), "untraced timing+counters\ntraced -\n") == 0);
}

static void test_pipeline_flags(void) {
    CHECK(pipeline(MH_PASSES_ONE, -1, 0, 1) == MH_OK); /* --no-timing */
    CHECK(runs_logged() == 1 && has_line(slurp(g_log), "traced -"));
    CHECK(access(path_in("p.timing.json"), F_OK) != 0);
    CHECK(pipeline(MH_PASSES_ONE, -1, 1, 0) == MH_OK); /* --no-trace: the timing run alone */
    CHECK(runs_logged() == 1 && has_line(slurp(g_log), "untraced timing"));
    CHECK(pipeline(MH_PASSES_SEPARATE, 0, 1, 1) == MH_OK); /* --passes separate --no-counters */
    CHECK(runs_logged() == 2);
    setenv("MH_TEST_NO_TIMING_FILE", "1", 1); /* a collector that wrote no timing: trace alone */
    CHECK(pipeline(MH_PASSES_ONE, -1, 1, 1) == MH_OK);
    unsetenv("MH_TEST_NO_TIMING_FILE");
    CHECK(runs_logged() == 1 && access(path_in("p.timing.json"), F_OK) != 0);
    struct stat st;
    CHECK(stat(path_in("p.mhdb"), &st) == 0 && st.st_size > 0);
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "fake") == 0) return fake_program();
    ssize_t n = readlink("/proc/self/exe", g_self, sizeof g_self - 1);
    if (n <= 0) return 1;
    g_self[n] = '\0';
    const char *tmp = getenv("TMPDIR");
    snprintf(g_dir, sizeof g_dir, "%s/mh_test_run_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(g_dir)) return 1;
    touch(path_in("libmemheat_cuda.so"));
    touch(path_in("memheat_cuda_patch.fatbin"));
    touch(path_in("libmemheat_cupti.so"));
    snprintf(g_log, sizeof g_log, "%s/runs.log", g_dir);
    setenv("MEMHEAT_LIB_DIR", g_dir, 1);
    setenv("MH_TEST_RUNLOG", g_log, 1);
    setenv("MEMHEAT_CALIBRATION", path_in("no-calibration.json"), 1);
    unsetenv("MEMHEAT_CUDA_LIB");
    unsetenv("MEMHEAT_CUPTI_LIB");
    static const mh_test_case cases[] = {T(test_table), T(test_one_pass_env), T(test_no_timing_env),
                                         T(test_own_pass_env), T(test_missing_lib), T(test_pipeline_one),
                                         T(test_pipeline_one_counters), T(test_pipeline_separate),
                                         T(test_pipeline_overlap), T(test_pipeline_rank),
                                         T(test_pipeline_flags)};
    int rc = mh_test_run(cases, sizeof cases / sizeof cases[0]);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    if (rc == 0 && system(cmd) != 0) return 1;
    return rc;
}
