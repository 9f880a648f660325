/* fuzz_mutate.c -- trace and profile mutators shared by the fuzzing
 * harnesses, with what each mutation lets a reader do (fuzz_mutate.h). */
#include "fuzz_mutate.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "memheat/trace.h"
#include "trace/chunk_code.h"
#include "util/crc32c.h"

#define CHUNK_MAGIC 0x4B43484Du
#define REC_HEADER 1
#define REC_LAUNCH 2
#define REC_ACCESSES 5
#define REC_KERNEL_END 6
#define REC_END 9

/* ---- random numbers ---- */

static uint64_t splitmix(uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

fz_rng fz_rng_at(uint64_t seed, uint64_t index) {
    fz_rng r = {splitmix(splitmix(seed) ^ index) | 1};
    return r;
}

uint64_t fz_rnd(fz_rng *r) {
    r->s ^= r->s << 13;
    r->s ^= r->s >> 7;
    r->s ^= r->s << 17;
    return r->s;
}

size_t fz_rndn(fz_rng *r, size_t n) { return n ? (size_t)(fz_rnd(r) % n) : 0; }

/* ---- files ---- */

int fz_slurp(const char *path, fz_buf *b) {
    b->p = NULL, b->n = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    b->p = malloc((size_t)(n > 0 ? n : 0) + 1);
    b->n = b->p ? fread(b->p, 1, (size_t)(n > 0 ? n : 0), f) : 0;
    fclose(f);
    return b->p ? 0 : -1;
}

int fz_spit(const char *path, const uint8_t *p, size_t n) {
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    size_t w = n ? fwrite(p, 1, n, f) : 0;
    return fclose(f) == 0 && w == n ? 0 : -1;
}

/* ---- the chunk structure ---- */

static uint32_t get32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static void put32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16), p[3] = (uint8_t)(v >> 24);
}

static fz_chunk chunk_of(const uint8_t *raw, size_t n) {
    fz_chunk c = {malloc(n ? n : 1), n, NULL, 0, NULL, 0};
    if (n) memcpy(c.raw, raw, n);
    return c;
}

static uint8_t *dup_bytes(const uint8_t *p, size_t n) {
    uint8_t *d = malloc(n ? n : 1);
    if (n) memcpy(d, p, n);
    return d;
}

static fz_chunk chunk_copy(const fz_chunk *c) {
    fz_chunk d = chunk_of(c->raw, c->nraw);
    if (c->comp) {
        d.comp = dup_bytes(c->comp, c->ncomp);
        d.ncomp = c->ncomp;
    }
    if (c->coded) {
        d.coded = dup_bytes(c->coded, c->ncoded);
        d.ncoded = c->ncoded;
    }
    return d;
}

static void chunk_free(fz_chunk *c) {
    free(c->raw);
    free(c->comp);
    free(c->coded);
}

static void insert_chunk(fz_trace *t, size_t at, fz_chunk c) {
    t->c = realloc(t->c, (t->n + 1) * sizeof *t->c);
    memmove(&t->c[at + 1], &t->c[at], (t->n - at) * sizeof *t->c);
    t->c[at] = c;
    t->n++;
}

void fz_chunk_remove(fz_trace *t, size_t i) {
    chunk_free(&t->c[i]);
    memmove(&t->c[i], &t->c[i + 1], (t->n - i - 1) * sizeof *t->c);
    t->n--;
}

void fz_chunk_dup(fz_trace *t, size_t i, size_t at) { insert_chunk(t, at, chunk_copy(&t->c[i])); }

void fz_chunk_swap(fz_trace *t, size_t i, size_t j) {
    fz_chunk c = t->c[i];
    t->c[i] = t->c[j];
    t->c[j] = c;
}

/* The prefix names a version whose chunks are coded (trace/chunk_code.h):
 * parse decodes them, encode codes them again. */
static int coded(const uint8_t prefix[16]) { return get32(prefix + 8) >= MH_TF_CODED_VERSION; }

