# shellcheck shell=bash
# Sourced by build.sh and test.sh: the C SDK, its build tool and the compiler.

# The SDK version this project was made for (by mcp-wasm-host @VERSION@ new).
sdk_version=@VERSION@

# newer_or_same A B: whether version A is B or later.
newer_or_same() {
    [[ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | head -1)" == "$2" ]]
}

@C_SDK@

# The compiler: $MCP_WASM_HOST_C, else clang-19 (with lld-19, the wasm32
# compiler runtime and wasi-libc; Debian: clang-19 lld-19
# libclang-rt-19-dev-wasm32 wasi-libc).
clang="${MCP_WASM_HOST_C:-clang-19}"

# The SDK's build tool (bindings, the WIT, core module to component):
# $MCP_WASM_SDK_TOOL, else @SDK_TOOL_NAME@.
if [[ -n "${MCP_WASM_SDK_TOOL:-}" ]]; then
    tool=("$MCP_WASM_SDK_TOOL")
else
    tool=(@SDK_TOOL@)
fi
@SDK_TOOL_CHECK@
