/* test_ocl_sink.c -- the Oclgrind collector's C logic (ocl_sink.c) driven
 * directly, without Oclgrind, by several threads the way Oclgrind's workers
 * drive it: each thread runs whole work-groups, interleaving their work-items
 * as Oclgrind does at barriers. Checks that no access is lost or duplicated
 * (exact count, every per-work-item sequence number exactly once), the
 * local-memory window, labels, and launch/block sampling. Runs under ASan/UBSan
 * with the rest of the suite. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../mh_test.h"
#include "memheat/trace.h"
#include "ocl_sink.h"

#define GROUPS 96
#define ITEMS 128
#define THREADS 6
#define GBASE (1ull << 48)

typedef struct worker {
    mh_ocl *o;
    int id;
    int keys[GROUPS];
} worker;

/* accesses made by work-item `item` of group g */
static uint32_t n_of(uint32_t g, uint32_t item) { return 1 + (g * 7 + item * 3) % 23; }

static void *run_worker(void *p) {
    worker *w = p;
    for (uint32_t g = (uint32_t)w->id; g < GROUPS; g += THREADS) {
        const void *key = &w->keys[g];
        mh_ocl_group_begin(w->o, key, (mh_dim3){g, 0, 0}, ITEMS);
        /* round-robin over work-items, one access each per round */
        for (uint32_t step = 0; step < 23; step++) {
            mh_ocl_group *grp = mh_ocl_group_find(w->o, key);
            if (!grp) break; /* not sampled */
            for (uint32_t it = 0; it < ITEMS; it++) {
                if (step >= n_of(g, it)) continue;
                if (step % 4 == 3)
                    mh_ocl_access(w->o, grp, it, MH_SPACE_SHARED, MH_KIND_STORE, 2, it * 4, 4, 0x100 + step);
                else
                    mh_ocl_access(w->o, grp, it, MH_SPACE_GLOBAL, MH_KIND_LOAD, 0,
                                  GBASE + 4ull * (g * ITEMS + it), 4, 0x100 + step);
            }
        }
        mh_ocl_group_end(w->o, key);
    }
    return NULL;
}

static void launch(mh_ocl *o, const char *name) {
    mh_ocl_kernel k = {.name = name, .groups = {GROUPS, 1, 1}, .local = {ITEMS, 1, 1}, .local_bytes = 1536};
    if (mh_ocl_kernel_begin(o, &k)) {
        mh_ocl_kernel_arg(o, "input", GBASE + 64, MH_SPACE_GLOBAL);
        mh_ocl_pcinfo(o, 0x101, name, "k.cl", 7);
        mh_ocl_pcinfo(o, 0x101, name, "k.cl", 7); /* duplicate: written once */
        mh_ocl_kernel_ready(o);
    }
    static worker ws[THREADS];
    pthread_t th[THREADS];
    for (int i = 0; i < THREADS; i++) {
        ws[i].o = o;
        ws[i].id = i;
        pthread_create(&th[i], NULL, run_worker, &ws[i]);
    }
    /* the first group reports the local layout, as the shim does */
    for (int i = 0; i < THREADS; i++) pthread_join(th[i], NULL);
    mh_ocl_kernel_end(o);
}

typedef struct tally {
    uint64_t accesses, shared, launches, allocs, pcinfos, kernel_ends, recorded, dropped;
    uint8_t seen[GROUPS][ITEMS][23];
    uint64_t dup, bad_seq, bad_addr;
    char label[64], shared_label[64];
    uint64_t shared_base;
    uint64_t kargs, karg_value;    /* KARG records; the last one's value, index, name and type */
    uint32_t karg_index, karg_launch_seen;
    char karg_name[64], karg_type[64];
} tally;

