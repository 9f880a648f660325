/* synth.h -- synthetic traces of known access shapes.
 *
 * A stand-in collector for tests and benchmarks: it writes real trace files
 * whose heat maps are known in advance, one launch per shape, each shape's
 * data object labelled with the shape's name. The shapes are those of the
 * CUTHERMO paper's Fig. 3 and Fig. 6. */
#ifndef MH_COLLECTORS_SYNTH_H
#define MH_COLLECTORS_SYNTH_H

#include <stdint.h>

#include "memheat/err.h"
#include "memheat/trace.h"

enum mh_synth_shape {
    MH_SYNTH_COALESCED = 0,   /* warp w, lane l -> element (k*T + w*32 + l): words 1, sector 1 */
    MH_SYNTH_FALSE_SHARING,   /* element l*W + w: each word one warp, sector min(W, 8) warps */
    MH_SYNTH_STRIDED,         /* element (k*T + t) * stride: one word in `stride` used */
    MH_SYNTH_MISALIGNED,      /* coalesced shifted by `offset` bytes: boundary sectors 2 warps */
    MH_SYNTH_HOT,             /* every warp reads the same 16 words: words W, sector W */
    MH_SYNTH_RANDOM_HOT,      /* a few random words from a small window per thread */
    MH_SYNTH_SHARED_PRIVATE,  /* shared memory: every thread reuses only its own word */
    MH_SYNTH_SHARED_WARP,     /* shared memory: lane 0 writes, its own warp reads (broadcast) */
    MH_SYNTH_SHARED_TILE,     /* shared memory used well: every warp reads every word of a tile */
    /* irregular shapes (issue 15), named as a performance engineer would */
    MH_SYNTH_PERMUTATION,     /* permutation_gather: out[i] = in[perm[i]], perm a random permutation */
    MH_SYNTH_TABLE_LOOKUP,    /* table_lookup: each thread reads one of `stride` hot words scattered over a 64 KiB table */
    MH_SYNTH_CSR_GATHER,      /* csr_gather: x[col[j]] of a banded CSR matrix, columns row-16..row+16 */
    MH_SYNTH_EDGE_WARP,       /* edge_partial_warp: rows of T-24 elements, the last warp of each row 8 lanes */
    MH_SYNTH_SHAPE_COUNT
};

typedef struct mh_synth_opts {
    uint32_t shapes;      /* bit (1 << shape) per shape to emit; one launch each */
    uint32_t warps;       /* warps per block (default 8) */
    uint32_t blocks;      /* sampled blocks per launch (default 1) */
    uint32_t iters;       /* accesses per thread per launch (default 1) */
    uint32_t stride;      /* words, for STRIDED; hot words, for TABLE_LOOKUP (default 8) */
    uint32_t offset;      /* bytes, for MISALIGNED (default 4) */
    uint64_t seed;        /* RANDOM_HOT */
    uint32_t warp_size;   /* default 32 */
} mh_synth_opts;

const char *mh_synth_shape_name(unsigned shape);
/* Parses a shape name; -1 if unknown. */
int mh_synth_shape_parse(const char *name);
/* Writes a complete trace with one launch per selected shape. */
int mh_synth_write(const char *path, const mh_synth_opts *o, mh_err *err);

#endif
