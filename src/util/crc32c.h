/* crc32c.h -- CRC-32C (Castagnoli), the checksum of trace chunks. Thread-safe:
 * no state is set up at run time. */
#ifndef MH_CRC32C_H
#define MH_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* Continues crc over buf; start with crc = 0. */
uint32_t mh_crc32c(uint32_t crc, const void *buf, size_t len);

/* The implementations behind mh_crc32c, for tests and benchmarks: portable
 * slicing-by-8, and the SSE4.2 instruction (call it only when
 * mh_crc32c_hw_available(); without x86 it is the portable one). */
uint32_t mh_crc32c_sw(uint32_t crc, const void *buf, size_t len);
uint32_t mh_crc32c_hw(uint32_t crc, const void *buf, size_t len);
int mh_crc32c_hw_available(void);

/* The slicing-by-8 tables (constant data, crc32c_table.h). */
extern const uint32_t mh_crc32c_tab[8][256];

#endif
