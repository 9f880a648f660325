/* fuzz_records.c -- the record kinds' fields (one table) and the
 * structure-aware trace mutators over them (fuzz_records.h). */
#include "fuzz_records.h"

#include <stdlib.h>
#include <string.h>

#include "trace/chunk_code.h"

#define REC_HEADER 1
#define REC_LAUNCH 2
#define REC_ALLOC 3
#define REC_ACCESSES 5
#define REC_KARG 12

/* ---- the table: docs/trace-format.md, "Records" ---- */

static const fz_field header_f[] = {
    {"version", 0, 4, FZ_PLAIN},        {"start_unix_ns", 4, 8, FZ_PLAIN}, {"flags", 12, 4, FZ_PLAIN},
    {"warp_size", 16, 4, FZ_PLAIN},     {"sector_size", 20, 4, FZ_PLAIN},  {"sm_count", 24, 4, FZ_PLAIN},
    {"cc_major", 28, 4, FZ_PLAIN},      {"cc_minor", 32, 4, FZ_PLAIN},     {"mem_clock_khz", 36, 4, FZ_PLAIN},
    {"bus_width_bits", 40, 4, FZ_PLAIN}, {"l2_bytes", 44, 4, FZ_PLAIN},    {"max_warps_per_sm", 48, 4, FZ_PLAIN},
    {"global_mem_bytes", 52, 8, FZ_PLAIN}};
static const fz_field launch_f[] = {
    {"id", 0, 4, FZ_LAUNCH},       {"grid.x", 4, 4, FZ_PLAIN},  {"grid.y", 8, 4, FZ_PLAIN},
    {"grid.z", 12, 4, FZ_PLAIN},   {"block.x", 16, 4, FZ_PLAIN}, {"block.y", 20, 4, FZ_PLAIN},
    {"block.z", 24, 4, FZ_PLAIN},  {"dyn_smem", 28, 4, FZ_PLAIN}, {"static_smem", 32, 4, FZ_PLAIN},
    {"regs", 36, 4, FZ_PLAIN},     {"stream", 40, 8, FZ_PLAIN},  {"n_sampled", 48, 4, FZ_COUNT}};
static const fz_field alloc_f[] = {{"id", 0, 4, FZ_PLAIN},    {"launch", 4, 4, FZ_LAUNCH}, {"base", 8, 8, FZ_ADDR},
                                   {"size", 16, 8, FZ_COUNT}, {"space", 24, 1, FZ_SPACE}};
static const fz_field free_f[] = {{"base", 0, 8, FZ_ADDR}, {"space", 8, 1, FZ_SPACE}};
static const fz_field accesses_f[] = {{"count", 0, 4, FZ_COUNT}, {"reserved", 4, 4, FZ_PLAIN}};
static const fz_field kernel_end_f[] = {{"launch", 0, 4, FZ_LAUNCH}, {"recorded", 8, 8, FZ_COUNT},
                                        {"dropped", 16, 8, FZ_COUNT}, {"gpu_ns", 24, 8, FZ_PLAIN}};
static const fz_field dropped_f[] = {{"launch", 0, 4, FZ_LAUNCH}, {"count", 8, 8, FZ_COUNT}};
static const fz_field pcinfo_f[] = {{"pc", 0, 8, FZ_PLAIN}, {"line", 8, 4, FZ_PLAIN}};
static const fz_field end_f[] = {{"chunks", 0, 4, FZ_COUNT}, {"chain", 4, 4, FZ_PLAIN}, {"records", 8, 8, FZ_COUNT},
                                 {"accesses", 16, 8, FZ_COUNT}};
static const fz_field launch_stats_f[] = {
    {"grid.x", 0, 4, FZ_PLAIN},  {"grid.y", 4, 4, FZ_PLAIN},      {"grid.z", 8, 4, FZ_PLAIN},
    {"block.x", 12, 4, FZ_PLAIN}, {"block.y", 16, 4, FZ_PLAIN},    {"block.z", 20, 4, FZ_PLAIN},
    {"dyn_smem", 24, 4, FZ_PLAIN}, {"launches", 32, 8, FZ_COUNT}, {"traced", 40, 8, FZ_COUNT}};
