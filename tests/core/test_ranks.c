/* test_ranks.c -- the report's view by rank (src/report/ranks.c) on a
 * made-up summary: columns in rank order, the slowest rank against the
 * median flagged, findings on every rank folded and the others naming their
 * ranks, and nothing at all for one process. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../mh_test.h"
#include "report/rankdata.h"
#include "report/report.h"

static char *render(const char *json) {
    json_error_t je;
    json_t *root = json_loads(json, 0, &je);
    if (!root) {
        fprintf(stderr, "bad test JSON: %s\n", je.text);
        return NULL;
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK(mh_report_ranks_html(root, f) == 0);
    fclose(f);
    json_decref(root);
    return buf;
}

static const char *three =
    "{\"processes\":[{\"id\":1,\"pid\":11,\"rank\":2},{\"id\":2,\"pid\":12,\"rank\":0},"
    "{\"id\":3,\"pid\":13,\"rank\":1,\"host\":\"<b>\"}],"
    "\"kernels\":[{\"id\":1,\"name\":\"k\",\"total_ns\":30000000,\"bandwidth_Bps\":1e9,\"process\":1},"
    "{\"id\":2,\"name\":\"k\",\"total_ns\":10000000,\"bandwidth_Bps\":3e9,\"process\":2},"
    "{\"id\":3,\"name\":\"k\",\"total_ns\":10000000,\"bandwidth_Bps\":3e9,\"process\":3},"
    "{\"id\":4,\"name\":\"even\",\"total_ns\":5000000,\"process\":1},"
    "{\"id\":5,\"name\":\"even\",\"total_ns\":5000000,\"process\":2}],"
    "\"launches\":[{\"id\":0,\"display_name\":\"k\",\"process\":1},{\"id\":1,\"display_name\":\"k\",\"process\":2},"
    "{\"id\":2,\"display_name\":\"k\",\"process\":3}],"
    "\"findings\":[{\"launch\":0,\"kind\":\"strided\",\"space\":\"global\",\"object_label\":\"a\"},"
    "{\"launch\":1,\"kind\":\"strided\",\"space\":\"global\",\"object_label\":\"a\"},"
    "{\"launch\":2,\"kind\":\"strided\",\"space\":\"global\",\"object_label\":\"a\"},"
    "{\"launch\":2,\"kind\":\"hot_spot\",\"space\":\"global\",\"object_label\":\"c\"}]}";

static void test_three_ranks(void) {
    char *h = render(three);
    CHECK(h != NULL);
    if (!h) return;
    const char *r0 = strstr(h, "<th>rank 0</th>"), *r1 = strstr(h, "<th>rank 1</th>");
    const char *r2 = strstr(h, "<th>rank 2</th>");
    CHECK(r0 && r1 && r2 && r0 < r1 && r1 < r2);
    CHECK(strstr(h, "30.000 ms") != NULL);
    CHECK(strstr(h, "class=\"mh-imbalanced\" data-ratio=\"3.0000\">3.00&times; (rank 2)") != NULL);
    CHECK(strstr(h, "class=\"mh-balanced\" data-ratio=\"1.0000\"") != NULL); /* "even": 2 ranks alike */
    CHECK(strstr(h, "the same on every rank") != NULL);
    CHECK(strstr(h, "<td>hot_spot</td><td>global</td><td>c</td><td class=\"mh-some\">rank 1 only</td>") != NULL);
    CHECK(strstr(h, "&lt;b&gt;") != NULL && strstr(h, "<b>") == NULL); /* names escaped */
    free(h);
}

static void test_one_process(void) {
    char *h = render("{\"processes\":[{\"id\":1,\"pid\":5}],\"launches\":[],\"findings\":[]}");
    CHECK(h && h[0] == '\0');
    free(h);
    h = render("{\"launches\":[]}"); /* schema 1 or 2: no processes */
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
