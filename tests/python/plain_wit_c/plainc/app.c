// A component from plain WIT (wit/plain.wit) in C, with no SDK: it knows
// nothing of mcp-wasm-host. scripts/build-c-plugin.sh generates plainc.h
// and plainc.c from the WIT with wit-bindgen's C generator (through
// sdk-tool), compiles this file with them and componentizes the module;
// tests/python/test_plain_wit.py builds it and serves it with the real
// binary as a generic component.
//
// wit-bindgen's C conventions: an exported function owns its arguments
// (and frees them), and what it returns is allocated with malloc, which
// the generated post-return functions free.

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plainc.h"

void exports_plainc_greet(plainc_string_t *name, plainc_string_t *maybe_nick, plainc_string_t *ret) {
    static const char hello[] = "hello, ";
    const plainc_string_t *who = maybe_nick ? maybe_nick : name;
    size_t len = sizeof hello - 1 + who->len;
    char *text = malloc(len);
    if (!text) {
        abort();
    }
    memcpy(text, hello, sizeof hello - 1);
    memcpy(text + sizeof hello - 1, who->ptr, who->len);
    ret->ptr = (uint8_t *)text;
    ret->len = len;
    plainc_string_free(name);
    if (maybe_nick) {
        plainc_string_free(maybe_nick);
    }
}

int64_t exports_plainc_total(plainc_list_s32_t *values) {
    int64_t sum = 0;
    for (size_t i = 0; i < values->len; i++) {
        sum += values->ptr[i];
    }
    plainc_list_s32_free(values);
    return sum;
}

bool exports_plainc_parse_count(plainc_string_t *text, uint32_t *ret, plainc_string_t *err) {
    uint64_t value = 0;
    bool ok = text->len > 0;
    for (size_t i = 0; ok && i < text->len; i++) {
        uint8_t c = text->ptr[i];
        ok = c >= '0' && c <= '9';
        value = value * 10 + (uint64_t)(c - '0');
        ok = ok && value <= UINT32_MAX;
    }
    if (ok) {
        *ret = (uint32_t)value;
    } else {
        // "not a count: 'TEXT'", as the Python and JavaScript twins say it.
        static const char before[] = "not a count: '";
        size_t len = sizeof before - 1 + text->len + 1;
        char *message = malloc(len);
        if (!message) {
            abort();
        }
        memcpy(message, before, sizeof before - 1);
        memcpy(message + sizeof before - 1, text->ptr, text->len);
        message[len - 1] = '\'';
        err->ptr = (uint8_t *)message;
        err->len = len;
    }
    plainc_string_free(text);
    return ok;
}

static bool is_space(uint8_t c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

bool exports_plainc_words(plainc_string_t *text, plainc_list_string_t *ret) {
    size_t count = 0;
    for (size_t i = 0; i < text->len; i++) {
        if (!is_space(text->ptr[i]) && (i == 0 || is_space(text->ptr[i - 1]))) {
            count++;
        }
    }
    if (count == 0) {
        plainc_string_free(text);
        return false;
    }
    ret->ptr = calloc(count, sizeof *ret->ptr);
    if (!ret->ptr) {
        abort();
    }
    ret->len = 0;
    for (size_t i = 0; i < text->len;) {
        if (is_space(text->ptr[i])) {
            i++;
            continue;
        }
        size_t start = i;
        while (i < text->len && !is_space(text->ptr[i])) {
            i++;
        }
        plainc_string_dup_n(&ret->ptr[ret->len++], (const char *)text->ptr + start, i - start);
    }
    plainc_string_free(text);
    return true;
}

bool exports_plainc_next(uint64_t n, uint64_t *ret) {
    if (n == UINT64_MAX) {
        return false;
    }
    *ret = n + 1;
    return true;
}

void exports_demo_plainc_geometry_midpoint(exports_demo_plainc_geometry_point_t *a,
                                           exports_demo_plainc_geometry_point_t *b,
                                           exports_demo_plainc_geometry_point_t *ret) {
    ret->x = (a->x + b->x) / 2;
    ret->y = (a->y + b->y) / 2;
}

void exports_demo_plainc_geometry_place(exports_demo_plainc_geometry_point_t *at, plainc_string_t *maybe_label,
                                        exports_demo_plainc_geometry_placed_t *ret) {
    ret->at = *at;
    ret->distance = hypot(at->x, at->y);
    // The label moves into the result, which post-return frees.
    ret->label.is_some = maybe_label != NULL;
    if (maybe_label) {
        ret->label.val = *maybe_label;
    }
}
