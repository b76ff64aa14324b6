/*
 * store_host.c: the key-value store of internal.h in WebAssembly: the
 * host's wasi:keyvalue@0.2.0-draft2 `store` and `atomics`, through the
 * bindings wit-bindgen generates (plugin_full.h: mcp-wasm-sdk-tool adds
 * these imports to the plugin world). The linker keeps them, and the
 * component imports them, only if the plugin calls mcp_store_*.
 */
#ifdef __wasm__

#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "plugin_full.h"

typedef wasi_keyvalue_store_error_t kv_error;

struct mcp__kv_bucket {
    wasi_keyvalue_store_own_bucket_t handle;
};

struct mcp__kv_cas {
    wasi_keyvalue_atomics_own_cas_t handle;
};

/* A borrowed WIT string of `s` (valid UTF-8: store.c checks). */
static plugin_full_string_t str(const char *s) {
    return (plugin_full_string_t){.ptr = (uint8_t *)s, .len = strlen(s)};
}

/* The fault of a WIT error; frees the error. Returns false. */
static bool fault_of(kv_error *e, mcp__kv_fault *fault) {
    switch (e->tag) {
    case WASI_KEYVALUE_STORE_ERROR_NO_SUCH_STORE:
        *fault = (mcp__kv_fault){MCP__KV_NO_SUCH_STORE, NULL};
        break;
    case WASI_KEYVALUE_STORE_ERROR_ACCESS_DENIED:
        *fault = (mcp__kv_fault){MCP__KV_ACCESS_DENIED, NULL};
        break;
    default:
        *fault = (mcp__kv_fault){MCP__KV_OTHER,
                                 strndup((const char *)e->val.other.ptr, e->val.other.len)};
    }
    wasi_keyvalue_store_error_free(e);
    return false;
}

/* Moves an optional WIT value into a NUL-terminated malloc'd one. */
static bool take_value(plugin_full_option_list_u8_t *v, char **value, size_t *len,
                       mcp__kv_fault *fault) {
    *value = NULL;
    *len = 0;
    if (!v->is_some) return true;
    char *out = realloc(v->val.ptr, v->val.len + 1);
    if (out == NULL) {
        plugin_full_option_list_u8_free(v);
        *fault = (mcp__kv_fault){MCP__KV_OTHER, NULL};
        return false;
    }
    out[v->val.len] = '\0';
    *value = out;
    *len = v->val.len;
    return true;
}

static wasi_keyvalue_store_borrow_bucket_t borrow(mcp__kv_bucket *b) {
    return wasi_keyvalue_store_borrow_bucket(b->handle);
}

mcp__kv_bucket *mcp__kv_open(const char *name, mcp__kv_fault *fault) {
    mcp__kv_bucket *b = malloc(sizeof *b);
    if (b == NULL) {
        *fault = (mcp__kv_fault){MCP__KV_OTHER, NULL};
        return NULL;
    }
    plugin_full_string_t id = str(name);
    kv_error e;
    if (!wasi_keyvalue_store_open(&id, &b->handle, &e)) {
        free(b);
        fault_of(&e, fault);
        return NULL;
    }
    return b;
}

void mcp__kv_close(mcp__kv_bucket *b) {
    if (b == NULL) return;
    wasi_keyvalue_store_bucket_drop_own(b->handle);
    free(b);
}

bool mcp__kv_get(mcp__kv_bucket *b, const char *key, char **value, size_t *len,
                 mcp__kv_fault *fault) {
    plugin_full_string_t k = str(key);
    plugin_full_option_list_u8_t got;
    kv_error e;
    if (!wasi_keyvalue_store_method_bucket_get(borrow(b), &k, &got, &e)) return fault_of(&e, fault);
    return take_value(&got, value, len, fault);
}

bool mcp__kv_set(mcp__kv_bucket *b, const char *key, const void *value, size_t len,
                 mcp__kv_fault *fault) {
    plugin_full_string_t k = str(key);
    plugin_full_list_u8_t v = {.ptr = (uint8_t *)value, .len = len};
    kv_error e;
    if (!wasi_keyvalue_store_method_bucket_set(borrow(b), &k, &v, &e)) return fault_of(&e, fault);
    return true;
}

bool mcp__kv_delete(mcp__kv_bucket *b, const char *key, mcp__kv_fault *fault) {
    plugin_full_string_t k = str(key);
    kv_error e;
    if (!wasi_keyvalue_store_method_bucket_delete(borrow(b), &k, &e)) return fault_of(&e, fault);
    return true;
}

