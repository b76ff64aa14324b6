#!/usr/bin/env bash
# Builds the container image ghcr.io/mcp-wasm-host/mcp-wasm-host:VERSION
# (VERSION from the workspace Cargo.toml) as an OCI image layout, from the
# static host binary and Debian's CA certificates, with
# packaging/image/build_image.py (the image's contents and config are
# described there and in docs/deploy.md):
#
#   scripts/build-image.sh [LAYOUT]
#
# LAYOUT is TARGET_DIR/image/oci by default; it is rewritten. The binary is
# MCP_WASM_HOST_INSTALLED_BIN if set, else what scripts/install-host.sh
# installs. With MCP_WASM_HOST_INSTALLED_BIN_ARM64 (the
# aarch64-unknown-linux-musl binary; scripts/release.sh sets both) the tag
# names a multi-platform image index, linux/amd64 and linux/arm64. Every
# timestamp in the image is SOURCE_DATE_EPOCH, by default the commit time of
# HEAD, so the same binaries, CA certificates, version and epoch give the
# same digest. Push it with skopeo (`--all` for both platforms), e.g.
#   skopeo copy --all oci:LAYOUT:VERSION docker://REGISTRY/mcp-wasm-host/mcp-wasm-host:VERSION
# or load it into podman with `podman pull oci:LAYOUT:VERSION`.
#
# Prints LAYOUT on stdout; the manifest digest and progress go to stderr.
# shellcheck source=lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh" || exit 1

layout="${1:-$(cargo_target_dir)/image/oci}"
bin="${MCP_WASM_HOST_INSTALLED_BIN:-}"
if [[ -z "$bin" ]]; then
    bin="$("$repo/scripts/install-host.sh")"
fi
version="$(cd "$repo" && cargo metadata --format-version 1 --no-deps |
    python3 -c 'import json, sys; print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"] == "mcp-wasm-host"))')"
epoch="${SOURCE_DATE_EPOCH:-$(git -C "$repo" log -1 --format=%ct HEAD)}"
# Debian's ca-certificates, at the version scripts/setup-image.sh pins.
ca_dir=/usr/share/ca-certificates/mozilla

arm64=()
if [[ -n "${MCP_WASM_HOST_INSTALLED_BIN_ARM64:-}" ]]; then
    arm64=(--binary-arm64 "$MCP_WASM_HOST_INSTALLED_BIN_ARM64")
fi
digest="$(python3 "$repo/packaging/image/build_image.py" --binary "$bin" "${arm64[@]}" --ca-dir "$ca_dir" \
    --version "$version" --epoch "$epoch" --out "$layout")"
say "ghcr.io/mcp-wasm-host/mcp-wasm-host:$version $digest"
echo "$layout"
