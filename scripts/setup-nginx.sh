#!/usr/bin/env bash
# Installs Debian's nginx at the versions pinned in
# tests/replicas/debian-packages.txt; the replica test (host/tests/all/replicas.rs)
# starts it on 127.0.0.1 with a configuration of its own, as the load
# balancer in front of three `serve --http --stateless` replicas. Idempotent:
# when dpkg-query shows every package installed at its pinned version,
# apt-get is not run. The package's own service is not started: a
# policy-rc.d that refuses every start is in place while it installs.
#
# Prints the path of the nginx binary on stdout (everything else goes to
# stderr), so callers can do:
#   MCP_WASM_HOST_NGINX="$(scripts/setup-nginx.sh)"
# shellcheck source=lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh" || exit 1

list="$repo/tests/replicas/debian-packages.txt"

# shellcheck source=lib/debian-pins.sh
. "$repo/scripts/lib/debian-pins.sh"
forbid_service_starts
install_pinned setup-nginx "$list"

nginx=/usr/sbin/nginx
if ! "$nginx" -v >/dev/null 2>&1; then
    die "$nginx does not run after installing ${pins[*]}"
fi
echo "$nginx"
