/* chunk_code.c -- a chunk's access entries as planes of 4-byte words, each
 * word stored as its difference from the word before it in its plane
 * (chunk_code.h).
 *
 * Layout of a coded chunk of a raw chunk of n bytes (n + 8 bytes): u32 E
 * (the entries taken out), u32 0, the records with the entries of each
 * ACCESSES record left out (its 8-byte header and first 8 payload bytes
 * stay, then whatever follows its entries), then plane 0 .. plane 7, 4E
 * bytes each: plane k holds bytes 4k .. 4k + 3 of every entry, in order,
 * each as a little-endian u32 minus the one before (mod 2^32; the first
 * minus 0). Which records give up their entries is decided by one walk that
 * coder and decoder make alike over the raw bytes (the decoder over those
 * it has rebuilt so far): a record that does not fit in the rest of the
 * chunk ends the walk, and an ACCESSES record gives up its u32 count of
 * entries where they fit in its payload.
 *
 * Why words with differences (the training job's default trace, 1 MiB
 * chunks, this VM): uncoded, zstd level 1 packs it 18x and inflates 1.9
 * GB/s; byte planes 296x and 13 GB/s, but their transpose ran at 4 GB/s on
 * SSE2; word planes 54x and 8.5 GB/s (a rising address is no repeat);
 * word planes of differences 906x and 18 GB/s, decoded at 16 GB/s. With
 * SSE2 (x86-64's baseline) four entries go through 4 x 4 transposes of
 * 32-bit lanes and prefix sums (x86: little-endian, the words' order);
 * elsewhere a word at a time, read and written little-endian. */
#include "trace/chunk_code.h"

#include <assert.h>
#include <stdint.h>
#include <string.h>

#include "trace/format.h"

/* Where the walk stands at raw offset pos: the record's whole length
 * (header and padded payload) in *total, and in *entries the entries it
 * gives up; 0 when no record fits there (the rest is kept as it is). */
static int walk_step(const unsigned char *rec, size_t left, size_t *total, size_t *entries) {
    if (left < MH_TF_REC_HDR_BYTES) return 0;
    size_t plen = mh_get32(rec + 4), padded = (plen + 7u) & ~(size_t)7u;
    if (padded > left - MH_TF_REC_HDR_BYTES) return 0;
    *total = MH_TF_REC_HDR_BYTES + padded;
    *entries = 0;
    if (rec[0] == MH_REC_ACCESSES && plen >= 8) {
        size_t c = mh_get32(rec + MH_TF_REC_HDR_BYTES);
        if (c <= (plen - 8) / MH_TF_ACCESS_BYTES) *entries = c;
    }
    return 1;
}

#define WORD 4u                              /* bytes of a plane's element */
#define PLANES (MH_TF_ACCESS_BYTES / WORD) /* 8 */


#if defined(__SSE2__)
#include <emmintrin.h>

/* Rows a..d (four entries' words 4h .. 4h + 3, or four planes' words of
 * four entries) transposed: 4 x 4 32-bit lanes. */
#define T4(a, b, c, d)                                                           \
    do {                                                                        \
        __m128i t0_ = _mm_unpacklo_epi32(a, b), t1_ = _mm_unpackhi_epi32(a, b); \
        __m128i t2_ = _mm_unpacklo_epi32(c, d), t3_ = _mm_unpackhi_epi32(c, d); \
        a = _mm_unpacklo_epi64(t0_, t2_);                                       \
        b = _mm_unpackhi_epi64(t0_, t2_);                                       \
        c = _mm_unpacklo_epi64(t1_, t3_);                                       \
        d = _mm_unpackhi_epi64(t1_, t3_);                                       \
    } while (0)
#define LD(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
#define ST(p, v) _mm_storeu_si128((__m128i *)(void *)(p), v)

/* Four words' differences from their predecessors; last: the word before,
 * in lane 3 (updated). */
static inline __m128i delta4(__m128i v, __m128i *last) {
    __m128i before = _mm_or_si128(_mm_slli_si128(v, 4), _mm_srli_si128(*last, 12));
    *last = v;
    return _mm_sub_epi32(v, before);
}

/* The inverse: four differences summed from the word before (sum: it in
 * every lane, updated). */
static inline __m128i sum4(__m128i v, __m128i *sum) {
    v = _mm_add_epi32(v, _mm_slli_si128(v, 4));
    v = _mm_add_epi32(v, _mm_slli_si128(v, 8));
    v = _mm_add_epi32(v, *sum);
    *sum = _mm_shuffle_epi32(v, 0xFF);
    return v;
}
#endif

/* c entries at src into the planes (each stride bytes apart) as differences
 * from the word before in the plane (prev[k]: plane k's last word, updated),
 * from entry at. */
static void to_planes(unsigned char *planes, size_t stride, size_t at, const unsigned char *src, size_t c,
                      uint32_t prev[PLANES]) {
    size_t i = 0;
#if defined(__SSE2__)
    if (c >= 4) {
        __m128i last[PLANES];
        for (size_t k = 0; k < PLANES; k++) last[k] = _mm_set1_epi32((int)prev[k]);
        for (; i + 4 <= c; i += 4)
            for (size_t h = 0; h < 2; h++) {
                const unsigned char *e = src + i * MH_TF_ACCESS_BYTES + 16 * h;
                __m128i a = LD(e), b = LD(e + 32), x = LD(e + 64), d = LD(e + 96);
                T4(a, b, x, d);
                unsigned char *q = planes + 4 * h * stride + (at + i) * WORD;
                ST(q, delta4(a, &last[4 * h]));
                ST(q + stride, delta4(b, &last[4 * h + 1]));
                ST(q + 2 * stride, delta4(x, &last[4 * h + 2]));
                ST(q + 3 * stride, delta4(d, &last[4 * h + 3]));
            }
        for (size_t k = 0; k < PLANES; k++) prev[k] = (uint32_t)_mm_cvtsi128_si32(_mm_srli_si128(last[k], 12));
    }
#endif
    for (; i < c; i++)
        for (size_t k = 0; k < PLANES; k++) {
            uint32_t w = mh_get32(src + i * MH_TF_ACCESS_BYTES + k * WORD);
            mh_put32(planes + k * stride + (at + i) * WORD, w - prev[k]);
            prev[k] = w;
        }
}

