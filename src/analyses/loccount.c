/* loccount.c -- accesses per canonical address within one launch, for the
 * locality analysis (loccount.h says how and why). Split out of locality.c, which passed 800 lines. */
#include "analyses/loccount.h"
#include "util/sort.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static void radix_sort_u64(uint64_t *v, uint64_t *tmp, size_t n);

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Counts the pending keys: sorts them, and merges their runs with the
 * distinct keys counted so far. The counts are exact; only when they are
 * taken differs from counting one access at a time. */
static int cnt_compact(mh_lcnt *s, mh_big_cache *cache, size_t *bytes) {
    size_t m = s->nbuf;
    if (m == 0) return MH_OK;
    uint64_t *tmp = mh_big_cache_take(cache, s->capbuf, sizeof *tmp); /* a size the cache keeps */
    if (!tmp) return MH_ERR_NOMEM;
    radix_sort_u64(s->buf, tmp, m);
    mh_big_cache_put(cache, tmp, s->capbuf, sizeof *tmp);
    size_t distinct = 1;
    for (size_t j = 1; j < m; j++) distinct += s->buf[j] != s->buf[j - 1];
    size_t cap = s->capu;
    if (s->nu + distinct > cap) {
        cap = cap ? cap : 1024;
        while (cap < s->nu + distinct) cap *= 2;
    }
    uint64_t *nk = mh_big_cache_take(cache, cap, sizeof *nk);
    uint64_t *nc = nk ? mh_big_cache_take(cache, cap, sizeof *nc) : NULL;
    if (!nc) {
        mh_big_cache_put(cache, nk, cap, sizeof *nk);
        return MH_ERR_NOMEM;
    }
    size_t i = 0, j = 0, o = 0;
    while (j < m) {
        uint64_t key = s->buf[j], c = 0;
        while (j < m && s->buf[j] == key) c++, j++;
        while (i < s->nu && s->ukey[i] < key) {
            nk[o] = s->ukey[i];
            nc[o++] = s->ucnt[i++];
        }
        if (i < s->nu && s->ukey[i] == key) c += s->ucnt[i++];
        nk[o] = key;
        nc[o++] = c;
    }
    while (i < s->nu) {
        nk[o] = s->ukey[i];
        nc[o++] = s->ucnt[i++];
    }
    mh_big_cache_put(cache, s->ukey, s->capu, sizeof *nk);
    mh_big_cache_put(cache, s->ucnt, s->capu, sizeof *nc);
    *bytes += (cap - s->capu) * 2 * sizeof *nk;
    s->ukey = nk;
    s->ucnt = nc;
    s->capu = cap;
    s->nu = o;
    s->nbuf = 0;
    return MH_OK;
}

/* ---- the hash map, past MH_LCNT_SWITCH distinct keys ---- */


static inline void cnt_put(mh_lcnt_ent *t, size_t cap, uint64_t key, uint64_t n) {
    size_t j = mh_lcnt_slot(key, cap);
    while (t[j].key) j = (j + 1) & (cap - 1);
    t[j].key = key;
    t[j].n = n;
}

static int cnt_grow(mh_lcnt *s, mh_big_cache *cache, size_t *bytes) {
    size_t cap = s->cap * 2;
    mh_lcnt_ent *t = mh_big_cache_calloc(cache, cap, sizeof *t);
    if (!t) return MH_ERR_NOMEM;
    enum { D = 8 }; /* prefetch distance: the new slots are scattered */
    for (size_t i = 0; i < s->cap; i++) {
        if (i + D < s->cap && s->t[i + D].key) __builtin_prefetch(&t[mh_lcnt_slot(s->t[i + D].key, cap)], 1);
        if (s->t[i].key) cnt_put(t, cap, s->t[i].key, s->t[i].n);
    }
    mh_big_cache_put(cache, s->t, s->cap, sizeof *t);
    *bytes += (cap - s->cap) * sizeof *t;
    s->t = t;
    s->cap = cap;
    return MH_OK;
}

int mh_lcnt_hash_add(mh_lcnt *s, mh_big_cache *cache, size_t *bytes, uint64_t key, uint64_t h) {
    if ((s->n + 1) * 4 > s->cap * 3 && cnt_grow(s, cache, bytes) != MH_OK) return MH_ERR_NOMEM;
    size_t j = mh_lcnt_slot_h(key, h, s->cap);
    while (s->t[j].key && s->t[j].key != key) j = (j + 1) & (s->cap - 1);
    if (!s->t[j].key) {
        s->t[j].key = key;
        s->n++;
    }
    s->t[j].n++;
    return MH_OK;
}

