#!/usr/bin/env bash
# Builds the host and the bundled example plugins (when needed) and serves
# them over stdio: `scripts/serve-examples.sh [extra serve flags…]`.
# Build output goes to stderr; stdout carries only MCP messages.
# shellcheck source=lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh" || exit 1
cd "$repo"
if command -v rustup >/dev/null 2>&1; then
    rustup target add wasm32-wasip2 >&2 2>/dev/null || true
fi
cargo build --release --quiet -p mcp-wasm-host -p test-artifacts >&2
target="$(cargo_target_dir)"
exec "$target/release/mcp-wasm-host" serve --plugins "$target/plugins/examples" "$@"
