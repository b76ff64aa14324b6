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
# file is built (today: calc, and stats, its schemas written with
# MCP_FIELDS). The compiler comes from scripts/setup-c.sh (clang-19, or
# $MCP_WASM_HOST_C naming it).
#
# A plugin directory with its own wit/ is a plain-WIT component, built
# without the SDK: step 1 writes the bindings of the world NAME of that WIT
# package instead (NAME.h and NAME.c, which the plugin's C includes), and
# step 3 also adds the package's doc comments as a `package-docs` section,
# so the host describes each exported function with them
# (docs/generic-components.md). tests/python/test_plain_wit.py builds
# tests/python/plain_wit_c/plainc this way
# (MCP_WASM_HOST_PLUGIN_SRC=tests/python/plain_wit_c).
#
# Components are cached in target/c-plugins-cache (in $CARGO_TARGET_DIR if
# set, or $MCP_WASM_HOST_C_CACHE) under a hash of everything the build reads: the
# plugin's files, the SDK, the build tool and the pinned packages, the WIT,
# Cargo.lock and the build scripts. A rerun with the same inputs only copies the file (and runs
# neither cargo nor clang); a new build removes the plugin's older ones.
# Prints the path of each component on stdout; progress goes to stderr.
# shellcheck source=lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh" || exit 1
# shellcheck source=lib/compiled-plugins.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/compiled-plugins.sh"
plugins_setup build-c-plugin c '*.c' MCP_WASM_HOST_C_CACHE "$@"

# prepare: once per run, and only when something must be built: the
# compiler and the work directory.
clang=""
prepare() {
    [[ -z "$clang" ]] || return 0
    clang="${MCP_WASM_HOST_C:-}"
    if [[ -z "$clang" ]]; then
        clang="$("$repo/scripts/setup-c.sh")"
    fi
    plugins_workdir
}

# A wasm32-wasi (preview 1) reactor module, as wit-component wants it.
cflags=(--target=wasm32-wasi -mexec-model=reactor -O2 -std=gnu17
    -Wall -Wextra -Werror=implicit-function-declaration -Wl,--strip-debug -Wl,-z,stack-size=1048576)

# build NAME OUTPUT: compiles plugins/c/NAME into the component OUTPUT.
build() {
    local name="$1" src="$src_root/$1"
    prepare
    if [[ -d "$src/wit" ]]; then
        build_plain "$@"
        return
    fi
    [[ -d "$work/gen" ]] || sdk_tool c-bindings "$repo/wit" "$work/gen" --world plugin-full >&2
    "$clang" "${cflags[@]}" -I "$repo/sdk-c/include" -I "$repo/sdk-c/src" -I "$work/gen" \
        "$src"/*.c "$repo"/sdk-c/src/*.c "$work/gen/plugin_full.c" \
        "$work/gen/plugin_full_component_type.o" -o "$work/$name.core.wasm"
    sdk_tool componentize "$work/$name.core.wasm" "$2" >&2
}

# build_plain NAME OUTPUT: compiles the plain-WIT component NAME (its
# world NAME in its own wit/, no SDK) into OUTPUT, with its docs.
build_plain() {
    local name="$1" src="$src_root/$1" gen="$work/gen-$1" c_name="${1//-/_}"
    sdk_tool c-bindings "$src/wit" "$gen" --world "$name" >&2
    "$clang" "${cflags[@]}" -I "$gen" "$src"/*.c "$gen/$c_name.c" \
        "$gen/${c_name}_component_type.o" -o "$work/$name.core.wasm"
    sdk_tool componentize "$work/$name.core.wasm" "$2" --docs "$src/wit" >&2
}

for name in "${names[@]}"; do
    if [[ -d "$src_root/$name/wit" ]]; then
        sdk=()
    else
        sdk=(sdk-c/include sdk-c/src sdk-c/vendor wit)
    fi
    plugins_build "$name" "$(plugins_hash "$src_rel/$name" "${sdk[@]}" \
        sdk-tool/src sdk-tool/build.rs sdk-tool/Cargo.toml sdk-c/debian-packages.txt \
        Cargo.lock scripts/build-c-plugin.sh scripts/lib/compiled-plugins.sh)" build
done
