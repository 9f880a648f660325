/* mh_fuzz.c -- fuzzing harness: damaged traces and profiles through the real
 * memheat commands (bench/fuzz/README.md has the long run and its figures).
 *
 *   mh_fuzz run --memheat PATH --work DIR [--inputs N] [--seed S] [--timeout S]
 *   mh_fuzz make-bad KIND SEED.mht OUT.mht   (KIND: unknown-launch, dup-launch,
 *                                             ended-launch, dup-end, no-end)
 *
 * Trace mutators work on the chunk structure (docs/trace-format.md): cuts,
 * byte flips, header damage, duplicated and reordered chunks (renumbered,
 * checksums recomputed), dropped end record, and bad records with valid
 * checksums injected in a new chunk (an access naming an unknown or ended
 * launch, a launch id twice, a repeated kernel end) so they reach the model.
 * Profile mutators: cuts, flips, a dropped table or column, an interrupted
 * profile (meta.complete = '0').
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
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#include "memheat/import.h"
#include "memheat/store.h"
#include "memheat/synth.h"
#include "util/crc32c.h"

/* ---- small helpers ---- */

static uint64_t g_rng = 88172645463325252ull;
static uint64_t rnd(void) {
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return g_rng;
}
static size_t rndn(size_t n) { return n ? (size_t)(rnd() % n) : 0; }

static uint32_t get32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static void put32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16), p[3] = (uint8_t)(v >> 24);
}

typedef struct buf {
    uint8_t *p;
    size_t n;
} buf;

static int slurp(const char *path, buf *b) {
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    b->p = malloc((size_t)n + 1);
    b->n = fread(b->p, 1, (size_t)n, f);
    fclose(f);
    return 0;
}

static int spit(const char *path, const uint8_t *p, size_t n) {
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    size_t w = fwrite(p, 1, n, f);
    return fclose(f) == 0 && w == n ? 0 : -1;
}

/* ---- the chunk structure of a trace ---- */

typedef struct chunk {
    uint8_t *raw; /* decompressed records */
    size_t nraw;
} chunk;

typedef struct trace {
    uint8_t prefix[16];
    chunk *c;
    size_t n;
} trace;

static int trace_parse(const buf *b, trace *t) {
    memset(t, 0, sizeof *t);
    if (b->n < 16) return -1;
    memcpy(t->prefix, b->p, 16);
    size_t off = 16;
    while (off + 24 <= b->n) {
        const uint8_t *h = b->p + off;
        uint32_t raw = get32(h + 8), comp = get32(h + 12);
        if (off + 24 + comp > b->n) return -1;
        t->c = realloc(t->c, (t->n + 1) * sizeof *t->c);
        chunk *c = &t->c[t->n++];
        c->raw = malloc(raw ? raw : 1);
        c->nraw = ZSTD_decompress(c->raw, raw, h + 24, comp);
        if (ZSTD_isError(c->nraw)) return -1;
        off += 24 + comp;
    }
    return 0;
}

static buf trace_encode(const trace *t) {
    buf b = {0};
    size_t cap = 16;
    for (size_t i = 0; i < t->n; i++) cap += 24 + ZSTD_compressBound(t->c[i].nraw);
    b.p = malloc(cap);
    memcpy(b.p, t->prefix, 16);
    b.n = 16;
    for (size_t i = 0; i < t->n; i++) {
        uint8_t *h = b.p + b.n;
        size_t comp = ZSTD_compress(h + 24, cap - b.n - 24, t->c[i].raw, t->c[i].nraw, 1);
        put32(h, 0x4B43484Du);
        put32(h + 4, (uint32_t)i); /* renumbered: repeated or moved chunks pass the index check */
        put32(h + 8, (uint32_t)t->c[i].nraw);
        put32(h + 12, (uint32_t)comp);
        put32(h + 16, mh_crc32c(0, h + 24, comp));
        put32(h + 20, mh_crc32c(0, h, 20));
        b.n += 24 + comp;
    }
    return b;
}

static void trace_free(trace *t) {
    for (size_t i = 0; i < t->n; i++) free(t->c[i].raw);
    free(t->c);
}

