#!/bin/sh
# mcp-wasm-host's Linux launcher in the MCP Bundle (scripts/build-bundle.sh
# installs it where the manifest's Linux command points, server/mcp-wasm-host).
# The manifest format has no field for the CPU, so the bundle carries one
# static binary per Linux CPU, each at linux-CPU/mcp-wasm-host beside this
# file, and this picks the one for this machine (`uname -m`) and execs it,
# so its stdio and signals are the client's. With no binary for this CPU it
# exits 1 with one line on stderr naming the CPU and the ones it carries;
# stdout stays empty (it is the MCP channel).
case "$0" in
    */*) here=${0%/*} ;;
    *) here=. ;;
esac
machine=$(uname -m 2>/dev/null) || machine=
case "$machine" in
    x86_64 | amd64) cpu=x86_64 ;;
    aarch64 | arm64) cpu=aarch64 ;;
    *) cpu= ;;
esac
if [ -n "$cpu" ] && [ -x "$here/linux-$cpu/mcp-wasm-host" ]; then
    exec "$here/linux-$cpu/mcp-wasm-host" "$@"
fi
carried=
for binary in "$here"/linux-*/mcp-wasm-host; do
    if [ -x "$binary" ]; then
        name=${binary%/mcp-wasm-host}
        carried="$carried${carried:+, }${name##*/linux-}"
    fi
done
echo "mcp-wasm-host: this bundle has no Linux binary for this machine's CPU (uname -m: ${machine:-unknown}); it carries: ${carried:-none}. Build the server from source for this CPU (see the project's README)." >&2
exit 1