/* The deferred adds of the hash map, counted. */
static int cnt_drain(mh_lcnt *s, mh_big_cache *cache, size_t *bytes) {
    for (; s->npend; s->npend--, s->hpend = (s->hpend + 1) % MH_LCNT_AHEAD)
        if (mh_lcnt_hash_add(s, cache, bytes, s->pend[s->hpend], s->pendh[s->hpend]) != MH_OK) return MH_ERR_NOMEM;
    s->hpend = 0;
    return MH_OK;
}

int mh_lcnt_split(mh_lcnt *s, mh_big_cache *cache, size_t *bytes, uint64_t **kc, size_t *n) {
    assert(s->t);
    if (cnt_drain(s, cache, bytes) != MH_OK) return MH_ERR_NOMEM;
    size_t m = 0;
    for (size_t i = 0; i < s->cap; i++) m += s->t[i].key && mh_lcnt_part(s->t[i].key);
    uint64_t *out = malloc((m ? m : 1) * 2 * sizeof *out);
    mh_lcnt_ent *t = out ? mh_big_cache_calloc(cache, s->cap, sizeof *t) : NULL;
    if (!t) {
        free(out);
        return MH_ERR_NOMEM;
    }
    size_t k = 0;
    for (size_t i = 0; i < s->cap; i++) {
        const mh_lcnt_ent *e = &s->t[i];
        if (!e->key) continue;
        if (mh_lcnt_part(e->key)) {
            out[k] = e->key;
            out[m + k++] = e->n;
        } else {
            cnt_put(t, s->cap, e->key, e->n);
        }
    }
    mh_big_cache_put(cache, s->t, s->cap, sizeof *t);
    s->t = t;
    s->n -= m;
    *kc = out;
    *n = m;
    return MH_OK;
}

void mh_lcnt_give(mh_lcnt *s, size_t *bytes, mh_lcnt_ent **t, size_t *cap) {
    assert(s->t && !s->npend && !s->buf && !s->ukey);
    *t = s->t;
    *cap = s->cap;
    *bytes -= s->cap * sizeof *s->t;
    memset(s, 0, sizeof *s);
}

void mh_lcnt_take(mh_lcnt *s, size_t *bytes, mh_lcnt_ent *t, size_t cap) {
    assert(!s->t && !s->nbuf && !s->nu && cap && (cap & (cap - 1)) == 0);
    size_t n = 0;
    for (size_t i = 0; i < cap; i++) n += t[i].key != 0;
    s->t = t;
    s->cap = cap;
    s->n = n;
    *bytes += cap * sizeof *t;
}

int mh_lcnt_seed(mh_lcnt *s, mh_big_cache *cache, size_t *bytes, const uint64_t *kc, size_t n) {
    assert(!s->t && !s->nbuf && !s->nu);
    size_t cap = 4096;
    while ((n + 1) * 4 > cap * 3) cap *= 2;
    mh_lcnt_ent *t = mh_big_cache_calloc(cache, cap, sizeof *t);
    if (!t) return MH_ERR_NOMEM;
    for (size_t i = 0; i < n; i++) cnt_put(t, cap, kc[i], kc[n + i]);
    *bytes += cap * sizeof *t;
    s->t = t;
    s->cap = cap;
    s->n = n;
    return MH_OK;
}

/* The counted keys (no pending ones) move into a hash map. */
static int cnt_to_hash(mh_lcnt *s, mh_big_cache *cache, size_t *bytes) {
    assert(s->nbuf == 0 && !s->t);
    size_t cap = 4096;
    while ((s->nu + 1) * 4 > cap * 3) cap *= 2;
    mh_lcnt_ent *t = mh_big_cache_calloc(cache, cap, sizeof *t);
    if (!t) return MH_ERR_NOMEM;
    for (size_t i = 0; i < s->nu; i++) cnt_put(t, cap, s->ukey[i], s->ucnt[i]);
    *bytes += cap * sizeof *t;
    *bytes -= s->capbuf * sizeof(uint64_t) + s->capu * 2 * sizeof(uint64_t);
    mh_big_cache_put(cache, s->buf, s->capbuf, sizeof(uint64_t));
    mh_big_cache_put(cache, s->ukey, s->capu, sizeof(uint64_t));
    mh_big_cache_put(cache, s->ucnt, s->capu, sizeof(uint64_t));
    s->t = t;
    s->cap = cap;
    s->n = s->nu;
    s->buf = s->ukey = s->ucnt = NULL;
    s->capbuf = s->capu = s->nu = 0;
    return MH_OK;
}

