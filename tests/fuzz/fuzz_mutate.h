/* fuzz_mutate.h -- the mutators of memheat's fuzzing harnesses (mh_fuzz.c:
 * the real commands, one process per run; mh_fuzz_inproc.c: the library
 * entry points in one process) and what each mutation lets a reader do.
 *
 * A trace is handled as its chunk structure (docs/trace-format.md): the
 * prefix, then chunks kept both decompressed (to edit records) and
 * compressed (so re-encoding a mutated trace recompresses only the chunks it
 * changed). The seed is split after every kernel end, as the collectors
 * flush, so chunk 0 holds the header, chunks 1..n-2 one launch each and the
 * last chunk the end record.
 *
 * Every mutation returns an fz_expect: whether a reader must report an error
 * or a partial result, and how many of the seed's chunks precede the damage
 * (every launch that ended in them must come out byte for byte). */
#ifndef MH_FUZZ_MUTATE_H
#define MH_FUZZ_MUTATE_H

#include <stddef.h>
#include <stdint.h>

typedef struct fz_rng {
    uint64_t s;
} fz_rng;

/* The generator of input number `index` of the run with `seed`: any input can
 * be regenerated alone (--from INDEX --inputs 1). */
fz_rng fz_rng_at(uint64_t seed, uint64_t index);
uint64_t fz_rnd(fz_rng *r);
size_t fz_rndn(fz_rng *r, size_t n); /* 0..n-1; 0 when n = 0 */

typedef struct fz_buf {
    uint8_t *p;
    size_t n;
} fz_buf;

int fz_slurp(const char *path, fz_buf *b); /* b->p has one spare byte for a '\0' */
int fz_spit(const char *path, const uint8_t *p, size_t n);

typedef struct fz_chunk {
    uint8_t *raw;  /* decompressed records */
    size_t nraw;
    uint8_t *comp; /* its zstd frame, NULL = to compress */
    size_t ncomp;
    uint8_t *coded; /* set: the bytes to compress instead of raw coded (a damaged coding), else NULL */
    size_t ncoded;
} fz_chunk;

typedef struct fz_trace {
    uint8_t prefix[16];
    fz_chunk *c;
    size_t n;
} fz_trace;

int fz_trace_parse(const fz_buf *b, fz_trace *t); /* -1: not a whole trace */
/* The file: chunks renumbered (a repeated or moved chunk passes the index
 * check), checksums computed. off (may be NULL, n + 1 entries) receives each
 * chunk's start and the end of the file. */
fz_buf fz_trace_encode(const fz_trace *t, size_t *off);
void fz_trace_free(fz_trace *t);
fz_trace fz_trace_copy(const fz_trace *t);
/* Splits chunks after every kernel end (and the header), then seals. */
void fz_rechunk(fz_trace *t);
/* What a writer's END record of a seed states, and where it is. */
typedef struct fz_seed_end {
    size_t chunk;               /* the chunk holding it */
    uint64_t records, accesses; /* records and entries before it in that chunk */
    uint8_t end[40];            /* the record, header included */
    size_t nend;
} fz_seed_end;
int fz_seed_end_of(const fz_trace *seed, fz_seed_end *s); /* -1: no END */

/* Rewrites the last END record's statement (chunks before its own, the
 * chain of their payload CRCs, records and accesses before it) to what t
 * holds, as a writer would have: a trace edited and sealed is one a writer
 * could have written. -1: no END record with a statement (an older writer's). */
int fz_seal(fz_trace *t);

/* ---- editing the structure (checksums are recomputed by fz_trace_encode) ----
 * A chunk's records are walked by offset: fz_rec_next gives the offset after
 * the record at off (its 8-byte header and padded payload), c->nraw at the end
 * or past a record that does not fit. Every edit drops the chunk's cached
 * zstd frame. */
size_t fz_rec_next(const fz_chunk *c, size_t off);
long fz_rec_find(const fz_chunk *c, unsigned type, size_t from); /* first of type at or after from; -1 = none */
void fz_rec_remove(fz_chunk *c, size_t off);
void fz_rec_insert(fz_chunk *c, size_t at, const uint8_t *rec, size_t n);
void fz_chunk_touch(fz_chunk *c); /* raw changed: drop the cached frame */
void fz_chunk_remove(fz_trace *t, size_t i);
void fz_chunk_dup(fz_trace *t, size_t i, size_t at); /* a copy of chunk i inserted before position at */
void fz_chunk_swap(fz_trace *t, size_t i, size_t j);

/* Bad records with valid checksums, in a new chunk before the end record's. */
enum { FZ_BAD_UNKNOWN, FZ_BAD_DUP_LAUNCH, FZ_BAD_ENDED, FZ_BAD_DUP_END, FZ_BAD_NO_END, FZ_BAD_KINDS };
extern const char *const fz_bad_names[FZ_BAD_KINDS];
int fz_make_bad(fz_trace *t, int kind, fz_rng *r);

#define FZ_KEEP_ALL ((size_t)-1)

typedef struct fz_expect {
    const char *kind;   /* the mutator's name */
    int must_fail;      /* a clean result (exit 0) would be a lie */
    int must_error;     /* the reader must return an error (exit 1, or 4 for a cut) */
    int must_partial;   /* the reader must succeed with a notice (exit 4) */
    int clean;          /* the input is the seed itself: exit 0 and everything kept */
    size_t keep_chunks; /* seed chunks before the damage; FZ_KEEP_ALL = every one */
} fz_expect;

/* What a reader must do with `in`, found by comparing it with the seed it
 * was made from (seed: its encoding, soff its chunks' offsets, st its
 * chunks, se its END)
 * whatever the mutations were: the seed itself exits 0; a prefix, chunk
 * header, checksum, zstd frame or coding that does not hold, or a cut
 * inside a chunk, is an error; otherwise any change before the end record,
 * of what the end record states or of the records it counts in its own
 * chunk, and anything after it, must not pass as clean (the end record's
 * check), unless the input was sealed (it states what it holds again) or
 * its END is an older writer's, empty. keep_chunks: the leading chunks
 * identical to the seed's. */
void fz_expect_compare(const fz_buf *seed, const size_t *soff, const fz_trace *st, const fz_seed_end *se,
                       const fz_buf *in, int sealed, fz_expect *e);

/* e (a mutator's) joined with c (fz_expect_compare's): both obligations. */
void fz_expect_merge(fz_expect *e, const fz_expect *c);

/* A damaged copy of seed (parsed, rechunked; seed_enc its encoding, off its
 * chunk offsets) in *out (malloc'ed). Mutators: cut; byte flips anywhere;
 * header damage (prefix and chunk 0); a chunk repeated; two chunks swapped;
 * bad records (fz_make_bad); record bytes flipped or cut inside one chunk
 * with valid checksums. */
void fz_mutate_trace(const fz_trace *seed, const fz_buf *seed_enc, const size_t *off, fz_rng *r, fz_buf *out,
                     fz_expect *e);

/* A damaged copy of the profile seed (its bytes) written to path: cut, byte
 * flips, a dropped table, a dropped column, meta.complete = '0'
 * (interrupted), a bad value in a random cell. */
void fz_mutate_profile(const fz_buf *seed, const char *path, fz_rng *r, fz_expect *e);

#endif
