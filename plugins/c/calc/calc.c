/* calc: a safe arithmetic evaluator for models, which are bad at arithmetic. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval.h"
#include "mcp_wasm_sdk.h"

/* The shortest text that reads back as exactly `v`. */
static void shortest(char *buf, size_t size, double v) {
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(buf, size, "%.*g", digits, v == 0 ? 0 : v);
        if (strtod(buf, NULL) == v) return;
    }
}

static mcp_result evaluate(const mcp_value *args) {
    const char *expression = mcp_get_string(args, "expression", "");
    double asked = mcp_get_number(args, "precision", -1); /* the schema says 0..15 */
    int precision = asked < 0 ? -1 : asked > 15 ? 15 : (int)asked;
    eval_outcome out = eval_expression(expression);
    if (out.status == EVAL_SYNTAX)
        return mcp_invalid_arguments("column %zu: %s", out.column, out.message);
    if (out.status == EVAL_MATH) return mcp_failed("column %zu: %s", out.column, out.message);
    mcp_log(MCP_INFO, "evaluated %zu characters, %zu operator(s)", strlen(expression),
            out.operations);
    char text[400]; /* %.15f of 1e308 is 325 characters */
    if (precision >= 0) snprintf(text, sizeof text, "%.*f", precision, out.value);
    else snprintf(text, sizeof text, "%.15g", out.value);
    char value[32];
    shortest(value, sizeof value, precision >= 0 ? strtod(text, NULL) : out.value);
    const char *shown = strcmp(value, "0") == 0 && text[0] == '-' ? text + 1 : text; /* no "-0" */
    return mcp_json("{\"value\": %s, \"text\": %s}", value, mcp_quote(shown));
}

MCP_TOOLS(
    MCP_TOOL("evaluate",
             "Evaluate an arithmetic expression exactly as written and return its value. "
             "Operators: + - * / % ^ (power, right-associative), parentheses, unary minus. "
             "Functions: sqrt, abs, min, max, round, floor, ceil, ln, log10, exp, sin, cos, tan "
             "(radians). Constants: pi, e. Example: (2^10 - 24) / sqrt(16) * max(1, 2, 3).",
             MCP_JSON({"type": "object", "additionalProperties": false, "required": ["expression"],
                       "properties": {
                           "expression": {"type": "string", "minLength": 1, "maxLength": 2000,
                                          "description": "The expression, e.g. 2 * (3 + 4)^2"},
                           "precision": {"type": "integer", "minimum": 0, "maximum": 15,
                                         "description": "Round to this many decimals (default: up to 15 significant digits)"}}}),
             evaluate, .title = "Calculator", .read_only = MCP_YES, .idempotent = MCP_YES,
             .open_world = MCP_NO,
             /* A calculator drawn in SVG, as a data: URI. */
             .icons = MCP_ICONS({.src = "data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHZpZXdCb3g9IjAgMCAxNiAxNiI+PHJlY3QgeD0iMiIgeT0iMSIgd2lkdGg9IjEyIiBoZWlnaHQ9IjE0IiByeD0iMiIgZmlsbD0ibm9uZSIgc3Ryb2tlPSJjdXJyZW50Q29sb3IiLz48cGF0aCBkPSJNNSA1aDZNNSA5aDJNOSA5aDJNNSAxMmgyTTkgMTJoMiIgc3Ryb2tlPSJjdXJyZW50Q29sb3IiLz48L3N2Zz4=",
                                 .mime_type = "image/svg+xml", .sizes = "any"}),
             /* A client that supports tasks may run a call as one. */
             .task_support = MCP_TASK_OPTIONAL,
             .output_schema = MCP_JSON({"type": "object", "required": ["value", "text"],
                                        "properties": {"value": {"type": "number"},
                                                       "text": {"type": "string"}}})),
)
