/*
 * store_memory.c: the key-value store of internal.h outside WebAssembly
 * (native tests of a plugin or of the SDK): in memory, one per process,
 * every bucket granted. Keys are listed in pages of PAGE, so that the
 * paging of mcp_store_keys runs too.
 */
#ifndef __wasm__

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Keys in one page of mcp__kv_list_keys. */
#define PAGE 2

/* One key of one bucket; the list is sorted by bucket, then key. */
typedef struct entry {
    struct entry *next;
    char *bucket, *key, *value;
    size_t len;
} entry;

static entry *entries;

struct mcp__kv_bucket {
    char *name;
};

struct mcp__kv_cas {
    mcp__kv_bucket *bucket;
    char *key, *seen; /* seen: NULL when the key had no value */
    size_t seen_len;
};

static bool out_of_memory(mcp__kv_fault *fault) {
    *fault = (mcp__kv_fault){MCP__KV_OTHER, NULL};
    return false;
}

static int compare(const entry *e, const char *bucket, const char *key) {
    int c = strcmp(e->bucket, bucket);
    return c != 0 ? c : strcmp(e->key, key);
}

/* The link that points at the entry of `key`, or where it would go. */
static entry **place(const char *bucket, const char *key) {
    entry **at = &entries;
    while (*at != NULL && compare(*at, bucket, key) < 0) at = &(*at)->next;
    return at;
}

static entry *find(const char *bucket, const char *key) {
    entry *e = *place(bucket, key);
    return e != NULL && compare(e, bucket, key) == 0 ? e : NULL;
}

/* A malloc'd copy of `len` bytes and a NUL. */
static char *copy(const char *value, size_t len) {
    char *out = malloc(len + 1);
    if (out == NULL) return NULL;
    memcpy(out, value, len);
    out[len] = '\0';
    return out;
}

static bool put(const char *bucket, const char *key, const void *value, size_t len,
                mcp__kv_fault *fault) {
    char *v = copy(value, len);
    if (v == NULL) return out_of_memory(fault);
    entry **at = place(bucket, key);
    if (*at != NULL && compare(*at, bucket, key) == 0) {
        free((*at)->value);
        (*at)->value = v;
        (*at)->len = len;
        return true;
    }
    entry *e = malloc(sizeof *e);
    char *b = strdup(bucket), *k = strdup(key);
    if (e == NULL || b == NULL || k == NULL) {
        free(e), free(b), free(k), free(v);
        return out_of_memory(fault);
    }
    *e = (entry){.next = *at, .bucket = b, .key = k, .value = v, .len = len};
    *at = e;
    return true;
}

/* The value of `key` (a copy, or NULL) into `*value` and `*len`. */
static bool read_value(const char *bucket, const char *key, char **value, size_t *len,
                       mcp__kv_fault *fault) {
    entry *e = find(bucket, key);
    *value = NULL;
    *len = 0;
    if (e == NULL) return true;
    if ((*value = copy(e->value, e->len)) == NULL) return out_of_memory(fault);
    *len = e->len;
    return true;
}

mcp__kv_bucket *mcp__kv_open(const char *name, mcp__kv_fault *fault) {
    mcp__kv_bucket *b = malloc(sizeof *b);
    if (b != NULL && (b->name = strdup(name)) != NULL) return b;
    free(b);
    out_of_memory(fault);
    return NULL;
}

void mcp__kv_close(mcp__kv_bucket *b) {
    if (b == NULL) return;
    free(b->name);
    free(b);
}

bool mcp__kv_get(mcp__kv_bucket *b, const char *key, char **value, size_t *len,
                 mcp__kv_fault *fault) {
    return read_value(b->name, key, value, len, fault);
}

bool mcp__kv_set(mcp__kv_bucket *b, const char *key, const void *value, size_t len,
                 mcp__kv_fault *fault) {
    return put(b->name, key, value, len, fault);
}

bool mcp__kv_delete(mcp__kv_bucket *b, const char *key, mcp__kv_fault *fault) {
    (void)fault;
    entry **at = place(b->name, key);
    entry *e = *at;
    if (e == NULL || compare(e, b->name, key) != 0) return true;
    *at = e->next;
    free(e->bucket), free(e->key), free(e->value), free(e);
    return true;
}

bool mcp__kv_exists(mcp__kv_bucket *b, const char *key, bool *exists, mcp__kv_fault *fault) {
    (void)fault;
    *exists = find(b->name, key) != NULL;
    return true;
}

