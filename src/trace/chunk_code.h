/* chunk_code.h -- the coding of a chunk's records before zstd (format v4,
 * internal; docs/trace-format.md, "Coded chunks").
 *
 * Access entries are 32-byte structs whose parts vary at different rates (a
 * launch id or a block rarely changes, an address's low bytes always), so
 * zstd finds few long matches in them. A coded chunk holds the entries of
 * its ACCESSES records as 8 planes of 4-byte words (plane k: bytes 4k ..
 * 4k + 3 of every entry, in order, each as its difference from the one
 * before) after the rest of its records: the training job's default trace
 * packs 50x smaller than uncoded and inflates about 5x faster, decoding
 * included (chunk_code.c; bench/analyses/README.md, session 16).
 * Coding works on any bytes (a record that does not fit ends the walk; the
 * rest is kept as it is), so that mh_tf_decode(mh_tf_code(x)) == x for
 * every x: damage is still found by the reader's record checks, with the
 * same messages. */
#ifndef MH_TRACE_CHUNK_CODE_H
#define MH_TRACE_CHUNK_CODE_H

#include <stddef.h>

#define MH_TF_CODED_VERSION 4u /* the first trace format version whose chunks are coded */
#define MH_TF_CODE_EXTRA 8u    /* a coded chunk's bytes beyond its records': u32 entries, u32 0 */

/* Codes n bytes of records into out (n + MH_TF_CODE_EXTRA bytes). */
void mh_tf_code(const unsigned char *raw, size_t n, unsigned char *out);
/* Decodes n coded bytes into raw (n - MH_TF_CODE_EXTRA bytes); 0, or -1
 * where they are no coded chunk (too short, a non-zero reserved word, the
 * entries' count or the records' lengths inconsistent). With mark, the
 * second payload word of each ACCESSES record the walk passes (0 in the
 * file) becomes 1 where the record has entries and all name one launch,
 * else 0: the reader's one-launch mark, found in the launch plane's
 * differences instead of a pass over the entries. */
int mh_tf_decode(const unsigned char *coded, size_t n, unsigned char *raw, int mark);

#endif
