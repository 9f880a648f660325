/* mh_fuzz.c -- fuzzing harness: damaged traces and profiles through the real
 * memheat commands (bench/fuzz/README.md has the long run and its figures).
 *
 *   mh_fuzz run --memheat PATH --work DIR [--inputs N] [--seed S] [--timeout S]
 *   mh_fuzz make-bad KIND SEED.mht OUT.mht   (KIND: unknown-launch, dup-launch,
 *                                             ended-launch, dup-end, no-end)
 *
 * The mutators are fuzz_mutate.c's (shared with mh_fuzz_inproc.c, which
 * calls the library in one process and runs far more inputs): traces cut,
 * flipped, with header damage, repeated and reordered chunks, bad records
 * and damaged records with valid checksums; profiles cut, flipped, with a
 * dropped table or column, a bad value, interrupted (meta.complete = '0').
 * Input i of seed S is the same in every run (fz_rng_at).
 *
 * Every input goes through info / analyze -o / heatmap -o (traces) or
 * report -o / diff (profiles). A run fails the harness when memheat dies of
 * a signal (crash), outlives the timeout (hang), exits with a code outside
 * docs/cli.md's 0/1/4, exits 0 on an input known to be incomplete, leaves
 * an output that contradicts its code (a report after exit 1, an analyze
 * JSON whose "complete" disagrees with exit 0), prints a raw SQLite message,
 * or loses a finished launch: after injected bad records or a lost end
 * record every heat map of the seed must come out byte for byte. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "import/import.h"
#include "store/store.h"
#include "collectors/synth.h"

#include "fuzz_mutate.h"

/* ---- running memheat ---- */

typedef struct result {
    int code;      /* exit code, -1 = signal, -2 = timeout */
    int sig;
    char err[4096]; /* stderr */
} result;

static double g_timeout = 20;
static const char *g_memheat;

static int argc_of(char *const argv[]) {
    int n = 0;
    while (argv[n]) n++;
    return n;
}

static int run_cmd(char *const argv[], result *r, const char *errpath) {
    memset(r, 0, sizeof *r);
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open("/dev/null", O_WRONLY);
        dup2(fd, 1);
        int fe = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(fe, 2);
        setenv("MEMHEAT_THREADS", "1", 1);
        execv(argv[0], argv);
        _exit(126);
    }
    struct timespec t0, now, nap = {0, 2000000};
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int ws = 0;
    for (;;) {
        pid_t w = waitpid(pid, &ws, WNOHANG);
        if (w == pid) break;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if ((double)(now.tv_sec - t0.tv_sec) + (double)(now.tv_nsec - t0.tv_nsec) * 1e-9 > g_timeout) {
            kill(pid, SIGKILL);
            waitpid(pid, &ws, 0);
            r->code = -2;
            return 0;
        }
        nanosleep(&nap, NULL);
    }
    clock_gettime(CLOCK_MONOTONIC, &now);
    double dt = (double)(now.tv_sec - t0.tv_sec) + (double)(now.tv_nsec - t0.tv_nsec) * 1e-9;
    if (dt > 2.0) fprintf(stderr, "mh_fuzz: slow (%.1f s): %s %s\n", dt, argv[1], argv[argc_of(argv) - 1]);
    if (WIFSIGNALED(ws)) {
        r->code = -1;
        r->sig = WTERMSIG(ws);
    } else {
        r->code = WEXITSTATUS(ws);
    }
    FILE *f = fopen(errpath, "rb");
    if (f) {
        size_t n = fread(r->err, 1, sizeof r->err - 1, f);
        r->err[n] = '\0';
        fclose(f);
    }
    return 0;
}

/* ---- checks ---- */

typedef struct tally {
    unsigned long inputs, runs, crashes, hangs, bad_codes, lies, raw_msgs, lost, multi_line;
} tally;

static int g_verbose;

static void fail(tally *t, unsigned long *counter, const char *what, const char *input, const char *cmd,
                 const result *r) {
    (*counter)++;
    fprintf(stderr, "FAIL %s: %s on %s (exit %d, signal %d): %.300s\n", what, cmd, input, r->code, r->sig, r->err);
    (void)t;
}

/* Common checks; returns 1 when the run is usable for output checks. */
static int check_common(tally *t, const char *input, const char *cmd, const result *r) {
    t->runs++;
    if (r->code == -1) return fail(t, &t->crashes, "crash", input, cmd, r), 0;
    if (r->code == -2) return fail(t, &t->hangs, "hang", input, cmd, r), 0;
    if (r->code != 0 && r->code != 1 && r->code != 4) return fail(t, &t->bad_codes, "exit code", input, cmd, r), 0;
    if (!strstr(r->err, "not a memheat profile") && !strstr(r->err, "damaged profile database") &&
        (strstr(r->err, "no such column") || strstr(r->err, "no such table") || strstr(r->err, "misuse of") ||
         strstr(r->err, "SQLite error")))
        fail(t, &t->raw_msgs, "raw SQLite message", input, cmd, r);
    int errs = 0;
    for (const char *p = r->err; (p = strstr(p, ": error: ")); p++) errs++;
    if (errs > 1) fail(t, &t->multi_line, "more than one error line", input, cmd, r);
    return 1;
}