int fz_trace_parse(const fz_buf *b, fz_trace *t) {
    memset(t, 0, sizeof *t);
    if (b->n < 16) return -1;
    memcpy(t->prefix, b->p, 16);
    size_t off = 16;
    while (off + 24 <= b->n) {
        const uint8_t *h = b->p + off;
        uint32_t raw = get32(h + 8), comp = get32(h + 12);
        unsigned long long fcs = comp <= b->n - off - 24 ? ZSTD_getFrameContentSize(h + 24, comp) : 0;
        if (comp > b->n - off - 24 || (fcs != ZSTD_CONTENTSIZE_UNKNOWN && fcs != raw) || raw > (64u << 20)) {
            fz_trace_free(t); /* not a frame of that size: nothing is allocated for it */
            return -1;
        }
        fz_chunk c = {malloc(raw ? raw : 1), 0, NULL, 0, NULL, 0};
        c.nraw = ZSTD_decompress(c.raw, raw, h + 24, comp);
        int bad = ZSTD_isError(c.nraw);
        if (!bad && coded(t->prefix)) {
            uint8_t *d = malloc(c.nraw > MH_TF_CODE_EXTRA ? c.nraw - MH_TF_CODE_EXTRA : 1);
            bad = c.nraw < MH_TF_CODE_EXTRA || mh_tf_decode(c.raw, c.nraw, d, 0) != 0;
            free(bad ? d : c.raw);
            if (!bad) {
                c.raw = d;
                c.nraw -= MH_TF_CODE_EXTRA;
            }
        }
        if (bad) {
            free(c.raw);
            fz_trace_free(t);
            return -1;
        }
        c.comp = malloc(comp ? comp : 1); /* kept: an unchanged chunk is not compressed again */
        if (comp) memcpy(c.comp, h + 24, comp);
        c.ncomp = comp;
        insert_chunk(t, t->n, c);
        off += 24 + comp;
    }
    return 0;
}

/* The bytes zstd compresses for c (its records, coded where the prefix says
 * so, or its damaged coding) into out (room for ZSTD_compressBound(nraw +
 * extra or ncoded)); returns the frame's length. */
static size_t pack_into(const uint8_t prefix[16], const fz_chunk *c, uint8_t *out, size_t cap) {
    if (c->coded) return ZSTD_compress(out, cap, c->coded, c->ncoded, 1);
    if (!coded(prefix)) return ZSTD_compress(out, cap, c->raw, c->nraw, 1);
    uint8_t *cd = malloc(c->nraw + MH_TF_CODE_EXTRA);
    mh_tf_code(c->raw, c->nraw, cd);
    size_t n = ZSTD_compress(out, cap, cd, c->nraw + MH_TF_CODE_EXTRA, 1);
    free(cd);
    return n;
}

static size_t pack_bound(const fz_chunk *c) {
    return ZSTD_compressBound(c->coded ? c->ncoded : c->nraw + MH_TF_CODE_EXTRA);
}

/* c's zstd frame, cached in c. */
static void chunk_pack(const uint8_t prefix[16], fz_chunk *c) {
    if (c->comp) return;
    size_t cap = pack_bound(c);
    c->comp = malloc(cap);
    c->ncomp = pack_into(prefix, c, c->comp, cap);
}

/* Records and access entries of c before offset lim, counted as the reader
 * counts them (every record framed but END; the entries of each ACCESSES
 * record whose payload holds them). */
static void count_before(const fz_chunk *c, size_t lim, uint64_t *records, uint64_t *accesses) {
    for (size_t off = 0; off + 8 <= lim; off = fz_rec_next(c, off)) {
        if (c->raw[off] == REC_END) continue;
        (*records)++;
        uint32_t plen = get32(c->raw + off + 4);
        if (c->raw[off] == REC_ACCESSES && plen >= 8 && fz_rec_next(c, off) - off >= 16) {
            uint32_t n = get32(c->raw + off + 8);
            if ((plen - 8) / 32 >= n) *accesses += n;
        }
    }
}

