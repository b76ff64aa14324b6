# shellcheck shell=bash
# Sourced by build.sh and test.sh: the Go and the SDK build tool they use.
# The Go SDK itself is a module (go.mod), which Go fetches through GOPROXY.

# The SDK version this project was made for (by mcp-wasm-host @VERSION@ new).
sdk_version=@VERSION@

# newer_or_same A B: whether version A is B or later.
newer_or_same() {
    [[ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | head -1)" == "$2" ]]
}

# Go 1.25 or later: $MCP_WASM_HOST_GO, else `go` on PATH.
go="${MCP_WASM_HOST_GO:-go}"

# The SDK's build tool (bindings, the WIT, core module to component):
# $MCP_WASM_SDK_TOOL, else @SDK_TOOL_NAME@.
if [[ -n "${MCP_WASM_SDK_TOOL:-}" ]]; then
    tool=("$MCP_WASM_SDK_TOOL")
else
    tool=(@SDK_TOOL@)
fi
@SDK_TOOL_CHECK@
