# shellcheck shell=bash
# Sourced by build.sh and test.sh: the SDK and the compiler they use.

# The mcp-wasm-host checkout this project was made from (`mcp-wasm-host new --sdk`).
sdk="@SDK@"
# The compiler: $MCP_WASM_HOST_C, else clang-19 (the checkout's
# scripts/setup-c.sh installs it).
clang="${MCP_WASM_HOST_C:-clang-19}"
# The SDK's build tool, built with cargo in the checkout the first time.
tool=("${CARGO:-cargo}" run --quiet --locked --manifest-path "$sdk/Cargo.toml" -p mcp-wasm-sdk-tool --)
