/* heat.h -- the word-sector heat map of distinct warps (CUTHERMO, section IV).
 *
 * For one launch and one address space: a map from sector tag (address /
 * sector size) to nine warp sets, one per 4-byte word and one for the whole
 * sector. Temperature = number of distinct warps in a set. An access wider than
 * 4 bytes, or crossing a sector, counts for every word and sector it touches.
 * Beside each word's temperature, the kinds of access seen on it (load, store,
 * atomic: MH_HEAT_LOAD..ATOMIC bits), whatever warp made them.
 *
 * mh_heat is the map itself (an open-addressing table; warps 0..31 of the
 * sample in inline bit masks, higher warp indexes in per-sector overflow sets).
 * Sectors are 32 bytes: eight 4-byte words, as on every NVIDIA GPU since Fermi.
 * mh_heat_run drives maps from a trace: one per (launch, space), handed to a
 * callback with its sorted rows and regions when the launch ends, then freed,
 * so memory is bounded by the distinct sectors of the launches in flight. */
#ifndef MH_ANALYSES_HEAT_H
#define MH_ANALYSES_HEAT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analyses/model.h"
#include "memheat/err.h"
#include "memheat/trace.h"

#define MH_HEAT_WORDS 8 /* 4-byte words per 32-byte sector */

/* Kinds of access seen on a word: bit (1 << enum mh_kind). */
#define MH_HEAT_LOAD 1u
#define MH_HEAT_STORE 2u
#define MH_HEAT_ATOMIC 4u
#define MH_HEAT_KIND_BIT(kind) ((1u << (kind)) & 7u) /* enum mh_kind -> its bit; 0 for no kind */
/* The kinds of a row packed into 24 bits: word w's at bits 3w..3w+2 (the
 * profile's heat_row.kinds and the report's per-run value). */
#define MH_HEAT_KINDS_OF(packed, w) (((packed) >> (3u * (w))) & 7u)

typedef struct mh_heat mh_heat;

typedef struct mh_heat_row {
    uint64_t tag;                 /* sector address / sector size */
    uint32_t word[MH_HEAT_WORDS]; /* distinct warps per 4-byte word */
    uint32_t sector;              /* distinct warps over the whole sector */
    int32_t region;               /* index into mh_heat_result.regions, -1 = none */
    uint8_t kinds[MH_HEAT_WORDS]; /* MH_HEAT_LOAD/STORE/ATOMIC bits seen per word (0 = untouched) */
} mh_heat_row;

/* A row's kinds packed as MH_HEAT_KINDS_OF reads them. */
uint32_t mh_heat_kinds_pack(const mh_heat_row *row);
/* Text of packed kinds, one character per word: L, S, A (that kind alone), M
 * (more than one kind), '.' (untouched) or '?' (a touched word without kinds:
 * a profile written before kinds); out holds 9 bytes. temps: the words'
 * temperatures, or NULL. */
const char *mh_heat_kinds_text(uint32_t packed, const uint32_t *temps, char out[MH_HEAT_WORDS + 1]);

/* A data object that some sector of the map falls in. */
typedef struct mh_heat_region {
    int64_t obj;           /* mh_model objs index, -1 = outside every known object */
    const char *label;     /* object label (model-owned) or "" */
    uint64_t start, end;   /* object's byte range [start, end) */
    uint64_t first_tag, last_tag; /* sector tags the range spans */
    size_t first_row, nrows;      /* rows of this region in the sorted map */
    uint64_t used_lo, used_hi;    /* bytes its rows touched, [lo, hi), to the 4-byte word */
} mh_heat_region;

typedef struct mh_heat_result {
    const mh_model *model;
    const mh_model_launch *launch;
    unsigned space;          /* enum mh_space */
    uint32_t sector_size;
    uint64_t accesses;       /* accesses that went into this map */
    const mh_heat_row *rows; /* sorted by tag */
    size_t nrows;
    const mh_heat_region *regions; /* in address order */
    size_t nregions;
} mh_heat_result;

/* ---- one map ---- */
int mh_heat_new(mh_heat **h, uint32_t sector_size, mh_err *err);
void mh_heat_free(mh_heat *h);
/* Records that warp (global warp index in the sample) touched [addr, addr+size)
 * with an access of `kind` (enum mh_kind). */