/* The last END record of t: its chunk and offset; -1 when none. */
static int last_end(const fz_trace *t, size_t *ci, size_t *at) {
    for (size_t i = t->n; i-- > 0;) {
        const fz_chunk *c = &t->c[i];
        long end = -1;
        for (size_t off = 0; off + 8 <= c->nraw; off = fz_rec_next(c, off))
            if (c->raw[off] == REC_END) end = (long)off;
        if (end >= 0) {
            *ci = i;
            *at = (size_t)end;
            return 0;
        }
    }
    return -1;
}

int fz_seal(fz_trace *t) {
    size_t ci, end;
    if (last_end(t, &ci, &end) || get32(t->c[ci].raw + end + 4) < 24 || fz_rec_next(&t->c[ci], end) - end < 32)
        return -1; /* none, or an older writer's END: nothing to state */
    uint32_t chain = 0;
    uint64_t records = 0, accesses = 0;
    for (size_t i = 0; i <= ci; i++) {
        count_before(&t->c[i], i < ci ? t->c[i].nraw : end, &records, &accesses);
        if (i < ci) {
            chunk_pack(t->prefix, &t->c[i]);
            uint8_t crc[4];
            put32(crc, mh_crc32c(0, t->c[i].comp, t->c[i].ncomp));
            chain = mh_crc32c(chain, crc, 4);
        }
    }
    fz_chunk *c = &t->c[ci];
    uint8_t *p = c->raw + end + 8;
    put32(p, (uint32_t)ci);
    put32(p + 4, chain);
    for (int b = 0; b < 8; b++) p[8 + b] = (uint8_t)(records >> (8 * b)), p[16 + b] = (uint8_t)(accesses >> (8 * b));
    fz_chunk_touch(c);
    return 0;
}

int fz_seed_end_of(const fz_trace *seed, fz_seed_end *s) {
    memset(s, 0, sizeof *s);
    size_t end;
    if (last_end(seed, &s->chunk, &end)) return -1;
    const fz_chunk *c = &seed->c[s->chunk];
    count_before(c, end, &s->records, &s->accesses);
    size_t n = fz_rec_next(c, end) - end;
    s->nend = n < sizeof s->end ? n : sizeof s->end;
    memcpy(s->end, c->raw + end, s->nend);
    return 0;
}

void fz_expect_merge(fz_expect *e, const fz_expect *c) {
    if (c->clean) { /* the input is the seed, whatever the mutator meant */
        const char *kind = e->kind;
        *e = *c;
        e->kind = kind;
        return;
    }
    e->clean = 0;
    e->must_fail |= c->must_fail;
    e->must_error |= c->must_error;
    if (c->keep_chunks < e->keep_chunks) e->keep_chunks = c->keep_chunks;
}

