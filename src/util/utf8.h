/* utf8.h -- UTF-8 validity for text that came from outside (a trace's
 * strings, a profile's cells): the length of one sequence, and a copy in
 * which every byte that starts none becomes U+FFFD, so that a JSON writer
 * (jansson refuses invalid UTF-8) always takes the text. */
#ifndef MH_UTIL_UTF8_H
#define MH_UTIL_UTF8_H

#include <stddef.h>

/* Bytes of one UTF-8 sequence at s (n bytes left), 0 where there is none:
 * overlong forms, surrogates and code points past U+10FFFF are none. */
size_t mh_utf8_seq(const unsigned char *s, size_t n);
/* s[0..n) into out (at least 3 n + 1 bytes) with U+FFFD for each byte that
 * starts no sequence; NUL-terminated; returns the bytes written before it. */
size_t mh_utf8_repair(const char *s, size_t n, char *out);

#endif
