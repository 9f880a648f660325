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
#include <stdint.h>

#include "memheat/err.h"
#include "memheat/trace.h"

#define MH_COLLECT_MAX_BLOCKS 4096

typedef struct mh_collect_cfg {
    char trace_path[1024];  /* MEMHEAT_TRACE: where the collector writes */
    mh_dim3 block;          /* MEMHEAT_BLOCK "x" or "x,y,z": first sampled block (default 0) */
    int block_3d;           /* block was given as x,y,z (else block.x is a linear id) */
    uint32_t nblocks;       /* MEMHEAT_BLOCKS: consecutive linear blocks from `block` (default 1) */
    int all_blocks;         /* MEMHEAT_ALL_BLOCKS=1: trace every block */
    char kernel_regex[512]; /* MEMHEAT_KERNEL: POSIX extended regex on mangled or demangled name; "" = all */
    uint64_t launch_skip;   /* MEMHEAT_LAUNCH_SKIP: matching launches to skip first */
    uint64_t launch_count;  /* MEMHEAT_LAUNCH_COUNT: matching launches to trace, 0 = unlimited */
    uint32_t warp_size;     /* MEMHEAT_WARP_SIZE: synthetic warp size for simulators (default 32) */
    uint64_t buffer_bytes;  /* MEMHEAT_BUFFER_BYTES: collector's device/host buffer, 0 = default */
    int have_regex;
    regex_t regex;          /* compiled kernel_regex (valid when have_regex) */
} mh_collect_cfg;

/* Launch-selection state: counts matching launches across the run. */
typedef struct mh_collect_state {
    uint64_t matched; /* launches whose name matched so far */
    uint64_t traced;  /* launches selected for tracing so far */
} mh_collect_state;

void mh_collect_cfg_init(mh_collect_cfg *cfg);
/* Parses "x" (linear id; *is3d = 0) or "x,y,z" (*is3d = 1). */
int mh_collect_parse_block(const char *s, mh_dim3 *out, int *is3d, mh_err *err);
/* Compiles kernel_regex; call after filling the fields. */
int mh_collect_cfg_finish(mh_collect_cfg *cfg, mh_err *err);
void mh_collect_cfg_free(mh_collect_cfg *cfg);
/* Exports cfg as MEMHEAT_* variables into the current environment (for a child). */
int mh_collect_cfg_to_env(const mh_collect_cfg *cfg, mh_err *err);
/* Reads MEMHEAT_* variables (unset ones keep their defaults) and finishes cfg. */
int mh_collect_cfg_from_env(mh_collect_cfg *cfg, mh_err *err);

/* Decides whether this launch is traced; updates st. display may be NULL. */
int mh_collect_want_launch(const mh_collect_cfg *cfg, mh_collect_state *st, const char *name,
                           const char *display);
/* Linear id of the first sampled block for a grid (clamped to the grid). */
uint32_t mh_collect_first_block(const mh_collect_cfg *cfg, mh_dim3 grid);
/* 1 if linear block id b of this grid is sampled. */
int mh_collect_block_sampled(const mh_collect_cfg *cfg, mh_dim3 grid, uint32_t b);
/* Fills ids[] (capacity cap) with the sampled linear block ids of a grid;
 * returns the count, or MH_TRACE_ALL_BLOCKS when every block is traced. */
uint32_t mh_collect_sampled_list(const mh_collect_cfg *cfg, mh_dim3 grid, uint32_t *ids, uint32_t cap);

#endif
