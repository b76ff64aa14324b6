/* @NAME@: an MCP tool for mcp-wasm-host, built into a WebAssembly component. */
#include <math.h>
#include "mcp_wasm_sdk.h"

/* The host has checked the arguments against the input schema below. */
static mcp_result number_stats(const mcp_value *args) {
    const mcp_value *numbers = mcp_get_array(args, "numbers");
    size_t count = mcp_array_len(numbers);
    if (count == 0) return mcp_invalid_arguments("`numbers` is empty");
    double sum = 0, min = INFINITY, max = -INFINITY;
    for (size_t i = 0; i < count; i++) {
        double n = mcp_array_at(numbers, i)->number;
        sum += n;
        min = fmin(min, n);
        max = fmax(max, n);
    }
    int digits = (int)mcp_get_number(args, "digits", 2);
    return mcp_json("{\"count\": %zu, \"mean\": %.*f, \"min\": %.15g, \"max\": %.15g}",
                    count, digits, sum / (double)count, min, max);
}

/* The schemas, field by field (MCP_JSON({...}) takes JSON text instead). */
MCP_TOOLS(
    MCP_TOOL("number_stats", "Count numbers and give their mean, minimum and maximum.",
             MCP_FIELDS(MCP_REQUIRED("numbers", MCP_ARRAY_OF(MCP_NUMBER), "The numbers to summarize."),
                        MCP_OPTIONAL("digits", MCP_INTEGER_IN(0, 10), "Decimal places of the mean (default 2).")),
             number_stats, .title = "Number statistics", .read_only = MCP_YES, .open_world = MCP_NO,
             .output_fields = MCP_FIELDS(MCP_REQUIRED("count", MCP_INTEGER, "How many numbers."),
                                         MCP_REQUIRED("mean", MCP_NUMBER, "Their mean, rounded."),
                                         MCP_REQUIRED("min", MCP_NUMBER, "The smallest."),
                                         MCP_REQUIRED("max", MCP_NUMBER, "The largest."))),
)
