/* reader.c -- streaming reader of trace formats v1 to v5.
 *
 * Takes one chunk at a time from the chunk source (chunks.h: read, CRCs
 * checked, decompressed; inline or ahead on a helper thread) and walks its
 * records with bounds checks.
 * Every defect becomes an error code and a message naming the file, chunk and
 * byte offset; records of whole chunks before a cut or a damaged chunk have
 * already been handed out by then. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "trace/chunk_code.h"
#include "trace/chunks.h"
#include "trace/format.h"
#include "util/grow.h"

struct mh_trace_reader {
    char path[1024];
    mh_tf_loader ld;      /* file, offset and zstd context; the helper's while ahead runs */
    mh_tf_ahead *ahead;   /* read-ahead helper, or NULL: chunks are loaded inline */
    mh_tf_buf own;        /* the inline path's chunk buffer (and chunk 0's) */
    int cur_ahead;        /* the current chunk is the read-ahead's (else own) */
    mh_tf_pool *pool;     /* spare buffers for held chunks (NULL: no holds) */
    mh_trace_hold *hold;  /* the current chunk's hold, once asked for */
    int acc_in_chunk;     /* the last ACCESSES record's array points into the chunk */
    uint64_t offset;      /* file offset after the current chunk (for messages) */
    uint64_t chunks;      /* whole chunks handed to the record walk */
    const unsigned char *raw; /* current decompressed chunk */
    size_t rlen, rpos;
    mh_access *acc;       /* decoded accesses of the current record */
    size_t acc_cap;
    char *strs;           /* NUL-terminated copies of the current record's strings */
    size_t strs_cap;
    uint32_t *sampled;
    size_t sampled_cap;
    const char **devs;    /* device strings of the current PROCESS record */
    size_t devs_cap;
    uint64_t *site_pc;    /* the current SITE record's arrays */
    uint32_t *site_obj;
    mh_site_pyframe *site_py;
    const char **site_nvtx;
    int done, complete, failed;
    /* what the END record states, checked against what was read */
    uint32_t chain;       /* CRC-32C over the payload CRCs of the chunks before the current one */
    uint64_t records;     /* records framed so far, the header included */
    uint64_t accesses;    /* access entries of the ACCESSES records parsed */
    int ended;            /* an END record was read */
    char damage[256];     /* what does not add up, the first thing found ("" = nothing) */
    mh_trace_header hdr;
    char *hdr_strs;       /* header strings, owned for the reader's life */
};

const char *mh_space_name(unsigned space) {
    static const char *const n[] = {"global", "shared", "local", "constant"};
    return space < MH_SPACE_COUNT ? n[space] : "unknown";
}

const char *mh_kind_name(unsigned kind) {
    static const char *const n[] = {"load", "store", "atomic"};
    return kind < 3 ? n[kind] : "unknown";
}

/* A defect of the current chunk's records (r->chunks counts it: its number is one less). */
static int fail(mh_trace_reader *r, int code, mh_err *err, const char *what) {
    r->failed = 1;
    return mh_err_set(err, code, "%s: %s (chunk %llu, byte offset %llu)", r->path, what,
                      (unsigned long long)(r->chunks ? r->chunks - 1 : 0), (unsigned long long)r->offset);
}

/* Leaving the current chunk: a hold on it takes its buffer, and the reader's
 * slot gets a spare one. */
static void leave_chunk(mh_trace_reader *r) {
    if (!r->hold) return;
    unsigned char *raw;
    size_t cap;
    mh_tf_pool_take(r->pool, &raw, &cap);
    if (r->cur_ahead) {
        mh_tf_ahead_swap(r->ahead, &raw, &cap);
    } else {
        unsigned char *o = r->own.raw;
        size_t oc = r->own.rcap;
        r->own.raw = raw;
        r->own.rcap = cap;
        raw = o;
        cap = oc;
    }
    mh_tf_hold_keep(r->hold, raw, cap);
    r->hold = NULL;
    r->raw = NULL;
    r->rlen = r->rpos = 0;
}

int mh_trace_accesses_in_chunk(const mh_trace_reader *r) { return r->acc_in_chunk; }

mh_trace_hold *mh_trace_hold_chunk(mh_trace_reader *r) {
    if (!r->raw || !r->pool) return NULL;
    if (!r->hold) r->hold = mh_tf_hold_new(r->pool);
    return r->hold;
}

