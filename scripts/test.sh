#!/usr/bin/env bash
# Runs every test of the project from a fresh clone: installs what the tests
# need (the wasm32-wasip2 target, a Python venv with the official MCP SDK and
# componentize-py), then
#   1. cargo test --workspace: unit tests, and integration tests that build
#      the guest plugins (tests/artifacts/build.rs) and drive the real
#      mcp-wasm-host binary over stdio, including with the Python SDK client;
#   2. pytest tests/python: the Python plugin, built with componentize-py and
#      served by the host to the Python SDK client.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"

if command -v rustup >/dev/null 2>&1; then
    rustup target add wasm32-wasip2 >&2
fi

MCP_WASM_HOST_PYTHON="$(scripts/setup-python.sh)"
export MCP_WASM_HOST_PYTHON

echo "== cargo test --workspace" >&2
cargo test --workspace --locked

echo "== pytest tests/python" >&2
cargo build --locked -p mcp-wasm-host
MCP_WASM_HOST_BIN="$repo/target/debug/mcp-wasm-host" \
    "$MCP_WASM_HOST_PYTHON" -m pytest -q tests/python
