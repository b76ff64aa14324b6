/*
 * sdkstore: a counter and a notes tool written with the C SDK's store API
 * (mcp_store_*) over wasi:keyvalue, as docs/writing-plugins.md's
 * "Remembering things" writes them. host/tests/all/keyvalue_sdk/c.rs calls
 * them through the real binary, granted and not.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp_wasm_sdk.h"

/* Count the calls of this tool, across calls and restarts. */
static mcp_result count(const mcp_value *args) {
    (void)args;
    mcp_result error;
    int64_t calls;
    mcp_bucket *b = mcp_store_open("default", &error);
    if (b == NULL || !mcp_store_increment(b, "calls", 1, &calls, &error)) return error;
    return mcp_text("called %lld times", (long long)calls);
}

/* The notes so far (`old`, NULL at first) and one more line. */
static char *add_line(const char *old, size_t old_len, size_t *len, void *note) {
    char *notes;
    int n = asprintf(&notes, "%.*s%s\n", (int)old_len, old == NULL ? "" : old, (char *)note);
    *len = n < 0 ? 0 : (size_t)n;
    return n < 0 ? NULL : notes;
}

/* Add a note. */
static mcp_result add_note(const mcp_value *args) {
    mcp_result error;
    mcp_bucket *b = mcp_store_open("notes", &error);
    const char *text = mcp_get_string(args, "text", "");
    if (b == NULL || !mcp_store_update(b, "all", add_line, (void *)text, NULL, NULL, &error))
        return error;
    return mcp_text("noted");
}

/* The notes, one a line, oldest first. */
static mcp_result notes(const mcp_value *args) {
    (void)args;
    mcp_result error;
    const char *all;
    mcp_bucket *b = mcp_store_open("notes", &error);
    if (b == NULL || !mcp_store_get_string(b, "all", &all, &error)) return error;
    return mcp_text("%s", all == NULL ? "" : all);
}

/* Set `key` of the bucket "notes" to `value`; every key of the bucket then,
 * one a line. */
static mcp_result put(const mcp_value *args) {
    mcp_result error;
    const char *const *keys;
    size_t n;
    mcp_bucket *b = mcp_store_open("notes", &error);
    if (b == NULL ||
        !mcp_store_set_string(b, mcp_get_string(args, "key", ""),
                              mcp_get_string(args, "value", ""), &error) ||
        !mcp_store_keys(b, &keys, &n, &error))
        return error;
    size_t size = 1;
    for (size_t i = 0; i < n; i++) size += strlen(keys[i]) + 1;
    char *lines = calloc(1, size);
    if (lines == NULL) return mcp_failed("out of memory");
    for (size_t i = 0; i < n; i++) {
        if (i > 0) strcat(lines, "\n");
        strcat(lines, keys[i]);
    }
    mcp_result r = mcp_text("%s", lines);
    free(lines);
    return r;
}

MCP_TOOLS(
    MCP_TOOL("count", "Count the calls of this tool, across calls and restarts.",
             MCP_JSON({"type": "object"}), count),
    MCP_TOOL("add_note", "Add a note.", MCP_FIELDS(MCP_REQUIRED("text", MCP_STRING, "The note.")),
             add_note),
    MCP_TOOL("notes", "The notes, one a line, oldest first.", MCP_JSON({"type": "object"}), notes,
             .read_only = MCP_YES),
    MCP_TOOL("put", "Set `key` of the bucket \"notes\" to `value`; every key of the bucket then.",
             MCP_FIELDS(MCP_REQUIRED("key", MCP_STRING, "The key."),
                        MCP_REQUIRED("value", MCP_STRING, "The value.")),
             put),
)
