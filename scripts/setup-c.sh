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
# shellcheck source=lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh" || exit 1

list="$repo/sdk-c/debian-packages.txt"

# shellcheck source=lib/debian-pins.sh
. "$repo/scripts/lib/debian-pins.sh"
install_pinned setup-c "$list"

clang="$(command -v clang-19 || true)"
if [[ -z "$clang" ]] || ! "$clang" --version >/dev/null 2>&1; then
    die "clang-19 does not run after installing ${pins[*]}"
fi
echo "$clang"
