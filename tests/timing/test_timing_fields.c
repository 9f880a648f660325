/* test_timing_fields.c -- the field lists of memheat/timing_fields.h drive
 * every place a timing record is spelled out: each field of each list gets a
 * distinct value, survives the JSON round trip and the profile import (read
 * back by the generated column names), and a file missing a required field
 * is refused while one missing an optional field is read. */
#include <jansson.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../mh_test.h"
#include "import/import.h"
#include "store/store.h"
#include "memheat/timing.h"

static char dir[1024];

static const char *path_of(const char *name) {
    static char buf[4][1200];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

/* Distinct values per field: the i-th field of a list gets base + i. */
#define SET_U32(p, f, i) ((p)->f = 100u + (uint32_t)(i))
#define SET_U64(p, f, i) ((p)->f = UINT64_C(1000000000000) + (uint64_t)(i))
#define SET_STR256(p, f, i) snprintf((p)->f, sizeof (p)->f, "str-%d", (int)(i))
#define SET_NAME(p, f, i) ((void)(i))
#define SET_DIM3(p, f, i) ((p)->f[0] = 10u * (uint32_t)(i), (p)->f[1] = 10u * (uint32_t)(i) + 1, (p)->f[2] = 10u * (uint32_t)(i) + 2)
#define SET_REAL(p, f, i) ((p)->f = (double)(i) + 0.5)
#define SET(KIND, f, REQ, col, BRK) SET_##KIND(rec, f, idx++);

#define SAME_U32(a, b, f) CHECK_EQ_U((a)->f, (b)->f)
#define SAME_U64(a, b, f) CHECK_EQ_U((a)->f, (b)->f)
#define SAME_STR256(a, b, f) CHECK(strcmp((a)->f, (b)->f) == 0)
#define SAME_NAME(a, b, f) CHECK(strcmp((a)->f, (b)->f) == 0)
#define SAME_DIM3(a, b, f) CHECK(memcmp((a)->f, (b)->f, sizeof (a)->f) == 0)
#define SAME_REAL(a, b, f) CHECK((a)->f == (b)->f)
#define SAME(KIND, f, REQ, col, BRK) SAME_##KIND(want, got, f);

static void fill(mh_timing *t) {
    mh_timing_init(t);
    int idx = 0;
    mh_timing_device d;
    memset(&d, 0, sizeof d);
    {
        mh_timing_device *rec = &d;
        MH_TIMING_DEVICE_FIELDS(SET)
    }
    CHECK(mh_timing_add_device(t, &d) == 0);
    mh_timing_kernel *k = mh_timing_add_kernel(t, "kernel_one");
    CHECK(k != NULL);
    if (!k) return;
    {
        mh_timing_kernel *rec = k;
        MH_TIMING_KERNEL_FIELDS(SET)
    }
    k->has_counters = 1;
    {
        mh_timing_counters *rec = &k->c;
        MH_TIMING_COUNTER_FIELDS(SET)
    }
    mh_timing_copy *c = mh_timing_add_copy(t);
    CHECK(c != NULL);
    if (!c) return;
    c->kind = MH_COPY_MEMSET;
    c->value = 7;
    mh_timing_copy *rec = c;
    MH_TIMING_COPY_FIELDS(SET)
}

static void test_round_trip(void) {
    mh_timing t, u;
    fill(&t);
    const char *p = path_of("fields.json");
    CHECK(mh_timing_save(&t, NULL, p, NULL) == MH_OK);
    CHECK(mh_timing_load(&u, p, NULL) == MH_OK);
    CHECK_EQ_U(u.ndevices, 1);
    CHECK_EQ_U(u.nkernels, 1);
    CHECK_EQ_U(u.ncopies, 1);
    if (u.ndevices == 1 && u.nkernels == 1 && u.ncopies == 1) {
        {
            const mh_timing_device *want = &t.devices[0], *got = &u.devices[0];
            MH_TIMING_DEVICE_FIELDS(SAME)
        }
        {
            const mh_timing_kernel *want = &t.kernels[0], *got = &u.kernels[0];
            MH_TIMING_KERNEL_FIELDS(SAME)
            CHECK_EQ_U(got->has_counters, 1);
        }
        {
            const mh_timing_counters *want = &t.kernels[0].c, *got = &u.kernels[0].c;
            MH_TIMING_COUNTER_FIELDS(SAME)
        }
        {
            const mh_timing_copy *want = &t.copies[0], *got = &u.copies[0];
            MH_TIMING_COPY_FIELDS(SAME)
            CHECK_EQ_U(got->kind, MH_COPY_MEMSET);
            CHECK_EQ_U(got->value, 7);
        }
    }
    mh_timing_free(&u);
    mh_timing_free(&t);
    unlink(p);
}

/* Removes one key of the first element of array `arr` and loads the file. */
static int load_without(const char *src, const char *arr, const char *key) {
    json_t *root = json_load_file(src, 0, NULL);
    CHECK(root != NULL);
    if (!root) return -1;
    json_t *o = json_array_get(json_object_get(root, arr), 0);
    CHECK(json_object_del(o, key) == 0);
    const char *p = path_of("fields_missing.json");
    CHECK(json_dump_file(root, p, 0) == 0);
    json_decref(root);
    mh_timing t;
    int rc = mh_timing_load(&t, p, NULL);
    if (rc == MH_OK) mh_timing_free(&t);
    unlink(p);
    return rc;
}

/* A DIM3 is spelled as one key; a NAME is required too. */
#define MISSING(KIND, f, REQ, col, BRK) \
    CHECK_EQ_U(load_without(p, arr, #f) == MH_ERR_FORMAT, MH_TF_OPT_##REQ == 0);

static void test_required(void) {
    mh_timing t;
    fill(&t);
    char p[1200]; /* path_of's buffers are reused by load_without */
    snprintf(p, sizeof p, "%s", path_of("fields_full.json"));
    CHECK(mh_timing_save(&t, NULL, p, NULL) == MH_OK);
    mh_timing_free(&t);
    const char *arr = "devices";
    MH_TIMING_DEVICE_FIELDS(MISSING)
    arr = "kernels";
    MH_TIMING_KERNEL_FIELDS(MISSING)
    arr = "copies";
    MH_TIMING_COPY_FIELDS(MISSING)
    unlink(p);
}

/* The profile: the import writes every field; read back by the names the
 * lists generate. */
static void test_profile(void) {
    mh_timing t;
    fill(&t);
    const char *p = path_of("fields_profile.json"), *dbp = path_of("fields.mhdb");
    CHECK(mh_timing_save(&t, NULL, p, NULL) == MH_OK);
    mh_db *db = NULL;
    CHECK(mh_db_create(&db, dbp, 1, NULL) == MH_OK);
    if (db) {
        CHECK(mh_db_import_timing(db, p, NULL) == MH_OK);
        mh_db_close(db);
    }
    sqlite3 *s = NULL;
    CHECK(sqlite3_open(dbp, &s) == SQLITE_OK);
    sqlite3_stmt *st = NULL;
    CHECK(sqlite3_prepare_v2(s,
                             "SELECT id" MH_TIMING_KERNEL_FIELDS(MH_TF_SQL_NAMES) ", has_counters"
                             MH_TIMING_COUNTER_FIELDS(MH_TF_SQL_NAMES) " FROM kernel_run",
                             -1, &st, NULL) == SQLITE_OK);
    CHECK(st && sqlite3_step(st) == SQLITE_ROW);
    if (st) {
        const mh_timing_kernel *k = &t.kernels[0];
        int i = 1;
#define COL_U32(f) CHECK_EQ_U((uint64_t)sqlite3_column_int64(st, i++), k->f)
#define COL_U64(f) CHECK_EQ_U((uint64_t)sqlite3_column_int64(st, i++), k->f)
#define COL_NAME(f) CHECK(strcmp((const char *)sqlite3_column_text(st, i++), k->f) == 0)
#define COL_DIM3(f) \
    for (int d_ = 0; d_ < 3; d_++) CHECK_EQ_U((uint64_t)sqlite3_column_int64(st, i++), k->f[d_])
#define COL(KIND, f, REQ, col, BRK) COL_##KIND(f);
        MH_TIMING_KERNEL_FIELDS(COL)
        CHECK_EQ_U(sqlite3_column_int(st, i++), 1);
#define COL_C(KIND, f, REQ, col, BRK) CHECK(sqlite3_column_double(st, i++) == k->c.f);
        MH_TIMING_COUNTER_FIELDS(COL_C)
        CHECK_EQ_U(i, sqlite3_column_count(st));
    }
    sqlite3_finalize(st);
    st = NULL;
    CHECK(sqlite3_prepare_v2(s, "SELECT kind" MH_TIMING_COPY_FIELDS(MH_TF_SQL_NAMES) ", value FROM copy", -1, &st,
                             NULL) == SQLITE_OK);
    CHECK(st && sqlite3_step(st) == SQLITE_ROW);
    if (st) {
        const mh_timing_copy *k = &t.copies[0];
        int i = 0;
        CHECK(strcmp((const char *)sqlite3_column_text(st, i++), "memset") == 0);
        MH_TIMING_COPY_FIELDS(COL)
        CHECK_EQ_U(sqlite3_column_int(st, i++), 7);
    }
    sqlite3_finalize(st);
    st = NULL;
    CHECK(sqlite3_prepare_v2(s, "SELECT source" MH_TIMING_DEVICE_FIELDS(MH_TF_SQL_NAMES) " FROM device", -1, &st,
                             NULL) == SQLITE_OK);
    CHECK(st && sqlite3_step(st) == SQLITE_ROW);
    if (st) {
        const mh_timing_device *k = &t.devices[0];
        int i = 0;
        CHECK(strcmp((const char *)sqlite3_column_text(st, i++), "timing") == 0);
#define COL_STR256(f) CHECK(strcmp((const char *)sqlite3_column_text(st, i++), k->f) == 0)
        MH_TIMING_DEVICE_FIELDS(COL)
    }
    sqlite3_finalize(st);
    sqlite3_close(s);
    mh_timing_free(&t);
    unlink(p);
    unlink(dbp);
}

int main(int argc, char **argv) {
    snprintf(dir, sizeof dir, "%s", argc > 1 ? argv[1] : ".");
    static const mh_test_case cases[] = {T(test_round_trip), T(test_required), T(test_profile)};
    return mh_test_run(cases, sizeof cases / sizeof cases[0]);
}
