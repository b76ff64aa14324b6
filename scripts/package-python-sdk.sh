#!/usr/bin/env bash
# Builds the Python SDK's wheel, mcp_wasm_sdk-VERSION-py3-none-any.whl, into
# OUT_DIR: a copy of sdk-python/ with the plugin WIT (wit/plugin.wit) put
# inside its build package (mcp_wasm_sdk_build), built by the project venv's pinned setuptools without
# build isolation (no index is asked). Prints the wheel's path on stdout.
#
#   scripts/package-python-sdk.sh OUT_DIR
set -euo pipefail
if [[ $# -ne 1 ]]; then
    echo "usage: $0 OUT_DIR" >&2
    exit 2
fi
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
mkdir -p "$1"
out="$(cd "$1" && pwd)"
python="$("$repo/scripts/setup-python.sh")"
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
(cd "$repo/sdk-python" && tar --exclude=__pycache__ --exclude='*.pyc' --exclude='*.egg-info' -cf - .) | tar -xf - -C "$stage"
mkdir -p "$stage/mcp_wasm_sdk_build/wit"
cp "$repo/wit/plugin.wit" "$stage/mcp_wasm_sdk_build/wit/"
"$python" -m pip wheel --quiet --disable-pip-version-check --no-deps --no-build-isolation \
    --wheel-dir "$out" "$stage" >&2
ls "$out"/mcp_wasm_sdk-*.whl
