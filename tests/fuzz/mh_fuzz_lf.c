/* mh_fuzz_lf.c -- memheat's readers under libFuzzer (clang -fsanitize=fuzzer):
 * coverage-guided, structure-aware, with the oracle of mh_fuzz_inproc
 * (fuzz_oracle.h); bench/fuzz/README.md has the runs and their figures,
 * tests/fuzz/libfuzzer.sh builds and runs it.
 *
 *   mh_fuzz_lf [libFuzzer options] CORPUS_DIR [SEED_DIR ...]
 *   MH_FUZZ_SEEDS=DIR (default: tests/fuzz/corpus)   MH_FUZZ_WORK=DIR (default: a folder of
 *   its own under /dev/shm or $TMPDIR)
 *
 * An input is a container: "MHFZ", u8 kind (0 trace, 1 profile), u8 flags
 * (1: sealed at some step, 2: an interrupted profile), u16 0, u32 the
 * CRC-32C of the seed it was made from, then the file's bytes. A file that
 * is not a container (the seeds themselves: tests/fuzz/corpus, traces and
 * profiles of the OpenCL examples under Oclgrind and a synthetic trace, made
 * by make_corpus.sh) is taken as it is, its seed found by its CRC.
 *
 * The custom mutator (LLVMFuzzerCustomMutator; libFuzzer then uses it
 * alone) works on the structure: a trace is parsed into its chunks and
 * records and changed by fz_mutate_records (every field of every record
 * kind, the access entries, strings, framing, chunk order, coded chunks,
 * versions; fuzz_records.h), or a chunk's decompressed bytes by
 * LLVMFuzzerMutate with the checksums made right, or the file's bytes by
 * LLVMFuzzerMutate (checksums broken), or the seed by fz_mutate_trace's
 * mutators (cut, flips, bad records, ...); a profile by fz_mutate_profile
 * (dropped tables and columns, bad values, interrupted) or its bytes.
 * What the input must give is found by comparing it with its seed
 * (fz_expect_compare), so any chain of mutations keeps an oracle: the seed
 * itself exits 0; a broken checksum or frame is an error; any other change
 * the end record covers is not silent. A failed check prints FAIL and
 * aborts, so libFuzzer keeps the input (crash-*). Which inputs also go
 * through analyze, the import and a threaded pass is decided by the
 * input's CRC, so an input always gets the same checks. */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_mutate.h"
#include "fuzz_oracle.h"
#include "fuzz_records.h"
#include "util/crc32c.h"

#ifndef MH_FUZZ_CORPUS_DIR
#define MH_FUZZ_CORPUS_DIR "tests/fuzz/corpus"
#endif

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

#define BOX_MAGIC "MHFZ"
#define BOX_BYTES 12u
#define BOX_SEALED 1u
#define BOX_INTERRUPTED 2u
enum { KIND_TRACE = 0, KIND_PROFILE = 1 };

typedef struct box {
    unsigned kind, flags;
    uint32_t seed;
    const uint8_t *p; /* the file's bytes */
    size_t n;
} box;

#define MAX_SEEDS 32
static struct {
    fz_oracle o;
    fz_trace_seed traces[MAX_SEEDS];
    size_t ntraces;
    fz_profile_seed profiles[MAX_SEEDS];
    size_t nprofiles;
    char tmp_p[1100]; /* where the profile mutator works */
} g;

static uint32_t get32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int is_profile(const uint8_t *p, size_t n) { return n >= 16 && !memcmp(p, "SQLite format 3", 16); }

static box unbox(const uint8_t *p, size_t n) {
    box b = {0, 0, 0, p, n};
    if (n >= BOX_BYTES && !memcmp(p, BOX_MAGIC, 4)) {
        b.kind = p[4] == KIND_PROFILE ? KIND_PROFILE : KIND_TRACE;
        b.flags = p[5];
        b.seed = get32(p + 8);
        b.p = p + BOX_BYTES;
        b.n = n - BOX_BYTES;
        return b;
    }
    b.kind = is_profile(p, n) ? KIND_PROFILE : KIND_TRACE; /* a seed as it is */
    b.seed = mh_crc32c(0, p, n);
    return b;
}

static const fz_trace_seed *trace_seed(uint32_t id) {
    for (size_t i = 0; i < g.ntraces; i++)
        if (g.traces[i].id == id) return &g.traces[i];
    return NULL;
}

static const fz_profile_seed *profile_seed(uint32_t id) {
    for (size_t i = 0; i < g.nprofiles; i++)
        if (g.profiles[i].id == id) return &g.profiles[i];
    return NULL;
}

static void on_fail(void *ctx, const char *what, const char *cmd, const char *msg) {
    (void)ctx;
    fprintf(stderr, "FAIL %s: %s: %.400s\n", what, cmd, msg);
    abort(); /* libFuzzer keeps the input */
}

