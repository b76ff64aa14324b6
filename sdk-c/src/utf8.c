/*
 * utf8.c: every string the SDK hands to the host is valid UTF-8, as the
 * component model requires (an invalid one would trap the call). Text a
 * plugin formats from arbitrary bytes gets U+FFFD for each invalid
 * sequence instead.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* The length of the valid UTF-8 sequence at s[0..len), or 0 if invalid
 * (overlong forms, surrogates and code points above U+10FFFF included). */
static size_t sequence(const unsigned char *s, size_t len) {
    unsigned char c = s[0];
    if (c < 0x80) return 1;
    size_t n;
    unsigned char lo = 0x80, hi = 0xBF; /* the range of the second byte */
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        if (c == 0xE0) lo = 0xA0;
        if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        if (c == 0xF0) lo = 0x90;
        if (c == 0xF4) hi = 0x8F;
    } else {
        return 0;
    }
    if (len < n || s[1] < lo || s[1] > hi) return 0;
    for (size_t i = 2; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80) return 0;
    }
    return n;
}

bool mcp__utf8_valid(const char *s, size_t len) {
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < len;) {
        size_t n = sequence(u + i, len - i);
        if (n == 0) return false;
        i += n;
    }
    return true;
}

char *mcp__utf8_repair(const char *s, size_t len, size_t *out_len) {
    const unsigned char *u = (const unsigned char *)s;
    /* Each invalid byte becomes three (EF BF BD). */
    if (len > (SIZE_MAX - 1) / 3) return NULL;
    char *out = malloc(len * 3 + 1);
    if (out == NULL) return NULL;
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        size_t n = sequence(u + i, len - i);
        if (n == 0) {
            memcpy(out + o, "\xEF\xBF\xBD", 3);
            o += 3;
            i++;
        } else {
            memcpy(out + o, u + i, n);
            o += n;
            i += n;
        }
    }
    out[o] = '\0';
    *out_len = o;
    return out;
}
