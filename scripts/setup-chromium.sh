#!/usr/bin/env bash
# Installs Debian's chromium package at the version pinned in
# tests/apps/debian-packages.txt (`package=version` lines); the MCP Apps
# test (host/tests/all/apps.rs) renders a plugin's interactive view in it,
# headless. Idempotent: when dpkg-query shows every package installed at its
# pinned version, apt-get is not run. Installing needs root (or sudo) and the
# Debian archive (the pinned version comes from bookworm-security).
#
# Prints the path of the chromium binary on stdout (everything else goes to
# stderr), so callers can do:
#   MCP_WASM_HOST_CHROMIUM="$(scripts/setup-chromium.sh)"
# shellcheck source=lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh" || exit 1

list="$repo/tests/apps/debian-packages.txt"

# shellcheck source=lib/debian-pins.sh
. "$repo/scripts/lib/debian-pins.sh"
install_pinned setup-chromium "$list"

chromium="$(command -v chromium || true)"
if [[ -z "$chromium" ]] || ! "$chromium" --headless --no-sandbox --version >/dev/null 2>&1; then
    die "chromium does not run after installing ${pins[*]}"
fi
echo "$chromium"
