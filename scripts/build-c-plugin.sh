#!/usr/bin/env bash
# Builds the C tool plugins under plugins/c/ into WASI 0.2 components with
# the project's C SDK (sdk-c):
#   1. sdk-tool writes the C bindings of the `plugin` world (wit-bindgen's
#      C generator);
#   2. clang-19 compiles plugins/c/NAME/*.c, the SDK and the bindings into a
#      wasm32-wasi (preview 1) reactor module;
#   3. sdk-tool wraps it into a component with wit-component and the
#      preview 1 reactor adapter of the wasmtime release the host runs.
#
#   scripts/build-c-plugin.sh OUT_DIR [NAME...]
#
# NAME.wasm lands in OUT_DIR; without NAMEs every plugins/c/*/ with a .c
# file is built (today: calc). The compiler comes from scripts/setup-c.sh
# (clang-19, or $MCP_WASM_HOST_C naming it).
#
# Components are cached in target/c-plugins-cache (in $CARGO_TARGET_DIR if
# set, or
# $MCP_WASM_HOST_C_CACHE) under a hash of everything the build reads: the
# plugin's files, the SDK, the build tool and the pinned packages, the WIT and
# Cargo.lock. A rerun with the same inputs only copies the file (and runs
# neither cargo nor clang); a new build removes the plugin's older ones.
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
cache="${MCP_WASM_HOST_C_CACHE:-${CARGO_TARGET_DIR:-$repo/target}/c-plugins-cache}"
mkdir -p "$cache"

if [[ $# -gt 0 ]]; then
    names=("$@")
else
    names=()
    for dir in "$repo"/plugins/c/*/; do
        compgen -G "$dir*.c" >/dev/null && names+=("$(basename "$dir")")
    done
fi
if [[ ${#names[@]} -eq 0 ]]; then
    echo "build-c-plugin: no plugins found under $repo/plugins/c" >&2
    exit 1
fi

# inputs_hash NAME: one hash over the path and contents of every file the
# build of plugins/c/NAME reads.
inputs_hash() {
    (cd "$repo" && find "plugins/c/$1" sdk-c/include sdk-c/src sdk-tool/src sdk-tool/build.rs \
        sdk-tool/Cargo.toml sdk-c/debian-packages.txt wit Cargo.lock \
        -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum) |
        sha256sum | cut -c1-16
}

work=""
cleanup() { [[ -z "$work" ]] || rm -rf "$work"; }
trap cleanup EXIT

# prepare: once per run, and only when something must be built: the
# compiler, the tool, and the bindings.
clang=""
tool=()
prepare() {
    [[ -z "$clang" ]] || return 0
    clang="${MCP_WASM_HOST_C:-}"
    if [[ -z "$clang" ]]; then
        clang="$("$repo/scripts/setup-c.sh")"
    fi
    work="$(mktemp -d)"
    tool=("${CARGO:-cargo}" run --quiet --locked --manifest-path "$repo/Cargo.toml"
        -p mcp-wasm-sdk-tool --)
    "${tool[@]}" c-bindings "$repo/wit" "$work/gen" >&2
}

for name in "${names[@]}"; do
    src="$repo/plugins/c/$name"
    if ! compgen -G "$src/*.c" >/dev/null; then
        echo "build-c-plugin: no .c files in $src" >&2
        exit 1
    fi
    cached="$cache/$name-$(inputs_hash "$name").wasm"
    if [[ -f "$cached" ]]; then
        echo "build-c-plugin: $name.wasm: unchanged, from $cached" >&2
    else
        prepare
        start=$(date +%s.%N)
        "$clang" --target=wasm32-wasi -mexec-model=reactor -O2 -std=gnu17 \
            -Wall -Wextra -Werror=implicit-function-declaration -Wl,--strip-debug -Wl,-z,stack-size=1048576 \
            -I "$repo/sdk-c/include" -I "$repo/sdk-c/src" -I "$work/gen" \
            "$src"/*.c "$repo"/sdk-c/src/*.c "$work/gen/plugin.c" \
            "$work/gen/plugin_component_type.o" -o "$work/$name.core.wasm"
        "${tool[@]}" componentize "$work/$name.core.wasm" "$cached.part" >&2
        end=$(date +%s.%N)
        find "$cache" -maxdepth 1 -name "$name-*.wasm" -delete
        mv "$cached.part" "$cached"
        awk -v n="$name" -v a="$start" -v b="$end" -v s="$(stat -c %s "$cached")" 'BEGIN {
            printf "build-c-plugin: %s.wasm built in %.1f s (%d bytes)\n", n, b - a, s > "/dev/stderr" }'
    fi
    cp "$cached" "$out_dir/$name.wasm"
    echo "$out_dir/$name.wasm"
done
