/* mh_fuzz_inproc.c -- the fuzzing harness in one process, inputs by number:
 * damaged traces and profiles (fuzz_mutate.c's mutators, and
 * fuzz_records.c's structure-aware ones) through the library entry points
 * the commands use (fuzz_oracle.h: every check), thousands of inputs a
 * second where mh_fuzz.c forks memheat per run (bench/fuzz/README.md: the
 * long runs and their figures). mh_fuzz_lf.c drives the same oracle with
 * libFuzzer.
 *
 *   mh_fuzz_inproc --work DIR [--inputs N | --seconds S] [--seed S] [--from K]
 *                  [--timeout S] [--analyze-every N] [--profile-every N]
 *                  [--import-every N] [--threads-every N] [--budget BYTES]
 *
 * Input i of seed S is the same in every run (fz_rng_at). Per trace input
 * (written to DIR/in.mht, a tmpfs under /dev/shm is best): one mh_pass with
 * the heat maps, every Nth input also analyze, the import, a threaded pass.
 * A third of the trace inputs are structure-aware mutants (1 to 3
 * mutations of fz_mutate_records), the others fz_mutate_trace's; either
 * way what the reader must do is the mutator's word joined with
 * fz_expect_compare's (the input against its seed). Every Nth input is a
 * profile (fz_mutate_profile) through report, diff, and analyze, heatmap
 * and info of the profile.
 *
 * A failure is one FAIL line on stderr with the input's number; the process
 * dying (a crash, a sanitizer report: the input stays in DIR and its number
 * is printed) or an input outliving --timeout (alarm: a hang) ends the run.
 * Memory: the grouping budget is bounded (--budget), every input's state is
 * freed before the next (LeakSanitizer at exit in the ASan build), and the
 * resident size after the first 1000 inputs and at the end is printed. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "collectors/synth.h"

#include "fuzz_mutate.h"
#include "fuzz_oracle.h"
#include "fuzz_records.h"

/* ---- dying loudly: the input being run, for the signal handlers ---- */

static char g_now[512]; /* "input K of seed S (kind)": the only global, read by the handlers */
static size_t g_now_len;

static void say_now(const char *what) {
    ssize_t w = write(2, what, strlen(what));
    w = write(2, g_now, g_now_len);
    (void)w;
}

static void on_alarm(int sig) {
    (void)sig;
    say_now("mh_fuzz_inproc: HANG on ");
    _exit(3);
}

#if !defined(__SANITIZE_ADDRESS__)
static void on_crash(int sig) {
    say_now("mh_fuzz_inproc: CRASH on ");
    signal(sig, SIG_DFL);
    raise(sig);
}
#endif

#if defined(__SANITIZE_ADDRESS__)
void __asan_set_death_callback(void (*cb)(void));
static void on_death(void) { say_now("mh_fuzz_inproc: sanitizer report on "); }
#endif

static void on_fail(void *ctx, const char *what, const char *cmd, const char *msg) {
    (void)ctx;
    fprintf(stderr, "FAIL %s: %s on %.*s: %.300s\n", what, cmd, (int)g_now_len - 1, g_now, msg);
}

/* ---- inputs ---- */

/* A structure-aware mutant of the seed: 1 to 3 mutations, and what the
 * input is against the seed. */
static void mutate_records(const fz_trace_seed *s, fz_rng *r, fz_buf *out, fz_expect *e) {
    fz_trace t = fz_trace_copy(&s->t);
    int sealed = 0, any = 0;
    const char *kind = "none";
    for (int i = 0, n = 1 + (int)fz_rndn(r, 3); i < n; i++) {
        kind = fz_mutate_records(&t, r, &sealed);
        any |= sealed;
    }
    *out = fz_trace_encode(&t, NULL);
    fz_trace_free(&t);
    /* sealed at any step, the end record no longer states the seed's file:
     * only what the chunks themselves must hold is held against it */
    fz_expect_compare(&s->enc, s->off, &s->t, &s->end, out, any, e);
    e->kind = kind;
}

