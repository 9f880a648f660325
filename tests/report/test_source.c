/* test_source.c -- source lines beside findings (src/report/source.c): a
 * readable file gives its lines; Oclgrind's "input.cl" is found as the one
 * .cl file of the --source directories that defines the finding's kernel
 * (not a file that only calls it, not when two files define it); a moved
 * file is found by its base name; a line past the end gives nothing. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mh_test.h"
#include "report/source.h"

static char dir[64], dir2[64];

static void put(const char *d, const char *name, const char *text) {
    char p[256];
    snprintf(p, sizeof p, "%s/%s", d, name);
    FILE *f = fopen(p, "w");
    CHECK(f != NULL);
    if (!f) return;
    fputs(text, f);
    fclose(f);
}

/* A summary of one finding of kernel `kernel` at file:line; returns the
 * finding after annotation (owned by *root). */
static json_t *annotate(json_t **root, const char *kernel, const char *file, int line, const char *const *dirs, size_t nd) {
    *root = json_pack("{s:[{s:i,s:s}],s:[{s:i,s:s,s:i}]}", "launches", "id", 7, "name", kernel, "findings", "launch", 7,
                      "file", file, "line", line);
    mh_report_source_annotate(*root, dirs, nd);
    return json_array_get(json_object_get(*root, "findings"), 0);
}

static const char *line_text(json_t *f, int line) {
    json_t *sn = json_object_get(f, "snippet"), *row;
    size_t i;
    json_array_foreach(sn, i, row) {
        if (json_integer_value(json_array_get(row, 0)) == line) return json_string_value(json_array_get(row, 1));
    }
    return NULL;
}

static void test_opencl_input_cl(void) {
    put(dir, "a.cl", "// a\n__kernel void foo(__global float *x) {\n  x[get_global_id(0)] = 1;\n}\n");
    put(dir, "b.cl", "kernel  void\nbar (global float *x) {\n  foo2(x); // foo(x) only called\n  x[0] = 2;\n}\n");
    put(dir, "notes.txt", "__kernel void bar(int) {}\n");
    const char *dirs[] = {dir};
    json_t *root, *f = annotate(&root, "foo", "input.cl", 3, dirs, 1);
    const char *src = json_string_value(json_object_get(f, "source_file"));
    CHECK(src && strstr(src, "/a.cl"));
    CHECK(line_text(f, 3) && !strcmp(line_text(f, 3), "  x[get_global_id(0)] = 1;"));
    CHECK(line_text(f, 2) && line_text(f, 4)); /* the lines around it */
    json_decref(root);
    f = annotate(&root, "bar", "input.cl", 4, dirs, 1); /* split over lines, extra spaces */
    src = json_string_value(json_object_get(f, "source_file"));
    CHECK(src && strstr(src, "/b.cl") && line_text(f, 4) && !strcmp(line_text(f, 4), "  x[0] = 2;"));
    json_decref(root);
    f = annotate(&root, "foo", "input.cl", 9, dirs, 1); /* past the end of a.cl */
    CHECK(json_object_get(f, "snippet") == NULL);
    json_decref(root);
    f = annotate(&root, "foo", "input.cl", 3, NULL, 0); /* no directories: nothing guessed */
    CHECK(json_object_get(f, "snippet") == NULL && json_object_get(f, "source_file") == NULL);
    json_decref(root);
    /* a second directory that also defines foo: ambiguous, none is shown */
    put(dir2, "c.cl", "__kernel void foo(int n) {}\n\n\n");
    const char *both[] = {dir, dir2};
    f = annotate(&root, "foo", "input.cl", 3, both, 2);
    CHECK(json_object_get(f, "snippet") == NULL);
    json_decref(root);
}

static void test_moved_file(void) {
    put(dir2, "kern.cu", "line1\nline2\nline3\n");
    const char *dirs[] = {dir, dir2};
    json_t *root, *f = annotate(&root, "k", "/build/machine/path/kern.cu", 2, dirs, 2);
    const char *src = json_string_value(json_object_get(f, "source_file"));
    CHECK(src && strstr(src, "/kern.cu") && line_text(f, 2) && !strcmp(line_text(f, 2), "line2"));
    json_decref(root);
    /* a readable path is read as it is, with no source_file */
    char p[128];
    snprintf(p, sizeof p, "%s/kern.cu", dir2);
    f = annotate(&root, "k", p, 1, dirs, 2);
    CHECK(json_object_get(f, "source_file") == NULL && line_text(f, 1) && !strcmp(line_text(f, 1), "line1"));
    json_decref(root);
}

static void setup(void) {
    snprintf(dir, sizeof dir, "/tmp/mh_src_XXXXXX");
    snprintf(dir2, sizeof dir2, "/tmp/mh_src2_XXXXXX");
    CHECK(mkdtemp(dir) != NULL && mkdtemp(dir2) != NULL);
}
static void cleanup(void) {
    const char *files[] = {"a.cl", "b.cl", "notes.txt", "c.cl", "kern.cu"};
    char p[256];
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, files[i]);
        unlink(p);
        snprintf(p, sizeof p, "%s/%s", dir2, files[i]);
        unlink(p);
    }
    rmdir(dir);
    rmdir(dir2);
    CHECK(1);
}

MH_TEST_MAIN(T(setup), T(test_opencl_input_cl), T(test_moved_file), T(cleanup))
