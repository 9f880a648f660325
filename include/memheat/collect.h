/* collect.h -- what to trace: the sampling configuration every collector shares.
 *
 * `memheat run` fills an mh_collect_cfg from its options and hands it to the
 * profiled process through environment variables (MEMHEAT_*); the collector
 * inside that process (CUDA injection library, Oclgrind plugin) reads it back
 * with mh_collect_cfg_from_env() and asks mh_collect_want_launch() and
 * mh_collect_block_sampled() for every launch and block. One implementation,
 * so both back ends sample identically. */
#ifndef MEMHEAT_COLLECT_H
#define MEMHEAT_COLLECT_H

#include <regex.h>
#include <stddef.h>
#include <stdint.h>

#include "memheat/err.h"
#include "memheat/trace.h"

#define MH_COLLECT_MAX_BLOCKS 4096

/* Which matching launches (after --kernel and --launch-skip) are traced.
 * CONFIG traces the first launch of each distinct configuration (function,
 * grid, block, dynamic shared memory): a training step repeats the same few
 * dozen configurations thousands of times, and a heat map of a repeat adds
 * nothing. Every launch is still counted (mh_collect_state.configs). */
enum mh_launch_policy {
    MH_LAUNCH_CONFIG = 0, /* "config" (default) */
    MH_LAUNCH_ALL = 1,    /* "all" */
    MH_LAUNCH_EVERY = 2,  /* "every:N" */
    MH_LAUNCH_SHAPE = 3   /* "shape": CONFIG, where a new grid of a traced (function, block, dynamic shared memory) is counted, not traced */
};

/* Under CONFIG, at most this many configurations of one kernel function are
 * traced by default ("config" = "config:4"; "config:0": no limit). A program
 * that tunes its split or tile size at run time launches one kernel with a
 * new grid in every round; block 0 of each shows the same access pattern, and
 * every traced launch costs a patched module and a wait for its records in
 * the middle of the program's timeline. */
#define MH_COLLECT_CONFIGS_PER_KERNEL 4

/* One launch configuration and how often it ran: what the trace's
 * MH_REC_LAUNCH_STATS records carry. */
typedef struct mh_collect_config {
    uint64_t hash;
    char *name;         /* mangled name (owned) */
    mh_dim3 grid, block;
    uint32_t dyn_smem;
    uint64_t launches;  /* launches of this configuration seen */
    uint64_t traced;    /* of which traced */
    int over_cap;       /* not traced by rule: first seen after its kernel had its quota of traced
                         * configurations, or (shape) another grid of a traced shape */
} mh_collect_config;

typedef struct mh_collect_cfg {
    char trace_path[1024];  /* MEMHEAT_TRACE: where the collector writes */
    mh_dim3 block;          /* MEMHEAT_BLOCK "x" or "x,y,z": first sampled block (default 0) */
    int block_3d;           /* block was given as x,y,z (else block.x is a linear id) */
    uint32_t nblocks;       /* MEMHEAT_BLOCKS: consecutive linear blocks from `block` (default 1) */
    int all_blocks;         /* MEMHEAT_ALL_BLOCKS=1: trace every block */
    char kernel_regex[512]; /* MEMHEAT_KERNEL: POSIX extended regex on mangled or demangled name; "" = all */
    uint64_t launch_skip;   /* MEMHEAT_LAUNCH_SKIP: matching launches to skip first */
    uint64_t launch_count;  /* MEMHEAT_LAUNCH_COUNT: matching launches to trace, 0 = unlimited */
    int launch_policy;      /* MEMHEAT_LAUNCH_POLICY: enum mh_launch_policy (default: first per configuration) */
    uint64_t launch_every;  /* MH_LAUNCH_EVERY: trace every N-th matching launch (N >= 1) */
    uint64_t configs_per_kernel; /* MH_LAUNCH_CONFIG: traced configurations per kernel, 0 = no limit */
    uint32_t warp_size;     /* MEMHEAT_WARP_SIZE: synthetic warp size for simulators (default 32) */
    uint64_t buffer_bytes;  /* MEMHEAT_BUFFER_BYTES: collector's device/host buffer, 0 = default */
    int trace_collectives;  /* MEMHEAT_TRACE_COLLECTIVES=1: trace NCCL kernels too (default: counted, not traced) */
    int have_regex;
    regex_t regex;          /* compiled kernel_regex (valid when have_regex) */
} mh_collect_cfg;

/* Launch-selection state: counts matching launches across the run and every
 * launch per configuration (open-addressing table; zero-initialise, free with
 * mh_collect_state_free). */
typedef struct mh_collect_state {
    uint64_t matched; /* launches whose name matched so far */
    uint64_t traced;  /* launches selected for tracing so far */
    uint64_t launches; /* every launch seen */
    mh_collect_config *configs; /* table of cap slots, n used (name == NULL: empty) */
    size_t nconfigs, capconfigs;
    int oom;          /* a configuration could not be recorded (counts then incomplete) */
} mh_collect_state;

/* What one launch is, for selection. */
typedef struct mh_collect_launch {
    const char *name;    /* mangled */
    const char *display; /* demangled, or NULL */
    mh_dim3 grid, block;
    uint32_t dyn_smem;
} mh_collect_launch;

void mh_collect_cfg_init(mh_collect_cfg *cfg);
/* Parses "x" (linear id; *is3d = 0) or "x,y,z" (*is3d = 1). */
int mh_collect_parse_block(const char *s, mh_dim3 *out, int *is3d, mh_err *err);
/* 1 when a kernel name is a collective-communication kernel (NCCL's
 * ncclKernel_* / ncclDevKernel_*). Such a kernel waits for its peers in other
 * processes: tracing it (the read-back waits for the kernel at its launch)
 * could stall a job whose ranks launch in different orders, so by default it
 * is counted, timed, and not traced. */
