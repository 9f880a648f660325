/* test_ranks.c -- the report's view by rank (src/report/rankview.c and
 * ranks.c) on made-up rows of three ranks: one launch across ranks with two
 * distinct contents (shown once each), a finding on one rank only, the
 * summary with the rank most off the median first and then the rank whose
 * findings differ, the page data (launch groups, variants, the ranks of a
 * finding as bits), and nothing at all for one process. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../mh_test.h"
#include "report/rankdata.h"
#include "report/rankview.h"
#include "report/report.h"

static mh_rank_view *view_of(const char *json) {
    json_error_t je;
    json_t *rows = json_loads(json, 0, &je);
    if (!rows) {
        fprintf(stderr, "bad test JSON: %s\n", je.text);
        return NULL;
    }
    mh_rank_view *v = NULL;
    CHECK(mh_report_rank_view(rows, &v) == 0);
    return v;
}

static char *render(const mh_rank_view *v) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK(mh_report_ranks_html(v, f) == 0);
    fclose(f);
    return buf;
}

/* rank 2 (process 1) three times slower; rank 1 (process 3) reads other
 * rows and has a hot spot of its own; ranks 0 and 2 the same heat map at
 * other addresses (the same rows_from) */
static const char *three =
    "{\"processes\":[{\"id\":1,\"pid\":11,\"rank\":2,\"host\":\"n0\",\"kernel_ns\":35000000,"
    "\"counted_ns\":30000000,\"dram_bytes\":30000000,\"launches_traced\":1,\"launches_run\":4,\"accesses\":100},"
    "{\"id\":2,\"pid\":12,\"rank\":0,\"host\":\"n0\",\"kernel_ns\":15000000,\"launches_traced\":1,\"accesses\":100},"
    "{\"id\":3,\"pid\":13,\"rank\":1,\"host\":\"<b>\",\"kernel_ns\":15500000,\"launches_traced\":1,\"accesses\":90}],"
    "\"kernels\":[{\"name\":\"k\",\"total_ns\":30000000,\"bandwidth_Bps\":1e9,\"process\":1},"
    "{\"name\":\"k\",\"total_ns\":10000000,\"bandwidth_Bps\":3e9,\"process\":2},"
    "{\"name\":\"k\",\"total_ns\":10000000,\"bandwidth_Bps\":3e9,\"process\":3},"
    "{\"name\":\"even\",\"total_ns\":5000000,\"process\":1},"
    "{\"name\":\"even\",\"total_ns\":5000000,\"process\":2}],"
    "\"launches\":[{\"id\":0,\"name\":\"k\",\"process\":1,\"grid\":[1,1,1],\"block\":[32,1,1],\"dyn_smem\":0},"
    "{\"id\":1,\"name\":\"k\",\"process\":2,\"grid\":[1,1,1],\"block\":[32,1,1],\"dyn_smem\":0},"
    "{\"id\":2,\"name\":\"k\",\"process\":3,\"grid\":[1,1,1],\"block\":[32,1,1],\"dyn_smem\":0}],"
    "\"heat_maps\":[{\"id\":10,\"launch\":0,\"space\":\"global\",\"rows_from\":11,\"regions\":\"64:a\"},"
    "{\"id\":11,\"launch\":1,\"space\":\"global\",\"rows_from\":11,\"regions\":\"64:a\"},"
    "{\"id\":12,\"launch\":2,\"space\":\"global\",\"rows_from\":12,\"regions\":\"64:a\"}],"
    "\"findings\":[{\"id\":1,\"launch\":0,\"kind\":\"strided\",\"space\":\"global\",\"object_label\":\"a\",\"cost\":5},"
    "{\"id\":2,\"launch\":1,\"kind\":\"strided\",\"space\":\"global\",\"object_label\":\"a\",\"cost\":5},"
    "{\"id\":3,\"launch\":2,\"kind\":\"strided\",\"space\":\"global\",\"object_label\":\"a\",\"cost\":7},"
    "{\"id\":4,\"launch\":2,\"kind\":\"hot_spot\",\"space\":\"global\",\"object_label\":\"c\",\"cost\":9}]}";

