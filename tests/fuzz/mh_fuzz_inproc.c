/* mh_fuzz_inproc.c -- the fuzzing harness in one process: damaged traces and
 * profiles (fuzz_mutate.c's mutators) through the library entry points the
 * commands use, thousands of inputs a second where mh_fuzz.c forks memheat
 * per run (bench/fuzz/README.md: the long runs and their figures).
 *
 *   mh_fuzz_inproc --work DIR [--inputs N | --seconds S] [--seed S] [--from K]
 *                  [--timeout S] [--analyze-every N] [--profile-every N]
 *
 * Per trace input (written to DIR/in.mht, a tmpfs under /dev/shm is best):
 * one mh_pass with every analysis (what `heatmap`, `info` and the import
 * run), and every Nth input mh_analyze_file + its JSON (`analyze -o`). Per
 * profile input (DIR/in.mhdb): mh_db_open + mh_report_html (`report`) and
 * mh_report_diff against the seed (`diff`). The exit code each command would
 * give is derived as the CLI does (cli.c: an error exits 1, a cut 4, a
 * notice 4). An input fails the harness when:
 *   - the process dies (crash, sanitizer report: the input stays in DIR and
 *     its number is printed) or the input outlives --timeout (hang: alarm);
 *   - the code is not 0, 1 or 4; the error is not one line or is a raw
 *     SQLite message;
 *   - the code contradicts the damage: exit 0 on an input that must fail
 *     (cut, flips, repeated chunk, bad records, no end, interrupted
 *     profile), no error where the reader must detect one (cut inside a
 *     chunk, a checksum broken), no exit 4 where records must be skipped,
 *     or not exit 0 on the seed itself;
 *   - the output contradicts the code: exit 0 with the trace not complete or
 *     records skipped, an analyze JSON whose "complete" differs from exit 0,
 *     an interrupted profile missing launches or heat rows;
 *   - a finished launch is lost: every heat map of a launch that ended
 *     before the damage must come out byte for byte (its CSV's CRC).
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
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "render/analyze.h"
#include "import/import.h"
#include "memheat/pass.h"
#include "store/store.h"
#include "memheat/synth.h"
#include "report/report.h"
#include "util/crc32c.h"

#include "fuzz_mutate.h"

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

/* ---- tallies ---- */

typedef struct tally {
    unsigned long inputs, runs, bad_codes, lies, lost, raw_msgs, multi_line;
    unsigned long codes[5];       /* exit codes 0..4 of every run */
    unsigned long kinds[16];      /* inputs per mutator */
    const char *kind_names[16];
} tally;

static void count_kind(tally *t, const char *kind) {
    for (size_t i = 0; i < 16; i++) {
        if (!t->kind_names[i]) t->kind_names[i] = kind;
        if (!strcmp(t->kind_names[i], kind)) {
            t->kinds[i]++;
            return;
        }
    }
}

static void fail(unsigned long *counter, const char *what, const char *cmd, const char *msg) {
    (*counter)++;
    fprintf(stderr, "FAIL %s: %s on %.*s: %.300s\n", what, cmd, (int)g_now_len - 1, g_now, msg);
}

/* The exit code the command would give (src/cli/cli.c). */
static int exit_of(int rc, int noted) {
    if (rc == MH_OK) return noted ? 4 : 0;
    if (rc == MH_ERR_TRUNCATED) return 4;
    if (rc == MH_ERR_ARG) return 2;
    if (rc == MH_ERR_CHILD) return 3;
    return 1;
}