static int same_file(const char *a, const char *b) {
    fz_buf x = {0}, y = {0};
    int same = fz_slurp(a, &x) == 0 && fz_slurp(b, &y) == 0 && x.n == y.n && memcmp(x.p, y.p, x.n) == 0;
    free(x.p);
    free(y.p);
    return same;
}

/* Every CSV of the seed's heat maps in dir, identical. Returns the number missing or different. */
static int lost_maps(const char *ref, const char *dir) {
    DIR *d = opendir(ref);
    if (!d) return 1;
    struct dirent *e;
    int lost = 0;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char a[1024], b[1024];
        snprintf(a, sizeof a, "%s/%s", ref, e->d_name);
        snprintf(b, sizeof b, "%s/%s", dir, e->d_name);
        if (!same_file(a, b)) lost++;
    }
    closedir(d);
    return lost;
}

static void rm_rf(const char *dir) {
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "mh_fuzz: cannot clean %s\n", dir);
}

/* expect_incomplete: exit 0 would be a lie; keep_maps: no seed heat map may be lost. */
static void check_trace(tally *t, const char *work, const char *in, int expect_incomplete, int keep_maps) {
    char json[1024], hdir[1024], errp[1024], ref[1024];
    snprintf(json, sizeof json, "%s/out.json", work);
    snprintf(hdir, sizeof hdir, "%s/maps", work);
    snprintf(errp, sizeof errp, "%s/stderr", work);
    snprintf(ref, sizeof ref, "%s/ref_maps", work);
    result r;
    char *info[] = {(char *)g_memheat, "info", (char *)in, NULL};
    run_cmd(info, &r, errp);
    if (check_common(t, in, "info", &r) && expect_incomplete && r.code == 0)
        fail(t, &t->lies, "exit 0 on an incomplete trace", in, "info", &r);
    unlink(json);
    char *an[] = {(char *)g_memheat, "analyze", "-q", "-o", json, (char *)in, NULL};
    run_cmd(an, &r, errp);
    if (check_common(t, in, "analyze", &r)) {
        if (expect_incomplete && r.code == 0) fail(t, &t->lies, "exit 0 on an incomplete trace", in, "analyze", &r);
        fz_buf j = {0};
        if (fz_slurp(json, &j) == 0) {
            j.p[j.n] = '\0';
            int says_complete = strstr((char *)j.p, "\"complete\": true") != NULL;
            if (says_complete != (r.code == 0)) fail(t, &t->lies, "JSON 'complete' vs exit code", in, "analyze", &r);
            free(j.p);
        } else if (r.code == 0) {
            fail(t, &t->lies, "exit 0 without its JSON", in, "analyze", &r);
        }
    }
    rm_rf(hdir);
    char *hm[] = {(char *)g_memheat, "heatmap", "-q", "-o", hdir, (char *)in, NULL};
    run_cmd(hm, &r, errp);
    if (check_common(t, in, "heatmap", &r)) {
        if (expect_incomplete && r.code == 0) fail(t, &t->lies, "exit 0 on an incomplete trace", in, "heatmap", &r);
        if (keep_maps && lost_maps(ref, hdir)) fail(t, &t->lost, "finished launch lost", in, "heatmap", &r);
    }
}

static void check_profile(tally *t, const char *work, const char *in, const char *seed, int expect_incomplete) {
    char html[1024], errp[1024];
    snprintf(html, sizeof html, "%s/out.html", work);
    snprintf(errp, sizeof errp, "%s/stderr", work);
    result r;
    unlink(html);
    char *rep[] = {(char *)g_memheat, "report", "-q", "-f", "-o", html, (char *)in, NULL};
    run_cmd(rep, &r, errp);
    if (check_common(t, in, "report", &r)) {
        if (r.code == 1 && access(html, F_OK) == 0) fail(t, &t->lies, "report written after exit 1", in, "report", &r);
        if (r.code == 0 && access(html, F_OK) != 0) fail(t, &t->lies, "exit 0 without a report", in, "report", &r);
    }
    char *df[] = {(char *)g_memheat, "diff", (char *)seed, (char *)in, NULL};
    run_cmd(df, &r, errp);
    if (check_common(t, in, "diff", &r) && expect_incomplete && r.code == 0)
        fail(t, &t->lies, "exit 0 on an interrupted profile", in, "diff", &r);
}

/* ---- main ---- */

static int usage(void) {
    fputs("usage: mh_fuzz run --memheat PATH --work DIR [--inputs N] [--seed S] [--timeout S]\n"
          "       mh_fuzz make-bad KIND SEED.mht OUT.mht  (unknown-launch dup-launch ended-launch dup-end no-end)\n",
          stderr);
    return 2;
}

