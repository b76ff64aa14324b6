#!/usr/bin/env bash
# Installs Debian's redis-server at the versions pinned in
# tests/redis/debian-packages.txt; the store's tests (store/tests/all/,
# server.rs) start it on 127.0.0.1 on a free port with no persistence
# (`--save ''`), run the conformance suite against it, and stop and restart
# it mid-use. Idempotent: when dpkg-query shows every package installed at
# its pinned version, apt-get is not run. The package's own service is not
# started: a policy-rc.d that refuses every start is in place while it
# installs.
#
# Prints the path of the redis-server binary on stdout (everything else goes
# to stderr), so callers can do:
#   MCP_WASM_HOST_REDIS="$(scripts/setup-redis.sh)"
# shellcheck source=lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh" || exit 1

list="$repo/tests/redis/debian-packages.txt"

# shellcheck source=lib/debian-pins.sh
. "$repo/scripts/lib/debian-pins.sh"
forbid_service_starts
install_pinned setup-redis "$list"

redis=/usr/bin/redis-server
if ! "$redis" --version >/dev/null 2>&1; then
    die "$redis does not run after installing ${pins[*]}"
fi
echo "$redis"