/* Common checks of one run: its code and its message. */
static void check_run(tally *t, const char *cmd, int code, int rc, const char *msg, const fz_expect *e) {
    t->runs++;
    if (code >= 0 && code <= 4) t->codes[code]++;
    if (code != 0 && code != 1 && code != 4) fail(&t->bad_codes, "exit code", cmd, msg);
    if (rc != MH_OK && !msg[0]) fail(&t->multi_line, "an error without a message", cmd, msg);
    if (strchr(msg, '\n')) fail(&t->multi_line, "more than one line", cmd, msg);
    if (!strstr(msg, "not a memheat profile") && !strstr(msg, "damaged profile database") &&
        (strstr(msg, "no such column") || strstr(msg, "no such table") || strstr(msg, "misuse of") ||
         strstr(msg, "SQLite error")))
        fail(&t->raw_msgs, "raw SQLite message", cmd, msg);
    if (e->must_fail && code == 0) fail(&t->lies, "exit 0 on a damaged input", cmd, msg);
    if (e->must_error && rc == MH_OK) fail(&t->lies, "damage not reported as an error", cmd, msg);
    if (e->must_partial && (rc != MH_OK || code != 4)) fail(&t->lies, "not exit 4 on skipped records", cmd, msg);
    if (e->clean && code != 0) fail(&t->lies, "the seed itself does not exit 0", cmd, msg);
}

/* ---- heat maps as CRCs of their CSV ---- */

typedef struct map_sum {
    uint32_t launch, space, crc;
    uint64_t len;
} map_sum;

typedef struct maps {
    map_sum *v;
    size_t n, cap;
    int twice; /* a (launch, space) emitted twice */
} maps;

typedef struct crc_sink {
    uint32_t crc;
    uint64_t len;
} crc_sink;

static ssize_t crc_write(void *c, const char *buf, size_t n) {
    crc_sink *s = c;
    s->crc = mh_crc32c(s->crc, buf, n);
    s->len += n;
    return (ssize_t)n;
}

static int on_heat(void *ctx, const mh_heat_result *r, mh_err *err) {
    maps *m = ctx;
    crc_sink s = {0, 0};
    cookie_io_functions_t io = {.write = crc_write};
    FILE *f = fopencookie(&s, "w", io);
    if (!f) return mh_err_set(err, MH_ERR_NOMEM, "fopencookie failed");
    int rc = mh_heat_write_csv(f, r, err);
    if (rc == MH_OK) rc = mh_heat_write_regions(f, r, err);
    fclose(f);
    if (rc != MH_OK) return rc;
    for (size_t i = 0; i < m->n; i++)
        if (m->v[i].launch == r->launch->l.id && m->v[i].space == r->space) m->twice = 1;
    if (m->n == m->cap) {
        m->cap = m->cap ? 2 * m->cap : 64;
        map_sum *v = realloc(m->v, m->cap * sizeof *v);
        if (!v) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
        m->v = v;
    }
    m->v[m->n++] = (map_sum){r->launch->l.id, r->space, s.crc, s.len};
    return MH_OK;
}

typedef struct seed_ref {
    maps m;              /* the seed's heat maps */
    uint32_t *end_chunk; /* per seed map: the chunk holding its launch's kernel end */
} seed_ref;

/* Maps of the seed whose launch ended in a chunk before keep, missing or different in got. */
static size_t lost_maps(const seed_ref *ref, size_t keep, const maps *got) {
    size_t lost = 0;
    for (size_t i = 0; i < ref->m.n; i++) {
        if (keep != FZ_KEEP_ALL && ref->end_chunk[i] >= keep) continue;
        const map_sum *a = &ref->m.v[i];
        int same = 0;
        for (size_t j = 0; j < got->n && !same; j++) {
            const map_sum *b = &got->v[j];
            same = a->launch == b->launch && a->space == b->space && a->crc == b->crc && a->len == b->len;
        }
        lost += !same;
    }
    return lost;
}

/* ---- a trace input ---- */

typedef struct cfg {
    const char *work;
    char in_t[1024], in_p[1024], json[1024], seed_p[1024];
    size_t budget;
    unsigned long analyze_every, profile_every;
    FILE *devnull;
} cfg;

