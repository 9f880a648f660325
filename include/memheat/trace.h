/* trace.h -- memheat trace format v4: the record model, a streaming writer and
 * a streaming reader.
 *
 * A trace is one file per profiled process. Collectors (CUDA Sanitizer, Oclgrind)
 * write it; every analysis reads it. The file is a 16-byte prefix followed by
 * zstd-compressed chunks, each with a CRC-32C, so a run cut short by a crash is
 * readable up to its last whole chunk and a damaged file is refused with an
 * error instead of a crash. The byte layout is in docs/trace-format.md.
 *
 * Writer and reader are not thread-safe: a collector with several threads
 * serializes its calls. Strings handed out by the reader live until the next
 * mh_trace_next() call. The reader may decompress chunks ahead on a helper
 * thread of its own (mh_trace_reader_opts); callers see the same records and
 * errors either way, and mh_trace_close_reader joins that thread. */
#ifndef MEMHEAT_TRACE_H
#define MEMHEAT_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "memheat/err.h"
#include "memheat/trace_fields.h"

#define MH_TRACE_VERSION 5u /* 2: MH_REC_PROCESS; 3: MH_REC_KARG; 4: coded chunks; 5: call sites; versions 1 to 4 are read too */
#define MH_TRACE_ALL_BLOCKS UINT32_MAX /* mh_launch.n_sampled: every block traced */
#define MH_TRACE_NO_LAUNCH UINT32_MAX  /* mh_alloc.launch: object outlives launches */

/* Address spaces. OpenCL maps local -> SHARED and private -> LOCAL. */
enum mh_space {
    MH_SPACE_GLOBAL = 0,
    MH_SPACE_SHARED = 1,   /* address = byte offset into the block's shared window */
    MH_SPACE_LOCAL = 2,    /* thread-private; address = offset in the thread's frame */
    MH_SPACE_CONSTANT = 3,
    MH_SPACE_COUNT = 4
};

enum mh_kind { MH_KIND_LOAD = 0, MH_KIND_STORE = 1, MH_KIND_ATOMIC = 2 };

/* mh_device.flags */
#define MH_DEV_SIMULATED 1u  /* a simulator (Oclgrind): warps are memheat's grouping */

typedef struct mh_dim3 {
    uint32_t x, y, z;
} mh_dim3;

typedef struct mh_device {
    const char *name; /* "NVIDIA H100 80GB HBM3", "Oclgrind" */
    MH_TRACE_DEVICE_FIELDS(MH_TDF_MEMBER, MH_TDF_NONE) /* flags, warp_size, ... (trace_fields.h) */
} mh_device;

typedef struct mh_trace_header {
    uint32_t version;     /* filled by the reader; the writer writes MH_TRACE_VERSION */
    const char *producer; /* "memheat-cuda 0.1.0", "memheat-oclgrind 0.1.0" */
    const char *command;  /* profiled command line, "" if unknown */
    const char *note;     /* free text shown to users, e.g. that warps are synthetic */
    uint64_t start_unix_ns;
    mh_device device;
} mh_trace_header;

typedef struct mh_launch {
    uint32_t id;              /* unique within the trace, in launch order */
    const char *name;         /* mangled (as the runtime reports it) */
    const char *display_name; /* demangled, or same as name */
    mh_dim3 grid, block;
    uint32_t dyn_smem;        /* bytes of dynamic shared memory */
    uint32_t static_smem;     /* bytes, 0 = unknown */
    uint32_t regs;            /* registers per thread, 0 = unknown */
    uint64_t stream;          /* opaque stream handle, 0 = default */
    uint32_t n_sampled;       /* blocks traced, or MH_TRACE_ALL_BLOCKS */
    const uint32_t *sampled;  /* n_sampled linear block ids (x + y*gx + z*gx*gy) */
} mh_launch;

typedef struct mh_alloc {
    uint32_t id;
    uint32_t launch;    /* MH_TRACE_NO_LAUNCH, or the launch a shared array belongs to */
    uint64_t base;
    uint64_t size;
    uint8_t space;      /* enum mh_space */
    const char *label;  /* host-side name where known, else "" */
} mh_alloc;