void fz_expect_compare(const fz_buf *seed, const size_t *soff, const fz_trace *st, const fz_seed_end *se,
                       const fz_buf *in, int sealed, fz_expect *e) {
    size_t sn = st->n;
    memset(e, 0, sizeof *e);
    e->kind = "compared";
    e->keep_chunks = FZ_KEEP_ALL;
    if (in->n == seed->n && !memcmp(in->p, seed->p, in->n)) {
        e->clean = 1;
        return;
    }
    e->keep_chunks = 0;
    e->must_fail = e->must_error = 1; /* until the input is found whole */
    if (in->n < 16) return;
    uint32_t ver = get32(in->p + 8);
    if (memcmp(in->p, seed->p, 8) || get32(in->p + 12) || ver == 0 || ver > MH_TRACE_VERSION) return;
    int same = !memcmp(in->p, seed->p, 16), cd = ver >= MH_TF_CODED_VERSION;
    fz_trace it = {{0}, NULL, 0};
    memcpy(it.prefix, in->p, 16);
    size_t off = 16, k = 0;
    for (size_t i = 0; off < in->n; i++) { /* each chunk as the reader checks it */
        const uint8_t *h = in->p + off;
        if (in->n - off < 24) goto out; /* cut inside a chunk header */
        uint32_t rlen = get32(h + 8), clen = get32(h + 12);
        if (get32(h + 20) != mh_crc32c(0, h, 20) || get32(h) != CHUNK_MAGIC || get32(h + 4) != (uint32_t)i ||
            rlen > (64u << 20) || clen == 0 || clen > ZSTD_compressBound(rlen) || clen > in->n - off - 24 ||
            mh_crc32c(0, h + 24, clen) != get32(h + 16) || (cd && rlen < MH_TF_CODE_EXTRA))
            goto out;
        /* a chunk of the seed's, byte for byte (most are): its records are known */
        const fz_chunk *known = NULL;
        for (size_t j = i ? i - 1 : 0; j <= i + 1 && j < sn && !known; j++)
            if (soff[j + 1] - soff[j] == 24 + (size_t)clen && !memcmp(h + 24, seed->p + soff[j] + 24, clen))
                known = &st->c[j];
        if (known) {
            insert_chunk(&it, it.n, chunk_of(known->raw, known->nraw));
            same = same && i < sn && soff[i + 1] - soff[i] == 24 + (size_t)clen && !memcmp(h, seed->p + soff[i], 24);
            same = same && known == &st->c[i];
            if (same) k = i + 1;
            off += 24 + clen;
            continue;
        }
        unsigned long long fcs = ZSTD_getFrameContentSize(h + 24, clen);
        if (fcs != ZSTD_CONTENTSIZE_UNKNOWN && fcs != rlen) goto out; /* another length, or no frame */
        uint8_t *raw = malloc(rlen ? rlen : 1);
        size_t got = ZSTD_decompress(raw, rlen, h + 24, clen);
        fz_chunk c = {raw, rlen, NULL, 0, NULL, 0};
        if (ZSTD_isError(got) || got != rlen) {
            free(raw);
            goto out;
        }
        if (cd) {
            c.raw = malloc(rlen - MH_TF_CODE_EXTRA + 1);
            c.nraw = rlen - MH_TF_CODE_EXTRA;
            int bad = mh_tf_decode(raw, rlen, c.raw, 0) != 0;
            free(raw);
            if (bad) {
                free(c.raw);
                goto out;
            }
        }
        insert_chunk(&it, it.n, c);
        same = same && i < sn && soff[i + 1] - soff[i] == 24 + (size_t)clen &&
               !memcmp(h, seed->p + soff[i], 24 + (size_t)clen);
        if (same) k = i + 1;
        off += 24 + clen;
    }
    e->keep_chunks = k;
    e->must_error = 0;
    /* a version changed in the prefix alone: the header record says another one */
    if (memcmp(in->p + 8, seed->p + 8, 4) && (!it.n || it.c[0].nraw < 12 || get32(it.c[0].raw + 8) != ver)) {
        e->must_error = 1;
        goto out;
    }
    e->must_fail = 0;
    if (sealed) goto out; /* it states what it holds: nothing to hold it to but itself */
    /* the end record and what it states, against the seed's */
    size_t eci = 0, eoff = 0;
    for (size_t i = 0; i < it.n && !e->must_fail; i++) {
        const fz_chunk *c = &it.c[i];
        for (size_t o = 0; o + 8 <= c->nraw; o = fz_rec_next(c, o)) {
            if (get32(c->raw + o + 4) > c->nraw - o - 8) { /* a record past its chunk: the reader stops there */
                e->must_fail = 1;
                break;
            }
            if (c->raw[o] == REC_END) {
                eci = i;
                eoff = o;
                goto found;
            }
        }
    }
    e->must_fail = 1; /* no end record (or a record that does not fit before it) */
    goto out;
found:;
    const fz_chunk *c = &it.c[eci];
    uint32_t plen = get32(c->raw + eoff + 4);
    if (plen == 0) goto out; /* an older writer's END: nothing stated */
    uint64_t records = 0, accesses = 0;
    count_before(c, eoff, &records, &accesses);
    size_t n = fz_rec_next(c, eoff) - eoff;
    int stated_same = plen >= 24 && eci == se->chunk && k >= eci && records == se->records &&
                      accesses == se->accesses && n == se->nend && !memcmp(c->raw + eoff, se->end, n) &&
                      eoff + n == c->nraw && eci + 1 == it.n;
    e->must_fail = !stated_same;
out:
    fz_trace_free(&it);
}