static void load_seeds(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "mh_fuzz_lf: no seeds in %s (MH_FUZZ_SEEDS)\n", dir);
        exit(2);
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        int tr = len > 4 && !strcmp(e->d_name + len - 4, ".mht"), pr = len > 5 && !strcmp(e->d_name + len - 5, ".mhdb");
        if (!tr && !pr) continue;
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        fz_buf b = {0};
        if (fz_slurp(path, &b) != 0) continue;
        /* a seed that does not read clean is a finding (a reader that no
         * longer opens what memheat wrote), not one to leave out */
        int bad = 0;
        if (tr && g.ntraces < MAX_SEEDS) {
            if (fz_trace_seed_make(&g.o, &b, 0, &g.traces[g.ntraces]) == 0) g.ntraces++;
            else bad = 1;
        }
        if (pr && g.nprofiles < MAX_SEEDS) {
            if (fz_profile_seed_make(&g.o, &b, (unsigned)g.nprofiles, &g.profiles[g.nprofiles]) == 0) g.nprofiles++;
            else bad = 1;
        }
        free(b.p);
        if (bad) {
            fprintf(stderr, "mh_fuzz_lf: seed %s does not read clean\n", path);
            exit(2);
        }
    }
    closedir(d);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    const char *w = getenv("MH_FUZZ_WORK");
    char work[800];
    if (w && *w) {
        snprintf(work, sizeof work, "%s", w);
    } else {
        const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
        snprintf(work, sizeof work, "%s/mh_fuzz_lf.%d", base, (int)getpid());
    }
    if (fz_oracle_init(&g.o, work, on_fail, NULL) != 0) {
        fprintf(stderr, "mh_fuzz_lf: cannot use %s\n", work);
        exit(2);
    }
    snprintf(g.tmp_p, sizeof g.tmp_p, "%s/mutant.mhdb", work);
    const char *seeds = getenv("MH_FUZZ_SEEDS");
    load_seeds(seeds && *seeds ? seeds : MH_FUZZ_CORPUS_DIR);
    if (!g.ntraces) {
        fprintf(stderr, "mh_fuzz_lf: no trace seed\n");
        exit(2);
    }
    fprintf(stderr, "mh_fuzz_lf: %zu trace seeds, %zu profile seeds; work in %s\n", g.ntraces, g.nprofiles, work);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    box b = unbox(data, size);
    fz_expect e;
    memset(&e, 0, sizeof e);
    e.keep_chunks = FZ_KEEP_ALL;
    uint32_t h = mh_crc32c(0, data, size); /* the same input, the same checks */
    fz_buf in = {(uint8_t *)b.p, b.n};
    if (b.kind == KIND_TRACE) {
        const fz_trace_seed *s = trace_seed(b.seed);
        if (s) fz_expect_compare(&s->enc, s->off, &s->t, &s->end, &in, b.flags & BOX_SEALED, &e);
        unsigned checks = (h % 16 == 0 ? FZ_CHECK_ANALYZE : 0) | (h % 64 == 1 ? FZ_CHECK_IMPORT : 0) |
                          (h % 128 == 2 ? FZ_CHECK_THREADS : 0);
        fz_check_trace(&g.o, s, &in, &e, checks);
    } else {
        const fz_profile_seed *s = profile_seed(b.seed);
        if (s && s->bytes.n == b.n && !memcmp(s->bytes.p, b.p, b.n)) e.clean = 1;
        if (b.flags & BOX_INTERRUPTED) e.must_fail = e.must_partial = 1;
        if (fz_spit(g.o.in_p, b.p, b.n) != 0) abort();
        fz_check_profile(&g.o, s, &e, FZ_CHECK_READERS);
    }
    return 0;
}

/* ---- the mutator ---- */

/* Writes the container of (kind, flags, seed, p[n]) into out (cap bytes);
 * its size, or 0 when it does not fit. */
static size_t rebox(uint8_t *out, size_t cap, unsigned kind, unsigned flags, uint32_t seed, const uint8_t *p,
                    size_t n) {
    if (n + BOX_BYTES > cap) return 0;
    memmove(out + BOX_BYTES, p, n);
    memcpy(out, BOX_MAGIC, 4);
    out[4] = (uint8_t)kind;
    out[5] = (uint8_t)flags;
    out[6] = out[7] = 0;
    for (int i = 0; i < 4; i++) out[8 + i] = (uint8_t)(seed >> (8 * i));
    return n + BOX_BYTES;
}

/* The chunks of the last trace the mutator made, by the CRC of its file:
 * libFuzzer mutates its own result again several times in a row, and
 * parsing (decompressing every chunk) was a fifth of each run. */
static struct {
    fz_trace t;
    uint32_t crc;
    size_t n;
    int valid;
} g_last;

