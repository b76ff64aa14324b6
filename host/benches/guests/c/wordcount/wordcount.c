/* wordcount: the `languages` benchmark's C probe. It implements `word_count`
 * exactly as plugins/testing/wordcount does in Rust (the floor), so the
 * benchmark compares languages and not tools. */
#include <ctype.h>
#include <stddef.h>
#include <string.h>

#include "mcp_wasm_sdk.h"

/* The text on which word_count logs it first, as every probe does:
 * host/benches/languages.rs holds calls alive on that log line. */
#define HOLD "hold: log this line"

static mcp_result word_count(const mcp_value *args) {
    const unsigned char *p = (const unsigned char *)mcp_get_string(args, "text", "");
    if (strcmp((const char *)p, HOLD) == 0) mcp_log(MCP_INFO, "%s", HOLD);
    size_t words = 0, lines = 0, chars = 0;
    int in_word = 0, line_open = 0;
    for (; *p; p++) {
        if ((*p & 0xC0) != 0x80) chars++; /* count UTF-8 lead bytes: code points */
        if (*p == '\n') {
            lines++;
            line_open = 0;
        } else {
            line_open = 1;
        }
        if (isspace(*p)) {
            in_word = 0;
        } else if (!in_word) {
            in_word = 1;
            words++;
        }
    }
    if (line_open) lines++;
    return mcp_json("{\"words\": %zu, \"lines\": %zu, \"chars\": %zu}", words, lines, chars);
}

MCP_TOOLS(MCP_TOOL("word_count", "Counts the words, lines and characters of a text.",
                   MCP_JSON({"type": "object", "required": ["text"],
                             "properties": {"text": {"type": "string",
                                                     "description": "The text to measure."}}}),
                   word_count,
                   .output_schema = MCP_JSON({"type": "object",
                                              "required": ["words", "lines", "chars"],
                                              "properties": {"words": {"type": "integer"},
                                                             "lines": {"type": "integer"},
                                                             "chars": {"type": "integer"}}})), )