bool mcp__kv_list_keys(mcp__kv_bucket *b, const char *cursor, char ***keys, size_t *count,
                       char **next, mcp__kv_fault *fault) {
    /* The first entry of the bucket after the cursor (the page before's
     * last key). */
    entry *e = *place(b->name, cursor == NULL ? "" : cursor);
    if (e != NULL && cursor != NULL && compare(e, b->name, cursor) == 0) e = e->next;
    char **out = calloc(PAGE, sizeof *out);
    if (out == NULL) return out_of_memory(fault);
    size_t n = 0;
    bool oom = false;
    for (; e != NULL && n < PAGE && !oom && strcmp(e->bucket, b->name) == 0; e = e->next) {
        oom = (out[n] = strdup(e->key)) == NULL;
        n += !oom;
    }
    bool more = !oom && e != NULL && strcmp(e->bucket, b->name) == 0;
    char *after = more ? strdup(out[n - 1]) : NULL;
    if (oom || (more && after == NULL)) {
        for (size_t i = 0; i < n; i++) free(out[i]);
        free(out);
        free(after);
        return out_of_memory(fault);
    }
    *keys = out;
    *count = n;
    *next = after;
    return true;
}

bool mcp__kv_increment(mcp__kv_bucket *b, const char *key, int64_t delta, int64_t *value,
                       mcp__kv_fault *fault) {
    entry *e = find(b->name, key);
    int64_t now = 0;
    if (e != NULL) {
        char *end;
        errno = 0;
        long long parsed = strtoll(e->value, &end, 10);
        char first = e->value[0];
        if (!(first == '-' || (first >= '0' && first <= '9')) || end != e->value + e->len ||
            errno != 0) {
            *fault = (mcp__kv_fault){MCP__KV_OTHER, strdup("the value is not a decimal integer")};
            return false;
        }
        now = parsed;
    }
    if ((delta > 0 && now > INT64_MAX - delta) || (delta < 0 && now < INT64_MIN - delta)) {
        *fault = (mcp__kv_fault){MCP__KV_OTHER, strdup("the sum overflows a 64-bit integer")};
        return false;
    }
    now += delta;
    char text[24];
    int len = snprintf(text, sizeof text, "%" PRId64, now);
    if (!put(b->name, key, text, (size_t)len, fault)) return false;
    *value = now;
    return true;
}

mcp__kv_cas *mcp__kv_cas_new(mcp__kv_bucket *b, const char *key, mcp__kv_fault *fault) {
    mcp__kv_cas *cas = calloc(1, sizeof *cas);
    if (cas == NULL || (cas->key = strdup(key)) == NULL) {
        free(cas);
        out_of_memory(fault);
        return NULL;
    }
    cas->bucket = b;
    if (!read_value(b->name, key, &cas->seen, &cas->seen_len, fault)) {
        mcp__kv_cas_free(cas);
        return NULL;
    }
    return cas;
}

bool mcp__kv_cas_current(mcp__kv_cas *cas, char **value, size_t *len, mcp__kv_fault *fault) {
    *value = NULL;
    *len = 0;
    if (cas->seen == NULL) return true;
    if ((*value = copy(cas->seen, cas->seen_len)) == NULL) return out_of_memory(fault);
    *len = cas->seen_len;
    return true;
}

void mcp__kv_cas_free(mcp__kv_cas *cas) {
    if (cas == NULL) return;
    free(cas->key);
    free(cas->seen);
    free(cas);
}

mcp__kv_swapped mcp__kv_swap(mcp__kv_cas *cas, const void *value, size_t len,
                             mcp__kv_cas **again, mcp__kv_fault *fault) {
    entry *e = find(cas->bucket->name, cas->key);
    bool unchanged = e == NULL ? cas->seen == NULL
                               : cas->seen != NULL && e->len == cas->seen_len &&
                                     memcmp(e->value, cas->seen, e->len) == 0;
    if (unchanged) {
        bool ok = put(cas->bucket->name, cas->key, value, len, fault);
        mcp__kv_cas_free(cas);
        return ok ? MCP__KV_SWAPPED : MCP__KV_SWAP_FAILED;
    }
    /* A cas of the value now. */
    free(cas->seen);
    if (!read_value(cas->bucket->name, cas->key, &cas->seen, &cas->seen_len, fault)) {
        mcp__kv_cas_free(cas);
        return MCP__KV_SWAP_FAILED;
    }
    *again = cas;
    return MCP__KV_CONFLICT;
}

#endif