fz_buf fz_trace_encode(const fz_trace *t, size_t *off) {
    fz_buf b = {0};
    size_t cap = 16;
    size_t extra = coded(t->prefix) ? MH_TF_CODE_EXTRA : 0;
    for (size_t i = 0; i < t->n; i++) cap += 24 + (t->c[i].comp ? t->c[i].ncomp : pack_bound(&t->c[i]));
    b.p = malloc(cap);
    memcpy(b.p, t->prefix, 16);
    b.n = 16;
    for (size_t i = 0; i < t->n; i++) {
        if (off) off[i] = b.n;
        uint8_t *h = b.p + b.n;
        size_t comp = t->c[i].ncomp;
        if (t->c[i].comp) memcpy(h + 24, t->c[i].comp, comp);
        else comp = pack_into(t->prefix, &t->c[i], h + 24, cap - b.n - 24);
        put32(h, CHUNK_MAGIC);
        put32(h + 4, (uint32_t)i);
        put32(h + 8, (uint32_t)(t->c[i].coded ? t->c[i].ncoded : t->c[i].nraw + extra));
        put32(h + 12, (uint32_t)comp);
        put32(h + 16, mh_crc32c(0, h + 24, comp));
        put32(h + 20, mh_crc32c(0, h, 20));
        b.n += 24 + comp;
    }
    if (off) off[t->n] = b.n;
    return b;
}

void fz_trace_free(fz_trace *t) {
    for (size_t i = 0; i < t->n; i++) chunk_free(&t->c[i]);
    free(t->c);
    memset(t, 0, sizeof *t);
}

fz_trace fz_trace_copy(const fz_trace *t) {
    fz_trace d = {{0}, malloc((t->n ? t->n : 1) * sizeof *t->c), t->n};
    memcpy(d.prefix, t->prefix, 16);
    for (size_t i = 0; i < t->n; i++) d.c[i] = chunk_copy(&t->c[i]);
    return d;
}

static size_t rec_size(const fz_chunk *c, size_t off) { return 8 + ((get32(c->raw + off + 4) + 7) & ~(size_t)7); }

size_t fz_rec_next(const fz_chunk *c, size_t off) {
    if (off + 8 > c->nraw) return c->nraw;
    size_t n = rec_size(c, off);
    return n > c->nraw - off ? c->nraw : off + n;
}

long fz_rec_find(const fz_chunk *c, unsigned type, size_t from) {
    for (size_t off = from; off + 8 <= c->nraw; off = fz_rec_next(c, off))
        if (c->raw[off] == type) return (long)off;
    return -1;
}

void fz_chunk_touch(fz_chunk *c) {
    free(c->comp);
    free(c->coded);
    c->comp = c->coded = NULL;
    c->ncomp = c->ncoded = 0;
}

void fz_rec_remove(fz_chunk *c, size_t off) {
    size_t end = fz_rec_next(c, off);
    memmove(c->raw + off, c->raw + end, c->nraw - end);
    c->nraw -= end - off;
    fz_chunk_touch(c);
}

void fz_rec_insert(fz_chunk *c, size_t at, const uint8_t *rec, size_t n) {
    uint8_t *p = realloc(c->raw, c->nraw + n + 1);
    if (!p) abort();
    c->raw = p;
    memmove(p + at + n, p + at, c->nraw - at);
    memcpy(p + at, rec, n);
    c->nraw += n;
    fz_chunk_touch(c);
}

/* First record of `type` in c at or after from (its offset), or -1. */
static long find_rec(const fz_chunk *c, unsigned type, size_t from) {
    for (size_t off = from; off + 8 <= c->nraw; off += rec_size(c, off))
        if (c->raw[off] == type) return (long)off;
    return -1;
}

static int find_any(const fz_trace *t, unsigned type, size_t k, size_t *ci, long *off) {
    for (size_t i = k; i < t->n; i++)
        if ((*off = find_rec(&t->c[i], type, 0)) >= 0) {
            *ci = i;
            return 0;
        }
    return -1;
}

