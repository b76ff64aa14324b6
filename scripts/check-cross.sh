#!/usr/bin/env bash
# CI's check of the other platforms' code: `cargo check --target TRIPLE` of
# the server (mcp-wasm-host, with the runtime and the store) for each
# triple, with rustc's warnings as errors in the workspace's own crates. It
# compiles no machine code (metadata only), so each platform's `cfg` paths
# (Windows' and macOS' own code, and Unix code that is Linux-only, such as
# accept4) are checked without a cross build. Clippy's lints do not depend
# on the platform and run in CI's own clippy step. It needs rustup's
# standard libraries and the C compilers of the build scripts (ring, zstd):
# MinGW's gcc, or Zig through cargo-zigbuild, which
# `scripts/setup-cross.sh --check` installs.
#
#   scripts/check-cross.sh [TRIPLE...]
#
# Without TRIPLE: x86_64-pc-windows-gnu aarch64-apple-darwin, what CI checks
# (scripts/test.sh): the code that differs most from Linux's. The release's
# other triples compile the same `cfg` paths as one of these or as the
# machine's own (aarch64 Linux as x86_64 Linux, x86_64 macOS as arm64
# macOS); scripts/release.sh builds all of them. Each triple is checked into
# its own subdirectory of the target directory (cargo keeps triples apart),
# and the host-side build scripts and proc macros are those of the test build.
# shellcheck source=lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh" || exit 1
triples=("$@")
if [[ ${#triples[@]} -eq 0 ]]; then
    triples=(x86_64-pc-windows-gnu aarch64-apple-darwin)
fi
setup=(--check)
for triple in "${triples[@]}"; do
    case "$triple" in
        x86_64-pc-windows-gnu | aarch64-apple-darwin) ;;
        aarch64-unknown-linux-musl | x86_64-apple-darwin) setup=() ;;
        *) die "$triple: not a triple scripts/release.sh builds" ;;
    esac
done
# shellcheck disable=SC1090 # written by setup-cross.sh
. "$("$repo/scripts/setup-cross.sh" "${setup[@]}")"
for triple in "${triples[@]}"; do
    # Warnings as errors for this triple's crates only: cargo caps the lints
    # of dependencies from crates.io, and the host's build scripts and proc
    # macros keep the flags of the test build, which they are shared with.
    flags_var="CARGO_TARGET_$(tr 'a-z-' 'A-Z_' <<<"$triple")_RUSTFLAGS"
    case "$triple" in
        *-apple-darwin | aarch64-unknown-linux-musl)
            # ring's and zstd's build scripts compile C for the triple: Zig's
            # cc (as scripts/install-host.sh builds these triples).
            say "cargo zigbuild's check --target $triple"
            (cd "$repo" && env "$flags_var=-Dwarnings" "$MCP_WASM_HOST_ZIGBUILD" check --quiet --locked \
                --target "$triple" -p mcp-wasm-host)
            ;;
        *)
            say "cargo check --target $triple"
            (cd "$repo" && env "$flags_var=-Dwarnings" cargo check --quiet --locked --target "$triple" \
                -p mcp-wasm-host)
            ;;
    esac
done