static const fz_field process_f[] = {
    {"pid", 0, 8, FZ_PLAIN},         {"ppid", 8, 8, FZ_PLAIN},        {"rank", 16, 4, FZ_PLAIN},
    {"local_rank", 20, 4, FZ_PLAIN}, {"world_size", 24, 4, FZ_PLAIN}, {"ompi_rank", 28, 4, FZ_PLAIN},
    {"pmi_rank", 32, 4, FZ_PLAIN},   {"slurm_procid", 36, 4, FZ_PLAIN}, {"n_devices", 40, 4, FZ_COUNT}};
static const fz_field karg_f[] = {{"launch", 0, 4, FZ_LAUNCH}, {"index", 4, 4, FZ_COUNT}, {"offset", 8, 4, FZ_PLAIN},
                                  {"size", 12, 4, FZ_COUNT},   {"value", 16, 8, FZ_ADDR},  {"space", 24, 1, FZ_SPACE}};

const fz_field fz_access_fields[] = {{"addr", 0, 8, FZ_ADDR},  {"pc", 8, 8, FZ_PLAIN},    {"launch", 16, 4, FZ_LAUNCH},
                                     {"block", 20, 4, FZ_PLAIN}, {"seq", 24, 4, FZ_PLAIN}, {"thread", 28, 2, FZ_PLAIN},
                                     {"size", 30, 1, FZ_PLAIN},  {"flags", 31, 1, FZ_PLAIN}};
const size_t fz_naccess_fields = sizeof fz_access_fields / sizeof *fz_access_fields;

