/* test_diff.c -- `memheat diff` on a before/after pair: profile B is profile
 * A with one kernel twice as fast, its false-sharing finding gone and a new
 * finding on another kernel; the terminal table and the HTML page must say
 * exactly that, and a profile compared with itself must show no change. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memheat/store.h"
#include "mh_test.h"
#include "report/report.h"

static const char *make_profile;

static char *diff_text_opts(const char *a, const char *b, char **html, const mh_report_diff_opts *o) {
    mh_err err = {0};
    mh_db *da, *db;
    CHECK(mh_db_open(&da, a, MH_DB_CHECK, &err) == MH_OK);
    CHECK(mh_db_open(&db, b, MH_DB_CHECK, &err) == MH_OK);
    char *buf = NULL, *hbuf = NULL;
    size_t n = 0, hn = 0;
    FILE *f = open_memstream(&buf, &n), *h = open_memstream(&hbuf, &hn);
    CHECK(mh_report_diff_ex(da, db, f, 0, h, o, &err) == MH_OK);
    fclose(f);
    fclose(h);
    mh_db_close(da);
    mh_db_close(db);
    *html = hbuf;
    return buf;
}

static char *diff_text(const char *a, const char *b, char **html) { return diff_text_opts(a, b, html, NULL); }

/* the terminal line of kernel `name` (first column), or "" */
static const char *line_of(const char *text, const char *name, char *out, size_t cap) {
    out[0] = '\0';
    for (const char *p = text; p && *p;) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (strncmp(p, name, strlen(name)) == 0 && p[strlen(name)] == ' ') {
            snprintf(out, cap, "%.*s", (int)len, p);
            break;
        }
        p = e ? e + 1 : NULL;
    }
    return out;
}

static void test_before_after(void) {
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "%s synth diff_a.mhdb && cp diff_a.mhdb diff_b.mhdb", make_profile);
    CHECK(system(cmd) == 0);
    sqlite3 *h;
    CHECK(sqlite3_open("diff_b.mhdb", &h) == SQLITE_OK);
    CHECK(sqlite3_exec(h,
                       "UPDATE kernel SET total_ns = total_ns / 2 WHERE name = 'false_sharing';"
                       "DELETE FROM finding WHERE kind = 'false_sharing';"
                       "INSERT INTO finding(launch, space, object_label, kind, cost) SELECT id, 'global',"
                       " 'coalesced', 'strided', 1 FROM launch WHERE name = 'coalesced';",
                       0, 0, 0) == SQLITE_OK);
    sqlite3_close(h);
    char *html;
    char *t = diff_text("diff_a.mhdb", "diff_b.mhdb", &html);
    char line[512];
    CHECK(strstr(line_of(t, "false_sharing", line, sizeof line), "-50.0%") != NULL);
    CHECK(strstr(line_of(t, "strided", line, sizeof line), "+0.0%") != NULL);
    CHECK(strstr(t, "- disappeared: false_sharing in false_sharing (global)") != NULL);
    CHECK(strstr(t, "+ appeared:    strided in coalesced (global)") != NULL);
    CHECK(strstr(t, "only in") == NULL);
    CHECK(strstr(html, "id=\"diff-table\"") != NULL);
    CHECK(strstr(html, "<li class=\"worse\">strided in coalesced (global)</li>") != NULL);
    CHECK(strstr(html, "<li class=\"better\">false_sharing in false_sharing (global)</li>") != NULL);
    free(t);
    free(html);
    /* itself: nothing appears or disappears */
    t = diff_text("diff_a.mhdb", "diff_a.mhdb", &html);
    CHECK(strstr(t, "appeared") == NULL);
    CHECK(strstr(line_of(t, "hot", line, sizeof line), "+0.0%") != NULL);
    free(t);
    free(html);
}

/* B renamed two kernels (strided -> strided_fixed, hot -> hot_v2) and made
 * strided_fixed twice as fast: by name both are "only in"; --pair pairs the
 * first, --match order the second too, and the output names the pairing. */
static void test_rename(void) {
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "%s synth ren_a.mhdb && cp ren_a.mhdb ren_b.mhdb", make_profile);
    CHECK(system(cmd) == 0);
    sqlite3 *h;
    CHECK(sqlite3_open("ren_b.mhdb", &h) == SQLITE_OK);
    CHECK(sqlite3_exec(h,
                       "UPDATE kernel SET name = 'strided_fixed', total_ns = total_ns / 2 WHERE name = 'strided';"
                       "UPDATE kernel_run SET name = 'strided_fixed' WHERE name = 'strided';"
                       "UPDATE launch SET name = 'strided_fixed', display_name = 'strided_fixed' WHERE name = 'strided';"
                       "UPDATE kernel SET name = 'hot_v2' WHERE name = 'hot';"
                       "UPDATE kernel_run SET name = 'hot_v2' WHERE name = 'hot';"
                       "UPDATE launch SET name = 'hot_v2', display_name = 'hot_v2' WHERE name = 'hot';",
                       0, 0, 0) == SQLITE_OK);
    sqlite3_close(h);
    char *html, line[512];
    char *t = diff_text("ren_a.mhdb", "ren_b.mhdb", &html);
    CHECK(strstr(line_of(t, "strided", line, sizeof line), "(only in A)") != NULL);
    CHECK(strstr(line_of(t, "strided_fixed", line, sizeof line), "(only in B)") != NULL);
    CHECK(strstr(t, "pairing: by name (only)") != NULL);
    free(t);
    free(html);
    const char *old[] = {"strided"}, *new[] = {"strided_fixed"};
    mh_report_diff_opts o = {.pair_old = old, .pair_new = new, .npairs = 1};
    t = diff_text_opts("ren_a.mhdb", "ren_b.mhdb", &html, &o);
    CHECK(strstr(line_of(t, "strided", line, sizeof line), "-50.0%") != NULL);
    CHECK(strstr(t, "paired by --pair: A strided = B strided_fixed") != NULL);
    CHECK(strstr(t, "pairing: by name; 1 by --pair\n") != NULL);
    CHECK(strstr(line_of(t, "hot", line, sizeof line), "(only in A)") != NULL);
    CHECK(strstr(line_of(t, "strided_fixed", line, sizeof line), "only in") == NULL); /* no row of its own */
    CHECK(strstr(html, "strided &rarr; strided_fixed<div class=\"muted\">paired by --pair</div>") != NULL);
    free(t);
    free(html);
    o.match_order = 1;
    t = diff_text_opts("ren_a.mhdb", "ren_b.mhdb", &html, &o);
    CHECK(strstr(t, "paired by launch order: A hot = B hot_v2") != NULL);
    CHECK(strstr(t, "pairing: by name; 1 by --pair; 1 by launch order (--match order)") != NULL);
    CHECK(strstr(t, "only in") == NULL);
    free(t);
    free(html);
}

int main(int argc, char **argv) {
    make_profile = argc > 1 ? argv[1] : "./mh_make_profile";
    static const mh_test_case cases[] = {{"before_after", test_before_after}, {"rename", test_rename}};
    return mh_test_run(cases, sizeof cases / sizeof cases[0]);
}