static chunk chunk_copy(const chunk *c) {
    chunk d = {malloc(c->nraw ? c->nraw : 1), c->nraw};
    memcpy(d.raw, c->raw, c->nraw);
    return d;
}

static chunk record_chunk(const uint8_t *rec, size_t n) {
    chunk c = {malloc(n), n};
    memcpy(c.raw, rec, n);
    return c;
}

static void insert_chunk(trace *t, size_t at, chunk c) {
    t->c = realloc(t->c, (t->n + 1) * sizeof *t->c);
    memmove(&t->c[at + 1], &t->c[at], (t->n - at) * sizeof *t->c);
    t->c[at] = c;
    t->n++;
}

/* First record of type `type` in chunk c (offset), or -1. */
static long find_rec(const chunk *c, unsigned type, size_t from) {
    size_t off = from;
    while (off + 8 <= c->nraw) {
        uint32_t len = get32(c->raw + off + 4);
        if (c->raw[off] == type) return (long)off;
        off += 8 + ((len + 7) & ~7u);
    }
    return -1;
}

/* Chunk index and offset of the first record of a type, searching from chunk k. */
static int find_any(const trace *t, unsigned type, size_t k, size_t *ci, long *off) {
    for (size_t i = k; i < t->n; i++)
        if ((*off = find_rec(&t->c[i], type, 0)) >= 0) {
            *ci = i;
            return 0;
        }
    return -1;
}

/* Splits chunks after every KERNEL_END, as the collectors flush (synth
 * writes one chunk): chunk-level mutations then move whole launches. */
static void rechunk(trace *t) {
    trace o = {{0}, NULL, 0};
    memcpy(o.prefix, t->prefix, 16);
    for (size_t i = 0; i < t->n; i++) {
        const chunk *c = &t->c[i];
        size_t off = 0, start = 0;
        while (off + 8 <= c->nraw) {
            uint32_t len = get32(c->raw + off + 4);
            unsigned type = c->raw[off];
            off += 8 + ((len + 7) & ~7u);
            if ((type == 6 || type == 1) && off < c->nraw) {
                insert_chunk(&o, o.n, record_chunk(c->raw + start, off - start));
                start = off;
            }
        }
        if (start < c->nraw) insert_chunk(&o, o.n, record_chunk(c->raw + start, c->nraw - start));
    }
    trace_free(t);
    *t = o;
}

/* Bad records with valid checksums, in a new chunk before the END chunk. */
enum { BAD_UNKNOWN, BAD_DUP_LAUNCH, BAD_ENDED, BAD_DUP_END, BAD_NO_END, BAD_KINDS };
static const char *const bad_names[] = {"unknown-launch", "dup-launch", "ended-launch", "dup-end", "no-end"};

static int make_bad(trace *t, int kind) {
    size_t ci;
    long off;
    size_t last = t->n - 1; /* the END record's chunk */
    if (kind == BAD_NO_END) {
        if (find_rec(&t->c[last], 9, 0) < 0) return -1;
        free(t->c[last].raw);
        t->n--;
        return 0;
    }
    if (kind == BAD_UNKNOWN || kind == BAD_ENDED) {
        if (find_any(t, 5, 1, &ci, &off)) return -1;
        const chunk *c = &t->c[ci];
        uint32_t len = get32(c->raw + off + 4);
        chunk d = record_chunk(c->raw + off, 8 + ((len + 7) & ~7u)); /* ACCESSES of a launch that ended */
        uint32_t cnt = get32(d.raw + 8);
        for (uint32_t i = 0; i < cnt && kind == BAD_UNKNOWN; i++) put32(d.raw + 16 + 32u * i + 16, 64 + (uint32_t)rndn(1000));
        insert_chunk(t, last, d);
        return 0;
    }
    unsigned type = kind == BAD_DUP_LAUNCH ? 2 : 6;
    if (find_any(t, type, 1, &ci, &off)) return -1;
    uint32_t len = get32(t->c[ci].raw + off + 4);
    insert_chunk(t, last, record_chunk(t->c[ci].raw + off, 8 + ((len + 7) & ~7u)));
    return 0;
}

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
    if (!strstr(r->err, "not a memheat profile") &&
        (strstr(r->err, "no such column") || strstr(r->err, "no such table") || strstr(r->err, "misuse of") ||
         strstr(r->err, "SQLite error")))
        fail(t, &t->raw_msgs, "raw SQLite message", input, cmd, r);
    int errs = 0;
    for (const char *p = r->err; (p = strstr(p, ": error: ")); p++) errs++;
    if (errs > 1) fail(t, &t->multi_line, "more than one error line", input, cmd, r);
    return 1;
}