/* Room for one more pending key: the buffer grows up to twice the distinct
 * keys counted (at least MH_LCNT_BUF_MIN keys), then its keys are counted. So
 * each access is sorted once and merged an amortised constant number of
 * times, and memory stays proportional to the distinct addresses. */

int mh_lcnt_room(mh_lcnt *s, mh_big_cache *cache, size_t *bytes) {
    size_t limit = 2 * s->nu > MH_LCNT_BUF_MIN ? 2 * s->nu : MH_LCNT_BUF_MIN;
    if (s->capbuf >= limit) {
        int rc = cnt_compact(s, cache, bytes);
        if (rc == MH_OK && s->nu > MH_LCNT_SWITCH) rc = cnt_to_hash(s, cache, bytes);
        return rc;
    }
    size_t cap = s->capbuf ? s->capbuf * 2 : MH_LCNT_BUF_FIRST;
    uint64_t *b = mh_big_cache_take(cache, cap, sizeof *b);
    if (!b) return MH_ERR_NOMEM;
    if (s->nbuf) memcpy(b, s->buf, s->nbuf * sizeof *b);
    mh_big_cache_put(cache, s->buf, s->capbuf, sizeof *b);
    *bytes += (cap - s->capbuf) * sizeof *b;
    s->buf = b;
    s->capbuf = cap;
    return MH_OK;
}

/* LSD radix sort of keys; digits equal in every key (the space/object bits,
 * usually) are skipped. 16-bit digits for many keys, 8-bit ones for a launch
 * of a few thousand addresses: a pass costs n plus the digit's range, and
 * clearing and summing 65,536 counters per pass was most of a small launch's
 * end (bench_import's 2,048-access launches: 19% of `memheat analyze`'s
 * CPU). tmp holds n keys. */
static void radix_sort_u64(uint64_t *v, uint64_t *tmp, size_t n) {
    if (n < 2) return;
    uint64_t all_or = 0, all_and = ~UINT64_C(0);
    for (size_t i = 0; i < n; i++) {
        all_or |= v[i];
        all_and &= v[i];
    }
    uint64_t differ = all_or ^ all_and;
    const unsigned bits = n < (1u << 16) ? 8 : 16, R = 1u << bits;
    const uint64_t mask = R - 1;
    size_t small[256];
    size_t *count = bits == 8 ? small : malloc(R * sizeof *count);
    if (!count) { /* fall back to qsort */
        mh_sort(v, n, sizeof *v, cmp_u64);
        return;
    }
    uint64_t *src = v, *dst = tmp;
    for (unsigned shift = 0; shift < 64; shift += bits) {
        if (!((differ >> shift) & mask)) continue;
        memset(count, 0, R * sizeof *count);
        for (size_t i = 0; i < n; i++) count[(src[i] >> shift) & mask]++;
        size_t sum = 0;
        for (unsigned d = 0; d < R; d++) {
            size_t c = count[d];
            count[d] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++) dst[count[(src[i] >> shift) & mask]++] = src[i];
        uint64_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != v) memcpy(v, src, n * sizeof *v);
    if (count != small) free(count);
}

static int cmp_cnt_key(const void *a, const void *b) {
    uint64_t x = ((const mh_lcnt_ent *)a)->key, y = ((const mh_lcnt_ent *)b)->key;
    return x < y ? -1 : x > y;
}

/* radix_sort_u64 for a hash map's entries, by key. tmp holds n entries. */
static void radix_sort_cnt(mh_lcnt_ent *v, mh_lcnt_ent *tmp, size_t n) {
    uint64_t all_or = 0, all_and = ~UINT64_C(0);
    for (size_t i = 0; i < n; i++) {
        all_or |= v[i].key;
        all_and &= v[i].key;
    }
    uint64_t differ = all_or ^ all_and;
    const unsigned bits = n < (1u << 16) ? 8 : 16, R = 1u << bits;
    const uint64_t mask = R - 1;
    size_t small[256];
    size_t *count = bits == 8 ? small : malloc(R * sizeof *count);
    if (!count) {
        mh_sort(v, n, sizeof *v, cmp_cnt_key);
        return;
    }
    mh_lcnt_ent *src = v, *dst = tmp;
    for (unsigned shift = 0; shift < 64; shift += bits) {
        if (!((differ >> shift) & mask)) continue;
        memset(count, 0, R * sizeof *count);
        for (size_t i = 0; i < n; i++) count[(src[i].key >> shift) & mask]++;
        size_t sum = 0;
        for (unsigned d = 0; d < R; d++) {
            size_t c = count[d];
            count[d] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++) dst[count[(src[i].key >> shift) & mask]++] = src[i];
        mh_lcnt_ent *t = src;
        src = dst;
        dst = t;
    }
    if (src != v) memcpy(v, src, n * sizeof *v);
    if (count != small) free(count);
}

