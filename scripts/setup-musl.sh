#!/usr/bin/env bash
# Installs what builds the static host binary (x86_64-unknown-linux-musl):
# the rustup target, and musl's C library and gcc wrapper from Debian at the
# versions pinned in packaging/debian-packages.txt (the crates that compile C,
# ring and zstd, need a musl C compiler). Idempotent: apt-get is not run when
# dpkg-query shows every package at its pinned version. Installing needs root
# (or sudo), the Debian archive and rustup's distribution server.
#
# Prints the C compiler (musl-gcc) on stdout (everything else goes to
# stderr), so callers can do:
#   export CC_x86_64_unknown_linux_musl="$(scripts/setup-musl.sh)"
# shellcheck source=lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh" || exit 1

list="$repo/packaging/debian-packages.txt"

# shellcheck source=lib/debian-pins.sh
. "$repo/scripts/lib/debian-pins.sh"
install_pinned setup-musl "$list"

if ! rustup target list --installed 2>/dev/null | grep -qx x86_64-unknown-linux-musl; then
    rustup target add x86_64-unknown-linux-musl >&2
fi

cc="$(command -v musl-gcc || true)"
if [[ -z "$cc" ]] || ! "$cc" --version >/dev/null 2>&1; then
    die "musl-gcc does not run after installing ${pins[*]}"
fi
echo "$cc"
