#!/usr/bin/env bash
# Installs mcp-wasm-host the way a user does with `cargo install`, from the
# crate `cargo package -p mcp-wasm-host` makes (not from the workspace), as a
# static binary (x86_64-unknown-linux-musl), which runs on any Linux x86_64
# and is what the container image and the MCP bundle carry:
#   1. cargo package: the crate file, with the templates of `new`, the WIT
#      and the Cargo.lock it is tested with;
#   2. the crate is unpacked outside the clone and `cargo install --locked
#      --path` builds and installs it into ROOT (its bin/mcp-wasm-host).
#
#   scripts/install-host.sh [ROOT]
#
# ROOT is TARGET_DIR/installed-host by default. The build shares the
# workspace's target directory (CARGO_TARGET_DIR, as scripts/test.sh sets
# it), so only the host crate itself is compiled again when it changed.
# Prints the installed binary's path on stdout; progress goes to stderr.
# shellcheck source=lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh" || exit 1
target="$(cargo_target_dir)"
root="${1:-$target/installed-host}"
triple=x86_64-unknown-linux-musl

CC_x86_64_unknown_linux_musl="$("$repo/scripts/setup-musl.sh")"
export CC_x86_64_unknown_linux_musl
export CARGO_TARGET_DIR="$target"

say "cargo package -p mcp-wasm-host"
(cd "$repo" && cargo package --quiet --locked --allow-dirty --no-verify -p mcp-wasm-host >&2)
version="$(cd "$repo" && cargo metadata --format-version 1 --no-deps |
    python3 -c 'import json, sys; print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"] == "mcp-wasm-host"))')"
crate="$target/package/mcp-wasm-host-$version.crate"

# Unpacked at a fixed place outside any workspace, so cargo sees the same
# sources at the same path and rebuilds only what changed.
# The crate is unpacked again only when its bytes changed, so that an
# unchanged host is not compiled again (unpacking gives the files new times).
src="$cache_root/host-crate"
stamp="$src/.crate.sha256"
want="$(sha256_of "$crate")"
if ! stamped "$stamp" "$want"; then
    rm -rf "$src"
    mkdir -p "$src"
    tar -xzf "$crate" -C "$src"
    echo "$want" > "$stamp"
fi

say "cargo install --locked --target $triple --root $root"
cargo install --quiet --locked --force --target "$triple" --root "$root" \
    --path "$src/mcp-wasm-host-$version" >&2
bin="$root/bin/mcp-wasm-host"
if ! "$bin" --version >/dev/null; then
    die "$bin does not run"
fi
echo "$bin"