/* One pass with the heat maps, as `heatmap` runs it (`analyze` adds the other analyses). */
static int pass_maps(const char *path, size_t budget, maps *got, mh_pass_stats *st, char *note, size_t cap,
                     mh_err *err) {
    mh_model m;
    mh_pass *p;
    mh_pass_opts po = {.analyses = MH_PASS_HEAT, .threads = 1,
                       .group_budget = budget};
    memset(st, 0, sizeof *st);
    note[0] = '\0';
    int rc = mh_pass_open(&p, path, &m, &po, err);
    if (rc != MH_OK) return rc;
    mh_pass_consumer pc = {.ctx = got, .heat = on_heat};
    rc = mh_pass_add(p, &pc, err);
    if (rc == MH_OK) rc = mh_pass_run(p, err);
    *st = *mh_pass_stats_get(p);
    mh_pass_notice(st, path, note, cap);
    mh_pass_close(p);
    mh_model_free(&m);
    return rc;
}

static void fuzz_trace(tally *t, const cfg *c, const seed_ref *ref, const fz_buf *b, const fz_expect *e,
                       int analyze) {
    if (fz_spit(c->in_t, b->p, b->n) != 0) {
        fprintf(stderr, "mh_fuzz_inproc: cannot write %s\n", c->in_t);
        exit(2);
    }
    maps got = {0};
    mh_pass_stats st;
    char note[1024];
    mh_err err = {0};
    int rc = pass_maps(c->in_t, c->budget, &got, &st, note, sizeof note, &err);
    int code = exit_of(rc, note[0] != 0);
    check_run(t, "pass", code, rc, rc ? err.msg : note, e);
    if (strchr(note, '\n')) fail(&t->multi_line, "a notice of more than one line", "pass", note);
    if (code == 0 && (!st.complete || st.partial || st.skipped_total))
        fail(&t->lies, "exit 0 on an incomplete trace or with records skipped", "pass", note);
    if (code == 0 && got.twice) fail(&t->lies, "a heat map emitted twice", "pass", note);
    size_t lost = lost_maps(ref, e->keep_chunks, &got);
    if (lost) {
        char what[64];
        snprintf(what, sizeof what, "%zu of %zu heat maps", lost, ref->m.n);
        fail(&t->lost, "finished launches lost", "pass", what);
    }
    if (e->clean && got.n != ref->m.n) fail(&t->lies, "the seed's maps differ in number", "pass", "");
    free(got.v);
    if (!analyze) return;
    /* `memheat analyze -o JSON`: the same verdict, and the JSON says it */
    mh_analyze_opts ao = {.threads = 1, .group_budget = c->budget};
    mh_analyze_result res;
    memset(&res, 0, sizeof res);
    mh_err aerr = {0};
    unlink(c->json);
    int arc = mh_analyze_file(c->in_t, &ao, &res, &aerr);
    int wrote = 0;
    if (arc == MH_OK || arc == MH_ERR_TRUNCATED) {
        mh_err jerr = {0};
        if (mh_analyze_write_json(c->json, &res, &jerr) != MH_OK) fail(&t->lies, "JSON not written", "analyze", jerr.msg);
        else wrote = 1;
    }
    int acode = exit_of(arc, res.notice[0] != 0);
    check_run(t, "analyze", acode, arc, arc ? aerr.msg : res.notice, e);
    mh_analyze_free(&res);
    if (acode != code) {
        char what[96];
        snprintf(what, sizeof what, "analyze exits %d, the pass %d", acode, code);
        fail(&t->lies, "two commands, two exit codes", "analyze", what);
    }
    if (wrote) {
        fz_buf j = {0};
        if (fz_slurp(c->json, &j) == 0) {
            j.p[j.n] = '\0';
            int says_complete = strstr((char *)j.p, "\"complete\": true") != NULL;
            if (says_complete != (acode == 0)) fail(&t->lies, "JSON 'complete' vs exit code", "analyze", "");
        }
        free(j.p);
    }
}

/* ---- a profile input ---- */

typedef struct prof_sum {
    size_t launches, maps;
    uint32_t crc; /* of every heat row of every map */
} prof_sum;

static int row_crc(void *ctx, const mh_db_heat_row *row) {
    uint32_t *crc = ctx;
    *crc = mh_crc32c(*crc, row, sizeof *row);
    return 0;
}