/* Moves to the next chunk, inline or from the read-ahead helper; sets
 * r->done at a clean end of file. Errors are mh_tf_load's, word for word. */
static int load_chunk(mh_trace_reader *r, mh_err *err) {
    leave_chunk(r);
    const mh_tf_buf *b = &r->own;
    int rc = r->ahead ? mh_tf_ahead_next(r->ahead, &b, err) : mh_tf_load(&r->ld, &r->own, err);
    if (rc != MH_OK) {
        r->failed = 1;
        return rc;
    }
    if (b->eof) {
        r->done = 1;
        return MH_OK;
    }
    r->raw = b->raw;
    r->cur_ahead = r->ahead != NULL;
    r->rlen = b->rlen;
    r->rpos = 0;
    r->chunks = b->index + 1;
    r->offset = b->end;
    r->chain = b->chain;
    return MH_OK;
}

/* Cursor over one record's payload; every get is bounds-checked. */
typedef struct cursor {
    const unsigned char *p, *end;
    int bad;
} cursor;

static uint32_t c32(cursor *c) {
    if (c->end - c->p < 4) { c->bad = 1; return 0; }
    uint32_t v = mh_get32(c->p);
    c->p += 4;
    return v;
}
static uint64_t c64(cursor *c) {
    if (c->end - c->p < 8) { c->bad = 1; return 0; }
    uint64_t v = mh_get64(c->p);
    c->p += 8;
    return v;
}
static uint8_t c8(cursor *c) {
    if (c->end - c->p < 1) { c->bad = 1; return 0; }
    return *c->p++;
}
static void cskip(cursor *c, size_t n) {
    if ((size_t)(c->end - c->p) < n) c->bad = 1;
    else c->p += n;
}

/* Pass 1 measures string bytes; strings are copied into r->strs so each ends in NUL. */
static const char *cstr(cursor *c, char **dst) {
    uint32_t n = c32(c);
    if (c->bad || (size_t)(c->end - c->p) < n) { c->bad = 1; return ""; }
    char *s = *dst;
    memcpy(s, c->p, n);
    s[n] = '\0';
    *dst += n + 1;
    c->p += n;
    return s;
}

static int parse_header(mh_trace_reader *r, const unsigned char *p, size_t len, mh_err *err) {
    cursor c = {p, p + len, 0};
    r->hdr_strs = malloc(len + 4);
    if (!r->hdr_strs) return fail(r, MH_ERR_NOMEM, err, "out of memory");
    char *s = r->hdr_strs;
    mh_trace_header *h = &r->hdr;
    h->version = c32(&c);
    h->start_unix_ns = c64(&c);
    mh_device *d = &h->device;
#define GET(KIND, f, BRK) d->f = GET_##KIND(&c); /* list order (trace_fields.h) */
#define GET_U32 c32
#define GET_U64 c64
    MH_TRACE_DEVICE_FIELDS(GET, MH_TDF_NONE)
#undef GET
#undef GET_U32
#undef GET_U64
    d->name = cstr(&c, &s);
    h->producer = cstr(&c, &s);
    h->command = cstr(&c, &s);
    h->note = cstr(&c, &s);
    if (c.bad) return fail(r, MH_ERR_FORMAT, err, "malformed header record");
    if (d->warp_size == 0 || d->warp_size > 1024 || d->sector_size == 0 || (d->sector_size & 3u))
        return fail(r, MH_ERR_FORMAT, err, "header has an invalid warp or sector size");
    return MH_OK;
}

/* A non-negative integer from the environment, or -1. */
static long env_count(const char *name) {
    const char *e = getenv(name);
    if (!e || !*e) return -1;
    char *end;
    long v = strtol(e, &end, 10);
    return *end == '\0' && v >= 0 ? v : -1;
}

/* Decompressing helpers by default: one per 4 CPUs on 8 or more (a 16-core
 * machine analyses 5 x 10^7 accesses/s, about 1.6 GB/s of decompressed
 * records: more than one zstd thread gives), else one. */
static unsigned readahead_default_threads(void) {
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    long t = cpus >= 8 ? cpus / 4 : 1;
    return (unsigned)(t > MH_TRACE_MAX_READAHEAD_THREADS ? MH_TRACE_MAX_READAHEAD_THREADS : t);
}

