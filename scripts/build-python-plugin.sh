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
#
# A plugin directory with its own wit/ is a plain-WIT component, built
# without the SDK: componentize-py builds its module `app` against the world
# NAME of that WIT package, which may import the vendored WASI WIT of
# wit/wasi/ (scripts/lib/plain-wit.sh), the way a componentize-py user
# builds a component. host/tests/all/keyvalue_languages.rs builds
# plugins/testing-generic/python/pynotes this way
# (MCP_WASM_HOST_PLUGIN_SRC=plugins/testing-generic/python).
# Prints the path of each component built on stdout; progress goes to stderr.
# shellcheck source=lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh" || exit 1

# shellcheck source=lib/plugin-sources.sh
. "$repo/scripts/lib/plugin-sources.sh"
# shellcheck source=lib/plain-wit.sh
. "$repo/scripts/lib/plain-wit.sh"
plugin_sources python app.py "$@"

python="$("$repo/scripts/setup-python.sh")"

# build_plain NAME OUTPUT: builds the plain-WIT component NAME (its module
# `app`, its world NAME) into OUTPUT with componentize-py, from a copy of
# its sources (so nothing is written into the tree) with only that copy on
# the guest's Python path (VIRTUAL_ENV names an empty directory, as the SDK's
# build does).
work=""
build_plain() {
    local src="$src_root/$1" stage
    if [[ -z "$work" ]]; then
        work="$(mktemp -d)"
        trap 'rm -rf "$work"' EXIT
    fi
    stage="$work/$1"
    mkdir "$stage"
    cp -r "$src" "$stage/src"
    rm -rf "$stage/src/wit"
    find "$stage/src" -name __pycache__ -prune -exec rm -rf {} +
    plain_wit "$src/wit" "$stage/wit"
    mkdir -p "$stage/venv/lib/site-packages"
    (cd "$stage/src" && VIRTUAL_ENV="$stage/venv" "$(dirname "$python")/componentize-py" --quiet \
        -d "$stage/wit" -w "$1" componentize --python-path "$stage/src" app -o "$2") >&2
}

for name in "${names[@]}"; do
    src="$src_root/$name"
    wasm="$out_dir/$name.wasm"
    start=$(date +%s.%N)
    if [[ -d "$src/wit" ]]; then
        build_plain "$name" "$wasm"
    else
        # The SDK's own build command, as a user runs it once installed.
        PYTHONPATH="$repo/sdk-python" "$python" -m mcp_wasm_sdk_build "$src" -o "$wasm" >/dev/null
    fi
    end=$(date +%s.%N)
    size=$(stat -c %s "$wasm")
    awk -v n="$name" -v s="$size" -v a="$start" -v b="$end" 'BEGIN {
        printf "build-python-plugin: %s.wasm: %.1f MB in %.1f s\n", n, s / 1e6, b - a > "/dev/stderr" }'
    echo "$wasm"
done
