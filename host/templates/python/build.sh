#!/usr/bin/env bash
# Builds src/app.py into dist/@NAME@.wasm, a WebAssembly component, with the
# Python SDK's mcp-wasm-sdk-build (componentize-py inside) from this project's
# own virtual environment, .venv, which it makes from requirements.txt the
# first time and again whenever requirements.txt changes. pip reads its usual
# settings: PIP_INDEX_URL, PIP_FIND_LINKS (a directory of wheels) and pip.conf.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venv="$here/.venv"
stamp="$venv/.requirements.sha256"
want="$(sha256sum "$here/requirements.txt" | cut -d' ' -f1)"
if [[ ! -f "$stamp" ]] || [[ "$(cat "$stamp")" != "$want" ]]; then
    echo "build.sh: installing requirements.txt into .venv" >&2
    "${PYTHON:-python3}" -m venv "$venv"
    if ! "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt"; then
        echo "build.sh: cannot install the Python SDK this project was made for ($(grep -m1 '^[^#]' "$here/requirements.txt") in requirements.txt)." >&2
        echo "build.sh: point pip at a package index or a wheel directory that has it (PIP_INDEX_URL, PIP_FIND_LINKS), or edit requirements.txt to the SDK version you have." >&2
        exit 1
    fi
    echo "$want" > "$stamp"
fi

mkdir -p "$here/dist"
"$venv/bin/mcp-wasm-sdk-build" "$here/src" -o "$here/dist/@NAME@.wasm" >/dev/null
echo "build.sh: dist/@NAME@.wasm" >&2
