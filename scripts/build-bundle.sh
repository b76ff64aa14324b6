#!/usr/bin/env bash
# Builds the MCP Bundle (.mcpb) for Claude Desktop and other MCPB clients,
# one bundle for every platform whose binary it is given:
#
#   scripts/build-bundle.sh OUT_DIR [BINARY]
#   scripts/build-bundle.sh OUT_DIR [--TRIPLE BINARY]...
#
# TRIPLE is a release binary's (scripts/release.sh names them
# mcp-wasm-host-VERSION-TRIPLE[.exe]):
#   --x86_64-unknown-linux-musl BIN   (also the plain BINARY argument)
#   --aarch64-unknown-linux-musl BIN
#   --x86_64-pc-windows-gnu BIN
#   --aarch64-apple-darwin BIN
#   --x86_64-apple-darwin BIN
# With no binary it takes the static x86_64-unknown-linux-musl binary that
# scripts/install-host.sh installs.
#
#   1. checks each binary's format with scripts/lib/check-binary.py (a static
#      ELF of its CPU; a PE for x86-64 importing only Windows' DLLs; a
#      Mach-O of its CPU loading only system libraries);
#   2. stages them in the layout of scripts/lib/mcpb_bundle.py, whose paths
#      come from packaging/mcpb/manifest.json's commands:
#        server/mcp-wasm-host             the Linux launcher
#                                         (packaging/mcpb/linux-launcher.sh),
#                                         which execs the binary for
#                                         `uname -m`'s CPU:
#        server/linux-x86_64/mcp-wasm-host, server/linux-aarch64/mcp-wasm-host
#        server/darwin/mcp-wasm-host      one universal Mach-O of both macOS
#                                         binaries (llvm-lipo -create), or the
#                                         one given
#        server/win32/mcp-wasm-host.exe
#      with LICENSE and a copy of the manifest that declares only the
#      platforms given (`compatibility.platforms` and `platform_overrides`);
#   3. `mcpb validate` on the staged manifest, then `mcpb pack`, with the
#      official CLI (@anthropic-ai/mcpb, pinned in packaging/mcpb and
#      installed by scripts/setup-node.sh) on the pinned Node 22, and checks
#      that every file under server/ kept its execute bit in the archive.
#
# Writes OUT_DIR/mcp-wasm-host-VERSION.mcpb when it carries all five
# binaries, else OUT_DIR/mcp-wasm-host-VERSION-TOKENS.mcpb naming those it
# carries in the order above (linux-x86_64, linux-aarch64, windows-x86_64,
# macos-aarch64, macos-x86_64; CI's bundle is ...-linux-x86_64.mcpb), and
# prints its path on stdout; progress goes to stderr. VERSION is the
# manifest's, which tests/python/test_server_json.py keeps equal to the
# workspace's. The Windows and macOS checks need llvm-objdump, and two macOS
# binaries llvm-lipo: MCP_WASM_HOST_OBJDUMP and MCP_WASM_HOST_LIPO (which
# `. "$(scripts/setup-cross.sh)"` exports), else llvm-objdump-19 and
# llvm-lipo-19 on PATH.
# shellcheck source=lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh" || exit 1
usage() {
    echo "usage: scripts/build-bundle.sh OUT_DIR [BINARY]" >&2
    echo "       scripts/build-bundle.sh OUT_DIR [--TRIPLE BINARY]...  (TRIPLE: x86_64-unknown-linux-musl," \
        "aarch64-unknown-linux-musl, x86_64-pc-windows-gnu, aarch64-apple-darwin, x86_64-apple-darwin)" >&2
    exit 2
}
[[ $# -ge 1 ]] || usage
out="$1"
shift
binaries=()
if [[ $# -eq 1 && "$1" != --* ]]; then
    binaries+=("x86_64-unknown-linux-musl=$1")
else
    while [[ $# -gt 0 ]]; do
        [[ "$1" == --?* && $# -ge 2 ]] || usage
        binaries+=("${1#--}=$2")
        shift 2
    done
fi
if [[ ${#binaries[@]} -eq 0 ]]; then
    binaries+=("x86_64-unknown-linux-musl=$("$repo/scripts/install-host.sh")")
fi
tools=()
objdump="${MCP_WASM_HOST_OBJDUMP:-$(command -v llvm-objdump-19 || true)}"
lipo="${MCP_WASM_HOST_LIPO:-$(command -v llvm-lipo-19 || true)}"
[[ -z "$objdump" ]] || tools+=(--objdump "$objdump")
[[ -z "$lipo" ]] || tools+=(--lipo "$lipo")

node="$("$repo/scripts/setup-node.sh")"
mcpb=("$node" "$repo/packaging/mcpb/node_modules/@anthropic-ai/mcpb/dist/cli/cli.js")

stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
name="$(python3 "$repo/scripts/lib/mcpb_bundle.py" stage --manifest "$repo/packaging/mcpb/manifest.json" \
    --license "$repo/LICENSE" --stage "$stage" "${tools[@]}" "${binaries[@]}")"

say "mcpb validate"
"${mcpb[@]}" validate "$stage/manifest.json" >&2
mkdir -p "$out"
bundle="$(cd "$out" && pwd)/$name"
rm -f "$bundle"
say "mcpb pack"
"${mcpb[@]}" pack "$stage" "$bundle" >&2
if [[ ! -s "$bundle" ]]; then
    die "mcpb pack wrote no $bundle"
fi
# A client unpacks the archive's Unix modes (mcpb unpack does): a file under
# server/ without its execute bit would not start.
python3 - "$bundle" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    lost = [i.filename for i in z.infolist()
            if i.filename.startswith("server/") and not i.is_dir() and (i.external_attr >> 16) & 0o111 != 0o111]
if lost:
    sys.exit(f"build-bundle: mcpb pack left these without their execute bits: {', '.join(lost)}")
PY
echo "$bundle"