/* Chunks to decompress ahead: the caller's choice, else MEMHEAT_READAHEAD
 * (0 = off, 1..MH_TRACE_MAX_READAHEAD), else the default: on where a second
 * CPU can run a helper; with several helpers 8 chunks each, so that a
 * helper that the analysis threads keep off a core for a few milliseconds
 * does not stall the reader at its chunk (16 cores: 4 helpers, 32 chunks,
 * about 40 MB; bench/analyses/README.md has the figures). */
static unsigned readahead_depth(const mh_trace_reader_opts *opts) {
    long d = opts ? opts->readahead : -1;
    if (d < 0) d = env_count("MEMHEAT_READAHEAD");
    if (d < 0) {
        long t = (long)readahead_default_threads();
        d = sysconf(_SC_NPROCESSORS_ONLN) < 2 ? 0 : t > 1 ? 8 * t : MH_TRACE_DEFAULT_READAHEAD;
    }
    return (unsigned)(d > MH_TRACE_MAX_READAHEAD ? MH_TRACE_MAX_READAHEAD : d);
}

/* Helper threads for `depth` chunks ahead: the caller's choice, else
 * MEMHEAT_READAHEAD_THREADS, else the default; 1..depth. */
static unsigned readahead_threads(const mh_trace_reader_opts *opts, unsigned depth) {
    long t = opts && opts->readahead_threads > 0 ? opts->readahead_threads : -1;
    if (t <= 0) t = env_count("MEMHEAT_READAHEAD_THREADS");
    if (t <= 0) t = readahead_default_threads();
    if (t > MH_TRACE_MAX_READAHEAD_THREADS) t = MH_TRACE_MAX_READAHEAD_THREADS;
    return (unsigned)(t > (long)depth ? depth : t);
}

int mh_trace_open(mh_trace_reader **out, const char *path, mh_err *err) {
    return mh_trace_open_opts(out, path, NULL, err);
}

int mh_trace_open_opts(mh_trace_reader **out, const char *path, const mh_trace_reader_opts *opts, mh_err *err) {
    *out = NULL;
    mh_trace_reader *r = calloc(1, sizeof *r);
    if (!r) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    snprintf(r->path, sizeof r->path, "%s", path);
    r->ld.path = r->path;
    r->ld.f = fopen(path, "rb");
    if (!r->ld.f) {
        int e = errno;
        free(r);
        return mh_err_set(err, MH_ERR_IO, "cannot open trace %s: %s", path, strerror(e));
    }
    r->ld.inf.dctx = ZSTD_createDCtx();
    r->pool = mh_tf_pool_new(); /* NULL: chunks are never held (consumers copy) */
    unsigned char prefix[MH_TF_PREFIX_BYTES];
    size_t got = r->ld.inf.dctx ? mh_tf_read(&r->ld, prefix, sizeof prefix) : 0;
    int rc = MH_OK;
    if (!r->ld.inf.dctx)
        rc = mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    else if (got == 0)
        rc = mh_err_set(err, MH_ERR_EMPTY, "%s: empty file, not a memheat trace", path);
    else if (got < 8 || memcmp(prefix, MH_TF_MAGIC, 8) != 0)
        rc = mh_err_set(err, MH_ERR_FORMAT, "%s: not a memheat trace (bad magic)", path);
    else if (got < sizeof prefix)
        rc = mh_err_set(err, MH_ERR_TRUNCATED, "%s: file is cut short inside its 16-byte prefix", path);
    else if (mh_get32(prefix + 8) > MH_TRACE_VERSION || mh_get32(prefix + 8) == 0)
        rc = mh_err_set(err, MH_ERR_VERSION, "%s: trace format version %u is not supported (this memheat reads up to %u)",
                        path, mh_get32(prefix + 8), MH_TRACE_VERSION);
    else if (mh_get32(prefix + 12) != 0)
        rc = mh_err_set(err, MH_ERR_FORMAT, "%s: unknown flags 0x%x in the trace prefix", path, mh_get32(prefix + 12));
    r->ld.coded = rc == MH_OK && mh_get32(prefix + 8) >= MH_TF_CODED_VERSION;
    if (rc == MH_OK) rc = load_chunk(r, err);
    if (rc == MH_OK && r->done) rc = mh_err_set(err, MH_ERR_TRUNCATED, "%s: trace has no header chunk", path);
    if (rc == MH_OK) {
        const unsigned char *p = r->raw;
        if (r->rlen < MH_TF_REC_HDR_BYTES || p[0] != MH_REC_HEADER ||
            mh_get32(p + 4) > r->rlen - MH_TF_REC_HDR_BYTES)
            rc = fail(r, MH_ERR_FORMAT, err, "first record is not a header");
        else {
            uint32_t plen = mh_get32(p + 4);
            rc = parse_header(r, p + MH_TF_REC_HDR_BYTES, plen, err);
            r->rpos = MH_TF_REC_HDR_BYTES + ((plen + 7u) & ~7u);
            r->records = 1;
            /* writers put one version in both: a flipped bit between two readable versions shows here */
            if (rc == MH_OK && r->hdr.version != mh_get32(prefix + 8))
                rc = fail(r, MH_ERR_CORRUPT, err, "the prefix and the header name different format versions");
        }
    }
    if (rc != MH_OK) {
        mh_trace_close_reader(r);
        return rc;
    }
    /* Chunk 0 was read inline; the rest comes from the helpers where they run
     * (where none can start, inline: the records are the same). */
    unsigned depth = readahead_depth(opts);
    if (depth > 0 && !r->done) r->ahead = mh_tf_ahead_start(&r->ld, depth, readahead_threads(opts, depth));
    *out = r;
    return MH_OK;
}