void fz_rechunk(fz_trace *t) {
    fz_trace o = {{0}, NULL, 0};
    memcpy(o.prefix, t->prefix, 16);
    for (size_t i = 0; i < t->n; i++) {
        const fz_chunk *c = &t->c[i];
        size_t off = 0, start = 0;
        while (off + 8 <= c->nraw) {
            unsigned type = c->raw[off];
            off += rec_size(c, off);
            if ((type == REC_KERNEL_END || type == REC_HEADER) && off < c->nraw) {
                insert_chunk(&o, o.n, chunk_of(c->raw + start, off - start));
                start = off;
            }
        }
        if (start < c->nraw) insert_chunk(&o, o.n, chunk_of(c->raw + start, c->nraw - start));
    }
    fz_trace_free(t);
    *t = o;
    fz_seal(t); /* what a collector flushing at every kernel end writes */
}

const char *const fz_bad_names[FZ_BAD_KINDS] = {"unknown-launch", "dup-launch", "ended-launch", "dup-end", "no-end"};

int fz_make_bad(fz_trace *t, int kind, fz_rng *r) {
    size_t ci, last = t->n - 1; /* the END record's chunk */
    long off;
    if (kind == FZ_BAD_NO_END) {
        if (find_rec(&t->c[last], REC_END, 0) < 0) return -1;
        chunk_free(&t->c[last]);
        t->n--;
        return 0;
    }
    if (kind == FZ_BAD_UNKNOWN || kind == FZ_BAD_ENDED) {
        if (find_any(t, REC_ACCESSES, 1, &ci, &off)) return -1;
        const fz_chunk *c = &t->c[ci];
        fz_chunk d = chunk_of(c->raw + off, rec_size(c, (size_t)off)); /* ACCESSES of a launch that ended */
        uint32_t cnt = get32(d.raw + 8);
        for (uint32_t i = 0; i < cnt && kind == FZ_BAD_UNKNOWN && 16 + 32u * i + 20 <= d.nraw; i++)
            put32(d.raw + 16 + 32u * i + 16, 64 + (uint32_t)fz_rndn(r, 1000));
        insert_chunk(t, last, d);
        return 0;
    }
    unsigned type = kind == FZ_BAD_DUP_LAUNCH ? REC_LAUNCH : REC_KERNEL_END;
    if (find_any(t, type, 1, &ci, &off)) return -1;
    insert_chunk(t, last, chunk_of(t->c[ci].raw + off, rec_size(&t->c[ci], (size_t)off)));
    return 0;
}

/* ---- trace mutators ---- */

/* Index of the chunk holding byte `at` of the encoding (n = past the end). */
static size_t chunk_at(const size_t *off, size_t n, size_t at) {
    size_t k = 0;
    while (k < n && off[k + 1] <= at) k++;
    return k;
}

/* Flips in the first lim bytes; the expectation from the first byte changed. */
static void flips(const fz_buf *seed, const size_t *off, size_t nchunks, size_t lim, fz_rng *r, fz_buf *out,
                  fz_expect *e) {
    out->p = malloc(seed->n + 1);
    out->n = seed->n;
    memcpy(out->p, seed->p, seed->n);
    for (int i = 0, k = 1 + (int)fz_rndn(r, 8); i < k; i++) out->p[fz_rndn(r, lim)] ^= (uint8_t)(1 + fz_rndn(r, 255));
    size_t d = 0;
    while (d < seed->n && out->p[d] == seed->p[d]) d++;
    if (d == seed->n) { /* two flips cancelled out */
        e->clean = 1;
        return;
    }
    e->must_fail = e->must_error = 1;
    e->keep_chunks = d < 16 ? 0 : chunk_at(off, nchunks, d);
    /* the prefix: magic, version (1 and 2 are read), flags (0) */
    uint32_t ver = get32(out->p + 8);
    if (d >= 8 && memcmp(out->p + 12, seed->p + 12, 4) == 0 && (ver == 1 || ver == 2)) {
        size_t d2 = 16;
        while (d2 < seed->n && out->p[d2] == seed->p[d2]) d2++;
        e->must_fail = e->must_error = d2 < seed->n; /* a v2 trace read as v1 may be read whole */
        e->keep_chunks = 0;
    }
}

