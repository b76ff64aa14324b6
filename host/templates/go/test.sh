#!/usr/bin/env bash
# Runs `go test` (main_test.go) with the Go that build.sh uses; build first.
set -euo pipefail

# The mcp-wasm-host checkout this project was made from (`mcp-wasm-host new --sdk`).
sdk="@SDK@"
go="${MCP_WASM_HOST_GO:-$("$sdk/scripts/setup-go.sh")}"
export GOPROXY=off GOSUMDB=off GOTOOLCHAIN=local

cd "$(dirname "${BASH_SOURCE[0]}")"
"$go" test -v .