const mh_trace_header *mh_trace_header_get(const mh_trace_reader *r) { return &r->hdr; }
int mh_trace_complete(const mh_trace_reader *r) { return r->complete && !r->damage[0]; }
const char *mh_trace_inconsistency(const mh_trace_reader *r) { return r->damage; }
uint64_t mh_trace_chunks_read(const mh_trace_reader *r) { return r->chunks; }

void mh_trace_times(const mh_trace_reader *r, double *wait_s, double *helpers_cpu_s) {
    *wait_s = *helpers_cpu_s = 0;
    if (r->ahead) mh_tf_ahead_times(r->ahead, wait_s, helpers_cpu_s);
}

/* A SITE record (version 5): counts bounded, the user's frame inside them. */
static int parse_site(mh_trace_reader *r, cursor *c, char **s, mh_site *st, mh_err *err) {
    st->id = c32(c);
    st->flags = c32(c);
    st->user = c32(c);
    st->n_native = c32(c);
    st->n_python = c32(c);
    st->n_nvtx = c32(c);
    if (c->bad || st->n_native > MH_SITE_MAX_FRAMES || st->n_python > MH_SITE_MAX_FRAMES ||
        st->n_nvtx > MH_SITE_MAX_NVTX ||
        (st->user != MH_SITE_NONE && st->user >= st->n_native + st->n_python))
        return fail(r, MH_ERR_FORMAT, err, "malformed site record");
    if (!r->site_pc) { /* fixed sizes: allocated once */
        r->site_pc = malloc(MH_SITE_MAX_FRAMES * sizeof *r->site_pc);
        r->site_obj = malloc(MH_SITE_MAX_FRAMES * sizeof *r->site_obj);
        r->site_py = malloc(MH_SITE_MAX_FRAMES * sizeof *r->site_py);
        r->site_nvtx = malloc(MH_SITE_MAX_NVTX * sizeof *r->site_nvtx);
        if (!r->site_pc || !r->site_obj || !r->site_py || !r->site_nvtx) return fail(r, MH_ERR_NOMEM, err, "out of memory");
    }
    for (uint32_t i = 0; i < st->n_native; i++) r->site_pc[i] = c64(c);
    for (uint32_t i = 0; i < st->n_native; i++) r->site_obj[i] = c32(c);
    for (uint32_t i = 0; i < st->n_python; i++) {
        r->site_py[i].line = c32(c);
        r->site_py[i].file = cstr(c, s);
        r->site_py[i].function = cstr(c, s);
    }
    for (uint32_t i = 0; i < st->n_nvtx; i++) r->site_nvtx[i] = cstr(c, s);
    st->pc = r->site_pc;
    st->object = r->site_obj;
    st->py = r->site_py;
    st->nvtx = r->site_nvtx;
    return MH_OK;
}