bool mcp__kv_exists(mcp__kv_bucket *b, const char *key, bool *exists, mcp__kv_fault *fault) {
    plugin_full_string_t k = str(key);
    kv_error e;
    if (!wasi_keyvalue_store_method_bucket_exists(borrow(b), &k, exists, &e))
        return fault_of(&e, fault);
    return true;
}

bool mcp__kv_list_keys(mcp__kv_bucket *b, const char *cursor, char ***keys, size_t *count,
                       char **next, mcp__kv_fault *fault) {
    plugin_full_string_t c = str(cursor == NULL ? "" : cursor);
    wasi_keyvalue_store_key_response_t page;
    kv_error e;
    if (!wasi_keyvalue_store_method_bucket_list_keys(borrow(b), cursor == NULL ? NULL : &c, &page,
                                                     &e))
        return fault_of(&e, fault);
    size_t n = page.keys.len;
    char **out = calloc(n == 0 ? 1 : n, sizeof *out);
    bool ok = out != NULL;
    for (size_t i = 0; ok && i < n; i++) {
        out[i] = strndup((const char *)page.keys.ptr[i].ptr, page.keys.ptr[i].len);
        ok = out[i] != NULL;
    }
    char *after = NULL;
    if (ok && page.cursor.is_some) {
        after = strndup((const char *)page.cursor.val.ptr, page.cursor.val.len);
        ok = after != NULL;
    }
    plugin_full_list_string_free(&page.keys);
    plugin_full_option_string_free(&page.cursor);
    if (!ok) {
        for (size_t i = 0; out != NULL && i < n; i++) free(out[i]);
        free(out);
        *fault = (mcp__kv_fault){MCP__KV_OTHER, NULL};
        return false;
    }
    *keys = out;
    *count = n;
    *next = after;
    return true;
}

bool mcp__kv_increment(mcp__kv_bucket *b, const char *key, int64_t delta, int64_t *value,
                       mcp__kv_fault *fault) {
    plugin_full_string_t k = str(key);
    kv_error e;
    if (!wasi_keyvalue_atomics_increment(borrow(b), &k, delta, value, &e))
        return fault_of(&e, fault);
    return true;
}

mcp__kv_cas *mcp__kv_cas_new(mcp__kv_bucket *b, const char *key, mcp__kv_fault *fault) {
    mcp__kv_cas *cas = malloc(sizeof *cas);
    if (cas == NULL) {
        *fault = (mcp__kv_fault){MCP__KV_OTHER, NULL};
        return NULL;
    }
    plugin_full_string_t k = str(key);
    kv_error e;
    if (!wasi_keyvalue_atomics_static_cas_new(borrow(b), &k, &cas->handle, &e)) {
        free(cas);
        fault_of(&e, fault);
        return NULL;
    }
    return cas;
}

bool mcp__kv_cas_current(mcp__kv_cas *cas, char **value, size_t *len, mcp__kv_fault *fault) {
    plugin_full_option_list_u8_t got;
    kv_error e;
    if (!wasi_keyvalue_atomics_method_cas_current(wasi_keyvalue_atomics_borrow_cas(cas->handle),
                                                  &got, &e))
        return fault_of(&e, fault);
    return take_value(&got, value, len, fault);
}

void mcp__kv_cas_free(mcp__kv_cas *cas) {
    if (cas == NULL) return;
    wasi_keyvalue_atomics_cas_drop_own(cas->handle);
    free(cas);
}

mcp__kv_swapped mcp__kv_swap(mcp__kv_cas *cas, const void *value, size_t len,
                             mcp__kv_cas **again, mcp__kv_fault *fault) {
    plugin_full_list_u8_t v = {.ptr = (uint8_t *)value, .len = len};
    wasi_keyvalue_atomics_cas_error_t e;
    /* The swap consumes the handle, whatever it answers. */
    bool swapped = wasi_keyvalue_atomics_swap(cas->handle, &v, &e);
    if (swapped) {
        free(cas);
        return MCP__KV_SWAPPED;
    }
    if (e.tag == WASI_KEYVALUE_ATOMICS_CAS_ERROR_CAS_FAILED) {
        cas->handle = e.val.cas_failed;
        *again = cas;
        return MCP__KV_CONFLICT;
    }
    free(cas);
    fault_of(&e.val.store_error, fault);
    return MCP__KV_SWAP_FAILED;
}

#endif
