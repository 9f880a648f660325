/* crc32c.h -- CRC-32C (Castagnoli), the checksum of trace chunks. */
#ifndef MH_CRC32C_H
#define MH_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* Continues crc over buf; start with crc = 0. */
uint32_t mh_crc32c(uint32_t crc, const void *buf, size_t len);

#endif
