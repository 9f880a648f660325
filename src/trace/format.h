/* format.h -- byte-level constants and little-endian codecs of trace format v3,
 * shared by the writer and the reader. docs/trace-format.md is the spec. */
#ifndef MH_TRACE_FORMAT_H
#define MH_TRACE_FORMAT_H

#include <stdint.h>
#include <string.h>

#include "memheat/trace.h"

#define MH_TF_MAGIC "MEMHEAT\x1a"     /* 8 bytes at offset 0 */
#define MH_TF_PREFIX_BYTES 16u        /* magic, u32 version, u32 flags */
#define MH_TF_CHUNK_MAGIC 0x4B43484Du /* "MHCK" little-endian */
#define MH_TF_CHUNK_HDR_BYTES 24u
#define MH_TF_REC_HDR_BYTES 8u        /* u8 type, u8 0, u16 0, u32 payload length */
#define MH_TF_MAX_RAW (64u << 20)     /* largest uncompressed chunk a reader accepts */
#define MH_TF_ACCESS_BYTES 32u
#define MH_TF_ACCESS_LAUNCH_OFF 16u /* an access entry's u32 launch */
#define MH_TF_END_BYTES 24u         /* END: u32 chunks, u32 chain, u64 records, u64 accesses (0 from older writers) */
#define MH_TF_MAX_KARG_INDEX 65535u /* a KARG index above it is a bad field: no kernel has that many parameters */

_Static_assert(sizeof(mh_access) == MH_TF_ACCESS_BYTES, "mh_access must be 32 bytes");

static inline void mh_put16(unsigned char *p, uint16_t v) { p[0] = (unsigned char)v; p[1] = (unsigned char)(v >> 8); }
static inline void mh_put32(unsigned char *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static inline void mh_put64(unsigned char *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static inline uint16_t mh_get16(const unsigned char *p) { return (uint16_t)(p[0] | p[1] << 8); }
static inline uint32_t mh_get32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t mh_get64(const unsigned char *p) {
    return (uint64_t)mh_get32(p) | (uint64_t)mh_get32(p + 4) << 32;
}

/* Access record <-> bytes. On little-endian hosts the struct is the wire form. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define MH_TF_ACCESS_IS_WIRE 1
#else
#define MH_TF_ACCESS_IS_WIRE 0
#endif

static inline void mh_tf_access_put(unsigned char *p, const mh_access *a) {
    mh_put64(p, a->addr);
    mh_put64(p + 8, a->pc);
    mh_put32(p + MH_TF_ACCESS_LAUNCH_OFF, a->launch);
    mh_put32(p + 20, a->block);
    mh_put32(p + 24, a->seq);
    mh_put16(p + 28, a->thread);
    p[30] = a->size;
    p[31] = a->flags;
}
static inline void mh_tf_access_get(const unsigned char *p, mh_access *a) {
    a->addr = mh_get64(p);
    a->pc = mh_get64(p + 8);
    a->launch = mh_get32(p + MH_TF_ACCESS_LAUNCH_OFF);
    a->block = mh_get32(p + 20);
    a->seq = mh_get32(p + 24);
    a->thread = mh_get16(p + 28);
    a->size = p[30];
    a->flags = p[31];
}

#endif