static int parse_cached(const fz_buf *in, fz_trace *t) {
    if (g_last.valid && g_last.n == in->n && g_last.crc == mh_crc32c(0, in->p, in->n)) {
        *t = g_last.t; /* taken: the cache is empty until the next result */
        g_last.valid = 0;
        return 0;
    }
    return fz_trace_parse(in, t);
}

static void keep_parsed(fz_trace *t, const fz_buf *out) {
    if (g_last.valid) fz_trace_free(&g_last.t);
    g_last.t = *t;
    g_last.n = out->n;
    g_last.crc = mh_crc32c(0, out->p, out->n);
    g_last.valid = 1;
}

/* The file's bytes by libFuzzer's own mutations (checksums broken, a cut). */
static fz_buf mutate_bytes(const box *b, size_t max) {
    fz_buf out;
    size_t cap = b->n + 256 < max ? b->n + 256 : max;
    out.p = malloc(cap ? cap : 1);
    memcpy(out.p, b->p, b->n < cap ? b->n : cap);
    out.n = LLVMFuzzerMutate(out.p, b->n < cap ? b->n : cap, cap);
    return out;
}

static fz_buf mutate_trace(const box *b, fz_rng *r, unsigned *flags, size_t max) {
    const fz_trace_seed *s = trace_seed(b->seed);
    fz_buf in = {(uint8_t *)b->p, b->n}, out = {0};
    fz_trace t;
    unsigned how = (unsigned)fz_rndn(r, 20);
    if (s && how < 2) { /* from the seed, by fz_mutate_trace's mutators */
        fz_expect e;
        fz_mutate_trace(&s->t, &s->enc, s->off, r, &out, &e);
        *flags = 0;
        return out;
    }
    if (how < 16 && parse_cached(&in, &t) == 0) {
        if (how < 13 || !t.n) { /* the structure */
            int sealed = 0;
            for (int i = 0, n = 1 + (int)fz_rndn(r, 2); i < n; i++) {
                fz_mutate_records(&t, r, &sealed);
                if (sealed) *flags |= BOX_SEALED;
            }
        } else { /* a chunk's records as bytes, checksums made right */
            fz_chunk *c = &t.c[fz_rndn(r, t.n)];
            size_t cap = c->nraw + 256;
            uint8_t *p = malloc(cap);
            memcpy(p, c->raw, c->nraw);
            size_t n = LLVMFuzzerMutate(p, c->nraw, cap);
            free(c->raw);
            c->raw = p;
            c->nraw = n;
            fz_chunk_touch(c);
        }
        size_t *off = malloc((t.n + 1) * sizeof *off);
        out = fz_trace_encode(&t, off);
        for (size_t i = 0; i < t.n; i++) /* the frames as written: the next mutation reuses them */
            if (!t.c[i].comp) {
                t.c[i].ncomp = off[i + 1] - off[i] - 24;
                t.c[i].comp = malloc(t.c[i].ncomp ? t.c[i].ncomp : 1);
                memcpy(t.c[i].comp, out.p + off[i] + 24, t.c[i].ncomp);
            }
        free(off);
        keep_parsed(&t, &out);
        return out;
    }
    return mutate_bytes(b, max);
}

static fz_buf mutate_profile(const box *b, fz_rng *r, unsigned *flags, size_t max) {
    const fz_profile_seed *s = profile_seed(b->seed);
    fz_buf out = {0};
    unsigned how = (unsigned)fz_rndn(r, 10);
    if (how < 6) { /* SQL: a table or column dropped, a bad value, interrupted */
        fz_buf from = {(uint8_t *)b->p, b->n};
        int fresh = s && fz_rndn(r, 3) == 0; /* now and then from the seed again */
        fz_expect e;
        fz_mutate_profile(fresh ? &s->bytes : &from, g.tmp_p, r, &e);
        if (fz_slurp(g.tmp_p, &out) != 0) return out;
        /* interrupted and nothing else: every launch and heat row of the seed is still there */
        *flags = (fresh || (s && s->bytes.n == b->n && !memcmp(s->bytes.p, b->p, b->n))) && e.must_partial
                     ? BOX_INTERRUPTED
                     : 0;
        return out;
    }
    *flags = 0;
    return mutate_bytes(b, max);
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed) {
    fz_rng r = fz_rng_at(seed, size);
    box b = unbox(data, size);
    unsigned flags = b.flags;
    fz_buf out = b.kind == KIND_TRACE ? mutate_trace(&b, &r, &flags, max_size) : mutate_profile(&b, &r, &flags, max_size);
    size_t n = out.p ? rebox(data, max_size, b.kind, flags, b.seed, out.p, out.n) : 0;
    free(out.p);
    if (n) return n;
    return LLVMFuzzerMutate(data, size, max_size); /* too big for max_size: bytes */
}
