/*
 * serve.c: what serving resources and prompts needs beside the bindings:
 * the empty tables a plugin without resources or prompts links with,
 * URI template matching, and the `not-found` result.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "mcp_wasm_sdk.h"

/* A plugin that uses MCP_RESOURCES or MCP_PROMPTS defines these; one that
 * does not links with these empty ones. */
__attribute__((weak)) const mcp_resource mcp_resources[1];
__attribute__((weak)) const size_t mcp_resource_count = 0;
__attribute__((weak)) const mcp_prompt mcp_prompts[1];
__attribute__((weak)) const size_t mcp_prompt_count = 0;

mcp_result mcp_not_found(const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    mcp_result r = mcp__error(MCP_NOT_FOUND, fmt, args);
    va_end(args);
    return r;
}

/* At most this many variables in a template. */
#define MAX_VARS 16

typedef struct {
    const char *name;
    size_t name_len;
    const char *value;
    size_t value_len;
} var;

/* Whether `uri` matches `t`; fills vars[*n...] with the variables. The
 * shortest value comes first, so a later literal decides where it ends. */
static bool match(const char *t, const char *uri, var *vars, size_t *n) {
    const char *open = strchr(t, '{');
    const char *close = open == NULL ? NULL : strchr(open, '}');
    if (open == NULL || close == NULL) return strcmp(t, uri) == 0;
    size_t literal = (size_t)(open - t);
    if (strncmp(t, uri, literal) != 0) return false;
    const char *tail = uri + literal;
    bool any = open[1] == '+';
    const char *name = open + 1 + any;
    if (*n == MAX_VARS) return false;
    for (size_t len = 1; tail[len - 1] != '\0'; len++) {
        if (!any && tail[len - 1] == '/') break;
        size_t at = *n;
        vars[at] = (var){name, (size_t)(close - name), tail, len};
        *n = at + 1;
        if (match(close + 1, tail + len, vars, n)) return true;
        *n = at;
    }
    return false;
}

bool mcp_match_template(const char *template_, const char *uri, mcp_value **out) {
    var vars[MAX_VARS];
    size_t n = 0;
    if (template_ == NULL || uri == NULL || !match(template_, uri, vars, &n)) return false;
    if (out == NULL) return true;
    mcp_value *obj = calloc(1, sizeof *obj);
    if (obj == NULL) return false;
    obj->type = MCP_JSON_OBJECT;
    obj->keys = calloc(n == 0 ? 1 : n, sizeof obj->keys[0]);
    obj->items = calloc(n == 0 ? 1 : n, sizeof obj->items[0]);
    if (obj->keys == NULL || obj->items == NULL) {
        free(obj->keys);
        free(obj->items);
        free(obj);
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        /* A name used twice keeps its first value. */
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++) {
            seen = vars[j].name_len == vars[i].name_len &&
                   memcmp(vars[j].name, vars[i].name, vars[i].name_len) == 0;
        }
        if (seen) continue;
        size_t at = obj->len;
        obj->keys[at] = strndup(vars[i].name, vars[i].name_len);
        obj->items[at].type = MCP_JSON_STRING;
        obj->items[at].string = strndup(vars[i].value, vars[i].value_len);
        obj->items[at].len = vars[i].value_len;
        obj->len = at + 1;
        if (obj->keys[at] == NULL || obj->items[at].string == NULL) {
            mcp_json_free(obj);
            return false;
        }
    }
    *out = obj;
    return true;
}
