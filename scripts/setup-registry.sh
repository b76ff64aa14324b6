#!/usr/bin/env bash
# Installs Debian's docker-registry package (the CNCF distribution registry)
# at the version pinned in tests/registry/debian-packages.txt; the registry
# test (host/tests/all/registry.rs) runs it on 127.0.0.1 with filesystem storage
# in a temporary directory, and pushes, pulls, signs and serves plugins
# through it. Idempotent: when dpkg-query shows the package installed at its
# pinned version, apt-get is not run. Installing needs root (or sudo).
#
# Prints the path of the registry binary on stdout (everything else goes to
# stderr), so callers can do:
#   MCP_WASM_HOST_REGISTRY="$(scripts/setup-registry.sh)"
# shellcheck source=lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh" || exit 1

list="$repo/tests/registry/debian-packages.txt"

# shellcheck source=lib/debian-pins.sh
. "$repo/scripts/lib/debian-pins.sh"
install_pinned setup-registry "$list"

# The package installs the binary as /usr/bin/docker-registry; it does not
# start a service when there is no init system (and the test starts its own).
registry="$(command -v docker-registry || true)"
if [[ -z "$registry" ]] || ! "$registry" --version >/dev/null 2>&1; then
    die "docker-registry does not run after installing ${pins[*]}"
fi
echo "$registry"
