/* calc: a safe arithmetic evaluator for models, which are bad at arithmetic.
 * It also serves its expression syntax (calc://syntax) and a prompt,
 * solve_word_problem. */
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

/* What calc serves beside its tool: the expression syntax as a resource,
 * and a prompt that has the model solve a word problem with `evaluate`. */

#define SYNTAX_URI "calc://syntax"

static const char syntax[] =
    "# calc expressions\n"
    "\n"
    "| kind | what evaluate accepts |\n"
    "|---|---|\n"
    "| numbers | 12, 3.5, 1e-3 |\n"
    "| operators | + - * / % and ^ (power, right-associative: 2^3^2 is 2^9), unary minus |\n"
    "| functions | sqrt abs min max round floor ceil ln log10 exp sin cos tan (radians) |\n"
    "| constants | pi, e |\n"
    "\n"
    "Parentheses group; nesting is bounded. Division by zero and a square root of a\n"
    "negative number are errors, not infinities. `precision` rounds the result to\n"
    "that many decimals.\n";

static mcp_result solve(const mcp_value *args) {
    const char *problem = mcp_get_string(args, "problem", "");
    const char *precision = mcp_get_string(args, "precision", NULL);
    if (problem[0] == '\0') return mcp_invalid_arguments("the problem is empty");
    char rounding[64] = "";
    if (precision != NULL) {
        char *end;
        long digits = strtol(precision, &end, 10);
        if (*precision == '\0' || *end != '\0' || digits < 0 || digits > 15)
            return mcp_invalid_arguments("precision is a whole number from 0 to 15, not \"%s\"",
                                         precision);
        snprintf(rounding, sizeof rounding, " with \"precision\": %ld", digits);
    }
    return mcp_text("Solve this problem with the calculator: write it as one arithmetic expression "
                    "(the syntax is in the resource %s), call the evaluate tool with it%s, and "
                    "answer with the value and the expression you used.\n\n%s",
                    SYNTAX_URI, rounding, problem);
}

MCP_RESOURCES(
    MCP_RESOURCE(SYNTAX_URI, "syntax", syntax, .title = "calc expression syntax",
                 .description = "The operators, functions and constants evaluate accepts.",
                 .mime_type = "text/markdown"),
)

MCP_PROMPTS(
    MCP_PROMPT("solve_word_problem",
               "Asks the model to turn a word problem into one expression and compute it with evaluate.",
               solve, .title = "Solve a word problem",
               .arguments = MCP_ARGUMENTS(
                   {.name = "problem", .description = "The problem, in words.", .required = true},
                   {.name = "precision", .description = "Decimals to round the answer to (0 to 15).",
                    .values = MCP_VALUES("0", "2", "4", "15")})),
)
