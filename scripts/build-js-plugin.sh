#!/usr/bin/env bash
# Builds the TypeScript/JavaScript tool plugins under plugins/js/ into WASI
# 0.2 components with the project's SDK (sdk-js: esbuild, then
# componentize-js; installed by scripts/setup-node.sh).
#
#   scripts/build-js-plugin.sh OUT_DIR [NAME...]
#
# Each plugin is a directory plugins/js/NAME with src/index.ts (or
# src/index.js); it becomes OUT_DIR/NAME.wasm. Without NAMEs every such
# directory is built (today: contacts, integers, jsstore, markdown, webget).
#
# componentize-js takes half a minute or more per plugin, so components are
# cached in target/js-plugins-cache (or $MCP_WASM_HOST_JS_CACHE) under a hash
# of everything the build reads: the plugin's files, the SDK's sources and
# lockfile, and the WIT. A rerun with the same inputs only copies the file;
# a new build of a plugin removes its older cached builds.
#
# A plugin directory with its own wit/ is a plain-WIT component, built
# without the SDK: componentize-js (the version sdk-js's lockfile pins)
# builds src/index.js, unbundled, against the world NAME of that WIT
# package, which may import the vendored WASI WIT of wit/wasi/
# (scripts/lib/plain-wit.sh), the way a componentize-js user builds a
# component. host/tests/all/keyvalue_languages.rs builds
# plugins/testing-generic/js/jsnotes this way
# (MCP_WASM_HOST_PLUGIN_SRC=plugins/testing-generic/js).
# Prints the path of each component on stdout; progress goes to stderr.
# shellcheck source=lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh" || exit 1

# shellcheck source=lib/plugin-sources.sh
. "$repo/scripts/lib/plugin-sources.sh"
# shellcheck source=lib/plain-wit.sh
. "$repo/scripts/lib/plain-wit.sh"
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

# build_plain NAME ENTRY OUTPUT: builds the plain-WIT component NAME (its
# ENTRY, its world NAME) into OUTPUT with componentize-js.
build_plain() {
    local wit
    wit="$(mktemp -d)"
    plain_wit "$src_root/$1/wit" "$wit/wit"
    "$node" "$repo/sdk-js/node_modules/@bytecodealliance/componentize-js/src/cli.js" "$2" \
        --wit "$wit/wit" --world-name "$1" -o "$3" >&2
    rm -rf "$wit"
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
        if [[ -d "$src_root/$name/wit" ]]; then
            build_plain "$name" "$entry" "$cached.part"
        else
            "$node" "$repo/sdk-js/bin/mcp-wasm-sdk.js" build "$entry" -o "$cached.part" --wit "$repo/wit"
        fi
        end=$(date +%s.%N)
        find "$cache" -maxdepth 1 -name "$name-*.wasm" -delete
        mv "$cached.part" "$cached"
        awk -v n="$name" -v a="$start" -v b="$end" 'BEGIN {
            printf "build-js-plugin: %s.wasm built in %.1f s\n", n, b - a > "/dev/stderr" }'
    fi
    cp "$cached" "$out_dir/$name.wasm"
    echo "$out_dir/$name.wasm"
done
