#!/usr/bin/env bash
# The cheap CI check of the release platforms: `cargo clippy --target TRIPLE`
# of the server (mcp-wasm-host, with the runtime and the store) for each
# triple scripts/release.sh builds but the machine's own, with warnings as
# errors. It compiles no machine code (check metadata only), so a platform's
# `cfg` paths are checked without a cross build, and it needs only rustup's
# standard libraries and the C compilers of the build scripts (ring, zstd):
# MinGW's gcc, or Zig through cargo-zigbuild, which scripts/setup-cross.sh
# installs.
#
#   scripts/check-cross.sh [TRIPLE...]
#
# Without TRIPLE: aarch64-unknown-linux-musl x86_64-pc-windows-gnu
# aarch64-apple-darwin x86_64-apple-darwin. Each triple is checked into its own
# subdirectory of the target directory (cargo keeps triples apart).
# shellcheck source=lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh" || exit 1
triples=("$@")
if [[ ${#triples[@]} -eq 0 ]]; then
    triples=(aarch64-unknown-linux-musl x86_64-pc-windows-gnu aarch64-apple-darwin x86_64-apple-darwin)
fi
# shellcheck disable=SC1090 # written by setup-cross.sh
. "$("$repo/scripts/setup-cross.sh")"
for triple in "${triples[@]}"; do
    case "$triple" in
        *-apple-darwin | aarch64-unknown-linux-musl)
            # ring's and zstd's build scripts compile C for the triple: Zig's
            # cc (as scripts/install-host.sh builds these triples).
            say "cargo zigbuild's clippy --target $triple"
            (cd "$repo" && "$MCP_WASM_HOST_ZIGBUILD" clippy --locked --target "$triple" \
                -p mcp-wasm-host -- -D warnings)
            ;;
        *)
            say "cargo clippy --target $triple"
            (cd "$repo" && cargo clippy --locked --target "$triple" -p mcp-wasm-host -- -D warnings)
            ;;
    esac
done
