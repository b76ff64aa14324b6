#!/usr/bin/env bash
# Installs Debian's chromium package at the version pinned in
# tests/apps/debian-packages.txt (`package=version` lines); the MCP Apps
# test (host/tests/apps.rs) renders a plugin's interactive view in it,
# headless. Idempotent: when dpkg-query shows every package installed at its
# pinned version, apt-get is not run. Installing needs root (or sudo) and the
# Debian archive (the pinned version comes from bookworm-security).
#
# Prints the path of the chromium binary on stdout (everything else goes to
# stderr), so callers can do:
#   MCP_WASM_HOST_CHROMIUM="$(scripts/setup-chromium.sh)"
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
list="$repo/tests/apps/debian-packages.txt"

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
        echo "setup-chromium: apt-get not found; install these Debian packages: ${missing[*]}" >&2
        exit 1
    fi
    sudo=()
    if [[ "$(id -u)" != 0 ]]; then
        sudo=(sudo)
    fi
    echo "setup-chromium: installing ${missing[*]}" >&2
    if ! "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}" >&2; then
        echo "setup-chromium: apt-get install failed; updating the package lists and retrying" >&2
        "${sudo[@]}" apt-get update >&2
        "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}" >&2
    fi
fi

chromium="$(command -v chromium || true)"
if [[ -z "$chromium" ]] || ! "$chromium" --headless --no-sandbox --version >/dev/null 2>&1; then
    echo "setup-chromium: chromium does not run after installing ${pins[*]}" >&2
    exit 1
fi
echo "$chromium"
