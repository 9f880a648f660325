/* test_diff.c -- `memheat diff` on a before/after pair: profile B is profile
 * A with one kernel twice as fast, its false-sharing finding gone and a new
 * finding on another kernel; the terminal table and the HTML page must say
 * exactly that, and a profile compared with itself must show no change.
 * Three ranks (make_profile ranks, rank 1 three times slower, a finding on
 * rank 1 only): the numbers of the view by rank, the report's folding and
 * the diff by rank against the same job with rank 1 fixed. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"
#include "mh_test.h"
#include "report/rankdata.h"
#include "report/report.h"

#include <jansson.h>

static const char *make_profile;

static char *diff_text_opts(const char *a, const char *b, char **html, const mh_report_diff_opts *o) {
    mh_err err = {0};
    mh_db *da, *db;
    CHECK(mh_db_open(&da, a, 0, &err) == MH_OK);
    CHECK(mh_db_open(&db, b, 0, &err) == MH_OK);
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

/* issue 40: a diff leads with the run's total, pairs kernels by their full
 * names and never prints two different kernels alike. A and B hold two
 * PyTorch element-wise kernels whose names differ only inside a lambda's
 * template (both "at::native::elementwise_kernel<128, 2, ...>" when
 * shortened); B made the second one twice as fast. */
#define EW1 "_ZN2at6native18elementwise_kernelILi128ELi2EZNS0_22gpu_kernel_impl_nocastIZZZNS0_23direct_copy_kernel_" \
            "cudaERNS_18TensorIteratorBaseEENKUlvE1_clEvENKUlvE8_clEvEUlfE_EEvS4_RKT_EUliE_EEviT1_"
#define EW2 "_ZN2at6native18elementwise_kernelILi128ELi2EZNS0_22gpu_kernel_impl_nocastIZZZNS0_23direct_copy_kernel_" \
            "cudaERNS_18TensorIteratorBaseEENKUlvE1_clEvENKUlvE7_clEvEUlfE_EEvS4_RKT_EUliE_EEviT1_"
static void test_full_names(void) {
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "%s synth full_a.mhdb", make_profile);
    CHECK(system(cmd) == 0);
    sqlite3 *h;
    CHECK(sqlite3_open("full_a.mhdb", &h) == SQLITE_OK);
    CHECK(sqlite3_exec(h,
                       "UPDATE kernel SET name = '" EW1 "' WHERE name = 'coalesced';"
                       "UPDATE kernel_run SET name = '" EW1 "' WHERE name = 'coalesced';"
                       "UPDATE launch SET name = '" EW1 "', display_name = '" EW1 "' WHERE name = 'coalesced';"
                       "UPDATE kernel SET name = '" EW2 "' WHERE name = 'strided';"
                       "UPDATE kernel_run SET name = '" EW2 "' WHERE name = 'strided';"
                       "UPDATE launch SET name = '" EW2 "', display_name = '" EW2 "' WHERE name = 'strided';",
                       0, 0, 0) == SQLITE_OK);
    sqlite3_close(h);
    CHECK(system("cp full_a.mhdb full_b.mhdb") == 0);
    CHECK(sqlite3_open("full_b.mhdb", &h) == SQLITE_OK);
    CHECK(sqlite3_exec(h,
                       "UPDATE kernel SET total_ns = total_ns / 2 WHERE name = '" EW2 "';"
                       "UPDATE kernel_run SET end_ns = start_ns + (end_ns - start_ns) / 2 WHERE name = '" EW2 "';"
                       "DELETE FROM finding WHERE kind = 'strided';",
                       0, 0, 0) == SQLITE_OK);
    sqlite3_close(h);
    char *html;
    char *t = diff_text("full_a.mhdb", "full_b.mhdb", &html);
    /* the total first, after the header line */
    const char *nl = strchr(t, '\n');
    CHECK(nl && !strncmp(nl + 1, "total: kernel time ", 19));
    CHECK(strstr(t, "fixes: 1 resolved") != NULL);
    /* every row's name its own */
    int rows = 0, named = 0;
    for (const char *p = t; (p = strstr(p, "at::native::elementwise_kernel<128, 2, ")) != NULL; p++) {
        rows++;
        const char *e = strchr(p, '\n');
        char line[2048];
        snprintf(line, sizeof line, "%.*s", (int)(e ? e - p : 0), p);
        for (const char *q = t; (q = strstr(q, "at::native::elementwise_kernel<128, 2, ")) != NULL; q++)
            if (q != p && !strncmp(q, line, strcspn(line, " ") + 1) && strstr(line, "(only")) named = -100;
        if (strstr(line, "-50.0%")) named++;
    }
    CHECK(rows >= 2);
    CHECK(named == 1); /* paired by full name: the faster one is one row, not "only in A" + "only in B" */
    CHECK(strstr(t, "only in") == NULL);
    char *a = strstr(t, "at::native::elementwise_kernel<128, 2, "), *b = a ? strstr(a + 1, "at::native::elementwise_kernel<128, 2, ") : NULL;
    CHECK(a && b); /* both start alike ... */
    if (a && b) {
        size_t la = strcspn(a, "\n"), lb = strcspn(b, "\n");
        char x[4096], y[4096];
        snprintf(x, sizeof x, "%.*s", (int)la, a);
        snprintf(y, sizeof y, "%.*s", (int)lb, b);
        /* ... but the names differ before the figures: cut both at two spaces */
        char *xs = strstr(x, "  "), *ys = strstr(y, "  ");
        if (xs) *xs = 0;
        if (ys) *ys = 0;
        CHECK(strcmp(x, y) != 0);
    }
    CHECK(strstr(html, "id=\"diff-total\"") != NULL);
    free(t);
    free(html);
}

