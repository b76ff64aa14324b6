/*
 * jsonread: the test plugin of the C SDK's JSON reader inside the sandbox
 * (host/tests/all/c_plugins.rs). `read_json` reads its `text` with
 * mcp_json_parse, the reader every call's arguments go through, and says how
 * deep the value and the arguments themselves are nested; text that is not
 * JSON, or nested deeper than MCP_JSON_MAX_DEPTH, is refused as invalid
 * arguments with the reader's message. Its input schema is open, so a test
 * can send other arguments beside `text`.
 */
#include <string.h>

#include "mcp_wasm_sdk.h"

/* 0 for a scalar; 1 more than its deepest member for an array or object. */
static size_t depth(const mcp_value *v) {
    if (v->type != MCP_JSON_ARRAY && v->type != MCP_JSON_OBJECT) return 0;
    size_t deepest = 0;
    for (size_t i = 0; i < v->len; i++) {
        size_t d = depth(&v->items[i]);
        if (d > deepest) deepest = d;
    }
    return deepest + 1;
}

static mcp_result read_json(const mcp_value *args) {
    const char *text = mcp_get_string(args, "text", "");
    char error[128];
    mcp_value *value = mcp_json_parse(text, strlen(text), error, sizeof error);
    if (value == NULL) return mcp_invalid_arguments("`text` is not JSON: %s", error);
    size_t d = depth(value);
    mcp_json_free(value);
    return mcp_json("{\"depth\": %zu, \"arguments_depth\": %zu}", d, depth(args));
}

MCP_TOOLS(MCP_TOOL("read_json", "Reads a JSON text and says how deeply it is nested.",
                   MCP_JSON({"type": "object", "required": ["text"],
                             "properties": {"text": {"type": "string",
                                                     "description": "The JSON text to read."}}}),
                   read_json, .read_only = MCP_YES, .open_world = MCP_NO), )
