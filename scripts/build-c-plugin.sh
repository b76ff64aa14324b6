#!/usr/bin/env bash
# Builds the C tool plugins under plugins/c/ into WASI 0.2 components with
# the project's C SDK (sdk-c):
#   1. sdk-tool writes the C bindings of the `plugin-full` world (wit-bindgen's
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
# set, or $MCP_WASM_HOST_C_CACHE) under a hash of everything the build reads: the
# plugin's files, the SDK, the build tool and the pinned packages, the WIT,
# Cargo.lock and the build scripts. A rerun with the same inputs only copies the file (and runs
# neither cargo nor clang); a new build removes the plugin's older ones.
# Prints the path of each component on stdout; progress goes to stderr.
set -euo pipefail
# shellcheck source=lib/compiled-plugins.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/compiled-plugins.sh"
plugins_setup build-c-plugin c '*.c' MCP_WASM_HOST_C_CACHE "$@"

# prepare: once per run, and only when something must be built: the
# compiler, the tool, and the bindings.
clang=""
prepare() {
    [[ -z "$clang" ]] || return 0
    clang="${MCP_WASM_HOST_C:-}"
    if [[ -z "$clang" ]]; then
        clang="$("$repo/scripts/setup-c.sh")"
    fi
    plugins_workdir
    sdk_tool c-bindings "$repo/wit" "$work/gen" --world plugin-full >&2
}

# build NAME OUTPUT: compiles plugins/c/NAME into the component OUTPUT.
build() {
    local name="$1" src="$src_root/$1"
    prepare
    "$clang" --target=wasm32-wasi -mexec-model=reactor -O2 -std=gnu17 \
        -Wall -Wextra -Werror=implicit-function-declaration -Wl,--strip-debug -Wl,-z,stack-size=1048576 \
        -I "$repo/sdk-c/include" -I "$repo/sdk-c/src" -I "$work/gen" \
        "$src"/*.c "$repo"/sdk-c/src/*.c "$work/gen/plugin_full.c" \
        "$work/gen/plugin_full_component_type.o" -o "$work/$name.core.wasm"
    sdk_tool componentize "$work/$name.core.wasm" "$2" >&2
}

for name in "${names[@]}"; do
    plugins_build "$name" "$(plugins_hash "$src_rel/$name" sdk-c/include sdk-c/src \
        sdk-tool/src sdk-tool/build.rs sdk-tool/Cargo.toml sdk-c/debian-packages.txt wit \
        Cargo.lock scripts/build-c-plugin.sh scripts/lib/compiled-plugins.sh)" build
done
