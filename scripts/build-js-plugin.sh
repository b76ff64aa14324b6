#!/usr/bin/env bash
# Builds the TypeScript/JavaScript tool plugins under plugins/js/ into WASI
# 0.2 components with the project's SDK (sdk-js: esbuild, then
# componentize-js; installed by scripts/setup-node.sh).
#
#   scripts/build-js-plugin.sh OUT_DIR [NAME...]
#
# Each plugin is a directory plugins/js/NAME with src/index.ts (or
# src/index.js); it becomes OUT_DIR/NAME.wasm. Without NAMEs every such
# directory is built (today: contacts, integers, markdown, webget).
#
# componentize-js takes half a minute or more per plugin, so components are
# cached in target/js-plugins-cache (or $MCP_WASM_HOST_JS_CACHE) under a hash
# of everything the build reads: the plugin's files, the SDK's sources and
# lockfile, and the WIT. A rerun with the same inputs only copies the file;
# a new build of a plugin removes its older cached builds.
# Prints the path of each component on stdout; progress goes to stderr.
# shellcheck source=lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh" || exit 1

# shellcheck source=lib/plugin-sources.sh
. "$repo/scripts/lib/plugin-sources.sh"
plugin_sources js 'src/index.[jt]s' "$@"
cache="${MCP_WASM_HOST_JS_CACHE:-$(cargo_target_dir)/js-plugins-cache}"
mkdir -p "$cache"

node="$("$repo/scripts/setup-node.sh")"

# inputs_hash DIR: one hash over the path and contents of every file the
# build of plugins/js/DIR reads.
inputs_hash() {
    (cd "$repo" && find "$src_rel/$1" sdk-js/src sdk-js/bin sdk-js/package-lock.json wit \
        -type f -not -path '*/node_modules/*' -print0 | LC_ALL=C sort -z | xargs -0 sha256sum) |
        sha256sum | cut -c1-16
}

for name in "${names[@]}"; do
    src="$src_root/$name/src"
    entry="$src/index.ts"
    [[ -f "$entry" ]] || entry="$src/index.js"
    if [[ ! -f "$entry" ]]; then
        die "$src/index.ts (or index.js) not found"
    fi
    cached="$cache/$name-$(inputs_hash "$name").wasm"
    if [[ -f "$cached" ]]; then
        say "$name.wasm: unchanged, from $cached"
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