static void test_three_ranks(void) {
    mh_rank_view *v = view_of(three);
    CHECK(v != NULL);
    if (!v) return;
    /* one launch across ranks, two contents: ranks 0 and 2, rank 1 */
    CHECK(v->ng == 1 && v->g[0].nv == 2 && v->g[0].nranks == 3);
    CHECK(v->g[0].v[0].launch == 1 && v->g[0].v[0].n == 2 && v->g[0].v[1].launch == 2 && v->g[0].v[1].n == 1);
    CHECK(v->nkeep == 2 && v->keep[0] == 1 && v->keep[1] == 2);
    CHECK(v->nkp == 2 && v->keep_procs[0] == 2 && v->keep_procs[1] == 3);
    /* summary: rank 2 off the median, then rank 1 (findings), then rank 0 */
    CHECK(v->timed && v->median == 15500000);
    CHECK(v->s[0].pi == 2 && v->s[0].outlier == 2 && v->s[1].pi == 1 && v->s[1].outlier == 1 && v->s[1].extra == 1);
    CHECK(v->s[2].pi == 0 && v->s[2].outlier == 0 && v->s[0].bw == 1e9 && v->s[2].bw < 0);
    char *h = render(v);
    CHECK(h != NULL);
    const char *r2 = h ? strstr(h, "<td title=\"\">rank 2</td>") : NULL, *r1 = h ? strstr(h, "<td title=\"\">rank 1</td>") : NULL,
               *r0 = h ? strstr(h, "<td title=\"\">rank 0</td>") : NULL;
    CHECK(r2 && r1 && r0 && r2 < r1 && r1 < r0);
    CHECK(h && strstr(h, "<td>35.000 ms</td><td>2.26&times;</td><td>1.0 GB/s</td><td>1 / 4</td>") != NULL);
    CHECK(h && strstr(h, "also hot_spot c (k)") != NULL);
    CHECK(h && strstr(h, "class=\"mh-imbalanced\" data-ratio=\"3.0000\">3.00&times;") != NULL);
    CHECK(h && strstr(h, "30.000 ms, 1.0 GB/s (rank 2)") != NULL);
    CHECK(h && strstr(h, "class=\"mh-balanced\" data-ratio=\"1.0000\"") != NULL); /* "even": 2 ranks alike */
    CHECK(h && strstr(h, "the same on every rank") != NULL);
    CHECK(h && strstr(h, "<td>hot_spot</td><td>global</td><td>c</td><td class=\"mh-some\" data-ranks=\"1\">rank 1 only</td>") != NULL);
    CHECK(h && strstr(h, "&lt;b&gt;") != NULL && strstr(h, "<b>") == NULL); /* names escaped */
    free(h);
    /* the page data: the launches and findings the page holds, annotated */
    json_t *root = json_loads("{\"processes\":[{\"id\":2},{\"id\":3}],\"launches\":[{\"id\":1},{\"id\":2}],"
                              "\"findings\":[{\"id\":2},{\"id\":3},{\"id\":4}]}",
                              0, NULL);
    CHECK(root && mh_report_rank_view_annotate(v, root) == 0);
    json_t *l2 = json_array_get(json_object_get(root, "launches"), 1), *g = json_array_get(json_object_get(root, "rank_groups"), 0);
    CHECK(json_integer_value(json_object_get(l2, "rank_group")) == 0 && json_integer_value(json_object_get(l2, "variant")) == 1);
    CHECK(json_is_false(json_object_get(g, "identical")) && json_array_size(json_object_get(g, "variants")) == 2);
    CHECK(!strcmp(json_string_value(json_object_get(g, "ranks")), "ranks 0-2"));
    CHECK(!strcmp(json_string_value(json_object_get(json_array_get(json_object_get(g, "variants"), 0), "ranks")), "ranks 0, 2"));
    json_t *f2 = json_array_get(json_object_get(root, "findings"), 0), *f4 = json_array_get(json_object_get(root, "findings"), 2);
    CHECK(!strcmp(json_string_value(json_object_get(f2, "ranks_on")), "Bw==")); /* ranks 0-2: bits 0-2 */
    CHECK(json_number_value(json_object_get(f2, "cost_min")) == 5 && json_number_value(json_object_get(f2, "cost_max")) == 7);
    CHECK(!strcmp(json_string_value(json_object_get(f4, "ranks_on")), "Ag==")); /* rank 1: bit 1 */
    json_t *rv = json_object_get(root, "rank_view");
    CHECK(json_integer_value(json_object_get(rv, "n")) == 3 && json_integer_value(json_object_get(rv, "ref")) == 2);
    CHECK(!strcmp(json_string_value(json_object_get(json_array_get(json_object_get(root, "processes"), 0), "label")), "rank 0"));
    json_decref(root);
    mh_report_rank_view_free(v);
}

static void test_one_process(void) {
    mh_rank_view *v = view_of("{\"processes\":[{\"id\":1,\"pid\":5}],\"launches\":[],\"findings\":[]}");
    CHECK(v == NULL);
    v = view_of("{}"); /* schema 1 or 2: no processes */
    CHECK(v == NULL);
    char *h = render(NULL);
    CHECK(h && h[0] == '\0');
    free(h);
}

/* Rank lists for people: runs of consecutive ranks, pids where there is no rank. */
static void test_rank_list(void) {
    json_t *root = json_loads("{\"processes\":[{\"id\":1,\"rank\":6},{\"id\":2,\"rank\":0},{\"id\":3,\"rank\":2},"
                              "{\"id\":4,\"rank\":1},{\"id\":5,\"rank\":3}]}",
                              0, NULL);
    mh_rank_procs p;
    CHECK(root && mh_report_rank_procs(root, &p) == 0 && p.n == 5);
    unsigned char on[5] = {1, 1, 1, 1, 1}; /* rank order: 0 1 2 3 6 */
    char b[64];
    mh_report_rank_list(&p, on, b, sizeof b);
    CHECK(!strcmp(b, "ranks 0-3, 6"));
    on[1] = 0;
    mh_report_rank_list(&p, on, b, sizeof b);
    CHECK(!strcmp(b, "ranks 0, 2-3, 6"));
    CHECK(mh_report_rank_list_short(&p, on, b, sizeof b) == 1 && !strcmp(b, "all but rank 1")); /* the shorter */
    unsigned char most[5] = {1, 1, 1, 1, 0};
    CHECK(mh_report_rank_list_short(&p, most, b, sizeof b) == 0 && !strcmp(b, "ranks 0-3"));
    unsigned char one[5] = {0, 0, 0, 0, 1};
    mh_report_rank_list(&p, one, b, sizeof b);
    CHECK(!strcmp(b, "rank 6"));
    mh_report_rank_procs_free(&p);
    json_decref(root);
    root = json_loads("{\"processes\":[{\"id\":1,\"pid\":12},{\"id\":2,\"pid\":14,\"rank\":1}]}", 0, NULL);
    CHECK(root && mh_report_rank_procs(root, &p) == 0 && p.n == 2);
    unsigned char both[2] = {1, 1};
    mh_report_rank_list(&p, both, b, sizeof b);
    CHECK(!strcmp(b, "rank 1, pid 12")); /* ranked first, then the others */
    mh_report_rank_procs_free(&p);
    json_decref(root);
}

MH_TEST_MAIN(T(test_three_ranks), T(test_one_process), T(test_rank_list))
