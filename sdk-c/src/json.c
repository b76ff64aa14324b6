/*
 * json.c: a call's arguments as mcp_value, read with cJSON (vendored in
 * sdk-c/vendor/cjson; its VERSION names the release) and each integer also
 * exactly from its text, the accessors plugins read them with, and
 * mcp_quote for writing JSON strings.
 *
 * cJSON is compiled as part of this file, so every build that compiles
 * json.c gets it without naming another source: build-c-plugin.sh, a
 * project's build.sh and test.sh, and the SDK's unit tests. Its nesting
 * limit is set to MCP_JSON_MAX_DEPTH. cJSON checks the structure, literals,
 * escapes and surrogate pairs and never reads past the length it is given;
 * strict_lexemes refuses first the few texts RFC 8259 forbids and cJSON
 * accepts, so the SDK reads exactly RFC 8259.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "mcp_wasm_sdk.h"

#define CJSON_NESTING_LIMIT MCP_JSON_MAX_DEPTH
#include "../vendor/cjson/cJSON.c"

/* Set when an allocation of cJSON's failed, to tell it from a syntax error. */
static bool cjson_out_of_memory;

static void *cjson_malloc(size_t size) {
    void *p = malloc(size);
    if (p == NULL) cjson_out_of_memory = true;
    return p;
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

static bool is_hex(char c) {
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* The end of the number at s[i..len) (RFC 8259: -?(0|[1-9][0-9]*)(.[0-9]+)?
 * ([eE][+-]?[0-9]+)?), or 0 if it is not one, or runs on into a character
 * that could continue a number (as in 01, 1. or 1e). */
static size_t number_end(const char *s, size_t i, size_t len) {
    if (i < len && s[i] == '-') i++;
    if (i < len && s[i] == '0') {
        i++;
    } else if (i < len && is_digit(s[i])) {
        while (i < len && is_digit(s[i])) i++;
    } else {
        return 0;
    }
    if (i < len && s[i] == '.') {
        if (++i >= len || !is_digit(s[i])) return 0;
        while (i < len && is_digit(s[i])) i++;
    }
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < len && (s[i] == '+' || s[i] == '-')) i++;
        if (i >= len || !is_digit(s[i])) return 0;
        while (i < len && is_digit(s[i])) i++;
    }
    if (i < len && (is_digit(s[i]) || s[i] == '.' || s[i] == 'e' || s[i] == 'E' || s[i] == '+' ||
                    s[i] == '-')) {
        return 0;
    }
    return i;
}

/* The offset of the quote that ends the string whose text starts at s[i],
 * or of the first text in it RFC 8259 refuses and cJSON reads (then `what`
 * says which), or `len` or more if the string does not end (which cJSON
 * refuses). Plain bytes are passed in a tight loop: strings are most of a
 * call's arguments. */
static size_t string_end(const char *s, size_t i, size_t len, const char **what) {
    for (;;) {
        while (i < len && (unsigned char)s[i] >= 0x20 && s[i] != '"' && s[i] != '\\') i++;
        if (i >= len || s[i] == '"') return i;
        if ((unsigned char)s[i] < 0x20) {
            *what = "control character in string";
            return i;
        }
        /* A backslash: cJSON checks the escape, but reads a \u with fewer
         * than four hex digits as U+0000. */
        if (i + 1 < len && s[i + 1] == 'u') {
            for (size_t k = 2; k <= 5; k++) {
                if (i + k >= len || !is_hex(s[i + k])) {
                    *what = "bad \\u escape";
                    return i;
                }
            }
        }
        i += 2;
    }
}

/* cJSON reads a few texts RFC 8259 refuses: numbers such as 01, 1. and -.5,
 * control characters in strings or between tokens, a byte order mark, and a
 * \u escape without four hex digits (as U+0000). Returns the offset of the
 * first such text, with `what` saying which, or `len` if there is none. */
static size_t strict_lexemes(const char *s, size_t len, const char **what) {
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"') {
            i = string_end(s, i + 1, len, what);
            if (*what != NULL) return i;
        } else if ((c < 0x20 && !is_space((char)c)) || c >= 0x80) {
            *what = "unexpected character";
            return i;
        } else if (c == '-' || is_digit((char)c)) {
            size_t end = number_end(s, i, len);
            if (end == 0) {
                *what = "bad number";
                return i;
            }
            i = end - 1;
        }
    }
    return len;
}

/* The text cJSON read, and how far take_tree has come through it. cJSON
 * keeps a number only as a double; its tree holds the numbers in the order
 * of the text, so the next number of the tree is the next number token
 * after `at` (outside strings), which gives its exact value. */
typedef struct cursor {
    const char *text;
    size_t len, at;
} cursor;