void fz_mutate_trace(const fz_trace *seed, const fz_buf *seed_enc, const size_t *off, fz_rng *r, fz_buf *out,
                     fz_expect *e) {
    memset(e, 0, sizeof *e);
    e->keep_chunks = FZ_KEEP_ALL;
    int kind = (int)fz_rndn(r, 8);
    if (kind == 0) { /* cut */
        e->kind = "cut";
        size_t at = fz_rndn(r, seed_enc->n);
        out->p = malloc(at + 1);
        out->n = at;
        memcpy(out->p, seed_enc->p, at);
        e->must_fail = 1;
        e->keep_chunks = at < 16 ? 0 : chunk_at(off, seed->n, at);
        /* inside a chunk (or the prefix): an error; on a chunk's start: no end record */
        size_t k = chunk_at(off, seed->n, at);
        if (at < 16 || off[k] != at) e->must_error = 1;
        else if (k > 0) e->must_partial = 1;
        return;
    }
    if (kind == 1 || kind == 2) {
        e->kind = kind == 1 ? "flips" : "header damage";
        flips(seed_enc, off, seed->n, kind == 1 ? seed_enc->n : (seed_enc->n < 64 ? seed_enc->n : 64), r, out, e);
        return;
    }
    fz_trace t = fz_trace_copy(seed);
    if (t.n < 3) {
        e->kind = "none";
        e->clean = 1;
    } else if (kind == 3) { /* a chunk repeated after itself (not the header's) */
        e->kind = "repeated chunk";
        size_t i = 1 + fz_rndn(r, t.n - 2);
        insert_chunk(&t, i + 1, chunk_copy(&t.c[i]));
        e->must_fail = e->must_partial = 1; /* a repeated launch or kernel end is a bad record */
    } else if (kind == 4) { /* two chunks swapped (not the header's) */
        e->kind = "swapped chunks";
        size_t i = 1 + fz_rndn(r, t.n - 1), j = 1 + fz_rndn(r, t.n - 1);
        fz_chunk c = t.c[i];
        t.c[i] = t.c[j];
        t.c[j] = c;
        e->keep_chunks = i < j ? i : j;
        e->clean = i == j;
        e->must_fail = i != j; /* the end record names the chunks in their order */
    } else if (kind == 5) { /* bad records with valid checksums */
        int k = (int)fz_rndn(r, FZ_BAD_KINDS);
        e->kind = fz_bad_names[k];
        if (fz_make_bad(&t, k, r) == 0) e->must_fail = e->must_partial = 1;
        else e->clean = 1;
    } else { /* record bytes flipped (6) or cut (7) inside one chunk, valid checksums */
        size_t i = fz_rndn(r, t.n);
        fz_chunk *c = &t.c[i];
        free(c->comp);
        c->comp = NULL;
        if (kind == 6 && c->nraw) {
            e->kind = "record flips";
            for (int f = 0, k = 1 + (int)fz_rndn(r, 4); f < k; f++)
                c->raw[fz_rndn(r, c->nraw)] ^= (uint8_t)(1 + fz_rndn(r, 255));
        } else {
            e->kind = "record cut";
            c->nraw = fz_rndn(r, c->nraw);
        }
        e->keep_chunks = i;
    }
    *out = fz_trace_encode(&t, NULL);
    fz_trace_free(&t);
}

/* ---- profile mutators ---- */

static int sql(sqlite3 *h, const char *q) { return sqlite3_exec(h, q, NULL, NULL, NULL) == SQLITE_OK ? 0 : -1; }

