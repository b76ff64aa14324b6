#!/usr/bin/env bash
# Creates (or reuses) the project's Python environment at <repo>/.venv and
# installs tests/python/requirements.txt into it. Idempotent: when the stamp
# file records the hash of the current requirements and python is still
# runnable, pip is not run at all. Prints the venv's python path on stdout
# (everything else goes to stderr), so callers can do:
#   PY=$(scripts/setup-python.sh)
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$repo/.venv"
req="$repo/tests/python/requirements.txt"
stamp="$venv/.requirements.sha256"
python="${PYTHON:-python3}"

want="$(sha256sum "$req" | cut -d' ' -f1)"

if [[ -x "$venv/bin/python" ]] && "$venv/bin/python" -c '' 2>/dev/null \
    && [[ -f "$stamp" ]] && [[ "$(cat "$stamp")" == "$want" ]]; then
    echo "$venv/bin/python"
    exit 0
fi

if ! [[ -x "$venv/bin/python" ]] || ! "$venv/bin/python" -c '' 2>/dev/null; then
    echo "setup-python: creating $venv with $("$python" --version 2>&1)" >&2
    rm -rf "$venv"
    "$python" -m venv "$venv"
fi

echo "setup-python: installing $req" >&2
rm -f "$stamp"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    --no-input -r "$req" >&2
echo "$want" > "$stamp"
echo "$venv/bin/python"