typedef struct mh_free {
    uint64_t base;
    uint8_t space;
} mh_free;

/* One memory access of one thread: 32 bytes in memory and on disk. */
typedef struct mh_access {
    uint64_t addr;   /* see enum mh_space for what an address is */
    uint64_t pc;     /* device pc or instruction offset; 0 = unknown */
    uint32_t launch; /* mh_launch.id */
    uint32_t block;  /* linear block id */
    uint32_t seq;    /* per-thread sequence number: AIWC's logical time step */
    uint16_t thread; /* linear thread id in the block: warp = thread / warp_size */
    uint8_t size;    /* bytes accessed */
    uint8_t flags;   /* bits 0-1 enum mh_kind, bits 2-4 enum mh_space */
} mh_access;

#define MH_ACCESS_FLAGS(kind, space) ((uint8_t)(((unsigned)(kind) & 3u) | (((unsigned)(space) & 7u) << 2)))
#define MH_ACCESS_KIND(a) ((unsigned)((a)->flags & 3u))
#define MH_ACCESS_SPACE(a) ((unsigned)(((a)->flags >> 2) & 7u))

typedef struct mh_kernel_end {
    uint32_t launch;
    uint64_t recorded; /* accesses written for this launch */
    uint64_t dropped;  /* accesses the collector lost for this launch */
    uint64_t gpu_ns;   /* kernel duration if known, else 0 */
} mh_kernel_end;

typedef struct mh_dropped {
    uint32_t launch;   /* MH_TRACE_NO_LAUNCH if not tied to one */
    uint64_t count;
    const char *reason;
} mh_dropped;

/* Source attribution of a pc, where the collector has line information. */
typedef struct mh_pcinfo {
    uint64_t pc;
    const char *function;
    const char *file;
    uint32_t line;
} mh_pcinfo;

/* How often one launch configuration ran and how many of its launches were
 * traced (the launch policy samples the rest out; those are not "dropped").
 * Written once per configuration when the collector closes the trace. */
typedef struct mh_launch_stats {
    const char *name;  /* mangled */
    mh_dim3 grid, block;
    uint32_t dyn_smem;
    uint64_t launches; /* every launch of this configuration */
    uint64_t traced;   /* of which traced */
} mh_launch_stats;

/* The process that wrote the trace (one per trace, after the header): who it
 * is in a job of several processes. Ranks are -1 where the variable is unset. */
typedef struct mh_process {
    uint64_t pid, ppid;
    int32_t rank;         /* RANK (torchrun, DeepSpeed) */
    int32_t local_rank;   /* LOCAL_RANK */
    int32_t world_size;   /* WORLD_SIZE */
    int32_t ompi_rank;    /* OMPI_COMM_WORLD_RANK (Open MPI) */
    int32_t pmi_rank;     /* PMI_RANK (MPICH, Intel MPI) */
    int32_t slurm_procid; /* SLURM_PROCID (srun) */
    const char *host;     /* gethostname() */
    const char *command;  /* /proc/self/cmdline, arguments joined by spaces */
    uint32_t n_devices;
    const char *const *devices; /* device UUIDs ("GPU-..."); none for a simulator */
} mh_process;

/* One parameter of a traced launch (version 3): where a kernel argument
 * points, so that analyses can name what a kernel touches by the argument it
 * came through. CUDA writes every 8-byte parameter (the analysis keeps those
 * that point into a known allocation); OpenCL writes its pointer arguments. */
typedef struct mh_karg {
    uint32_t launch;   /* mh_launch.id; follows that launch's LAUNCH record */
    uint32_t index;    /* parameter position, 0 = first */
    uint32_t offset;   /* byte offset in the parameter buffer (0 = unknown) */
    uint32_t size;     /* bytes of the parameter */
    uint64_t value;    /* the pointer value (the parameter's first 8 bytes) */
    uint8_t space;     /* enum mh_space the value points into */
    const char *type;  /* parameter type where the collector knows it, else "" */
    const char *name;  /* parameter name where the collector knows it, else "" */
} mh_karg;

