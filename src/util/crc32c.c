/* crc32c.c -- table-driven CRC-32C (reflected polynomial 0x82F63B78).
 *
 * Slicing-by-8: eight 256-entry tables built once on first use. The tables are
 * immutable after construction; construction is idempotent, so a race between
 * two first callers only writes identical values. */
#include "util/crc32c.h"

#include <string.h>

static uint32_t crc_tab[8][256];
static volatile int crc_ready;

static void crc_init(void) {
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0x82F63B78u & (0u - (c & 1u)));
        crc_tab[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = crc_tab[0][i];
        for (int t = 1; t < 8; t++) {
            c = (c >> 8) ^ crc_tab[0][c & 0xFF];
            crc_tab[t][i] = c;
        }
    }
    crc_ready = 1;
}

uint32_t mh_crc32c(uint32_t crc, const void *buf, size_t len) {
    if (!crc_ready) crc_init();
    const unsigned char *p = buf;
    crc = ~crc;
    while (len >= 8) {
        uint32_t lo = crc ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
        crc = crc_tab[7][lo & 0xFF] ^ crc_tab[6][(lo >> 8) & 0xFF] ^ crc_tab[5][(lo >> 16) & 0xFF] ^
              crc_tab[4][lo >> 24] ^ crc_tab[3][p[4]] ^ crc_tab[2][p[5]] ^ crc_tab[1][p[6]] ^ crc_tab[0][p[7]];
        p += 8;
        len -= 8;
    }
    while (len--) crc = (crc >> 8) ^ crc_tab[0][(crc ^ *p++) & 0xFF];
    return ~crc;
}
