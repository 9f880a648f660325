/* source.c -- the source lines beside a finding (source.h): the file the
 * trace names, read where the report is written; else, in the directories of
 * `memheat report --source DIR`, the file of the same base name, or, for
 * Oclgrind's "input.cl" (the name it gives a program built from one source
 * string), the one .cl file of those directories that defines the finding's
 * kernel ("kernel void NAME(" or "__kernel void NAME("): its lines are the
 * program's lines when the program was built from that file alone, as the
 * OpenCL examples are. Two files defining the kernel: none is guessed. */
#include "report/source.h"

#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { SNIP_LINES = 3, SNIP_COLS = 160, SNIP_MAX_FINDINGS = 256, CL_MAX_BYTES = 4 << 20 };

/* Up to SNIP_LINES source lines around line of file as [[line, text], ...];
 * NULL when the file cannot be read as a regular file or is shorter than line. */
static json_t *source_snippet(const char *file, long line) {
    if (!file || !file[0] || line <= 0) return NULL;
    struct stat st;
    if (stat(file, &st) != 0 || !S_ISREG(st.st_mode)) return NULL;
    FILE *f = fopen(file, "r");
    if (!f) return NULL;
    json_t *arr = NULL;
    char buf[4096];
    long n = 0, first = line > 1 ? line - 1 : 1, last = first + SNIP_LINES - 1;
    int at_start = 1; /* buf holds the start of a line */
    while (n < last && fgets(buf, sizeof buf, f)) {
        size_t len = strlen(buf);
        int whole = len > 0 && buf[len - 1] == '\n';
        if (at_start) n++;
        if (at_start && n >= first) {
            while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r')) len--;
            if (len > SNIP_COLS) len = SNIP_COLS;
            if (!arr) arr = json_array();
            json_t *t = json_stringn(buf, len); /* NULL for invalid UTF-8: the line is left out */
            if (t) json_array_append_new(arr, json_pack("[Io]", (json_int_t)n, t));
        }
        at_start = whole;
    }
    fclose(f);
    if (arr && n < line) { /* the file is shorter than the line: not this source */
        json_decref(arr);
        arr = NULL;
    }
    return arr;
}

static int is_ident(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }
static int is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* Whether text defines kernel `name`: "kernel void name (" with "kernel"
 * ending a word (kernel, __kernel) and any spacing. */
static int defines_kernel(const char *text, size_t len, const char *name) {
    size_t nl = strlen(name);
    if (!nl) return 0;
    for (const char *p = text; (p = strstr(p, name)) != NULL; p += nl) {
        size_t at = (size_t)(p - text);
        if (at + nl > len) break;
        const char *q = p + nl;
        if (is_ident(*q) || (at > 0 && is_ident(p[-1]))) continue;
        while (is_space(*q)) q++;
        if (*q != '(') continue;
        const char *b = p; /* backwards: spaces, "void", spaces, "...kernel" */
        while (b > text && is_space(b[-1])) b--;
        if (b - text < 4 || strncmp(b - 4, "void", 4) != 0) continue;
        b -= 4;
        if (b > text && is_ident(b[-1])) continue;
        while (b > text && is_space(b[-1])) b--;
        if (b - text < 6 || strncmp(b - 6, "kernel", 6) != 0) continue;
        return 1;
    }
    return 0;
}

static char *read_small(const char *path, size_t *len) {
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > CL_MAX_BYTES) return NULL;
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = malloc((size_t)st.st_size + 1);
    size_t n = buf ? fread(buf, 1, (size_t)st.st_size, f) : 0;
    fclose(f);
    if (!buf) return NULL;
    buf[n] = 0;
    *len = n;
    return buf;
}

static char *join(const char *dir, const char *name) {
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    if (p) snprintf(p, n, "%s/%s", dir, name);
    return p;
}

/* The one .cl file of dirs that defines kernel (malloc'd path), else NULL. */
static char *find_cl(const char *kernel, const char *const *dirs, size_t ndirs) {
    char *found = NULL;
    int nfound = 0;
    for (size_t d = 0; d < ndirs && nfound < 2; d++) {
        DIR *dp = opendir(dirs[d]);
        if (!dp) continue;
        struct dirent *e;
        while ((e = readdir(dp)) != NULL && nfound < 2) {
            size_t l = strlen(e->d_name);
            if (l < 4 || strcmp(e->d_name + l - 3, ".cl") != 0) continue;
            char *path = join(dirs[d], e->d_name);
            size_t len = 0;
            char *text = path ? read_small(path, &len) : NULL;
            if (text && defines_kernel(text, len, kernel)) {
                nfound++;
                if (!found) found = path, path = NULL;
            }
            free(text);
            free(path);
        }
        closedir(dp);
    }
    if (nfound != 1) {
        free(found);
        return NULL;
    }
    return found;
}

/* Where file (as the trace names it, for a finding of kernel) is read: NULL
 * when file itself is readable or nothing is found (malloc'd otherwise). */
static char *locate(const char *file, const char *kernel, const char *const *dirs, size_t ndirs) {
    struct stat st;
    if (stat(file, &st) == 0 && S_ISREG(st.st_mode)) return NULL;
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    if (!strcmp(base, "input.cl")) return kernel ? find_cl(kernel, dirs, ndirs) : NULL;
    for (size_t d = 0; d < ndirs; d++) {
        char *p = join(dirs[d], base);
        if (p && stat(p, &st) == 0 && S_ISREG(st.st_mode)) return p;
        free(p);
    }
    return NULL;
}

static const char *kernel_of(json_t *summary, json_int_t launch) {
    json_t *ls = json_object_get(summary, "launches"), *l;
    size_t i;
    json_array_foreach(ls, i, l) {
        if (json_integer_value(json_object_get(l, "id")) == launch) return json_string_value(json_object_get(l, "name"));
    }
    return NULL;
}

void mh_report_source_annotate(json_t *summary, const char *const *dirs, size_t ndirs) {
    json_t *fs = json_object_get(summary, "findings"), *f;
    size_t i;
    /* the last lookup, reused: findings of one kernel come together */
    char *last_file = NULL, *last_kernel = NULL, *last_path = NULL;
    json_array_foreach(fs, i, f) {
        if (i >= SNIP_MAX_FINDINGS) break;
        const char *file = json_string_value(json_object_get(f, "file"));
        long line = (long)json_integer_value(json_object_get(f, "line"));
        if (!file || !file[0] || line <= 0) continue;
        const char *path = file;
        if (ndirs) {
            const char *kernel = kernel_of(summary, json_integer_value(json_object_get(f, "launch")));
            if (!last_file || strcmp(last_file, file) || strcmp(last_kernel, kernel ? kernel : "")) {
                free(last_file);
                free(last_kernel);
                free(last_path);
                last_file = strdup(file);
                last_kernel = strdup(kernel ? kernel : "");
                last_path = locate(file, kernel, dirs, ndirs);
                if (!last_file || !last_kernel) break; /* out of memory: no more snippets */
            }
            if (last_path) path = last_path;
        }
        json_t *sn = source_snippet(path, line);
        if (!sn) continue;
        json_object_set_new(f, "snippet", sn);
        if (path != file) json_object_set_new(f, "source_file", json_string(path));
    }
    free(last_file);
    free(last_kernel);
    free(last_path);
}