/* ---- call sites (version 5): where in the host program each launch was
 * made (docs/trace-format.md, "Call sites"). A collector writes each
 * distinct site once (SITE), after the loaded objects its native frames lie
 * in (SITE_OBJECT); a traced launch names its site (LAUNCH_SITE); at close,
 * every launch is counted per (site, configuration) (SITE_STATS). ---- */
#define MH_SITE_NONE UINT32_MAX /* no site / no user frame / no object */
#define MH_SITE_MAX_FRAMES 128  /* native and Python frames of one site, each */
#define MH_SITE_MAX_NVTX 64     /* NVTX ranges of one site */

/* A loaded object of the process (executable or shared library). */
typedef struct mh_site_object {
    uint32_t id;
    uint64_t start, end;  /* lowest and highest address of its loaded segments, [start, end) */
    uint64_t bias;        /* load bias: a run-time address minus the file's virtual address */
    const char *path;     /* as the dynamic linker names it; the executable's absolute path */
    const char *build_id; /* NT_GNU_BUILD_ID as lowercase hex, "" = none */
} mh_site_object;

typedef struct mh_site_pyframe {
    uint32_t line;        /* 0 = unknown */
    const char *file;     /* co_filename */
    const char *function; /* co_qualname (3.11+), else co_name */
} mh_site_pyframe;

/* mh_site.flags */
#define MH_SITE_PY_FORWARD 1u /* the Python frames are the forward call's that created this
                               * backward launch (tied by the NVTX sequence number) */
#define MH_SITE_NATIVE_CUT 2u /* the native stack was deeper than its frames */
#define MH_SITE_PY_CUT 4u     /* the Python stack was deeper than its frames */

typedef struct mh_site {
    uint32_t id;
    uint32_t flags;          /* MH_SITE_* */
    uint32_t user;           /* the user's frame as the collector judged it (object paths and
                              * Python files only): < n_native a native frame, else
                              * n_native + i the Python frame i; MH_SITE_NONE = none */
    uint32_t n_native, n_python, n_nvtx;
    const uint64_t *pc;      /* n_native return addresses, innermost first */
    const uint32_t *object;  /* n_native mh_site_object ids (MH_SITE_NONE = in none) */
    const mh_site_pyframe *py; /* n_python frames, innermost first */
    const char *const *nvtx; /* n_nvtx NVTX ranges open at the launch, outermost first */
} mh_site;

/* A traced launch's site: after its LAUNCH record. */
typedef struct mh_launch_site {
    uint32_t launch, site;
} mh_launch_site;

/* How many launches of one configuration came from one site (traced or
 * not): written when the collector closes the trace. */
typedef struct mh_site_stats {
    uint32_t site;
    const char *name; /* mangled */
    mh_dim3 grid, block;
    uint32_t dyn_smem;
    uint64_t launches;
} mh_site_stats;

enum mh_rec_type {
    MH_REC_EOF = 0,      /* reader: no more records */
    MH_REC_HEADER = 1,   /* internal: first record of the file */
    MH_REC_LAUNCH = 2,
    MH_REC_ALLOC = 3,
    MH_REC_FREE = 4,
    MH_REC_ACCESSES = 5,
    MH_REC_KERNEL_END = 6,
    MH_REC_DROPPED = 7,
    MH_REC_PCINFO = 8,
    MH_REC_END = 9,      /* clean end of trace, written by mh_trace_close */
    MH_REC_LAUNCH_STATS = 10,
    MH_REC_PROCESS = 11, /* mh_process, right after the header */
    MH_REC_KARG = 12,    /* mh_karg (version 3) */
    MH_REC_SITE_OBJECT = 13, /* mh_site_object (version 5) */
    MH_REC_SITE = 14,        /* mh_site (version 5) */
    MH_REC_LAUNCH_SITE = 15, /* mh_launch_site (version 5) */
    MH_REC_SITE_STATS = 16   /* mh_site_stats (version 5) */
};

