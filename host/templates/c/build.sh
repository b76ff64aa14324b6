#!/usr/bin/env bash
# Builds src/*.c into dist/@NAME@.wasm, a WebAssembly component, with the C
# SDK and its build tool (see config.sh):
#   1. the tool writes the C bindings of the SDK's WIT (world `plugin-full`);
#   2. clang-19 compiles src/*.c, the SDK's sources and the bindings into a
#      wasm32-wasi (preview 1) reactor module;
#   3. the tool wraps it into a WASI 0.2 component.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=config.sh
source "$here/config.sh"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

"${tool[@]}" c-bindings "$sdk_wit" "$work/gen" --world plugin-full
"$clang" --target=wasm32-wasi -mexec-model=reactor -O2 -std=gnu17 \
    -Wall -Wextra -Werror=implicit-function-declaration \
    -Wl,--strip-debug -Wl,-z,stack-size=1048576 \
    "${sdk_cflags[@]}" -I "$sdk_src" -I "$work/gen" \
    "$here"/src/*.c "$sdk_src"/*.c "$work/gen/plugin_full.c" \
    "$work/gen/plugin_full_component_type.o" -o "$work/@NAME@.core.wasm"
mkdir -p "$here/dist"
"${tool[@]}" componentize "$work/@NAME@.core.wasm" "$here/dist/@NAME@.wasm"
