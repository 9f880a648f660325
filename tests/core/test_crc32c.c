/* test_crc32c.c -- CRC-32C: the constant slicing tables equal the bitwise
 * definition entry by entry, and the portable, SSE4.2 and dispatching
 * functions all equal the bitwise CRC at every length, alignment and split. */
#include <stdint.h>
#include <string.h>

#include "../mh_test.h"
#include "util/crc32c.h"

#define POLY 0x82F63B78u

static uint32_t crc_bitwise(uint32_t crc, const unsigned char *p, size_t len) {
    crc = ~crc;
    while (len--) {
        crc ^= *p++;
        for (int k = 0; k < 8; k++) crc = (crc >> 1) ^ ((crc & 1u) ? POLY : 0u);
    }
    return ~crc;
}

static unsigned char data[4096 + 16];

static void fill(void) {
    uint32_t s = 0x12345678u;
    for (size_t i = 0; i < sizeof data; i++) {
        s = s * 1664525u + 1013904223u;
        data[i] = (unsigned char)(s >> 24);
    }
}

static void test_tables(void) {
    int bad = 0;
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = (c >> 1) ^ ((c & 1u) ? POLY : 0u);
        if (mh_crc32c_tab[0][i] != c) bad++;
        for (int t = 1; t < 8; t++) {
            c = (c >> 8) ^ mh_crc32c_tab[0][c & 0xFF];
            if (mh_crc32c_tab[t][i] != c) bad++;
        }
    }
    CHECK_EQ_U(bad, 0);
}

static void test_known(void) {
    const char *s = "123456789";
    CHECK_EQ_U(crc_bitwise(0, (const unsigned char *)s, 9), 0xE3069283u);
    CHECK_EQ_U(mh_crc32c(0, s, 9), 0xE3069283u);
    CHECK_EQ_U(mh_crc32c_sw(0, s, 9), 0xE3069283u);
    CHECK_EQ_U(mh_crc32c(0, s, 0), 0);
    unsigned char zero[32] = {0};
    CHECK_EQ_U(mh_crc32c(0, zero, 32), 0x8A9136AAu); /* RFC 3720 B.4 */
}

typedef uint32_t (*crc_fn)(uint32_t, const void *, size_t);

/* every length to 300 at every alignment, long buffers, and a split anywhere */
static int mismatches(crc_fn f) {
    int bad = 0;
    for (size_t off = 0; off < 8; off++)
        for (size_t len = 0; len <= 300; len++)
            if (f(0, data + off, len) != crc_bitwise(0, data + off, len)) bad++;
    for (size_t len = 1000; len <= 4096; len += 773)
        if (f(0x5a5a5a5au, data + 3, len) != crc_bitwise(0x5a5a5a5au, data + 3, len)) bad++;
    uint32_t whole = crc_bitwise(0, data, 777);
    for (size_t cut = 0; cut <= 777; cut += 7)
        if (f(f(0, data, cut), data + cut, 777 - cut) != whole) bad++;
    /* each byte value in each of the 8 slicing positions */
    unsigned char blk[8];
    for (int pos = 0; pos < 8; pos++)
        for (int v = 0; v < 256; v++) {
            memset(blk, 0xA5, sizeof blk);
            blk[pos] = (unsigned char)v;
            if (f(0, blk, 8) != crc_bitwise(0, blk, 8)) bad++;
        }
    return bad;
}

static void test_portable(void) { CHECK_EQ_U(mismatches(mh_crc32c_sw), 0); }
static void test_dispatch(void) { CHECK_EQ_U(mismatches(mh_crc32c), 0); }

static void test_sse42(void) {
    if (!mh_crc32c_hw_available()) {
        printf("     (no SSE4.2 crc32 on this CPU: hardware path not tested)\n");
        return;
    }
    CHECK_EQ_U(mismatches(mh_crc32c_hw), 0);
}

int main(void) {
    fill();
    static const mh_test_case cases[] = {T(test_tables), T(test_known), T(test_portable), T(test_dispatch),
                                         T(test_sse42)};
    return mh_test_run(cases, sizeof cases / sizeof cases[0]);
}
