#!/usr/bin/env bash
# Installs what builds, pushes and runs the container image
# (scripts/build-image.sh, tests/python/test_image.py): Debian's
# ca-certificates, skopeo, podman and runc at the versions pinned in
# packaging/image/debian-packages.txt. Idempotent: when dpkg-query shows
# every package at its pinned version, apt-get is not run. Installing needs
# root (or sudo).
#
# Prints the path of podman on stdout (skopeo and runc are beside it; what
# was installed goes to stderr), so callers can do:
#   MCP_WASM_HOST_PODMAN="$(scripts/setup-image.sh)"
# shellcheck source=lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh" || exit 1

list="$repo/packaging/image/debian-packages.txt"

# shellcheck source=lib/debian-pins.sh
. "$repo/scripts/lib/debian-pins.sh"
install_pinned setup-image "$list"

for tool in podman skopeo runc; do
    if ! command -v "$tool" >/dev/null 2>&1 || ! "$tool" --version >/dev/null 2>&1; then
        die "$tool does not run after installing ${pins[*]}"
    fi
done
say "$(podman --version), $(skopeo --version), $(runc --version | head -1)"
command -v podman
