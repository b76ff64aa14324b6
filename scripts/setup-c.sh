#!/usr/bin/env bash
# Installs the Debian packages that build C tool plugins, at the versions
# pinned in sdk-c/debian-packages.txt (`package=version` lines): clang-19,
# lld-19, the wasm32 compiler runtime and wasi-libc. Idempotent: when
# dpkg-query shows every package installed at its pinned version, apt-get is
# not run. Installing needs root (or sudo) and the Debian archive.
#
# Prints the path of clang-19 on stdout (everything else goes to stderr), so
# callers can do:
#   MCP_WASM_HOST_C="$(scripts/setup-c.sh)"
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
list="$repo/sdk-c/debian-packages.txt"

pins=()
missing=()
while read -r line; do
    line="${line%%#*}"
    line="${line//[[:space:]]/}"
    [[ -n "$line" ]] || continue
    pins+=("$line")
    name="${line%%=*}"
    want="${line#*=}"
    have="$(dpkg-query -W -f='${Status} ${Version}' "$name" 2>/dev/null || true)"
    if [[ "$have" != "install ok installed $want" ]]; then
        missing+=("$line")
    fi
done < "$list"

if [[ ${#missing[@]} -gt 0 ]]; then
    if ! command -v apt-get >/dev/null 2>&1; then
        echo "setup-c: apt-get not found; install these Debian packages: ${missing[*]}" >&2
        exit 1
    fi
    sudo=()
    if [[ "$(id -u)" != 0 ]]; then
        sudo=(sudo)
    fi
    echo "setup-c: installing ${missing[*]}" >&2
    if ! "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}" >&2; then
        echo "setup-c: apt-get install failed; updating the package lists and retrying" >&2
        "${sudo[@]}" apt-get update >&2
        "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}" >&2
    fi
fi

clang="$(command -v clang-19 || true)"
if [[ -z "$clang" ]] || ! "$clang" --version >/dev/null 2>&1; then
    echo "setup-c: clang-19 does not run after installing ${pins[*]}" >&2
    exit 1
fi
echo "$clang"