/* Reads the number token s[i..end) exactly into v's `integer`, `fraction`,
 * `float_form`, `negative` and `magnitude`: its value is digits × 10^scale,
 * an integer when `scale`, counted from the last digit that is not zero,
 * is not negative. The text passed strict_lexemes, so it is well formed. */
static void read_exact_number(const char *s, size_t i, size_t end, mcp_value *v) {
    bool negative = s[i] == '-';
    i += negative;
    /* The digits before the exponent: where the first and last non-zero one
     * are (by index among the digits), how many, and how many after the point. */
    size_t first = SIZE_MAX, last = 0, digits = 0, after_point = 0;
    bool point = false;
    size_t mantissa = i;
    for (; i < end && s[i] != 'e' && s[i] != 'E'; i++) {
        if (s[i] == '.') {
            point = true;
            continue;
        }
        if (s[i] != '0') {
            if (first == SIZE_MAX) first = digits;
            last = digits;
        }
        digits++;
        after_point += point;
    }
    v->float_form = i < end || point;
    int64_t exponent = 0;
    if (i < end) {
        bool down = s[++i] == '-';
        if (s[i] == '-' || s[i] == '+') i++;
        /* Saturated: no text holds 10^15 digits, so a larger exponent
         * means the same as 10^15. */
        for (; i < end; i++) {
            if (exponent < 1000000000000000) exponent = exponent * 10 + (s[i] - '0');
        }
        if (down) exponent = -exponent;
    }
    if (first == SIZE_MAX) { /* zero, in any spelling */
        v->integer = true;
        return;
    }
    int64_t scale = exponent - (int64_t)after_point + (int64_t)(digits - 1 - last);
    if (scale < 0) {
        v->fraction = true;
        return;
    }
    if ((int64_t)(last - first) + 1 + scale > 20) return; /* beyond 64 bits */
    uint64_t magnitude = 0;
    size_t k = 0;
    for (i = mantissa; k <= last; i++) {
        if (s[i] == '.') continue;
        if (k++ < first) continue;
        uint64_t digit = (uint64_t)(s[i] - '0');
        if (magnitude > (UINT64_MAX - digit) / 10) return;
        magnitude = magnitude * 10 + digit;
    }
    for (; scale > 0; scale--) {
        if (magnitude > UINT64_MAX / 10) return;
        magnitude *= 10;
    }
    v->integer = true;
    v->negative = negative;
    v->magnitude = magnitude;
}

/* Reads the next number token after c->at (outside strings) exactly into v. */
static void read_exact(cursor *c, mcp_value *v) {
    size_t i = c->at;
    while (i < c->len && c->text[i] != '-' && !is_digit(c->text[i])) {
        if (c->text[i] == '"') {
            const char *what = NULL;
            i = string_end(c->text, i + 1, c->len, &what);
        }
        i++;
    }
    size_t end = number_end(c->text, i, c->len);
    if (end == 0) return; /* not reached: cJSON read a number here */
    c->at = end;
    read_exact_number(c->text, i, end, v);
}

/* Moves cJSON's tree `j` into `v`: strings and keys are taken, not copied
 * (cJSON allocates them with malloc, as mcp_json_free frees them). False
 * when out of memory; `v` then holds what was moved, for mcp_json_free. */
static bool take_tree(cJSON *j, mcp_value *v, cursor *c) {
    switch (j->type & 0xFF) {
    case cJSON_False:
    case cJSON_True:
        v->type = MCP_JSON_BOOL;
        v->boolean = (j->type & cJSON_True) != 0;
        return true;
    case cJSON_Number:
        v->type = MCP_JSON_NUMBER;
        v->number = j->valuedouble;
        read_exact(c, v);
        return true;
    case cJSON_String:
        v->type = MCP_JSON_STRING;
        v->string = j->valuestring;
        v->len = strlen(v->string);
        j->valuestring = NULL;
        return true;
    case cJSON_Array:
    case cJSON_Object: {
        bool object = (j->type & cJSON_Object) != 0;
        size_t n = 0;
        for (cJSON *child = j->child; child != NULL; child = child->next) n++;
        v->type = object ? MCP_JSON_OBJECT : MCP_JSON_ARRAY;
        v->items = calloc(n == 0 ? 1 : n, sizeof v->items[0]);
        if (v->items == NULL) return false;
        if (object && (v->keys = calloc(n == 0 ? 1 : n, sizeof v->keys[0])) == NULL) return false;
        for (cJSON *child = j->child; child != NULL; child = child->next) {
            if (object) {
                v->keys[v->len] = child->string;
                child->string = NULL;
            }
            /* Counted before it is filled, so a failure frees it too. */
            if (!take_tree(child, &v->items[v->len++], c)) return false;
        }
        return true;
    }
    default:
        v->type = MCP_JSON_NULL;
        return true;
    }
}

