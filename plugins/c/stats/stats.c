/*
 * stats: the `number_stats` test plugin, its schemas declared with
 * MCP_FIELDS (no JSON), which host/tests/all/light_forms.rs lists and calls
 * beside the same tool in Rust and Go.
 */
#include "mcp_wasm_sdk.h"

static mcp_result number_stats(const mcp_value *args) {
    const mcp_value *numbers = mcp_get_array(args, "numbers");
    size_t count = mcp_array_len(numbers);
    if (count == 0) return mcp_invalid_arguments("`numbers` is empty");
    double sum = 0;
    for (size_t i = 0; i < count; i++) sum += mcp_array_at(numbers, i)->number;
    int digits = (int)mcp_get_number(args, "digits", 2);
    return mcp_json("{\"count\": %zu, \"mean\": %.*f}", count, digits, sum / (double)count);
}

MCP_TOOLS(
    MCP_TOOL("number_stats", "Count numbers and give their mean.",
             MCP_FIELDS(MCP_REQUIRED("numbers", MCP_ARRAY_OF(MCP_NUMBER), "The numbers to summarize."),
                        MCP_OPTIONAL("digits", MCP_INTEGER_IN(0, 10), "Decimal places of the mean (default 2).")),
             number_stats, .title = "Number statistics", .read_only = MCP_YES, .open_world = MCP_NO,
             .output_fields = MCP_FIELDS(MCP_REQUIRED("count", MCP_INTEGER, "How many numbers."),
                                         MCP_REQUIRED("mean", MCP_NUMBER, "Their mean, rounded."))),
)