int mh_heat_add(mh_heat *h, uint64_t addr, uint32_t size, uint32_t warp, unsigned kind);
/* The same as an mh_heat_add by warp of each word w of sector tag whose
 * bit is set in words (1 .. 255), with the kinds of kinds (MH_HEAT_KIND_BIT
 * of the word's accesses at bits 3w .. 3w + 2), in one lookup: a warp's
 * lanes touch a sector's words one after another. */
int mh_heat_add_words(mh_heat *h, uint64_t tag, uint32_t words, uint32_t kinds, uint32_t warp);
/* Hint that addr is about to be added: starts loading its table slot, so a
 * caller can overlap the cache misses of a batch of accesses. */
void mh_heat_prefetch(const mh_heat *h, uint64_t addr);
size_t mh_heat_count(const mh_heat *h);
/* The part (0 .. MH_HEAT_PARTS - 1) a sector tag's row belongs to. A run
 * keeps each map as MH_HEAT_PARTS tables, one per part (the eight sectors of
 * a 256-byte block in one), so that several threads can fill one launch's
 * map (mh_heat_run_split); the part comes from a hash that the table's
 * slots do not use, so every table fills all its slots. */
#define MH_HEAT_PARTS 4
static inline unsigned mh_heat_part(uint64_t tag) {
    return (unsigned)(((tag >> 3) * 0xD6E8FEB86659FD93ull) >> 62);
}
/* Bytes of memory the map holds now (table + overflow sets). */
size_t mh_heat_bytes(const mh_heat *h);
/* Turns the map into rows sorted by tag, in place (rows take the table's own
 * memory, so no second copy is needed); *rows is malloc'ed and the caller
 * frees it. The map is empty afterwards and can be reused. */
int mh_heat_take_rows(mh_heat *h, mh_heat_row **rows, size_t *n, mh_err *err);

/* ---- driving maps from a trace ---- */
typedef int (*mh_heat_emit_fn)(void *ctx, const mh_heat_result *r, mh_err *err);

typedef struct mh_heat_run mh_heat_run;

typedef struct mh_heat_run_opts {
    uint32_t space_mask;  /* bit (1 << space) per address space to map; 0 = all */
    mh_heat_emit_fn emit; /* called per (launch, space) with a non-empty map */
    void *ctx;
} mh_heat_run_opts;

int mh_heat_run_new(mh_heat_run **hr, mh_model *model, const mh_heat_run_opts *o, mh_err *err);
/* Splits hr's parts of every map (mh_heat_part) among n runs (2 or 4),
 * before any record is fed: hr keeps the first MH_HEAT_PARTS / n parts,
 * peers[i] (made here) the next ones. All are fed every record, each on its
 * own thread, each updating only its parts' tables, never at once with a
 * KERNEL_END or LAUNCH record (a barrier); hr emits, taking the peers'
 * tables of the launch (their KERNEL_END does nothing). Results and peak
 * are those of one run. Free the peers after hr's finish. */
int mh_heat_run_split(mh_heat_run *hr, unsigned n, mh_heat_run **peers, mh_err *err);
/* Feed every record (after mh_model_feed has seen it). Emits on KERNEL_END. */
int mh_heat_run_feed(mh_heat_run *hr, const mh_record *rec, mh_err *err);
/* Emits launches that never ended (cut-short trace), then frees. */
int mh_heat_run_finish(mh_heat_run *hr, mh_err *err);
void mh_heat_run_free(mh_heat_run *hr);
/* Peak bytes held by maps at any time. */
size_t mh_heat_run_peak_bytes(const mh_heat_run *hr);

/* ---- output ---- */
/* CSV in the paper's shape plus the kinds: region,sector_tag,w0..w7,sector,kinds
 * (kinds: mh_heat_kinds_text). */
int mh_heat_write_csv(FILE *f, const mh_heat_result *r, mh_err *err);
/* Region file: region,label,start,end,first_tag,last_tag,sectors. */
int mh_heat_write_regions(FILE *f, const mh_heat_result *r, mh_err *err);
/* Terminal rendering: identical consecutive rows (temperatures and kinds)
 * folded with a repeat count; each row ends with its kinds per word
 * (mh_heat_kinds_text); color = 1 for ANSI colours. max_rows limits printed rows (0 = all). */
int mh_heat_render(FILE *f, const mh_heat_result *r, int color, size_t max_rows, mh_err *err);

#endif
