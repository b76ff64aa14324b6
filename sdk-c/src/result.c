/*
 * result.c: building a handler's mcp_result (text, JSON, media, errors)
 * and the per-call arena that frees what the SDK handed out once a call
 * ends. Out of memory never crashes: the result becomes a failure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "mcp_wasm_sdk.h"

/* ---- the arena ---- */

typedef struct kept {
    struct kept *next;
    void *memory;
    void (*drop)(void *memory);
} kept;

static kept *arena;

void *mcp__arena_keep_with(void *p, void (*drop)(void *)) {
    if (p == NULL) return NULL;
    kept *k = malloc(sizeof *k);
    if (k == NULL) {
        drop(p);
        return NULL;
    }
    *k = (kept){.next = arena, .memory = p, .drop = drop};
    arena = k;
    return p;
}

void *mcp__arena_keep(void *p) { return mcp__arena_keep_with(p, free); }

static void drop_json(void *value) { mcp_json_free(value); }

const mcp_value *mcp__arena_keep_json(mcp_value *value) {
    return mcp__arena_keep_with(value, drop_json);
}

void mcp__arena_release(void) {
    /* Newest first: what was kept later may refer to what was kept before. */
    while (arena != NULL) {
        kept *k = arena;
        arena = k->next;
        k->drop(k->memory);
        free(k);
    }
}

/* ---- formatting ---- */

char *mcp__vformat(size_t *len, const char *fmt, va_list args) {
    va_list copy;
    va_copy(copy, args);
    int n = vsnprintf(NULL, 0, fmt, copy);
    va_end(copy);
    if (n < 0) return NULL;
    char *out = malloc((size_t)n + 1);
    if (out == NULL) return NULL;
    vsnprintf(out, (size_t)n + 1, fmt, args);
    if (len != NULL) *len = (size_t)n;
    return out;
}

char *mcp__format(const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    char *out = mcp__vformat(NULL, fmt, args);
    va_end(args);
    return out;
}

static mcp_result out_of_memory(void) {
    /* A static message: nothing can be allocated. The world glue copies
     * messages, so it is never freed. */
    mcp_result r = {.status = MCP_FAILED, .message = NULL};
    return r;
}

mcp_result mcp__error(mcp_status status, const char *fmt, va_list args) {
    mcp_result r = {.status = status};
    r.message = mcp__vformat(NULL, fmt, args);
    if (r.message == NULL) return out_of_memory();
    return r;
}

void mcp__result_free(mcp_result *r) {
    for (size_t i = 0; i < r->block_count; i++) {
        free(r->blocks[i].data);
        free(r->blocks[i].mime_type);
    }
    free(r->blocks);
    free(r->message);
    free(r->structured);
    memset(r, 0, sizeof *r);
}

/* ---- blocks ---- */

/* Appends a block that takes ownership of `data` and `mime_type`. */
static bool add_block(mcp_result *r, int kind, char *data, size_t len, char *mime_type) {
    if (r->status != MCP_OK) {
        free(data);
        free(mime_type);
        return false;
    }
    mcp_block *blocks = data == NULL ? NULL
                                     : realloc(r->blocks, (r->block_count + 1) * sizeof *blocks);
    if (blocks == NULL || (kind != 0 && mime_type == NULL)) {
        if (blocks != NULL) r->blocks = blocks;
        free(data);
        free(mime_type);
        mcp__result_free(r);
        *r = out_of_memory();
        return false;
    }
    r->blocks = blocks;
    r->blocks[r->block_count++] = (mcp_block){kind, data, len, mime_type};
    return true;
}

static bool add_media(mcp_result *r, int kind, const void *data, size_t len,
                      const char *mime_type) {
    char *copy = malloc(len == 0 ? 1 : len);
    if (copy != NULL && len > 0) memcpy(copy, data, len);
    char *mime = mime_type == NULL ? NULL : strdup(mime_type);
    return add_block(r, kind, copy, len, mime);
}

bool mcp_add_text(mcp_result *r, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    size_t len = 0;
    char *text = mcp__vformat(&len, fmt, args);
    va_end(args);
    return add_block(r, 0, text, len, NULL);
}

bool mcp_add_image(mcp_result *r, const void *data, size_t len, const char *mime_type) {
    return add_media(r, 1, data, len, mime_type);
}

bool mcp_add_audio(mcp_result *r, const void *data, size_t len, const char *mime_type) {
    return add_media(r, 2, data, len, mime_type);
}

/* ---- results ---- */

mcp_result mcp_empty(void) {
    mcp_result r = {.status = MCP_OK};
    return r;
}

mcp_result mcp_text(const char *fmt, ...) {
    mcp_result r = mcp_empty();
    va_list args;
    va_start(args, fmt);
    size_t len = 0;
    char *text = mcp__vformat(&len, fmt, args);
    va_end(args);
    add_block(&r, 0, text, len, NULL);
    return r;
}

mcp_result mcp_json(const char *fmt, ...) {
    mcp_result r = mcp_empty();
    va_list args;
    va_start(args, fmt);
    size_t len = 0;
    char *json = mcp__vformat(&len, fmt, args);
    va_end(args);
    if (json == NULL) return out_of_memory();
    /* A malformed document is the plugin's bug; say so rather than send it. */
    char error[96];
    mcp_value *check = mcp_json_parse(json, len, error, sizeof error);
    if (check == NULL) {
        mcp_result bad = mcp_failed("the tool built invalid JSON (%s)", error);
        free(json);
        return bad;
    }
    mcp_json_free(check);
    char *text = strdup(json);
    r.structured = json;
    add_block(&r, 0, text, len, NULL);
    return r;
}

mcp_result mcp_invalid_arguments(const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    mcp_result r = mcp__error(MCP_INVALID_ARGUMENTS, fmt, args);
    va_end(args);
    return r;
}

mcp_result mcp_failed(const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    mcp_result r = mcp__error(MCP_FAILED, fmt, args);
    va_end(args);
    return r;
}

mcp_result mcp_denied(const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    mcp_result r = mcp__error(MCP_DENIED, fmt, args);
    va_end(args);
    return r;
}