static int profile_sum(mh_db *db, prof_sum *s, mh_err *err) {
    json_t *root = NULL;
    memset(s, 0, sizeof *s);
    int rc = mh_db_read_summary(db, &root, err);
    if (rc != MH_OK) return rc;
    json_t *hm = json_object_get(root, "heat_maps"), *v;
    s->launches = json_array_size(json_object_get(root, "launches"));
    s->maps = json_array_size(hm);
    size_t i;
    json_array_foreach(hm, i, v) {
        rc = mh_db_read_heat(db, json_integer_value(json_object_get(v, "id")), row_crc, &s->crc, err);
        if (rc != MH_OK) break;
    }
    json_decref(root);
    return rc;
}

static void fuzz_profile(tally *t, const cfg *c, mh_db *seed, const prof_sum *seed_sum, const fz_expect *e) {
    /* `memheat report` */
    mh_err err = {0};
    mh_db *db = NULL;
    char note[600] = "";
    int rc = mh_db_open(&db, c->in_p, MH_DB_CHECK, &err);
    if (rc == MH_OK) {
        mh_report_opts ro = {0};
        rc = mh_report_html(db, c->devnull, &ro, &err);
        mh_db_notice(db, note, sizeof note);
        if (rc == MH_OK && e->must_partial) { /* interrupted: everything written is still there */
            prof_sum s;
            mh_err serr = {0};
            if (profile_sum(db, &s, &serr) != MH_OK || s.launches != seed_sum->launches ||
                s.maps != seed_sum->maps || s.crc != seed_sum->crc)
                fail(&t->lost, "an interrupted profile lost launches or heat rows", "report", serr.msg);
        }
        mh_db_close(db);
    }
    int code = exit_of(rc, note[0] != 0);
    check_run(t, "report", code, rc, rc ? err.msg : note, e);
    /* `memheat diff SEED INPUT` */
    mh_err derr = {0};
    char dnote[600] = "";
    int drc = mh_db_open(&db, c->in_p, MH_DB_CHECK, &derr);
    if (drc == MH_OK) {
        drc = mh_report_diff(seed, db, c->devnull, 0, c->devnull, &derr);
        mh_db_notice(db, dnote, sizeof dnote);
        mh_db_close(db);
    }
    check_run(t, "diff", exit_of(drc, dnote[0] != 0), drc, drc ? derr.msg : dnote, e);
}

/* ---- seeds ---- */

