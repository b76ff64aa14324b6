/*
 * store.c: the mcp_store_* functions over the key-value store of
 * internal.h (the host's wasi:keyvalue in WebAssembly, memory natively):
 * their errors as results, the paging of every key, and updates as a
 * compare-and-swap loop. What they hand out lives in the call's arena.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "mcp_wasm_sdk.h"

struct mcp_bucket {
    mcp__kv_bucket *raw;
    char *name;
};

static void close_bucket(void *p) {
    mcp_bucket *b = p;
    mcp__kv_close(b->raw);
    free(b->name);
    free(b);
}

bool mcp__kv_error(mcp_result *error, const char *bucket, const char *op, const char *key,
                   mcp__kv_fault *fault) {
    const char *reason = fault->reason == NULL ? "out of memory" : fault->reason;
    if (error != NULL) {
        const char *name = mcp_quote(bucket);
        switch (fault->kind) {
        case MCP__KV_ACCESS_DENIED:
            *error = mcp_denied("this plugin may not open the key-value bucket %s: the server's "
                                "policy grants it with `[plugins.<this plugin>.keyvalue] "
                                "buckets = [%s]`",
                                name, name);
            break;
        case MCP__KV_NO_SUCH_STORE:
            *error = mcp_failed("the host has no store for the key-value bucket %s", name);
            break;
        default:
            if (key == NULL) {
                *error = mcp_failed("key-value bucket %s: %s: %s", name, op, reason);
            } else {
                *error =
                    mcp_failed("key-value bucket %s: %s %s: %s", name, op, mcp_quote(key), reason);
            }
        }
    }
    free(fault->reason);
    return false;
}

/* An MCP__KV_OTHER fault with a copy of `reason`. */
static mcp__kv_fault other(const char *reason) {
    return (mcp__kv_fault){MCP__KV_OTHER, strdup(reason)};
}

/* Whether `s` is usable as a name or key (UTF-8 text); else fails. */
static bool text_ok(mcp_result *error, const char *bucket, const char *op, const char *key,
                    const char *s) {
    if (s != NULL && mcp__utf8_valid(s, strlen(s))) return true;
    mcp__kv_fault fault = other(s == NULL ? "it is NULL" : "it is not UTF-8");
    return mcp__kv_error(error, bucket == NULL ? "" : bucket, op, key == NULL ? "" : key, &fault);
}

mcp_bucket *mcp_store_open(const char *name, mcp_result *error) {
    if (!text_ok(error, name, "open", NULL, name)) return NULL;
    mcp__kv_fault fault;
    mcp_bucket *b = calloc(1, sizeof *b);
    char *copy = strdup(name);
    mcp__kv_bucket *raw = b == NULL || copy == NULL ? NULL : mcp__kv_open(name, &fault);
    if (raw == NULL) {
        if (b == NULL || copy == NULL) fault = (mcp__kv_fault){MCP__KV_OTHER, NULL};
        free(b);
        free(copy);
        mcp__kv_error(error, name, "open", NULL, &fault);
        return NULL;
    }
    b->raw = raw;
    b->name = copy;
    if (mcp__arena_keep_with(b, close_bucket) == NULL) {
        mcp__kv_fault oom = {MCP__KV_OTHER, NULL};
        mcp__kv_error(error, name, "open", NULL, &oom);
        return NULL;
    }
    return b;
}

const char *mcp_store_name(const mcp_bucket *bucket) { return bucket->name; }

/* Whether `key` of `b` can go to the store, for `op`. */
#define KEY_OK(b, op, key) text_ok(error, (b)->name, (op), (key), (key))

/* Hands `*value` (from the store) to the caller through the arena. */
static bool hand_out(char *value, size_t value_len, const char **out, size_t *len) {
    if (value != NULL && mcp__arena_keep(value) == NULL) return false;
    if (out != NULL) *out = value;
    if (len != NULL) *len = value == NULL ? 0 : value_len;
    return true;
}

bool mcp_store_get(mcp_bucket *b, const char *key, const char **value, size_t *len,
                   mcp_result *error) {
    if (!KEY_OK(b, "get", key)) return false;
    mcp__kv_fault fault = {MCP__KV_OTHER, NULL};
    char *got = NULL;
    size_t got_len = 0;
    if (!mcp__kv_get(b->raw, key, &got, &got_len, &fault) ||
        !hand_out(got, got_len, value, len))
        return mcp__kv_error(error, b->name, "get", key, &fault);
    return true;
}

bool mcp_store_get_string(mcp_bucket *b, const char *key, const char **value,
                          mcp_result *error) {
    const char *got;
    size_t len;
    if (!mcp_store_get(b, key, &got, &len, error)) return false;
    const char *bad = got == NULL                    ? NULL
                      : !mcp__utf8_valid(got, len)   ? "the value is not UTF-8"
                      : memchr(got, '\0', len) != NULL ? "the value holds a NUL byte"
                                                       : NULL;
    if (bad != NULL) {
        mcp__kv_fault fault = other(bad);
        return mcp__kv_error(error, b->name, "get", key, &fault);
    }
    if (value != NULL) *value = got;
    return true;
}

bool mcp_store_set(mcp_bucket *b, const char *key, const void *value, size_t len,
                   mcp_result *error) {
    if (!KEY_OK(b, "set", key)) return false;
    mcp__kv_fault fault;
    if (!mcp__kv_set(b->raw, key, value == NULL ? "" : value, value == NULL ? 0 : len, &fault))
        return mcp__kv_error(error, b->name, "set", key, &fault);
    return true;
}

