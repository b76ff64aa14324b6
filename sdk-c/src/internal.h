/*
 * internal.h: what the SDK's source files share and plugins do not see:
 * the per-call arena (allocations freed when a call ends), printf into
 * fresh memory, and the schemas of MCP_FIELDS.
 */
#ifndef MCP_WASM_SDK_INTERNAL_H
#define MCP_WASM_SDK_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "mcp_wasm_sdk.h"

/** Keeps `p` (from malloc) until the call ends; returns it, or NULL if `p`
 * is NULL or cannot be kept (then `p` is freed). */
void *mcp__arena_keep(void *p);
/** Keeps a parsed JSON value until the call ends. */
const mcp_value *mcp__arena_keep_json(mcp_value *value);
/** Frees everything kept since the call began. */
void mcp__arena_release(void);

/** printf into a fresh NUL-terminated buffer (malloc), or NULL when out of
 * memory or the format fails; `len` (may be NULL) gets its length. */
char *mcp__vformat(size_t *len, const char *fmt, va_list args);

/** As mcp__vformat, with the arguments inline. */
char *mcp__format(const char *fmt, ...) MCP_PRINTF(1, 2);

/** Whether `len` bytes at `s` are valid UTF-8. */
bool mcp__utf8_valid(const char *s, size_t len);
/** A copy of `s` (malloc, NUL-terminated) with U+FFFD for each invalid
 * byte, or NULL when out of memory; `out_len` gets its length. */
char *mcp__utf8_repair(const char *s, size_t len, size_t *out_len);

/**
 * The JSON Schema (malloc) of the object whose fields are `fields` (ended
 * by an entry without a name), with "additionalProperties": false when
 * `closed`. NULL when out of memory, or when a field's schema is not a JSON
 * object: then `*bad_field` names that field.
 */
char *mcp__fields_schema(const mcp_field *fields, bool closed, const char **bad_field);

/** A result with status `status` and the formatted message. */
mcp_result mcp__error(mcp_status status, const char *fmt, va_list args);

/** Frees what a result owns (its blocks, message and structured content). */
void mcp__result_free(mcp_result *r);

#endif
