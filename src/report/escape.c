/* escape.c -- every name that comes from the profiled program (kernel names,
 * buffer labels, file names, the command line) is hostile until escaped: in
 * HTML text, inside JSON inside a <script> element, and on a terminal. */
#include "report/report.h"

#include <stdlib.h>
#include <string.h>

char *mh_report_json_for_script(const char *json) {
    size_t n = strlen(json), extra = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)json[i];
        if (c == '<' || c == '>' || c == '&') extra += 5;
        else if (c == 0xE2 && i + 2 < n && (unsigned char)json[i + 1] == 0x80 &&
                 ((unsigned char)json[i + 2] == 0xA8 || (unsigned char)json[i + 2] == 0xA9))
            extra += 3;
    }
    char *out = malloc(n + extra + 1), *o = out;
    if (!out) return NULL;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)json[i];
        if (c == '<' || c == '>' || c == '&') {
            o += sprintf(o, "\\u%04x", c);
        } else if (c == 0xE2 && i + 2 < n && (unsigned char)json[i + 1] == 0x80 &&
                   ((unsigned char)json[i + 2] == 0xA8 || (unsigned char)json[i + 2] == 0xA9)) {
            o += sprintf(o, "\\u%04x", (unsigned char)json[i + 2] == 0xA8 ? 0x2028u : 0x2029u);
            i += 2;
        } else {
            *o++ = (char)c;
        }
    }
    *o = '\0';
    return out;
}

void mh_report_html_text(FILE *f, const char *s) {
    for (; s && *s; s++) {
        if ((unsigned char)s[0] == 0xE2 && (unsigned char)s[1] == 0x80 &&
            ((unsigned char)s[2] == 0xA8 || (unsigned char)s[2] == 0xA9)) {
            fputs((unsigned char)s[2] == 0xA8 ? "&#x2028;" : "&#x2029;", f); /* line/paragraph separators */
            s += 2;
            continue;
        }
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default: fputc(*s, f);
        }
    }
}

void mh_report_term_text(FILE *f, const char *s) {
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        fputc(c < 0x20 || c == 0x7f ? '?' : c, f);
    }
}

void mh_report_base64(FILE *f, const void *data, size_t n) {
    static const char al[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const unsigned char *p = data;
    char buf[4096];
    size_t k = 0, i = 0;
    for (; i + 3 <= n; i += 3) {
        unsigned v = (unsigned)p[i] << 16 | (unsigned)p[i + 1] << 8 | p[i + 2];
        buf[k++] = al[v >> 18];
        buf[k++] = al[(v >> 12) & 63];
        buf[k++] = al[(v >> 6) & 63];
        buf[k++] = al[v & 63];
        if (k >= sizeof buf - 4) {
            fwrite(buf, 1, k, f);
            k = 0;
        }
    }
    if (i < n) {
        unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0);
        buf[k++] = al[v >> 18];
        buf[k++] = al[(v >> 12) & 63];
        buf[k++] = i + 1 < n ? al[(v >> 6) & 63] : '=';
        buf[k++] = '=';
    }
    fwrite(buf, 1, k, f);
}