static int make_seeds(cfg *c, fz_trace *st, fz_buf *enc, size_t **off, fz_buf *db_bytes, seed_ref *ref) {
    char seed_t[1024];
    snprintf(seed_t, sizeof seed_t, "%s/seed.mht", c->work);
    /* every shape, small: the pass over it takes well under a millisecond */
    mh_synth_opts so = {.shapes = (1u << MH_SYNTH_SHAPE_COUNT) - 1, .warps = 2, .blocks = 2, .iters = 2};
    mh_err err = {0};
    unlink(c->seed_p);
    fz_buf raw = {0};
    if (mh_synth_write(seed_t, &so, &err) != MH_OK || fz_slurp(seed_t, &raw) || fz_trace_parse(&raw, st)) {
        fprintf(stderr, "mh_fuzz_inproc: seed trace: %s\n", err.msg);
        return -1;
    }
    free(raw.p);
    fz_rechunk(st);
    *off = malloc((st->n + 1) * sizeof **off);
    *enc = fz_trace_encode(st, *off);
    for (size_t i = 0; i < st->n; i++) { /* compress each chunk once: mutants reuse the frames */
        fz_chunk *k = &st->c[i];
        k->ncomp = (*off)[i + 1] - (*off)[i] - 24;
        k->comp = malloc(k->ncomp);
        memcpy(k->comp, enc->p + (*off)[i] + 24, k->ncomp);
    }
    mh_db_import_opts io = {.trace_path = seed_t, .threads = 1};
    if (fz_spit(seed_t, enc->p, enc->n) || mh_db_import_trace(c->seed_p, 1, &io, &err) != MH_OK ||
        fz_slurp(c->seed_p, db_bytes)) {
        fprintf(stderr, "mh_fuzz_inproc: seed profile: %s\n", err.msg);
        return -1;
    }
    mh_pass_stats pst;
    char note[1024];
    if (pass_maps(seed_t, c->budget, &ref->m, &pst, note, sizeof note, &err) != MH_OK || note[0] || !ref->m.n) {
        fprintf(stderr, "mh_fuzz_inproc: the seed trace fails: %s%s\n", err.msg, note);
        return -1;
    }
    /* each map's launch: the chunk of its kernel end (record 6, launch id first) */
    ref->end_chunk = malloc(ref->m.n * sizeof *ref->end_chunk);
    for (size_t i = 0; i < ref->m.n; i++) {
        ref->end_chunk[i] = (uint32_t)st->n;
        for (size_t k = 0; k < st->n && ref->end_chunk[i] == st->n; k++) {
            const fz_chunk *ch = &st->c[k];
            for (size_t o = 0; o + 12 <= ch->nraw;) {
                uint32_t len = (uint32_t)ch->raw[o + 4] | (uint32_t)ch->raw[o + 5] << 8 |
                               (uint32_t)ch->raw[o + 6] << 16 | (uint32_t)ch->raw[o + 7] << 24;
                uint32_t id = (uint32_t)ch->raw[o + 8] | (uint32_t)ch->raw[o + 9] << 8 |
                              (uint32_t)ch->raw[o + 10] << 16 | (uint32_t)ch->raw[o + 11] << 24;
                if (ch->raw[o] == 6 && id == ref->m.v[i].launch) ref->end_chunk[i] = (uint32_t)k;
                o += 8 + ((len + 7) & ~7u);
            }
        }
    }
    size_t found = 0;
    for (size_t i = 0; i < ref->m.n; i++) found += ref->end_chunk[i] < st->n;
    printf("mh_fuzz_inproc: seed trace %zu bytes, %zu chunks, %zu heat maps (%zu with their kernel end found); "
           "seed profile %zu bytes\n", enc->n, st->n, ref->m.n, found, db_bytes->n);
    return found == ref->m.n ? 0 : -1;
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
          "                      [--analyze-every N] [--profile-every N] [--budget BYTES]\n",
          stderr);
    return 2;
}