typedef struct mh_record {
    int type; /* enum mh_rec_type */
    union {
        mh_launch launch;
        mh_alloc alloc;
        mh_free free;
        struct {
            const mh_access *v;
            size_t n;
            int one_launch; /* 1: every access is of v[0].launch (0: not known) */
        } accesses;
        mh_kernel_end kernel_end;
        mh_dropped dropped;
        mh_pcinfo pcinfo;
        mh_launch_stats launch_stats;
        mh_process process;
        mh_karg karg;
        mh_site_object site_object;
        mh_site site;
        mh_launch_site launch_site;
        mh_site_stats site_stats;
    } u;
} mh_record;

/* ---- writer ---- */
typedef struct mh_trace_writer mh_trace_writer;

typedef struct mh_trace_writer_opts {
    int zstd_level;     /* 0 = default (1: collectors favour speed) */
    size_t chunk_bytes; /* uncompressed bytes per chunk, 0 = default (1 MiB) */
    int background;     /* 1: a thread of the writer's codes, compresses and writes the chunks
                         * (mh_trace_flush hands a chunk over; see mh_trace_sync) */
} mh_trace_writer_opts;

int mh_trace_create(mh_trace_writer **w, const char *path, const mh_trace_header *h,
                    const mh_trace_writer_opts *opts, mh_err *err);
int mh_trace_write_launch(mh_trace_writer *w, const mh_launch *l, mh_err *err);
int mh_trace_write_alloc(mh_trace_writer *w, const mh_alloc *a, mh_err *err);
int mh_trace_write_free(mh_trace_writer *w, const mh_free *f, mh_err *err);
int mh_trace_write_accesses(mh_trace_writer *w, const mh_access *v, size_t n, mh_err *err);
int mh_trace_write_kernel_end(mh_trace_writer *w, const mh_kernel_end *e, mh_err *err);
int mh_trace_write_dropped(mh_trace_writer *w, const mh_dropped *d, mh_err *err);
int mh_trace_write_pcinfo(mh_trace_writer *w, const mh_pcinfo *p, mh_err *err);
int mh_trace_write_launch_stats(mh_trace_writer *w, const mh_launch_stats *s, mh_err *err);
int mh_trace_write_process(mh_trace_writer *w, const mh_process *p, mh_err *err);
int mh_trace_write_karg(mh_trace_writer *w, const mh_karg *k, mh_err *err);
int mh_trace_write_site_object(mh_trace_writer *w, const mh_site_object *o, mh_err *err);
/* Frames and ranges past MH_SITE_MAX_FRAMES / MH_SITE_MAX_NVTX are cut (the flags say so). */
int mh_trace_write_site(mh_trace_writer *w, const mh_site *s, mh_err *err);
int mh_trace_write_launch_site(mh_trace_writer *w, const mh_launch_site *ls, mh_err *err);
int mh_trace_write_site_stats(mh_trace_writer *w, const mh_site_stats *st, mh_err *err);
/* Ends the current chunk and writes it out, so a later crash loses nothing
 * before; in background mode hands it to the writer's thread (which writes it
 * while the process lives) and returns the thread's error, if any. */
int mh_trace_flush(mh_trace_writer *w, mh_err *err);
/* Waits until every chunk handed over is written (background mode; at once
 * otherwise); returns the background thread's error, if any. */
int mh_trace_sync(mh_trace_writer *w, mh_err *err);
/* Chunks handed over and not yet written (0 without background); safe to
 * poll from a signal handler (an atomic load). */
int mh_trace_pending(mh_trace_writer *w);
/* Writes the END record, flushes and closes; frees w in every case. */
int mh_trace_close(mh_trace_writer *w, mh_err *err);
/* Frees w without the END record (a collector that is giving up). */
void mh_trace_abandon(mh_trace_writer *w);
uint64_t mh_trace_written_accesses(const mh_trace_writer *w);

/* ---- reader ---- */
typedef struct mh_trace_reader mh_trace_reader;

#define MH_TRACE_DEFAULT_READAHEAD 2 /* chunks decompressed ahead where that is on */
#define MH_TRACE_MAX_READAHEAD 64
#define MH_TRACE_MAX_READAHEAD_THREADS 8