bool mcp_store_set_string(mcp_bucket *b, const char *key, const char *value,
                          mcp_result *error) {
    return mcp_store_set(b, key, value, value == NULL ? 0 : strlen(value), error);
}

bool mcp_store_delete(mcp_bucket *b, const char *key, mcp_result *error) {
    if (!KEY_OK(b, "delete", key)) return false;
    mcp__kv_fault fault;
    if (!mcp__kv_delete(b->raw, key, &fault))
        return mcp__kv_error(error, b->name, "delete", key, &fault);
    return true;
}

bool mcp_store_exists(mcp_bucket *b, const char *key, bool *exists, mcp_result *error) {
    if (!KEY_OK(b, "exists", key)) return false;
    mcp__kv_fault fault;
    bool got = false;
    if (!mcp__kv_exists(b->raw, key, &got, &fault))
        return mcp__kv_error(error, b->name, "exists", key, &fault);
    if (exists != NULL) *exists = got;
    return true;
}

/* Frees `n` strings and their array. */
static void free_strings(char **strings, size_t n) {
    for (size_t i = 0; strings != NULL && i < n; i++) free(strings[i]);
    free(strings);
}

static void free_key_list(void *p) {
    char **keys = p;
    size_t n = 0;
    while (keys[n] != NULL) n++;
    free_strings(keys, n);
}

bool mcp_store_keys(mcp_bucket *b, const char *const **keys, size_t *count, mcp_result *error) {
    char **all = calloc(1, sizeof *all), *cursor = NULL;
    size_t n = 0;
    mcp__kv_fault fault = {MCP__KV_OTHER, NULL};
    bool ok = all != NULL;
    do {
        char **page = NULL, *next = NULL;
        size_t got = 0;
        if (!ok || !mcp__kv_list_keys(b->raw, cursor, &page, &got, &next, &fault)) {
            ok = false;
            break;
        }
        free(cursor);
        cursor = next;
        char **grown = realloc(all, (n + got + 1) * sizeof *all);
        if (grown == NULL) {
            free_strings(page, got);
            fault = (mcp__kv_fault){MCP__KV_OTHER, NULL};
            ok = false;
            break;
        }
        all = grown;
        memcpy(all + n, page, got * sizeof *page);
        n += got;
        all[n] = NULL;
        free(page);
    } while (cursor != NULL);
    free(cursor);
    if (!ok) {
        free_strings(all, n);
        return mcp__kv_error(error, b->name, "list keys", NULL, &fault);
    }
    if (mcp__arena_keep_with(all, free_key_list) == NULL) {
        mcp__kv_fault oom = {MCP__KV_OTHER, NULL};
        return mcp__kv_error(error, b->name, "list keys", NULL, &oom);
    }
    if (keys != NULL) *keys = (const char *const *)all;
    if (count != NULL) *count = n;
    return true;
}

bool mcp_store_increment(mcp_bucket *b, const char *key, int64_t delta, int64_t *value,
                         mcp_result *error) {
    if (!KEY_OK(b, "increment", key)) return false;
    mcp__kv_fault fault;
    int64_t now = 0;
    if (!mcp__kv_increment(b->raw, key, delta, &now, &fault))
        return mcp__kv_error(error, b->name, "increment", key, &fault);
    if (value != NULL) *value = now;
    return true;
}

bool mcp_store_update(mcp_bucket *b, const char *key, mcp_store_change change, void *data,
                      const char **value, size_t *len, mcp_result *error) {
    if (!KEY_OK(b, "update", key)) return false;
    mcp__kv_fault fault = {MCP__KV_OTHER, NULL};
    mcp__kv_cas *cas = mcp__kv_cas_new(b->raw, key, &fault);
    if (cas == NULL) return mcp__kv_error(error, b->name, "update", key, &fault);
    for (int attempt = 0; attempt < MCP_STORE_UPDATE_ATTEMPTS; attempt++) {
        char *old = NULL;
        size_t old_len = 0;
        if (!mcp__kv_cas_current(cas, &old, &old_len, &fault)) {
            mcp__kv_cas_free(cas);
            return mcp__kv_error(error, b->name, "update", key, &fault);
        }
        size_t new_len = 0;
        char *new_value = change(old, old_len, &new_len, data);
        free(old);
        if (new_value == NULL) {
            mcp__kv_cas_free(cas);
            fault = other("the change gave no value");
            return mcp__kv_error(error, b->name, "update", key, &fault);
        }
        mcp__kv_cas *again = NULL;
        switch (mcp__kv_swap(cas, new_value, new_len, &again, &fault)) {
        case MCP__KV_SWAPPED:
            if (!hand_out(new_value, new_len, value, len)) {
                fault = (mcp__kv_fault){MCP__KV_OTHER, NULL};
                return mcp__kv_error(error, b->name, "update", key, &fault);
            }
            return true;
        case MCP__KV_CONFLICT:
            free(new_value);
            cas = again;
            break;
        default:
            free(new_value);
            return mcp__kv_error(error, b->name, "update", key, &fault);
        }
    }
    mcp__kv_cas_free(cas);
    if (error != NULL) {
        *error = mcp_failed("key-value bucket %s: %s changed under %d updates in a row (other "
                            "calls are writing it)",
                            mcp_quote(b->name), mcp_quote(key), MCP_STORE_UPDATE_ATTEMPTS);
    }
    return false;
}
