/* fuzz_records.h -- the trace's record kinds and their fields as one table
 * (docs/trace-format.md, "Records"), and the structure-aware mutators that
 * use it: every field of every record kind, the access entries' fields, the
 * strings, the records' framing, the chunks' order and the coded form of a
 * chunk, on a parsed trace (fuzz_mutate.h), whose checksums come out right
 * when it is encoded.
 *
 * A new record kind is one row of fz_kinds (its type, name, fields and where
 * its strings start); the mutators then change its fields, strings and
 * framing and make up records of it like every other kind's. */
#ifndef MH_FUZZ_RECORDS_H
#define MH_FUZZ_RECORDS_H

#include <stddef.h>
#include <stdint.h>

#include "fuzz_mutate.h"

/* What a field holds, for values a mutator draws from the trace itself
 * (an existing launch id, an address inside an allocation). */
enum { FZ_PLAIN, FZ_LAUNCH, FZ_ADDR, FZ_SPACE, FZ_COUNT };

typedef struct fz_field {
    const char *name;
    uint16_t off;  /* byte offset in the payload */
    uint8_t width; /* 1, 2, 4 or 8 bytes, little-endian */
    uint8_t role;  /* FZ_PLAIN, FZ_LAUNCH, ... */
} fz_field;

typedef struct fz_kind {
    uint8_t type;                /* the record's type byte */
    const char *name;
    const fz_field *fields;
    size_t nfields;
    uint16_t fixed;              /* payload bytes before its strings (the least a writer writes) */
    uint8_t nstrings;            /* strings that follow (u32 length + bytes each) */
    /* where its strings start when an array comes first (LAUNCH's sampled
     * blocks), else NULL: at `fixed` */
    size_t (*strings_at)(const uint8_t *payload, size_t plen);
} fz_kind;

extern const fz_kind fz_kinds[];
extern const size_t fz_nkinds;
extern const fz_field fz_access_fields[]; /* an access entry's (32 bytes) */
extern const size_t fz_naccess_fields;
const fz_kind *fz_kind_of(unsigned type); /* NULL: not a kind of the table */

/* One structure-aware mutation of t in place: a field of a record of any
 * kind set to an edge value or one drawn from the trace, an access entry's
 * field, a string's length or bytes, a record removed, repeated, moved,
 * retyped or resized, a block of access entries removed or repeated, a
 * record of any kind made up and inserted, chunks removed, repeated,
 * swapped, merged or split, a coded chunk's counts or planes damaged, the
 * version rewritten (4 <-> 3); then now and then sealed (fz_seal: the trace
 * states what it holds again, as a writer would). Returns the mutation's
 * name; *sealed = 1 when it sealed. */
const char *fz_mutate_records(fz_trace *t, fz_rng *r, int *sealed);

#endif