static long rss_kib(void) {
    FILE *f = fopen("/proc/self/statm", "r");
    long pages = 0, res = 0;
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &res) != 2) res = 0;
        fclose(f);
    }
    return res * (sysconf(_SC_PAGESIZE) / 1024);
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int usage(void) {
    fputs("usage: mh_fuzz_inproc --work DIR [--inputs N | --seconds S] [--seed S] [--from K] [--timeout S]\n"
          "                      [--analyze-every N] [--profile-every N] [--import-every N] [--threads-every N]\n"
          "                      [--budget BYTES]\n",
          stderr);
    return 2;
}

int main(int argc, char **argv) {
    unsigned long inputs = 0, from = 0, analyze_every = 8, profile_every = 16, import_every = 32, threads_every = 64;
    double seconds = 0;
    unsigned timeout = 10;
    uint64_t seed_no = 1;
    size_t budget = 1u << 20;
    const char *work = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        const char *a = argv[i], *v = argv[i + 1];
        if (!strcmp(a, "--work")) work = v;
        else if (!strcmp(a, "--inputs")) inputs = strtoul(v, NULL, 10);
        else if (!strcmp(a, "--seconds")) seconds = atof(v);
        else if (!strcmp(a, "--seed")) seed_no = strtoull(v, NULL, 10);
        else if (!strcmp(a, "--from")) from = strtoul(v, NULL, 10);
        else if (!strcmp(a, "--timeout")) timeout = (unsigned)strtoul(v, NULL, 10);
        else if (!strcmp(a, "--analyze-every")) analyze_every = strtoul(v, NULL, 10);
        else if (!strcmp(a, "--profile-every")) profile_every = strtoul(v, NULL, 10);
        else if (!strcmp(a, "--import-every")) import_every = strtoul(v, NULL, 10);
        else if (!strcmp(a, "--threads-every")) threads_every = strtoul(v, NULL, 10);
        else if (!strcmp(a, "--budget")) budget = strtoul(v, NULL, 10);
        else return usage();
    }
    if (!work || (argc - 1) % 2 || (!inputs && seconds <= 0) || !analyze_every || !profile_every || !import_every ||
        !threads_every || !timeout)
        return usage();
    fz_oracle o;
    if (fz_oracle_init(&o, work, on_fail, NULL) != 0) {
        fprintf(stderr, "mh_fuzz_inproc: cannot use %s: %s\n", work, strerror(errno));
        return 2;
    }
    o.budget = budget;
    /* the seeds: every synthetic shape, small (a pass over it takes well under a millisecond) */
    char seed_t[1100];
    snprintf(seed_t, sizeof seed_t, "%s/synth.mht", work);
    mh_synth_opts so = {.shapes = (1u << MH_SYNTH_SHAPE_COUNT) - 1, .warps = 2, .blocks = 2, .iters = 2};
    mh_err err = {0};
    fz_buf raw = {0};
    fz_trace_seed ts;
    fz_profile_seed ps;
    if (mh_synth_write(seed_t, &so, &err) != MH_OK || fz_slurp(seed_t, &raw) || fz_trace_seed_make(&o, &raw, 1, &ts) ||
        fz_profile_seed_import(&o, &ts, 0, &ps)) {
        fprintf(stderr, "mh_fuzz_inproc: seeds: %s\n", err.msg);
        return 1;
    }
    free(raw.p);
    printf("mh_fuzz_inproc: seed trace %zu bytes, %zu chunks, %zu heat maps; seed profile %zu bytes\n", ts.enc.n,
           ts.t.n, ts.maps.n, ps.bytes.n);
    signal(SIGALRM, on_alarm);
#if defined(__SANITIZE_ADDRESS__)
    __asan_set_death_callback(on_death);
#else
    signal(SIGSEGV, on_crash);
    signal(SIGBUS, on_crash);
    signal(SIGFPE, on_crash);
    signal(SIGILL, on_crash);
    signal(SIGABRT, on_crash);
