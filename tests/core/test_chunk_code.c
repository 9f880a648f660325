/* test_chunk_code.c -- the coding of a chunk's access entries (format v4,
 * src/trace/chunk_code.c): decode(code(x)) == x for streams of records of
 * every shape (ACCESSES records of 0 .. 300 entries, with bytes after their
 * entries, with counts their payload cannot hold, records that do not fit,
 * garbage), the decoder's one-launch marks equal to the rule the reader
 * applies to uncoded chunks, and a damaged coded chunk refused (or decoded
 * to its length) without reading out of bounds. */
#include <stdint.h>
#include <string.h>

#include "../mh_test.h"
#include "memheat/trace.h"
#include "trace/chunk_code.h"
#include "trace/format.h"

static uint64_t rng = 88172645463325252ull;
static uint64_t rnd(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* A random stream of records into buf (cap bytes); its length. */
static size_t make_stream(unsigned char *buf, size_t cap) {
    size_t n = 0;
    uint64_t addr = rnd(), launch = rnd() % 5;
    while (n + 64 < cap) {
        unsigned kind = (unsigned)(rnd() % 10);
        if (kind < 6) { /* ACCESSES: entries that rise, repeat or jump */
            size_t c = (size_t)(rnd() % 300), extra = kind == 5 ? 8 * (size_t)(rnd() % 3) : 0;
            if (kind == 4) c = rnd() % 6; /* few: the scalar path */
            size_t plen = 8 + 32 * c + extra;
            if (n + 8 + plen > cap) break;
            unsigned char *r = buf + n;
            memset(r, 0, 8 + plen);
            r[0] = MH_REC_ACCESSES;
            mh_put32(r + 4, (uint32_t)plen);
            mh_put32(r + 8, (uint32_t)c);
            if (rnd() % 4 == 0) launch = rnd() % 5;
            for (size_t i = 0; i < c; i++) {
                mh_access a = {.addr = addr += rnd() % 3 == 0 ? rnd() : 4, .pc = 16 * (rnd() % 7),
                               .launch = (uint32_t)(rnd() % 50 == 0 ? rnd() % 5 : launch), .block = (uint32_t)(i / 64),
                               .seq = (uint32_t)i, .thread = (uint16_t)i, .size = 4, .flags = (uint8_t)(rnd() % 8)};
                mh_tf_access_put(r + 16 + 32 * i, &a);
            }
            for (size_t i = 0; i < extra; i++) r[16 + 32 * c + i] = (unsigned char)rnd();
            n += 8 + plen;
        } else if (kind < 8) { /* another record, padded */
            size_t plen = (size_t)(rnd() % 40);
            unsigned char *r = buf + n;
            memset(r, 0, 8 + ((plen + 7) & ~(size_t)7));
            r[0] = (unsigned char)(kind == 6 ? MH_REC_KERNEL_END : MH_REC_LAUNCH);
            mh_put32(r + 4, (uint32_t)plen);
            for (size_t i = 0; i < plen; i++) r[8 + i] = (unsigned char)rnd();
            n += 8 + ((plen + 7) & ~(size_t)7);
        } else if (kind == 8) { /* ACCESSES whose count its payload cannot hold: its bytes stay in the frame */
            unsigned char *r = buf + n;
            memset(r, 0, 24);
            r[0] = MH_REC_ACCESSES;
            mh_put32(r + 4, 16);
            mh_put32(r + 8, 1 + (uint32_t)(rnd() % 9));
            n += 24;
        } else { /* the end: a record longer than what is left, or garbage */
            size_t k = (size_t)(rnd() % 64);
            for (size_t i = 0; i < k; i++) buf[n + i] = (unsigned char)rnd();
            if (k >= 8 && rnd() % 2) buf[n] = MH_REC_ACCESSES, mh_put32(buf + n + 4, (uint32_t)(k + rnd() % 100));
            return n + k;
        }
    }
    return n;
}

/* The reader's rule for uncoded chunks (chunk_load.c): 1 where an ACCESSES
 * record's entries fit and all name one launch, 0 elsewhere; per record
 * the walk passes, in order. */
static size_t marks_of(const unsigned char *raw, size_t len, uint32_t *out) {
    size_t pos = 0, k = 0;
    while (len - pos >= 8) {
        size_t plen = mh_get32(raw + pos + 4), padded = (plen + 7) & ~(size_t)7;
        if (padded > len - pos - 8) break;
        const unsigned char *q = raw + pos + 8;
        if (raw[pos] == MH_REC_ACCESSES && plen >= 8) {
            uint32_t n = mh_get32(q), one = 0;
            if (n && (plen - 8) / 32 >= n) {
                uint32_t i = 1;
                while (i < n && mh_get32(q + 8 + 32 * i + 16) == mh_get32(q + 8 + 16)) i++;
                one = i == n;
            }
            out[k++] = one;
        }
        pos += 8 + padded;
    }
    return k;
}

static void test_round_trip(void) {
    enum { CAP = 1 << 16 };
    static unsigned char raw[CAP], coded[CAP + MH_TF_CODE_EXTRA], back[CAP];
    static uint32_t want[CAP / 8];
    int ok = 1, marks_ok = 1;
    for (int t = 0; t < 400; t++) {
        size_t n = t < 4 ? (size_t)t * 3 : make_stream(raw, (size_t)(64 + rnd() % (CAP - 64)));
        if (t < 4) memset(raw, 0x5a, n); /* 0, 3, 6, 9 bytes: no whole record */
        mh_tf_code(raw, n, coded);
        memset(back, 0xee, sizeof back);
        ok &= mh_tf_decode(coded, n + MH_TF_CODE_EXTRA, back, 0) == 0 && memcmp(raw, back, n) == 0;
        /* with marks: the same bytes but the marks, which follow the reader's rule */
        ok &= mh_tf_decode(coded, n + MH_TF_CODE_EXTRA, back, 1) == 0;
        size_t k = marks_of(raw, n, want), pos = 0, j = 0;
        while (n - pos >= 8) {
            size_t plen = mh_get32(back + pos + 4), padded = (plen + 7) & ~(size_t)7;
            if (padded > n - pos - 8) break;
            if (back[pos] == MH_REC_ACCESSES && plen >= 8) {
                marks_ok &= j < k && mh_get32(back + pos + 12) == want[j];
                mh_put32(back + pos + 12, mh_get32(raw + pos + 12));
                j++;
            }
            pos += 8 + padded;
        }
        marks_ok &= j == k;
        ok &= memcmp(raw, back, n) == 0;
    }
    CHECK(ok);
    CHECK(marks_ok);
}

/* Entries that rise by 4 (an address, a thread) code to planes of equal
 * differences: one chunk of 30,000 such entries packs into the planes'
 * constant words, which the test reads back. */
static void test_planes(void) {
    size_t c = 30000, n = 16 + 32 * c;
    unsigned char *raw = calloc(1, n), *coded = calloc(1, n + MH_TF_CODE_EXTRA);
    raw[0] = MH_REC_ACCESSES;
    mh_put32(raw + 4, (uint32_t)(8 + 32 * c));
    mh_put32(raw + 8, (uint32_t)c);
    for (size_t i = 0; i < c; i++) {
        mh_access a = {.addr = 0x7f0000001000ull + 4 * i, .pc = 32, .launch = 3, .thread = (uint16_t)i, .size = 4};
        mh_tf_access_put(raw + 16 + 32 * i, &a);
    }
    mh_tf_code(raw, n, coded);
    CHECK_EQ_U(mh_get32(coded), c);
    const unsigned char *planes = coded + MH_TF_CODE_EXTRA + 16;
    size_t same = 0;
    for (size_t i = 1; i < c; i++) /* plane 0: the address's low word; plane 4: the launch */
        same += mh_get32(planes + 4 * i) == 4 && mh_get32(planes + 4 * (4 * c + i)) == 0;
    CHECK_EQ_U(same, c - 1);
    CHECK_EQ_U(mh_get32(planes), 0x00001000u); /* the first word minus 0 */
    free(raw);
    free(coded);
}

/* Damaged coded chunks: refused, or decoded to their length; never a read
 * or write out of bounds (ASan in CI). */
static void test_damage(void) {
    enum { CAP = 1 << 14 };
    static unsigned char raw[CAP], coded[CAP + MH_TF_CODE_EXTRA], back[CAP];
    unsigned char z[8] = {0};
    CHECK(mh_tf_decode(z, 4, back, 1) != 0);         /* shorter than its 8-byte head */
    mh_put32(z + 4, 1);
    CHECK(mh_tf_decode(z, 8, back, 1) != 0);         /* the reserved word */
    mh_put32(z, 1), mh_put32(z + 4, 0);
    CHECK(mh_tf_decode(z, 8, back, 1) != 0);         /* an entry in no room */
    size_t refused = 0, runs = 0;
    for (int t = 0; t < 300; t++) {
        size_t n = make_stream(raw, CAP);
        mh_tf_code(raw, n, coded);
        unsigned char *cut = malloc(n + MH_TF_CODE_EXTRA);
        memcpy(cut, coded, n + MH_TF_CODE_EXTRA);
        size_t at = (size_t)(rnd() % (n + MH_TF_CODE_EXTRA));
        if (t % 3 == 0) mh_put32(cut, mh_get32(cut) + 1 + (uint32_t)(rnd() % 3)); /* the count of entries */
        else cut[at] ^= (unsigned char)(1 + rnd() % 255);
        refused += mh_tf_decode(cut, n + MH_TF_CODE_EXTRA, back, 1) != 0;
        runs++;
        free(cut);
    }
    CHECK(refused > runs / 4); /* a wrong count of entries is always found */
}

MH_TEST_MAIN(T(test_round_trip), T(test_planes), T(test_damage))