typedef struct mh_trace_reader_opts {
    /* Chunks read and decompressed ahead on a helper thread while the caller
     * walks the current one: 0 = none (everything on the caller's thread),
     * up to MH_TRACE_MAX_READAHEAD; -1 = the environment's MEMHEAT_READAHEAD
     * if set, else MH_TRACE_DEFAULT_READAHEAD on a machine with more than one
     * CPU online and 0 on one with one (8 x the threads below on 8 CPUs or
     * more). Records, errors and the point where an error shows are the same
     * for every value. */
    int readahead;
    /* Helper threads decompressing side by side (1..readahead): 0 = the
     * environment's MEMHEAT_READAHEAD_THREADS if set, else one per 4 CPUs
     * online on 8 or more (at most MH_TRACE_MAX_READAHEAD_THREADS), else 1. */
    int readahead_threads;
} mh_trace_reader_opts;

/* Opens path, checks magic and version, and reads the header record. */
int mh_trace_open(mh_trace_reader **r, const char *path, mh_err *err); /* opts readahead = -1 */
int mh_trace_open_opts(mh_trace_reader **r, const char *path, const mh_trace_reader_opts *opts, mh_err *err);
const mh_trace_header *mh_trace_header_get(const mh_trace_reader *r);
/* Next record. Returns MH_OK with rec->type == MH_REC_EOF at the end of a
 * clean or cut-short file. A file that ends inside a chunk returns
 * MH_ERR_TRUNCATED once every whole chunk before the cut has been delivered. */
int mh_trace_next(mh_trace_reader *r, mh_record *rec, mh_err *err);
/* 1 once the END record was read (the writer closed the file cleanly) and
 * what it states about the file (its chunks in order, its records and
 * accesses) is what was read, with nothing after it. */
int mh_trace_complete(const mh_trace_reader *r);
/* What the trace states about itself that does not add up, as one phrase
 * ("its end record counts 15 chunks, ..."), or "" when nothing (or no END
 * record yet): chunks or records lost, repeated or reordered with valid
 * checksums. Every record is still delivered. */
const char *mh_trace_inconsistency(const mh_trace_reader *r);
uint64_t mh_trace_chunks_read(const mh_trace_reader *r);
/* Keeping a chunk past the reader, to read its accesses in place. The
 * access array of the last ACCESSES record points into its chunk when
 * mh_trace_accesses_in_chunk says so (else into the reader's own copy, valid
 * until the next call). mh_trace_hold_chunk gives that chunk's hold,
 * borrowed: valid until the next mh_trace_next; NULL without memory for it.
 * A consumer that keeps the array takes a reference (mh_trace_hold_ref, on
 * the reader's thread while the hold is borrowed) and releases it when done,
 * on any thread, also after the reader is closed. */
typedef struct mh_trace_hold mh_trace_hold;
int mh_trace_accesses_in_chunk(const mh_trace_reader *r);
mh_trace_hold *mh_trace_hold_chunk(mh_trace_reader *r);
void mh_trace_hold_ref(mh_trace_hold *h);
void mh_trace_hold_release(mh_trace_hold *h); /* NULL is fine */
/* The chunks a batch of access arrays points into, one reference each
 * (zero-initialise). _add takes a reference on h unless it is the last one
 * added (arrays come in file order); MH_ERR_NOMEM without memory. _clear
 * releases them all and keeps the list for reuse; _free also frees it. */
typedef struct mh_trace_holds {
    mh_trace_hold **v;
    size_t n, cap;
} mh_trace_holds;
int mh_trace_holds_add(mh_trace_holds *l, mh_trace_hold *h);
void mh_trace_holds_clear(mh_trace_holds *l);
void mh_trace_holds_free(mh_trace_holds *l);
/* With read-ahead: seconds the caller waited for decompressed chunks, and
 * CPU seconds the helper threads spent fetching and decompressing them; both
 * 0 when chunks are read inline (their time is the caller's). */
void mh_trace_times(const mh_trace_reader *r, double *wait_s, double *helpers_cpu_s);
void mh_trace_close_reader(mh_trace_reader *r);

/* Names for enum values, for output. */
const char *mh_space_name(unsigned space);
const char *mh_kind_name(unsigned kind);

#endif
