#!/usr/bin/env bash
# Packs the JavaScript/TypeScript SDK into OUT_DIR with `npm pack`:
# mcp-wasm-sdk-VERSION.tgz, holding src/, bin/ (the `mcp-wasm-sdk build`
# command) and wit/ (the plugin WIT, copied from wit/plugin.wit), with its
# dependencies (componentize-js, esbuild) declared, as a user installs it.
# Prints the tarball's path on stdout.
#
#   scripts/package-js-sdk.sh OUT_DIR
set -euo pipefail
if [[ $# -ne 1 ]]; then
    echo "usage: $0 OUT_DIR" >&2
    exit 2
fi
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
mkdir -p "$1"
out="$(cd "$1" && pwd)"
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
(cd "$repo/sdk-js" && tar --exclude=node_modules -cf - .) | tar -xf - -C "$stage"
mkdir -p "$stage/wit"
cp "$repo/wit/plugin.wit" "$stage/wit/"
(cd "$stage" && npm pack --silent --pack-destination "$out" >&2)
ls "$out"/mcp-wasm-sdk-*.tgz
