/* test_escape.c -- hostile names from the profiled program must come out of
 * every output inert: JSON inside <script> (no '<', '>', '&', U+2028/9 left,
 * and the value unchanged), HTML text, the terminal (no control characters),
 * and a whole report of a profile whose kernel, object and command names are
 * built to close the script element or open a comment. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"
#include "mh_test.h"

/* string value or "" (a missing key fails the comparison, not the test run) */
static const char *S(json_t *v) {
    const char *s = json_string_value(v);
    return s ? s : "";
}
#include "report/report.h"

#define NASTY "</script><script>alert(1)</script><!-- \xe2\x80\xa8 \xe2\x80\xa9 & \"q\" 'a' <\\/b>"

static char *read_all(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)len + 1);
    *n = fread(b, 1, (size_t)len, f);
    b[*n] = '\0';
    fclose(f);
    return b;
}

static size_t count(const char *hay, const char *needle) {
    size_t c = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle)) c++;
    return c;
}

static void test_json_for_script(void) {
    json_t *o = json_pack("{s:s}", "name", NASTY);
    char *text = json_dumps(o, JSON_COMPACT);
    char *safe = mh_report_json_for_script(text);
    CHECK(safe != NULL);
    CHECK(strchr(safe, '<') == NULL);
    CHECK(strchr(safe, '>') == NULL);
    CHECK(strchr(safe, '&') == NULL);
    CHECK(strstr(safe, "\xe2\x80\xa8") == NULL);
    CHECK(strstr(safe, "\xe2\x80\xa9") == NULL);
    json_t *back = json_loads(safe, 0, NULL);
    CHECK(back != NULL);
    CHECK(back && strcmp(S(json_object_get(back, "name")), NASTY) == 0);
    json_decref(back);
    json_decref(o);
    free(text);
    free(safe);
}

static void test_html_and_term(void) {
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    mh_report_html_text(f, NASTY);
    fclose(f);
    CHECK(strchr(buf, '<') == NULL && strchr(buf, '>') == NULL && strchr(buf, '"') == NULL &&
          strchr(buf, '\'') == NULL);
    CHECK(strstr(buf, "&lt;/script&gt;") != NULL);
    free(buf);
    f = open_memstream(&buf, &n);
    mh_report_term_text(f, "k\x1b]0;pwn\x07\x1b[2J\nx");
    fclose(f);
    CHECK(strchr(buf, 0x1b) == NULL && strchr(buf, '\n') == NULL && strchr(buf, 0x07) == NULL);
    CHECK(strcmp(buf, "k?]0;pwn??[2J?x") == 0);
    free(buf);
}

/* Base64 against RFC 4648's test vectors. */
static void test_base64(void) {
    static const char *in[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
    static const char *out[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
    for (int i = 0; i < 7; i++) {
        char *buf = NULL;
        size_t n = 0;
        FILE *f = open_memstream(&buf, &n);
        mh_report_base64(f, in[i], strlen(in[i]));
        fclose(f);
        CHECK(strcmp(buf, out[i]) == 0);
        free(buf);
    }
}

static const char *make_profile;

static void test_hostile_report(void) {
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "%s hostile escape_hostile.mhdb", make_profile);
    CHECK(system(cmd) == 0);
    mh_err err = {0};
    mh_db *db;
    CHECK(mh_db_open(&db, "escape_hostile.mhdb", 0, &err) == MH_OK);
    FILE *f = fopen("escape_hostile.html", "wb");
    CHECK(mh_report_html(db, f, NULL, &err) == MH_OK);
    fclose(f);
    mh_db_close(db);
    size_t n;
    char *html = read_all("escape_hostile.html", &n);
    CHECK(html != NULL);
    if (!html) return;
    /* every <script> element closes exactly once: no name closed one early */
    size_t opens = count(html, "<script"), closes = count(html, "</script>");
    CHECK(opens == closes);
    CHECK(opens >= 3);
    CHECK(count(html, "</SCRIPT") == 0);
    CHECK(count(html, "<!--") == 0);
    CHECK(strstr(html, "\xe2\x80\xa8") == NULL);
    CHECK(strstr(html, "window.__pwned") == NULL || strstr(html, "\\u003c/script\\u003e\\u003cscript\\u003ewindow.__pwned"));
    CHECK(strstr(html, "<img src=x") == NULL);
    /* the data block still carries the exact names */
    char *start = strstr(html, "id=\"mh-data\">");
    CHECK(start != NULL);
    if (start) {
        start += strlen("id=\"mh-data\">");
        char *end = strstr(start, "</script>");
        *end = '\0';
        json_t *d = json_loads(start, 0, NULL);
        CHECK(d != NULL);
        json_t *l = json_array_get(json_object_get(d, "launches"), 0);
        CHECK(strcmp(S(json_object_get(l, "name")), "</script><script>window.__pwned=1</script>") == 0);
        CHECK(strcmp(S(json_object_get(l, "display_name")),
                     "k<!--x\xe2\x80\xa8y\xe2\x80\xa9&amp;\"q\"'a'</SCRIPT >") == 0);
        json_t *o = json_array_get(json_object_get(d, "objects"), 0);
        CHECK(strcmp(S(json_object_get(o, "label")), "<img src=x onerror=\"window.__pwned=2\">") == 0);
        json_decref(d);
    }
    /* the <title> carries the command line HTML-escaped */
    CHECK(strstr(html, "<title>memheat report \xe2\x80\x94 ./prog &lt;/script&gt;&lt;!--") != NULL);
    free(html);
}

int main(int argc, char **argv) {
    make_profile = argc > 1 ? argv[1] : "./mh_make_profile";
    static const mh_test_case cases[] = {{"json_for_script", test_json_for_script},
                                         {"html_and_term", test_html_and_term},
                                         {"base64", test_base64},
                                         {"hostile_report", test_hostile_report}};
    return mh_test_run(cases, sizeof cases / sizeof cases[0]);
}