static int same_file(const char *a, const char *b) {
    buf x = {0}, y = {0};
    int same = slurp(a, &x) == 0 && slurp(b, &y) == 0 && x.n == y.n && memcmp(x.p, y.p, x.n) == 0;
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
        buf j = {0};
        if (slurp(json, &j) == 0) {
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

/* ---- profile mutators ---- */

static int sql(const char *path, const char *q) {
    sqlite3 *h;
    if (sqlite3_open(path, &h) != SQLITE_OK) return -1;
    int rc = sqlite3_exec(h, q, NULL, NULL, NULL);
    sqlite3_close(h);
    return rc == SQLITE_OK ? 0 : -1;
}

/* A random user table and (when col) one of its columns. */
static int pick_table(const char *path, char *tab, size_t cap, char *col, size_t ccap) {
    sqlite3 *h;
    if (sqlite3_open(path, &h) != SQLITE_OK) return -1;
    sqlite3_stmt *st;
    char names[64][64];
    int n = 0;
    sqlite3_prepare_v2(h, "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'", -1, &st,
                       NULL);
    while (sqlite3_step(st) == SQLITE_ROW && n < 64) snprintf(names[n++], 64, "%s", sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    if (!n) return sqlite3_close(h), -1;
    snprintf(tab, cap, "%s", names[rndn((size_t)n)]);
    if (col) {
        char q[200];
        snprintf(q, sizeof q, "PRAGMA table_info('%s')", tab);
        sqlite3_prepare_v2(h, q, -1, &st, NULL);
        int m = 0;
        while (sqlite3_step(st) == SQLITE_ROW && m < 64) snprintf(names[m++], 64, "%s", sqlite3_column_text(st, 1));
        sqlite3_finalize(st);
        snprintf(col, ccap, "%s", m ? names[rndn((size_t)m)] : "id");
    }
    sqlite3_close(h);
    return 0;
}

static void mutate_profile(const char *seed, const char *out, int *incomplete) {
    buf b = {0};
    slurp(seed, &b);
    *incomplete = 0;
    int kind = (int)rndn(5);
    if (kind == 0) { /* cut */
        spit(out, b.p, rndn(b.n));
    } else if (kind == 1) { /* flips */
        for (int i = 0, k = 1 + (int)rndn(8); i < k; i++) b.p[rndn(b.n)] ^= (uint8_t)(1 + rndn(255));
        spit(out, b.p, b.n);
    } else {
        spit(out, b.p, b.n);
        char tab[64], col[64], q[640]; /* room for every name the queries below hold */
        if (kind == 2 && pick_table(out, tab, sizeof tab, NULL, 0) == 0) {
            snprintf(q, sizeof q, "PRAGMA foreign_keys=OFF; DROP TABLE \"%s\";", tab);
            sql(out, q);
        } else if (kind == 3 && pick_table(out, tab, sizeof tab, col, sizeof col) == 0) {
            snprintf(q, sizeof q, "ALTER TABLE \"%s\" DROP COLUMN \"%s\";", tab, col);
            if (sql(out, q) != 0) { /* a key column: rebuild the table without it */
                snprintf(q, sizeof q,
                         "PRAGMA foreign_keys=OFF; CREATE TABLE mh_tmp AS SELECT * FROM \"%s\"; DROP TABLE \"%s\";"
                         " CREATE TABLE \"%s\" AS SELECT * FROM mh_tmp; DROP TABLE mh_tmp;"
                         " ALTER TABLE \"%s\" DROP COLUMN \"%s\";", tab, tab, tab, tab, col);
                sql(out, q);
            }
        } else {
            sql(out, "UPDATE meta SET value='0' WHERE key='complete'");
            *incomplete = 1;
        }
    }
    free(b.p);
}

/* ---- trace mutators ---- */

/* Returns the mutation's expectations: *incomplete (exit 0 is a lie),
 * *keep (every seed heat map must survive). */
static void mutate_trace(const buf *seed, const char *out, int *incomplete, int *keep) {
    *incomplete = *keep = 0;
    int kind = (int)rndn(7);
    buf b = {malloc(seed->n), seed->n};
    memcpy(b.p, seed->p, seed->n);
    if (kind == 0) { /* cut */
        spit(out, b.p, rndn(b.n));
        *incomplete = 1;
    } else if (kind == 1) { /* flips anywhere */
        for (int i = 0, k = 1 + (int)rndn(8); i < k; i++) b.p[rndn(b.n)] ^= (uint8_t)(1 + rndn(255));
        spit(out, b.p, b.n);
    } else if (kind == 2) { /* header damage: prefix and chunk 0 */
        size_t lim = b.n < 64 ? b.n : 64;
        for (int i = 0, k = 1 + (int)rndn(3); i < k; i++) b.p[rndn(lim)] ^= (uint8_t)(1 + rndn(255));
        spit(out, b.p, b.n);
    } else {
        trace t;
        if (trace_parse(seed, &t) != 0 || t.n < 3) {
            spit(out, b.p, b.n);
        } else {
            if (kind == 3) { /* duplicate a chunk after itself (not the header's) */
                size_t i = 1 + rndn(t.n - 2);
                insert_chunk(&t, i + 1, chunk_copy(&t.c[i]));
                *incomplete = *keep = 1; /* a repeated launch or kernel end is a bad record */
            } else if (kind == 4) { /* swap two chunks (not the header's) */
                size_t i = 1 + rndn(t.n - 1), j = 1 + rndn(t.n - 1);
                chunk c = t.c[i];
                t.c[i] = t.c[j];
                t.c[j] = c;
            } else { /* bad records with valid checksums */
                int k = (int)rndn(BAD_KINDS);
                if (make_bad(&t, k) == 0) *incomplete = *keep = 1;
            }
            buf e = trace_encode(&t);
            spit(out, e.p, e.n);
            free(e.p);
            trace_free(&t);
        }
    }
    free(b.p);
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
        for (int k = 0; k < BAD_KINDS; k++)
            if (!strcmp(argv[2], bad_names[k])) kind = k;
        buf b = {0};
        trace t;
        if (kind < 0 || slurp(argv[3], &b) || trace_parse(&b, &t)) return usage();
        rechunk(&t);
        int bad = t.n < 3 || make_bad(&t, kind);
        buf e = {0};
        if (!bad) e = trace_encode(&t);
        int rc = bad ? usage() : spit(argv[4], e.p, e.n) ? 1 : 0;
        free(e.p);
        trace_free(&t);
        free(b.p);
        return rc;
    }
    if (argc < 2 || strcmp(argv[1], "run")) return usage();
    const char *work = NULL;
    unsigned long inputs = 300;
    for (int i = 2; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--memheat")) g_memheat = argv[i + 1];
        else if (!strcmp(argv[i], "--work")) work = argv[i + 1];
        else if (!strcmp(argv[i], "--inputs")) inputs = strtoul(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--seed")) g_rng = strtoull(argv[i + 1], NULL, 10) * 2654435761u + 1;
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
    buf seed = {0};
    trace st;
    if (slurp(seed_t, &seed) || trace_parse(&seed, &st)) return 1;
    rechunk(&st);
    free(seed.p);
    seed = trace_encode(&st);
    trace_free(&st);
    spit(seed_t, seed.p, seed.n);
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
        int incomplete, keep;
        t.inputs++;
        if (i % 4 == 3) {
            snprintf(in, sizeof in, "%s/in.mhdb", work);
            mutate_profile(seed_p, in, &incomplete);
            check_profile(&t, work, in, seed_p, incomplete);
        } else {
            snprintf(in, sizeof in, "%s/in.mht", work);
            mutate_trace(&seed, in, &incomplete, &keep);
            check_trace(&t, work, in, incomplete, keep);
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
    return bad ? 1 : 0;
}