static int parse_record(mh_trace_reader *r, int type, const unsigned char *p, size_t len, mh_record *rec,
                        mh_err *err) {
    cursor c = {p, p + len, 0};
    char *strs = mh_grow(r->strs, &r->strs_cap, len + 8, 1, 64);
    if (!strs) return fail(r, MH_ERR_NOMEM, err, "out of memory");
    r->strs = strs;
    char *s = r->strs;
    rec->type = type;
    switch (type) {
    case MH_REC_LAUNCH: {
        mh_launch *l = &rec->u.launch;
        uint32_t f[10];
        for (int i = 0; i < 10; i++) f[i] = c32(&c);
        l->id = f[0];
        l->grid = (mh_dim3){f[1], f[2], f[3]};
        l->block = (mh_dim3){f[4], f[5], f[6]};
        l->dyn_smem = f[7];
        l->static_smem = f[8];
        l->regs = f[9];
        l->stream = c64(&c);
        l->n_sampled = c32(&c);
        uint32_t ns = l->n_sampled == MH_TRACE_ALL_BLOCKS ? 0 : l->n_sampled;
        if (c.bad || (size_t)(c.end - c.p) / 4 < ns) return fail(r, MH_ERR_FORMAT, err, "malformed launch record");
        uint32_t *sampled = mh_grow(r->sampled, &r->sampled_cap, (size_t)ns + 1, sizeof *sampled, 64);
        if (!sampled) return fail(r, MH_ERR_NOMEM, err, "out of memory");
        r->sampled = sampled;
        for (uint32_t i = 0; i < ns; i++) r->sampled[i] = c32(&c);
        l->sampled = r->sampled;
        l->name = cstr(&c, &s);
        l->display_name = cstr(&c, &s);
        if (!c.bad && (l->block.x == 0 || l->block.y == 0 || l->block.z == 0 ||
                       (uint64_t)l->block.x * l->block.y * l->block.z > 65536))
            return fail(r, MH_ERR_FORMAT, err, "launch record has an invalid block shape");
        break;
    }
    case MH_REC_ALLOC: {
        mh_alloc *a = &rec->u.alloc;
        a->id = c32(&c);
        a->launch = c32(&c);
        a->base = c64(&c);
        a->size = c64(&c);
        a->space = c8(&c);
        cskip(&c, 3);
        a->label = cstr(&c, &s);
        if (!c.bad && a->space >= MH_SPACE_COUNT) return fail(r, MH_ERR_FORMAT, err, "allocation in an unknown address space");
        break;
    }
    case MH_REC_FREE:
        rec->u.free.base = c64(&c);
        rec->u.free.space = c8(&c);
        break;
    case MH_REC_ACCESSES: {
        uint32_t n = c32(&c);
        rec->u.accesses.one_launch = c32(&c) == 1 && n > 0; /* mh_tf_inflate's mark */
        if (c.bad || (size_t)(c.end - c.p) / MH_TF_ACCESS_BYTES < n)
            return fail(r, MH_ERR_FORMAT, err, "malformed access record");
        r->accesses += n;
#if MH_TF_ACCESS_IS_WIRE
        /* The chunk buffer is 8-byte aligned per record, so the wire bytes are the array. */
        if (((uintptr_t)c.p & 7u) == 0) {
            rec->u.accesses.v = (const mh_access *)(const void *)c.p;
            rec->u.accesses.n = n;
            r->acc_in_chunk = 1;
            break;
        }
#endif
        mh_access *acc = mh_grow(r->acc, &r->acc_cap, (size_t)n + 1, sizeof *acc, 64);
        if (!acc) return fail(r, MH_ERR_NOMEM, err, "out of memory");
        r->acc = acc;
        for (uint32_t i = 0; i < n; i++) mh_tf_access_get(c.p + (size_t)i * MH_TF_ACCESS_BYTES, &r->acc[i]);
        rec->u.accesses.v = r->acc;
        r->acc_in_chunk = 0;
        rec->u.accesses.n = n;
        break;
    }
    case MH_REC_KERNEL_END: {
        mh_kernel_end *e = &rec->u.kernel_end;
        e->launch = c32(&c);
        cskip(&c, 4);
        e->recorded = c64(&c);
        e->dropped = c64(&c);
        e->gpu_ns = c64(&c);
        break;
    }
    case MH_REC_DROPPED:
        rec->u.dropped.launch = c32(&c);
        cskip(&c, 4);
        rec->u.dropped.count = c64(&c);
        rec->u.dropped.reason = cstr(&c, &s);
        break;
    case MH_REC_PCINFO:
        rec->u.pcinfo.pc = c64(&c);
        rec->u.pcinfo.line = c32(&c);
        rec->u.pcinfo.function = cstr(&c, &s);
        rec->u.pcinfo.file = cstr(&c, &s);
        break;
    case MH_REC_LAUNCH_STATS: {
        mh_launch_stats *ls = &rec->u.launch_stats;
        uint32_t f[8];
        for (int i = 0; i < 8; i++) f[i] = c32(&c);
        ls->grid = (mh_dim3){f[0], f[1], f[2]};
        ls->block = (mh_dim3){f[3], f[4], f[5]};
        ls->dyn_smem = f[6];
        ls->launches = c64(&c);
        ls->traced = c64(&c);
        ls->name = cstr(&c, &s);
        if (!c.bad && ls->traced > ls->launches)
            return fail(r, MH_ERR_FORMAT, err, "launch statistics trace more launches than ran");
        break;
    }
    case MH_REC_PROCESS: {
        mh_process *pr = &rec->u.process;
        pr->pid = c64(&c);
        pr->ppid = c64(&c);
        int32_t *rk[6] = {&pr->rank, &pr->local_rank, &pr->world_size, &pr->ompi_rank, &pr->pmi_rank,
                          &pr->slurm_procid};
        for (int i = 0; i < 6; i++) *rk[i] = (int32_t)c32(&c);
        pr->n_devices = c32(&c);
        cskip(&c, 4);
        pr->host = cstr(&c, &s);
        pr->command = cstr(&c, &s);
        if (c.bad || (size_t)(c.end - c.p) / 4 < pr->n_devices)
            return fail(r, MH_ERR_FORMAT, err, "malformed process record");
        const char **devs = mh_grow(r->devs, &r->devs_cap, (size_t)pr->n_devices + 1, sizeof *devs, 8);
        if (!devs) return fail(r, MH_ERR_NOMEM, err, "out of memory");
        r->devs = devs;
        for (uint32_t i = 0; i < pr->n_devices; i++) r->devs[i] = cstr(&c, &s);
        pr->devices = r->devs;
        break;
    }
    case MH_REC_KARG: {
        mh_karg *k = &rec->u.karg;
        k->launch = c32(&c);
        k->index = c32(&c);
        k->offset = c32(&c);
        k->size = c32(&c);
        k->value = c64(&c);
        k->space = c8(&c);
        cskip(&c, 3);
        k->type = cstr(&c, &s);
        k->name = cstr(&c, &s);
        if (!c.bad && k->space >= MH_SPACE_COUNT) return fail(r, MH_ERR_FORMAT, err, "kernel argument in an unknown address space");
        if (!c.bad && k->index > MH_TF_MAX_KARG_INDEX) return fail(r, MH_ERR_FORMAT, err, "kernel argument index out of range");
        break;
    }
    case MH_REC_SITE_OBJECT: {
        mh_site_object *o = &rec->u.site_object;
        o->id = c32(&c);
        cskip(&c, 4);
        o->start = c64(&c);
        o->end = c64(&c);
        o->bias = c64(&c);
        o->path = cstr(&c, &s);
        o->build_id = cstr(&c, &s);
        if (!c.bad && o->end < o->start) return fail(r, MH_ERR_FORMAT, err, "site object ends before it starts");
        break;
    }
    case MH_REC_SITE: {
        int rc = parse_site(r, &c, &s, &rec->u.site, err);
        if (rc != MH_OK) return rc;
        break;
    }
    case MH_REC_LAUNCH_SITE:
        rec->u.launch_site.launch = c32(&c);
        rec->u.launch_site.site = c32(&c);
        break;
    case MH_REC_SITE_STATS: {
        mh_site_stats *st = &rec->u.site_stats;
        uint32_t f[8];
        for (int i = 0; i < 8; i++) f[i] = c32(&c);
        st->site = f[0];
        st->grid = (mh_dim3){f[1], f[2], f[3]};
        st->block = (mh_dim3){f[4], f[5], f[6]};
        st->dyn_smem = f[7];
        st->launches = c64(&c);
        st->name = cstr(&c, &s);
        break;
    }
    default:
        return fail(r, MH_ERR_FORMAT, err, "unknown record type");
    }
    if (c.bad) return fail(r, MH_ERR_FORMAT, err, "malformed record");
    return MH_OK;
}

