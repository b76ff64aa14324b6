#!/usr/bin/env bash
# Builds the MCP Bundle (.mcpb) for Claude Desktop and other MCPB clients:
#   1. stages packaging/mcpb/manifest.json, LICENSE and the static
#      x86_64-unknown-linux-musl binary as server/mcp-wasm-host (the one
#      scripts/install-host.sh installs, or BINARY);
#   2. `mcpb validate` on the staged manifest, then `mcpb pack`, with the
#      official CLI (@anthropic-ai/mcpb, pinned in packaging/mcpb and
#      installed by scripts/setup-node.sh) on the pinned Node 22.
#
#   scripts/build-bundle.sh OUT_DIR [BINARY]
#
# Writes OUT_DIR/mcp-wasm-host-VERSION-linux-x86_64.mcpb and prints its path
# on stdout; progress goes to stderr. VERSION is the manifest's, which
# tests/python/test_bundle.py keeps equal to the workspace's.
# shellcheck source=lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh" || exit 1
if [[ $# -lt 1 || $# -gt 2 ]]; then
    echo "usage: scripts/build-bundle.sh OUT_DIR [BINARY]" >&2
    exit 2
fi
out="$1"
bin="${2:-}"
if [[ -z "$bin" ]]; then
    bin="$("$repo/scripts/install-host.sh")"
fi
if [[ ! -x "$bin" ]]; then
    die "$bin is not an executable file"
fi
# The manifest declares Linux only and no runtime: the binary must run on
# any Linux x86_64, so it is a static ELF for x86-64 (no interpreter).
python3 - "$bin" <<'EOF'
import struct, sys
path = sys.argv[1]
with open(path, "rb") as f:
    head = f.read(64)
    if head[:4] != b"\x7fELF" or head[4] != 2 or head[5] != 1:
        sys.exit(f"build-bundle: {path} is not a 64-bit little-endian ELF file")
    machine, = struct.unpack_from("<H", head, 18)
    if machine != 62:
        sys.exit(f"build-bundle: {path} is not an x86-64 binary (e_machine {machine})")
    phoff, = struct.unpack_from("<Q", head, 32)
    phentsize, phnum = struct.unpack_from("<HH", head, 54)
    f.seek(phoff)
    for _ in range(phnum):
        p_type, = struct.unpack_from("<I", f.read(phentsize), 0)
        if p_type == 3:  # PT_INTERP: linked against a dynamic loader
            sys.exit(f"build-bundle: {path} is dynamically linked; the bundle needs the static "
                     "binary scripts/install-host.sh builds (x86_64-unknown-linux-musl)")
EOF

node="$("$repo/scripts/setup-node.sh")"
mcpb=("$node" "$repo/packaging/mcpb/node_modules/@anthropic-ai/mcpb/dist/cli/cli.js")
version="$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["version"])' "$repo/packaging/mcpb/manifest.json")"

stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/server"
cp "$repo/packaging/mcpb/manifest.json" "$repo/LICENSE" "$stage/"
install -m 0755 "$bin" "$stage/server/mcp-wasm-host"

say "mcpb validate"
"${mcpb[@]}" validate "$stage/manifest.json" >&2
mkdir -p "$out"
bundle="$(cd "$out" && pwd)/mcp-wasm-host-$version-linux-x86_64.mcpb"
rm -f "$bundle"
say "mcpb pack"
"${mcpb[@]}" pack "$stage" "$bundle" >&2
if [[ ! -s "$bundle" ]]; then
    die "mcpb pack wrote no $bundle"
fi
echo "$bundle"