int main(int argc, char **argv) {
    cfg c = {.budget = 1u << 20, .analyze_every = 8, .profile_every = 16};
    unsigned long inputs = 0, from = 0;
    double seconds = 0;
    unsigned timeout = 10;
    uint64_t seed_no = 1;
    for (int i = 1; i + 1 < argc; i += 2) {
        const char *a = argv[i], *v = argv[i + 1];
        if (!strcmp(a, "--work")) c.work = v;
        else if (!strcmp(a, "--inputs")) inputs = strtoul(v, NULL, 10);
        else if (!strcmp(a, "--seconds")) seconds = atof(v);
        else if (!strcmp(a, "--seed")) seed_no = strtoull(v, NULL, 10);
        else if (!strcmp(a, "--from")) from = strtoul(v, NULL, 10);
        else if (!strcmp(a, "--timeout")) timeout = (unsigned)strtoul(v, NULL, 10);
        else if (!strcmp(a, "--analyze-every")) c.analyze_every = strtoul(v, NULL, 10);
        else if (!strcmp(a, "--profile-every")) c.profile_every = strtoul(v, NULL, 10);
        else if (!strcmp(a, "--budget")) c.budget = strtoul(v, NULL, 10);
        else return usage();
    }
    if (!c.work || (argc - 1) % 2 || (!inputs && seconds <= 0) || !c.analyze_every || !c.profile_every || !timeout)
        return usage();
    if (mkdir(c.work, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "mh_fuzz_inproc: cannot create %s: %s\n", c.work, strerror(errno));
        return 2;
    }
    snprintf(c.in_t, sizeof c.in_t, "%s/in.mht", c.work);
    snprintf(c.in_p, sizeof c.in_p, "%s/in.mhdb", c.work);
    snprintf(c.json, sizeof c.json, "%s/out.json", c.work);
    snprintf(c.seed_p, sizeof c.seed_p, "%s/seed.mhdb", c.work);
    c.devnull = fopen("/dev/null", "w");
    fz_trace st;
    fz_buf enc = {0}, dbb = {0};
    size_t *off = NULL;
    seed_ref ref = {0};
    if (!c.devnull || make_seeds(&c, &st, &enc, &off, &dbb, &ref) != 0) return 1;
    mh_db *seed_db;
    prof_sum seed_sum;
    mh_err err = {0};
    if (mh_db_open(&seed_db, c.seed_p, MH_DB_CHECK, &err) != MH_OK || profile_sum(seed_db, &seed_sum, &err) != MH_OK) {
        fprintf(stderr, "mh_fuzz_inproc: seed profile: %s\n", err.msg);
        return 1;
    }
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
    tally t = {0};
    long rss_early = 0;
    double t0 = now_s(), last = t0;
    for (unsigned long i = from; inputs ? i < from + inputs : now_s() - t0 < seconds; i++) {
        fz_rng rng = fz_rng_at(seed_no, i);
        fz_expect e;
        int profile = i % c.profile_every == c.profile_every - 1;
        fz_buf b = {0};
        if (profile) fz_mutate_profile(&dbb, c.in_p, &rng, &e);
        else fz_mutate_trace(&st, &enc, off, &rng, &b, &e);
        g_now_len = (size_t)snprintf(g_now, sizeof g_now,
                                     "input %lu of seed %llu (%s %s): reproduce with --seed %llu --from %lu "
                                     "--inputs 1 --profile-every %lu --analyze-every %lu; the input is %s\n",
                                     i, (unsigned long long)seed_no, profile ? "profile" : "trace", e.kind,
                                     (unsigned long long)seed_no, i, c.profile_every, c.analyze_every,
                                     profile ? c.in_p : c.in_t);
        if (g_now_len >= sizeof g_now) g_now_len = sizeof g_now - 1;
        count_kind(&t, e.kind);
        t.inputs++;
        alarm(timeout);
        if (profile) fuzz_profile(&t, &c, seed_db, &seed_sum, &e);
        else fuzz_trace(&t, &c, &ref, &b, &e, i % c.analyze_every == 0);
        alarm(0);
        free(b.p);
        if (t.inputs == 1000) rss_early = rss_kib();
        if (now_s() - last > 60) {
            last = now_s();
            fprintf(stderr, "mh_fuzz_inproc: %lu inputs, %.0f s, %lu failures, rss %ld KiB\n", t.inputs, last - t0,
                    t.bad_codes + t.lies + t.lost + t.raw_msgs + t.multi_line, rss_kib());
        }
    }
    double dt = now_s() - t0;
    unsigned long bad = t.bad_codes + t.lies + t.lost + t.raw_msgs + t.multi_line;
    printf("mh_fuzz_inproc: seed %llu, inputs %lu..%lu: %lu inputs, %lu runs in %.1f s (%.0f inputs/s): 0 crashes, "
           "0 hangs, %lu bad exit codes, %lu exit/output contradictions, %lu launches lost, %lu raw SQLite "
           "messages, %lu multi-line errors\n",
           (unsigned long long)seed_no, from, from + t.inputs - 1, t.inputs, t.runs, dt, (double)t.inputs / dt,
           t.bad_codes, t.lies, t.lost, t.raw_msgs, t.multi_line);
    printf("mh_fuzz_inproc: exit codes 0: %lu, 1: %lu, 4: %lu; rss %ld KiB after 1000 inputs, %ld KiB at the end\n",
           t.codes[0], t.codes[1], t.codes[4], rss_early, rss_kib());
    printf("mh_fuzz_inproc: inputs per mutator:");
    for (size_t i = 0; i < 16 && t.kind_names[i]; i++) printf(" %s %lu;", t.kind_names[i], t.kinds[i]);
    printf("\n");
    mh_db_close(seed_db);
    fclose(c.devnull);
    fz_trace_free(&st);
    free(enc.p);
    free(dbb.p);
    free(off);
    free(ref.m.v);
    free(ref.end_chunk);
    return bad ? 1 : 0;
}
