/*
 * json.c: a small, bounded JSON reader (RFC 8259) for a call's arguments,
 * the accessors plugins read them with, and mcp_quote for writing JSON
 * strings. Written for this SDK: it checks every length against the end of
 * the input, limits nesting to MCP_JSON_MAX_DEPTH, and reports the byte
 * offset of the first error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "mcp_wasm_sdk.h"

typedef struct parser {
    const char *s;
    size_t len;
    size_t pos;
    char *error;
    size_t error_size;
    bool failed;
} parser;

static void fail(parser *p, const char *what) {
    if (!p->failed && p->error != NULL && p->error_size > 0) {
        snprintf(p->error, p->error_size, "%s at byte %zu", what, p->pos);
    }
    p->failed = true;
}

static void skip_space(parser *p) {
    while (p->pos < p->len) {
        char c = p->s[p->pos];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
        p->pos++;
    }
}

static bool literal(parser *p, const char *word) {
    size_t n = strlen(word);
    if (p->len - p->pos < n || memcmp(p->s + p->pos, word, n) != 0) return false;
    p->pos += n;
    return true;
}

static int hex(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Reads 4 hex digits at p->pos; -1 if they are not there. */
static long hex4(parser *p) {
    if (p->len - p->pos < 4) return -1;
    long v = 0;
    for (int i = 0; i < 4; i++) {
        int d = hex(p->s[p->pos + i]);
        if (d < 0) return -1;
        v = v * 16 + d;
    }
    p->pos += 4;
    return v;
}

static size_t put_utf8(char *out, unsigned long cp) {
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* Parses a string at p->pos (on the opening quote) into fresh memory. The
 * decoded text is never longer than the source, so one allocation of the
 * source's length suffices. */
static char *parse_string(parser *p, size_t *out_len) {
    p->pos++; /* the quote */
    size_t start = p->pos;
    size_t end = start;
    while (end < p->len && p->s[end] != '"') {
        if (p->s[end] == '\\') end++;
        end++;
    }
    if (end >= p->len) {
        fail(p, "unterminated string");
        return NULL;
    }
    char *out = malloc(end - start + 1);
    if (out == NULL) {
        fail(p, "out of memory");
        return NULL;
    }
    size_t n = 0;
    while (p->pos < end) {
        unsigned char c = (unsigned char)p->s[p->pos];
        if (c < 0x20) {
            fail(p, "control character in string");
            free(out);
            return NULL;
        }
        if (c != '\\') {
            out[n++] = (char)c;
            p->pos++;
            continue;
        }
        p->pos++;
        char e = p->s[p->pos++];
        switch (e) {
        case '"': out[n++] = '"'; break;
        case '\\': out[n++] = '\\'; break;
        case '/': out[n++] = '/'; break;
        case 'b': out[n++] = '\b'; break;
        case 'f': out[n++] = '\f'; break;
        case 'n': out[n++] = '\n'; break;
        case 'r': out[n++] = '\r'; break;
        case 't': out[n++] = '\t'; break;
        case 'u': {
            long cp = hex4(p);
            if (cp < 0) {
                fail(p, "bad \\u escape");
                free(out);
                return NULL;
            }
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                /* A high surrogate must be followed by \uDC00-\uDFFF. */
                long low = -1;
                if (p->len - p->pos >= 2 && p->s[p->pos] == '\\' && p->s[p->pos + 1] == 'u') {
                    p->pos += 2;
                    low = hex4(p);
                }
                if (low < 0xDC00 || low > 0xDFFF) {
                    fail(p, "unpaired surrogate in \\u escape");
                    free(out);
                    return NULL;
                }
                cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
            } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                fail(p, "unpaired surrogate in \\u escape");
                free(out);
                return NULL;
            }
            /* Every escape takes at least as many bytes as its UTF-8. */
            n += put_utf8(out + n, (unsigned long)cp);
            break;
        }
        default:
            fail(p, "bad escape in string");
            free(out);
            return NULL;
        }
    }
    p->pos = end + 1;
    out[n] = '\0';
    *out_len = n;
    return out;
}

static bool parse_number(parser *p, double *out) {
    size_t start = p->pos;
    size_t i = p->pos;
    if (i < p->len && p->s[i] == '-') i++;
    if (i < p->len && p->s[i] == '0') {
        i++;
    } else if (i < p->len && p->s[i] >= '1' && p->s[i] <= '9') {
        while (i < p->len && p->s[i] >= '0' && p->s[i] <= '9') i++;
    } else {
        fail(p, "bad number");
        return false;
    }
    if (i < p->len && p->s[i] == '.') {
        i++;
        size_t digits = i;
        while (i < p->len && p->s[i] >= '0' && p->s[i] <= '9') i++;
        if (i == digits) {
            p->pos = i;
            fail(p, "bad number: no digits after '.'");
            return false;
        }
    }
    if (i < p->len && (p->s[i] == 'e' || p->s[i] == 'E')) {
        i++;
        if (i < p->len && (p->s[i] == '+' || p->s[i] == '-')) i++;
        size_t digits = i;
        while (i < p->len && p->s[i] >= '0' && p->s[i] <= '9') i++;
        if (i == digits) {
            p->pos = i;
            fail(p, "bad number: no digits in the exponent");
            return false;
        }
    }
    /* strtod needs a terminated copy: the input need not be terminated. */
    char stack[64];
    size_t n = i - start;
    char *copy = n < sizeof stack ? stack : malloc(n + 1);
    if (copy == NULL) {
        fail(p, "out of memory");
        return false;
    }
    memcpy(copy, p->s + start, n);
    copy[n] = '\0';
    *out = strtod(copy, NULL);
    if (copy != stack) free(copy);
    p->pos = i;
    return true;
}