/* The END record: what it states the file holds before it (its chunks, in
 * order, by their payload CRCs; its records; its access entries) against
 * what was read. An empty END is an older writer's: nothing to check. */
static int end_check(mh_trace_reader *r, const unsigned char *p, uint32_t plen, mh_err *err) {
    if (plen && plen < MH_TF_END_BYTES) return fail(r, MH_ERR_FORMAT, err, "malformed end record");
    int first = !r->ended;
    r->ended = r->complete = 1;
    if (!first || r->damage[0] || !plen) return MH_OK; /* a second END: said above, as records after the first */
    uint64_t chunks = mh_get32(p), records = mh_get64(p + 8), accesses = mh_get64(p + 16);
    uint64_t chunks_read = r->chunks - 1; /* before the END's own */
    if (chunks != chunks_read || records != r->records || accesses != r->accesses)
        snprintf(r->damage, sizeof r->damage,
                 "its end record counts %llu chunks, %llu records and %llu accesses before it, %llu, %llu and %llu "
                 "were read (chunks or records lost or repeated)",
                 (unsigned long long)chunks, (unsigned long long)records, (unsigned long long)accesses,
                 (unsigned long long)chunks_read, (unsigned long long)r->records, (unsigned long long)r->accesses);
    else if (mh_get32(p + 4) != r->chain)
        snprintf(r->damage, sizeof r->damage,
                 "its chunks are not those its end record was written after (chunks reordered or replaced)");
    return MH_OK;
}