/* A hash map's counts as sorted key and count arrays (*keys holds both: the
 * counts start at *keys + n; free(*keys)). */
static int hash_sorted(mh_lcnt *s, uint64_t **keys) {
    size_t n = s->n, k = 0;
    mh_lcnt_ent *e = s->t;
    for (size_t i = 0; i < s->cap; i++)
        if (e[i].key) e[k++] = e[i];
    assert(k == n);
    uint64_t *kc = mh_big_malloc((n ? n : 1) * 2 * sizeof *kc);
    if (!kc) return MH_ERR_NOMEM;
    if (n > 1) radix_sort_cnt(e, (mh_lcnt_ent *)(void *)kc, n); /* the arrays as scratch: 16 x n bytes */
    for (size_t i = 0; i < n; i++) {
        kc[i] = e[i].key;
        kc[n + i] = e[i].n;
    }
    *keys = kc;
    return MH_OK;
}

/* ---- two parts sorted on several threads (mh_lcnt_sorted_two) ---- */

typedef struct sort2 {
    const mh_lcnt *part[2];
    unsigned k;                             /* threads = buckets */
    uint64_t spl[MH_LCNT_SORT_THREADS - 1]; /* bucket b: keys in (spl[b - 1], spl[b]] */
    size_t cnt[MH_LCNT_SORT_THREADS][MH_LCNT_SORT_THREADS]; /* [thread][bucket]: entries, then where they go */
    size_t at[MH_LCNT_SORT_THREADS + 1];                     /* bucket starts in out, then n */
    mh_lcnt_ent *out, *tmp;
    uint64_t *kc;
    size_t n;
} sort2;

typedef struct sort2_arg {
    sort2 *j;
    unsigned t;
    void (*fn)(sort2 *j, unsigned t);
} sort2_arg;

static inline unsigned bucket_of(const sort2 *j, uint64_t key) {
    unsigned b = 0;
    for (unsigned i = 0; i + 1 < j->k; i++) b += key > j->spl[i];
    return b;
}

/* Thread t's share of both tables (slots [cap * t / k, cap * (t + 1) / k)
 * of each): its entries counted per bucket, or (scatter) each moved to
 * its place in out, the counts having become places. */
static void walk_buckets(sort2 *j, unsigned t, int scatter) {
    for (unsigned p = 0; p < 2; p++) {
        size_t cap = j->part[p]->cap;
        const mh_lcnt_ent *e = j->part[p]->t;
        for (size_t i = cap * t / j->k; i < cap * (t + 1) / j->k; i++) {
            if (!e[i].key) continue;
            size_t *c = &j->cnt[t][bucket_of(j, e[i].key)];
            if (scatter) j->out[*c] = e[i];
            ++*c;
        }
    }
}

static void count_buckets(sort2 *j, unsigned t) { walk_buckets(j, t, 0); }
static void scatter_buckets(sort2 *j, unsigned t) { walk_buckets(j, t, 1); }

static void sort_bucket(sort2 *j, unsigned b) {
    size_t b0 = j->at[b], m = j->at[b + 1] - b0;
    if (m > 1) radix_sort_cnt(j->out + b0, j->tmp + b0, m);
    for (size_t i = b0; i < b0 + m; i++) {
        j->kc[i] = j->out[i].key;
        j->kc[j->n + i] = j->out[i].n;
    }
}

static void *sort2_main(void *arg) {
    sort2_arg *x = arg;
    x->fn(x->j, x->t);
    return NULL;
}

/* fn(j, t) for every t < k, on k threads (this one and k - 1 started; one
 * that cannot start runs here). */
static void on_threads(sort2 *j, void (*fn)(sort2 *j, unsigned t)) {
    pthread_t th[MH_LCNT_SORT_THREADS];
    sort2_arg arg[MH_LCNT_SORT_THREADS];
    int started[MH_LCNT_SORT_THREADS] = {0};
    for (unsigned t = 1; t < j->k; t++) {
        arg[t] = (sort2_arg){j, t, fn};
        started[t] = pthread_create(&th[t], NULL, sort2_main, &arg[t]) == 0;
    }
    fn(j, 0);
    for (unsigned t = 1; t < j->k; t++) {
        if (started[t]) pthread_join(th[t], NULL);
        else fn(j, t);
    }
}