static void free_members(mcp_value *v) {
    if (v->type == MCP_JSON_STRING) free(v->string);
    if (v->type == MCP_JSON_ARRAY || v->type == MCP_JSON_OBJECT) {
        for (size_t i = 0; i < v->len; i++) {
            free_members(&v->items[i]);
            if (v->type == MCP_JSON_OBJECT) free(v->keys[i]);
        }
        free(v->items);
        free(v->keys);
    }
}

/* Reads `len` bytes of JSON into a cJSON tree, or NULL with the reason in
 * `what` and its offset in `at`. */
static cJSON *read_tree(const char *text, size_t len, const char **what, size_t *at) {
    *at = strict_lexemes(text, len, what);
    if (*what != NULL) return NULL;
    cJSON_Hooks hooks = {.malloc_fn = cjson_malloc, .free_fn = free};
    cJSON_InitHooks(&hooks);
    cjson_out_of_memory = false;
    const char *end = text;
    cJSON *tree = len == 0 ? NULL : cJSON_ParseWithLengthOpts(text, len, &end, false);
    *at = (size_t)(end - text);
    if (tree == NULL) {
        /* cJSON stops on an opening bracket only when it is one too deep
         * (or when out of memory). */
        bool opening = *at < len && (text[*at] == '[' || text[*at] == '{');
        *what = cjson_out_of_memory ? "out of memory"
                : len == 0          ? "unexpected end of input"
                : opening           ? "nesting too deep"
                                    : "not valid JSON";
        return NULL;
    }
    while (*at < len && is_space(text[*at])) (*at)++;
    if (*at != len) {
        *what = "trailing characters after the value";
        cJSON_Delete(tree);
        return NULL;
    }
    return tree;
}

mcp_value *mcp_json_parse(const char *text, size_t len, char *error, size_t error_size) {
    if (error != NULL && error_size > 0) error[0] = '\0';
    if (text == NULL) len = 0;
    const char *what = NULL;
    size_t at = 0;
    cJSON *tree = read_tree(text, len, &what, &at);
    mcp_value *v = tree == NULL ? NULL : calloc(1, sizeof *v);
    cursor c = {.text = text, .len = len, .at = 0};
    if (tree != NULL && (v == NULL || !take_tree(tree, v, &c))) {
        what = "out of memory";
        at = 0;
        mcp_json_free(v);
        v = NULL;
    }
    cJSON_Delete(tree);
    if (v == NULL && error != NULL && error_size > 0) {
        snprintf(error, error_size, "%s at byte %zu", what, at);
    }
    return v;
}

void mcp_json_free(mcp_value *value) {
    if (value == NULL) return;
    free_members(value);
    free(value);
}

const mcp_value *mcp_get(const mcp_value *obj, const char *key) {
    if (obj == NULL || key == NULL || obj->type != MCP_JSON_OBJECT) return NULL;
    /* The last of repeated keys wins, as in most JSON readers. */
    for (size_t i = obj->len; i > 0; i--) {
        if (strcmp(obj->keys[i - 1], key) == 0) return &obj->items[i - 1];
    }
    return NULL;
}

bool mcp_has(const mcp_value *obj, const char *key) {
    const mcp_value *v = mcp_get(obj, key);
    return v != NULL && v->type != MCP_JSON_NULL;
}

const char *mcp_get_string(const mcp_value *obj, const char *key, const char *fallback) {
    const mcp_value *v = mcp_get(obj, key);
    return v != NULL && v->type == MCP_JSON_STRING ? v->string : fallback;
}

double mcp_get_number(const mcp_value *obj, const char *key, double fallback) {
    const mcp_value *v = mcp_get(obj, key);
    return v != NULL && v->type == MCP_JSON_NUMBER ? v->number : fallback;
}

/* 2^53: from here on, neighbouring integers read as the same double, so
 * an integer in float form may be a double's rounding of another. */
#define EXACT_IN_A_DOUBLE ((uint64_t)1 << 53)

/* What a JSON value is, for a message: "a string", ... */
static const char *kind_of(const mcp_value *v) {
    switch (v->type) {
    case MCP_JSON_BOOL: return "a boolean";
    case MCP_JSON_STRING: return "a string";
    case MCP_JSON_ARRAY: return "an array";
    case MCP_JSON_OBJECT: return "an object";
    default: return "a number";
    }
}

/* Reads the member `key` as an integer from -max_negative to max: true
 * with the sign and magnitude set, or absent/null (`*present` false);
 * false with `*error` set naming `bounds`. */