int mh_trace_next(mh_trace_reader *r, mh_record *rec, mh_err *err) {
    memset(rec, 0, sizeof *rec);
    rec->type = MH_REC_EOF;
    if (r->failed) return mh_err_set(err, MH_ERR_INTERNAL, "%s: reading past an earlier error", r->path);
    for (;;) {
        if (r->done) return MH_OK;
        if (r->rpos >= r->rlen) {
            int rc = load_chunk(r, err);
            if (rc != MH_OK) return rc;
            continue;
        }
        if (r->rlen - r->rpos < MH_TF_REC_HDR_BYTES) return fail(r, MH_ERR_FORMAT, err, "record header past chunk end");
        const unsigned char *p = r->raw + r->rpos;
        uint32_t plen = mh_get32(p + 4);
        size_t padded = ((size_t)plen + 7u) & ~(size_t)7u;
        if (padded > r->rlen - r->rpos - MH_TF_REC_HDR_BYTES) return fail(r, MH_ERR_FORMAT, err, "record past chunk end");
        if (p[1] | p[2] | p[3]) return fail(r, MH_ERR_FORMAT, err, "record header with non-zero reserved bytes");
        r->rpos += MH_TF_REC_HDR_BYTES + padded;
        int type = p[0];
        if (r->ended && !r->damage[0]) /* read too, and said: a writer writes nothing after END */
            snprintf(r->damage, sizeof r->damage, "records follow its end record (a chunk moved or repeated)");
        if (type == MH_REC_END) {
            int rc = end_check(r, p + MH_TF_REC_HDR_BYTES, plen, err);
            if (rc != MH_OK) return rc;
            continue;
        }
        r->records++;
        if (type == MH_REC_HEADER) return fail(r, MH_ERR_FORMAT, err, "second header record");
        return parse_record(r, type, p + MH_TF_REC_HDR_BYTES, plen, rec, err);
    }
}

void mh_trace_close_reader(mh_trace_reader *r) {
    if (!r) return;
    leave_chunk(r); /* a held chunk outlives the reader */
    mh_tf_pool_unref(r->pool);
    mh_tf_ahead_stop(r->ahead); /* joins the helper before its loader goes */
    if (r->ld.f) fclose(r->ld.f);
    mh_tf_inflater_free(&r->ld.inf);
    free(r->ld.comp);
    free(r->own.raw);
    free(r->acc);
    free(r->strs);
    free(r->sampled);
    free(r->devs);
    free(r->site_pc);
    free(r->site_obj);
    free(r->site_py);
    free(r->site_nvtx);
    free(r->hdr_strs);
    free(r);
}