static bool parse_value(parser *p, mcp_value *v, int depth);

/* Grows a container's arrays to hold `need` members. */
static bool grow(parser *p, mcp_value *v, size_t *cap, bool with_keys) {
    if (v->len < *cap) return true;
    size_t next = *cap == 0 ? 4 : *cap * 2;
    mcp_value *items = realloc(v->items, next * sizeof *items);
    if (items == NULL) {
        fail(p, "out of memory");
        return false;
    }
    v->items = items;
    if (with_keys) {
        char **keys = realloc(v->keys, next * sizeof *keys);
        if (keys == NULL) {
            fail(p, "out of memory");
            return false;
        }
        v->keys = keys;
    }
    *cap = next;
    return true;
}

static void free_members(mcp_value *v);

static bool parse_container(parser *p, mcp_value *v, int depth, bool object) {
    if (depth >= MCP_JSON_MAX_DEPTH) {
        fail(p, "nesting too deep");
        return false;
    }
    char close = object ? '}' : ']';
    v->type = object ? MCP_JSON_OBJECT : MCP_JSON_ARRAY;
    p->pos++;
    size_t cap = 0;
    skip_space(p);
    if (p->pos < p->len && p->s[p->pos] == close) {
        p->pos++;
        return true;
    }
    for (;;) {
        if (!grow(p, v, &cap, object)) return false;
        skip_space(p);
        if (object) {
            size_t key_len;
            if (p->pos >= p->len || p->s[p->pos] != '"') {
                fail(p, "expected a string key");
                return false;
            }
            char *key = parse_string(p, &key_len);
            if (key == NULL) return false;
            skip_space(p);
            if (p->pos >= p->len || p->s[p->pos] != ':') {
                free(key);
                fail(p, "expected ':'");
                return false;
            }
            p->pos++;
            v->keys[v->len] = key;
        }
        memset(&v->items[v->len], 0, sizeof v->items[0]);
        /* Counted before parsing, so a failure frees the partial member. */
        v->len++;
        if (!parse_value(p, &v->items[v->len - 1], depth + 1)) return false;
        skip_space(p);
        if (p->pos < p->len && p->s[p->pos] == ',') {
            p->pos++;
            continue;
        }
        if (p->pos < p->len && p->s[p->pos] == close) {
            p->pos++;
            return true;
        }
        fail(p, object ? "expected ',' or '}'" : "expected ',' or ']'");
        return false;
    }
}

static bool parse_value(parser *p, mcp_value *v, int depth) {
    skip_space(p);
    if (p->pos >= p->len) {
        fail(p, "unexpected end of input");
        return false;
    }
    char c = p->s[p->pos];
    switch (c) {
    case '{': return parse_container(p, v, depth, true);
    case '[': return parse_container(p, v, depth, false);
    case '"':
        v->type = MCP_JSON_STRING;
        v->string = parse_string(p, &v->len);
        return v->string != NULL;
    case 't':
    case 'f':
    case 'n':
        if (literal(p, "true") || literal(p, "false")) {
            v->type = MCP_JSON_BOOL;
            v->boolean = c == 't';
            return true;
        }
        if (literal(p, "null")) {
            v->type = MCP_JSON_NULL;
            return true;
        }
        fail(p, "unexpected word");
        return false;
    default:
        if (c != '-' && (c < '0' || c > '9')) {
            fail(p, "unexpected character");
            return false;
        }
        v->type = MCP_JSON_NUMBER;
        return parse_number(p, &v->number);
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

mcp_value *mcp_json_parse(const char *text, size_t len, char *error, size_t error_size) {
    parser p = {.s = text, .len = text == NULL ? 0 : len, .error = error,
                .error_size = error_size};
    if (error != NULL && error_size > 0) error[0] = '\0';
    mcp_value *v = calloc(1, sizeof *v);
    if (v == NULL) {
        fail(&p, "out of memory");
        return NULL;
    }
    if (parse_value(&p, v, 0)) {
        skip_space(&p);
        if (p.pos != p.len) fail(&p, "trailing characters after the value");
    }
    if (p.failed) {
        mcp_json_free(v);
        return NULL;
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
