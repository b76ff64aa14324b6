#!/usr/bin/env bash
# Builds the Python tool plugins under plugins/python/ into WASI 0.2
# components with componentize-py (installed by scripts/setup-python.sh).
#
#   scripts/build-python-plugin.sh OUT_DIR [NAME...]
#
# Each plugin is a directory plugins/python/NAME whose module `app` declares
# its tools (and any resources, prompts and completions) with the SDK; it
# becomes OUT_DIR/NAME.wasm, a component of the `plugin-full` world in wit/.
# componentize-py builds the SDK's module `mcp_wasm_sdk.component`, which
# imports `app` and takes the world's exports (`Tools`, `Resources`,
# `Prompts`, `Completions`) from it or, where it defines none, from the SDK. Without NAMEs every such directory is built.
# The guest SDK, sdk-python/mcp_wasm_sdk, is on every plugin's Python path.
# componentize-py generates the `wit_world` bindings itself while building,
# so no generated code is kept in the repository.
#
# The build is the SDK's own command (sdk-python/mcp_wasm_sdk_build, what
# `mcp-wasm-sdk-build` runs once the package is installed): it copies the
# plugin's sources and the SDK to a temporary directory first, so the build
# writes nothing (such as __pycache__) into the source tree, and only those
# copies are on the guest's Python path (VIRTUAL_ENV points at an empty
# directory, as componentize-py otherwise appends the site-packages of
# `python3` on PATH, which makes the output depend on what the machine has).
# Prints the path of each component built on stdout; progress goes to stderr.
# shellcheck source=lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh" || exit 1

# shellcheck source=lib/plugin-sources.sh
. "$repo/scripts/lib/plugin-sources.sh"
plugin_sources python app.py "$@"

python="$("$repo/scripts/setup-python.sh")"

for name in "${names[@]}"; do
    src="$src_root/$name"
    wasm="$out_dir/$name.wasm"
    start=$(date +%s.%N)
    # The SDK's own build command, as a user runs it once installed.
    PYTHONPATH="$repo/sdk-python" "$python" -m mcp_wasm_sdk_build "$src" -o "$wasm" >/dev/null
    end=$(date +%s.%N)
    size=$(stat -c %s "$wasm")
    awk -v n="$name" -v s="$size" -v a="$start" -v b="$end" 'BEGIN {
        printf "build-python-plugin: %s.wasm: %.1f MB in %.1f s\n", n, s / 1e6, b - a > "/dev/stderr" }'
    echo "$wasm"
done
