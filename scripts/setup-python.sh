#!/usr/bin/env bash
# Creates (or reuses) the project's Python environment at <repo>/.venv and
# installs tests/python/requirements.txt into it. Idempotent: when the stamp
# file records the hash of the current requirements and python is still
# runnable, pip is not run at all. Prints the venv's python path on stdout
# (everything else goes to stderr), so callers can do:
#   PY=$(scripts/setup-python.sh)
# shellcheck source=lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh" || exit 1

venv="$repo/.venv"
req="$repo/tests/python/requirements.txt"
stamp="$venv/.requirements.sha256"
python="${PYTHON:-python3}"

want="$(sha256_of "$req")"

if [[ -x "$venv/bin/python" ]] && "$venv/bin/python" -c '' 2>/dev/null \
    && stamped "$stamp" "$want"; then
    echo "$venv/bin/python"
    exit 0
fi

if ! [[ -x "$venv/bin/python" ]] || ! "$venv/bin/python" -c '' 2>/dev/null; then
    say "creating $venv with $("$python" --version 2>&1)"
    rm -rf "$venv"
    "$python" -m venv "$venv"
fi

say "installing $req"
rm -f "$stamp"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    --no-input -r "$req" >&2
echo "$want" > "$stamp"
echo "$venv/bin/python"
