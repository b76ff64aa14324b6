#!/usr/bin/env bash
# Builds the TypeScript/JavaScript tool plugins under plugins/js/ into WASI
# 0.2 components with the project's SDK (sdk-js: esbuild, then
# componentize-js; installed by scripts/setup-node.sh).
#
#   scripts/build-js-plugin.sh OUT_DIR [NAME...]
#
# Each plugin is a directory plugins/js/NAME with src/index.ts (or
# src/index.js); it becomes OUT_DIR/NAME.wasm. Without NAMEs every such
# directory is built (today: markdown, webget).
#
# componentize-js takes half a minute or more per plugin, so components are
# cached in target/js-plugins-cache (or $MCP_WASM_HOST_JS_CACHE) under a hash
# of everything the build reads: the plugin's files, the SDK's sources and
# lockfile, and the WIT. A rerun with the same inputs only copies the file;
# a new build of a plugin removes its older cached builds.
# Prints the path of each component on stdout; progress goes to stderr.
set -euo pipefail

if [[ $# -lt 1 || "$1" == -* ]]; then
    echo "usage: $0 OUT_DIR [NAME...]" >&2
    exit 2
fi

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out_dir="$1"
shift
mkdir -p "$out_dir"
out_dir="$(cd "$out_dir" && pwd)"
# Where the NAME directories are: plugins/js, or $MCP_WASM_HOST_PLUGIN_SRC
# (the `languages` benchmark builds its probes from host/benches/guests/js).
src_root="$(cd "${MCP_WASM_HOST_PLUGIN_SRC:-$repo/plugins/js}" && pwd)"
# shellcheck source=lib/target-dir.sh
. "$repo/scripts/lib/target-dir.sh"
cache="${MCP_WASM_HOST_JS_CACHE:-$(cargo_target_dir)/js-plugins-cache}"
mkdir -p "$cache"

node="$("$repo/scripts/setup-node.sh")"

if [[ $# -gt 0 ]]; then
    names=("$@")
else
    names=()
    for dir in "$src_root"/*/; do
        [[ -f "$dir/src/index.ts" || -f "$dir/src/index.js" ]] && names+=("$(basename "$dir")")
    done
fi
if [[ ${#names[@]} -eq 0 ]]; then
    echo "build-js-plugin: no plugins found under $src_root" >&2
    exit 1
fi

# inputs_hash DIR: one hash over the path and contents of every file the
# build of plugins/js/DIR reads.
inputs_hash() {
    (cd "$repo" && find "$(realpath --relative-to="$repo" "$src_root/$1")" sdk-js/src sdk-js/bin sdk-js/package-lock.json wit \
        -type f -not -path '*/node_modules/*' -print0 | LC_ALL=C sort -z | xargs -0 sha256sum) |
        sha256sum | cut -c1-16
}

for name in "${names[@]}"; do
    src="$src_root/$name/src"
    entry="$src/index.ts"
    [[ -f "$entry" ]] || entry="$src/index.js"
    if [[ ! -f "$entry" ]]; then
        echo "build-js-plugin: $src/index.ts (or index.js) not found" >&2
        exit 1
    fi
    cached="$cache/$name-$(inputs_hash "$name").wasm"
    if [[ -f "$cached" ]]; then
        echo "build-js-plugin: $name.wasm: unchanged, from $cached" >&2
    else
        start=$(date +%s.%N)
        "$node" "$repo/sdk-js/bin/mcp-wasm-sdk.js" build "$entry" -o "$cached.part" --wit "$repo/wit"
        end=$(date +%s.%N)
        find "$cache" -maxdepth 1 -name "$name-*.wasm" -delete
        mv "$cached.part" "$cached"
        awk -v n="$name" -v a="$start" -v b="$end" 'BEGIN {
            printf "build-js-plugin: %s.wasm built in %.1f s\n", n, b - a > "/dev/stderr" }'
    fi
    cp "$cached" "$out_dir/$name.wasm"
    echo "$out_dir/$name.wasm"
done