static uint64_t get_le(const uint8_t *p, unsigned w) {
    uint64_t v = 0;
    for (unsigned i = 0; i < w; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static void put_le(uint8_t *p, unsigned w, uint64_t v) {
    for (unsigned i = 0; i < w; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* LAUNCH: its sampled block ids come before the strings. */
static size_t launch_strings(const uint8_t *pl, size_t plen) {
    if (plen < 52) return plen;
    uint64_t ns = get_le(pl + 48, 4);
    if (ns == 0xFFFFFFFFu) ns = 0;
    return ns > (plen - 52) / 4 ? plen : 52 + 4 * (size_t)ns;
}

#define KIND(t, n, f, fixed, ns, at) {t, n, f, sizeof f / sizeof *f, fixed, ns, at}
const fz_kind fz_kinds[] = {
    KIND(1, "HEADER", header_f, 60, 4, NULL),
    KIND(2, "LAUNCH", launch_f, 52, 2, launch_strings),
    KIND(3, "ALLOC", alloc_f, 28, 1, NULL),
    KIND(4, "FREE", free_f, 12, 0, NULL),
    KIND(5, "ACCESSES", accesses_f, 8, 0, NULL),
    KIND(6, "KERNEL_END", kernel_end_f, 32, 0, NULL),
    KIND(7, "DROPPED", dropped_f, 16, 1, NULL),
    KIND(8, "PCINFO", pcinfo_f, 12, 2, NULL),
    KIND(9, "END", end_f, 24, 0, NULL),
    KIND(10, "LAUNCH_STATS", launch_stats_f, 48, 1, NULL),
    KIND(11, "PROCESS", process_f, 48, 2, NULL), /* + n_devices strings: the string walk takes every one */
    KIND(12, "KARG", karg_f, 28, 2, NULL),
};
#undef KIND
const size_t fz_nkinds = sizeof fz_kinds / sizeof *fz_kinds;

const fz_kind *fz_kind_of(unsigned type) {
    for (size_t i = 0; i < fz_nkinds; i++)
        if (fz_kinds[i].type == type) return &fz_kinds[i];
    return NULL;
}

/* ---- what the trace holds: values to draw from ---- */

typedef struct facts {
    uint32_t launch[64];
    size_t nlaunch;
    uint64_t base[64], size[64];
    size_t nalloc;
    size_t records;
    size_t raw_bytes;
} facts;

typedef struct rec_at {
    size_t ci, off;
} rec_at;

static uint32_t plen_of(const fz_chunk *c, size_t off) { return (uint32_t)get_le(c->raw + off + 4, 4); }

/* The payload of the record at off fits its chunk. */
static int whole(const fz_chunk *c, size_t off) { return off + 8 + (size_t)plen_of(c, off) <= c->nraw; }

static void learn(const fz_trace *t, facts *f) {
    memset(f, 0, sizeof *f);
    for (size_t ci = 0; ci < t->n; ci++) {
        const fz_chunk *c = &t->c[ci];
        f->raw_bytes += c->nraw;
        for (size_t off = 0; off + 8 <= c->nraw; off = fz_rec_next(c, off)) {
            f->records++;
            if (!whole(c, off)) continue;
            const uint8_t *pl = c->raw + off + 8;
            uint32_t plen = plen_of(c, off);
            if (c->raw[off] == REC_LAUNCH && plen >= 4 && f->nlaunch < 64)
                f->launch[f->nlaunch++] = (uint32_t)get_le(pl, 4);
            if (c->raw[off] == REC_ALLOC && plen >= 24 && f->nalloc < 64) {
                f->base[f->nalloc] = get_le(pl + 8, 8);
                f->size[f->nalloc++] = get_le(pl + 16, 8);
            }
        }
    }
}

/* A random whole record of type (-1: any), or ci = SIZE_MAX: one pass,
 * each match kept with probability 1/(matches so far). */
static rec_at pick_rec(const fz_trace *t, const facts *f, fz_rng *r, int type) {
    rec_at got = {(size_t)-1, 0};
    size_t seen = 0;
    (void)f;
    for (size_t ci = 0; ci < t->n; ci++) {
        const fz_chunk *c = &t->c[ci];
        for (size_t off = 0; off + 8 <= c->nraw; off = fz_rec_next(c, off))
            if (whole(c, off) && (type < 0 || c->raw[off] == type) && fz_rndn(r, ++seen) == 0) got = (rec_at){ci, off};
    }
    return got;
}

/* ---- values ---- */

static uint64_t width_max(unsigned w) { return w >= 8 ? UINT64_MAX : (1ull << (8 * w)) - 1; }

static uint64_t edge(fz_rng *r, uint64_t old, unsigned w, unsigned role, const facts *f) {
    uint64_t v;
    switch (fz_rndn(r, 13)) {
    case 0: v = 0; break;
    case 1: v = 1; break;
    case 2: v = old + 1; break;
    case 3: v = old - 1; break;
    case 4: v = width_max(w); break;
    case 5: v = 1ull << (8 * w - 1); break;
    case 6: v = (1ull << (8 * w - 1)) - 1; break;
    case 7: v = old ^ (1ull << fz_rndn(r, 8 * w)); break;
    case 8: v = fz_rnd(r); break;
    case 9: v = fz_rndn(r, 2) ? 65535 : 65536; break;
    case 10: v = old * 2 + fz_rndn(r, 2); break;
    default: /* a value the trace itself holds, for what the field holds */
        if (role == FZ_LAUNCH && f->nlaunch) v = f->launch[fz_rndn(r, f->nlaunch)] + fz_rndn(r, 3) - 1;
        else if (role == FZ_ADDR && f->nalloc) {
            size_t a = fz_rndn(r, f->nalloc);
            v = f->base[a] + (f->size[a] ? fz_rndn(r, f->size[a] + 8) : 0);
        } else if (role == FZ_SPACE) v = fz_rndn(r, 5);
        else if (role == FZ_COUNT) v = fz_rndn(r, 2) ? fz_rndn(r, 64) : old + fz_rndn(r, 3) - 1;
        else v = old ^ fz_rndn(r, 256);
        break;
    }
    return v & width_max(w);
}

/* ---- the mutations ---- */

/* Replaces `del` bytes at `at` of c's records with n bytes of `ins`. */
static void splice(fz_chunk *c, size_t at, size_t del, const uint8_t *ins, size_t n) {
    uint8_t *p = malloc(c->nraw - del + n + 1);
    memcpy(p, c->raw, at);
    if (n) memcpy(p + at, ins, n);
    memcpy(p + at + n, c->raw + at + del, c->nraw - at - del);
    free(c->raw);
    c->raw = p;
    c->nraw = c->nraw - del + n;
    fz_chunk_touch(c);
}

static const char *mut_field(fz_trace *t, const facts *f, fz_rng *r) {
    rec_at a = pick_rec(t, f, r, -1);
    if (a.ci == (size_t)-1) return NULL;
    fz_chunk *c = &t->c[a.ci];
    const fz_kind *k = fz_kind_of(c->raw[a.off]);
    uint32_t plen = plen_of(c, a.off);
    if (!k || !k->nfields) return NULL;
    const fz_field *fd = &k->fields[fz_rndn(r, k->nfields)];
    if ((size_t)fd->off + fd->width > plen) return NULL;
    uint8_t *p = c->raw + a.off + 8 + fd->off;
    put_le(p, fd->width, edge(r, get_le(p, fd->width), fd->width, fd->role, f));
    fz_chunk_touch(c);
    return "record field";
}

static const char *mut_access(fz_trace *t, const facts *f, fz_rng *r) {
    rec_at a = pick_rec(t, f, r, REC_ACCESSES);
    if (a.ci == (size_t)-1) return NULL;
    fz_chunk *c = &t->c[a.ci];
    uint32_t plen = plen_of(c, a.off), n = plen >= 8 ? (uint32_t)get_le(c->raw + a.off + 8, 4) : 0;
    if (!n || (plen - 8) / 32 < n) return NULL;
    const fz_field *fd = &fz_access_fields[fz_rndn(r, fz_naccess_fields)];
    size_t k = fz_rndn(r, 4) ? 1 : 1 + fz_rndn(r, n); /* one entry, or a run of them */
    size_t i0 = fz_rndn(r, n - (k > n ? n : k) + 1);
    uint64_t v = 0;
    for (size_t i = i0; i < i0 + k && i < n; i++) {
        uint8_t *p = c->raw + a.off + 16 + 32 * i + fd->off;
        if (i == i0) v = edge(r, get_le(p, fd->width), fd->width, fd->role, f);
        put_le(p, fd->width, v);
    }
    fz_chunk_touch(c);
    return "access field";
}

static const char *mut_string(fz_trace *t, const facts *f, fz_rng *r) {
    rec_at a = pick_rec(t, f, r, -1);
    if (a.ci == (size_t)-1) return NULL;
    fz_chunk *c = &t->c[a.ci];
    const fz_kind *k = fz_kind_of(c->raw[a.off]);
    if (!k || !k->nstrings) return NULL;
    uint8_t *pl = c->raw + a.off + 8;
    size_t plen = plen_of(c, a.off), at = k->strings_at ? k->strings_at(pl, plen) : k->fixed;
    size_t starts[64], ns = 0;
    while (at + 4 <= plen && ns < 64) { /* every string, PROCESS's device names included */
        starts[ns++] = at;
        uint64_t len = get_le(pl + at, 4);
        if (len > plen - at - 4) break;
        at += 4 + (size_t)len;
    }
    if (!ns) return NULL;
    size_t s = starts[fz_rndn(r, ns)];
    uint64_t len = get_le(pl + s, 4);
    if (fz_rndn(r, 2) || len == 0 || len > plen - s - 4) {
        put_le(pl + s, 4, edge(r, len, 4, FZ_COUNT, f));
    } else {
        static const uint8_t odd[] = {0, '\n', '\r', '\t', 0x7f, 0xff, 0xc3, '"', '<', '%', '\\', ','};
        for (int i = 0, m = 1 + (int)fz_rndn(r, 4); i < m; i++)
            pl[s + 4 + fz_rndn(r, len)] = fz_rndn(r, 2) ? odd[fz_rndn(r, sizeof odd)] : (uint8_t)fz_rnd(r);
    }
    fz_chunk_touch(c);
    return "string";
}

static const char *mut_record(fz_trace *t, const facts *f, fz_rng *r) {
    rec_at a = pick_rec(t, f, r, -1);
    if (a.ci == (size_t)-1) return NULL;
    fz_chunk *c = &t->c[a.ci];
    size_t n = fz_rec_next(c, a.off) - a.off;
    uint8_t *copy = malloc(n);
    memcpy(copy, c->raw + a.off, n);
    const char *what = NULL;
    switch (fz_rndn(r, 6)) {
    case 0:
        fz_rec_remove(c, a.off);
        what = "record removed";
        break;
    case 1:
        if (f->raw_bytes < (4u << 20)) fz_rec_insert(c, fz_rec_next(c, a.off), copy, n), what = "record repeated";
        break;
    case 2: { /* moved to a record boundary of any chunk */
        fz_rec_remove(c, a.off);
        fz_chunk *d = &t->c[fz_rndn(r, t->n)];
        size_t at = 0, hops = fz_rndn(r, 16);
        while (hops-- && at < d->nraw) at = fz_rec_next(d, at);
        fz_rec_insert(d, at, copy, n);
        what = "record moved";
        break;
    }
    case 3: { /* two neighbours swapped */
        size_t b = fz_rec_next(c, a.off);
        if (b + 8 > c->nraw || !whole(c, b)) break;
        size_t m = fz_rec_next(c, b) - b;
        uint8_t *both = malloc(n + m);
        memcpy(both, c->raw + b, m);
        memcpy(both + m, copy, n);
        memcpy(c->raw + a.off, both, n + m);
        free(both);
        fz_chunk_touch(c);
        what = "records swapped";
        break;
    }
    case 4: /* another type: a kind of the table, or none */
        c->raw[a.off] = fz_rndn(r, 4) ? fz_kinds[fz_rndn(r, fz_nkinds)].type : (uint8_t)fz_rnd(r);
        fz_chunk_touch(c);
        what = "record retyped";
        break;
    default: /* its length: its framing shifts */
        put_le(c->raw + a.off + 4, 4, edge(r, plen_of(c, a.off), 4, FZ_COUNT, f));
        fz_chunk_touch(c);
        what = "record resized";
        break;
    }
    free(copy);
    return what;
}

/* A block of access entries removed or repeated, the record's count and
 * length kept right (the launch's kernel end then counts another number). */
static const char *mut_block(fz_trace *t, const facts *f, fz_rng *r) {
    rec_at a = pick_rec(t, f, r, REC_ACCESSES);
    if (a.ci == (size_t)-1) return NULL;
    fz_chunk *c = &t->c[a.ci];
    uint32_t plen = plen_of(c, a.off), n = plen >= 8 ? (uint32_t)get_le(c->raw + a.off + 8, 4) : 0;
    if (!n || (plen - 8) / 32 < n) return NULL;
    size_t k = 1 + fz_rndn(r, n < 64 ? n : 64), i = fz_rndn(r, n - k + 1);
    size_t at = a.off + 16 + 32 * i;
    int rm = fz_rndn(r, 2) || f->raw_bytes > (4u << 20);
    if (rm) {
        splice(c, at, 32 * k, NULL, 0);
    } else {
        uint8_t *copy = malloc(32 * k);
        memcpy(copy, c->raw + at, 32 * k);
        splice(c, at, 0, copy, 32 * k);
        free(copy);
    }
    int64_t d = rm ? -(int64_t)k : (int64_t)k;
    put_le(c->raw + a.off + 8, 4, (uint64_t)((int64_t)n + d));
    put_le(c->raw + a.off + 4, 4, (uint64_t)((int64_t)plen + 32 * d));
    return rm ? "accesses removed" : "accesses repeated";
}

/* A record of any kind of the table, made up: its fields edge values or
 * values the trace holds (a KARG of a launch there, pointing into an
 * allocation there), its strings short, inserted at a record boundary. */
static const char *mut_invent(fz_trace *t, const facts *f, fz_rng *r) {
    if (f->raw_bytes > (4u << 20) || !t->n) return NULL;
    const fz_kind *k = &fz_kinds[fz_rndn(r, fz_nkinds)];
    size_t nacc = k->type == REC_ACCESSES ? 1 + fz_rndn(r, 8) : 0;
    size_t plen = k->fixed + 8 * (size_t)k->nstrings + 32 * nacc;
    size_t padded = (plen + 7) & ~(size_t)7;
    uint8_t *rec = calloc(1, 8 + padded);
    rec[0] = k->type;
    put_le(rec + 4, 4, plen);
    uint8_t *pl = rec + 8;
    for (size_t i = 0; i < k->nfields; i++)
        put_le(pl + k->fields[i].off, k->fields[i].width,
               edge(r, 0, k->fields[i].width, k->fields[i].role == FZ_PLAIN ? FZ_COUNT : k->fields[i].role, f));
    if (k->type == REC_LAUNCH) put_le(pl + 48, 4, 0xFFFFFFFFu); /* every block: no array before the strings */
    if (k->type == REC_ACCESSES) {
        put_le(pl, 4, nacc);
        put_le(pl + 4, 4, 0);
        for (size_t e = 0; e < nacc; e++)
            for (size_t j = 0; j < fz_naccess_fields; j++) {
                const fz_field *fd = &fz_access_fields[j];
                put_le(pl + 8 + 32 * e + fd->off, fd->width, edge(r, 0, fd->width, fd->role, f));
            }
    }
    for (size_t s = 0; s < k->nstrings; s++) { /* "xyz\0" each: 4 + 4 bytes */
        uint8_t *q = pl + k->fixed + 8 * s;
        put_le(q, 4, 4);
        memcpy(q + 4, "arg", 4);
    }
    fz_chunk *c = &t->c[fz_rndn(r, t->n)];
    size_t at = 0, hops = fz_rndn(r, 32);
    while (hops-- && at < c->nraw) at = fz_rec_next(c, at);
    fz_rec_insert(c, at, rec, 8 + padded);
    free(rec);
    return k->type == REC_KARG ? "made-up KARG" : "made-up record";
}

static const char *mut_chunks(fz_trace *t, fz_rng *r) {
    if (t->n < 2) return NULL;
    size_t i = fz_rndn(r, t->n), j = fz_rndn(r, t->n);
    switch (fz_rndn(r, 6)) {
    case 0:
        fz_chunk_remove(t, i);
        return "chunk removed";
    case 1:
        fz_chunk_dup(t, i, j);
        return "chunk repeated";
    case 2:
        if (i == j) return NULL;
        fz_chunk_swap(t, i, j);
        return "chunks swapped";
    case 3: { /* i and i + 1 made one */
        if (i + 1 >= t->n) return NULL;
        fz_chunk *a = &t->c[i], *b = &t->c[i + 1];
        splice(a, a->nraw, 0, b->raw, b->nraw);
        fz_chunk_remove(t, i + 1);
        return "chunks merged";
    }
    case 4: { /* i split at one of its record boundaries */
        fz_chunk *c = &t->c[i];
        size_t at = 0, hops = 1 + fz_rndn(r, 8);
        while (hops-- && at < c->nraw) at = fz_rec_next(c, at);
        if (at == 0 || at >= c->nraw) return NULL;
        fz_chunk_dup(t, i, i + 1);
        fz_chunk *a = &t->c[i], *b = &t->c[i + 1];
        splice(b, 0, at, NULL, 0);
        a->nraw = at;
        fz_chunk_touch(a);
        return "chunk split";
    }
    default: /* the file ends after chunk i (a run cut on a chunk boundary) */
        while (t->n > i + 1) fz_chunk_remove(t, t->n - 1);
        return "chunks cut";
    }
}

/* A coded chunk (version 4) whose coding does not add up: its entry count,
 * its reserved word, a plane's bytes, its length. */
static const char *mut_coded(fz_trace *t, fz_rng *r) {
    if (get_le(t->prefix + 8, 4) < MH_TF_CODED_VERSION || !t->n) return NULL;
    fz_chunk *c = &t->c[fz_rndn(r, t->n)];
    size_t n = c->nraw + MH_TF_CODE_EXTRA;
    uint8_t *cd = malloc(n + 64);
    mh_tf_code(c->raw, c->nraw, cd);
    uint32_t e = (uint32_t)get_le(cd, 4);
    switch (fz_rndn(r, 4)) {
    case 0: put_le(cd, 4, edge(r, e, 4, FZ_COUNT, NULL)); break;
    case 1: put_le(cd + 4, 4, 1 + fz_rndn(r, 255)); break;
    case 2: /* a byte of the planes, or of the records part */
        if (e && n > 32u * e) cd[n - 1 - fz_rndn(r, 32u * e)] ^= (uint8_t)(1 + fz_rndn(r, 255));
        else cd[8 + fz_rndn(r, n - 8 ? n - 8 : 1)] ^= (uint8_t)(1 + fz_rndn(r, 255));
        break;
    default:
        if (fz_rndn(r, 2)) {
            n -= fz_rndn(r, n < 16 ? n : 16);
        } else {
            size_t g = 4 * (1 + fz_rndn(r, 8)); /* the allocation has 64 bytes to spare */
            memset(cd + n, 0, g);
            n += g;
        }
        break;
    }
    fz_chunk_touch(c);
    c->coded = cd;
    c->ncoded = n;
    return "coded chunk damaged";
}

/* The trace as another version writes it: 4 <-> 3 (coded or not), prefix
 * and header record both, or the prefix alone. */
static const char *mut_version(fz_trace *t, fz_rng *r) {
    uint32_t v = (uint32_t)get_le(t->prefix + 8, 4), to = v >= 4 ? 3 : 4;
    if (fz_rndn(r, 8) == 0) to = 1 + (uint32_t)fz_rndn(r, 4);
    put_le(t->prefix + 8, 4, to);
    int both = fz_rndn(r, 4) != 0;
    if (both && t->n && t->c[0].nraw >= 12 && t->c[0].raw[0] == REC_HEADER) put_le(t->c[0].raw + 8, 4, to);
    for (size_t i = 0; i < t->n; i++) fz_chunk_touch(&t->c[i]); /* coded or not: every frame anew */
    return both ? "version rewritten" : "prefix version";
}

const char *fz_mutate_records(fz_trace *t, fz_rng *r, int *sealed) {
    *sealed = 0;
    facts f;
    learn(t, &f);
    const char *what = NULL;
    for (int tries = 0; !what && tries < 8; tries++) {
        unsigned op = (unsigned)fz_rndn(r, 100);
        if (op < 26) what = mut_field(t, &f, r);
        else if (op < 42) what = mut_access(t, &f, r);
        else if (op < 50) what = mut_string(t, &f, r);
        else if (op < 64) what = mut_record(t, &f, r);
        else if (op < 72) what = mut_block(t, &f, r);
        else if (op < 82) what = mut_invent(t, &f, r);
        else if (op < 93) what = mut_chunks(t, r);
        else if (op < 97) what = mut_coded(t, r);
        else what = mut_version(t, r);
    }
    if (!what) return "none";
    /* now and then the trace says what it holds again: deep paths of valid traces */
    if (fz_rndn(r, 4) == 0 && fz_seal(t) == 0) *sealed = 1;
    return what;
}
