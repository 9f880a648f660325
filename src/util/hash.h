/* hash.h -- the 64-bit mixer the analyses' hash tables share (the finalizer
 * of MurmurHash3: every input bit reaches every output bit). */
#ifndef MH_UTIL_HASH_H
#define MH_UTIL_HASH_H

#include <stdint.h>

static inline uint64_t mh_mix64(uint64_t x) {
    x ^= x >> 33;
    x *= UINT64_C(0xFF51AFD7ED558CCD);
    x ^= x >> 33;
    x *= UINT64_C(0xC4CEB9FE1A85EC53);
    x ^= x >> 33;
    return x;
}

#endif
