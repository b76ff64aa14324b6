/*
 * internal.h: what the SDK's source files share and plugins do not see:
 * the per-call arena (allocations freed when a call ends), printf into
 * fresh memory, the schemas of MCP_FIELDS, and the key-value store under
 * the mcp_store_* functions.
 */
#ifndef MCP_WASM_SDK_INTERNAL_H
#define MCP_WASM_SDK_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mcp_wasm_sdk.h"

/** Keeps `p` (from malloc) until the call ends; returns it, or NULL if `p`
 * is NULL or cannot be kept (then `p` is freed). */
void *mcp__arena_keep(void *p);
/** Keeps `p` until the call ends, then `drop(p)`; returns it, or NULL if
 * `p` is NULL or cannot be kept (then it is dropped at once). */
void *mcp__arena_keep_with(void *p, void (*drop)(void *));
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

/* ---- the key-value store (store.c over store_host.c in WebAssembly,
 * store_memory.c natively) ---- */

/** What the store answered, before store.c adds its context. */
typedef enum mcp__kv_fault_kind {
    MCP__KV_NO_SUCH_STORE = 1,
    MCP__KV_ACCESS_DENIED,
    MCP__KV_OTHER,
} mcp__kv_fault_kind;

/** A failed operation: its kind, and for MCP__KV_OTHER the reason (malloc,
 * NULL when out of memory; the caller frees it). */
typedef struct mcp__kv_fault {
    mcp__kv_fault_kind kind;
    char *reason;
} mcp__kv_fault;

/**
 * Sets `*error` (if not NULL) to the result of `fault` on `bucket` during
 * `op` (e.g. "get") of `key` (NULL: of the bucket itself): denied naming the
 * policy key, or failed with the reason. Frees the fault's reason; returns
 * false.
 */
bool mcp__kv_error(mcp_result *error, const char *bucket, const char *op, const char *key,
                   mcp__kv_fault *fault);

/** An open bucket, and a compare-and-swap begun (the backend's own). */
typedef struct mcp__kv_bucket mcp__kv_bucket;
typedef struct mcp__kv_cas mcp__kv_cas;

/* Each returns true on success, or false with `*fault` set. A value is
 * malloc'd with a NUL after its `len` bytes (the caller frees it), or NULL
 * when the key has none. Names and keys are valid UTF-8. */
mcp__kv_bucket *mcp__kv_open(const char *name, mcp__kv_fault *fault);
/** Gives the bucket back (NULL is fine). */
void mcp__kv_close(mcp__kv_bucket *bucket);
bool mcp__kv_get(mcp__kv_bucket *b, const char *key, char **value, size_t *len,
                 mcp__kv_fault *fault);
bool mcp__kv_set(mcp__kv_bucket *b, const char *key, const void *value, size_t len,
                 mcp__kv_fault *fault);
bool mcp__kv_delete(mcp__kv_bucket *b, const char *key, mcp__kv_fault *fault);
bool mcp__kv_exists(mcp__kv_bucket *b, const char *key, bool *exists, mcp__kv_fault *fault);
/** One page of keys after `cursor` (NULL: the first page): `*keys` gets
 * `*count` malloc'd strings in a malloc'd array, `*next` the cursor of the
 * next page (malloc), or NULL after the last. */
bool mcp__kv_list_keys(mcp__kv_bucket *b, const char *cursor, char ***keys, size_t *count,
                       char **next, mcp__kv_fault *fault);
bool mcp__kv_increment(mcp__kv_bucket *b, const char *key, int64_t delta, int64_t *value,
                       mcp__kv_fault *fault);
/** Begins a compare-and-swap of `key`: NULL with `*fault` set on failure. */
mcp__kv_cas *mcp__kv_cas_new(mcp__kv_bucket *b, const char *key, mcp__kv_fault *fault);
/** The value the cas saw, as mcp__kv_get gives it. */
bool mcp__kv_cas_current(mcp__kv_cas *cas, char **value, size_t *len, mcp__kv_fault *fault);
/** Abandons a cas (NULL is fine). */
void mcp__kv_cas_free(mcp__kv_cas *cas);

/** How a swap ended. */
typedef enum mcp__kv_swapped {
    MCP__KV_SWAPPED,
    /** The key changed since the cas read it: `*again` is a cas of its
     * value now. */
    MCP__KV_CONFLICT,
    /** The store failed: `*fault` is set. */
    MCP__KV_SWAP_FAILED,
} mcp__kv_swapped;

/** Writes `value` if the key still holds what `cas` saw; consumes `cas`. */
mcp__kv_swapped mcp__kv_swap(mcp__kv_cas *cas, const void *value, size_t len,
                             mcp__kv_cas **again, mcp__kv_fault *fault);

#endif