static char *slurp_html(mh_db *db) {
    mh_err err = {0};
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    CHECK(mh_report_html(db, f, NULL, &err) == MH_OK);
    fclose(f);
    return buf;
}

static void test_ranks(void) {
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "%s ranks rk_a.mhdb && cp rk_a.mhdb rk_b.mhdb", make_profile);
    CHECK(system(cmd) == 0);
    mh_err err = {0};
    mh_db *db;
    json_t *root = NULL;
    CHECK(mh_db_open(&db, "rk_a.mhdb", 0, &err) == MH_OK);
    CHECK(mh_db_read_summary(db, &root, &err) == MH_OK);
    if (!root) return;
    mh_rank_procs p;
    CHECK(mh_report_rank_procs(root, &p) == 0);
    CHECK_EQ_U(p.n, 3);
    CHECK(p.n == 3 && !strcmp(p.v[0].label, "rank 0") && !strcmp(p.v[1].label, "rank 1") && !strcmp(p.v[2].label, "rank 2"));
    mh_rank_kernels k;
    CHECK(mh_report_rank_kernels(root, &p, &k) == 0);
    CHECK(k.timed);
    const mh_rank_krow *sc = mh_report_rank_kernel(&k, "scale");
    CHECK(sc != NULL);
    if (sc) { /* make_profile: 3 runs of (10 + r) us, x3 on rank 1 */
        CHECK(sc->c[0].v == 33000 && sc->c[1].v == 99000 && sc->c[2].v == 33000);
        CHECK(sc->worst == 1 && sc->median == 33000 && sc->ratio > 2.999 && sc->ratio < 3.001);
    }
    mh_report_rank_kernels_free(&k);
    mh_rank_findings fg;
    CHECK(mh_report_rank_findings(root, &p, 0, &fg) == 0);
    size_t on_a = 0, on_c = 0;
    for (size_t i = 0; i < fg.n; i++) {
        char lab[128];
        mh_report_rank_list(&p, fg.v[i].on, lab, sizeof lab);
        if (!strcmp(fg.v[i].object, "a")) {
            on_a++;
            CHECK(fg.v[i].nranks == 3 && !strcmp(lab, "ranks 0-2") && !strcmp(fg.v[i].kernel, "scale"));
            CHECK(fg.v[i].cost_min > 0 && fg.v[i].cost_min == fg.v[i].cost_max);
        }
        if (!strcmp(fg.v[i].object, "c")) {
            on_c++;
            CHECK(fg.v[i].nranks == 1 && fg.v[i].on[1] && !strcmp(lab, "rank 1") && !strcmp(fg.v[i].kernel, "gather"));
        }
    }
    CHECK(on_a > 0 && on_c > 0);
    mh_report_rank_findings_free(&fg);
    mh_report_rank_procs_free(&p);
    json_decref(root);
    /* the report: scale's heat maps identical on the three ranks (one
     * launch on the page), gather's two: ranks 0 and 2, rank 1 */
    char *page = slurp_html(db);
    CHECK(page && strstr(page, "\"ranks\":\"ranks 0-2\",\"identical\":true,\"variants\":[{\"launch\":0,\"n\":3,"
                               "\"ranks\":\"ranks 0-2\"}]") != NULL);
    CHECK(page && strstr(page, "\"ranks\":\"ranks 0-2\",\"identical\":false,\"variants\":[{\"launch\":1,\"n\":2,"
                               "\"ranks\":\"ranks 0, 2\"},{\"launch\":3,\"n\":1,\"ranks\":\"rank 1\"}]") != NULL);
    CHECK(page && strstr(page, "<td class=\"mh-some\" data-ranks=\"1\">rank 1 only</td>") != NULL);
    free(page);
    mh_db_close(db);

    sqlite3 *h;
    CHECK(sqlite3_open("rk_b.mhdb", &h) == SQLITE_OK);
    CHECK(sqlite3_exec(h,
                       "UPDATE kernel SET total_ns = total_ns / 3 WHERE process = (SELECT id FROM process WHERE rank = 1);"
                       "DELETE FROM finding WHERE object_label = 'c';",
                       0, 0, 0) == SQLITE_OK);
    sqlite3_close(h);
    char *html, line[512];
    char *t = diff_text("rk_a.mhdb", "rk_b.mhdb", &html);
    CHECK(strstr(t, "by rank (A: 3 processes, B: 3; ranks matched by rank number") != NULL);
    CHECK(strstr(line_of(t, "scale", line, sizeof line), "165.00 us") != NULL); /* 33 + 99 + 33 us: summed over ranks */
    CHECK(strstr(line, "-40.0%") != NULL);
    const char *sec = strstr(t, "by rank (");
    const char *scl = sec ? strstr(sec, "\nscale\n") : NULL;
    CHECK(scl != NULL);
    char r0[64], r1[64], rs[64];
    snprintf(r0, sizeof r0, "%-40s rank 0", "");
    snprintf(r1, sizeof r1, "%-40s rank 1", "");
    snprintf(rs, sizeof rs, "%-40s slowest/median", "");
    if (scl) {
        /* the rows of scale: rank 0 unchanged, rank 1 -66.7%, imbalance 3.00x -> 1.00x */
        CHECK(strstr(line_of(scl + 1 + 6, r1, line, sizeof line), "-66.7%") != NULL);
        CHECK(strstr(line_of(scl + 1 + 6, r0, line, sizeof line), "+0.0%") != NULL);
        line_of(scl + 1 + 6, rs, line, sizeof line);
        CHECK(strstr(line, "3.00x (rank 1)") != NULL && strstr(line, "1.00x (rank 0)") != NULL);
    }
    CHECK(strstr(html, "id=\"diff-ranks\"") != NULL);
    CHECK(strstr(html, "<td class=\"worse\" data-ratio=\"3.0000\">3.00x (rank 1)</td><td class=\"\" data-ratio=\"1.0000\">") != NULL);
    free(t);
    free(html);
    /* one process against itself: no table by rank */
    snprintf(cmd, sizeof cmd, "%s periodic rk_one.mhdb", make_profile);
    CHECK(system(cmd) == 0);
    t = diff_text("rk_one.mhdb", "rk_one.mhdb", &html);
    CHECK(strstr(t, "by rank") == NULL && strstr(html, "diff-ranks") == NULL);
    free(t);
    free(html);
}

int main(int argc, char **argv) {
    make_profile = argc > 1 ? argv[1] : "./mh_make_profile";
    static const mh_test_case cases[] = {{"before_after", test_before_after}, {"rename", test_rename}, {"ranks", test_ranks},
                                           {"full_names", test_full_names}};
    return mh_test_run(cases, sizeof cases / sizeof cases[0]);
}
