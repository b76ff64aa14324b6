#!/usr/bin/env bash
# Builds src/app.py into dist/@NAME@.wasm, a WebAssembly component, with
# componentize-py and the Python SDK of the mcp-wasm-host checkout below.
set -euo pipefail

# The mcp-wasm-host checkout this project was made from (`mcp-wasm-host new --sdk`).
sdk="@SDK@"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

# componentize-py: $COMPONENTIZE_PY, else the one the checkout's
# scripts/setup-python.sh installed, else the one on PATH.
componentize_py="${COMPONENTIZE_PY:-$sdk/.venv/bin/componentize-py}"
if [[ ! -x "$componentize_py" ]]; then
    componentize_py="$(command -v componentize-py || true)"
fi
if [[ -z "$componentize_py" ]]; then
    echo "build.sh: componentize-py not found: run $sdk/scripts/setup-python.sh, or put componentize-py on PATH" >&2
    exit 1
fi

# Only src/ and the SDK are on the guest's Python path: componentize-py would
# also add the site-packages of the virtualenv in $VIRTUAL_ENV, so that names
# an empty one.
empty="$(mktemp -d)"
trap 'rm -rf "$empty"' EXIT
mkdir -p "$empty/lib/site-packages" "$here/dist"
cd "$here"
# The SDK's entry module imports src/app.py and takes the world's exports
# from it (or the SDK's own, which serve no resources or prompts).
VIRTUAL_ENV="$empty" "$componentize_py" --quiet -d "$sdk/wit" -w plugin-full \
    componentize --python-path "$here/src" --python-path "$sdk/sdk-python" mcp_wasm_sdk.component \
    -o "dist/@NAME@.wasm"
echo "build.sh: dist/@NAME@.wasm" >&2