static int read_trace(const char *path, tally *t) {
    memset(t, 0, sizeof *t);
    mh_trace_reader *r;
    mh_err err;
    if (mh_trace_open(&r, path, &err) != MH_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    mh_record rec;
    while (mh_trace_next(r, &rec, &err) == MH_OK && rec.type != MH_REC_EOF) {
        switch (rec.type) {
        case MH_REC_LAUNCH: t->launches++; break;
        case MH_REC_ALLOC:
            t->allocs++;
            if (rec.u.alloc.space == MH_SPACE_SHARED) {
                snprintf(t->shared_label, sizeof t->shared_label, "%s", rec.u.alloc.label);
                t->shared_base = rec.u.alloc.base;
            } else if (rec.u.alloc.base == GBASE) {
                snprintf(t->label, sizeof t->label, "%s", rec.u.alloc.label);
            }
            break;
        case MH_REC_PCINFO: t->pcinfos++; break;
        case MH_REC_KARG:
            t->kargs++;
            t->karg_launch_seen = t->launches; /* launches read before it: must be 1 */
            t->karg_value = rec.u.karg.value;
            t->karg_index = rec.u.karg.index;
            snprintf(t->karg_name, sizeof t->karg_name, "%s", rec.u.karg.name);
            snprintf(t->karg_type, sizeof t->karg_type, "%s", rec.u.karg.type);
            break;
        case MH_REC_KERNEL_END:
            t->kernel_ends++;
            t->recorded += rec.u.kernel_end.recorded;
            t->dropped += rec.u.kernel_end.dropped;
            break;
        case MH_REC_ACCESSES:
            for (size_t i = 0; i < rec.u.accesses.n; i++) {
                const mh_access *a = &rec.u.accesses.v[i];
                t->accesses++;
                if (a->block >= GROUPS || a->thread >= ITEMS || a->seq >= 23) {
                    t->bad_seq++;
                    continue;
                }
                if (t->seen[a->block][a->thread][a->seq]++) t->dup++;
                if (MH_ACCESS_SPACE(a) == MH_SPACE_SHARED) {
                    t->shared++;
                    if (a->addr != t->shared_base + 4ull * a->thread) t->bad_addr++;
                } else if (a->addr != GBASE + 4ull * (a->block * ITEMS + a->thread)) {
                    t->bad_addr++;
                }
                if (a->pc != 0x100 + a->seq) t->bad_seq++;
            }
            break;
        default: break;
        }
    }
    int complete = mh_trace_complete(r);
    mh_trace_close_reader(r);
    return complete ? 0 : 1;
}

static char g_path[256];

static void unlink_run(void) {
    char man[300];
    snprintf(man, sizeof man, "%s.procs", g_path);
    unlink(g_path);
    unlink(man);
}

static mh_ocl *open_with(const char *all, const char *block, const char *blocks, const char *kernel) {
    unlink_run(); /* a new run: the collector claims the plain name again */
    setenv("MEMHEAT_TRACE", g_path, 1);
    setenv("MEMHEAT_ALL_BLOCKS", all, 1);
    setenv("MEMHEAT_BLOCK", block, 1);
    setenv("MEMHEAT_BLOCKS", blocks, 1);
    setenv("MEMHEAT_KERNEL", kernel, 1);
    mh_ocl *o = NULL;
    mh_err err;
    if (mh_ocl_open(&o, "test", &err) != MH_OK) fprintf(stderr, "open: %s\n", err.msg);
    return o;
}

static void add_layout(mh_ocl *o) {
    /* what the shim's workGroupBegin does for the first group */
    if (mh_ocl_local_needed(o)) {
        mh_ocl_local_var(o, 1, 100, 4, "first");
        mh_ocl_local_var(o, 2, ITEMS * 4, 256, "tile");
        mh_ocl_local_done(o);
    }
}

static void test_exact_count_all_blocks(void) {
    mh_ocl *o = open_with("1", "0", "1", "");
    CHECK(o != NULL);
    if (!o) return;
    mh_ocl_buffer_alloc(o, GBASE, 4ull * GROUPS * ITEMS);
    mh_ocl_kernel k = {.name = "count", .groups = {GROUPS, 1, 1}, .local = {ITEMS, 1, 1}};
    CHECK(mh_ocl_kernel_begin(o, &k) == 1);
    mh_ocl_kernel_param(o, 1, "input", "float*", GBASE + 64, MH_SPACE_GLOBAL);
    mh_ocl_kernel_arg(o, "other", GBASE, MH_SPACE_GLOBAL); /* first label wins */
    mh_ocl_pcinfo(o, 0x101, "count", "k.cl", 7);
    mh_ocl_pcinfo(o, 0x101, "count", "k.cl", 7);
    mh_ocl_kernel_ready(o);
    add_layout(o);
    add_layout(o); /* a second group must not redo it */
    static worker ws[THREADS];
    pthread_t th[THREADS];
    for (int i = 0; i < THREADS; i++) {
        ws[i].o = o;
        ws[i].id = i;
        pthread_create(&th[i], NULL, run_worker, &ws[i]);
    }
    for (int i = 0; i < THREADS; i++) pthread_join(th[i], NULL);
    mh_ocl_kernel_end(o);
    uint64_t want = 0, want_shared = 0;
    for (uint32_t g = 0; g < GROUPS; g++)
        for (uint32_t it = 0; it < ITEMS; it++) {
            want += n_of(g, it);
            for (uint32_t s = 0; s < n_of(g, it); s++) want_shared += s % 4 == 3;
        }
    CHECK_EQ_U(mh_ocl_recorded(o), want);
    CHECK_EQ_U(mh_ocl_dropped(o), 0);
    mh_err err;
    CHECK(mh_ocl_close(o, &err) == MH_OK);
    static tally t;
    CHECK(read_trace(g_path, &t) == 0);
    CHECK_EQ_U(t.accesses, want);
    CHECK_EQ_U(t.shared, want_shared);
    CHECK_EQ_U(t.recorded, want);
    CHECK_EQ_U(t.dropped, 0);
    CHECK_EQ_U(t.dup, 0);
    CHECK_EQ_U(t.bad_seq, 0);
    CHECK_EQ_U(t.bad_addr, 0);
    CHECK_EQ_U(t.launches, 1);
    CHECK_EQ_U(t.kernel_ends, 1);
    CHECK_EQ_U(t.pcinfos, 1);
    CHECK(strcmp(t.label, "input") == 0);
    /* the pointer parameter as a KARG record after the launch record */
    CHECK_EQ_U(t.kargs, 1);
    CHECK_EQ_U(t.karg_launch_seen, 1);
    CHECK_EQ_U(t.karg_value, GBASE + 64);
    CHECK_EQ_U(t.karg_index, 1);
    CHECK(!strcmp(t.karg_name, "input") && !strcmp(t.karg_type, "float*"));
    CHECK(strcmp(t.shared_label, "tile") == 0);
    CHECK_EQ_U(t.shared_base, 256); /* "first" [0,100) then 256-aligned */
    /* every sequence number of every work-item exactly once */
    uint64_t missing = 0;
    for (uint32_t g = 0; g < GROUPS; g++)
        for (uint32_t it = 0; it < ITEMS; it++)
            for (uint32_t s = 0; s < n_of(g, it); s++) missing += t.seen[g][it][s] != 1;
    CHECK_EQ_U(missing, 0);
}

static void test_block_and_kernel_sampling(void) {
    /* blocks 5..7 of launches matching "^keep" only */
    mh_ocl *o = open_with("0", "5", "3", "^keep");
    CHECK(o != NULL);
    if (!o) return;
    mh_ocl_buffer_alloc(o, GBASE, 4ull * GROUPS * ITEMS);
    launch(o, "skipme");
    launch(o, "keepme");
    uint64_t want = 0;
    for (uint32_t g = 5; g < 8; g++)
        for (uint32_t it = 0; it < ITEMS; it++) want += n_of(g, it);
    mh_err err;
    CHECK(mh_ocl_close(o, &err) == MH_OK);
    static tally t;
    CHECK(read_trace(g_path, &t) == 0);
    CHECK_EQ_U(t.launches, 1);
    CHECK_EQ_U(t.accesses, want);
    uint64_t outside = 0;
    for (uint32_t g = 0; g < GROUPS; g++)
        for (uint32_t it = 0; it < ITEMS; it++)
            if ((g < 5 || g > 7) && t.seen[g][it][0]) outside++;
    CHECK_EQ_U(outside, 0);
}

static void test_bad_trace_path(void) {
    setenv("MEMHEAT_TRACE", "/nonexistent-dir/x.mht", 1);
    mh_ocl *o = NULL;
    mh_err err;
    mh_err_clear(&err);
    CHECK(mh_ocl_open(&o, "test", &err) != MH_OK);
    CHECK(o == NULL);
    CHECK(strstr(err.msg, "nonexistent") != NULL);
}

int main(void) {
    snprintf(g_path, sizeof g_path, "/tmp/memheat-test-ocl-sink-%ld.mht", (long)getpid());
    static const mh_test_case cases[] = {
        {"exact count, all blocks, 6 threads", test_exact_count_all_blocks},
        {"block and kernel sampling", test_block_and_kernel_sampling},
        {"unwritable trace path", test_bad_trace_path},
    };
    int rc = mh_test_run(cases, sizeof cases / sizeof cases[0]);
    unlink_run();
    return rc;
}
