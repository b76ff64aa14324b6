/*
 * fields.c: the JSON Schema of an object declared with MCP_FIELDS, written
 * when the host lists the tools (MCP_TOOL's input, `.output_fields`).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* A growing NUL-terminated buffer; `failed` once an allocation failed. */
typedef struct buffer {
    char *data;
    size_t len, cap;
    bool failed;
} buffer;

static void append_n(buffer *b, const char *s, size_t n) {
    if (b->failed) return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap == 0 ? 256 : b->cap;
        while (b->len + n + 1 > cap) cap *= 2;
        char *data = realloc(b->data, cap);
        if (data == NULL) {
            b->failed = true;
            return;
        }
        b->data = data;
        b->cap = cap;
    }
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

static void append(buffer *b, const char *s) { append_n(b, s, strlen(s)); }

/* `s` as a JSON string literal. */
static void append_quoted(buffer *b, const char *s) {
    append(b, "\"");
    for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++) {
        char escaped[8];
        switch (*p) {
        case '"': append(b, "\\\""); break;
        case '\\': append(b, "\\\\"); break;
        case '\n': append(b, "\\n"); break;
        case '\r': append(b, "\\r"); break;
        case '\t': append(b, "\\t"); break;
        default:
            if (*p < 0x20) {
                snprintf(escaped, sizeof escaped, "\\u%04x", *p);
                append(b, escaped);
            } else {
                append_n(b, (const char *)p, 1);
            }
        }
    }
    append(b, "\"");
}

/* The field's schema with its description added: `{"description": D, ...}`
 * from the schema object `{...}`. False if the schema is not an object. */
static bool append_field_schema(buffer *b, const mcp_field *f) {
    const char *s = f->schema == NULL ? "{}" : f->schema;
    s += strspn(s, " \t\r\n");
    if (*s != '{') return false;
    s++;
    const char *rest = s + strspn(s, " \t\r\n");
    append(b, "{");
    if (f->description != NULL) {
        append(b, "\"description\": ");
        append_quoted(b, f->description);
        if (*rest != '}') append(b, ", ");
    }
    append(b, s);
    return true;
}

char *mcp__fields_schema(const mcp_field *fields, bool closed, const char **bad_field) {
    buffer b = {0};
    *bad_field = NULL;
    append(&b, "{\"type\": \"object\", \"properties\": {");
    for (const mcp_field *f = fields; f->name != NULL; f++) {
        if (f != fields) append(&b, ", ");
        append_quoted(&b, f->name);
        append(&b, ": ");
        if (!append_field_schema(&b, f)) {
            *bad_field = f->name;
            free(b.data);
            return NULL;
        }
    }
    append(&b, "}, \"required\": [");
    bool first = true;
    for (const mcp_field *f = fields; f->name != NULL; f++) {
        if (!f->required) continue;
        if (!first) append(&b, ", ");
        append_quoted(&b, f->name);
        first = false;
    }
    append(&b, closed ? "], \"additionalProperties\": false}" : "]}");
    if (b.failed) {
        free(b.data);
        return NULL;
    }
    return b.data;
}