int mh_collect_is_collective(const char *name);

/* Compiles kernel_regex; call after filling the fields. */
int mh_collect_cfg_finish(mh_collect_cfg *cfg, mh_err *err);
void mh_collect_cfg_free(mh_collect_cfg *cfg);
/* Exports cfg as MEMHEAT_* variables into the current environment (for a child). */
int mh_collect_cfg_to_env(const mh_collect_cfg *cfg, mh_err *err);
/* Reads MEMHEAT_* variables (unset ones keep their defaults) and finishes cfg. */
int mh_collect_cfg_from_env(mh_collect_cfg *cfg, mh_err *err);

/* Counts this launch under its configuration and decides whether it is
 * traced; updates st. */
int mh_collect_want_launch(const mh_collect_cfg *cfg, mh_collect_state *st, const mh_collect_launch *l);
/* Counts a launch under its configuration without any decision: a launch
 * the collector cannot trace (a CUDA graph's kernel node). */
void mh_collect_count_launch(mh_collect_state *st, const mh_collect_launch *l);
/* Undoes the "traced" count of the last selected launch of l's configuration
 * (the collector could not trace it after all); a later launch of the same
 * configuration may then be selected. */
void mh_collect_unselect(const mh_collect_cfg *cfg, mh_collect_state *st, const mh_collect_launch *l);
/* 1 while a later launch may still be selected (always, under "config" and
 * "every", until --launch-count is reached). */
int mh_collect_more_possible(const mh_collect_cfg *cfg, const mh_collect_state *st);
void mh_collect_state_free(mh_collect_state *st);
/* Parses "config", "config:N" (at most N traced configurations per kernel,
 * 0 = no limit), "all" or "every:N" into cfg. */
int mh_collect_parse_policy(const char *s, mh_collect_cfg *cfg, mh_err *err);
/* The policy as text ("config", "config:N", "all", "every:N"), parsed back
 * by mh_collect_parse_policy; buf of >= 32 bytes. */
const char *mh_collect_policy_text(const mh_collect_cfg *cfg, char *buf, size_t cap);
/* Linear id of the first sampled block for a grid (clamped to the grid). */
uint32_t mh_collect_first_block(const mh_collect_cfg *cfg, mh_dim3 grid);
/* 1 if linear block id b of this grid is sampled. */
int mh_collect_block_sampled(const mh_collect_cfg *cfg, mh_dim3 grid, uint32_t b);
/* Fills ids[] (capacity cap) with the sampled linear block ids of a grid;
 * returns the count, or MH_TRACE_ALL_BLOCKS when every block is traced. */
uint32_t mh_collect_sampled_list(const mh_collect_cfg *cfg, mh_dim3 grid, uint32_t *ids, uint32_t cap);

/* ---- one stream per process ----
 * Every process that loads a collector writes its own files. `memheat run`
 * names one path per output (MEMHEAT_TRACE, MEMHEAT_TIMING_OUT); the first
 * process to claim it gets it, each later one <stem>.<pid><ext>, and every
 * process appends the name it got to the manifest <path>.procs, which the
 * run layer reads to import exactly those files (docs/trace-format.md,
 * "Several processes"). */

/* Claims an output name for this process: path when no other process has
 * created it (O_EXCL), else <stem>.<pid><ext> (<ext>: the last ".xxx" of
 * the file name; then <stem>.<pid>-<n><ext> while taken). The file is
 * created empty; "<pid> <name>\n" (name without the folder) is appended
 * to <path>.procs with one O_APPEND write. got (cap bytes) receives the path
 * to write. Only libc: built into every collector, CUPTI included
 * (src/collectors/claim.c). */
int mh_collect_claim(const char *path, char *got, size_t cap, mh_err *err);

/* ---- the start gate ----
 * `memheat run` starts a program's second run while its first still runs, so
 * that what the second does before CUDA (the interpreter's start, imports,
 * reading data) overlaps the first; its collector waits at CUDA's
 * initialization until memheat opens the gate once the first run has ended,
 * so no GPU work of the two runs overlaps. MEMHEAT_START_GATE=<path>:<pid>:
 * wait while the file <path> exists and memheat (process <pid>) lives. */
#define MH_COLLECT_START_GATE_ENV "MEMHEAT_START_GATE"
/* Waits at the gate the environment names, if any (src/collectors/start_gate.c). */
void mh_collect_start_wait(void);

/* Who this process is (mh_process of trace.h): pid, parent, host, command
 * line, ranks from the environment (-1 where unset). Strings point into buf;
 * devices are left empty for the caller to fill. */
typedef struct mh_collect_procbuf {
    char host[256];
    char command[4096];
} mh_collect_procbuf;
void mh_collect_process_get(mh_process *p, mh_collect_procbuf *buf);

/* What a collector calls instead of mh_trace_create: claims a name for
 * path (mh_collect_claim), creates the trace there and writes this
 * process's MH_REC_PROCESS record with the given device UUIDs (may be none),
 * flushed at once. opts (may be NULL) are the writer's. got (may be NULL)
 * receives the path used. */
int mh_collect_trace_open(mh_trace_writer **w, const char *path, const mh_trace_header *h,
                          const mh_trace_writer_opts *opts, const char *const *devices, uint32_t ndevices, char *got,
                          size_t gotcap, mh_err *err);

#endif