/* A random user table and (when col) one of its columns. */
static int pick_table(sqlite3 *h, fz_rng *r, char *tab, size_t cap, char *col, size_t ccap) {
    sqlite3_stmt *st;
    char names[64][64];
    int n = 0;
    if (sqlite3_prepare_v2(h, "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'"
                           " ORDER BY name", -1, &st, NULL) != SQLITE_OK)
        return -1;
    while (sqlite3_step(st) == SQLITE_ROW && n < 64) snprintf(names[n++], 64, "%s", sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    if (!n) return -1;
    snprintf(tab, cap, "%s", names[fz_rndn(r, (size_t)n)]);
    if (col) {
        char q[200];
        snprintf(q, sizeof q, "PRAGMA table_info('%s')", tab);
        if (sqlite3_prepare_v2(h, q, -1, &st, NULL) != SQLITE_OK) return -1;
        int m = 0;
        while (sqlite3_step(st) == SQLITE_ROW && m < 64) snprintf(names[m++], 64, "%s", sqlite3_column_text(st, 1));
        sqlite3_finalize(st);
        snprintf(col, ccap, "%s", m ? names[fz_rndn(r, (size_t)m)] : "id");
    }
    return 0;
}

void fz_mutate_profile(const fz_buf *seed, const char *path, fz_rng *r, fz_expect *e) {
    memset(e, 0, sizeof *e);
    e->keep_chunks = FZ_KEEP_ALL;
    int kind = (int)fz_rndn(r, 6);
    if (kind == 0) { /* cut */
        e->kind = "cut";
        fz_spit(path, seed->p, fz_rndn(r, seed->n));
        return;
    }
    if (kind == 1) { /* flips */
        e->kind = "flips";
        uint8_t *p = malloc(seed->n);
        memcpy(p, seed->p, seed->n);
        for (int i = 0, k = 1 + (int)fz_rndn(r, 8); i < k; i++) p[fz_rndn(r, seed->n)] ^= (uint8_t)(1 + fz_rndn(r, 255));
        fz_spit(path, p, seed->n);
        free(p);
        return;
    }
    fz_spit(path, seed->p, seed->n);
    sqlite3 *h;
    if (sqlite3_open(path, &h) != SQLITE_OK) {
        sqlite3_close(h);
        e->kind = "none";
        return;
    }
    sql(h, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA foreign_keys=OFF");
    char tab[64], col[64], q[800]; /* room for every name the queries below hold */
    if (kind == 2 && pick_table(h, r, tab, sizeof tab, NULL, 0) == 0) {
        e->kind = "dropped table";
        snprintf(q, sizeof q, "DROP TABLE \"%s\";", tab);
        sql(h, q);
    } else if (kind == 3 && pick_table(h, r, tab, sizeof tab, col, sizeof col) == 0) {
        e->kind = "dropped column";
        snprintf(q, sizeof q, "ALTER TABLE \"%s\" DROP COLUMN \"%s\";", tab, col);
        if (sql(h, q) != 0) { /* a key column: rebuild the table without it */
            snprintf(q, sizeof q,
                     "CREATE TABLE mh_tmp AS SELECT * FROM \"%s\"; DROP TABLE \"%s\";"
                     " CREATE TABLE \"%s\" AS SELECT * FROM mh_tmp; DROP TABLE mh_tmp;"
                     " ALTER TABLE \"%s\" DROP COLUMN \"%s\";", tab, tab, tab, tab, col);
            sql(h, q);
        }
    } else if (kind == 4 && pick_table(h, r, tab, sizeof tab, col, sizeof col) == 0) {
        static const char *const vals[] = {"NULL", "-1", "0", "9223372036854775807", "-9223372036854775808",
                                           "1e308", "-0.5", "'x'", "''", "X'00FF'", "'1'", "4294967296"};
        e->kind = "bad value";
        snprintf(q, sizeof q, "UPDATE \"%s\" SET \"%s\" = %s WHERE rowid IN (SELECT rowid FROM \"%s\" LIMIT %s OFFSET %zu);",
                 tab, col, vals[fz_rndn(r, sizeof vals / sizeof *vals)], tab, fz_rndn(r, 3) ? "1" : "-1",
                 fz_rndn(r, 4));
        sql(h, q);
    } else {
        e->kind = "interrupted";
        if (sql(h, "UPDATE meta SET value='0' WHERE key='complete'") == 0) e->must_fail = e->must_partial = 1;
    }
    sqlite3_close(h);
}