int mh_lcnt_sorted_two(mh_lcnt *a, mh_lcnt *b, mh_big_cache *ca, size_t *ba, mh_big_cache *cb, size_t *bb,
                       unsigned nthreads, uint64_t **kc, size_t *n) {
    assert(nthreads >= 2 && nthreads <= MH_LCNT_SORT_THREADS);
    if (!a->t || !b->t) return 1;
    if (cnt_drain(a, ca, ba) != MH_OK || cnt_drain(b, cb, bb) != MH_OK) return MH_ERR_NOMEM;
    sort2 *j = calloc(1, sizeof *j);
    if (!j) return MH_ERR_NOMEM;
    j->part[0] = a;
    j->part[1] = b;
    j->k = nthreads;
    j->n = a->n + b->n;
    /* splitters: a sample of both tables, the first used slot at each of
     * PER * k even steps through each, sorted */
    enum { PER = 64 };
    size_t ns = 0, want = (size_t)PER * j->k;
    uint64_t *sample = malloc(2 * want * sizeof *sample);
    j->out = sample ? malloc((j->n ? j->n : 1) * sizeof *j->out) : NULL;
    j->tmp = j->out ? malloc((j->n ? j->n : 1) * sizeof *j->tmp) : NULL;
    j->kc = j->tmp ? malloc((j->n ? j->n : 1) * 2 * sizeof *j->kc) : NULL;
    int rc = j->kc ? MH_OK : MH_ERR_NOMEM;
    for (unsigned p = 0; p < 2 && rc == MH_OK; p++) {
        const mh_lcnt *s = j->part[p];
        for (size_t i = 0; i < want; i++)
            for (size_t q = s->cap * i / want; q < s->cap * (i + 1) / want; q++)
                if (s->t[q].key) {
                    sample[ns++] = s->t[q].key;
                    break;
                }
    }
    if (rc == MH_OK) {
        mh_sort(sample, ns, sizeof *sample, cmp_u64);
        for (unsigned i = 0; i + 1 < j->k; i++) j->spl[i] = ns ? sample[(i + 1) * ns / j->k] : 0;
        on_threads(j, count_buckets);
        size_t sum = 0; /* bucket by bucket, thread by thread: where each (thread, bucket)'s entries go */
        for (unsigned bk = 0; bk < j->k; bk++) {
            j->at[bk] = sum;
            for (unsigned t = 0; t < j->k; t++) {
                size_t m = j->cnt[t][bk];
                j->cnt[t][bk] = sum;
                sum += m;
            }
        }
        j->at[j->k] = sum;
        assert(sum == j->n);
        on_threads(j, scatter_buckets);
        on_threads(j, sort_bucket);
        *kc = j->kc;
        *n = j->n;
    } else {
        free(j->kc);
    }
    free(sample);
    free(j->out);
    free(j->tmp);
    free(j);
    return rc;
}

int mh_lcnt_sorted(mh_lcnt *s, mh_big_cache *cache, size_t *bytes, const uint64_t **keys, const uint64_t **cnt,
                   size_t *n, uint64_t **own) {
    *own = NULL;
    if (s->t) {
        if (cnt_drain(s, cache, bytes) != MH_OK) return MH_ERR_NOMEM;
        if (hash_sorted(s, own) != MH_OK) return MH_ERR_NOMEM;
        *n = s->n;
        *keys = *own;
        *cnt = *own + s->n;
        return MH_OK;
    }
    if (cnt_compact(s, cache, bytes) != MH_OK) return MH_ERR_NOMEM;
    *n = s->nu;
    *keys = s->ukey;
    *cnt = s->ucnt;
    return MH_OK;
}

void mh_lcnt_free(mh_lcnt *s, mh_big_cache *cache, size_t *bytes) {
    *bytes -= s->capbuf * sizeof(uint64_t) + s->capu * 2 * sizeof(uint64_t) + s->cap * sizeof(mh_lcnt_ent);
    mh_big_cache_put(cache, s->t, s->cap, sizeof(mh_lcnt_ent));
    mh_big_cache_put(cache, s->buf, s->capbuf, sizeof(uint64_t));
    mh_big_cache_put(cache, s->ukey, s->capu, sizeof(uint64_t));
    mh_big_cache_put(cache, s->ucnt, s->capu, sizeof(uint64_t));
    memset(s, 0, sizeof *s);
}
