/* utf8.c -- UTF-8 validity and repair (utf8.h). */
#include "util/utf8.h"

#include <string.h>

size_t mh_utf8_seq(const unsigned char *s, size_t n) {
    unsigned c = s[0];
    size_t len = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
    if (!len || len > n) return 0;
    unsigned cp = len == 1 ? c : c & (0x7Fu >> len);
    for (size_t k = 1; k < len; k++) {
        if ((s[k] & 0xC0) != 0x80) return 0;
        cp = cp << 6 | (s[k] & 0x3Fu);
    }
    static const unsigned least[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < least[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    return len;
}

size_t mh_utf8_repair(const char *s, size_t n, char *out) {
    size_t k = 0;
    for (size_t i = 0; i < n;) {
        size_t len = mh_utf8_seq((const unsigned char *)s + i, n - i);
        if (len) memcpy(out + k, s + i, len);
        else memcpy(out + k, "\xEF\xBF\xBD", 3);
        k += len ? len : 3;
        i += len ? len : 1;
    }
    out[k] = 0;
    return k;
}
