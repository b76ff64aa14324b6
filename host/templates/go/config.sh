# shellcheck shell=bash
# Sourced by build.sh and test.sh: the SDK and the Go they use.

# The mcp-wasm-host checkout this project was made from (`mcp-wasm-host new
# --sdk`); go.work names it too.
sdk="@SDK@"
# Go: $MCP_WASM_HOST_GO, else the checkout's pinned one (scripts/setup-go.sh
# installs it the first time). Go itself downloads nothing.
go="${MCP_WASM_HOST_GO:-$("$sdk/scripts/setup-go.sh")}"
export GOPROXY=off GOSUMDB=off GOTOOLCHAIN=local
# The SDK's build tool, built with cargo in the checkout the first time.
tool=("${CARGO:-cargo}" run --quiet --locked --manifest-path "$sdk/Cargo.toml" -p mcp-wasm-sdk-tool --)