#endif
    long rss_early = 0;
    double t0 = now_s(), last = t0;
    for (unsigned long i = from; inputs ? i < from + inputs : now_s() - t0 < seconds; i++) {
        fz_rng rng = fz_rng_at(seed_no, i);
        fz_expect e;
        int profile = i % profile_every == profile_every - 1;
        fz_buf b = {0};
        if (profile) {
            fz_mutate_profile(&ps.bytes, o.in_p, &rng, &e);
        } else if (fz_rndn(&rng, 3) == 0) {
            mutate_records(&ts, &rng, &b, &e);
        } else {
            fz_mutate_trace(&ts.t, &ts.enc, ts.off, &rng, &b, &e);
            fz_expect c;
            fz_expect_compare(&ts.enc, ts.off, &ts.t, &ts.end, &b, 0, &c);
            fz_expect_merge(&e, &c);
        }
        g_now_len = (size_t)snprintf(g_now, sizeof g_now,
                                     "input %lu of seed %llu (%s %s): reproduce with --seed %llu --from %lu "
                                     "--inputs 1 --profile-every %lu --analyze-every %lu --import-every %lu "
                                     "--threads-every %lu; the input is %s\n",
                                     i, (unsigned long long)seed_no, profile ? "profile" : "trace", e.kind,
                                     (unsigned long long)seed_no, i, profile_every, analyze_every, import_every,
                                     threads_every, profile ? o.in_p : o.in_t);
        if (g_now_len >= sizeof g_now) g_now_len = sizeof g_now - 1;
        fz_oracle_count_kind(&o, e.kind);
        o.t.inputs++;
        alarm(timeout);
        if (profile) {
            fz_check_profile(&o, &ps, &e, FZ_CHECK_READERS);
        } else {
            unsigned checks = (i % analyze_every == 0 ? FZ_CHECK_ANALYZE : 0) |
                              (i % import_every == 1 ? FZ_CHECK_IMPORT : 0) |
                              (i % threads_every == 2 ? FZ_CHECK_THREADS : 0);
            fz_check_trace(&o, &ts, &b, &e, checks);
        }
        alarm(0);
        free(b.p);
        if (o.t.inputs == 1000) rss_early = rss_kib();
        if (now_s() - last > 60) {
            last = now_s();
            fprintf(stderr, "mh_fuzz_inproc: %lu inputs, %.0f s, %lu failures, rss %ld KiB\n", o.t.inputs, last - t0,
                    fz_oracle_failures(&o), rss_kib());
        }
    }
    double dt = now_s() - t0;
    const fz_tally *t = &o.t;
    unsigned long bad = fz_oracle_failures(&o);
    printf("mh_fuzz_inproc: seed %llu, inputs %lu..%lu: %lu inputs, %lu runs in %.1f s (%.0f inputs/s): 0 crashes, "
           "0 hangs, %lu bad exit codes, %lu exit/output contradictions, %lu launches lost, %lu raw SQLite "
           "messages, %lu multi-line errors\n",
           (unsigned long long)seed_no, from, from + t->inputs - 1, t->inputs, t->runs, dt, (double)t->inputs / dt,
           t->bad_codes, t->lies, t->lost, t->raw_msgs, t->multi_line);
    printf("mh_fuzz_inproc: exit codes 0: %lu, 1: %lu, 4: %lu; rss %ld KiB after 1000 inputs, %ld KiB at the end\n",
           t->codes[0], t->codes[1], t->codes[4], rss_early, rss_kib());
    printf("mh_fuzz_inproc: inputs per mutation:");
    for (size_t i = 0; i < sizeof t->kinds / sizeof *t->kinds && t->kind_names[i]; i++)
        printf(" %s %lu;", t->kind_names[i], t->kinds[i]);
    printf("\n");
    fz_profile_seed_free(&ps);
    fz_trace_seed_free(&ts);
    fz_oracle_free(&o);
    return bad ? 1 : 0;
}
