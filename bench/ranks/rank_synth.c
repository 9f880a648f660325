/* rank_synth.c -- per-rank profiles of a made-up data-parallel job, for
 * bench/ranks (merge and report of many ranks).
 *
 *   rank_synth --base P.mhdb [--timing T.timing.json] --ranks N --out DIR
 *              [--seed S] [--per-node K]
 *
 * writes DIR/rank_00000.mhdb ... one profile per rank, each a copy of a real
 * profile (P: the OpenCL examples under Oclgrind, scripts/main-job.sh) with
 * the timing of a real CUDA run (T: a timing file memheat's CUPTI collector
 * wrote, e.g. bench/realworld/results/h100/2026-11-25/verdict-inputs/) joined
 * to it -- without T, P's own timing pass, if it has one -- and varied per
 * rank the way the ranks of one job differ:
 *
 *  - identity: rank, local rank, world size, SLURM_PROCID, host "nodeNNNN"
 *    (K ranks per node, default 8), a pid, one device UUID per rank;
 *  - speed: every rank's kernel times scaled by a factor of its own
 *    (log-normal, sigma 2%) and each launch's by a jitter (sigma 3%); the
 *    ranks of one node (the middle one) 25% slower (a slow node), and about
 *    one rank in a hundred a straggler, 1.6x to 2.2x slower. Bandwidth
 *    follows (same bytes, other times);
 *  - addresses: a third of the ranks place their global objects elsewhere
 *    (2 MiB steps), as processes do; heat maps identical otherwise;
 *  - data: every third traced launch (the second, fifth, ...) is data
 *    dependent: on 4% of the ranks its heat maps differ, each such rank's in
 *    its own way (a third of their rows one warp hotter, one row more), and
 *    its least costly problem finding is absent, the others costlier by 10%.
 *
 * Everything follows from --seed (default 1): the same arguments give the
 * same files. The profiles are valid memheat profiles (complete, schema 3):
 * `memheat merge` and `memheat report` read them as any other. */
#define _GNU_SOURCE 1
#include <errno.h>
#include <stdarg.h>
#include <jansson.h>
#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "import/import.h"
#include "store/store.h"

