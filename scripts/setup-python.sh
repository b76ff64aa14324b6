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

# What the tests and scripts need of the interpreter: Python 3.11 with
# tarfile's extraction filters (`filter="data"`), which came in 3.11.4
# (Debian 12's own python3, 3.11.2, lacks them; the tests then fail deep in
# a fixture with a TypeError). A venv made with an older one is made again.
# shellcheck disable=SC2016 # Python, not shell
suitable='import sys, tarfile; sys.exit(0 if sys.version_info >= (3, 11) and hasattr(tarfile, "data_filter") else 1)'
if ! "$python" -c "$suitable" 2>/dev/null; then
    die "$python ($("$python" --version 2>&1 || echo "not found")) is older than the tests need: Python 3.11.4" \
        "or later (tarfile's extraction filters); put one first on PATH or set PYTHON to it"
fi
if [[ -x "$venv/bin/python" ]] && ! "$venv/bin/python" -c "$suitable" 2>/dev/null; then
    say "$venv was made with an older Python; making it again"
    rm -rf "$venv"
fi

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