/* The inverse: c entries from the planes, from entry at, into dst. */
static void from_planes(unsigned char *dst, const unsigned char *planes, size_t stride, size_t at, size_t c,
                        uint32_t prev[PLANES]) {
    size_t i = 0;
#if defined(__SSE2__)
    if (c >= 4) {
        __m128i sum[PLANES];
        for (size_t k = 0; k < PLANES; k++) sum[k] = _mm_set1_epi32((int)prev[k]);
        for (; i + 4 <= c; i += 4)
            for (size_t h = 0; h < 2; h++) {
                const unsigned char *q = planes + 4 * h * stride + (at + i) * WORD;
                __m128i a = sum4(LD(q), &sum[4 * h]), b = sum4(LD(q + stride), &sum[4 * h + 1]);
                __m128i x = sum4(LD(q + 2 * stride), &sum[4 * h + 2]), d = sum4(LD(q + 3 * stride), &sum[4 * h + 3]);
                T4(a, b, x, d);
                unsigned char *e = dst + i * MH_TF_ACCESS_BYTES + 16 * h;
                ST(e, a);
                ST(e + 32, b);
                ST(e + 64, x);
                ST(e + 96, d);
            }
        for (size_t k = 0; k < PLANES; k++) prev[k] = (uint32_t)_mm_cvtsi128_si32(sum[k]);
    }
#endif
    for (; i < c; i++)
        for (size_t k = 0; k < PLANES; k++) {
            uint32_t w = mh_get32(planes + k * stride + (at + i) * WORD) + prev[k];
            prev[k] = w;
            mh_put32(dst + i * MH_TF_ACCESS_BYTES + k * WORD, w);
        }
}

void mh_tf_code(const unsigned char *raw, size_t n, unsigned char *out) {
    size_t e = 0, pos = 0, total, c;
    while (walk_step(raw + pos, n - pos, &total, &c)) {
        e += c;
        pos += total;
    }
    assert(e <= UINT32_MAX);
    mh_put32(out, (uint32_t)e);
    mh_put32(out + 4, 0);
    unsigned char *f = out + MH_TF_CODE_EXTRA, *planes = f + (n - e * MH_TF_ACCESS_BYTES);
    size_t at = 0;
    uint32_t prev[PLANES] = {0};
    pos = 0;
    while (walk_step(raw + pos, n - pos, &total, &c)) {
        const unsigned char *r = raw + pos;
        if (c) {
            size_t head = MH_TF_REC_HDR_BYTES + 8, body = c * MH_TF_ACCESS_BYTES;
            memcpy(f, r, head);
            f += head;
            to_planes(planes, e * WORD, at, r + head, c, prev);
            at += c;
            memcpy(f, r + head + body, total - head - body);
            f += total - head - body;
        } else {
            memcpy(f, r, total);
            f += total;
        }
        pos += total;
    }
    if (n > pos) memcpy(f, raw + pos, n - pos);
    assert(f + (n - pos) == planes && at == e);
}

int mh_tf_decode(const unsigned char *coded, size_t n, unsigned char *raw, int mark) {
    if (n < MH_TF_CODE_EXTRA || mh_get32(coded + 4) != 0) return -1;
    size_t rn = n - MH_TF_CODE_EXTRA, e = mh_get32(coded);
    if (e > rn / MH_TF_ACCESS_BYTES) return -1;
    const unsigned char *f = coded + MH_TF_CODE_EXTRA, *fend = f + (rn - e * MH_TF_ACCESS_BYTES);
    const unsigned char *planes = fend;
    size_t pos = 0, at = 0, total, c;
    uint32_t prev[PLANES] = {0};
    for (;;) {
        /* the walk reads a record's header (and an ACCESSES record's count)
         * from the frame, where the raw chunk has them */
        size_t have = (size_t)(fend - f), need = rn - pos >= 16 ? 16 : rn - pos;
        if (have < need) return -1;
        if (!walk_step(f, rn - pos, &total, &c)) break;
        if (c > e - at) return -1;
        size_t head = c ? MH_TF_REC_HDR_BYTES + 8 : total, body = c * MH_TF_ACCESS_BYTES;
        if (have < total - body) return -1;
        memcpy(raw + pos, f, head);
        f += head;
        if (mark && raw[pos] == MH_REC_ACCESSES && mh_get32(raw + pos + 4) >= 8) {
            /* entries 1 .. c - 1 of the record: their launches' differences */
            const unsigned char *d = planes + MH_TF_ACCESS_LAUNCH_OFF / WORD * (e * WORD) + (at + 1) * WORD;
            size_t k = 1;
            while (k < c && mh_get32(d) == 0) k++, d += WORD;
            mh_put32(raw + pos + MH_TF_REC_HDR_BYTES + 4, c > 0 && k >= c);
        }
        if (c) {
            from_planes(raw + pos + head, planes, e * WORD, at, c, prev);
            at += c;
            memcpy(raw + pos + head + body, f, total - head - body);
            f += total - head - body;
        }
        pos += total;
    }
    if ((size_t)(fend - f) != rn - pos || at != e) return -1;
    if (rn > pos) memcpy(raw + pos, f, rn - pos); /* raw may be NULL for an empty chunk */
    return 0;
}