static bool exact_integer(const mcp_value *obj, const char *key, uint64_t max_negative,
                          uint64_t max, const char *bounds, bool *present, bool *negative,
                          uint64_t *magnitude, mcp_result *error) {
    const mcp_value *v = mcp_get(obj, key);
    *present = v != NULL && v->type != MCP_JSON_NULL;
    if (!*present) return true;
    const char *problem = NULL;
    /* In float form from 2^53 on, the text may be the host's writing of the
     * double it read: judged by that double, as the host judges it. */
    bool by_double = false;
    if (v->type != MCP_JSON_NUMBER) {
        problem = kind_of(v);
    } else if (v->fraction) {
        problem = "not an integer";
    } else if (v->float_form && !(v->number > -(double)EXACT_IN_A_DOUBLE &&
                                  v->number < (double)EXACT_IN_A_DOUBLE)) {
        /* A double rounds INT64_MAX and UINT64_MAX up to the next integer,
         * itself out of range; -max_negative is one exactly. */
        by_double = true;
        problem = v->number < -(double)max_negative || v->number >= (double)max
                      ? "out of range"
                      : "beyond 2^53 - 1 in float form, where a double cannot tell neighbouring "
                        "integers apart (write it as a plain integer)";
    } else if (!v->integer || v->magnitude > (v->negative ? max_negative : max)) {
        problem = "out of range";
    }
    if (problem == NULL) {
        *negative = v->negative && v->magnitude != 0;
        *magnitude = v->magnitude;
        return true;
    }
    if (error != NULL) {
        if (v->type != MCP_JSON_NUMBER) {
            *error = mcp_invalid_arguments("argument \"%s\": expected an integer from %s, got %s",
                                           key, bounds, problem);
        } else if (v->integer && !by_double) {
            *error = mcp_invalid_arguments("argument \"%s\": %s%llu is %s: expected an integer from %s",
                                           key, v->negative ? "-" : "",
                                           (unsigned long long)v->magnitude, problem, bounds);
        } else {
            *error = mcp_invalid_arguments("argument \"%s\": the number read as %.17g is %s: "
                                           "expected an integer from %s",
                                           key, v->number, problem, bounds);
        }
    }
    return false;
}

bool mcp_get_int64(const mcp_value *obj, const char *key, int64_t *out, mcp_result *error) {
    bool present = false, negative = false;
    uint64_t magnitude = 0;
    if (!exact_integer(obj, key, (uint64_t)INT64_MAX + 1, INT64_MAX,
                       "-9223372036854775808 to 9223372036854775807", &present, &negative,
                       &magnitude, error)) {
        return false;
    }
    if (present) *out = negative ? (int64_t)(0 - magnitude) : (int64_t)magnitude;
    return true;
}

bool mcp_get_uint64(const mcp_value *obj, const char *key, uint64_t *out, mcp_result *error) {
    bool present = false, negative = false;
    uint64_t magnitude = 0;
    if (!exact_integer(obj, key, 0, UINT64_MAX, "0 to 18446744073709551615", &present, &negative,
                       &magnitude, error)) {
        return false;
    }
    if (present) *out = magnitude;
    return true;
}

bool mcp_get_bool(const mcp_value *obj, const char *key, bool fallback) {
    const mcp_value *v = mcp_get(obj, key);
    return v != NULL && v->type == MCP_JSON_BOOL ? v->boolean : fallback;
}

const mcp_value *mcp_get_array(const mcp_value *obj, const char *key) {
    const mcp_value *v = mcp_get(obj, key);
    return v != NULL && v->type == MCP_JSON_ARRAY ? v : NULL;
}

size_t mcp_array_len(const mcp_value *array) {
    return array != NULL && array->type == MCP_JSON_ARRAY ? array->len : 0;
}

const mcp_value *mcp_array_at(const mcp_value *array, size_t i) {
    return i < mcp_array_len(array) ? &array->items[i] : NULL;
}

const char *mcp_quote(const char *s) {
    if (s == NULL) return "null";
    size_t n = strlen(s);
    /* The worst case is \u00XX, six bytes, for every input byte. */
    if (n > (SIZE_MAX - 3) / 6) return NULL;
    char *out = malloc(n * 6 + 3);
    if (out == NULL) return NULL;
    size_t o = 0;
    out[o++] = '"';
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '"': out[o++] = '\\'; out[o++] = '"'; break;
        case '\\': out[o++] = '\\'; out[o++] = '\\'; break;
        case '\n': out[o++] = '\\'; out[o++] = 'n'; break;
        case '\r': out[o++] = '\\'; out[o++] = 'r'; break;
        case '\t': out[o++] = '\\'; out[o++] = 't'; break;
        default:
            if (c < 0x20) {
                o += (size_t)snprintf(out + o, 7, "\\u%04x", c);
            } else {
                out[o++] = (char)c;
            }
        }
    }
    out[o++] = '"';
    out[o] = '\0';
    return mcp__arena_keep(out);
}