int main(int argc, char **argv) {
    if (argc >= 5 && !strcmp(argv[1], "make-bad")) {
        int kind = -1;
        for (int k = 0; k < FZ_BAD_KINDS; k++)
            if (!strcmp(argv[2], fz_bad_names[k])) kind = k;
        fz_buf b = {0};
        fz_trace t;
        fz_rng rng = fz_rng_at(1, 0);
        if (kind < 0 || fz_slurp(argv[3], &b) || fz_trace_parse(&b, &t)) return usage();
        fz_rechunk(&t);
        int bad = t.n < 3 || fz_make_bad(&t, kind, &rng);
        fz_buf e = {0};
        if (!bad) e = fz_trace_encode(&t, NULL);
        int rc = bad ? usage() : fz_spit(argv[4], e.p, e.n) ? 1 : 0;
        free(e.p);
        fz_trace_free(&t);
        free(b.p);
        return rc;
    }
    if (argc < 2 || strcmp(argv[1], "run")) return usage();
    const char *work = NULL;
    unsigned long inputs = 300;
    uint64_t seed_no = 1;
    for (int i = 2; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--memheat")) g_memheat = argv[i + 1];
        else if (!strcmp(argv[i], "--work")) work = argv[i + 1];
        else if (!strcmp(argv[i], "--inputs")) inputs = strtoul(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--seed")) seed_no = strtoull(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--timeout")) g_timeout = atof(argv[i + 1]);
        else return usage();
    }
    if (!g_memheat || !work) return usage();
    mkdir(work, 0755);
    char seed_t[1024], seed_p[1024], in[1024], ref[1024], errp[1024];
    snprintf(seed_t, sizeof seed_t, "%s/seed.mht", work);
    snprintf(seed_p, sizeof seed_p, "%s/seed.mhdb", work);
    snprintf(ref, sizeof ref, "%s/ref_maps", work);
    snprintf(errp, sizeof errp, "%s/stderr", work);
    mh_synth_opts so = {.shapes = (1u << MH_SYNTH_SHAPE_COUNT) - 1, .warps = 4, .blocks = 2, .iters = 4};
    mh_err err = {0};
    unlink(seed_p);
    mh_db_import_opts io = {.trace_path = seed_t};
    if (mh_synth_write(seed_t, &so, &err) || mh_db_import_trace(seed_p, 1, &io, &err)) {
        fprintf(stderr, "mh_fuzz: seeds: %s\n", err.msg);
        return 1;
    }
    fz_buf seed = {0}, seed_db = {0};
    fz_trace st;
    if (fz_slurp(seed_t, &seed) || fz_trace_parse(&seed, &st) || fz_slurp(seed_p, &seed_db)) return 1;
    fz_rechunk(&st);
    free(seed.p);
    size_t *off = malloc((st.n + 1) * sizeof *off);
    seed = fz_trace_encode(&st, off);
    fz_spit(seed_t, seed.p, seed.n);
    rm_rf(ref);
    result r;
    char *hm[] = {(char *)g_memheat, "heatmap", "-q", "-o", ref, seed_t, NULL};
    run_cmd(hm, &r, errp);
    if (r.code != 0) {
        fprintf(stderr, "mh_fuzz: the seed trace fails: %s\n", r.err);
        return 1;
    }
    tally t = {0};
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (unsigned long i = 0; i < inputs; i++) {
        fz_rng rng = fz_rng_at(seed_no, i);
        fz_expect e;
        t.inputs++;
        if (i % 4 == 3) {
            snprintf(in, sizeof in, "%s/in.mhdb", work);
            fz_mutate_profile(&seed_db, in, &rng, &e);
            check_profile(&t, work, in, seed_p, e.must_fail);
        } else {
            fz_buf b;
            snprintf(in, sizeof in, "%s/in.mht", work);
            fz_mutate_trace(&st, &seed, off, &rng, &b, &e);
            fz_spit(in, b.p, b.n);
            free(b.p);
            check_trace(&t, work, in, e.must_fail, e.keep_chunks == FZ_KEEP_ALL);
        }
        if (g_verbose) fprintf(stderr, ".");
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double dt = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    unsigned long bad = t.crashes + t.hangs + t.bad_codes + t.lies + t.raw_msgs + t.lost + t.multi_line;
    printf("mh_fuzz: %lu inputs, %lu runs in %.1f s: %lu crashes, %lu hangs, %lu bad exit codes, %lu exit/output "
           "contradictions, %lu launches lost, %lu raw SQLite messages, %lu multi-line errors\n",
           t.inputs, t.runs, dt, t.crashes, t.hangs, t.bad_codes, t.lies, t.lost, t.raw_msgs, t.multi_line);
    free(seed.p);
    free(seed_db.p);
    free(off);
    fz_trace_free(&st);
    return bad ? 1 : 0;
}