static uint64_t mix(uint64_t x) { /* splitmix64's finaliser */
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}
static double unit(uint64_t h) { return (double)(h >> 11) / 9007199254740992.0; } /* [0, 1) */
static double gauss(uint64_t h) { /* Box-Muller */
    double u = unit(mix(h)) + 1e-12, v = unit(mix(h ^ 0x5bd1e995));
    return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

typedef struct job {
    uint64_t seed;
    int ranks, per_node;
} job;

static uint64_t h2(const job *j, uint64_t a, uint64_t b) { return mix(mix(j->seed ^ mix(a)) ^ b); }

/* The rank's speed factor (>= 1 is slower). */
static double rank_factor(const job *j, int r) {
    double f = exp(0.02 * gauss(h2(j, (uint64_t)r, 1)));
    int nodes = (j->ranks + j->per_node - 1) / j->per_node;
    if (nodes > 1 && r / j->per_node == nodes / 2) f *= 1.25;                   /* the slow node */
    if (j->ranks >= 8 && h2(j, (uint64_t)r, 2) % 100 == 7) f *= 1.6 + 0.6 * unit(h2(j, (uint64_t)r, 3)); /* straggler */
    return f;
}
static int relocated(const job *j, int r) { return h2(j, (uint64_t)r, 4) % 3 == 0; }
/* Whether launch index li (in id order) runs on other data on rank r. */
static int data_differs(const job *j, int r, int li) { return li % 3 == 1 && h2(j, (uint64_t)r, 100 + (uint64_t)li) % 100 < 4; }

static int sql(sqlite3 *db, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int sql(sqlite3 *db, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *q = sqlite3_vmprintf(fmt, ap);
    va_end(ap);
    char *e = NULL;
    int rc = q ? sqlite3_exec(db, q, NULL, NULL, &e) : SQLITE_NOMEM;
    if (rc != SQLITE_OK) fprintf(stderr, "rank_synth: SQL failed (%s): %s\n", e ? e : "out of memory", q ? q : "");
    sqlite3_free(e);
    sqlite3_free(q);
    return rc != SQLITE_OK;
}

static int write_file(const char *path, const void *b, size_t n) {
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    size_t w = fwrite(b, 1, n, f);
    return fclose(f) != 0 || w != n ? -1 : 0;
}

/* Identity, addresses and data of rank r, on the copy at path; with
 * scale_times, the base's own kernel times too (no timing file given). */
static int vary(const job *j, int r, const char *path, int scale_times) {
    sqlite3 *db;
    if (sqlite3_open(path, &db) != SQLITE_OK) {
        fprintf(stderr, "rank_synth: cannot open %s\n", path);
        return -1;
    }
    int node = r / j->per_node, bad = sql(db, "BEGIN");
    bad = bad || sql(db,
                     "UPDATE process SET pid = %d, host = 'node%04d', rank = %d, local_rank = %d, world_size = %d,"
                     " slurm_procid = %d, devices = 'GPU-%08x-%04x-%04x-%04x-%012llx'",
                     10000 + (int)(h2(j, (uint64_t)r, 5) % 50000), node, r, r % j->per_node, j->ranks, r,
                     (unsigned)(h2(j, (uint64_t)node, 6) & 0xffffffff), r % j->per_node, 0x4d48, 0x5046,
                     (unsigned long long)(h2(j, (uint64_t)r, 7) & 0xffffffffffffull));
    if (relocated(j, r)) {
        long long d = (long long)(1 + r % 7) << 21; /* bytes */
        bad = bad || sql(db, "UPDATE object SET base = base + %lld WHERE space = 'global'", d) ||
              sql(db,
                  "UPDATE heat_region SET start = start + %lld, end = end + %lld,"
                  " first_tag = first_tag + %lld / (SELECT sector_size FROM heat_map m WHERE m.id = map),"
                  " last_tag = last_tag + %lld / (SELECT sector_size FROM heat_map m WHERE m.id = map)"
                  " WHERE map IN (SELECT id FROM heat_map WHERE space = 'global')",
                  d, d, d, d) ||
              sql(db,
                  "UPDATE heat_row SET tag = tag + %lld / (SELECT sector_size FROM heat_map m WHERE m.id = map)"
                  " WHERE map IN (SELECT id FROM heat_map WHERE space = 'global')",
                  d) ||
              sql(db, "UPDATE finding SET example_tag = example_tag + %lld / 32 WHERE space = 'global'", d);
    }
    /* data-dependent launches, by index in id order */
    sqlite3_stmt *st;
    int n = 0;
    long long ids[4096];
    if (!bad && sqlite3_prepare_v2(db, "SELECT id FROM launch ORDER BY id", -1, &st, NULL) == SQLITE_OK) {
        while (n < 4096 && sqlite3_step(st) == SQLITE_ROW) ids[n++] = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
    }
    for (int li = 0; li < n && !bad; li++) {
        if (!data_differs(j, r, li)) continue;
        long long id = ids[li];
        bad = sql(db,
                  "UPDATE heat_row SET w0 = w0 + (w0 > 0), w1 = w1 + (w1 > 0), w2 = w2 + (w2 > 0),"
                  " w3 = w3 + (w3 > 0), w4 = w4 + (w4 > 0), w5 = w5 + (w5 > 0), w6 = w6 + (w6 > 0),"
                  " w7 = w7 + (w7 > 0), sector = sector + 1 WHERE (row * 7 + %d) %% 3 = 0"
                  " AND map IN (SELECT id FROM heat_map WHERE launch = %lld)",
                  r, id) ||
              sql(db, /* and one row of its own, so that such ranks rarely match */
                  "UPDATE heat_row SET sector = sector + 1 + %d WHERE row = %d %% (SELECT MAX(nrows) FROM heat_map"
                  " WHERE launch = %lld) AND map = (SELECT MIN(id) FROM heat_map WHERE launch = %lld)",
                  r % 5, r, id, id) ||
              sql(db,
                  "UPDATE heat_map SET max_temp = (SELECT MAX(sector) FROM heat_row WHERE map = heat_map.id)"
                  " WHERE launch = %lld",
                  id) ||
              sql(db,
                  "DELETE FROM finding WHERE id = (SELECT id FROM finding WHERE launch = %lld AND kind <> 'coalesced'"
                  " ORDER BY cost, id LIMIT 1)",
                  id) ||
              sql(db, "UPDATE finding SET cost = cost * 1.1 WHERE launch = %lld", id);
    }
    if (scale_times) { /* the base's timing pass, slower or faster: the same bytes in other times */
        double f = rank_factor(j, r);
        bad = bad ||
              sql(db,
                  "UPDATE kernel SET total_ns = total_ns * %.6f, min_ns = min_ns * %.6f, median_ns = median_ns * %.6f,"
                  " max_ns = max_ns * %.6f, bandwidth_Bps = bandwidth_Bps / %.6f, pct_peak = pct_peak / %.6f,"
                  " pct_measured_peak = pct_measured_peak / %.6f",
                  f, f, f, f, f, f, f) ||
              sql(db, "UPDATE kernel_run SET end_ns = start_ns + CAST((end_ns - start_ns) * %.6f AS INTEGER)", f);
    }
    bad = bad || sql(db, "COMMIT");
    sqlite3_close(db);
    return bad ? -1 : 0;
}

/* The timing file of rank r: times scaled by its factor and jittered per launch. */
static json_t *rank_timing(const job *j, int r, const json_t *base) {
    json_t *t = json_deep_copy(base);
    if (!t) return NULL;
    double f = rank_factor(j, r);
    const char *lists[] = {"kernels", "copies"};
    long long t0 = -1;
    for (int k = 0; k < 2; k++) {
        size_t i;
        json_t *e;
        json_array_foreach(json_object_get(t, lists[k]), i, e) {
            long long s = json_integer_value(json_object_get(e, "start_ns"));
            if (t0 < 0 || s < t0) t0 = s;
        }
    }
    for (int k = 0; k < 2; k++) {
        size_t i;
        json_t *e;
        json_array_foreach(json_object_get(t, lists[k]), i, e) {
            long long s = json_integer_value(json_object_get(e, "start_ns")),
                      d = json_integer_value(json_object_get(e, "end_ns")) - s;
            double jit = exp(0.03 * gauss(h2(j, (uint64_t)r, 1000 + i * 2 + (uint64_t)k)));
            long long s2 = t0 + (long long)((double)(s - t0) * f), d2 = (long long)((double)d * (k ? 1.0 : f) * jit);
            json_object_set_new(e, "start_ns", json_integer(s2));
            json_object_set_new(e, "end_ns", json_integer(s2 + (d2 > 0 ? d2 : 1)));
        }
    }
    json_object_del(t, "analysis"); /* memheat computes it again from the records */
    return t;
}

static int usage(void) {
    fputs("usage: rank_synth --base P.mhdb [--timing T.timing.json] --ranks N --out DIR [--seed S] [--per-node K]\n",
          stderr);
    return 2;
}

int main(int argc, char **argv) {
    const char *base = NULL, *timing = NULL, *out = NULL;
    job j = {.seed = 1, .ranks = 0, .per_node = 8};
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--base")) base = argv[i + 1];
        else if (!strcmp(argv[i], "--timing")) timing = argv[i + 1];
        else if (!strcmp(argv[i], "--out")) out = argv[i + 1];
        else if (!strcmp(argv[i], "--ranks")) j.ranks = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--seed")) j.seed = strtoull(argv[i + 1], NULL, 0);
        else if (!strcmp(argv[i], "--per-node")) j.per_node = atoi(argv[i + 1]);
        else return usage();
    }
    if (!base || !out || j.ranks < 1 || j.ranks > 1000000 || j.per_node < 1) return usage();
    FILE *f = fopen(base, "rb");
    if (!f) {
        fprintf(stderr, "rank_synth: cannot open %s: %s\n", base, strerror(errno));
        return 1;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *bytes = n > 0 ? malloc((size_t)n) : NULL;
    if (!bytes || fread(bytes, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "rank_synth: cannot read %s\n", base);
        return 1;
    }
    fclose(f);
    json_t *tbase = NULL;
    if (timing) {
        json_error_t je;
        if (!(tbase = json_load_file(timing, 0, &je))) {
            fprintf(stderr, "rank_synth: %s: %s (line %d)\n", timing, je.text, je.line);
            return 1;
        }
    }
    mkdir(out, 0777);
    for (int r = 0; r < j.ranks; r++) {
        char path[4096], tpath[4200];
        snprintf(path, sizeof path, "%s/rank_%05d.mhdb", out, r);
        unlink(path);
        if (write_file(path, bytes, (size_t)n) || vary(&j, r, path, !tbase)) {
            fprintf(stderr, "rank_synth: cannot write %s\n", path);
            return 1;
        }
        if (!tbase) continue;
        snprintf(tpath, sizeof tpath, "%s/rank_%05d.timing.json", out, r);
        json_t *t = rank_timing(&j, r, tbase);
        if (!t || json_dump_file(t, tpath, JSON_COMPACT)) {
            fprintf(stderr, "rank_synth: cannot write %s\n", tpath);
            return 1;
        }
        json_decref(t);
        mh_db *db;
        mh_err err = {0};
        if (mh_db_open(&db, path, MH_DB_WRITABLE, &err) || mh_db_import_timing(db, tpath, &err) ||
            mh_db_tag_process(db, 1, &err)) {
            fprintf(stderr, "rank_synth: %s\n", err.msg);
            return 1;
        }
        mh_db_close(db);
        unlink(tpath);
    }
    free(bytes);
    json_decref(tbase);
    return 0;
}
